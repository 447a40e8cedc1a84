//===- Passes.td - Wave transformations ---------------------*- tablegen -*-===//
#ifndef SLUICE_DIALECT_WAVE_TRANSFORMS_PASSES_TD
#define SLUICE_DIALECT_WAVE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WaveSplit : Pass<"wave-split", "::mlir::ModuleOp"> {
  let summary = "Split every coroutine into stages over a frame";
  let description = [{
    Turns every `wave.coroutine` into split form (see the `wave` dialect):
    one stage per resume point (the entry, then one per `wave.suspend` in
    program order), a frame holding exactly the values live across a
    suspension, and the stage graph.

    The scf ops that contain a suspension (`scf.if`, `scf.for`, `scf.while`,
    `scf.index_switch`, `scf.execute_region`, at any depth) are lowered to a
    CFG with the upstream SCF-to-CF patterns; other scf ops stay structured.
    Each suspension ends its block; liveness on that CFG gives the values live
    across it (arguments and loop-carried values included). Constants are
    rematerialized in the stages that need them instead of taking a field; a
    `sort_by` key always gets one. Every stage becomes a `wave.stage` whose
    body takes `(%frame: index[, coroutine arguments])` (the entry stage
    takes the arguments), loads the fields it needs, stores the fields its
    successor needs before each suspension (except those that still hold the
    value it loaded), and ends in `wave.next` (the next stage, or done).
    `pool.publish` ops stay in the stage bodies. The coroutine also gets a
    `wave.frame_layout` (header `lane`, `next`, then the fields) and one
    `wave.transition` per stage-graph edge.

    Coroutines already in split form are left alone.

    Rejected, with an error: a suspension inside any other op with regions
    (`scf.parallel`, `scf.forall`, ...), a value live across a suspension
    whose type has no frame representation (only integers, floats and index),
    and a suspension named `entry`.
  }];
  let options = [
    Option<"layout", "layout", "std::string", /*default=*/"\"soa\"",
           "Frame layout: 'soa' (one array per field) or 'aos' (one struct per frame)">,
    Option<"printSummary", "print-summary", "bool", /*default=*/"false",
           "Emit a remark per coroutine with its stage, field and constant counts">
  ];
  let statistics = [
    Statistic<"numCoroutines", "coroutines", "Coroutines split">,
    Statistic<"numStages", "stages", "Stages created">,
    Statistic<"numFrameFields", "frame-fields",
              "Frame fields created, not counting the header">,
    Statistic<"numRematerialized", "rematerialized-constants",
              "Constants rematerialized instead of stored in a frame">
  ];
  let dependentDialects = ["::sluice::wave::WaveDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::func::FuncDialect"];
}

def WaveVerifyHelpersInlined : Pass<"wave-verify-helpers-inlined",
                                    "::mlir::ModuleOp"> {
  let summary = "Check that no call is left in a coroutine or a pool handler";
  let description = [{
    Stage code and pool handlers may call `func.func` helpers (vector math,
    random numbers, traversal loops): every Sluice pipeline first runs the
    upstream inliner (`inline`, without its simplification pipeline), then
    this pass, so that the proofs, `wave-split` and the lowerings never see
    a call. A call that is still inside a `wave.coroutine` or a `pool.owner`
    is an error at the call, with the reason: the helper is recursive (it
    reaches itself through calls), has no body, has unstructured control flow
    (more than one block), or the call is indirect. A note points at the
    helper.
  }];
}

def FuseMultiplyAdd : Pass<"sluice-fuse-multiply-add", "::mlir::ModuleOp"> {
  let summary = "Fuse the multiply-adds that `fastmath<contract>` allows, once for every backend";
  let description = [{
    `fastmath<contract>` on an `arith.mulf` and the `arith.addf` or
    `arith.subf` that uses it allows the two to round once, as a fused
    multiply-add. Left to the backends, that permission would be used
    differently by each: LLVM fuses within the code it sees, NVRTC (run
    with `--fmad=false`) never, a Vulkan driver as it likes; and in a wave
    program a product that crosses a `wave.suspend` reaches its add through
    a frame field in the wavefront's stage kernels but through a register in
    the megakernel, so the two schedules would round differently and their
    films would differ. This pass decides once, on the program as written:
    every pair it fuses becomes an explicit `math.fma`, which each backend
    emits as one fused operation (`llvm.intr.fma`, `GL.Fma`, `fmaf`), and
    then it drops `contract` from every remaining operation, so that no
    backend fuses on its own. `sluice-wave-to-gpu` runs it after the helpers
    are inlined and before `wave-split`; `sluice-host-to-llvm` first, before
    the kernels are outlined, for every backend.

    Fused, when both operations carry `contract` and have the same type:
    `a * b + c` and `c + a * b` as `fma(a, b, c)` (when both operands of
    the add are products, the left one is fused), `a * b - c` as
    `fma(a, b, -c)` and `c - a * b` as `fma(-a, b, c)`, in program order.
    Negation is exact, so each form rounds exactly once, as `math.fma` is
    defined to. A product with several uses is fused into each add and kept
    for its other uses. Nothing else changes: no folding, no dead code
    removed.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Multiply-adds fused into math.fma">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif // SLUICE_DIALECT_WAVE_TRANSFORMS_PASSES_TD
