//===- compiled_program.cpp - Compiled HIP kernels ------------------------===//
//
// The hip adapter of compiled programs: the artifact's `hip` section is the
// HIP C++ source of every stage kernel; the descriptor's backends.hip.symbols
// names each kernel's extern "C" symbol. HipDevice runs it (hip_device.h).
// `index` is int64_t in these kernels.
//
//===----------------------------------------------------------------------===//

#include "../compiled_loaded_program.h"
#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/device/hip/hip_device.h"
#include "sluice/runtime/program/bindings.h"

namespace sluice::runtime {
namespace {

class HipLoadedProgram final : public CompiledLoadedProgram {
public:
  std::unique_ptr<HipDevice> device_;

  Status initialize(const CompiledProgram &compiled) {
    return CompiledLoadedProgram::initialize(
        compiled, compiled.runtimeDescriptor(nullptr, nullptr));
  }

  Device &device() override { return *device_; }
  std::string deviceSummary() const override {
    return gpuDeviceSummary("hip device " + device_->deviceName(),
                            device_->stats(), "launch+wait", "launches");
  }

private:
  // The bindings are resident buffers 0..n-1 with their kernel shapes (the
  // dynamic extents become kernel parameters), the extents buffer n.
  Status storeBinding(uint32_t index, std::span<const unsigned char> bytes,
                      std::span<const int64_t> kernelShape) override {
    return device_->setBinding(index, bytes, kernelShape);
  }
  Status storeExtents(std::span<const int64_t> extents) override {
    const auto *bytes = reinterpret_cast<const unsigned char *>(extents.data());
    int64_t count = int64_t(extents.size());
    return device_->setBinding(uint32_t(compiled().bindings.size()),
                               {bytes, extents.size() * sizeof(int64_t)},
                               std::span<const int64_t>(&count, 1));
  }
  Status fetchBinding(uint32_t index,
                      std::span<unsigned char> out) const override {
    return device_->getBinding(index, out);
  }
};

} // namespace

Status loadHipProgram(const Artifact &artifact, const BackendOptions &options,
                      std::unique_ptr<LoadedProgram> &out) {
  const CompiledBackend *backend = nullptr;
  if (Status status = artifact.backend("hip", backend); !status.ok())
    return status;
  const CompiledProgram &compiled = artifact.program();
  std::span<const unsigned char> text = artifact.section(backend->section);
  if (text.empty())
    return Status::error(ErrorKind::InvalidDescriptor,
                         artifact.origin() + ": section '" + backend->section +
                             "' (the HIP source) is empty");
  HipProgram hip;
  hip.source.assign(text.begin(), text.end());
  while (!hip.source.empty() && hip.source.back() == '\0')
    hip.source.pop_back();
  hip.blockLanes = backend->blockLanes;
  hip.indexBits = backend->indexBits;
  hip.layout = compiled.kernelLayout();
  for (const CompiledStage *stage : compiled.globalStages())
    hip.symbols.push_back(backend->symbolOf(stage->kernel));
  if (!compiled.megakernel.empty())
    hip.megakernel = backend->symbolOf(compiled.megakernel);
  hip.megakernelUniforms = compiled.megakernelUniforms();
  for (const CompiledOwner &owner : compiled.owners) {
    // The policy hooks: __device__ functions of the source.
    std::array<std::string, kPolicyHookCount> &hooks =
        hip.policies.emplace_back();
    for (size_t h = 0; h < kPolicyHookCount; ++h)
      if (!owner.policyHooks[h].empty())
        hooks[h] = backend->symbolOf("@" + owner.policyHooks[h]);
    auto &fields = hip.payloadElementBytes.emplace_back();
    for (const std::string &type : owner.payload)
      if (Status status = elementBytes(type, 8, fields.emplace_back());
          !status.ok())
        return status;
  }
  if (Status status = laneInputArrays(compiled, options.lanes, 8, hip.inputs);
      !status.ok())
    return status;
  for (const CompiledBinding &binding : compiled.bindings)
    hip.bindingShapes.push_back(binding.kind == BindingKind::Uniform
                                    ? std::vector<int64_t>{}
                                    : binding.shape);
  hip.lanes = options.lanes;
  auto loaded = std::make_unique<HipLoadedProgram>();
  if (Status status = HipDevice::create(std::move(hip), loaded->device_);
      !status.ok())
    return status;
  if (Status status = loaded->initialize(compiled); !status.ok())
    return status;
  out = std::move(loaded);
  return Status::success();
}

} // namespace sluice::runtime
