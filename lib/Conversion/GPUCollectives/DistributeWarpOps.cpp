//===- DistributeWarpOps.cpp - gpu.warp_execute_on_lane_0 on every backend ===//
//
// Upstream's distribution patterns (mlir/Dialect/Vector/Transforms/
// VectorDistribution.h), applied with Sluice's choices: vectors distribute
// along their innermost dimension; values cross lanes with gpu.shuffle and
// gpu.subgroup_reduce when the op's warp size is the backend's constant
// subgroup size, else through workgroup memory with barriers (any backend,
// any device subgroup size, the same combination order everywhere); what is
// left of the op becomes `scf.if (laneid == 0)` with its values in a
// workgroup buffer of its own per warp (warp = linear thread id / warp size).
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUCollectives/ExpandCollectives.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorDistribution.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace sluice {

namespace {

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value linearThreadId(OpBuilder &b, Location loc) {
  Value x = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value y = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value z = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
  Value dx = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value dy = gpu::BlockDimOp::create(b, loc, gpu::Dimension::y);
  Value yz =
      arith::AddIOp::create(b, loc, y, arith::MulIOp::create(b, loc, dy, z));
  return arith::AddIOp::create(b, loc, x,
                               arith::MulIOp::create(b, loc, dx, yz));
}

Attribute workgroupSpace(MLIRContext *context) {
  return gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
}

/// A workgroup array of one `type` element per lane of the block.
Value laneArray(gpu::GPUFuncOp function, Location loc, Type type) {
  auto arrayType = MemRefType::get({blockLaneCapacity(function)}, type,
                                   MemRefLayoutAttrInterface(),
                                   workgroupSpace(type.getContext()));
  return function.addWorkgroupAttribution(arrayType, loc);
}

/// The first linear thread id of the calling lane's warp of `warpSize`.
Value warpBase(OpBuilder &b, Location loc, Value linear, int64_t warpSize) {
  Value size = indexConstant(b, loc, warpSize);
  return arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, linear, size), size);
}

/// `value` of lane `source` of the caller's warp.
Value shuffleFromLane(gpu::GPUFuncOp function, OpBuilder &b, Location loc,
                      Value value, Value source, int64_t warpSize,
                      unsigned subgroupSize) {
  if (subgroupSize && int64_t(subgroupSize) == warpSize) {
    Type i32 = b.getI32Type();
    Value lane = arith::IndexCastOp::create(b, loc, i32, source);
    Value width = arith::ConstantIntOp::create(b, loc, i32, warpSize);
    return gpu::ShuffleOp::create(b, loc, value, lane, width,
                                  gpu::ShuffleMode::IDX)
        .getShuffleResult();
  }
  Value array = laneArray(function, loc, value.getType());
  Value linear = linearThreadId(b, loc);
  memref::StoreOp::create(b, loc, value, array, linear);
  gpu::BarrierOp::create(b, loc);
  Value from =
      arith::AddIOp::create(b, loc, warpBase(b, loc, linear, warpSize), source);
  Value result = memref::LoadOp::create(b, loc, array, from);
  gpu::BarrierOp::create(b, loc);
  return result;
}

/// The `kind` reduction of `input` (a lane's distributed vector) over the
/// `size` lanes of the warp: each lane folds its elements in order, then the
/// lanes' values are folded in lane order (workgroup memory) or by
/// gpu.subgroup_reduce (the backend's subgroup is the warp).
Value reduceOverWarp(gpu::GPUFuncOp function, OpBuilder &b, Location loc,
                     Value input, vector::CombiningKind kind, uint32_t size,
                     unsigned subgroupSize) {
  auto vectorType = cast<VectorType>(input.getType());
  Value lane = vector::ExtractOp::create(b, loc, input, ArrayRef<int64_t>{0});
  for (int64_t i = 1; i < vectorType.getNumElements(); ++i)
    lane = vector::makeArithReduction(
        b, loc, kind, lane,
        vector::ExtractOp::create(b, loc, input, ArrayRef<int64_t>{i}));
  if (subgroupSize && subgroupSize == size) {
    std::optional<gpu::AllReduceOperation> op;
    switch (kind) {
    case vector::CombiningKind::ADD:
      op = gpu::AllReduceOperation::ADD;
      break;
    case vector::CombiningKind::MUL:
      op = gpu::AllReduceOperation::MUL;
      break;
    case vector::CombiningKind::MINUI:
      op = gpu::AllReduceOperation::MINUI;
      break;
    case vector::CombiningKind::MINSI:
      op = gpu::AllReduceOperation::MINSI;
      break;
    case vector::CombiningKind::MINNUMF:
      op = gpu::AllReduceOperation::MINNUMF;
      break;
    case vector::CombiningKind::MAXUI:
      op = gpu::AllReduceOperation::MAXUI;
      break;
    case vector::CombiningKind::MAXSI:
      op = gpu::AllReduceOperation::MAXSI;
      break;
    case vector::CombiningKind::MAXNUMF:
      op = gpu::AllReduceOperation::MAXNUMF;
      break;
    case vector::CombiningKind::AND:
      op = gpu::AllReduceOperation::AND;
      break;
    case vector::CombiningKind::OR:
      op = gpu::AllReduceOperation::OR;
      break;
    case vector::CombiningKind::XOR:
      op = gpu::AllReduceOperation::XOR;
      break;
    case vector::CombiningKind::MINIMUMF:
      op = gpu::AllReduceOperation::MINIMUMF;
      break;
    case vector::CombiningKind::MAXIMUMF:
      op = gpu::AllReduceOperation::MAXIMUMF;
      break;
    }
    if (op)
      return gpu::SubgroupReduceOp::create(b, loc, lane, *op, /*uniform=*/true);
  }
  Value array = laneArray(function, loc, lane.getType());
  Value linear = linearThreadId(b, loc);
  memref::StoreOp::create(b, loc, lane, array, linear);
  gpu::BarrierOp::create(b, loc);
  Value base = warpBase(b, loc, linear, size);
  Value result = memref::LoadOp::create(b, loc, array, base);
  for (uint32_t i = 1; i < size; ++i) {
    Value at = arith::AddIOp::create(b, loc, base, indexConstant(b, loc, i));
    result = vector::makeArithReduction(
        b, loc, kind, result, memref::LoadOp::create(b, loc, array, at));
  }
  gpu::BarrierOp::create(b, loc);
  return result;
}

/// The lowering's buffer for a value of `type` (memref<1xT> for a scalar,
/// memref<shape x T> for a vector): the calling warp's row of a workgroup
/// array with one row per warp of the block.
Value warpBuffer(gpu::GPUFuncOp function, Location loc, OpBuilder &b,
                 gpu::WarpExecuteOnLane0Op warpOp, Type type) {
  int64_t warpSize = warpOp.getWarpSize();
  int64_t warps = llvm::divideCeil(blockLaneCapacity(function), warpSize);
  SmallVector<int64_t> shape{warps};
  Type element = type;
  if (auto vectorType = dyn_cast<VectorType>(type)) {
    llvm::append_range(shape, vectorType.getShape());
    element = vectorType.getElementType();
  } else {
    shape.push_back(1);
  }
  auto arrayType = MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                                   workgroupSpace(b.getContext()));
  Value array = function.addWorkgroupAttribution(arrayType, loc);
  Value warp = arith::DivUIOp::create(b, loc, linearThreadId(b, loc),
                                      indexConstant(b, loc, warpSize));
  SmallVector<OpFoldResult> offsets(shape.size(), b.getIndexAttr(0));
  offsets[0] = warp;
  SmallVector<OpFoldResult> sizes, strides(shape.size(), b.getIndexAttr(1));
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t extent : ArrayRef(shape).drop_front())
    sizes.push_back(b.getIndexAttr(extent));
  auto rowType = memref::SubViewOp::inferRankReducedResultType(
      ArrayRef(shape).drop_front(), arrayType, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, cast<MemRefType>(rowType), array,
                                   offsets, sizes, strides);
}

bool isSingleElement(Type type) {
  auto vectorType = dyn_cast<VectorType>(type);
  return vectorType && vectorType.getRank() == 1 &&
         vectorType.getNumElements() == 1 && !vectorType.isScalable();
}

/// An elementwise op on vector<1xT> as the op on T (a lane's share of a
/// vector distributed over as many lanes as it has elements), so that a
/// backend without vectors (HIP) gets scalars.
struct ScalarizeSingleElement : RewritePattern {
  ScalarizeSingleElement(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!OpTrait::hasElementwiseMappableTraits(op) ||
        op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        !isSingleElement(op->getResult(0).getType()) ||
        !llvm::all_of(op->getOperandTypes(), isSingleElement))
      return failure();
    SmallVector<Value> scalars;
    for (Value operand : op->getOperands())
      scalars.push_back(vector::ExtractOp::create(
          rewriter, op->getLoc(), operand, ArrayRef<int64_t>{0}));
    auto vectorType = cast<VectorType>(op->getResult(0).getType());
    OperationState state(op->getLoc(), op->getName().getStringRef(), scalars,
                         {vectorType.getElementType()}, op->getAttrs());
    Operation *scalar = rewriter.create(state);
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, vectorType,
                                                     scalar->getResult(0));
    return success();
  }
};

/// vector.load / vector.store of one element as memref.load / memref.store.
struct ScalarizeSingleLoad : OpRewritePattern<vector::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::LoadOp load,
                                PatternRewriter &rewriter) const override {
    if (!isSingleElement(load.getVectorType()))
      return failure();
    Value scalar = memref::LoadOp::create(rewriter, load.getLoc(),
                                          load.getBase(), load.getIndices());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(load, load.getVectorType(),
                                                     scalar);
    return success();
  }
};

struct ScalarizeSingleStore : OpRewritePattern<vector::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::StoreOp store,
                                PatternRewriter &rewriter) const override {
    if (!isSingleElement(store.getVectorType()))
      return failure();
    Value scalar = vector::ExtractOp::create(rewriter, store.getLoc(),
                                             store.getValueToStore(),
                                             ArrayRef<int64_t>{0});
    rewriter.replaceOpWithNewOp<memref::StoreOp>(store, scalar, store.getBase(),
                                                 store.getIndices());
    return success();
  }
};

/// Vectors distribute along their innermost dimension.
AffineMap innermostDimension(Value value) {
  auto vectorType = dyn_cast<VectorType>(value.getType());
  if (!vectorType || vectorType.getRank() == 0)
    return AffineMap::get(value.getContext());
  int64_t rank = vectorType.getRank();
  return AffineMap::get(rank, 0,
                        getAffineDimExpr(rank - 1, value.getContext()));
}

} // namespace

FailureOr<unsigned> distributeWarpOps(gpu::GPUModuleOp module,
                                      unsigned subgroupSize) {
  SmallVector<gpu::WarpExecuteOnLane0Op> warpOps;
  module.walk([&](gpu::WarpExecuteOnLane0Op op) { warpOps.push_back(op); });
  if (warpOps.empty())
    return 0u;
  for (gpu::WarpExecuteOnLane0Op op : warpOps) {
    auto function = op->getParentOfType<gpu::GPUFuncOp>();
    if (!function || !function.isKernel())
      return op.emitOpError("outside a gpu.func kernel: its buffers are "
                            "workgroup attributions of the kernel");
    if (op->getParentOfType<gpu::WarpExecuteOnLane0Op>())
      return op.emitOpError("nested in another gpu.warp_execute_on_lane_0");
    int64_t warpSize = op.getWarpSize();
    if (blockLaneCapacity(function) % warpSize != 0)
      return op.emitOpError("has warp size ")
             << warpSize << ", which does not divide the "
             << blockLaneCapacity(function)
             << " lanes of the kernel's block: every warp must be whole";
  }
  MLIRContext *context = module.getContext();
  for (gpu::WarpExecuteOnLane0Op op : warpOps)
    vector::moveScalarUniformCode(op);
  llvm::SetVector<gpu::GPUFuncOp> functions;
  for (gpu::WarpExecuteOnLane0Op op : warpOps)
    functions.insert(op->getParentOfType<gpu::GPUFuncOp>());

  for (gpu::GPUFuncOp function : functions) {
    auto shuffle = [=](Location loc, OpBuilder &b, Value value, Value source,
                       int64_t warpSize) {
      return shuffleFromLane(function, b, loc, value, source, warpSize,
                             subgroupSize);
    };
    auto reduce = [=](Location loc, OpBuilder &b, Value input,
                      vector::CombiningKind kind, uint32_t size) {
      return reduceOverWarp(function, b, loc, input, kind, size, subgroupSize);
    };
    {
      RewritePatternSet patterns(context);
      vector::populateDistributeTransferWriteOpPatterns(
          patterns, innermostDimension, /*maxNumElementsToExtract=*/1,
          /*benefit=*/2);
      vector::populatePropagateWarpVectorDistributionPatterns(
          patterns, innermostDimension, shuffle, /*benefit=*/1,
          /*readBenefit=*/0);
      vector::populateDistributeReduction(patterns, reduce, /*benefit=*/1);
      if (failed(applyPatternsGreedily(function, std::move(patterns))))
        return function.emitError("distributing gpu.warp_execute_on_lane_0 "
                                  "ops did not converge");
    }
    {
      vector::WarpExecuteOnLane0LoweringOptions options;
      options.warpAllocationFn =
          [=](Location loc, OpBuilder &b, gpu::WarpExecuteOnLane0Op warpOp,
              Type type) { return warpBuffer(function, loc, b, warpOp, type); };
      options.warpSyncronizationFn = [](Location loc, OpBuilder &b,
                                        gpu::WarpExecuteOnLane0Op) {
        gpu::BarrierOp::create(b, loc);
      };
      RewritePatternSet patterns(context);
      vector::populateWarpExecuteOnLane0OpToScfForPattern(patterns, options);
      if (failed(applyPatternsGreedily(function, std::move(patterns))))
        return function.emitError("lowering gpu.warp_execute_on_lane_0 ops "
                                  "did not converge");
    }
    {
      // The per-warp rows folded into their arrays' indices; transfers on
      // in-bounds rows as vector loads and stores; affine.apply as arith;
      // one-element vectors as scalars.
      RewritePatternSet patterns(context);
      memref::populateFoldMemRefAliasOpPatterns(patterns);
      vector::populateVectorTransferLoweringPatterns(patterns,
                                                     /*maxTransferRank=*/1);
      populateAffineToStdConversionPatterns(patterns);
      patterns.add<ScalarizeSingleElement, ScalarizeSingleLoad,
                   ScalarizeSingleStore>(context);
      vector::ExtractOp::getCanonicalizationPatterns(patterns, context);
      vector::BroadcastOp::getCanonicalizationPatterns(patterns, context);
      if (failed(applyPatternsGreedily(function, std::move(patterns))))
        return function.emitError("simplifying lowered "
                                  "gpu.warp_execute_on_lane_0 ops did not "
                                  "converge");
    }
  }
  WalkResult left = module.walk([](gpu::WarpExecuteOnLane0Op op) {
    op.emitOpError("could not be lowered");
    return WalkResult::interrupt();
  });
  if (left.wasInterrupted())
    return failure();
  return unsigned(warpOps.size());
}

} // namespace sluice
