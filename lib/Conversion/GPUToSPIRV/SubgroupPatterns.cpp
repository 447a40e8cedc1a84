//===- SubgroupPatterns.cpp - gpu.shuffle on Vulkan subgroups -------------===//
//
// Upstream's gpu.shuffle lowering needs the width to be a constant equal to
// the target environment's subgroup size; a Vulkan device's subgroup size is
// known only when the kernel runs (lavapipe 8 with AVX2, NVIDIA 32, AMD 32 or
// 64). Every mode is one OpGroupNonUniformShuffle from the source lane that
// sluice-expand-gpu-collectives computes, by the rule of every backend.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUCollectives/ExpandCollectives.h"
#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

/// sluice-expand-gpu-collectives (shufflesAsIndexed) leaves every shuffle as
/// idx from a lane of the subgroup, its validity computed beside it.
struct IndexedShufflePattern : public OpConversionPattern<gpu::ShuffleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(gpu::ShuffleOp shuffle, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!shuffle->hasAttr(sluice::kIndexedShuffleAttr))
      return rewriter.notifyMatchFailure(shuffle, "not expanded");
    Type valueType =
        getTypeConverter()->convertType(shuffle.getValue().getType());
    if (!valueType)
      return rewriter.notifyMatchFailure(shuffle, "unconvertible type");
    Location loc = shuffle.getLoc();
    Value result = spirv::GroupNonUniformShuffleOp::create(
        rewriter, loc, valueType, spirv::Scope::Subgroup, adaptor.getValue(),
        adaptor.getOffset());
    Value valid =
        spirv::ConstantOp::getOne(rewriter.getI1Type(), loc, rewriter);
    rewriter.replaceOp(shuffle, {result, valid});
    return success();
  }
};

} // namespace

void sluice::populateSubgroupToSPIRVPatterns(
    const SPIRVTypeConverter &typeConverter, RewritePatternSet &patterns) {
  patterns.add<IndexedShufflePattern>(typeConverter, patterns.getContext(),
                                      /*benefit=*/2);
}
