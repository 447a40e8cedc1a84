//===- vulkan_device.h - Vulkan device adapter ------------------*- C++ -*-===//
//
// Runs compiled stage kernels (SPIR-V from the sluice-to-spirv pipeline) on a
// Vulkan device under the same wavefront scheduler and admission code as the
// CPU device: a CompiledKernelDevice (compiled_kernel_device.h) whose
// primitives are Vulkan's:
//
// - one compute pipeline per stage kernel, all entry points of one module;
// - descriptor set 0 holds the kernel arguments of KernelABI.h as storage
//   buffers (the invocation count is a push constant; its binding, 0, stays
//   in the layout, bound to a dummy buffer);
// - buffers are host-visible (device-local where the device has such
//   memory), so upload and download are copies into the mapping;
// - a launch records the kernel over ceil(count / workgroup) workgroups; the
//   wait submits and waits for the fence and returns the timestamps.
//
// The state-machine schedule launches the megakernel (one more pipeline,
// with the machine words as its last binding) in rounds.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_DEVICE_H
#define SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_DEVICE_H

#include "sluice/runtime/device/compiled_kernel_device.h"
#include "sluice/runtime/device/gpu_abi.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sluice::runtime {

// What the compiler produced for a program, beyond its ProgramDescriptor.
struct VulkanProgram {
  std::vector<uint32_t> spirv;          // one module holding every stage kernel
  std::vector<std::string> entryPoints; // per global stage
  std::string megakernel;               // its entry point, or empty
  std::vector<std::pair<uint32_t, uint32_t>> megakernelUniforms;
  uint32_t workgroupSize = 64;          // the kernels' LocalSize x
  GpuKernelLayout layout;
  // Per owner, per payload field: bytes of one element in the kernel.
  std::vector<std::vector<uint32_t>> payloadElementBytes;
  // Per coroutine argument: the input array's bytes (indexed by lane id).
  std::vector<std::vector<unsigned char>> inputs;
  // Number of resident buffers: kernel arguments after the inputs, set with
  // setBinding (the program's bindings, then their extents).
  uint32_t bindings = 0;
  // Lanes a run may start: the inputs are sized for them.
  uint64_t lanes = UINT64_MAX;
};

// Per-run GPU figures.
using VulkanDeviceStats = CompiledKernelStats;

// The compiled-kernel device on Vulkan: its primitives are Vulkan buffers
// (host-visible, preferably device-local), one compute pipeline per stage and
// one stream; everything else is CompiledKernelDevice's.
class VulkanDevice final : public CompiledKernelDevice {
public:
  // Creates the Vulkan context (vulkan.h selects the device) and one pipeline
  // per stage. Fails with DeviceUnavailable when there is no Vulkan device or
  // it lacks a feature the kernels' capabilities need.
  static Status create(VulkanProgram program,
                       std::unique_ptr<VulkanDevice> &out);
  ~VulkanDevice() override;

  const char *name() const override { return "vulkan"; }
  // The physical device's name.
  const std::string &deviceName() const;

private:
  VulkanDevice() = default;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_DEVICE_H
