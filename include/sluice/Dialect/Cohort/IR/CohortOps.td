//===- CohortOps.td - Gated SPMD launches --------------------*- tablegen -*-===//
//
// The `cohort` dialect describes task graphs of SPMD tasks. A task flagged
// `sync_start` is a cohort: all its blocks must start together on distinct
// cores, released by one doorbell pass.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_DIALECT_COHORT_IR_COHORTOPS_TD
#define SLUICE_DIALECT_COHORT_IR_COHORTOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

def Cohort_Dialect : Dialect {
  let name = "cohort";
  let cppNamespace = "::sluice::cohort";
  let summary = "Task graphs of SPMD tasks, some of which must start together";
  let description = [{
    A `cohort.graph` groups `cohort.task`s and their `cohort.dependency`
    edges for a machine of `cores` executors. A task runs `blocks` instances
    of its kernel. A `sync_start` task (a cohort) starts all blocks at once on
    distinct cores; `allow_early_resolve` lets consumers be pre-staged behind a
    closed gate while this task still runs. `cohort.launch` runs a graph.
  }];
}

class Cohort_Op<string mnemonic, list<Trait> traits = []>
    : Op<Cohort_Dialect, mnemonic, traits>;

def Cohort_GraphOp : Cohort_Op<"graph", [
    Symbol, SymbolTable, SingleBlock, NoTerminator, NoRegionArguments]> {
  let summary = "A task graph for a machine with `cores` executors";
  let description = [{
    ```mlir
    cohort.graph @step cores 4 {
      cohort.task @load kernel @load_kernel blocks 50 allow_early_resolve
      cohort.task @reduce kernel @reduce_kernel blocks 4 sync_start
      cohort.dependency @load -> @reduce
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       ConfinedAttr<I64Attr, [IntPositive]>:$cores);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name `cores` $cores attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def Cohort_TaskOp : Cohort_Op<"task", [
    Symbol, HasParent<"GraphOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "An SPMD task: `blocks` instances of a kernel";
  let description = [{
    The kernel is a function symbol of the enclosing module (`func.func`,
    `gpu.func` or `llvm.func`). `sync_start` requires more than one block.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, SymbolRefAttr:$kernel,
                       I64Attr:$blocks, UnitAttr:$sync_start,
                       UnitAttr:$allow_early_resolve);
  let assemblyFormat = [{
    $sym_name `kernel` $kernel `blocks` $blocks
    (`sync_start` $sync_start^)? (`allow_early_resolve` $allow_early_resolve^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def Cohort_DependencyOp : Cohort_Op<"dependency", [HasParent<"GraphOp">]> {
  let summary = "The consumer task starts after the producer task";
  let arguments = (ins FlatSymbolRefAttr:$producer, FlatSymbolRefAttr:$consumer);
  let assemblyFormat = "$producer `->` $consumer attr-dict";
  let hasVerifier = 1;
}

def Cohort_LaunchOp : Cohort_Op<"launch",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Run a task graph to completion";
  let arguments = (ins FlatSymbolRefAttr:$graph);
  let assemblyFormat = "$graph attr-dict";
}

#endif // SLUICE_DIALECT_COHORT_IR_COHORTOPS_TD
