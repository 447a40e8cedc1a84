//===- HIPSource.h - HIP C++ source of sluice-gpu-to-hip --------*- C++ -*-===//
//
// Prints the emitc.files that sluice-gpu-to-hip-emitc produces
// (sluice/Conversion/GPUToEmitC/HIPBackend.h) as HIP C++ with upstream's
// emitc::translateToCpp, and the `--sluice-to-hip` translation.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TARGET_HIP_HIPSOURCE_H
#define SLUICE_TARGET_HIP_HIPSOURCE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice {

/// Writes the prelude and the source of every converted gpu.module of
/// `module` (or only of gpu.module `gpuModule`, when not empty) as one
/// translation unit. An error at the module when it was not converted.
mlir::LogicalResult printHIPSource(mlir::ModuleOp module, llvm::raw_ostream &os,
                                   llvm::StringRef gpuModule = "");

/// Registers `--sluice-to-hip` (and `--sluice-hip-block-size`): a module with
/// gpu.modules, or one already lowered by sluice-gpu-to-hip, to one .hip file.
void registerHIPSourceTranslation();

} // namespace sluice

#endif // SLUICE_TARGET_HIP_HIPSOURCE_H
