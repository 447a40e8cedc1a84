//===- SPIRVBackend.h - The sluice-to-spirv pipeline ------------*- C++ -*-===//
//
// The native SPIR-V backend (docs/spirv-backend.md): the `sluice-to-spirv`
// pass pipeline from the gpu hand-off to `spirv.module`s. Serializing them
// (and `--sluice-to-spirv-bin`) is sluice/Target/SPIRV/SPIRVBinary.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_GPUTOSPIRV_SPIRVBACKEND_H
#define SLUICE_CONVERSION_GPUTOSPIRV_SPIRVBACKEND_H

// Users of the pipeline that serialize its spirv.modules get the serializer.

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class RewritePatternSet;
class SPIRVTypeConverter;
} // namespace mlir

namespace sluice {

struct SluiceToSPIRVOptions
    : public mlir::PassPipelineOptions<SluiceToSPIRVOptions> {
  Option<unsigned> workgroupSize{
      *this, "workgroup-size",
      llvm::cl::desc("Workgroup size x of kernels without a known block size"),
      llvm::cl::init(64)};
  Option<std::string> spirvVersion{
      *this, "spirv-version",
      llvm::cl::desc("SPIR-V version of the target environment"),
      llvm::cl::init("1.3")};
  Option<unsigned> maxPrivateBytes{
      *this, "max-private-bytes",
      llvm::cl::desc("Private arrays larger than this (bytes per invocation) "
                     "move to a scratch storage buffer"),
      llvm::cl::init(16384)};
};

/// Bytes of one element of type `element` in SPIR-V kernel memory: index is
/// i32 there, an i1 takes a byte, other widths round up to a power of two.
uint64_t spirvStorageBytes(mlir::Type element);

/// Bytes of a (private or workgroup) attribution in the SPIR-V kernel; 0 for
/// a dynamic shape.
uint64_t attributionBytes(mlir::MemRefType type);

/// Per private attribution of `kernel` that sluice-gpu-to-spirv moves to a
/// scratch buffer (more than `maxPrivateBytes`), in order, its bytes per
/// invocation. Those buffers are the kernel's trailing arguments.
llvm::SmallVector<uint64_t> scratchArguments(mlir::gpu::GPUFuncOp kernel,
                                             uint64_t maxPrivateBytes);

/// Rewrites the arith ops on i8 (without `int8`, the target's Int8
/// capability) and i16 (without `int16`) of `module` as i32 ops that keep
/// the narrow value sign-extended, so wrapping, division, compares and
/// shifts give the N-bit results; memory keeps N-bit elements.
mlir::LogicalResult widenNarrowIntegers(mlir::gpu::GPUModuleOp module,
                                        bool int8, bool int16);

/// math.exp2 (GLSL.std.450 Exp2) and math.ctpop (OpBitCount) of 32-bit
/// types, which upstream's MathToSPIRV does not lower.
void populateMathExtrasToSPIRVPatterns(
    const mlir::SPIRVTypeConverter &typeConverter,
    mlir::RewritePatternSet &patterns);

/// gpu.shuffle (every mode, any width) as OpGroupNonUniformShuffle from a
/// computed source lane; the subgroup size is the device's (SubgroupSize).
void populateSubgroupToSPIRVPatterns(
    const mlir::SPIRVTypeConverter &typeConverter,
    mlir::RewritePatternSet &patterns);

/// sluice-check-spirv, sluice-gpu-to-spirv, then on every spirv.module
/// spirv-lower-abi-attrs and spirv-update-vce.
void buildSluiceToSPIRVPipeline(mlir::OpPassManager &pm,
                                const SluiceToSPIRVOptions &options);

/// Registers the `sluice-to-spirv` pipeline.
void registerSluiceToSPIRVPipeline();

} // namespace sluice

#endif // SLUICE_CONVERSION_GPUTOSPIRV_SPIRVBACKEND_H
