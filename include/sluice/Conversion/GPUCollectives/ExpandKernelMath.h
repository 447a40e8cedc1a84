//===- ExpandKernelMath.h - math ops a backend has no instruction for -*- C++
//-*-===//
//
// The math dialect inside kernels, rewritten in terms of ops every backend
// lowers, before the backend's own conversion (docs/gpu-kernels.md). What is
// exact (integer and float powers by squaring, bit counts of narrow and wide
// integers, trunc) is written once here, so every backend computes the same
// bits; what is approximated (erf, erfc, cbrt, atan2 as upstream's
// polynomials) only where the backend has no function of its own (SPIR-V).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_GPUCOLLECTIVES_EXPANDKERNELMATH_H
#define SLUICE_CONVERSION_GPUCOLLECTIVES_EXPANDKERNELMATH_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace sluice {

struct KernelMathOptions {
  /// math.ctlz/cttz/ctpop of integers narrower than 32 bits through i32
  /// (SPIR-V without Int8/Int16 computes them in 32 bits; HIP has 32- and
  /// 64-bit builtins only).
  bool narrowBitCounts = false;
  /// math.ctlz/cttz/ctpop of i64 through the two 32-bit halves (SPIR-V's
  /// GLSL.std.450 FindUMsb/FindILsb and OpBitCount work on 32 bits).
  bool wideBitCounts = false;
  /// math.cttz as ctpop((x & -x) - 1) (HIP and SPIR-V have no count of
  /// trailing zeros that gives the width for 0).
  bool cttzAsCtpop = false;
  /// math.trunc as copysign(floor(|x|), x) (GLSL.std.450 has no Trunc in
  /// the SPIR-V dialect).
  bool truncAsFloor = false;
  /// math.absi as a select and math.isnan/isinf/isfinite as compares (HIP).
  bool integerAbsAndClassAsArith = false;
  /// erf, erfc, cbrt and atan2 of f16/f32 as upstream's polynomial
  /// approximations, computed in f32 (SPIR-V has none of them).
  bool polynomialFunctions = false;
  /// arith.ceildivsi, ceildivui and floordivsi as upstream's expansions into
  /// divisions, remainders and selects (SPIR-V and C++ have no such
  /// instruction or operator).
  bool ceilFloorDivisions = false;
  /// Float functions without a native instruction for f16/bf16 computed in
  /// f32 and rounded back (the CPU's libm has f32 and f64 functions only).
  bool widenHalfFunctions = false;
};

/// vector.transfer_read/write of 1-D vectors on memrefs as one guarded
/// scalar load or store per element (VectorTransfers.cpp); expandKernelMath
/// applies them with its other rewrites.
void populateScalarVectorTransferPatterns(mlir::RewritePatternSet &patterns);

/// Rewrites the math of every function in `module` as `options` asks, and
/// always math.fpowi and math.ipowi as square-and-multiply (the same
/// products on every backend) and 1-D vector transfers as scalar accesses.
/// Fails only when the rewrite does not converge.
mlir::LogicalResult expandKernelMath(mlir::Operation *module,
                                     const KernelMathOptions &options);

} // namespace sluice

#endif // SLUICE_CONVERSION_GPUCOLLECTIVES_EXPANDKERNELMATH_H
