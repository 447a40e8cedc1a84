//===- MathPatterns.cpp - math ops upstream's MathToSPIRV lacks -----------===//
//
// GLSL.std.450 has Exp2 and SPIR-V has OpBitCount, but MathToSPIRV lowers
// neither math.exp2 nor math.ctpop. What has no instruction at all (trunc,
// cttz, erf, ...) is rewritten before the conversion (expandKernelMath).
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

/// A math op of one operand whose SPIR-V instruction takes and returns the
/// converted type (32-bit integers, 16/32-bit floats and their vectors).
template <typename MathOp, typename SPIRVOp>
struct UnaryMathPattern : public OpConversionPattern<MathOp> {
  using OpConversionPattern<MathOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = this->getTypeConverter()->convertType(op.getType());
    if (!type || getElementTypeOrSelf(type).getIntOrFloatBitWidth() != 32)
      return rewriter.notifyMatchFailure(op, "not a 32-bit type");
    rewriter.replaceOpWithNewOp<SPIRVOp>(op, type, adaptor.getOperand());
    return success();
  }
};

} // namespace

void sluice::populateMathExtrasToSPIRVPatterns(
    const SPIRVTypeConverter &typeConverter, RewritePatternSet &patterns) {
  patterns.add<UnaryMathPattern<math::Exp2Op, spirv::GLExp2Op>,
               UnaryMathPattern<math::CtPopOp, spirv::BitCountOp>>(
      typeConverter, patterns.getContext());
}
