//===- FuseMultiplyAdd.cpp - Contracted multiply-adds, decided once -------===//
//
// `fastmath<contract>` lets a multiply and the add that uses it round once.
// The wave pipeline decides which pairs do before the split, so that the
// stage kernels and the megakernel (and every backend) compute the same
// values; afterwards no operation carries the permission, so no backend
// fuses on its own (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "sluice/Dialect/Wave/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace sluice::wave {
#define GEN_PASS_DEF_FUSEMULTIPLYADD
#include "sluice/Dialect/Wave/Transforms/Passes.h.inc"
} // namespace sluice::wave

using namespace mlir;

namespace {

/// The operation's flags (an op in generic form may lack the attribute).
arith::FastMathFlags flagsOf(arith::ArithFastMathInterface op) {
  arith::FastMathFlagsAttr attr = op.getFastMathFlagsAttr();
  return attr ? attr.getValue() : arith::FastMathFlags::none;
}

bool contracts(arith::ArithFastMathInterface op) {
  return arith::bitEnumContainsAll(flagsOf(op), arith::FastMathFlags::contract);
}

/// The product `value` is, when it is an `arith.mulf` allowed to contract.
arith::MulFOp contractedProduct(Value value) {
  auto product = value.getDefiningOp<arith::MulFOp>();
  return product && contracts(product) ? product : arith::MulFOp();
}

/// Rewrites `op` (an `arith.addf` or `arith.subf` allowed to contract) into
/// a `math.fma` when one of its operands is a product allowed to contract:
/// `a * b + c` and `c + a * b` (the left operand first) as `fma(a, b, c)`,
/// `a * b - c` as `fma(a, b, -c)`, `c - a * b` as `fma(-a, b, c)`. Returns
/// the product fused, or null.
arith::MulFOp fuse(Operation *op) {
  auto fastmath = cast<arith::ArithFastMathInterface>(op);
  if (!contracts(fastmath))
    return {};
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  arith::MulFOp product = contractedProduct(lhs);
  bool productLeft = bool(product);
  if (!product)
    product = contractedProduct(rhs);
  if (!product)
    return {};
  arith::FastMathFlags flags = flagsOf(fastmath);
  OpBuilder builder(op);
  Location loc = op->getLoc();
  Value a = product.getLhs(), b = product.getRhs();
  Value c = productLeft ? rhs : lhs;
  if (isa<arith::SubFOp>(op)) {
    if (productLeft)
      c = arith::NegFOp::create(builder, loc, c, flags);
    else
      a = arith::NegFOp::create(builder, loc, a, flags);
  }
  Value fused = math::FmaOp::create(builder, loc, a, b, c, flags);
  op->getResult(0).replaceAllUsesWith(fused);
  op->erase();
  return product;
}

struct FuseMultiplyAdd
    : sluice::wave::impl::FuseMultiplyAddBase<FuseMultiplyAdd> {
  void runOnOperation() override {
    // A walk, not a pattern driver: nothing but the fused pairs changes (no
    // folding, no dead code removed, no constant moved), so every other
    // operation reaches the lowerings as written.
    SmallVector<Operation *> candidates;
    getOperation().walk([&](Operation *op) {
      if (isa<arith::AddFOp, arith::SubFOp>(op))
        candidates.push_back(op);
    });
    SetVector<Operation *> fusedProducts;
    for (Operation *op : candidates)
      if (arith::MulFOp product = fuse(op)) {
        fusedProducts.insert(product);
        ++numFused;
      }
    // A product every use of which was fused is gone.
    for (Operation *product : fusedProducts)
      if (product->use_empty())
        product->erase();
    getOperation().walk([&](arith::ArithFastMathInterface op) {
      if (!contracts(op))
        return;
      op->setAttr(op.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(
                      op->getContext(),
                      flagsOf(op) & ~arith::FastMathFlags::contract));
    });
  }
};

} // namespace
