//===- compiled_program.cpp - Compiled SPIR-V kernels on Vulkan -----------===//
//
// The Vulkan adapter of compiled programs: the artifact's `spirv` section is
// one module holding every stage kernel as an entry point named after the
// kernel; VulkanDevice runs it (vulkan_device.h).
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/device/vulkan/vulkan_device.h"
#include "sluice/runtime/program/bindings.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace sluice::runtime {
namespace {

class VulkanLoadedProgram final : public LoadedProgram {
public:
  std::unique_ptr<VulkanDevice> device_;
  ProgramDescriptor program_;

  CompiledProgram compiled_;
  std::vector<std::vector<int64_t>> shapes_; // per binding, as bound

  Device &device() override { return *device_; }
  const ProgramDescriptor &program() const override { return program_; }

  Status bind(std::span<const HostBuffer> values) override {
    if (Status status = checkBindingValues(compiled_, values); !status.ok())
      return status;
    // The kernels' binding extents are one more resident buffer, after the
    // bindings (KernelABI.h).
    std::vector<int64_t> extents(std::max<size_t>(values.size(), 1), 0);
    for (uint32_t b = 0; b < values.size(); ++b) {
      if (Status status = device_->setBinding(b, values[b].bytes);
          !status.ok())
        return status;
      shapes_[b] = values[b].shape;
      extents[b] = dynamicExtent(compiled_.bindings[b], values[b]);
    }
    const auto *bytes = reinterpret_cast<const unsigned char *>(extents.data());
    return device_->setBinding(uint32_t(values.size()),
                               {bytes, extents.size() * sizeof(int64_t)});
  }

  Status readBinding(uint32_t index, HostBuffer &out) override {
    if (index >= shapes_.size())
      return Status::error(ErrorKind::InvalidArgument,
                           "readBinding(" + std::to_string(index) +
                               "): the program has " +
                               std::to_string(shapes_.size()) + " bindings");
    out.element = bindingElementType(compiled_.bindings[index]);
    out.shape = shapes_[index];
    out.bytes.resize(out.elementCount() * elementTypeBytes(out.element));
    return device_->getBinding(index, out.bytes);
  }
  std::string deviceSummary() const override {
    const VulkanDeviceStats &stats = device_->stats();
    char line[512];
    std::snprintf(line, sizeof line,
                  "vulkan device '%s': %" PRIu64 " dispatches, %.3f ms of GPU "
                  "time, %.3f ms in dispatch() of which %.3f ms "
                  "record+submit+wait",
                  device_->deviceName().c_str(), stats.dispatches,
                  stats.gpuNanoseconds * 1e-6, stats.dispatchNanoseconds * 1e-6,
                  stats.submitWaitNanoseconds * 1e-6);
    return line;
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
  for (const CompiledOwner &owner : compiled.owners) {
    auto &fields = vulkan.payloadElementBytes.emplace_back();
    for (const std::string &type : owner.payload)
      if (Status status = elementBytes(type, 4, fields.emplace_back());
          !status.ok())
        return status;
  }
  for (const std::string &type : compiled.inputs) {
    uint32_t bytes = 0;
    if (Status status = elementBytes(type, 4, bytes); !status.ok())
      return status;
    auto &input = vulkan.inputs.emplace_back(uint64_t(options.lanes) * bytes, 0);
    for (uint64_t lane = 0; lane < options.lanes; ++lane)
      std::memcpy(input.data() + lane * bytes, &lane, bytes);
  }
  vulkan.bindings = uint32_t(compiled.bindings.size()) + 1; // + extents
  auto loaded = std::make_unique<VulkanLoadedProgram>();
  if (Status status = VulkanDevice::create(std::move(vulkan), loaded->device_);
      !status.ok())
    return status;
  loaded->program_ = compiled.runtimeDescriptor(nullptr, nullptr);
  loaded->compiled_ = compiled;
  loaded->shapes_.resize(compiled.bindings.size());
  // Until bound, every binding is zeros (a dynamic one: empty).
  if (Status status = loaded->bind(defaultBindingValues(compiled));
      !status.ok())
    return status;
  out = std::move(loaded);
  return Status::success();
}

} // namespace sluice::runtime
