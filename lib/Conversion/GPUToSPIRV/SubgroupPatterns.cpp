//===- SubgroupPatterns.cpp - gpu.shuffle on Vulkan subgroups -------------===//
//
// Upstream's gpu.shuffle lowering needs the width to be a constant equal to
// the target environment's subgroup size; a Vulkan device's subgroup size is
// known only when the kernel runs (lavapipe 8 with AVX2, NVIDIA 32, AMD 32 or
// 64). Every mode is one OpGroupNonUniformShuffle from a source lane computed
// as the CPU computes it, with the same validity rule.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

/// Lane k (SubgroupLocalInvocationId) with offset o and width w reads lane
/// k ^ o (xor), k + o (down), k - o (up) or o (idx); valid when k and the
/// source are below min(w, SubgroupSize) (and o <= k for up). An invalid
/// lane reads its own value.
struct ShufflePattern : public OpConversionPattern<gpu::ShuffleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(gpu::ShuffleOp shuffle, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = shuffle.getLoc();
    Type valueType = getTypeConverter()->convertType(shuffle.getValue().getType());
    if (!valueType)
      return rewriter.notifyMatchFailure(shuffle, "unconvertible type");
    auto i32 = rewriter.getI32Type();
    auto i1 = rewriter.getI1Type();
    Value lane = spirv::getBuiltinVariableValue(
        shuffle, spirv::BuiltIn::SubgroupLocalInvocationId, i32, rewriter);
    Value size = spirv::getBuiltinVariableValue(
        shuffle, spirv::BuiltIn::SubgroupSize, i32, rewriter);
    Value offset = adaptor.getOffset();
    Value width = spirv::GLUMinOp::create(rewriter, loc, adaptor.getWidth(), size);
    auto below = [&](Value a, Value b) -> Value {
      return spirv::ULessThanOp::create(rewriter, loc, i1, a, b);
    };
    Value valid = below(lane, width);
    Value from;
    switch (shuffle.getMode()) {
    case gpu::ShuffleMode::XOR:
      from = spirv::BitwiseXorOp::create(rewriter, loc, lane, offset);
      break;
    case gpu::ShuffleMode::DOWN:
      from = spirv::IAddOp::create(rewriter, loc, lane, offset);
      break;
    case gpu::ShuffleMode::UP: {
      Value reaches =
          spirv::ULessThanEqualOp::create(rewriter, loc, i1, offset, lane);
      valid = spirv::LogicalAndOp::create(rewriter, loc, valid, reaches);
      from = spirv::SelectOp::create(
          rewriter, loc, reaches,
          spirv::ISubOp::create(rewriter, loc, lane, offset), lane);
      break;
    }
    case gpu::ShuffleMode::IDX:
      from = offset;
      break;
    }
    valid = spirv::LogicalAndOp::create(rewriter, loc, valid, below(from, width));
    from = spirv::SelectOp::create(rewriter, loc, valid, from, lane);
    Value result = spirv::GroupNonUniformShuffleOp::create(
        rewriter, loc, valueType, spirv::Scope::Subgroup, adaptor.getValue(),
        from);
    rewriter.replaceOp(shuffle, {result, valid});
    return success();
  }
};

} // namespace

void sluice::populateSubgroupToSPIRVPatterns(
    const SPIRVTypeConverter &typeConverter, RewritePatternSet &patterns) {
  patterns.add<ShufflePattern>(typeConverter, patterns.getContext(),
                               /*benefit=*/2);
}
