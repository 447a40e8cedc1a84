//===- compiled_program.cpp - Compiled SPIR-V kernels on Vulkan -----------===//
//
// The Vulkan adapter of compiled programs: the artifact's `spirv` section is
// one module holding every stage kernel as an entry point named after the
// kernel; VulkanDevice runs it (vulkan_device.h).
//
//===----------------------------------------------------------------------===//

#include "../compiled_loaded_program.h"
#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/device/vulkan/vulkan_device.h"
#include "sluice/runtime/program/bindings.h"

#include <cstring>

namespace sluice::runtime {
namespace {

class VulkanLoadedProgram final : public CompiledLoadedProgram {
public:
  std::unique_ptr<VulkanDevice> device_;

  Status initialize(const CompiledProgram &compiled) {
    return CompiledLoadedProgram::initialize(
        compiled, compiled.runtimeDescriptor(nullptr, nullptr));
  }

  Device &device() override { return *device_; }
  std::string deviceSummary() const override {
    return gpuDeviceSummary("vulkan device '" + device_->deviceName() + "'",
                            device_->stats(), "record+submit+wait",
                            "submissions");
  }

private:
  // The bindings are the device's resident buffers 0..n-1, their extents
  // buffer n (KernelABI.h).
  Status storeBinding(uint32_t index, std::span<const unsigned char> bytes,
                      std::span<const int64_t>) override {
    return device_->setBinding(index, bytes);
  }
  Status storeExtents(std::span<const int64_t> extents) override {
    const auto *bytes = reinterpret_cast<const unsigned char *>(extents.data());
    return device_->setBinding(uint32_t(compiled().bindings.size()),
                               {bytes, extents.size() * sizeof(int64_t)});
  }
  Status fetchBinding(uint32_t index,
                      std::span<unsigned char> out) const override {
    return device_->getBinding(index, out);
  }
};

} // namespace

Status loadVulkanProgram(const Artifact &artifact,
                         const BackendOptions &options,
                         std::unique_ptr<LoadedProgram> &out) {
  const CompiledBackend *backend = nullptr;
  if (Status status = artifact.backend("vulkan", backend); !status.ok())
    return status;
  const CompiledProgram &compiled = artifact.program();
  std::span<const unsigned char> words = artifact.section(backend->section);
  if (words.size() % 4 != 0 || words.empty())
    return Status::error(ErrorKind::InvalidDescriptor,
                         artifact.origin() + ": section '" + backend->section +
                             "' is " + std::to_string(words.size()) +
                             " bytes, not whole SPIR-V words");
  VulkanProgram vulkan;
  vulkan.spirv.resize(words.size() / 4);
  std::memcpy(vulkan.spirv.data(), words.data(), words.size());
  vulkan.workgroupSize = backend->blockLanes;
  vulkan.layout = compiled.kernelLayout();
  for (const CompiledStage *stage : compiled.globalStages())
    vulkan.entryPoints.push_back(stage->kernel);
  vulkan.megakernel = compiled.megakernel;
  vulkan.megakernelUniforms = compiled.megakernelUniforms();
  for (const CompiledOwner &owner : compiled.owners) {
    auto &fields = vulkan.payloadElementBytes.emplace_back();
    for (const std::string &type : owner.payload)
      if (Status status = elementBytes(type, 4, fields.emplace_back());
          !status.ok())
        return status;
  }
  if (Status status = laneInputArrays(compiled, options.lanes, 4, vulkan.inputs);
      !status.ok())
    return status;
  vulkan.bindings = uint32_t(compiled.bindings.size()) + 1; // + extents
  vulkan.lanes = options.lanes;
  auto loaded = std::make_unique<VulkanLoadedProgram>();
  if (Status status = VulkanDevice::create(std::move(vulkan), loaded->device_);
      !status.ok())
    return status;
  if (Status status = loaded->initialize(compiled); !status.ok())
    return status;
  out = std::move(loaded);
  return Status::success();
}

} // namespace sluice::runtime
