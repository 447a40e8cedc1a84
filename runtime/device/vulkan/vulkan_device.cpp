//===- vulkan_device.cpp - Vulkan device adapter --------------------------===//
//
// The Vulkan primitives of the compiled-kernel device.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/vulkan/vulkan_device.h"

#include "sluice/runtime/device/vulkan/vulkan.h"

#include "../resident_state.h"

#include <atomic>
#include <cassert>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#ifdef SLUICE_VULKAN_RESIDENT_SHADERS
#include "sluice_generated/resident_route.spv.h"
#include "sluice_generated/resident_schedule.spv.h"
#include "sluice_generated/resident_schedule_profiled.spv.h"
#include "sluice_generated/resident_select.spv.h"
#include "sluice_generated/resident_select_profiled.spv.h"
#include "sluice_generated/resident_sort.spv.h"
#endif
#ifdef SLUICE_VULKAN_FUSED_LOOP
#include "fused_loop.h"
#include "sluice_generated/resident_schedule_fused.spv.h"
#endif

namespace sluice::runtime {

namespace vk = vulkan;

namespace {

class VulkanBuffer final : public KernelBuffer {
public:
  explicit VulkanBuffer(std::unique_ptr<vk::Buffer> buffer)
      : KernelBuffer(buffer->size()), buffer(std::move(buffer)),
        serial(++serials) {}
  std::unique_ptr<vk::Buffer> buffer;
  // Never the same for two buffers of the process (a Vulkan handle or an
  // address may be reused once a buffer is gone): what a kept recording
  // that binds this buffer is keyed on (ResidentRecordings).
  const uint64_t serial;

private:
  static inline std::atomic<uint64_t> serials{0};
};

// A vector's words as the bytes a read fills.
template <typename T> std::span<unsigned char> bytesOf(std::vector<T> &words) {
  return {reinterpret_cast<unsigned char *>(words.data()),
          words.size() * sizeof(T)};
}

vk::Buffer &vulkanBuffer(const KernelBuffer &buffer) {
  return *static_cast<const VulkanBuffer &>(buffer).buffer;
}

class VulkanPrimitives;

// The host placement's client of an owner's compiled policy on the Vulkan
// device: every compiled hook call is a dispatch of the program's kernel
// sluice_policy_<o> (one workgroup; invocation 0 runs the hook) on the
// device's stream, with the call words [hook, C, L, slots, value], the
// storage and the owner's counts in host-visible buffers (the counts go in
// and come back, so the scheduler's checks see what the hook did).
class VulkanPolicyClient final : public DevicePolicyClient {
public:
  VulkanPolicyClient(VulkanPrimitives &primitives, uint32_t owner,
                     const OwnerPolicy &policy)
      : DevicePolicyClient(policy), primitives(primitives), owner(owner) {}

  void beginRun(const OwnerView &view) override;

private:
  int64_t call(PolicyHook hook, const OwnerView &view, int64_t slots) override;
  void keep(Status status);

  VulkanPrimitives &primitives;
  uint32_t owner;
  std::unique_ptr<vk::Kernel> kernel;
  std::unique_ptr<vk::Buffer> words, storage, counts;
};

class VulkanPrimitives final : public KernelPrimitives {
public:
  std::string label() const override { return "vulkan device"; }
  bool unifiedMemory() const override { return false; }

  // Resident buffers in device-local memory, mapped where the host can map
  // it (resizable BAR on a discrete GPU: host reads of it are uncached and
  // slow, so only the bindings' explicit reads come from it) and unmapped
  // VRAM when that heap is full (Placement::DeviceFirst: host copies then
  // go through staging; kernels keep VRAM's speed); per-dispatch transfers
  // in host-cached memory, which the host reads at memory speed.
  Status createBuffer(uint64_t bytes, KernelBufferUse use,
                      std::unique_ptr<KernelBuffer> &out) override {
    std::unique_ptr<vk::Buffer> buffer;
    bool resident = use == KernelBufferUse::Resident;
    vk::Placement placement =
        resident ? vk::Placement::DeviceFirst : vk::Placement::Host;
    if (Status status = context->createBuffer(bytes, placement, buffer);
        !status.ok())
      return status;
    if (resident && !buffer->deviceLocal() && !warnedHostMemory) {
      // Every kernel access to it crosses the bus: say so once.
      warnedHostMemory = true;
      std::fprintf(stderr,
                   "sluice: %s: no device-local memory left for a buffer of "
                   "%llu bytes; it is in host memory, which kernels reach "
                   "over the bus\n",
                   label().c_str(), static_cast<unsigned long long>(bytes));
    }
    out = std::make_unique<VulkanBuffer>(std::move(buffer));
    return Status::success();
  }

  // A mapped buffer: a copy into the mapping, made while the stream is
  // idle; an unmapped one (DeviceFirst's VRAM): through host-cached
  // staging memory and a copy on the stream.
  Status upload(KernelBuffer &buffer,
                std::span<const unsigned char> bytes) override {
    vk::Buffer &target = vulkanBuffer(buffer);
    if (bytes.size() > target.size())
      return Status::error(ErrorKind::InvalidArgument,
                           label() + ": an upload of " +
                               std::to_string(bytes.size()) +
                               " bytes into a buffer of " +
                               std::to_string(target.size()));
    return write(target, bytes);
  }
  Status write(vk::Buffer &target, std::span<const unsigned char> bytes) {
    if (bytes.empty())
      return Status::success();
    if (target.data()) {
      std::memcpy(target.data(), bytes.data(), bytes.size());
      return Status::success();
    }
    if (Status status = stagingOf(bytes.size()); !status.ok())
      return status;
    std::memcpy(staging->data(), bytes.data(), bytes.size());
    stream->copy(*staging, 0, target, 0, bytes.size());
    return stream->submitAndWait();
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
  Status reserveDownload(uint64_t bytes) override {
    return bytes < kStagedReadBytes ? Status::success() : stagingOf(bytes);
  }
  // The staging buffer, at least `bytes` large.
  Status stagingOf(uint64_t bytes) {
    if (staging && staging->size() >= bytes)
      return Status::success();
    staging.reset();
    return context->createBuffer(bytes, vk::Placement::Host, staging);
  }
  Status read(const vk::Buffer &source, uint64_t offset,
              std::span<unsigned char> out) {
    if (out.empty())
      return Status::success();
    const auto *mapped = static_cast<const unsigned char *>(source.data());
    if (mapped &&
        (!source.deviceLocal() || out.size() < kStagedReadBytes)) {
      std::memcpy(out.data(), mapped + offset, out.size());
      return Status::success();
    }
    if (Status status = stagingOf(out.size()); !status.ok())
      return status;
    stream->copy(const_cast<vk::Buffer &>(source), offset, *staging, 0,
                 out.size());
    if (Status status = stream->submitAndWait(); !status.ok())
      return status;
    std::memcpy(out.data(), staging->data(), out.size());
    return Status::success();
  }

  // Kernel `stages`, made once (the driver compiles its pipeline then).
  Status createMegakernel() {
    if (megakernel.empty())
      return Status::success();
    std::unique_ptr<vk::Kernel> kernel;
    if (Status status = context->createKernel(spirv, megakernel,
                                              megakernelBindings, 0, kernel);
        !status.ok())
      return status;
    kernels.push_back(std::move(kernel));
    megakernel.clear();
    return Status::success();
  }
  Status prepare(bool stateMachine, bool resident) override {
    if (stateMachine)
      if (Status status = createMegakernel(); !status.ok())
        return status;
    return resident ? createResidentKernels() : Status::success();
  }
  // The device placement's shaders and, where the module has it and it is
  // not turned off, the stage switch (created once).
  Status createResidentKernels();
  bool useStageSwitch() const;
  Status createFusedKernel();
  bool profiling() const;

  Status launch(uint32_t stage, std::span<const LaunchArgument> arguments,
                uint32_t count) override {
    if (stage == kernels.size())
      if (Status status = createMegakernel(); !status.ok())
        return status;
    if (stage >= kernels.size())
      return Status::error(ErrorKind::InvalidArgument,
                           label() + ": no kernel " + std::to_string(stage));
    // The count is the kernel's binding 0 (KernelABI.h): one small buffer
    // per launch until the next wait, written before the submission.
    if (countsUsed == countBuffers.size()) {
      std::unique_ptr<vk::Buffer> buffer;
      if (Status status =
              context->createBuffer(4, vk::Placement::Host, buffer);
          !status.ok())
        return status;
      countBuffers.push_back(std::move(buffer));
    }
    vk::Buffer &countBuffer = *countBuffers[countsUsed++];
    std::memcpy(countBuffer.data(), &count, sizeof count);
    bindings.assign(1, &countBuffer);
    for (const LaunchArgument &argument : arguments)
      bindings.push_back(argument.buffer ? &vulkanBuffer(*argument.buffer)
                                         : nullptr);
    uint64_t groups[3] = {(uint64_t(count) + workgroupSize - 1) /
                              workgroupSize,
                          1, 1};
    stream->dispatch(*kernels[stage], bindings, {}, groups);
    return Status::success();
  }
  // Mesa lavapipe ends a kernel's loops silently after 65,535 iterations in
  // all (per invocation, every loop counted): a megakernel thread that runs
  // many lanes in one launch would be cut short, so it runs few.
  uint32_t megakernelLanesPerThread() const override {
    return context->info().type == "cpu" ? 16 : 1024;
  }
  // A GPU prefers the device placement (the path tracer: 1,343 against 22
  // Mrays/s on an H100); a CPU device (Mesa lavapipe) runs the scheduler
  // shader's one workgroup slower than the host decides (0.93 against 1.53
  // Mrays/s for the demo's render).
  bool prefersDevicePlacement() const override {
    return context->info().type != "cpu";
  }
  // The device placement (docs/runtime.md "The device placement on a
  // GPU"): the scheduler and routing shaders read the device state through
  // buffer device addresses.
  Status residentSupport() const override {
#ifndef SLUICE_VULKAN_RESIDENT_SHADERS
    return Status::error(ErrorKind::Unsupported,
                         label() + ": built without glslangValidator, so "
                                   "without the scheduler shaders (install "
                                   "glslang-tools and build again)");
#else
    if (!context->info().bufferDeviceAddress)
      return Status::error(
          ErrorKind::Unsupported,
          label() + " '" + context->info().name +
              "' has no bufferDeviceAddress (Vulkan 1.2), which the device "
              "placement's shaders read their state through");
    if (!context->info().shaderInt64 || !context->info().shaderFloat64 ||
        !context->info().shaderBufferInt64Atomics)
      return Status::error(
          ErrorKind::Unsupported,
          label() + " '" + context->info().name +
              "' lacks shaderInt64, shaderFloat64 or 64-bit buffer atomics, "
              "which the device placement's shaders use");
    if (!context->info().computeSubgroupOperations)
      return Status::error(
          ErrorKind::Unsupported,
          label() + " '" + context->info().name +
              "' lacks the basic, arithmetic, ballot or shuffle subgroup "
              "operations in compute shaders, which the device placement's "
              "scheduler uses");
    return Status::success();
#endif
  }

  Status runResident(const ResidentLaunch &launch,
                     ResidentLaunchResult &out) override;
  Status prepareResidentState(const ResidentLaunch &launch) override;
  // The state's image of `launch` (residentImage) and a buffer that holds
  // it (residentStateBuffer, kept while it is large enough); `made`: the
  // buffer is new.
  Status buildResidentStateBuffer(const ResidentLaunch &launch,
                                  bool *made = nullptr);

  // Both placements run the owners' policy kernels: the host placement one
  // submission per hook call (VulkanPolicyClient), the device placement
  // between the phases of its scheduler dispatch (runResident).
  std::unique_ptr<CapacityOwnerClient>
  policyClient(uint32_t owner, const OwnerPolicy &policy) override {
    return std::make_unique<VulkanPolicyClient>(*this, owner, policy);
  }
#ifdef SLUICE_VULKAN_RESIDENT_SHADERS
  bool runsOwnerPolicies() const override { return true; }
#endif

  Status wait(double &gpuNanoseconds) override {
    if (!policyFailure.ok())
      return std::exchange(policyFailure, Status::success());
    Status status = stream->submitAndWait(&dispatchNs);
    countsUsed = 0;
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
  // Binding 0 of the launches since the last wait: their counts.
  std::vector<std::unique_ptr<vk::Buffer>> countBuffers;
  size_t countsUsed = 0;
  // Reads of device-local memory, writes into unmapped memory.
  std::unique_ptr<vk::Buffer> staging;
  bool warnedHostMemory = false; // a resident buffer in host memory
  uint32_t workgroupSize = 64;
  std::vector<vk::Buffer *> bindings;
  std::vector<double> dispatchNs;
  // The device placement's shaders and the program's stage switch, created
  // at its first run.
  std::unique_ptr<vk::Kernel> scheduleKernel, routeKernel, selectKernel,
      sortKernel,
      switchKernel, profiledScheduleKernel, profiledSelectKernel;
  // The device placement's state image and its buffer, both reused by the
  // next run.
  ResidentState residentImage;
  std::vector<uint64_t> residentImageKey; // buildResidentStateOnce's
  std::unique_ptr<vk::Buffer> residentStateBuffer;
  uint64_t residentStateSerial = 0; // counts the state buffers made
  // The image as a run found it, device-local: a run of the same image
  // (a renderer's next pass) restores the state buffer from it with a copy
  // on the device and writes only its own layout (restoreResidentState).
  // `residentPristineKey`: the image's key, its size and its windows'
  // addresses (empty: nothing in the buffer).
  std::unique_ptr<vk::Buffer> residentPristine;
  std::vector<uint64_t> residentPristineKey;
  Status restoreResidentState(const ResidentLaunch &launch, vk::Buffer &target);
  // What a device-placement run records (its batches and the buffers they
  // use), kept for the next run that records the same commands.
  struct ResidentRecordings;
  std::unique_ptr<ResidentRecordings> residentRecordings;
  // Records `launch`'s commands into `out`, unless `out` holds the same
  // (kept) already; `onlyKept`: records nothing that would not be kept.
  Status recordResident(const ResidentLaunch &launch,
                        std::unique_ptr<ResidentRecordings> &out,
                        bool onlyKept = false);
  // Per owner: its policy kernel, for the device placement (null: none).
  std::vector<std::unique_ptr<vk::Kernel>> residentPolicyKernels;
  // Why the device refused the stage switch (it uses every stage kernel's
  // buffers, which may exceed the device's limit per stage): the stage
  // kernels are dispatched one by one instead.
  std::string switchRefused;
  // The fused loop (docs/runtime.md "The fused loop"): the scheduler shader
  // linked with the program's stage bodies, created with the stage switch;
  // `fusedRefused` says why there is none.
  std::unique_ptr<vk::Kernel> fusedKernel;
  std::string fusedRefused;
  // A policy hook call's failure, reported by the next wait().
  Status policyFailure;
};

// A device-placement run's commands: its batches (two recordings in flight,
// each `batch` iterations), the buffers they use besides the state and the
// stage kernels' bindings, and what the run reads back. Kept
// (residentRecordings) for the next run whose commands are the same, which
// `key` says: recording them took 1.6 to 2.6 ms of each run's wall on an
// H100 (the path tracer, 2026-12-06), more than the image's write. A run
// with owner policies or a profile records its own each time (its policy
// storage and counters start each run afresh).
struct VulkanPrimitives::ResidentRecordings {
  std::vector<uint64_t> key;
  std::unique_ptr<vk::Buffer> grids, countWord, exchange, policyCounts, profile;
  std::vector<std::unique_ptr<vk::Buffer>> policyStorage;
  std::unique_ptr<vk::Recording> recordings[2];
  std::unique_ptr<vk::Buffer> logCopies[2];
  uint32_t inFlight = 0;
  uint64_t logBegin = 0; // the log's range of the state, copied back
  std::string form;      // ResidentLaunchResult::form
  bool kept = false;     // no policies, no profile: kept for the next run
};

void VulkanPolicyClient::keep(Status status) {
  if (!status.ok() && primitives.policyFailure.ok())
    primitives.policyFailure = std::move(status);
}

void VulkanPolicyClient::beginRun(const OwnerView &view) {
  vk::Context &context = *primitives.context;
  Status status = Status::success();
  if (!kernel)
    status = context.createKernel(
        primitives.spirv, kPolicyKernelPrefix + std::to_string(owner), 3, 0,
        kernel);
  auto buffer = [&](uint64_t bytes, std::unique_ptr<vk::Buffer> &out) {
    if (status.ok() && !out)
      status = context.createBuffer(bytes, vk::Placement::Host, out);
  };
  buffer(5 * 8, words);
  buffer(std::max<uint64_t>(policy().storageWords, 1) * 8, storage);
  buffer(std::max<uint64_t>(view.stageCounts.size(), 1) * 4, counts);
  if (status.ok())
    std::memset(storage->data(), 0, storage->size());
  keep(status);
}

int64_t VulkanPolicyClient::call(PolicyHook hook, const OwnerView &view,
                                 int64_t slots) {
  if (!kernel || !words || !storage || !counts) {
    keep(Status::error(ErrorKind::InvalidState,
                       "vulkan device: owner '" + std::string(view.name) +
                           "': a policy hook call before the run began"));
    return 0;
  }
  // The scheduler's own counts: a hook that writes them is caught after.
  auto *owned = const_cast<uint32_t *>(view.stageCounts.data());
  size_t countBytes = view.stageCounts.size() * 4;
  int64_t call[5] = {int64_t(hook), int64_t(view.capacity), int64_t(view.live),
                     slots, 0};
  std::memcpy(words->data(), call, sizeof call);
  if (countBytes)
    std::memcpy(counts->data(), owned, countBytes);
  vk::Buffer *bindings[] = {words.get(), storage.get(), counts.get()};
  const uint64_t one[3] = {1, 1, 1};
  primitives.stream->dispatch(*kernel, bindings, {}, one);
  if (Status status = primitives.stream->submitAndWait(); !status.ok()) {
    keep(Status::error(status.kind(), "vulkan device: owner '" +
                                          std::string(view.name) + "': hook " +
                                          policy().describe(hook) + ": " +
                                          status.message()));
    return 0;
  }
  std::memcpy(call, words->data(), sizeof call);
  if (countBytes)
    std::memcpy(owned, counts->data(), countBytes);
  return call[4];
}

#ifdef SLUICE_VULKAN_RESIDENT_SHADERS
// The entry point that runs any stage (sluice-spirv-stage-switch).
constexpr const char *kStageSwitch = "sluice_stage_switch";

// The push constants of the three shaders (resident_common.glsl's Push).
struct ResidentPush {
  uint64_t layout, indirect, countWord, policyExchange, policyCounts, profile;
  uint32_t stageGroupSize, edgeCount, setWordCount, phase;
};

// The profiled shaders' sums (ResidentPush::profile): the scheduler's words
// 0-15, the select shader's 16-22.
constexpr uint64_t kResidentProfileBytes = 32 * 8;

// resident_schedule.comp's exchange with the policy kernels, in u64 words:
// the call (hook, C, L, slots, value), whether it waits, the results known,
// its owner, each owner's hooks, then two words (value, changed) per call.
constexpr uint64_t kExchangeHooks = 8,
                   kExchangeResults = kExchangeHooks + decision::kResidentMaxOwners;

// The most hook calls one iteration's decision can make: decide()'s order
// (per producer edge of the chosen stage prepare_for_admission and
// availability, then the blocking owner's admission_stage or every edge's
// prepare_for_producer), counting the hooks the owners have. The recording
// gives each iteration this many resuming phases.
uint32_t policyCallBound(const decision::Tables &t,
                         std::span<const uint32_t> hooks) {
  auto has = [&](uint32_t owner, PolicyHook hook) -> uint32_t {
    return (hooks[owner] >> uint32_t(hook)) & 1u;
  };
  uint32_t bound = 0;
  for (uint32_t s = 0; s < t.mainStageCount; ++s) {
    uint32_t admission = 0, stage = 0, producer = 0;
    for (uint32_t e = t.producerBegin[s]; e < t.producerBegin[s + 1]; ++e) {
      uint32_t o = t.edgeOwner[e];
      admission += has(o, PolicyHook::PrepareForAdmission) +
                   has(o, PolicyHook::Availability);
      stage = std::max(stage, has(o, PolicyHook::AdmissionStage));
      producer += has(o, PolicyHook::PrepareForProducer);
    }
    bound = std::max(bound, admission + std::max(stage, producer));
  }
  return bound;
}

// Whether the environment variable `name` is "0": how a measurement turns
// off what the device placement does by default.
bool turnedOff(const char *name) {
  const char *setting = std::getenv(name);
  return setting && std::string_view(setting) == "0";
}

// Whether the environment variable `name` is "1": how a measurement turns
// on what the device placement does not do by default.
bool turnedOn(const char *name) {
  const char *setting = std::getenv(name);
  return setting && std::string_view(setting) == "1";
}

// Iterations recorded per submission (SLUICE_VULKAN_RESIDENT_BATCH): the
// host waits and reads the log once per batch; the iterations after a stop
// run nothing.
uint32_t residentBatch() {
  const char *text = std::getenv("SLUICE_VULKAN_RESIDENT_BATCH");
  unsigned long value = text ? std::strtoul(text, nullptr, 10) : 0;
  return value >= 1 && value <= 4096 ? uint32_t(value) : 64;
}

// Batches queued at once (SLUICE_VULKAN_RESIDENT_IN_FLIGHT, 1 or 2).
uint32_t residentBatchesInFlight() {
  const char *text = std::getenv("SLUICE_VULKAN_RESIDENT_IN_FLIGHT");
  return text && std::string_view(text) == "1" ? 1 : 2;
}

// SLUICE_VULKAN_PROFILE=1 on a device with the subgroup clock: the
// scheduler dispatches of a device-placement run add up the cycles of their
// parts, and the run prints the average of each (docs/runtime.md).
bool profileRequested() { return turnedOn("SLUICE_VULKAN_PROFILE"); }

bool VulkanPrimitives::profiling() const {
  return profileRequested() && context->info().shaderSubgroupClock;
}

// One switch dispatch per iteration where the module has the stage switch
// (sluice-spirv-stage-switch); SLUICE_VULKAN_STAGE_SWITCH=0 keeps one
// indirect dispatch per stage kernel.
bool VulkanPrimitives::useStageSwitch() const {
  return switchRefused.empty() && vk::hasEntryPoint(spirv, kStageSwitch) &&
         !turnedOff("SLUICE_VULKAN_STAGE_SWITCH");
}

Status VulkanPrimitives::createResidentKernels() {
  auto shader = [&](std::span<const uint32_t> words,
                    std::unique_ptr<vk::Kernel> &kernel) -> Status {
    if (kernel)
      return Status::success();
    return context->createKernel(words, "main", 0, sizeof(ResidentPush),
                                 kernel);
  };
  if (Status status = shader(k_resident_schedule, scheduleKernel);
      !status.ok())
    return status;
  if (Status status = shader(k_resident_route, routeKernel); !status.ok())
    return status;
  if (profiling()) {
    if (Status status =
            shader(k_resident_schedule_profiled, profiledScheduleKernel);
        !status.ok())
      return status;
    if (Status status =
            shader(k_resident_select_profiled, profiledSelectKernel);
        !status.ok())
      return status;
  }
  if (Status status = shader(k_resident_select, selectKernel); !status.ok())
    return status;
  if (Status status = shader(k_resident_sort, sortKernel); !status.ok())
    return status;
  if (!useStageSwitch() || switchKernel)
    return Status::success();
  // The stage kernels' bindings, which the switch shares.
  Status status = context->createKernel(
      spirv, kStageSwitch, kernels.front()->bindingCount(), 0, switchKernel);
  if (status.kind() == ErrorKind::Unsupported) {
    switchRefused = status.message();
    return Status::success();
  }
  if (!status.ok())
    return status;
  return createFusedKernel();
}

// The fused loop's kernel: the stage kernels' bindings and the scheduler's
// push constants. SLUICE_VULKAN_FUSED=0 keeps a dispatch per part of the
// iteration. A program or device that cannot have it keeps them too, and
// the run summary says why. A CPU device (lavapipe) has it only with
// SLUICE_VULKAN_FUSED=1: it has no dispatch boundary worth removing, and
// compiling the linked module, a new one for each program, takes it about
// 2 s more than the scheduler shader alone (which its shader cache keeps
// across programs).
Status VulkanPrimitives::createFusedKernel() {
#ifndef SLUICE_VULKAN_FUSED_LOOP
  fusedRefused = "built without SPIRV-Tools' linker (install spirv-tools "
                 "and build again)";
  return Status::success();
#else
  if (turnedOff("SLUICE_VULKAN_FUSED")) {
    fusedRefused = "SLUICE_VULKAN_FUSED=0";
    return Status::success();
  }
  if (context->info().type == "cpu" && !turnedOn("SLUICE_VULKAN_FUSED")) {
    fusedRefused = "a CPU device, without SLUICE_VULKAN_FUSED=1";
    return Status::success();
  }
  std::vector<uint32_t> linked;
  Status status = vk::linkFusedLoop(spirv, k_resident_schedule_fused, linked);
  if (status.ok())
    status = context->createKernel(linked, vk::kFusedLoopEntry,
                                   kernels.front()->bindingCount(),
                                   sizeof(ResidentPush), fusedKernel);
  if (status.kind() == ErrorKind::Unsupported) {
    fusedRefused = status.message();
    return Status::success();
  }
  return status;
#endif
}

Status VulkanPrimitives::buildResidentStateBuffer(
    const ResidentLaunch &launch, bool *made) {
  buildResidentStateOnce(launch, 1, residentBatch(), residentImage,
                         residentImageKey);
  // The scheduler's state: device-local, mapped or not (its image goes up
  // at each run's start; the log comes back through copies); kept for the
  // next run while it is large enough, as hip keeps its own.
  if (made)
    *made = false;
  if (residentStateBuffer &&
      residentStateBuffer->size() >= residentImage.deviceBytes)
    return Status::success();
  if (made)
    *made = true;
  residentStateBuffer.reset();
  ++residentStateSerial;
  return context->createBuffer(residentImage.deviceBytes,
                               vk::Placement::DeviceFirst,
                               residentStateBuffer);
}

Status VulkanPrimitives::restoreResidentState(const ResidentLaunch &launch,
                                              vk::Buffer &target) {
  const ResidentState &state = residentImage;
  // A located image differs from the one its key last located only in the
  // layout (lanes, iteration limit, the launch's buffer addresses) and the
  // windows' addresses (buildResidentStateOnce, locateResidentState).
  std::vector<uint64_t> key = residentImageKey;
  key.push_back(state.bytes.size());
  const uint64_t windowsOffset = state.built.windows;
  for (size_t o = 0; o < launch.windows.size(); ++o) {
    uint64_t address;
    std::memcpy(&address, state.bytes.data() + windowsOffset + 8 * o, 8);
    key.push_back(address);
  }
  const uint64_t bytes = state.bytes.size();
  if (residentPristineKey != key) {
    // A new image: up once, whole, into the device-local copy.
    residentPristineKey.clear();
    if (!residentPristine || residentPristine->size() < bytes) {
      residentPristine.reset();
      if (Status status = context->createBuffer(
              bytes, vk::Placement::DeviceFirst, residentPristine);
          !status.ok())
        return status;
    }
    if (Status status = write(*residentPristine, state.bytes); !status.ok())
      return status;
    residentPristineKey = std::move(key);
    stream->copy(*residentPristine, 0, target, 0, bytes);
    return stream->submitAndWait();
  }
  // The same image: a copy on the device, then this run's layout over it.
  const uint64_t layoutBytes = sizeof(decision::ResidentLayout);
  if (Status status = stagingOf(layoutBytes); !status.ok())
    return status;
  std::memcpy(staging->data(), state.bytes.data() + state.layoutOffset,
              layoutBytes);
  stream->copy(*residentPristine, 0, target, 0, bytes);
  stream->copy(*staging, 0, target, state.layoutOffset, layoutBytes);
  return stream->submitAndWait();
}

Status VulkanPrimitives::prepareResidentState(const ResidentLaunch &launch) {
  if (Status support = residentSupport(); !support.ok())
    return support;
  if (Status status = checkResidentLimits(*launch.tables); !status.ok())
    return status;
  bool made = false;
  if (Status status = buildResidentStateBuffer(launch, &made); !status.ok())
    return status;
  // A new buffer's first write makes the pages it goes through (the
  // mapping's, or the staging buffer's); a kept buffer's are made already,
  // and each run writes its own image.
  if (made)
    if (Status status = write(*residentStateBuffer, residentImage.bytes);
        !status.ok())
      return status;
  // The run's recordings, unless an earlier run's serve it.
  if (Status status = createResidentKernels(); !status.ok())
    return status;
  return recordResident(launch, residentRecordings, /*onlyKept=*/true);
}

Status
VulkanPrimitives::recordResident(const ResidentLaunch &launch,
                                 std::unique_ptr<ResidentRecordings> &out,
                                 bool onlyKept) {
  const decision::Tables &t = *launch.tables;
  const bool useSwitch = useStageSwitch();
  const uint32_t batch = residentBatch();
  const ResidentState &state = residentImage;
  vk::Buffer *stateBuffer = residentStateBuffer.get();
  // Sets larger than the scheduler's shared copy (POOL_WORDS): a dispatch
  // without sorting is selected by the select shader's workgroups.
  const bool gridSelects =
      state.setWordCount > decision::kResidentSharedSetWords;
  // A run whose main-stage dispatches (at most the frame pool) can hold
  // more than one run of FrameSorting::partition frames has a sort dispatch
  // after the selection: such a dispatch is sorted a run per workgroup
  // (resident_sort.comp; the scheduler sorts one run itself and gives it
  // zero groups). Other runs do without its dispatch and barrier.
  bool keyed = false; // launch.sortKeys: 4 words per main stage, bytes first
  for (size_t k = 0; k < launch.sortKeys.size(); k += 4)
    keyed |= launch.sortKeys[k] != 0;
  const bool sortDispatches = keyed && launch.sorting.enabled &&
                              launch.sorting.partition != 0 &&
                              t.framePool > launch.sorting.partition;
  // Per owner its compiled hooks (none past the launch's list).
  std::vector<uint32_t> hooks(launch.policyHooks);
  hooks.resize(t.ownerCount, 0);
  const uint32_t policyCalls = policyCallBound(t, hooks);
  const bool profiled = profiling();
  // When every dispatch the run can make is small enough for the next
  // scheduler dispatch to route it (the shader defers it then, all but the
  // batch's last: the host reads the log at the batch's end), the routing
  // dispatch and its barrier are recorded for the last iteration only.
  // (launch.maxInvocations: the frame pool or the largest owner capacity.)
  const bool routedByScheduler =
      batch > 1 && !gridSelects &&
      launch.maxInvocations <= decision::kResidentRouteInSchedulerLimit;
  // Three timestamps per iteration, the record's times: the decision began,
  // the stage began, the stage and its routing ended (as on hip, where the
  // stage kernel routes). They cost about 3 µs per iteration on the H200, so
  // they are recorded only when the run wants the times (a trace), and
  // SLUICE_VULKAN_RESIDENT_TIMESTAMPS=0 records none even then (the records'
  // times are then 0).
  const bool stamped =
      launch.times && !turnedOff("SLUICE_VULKAN_RESIDENT_TIMESTAMPS");
  // Two recordings in flight (SLUICE_VULKAN_RESIDENT_IN_FLIGHT, default 2):
  // the device runs one batch while the host reads the other's log, so it
  // never waits for the host between batches. Each ends by resetting the
  // log's record count and stop reason for the batch behind it (the host
  // writes nothing between batches); after a stop, the batch behind it runs
  // no iteration (every scheduler dispatch sees the stop word).
  const uint32_t inFlight = residentBatchesInFlight();
  // A run whose dispatches the next scheduler dispatch routes (at most
  // 2,048 invocations) and that has no select, sort or policy dispatch runs
  // the stage switch directly, over the grid of its largest dispatch (the
  // stage kernels stop at the count, which the scheduler sets to 0 when it
  // runs no stage): then no dispatch of an iteration reads its arguments
  // from memory, and both barriers of the iteration (directBarrier) leave
  // the indirect-argument stage out. SLUICE_VULKAN_INDIRECT_STAGE=1 keeps
  // the indirect stage switch, SLUICE_VULKAN_FULL_BARRIERS=1 the full
  // barriers, for measurements.
  const bool fullBarriers = turnedOn("SLUICE_VULKAN_FULL_BARRIERS");
  const bool directStage = useSwitch && routedByScheduler && !sortDispatches &&
                           policyCalls == 0 &&
                           !turnedOn("SLUICE_VULKAN_INDIRECT_STAGE");
  const uint32_t directGroups = uint32_t(
      (uint64_t(launch.maxInvocations) + workgroupSize - 1) / workgroupSize);
  // Such a run, untraced and unprofiled, runs each batch in one dispatch of
  // one workgroup where the fused loop links (docs/runtime.md "The fused
  // loop"): no dispatch boundary between iterations at all.
  const bool fused =
      directStage && fusedKernel && !stamped && !profiled && !fullBarriers;
  // The batch's log (records, snapshots, deltas, times, control: one
  // range of the state) into host-cached memory: the host reads it there,
  // not word by word across the bus from the device-local state.
  const uint64_t logBegin = state.records,
                 logBytes = state.control + decision::kControlWords * 4 -
                            state.records;

  // Everything the commands depend on: the kept recordings serve a run
  // whose key is the same.
  std::vector<uint64_t> key{
      residentStateSerial,
      state.layoutOffset,
      state.edgeCount,
      state.setWordCount,
      logBegin,
      logBytes,
      state.control,
      t.stageCount,
      t.ownerCount,
      batch,
      inFlight,
      uint64_t(useSwitch) | uint64_t(gridSelects) << 1 |
          uint64_t(sortDispatches) << 2 | uint64_t(routedByScheduler) << 3 |
          uint64_t(stamped) << 4 | uint64_t(fullBarriers) << 5 |
          uint64_t(directStage) << 6 | uint64_t(fused) << 7,
      sortDispatches ? launch.sorting.partition : 0u};
  for (const LaunchArgument &argument : launch.arguments)
    key.push_back(
        argument.buffer
            ? static_cast<const VulkanBuffer &>(*argument.buffer).serial
            : 0);
  const bool keep = policyCalls == 0 && !profiled;
  if (keep && out && out->kept && out->key == key)
    return Status::success();
  out.reset();
  if (onlyKept && !keep)
    return Status::success();
  auto made = std::make_unique<ResidentRecordings>();
  ResidentRecordings &r = *made;
  r.key = std::move(key);
  r.kept = keep;
  r.inFlight = inFlight;
  r.logBegin = logBegin;

  // The grids: per stage kernel, the routing shader's, the stage switch's,
  // the select shader's, the sort shader's, then per owner its policy
  // kernel's.
  const uint64_t routeGrid = 12 * uint64_t(t.stageCount),
                 switchGrid = routeGrid + 12, selectGrid = switchGrid + 12,
                 sortGrid = selectGrid + 12, policyGrid = sortGrid + 12;
  if (Status status =
          context->createBuffer(policyGrid + 12 * uint64_t(t.ownerCount),
                                vk::Placement::Device, r.grids);
      !status.ok())
    return status;
  // The owners' policies: their kernels and storage, the exchange and the
  // counts a call reads (resident_schedule.comp, "Owner policies").
  r.policyStorage.resize(t.ownerCount);
  if (policyCalls != 0) {
    residentPolicyKernels.resize(t.ownerCount);
    uint32_t largestOwner = 1;
    for (uint32_t o = 0; o < t.ownerCount; ++o)
      largestOwner = std::max(largestOwner, t.ownerStageCount[o]);
    Status status = context->createBuffer(
        (kExchangeResults + 2 * uint64_t(policyCalls)) * 8,
        vk::Placement::Device, r.exchange);
    if (status.ok())
      status = context->createBuffer(uint64_t(largestOwner) * 4,
                                     vk::Placement::Device, r.policyCounts);
    for (uint32_t o = 0; o < t.ownerCount && status.ok(); ++o) {
      if (hooks[o] == 0)
        continue;
      uint32_t words =
          o < launch.policyStorage.size() ? launch.policyStorage[o] : 0;
      status = context->createBuffer(std::max<uint64_t>(words, 1) * 8,
                                     vk::Placement::Device, r.policyStorage[o]);
      if (status.ok())
        std::memset(r.policyStorage[o]->data(), 0, r.policyStorage[o]->size());
      if (status.ok() && !residentPolicyKernels[o])
        status = context->createKernel(
            spirv, kPolicyKernelPrefix + std::to_string(o), 3, 0,
            residentPolicyKernels[o]);
    }
    if (!status.ok())
      return status;
    auto *words = static_cast<uint64_t *>(r.exchange->data());
    std::memset(words, 0, r.exchange->size());
    for (uint32_t o = 0; o < t.ownerCount; ++o)
      words[kExchangeHooks + o] = hooks[o];
  }
  // The stage kernels' binding 0: the count, the stage the switch runs.
  if (Status status =
          context->createBuffer(8, vk::Placement::Device, r.countWord);
      !status.ok())
    return status;

  ResidentPush push{stateBuffer->deviceAddress() + state.layoutOffset,
                    r.grids->deviceAddress(),
                    r.countWord->deviceAddress(),
                    r.exchange ? r.exchange->deviceAddress() : 0,
                    r.policyCounts ? r.policyCounts->deviceAddress() : 0,
                    0,
                    workgroupSize,
                    state.edgeCount,
                    state.setWordCount,
                    0};
  if (profiled) {
    if (Status status = context->createBuffer(kResidentProfileBytes,
                                              vk::Placement::Host, r.profile);
        !status.ok())
      return status;
    std::memset(r.profile->data(), 0, kResidentProfileBytes);
    push.profile = r.profile->deviceAddress();
  }
  const vk::Kernel &schedule =
      r.profile ? *profiledScheduleKernel : *scheduleKernel;
  const vk::Kernel &select = r.profile ? *profiledSelectKernel : *selectKernel;
  ResidentPush resume = push;
  resume.phase = 1;
  auto pushBytes = std::as_bytes(std::span<const ResidentPush>(&push, 1));
  auto resumeBytes = std::as_bytes(std::span<const ResidentPush>(&resume, 1));
  std::vector<vk::Buffer *> stageBindings{r.countWord.get()};
  for (const LaunchArgument &argument : launch.arguments)
    stageBindings.push_back(argument.buffer ? &vulkanBuffer(*argument.buffer)
                                            : nullptr);
  // One iteration: decide, the chosen stage (through the switch, or the
  // stage kernels with every grid but the chosen one empty), route; each
  // after the one before.
  for (uint32_t k = 0; k < inFlight; ++k) {
    if (Status status =
            context->createRecording(r.recordings[k], stamped ? 3 * batch : 0);
        !status.ok())
      return status;
    if (Status status = context->createBuffer(logBytes, vk::Placement::Host,
                                              r.logCopies[k]);
        !status.ok())
      return status;
    vk::Recording &recording = *r.recordings[k];
    auto stamp = [&] {
      if (stamped)
        recording.timestamp();
    };
    // A barrier between dispatches of an iteration whose grids the
    // scheduler's full barrier made visible (directBarrier: on an H100 a
    // barrier with the indirect-argument stage cost about 2.5 µs more than
    // one without). SLUICE_VULKAN_FULL_BARRIERS=1: barrier() everywhere.
    auto between = [&] {
      if (fullBarriers)
        recording.barrier();
      else
        recording.directBarrier();
    };
    // The fused loop: the batch in one workgroup, then the routing of its
    // last dispatch (indirect: the loop wrote its grid).
    if (fused) {
      recording.dispatch(*fusedKernel, stageBindings, pushBytes, 1);
      recording.barrier();
      recording.dispatchIndirect(*routeKernel, {}, pushBytes, *r.grids,
                                 routeGrid);
      between();
    }
    for (uint32_t i = 0; !fused && i < batch; ++i) {
      stamp();
      recording.dispatch(schedule, {}, pushBytes, 1);
      // Every grid an iteration's indirect dispatches read is this
      // scheduler dispatch's, and a barrier's second scope holds every
      // command after it: the full barrier() after the scheduler makes the
      // grids visible to all of them, and the barriers between the later
      // dispatches leave the indirect-argument stage out (between()). With
      // the stage switch over a fixed grid no dispatch before the routing
      // dispatch reads a grid.
      if (directStage)
        between();
      else
        recording.barrier();
      // A decision that waits for a hook call resumes after the owner's
      // policy kernel made it (each phase runs nothing once it has decided;
      // the resumed scheduler writes the grids again, so its barrier is
      // full).
      for (uint32_t phase = 0; phase < policyCalls; ++phase) {
        for (uint32_t o = 0; o < t.ownerCount; ++o)
          if (r.policyStorage[o]) {
            vk::Buffer *policyBindings[] = {r.exchange.get(),
                                            r.policyStorage[o].get(),
                                            r.policyCounts.get()};
            recording.dispatchIndirect(*residentPolicyKernels[o],
                                       policyBindings, {}, *r.grids,
                                       policyGrid + 12 * uint64_t(o));
          }
        recording.barrier();
        recording.dispatch(schedule, {}, resumeBytes, 1);
        recording.barrier();
      }
      if (gridSelects) { // the scheduler gives it zero groups when it selects
        recording.dispatchIndirect(select, {}, pushBytes, *r.grids, selectGrid);
        between();
      }
      if (sortDispatches) {
        recording.dispatchIndirect(*sortKernel, {}, pushBytes, *r.grids,
                                   sortGrid);
        between();
      }
      stamp();
      if (directStage)
        recording.dispatch(*switchKernel, stageBindings, {}, directGroups);
      else if (useSwitch)
        recording.dispatchIndirect(*switchKernel, stageBindings, {}, *r.grids,
                                   switchGrid);
      else
        for (uint32_t s = 0; s < t.stageCount; ++s)
          recording.dispatchIndirect(*kernels[s], stageBindings, {}, *r.grids,
                                     12 * uint64_t(s));
      // The routing dispatch (indirect: after a direct stage switch its grid
      // needs the full barrier), or the next iteration's scheduler dispatch.
      if (!routedByScheduler || i + 1 == batch) {
        if (directStage)
          recording.barrier();
        else
          between();
        recording.dispatchIndirect(*routeKernel, {}, pushBytes, *r.grids,
                                   routeGrid);
      }
      between();
      stamp();
    }
    recording.copy(*stateBuffer, logBegin, *r.logCopies[k], 0, logBytes);
    static_assert(decision::kControlStopReason ==
                      decision::kControlRecords + 1,
                  "one fill resets both words");
    recording.fill(*stateBuffer,
                   state.control + decision::kControlRecords * 4, 8,
                   decision::kStopRunning);
    if (Status status = recording.finish(); !status.ok())
      return status;
  }

  std::string iteration =
      std::string(useSwitch ? "a stage switch dispatch"
                            : "a dispatch per stage kernel") +
      " per iteration" +
      (directStage ? " over a fixed grid of " + std::to_string(directGroups) +
                         (directGroups == 1 ? " workgroup" : " workgroups")
                   : "") +
      (directStage && !fusedRefused.empty()
           ? " (no fused loop: " + fusedRefused + ")"
           : "");
  if (fused)
    iteration = "the fused loop (one workgroup runs the scheduler and the "
                "stage of every iteration of a batch in one dispatch)";
  r.form =
      iteration +
      (switchRefused.empty() ? ""
                             : " (no stage switch: " + switchRefused + ")") +
      ", " + std::to_string(batch) + " iterations per submission" +
      (inFlight > 1 ? ", " + std::to_string(inFlight) + " in flight" : "") +
      (routedByScheduler && !fused ? ", routed by the next scheduler dispatch"
                                   : "") +
      (gridSelects ? std::string(sortDispatches ? ", " : ", unsorted ") +
                         "dispatches selected by the select "
                         "shader (bit sets of " +
                         std::to_string(state.setWordCount) + " words)"
                   : "") +
      (sortDispatches ? ", sorted in partitions of " +
                            std::to_string(launch.sorting.partition) +
                            " frames by the sort shader"
                      : "") +
      (policyCalls ? ", up to " + std::to_string(policyCalls) +
                         " policy hook calls per iteration between "
                         "phases of the scheduler dispatch"
                   : "");
  out = std::move(made);
  return Status::success();
}

Status VulkanPrimitives::runResident(const ResidentLaunch &launch,
                                     ResidentLaunchResult &out) {
  if (Status support = residentSupport(); !support.ok())
    return support;
  const decision::Tables &t = *launch.tables;
  if (Status status = checkResidentLimits(t); !status.ok())
    return status;
  out = ResidentLaunchResult();
  if (Status status = createResidentKernels(); !status.ok())
    return status;
  if (Status status = buildResidentStateBuffer(launch); !status.ok())
    return status;
  ResidentState &state = residentImage;
  vk::Buffer *stateBuffer = residentStateBuffer.get();
  // The recordings: those the run was prepared with (prepareResidentState,
  // before its clock) or an earlier run's, when its commands are the same.
  if (Status status = recordResident(launch, residentRecordings); !status.ok())
    return status;
  std::unique_ptr<ResidentRecordings> owned =
      residentRecordings->kept ? nullptr : std::move(residentRecordings);
  ResidentRecordings &r = owned ? *owned : *residentRecordings;
  const uint32_t inFlight = r.inFlight;
  const uint64_t logBegin = r.logBegin;
  auto &recordings = r.recordings;
  auto &logCopies = r.logCopies;
  // A run that fails drops the kept recordings (a batch of theirs may still
  // be in flight).
  struct DropUnlessDone {
    std::unique_ptr<ResidentRecordings> &kept;
    bool done = false;
    ~DropUnlessDone() {
      if (!done)
        kept.reset();
    }
  } drop{residentRecordings};
  if (!r.profile && profileRequested())
    out.profile = "scheduler dispatch profile: unavailable (the device lacks "
                  "VK_KHR_shader_clock's shaderSubgroupClock)";
  out.form = r.form;
  locateResidentState(
      launch, stateBuffer->deviceAddress(),
      [](const KernelBuffer &buffer) {
        return vulkanBuffer(buffer).deviceAddress();
      },
      state);
  if (Status status = restoreResidentState(launch, *stateBuffer); !status.ok())
    return status;

  using decision::u32;
  ResidentLog &log = out.log;
  uint64_t firstTime = 0;
  const auto begun = std::chrono::steady_clock::now();
  auto sinceBegun = [&] {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - begun)
                        .count());
  };
  // The device clock counts from each submission's start: a batch is placed
  // on the run's time line at its submission, or at the end of the batch
  // before it when it was queued behind that one.
  uint64_t submittedAt[2] = {0, 0}, previousEnd = 0;
  auto batchFailed = [](const Status &status) {
    return Status::error(status.kind(),
                         "the scheduler batch failed: " + status.message());
  };
  for (uint32_t k = 0; k < inFlight; ++k) {
    submittedAt[k] = sinceBegun();
    if (Status status = recordings[k]->submit(); !status.ok())
      return batchFailed(status);
  }
  std::vector<uint64_t> stamps;
  for (uint32_t k = 0;; k = (k + 1) % inFlight) {
    double ns = 0;
    if (Status status = recordings[k]->wait(&ns, &stamps); !status.ok())
      return batchFailed(status);
    out.gpuNanoseconds += ns;
    ++out.launches;
    const uint64_t placed = std::max(submittedAt[k], previousEnd);
    previousEnd = placed + uint64_t(ns);
    auto *copied = static_cast<unsigned char *>(logCopies[k]->data()) - logBegin;
    auto *logControl = reinterpret_cast<const u32 *>(copied + state.control);
    auto *times = reinterpret_cast<uint64_t *>(copied + state.times);
    u32 n = logControl[decision::kControlRecords];
    u32 stop = logControl[decision::kControlStopReason];
    // Record r is the batch's iteration r (every iteration before the stop
    // records one).
    if (stamps.size() >= uint64_t(n) * decision::kTimeWords)
      for (uint64_t w = 0; w < uint64_t(n) * decision::kTimeWords; ++w)
        times[w] = placed + stamps[w];
    appendResidentBatch(
        log, n, reinterpret_cast<const decision::Record *>(copied + state.records),
        reinterpret_cast<const uint64_t *>(copied + state.snapshots),
        reinterpret_cast<const uint64_t *>(copied + state.deltas), times,
        state.snapshotWords, firstTime);
    if (stop != decision::kStopRunning && stop != decision::kStopBatchFull) {
      out.stopReason = stop;
      out.detail = logControl[decision::kControlDetail];
      if (stop == decision::kStopVerdict) {
        log.verdict = decision::Verdict(logControl[decision::kControlVerdict]);
        const auto *last =
            reinterpret_cast<const uint64_t *>(copied + state.snapshots) +
            uint64_t(n) * state.snapshotWords;
        log.last.assign(last, last + state.snapshotWords);
      }
      // The batch queued behind this one saw the stop and ran nothing.
      for (uint32_t other = 0; other < inFlight; ++other)
        if (recordings[other]->inFlight())
          if (Status status = recordings[other]->wait(); !status.ok())
            return batchFailed(status);
      if (stop == decision::kStopVerdict &&
          log.verdict == decision::kPolicyFault) {
        out.policyFault.resize(state.policyFaultWords);
        if (Status status = read(*stateBuffer, state.policyFault,
                                 bytesOf(out.policyFault));
            !status.ok())
          return status;
      }
      break;
    }
    // The next batch: the same state, the log this one's end reset.
    submittedAt[k] = sinceBegun();
    if (Status status = recordings[k]->submit(); !status.ok())
      return batchFailed(status);
  }
  drop.done = true; // every batch waited for
  if (r.profile) {
    const auto *sums = static_cast<const uint64_t *>(r.profile->data());
    std::string line = "scheduler dispatch profile: " +
                       std::to_string(sums[15]) +
                       " dispatches ran every part; mean subgroup-clock "
                       "cycles:";
    // " name mean, name mean, ...": the parts' sums from word `first`,
    // each divided by `count`.
    auto means = [&](std::initializer_list<const char *> names, size_t first,
                     uint64_t count) {
      size_t k = 0;
      for (const char *name : names) {
        line += std::string(k ? ", " : " ") + name + " " +
                std::to_string(count ? sums[first + k] / count : 0);
        ++k;
      }
    };
    // resident_schedule.comp's parts, in order (MARK(0) .. MARK(8)).
    means({"loads", "routing", "snapshot", "decision", "refill+select",
           "sort+arguments", "windows", "grids"},
          0, sums[15]);
    // Inside the decision (words 13 and 14).
    line += "; decision's decide() " +
            std::to_string(sums[15] ? sums[13] / sums[15] : 0) +
            ", its record's stores " +
            std::to_string(sums[15] ? sums[14] / sums[15] : 0);
    // The grid selection's ranks inside refill+select (words 8-11), over
    // the dispatches that computed them (word 12).
    if (sums[12] != 0) {
      line += "; grid selection's ranks in " + std::to_string(sums[12]) +
              " of them:";
      means({"free counts", "free prefix", "stage counts", "stage prefix"}, 8,
            sums[12]);
    }
    // resident_select.comp's parts (words 16-20), per workgroup (word 21)
    // of the dispatches that ran it (word 22).
    if (sums[22] != 0) {
      line += "; select dispatch profile: " + std::to_string(sums[22]) +
              " dispatches of " + std::to_string(sums[21] / sums[22]) +
              " workgroups on average; mean subgroup-clock cycles per "
              "workgroup:";
      means({"tables", "refill", "selection", "reset", "windows"}, 16,
            sums[21]);
    }
    out.profile = line;
  }
  std::vector<uint64_t> positions(2 * uint64_t(t.ownerCount));
  if (Status status = read(*stateBuffer, state.positions, bytesOf(positions));
      !status.ok())
    return status;
  for (u32 o = 0; o < t.ownerCount; ++o)
    out.allocHeads.push_back(positions[2 * o]);
  return Status::success();
}
#else
Status VulkanPrimitives::createResidentKernels() { return residentSupport(); }
bool VulkanPrimitives::useStageSwitch() const { return false; }
bool VulkanPrimitives::profiling() const { return false; }
Status VulkanPrimitives::runResident(const ResidentLaunch &,
                                     ResidentLaunchResult &) {
  return residentSupport();
}
Status VulkanPrimitives::prepareResidentState(const ResidentLaunch &) {
  return residentSupport();
}
Status VulkanPrimitives::buildResidentStateBuffer(const ResidentLaunch &,
                                                  bool *) {
  return residentSupport();
}
#endif

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
    // The invocation count is the kernels' binding 0 (KernelABI.h); they
    // take no push constants.
    if (Status status = p.context->createKernel(program.spirv, entry,
                                                bindingCount, 0, kernel);
        !status.ok())
      return status;
    p.kernels.push_back(std::move(kernel));
  }
  // Kernel `stages`, the megakernel, is created by prepare() before a
  // state-machine run (or at its first launch): a wavefront run never needs
  // it (nor its device limits).
  p.spirv = program.spirv;
  p.megakernel = program.megakernel;
  p.megakernelBindings = bindingCount + 1; // + the machine words
  if (Status status = p.context->createStream(p.stream); !status.ok())
    return status;

  CompiledKernelShape shape = takeKernelShape(
      program, uint32_t(program.entryPoints.size()), program.bindings);
  std::unique_ptr<VulkanDevice> device(new VulkanDevice());
  if (Status status =
          device->initialize(std::move(primitives), std::move(shape));
      !status.ok())
    return status;
  out = std::move(device);
  return Status::success();
}

} // namespace sluice::runtime
