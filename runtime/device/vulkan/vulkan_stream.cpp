//===- vulkan_stream.cpp - Command buffers, dispatches and copies ---------===//
//
// A Stream records dispatches and copies into one command buffer, ordered by
// memory barriers and timed with timestamp queries, submits it with a fence
// and waits (spinning briefly first).
//
//===----------------------------------------------------------------------===//

#include "vulkan_internal.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::runtime::vulkan {
using namespace detail;
namespace {

constexpr uint32_t kSetsPerDescriptorPool = 64;
constexpr uint32_t kDescriptorsPerPool = 512;
constexpr uint32_t kDispatchesPerQueryPool = 64;

// One command buffer and what its recording references (descriptor sets,
// timestamp queries): all of it is reused only after the buffer's fence.
struct Segment {
  ContextState *context = nullptr;
  VkCommandBuffer commands = VK_NULL_HANDLE; // freed with the stream's pool
  VkFence fence = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> descriptorPools;
  size_t currentDescriptorPool = 0;
  // Each pool holds two timestamps for kDispatchesPerQueryPool timed commands
  // (dispatch calls and copies); pools are added rather than grown because a
  // recording references them.
  std::vector<VkQueryPool> queryPools;
  bool recording = false;
  // Timed commands recorded so far; timedIsCopy[i] says whether the i-th is
  // a copy (else a dispatch call).
  uint32_t timedCommands = 0;
  std::vector<bool> timedIsCopy;

  void destroy() {
    const Functions &fn = context->fn;
    VkDevice device = context->device;
    for (VkQueryPool pool : queryPools)
      fn.vkDestroyQueryPool(device, pool, nullptr);
    for (VkDescriptorPool pool : descriptorPools)
      fn.vkDestroyDescriptorPool(device, pool, nullptr);
    if (fence != VK_NULL_HANDLE)
      fn.vkDestroyFence(device, fence, nullptr);
  }

  Status create(VkCommandPool commandPool) {
    const Functions &fn = context->fn;
    VkCommandBufferAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    allocate.commandPool = commandPool;
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 1;
    VkResult result =
        fn.vkAllocateCommandBuffers(context->device, &allocate, &commands);
    if (result != VK_SUCCESS) {
      commands = VK_NULL_HANDLE;
      return vkError("vkAllocateCommandBuffers", result);
    }
    VkFenceCreateInfo fenceCreate{};
    fenceCreate.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    result = fn.vkCreateFence(context->device, &fenceCreate, nullptr, &fence);
    if (result != VK_SUCCESS) {
      fence = VK_NULL_HANDLE;
      return vkError("vkCreateFence", result);
    }
    return addDescriptorPool(0);
  }

  Status addDescriptorPool(uint32_t descriptors) {
    VkDescriptorPoolSize size{};
    size.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    size.descriptorCount = std::max(descriptors, kDescriptorsPerPool);
    VkDescriptorPoolCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    create.maxSets = kSetsPerDescriptorPool;
    create.poolSizeCount = 1;
    create.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkResult result = context->fn.vkCreateDescriptorPool(
        context->device, &create, nullptr, &pool);
    if (result != VK_SUCCESS)
      return vkError("vkCreateDescriptorPool", result);
    descriptorPools.push_back(pool);
    return Status::success();
  }

  Status allocateSet(VkDescriptorSetLayout layout, uint32_t descriptors,
                     VkDescriptorSet &out) {
    VkDescriptorSetAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &layout;
    // Try the current pool, then the later ones, then a new one sized for
    // this set; failing in a fresh pool is a real error.
    while (true) {
      bool fresh = false;
      if (currentDescriptorPool == descriptorPools.size()) {
        if (Status status = addDescriptorPool(descriptors); !status.ok())
          return status;
        fresh = true;
      }
      allocate.descriptorPool = descriptorPools[currentDescriptorPool];
      VkResult result = context->fn.vkAllocateDescriptorSets(context->device,
                                                             &allocate, &out);
      if (result == VK_SUCCESS)
        return Status::success();
      if (fresh || (result != VK_ERROR_OUT_OF_POOL_MEMORY &&
                    result != VK_ERROR_FRAGMENTED_POOL))
        return vkError("vkAllocateDescriptorSets", result);
      ++currentDescriptorPool;
    }
  }

  Status queryPoolFor(uint32_t call, VkQueryPool &out) {
    uint32_t poolIndex = call / kDispatchesPerQueryPool;
    if (poolIndex == queryPools.size()) {
      VkQueryPoolCreateInfo create{};
      create.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
      create.queryType = VK_QUERY_TYPE_TIMESTAMP;
      create.queryCount = 2 * kDispatchesPerQueryPool;
      VkQueryPool pool = VK_NULL_HANDLE;
      VkResult result = context->fn.vkCreateQueryPool(context->device, &create,
                                                      nullptr, &pool);
      if (result != VK_SUCCESS)
        return vkError("vkCreateQueryPool", result);
      queryPools.push_back(pool);
    }
    out = queryPools[poolIndex];
    // Queries must be reset before their first write in each recording.
    if (call % kDispatchesPerQueryPool == 0)
      context->fn.vkCmdResetQueryPool(commands, out, 0,
                                      2 * kDispatchesPerQueryPool);
    return Status::success();
  }

  // Back to idle: nothing recorded, pools reset (after its fence, or when
  // it was never submitted).
  void reset() {
    const Functions &fn = context->fn;
    if (recording || timedCommands > 0)
      fn.vkResetCommandBuffer(commands, 0);
    for (VkDescriptorPool pool : descriptorPools)
      fn.vkResetDescriptorPool(context->device, pool, 0);
    currentDescriptorPool = 0;
    recording = false;
    timedCommands = 0;
    timedIsCopy.clear();
  }
};

// A stream records into one segment at a time. submit() ends it and queues
// it without waiting, so the device runs it while the host records the next
// one; submitAndWait() queues the last and waits for every queued segment.
struct StreamState {
  ContextState *context = nullptr;
  std::vector<uint64_t> ticks; // query results, reused by every wait
  VkCommandPool commandPool = VK_NULL_HANDLE;
  std::vector<std::unique_ptr<Segment>> segments;
  Segment *current = nullptr;       // recording (or null)
  std::vector<Segment *> submitted; // queued, in submission order
  std::vector<Segment *> idle;
  // The descriptor set of the last dispatch and what it binds: a dispatch of
  // the same kernel on the same buffers binds it again instead of writing a
  // new one. Valid until the segments are reset (its pool with them).
  struct {
    const void *kernel = nullptr;
    std::vector<Buffer *> buffers;
    VkDescriptorSet set = VK_NULL_HANDLE;
  } lastSet;
  bool timestamps = false;
  // Set when a wait failed: the work may still be in flight, so no command
  // buffer can be reset or reused.
  bool broken = false;
  Status error;

  ~StreamState() {
    // Objects that pending work may still use are leaked rather than freed.
    if (!context || broken)
      return;
    if (!waitSubmitted(/*spin=*/false).ok())
      return; // broken: still in flight
    for (const std::unique_ptr<Segment> &segment : segments)
      segment->destroy();
    // Destroying the pool frees its command buffers.
    if (commandPool != VK_NULL_HANDLE)
      context->fn.vkDestroyCommandPool(context->device, commandPool, nullptr);
  }

  // The segment the next command goes into.
  Status segment(Segment *&out) {
    if (!current) {
      if (idle.empty()) {
        auto fresh = std::make_unique<Segment>();
        fresh->context = context;
        Status status = fresh->create(commandPool);
        segments.push_back(std::move(fresh));
        if (!status.ok())
          return status;
        idle.push_back(segments.back().get());
      }
      current = idle.back();
      idle.pop_back();
    }
    out = current;
    return Status::success();
  }

  void barrier(VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
               VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
    detail::memoryBarrier(context->fn, current->commands, srcStage, srcAccess,
                          dstStage, dstAccess);
  }

  // Returns the current segment to idle without submitting it.
  void dropCurrent() {
    lastSet.set = VK_NULL_HANDLE;
    if (!current)
      return;
    if (current->recording)
      context->fn.vkEndCommandBuffer(current->commands);
    current->reset();
    idle.push_back(current);
    current = nullptr;
  }

  // Starts the current segment if needed and orders the next command after
  // everything before it in submission order: host writes and the work of
  // earlier segments before a segment's first command, compute and transfer
  // writes before every later one, for compute and transfer reads and
  // writes alike (dispatches and copies in any order).
  Status beginCommand() {
    constexpr VkPipelineStageFlags kWork =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    constexpr VkAccessFlags kWrites =
        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    constexpr VkAccessFlags kReadsWrites =
        kWrites | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
    Segment *s = nullptr;
    if (Status status = segment(s); !status.ok())
      return status;
    if (!s->recording) {
      VkCommandBufferBeginInfo begin{};
      begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
      begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      VkResult result = context->fn.vkBeginCommandBuffer(s->commands, &begin);
      if (result != VK_SUCCESS)
        return vkError("vkBeginCommandBuffer", result);
      s->recording = true;
      barrier(VK_PIPELINE_STAGE_HOST_BIT | kWork,
              VK_ACCESS_HOST_WRITE_BIT | kWrites, kWork, kReadsWrites);
    } else {
      barrier(kWork, kWrites, kWork, kReadsWrites);
    }
    return Status::success();
  }

  // Ends and queues the current segment; `forHost`: its end makes every
  // write visible to the host (the segment a wait follows).
  Status submitCurrent(bool forHost) {
    if (!current || !current->recording)
      return Status::success();
    if (forHost)
      barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                  VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
              VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    const Functions &fn = context->fn;
    VkResult result = fn.vkEndCommandBuffer(current->commands);
    if (result != VK_SUCCESS) {
      current->recording = false;
      dropCurrent();
      return vkError("vkEndCommandBuffer", result);
    }
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &current->commands;
    {
      std::lock_guard<std::mutex> lock(context->queueMutex);
      result = fn.vkQueueSubmit(context->queue, 1, &submit, current->fence);
    }
    if (result != VK_SUCCESS) {
      current->recording = false;
      dropCurrent();
      return vkError("vkQueueSubmit", result);
    }
    submitted.push_back(current);
    current = nullptr;
    return Status::success();
  }

  // Waits for every queued segment. The wavefront scheduler waits for every
  // dispatch, so the wake-up latency of a blocking wait is on its critical
  // path: with `spin`, poll the last fence (yielding the core) for up to
  // SLUICE_VULKAN_SPIN_US microseconds (default 2000) before sleeping in
  // vkWaitForFences.
  Status waitSubmitted(bool spin) {
    if (submitted.empty())
      return Status::success();
    const Functions &fn = context->fn;
    std::vector<VkFence> fences;
    for (Segment *s : submitted)
      fences.push_back(s->fence);
    VkResult result = VK_NOT_READY;
    static const uint64_t spinMicroseconds = [] {
      const char *text = std::getenv("SLUICE_VULKAN_SPIN_US");
      return text ? std::strtoull(text, nullptr, 10) : uint64_t(2000);
    }();
    if (spin && spinMicroseconds != 0) {
      auto deadline = std::chrono::steady_clock::now() +
                      std::chrono::microseconds(spinMicroseconds);
      do {
        result = fn.vkGetFenceStatus(context->device, fences.back());
        if (result != VK_NOT_READY)
          break;
        std::this_thread::yield();
      } while (std::chrono::steady_clock::now() < deadline);
    }
    if (result == VK_NOT_READY || (result == VK_SUCCESS && fences.size() > 1))
      result = fn.vkWaitForFences(context->device,
                                  static_cast<uint32_t>(fences.size()),
                                  fences.data(), VK_TRUE, UINT64_MAX);
    if (result != VK_SUCCESS) {
      broken = true;
      return vkError("vkWaitForFences", result);
    }
    fn.vkResetFences(context->device, static_cast<uint32_t>(fences.size()),
                     fences.data());
    return Status::success();
  }

  // After waitSubmitted: the submitted segments' timestamps, in order, then
  // every submitted segment back to idle.
  Status collectTimes(std::vector<double> *dispatchNs,
                      std::vector<double> *copyNs) {
    Status status;
    const ContextState &ctx = *context;
    if (timestamps && (dispatchNs || copyNs)) {
      uint64_t mask = ctx.timestampValidBits >= 64
                          ? UINT64_MAX
                          : (uint64_t(1) << ctx.timestampValidBits) - 1;
      ticks.resize(2 * kDispatchesPerQueryPool);
      for (Segment *s : submitted) {
        for (uint32_t call = 0; call < s->timedCommands && status.ok();
             call += kDispatchesPerQueryPool) {
          uint32_t inPool =
              std::min(s->timedCommands - call, kDispatchesPerQueryPool);
          VkResult result = ctx.fn.vkGetQueryPoolResults(
              ctx.device, s->queryPools[call / kDispatchesPerQueryPool], 0,
              2 * inPool, ticks.size() * sizeof(uint64_t), ticks.data(),
              sizeof(uint64_t),
              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
          if (result != VK_SUCCESS) {
            status = vkError("vkGetQueryPoolResults", result);
            break;
          }
          for (uint32_t i = 0; i < inPool; ++i) {
            uint64_t elapsed =
                ((ticks[2 * i + 1] & mask) - (ticks[2 * i] & mask)) & mask;
            std::vector<double> *into =
                s->timedIsCopy[call + i] ? copyNs : dispatchNs;
            if (into)
              into->push_back(static_cast<double>(elapsed) *
                              ctx.info.timestampPeriodNs);
          }
        }
      }
      if (!status.ok()) {
        if (dispatchNs)
          dispatchNs->clear();
        if (copyNs)
          copyNs->clear();
      }
    }
    for (Segment *s : submitted) {
      s->reset();
      idle.push_back(s);
    }
    submitted.clear();
    lastSet.set = VK_NULL_HANDLE;
    return status;
  }

  // Writes the start timestamp of the next timed command; `pool` and
  // `firstQuery` receive its pair of queries (pool null: not timed).
  Status startTimer(VkPipelineStageFlagBits stage, VkQueryPool &pool,
                    uint32_t &firstQuery) {
    pool = VK_NULL_HANDLE;
    firstQuery = 0;
    if (!timestamps)
      return Status::success();
    if (Status status = current->queryPoolFor(current->timedCommands, pool);
        !status.ok())
      return status;
    firstQuery = 2 * (current->timedCommands % kDispatchesPerQueryPool);
    context->fn.vkCmdWriteTimestamp(current->commands, stage, pool,
                                    firstQuery);
    return Status::success();
  }
  void stopTimer(bool isCopy, VkPipelineStageFlagBits stage, VkQueryPool pool,
                 uint32_t firstQuery) {
    if (pool != VK_NULL_HANDLE)
      context->fn.vkCmdWriteTimestamp(current->commands, stage, pool,
                                      firstQuery + 1);
    ++current->timedCommands;
    current->timedIsCopy.push_back(isCopy);
  }
};

} // namespace

void DescriptorWrites::write(const Functions &fn, VkDevice device,
                             VkDescriptorSet set,
                             std::span<Buffer *const> bindings,
                             std::span<const uint32_t> used) {
  std::vector<VkDescriptorBufferInfo> infos(used.size());
  std::vector<VkWriteDescriptorSet> writes(used.size());
  for (size_t i = 0; i < used.size(); ++i) {
    infos[i].buffer = toHandle<VkBuffer>(bindings[used[i]]->buffer_);
    infos[i].offset = 0;
    infos[i].range = VK_WHOLE_SIZE;
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = used[i];
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  fn.vkUpdateDescriptorSets(device, uint32_t(writes.size()), writes.data(), 0,
                            nullptr);
}

struct Stream::State : StreamState {};

Status Context::createStream(std::unique_ptr<Stream> &out, bool timestamps) {
  out.reset();
  State &state = *state_;
  const Functions &fn = state.fn;
  std::unique_ptr<Stream> stream(new Stream());
  stream->state_ = std::make_unique<Stream::State>();
  StreamState &s = *stream->state_;
  s.context = &state;
  s.timestamps = timestamps && state.timestampValidBits > 0;

  VkCommandPoolCreateInfo poolCreate{};
  poolCreate.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolCreate.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolCreate.queueFamilyIndex = state.queueFamily;
  VkResult result = fn.vkCreateCommandPool(state.device, &poolCreate, nullptr,
                                           &s.commandPool);
  if (result != VK_SUCCESS) {
    s.commandPool = VK_NULL_HANDLE;
    return vkError("vkCreateCommandPool", result);
  }
  // The first segment now, so that a device that cannot make one fails here.
  Segment *first = nullptr;
  if (Status status = s.segment(first); !status.ok())
    return status;
  out = std::move(stream);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Stream
//===----------------------------------------------------------------------===//

Stream::~Stream() = default;

void Stream::dispatch(const Kernel &kernel, std::span<Buffer *const> bindings,
                      std::span<const std::byte> pushConstants,
                      const uint64_t groups[3]) {
  StreamState &s = *state_;
  if (!s.error.ok() || s.broken)
    return; // The first error wins; submitAndWait reports it.
  const std::string &name = kernel.entry_;
  auto fail = [&](Status status) { s.error = std::move(status); };
  if (kernel.context_->state_.get() != s.context)
    return fail(Status::error(ErrorKind::InvalidArgument,
                              "kernel '" + name +
                                  "' belongs to another Vulkan context"));
  if (bindings.size() != kernel.bindings_)
    return fail(Status::error(
        ErrorKind::InvalidArgument,
        "kernel '" + name + "' has " + std::to_string(kernel.bindings_) +
            " bindings but the dispatch passes " +
            std::to_string(bindings.size()) + " buffers"));
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (!bindings[i])
      return fail(Status::error(ErrorKind::InvalidArgument,
                                "kernel '" + name + "' binding " +
                                    std::to_string(i) + " is a null buffer"));
    if (bindings[i]->context_->state_.get() != s.context)
      return fail(Status::error(ErrorKind::InvalidArgument,
                                "kernel '" + name + "' binding " +
                                    std::to_string(i) +
                                    " belongs to another Vulkan context"));
  }
  if (pushConstants.size() != kernel.pushBytes_)
    return fail(Status::error(
        ErrorKind::InvalidArgument,
        "kernel '" + name + "' takes " + std::to_string(kernel.pushBytes_) +
            " push constant bytes but the dispatch passes " +
            std::to_string(pushConstants.size())));
  for (int d = 0; d < 3; ++d)
    if (groups[d] > UINT32_MAX)
      return fail(Status::error(
          ErrorKind::InvalidArgument,
          "kernel '" + name + "' grid dimension " + std::to_string(d) + " is " +
              std::to_string(groups[d]) +
              " workgroups; WorkgroupId is 32-bit, so at most 4294967295"));

  const ContextState &context = *s.context;
  const Functions &fn = context.fn;
  // Only a one-dimensional grid is split (along x): generated code linearizes
  // block ids from NumWorkgroups, which a split would make the chunk's.
  uint64_t limit[3];
  for (int d = 0; d < 3; ++d)
    limit[d] =
        std::max<uint32_t>(context.limits.maxComputeWorkGroupCount[d], 1);
  bool empty = groups[0] == 0 || groups[1] == 0 || groups[2] == 0;
  bool oneDimensional = groups[1] == 1 && groups[2] == 1;
  if (!empty && !oneDimensional &&
      (groups[0] > limit[0] || groups[1] > limit[1] || groups[2] > limit[2])) {
    auto grid = std::to_string(groups[0]) + "x" + std::to_string(groups[1]) +
                "x" + std::to_string(groups[2]);
    auto limits = std::to_string(limit[0]) + "x" + std::to_string(limit[1]) +
                  "x" + std::to_string(limit[2]);
    return fail(Status::error(
        ErrorKind::Unsupported,
        "kernel '" + name + "' grid " + grid +
            " exceeds the device's maxComputeWorkGroupCount " + limits +
            "; only a one-dimensional grid (y = z = 1) is split along x"));
  }

  if (Status status = s.beginCommand(); !status.ok())
    return fail(std::move(status));
  Segment &segment = *s.current;
  VkCommandBuffer cmd = segment.commands;

  VkDescriptorSet set = VK_NULL_HANDLE;
  const std::vector<uint32_t> &used = kernel.usedBindings_;
  auto &last = s.lastSet;
  if (!used.empty() && last.set != VK_NULL_HANDLE && last.kernel == &kernel &&
      std::equal(bindings.begin(), bindings.end(), last.buffers.begin(),
                 last.buffers.end())) {
    set = last.set;
  } else if (!used.empty()) {
    if (Status status =
            segment.allocateSet(toHandle<VkDescriptorSetLayout>(kernel.setLayout_),
                          static_cast<uint32_t>(used.size()), set);
        !status.ok())
      return fail(std::move(status));
    DescriptorWrites::write(fn, context.device, set, bindings, used);
    last.kernel = &kernel;
    last.buffers.assign(bindings.begin(), bindings.end());
    last.set = set;
  }

  VkQueryPool queries = VK_NULL_HANDLE;
  uint32_t firstQuery = 0;
  if (Status status = s.startTimer(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                   queries, firstQuery);
      !status.ok())
    return fail(std::move(status));
  VkPipelineLayout layout = toHandle<VkPipelineLayout>(kernel.layout_);
  fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                       toHandle<VkPipeline>(kernel.pipeline_));
  if (set != VK_NULL_HANDLE)
    fn.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0,
                               1, &set, 0, nullptr);
  if (!pushConstants.empty())
    fn.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          static_cast<uint32_t>(pushConstants.size()),
                          pushConstants.data());
  // Chunks of at most maxComputeWorkGroupCount.x (only a one-dimensional
  // grid gets here beyond the limit); the base keeps WorkgroupId global.
  uint64_t chunk = limit[0];
  if (oneDimensional && context.splitGroupsX != 0)
    chunk = std::min(chunk, context.splitGroupsX);
  if (!empty) {
    for (uint64_t x = 0; x < groups[0]; x += chunk)
      fn.vkCmdDispatchBase(
          cmd, static_cast<uint32_t>(x), 0, 0,
          static_cast<uint32_t>(std::min(chunk, groups[0] - x)),
          static_cast<uint32_t>(groups[1]), static_cast<uint32_t>(groups[2]));
  }
  s.stopTimer(false, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queries, firstQuery);
}

void Stream::copy(Buffer &source, uint64_t sourceOffset, Buffer &destination,
                  uint64_t destinationOffset, uint64_t bytes) {
  StreamState &s = *state_;
  if (!s.error.ok() || s.broken)
    return; // The first error wins; submitAndWait reports it.
  auto fail = [&](Status status) { s.error = std::move(status); };
  if (source.context_->state_.get() != s.context ||
      destination.context_->state_.get() != s.context)
    return fail(Status::error(ErrorKind::InvalidArgument,
                              std::string("copy ") +
                                  (source.context_->state_.get() != s.context
                                       ? "source"
                                       : "destination") +
                                  " buffer belongs to another Vulkan context"));
  auto outOfBounds = [&](uint64_t offset, uint64_t size) {
    return offset > size || bytes > size - offset;
  };
  auto describe = [&](const char *what, uint64_t offset, uint64_t size) {
    return std::string("copy of ") + std::to_string(bytes) + " bytes at " +
           what + " offset " + std::to_string(offset) + " exceeds the " + what +
           " buffer of " + std::to_string(size) + " bytes";
  };
  if (outOfBounds(sourceOffset, source.size_))
    return fail(Status::error(ErrorKind::InvalidArgument,
                              describe("source", sourceOffset, source.size_)));
  if (outOfBounds(destinationOffset, destination.size_))
    return fail(Status::error(
        ErrorKind::InvalidArgument,
        describe("destination", destinationOffset, destination.size_)));
  if (bytes == 0)
    return;
  if (&source == &destination && sourceOffset < destinationOffset + bytes &&
      destinationOffset < sourceOffset + bytes)
    return fail(Status::error(
        ErrorKind::InvalidArgument,
        "copy of " + std::to_string(bytes) + " bytes within one buffer from " +
            std::to_string(sourceOffset) + " to " +
            std::to_string(destinationOffset) + " overlaps itself"));

  if (Status status = s.beginCommand(); !status.ok())
    return fail(std::move(status));
  VkQueryPool queries = VK_NULL_HANDLE;
  uint32_t firstQuery = 0;
  if (Status status =
          s.startTimer(VK_PIPELINE_STAGE_TRANSFER_BIT, queries, firstQuery);
      !status.ok())
    return fail(std::move(status));
  VkBufferCopy region{};
  region.srcOffset = sourceOffset;
  region.dstOffset = destinationOffset;
  region.size = bytes;
  s.context->fn.vkCmdCopyBuffer(s.current->commands,
                                toHandle<VkBuffer>(source.buffer_),
                                toHandle<VkBuffer>(destination.buffer_), 1,
                                &region);
  s.stopTimer(true, VK_PIPELINE_STAGE_TRANSFER_BIT, queries, firstQuery);
}

Status Stream::submit() {
  StreamState &s = *state_;
  if (s.broken || !s.error.ok())
    return Status::success(); // submitAndWait reports it
  if (Status status = s.submitCurrent(/*forHost=*/false); !status.ok())
    s.error = std::move(status);
  return Status::success();
}

Status Stream::submitAndWait(std::vector<double> *dispatchNs,
                             std::vector<double> *copyNs) {
  StreamState &s = *state_;
  if (dispatchNs)
    dispatchNs->clear();
  if (copyNs)
    copyNs->clear();
  if (s.broken)
    return Status::error(ErrorKind::DeviceError,
                         "the stream is unusable after vkWaitForFences failed");
  Status error = std::move(s.error);
  s.error = Status::success();
  if (error.ok())
    error = s.submitCurrent(/*forHost=*/true);
  else
    s.dropCurrent();
  // Queued segments finish before anything is reused, error or not.
  if (Status status = s.waitSubmitted(/*spin=*/true); !status.ok())
    return status;
  Status times = s.collectTimes(error.ok() ? dispatchNs : nullptr,
                                error.ok() ? copyNs : nullptr);
  return error.ok() ? times : error;
}

} // namespace sluice::runtime::vulkan
