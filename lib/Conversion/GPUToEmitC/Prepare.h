//===- Prepare.h - The gpu hand-off made ready for EmitC --------*- C++ -*-===//
#ifndef SLUICE_LIB_CONVERSION_GPUTOEMITC_PREPARE_H
#define SLUICE_LIB_CONVERSION_GPUTOEMITC_PREPARE_H

#include "sluice/Conversion/GPUToEmitC/HIPBackend.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringSet.h"

namespace sluice {

/// Prepares the copy `module` of a gpu.module for the EmitC conversion
/// (Prepare.cpp): attributions as allocas, control flow lifted to scf,
/// arith-expand, N-D accesses linearized, dynamic dimensions as index
/// arguments after their memref, memref.dim resolved, and the body of each
/// kernel named in `stageKernels` split into `<module>_<kernel>_body`. With
/// an `indexBitwidth` of 32, a kernel's index parameters become i64 (the
/// ABI's int64_t) cast to index at its entry, where index is int32_t.
mlir::LogicalResult prepareForHIP(mlir::gpu::GPUModuleOp module,
                                  const llvm::StringSet<> &stageKernels,
                                  unsigned indexBitwidth = 64);

} // namespace sluice

#endif // SLUICE_LIB_CONVERSION_GPUTOEMITC_PREPARE_H
