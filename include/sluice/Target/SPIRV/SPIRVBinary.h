//===- SPIRVBinary.h - SPIR-V binaries of sluice-to-spirv -------*- C++ -*-===//
//
// Serializes the spirv.modules that the sluice-to-spirv pipeline
// (sluice/Conversion/GPUToSPIRV/SPIRVBackend.h) produces, and the
// `--sluice-to-spirv-bin` translation that writes them out.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TARGET_SPIRV_SPIRVBINARY_H
#define SLUICE_TARGET_SPIRV_SPIRVBINARY_H

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <cstdint>

namespace sluice {

/// The gpu.module a spirv.module of the pipeline was converted from (the
/// conversion names it `__spv__<gpu.module>`).
llvm::StringRef gpuModuleNameOf(mlir::spirv::ModuleOp module);

/// The spirv.module converted from gpu.module `gpuModule`, or null.
mlir::spirv::ModuleOp spirvModuleFor(mlir::ModuleOp module,
                                     llvm::StringRef gpuModule);

/// spirv::serialize, with an error at the module when it fails.
mlir::LogicalResult serializeSPIRV(mlir::spirv::ModuleOp module,
                                   llvm::SmallVectorImpl<uint32_t> &binary);

/// Registers `--sluice-to-spirv-bin` (and its `--sluice-spirv-dir` option)
/// with the translation registry.
void registerSPIRVBinaryTranslation();

} // namespace sluice

#endif // SLUICE_TARGET_SPIRV_SPIRVBINARY_H
