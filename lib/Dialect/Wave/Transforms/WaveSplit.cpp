//===- WaveSplit.cpp - Split coroutines into stages over a frame ----------===//

#include "sluice/Dialect/Wave/Transforms/Passes.h"

namespace sluice::wave {
#define GEN_PASS_DEF_WAVESPLIT
#include "sluice/Dialect/Wave/Transforms/Passes.h.inc"
} // namespace sluice::wave

using namespace mlir;
using namespace sluice::wave;

namespace {

struct WaveSplitPass : public sluice::wave::impl::WaveSplitBase<WaveSplitPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<FrameLayoutKind> kind =
        llvm::StringSwitch<std::optional<FrameLayoutKind>>(layout)
            .Case("soa", FrameLayoutKind::StructOfArrays)
            .Case("aos", FrameLayoutKind::ArrayOfStructs)
            .Default(std::nullopt);
    if (!kind) {
      getOperation().emitError(
          "wave-split: layout must be 'soa' or 'aos', got '")
          << layout << "'";
      return signalPassFailure();
    }
    SmallVector<CoroutineOp> coroutines(getOperation().getOps<CoroutineOp>());
    bool ok = true;
    for (CoroutineOp coroutine : coroutines) {
      if (isSplit(coroutine))
        continue;
      FailureOr<SplitResult> result = splitCoroutine(coroutine, *kind);
      if (failed(result)) {
        ok = false;
        continue;
      }
      if (printSummary)
        coroutine.emitRemark("split into ")
            << result->stages << " stage(s) over " << result->frameFields
            << " frame field(s); " << result->rematerializedConstants
            << " constant(s) rematerialized";
      ++numCoroutines;
      numStages += result->stages;
      numFrameFields += result->frameFields;
      numRematerialized += result->rematerializedConstants;
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
