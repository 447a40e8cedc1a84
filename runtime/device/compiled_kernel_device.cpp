//===- compiled_kernel_device.cpp - One device for compiled kernels -------===//

#include "sluice/runtime/device/compiled_kernel_device.h"
#include "sluice/runtime/device/worker_pool.h"

#include "host_router.h"
#include "resident_launch.h"
#include "resident_router.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>

namespace sluice::runtime {

KernelBuffer::~KernelBuffer() = default;
KernelPrimitives::~KernelPrimitives() = default;

void *KernelPrimitives::hostAddress(KernelBuffer &) { return nullptr; }

uint32_t KernelPrimitives::megakernelLanesPerThread() const { return 1024; }

Status KernelPrimitives::prepare(bool, bool) { return Status::success(); }

std::unique_ptr<CapacityOwnerClient>
KernelPrimitives::policyClient(uint32_t, const OwnerPolicy &policy) {
  return std::make_unique<CompiledPolicyClient>(policy);
}

Status KernelPrimitives::residentSupport() const {
  return Status::error(ErrorKind::Unsupported,
                       "the " + label() +
                           " has no device placement of the scheduler yet");
}

Status KernelPrimitives::runResident(const ResidentLaunch &,
                                     ResidentLaunchResult &) {
  return residentSupport();
}

Status KernelPrimitives::prepareResidentState(const ResidentLaunch &) {
  return Status::success();
}

namespace {

// Sizes the kernel never reads (the CPU's memref descriptors carry them).
constexpr uint64_t kUnknownExtent = uint64_t(1) << 40;

template <typename T>
std::span<const unsigned char> bytesOf(const T *data, uint64_t count) {
  return {reinterpret_cast<const unsigned char *>(data), count * sizeof(T)};
}
template <typename T>
std::span<unsigned char> bytesOf(T *data, uint64_t count) {
  return {reinterpret_cast<unsigned char *>(data), count * sizeof(T)};
}

// The megakernel's threads for `lanes` lanes: thread g owns frame g and
// `bound` item slots of each owner it feeds, so live items never exceed a
// capacity.
uint32_t megakernelThreads(const HostRouter &router, uint32_t lanes) {
  const ProgramShape &shape = *router.shape;
  uint32_t threads = std::min(router.framePool, std::max<uint32_t>(lanes, 1));
  for (uint32_t o = 0; o < router.owners.size(); ++o)
    if (uint32_t bound = shape.maxBoundInto(o))
      threads = std::min(threads, router.owners[o].capacity / bound);
  return std::max<uint32_t>(threads, 1);
}

} // namespace

//===----------------------------------------------------------------------===//
// CompiledKernels
//===----------------------------------------------------------------------===//

Status CompiledKernels::create(uint64_t bytes, KernelBufferUse use,
                               std::unique_ptr<KernelBuffer> &out) const {
  return primitives_->createBuffer(bytes, use, out);
}

void CompiledKernels::appendInputsAndBindings(
    std::vector<LaunchArgument> &arguments) const {
  for (const Resident &input : inputs_)
    arguments.push_back(resident(input));
  for (const Resident &binding : residents_)
    arguments.push_back(resident(binding));
}

LaunchArgument CompiledKernels::resident(const Resident &buffer) const {
  LaunchArgument argument;
  if (unified_)
    argument.host = primitives_->hostAddress(*buffer.buffer);
  else
    argument.buffer = buffer.buffer.get();
  argument.elements = buffer.elements;
  argument.shape = buffer.shape;
  return argument;
}

Status CompiledKernels::initialize(KernelPrimitives &primitives,
                                   CompiledKernelShape shape) {
  primitives_ = &primitives;
  unified_ = primitives.unifiedMemory();
  shape_ = std::move(shape);
  const GpuKernelLayout &layout = shape_.layout;
  if (shape_.payloadElementBytes.size() != layout.ownerCapacity.size())
    return Status::error(ErrorKind::InvalidDescriptor,
                         primitives.label() + ": " +
                             std::to_string(shape_.payloadElementBytes.size()) +
                             " owners' payloads for " +
                             std::to_string(layout.ownerCapacity.size()) +
                             " compiled owners");
  payloads_.clear();
  payloads_.resize(shape_.payloadElementBytes.size());
  for (size_t o = 0; o < payloads_.size(); ++o)
    for (uint32_t bytes : shape_.payloadElementBytes[o]) {
      Resident &field = payloads_[o].emplace_back();
      field.elements = layout.ownerCapacity[o];
      if (Status status = create(field.elements * bytes, KernelBufferUse::Resident,
                                 field.buffer);
          !status.ok())
        return status;
    }
  inputs_.clear();
  inputs_.resize(shape_.inputs.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const std::vector<unsigned char> &input = shape_.inputs[i];
    inputs_[i].elements = kUnknownExtent;
    if (Status status = create(input.size(), KernelBufferUse::Resident,
                               inputs_[i].buffer); !status.ok())
      return status;
    if (Status status = primitives.upload(*inputs_[i].buffer, input);
        !status.ok())
      return status;
  }
  residents_.clear();
  residents_.resize(shape_.residentBuffers);
  return Status::success();
}

Status CompiledKernels::checkProgramShape(const ProgramShape &shape) const {
  const GpuKernelLayout &layout = shape_.layout;
  std::string label = primitives_->label();
  if (shape.totalStageCount() != shape_.stages)
    return Status::error(ErrorKind::InvalidDescriptor,
                         label + ": the program has " +
                             std::to_string(shape.totalStageCount()) +
                             " stages but " + std::to_string(shape_.stages) +
                             " kernels were compiled");
  if (shape.ownerCount() != layout.ownerCapacity.size())
    return Status::error(ErrorKind::InvalidDescriptor,
                         label + ": the program has " +
                             std::to_string(shape.ownerCount()) +
                             " owners but the kernels were compiled for " +
                             std::to_string(layout.ownerCapacity.size()));
  for (size_t b = 0; b < residents_.size(); ++b)
    if (!residents_[b].buffer)
      return Status::error(ErrorKind::InvalidState,
                           label + ": binding " + std::to_string(b) +
                               " was never set");
  return Status::success();
}

Status CompiledKernels::setResident(uint32_t index,
                                    std::span<const unsigned char> bytes,
                                    std::span<const int64_t> kernelShape) {
  if (index >= residents_.size())
    return Status::error(ErrorKind::InvalidArgument,
                         primitives_->label() + ": binding " +
                             std::to_string(index) + " of " +
                             std::to_string(residents_.size()));
  Resident &resident = residents_[index];
  // A storage buffer is never empty; a 0-element binding gets one word.
  uint64_t size = std::max<uint64_t>(bytes.size(), 4);
  // A value of the size bound before goes into the same buffer (a
  // renderer's per-pass uniforms: a new buffer would also make the Vulkan
  // device placement record its commands again).
  if (!resident.buffer || resident.size != size) {
    resident.buffer.reset(); // the old one first: the device may be full
    resident.size = 0;
    if (Status status = create(size, KernelBufferUse::Resident, resident.buffer); !status.ok())
      return status;
    resident.size = size;
  }
  // The megakernel packs uniforms into its machine words.
  if (bytes.size() <= 8)
    resident.small.assign(bytes.begin(), bytes.end());
  else
    resident.small.clear();
  resident.shape.assign(kernelShape.begin(), kernelShape.end());
  resident.elements = 1;
  for (int64_t extent : kernelShape)
    resident.elements *= uint64_t(extent);
  if (bytes.size() == size)
    return primitives_->upload(*resident.buffer, bytes);
  std::vector<unsigned char> padded(size, 0);
  if (!bytes.empty()) // an empty binding may have no data pointer
    std::memcpy(padded.data(), bytes.data(), bytes.size());
  return primitives_->upload(*resident.buffer, padded);
}

Status CompiledKernels::getResident(uint32_t index,
                                    std::span<unsigned char> out) const {
  if (index >= residents_.size() || !residents_[index].buffer ||
      residents_[index].buffer->bytes() < out.size())
    return Status::error(ErrorKind::InvalidArgument,
                         primitives_->label() + ": binding " +
                             std::to_string(index) +
                             " is not set or smaller than " +
                             std::to_string(out.size()) + " bytes");
  if (out.empty())
    return Status::success();
  return primitives_->download(*residents_[index].buffer, out);
}

Status CompiledKernels::allocate(const HostRouter &router,
                                 KernelBuffer *frames) {
  if (unified_) {
    device_ = PerDispatch{};
    return Status::success();
  }
  const GpuKernelLayout &layout = shape_.layout;
  uint64_t owners = layout.ownerCapacity.size();
  uint64_t maxInvocations = router.invocations.size();
  device_.frames = frames;
  device_.laneIdCount = router.framePool;
  device_.fieldOffsetCount = router.layout.fieldOffsets.size();
  Status status = Status::success();
  // What every invocation reads or updates atomically, and the host copies
  // only a few words of, stays in device memory: the field offsets (once),
  // the counters and the allocation limits. The per-invocation arrays the
  // host placement fills or reads whole are transfers there, and device
  // memory for the device placement (placeArrays).
  // The buffers of the previous run are kept where they are large enough
  // and made with the use asked for: a renderer's passes allocate once.
  PerDispatch &d = device_;
  if (d.arrays != arrayUse_) {
    for (std::unique_ptr<KernelBuffer> *array :
         {&d.invocations, &d.laneIds, &d.nextStage, &d.publishedSlots,
          &d.publishedCounts, &d.fault})
      array->reset();
    d.rings.clear();
    d.arrays = arrayUse_;
  }
  const KernelBufferUse arrays = arrayUse_;
  auto make = [&](uint64_t bytes, std::unique_ptr<KernelBuffer> &out,
                  KernelBufferUse use) {
    bytes = std::max<uint64_t>(bytes, 4);
    if (status.ok() && (!out || out->bytes() < bytes)) {
      out.reset();
      status = create(bytes, use, out);
    }
  };
  constexpr KernelBufferUse kResident = KernelBufferUse::Resident;
  make(maxInvocations * 4, device_.invocations, arrays);
  make(device_.laneIdCount * 4, device_.laneIds, arrays);
  make(device_.fieldOffsetCount * 8, device_.fieldOffsets, kResident);
  make(maxInvocations * 4, device_.nextStage, arrays);
  make(uint64_t(layout.counterCount) * 4, device_.counters, kResident);
  make(maxInvocations * layout.publishStride * 4, device_.publishedSlots,
       arrays);
  make(maxInvocations * owners * 4, device_.publishedCounts, arrays);
  make(owners * 4, device_.allocLimits, kResident);
  make(kGpuFaultWords * 4, device_.fault, arrays);
  device_.rings.resize(owners);
  for (uint64_t o = 0; o < owners; ++o)
    make(uint64_t(layout.ownerCapacity[o]) * 4, device_.rings[o], arrays);
  if (!status.ok())
    return status;
  if (device_.fieldOffsetCount != 0)
    return primitives_->upload(
        *device_.fieldOffsets,
        bytesOf(router.layout.fieldOffsets.data(), device_.fieldOffsetCount));
  return Status::success();
}

Status CompiledKernels::placeArrays(const HostRouter &router,
                                    KernelBufferUse use) {
  arrayUse_ = use;
  if (unified_ || device_.arrays == use || !router.allocated())
    return Status::success();
  return allocate(router, device_.frames);
}

CompiledKernels::MachineWords
CompiledKernels::machineWords(uint32_t threads) const {
  MachineWords out;
  out.threadWords = SLUICE_MEGAKERNEL_THREAD_WORDS(uint64_t(shape_.stages));
  out.threadBase = SLUICE_MEGAKERNEL_HEADER_WORDS;
  for (const auto &[binding, count] : shape_.megakernelUniforms)
    out.threadBase += count;
  out.total = out.threadBase + uint64_t(threads) * out.threadWords;
  return out;
}

Status CompiledKernels::sizeMegakernel(const HostRouter &router,
                                       uint32_t threads) {
  const uint64_t words = machineWords(threads).total;
  Megakernel &m = megakernel_;
  Status status = Status::success();
  // The machine words take every lane claim's atomic and the field offsets
  // every frame access: device memory (a discrete GPU's atomics on host
  // memory cross the bus one by one).
  auto make = [&](uint64_t bytes, std::unique_ptr<KernelBuffer> &buffer,
                  KernelBufferUse use = KernelBufferUse::Transfer) {
    if (status.ok() && (!buffer || buffer->bytes() < bytes))
      status = create(std::max<uint64_t>(bytes, 16), use, buffer);
  };
  make(16, m.placeholder);
  make(router.layout.fieldOffsets.size() * 8, m.fieldOffsets,
       KernelBufferUse::Resident);
  make(kGpuFaultWords * 4, m.fault);
  make(words * 4, m.machine, KernelBufferUse::Resident);
  if (status.ok()) // each launch downloads the machine words
    status = primitives_->reserveDownload(words * 4);
  if (!status.ok())
    return status;
  try {
    // The host copy's pages are touched here, not while a run's clock runs.
    if (m.words.size() < words)
      m.words.resize(words, 0u);
  } catch (const std::bad_alloc &) {
    return Status::error(ErrorKind::OutOfMemory,
                         primitives_->label() + ": cannot allocate the " +
                             "machine words of " + std::to_string(threads) +
                             " threads");
  }
  return Status::success();
}

Status CompiledKernels::dispatch(const sluice_rt_kernel_args &args,
                                 uint32_t count, bool laneIdsChanged,
                                 DispatchScratch &scratch,
                                 DispatchTimes &times) {
  using Clock = std::chrono::steady_clock;
  times = DispatchTimes{};
  const GpuKernelLayout &layout = shape_.layout;
  uint32_t owners = args.owner_count;
  uint64_t slotEntries = uint64_t(count) * layout.publishStride;
  uint64_t countEntries = uint64_t(count) * owners;
  GpuDispatchViews &views = scratch.views;
  try {
    scratch.counters.resize(std::max<uint32_t>(layout.counterCount, 1));
    scratch.allocLimits.resize(std::max<uint32_t>(owners, 1));
    // The kernels write the records they count; the rest is never read.
    growScratch(scratch.publishedSlots, std::max<uint64_t>(slotEntries, 1));
    if (!unified_)
      scratch.zeros.assign(std::max<uint64_t>(countEntries, 1), 0);
    scratch.rings.resize(owners);
    views.rings.resize(owners);
    for (uint32_t o = 0; o < owners; ++o) {
      scratch.rings[o].resize(std::max<uint32_t>(layout.ownerCapacity[o], 1));
      views.rings[o] = scratch.rings[o].data();
    }
  } catch (const std::bad_alloc &) {
    return Status::error(ErrorKind::OutOfMemory,
                         primitives_->label() + ": cannot allocate the " +
                             "scratch of a dispatch of " +
                             std::to_string(count) + " invocations");
  }
  views.counters = scratch.counters.data();
  views.allocLimits = scratch.allocLimits.data();
  views.publishedSlots = scratch.publishedSlots.data();
  views.fault = scratch.fault;
  prepareGpuDispatch(layout, args, count, views);

  // The argument table, in the kernel ABI's order after the count.
  std::vector<LaunchArgument> &arguments = scratch.arguments;
  arguments.clear();
  auto host = [&](const void *data, uint64_t elements) {
    arguments.push_back({nullptr, const_cast<void *>(data), elements, {}});
  };
  auto device = [&](KernelBuffer *buffer, uint64_t elements) {
    arguments.push_back({buffer, nullptr, elements, {}});
  };
  if (unified_) {
    host(args.invocations, count);
    host(args.lane_ids, kUnknownExtent);
    host(args.frames.base, kUnknownExtent);
    host(args.frames.field_offsets, args.frames.field_count);
    host(args.next_stage, count);
    host(scratch.counters.data(), scratch.counters.size());
    host(scratch.publishedSlots.data(), std::max<uint64_t>(slotEntries, 1));
    host(args.published_counts, countEntries);
    host(scratch.allocLimits.data(), scratch.allocLimits.size());
    host(scratch.fault, kGpuFaultWords);
  } else {
    // Host -> device: what this dispatch reads. The device is idle here.
    PerDispatch &d = device_;
    Status status = primitives_->upload(*d.invocations,
                                        bytesOf(args.invocations, count));
    auto upload = [&](KernelBuffer &buffer, std::span<const unsigned char> b) {
      if (status.ok() && !b.empty())
        status = primitives_->upload(buffer, b);
    };
    if (laneIdsChanged)
      upload(*d.laneIds, bytesOf(args.lane_ids, d.laneIdCount));
    upload(*d.nextStage, bytesOf(args.next_stage, count));
    upload(*d.counters, bytesOf(scratch.counters.data(), layout.counterCount));
    upload(*d.publishedCounts, bytesOf(scratch.zeros.data(), countEntries));
    upload(*d.allocLimits, bytesOf(scratch.allocLimits.data(), owners));
    upload(*d.fault, bytesOf(scratch.fault, kGpuFaultWords));
    for (uint32_t o = 0; o < owners; ++o)
      upload(*d.rings[o], bytesOf(scratch.rings[o].data(),
                                  uint32_t(scratch.allocLimits[o])));
    if (!status.ok())
      return status;
    device(d.invocations.get(), count);
    device(d.laneIds.get(), d.laneIdCount);
    device(d.frames, kUnknownExtent);
    device(d.fieldOffsets.get(), d.fieldOffsetCount);
    device(d.nextStage.get(), count);
    device(d.counters.get(), layout.counterCount);
    device(d.publishedSlots.get(), slotEntries);
    device(d.publishedCounts.get(), countEntries);
    device(d.allocLimits.get(), owners);
    device(d.fault.get(), kGpuFaultWords);
  }
  // Per owner: its admission window (free-slot ring), then its payload fields.
  for (uint32_t o = 0; o < owners; ++o) {
    if (unified_)
      host(scratch.rings[o].data(), scratch.rings[o].size());
    else
      device(device_.rings[o].get(), layout.ownerCapacity[o]);
    for (const Resident &field : payloads_[o])
      arguments.push_back(resident(field));
  }
  appendInputsAndBindings(arguments);

  auto launched = Clock::now();
  if (Status status = primitives_->launch(args.stage, arguments, count);
      !status.ok())
    return status;
  if (Status status = primitives_->wait(times.gpuNanoseconds); !status.ok())
    return status;
  times.launchWaitNanoseconds =
      std::chrono::duration<double, std::nano>(Clock::now() - launched)
          .count();

  if (!unified_) {
    // Device -> host: outcomes, publish records, counters, the fault.
    PerDispatch &d = device_;
    Status status =
        primitives_->download(*d.nextStage, bytesOf(args.next_stage, count));
    auto download = [&](const KernelBuffer &buffer, std::span<unsigned char> b) {
      if (status.ok() && !b.empty())
        status = primitives_->download(buffer, b);
    };
    // Only main stages publish; an item dispatch can hold more invocations
    // (up to the owner's capacity) than the router's per-frame publish counts.
    if (args.owner == SLUICE_RT_NO_OWNER)
      download(*d.publishedCounts, bytesOf(args.published_counts, countEntries));
    download(*d.counters, bytesOf(scratch.counters.data(), layout.counterCount));
    download(*d.publishedSlots,
             bytesOf(scratch.publishedSlots.data(), slotEntries));
    download(*d.fault, bytesOf(scratch.fault, kGpuFaultWords));
    if (!status.ok())
      return status;
  }
  finishGpuDispatch(layout, args, 0, count, views, primitives_->hostWorkers());
  return Status::success();
}

Status CompiledKernels::runMegakernel(const HostRouter &router,
                                      KernelBuffer &frames,
                                      const MegakernelRun &run,
                                      MegakernelResult &out) {
  using Clock = std::chrono::steady_clock;
  const uint32_t stages = shape_.stages;
  const MachineWords layout = machineWords(run.threads);
  const uint64_t threadWords = layout.threadWords,
                 threadBase = layout.threadBase, words = layout.total;
  out = MegakernelResult{};
  out.stages.assign(stages, StageStatistics{});
  Megakernel &m = megakernel_;
  Status status = sizeMegakernel(router, run.threads);
  if (!status.ok())
    return status;
  // The kernel writes every thread's words; only the header is set here.
  std::fill(m.words.begin(), m.words.begin() + threadBase, 0u);
  uint64_t uniformAt = SLUICE_MEGAKERNEL_HEADER_WORDS;
  for (const auto &[binding, count] : shape_.megakernelUniforms) {
    const std::vector<unsigned char> &value = residents_[binding].small;
    if (value.size() != count * 4u)
      return Status::error(ErrorKind::InvalidState,
                           primitives_->label() + ": uniform binding " +
                               std::to_string(binding) + " holds " +
                               std::to_string(value.size()) +
                               " bytes, not the megakernel's " +
                               std::to_string(count * 4));
    std::memcpy(m.words.data() + uniformAt, value.data(), value.size());
    uniformAt += count;
  }
  if (status.ok() && !router.layout.fieldOffsets.empty())
    status = primitives_->upload(*m.fieldOffsets,
                                 bytesOf(router.layout.fieldOffsets.data(),
                                         router.layout.fieldOffsets.size()));
  if (!status.ok())
    return status;

  // The argument table: the megakernel keeps every per-invocation argument
  // and the free rings in private memory; those positions get a placeholder.
  auto bufferArgument = [&](KernelBuffer &buffer, uint64_t elements) {
    LaunchArgument argument;
    if (unified_)
      argument.host = primitives_->hostAddress(buffer);
    else
      argument.buffer = &buffer;
    argument.elements = elements;
    return argument;
  };
  std::vector<LaunchArgument> arguments;
  LaunchArgument unused = bufferArgument(*m.placeholder, 4);
  arguments.push_back(unused);                             // invocations
  arguments.push_back(unused);                             // lane ids
  arguments.push_back(bufferArgument(frames, kUnknownExtent));
  arguments.push_back(
      bufferArgument(*m.fieldOffsets, router.layout.fieldOffsets.size()));
  for (int i = 0; i < 5; ++i) // outcomes .. admission limits
    arguments.push_back(unused);
  arguments.push_back(bufferArgument(*m.fault, kGpuFaultWords));
  for (size_t o = 0; o < payloads_.size(); ++o) {
    arguments.push_back(unused); // free ring
    for (const Resident &field : payloads_[o])
      arguments.push_back(resident(field));
  }
  appendInputsAndBindings(arguments);
  arguments.push_back(bufferArgument(*m.machine, words));

  const int32_t noFault[kGpuFaultWords] = {};
  uint32_t next = 0;
  while (next < run.lanes) {
    m.words[SLUICE_MEGAKERNEL_NEXT_LANE] = next;
    m.words[SLUICE_MEGAKERNEL_LANE_END] = run.lanes;
    m.words[SLUICE_MEGAKERNEL_LANES_PER_THREAD] = run.lanesPerThread;
    if (Status status = primitives_->upload(
            *m.machine, bytesOf(m.words.data(), threadBase));
        !status.ok())
      return status;
    if (Status status =
            primitives_->upload(*m.fault, bytesOf(noFault, kGpuFaultWords));
        !status.ok())
      return status;
    auto launched = Clock::now();
    if (Status status = primitives_->launch(stages, arguments, run.threads);
        !status.ok())
      return status;
    double gpuNanoseconds = 0;
    if (Status status = primitives_->wait(gpuNanoseconds); !status.ok())
      return status;
    out.times.gpuNanoseconds += gpuNanoseconds;
    out.times.launchWaitNanoseconds +=
        std::chrono::duration<double, std::nano>(Clock::now() - launched)
            .count();
    ++out.launches;
    if (Status status =
            primitives_->download(*m.machine, bytesOf(m.words.data(), words));
        !status.ok())
      return status;
    if (Status status =
            primitives_->download(*m.fault, bytesOf(out.fault, kGpuFaultWords));
        !status.ok())
      return status;
    for (uint64_t t = 0; t < run.threads; ++t) {
      const uint32_t *thread = m.words.data() + threadBase + t * threadWords;
      for (uint32_t s = 0; s < stages; ++s) {
        const uint32_t *counts = thread + s * SLUICE_MEGAKERNEL_STAGE_WORDS;
        out.stages[s].invocations += counts[0];
        out.stages[s].itemsPublished += counts[1];
        out.stages[s].itemsReleased += counts[2];
      }
      out.lanesFinished += thread[stages * SLUICE_MEGAKERNEL_STAGE_WORDS];
      if (out.fault[SLUICE_FAULT_WORD_CODE] != 0 &&
          t == uint32_t(out.fault[SLUICE_FAULT_WORD_INVOCATION]))
        out.faultLane = thread[stages * SLUICE_MEGAKERNEL_STAGE_WORDS + 1];
    }
    if (out.fault[SLUICE_FAULT_WORD_CODE] != 0)
      return Status::success();
    // Claims past the end leave the counter beyond it: every lane ran.
    const uint32_t claimed = m.words[SLUICE_MEGAKERNEL_NEXT_LANE];
    if (claimed <= next)
      return Status::error(
          ErrorKind::NoProgress,
          "pass " +
              std::to_string(out.launches) + " of " +
              std::to_string(run.threads) + " threads claimed no lane (lane " +
              "counter " + std::to_string(claimed) + ", lanes " +
              std::to_string(next) + " to " + std::to_string(run.lanes) +
              " left): the kernel did not run");
    next = std::min(claimed, run.lanes);
  }
  return Status::success();
}

Status CompiledKernels::residentLaunch(const HostRouter &router,
                                       ResidentLaunch &out) {
  if (unified_)
    return Status::error(ErrorKind::Unsupported,
                         primitives_->label() +
                             ": the device placement needs device memory");
  const GpuKernelLayout &layout = shape_.layout;
  PerDispatch &d = device_;
  uint64_t maxInvocations = router.invocations.size();
  uint32_t owners = uint32_t(layout.ownerCapacity.size());
  std::vector<LaunchArgument> &arguments = residentArguments_;
  arguments.clear();
  auto device = [&](KernelBuffer *buffer, uint64_t elements) {
    arguments.push_back({buffer, nullptr, elements, {}});
  };
  device(d.invocations.get(), maxInvocations);
  device(d.laneIds.get(), d.laneIdCount);
  device(d.frames, kUnknownExtent);
  device(d.fieldOffsets.get(), d.fieldOffsetCount);
  device(d.nextStage.get(), maxInvocations);
  device(d.counters.get(), layout.counterCount);
  device(d.publishedSlots.get(), maxInvocations * layout.publishStride);
  device(d.publishedCounts.get(), maxInvocations * owners);
  device(d.allocLimits.get(), owners);
  device(d.fault.get(), kGpuFaultWords);
  out.windows.clear();
  for (uint32_t o = 0; o < owners; ++o) {
    device(d.rings[o].get(), layout.ownerCapacity[o]);
    out.windows.push_back(d.rings[o].get());
    for (const Resident &field : payloads_[o])
      arguments.push_back(resident(field));
  }
  appendInputsAndBindings(arguments);
  out.layout = &layout;
  out.arguments = arguments;
  out.frames = d.frames;
  out.invocations = d.invocations.get();
  out.laneIds = d.laneIds.get();
  out.nextStage = d.nextStage.get();
  out.counters = d.counters.get();
  out.publishedSlots = d.publishedSlots.get();
  out.publishedCounts = d.publishedCounts.get();
  out.allocLimits = d.allocLimits.get();
  out.fault = d.fault.get();
  out.maxInvocations = uint32_t(maxInvocations);
  // Sort keys: the column of each main stage's key field (none for a stage
  // the run does not sort).
  const ComputedFrameLayout &frames = router.layout;
  out.sortKeys.assign(4 * size_t(router.shape->mainStageCount()), 0);
  for (uint32_t s = 0; s < router.shape->mainStageCount(); ++s) {
    const StageDesc &stage = router.program->mainStages[s];
    uint32_t field = stage.sortKeyField;
    if (!out.sorting.sorts(stage))
      continue;
    uint32_t bytes = uint32_t(frames.fieldSizes[field]);
    uint64_t step = frames.kind == FrameLayoutKind::ArrayOfStructs
                        ? frames.frameStride
                        : bytes;
    out.sortKeys[4 * s] = bytes;
    out.sortKeys[4 * s + 1] = uint32_t(stage.sortKeyKind);
    out.sortKeys[4 * s + 2] = uint32_t(step);
    out.sortKeys[4 * s + 3] = uint32_t(frames.fieldOffsets[field]);
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// CompiledKernelDevice
//===----------------------------------------------------------------------===//

std::string compiledKernelSummary(const std::string &label,
                                  const CompiledKernelStats &stats) {
  char line[512];
  std::snprintf(line, sizeof line,
                "%s (last run): %llu dispatches, %.3f ms of device time, "
                "%.3f ms launch+wait, %.3f ms in dispatch(), %.3f ms sorting "
                "%llu of them (%llu key bytes downloaded)",
                label.c_str(), (unsigned long long)stats.dispatches,
                stats.gpuNanoseconds * 1e-6, stats.submitWaitNanoseconds * 1e-6,
                stats.dispatchNanoseconds * 1e-6, stats.sortNanoseconds * 1e-6,
                (unsigned long long)stats.sortedDispatches,
                (unsigned long long)stats.sortKeyBytes);
  return line;
}

namespace {

// Frame memory is a kernel buffer; the router keeps the pointer it gets as a
// token (on discrete memory it reads frames only through downloadFrames) and
// hands it to kernels in
// sluice_rt_kernel_args, which CompiledKernels replaces by the buffer. The
// router's item payloads are never touched by compiled kernels (they have
// payload fields of their own): plain host memory.
class KernelMemory final : public HostRouter::Memory {
public:
  explicit KernelMemory(KernelPrimitives &primitives)
      : primitives(primitives) {}
  // The frames of the previous run are kept when they are large enough (a
  // renderer's passes allocate once); like a new buffer's, their bytes are
  // unspecified until the kernels write them.
  Status allocateFrames(uint64_t bytes, unsigned char *&out) override {
    bytes = std::max<uint64_t>(bytes, 4);
    if (!frames || frames->bytes() < bytes) {
      frames.reset();
      if (Status status =
              primitives.createBuffer(bytes, KernelBufferUse::Resident, frames);
          !status.ok()) {
        frames.reset();
        return status;
      }
    }
    if (void *host = primitives.hostAddress(*frames))
      out = static_cast<unsigned char *>(host);
    else
      out = reinterpret_cast<unsigned char *>(frames.get());
    return Status::success();
  }
  unsigned char *allocatePayload(uint32_t owner, uint64_t bytes) override {
    if (payloads.size() <= owner)
      payloads.resize(owner + 1);
    payloads[owner].assign(std::max<uint64_t>(bytes, 1), 0);
    return payloads[owner].data();
  }
  // Discrete memory: the kernels' frame buffer is the device's, so a sort
  // key is downloaded from it.
  bool framesInHostMemory() const override {
    return primitives.unifiedMemory();
  }
  Status downloadFrames(uint64_t offset,
                        std::span<unsigned char> out) override {
    return primitives.downloadRange(*frames, offset, out);
  }

  KernelPrimitives &primitives;
  std::unique_ptr<KernelBuffer> frames;
  std::vector<std::vector<unsigned char>> payloads;
};

} // namespace

struct CompiledKernelDevice::Impl {
  std::unique_ptr<KernelPrimitives> primitives;
  CompiledKernels kernels;
  std::unique_ptr<KernelMemory> memory;
  std::unique_ptr<HostRouter> router;
  DispatchScratch scratch;
  CompiledKernelStats stats;
  // The router's lane ids change only in refill() and reset().
  bool laneIdsChanged = true;
  // prepare() was asked for the device placement, which the primitives
  // support: allocate() sets up the device placement's state as well.
  bool residentPrepared = false;
  // prepareResidentState() made the state for the current allocation and
  // sorting, and no run has used it since: a renderer's pass asks for it in
  // prepare(), allocate() and, when the sorting changes, setFrameSorting(),
  // and each made it anew (the image of 5 MB at 1,048,576 frames).
  bool residentStateFresh = false;
  // The last allocate() made everything (the router's storage and the
  // kernels' buffers): a run of the same program and pool may keep it.
  bool allocatedWhole = false;

  // The device placement's launch of `run` on the allocated router
  // (`tables` holds what it points to).
  Status residentLaunch(const ResidentRun &run, ResidentTables &tables,
                        ResidentLaunch &launch) {
    std::vector<uint32_t> capacities;
    for (const OwnerStorage &owner : router->owners)
      capacities.push_back(owner.capacity);
    tables.build(*router->shape, router->framePool, run, capacities);
    launch.tables = &tables.tables;
    launch.sorting = run.sorting;
    launch.times = run.times;
    for (const OwnerDesc &owner : router->program->owners) {
      launch.policyStorage.push_back(owner.policy.storageWords);
      uint32_t hooks = 0;
      for (size_t h = 0; h < kPolicyHookCount; ++h)
        if (owner.policy.has(PolicyHook(h)))
          hooks |= 1u << h;
      launch.policyHooks.push_back(hooks);
    }
    return kernels.residentLaunch(*router, launch);
  }
  // Before a run's clock: the state a device-placement run of the
  // allocated pool builds (its image, its buffer), made once here rather
  // than at the run's start (a 5 MB image at a frame pool and capacity of
  // 1,048,576, whose first touch took 52 ms on the development VM).
  Status prepareResidentState() {
    if (!residentPrepared || !router->allocated() || residentStateFresh)
      return Status::success();
    ResidentTables tables;
    ResidentLaunch launch;
    ResidentRun run;
    run.lanes = 1;
    run.times = false;                    // as a run without a trace
    run.sorting = router->frameSorting(); // the run's (setFrameSorting)
    if (Status status = residentLaunch(run, tables, launch); !status.ok())
      return status;
    Status status = primitives->prepareResidentState(launch);
    residentStateFresh = status.ok();
    return status;
  }
};

CompiledKernelDevice::CompiledKernelDevice() : impl_(std::make_unique<Impl>()) {}
CompiledKernelDevice::~CompiledKernelDevice() = default;

Status CompiledKernelDevice::initialize(
    std::unique_ptr<KernelPrimitives> primitives, CompiledKernelShape shape) {
  Impl &d = *impl_;
  d.primitives = std::move(primitives);
  d.router = std::make_unique<HostRouter>(d.primitives->label(),
                                          /*hostKernels=*/false);
  d.router->laneLimit = shape.lanes;
  d.memory = std::make_unique<KernelMemory>(*d.primitives);
  return d.kernels.initialize(*d.primitives, std::move(shape));
}

KernelPrimitives &CompiledKernelDevice::primitives() const {
  return *impl_->primitives;
}

const CompiledKernelStats &CompiledKernelDevice::stats() const {
  return impl_->stats;
}

Status CompiledKernelDevice::setBinding(uint32_t index,
                                        std::span<const unsigned char> bytes,
                                        std::span<const int64_t> kernelShape) {
  std::vector<int64_t> elements;
  if (kernelShape.empty()) // raw bytes: one rank-1 array of words
    elements.push_back(int64_t(std::max<size_t>(bytes.size(), 4) / 4));
  return impl_->kernels.setResident(
      index, bytes, kernelShape.empty() ? elements : kernelShape);
}

Status CompiledKernelDevice::getBinding(uint32_t index,
                                        std::span<unsigned char> out) const {
  // Every dispatch waited for its launch: the device is idle here.
  return impl_->kernels.getResident(index, out);
}

Status CompiledKernelDevice::allocate(const ProgramDescriptor &program,
                                      const ProgramShape &shape,
                                      uint32_t framePool) {
  Impl &d = *impl_;
  if (Status status = d.kernels.checkProgramShape(shape); !status.ok())
    return status;
  // A run of the program and frame pool allocated last (a renderer's next
  // pass; the shape follows from the program) keeps that storage: every run
  // resets what it reads before writing it (the router's queues, the
  // device placement's state image, each dispatch's counters), and frames
  // and item slots are written before they are read. Allocating again cost
  // each pass 40 to 65 ms at a frame pool of 1,048,576 on an H100.
  if (d.allocatedWhole && d.router->holds(program, framePool)) {
    d.router->reset();
    d.laneIdsChanged = true;
    (void)d.prepareResidentState(); // a failure is the run's to report
    return Status::success();
  }
  d.allocatedWhole = false;
  if (Status status = d.router->allocate(program, shape, framePool, *d.memory);
      !status.ok())
    return status;
  if (Status status = d.kernels.allocate(*d.router, d.memory->frames.get());
      !status.ok())
    return status;
  d.allocatedWhole = true;
  d.laneIdsChanged = true;
  d.residentStateFresh = false;
  noteAllocation();
  // A failure is the run's to report (runResident() makes it again).
  (void)d.prepareResidentState();
  return Status::success();
}

void CompiledKernelDevice::reset() {
  impl_->router->reset();
  impl_->stats = CompiledKernelStats{};
  impl_->laneIdsChanged = true;
}

void CompiledKernelDevice::refill(uint32_t lanes) {
  impl_->router->refill(lanes);
  impl_->laneIdsChanged = true;
}

void CompiledKernelDevice::setFrameSorting(const FrameSorting &sorting) {
  Impl &d = *impl_;
  bool changed = d.router->frameSorting() != sorting;
  d.router->setFrameSorting(sorting);
  // The device placement's commands depend on it: made again before the
  // run's clock (a failure is the run's to report).
  if (changed) {
    d.residentStateFresh = false;
    (void)d.prepareResidentState();
  }
}

uint32_t CompiledKernelDevice::lastDispatchOrder() const {
  return impl_->router ? impl_->router->lastOrder : 0;
}

void CompiledKernelDevice::dispatch(uint32_t stage, uint32_t count) {
  using Clock = std::chrono::steady_clock;
  Impl &d = *impl_;
  HostRouter &router = *d.router;
  if (!router.allocated()) {
    router.fail(ErrorKind::InvalidArgument,
                d.primitives->label() + ": dispatch of stage " +
                    std::to_string(stage) + " before allocate()");
    return;
  }
  auto start = Clock::now();
  sluice_rt_kernel_args args;
  if (!router.beginDispatch(stage, count, args))
    return;
  DispatchTimes times;
  Status status =
      d.kernels.dispatch(args, count, d.laneIdsChanged, d.scratch, times);
  if (!status.ok()) {
    router.fail(status.kind(), d.primitives->label() + ": " +
                                   router.stageLabel(stage) + ": " +
                                   status.message());
    return;
  }
  d.laneIdsChanged = false;
  ++d.stats.dispatches;
  d.stats.gpuNanoseconds += times.gpuNanoseconds;
  d.stats.submitWaitNanoseconds += times.launchWaitNanoseconds;
  router.finishDispatch(args);
  d.stats.sortedDispatches = router.sortStats.dispatches;
  d.stats.sortKeyBytes = router.sortStats.keyBytes;
  d.stats.sortNanoseconds = router.sortStats.nanoseconds;
  d.stats.dispatchNanoseconds +=
      std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

Status runCompiledStateMachine(CompiledKernels &kernels, HostRouter &router,
                               KernelBuffer &frames, const std::string &label,
                               uint32_t lanes, StateMachineReport &report,
                               MegakernelResult &result) {
  router.reset();
  if (lanes > router.laneLimit)
    return Status::error(ErrorKind::InvalidArgument,
                         label + ": a state-machine run of " +
                             std::to_string(lanes) +
                             " lanes, but the program was loaded for " +
                             std::to_string(router.laneLimit) +
                             " (BackendOptions::lanes)");
  const ProgramShape &shape = *router.shape;
  MegakernelRun run;
  run.lanes = lanes;
  run.threads = megakernelThreads(router, lanes);
  run.lanesPerThread = kernels.primitives().megakernelLanesPerThread();
  if (const char *text = std::getenv("SLUICE_MEGAKERNEL_LANES_PER_THREAD"))
    run.lanesPerThread = uint32_t(std::strtoul(text, nullptr, 10));
  run.lanesPerThread = std::max<uint32_t>(run.lanesPerThread, 1);

  if (Status status = kernels.runMegakernel(router, frames, run, result);
      !status.ok())
    return Status::error(status.kind(),
                         label + ": megakernel: " + status.message());
  if (result.fault[SLUICE_FAULT_WORD_CODE] != 0) {
    // The fault names the thread; its frame is the thread's.
    sluice_rt_fault fault{};
    fault.code = uint32_t(result.fault[SLUICE_FAULT_WORD_CODE]);
    fault.stage = uint32_t(result.fault[SLUICE_FAULT_WORD_STAGE]);
    fault.invocation = uint32_t(result.fault[SLUICE_FAULT_WORD_INVOCATION]);
    fault.owner = uint32_t(result.fault[SLUICE_FAULT_WORD_OWNER]);
    fault.value = uint32_t(result.fault[SLUICE_FAULT_WORD_VALUE]);
    std::vector<uint32_t> frameIndices(run.threads);
    for (uint32_t t = 0; t < run.threads; ++t)
      frameIndices[t] = t;
    if (fault.invocation < run.threads)
      router.laneOfFrame[fault.invocation] = result.faultLane;
    std::vector<sluice_rt_owner_slots> slots(router.owners.size());
    for (uint32_t o = 0; o < slots.size(); ++o)
      slots[o].bound = shape.maxBoundInto(o);
    sluice_rt_kernel_args args = router.argsTemplate;
    args.fault = &fault;
    args.owners = slots.data();
    args.invocations = frameIndices.data();
    args.count = run.threads;
    args.stage = fault.stage;
    args.owner = fault.stage < shape.mainStageCount() ? SLUICE_RT_NO_OWNER
                                                      : fault.owner;
    router.takeFault(args);
    return router.pendingError();
  }
  report.stages = std::move(result.stages);
  report.lanesFinished = result.lanesFinished;
  report.workersUsed = run.threads;
  router.lanesStarted = lanes;
  router.lanesFinished = report.lanesFinished;
  return Status::success();
}

Status CompiledKernelDevice::runStateMachine(uint32_t lanes,
                                             StateMachineReport &report) {
  Impl &d = *impl_;
  if (!d.kernels.shape().megakernel)
    return Device::runStateMachine(lanes, report);
  if (!d.router->allocated() || !d.memory->frames)
    return Status::error(ErrorKind::InvalidState,
                         d.primitives->label() +
                             ": runStateMachine() before allocate()");
  d.stats = CompiledKernelStats{};
  d.laneIdsChanged = true;
  MegakernelResult result;
  Status status =
      runCompiledStateMachine(d.kernels, *d.router, *d.memory->frames,
                              d.primitives->label(), lanes, report, result);
  d.stats.dispatches += result.launches;
  d.stats.gpuNanoseconds += result.times.gpuNanoseconds;
  d.stats.submitWaitNanoseconds += result.times.launchWaitNanoseconds;
  d.stats.dispatchNanoseconds += result.times.launchWaitNanoseconds;
  return status;
}

Status CompiledKernelDevice::reserveStateMachine(uint32_t lanes) {
  Impl &d = *impl_;
  if (!d.kernels.shape().megakernel || !d.router->allocated())
    return Status::success();
  return d.kernels.sizeMegakernel(*d.router, megakernelThreads(*d.router, lanes));
}

Status CompiledKernelDevice::readCounts(Observation &out) {
  if (!impl_->router->allocated())
    return Status::error(ErrorKind::InvalidState,
                         impl_->primitives->label() +
                             ": readCounts() before allocate()");
  // dispatch() waited for its launch: the device is idle.
  return impl_->router->readCounts(out);
}

} // namespace sluice::runtime

namespace sluice::runtime {

Status CompiledKernelDevice::prepare(bool stateMachine, bool resident) {
  Impl &d = *impl_;
  KernelPrimitives &primitives = *d.primitives;
  if (Status status = primitives.prepare(
          stateMachine && d.kernels.shape().megakernel, false);
      !status.ok())
    return status;
  // Where the device placement cannot run, the scheduler keeps the host
  // placement, which needs nothing made; a failure to make its kernels is
  // the run's to report, should it place the scheduler on the device.
  bool devicePlacement = resident && primitives.residentSupport().ok();
  if (devicePlacement)
    (void)primitives.prepare(false, true);
  // The state of a device-placement run: made now when the frames are
  // allocated already, else when allocate() allocates them. A failure is
  // the run's to report (runResident() makes it again).
  d.residentPrepared = devicePlacement;
  if (devicePlacement)
    (void)d.prepareResidentState();
  // The per-invocation arrays where the run's placement wants them (the
  // state machine uses none of them). SLUICE_KERNEL_ARRAYS=device puts a
  // host-placement run's in device memory too: its stage kernels then run
  // on the device placement's memory, so that their device time is the
  // stage-kernel time of the device placement's dispatch sequence
  // (bench/placement/compare.py's overhead).
  if (stateMachine)
    return Status::success();
  const char *arrays = std::getenv("SLUICE_KERNEL_ARRAYS");
  bool deviceArrays =
      devicePlacement || (arrays && std::string_view(arrays) == "device");
  return placeArrays(deviceArrays ? KernelBufferUse::Resident
                                  : KernelBufferUse::Transfer);
}

Status CompiledKernelDevice::placeArrays(KernelBufferUse use) {
  Impl &d = *impl_;
  if (d.kernels.arrayUse() == use)
    return Status::success();
  d.laneIdsChanged = true;
  d.residentStateFresh = false; // its commands bind the arrays' buffers
  return d.kernels.placeArrays(*d.router, use);
}

Status CompiledKernelDevice::residentSupport() const {
  return impl_->primitives->residentSupport();
}

bool CompiledKernelDevice::runsOwnerPolicies() const {
  return impl_->primitives->runsOwnerPolicies();
}

bool CompiledKernelDevice::prefersDevicePlacement() const {
  return impl_->primitives->prefersDevicePlacement();
}

std::unique_ptr<CapacityOwnerClient>
CompiledKernelDevice::policyClient(uint32_t owner, const OwnerPolicy &policy) {
  return impl_->primitives->policyClient(owner, policy);
}

namespace {

// A device placement's policy fault (ResidentLayout::policyFault, at the
// counts the iteration decided from) as the host placement's message.
Status policyFaultStatus(const ProgramDescriptor &program,
                         const ProgramShape &shape,
                         std::span<const uint64_t> counts,
                         std::span<const uint64_t> fault) {
  Observation observation;
  observation.resize(shape);
  if (counts.size() >= observationWords(shape))
    unpackObservation(shape, counts.data(), observation);
  bool recorded = fault.size() >= decision::kPolicyFaultHeader;
  uint32_t owner = recorded ? uint32_t(fault[0]) : UINT32_MAX;
  uint32_t hook = recorded ? uint32_t(fault[1]) : UINT32_MAX;
  if (owner >= shape.ownerCount() || hook >= kPolicyHookCount)
    return Status::error(ErrorKind::InvalidState,
                         "device placement: a policy fault at owner " +
                             std::to_string(owner) + ", hook " +
                             std::to_string(hook) + " that the program lacks");
  uint32_t stages = shape.ownerStageCount(owner);
  OwnerView before = observedOwner(program, shape, observation, owner);
  std::vector<uint32_t> after(stages, 0);
  for (uint32_t i = 0;
       i < stages && decision::kPolicyFaultHeader + i < fault.size(); ++i)
    after[i] = uint32_t(fault[decision::kPolicyFaultHeader + i]);
  return hookFault(program.owners[owner].policy, PolicyHook(hook), before,
                   after, int64_t(fault[2]));
}

} // namespace

Status CompiledKernelDevice::runResident(const ResidentRun &run,
                                         ResidentLog &log) {
  Impl &d = *impl_;
  HostRouter &router = *d.router;
  std::string label = d.primitives->label();
  if (Status support = d.primitives->residentSupport(); !support.ok())
    return support;
  if (!router.allocated())
    return Status::error(ErrorKind::InvalidState,
                         label + ": runResident() before allocate()");
  // Made already when the run was prepared (prepare(), before its clock).
  if (Status status = placeArrays(KernelBufferUse::Resident); !status.ok())
    return status;
  d.residentStateFresh = false; // this run uses it
  router.reset();
  router.setFrameSorting(run.sorting);
  d.stats = CompiledKernelStats{};
  d.laneIdsChanged = true;
  log = ResidentLog();
  if (!router.checkLaneLimit(run.lanes)) {
    log.fault = router.pendingError();
    return Status::success();
  }
  const ProgramShape &shape = *router.shape;
  ResidentTables tables;
  ResidentLaunch launch;
  if (Status status = d.residentLaunch(run, tables, launch); !status.ok())
    return status;
  ResidentLaunchResult result;
  auto started = std::chrono::steady_clock::now();
  if (Status status = d.primitives->runResident(launch, result);
      !status.ok())
    return Status::error(status.kind(),
                         label + ": device placement: " + status.message());
  d.stats.dispatches = result.log.records.size();
  d.stats.gpuNanoseconds = result.gpuNanoseconds;
  d.stats.submitWaitNanoseconds =
      std::chrono::duration<double, std::nano>(
          std::chrono::steady_clock::now() - started)
          .count();
  d.stats.dispatchNanoseconds = d.stats.submitWaitNanoseconds;
  d.stats.residentSubmissions = result.launches;
  d.stats.residentForm = std::move(result.form);
  d.stats.residentProfile = std::move(result.profile);
  log = std::move(result.log);
  log.readbacks = result.launches;
  if (log.verdict == decision::kPolicyFault) {
    log.fault = policyFaultStatus(*router.program, shape, log.last,
                                  result.policyFault);
    return Status::success();
  }
  if (result.stopReason == decision::kStopVerdict ||
      result.stopReason == decision::kStopRunning)
    return Status::success();

  // A fault in the last dispatch: the host's own messages, from the
  // device's buffers.
  const decision::Record &last = log.records.back();
  uint32_t stage = last.dispatchedStage;
  uint32_t count = last.dispatched;
  const StageRef &ref = shape.stage(stage);
  bool main = ref.kind == StageKind::Main;
  auto download = [&](KernelBuffer *buffer, void *to, uint64_t bytes) {
    return d.primitives->downloadRange(
        *buffer, 0, {static_cast<unsigned char *>(to), bytes});
  };
  if (result.stopReason == decision::kStopShortSelect) {
    router.fail(ErrorKind::InvalidState,
                "device placement: " + router.stageLabel(stage) + " holds " +
                    std::to_string(result.detail) + " of the " +
                    std::to_string(count) +
                    " invocations its count promised");
    log.fault = router.pendingError();
    return Status::success();
  }
  Status status = download(launch.invocations, router.invocations.data(),
                           uint64_t(count) * 4);
  if (status.ok())
    status = download(launch.laneIds, router.laneOfFrame.data(),
                      uint64_t(router.framePool) * 4);
  if (status.ok())
    status = download(launch.nextStage, router.nextStage.data(),
                      uint64_t(count) * 4);
  int32_t words[kGpuFaultWords] = {};
  if (status.ok())
    status = download(launch.fault, words, sizeof words);
  if (!status.ok())
    return status;
  sluice_rt_kernel_args args = router.argsTemplate;
  args.stage = stage;
  args.count = count;
  args.owner = main ? SLUICE_RT_NO_OWNER : ref.owner;
  args.owner_stage = main ? 0 : ref.ownerStage;
  // The bounds, for the fault's message; no dispatch follows, so no window
  // (a count of 0).
  router.prepareOwnerSlots(
      main ? shape.producersOf(stage) : std::span<const ProducerEdge>(), 0);
  if (result.stopReason == decision::kStopKernelFault) {
    sluice_rt_fault fault{};
    fault.code = uint32_t(words[SLUICE_FAULT_WORD_CODE]);
    fault.stage = uint32_t(words[SLUICE_FAULT_WORD_STAGE]);
    fault.invocation = uint32_t(words[SLUICE_FAULT_WORD_INVOCATION]);
    fault.owner = uint32_t(words[SLUICE_FAULT_WORD_OWNER]);
    fault.value = uint32_t(words[SLUICE_FAULT_WORD_VALUE]);
    // The kernel counts ring positions from its window's start.
    if (fault.code == SLUICE_RT_FAULT_POOL_EXHAUSTED &&
        fault.owner < result.allocHeads.size())
      fault.value += result.allocHeads[fault.owner];
    args.fault = &fault;
    router.takeFault(args);
  } else {
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t index = router.invocations[i];
      uint32_t next = router.nextStage[i];
      bool ok = main ? router.checkFrameOutcome(stage, i,
                                                router.laneOfFrame[index], next)
                     : router.checkItemOutcome(stage, i, index, next);
      if (!ok)
        break;
    }
  }
  log.fault = router.pendingError();
  if (log.fault.ok())
    log.fault = Status::error(ErrorKind::InvalidState,
                              "device placement: the device stopped at a "
                              "fault in " +
                                  router.stageLabel(stage) +
                                  " that the host cannot find");
  return Status::success();
}

} // namespace sluice::runtime
