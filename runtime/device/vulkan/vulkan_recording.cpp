//===- vulkan_recording.cpp - A command buffer submitted many times -------===//
//
// The device placement's batch (DESIGN.md §2.4): the same iterations are
// recorded once and submitted until the scheduler stops, so the host's cost
// per batch is one submission and one fence, not a recording.
//
//===----------------------------------------------------------------------===//

#include "vulkan_internal.h"

#include <algorithm>
#include <string>
#include <vector>

namespace sluice::runtime::vulkan {
using namespace detail;

struct Recording::State {
  ContextState *context = nullptr;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  // Queries 0 and 1: the recording's start and end; then timestamp()'s.
  VkQueryPool queries = VK_NULL_HANDLE;
  uint32_t timestampCapacity = 0, timestamps = 0;
  // One descriptor pool per set: a recording holds a handful of them.
  std::vector<VkDescriptorPool> descriptorPools;
  struct Set {
    const Kernel *kernel;
    std::vector<Buffer *> buffers;
    VkDescriptorSet set;
  };
  std::vector<Set> sets;
  bool finished = false;
  bool inFlight = false; // submitted, not yet waited for
  bool broken = false; // a wait failed: the buffer may still be in flight
  Status error;

  ~State() {
    if (!context || broken)
      return;
    const Functions &fn = context->fn;
    VkDevice device = context->device;
    // Destroyed while queued (a caller's error path): let it finish first.
    if (inFlight &&
        fn.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS)
      return; // leaked rather than freed under a running command buffer
    for (VkDescriptorPool p : descriptorPools)
      fn.vkDestroyDescriptorPool(device, p, nullptr);
    if (queries != VK_NULL_HANDLE)
      fn.vkDestroyQueryPool(device, queries, nullptr);
    if (fence != VK_NULL_HANDLE)
      fn.vkDestroyFence(device, fence, nullptr);
    if (pool != VK_NULL_HANDLE)
      fn.vkDestroyCommandPool(device, pool, nullptr);
  }

  bool usable(const Kernel &kernel, std::span<Buffer *const> bindings,
              std::span<const std::byte> push) {
    if (!error.ok() || finished)
      return false;
    const std::string &name = kernel.entryPoint();
    if (bindings.size() != kernel.bindingCount()) {
      error = Status::error(ErrorKind::InvalidArgument,
                            "kernel '" + name + "' has " +
                                std::to_string(kernel.bindingCount()) +
                                " bindings but the recorded dispatch passes " +
                                std::to_string(bindings.size()) + " buffers");
      return false;
    }
    for (size_t i = 0; i < bindings.size(); ++i)
      if (!bindings[i]) {
        error = Status::error(ErrorKind::InvalidArgument,
                              "kernel '" + name + "' binding " +
                                  std::to_string(i) + " is a null buffer");
        return false;
      }
    if (push.size() != kernel.pushConstantBytes()) {
      error = Status::error(
          ErrorKind::InvalidArgument,
          "kernel '" + name + "' takes " +
              std::to_string(kernel.pushConstantBytes()) +
              " push constant bytes but the recorded dispatch passes " +
              std::to_string(push.size()));
      return false;
    }
    return true;
  }

  // The kernel's descriptor set for these buffers, written once.
  VkDescriptorSet setFor(const Kernel &kernel, const std::vector<uint32_t> &used,
                         VkDescriptorSetLayout layout,
                         std::span<Buffer *const> bindings) {
    for (const Set &s : sets)
      if (s.kernel == &kernel &&
          std::equal(bindings.begin(), bindings.end(), s.buffers.begin(),
                     s.buffers.end()))
        return s.set;
    const Functions &fn = context->fn;
    VkDescriptorPoolSize size{};
    size.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    size.descriptorCount = uint32_t(used.size());
    VkDescriptorPoolCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    create.maxSets = 1;
    create.poolSizeCount = 1;
    create.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkResult result =
        fn.vkCreateDescriptorPool(context->device, &create, nullptr, &pool);
    if (result != VK_SUCCESS) {
      error = vkError("vkCreateDescriptorPool", result);
      return VK_NULL_HANDLE;
    }
    descriptorPools.push_back(pool);
    VkDescriptorSetAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocate.descriptorPool = pool;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    result = fn.vkAllocateDescriptorSets(context->device, &allocate, &set);
    if (result != VK_SUCCESS) {
      error = vkError("vkAllocateDescriptorSets", result);
      return VK_NULL_HANDLE;
    }
    DescriptorWrites::write(fn, context->device, set, bindings, used);
    sets.push_back({&kernel, {bindings.begin(), bindings.end()}, set});
    return set;
  }

  // Every access in `srcAccess` of the stages `src` before, every access in
  // `dstAccess` of the stages `dst` after.
  void memoryBarrier(VkPipelineStageFlags src, VkAccessFlags srcAccess,
                     VkPipelineStageFlags dst, VkAccessFlags dstAccess) {
    detail::memoryBarrier(context->fn, commands, src, srcAccess, dst,
                          dstAccess);
  }

  // Binds the kernel, its set and its push constants.
  bool bind(const Kernel &kernel, std::span<Buffer *const> bindings,
            std::span<const std::byte> push) {
    if (!usable(kernel, bindings, push))
      return false;
    const Functions &fn = context->fn;
    VkPipelineLayout layout = toHandle<VkPipelineLayout>(kernel.layout_);
    fn.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                         toHandle<VkPipeline>(kernel.pipeline_));
    if (!kernel.usedBindings_.empty()) {
      VkDescriptorSet set =
          setFor(kernel, kernel.usedBindings_,
                 toHandle<VkDescriptorSetLayout>(kernel.setLayout_), bindings);
      if (set == VK_NULL_HANDLE)
        return false;
      fn.vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                                 layout, 0, 1, &set, 0, nullptr);
    }
    if (!push.empty())
      fn.vkCmdPushConstants(commands, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                            uint32_t(push.size()), push.data());
    return true;
  }
};

Status Context::createRecording(std::unique_ptr<Recording> &out,
                                uint32_t timestamps) {
  out.reset();
  ContextState &state = *state_;
  const Functions &fn = state.fn;
  std::unique_ptr<Recording> recording(new Recording());
  recording->state_ = std::make_unique<Recording::State>();
  Recording::State &r = *recording->state_;
  r.context = &state;
  r.timestampCapacity = timestamps;
  VkCommandPoolCreateInfo poolCreate{};
  poolCreate.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolCreate.queueFamilyIndex = state.queueFamily;
  VkResult result =
      fn.vkCreateCommandPool(state.device, &poolCreate, nullptr, &r.pool);
  if (result != VK_SUCCESS) {
    r.pool = VK_NULL_HANDLE;
    return vkError("vkCreateCommandPool", result);
  }
  VkCommandBufferAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate.commandPool = r.pool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  result = fn.vkAllocateCommandBuffers(state.device, &allocate, &r.commands);
  if (result != VK_SUCCESS)
    return vkError("vkAllocateCommandBuffers", result);
  VkFenceCreateInfo fenceCreate{};
  fenceCreate.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  result = fn.vkCreateFence(state.device, &fenceCreate, nullptr, &r.fence);
  if (result != VK_SUCCESS) {
    r.fence = VK_NULL_HANDLE;
    return vkError("vkCreateFence", result);
  }
  if (state.timestampValidBits > 0) {
    VkQueryPoolCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    create.queryType = VK_QUERY_TYPE_TIMESTAMP;
    create.queryCount = 2 + timestamps;
    result = fn.vkCreateQueryPool(state.device, &create, nullptr, &r.queries);
    if (result != VK_SUCCESS) {
      r.queries = VK_NULL_HANDLE;
      return vkError("vkCreateQueryPool", result);
    }
  }
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  result = fn.vkBeginCommandBuffer(r.commands, &begin);
  if (result != VK_SUCCESS)
    return vkError("vkBeginCommandBuffer", result);
  if (r.queries != VK_NULL_HANDLE) {
    fn.vkCmdResetQueryPool(r.commands, r.queries, 0, 2 + timestamps);
    fn.vkCmdWriteTimestamp(r.commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                           r.queries, 0);
  }
  // Host writes made between submissions reach the first commands.
  r.memoryBarrier(VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                      VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                      VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
  out = std::move(recording);
  return Status::success();
}

Recording::~Recording() = default;

void Recording::dispatch(const Kernel &kernel,
                         std::span<Buffer *const> bindings,
                         std::span<const std::byte> pushConstants,
                         uint32_t groups) {
  State &r = *state_;
  if (!r.bind(kernel, bindings, pushConstants))
    return;
  if (groups != 0)
    r.context->fn.vkCmdDispatchBase(r.commands, 0, 0, 0, groups, 1, 1);
}

void Recording::dispatchIndirect(const Kernel &kernel,
                                 std::span<Buffer *const> bindings,
                                 std::span<const std::byte> pushConstants,
                                 const Buffer &arguments, uint64_t offset) {
  State &r = *state_;
  if (offset % 4 != 0 || offset + 12 > arguments.size()) {
    if (r.error.ok())
      r.error = Status::error(ErrorKind::InvalidArgument,
                              "kernel '" + kernel.entryPoint() +
                                  "': indirect arguments at byte " +
                                  std::to_string(offset) +
                                  " of a buffer of " +
                                  std::to_string(arguments.size()));
    return;
  }
  if (!r.bind(kernel, bindings, pushConstants))
    return;
  r.context->fn.vkCmdDispatchIndirect(
      r.commands, toHandle<VkBuffer>(arguments.buffer_), offset);
}

void Recording::barrier() {
  State &r = *state_;
  if (!r.error.ok() || r.finished)
    return;
  r.memoryBarrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                      VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                      VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
}

void Recording::directBarrier() {
  State &r = *state_;
  if (!r.error.ok() || r.finished)
    return;
  r.memoryBarrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                      VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void Recording::copy(const Buffer &source, uint64_t sourceOffset,
                     const Buffer &destination, uint64_t destinationOffset,
                     uint64_t bytes) {
  State &r = *state_;
  if (!r.error.ok() || r.finished)
    return;
  auto outside = [&](uint64_t offset, uint64_t size) {
    return offset > size || bytes > size - offset;
  };
  if (outside(sourceOffset, source.size()) ||
      outside(destinationOffset, destination.size()) || bytes == 0) {
    r.error = Status::error(
        ErrorKind::InvalidArgument,
        "a recorded copy of " + std::to_string(bytes) + " bytes from byte " +
            std::to_string(sourceOffset) + " of a buffer of " +
            std::to_string(source.size()) + " to byte " +
            std::to_string(destinationOffset) + " of a buffer of " +
            std::to_string(destination.size()));
    return;
  }
  r.memoryBarrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferCopy region{sourceOffset, destinationOffset, bytes};
  r.context->fn.vkCmdCopyBuffer(r.commands, toHandle<VkBuffer>(source.buffer_),
                                toHandle<VkBuffer>(destination.buffer_), 1,
                                &region);
  r.memoryBarrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                      VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
                      VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                      VK_ACCESS_INDIRECT_COMMAND_READ_BIT |
                      VK_ACCESS_HOST_READ_BIT);
}

void Recording::timestamp() {
  State &r = *state_;
  if (!r.error.ok() || r.finished)
    return;
  if (r.timestamps == r.timestampCapacity) {
    r.error = Status::error(ErrorKind::InvalidArgument,
                            "a recording made for " +
                                std::to_string(r.timestampCapacity) +
                                " timestamps records one more");
    return;
  }
  if (r.queries != VK_NULL_HANDLE)
    r.context->fn.vkCmdWriteTimestamp(r.commands,
                                      VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                                      r.queries, 2 + r.timestamps);
  ++r.timestamps;
}

Status Recording::finish() {
  State &r = *state_;
  if (r.finished)
    return r.error;
  r.finished = true;
  const Functions &fn = r.context->fn;
  r.memoryBarrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
  if (r.queries != VK_NULL_HANDLE)
    fn.vkCmdWriteTimestamp(r.commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                           r.queries, 1);
  VkResult result = fn.vkEndCommandBuffer(r.commands);
  if (result != VK_SUCCESS && r.error.ok())
    r.error = vkError("vkEndCommandBuffer", result);
  return r.error;
}

void Recording::fill(const Buffer &buffer, uint64_t offset, uint64_t bytes,
                     uint32_t value) {
  State &r = *state_;
  if (!r.error.ok() || r.finished)
    return;
  if (offset % 4 != 0 || bytes % 4 != 0 || bytes == 0 ||
      offset > buffer.size() || bytes > buffer.size() - offset) {
    r.error = Status::error(ErrorKind::InvalidArgument,
                            "a recorded fill of " + std::to_string(bytes) +
                                " bytes at byte " + std::to_string(offset) +
                                " of a buffer of " +
                                std::to_string(buffer.size()) +
                                " (both must be multiples of 4, inside it)");
    return;
  }
  // After the commands before it (a copy's reads among them)...
  r.memoryBarrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                      VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
  r.context->fn.vkCmdFillBuffer(r.commands, toHandle<VkBuffer>(buffer.buffer_),
                                offset, bytes, value);
  // ...and before those after it.
  r.memoryBarrier(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                      VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT |
                      VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                      VK_ACCESS_INDIRECT_COMMAND_READ_BIT |
                      VK_ACCESS_TRANSFER_READ_BIT |
                      VK_ACCESS_TRANSFER_WRITE_BIT);
}

bool Recording::inFlight() const { return state_->inFlight; }

Status Recording::submitAndWait(double *gpuNanoseconds,
                                std::vector<uint64_t> *timestamps) {
  if (Status status = submit(); !status.ok())
    return status;
  return wait(gpuNanoseconds, timestamps);
}

Status Recording::submit() {
  State &r = *state_;
  if (!r.finished)
    return Status::error(ErrorKind::InvalidState,
                         "a recording submitted before finish()");
  if (!r.error.ok())
    return r.error;
  if (r.broken)
    return Status::error(ErrorKind::DeviceError,
                         "the recording is unusable after a failed wait");
  if (r.inFlight)
    return Status::error(ErrorKind::InvalidState,
                         "a recording submitted again before its wait()");
  ContextState &context = *r.context;
  const Functions &fn = context.fn;
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &r.commands;
  VkResult result;
  {
    std::lock_guard<std::mutex> lock(context.queueMutex);
    result = fn.vkQueueSubmit(context.queue, 1, &submit, r.fence);
  }
  if (result != VK_SUCCESS)
    return vkError("vkQueueSubmit", result);
  r.inFlight = true;
  return Status::success();
}

Status Recording::wait(double *gpuNanoseconds,
                       std::vector<uint64_t> *timestamps) {
  State &r = *state_;
  if (gpuNanoseconds)
    *gpuNanoseconds = 0;
  if (timestamps)
    timestamps->clear();
  if (!r.inFlight)
    return Status::error(ErrorKind::InvalidState,
                         "a recording waited for without a submission");
  ContextState &context = *r.context;
  const Functions &fn = context.fn;
  VkResult result =
      fn.vkWaitForFences(context.device, 1, &r.fence, VK_TRUE, UINT64_MAX);
  if (result != VK_SUCCESS) {
    r.broken = true;
    return vkError("vkWaitForFences", result);
  }
  r.inFlight = false;
  fn.vkResetFences(context.device, 1, &r.fence);
  if (r.queries != VK_NULL_HANDLE && (gpuNanoseconds || timestamps)) {
    std::vector<uint64_t> ticks(2 + r.timestamps);
    result = fn.vkGetQueryPoolResults(
        context.device, r.queries, 0, uint32_t(ticks.size()),
        ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (result != VK_SUCCESS)
      return vkError("vkGetQueryPoolResults", result);
    uint64_t mask = context.timestampValidBits >= 64
                        ? UINT64_MAX
                        : (uint64_t(1) << context.timestampValidBits) - 1;
    double period = context.info.timestampPeriodNs;
    if (gpuNanoseconds)
      *gpuNanoseconds =
          double(((ticks[1] & mask) - (ticks[0] & mask)) & mask) * period;
    // From the recording's start, so that a counter that wraps within it
    // still gives increasing times.
    if (timestamps)
      for (uint32_t i = 0; i < r.timestamps; ++i)
        timestamps->push_back(uint64_t(
            double(((ticks[2 + i] & mask) - (ticks[0] & mask)) & mask) *
            period));
  }
  return Status::success();
}

} // namespace sluice::runtime::vulkan
