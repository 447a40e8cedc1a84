//===- SubgroupPatterns.cpp - gpu.shuffle as __shfl -----------------------===//
//
// sluice-expand-gpu-collectives (shufflesAsIndexed) leaves every gpu.shuffle
// as `idx` from a lane of the subgroup, over the whole subgroup; that is
// SLUICE_SHFL(value, lane): __shfl on HIP, __shfl_sync with the full mask on
// NVIDIA (the prelude). Nothing assumes a warp size: warpSize is the device's.
// A whole-subgroup reduction of an i32 stays for this conversion and becomes
// sluice_subgroup_<op>(value) of the prelude.
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

/// The prelude's function for `op` on i32, or "" when it has none.
StringRef nativeReduceName(gpu::AllReduceOperation op) {
  switch (op) {
  case gpu::AllReduceOperation::ADD:
    return "sluice_subgroup_add";
  case gpu::AllReduceOperation::AND:
    return "sluice_subgroup_and";
  case gpu::AllReduceOperation::OR:
    return "sluice_subgroup_or";
  case gpu::AllReduceOperation::XOR:
    return "sluice_subgroup_xor";
  case gpu::AllReduceOperation::MINSI:
    return "sluice_subgroup_minsi";
  case gpu::AllReduceOperation::MAXSI:
    return "sluice_subgroup_maxsi";
  case gpu::AllReduceOperation::MINUI:
    return "sluice_subgroup_minui";
  case gpu::AllReduceOperation::MAXUI:
    return "sluice_subgroup_maxui";
  default:
    return "";
  }
}

struct NativeSubgroupReduceLowering
    : OpConversionPattern<gpu::SubgroupReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupReduceOp reduce, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!sluice::isHIPNativeSubgroupReduce(reduce)) // expanded before
      return rewriter.notifyMatchFailure(reduce, "no function of the prelude");
    Type type = getTypeConverter()->convertType(reduce.getType());
    rewriter.replaceOp(reduce,
                       emitc::CallOpaqueOp::create(
                           rewriter, reduce.getLoc(), TypeRange{type},
                           nativeReduceName(reduce.getOp()),
                           ValueRange{adaptor.getValue()})
                           .getResult(0));
    return success();
  }
};

} // namespace

bool sluice::isHIPNativeSubgroupReduce(gpu::SubgroupReduceOp reduce) {
  return !reduce.getClusterSize() && reduce.getClusterStride() == 1 &&
         reduce.getType().isSignlessInteger(32) &&
         !nativeReduceName(reduce.getOp()).empty();
}

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
  patterns.add<IndexedShuffleLowering, NativeSubgroupReduceLowering>(
      converter, patterns.getContext());
}
