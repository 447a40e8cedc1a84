//===- VectorTransfers.cpp - 1-D vector transfers as guarded scalar access ===//
//
// vector.transfer_read / transfer_write of a 1-D vector on a memref, element
// by element: each element's index is checked against the memref's extent
// (unless the dimension is in bounds) and against the mask; a read outside
// gives the padding, a write outside stores nothing. The same scalar loads
// and stores on every backend: neither the CPU's convert-to-llvm nor
// VectorToSPIRV lowers transfers.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUCollectives/ExpandKernelMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

/// The memref dimension the vector runs along, or -1 for a broadcast (every
/// element at the base indices); nullopt for what is not handled.
std::optional<int64_t> transferDimension(VectorTransferOpInterface op) {
  AffineMap map = op.getPermutationMap();
  if (map.getNumResults() != 1)
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(0)))
    return dim.getPosition();
  if (auto constant = dyn_cast<AffineConstantExpr>(map.getResult(0));
      constant && constant.getValue() == 0)
    return -1;
  return std::nullopt;
}

/// The indices of element `i`, and whether it may be accessed.
std::pair<SmallVector<Value>, Value>
elementAccess(OpBuilder &b, Location loc, VectorTransferOpInterface op,
              Value memref, int64_t dimension, int64_t i, Value mask) {
  SmallVector<Value> indices(op.getIndices());
  Value allowed = arith::ConstantIntOp::create(b, loc, 1, 1);
  if (dimension >= 0) {
    Value offset = arith::ConstantIndexOp::create(b, loc, i);
    indices[dimension] =
        arith::AddIOp::create(b, loc, indices[dimension], offset);
    if (!op.isDimInBounds(0)) {
      auto type = cast<MemRefType>(memref.getType());
      Value extent =
          type.isDynamicDim(dimension)
              ? memref::DimOp::create(b, loc, memref, dimension).getResult()
              : arith::ConstantIndexOp::create(b, loc,
                                               type.getDimSize(dimension))
                    .getResult();
      allowed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                      indices[dimension], extent);
    }
  }
  if (mask) {
    Value bit = vector::ExtractOp::create(b, loc, mask, i);
    allowed = arith::AndIOp::create(b, loc, allowed, bit);
  }
  return {indices, allowed};
}

struct ScalarTransferRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    auto memrefType = dyn_cast<MemRefType>(op.getBase().getType());
    std::optional<int64_t> dimension = transferDimension(op);
    if (!memrefType || type.getRank() != 1 || type.isScalable() || !dimension ||
        memrefType.getElementType() != type.getElementType())
      return rewriter.notifyMatchFailure(op, "not a 1-D memref transfer");
    Location loc = op.getLoc();
    SmallVector<Value> elements;
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      auto [indices, allowed] = elementAccess(rewriter, loc, op, op.getBase(),
                                              *dimension, i, op.getMask());
      auto branch = scf::IfOp::create(
          rewriter, loc, allowed,
          [&](OpBuilder &b, Location l) {
            Value loaded = memref::LoadOp::create(b, l, op.getBase(), indices);
            scf::YieldOp::create(b, l, loaded);
          },
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, op.getPadding());
          });
      elements.push_back(branch.getResult(0));
    }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, type, elements);
    return success();
  }
};

struct ScalarTransferWrite : OpRewritePattern<vector::TransferWriteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferWriteOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    auto memrefType = dyn_cast<MemRefType>(op.getBase().getType());
    std::optional<int64_t> dimension = transferDimension(op);
    if (!memrefType || type.getRank() != 1 || type.isScalable() || !dimension ||
        *dimension < 0 || memrefType.getElementType() != type.getElementType())
      return rewriter.notifyMatchFailure(op, "not a 1-D memref transfer");
    Location loc = op.getLoc();
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      auto [indices, allowed] = elementAccess(rewriter, loc, op, op.getBase(),
                                              *dimension, i, op.getMask());
      Value element =
          vector::ExtractOp::create(rewriter, loc, op.getVector(), i);
      scf::IfOp::create(rewriter, loc, allowed, [&](OpBuilder &b, Location l) {
        memref::StoreOp::create(b, l, element, op.getBase(), indices);
        scf::YieldOp::create(b, l);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void sluice::populateScalarVectorTransferPatterns(RewritePatternSet &patterns) {
  patterns.add<ScalarTransferRead, ScalarTransferWrite>(patterns.getContext());
}
