//===- vulkan_device.h - Vulkan device adapter ------------------*- C++ -*-===//
//
// Runs compiled stage kernels (SPIR-V from the sluice-to-spirv pipeline) on a
// Vulkan device under the same wavefront scheduler and admission code as the
// CPU device. The protocol bookkeeping (free frames, stage queues, free-slot
// rings, outcome routing, fault translation) is the CPU device's own
// HostRouter; only the kernels run on the GPU:
//
// - one compute pipeline per stage kernel, all entry points of one module;
// - descriptor set 0 holds the kernel arguments of gpu_abi.h as storage
//   buffers: frames, payload arrays, inputs and field offsets live in device
//   buffers for the whole run; counters, outcomes, publish records and the
//   fault are small host-read buffers; bindings are device buffers set
//   before a run and kept across runs; the invocation count is a push
//   constant (its binding, 0, stays in the layout, unused);
// - dispatch() records the kernel over ceil(count / workgroup) workgroups,
//   submits it and waits for the fence; the outcomes and counts are read back
//   and routed before it returns, so readCounts() finds the stream idle.
//
// The state-machine schedule is CPU-only (Unsupported here).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_DEVICE_H
#define SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_DEVICE_H

#include "sluice/runtime/device/device.h"
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
struct VulkanDeviceStats {
  uint64_t dispatches = 0;
  double gpuNanoseconds = 0;        // sum of the dispatches' timestamp deltas
  double submitWaitNanoseconds = 0; // host: record, submit, wait for the fence
  double dispatchNanoseconds = 0;   // host: all of dispatch(), routing included
};

class VulkanDevice final : public Device {
public:
  // Creates the Vulkan context (vulkan.h selects the device) and one pipeline
  // per stage. Fails with DeviceUnavailable when there is no Vulkan device.
  static Status create(VulkanProgram program,
                       std::unique_ptr<VulkanDevice> &out);
  ~VulkanDevice() override;

  const char *name() const override { return "vulkan"; }
  // The physical device's name.
  const std::string &deviceName() const;
  const VulkanDeviceStats &stats() const;

  // Binding `index`'s device buffer becomes `bytes` (a new buffer when the
  // size changes). It stays resident: no dispatch copies it, every later
  // run reads and updates it in place.
  Status setBinding(uint32_t index, std::span<const unsigned char> bytes);
  // Copies binding `index` back into `out` (its size must match).
  Status getBinding(uint32_t index, std::span<unsigned char> out) const;

  Status allocate(const ProgramDescriptor &program, const ProgramShape &shape,
                  uint32_t framePool) override;
  void reset() override;
  void refill(uint32_t lanes) override;
  void dispatch(uint32_t stage, uint32_t count) override;
  Status readCounts(Observation &out) override;

private:
  VulkanDevice();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_DEVICE_H
