//===- SubgroupPatterns.cpp - gpu.shuffle as __shfl -----------------------===//
//
// sluice-expand-gpu-collectives (shufflesAsIndexed) leaves every gpu.shuffle
// as `idx` from a lane of the subgroup, over the whole subgroup; that is
// SLUICE_SHFL(value, lane): __shfl on HIP, __shfl_sync with the full mask on
// NVIDIA (the prelude). Nothing assumes a warp size: warpSize is the device's.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUCollectives/ExpandCollectives.h"
#include "sluice/Conversion/GPUToEmitC/HIPBackend.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

struct IndexedShuffleLowering : OpConversionPattern<gpu::ShuffleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::ShuffleOp shuffle, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!shuffle->hasAttr(sluice::kIndexedShuffleAttr))
      return shuffle.emitOpError(
          "reached the HIP conversion without its source lane "
          "(sluice-expand-gpu-collectives rewrites every shuffle first)");
    Type type = getTypeConverter()->convertType(shuffle.getValue().getType());
    if (!type || !type.isIntOrFloat())
      return rewriter.notifyMatchFailure(shuffle, "not a scalar (refused "
                                                  "before the conversion)");
    Location loc = shuffle.getLoc();
    Value result = emitc::CallOpaqueOp::create(
                       rewriter, loc, TypeRange{type}, "SLUICE_SHFL",
                       ValueRange{adaptor.getValue(), adaptor.getOffset()})
                       .getResult(0);
    // The source lane is a lane of the subgroup (the expansion chose it).
    Value valid = emitc::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                            rewriter.getBoolAttr(true));
    rewriter.replaceOp(shuffle, {result, valid});
    return success();
  }
};

} // namespace

LogicalResult sluice::checkHIPSubgroupOps(gpu::GPUModuleOp module) {
  WalkResult walk = module.walk([](gpu::ShuffleOp shuffle) {
    if (shuffle.getValue().getType().isIntOrFloat())
      return WalkResult::advance();
    shuffle.emitOpError("of type ")
        << shuffle.getValue().getType()
        << " is not supported by the HIP backend: __shfl exchanges 32- and "
           "64-bit integers and floats";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

void sluice::populateHIPSubgroupPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<IndexedShuffleLowering>(converter, patterns.getContext());
}
