//===- HostAccess.h - Host-access calls around resident launches -*- C++ -*-===//
//
// A GPU backend may keep a memref operand's device copy between launches
// (SLUICE_LAUNCH_RESIDENT, include/sluice/ABI/LaunchABI.h) when the host code
// calls sluice_rt_host_access before it touches the operand's memory after a
// launch. insertHostAccessCalls places those calls in every function that
// launches kernels; the rules are in docs/spirv-backend.md ("Residency").
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_GPULAUNCHTORUNTIME_HOSTACCESS_H
#define SLUICE_CONVERSION_GPULAUNCHTORUNTIME_HOSTACCESS_H

#include "sluice/Conversion/RuntimeCalls.h"

namespace sluice {

/// Inserts `sluice_rt_host_access(ptr, bytes, access)` calls into every
/// function of `module` that contains a `gpu.launch_func`, before each host
/// operation that may touch memory a launch of the function used, before its
/// returns and before unknown calls when such memory may have escaped. Runs
/// before the launches are lowered (it reads their operands); after it, every
/// memref operand of those launches may be passed as SLUICE_LAUNCH_RESIDENT.
/// Returns the number of calls inserted.
unsigned insertHostAccessCalls(mlir::ModuleOp module, RuntimeCalls &runtime);

} // namespace sluice

#endif // SLUICE_CONVERSION_GPULAUNCHTORUNTIME_HOSTACCESS_H
