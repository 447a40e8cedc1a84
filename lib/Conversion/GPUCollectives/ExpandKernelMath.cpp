//===- ExpandKernelMath.cpp - math ops a backend has no instruction for ---===//

#include "sluice/Conversion/GPUCollectives/ExpandKernelMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/APFloat.h"

using namespace mlir;

namespace sluice {

namespace {

Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

/// Whether bit `i` of `bits` is set, for an integer of any width.
Value bitSet(OpBuilder &b, Location loc, Value bits, unsigned i) {
  Type type = bits.getType();
  Value shifted =
      arith::ShRUIOp::create(b, loc, bits, intConstant(b, loc, type, i));
  Value bit =
      arith::AndIOp::create(b, loc, shifted, intConstant(b, loc, type, 1));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit,
                               intConstant(b, loc, type, 0));
}

/// base^|exponent| by squaring, one step per bit of the exponent, in the
/// order of compiler-rt's __powisf2 (the product is taken when the bit is
/// set, then the base is squared), so every backend multiplies the same
/// values in the same order.
template <typename MulOp>
Value powerBySquaring(OpBuilder &b, Location loc, Value base, Value magnitude,
                      Value one) {
  unsigned width = magnitude.getType().getIntOrFloatBitWidth();
  Value result = one;
  for (unsigned i = 0; i < width; ++i) {
    Value product = MulOp::create(b, loc, result, base);
    result = arith::SelectOp::create(b, loc, bitSet(b, loc, magnitude, i),
                                     product, result);
    if (i + 1 < width)
      base = MulOp::create(b, loc, base, base);
  }
  return result;
}

Value absInteger(OpBuilder &b, Location loc, Value x) {
  Value zero = intConstant(b, loc, x.getType(), 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  return arith::SelectOp::create(b, loc, negative,
                                 arith::SubIOp::create(b, loc, zero, x), x);
}

/// x^n for an integer n: 1/x^|n| when n < 0 (as __powisf2).
struct FPowIBySquaring : OpRewritePattern<math::FPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FPowIOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(type))
      return rewriter.notifyMatchFailure(op, "vector fpowi");
    Location loc = op.getLoc();
    Value n = op.getRhs();
    Value one = floatConstant(rewriter, loc, type, 1.0);
    Value power = powerBySquaring<arith::MulFOp>(
        rewriter, loc, op.getLhs(), absInteger(rewriter, loc, n), one);
    Value negative =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, n,
                              intConstant(rewriter, loc, n.getType(), 0));
    Value reciprocal = arith::DivFOp::create(rewriter, loc, one, power);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, reciprocal,
                                                 power);
    return success();
  }
};

/// b^n for integers, wrapping; for n < 0 the integer part of 1/b^|n|: 1 for
/// b = 1, +-1 for b = -1 (by n's parity), 0 otherwise (b = 0 included).
struct IPowIBySquaring : OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IPowIOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<IntegerType>(type))
      return rewriter.notifyMatchFailure(op, "vector ipowi");
    Location loc = op.getLoc();
    Value base = op.getLhs(), n = op.getRhs();
    Value zero = intConstant(rewriter, loc, type, 0);
    Value one = intConstant(rewriter, loc, type, 1);
    Value minusOne = intConstant(rewriter, loc, type, -1);
    Value power = powerBySquaring<arith::MulIOp>(rewriter, loc, base, n, one);
    Value odd = bitSet(rewriter, loc, n, 0);
    Value isOne = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        base, one);
    Value isMinusOne = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, base, minusOne);
    Value minusOnePower =
        arith::SelectOp::create(rewriter, loc, odd, minusOne, one);
    Value negativePower = arith::SelectOp::create(
        rewriter, loc, isOne, one,
        arith::SelectOp::create(rewriter, loc, isMinusOne, minusOnePower,
                                zero));
    Value negative = arith::CmpIOp::create(rewriter, loc,
                                           arith::CmpIPredicate::slt, n, zero);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, negativePower,
                                                 power);
    return success();
  }
};

/// ctlz/cttz/ctpop of an integer narrower than 32 bits, through i32.
template <typename CountOp> struct NarrowBitCount : OpRewritePattern<CountOp> {
  using OpRewritePattern<CountOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(CountOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<IntegerType>(op.getType());
    if (!type || type.getWidth() >= 32)
      return rewriter.notifyMatchFailure(op, "not a narrow integer");
    Location loc = op.getLoc();
    unsigned width = type.getWidth();
    Type i32 = rewriter.getI32Type();
    Value wide = arith::ExtUIOp::create(rewriter, loc, i32, op.getOperand());
    Value count;
    if constexpr (std::is_same_v<CountOp, math::CountLeadingZerosOp>) {
      count = arith::SubIOp::create(
          rewriter, loc, CountOp::create(rewriter, loc, wide),
          intConstant(rewriter, loc, i32, 32 - width));
    } else if constexpr (std::is_same_v<CountOp, math::CountTrailingZerosOp>) {
      // A set bit just above the value: 0 has `width` trailing zeros.
      Value stop = arith::OrIOp::create(
          rewriter, loc, wide,
          intConstant(rewriter, loc, i32, int64_t(1) << width));
      count = CountOp::create(rewriter, loc, stop);
    } else {
      count = CountOp::create(rewriter, loc, wide);
    }
    rewriter.replaceOpWithNewOp<arith::TruncIOp>(op, type, count);
    return success();
  }
};

/// ctlz/cttz/ctpop of an i64 from its two 32-bit halves.
template <typename CountOp> struct WideBitCount : OpRewritePattern<CountOp> {
  using OpRewritePattern<CountOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(CountOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "not an i64");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = op.getType();
    Value x = op.getOperand();
    Value low = arith::TruncIOp::create(rewriter, loc, i32, x);
    Value high = arith::TruncIOp::create(
        rewriter, loc, i32,
        arith::ShRUIOp::create(rewriter, loc, x,
                               intConstant(rewriter, loc, i64, 32)));
    Value c32 = intConstant(rewriter, loc, i32, 32);
    Value zero = intConstant(rewriter, loc, i32, 0);
    Value count;
    if constexpr (std::is_same_v<CountOp, math::CtPopOp>) {
      count = arith::AddIOp::create(rewriter, loc,
                                    CountOp::create(rewriter, loc, low),
                                    CountOp::create(rewriter, loc, high));
    } else {
      constexpr bool leading =
          std::is_same_v<CountOp, math::CountLeadingZerosOp>;
      // The half that is counted first, and the other one.
      Value first = leading ? high : low, second = leading ? low : high;
      Value firstNonZero = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne, first, zero);
      count = arith::SelectOp::create(
          rewriter, loc, firstNonZero, CountOp::create(rewriter, loc, first),
          arith::AddIOp::create(rewriter, loc, c32,
                                CountOp::create(rewriter, loc, second)));
    }
    rewriter.replaceOpWithNewOp<arith::ExtUIOp>(op, i64, count);
    return success();
  }
};

/// cttz(x) = ctpop(~x & (x - 1)): the bits below the lowest set bit (all of
/// them for 0).
struct CttzAsCtpop : OpRewritePattern<math::CountTrailingZerosOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::CountTrailingZerosOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<IntegerType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "vector cttz");
    Location loc = op.getLoc();
    Type type = op.getType();
    Value x = op.getOperand();
    Value below = arith::AndIOp::create(
        rewriter, loc,
        arith::XOrIOp::create(rewriter, loc, x,
                              intConstant(rewriter, loc, type, -1)),
        arith::SubIOp::create(rewriter, loc, x,
                              intConstant(rewriter, loc, type, 1)));
    rewriter.replaceOpWithNewOp<math::CtPopOp>(op, below);
    return success();
  }
};

/// trunc(x) = copysign(floor(|x|), x): exact, keeps -0, NaN and infinities.
struct TruncAsFloor : OpRewritePattern<math::TruncOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::TruncOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Value floor = math::FloorOp::create(rewriter, loc,
                                        math::AbsFOp::create(rewriter, loc, x));
    rewriter.replaceOpWithNewOp<math::CopySignOp>(op, floor, x);
    return success();
  }
};

struct AbsIAsSelect : OpRewritePattern<math::AbsIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsIOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<IntegerType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "vector absi");
    rewriter.replaceOp(op, absInteger(rewriter, op.getLoc(), op.getOperand()));
    return success();
  }
};

/// isnan: unordered with itself; isinf / isfinite: |x| == / != infinity.
template <typename ClassOp>
struct FloatClassAsCompare : OpRewritePattern<ClassOp> {
  using OpRewritePattern<ClassOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ClassOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    auto type = dyn_cast<FloatType>(x.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "vector class test");
    Location loc = op.getLoc();
    if constexpr (std::is_same_v<ClassOp, math::IsNaNOp>) {
      rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, arith::CmpFPredicate::UNO,
                                                 x, x);
    } else {
      Value infinity = arith::ConstantOp::create(
          rewriter, loc,
          rewriter.getFloatAttr(
              type, llvm::APFloat::getInf(type.getFloatSemantics())));
      Value magnitude = math::AbsFOp::create(rewriter, loc, x);
      rewriter.replaceOpWithNewOp<arith::CmpFOp>(
          op,
          std::is_same_v<ClassOp, math::IsInfOp> ? arith::CmpFPredicate::OEQ
                                                 : arith::CmpFPredicate::ONE,
          magnitude, infinity);
    }
    return success();
  }
};

/// A float function of f16/bf16 operands computed in f32, rounded back.
template <typename FnOp> struct HalfFunctionInF32 : OpRewritePattern<FnOp> {
  using OpRewritePattern<FnOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(FnOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op->getResult(0).getType();
    if (!type.isF16() && !type.isBF16())
      return rewriter.notifyMatchFailure(op, "not a half float");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(arith::ExtFOp::create(rewriter, loc, f32, operand));
    Operation *wide = rewriter.create(loc, op->getName().getIdentifier(),
                                      operands, {f32}, op->getAttrs());
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, wide->getResult(0));
    return success();
  }
};

bool isPolynomialFunction(StringRef name) {
  name.consume_front("math.");
  return name == "erf" || name == "erfc" || name == "cbrt" || name == "atan2";
}

} // namespace

LogicalResult expandKernelMath(Operation *module,
                               const KernelMathOptions &options) {
  MLIRContext *ctx = module->getContext();
  RewritePatternSet patterns(ctx);
  patterns.add<FPowIBySquaring, IPowIBySquaring>(ctx);
  populateScalarVectorTransferPatterns(patterns);
  if (options.narrowBitCounts)
    patterns.add<NarrowBitCount<math::CountLeadingZerosOp>,
                 NarrowBitCount<math::CountTrailingZerosOp>,
                 NarrowBitCount<math::CtPopOp>>(ctx);
  if (options.wideBitCounts)
    patterns.add<WideBitCount<math::CountLeadingZerosOp>,
                 WideBitCount<math::CountTrailingZerosOp>,
                 WideBitCount<math::CtPopOp>>(ctx);
  if (options.cttzAsCtpop)
    patterns.add<CttzAsCtpop>(ctx, /*benefit=*/0);
  if (options.truncAsFloor)
    patterns.add<TruncAsFloor>(ctx);
  if (options.integerAbsAndClassAsArith)
    patterns.add<AbsIAsSelect, FloatClassAsCompare<math::IsNaNOp>,
                 FloatClassAsCompare<math::IsInfOp>,
                 FloatClassAsCompare<math::IsFiniteOp>>(ctx);
  if (options.polynomialFunctions) {
    populateMathF32ExpansionPatterns(patterns, isPolynomialFunction);
    populateMathPolynomialApproximationPatterns(patterns, isPolynomialFunction);
  }
  if (options.widenHalfFunctions)
    patterns
        .add<HalfFunctionInF32<math::ErfOp>, HalfFunctionInF32<math::ErfcOp>,
             HalfFunctionInF32<math::CbrtOp>, HalfFunctionInF32<math::AcoshOp>,
             HalfFunctionInF32<math::AsinhOp>,
             HalfFunctionInF32<math::AtanhOp>>(ctx);
  if (options.ceilFloorDivisions)
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
  // Only the math and transfer ops and what their rewrites create: the rest
  // of the kernel stays as written (a fold elsewhere would hide it from the
  // backends' checks).
  SmallVector<Operation *> roots;
  module->walk([&](Operation *op) {
    if (isa<math::MathDialect>(op->getDialect()) ||
        isa<vector::TransferReadOp, vector::TransferWriteOp>(op) ||
        (options.ceilFloorDivisions &&
         isa<arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op)))
      roots.push_back(op);
  });
  if (roots.empty())
    return success();
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  config.enableFolding(false);
  return applyOpPatternsGreedily(roots, std::move(patterns), config);
}

} // namespace sluice
