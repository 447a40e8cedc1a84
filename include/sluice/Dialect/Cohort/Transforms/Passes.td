//===- Passes.td - Cohort verification passes ---------------*- tablegen -*-===//
#ifndef SLUICE_DIALECT_COHORT_TRANSFORMS_PASSES_TD
#define SLUICE_DIALECT_COHORT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyCohortFit : Pass<"sluice-verify-cohort-fit", "::mlir::ModuleOp"> {
  let summary = "Prove that every cohort can be co-resident and the graph is acyclic";
  let description = [{
    A `sync_start` task whose block count exceeds its graph's core count can
    never have all blocks running at once, so the graph could never complete:
    that is an error. A dependency cycle is an error that names the cycle.
  }];
  let options = [
    Option<"coresOverride", "cores", "int64_t", /*default=*/"0",
           "Check against this core count instead of each graph's `cores` (0: use the graph's)">
  ];
  let dependentDialects = ["::sluice::cohort::CohortDialect"];
}

#endif // SLUICE_DIALECT_COHORT_TRANSFORMS_PASSES_TD
