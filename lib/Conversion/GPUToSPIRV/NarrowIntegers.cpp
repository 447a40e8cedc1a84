//===- NarrowIntegers.cpp - i8/i16 arithmetic in 32-bit registers ---------===//
//
// Without the Int8/Int16 capabilities (Vulkan's shaderInt8/shaderInt16)
// upstream's SPIRVTypeConverter holds an i8 or i16 in an i32 and applies the
// 32-bit instruction, so 100 + 100 : i8 compares greater than zero and
// divides as 200. Before the conversion every arith op on such a type is
// rewritten on i32 with the N-bit value kept sign-extended: wrapping results
// are sign-extended from bit N - 1 again, unsigned operands are masked to N
// bits first. Memory keeps its N-bit elements (upstream's emulation loads
// and stores them); the values meet at arith.extsi / arith.trunci.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

constexpr unsigned kRegisterBits = 32;

struct NarrowWidths {
  bool int8 = false, int16 = false;
  /// Whether `type` is held in an i32 instead of itself.
  bool widened(Type type) const {
    auto integer = dyn_cast<IntegerType>(type);
    if (!integer)
      return false;
    return (integer.getWidth() > 1 && integer.getWidth() <= 8 && !int8) ||
           (integer.getWidth() > 8 && integer.getWidth() < 32 &&
            !(int16 && integer.getWidth() == 16));
  }
};

Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}

/// The i32 that holds the low `bits` bits of `value`, sign-extended.
Value signExtendFrom(OpBuilder &b, Location loc, Value value, unsigned bits) {
  Value shift = i32Constant(b, loc, kRegisterBits - bits);
  return arith::ShRSIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, value, shift), shift);
}

/// The N-bit value as an unsigned i32.
Value zeroExtendFrom(OpBuilder &b, Location loc, Value value, unsigned bits) {
  return arith::AndIOp::create(b, loc, value,
                               i32Constant(b, loc, (int64_t(1) << bits) - 1));
}

bool isUnsignedPredicate(arith::CmpIPredicate predicate) {
  using P = arith::CmpIPredicate;
  return predicate == P::ult || predicate == P::ule || predicate == P::ugt ||
         predicate == P::uge;
}

struct WidenArithOp : public ConversionPattern {
  WidenArithOp(const TypeConverter &converter, MLIRContext *ctx,
               NarrowWidths widths)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        widths(widths) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect>(op->getDialect()))
      return rewriter.notifyMatchFailure(op, "not arith");
    Location loc = op->getLoc();
    // The narrow width of the op's operands (else of its result).
    unsigned bits = 0;
    for (Type type : op->getOperandTypes())
      if (widths.widened(type))
        bits = type.getIntOrFloatBitWidth();
    unsigned resultBits = 0;
    for (Type type : op->getResultTypes())
      if (widths.widened(type))
        resultBits = type.getIntOrFloatBitWidth();
    Type i32 = rewriter.getI32Type();

    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto value = dyn_cast<IntegerAttr>(constant.getValue());
      if (!value)
        return rewriter.notifyMatchFailure(op, "vector constant");
      rewriter.replaceOp(op, i32Constant(rewriter, loc, value.getInt()));
      return success();
    }
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
            arith::IndexCastUIOp, arith::FPToSIOp, arith::FPToUIOp,
            arith::SIToFPOp, arith::UIToFPOp>(op))
      return rewriteCast(op, operands[0], bits, resultBits, rewriter);

    SmallVector<Value> inputs(operands);
    bool unsignedOperands =
        isa<arith::DivUIOp, arith::RemUIOp, arith::ShRUIOp, arith::MaxUIOp,
            arith::MinUIOp, arith::CeilDivUIOp>(op);
    if (auto cmp = dyn_cast<arith::CmpIOp>(op))
      unsignedOperands = isUnsignedPredicate(cmp.getPredicate());
    if (unsignedOperands)
      for (Value &input : inputs)
        input = zeroExtendFrom(rewriter, loc, input, bits);
    if (isa<arith::ShLIOp, arith::ShRUIOp, arith::ShRSIOp>(op))
      inputs[1] = operands[1]; // the shift amount, not a shifted value
    SmallVector<Type> resultTypes;
    for (Type type : op->getResultTypes())
      resultTypes.push_back(widths.widened(type) ? i32 : type);
    if (!llvm::all_of(
            inputs, [](Value v) { return v.getType().isIntOrIndexOrFloat(); }))
      return rewriter.notifyMatchFailure(op, "vector operands");
    Operation *wide = rewriter.create(loc, op->getName().getIdentifier(),
                                      inputs, resultTypes, op->getAttrs());
    SmallVector<Value> results(wide->getResults());
    // Everything but the bitwise ops, compares, selects and signed
    // max/min may leave bits above N that the N-bit result does not have.
    bool canonical =
        isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::SelectOp,
            arith::CmpIOp, arith::MaxSIOp, arith::MinSIOp, arith::ShRSIOp>(op);
    if (!canonical && resultBits)
      for (Value &result : results)
        if (result.getType() == i32)
          result = signExtendFrom(rewriter, loc, result, resultBits);
    rewriter.replaceOp(op, results);
    return success();
  }

  /// Conversions into and out of a widened type.
  LogicalResult rewriteCast(Operation *op, Value input, unsigned bits,
                            unsigned resultBits,
                            ConversionPatternRewriter &rewriter) const {
    Location loc = op->getLoc();
    Type i32 = rewriter.getI32Type();
    Type resultType = op->getResult(0).getType();
    Type target = resultBits ? i32 : resultType;
    bool unsignedInput =
        isa<arith::ExtUIOp, arith::UIToFPOp, arith::IndexCastUIOp>(op);
    if (bits && unsignedInput)
      input = zeroExtendFrom(rewriter, loc, input, bits);
    Value result = input;
    if (isa<arith::ExtSIOp>(op) && input.getType() != target)
      result = arith::ExtSIOp::create(rewriter, loc, target, input);
    else if (isa<arith::ExtUIOp>(op) && input.getType() != target)
      result = arith::ExtUIOp::create(rewriter, loc, target, input);
    else if (isa<arith::TruncIOp>(op) && input.getType() != target)
      result = arith::TruncIOp::create(rewriter, loc, target, input);
    else if (!isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(op))
      result = rewriter
                   .create(loc, op->getName().getIdentifier(), {input},
                           {target}, op->getAttrs())
                   ->getResult(0);
    // An extension of a sign-extended (or masked) value is in form; a
    // truncation or a conversion from a float or index keeps its N bits.
    if (resultBits && !isa<arith::ExtSIOp, arith::ExtUIOp>(op))
      result = signExtendFrom(rewriter, loc, result, resultBits);
    rewriter.replaceOp(op, result);
    return success();
  }

  NarrowWidths widths;
};

} // namespace

LogicalResult sluice::widenNarrowIntegers(gpu::GPUModuleOp module, bool int8,
                                          bool int16) {
  NarrowWidths widths{int8, int16};
  MLIRContext *ctx = module.getContext();
  TypeConverter converter;
  converter.addConversion([](Type type) { return type; });
  converter.addConversion([widths](IntegerType type) -> Type {
    return widths.widened(type) ? IntegerType::get(type.getContext(), 32)
                                : Type(type);
  });
  // N-bit values from memory (and for it) meet the i32 form here.
  converter.addTargetMaterialization(
      [](OpBuilder &b, Type type, ValueRange inputs, Location loc) -> Value {
        return arith::ExtSIOp::create(b, loc, type, inputs[0]);
      });
  converter.addSourceMaterialization(
      [](OpBuilder &b, Type type, ValueRange inputs, Location loc) -> Value {
        return arith::TruncIOp::create(b, loc, type, inputs[0]);
      });
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addDynamicallyLegalDialect<arith::ArithDialect>(
      [widths](Operation *op) {
        return llvm::none_of(op->getOperandTypes(),
                             [&](Type t) { return widths.widened(t); }) &&
               llvm::none_of(op->getResultTypes(),
                             [&](Type t) { return widths.widened(t); });
      });
  RewritePatternSet patterns(ctx);
  patterns.add<WidenArithOp>(converter, ctx, widths);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  return applyPartialConversion(module, target, std::move(patterns));
}
