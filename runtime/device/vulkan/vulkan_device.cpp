//===- vulkan_device.cpp - Vulkan device adapter --------------------------===//
//
// The Vulkan primitives of the compiled-kernel device.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/vulkan/vulkan_device.h"

#include "sluice/runtime/device/vulkan/vulkan.h"

#include <cassert>
#include <cstring>

namespace sluice::runtime {

namespace vk = vulkan;

namespace {

class VulkanBuffer final : public KernelBuffer {
public:
  explicit VulkanBuffer(std::unique_ptr<vk::Buffer> buffer)
      : KernelBuffer(buffer->size()), buffer(std::move(buffer)) {}
  std::unique_ptr<vk::Buffer> buffer;
};

vk::Buffer &vulkanBuffer(const KernelBuffer &buffer) {
  return *static_cast<const VulkanBuffer &>(buffer).buffer;
}

class VulkanPrimitives final : public KernelPrimitives {
public:
  std::string label() const override { return "vulkan device"; }
  bool unifiedMemory() const override { return false; }

  // Resident buffers in device-local memory the host can map (resizable BAR
  // on a discrete GPU: host reads of it are uncached and slow, so only the
  // bindings' explicit reads come from it); per-dispatch transfers in
  // host-cached memory, which the host reads at memory speed.
  Status createBuffer(uint64_t bytes, KernelBufferUse use,
                      std::unique_ptr<KernelBuffer> &out) override {
    std::unique_ptr<vk::Buffer> buffer;
    vk::Placement placement = use == KernelBufferUse::Resident
                                  ? vk::Placement::Device
                                  : vk::Placement::Host;
    if (Status status = context->createBuffer(bytes, placement, buffer);
        !status.ok())
      return status;
    out = std::make_unique<VulkanBuffer>(std::move(buffer));
    return Status::success();
  }

  // Placement::Device buffers are host-visible, coherent and mapped: a copy
  // into the mapping, made while the stream is idle.
  Status upload(KernelBuffer &buffer,
                std::span<const unsigned char> bytes) override {
    vk::Buffer &target = vulkanBuffer(buffer);
    if (bytes.size() > target.size())
      return Status::error(ErrorKind::InvalidArgument,
                           label() + ": an upload of " +
                               std::to_string(bytes.size()) +
                               " bytes into a buffer of " +
                               std::to_string(target.size()));
    if (!bytes.empty())
      std::memcpy(target.data(), bytes.data(), bytes.size());
    return Status::success();
  }
  Status download(const KernelBuffer &buffer,
                  std::span<unsigned char> out) override {
    const vk::Buffer &source = vulkanBuffer(buffer);
    if (out.size() > source.size())
      return Status::error(ErrorKind::InvalidArgument,
                           label() + ": a download of " +
                               std::to_string(out.size()) +
                               " bytes from a buffer of " +
                               std::to_string(source.size()));
    return read(source, 0, out);
  }

  Status downloadRange(const KernelBuffer &buffer, uint64_t offset,
                       std::span<unsigned char> out) override {
    const vk::Buffer &source = vulkanBuffer(buffer);
    // The router asks only for frames it dispatched: inside the buffer.
    assert(offset <= source.size() && out.size() <= source.size() - offset);
    return read(source, offset, out);
  }

  // Host reads of device-local memory (resizable BAR) are uncached: a few
  // words are read in place, more go through a copy into host-cached
  // staging memory first (the stream is idle: downloads follow wait()).
  static constexpr uint64_t kStagedReadBytes = 4096;
  Status read(const vk::Buffer &source, uint64_t offset,
              std::span<unsigned char> out) {
    if (out.empty())
      return Status::success();
    const auto *mapped = static_cast<const unsigned char *>(source.data());
    if (!source.deviceLocal() || out.size() < kStagedReadBytes) {
      std::memcpy(out.data(), mapped + offset, out.size());
      return Status::success();
    }
    if (!staging || staging->size() < out.size()) {
      staging.reset();
      if (Status status = context->createBuffer(
              out.size(), vk::Placement::Host, staging);
          !status.ok())
        return status;
    }
    stream->copy(const_cast<vk::Buffer &>(source), offset, *staging, 0,
                 out.size());
    if (Status status = stream->submitAndWait(); !status.ok())
      return status;
    std::memcpy(out.data(), staging->data(), out.size());
    return Status::success();
  }

  Status launch(uint32_t stage, std::span<const LaunchArgument> arguments,
                uint32_t count) override {
    if (stage == kernels.size() && !megakernel.empty()) {
      std::unique_ptr<vk::Kernel> kernel;
      if (Status status = context->createKernel(
              spirv, megakernel, megakernelBindings, sizeof(uint32_t), kernel);
          !status.ok())
        return status;
      kernels.push_back(std::move(kernel));
      megakernel.clear();
    }
    if (stage >= kernels.size())
      return Status::error(ErrorKind::InvalidArgument,
                           label() + ": no kernel " + std::to_string(stage));
    bindings.assign(1, countBinding.get());
    for (const LaunchArgument &argument : arguments)
      bindings.push_back(argument.buffer ? &vulkanBuffer(*argument.buffer)
                                         : nullptr);
    uint64_t groups[3] = {(uint64_t(count) + workgroupSize - 1) /
                              workgroupSize,
                          1, 1};
    stream->dispatch(*kernels[stage], bindings,
                     std::as_bytes(std::span<const uint32_t>(&count, 1)),
                     groups);
    return Status::success();
  }
  // Mesa lavapipe ends a kernel's loops silently after 65,535 iterations in
  // all (per invocation, every loop counted): a megakernel thread that runs
  // many lanes in one launch would be cut short, so it runs few.
  uint32_t megakernelLanesPerThread() const override {
    return context->info().type == "cpu" ? 16 : 1024;
  }
  Status wait(double &gpuNanoseconds) override {
    Status status = stream->submitAndWait(&dispatchNs);
    gpuNanoseconds = 0;
    for (double ns : dispatchNs)
      gpuNanoseconds += ns;
    return status;
  }

  std::unique_ptr<vk::Context> context;
  std::vector<std::unique_ptr<vk::Kernel>> kernels; // per global stage
  // The megakernel until its pipeline exists (then kernels.back()).
  std::vector<uint32_t> spirv;
  std::string megakernel;
  uint32_t megakernelBindings = 0;
  std::unique_ptr<vk::Stream> stream;
  std::unique_ptr<vk::Buffer> countBinding; // binding 0: unused by kernels
  std::unique_ptr<vk::Buffer> staging;      // reads of device-local memory
  uint32_t workgroupSize = 64;
  std::vector<vk::Buffer *> bindings;
  std::vector<double> dispatchNs;
};

} // namespace

VulkanDevice::~VulkanDevice() = default;

const std::string &VulkanDevice::deviceName() const {
  return static_cast<const VulkanPrimitives &>(primitives())
      .context->info()
      .name;
}

Status VulkanDevice::create(VulkanProgram program,
                            std::unique_ptr<VulkanDevice> &out) {
  if (program.workgroupSize == 0)
    return Status::error(ErrorKind::InvalidArgument,
                         "vulkan device: workgroup size 0");
  auto primitives = std::make_unique<VulkanPrimitives>();
  VulkanPrimitives &p = *primitives;
  p.workgroupSize = program.workgroupSize;
  if (Status status = vk::Context::create(p.context); !status.ok())
    return status;
  // The features the kernels' capabilities need (shaderInt64 for frame field
  // offsets, shaderFloat64, atomic float adds).
  if (Status status = vk::checkShaderCapabilities(
          program.spirv, p.context->info(), "the program");
      !status.ok())
    return status;
  uint32_t bindingCount = uint32_t(GpuKernelArgument::FirstOwnerArgument);
  for (const std::vector<uint32_t> &fields : program.payloadElementBytes)
    bindingCount += 1 + uint32_t(fields.size());
  bindingCount += uint32_t(program.inputs.size()) + program.bindings;
  for (const std::string &entry : program.entryPoints) {
    std::unique_ptr<vk::Kernel> kernel;
    // The invocation count is the kernels' one push constant
    // (sluice-spirv-push-constants); its binding stays in the layout, unused.
    if (Status status = p.context->createKernel(program.spirv, entry,
                                                bindingCount,
                                                sizeof(uint32_t), kernel);
        !status.ok())
      return status;
    p.kernels.push_back(std::move(kernel));
  }
  // Kernel `stages`, the megakernel, is created at its first launch: a
  // wavefront run never needs it (nor its device limits).
  p.spirv = program.spirv;
  p.megakernel = program.megakernel;
  p.megakernelBindings = bindingCount + 1; // + the machine words
  if (Status status = p.context->createStream(p.stream); !status.ok())
    return status;
  if (Status status = p.context->createBuffer(4, vk::Placement::Device,
                                              p.countBinding);
      !status.ok())
    return status;

  CompiledKernelShape shape;
  shape.stages = uint32_t(program.entryPoints.size());
  shape.layout = std::move(program.layout);
  shape.payloadElementBytes = std::move(program.payloadElementBytes);
  shape.inputs = std::move(program.inputs);
  shape.residentBuffers = program.bindings;
  shape.lanes = program.lanes;
  shape.megakernel = !program.megakernel.empty();
  shape.megakernelUniforms = std::move(program.megakernelUniforms);
  std::unique_ptr<VulkanDevice> device(new VulkanDevice());
  if (Status status =
          device->initialize(std::move(primitives), std::move(shape));
      !status.ok())
    return status;
  out = std::move(device);
  return Status::success();
}

} // namespace sluice::runtime
