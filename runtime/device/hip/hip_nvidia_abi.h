//===- hip_nvidia_abi.h - The CUDA driver and NVRTC ABI we call -*- C++ -*-===//
//
// The few types and constants of cuda.h and nvrtc.h that the NVIDIA platform
// uses, declared here so the runtime builds without a CUDA toolkit. The CUDA
// driver API keeps them stable; hip_driver_test.cpp compares them with the
// toolkit's headers when it finds them.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_HIP_HIP_NVIDIA_ABI_H
#define SLUICE_RUNTIME_DEVICE_HIP_HIP_NVIDIA_ABI_H

namespace sluice::runtime::hip::cuda_abi {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr nvrtcResult NVRTC_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
constexpr int CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95;
constexpr unsigned kMemHostAllocPortable = 0x01;
constexpr unsigned kMemHostAllocDeviceMap = 0x02;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;

} // namespace sluice::runtime::hip::cuda_abi

#endif // SLUICE_RUNTIME_DEVICE_HIP_HIP_NVIDIA_ABI_H
