//===- Passes.td - Pool verification passes -----------------*- tablegen -*-===//
#ifndef SLUICE_DIALECT_POOL_TRANSFORMS_PASSES_TD
#define SLUICE_DIALECT_POOL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyEmissionBounds : Pass<"sluice-verify-emission-bounds", "::mlir::ModuleOp"> {
  let summary = "Prove every producer's declared emission bound";
  let description = [{
    For every main stage of every `wave.coroutine` (the code between two
    suspensions, or between the entry or a suspension and termination), this
    pass computes the largest number of `pool.publish`es into each owner along
    any control path: `scf.if` / `scf.index_switch` take the larger branch, a
    loop with a constant trip count multiplies its body, and a loop without one
    must carry `pool.max_trips = N`. Only `scf.if`, `scf.index_switch`,
    `scf.for`, `scf.while` and `scf.execute_region` are modelled: any other op
    with regions (`scf.parallel`, `scf.forall`, ...) that contains a publish or
    a suspension is an error, and so is an `scf.execute_region` of several
    blocks (a CFG) that contains one; such a region without either emits
    nothing. A stage that may publish more than the producer's `pool.emission_bound` is an error, with notes at the publishes
    of the worst path; publishing into an owner without a declared bound is an
    error as well.
  }];
  let options = [
    Option<"printBounds", "print-bounds", "bool", /*default=*/"false",
           "Emit a remark with the computed bound of every (stage, owner) pair">
  ];
  let dependentDialects = ["::sluice::pool::PoolDialect", "::sluice::wave::WaveDialect"];
}

def VerifyItemLinearity : Pass<"sluice-verify-item-linearity", "::mlir::ModuleOp"> {
  let summary = "Prove that every stage handler consumes its item exactly once";
  let description = [{
    In every `pool.handler`, each control path must move (`pool.move`) or
    release (`pool.release`) the item exactly once, and nothing may use the
    item after it was consumed. Consuming the item inside a loop, on only some
    branches, twice, or never, is an error with locations.
  }];
  let dependentDialects = ["::sluice::pool::PoolDialect"];
}

def PoolSetCapacity : Pass<"pool-set-capacity", "::mlir::ModuleOp"> {
  let summary = "Override the capacity of named capacity owners";
  let description = [{
    Sets the capacity of each named `pool.owner` before the program is
    compiled (the stage kernels wrap ring positions at the capacity, so the
    capacity a run uses is fixed at compile time). Each entry of
    `capacities` is `NAME=N` with N in [1, 4294967295]; an entry that does
    not parse, names no owner, or is out of range is an error at the module.

    ```
    sluice-opt --pool-set-capacity=capacities=shadow=16 bench/inputs/shadow_pool_stats.mlir
    ```
  }];
  let options = [
    ListOption<"capacities", "capacities", "std::string",
               "NAME=N: the new capacity of pool.owner @NAME">
  ];
  let dependentDialects = ["::sluice::pool::PoolDialect"];
}

#endif // SLUICE_DIALECT_POOL_TRANSFORMS_PASSES_TD
