//===- vulkan_device.cpp - Vulkan device adapter --------------------------===//

#include "sluice/runtime/device/vulkan/vulkan_device.h"

#include "../host_router.h"
#include "sluice/runtime/device/vulkan/vulkan.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <span>

namespace sluice::runtime {

namespace vk = vulkan;

namespace {

// The compiled payload arrays replace the runtime's item payload; the router
// still wants one, so it lives on the host and is never touched by kernels.
class VulkanMemory final : public HostRouter::Memory {
public:
  explicit VulkanMemory(vk::Context &context) : context(context) {}
  unsigned char *allocateFrames(uint64_t bytes) override {
    frames.reset();
    if (!context.createBuffer(bytes, vk::Placement::Device, frames).ok())
      return nullptr;
    return static_cast<unsigned char *>(frames->data());
  }
  unsigned char *allocatePayload(uint32_t owner, uint64_t bytes) override {
    if (payloads.size() <= owner)
      payloads.resize(owner + 1);
    payloads[owner].assign(std::max<uint64_t>(bytes, 1), 0);
    return payloads[owner].data();
  }

  vk::Context &context;
  std::unique_ptr<vk::Buffer> frames;
  std::vector<std::vector<unsigned char>> payloads;
};

} // namespace

struct VulkanDevice::Impl {
  VulkanProgram program;
  std::unique_ptr<vk::Context> context;
  std::vector<std::unique_ptr<vk::Kernel>> kernels; // per global stage
  std::unique_ptr<vk::Stream> stream;
  std::unique_ptr<VulkanMemory> memory;
  HostRouter router{"vulkan device", /*hostKernels=*/false};
  VulkanDeviceStats stats;

  // Kernel arguments (gpu_abi.h order), allocated by allocate().
  std::vector<std::unique_ptr<vk::Buffer>> owned;
  vk::Buffer *count = nullptr, *invocations = nullptr, *laneIds = nullptr,
             *fieldOffsets = nullptr, *nextStage = nullptr,
             *counters = nullptr, *publishedSlots = nullptr,
             *publishedCounts = nullptr, *allocLimits = nullptr,
             *fault = nullptr;
  std::vector<vk::Buffer *> rings;
  std::vector<vk::Buffer *> bindings; // descriptor set 0, binding i
  // The program's bindings: resident across allocate() and runs.
  std::vector<std::unique_ptr<vk::Buffer>> resident;
  size_t residentBase = 0; // where they start in `bindings`
  GpuDispatchViews views;
  std::vector<double> dispatchNs;
  // The router's lane ids change only in refill() and reset(); the device
  // copy is refreshed before the next dispatch after either.
  bool laneIdsStale = true;

  Status buffer(uint64_t bytes, vk::Placement placement, vk::Buffer *&out) {
    std::unique_ptr<vk::Buffer> created;
    if (Status status = context->createBuffer(bytes, placement, created);
        !status.ok())
      return status;
    out = created.get();
    owned.push_back(std::move(created));
    return Status::success();
  }
  Status allocateArguments();
  void runDispatch(uint32_t stage, uint32_t count);
};

VulkanDevice::VulkanDevice() : impl_(std::make_unique<Impl>()) {}
VulkanDevice::~VulkanDevice() = default;

const std::string &VulkanDevice::deviceName() const {
  return impl_->context->info().name;
}

const VulkanDeviceStats &VulkanDevice::stats() const { return impl_->stats; }

Status VulkanDevice::create(VulkanProgram program,
                            std::unique_ptr<VulkanDevice> &out) {
  std::unique_ptr<VulkanDevice> device(new VulkanDevice());
  Impl &d = *device->impl_;
  d.program = std::move(program);
  if (d.program.workgroupSize == 0)
    return Status::error(ErrorKind::InvalidArgument,
                         "vulkan device: workgroup size 0");
  if (Status status = vk::Context::create(d.context); !status.ok())
    return status;
  // The features the kernels' capabilities need (shaderInt64 for frame field
  // offsets, shaderFloat64, atomic float adds).
  if (Status status = vk::checkShaderCapabilities(
          d.program.spirv, d.context->info(), "the program");
      !status.ok())
    return status;
  uint32_t bindingCount = uint32_t(GpuKernelArgument::FirstOwnerArgument);
  for (const std::vector<uint32_t> &fields : d.program.payloadElementBytes)
    bindingCount += 1 + uint32_t(fields.size());
  bindingCount += uint32_t(d.program.inputs.size()) + d.program.bindings;
  for (const std::string &entry : d.program.entryPoints) {
    std::unique_ptr<vk::Kernel> kernel;
    // The invocation count is the kernels' one push constant
    // (sluice-spirv-push-constants); its binding stays in the layout, unused.
    if (Status status = d.context->createKernel(d.program.spirv, entry,
                                                bindingCount,
                                                sizeof(uint32_t), kernel);
        !status.ok())
      return status;
    d.kernels.push_back(std::move(kernel));
  }
  if (Status status = d.context->createStream(d.stream); !status.ok())
    return status;
  d.memory = std::make_unique<VulkanMemory>(*d.context);
  d.resident.resize(d.program.bindings);
  d.router.laneLimit = d.program.lanes;
  out = std::move(device);
  return Status::success();
}

Status VulkanDevice::setBinding(uint32_t index,
                                std::span<const unsigned char> bytes) {
  Impl &d = *impl_;
  if (index >= d.resident.size())
    return Status::error(ErrorKind::InvalidArgument,
                         "vulkan device: binding " + std::to_string(index) +
                             " of " + std::to_string(d.resident.size()));
  std::unique_ptr<vk::Buffer> &buffer = d.resident[index];
  // A storage buffer is never empty; a 0-element binding gets one word.
  uint64_t size = std::max<uint64_t>(bytes.size(), 4);
  if (!buffer || buffer->size() != size) {
    std::unique_ptr<vk::Buffer> created;
    if (Status status =
            d.context->createBuffer(size, vk::Placement::Device, created);
        !status.ok())
      return status;
    buffer = std::move(created);
    if (!d.bindings.empty())
      d.bindings[d.residentBase + index] = buffer.get();
  }
  std::memset(buffer->data(), 0, size);
  if (!bytes.empty()) // an empty binding may have no data pointer
    std::memcpy(buffer->data(), bytes.data(), bytes.size());
  return Status::success();
}

Status VulkanDevice::getBinding(uint32_t index,
                                std::span<unsigned char> out) const {
  const Impl &d = *impl_;
  if (index >= d.resident.size() || !d.resident[index] ||
      d.resident[index]->size() < out.size())
    return Status::error(ErrorKind::InvalidArgument,
                         "vulkan device: binding " + std::to_string(index) +
                             " is not set or smaller than " +
                             std::to_string(out.size()) + " bytes");
  // Every dispatch waited for its fence: the device is idle here.
  if (!out.empty())
    std::memcpy(out.data(), d.resident[index]->data(), out.size());
  return Status::success();
}

Status VulkanDevice::allocate(const ProgramDescriptor &program,
                              const ProgramShape &shape, uint32_t framePool) {
  Impl &d = *impl_;
  if (shape.totalStageCount() != d.kernels.size())
    return Status::error(ErrorKind::InvalidDescriptor,
                         "vulkan device: the program has " +
                             std::to_string(shape.totalStageCount()) +
                             " stages but " + std::to_string(d.kernels.size()) +
                             " kernels were compiled");
  if (shape.ownerCount() != d.program.payloadElementBytes.size() ||
      shape.ownerCount() != d.program.layout.ownerCapacity.size())
    return Status::error(ErrorKind::InvalidDescriptor,
                         "vulkan device: the program has " +
                             std::to_string(shape.ownerCount()) +
                             " owners but the kernels were compiled for " +
                             std::to_string(d.program.layout.ownerCapacity.size()));
  if (Status status = d.router.allocate(program, shape, framePool, *d.memory);
      !status.ok())
    return status;
  if (Status status = d.allocateArguments(); !status.ok())
    return status;
  d.laneIdsStale = true;
  noteAllocation();
  return Status::success();
}

Status VulkanDevice::Impl::allocateArguments() {
  // Drop the previous run's buffers but not the frames (router memory).
  owned.clear();
  rings.clear();
  bindings.clear();
  const GpuKernelLayout &layout = program.layout;
  uint32_t ownerCount = uint32_t(layout.ownerCapacity.size());
  uint64_t maxInvocations = router.invocations.size();
  auto host = vk::Placement::Host;
  auto device = vk::Placement::Device;
  Status status = Status::success();
  auto make = [&](uint64_t bytes, vk::Placement placement, vk::Buffer *&out) {
    if (status.ok())
      status = buffer(bytes, placement, out);
  };
  make(sizeof(uint32_t), host, count);
  make(maxInvocations * sizeof(uint32_t), host, invocations);
  make(uint64_t(router.framePool) * sizeof(uint32_t), host, laneIds);
  make(std::max<size_t>(router.layout.fieldOffsets.size(), 1) *
           sizeof(uint64_t),
       host, fieldOffsets);
  make(maxInvocations * sizeof(uint32_t), host, nextStage);
  make(std::max<uint32_t>(layout.counterCount, 1) * sizeof(int32_t), host,
       counters);
  make(std::max<uint64_t>(maxInvocations * layout.publishStride, 1) *
           sizeof(uint32_t),
       host, publishedSlots);
  make(std::max<uint64_t>(maxInvocations * ownerCount, 1) * sizeof(uint32_t),
       host, publishedCounts);
  make(std::max<uint32_t>(ownerCount, 1) * sizeof(int32_t), host,
       allocLimits);
  make(kGpuFaultWords * sizeof(int32_t), host, fault);
  if (!status.ok())
    return status;
  bindings = {count,          invocations,     laneIds,     memory->frames.get(),
              fieldOffsets,   nextStage,       counters,    publishedSlots,
              publishedCounts, allocLimits,    fault};
  for (uint32_t o = 0; o < ownerCount; ++o) {
    vk::Buffer *ring = nullptr;
    make(std::max<uint64_t>(layout.ownerCapacity[o], 1) * sizeof(uint32_t),
         host, ring);
    rings.push_back(ring);
    bindings.push_back(ring);
    for (uint32_t bytes : program.payloadElementBytes[o]) {
      vk::Buffer *payload = nullptr;
      make(uint64_t(layout.ownerCapacity[o]) * bytes, device, payload);
      bindings.push_back(payload);
    }
  }
  for (const std::vector<unsigned char> &input : program.inputs) {
    vk::Buffer *buffer = nullptr;
    make(input.size(), device, buffer);
    if (buffer)
      std::memcpy(buffer->data(), input.data(), input.size());
    bindings.push_back(buffer);
  }
  if (!status.ok())
    return status;
  residentBase = bindings.size();
  for (size_t b = 0; b < resident.size(); ++b) {
    if (!resident[b])
      return Status::error(ErrorKind::InvalidState,
                           "vulkan device: binding " + std::to_string(b) +
                               " was never set");
    bindings.push_back(resident[b].get());
  }
  if (!router.layout.fieldOffsets.empty())
    std::memcpy(fieldOffsets->data(), router.layout.fieldOffsets.data(),
                router.layout.fieldOffsets.size() * sizeof(uint64_t));
  views.counters = static_cast<int32_t *>(counters->data());
  views.allocLimits = static_cast<int32_t *>(allocLimits->data());
  views.publishedSlots = static_cast<uint32_t *>(publishedSlots->data());
  views.fault = static_cast<int32_t *>(fault->data());
  views.rings.clear();
  for (vk::Buffer *ring : rings)
    views.rings.push_back(static_cast<uint32_t *>(ring->data()));
  return Status::success();
}

void VulkanDevice::reset() {
  impl_->router.reset();
  impl_->stats = VulkanDeviceStats{};
  impl_->laneIdsStale = true;
}

void VulkanDevice::refill(uint32_t lanes) {
  impl_->router.refill(lanes);
  impl_->laneIdsStale = true;
}

void VulkanDevice::dispatch(uint32_t stage, uint32_t count) {
  Impl &d = *impl_;
  if (!d.router.allocated()) {
    d.router.fail(ErrorKind::InvalidArgument,
                  "vulkan device: dispatch of stage " + std::to_string(stage) +
                      " before allocate()");
    return;
  }
  d.runDispatch(stage, count);
}

void VulkanDevice::Impl::runDispatch(uint32_t stage, uint32_t count) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  sluice_rt_kernel_args args;
  if (!router.beginDispatch(stage, count, args))
    return;
  uint32_t ownerCount = args.owner_count;
  // Host -> device: what this dispatch reads. The stream is idle here.
  std::memcpy(invocations->data(), args.invocations, count * sizeof(uint32_t));
  if (laneIdsStale) {
    std::memcpy(laneIds->data(), router.laneOfFrame.data(),
                router.laneOfFrame.size() * sizeof(uint32_t));
    laneIdsStale = false;
  }
  std::fill_n(static_cast<uint32_t *>(nextStage->data()), count,
              SLUICE_RT_UNDECIDED);
  std::fill_n(static_cast<uint32_t *>(publishedCounts->data()),
              uint64_t(count) * ownerCount, 0u);
  prepareGpuDispatch(program.layout, args, count, views);

  uint64_t groups[3] = {(uint64_t(count) + program.workgroupSize - 1) /
                            program.workgroupSize,
                        1, 1};
  auto submitted = Clock::now();
  stream->dispatch(*kernels[stage], bindings,
                   std::as_bytes(std::span<const uint32_t>(&count, 1)), groups);
  Status waited = stream->submitAndWait(&dispatchNs);
  stats.submitWaitNanoseconds +=
      std::chrono::duration<double, std::nano>(Clock::now() - submitted)
          .count();
  if (Status status = std::move(waited); !status.ok()) {
    router.fail(status.kind(), "vulkan device: " + router.stageLabel(stage) +
                                   ": " + status.message());
    return;
  }
  ++stats.dispatches;
  for (double ns : dispatchNs)
    stats.gpuNanoseconds += ns;

  // Device -> host: outcomes and publish counts, then the shared translation
  // and routing.
  std::memcpy(args.next_stage, nextStage->data(), count * sizeof(uint32_t));
  // Only main stages publish; an item dispatch can hold more invocations
  // (up to the owner's capacity) than the router's per-frame publish counts.
  if (args.owner == SLUICE_RT_NO_OWNER)
    std::memcpy(args.published_counts, publishedCounts->data(),
                uint64_t(count) * ownerCount * sizeof(uint32_t));
  finishGpuDispatch(program.layout, args, 0, count, views);
  router.finishDispatch(args);
  stats.dispatchNanoseconds +=
      std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

Status VulkanDevice::readCounts(Observation &out) {
  Impl &d = *impl_;
  if (!d.router.allocated())
    return Status::error(ErrorKind::InvalidState,
                         "vulkan device: readCounts() before allocate()");
  // dispatch() waited for its fence: the stream is idle.
  return d.router.readCounts(out);
}

} // namespace sluice::runtime
