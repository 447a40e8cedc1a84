//===- compiled_loaded_program.h - What compiled-kernel adapters share ----===//
//
// The part of a loaded compiled program that is the same on every backend
// that runs the artifact's stage kernels (cpu, vulkan, and the next one):
// the compiled program and its runtime descriptor, the per-lane input arrays
// (lane i gets i), and the host side of the resident bindings (the checks
// against the descriptor, the shapes as bound, the extents table of the
// kernel ABI). An adapter stores and fetches the bytes: that is all it adds.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_COMPILED_LOADED_PROGRAM_H
#define SLUICE_RUNTIME_DEVICE_COMPILED_LOADED_PROGRAM_H

#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/device/compiled_kernel_device.h"

#include <span>
#include <string>
#include <vector>

namespace sluice::runtime {

class CompiledLoadedProgram : public LoadedProgram {
public:
  const ProgramDescriptor &program() const final { return program_; }
  // Checks `values` against the descriptor, then stores every binding and
  // the extents table (storeBinding, storeExtents).
  Status bind(std::span<const HostBuffer> values,
              std::span<const bool> upload = {}) final;
  // The binding's element type and shape as bound; the bytes from
  // fetchBinding.
  Status readBinding(uint32_t index, HostBuffer &out) final;

protected:
  // Keeps `compiled` and `program`, then binds zeros to every binding (a
  // dynamic one: empty) so a run before bind() reads defined memory.
  // Every backend runs the owners' policy hooks: the CPU adapters resolve
  // their functions first (OwnerPolicy::functions), the GPU devices call
  // them in their own code (Device::policyClient).
  Status initialize(const CompiledProgram &compiled, ProgramDescriptor program);
  const CompiledProgram &compiled() const { return compiled_; }

  // Stores binding `index`: its bytes and its kernel argument's extents.
  virtual Status storeBinding(uint32_t index,
                              std::span<const unsigned char> bytes,
                              std::span<const int64_t> kernelShape) = 0;
  // Stores the kernels' binding-extents argument (one i64 per binding).
  virtual Status storeExtents(std::span<const int64_t> extents) = 0;
  // Copies binding `index` into `out` (sized as bound).
  virtual Status fetchBinding(uint32_t index,
                              std::span<unsigned char> out) const = 0;

private:
  CompiledProgram compiled_;
  ProgramDescriptor program_;
  std::vector<std::vector<int64_t>> shapes_; // per binding, as bound
};

// The per-lane input arrays of the kernel ABI: one per coroutine argument,
// element `lane` holding the lane id in the argument's width (index is
// `indexBytes` wide in the backend's kernels).
Status laneInputArrays(const CompiledProgram &program, uint32_t lanes,
                       uint32_t indexBytes,
                       std::vector<std::vector<unsigned char>> &out);

// A GPU device's line of the run summary: `device` names it ("hip device
// NAME"), `hostSteps` the host's part of a dispatch ("launch+wait"),
// `launches` what the device placement counts ("launches").
std::string gpuDeviceSummary(const std::string &device,
                             const CompiledKernelStats &stats,
                             const char *hostSteps, const char *launches);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_COMPILED_LOADED_PROGRAM_H
