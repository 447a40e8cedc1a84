//===- Passes.h - Wave transformations --------------------------*- C++ -*-===//
#ifndef SLUICE_DIALECT_WAVE_TRANSFORMS_PASSES_H
#define SLUICE_DIALECT_WAVE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"

namespace sluice::wave {

/// How a split coroutine's frames are stored.
enum class FrameLayoutKind { StructOfArrays, ArrayOfStructs };

/// What splitting one coroutine produced.
struct SplitResult {
  unsigned stages = 0;
  unsigned frameFields = 0; // not counting the two header fields
  unsigned rematerializedConstants = 0;
};

/// Whether `coroutine` is in split form (holds a `wave.frame_layout`).
bool isSplit(CoroutineOp coroutine);

/// Rewrites `coroutine` into split form (see the `wave-split` pass). On
/// failure an error has been emitted and the coroutine is left unchanged.
mlir::FailureOr<SplitResult> splitCoroutine(CoroutineOp coroutine,
                                            FrameLayoutKind layout);

#define GEN_PASS_DECL
#include "sluice/Dialect/Wave/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sluice/Dialect/Wave/Transforms/Passes.h.inc"

} // namespace sluice::wave

#endif // SLUICE_DIALECT_WAVE_TRANSFORMS_PASSES_H
