//===- hip_device.h - HIP device adapter ------------------------*- C++ -*-===//
//
// Runs compiled stage kernels (one HIP C++ source, the artifact's `hip`
// section) on an AMD or NVIDIA GPU (hip_driver.h) under the same wavefront
// scheduler as every other backend: a CompiledKernelDevice whose primitives
// are the HIP driver's.
//
// - The source is compiled once at load (NVRTC / hiprtc, through the
//   code-object cache) into one module; each stage kernel is its extern "C"
//   symbol (the descriptor's backends.hip.symbols).
// - Kernel parameters (one 8-byte value each): the invocation count as
//   int64_t, then per LaunchArgument its device pointer followed by one
//   int64_t per dynamic dimension (kernelArgumentForms).
// - Resident buffers are device memory; Transfer buffers are mapped pinned
//   host memory that kernels reach over the bus, so the per-dispatch uploads
//   and downloads are host copies.
// - A launch enqueues ceil(count / block lanes) blocks on the device's one
//   stream; wait synchronizes it and times the launches with two events.
// - Owner policies (owner_policy.h) are __device__ functions of the source.
//   The host placement runs each hook call as a one-thread kernel on the
//   same stream (storage in device memory, the counts copied in and back);
//   the device placement's scheduler calls them itself.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_HIP_HIP_DEVICE_H
#define SLUICE_RUNTIME_DEVICE_HIP_HIP_DEVICE_H

#include "sluice/runtime/device/compiled_kernel_device.h"
#include "sluice/runtime/device/hip/hip_driver.h"

#include <array>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sluice::runtime {

// What the compiler produced for a program, beyond its ProgramDescriptor.
struct HipProgram {
  std::string source;               // the HIP C++ source of every kernel
  std::vector<std::string> symbols; // per global stage
  std::string megakernel;           // its symbol, or empty
  std::vector<std::pair<uint32_t, uint32_t>> megakernelUniforms;
  uint32_t blockLanes = 64; // threads per block
  uint32_t indexBits = 64;  // CompiledBackend::indexBits
  GpuKernelLayout layout;
  std::vector<std::vector<uint32_t>> payloadElementBytes;
  std::vector<std::vector<unsigned char>> inputs;
  // Per binding in descriptor order: its shape, -1 dynamic ({}: uniform).
  // The extents argument follows them.
  std::vector<std::vector<int64_t>> bindingShapes;
  uint64_t lanes = UINT64_MAX;
  // Per owner, per hook (PolicyHook): the __device__ function of its
  // compiled storage policy in `source`, or empty (the default).
  std::vector<std::array<std::string, kPolicyHookCount>> policies;
};

// The form of one kernel argument: its shape with -1 where a dimension is
// dynamic (one int64_t parameter follows the pointer per -1).
using KernelArgumentForm = std::vector<int64_t>;

// The forms of a stage kernel's LaunchArguments in the kernel ABI's order
// (KernelABI.h): the ten fixed arrays, per owner its ring and payload
// fields, the inputs (each rank-1 dynamic), the bindings (their descriptor
// shapes), the extents (rank-1 dynamic), and with `megakernel` the machine
// words (rank-1 dynamic).
std::vector<KernelArgumentForm>
kernelArgumentForms(std::span<const std::vector<uint32_t>> payloadElementBytes,
                    size_t inputs,
                    std::span<const std::vector<int64_t>> bindingShapes,
                    bool megakernel);

// The parameters of one launch: values[0] the count, then per argument the
// pointer and its dynamic extents; pointers[i] = &values[i] (what
// cuLaunchKernel / hipModuleLaunchKernel take).
struct KernelParameters {
  std::vector<uint64_t> values;
  std::vector<void *> pointers;
};
// A dynamic dimension d of an argument is shape[d], or, for an argument
// without a shape (a rank-1 array), its elements.
Status packKernelParameters(
    uint64_t count, std::span<const LaunchArgument> arguments,
    std::span<const KernelArgumentForm> forms,
    const std::function<hip::DevicePointer(const LaunchArgument &)> &address,
    KernelParameters &out);
// 1 + per form, 1 + its dynamic dimensions.
size_t kernelParameterCount(std::span<const KernelArgumentForm> forms);

using HipDeviceStats = CompiledKernelStats;

class HipDevice final : public CompiledKernelDevice {
public:
  // Opens the process's driver (hip_driver.h), compiles the source and
  // finds every stage kernel. DeviceUnavailable without a driver or GPU.
  static Status create(HipProgram program, std::unique_ptr<HipDevice> &out);
  ~HipDevice() override;

  const char *name() const override { return "hip"; }
  // "nvidia 'NVIDIA H200' (sm_90)".
  std::string deviceName() const;

private:
  HipDevice() = default;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_HIP_HIP_DEVICE_H
