//===- Passes.td - Sluice conversions -----------------------*- tablegen -*-===//
#ifndef SLUICE_CONVERSION_PASSES_TD
#define SLUICE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertCohortToLLVM : Pass<"convert-cohort-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower cohort graphs and launches to calls of the cohort runtime's C ABI";
  let description = [{
    Every `cohort.launch @g` becomes a sequence of calls into the cohort
    executor's C ABI (`runtime/include/sluice/runtime/cohort/c_api.h`):
    `sluice_cohort_graph_create(cores)`, one `sluice_cohort_add_task` per task
    (flags `SYNC_START = 1`, `ALLOW_EARLY_RESOLVE = 2`), one
    `sluice_cohort_add_dependency` per edge, `sluice_cohort_run`, and
    `sluice_cohort_graph_destroy`. A failed run prints
    `sluice: cohort graph @g failed: <runtime message>` to stderr and exits
    the process with status 1.

    Kernels must be `func.func @k(%block: index, %blocks: index)`; each gets
    an entry wrapper `@__sluice_cohort_entry_k(!llvm.ptr, i64, i64)` with the
    ABI's kernel signature. Graph ops are erased. The result still contains
    `func`, `arith` and `scf` ops; lower it further with `convert-to-llvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

#endif // SLUICE_CONVERSION_PASSES_TD
