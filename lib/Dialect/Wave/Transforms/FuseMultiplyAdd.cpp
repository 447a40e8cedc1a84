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

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

/// `a * b - c` as `fma(a, b, -c)`, and `c - a * b` as `fma(-a, b, c)`
/// (upstream's patterns fuse the adds only).
struct FuseSubtraction : OpRewritePattern<arith::SubFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::SubFOp sub,
                                PatternRewriter &rewriter) const override {
    if (!contracts(sub))
      return failure();
    arith::FastMathFlags flags = flagsOf(sub);
    Location loc = sub.getLoc();
    if (arith::MulFOp product = contractedProduct(sub.getLhs())) {
      Value negated = arith::NegFOp::create(rewriter, loc, sub.getRhs(), flags);
      rewriter.replaceOpWithNewOp<math::FmaOp>(sub, product.getLhs(),
                                               product.getRhs(), negated, flags);
      return success();
    }
    if (arith::MulFOp product = contractedProduct(sub.getRhs())) {
      Value negated =
          arith::NegFOp::create(rewriter, loc, product.getLhs(), flags);
      rewriter.replaceOpWithNewOp<math::FmaOp>(sub, negated, product.getRhs(),
                                               sub.getLhs(), flags);
      return success();
    }
    return failure();
  }
};

struct FuseMultiplyAdd
    : sluice::wave::impl::FuseMultiplyAddBase<FuseMultiplyAdd> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    unsigned before = 0;
    module.walk([&](math::FmaOp) { ++before; });

    RewritePatternSet patterns(&getContext());
    populateUpliftToFMAPatterns(patterns);
    patterns.add<FuseSubtraction>(&getContext());
    // The program as written otherwise: nothing folded, no constant moved
    // (a handler's constants stay in the handler), no region simplified.
    // The driver erases a product once every use of it is fused.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(module, std::move(patterns), config)))
      return signalPassFailure();

    unsigned after = 0;
    module.walk([&](Operation *op) {
      if (isa<math::FmaOp>(op))
        ++after;
      auto fastmath = dyn_cast<arith::ArithFastMathInterface>(op);
      if (!fastmath || !contracts(fastmath))
        return;
      arith::FastMathFlags flags = flagsOf(fastmath);
      op->setAttr(fastmath.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(
                      op->getContext(), flags & ~arith::FastMathFlags::contract));
    });
    numFused += after - before;
  }
};

} // namespace
