//===- HIPBackend.h - The sluice-gpu-to-hip pipeline ------------*- C++ -*-===//
//
// The HIP backend (docs/hip-backend.md): the gpu hand-off to EmitC
// (`sluice-gpu-to-hip-emitc`, one `emitc.file` per gpu.module plus the
// prelude) and the `sluice-gpu-to-hip` pipeline. Printing the files as one
// HIP C++ translation unit is sluice/Target/HIP/HIPSource.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_GPUTOEMITC_HIPBACKEND_H
#define SLUICE_CONVERSION_GPUTOEMITC_HIPBACKEND_H

#include "sluice/ABI/HIPABI.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"

#include <string>

namespace sluice {

/// The `emitc.file` id of the prelude and of the file of gpu.module `name`.
constexpr llvm::StringLiteral kHIPPreludeFileId = "sluice.hip";
std::string hipFileId(llvm::StringRef gpuModule);

/// `<gpu.module>_<gpu.func>`: the extern "C" symbol of a kernel.
std::string hipKernelSymbol(llvm::StringRef gpuModule, llvm::StringRef kernel);

/// Whether `type` is a row-major array in C: the identity layout, or a
/// strided one whose strides are those of its shape (any offset: the
/// pointer points at the first element).
bool isContiguousMemRef(mlir::MemRefType type);

/// Refuses, at the op, the shuffles HIP cannot express (vectors), before
/// anything else of the kernel fails to convert.
mlir::LogicalResult checkHIPSubgroupOps(mlir::gpu::GPUModuleOp module);

/// Whether the HIP lowering writes `reduce` as one call of the prelude,
/// `sluice_subgroup_<op>(value)`: a reduction over the whole subgroup (no
/// cluster) of an i32 by add, and, or, xor, minsi, maxsi, minui or maxui.
/// On NVIDIA from sm_80 that is one `__reduce_<op>_sync` (a REDUX
/// instruction), elsewhere a butterfly of `__shfl_xor` over warpSize; every
/// other reduction is expanded into shuffles before the conversion.
bool isHIPNativeSubgroupReduce(mlir::gpu::SubgroupReduceOp reduce);

/// gpu.shuffle (as sluice-expand-gpu-collectives leaves it: idx from a lane
/// of the subgroup) as SLUICE_SHFL(value, lane) of the prelude, and the
/// native subgroup reductions (isHIPNativeSubgroupReduce).
void populateHIPSubgroupPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);

/// The Sluice patterns of sluice-gpu-to-hip-emitc (gpu ops, memrefs as
/// pointers, atomics, the math and arith ops upstream's EmitC conversions
/// lack). `converter` maps index to i64 and memrefs to `!emitc.ptr`.
void populateSluiceGPUToHIPPatterns(const mlir::TypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);

/// The type converter of the HIP lowering: index -> i64, memref -> pointer
/// to its element (i1 -> ui8, index -> i64, or i32 when indexBitwidth is
/// 32), integers of 1/8/16/32/64 bits, f32 and f64 as themselves.
void populateHIPTypeConversions(mlir::TypeConverter &converter,
                                unsigned indexBitwidth = 64);

/// sluice-gpu-to-hip-emitc; the kernels without a known block size get
/// `__launch_bounds__(blockSize)` when blockSize is not 0; indexBitwidth 32
/// computes `index` in int32_t inside kernels (their parameters stay
/// int64_t, the ABI's).
void buildSluiceGPUToHIPPipeline(mlir::OpPassManager &pm,
                                 unsigned blockSize = 0,
                                 unsigned indexBitwidth = 64);

/// Registers the `sluice-gpu-to-hip` pipeline.
void registerSluiceGPUToHIPPipeline();

} // namespace sluice

#endif // SLUICE_CONVERSION_GPUTOEMITC_HIPBACKEND_H
