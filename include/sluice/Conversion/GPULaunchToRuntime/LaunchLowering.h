//===- LaunchLowering.h - gpu.launch_func to the host-launch ABI -*- C++ -*-===//
//
// The one lowering of host launches (include/sluice/ABI/LaunchABI.h): every
// backend's host half turns a `gpu.launch_func` into begin / one call per
// operand / end on runtime/include/sluice/runtime/launch/host_launch.h; only
// the kernel handle, the width of `index` in the kernel and what the kernel
// may do with its operands differ. convert-gpu-to-cpu (handle: the block
// function) and convert-gpu-launch-to-runtime (handle: SPIR-V words) both use
// it.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_GPULAUNCHTORUNTIME_LAUNCHLOWERING_H
#define SLUICE_CONVERSION_GPULAUNCHTORUNTIME_LAUNCHLOWERING_H

#include "sluice/ABI/LaunchABI.h"
#include "sluice/Conversion/RuntimeCalls.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace sluice {

/// What a launch needs to know of its kernel, read off before the kernel is
/// converted.
struct LaunchKernelInfo {
  llvm::SmallVector<uint64_t> access;  // SLUICE_LAUNCH_READ/WRITE per argument
  llvm::SmallVector<uint64_t> scratch; // bytes per invocation, per scratch buffer
  uint64_t workgroupBytes = 0; // the backend's size of the workgroup memory
};

/// The access flags of every argument of `kernel` (workgroup memory and
/// scratch arguments are the backend's to add: their sizes are its own).
LaunchKernelInfo launchKernelInfo(mlir::gpu::GPUFuncOp kernel);

/// What every backend refuses at a launch, named for `backend` ("CPU",
/// "Vulkan"): async launches, dynamic shared memory, cluster launches.
mlir::LogicalResult checkLaunchForm(mlir::gpu::LaunchFuncOp launch,
                                    llvm::StringRef backend);

struct HostLaunchTarget {
  enum sluice_launch_backend backend = SLUICE_LAUNCH_CPU;
  unsigned indexBytes = 8; // bytes of `index` in the kernel
  uint32_t workers = 0;    // CPU: workers of every launch (0: the default)
  // Memref operands may stay resident on the device: the host code around
  // the launches calls sluice_rt_host_access (HostAccess.h).
  bool resident = false;
};

class HostLaunchLowering {
public:
  HostLaunchLowering(mlir::ModuleOp module, mlir::SymbolTable &symbols);

  /// Replaces `launch` with the host-launch calls. `handle` builds the
  /// kernel handle (an !llvm.ptr) at the launch; `handleBytes` is its size.
  /// The kernel name of begin is `symbol`, or the gpu.func's name if empty.
  void lower(
      mlir::gpu::LaunchFuncOp launch, const HostLaunchTarget &target,
      llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location)> handle,
      uint64_t handleBytes, const LaunchKernelInfo &kernel,
      llvm::StringRef symbol = "");

private:
  void passMemRef(mlir::OpBuilder &b, mlir::Location loc, mlir::Value operand,
                  uint64_t access);
  void passScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value operand,
                  unsigned indexBytes);

  RuntimeCalls runtime;
  mlir::func::FuncOp begin, workers, workgroupMemory, memref, memrefDim, scalar,
      scratch, end;
};

/// Bytes of one element of `type` in host memory (integers and floats of
/// 8 to 64 bits, i1 as a byte, index as `indexBytes`); 0 for anything else.
unsigned hostElementBytes(mlir::Type type, unsigned indexBytes);

} // namespace sluice

#endif // SLUICE_CONVERSION_GPULAUNCHTORUNTIME_LAUNCHLOWERING_H
