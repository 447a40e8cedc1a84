//===- host_router.cpp - Host-side protocol of per-invocation devices -----===//

#include "host_router.h"

#include "sluice/runtime/device/worker_pool.h"

#include "sluice/runtime/wavefront/resident_layout.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

namespace sluice::runtime {

//===----------------------------------------------------------------------===//
// IndexQueue
//===----------------------------------------------------------------------===//

void IndexQueue::init(uint32_t capacity) {
  entries_.assign(std::max<uint32_t>(capacity, 1), 0);
  clear();
}

bool IndexQueue::push(uint32_t value) {
  uint32_t capacity = uint32_t(entries_.size());
  if (size_ == capacity)
    return false;
  uint32_t position = head_ + size_;
  if (position >= capacity)
    position -= capacity;
  entries_[position] = value;
  ++size_;
  return true;
}

void IndexQueue::popFront(uint32_t count, uint32_t *out) {
  uint32_t capacity = uint32_t(entries_.size());
  uint32_t firstRun = std::min(count, capacity - head_);
  std::memcpy(out, entries_.data() + head_, firstRun * sizeof(uint32_t));
  std::memcpy(out + firstRun, entries_.data(),
              (count - firstRun) * sizeof(uint32_t));
  head_ += count;
  if (head_ >= capacity)
    head_ -= capacity;
  size_ -= count;
}

//===----------------------------------------------------------------------===//
// FrameSet
//===----------------------------------------------------------------------===//

void FrameSet::init(uint32_t universe) {
  universe_ = universe;
  words_.assign((uint64_t(universe) + 63) / 64, 0);
  clear();
}

void FrameSet::clear() {
  std::fill(words_.begin(), words_.end(), 0);
  size_ = 0;
  firstWord_ = 0;
}

void FrameSet::fill() {
  std::fill(words_.begin(), words_.end(), ~uint64_t(0));
  if (universe_ % 64)
    words_.back() = (uint64_t(1) << (universe_ % 64)) - 1;
  size_ = universe_;
  firstWord_ = 0;
}

void FrameSet::popLowest(uint32_t count, uint32_t *out, WorkerPool *workers) {
  const uint32_t chunks = chunkCount(workers, count);
  if (chunks > 1 && count) {
    // The members' words from firstWord_ cut into chunks; each chunk's count
    // (a popcount a word, serial: a word holds 64 members) says where its
    // members go in `out`; the chunk holding the count-th member takes only
    // the ones below it.
    const uint64_t first = firstWord_, words = words_.size() - first;
    std::vector<uint32_t> starts(chunks + 1, 0);
    for (uint32_t c = 0; c < chunks; ++c) {
      uint32_t members = 0;
      for (uint64_t w = first + words * c / chunks;
           w < first + words * (c + 1) / chunks; ++w)
        members += uint32_t(__builtin_popcountll(words_[w]));
      starts[c + 1] = starts[c] + members;
    }
    auto take = [&](uint32_t chunk, uint64_t begin, uint64_t end) {
      uint32_t taken = starts[chunk];
      for (uint64_t w = first + begin; w < first + end && taken < count; ++w) {
        uint64_t bits = words_[w];
        while (bits && taken < count) {
          out[taken++] = uint32_t(w * 64 + __builtin_ctzll(bits));
          bits &= bits - 1;
        }
        words_[w] = bits;
      }
    };
    runChunks(*workers, chunks, words, take);
    // A lower bound: the chunk of the last member taken.
    uint32_t last = 0;
    while (starts[last + 1] < count)
      ++last;
    size_ -= count;
    firstWord_ = uint32_t(first + words * last / chunks);
    return;
  }
  uint32_t taken = 0;
  uint32_t word = firstWord_;
  while (taken < count) {
    uint64_t bits = words_[word];
    while (bits && taken < count) {
      uint32_t bit = uint32_t(__builtin_ctzll(bits));
      bits &= bits - 1;
      out[taken++] = word * 64 + bit;
    }
    words_[word] = bits;
    if (!bits)
      ++word;
  }
  size_ -= count;
  firstWord_ = word;
}

//===----------------------------------------------------------------------===//
// HostRouter
//===----------------------------------------------------------------------===//

namespace {

const char *wrongKindHelperName(uint64_t helper) {
  static const char *const names[] = {
      "sluice_rt_move_frame", "sluice_rt_finish_frame", "sluice_rt_publish",
      "sluice_rt_move_item", "sluice_rt_release_item"};
  return helper < 5 ? names[helper] : "a kernel helper";
}

} // namespace

Status HostRouter::Memory::downloadFrames(uint64_t, std::span<unsigned char>) {
  return Status::error(ErrorKind::InvalidState,
                       "frame memory in host memory has no download");
}

HostRouter::HostRouter(std::string deviceLabel, bool hostKernels)
    : deviceLabel_(std::move(deviceLabel)), hostKernels_(hostKernels) {}

void HostRouter::fail(ErrorKind kind, std::string message) {
  if (pendingError_.ok())
    pendingError_ = Status::error(kind, std::move(message));
}

std::string HostRouter::stageLabel(uint32_t stage) const {
  return "stage '" + std::string(shape->stageName(stage)) + "'";
}

std::string HostRouter::ownerLabel(uint32_t owner) const {
  if (owner >= program->owners.size())
    return "owner #" + std::to_string(owner);
  return "owner '" + program->owners[owner].name + "'";
}

sluice_rt_stage_kernel HostRouter::kernelOf(uint32_t stage) const {
  const StageRef &ref = shape->stage(stage);
  if (ref.kind == StageKind::Main)
    return program->mainStages[stage].kernel;
  return program->owners[ref.owner].stages[ref.ownerStage].kernel;
}

Status HostRouter::allocate(const ProgramDescriptor &program,
                            const ProgramShape &shape, uint32_t framePool,
                            Memory &memory) {
  this->program = &program;
  shapeCopy = shape;
  this->framePool = framePool;
  memory_ = &memory;
  allocated_ = false;
  Status status = allocateTables(memory);
  allocated_ = status.ok();
  queuesUsed_ = true; // new storage: reset() fills it
  if (allocated_)
    reset();
  return status;
}

Status HostRouter::allocateTables(Memory &memory) {
  const std::string prefix = deviceLabel_ + ": ";
  for (uint32_t s = 0; hostKernels_ && s < shape->mainStageCount(); ++s)
    if (!program->mainStages[s].kernel)
      return Status::error(ErrorKind::InvalidDescriptor,
                           prefix + "main " + stageLabel(s) + " has no kernel");
  for (uint32_t o = 0; hostKernels_ && o < shape->ownerCount(); ++o)
    for (uint32_t i = 0; i < shape->ownerStageCount(o); ++i)
      if (!program->owners[o].stages[i].kernel)
        return Status::error(ErrorKind::InvalidDescriptor,
                             prefix + stageLabel(shape->globalStage(o, i)) +
                                 " has no kernel");
  if (framePool == 0)
    return Status::error(ErrorKind::InvalidArgument,
                         prefix + "frame pool of 0 frames");

  if (Status status =
          computeFrameLayout(program->frameLayout, framePool, layout);
      !status.ok())
    return status;
  // `why`: the device's reason, when it gave one.
  auto outOfMemory = [&](const std::string &what, uint64_t bytes,
                         const std::string &why = std::string()) {
    return Status::error(ErrorKind::OutOfMemory,
                         prefix + "cannot allocate " + what + " (" +
                             std::to_string(bytes) + " bytes)" +
                             (why.empty() ? std::string() : ": " + why));
  };
  frames = nullptr;
  if (Status status = memory.allocateFrames(layout.totalBytes, frames);
      !status.ok() || !frames)
    return outOfMemory("the frame buffer of " + std::to_string(framePool) +
                           " frames",
                       layout.totalBytes, status.message());

  laneOfFrame.assign(framePool, 0);
  freeFrames.init(framePool);
  mainQueues.assign(shape->mainStageCount(), FrameSet());
  for (FrameSet &queue : mainQueues)
    queue.init(framePool);

  uint32_t largestCapacity = 0;
  uint32_t largestStride = 0;
  owners.clear();
  owners.resize(shape->ownerCount());
  for (uint32_t o = 0; o < shape->ownerCount(); ++o) {
    const OwnerDesc &desc = program->owners[o];
    OwnerStorage &owner = owners[o];
    owner.capacity = desc.capacity;
    owner.itemStride = (uint64_t(desc.itemSize) + 15) & ~uint64_t(15);
    uint64_t payloadBytes = owner.itemStride * desc.capacity;
    owner.payload = memory.allocatePayload(o, payloadBytes);
    if (!owner.payload)
      return outOfMemory("items of " + ownerLabel(o), payloadBytes);
    owner.freeRing.assign(desc.capacity, 0);
    owner.freeSlots.init(desc.capacity);
    owner.stageQueues.assign(desc.stages.size(), IndexQueue());
    for (IndexQueue &queue : owner.stageQueues)
      queue.init(desc.capacity);
    largestCapacity = std::max(largestCapacity, desc.capacity);
  }
  for (uint32_t s = 0; s < shape->mainStageCount(); ++s)
    largestStride = std::max(largestStride, shape->publishStride(s));

  uint32_t maxInvocations = std::max(framePool, largestCapacity);
  invocations.assign(maxInvocations, 0);
  nextStage.assign(maxInvocations, SLUICE_RT_UNDECIDED);
  uint64_t countEntries = uint64_t(framePool) * shape->ownerCount();
  uint64_t slotEntries = uint64_t(framePool) * largestStride;
  if (slotEntries > (uint64_t(1) << 32))
    return outOfMemory("publish records", slotEntries * sizeof(uint32_t));
  publishedCounts.assign(countEntries, 0);
  publishedSlots.assign(slotEntries, 0);
  ownerSlots.assign(shape->ownerCount(), sluice_rt_owner_slots{});

  sluice_rt_kernel_args &args = argsTemplate;
  args = sluice_rt_kernel_args{};
  args.lane_ids = laneOfFrame.data();
  args.frames.base = frames;
  args.frames.kind = uint32_t(layout.kind);
  args.frames.field_count = uint32_t(layout.fieldOffsets.size());
  args.frames.frame_stride = layout.frameStride;
  args.frames.field_offsets = layout.fieldOffsets.data();
  args.frames.field_sizes = layout.fieldSizes.data();
  args.invocations = invocations.data();
  args.next_stage = nextStage.data();
  args.owner_count = shape->ownerCount();
  args.owners = ownerSlots.data();
  args.published_slots = publishedSlots.data();
  args.published_counts = publishedCounts.data();
  args.fault = &fault;
  args.user_data = program->userData;
  return Status::success();
}

void HostRouter::reset() {
  if (!allocated_)
    return;
  // The sets take time in proportion to the pool and the
  // capacities (a millisecond at 1,048,576 frames and slots): refilled only
  // when a run used them since the last reset(), since a renderer's pass
  // resets the device two or three times before its run.
  if (queuesUsed_) {
    freeFrames.fill(); // frame 0 is refilled first
    for (FrameSet &queue : mainQueues)
      queue.clear();
    for (OwnerStorage &owner : owners)
      owner.freeSlots.fill();
    queuesUsed_ = false;
  }
  for (uint32_t o = 0; o < owners.size(); ++o) {
    OwnerStorage &owner = owners[o];
    owner.allocHead = 0;
    owner.window = 0;
    for (IndexQueue &queue : owner.stageQueues)
      queue.clear();
    owner.live = 0;
    owner.published = 0;
    owner.released = 0;
    sluice_rt_owner_slots &slots = ownerSlots[o];
    slots.payload = owner.payload;
    slots.item_stride = owner.itemStride;
    slots.free_ring = owner.freeRing.data();
    slots.alloc_head = &owner.allocHead;
    slots.capacity = owner.capacity;
  }
  lanesStarted = 0;
  lanesFinished = 0;
  sortStats = SortStatistics{};
  fault = sluice_rt_fault{};
  pendingError_ = Status::success();
}

bool HostRouter::checkLaneLimit(uint64_t lanes) {
  if (lanes <= laneLimit)
    return true;
  fail(ErrorKind::InvalidArgument,
       deviceLabel_ + ": a run of more than " + std::to_string(laneLimit) +
           " lanes, but the program was loaded for " +
           std::to_string(laneLimit) + " (BackendOptions::lanes)");
  return false;
}

void HostRouter::refill(uint32_t lanes) {
  if (!pendingError_.ok())
    return;
  queuesUsed_ = true;
  if (lanes > freeFrames.size()) {
    fail(ErrorKind::InvalidArgument,
         deviceLabel_ + ": refill of " + std::to_string(lanes) +
             " lanes but only " + std::to_string(freeFrames.size()) +
             " frames are free");
    return;
  }
  if (!checkLaneLimit(lanesStarted + lanes))
    return;
  // The lowest free frames, in lane order (decision::refillFrames).
  FrameSet &entry = mainQueues[shape->entryStage()];
  growScratch(refillScratch_, lanes);
  freeFrames.popLowest(lanes, refillScratch_.data(), parallel);
  if (uint32_t chunks = chunksFor(lanes); chunks > 1) {
    // The frames ascend: a chunk shares set words only at its two ends.
    auto start = [&](uint32_t, uint64_t begin, uint64_t end) {
      const uint32_t firstWord = refillScratch_[begin] / 64;
      const uint32_t lastWord = refillScratch_[end - 1] / 64;
      for (uint64_t k = begin; k < end; ++k) {
        const uint32_t frame = refillScratch_[k];
        laneOfFrame[frame] = uint32_t(lanesStarted + k);
        entry.insertFrom(frame,
                         frame / 64 == firstWord || frame / 64 == lastWord);
      }
    };
    runChunks(*parallel, chunks, lanes, start);
    entry.added(lanes, refillScratch_[0]);
    lanesStarted += lanes;
    return;
  }
  for (uint32_t k = 0; k < lanes; ++k) {
    const uint32_t frame = refillScratch_[k];
    laneOfFrame[frame] = uint32_t(lanesStarted++);
    entry.insert(frame);
  }
}

void HostRouter::prepareOwnerSlots(std::span<const ProducerEdge> producers,
                                   uint32_t count) {
  for (uint32_t o = 0; o < owners.size(); ++o) {
    ownerSlots[o].bound = 0;
    ownerSlots[o].publish_base = 0;
    ownerSlots[o].alloc_limit = owners[o].allocHead;
  }
  for (const ProducerEdge &edge : producers) {
    ownerSlots[edge.owner].bound = edge.bound;
    ownerSlots[edge.owner].publish_base = edge.publishBase;
    OwnerStorage &owner = owners[edge.owner];
    // The window: the lowest free slots, as many as the dispatch can take.
    const uint32_t window = uint32_t(std::min<uint64_t>(
        owner.freeSlots.size(), uint64_t(count) * edge.bound));
    growScratch(windowScratch, window);
    owner.freeSlots.popLowest(window, windowScratch.data(), parallel);
    const uint64_t start = owner.allocHead % owner.capacity;
    const uint64_t firstRun =
        std::min<uint64_t>(window, owner.capacity - start);
    std::copy_n(windowScratch.data(), firstRun, owner.freeRing.data() + start);
    std::copy(windowScratch.data() + firstRun, windowScratch.data() + window,
              owner.freeRing.data());
    owner.windowHead = owner.allocHead;
    owner.window = window;
    ownerSlots[edge.owner].alloc_limit = owner.allocHead + window;
  }
}

void HostRouter::settleWindows() {
  for (OwnerStorage &owner : owners) {
    if (owner.window == 0)
      continue;
    const uint64_t taken = owner.allocHead - owner.windowHead;
    for (uint64_t k = taken; k < owner.window; ++k)
      owner.freeSlots.insert(
          owner.freeRing[(owner.windowHead + k) % owner.capacity]);
    owner.window = 0;
  }
}

bool HostRouter::takeFault(const sluice_rt_kernel_args &args) {
  const sluice_rt_fault &fault = *args.fault;
  if (fault.code == SLUICE_RT_FAULT_NONE)
    return true;
  std::string where = stageLabel(fault.stage) + " invocation " +
                      std::to_string(fault.invocation);
  switch (fault.code) {
  case SLUICE_RT_FAULT_BOUND_EXCEEDED:
    fail(ErrorKind::EmissionBoundExceeded,
         where + " published item #" + std::to_string(fault.value) + " into " +
             ownerLabel(fault.owner) + ", but its bound is " +
             std::to_string(args.owners[fault.owner].bound));
    break;
  case SLUICE_RT_FAULT_POOL_EXHAUSTED:
    fail(ErrorKind::CapacityExceeded,
         where + " published into " + ownerLabel(fault.owner) +
             " beyond its free slots (capacity " +
             std::to_string(owners[fault.owner].capacity) + ")");
    break;
  case SLUICE_RT_FAULT_NOT_A_PRODUCER:
    fail(ErrorKind::EmissionBoundExceeded,
         where + " published into " + ownerLabel(fault.owner) +
             ", but the stage declares no emission bound for it");
    break;
  case SLUICE_RT_FAULT_WRONG_STAGE_KIND:
    fail(ErrorKind::InvalidTransition,
         where + " called " + wrongKindHelperName(fault.value) +
             ", which belongs to the other stage kind");
    break;
  case SLUICE_RT_FAULT_DECIDED_TWICE:
    fail(ErrorKind::LinearityViolation,
         where + " decided the outcome of its frame or item twice");
    break;
  case SLUICE_RT_FAULT_OUT_OF_BOUNDS: {
    const std::vector<std::string> &names = program->bindingNames;
    std::string binding = fault.owner < names.size()
                              ? "binding '" + names[fault.owner] + "'"
                              : "binding #" + std::to_string(fault.owner);
    std::string lane;
    if (args.owner == SLUICE_RT_NO_OWNER && fault.invocation < args.count)
      lane = " (lane " +
             std::to_string(laneOfFrame[args.invocations[fault.invocation]]) +
             ")";
    fail(ErrorKind::IndexOutOfBounds,
         where + lane + " indexed " + binding + " at element " +
             std::to_string(fault.value) + ", out of its bounds");
    break;
  }
  case SLUICE_RT_FAULT_BAD_OUTCOME:
    fail(fault.value == SLUICE_RT_UNDECIDED ? ErrorKind::LinearityViolation
                                            : ErrorKind::InvalidTransition,
         where + " ended with outcome " + std::to_string(fault.value) +
             ", which names no stage it may go to");
    break;
  case SLUICE_RT_FAULT_BAD_INVOCATION:
    fail(ErrorKind::InvalidArgument,
         where + " is out of range: the dispatch has " +
             std::to_string(fault.value) + " invocations");
    break;
  default:
    fail(ErrorKind::InvalidState,
         where + " recorded unknown fault code " + std::to_string(fault.code));
  }
  return false;
}

bool HostRouter::beginDispatch(uint32_t stage, uint32_t count,
                               sluice_rt_kernel_args &args) {
  if (!pendingError_.ok())
    return false;
  queuesUsed_ = true;
  if (!allocated_ || stage >= shape->totalStageCount()) {
    fail(ErrorKind::InvalidArgument,
         deviceLabel_ + ": dispatch of stage " + std::to_string(stage) +
             (allocated_ ? " out of range" : " before allocate()"));
    return false;
  }
  if (count == 0)
    return false;

  const StageRef &ref = shape->stage(stage);
  args = argsTemplate;
  args.stage = stage;
  args.count = count;
  if (ref.kind == StageKind::Main) {
    FrameSet &queue = mainQueues[stage];
    if (count > queue.size()) {
      fail(ErrorKind::InvalidArgument,
           deviceLabel_ + ": dispatch of " + std::to_string(count) +
               " frames at " + stageLabel(stage) + " which holds " +
               std::to_string(queue.size()));
      return false;
    }
    queue.popLowest(count, invocations.data(), parallel);
    orderUnit_ = 1;
    if (Status status = sortByKey(stage, count); !status.ok()) {
      fail(status.kind(), deviceLabel_ + ": sorting the frames of " +
                              stageLabel(stage) + ": " + status.message());
      return false;
    }
    lastOrder = orderDigest(count);
    std::span<const ProducerEdge> producers = shape->producersOf(stage);
    prepareOwnerSlots(producers, count);
    if (!producers.empty())
      std::fill_n(publishedCounts.begin(), uint64_t(count) * owners.size(), 0);
    args.owner = SLUICE_RT_NO_OWNER;
    args.publish_stride = shape->publishStride(stage);
  } else {
    IndexQueue &queue = owners[ref.owner].stageQueues[ref.ownerStage];
    if (count > queue.size()) {
      fail(ErrorKind::InvalidArgument,
           deviceLabel_ + ": dispatch of " + std::to_string(count) +
               " items at " + stageLabel(stage) + " which holds " +
               std::to_string(queue.size()));
      return false;
    }
    queue.popFront(count, invocations.data());
    lastOrder = 0;
    prepareOwnerSlots({}, count);
    args.owner = ref.owner;
    args.owner_stage = ref.ownerStage;
    args.publish_stride = 0;
  }
  std::fill_n(nextStage.begin(), count, SLUICE_RT_UNDECIDED);
  return true;
}

uint32_t HostRouter::orderDigest(uint32_t count) const {
  uint32_t digest = 0;
  for (uint32_t i = 0; i < count; ++i)
    digest += decision::orderTerm(i, invocations[i]);
  return digest;
}

Status HostRouter::sortByKey(uint32_t stage, uint32_t count) {
  const StageDesc &desc = program->mainStages[stage];
  if (!sorting_.sorts(desc) || count < 2)
    return Status::success();
  auto start = std::chrono::steady_clock::now();
  uint32_t field = desc.sortKeyField;
  uint32_t keySize = uint32_t(layout.fieldSizes[field]);
  // SoA keeps a field's column contiguous; AoS strides it by the frame.
  uint64_t step = layout.kind == FrameLayoutKind::ArrayOfStructs
                      ? layout.frameStride
                      : keySize;
  uint64_t columnOffset = layout.fieldOffsets[field];
  std::span<const uint32_t> frameList(invocations.data(), count);
  const unsigned char *keys = frames + columnOffset; // key of frame f: f * step
  uint64_t firstFrame = 0;
  uint64_t keyBytes = uint64_t(count) * keySize;
  if (!memory_->framesInHostMemory()) {
    // One download: the key column's span over the dispatched frames (on AoS,
    // their whole rows).
    auto [lowest, highest] =
        std::minmax_element(frameList.begin(), frameList.end());
    firstFrame = *lowest;
    keyBytes = (*highest - firstFrame) * step + keySize;
    keyBytes_.resize(keyBytes);
    if (Status status = memory_->downloadFrames(
            columnOffset + firstFrame * step, keyBytes_);
        !status.ok())
      return status;
    keys = keyBytes_.data();
  }
  growScratch(sortCodes_, count);
  auto codes = [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      const unsigned char *key = keys + (frameList[i] - firstFrame) * step;
      sortCodes_[i] =
          sorting_.buckets
              ? sortKeyBucket(key, keySize, desc.sortKeyKind, sorting_.buckets)
              : sortKeyCode(key, keySize, desc.sortKeyKind);
    }
  };
  if (sorting_.partition != 0 && chunksFor(count) > 1) {
    // Chunks of whole partitions, each partition sorted on its own anyway:
    // a chunk computes its codes and sorts its partitions.
    const uint32_t chunks = chunksFor(count);
    growScratch(chunkSortScratch_, chunks);
    auto sort = [&](uint32_t chunk, uint64_t begin, uint64_t end) {
      codes(begin, end);
      sortFramesInPartitions({invocations.data() + begin, end - begin},
                             {sortCodes_.data() + begin, end - begin},
                             sorting_.partition, chunkSortScratch_[chunk]);
    };
    runChunksOfRuns(*parallel, chunks, count, sorting_.partition, sort);
  } else {
    codes(0, count);
    sortFramesInPartitions({invocations.data(), count},
                           {sortCodes_.data(), count}, sorting_.partition,
                           sortScratch_);
  }
  orderUnit_ = sorting_.partition;
  ++sortStats.dispatches;
  sortStats.keyBytes += keyBytes;
  sortStats.nanoseconds += std::chrono::duration<double, std::nano>(
                               std::chrono::steady_clock::now() - start)
                               .count();
  return Status::success();
}

uint32_t HostRouter::chunksFor(uint64_t count) const {
  return chunkCount(parallel, count);
}

void HostRouter::finishDispatch(const sluice_rt_kernel_args &args) {
  settleWindows();
  if (!takeFault(args))
    return;
  const bool main = shape->stage(args.stage).kind == StageKind::Main;
  if (uint32_t chunks = chunksFor(args.count); chunks > 1)
    main ? routeMainInChunks(args, chunks)
         : routeAuxiliaryInChunks(args, chunks);
  else
    main ? routeMain(args) : routeAuxiliary(args);
}

void HostRouter::routeMain(const sluice_rt_kernel_args &args) {
  const uint32_t stage = args.stage;
  const uint32_t count = args.count;
  const uint32_t mainStages = shape->mainStageCount();
  const std::span<const ProducerEdge> producers = shape->producersOf(stage);
  const uint64_t ownerCount = owners.size();
  uint64_t finished = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t frame = invocations[i];
    const uint32_t next = nextStage[i];
    if (next == SLUICE_RT_FINISHED) {
      freeFrames.insert(frame);
      ++finished;
    } else if (next < mainStages) {
      mainQueues[next].insert(frame);
    } else {
      lanesFinished += finished;
      (void)checkFrameOutcome(stage, i, laneOfFrame[frame], next);
      return;
    }
    for (const ProducerEdge &edge : producers) {
      const uint32_t published = publishedCounts[i * ownerCount + edge.owner];
      if (published == 0)
        continue;
      OwnerStorage &owner = owners[edge.owner];
      const uint32_t *slots = publishedSlots.data() +
                              uint64_t(i) * args.publish_stride +
                              edge.publishBase;
      if (!owner.stageQueues[0].pushAll(slots, published)) {
        lanesFinished += finished;
        failQueueOverflow(edge.owner);
        return;
      }
      owner.live += published;
      owner.published += published;
    }
  }
  lanesFinished += finished;
}

void HostRouter::routeMainInChunks(const sluice_rt_kernel_args &args,
                                   uint32_t chunks) {
  // routeMain's result in two parallel passes: each chunk moves its frames
  // into the sets (the sets are unordered) and counts what it published; the
  // published items then go to the owners' first stage queues in invocation
  // order, each chunk at the queue positions the chunks before it leave.
  const uint32_t stage = args.stage;
  const uint32_t mainStages = shape->mainStageCount();
  const std::span<const ProducerEdge> producers = shape->producersOf(stage);
  const uint64_t ownerCount = owners.size();
  const uint32_t edges = uint32_t(producers.size());
  // Chunks of whole runs of orderUnit_ invocations, each run a range of
  // ascending frames (a sorted dispatch's runs are its partitions), so that
  // a chunk's frames lie between its lowest and its highest and only those
  // two frames' set words may hold another chunk's frames. Sorted as one
  // run, any word may.
  const uint64_t unit = std::max<uint32_t>(orderUnit_, 1);
  chunks = uint32_t(std::min<uint64_t>(chunks, (args.count + unit - 1) / unit));
  auto inRuns = [&](auto &body) {
    runChunksOfRuns(*parallel, chunks, args.count, unit, body);
  };
  // A chunk's row: frames moved into each set (the main stages', then the
  // free frames), the lowest frame moved into each, the items published
  // along each producer edge, and its first invocation with a bad outcome.
  const uint32_t sets = mainStages + 1;
  const uint32_t width = 2 * sets + edges + 1;
  chunkTallies_.assign(uint64_t(chunks) * width, 0);
  for (uint32_t c = 0; c < chunks; ++c) {
    uint32_t *row = chunkTallies_.data() + uint64_t(c) * width;
    std::fill_n(row + sets, sets, UINT32_MAX);
    row[width - 1] = UINT32_MAX;
  }
  auto route = [&](uint32_t chunk, uint64_t begin, uint64_t end) {
    // The tallies in this thread's own memory, stored once at the end:
    // neighbouring chunks' rows share cache lines.
    uint32_t *row = chunkTallies_.data() + uint64_t(chunk) * width;
    std::vector<uint32_t> local(row, row + width);
    uint32_t *moved = local.data();
    uint32_t *lowest = moved + sets;
    uint32_t *published = lowest + sets;
    auto done = [&] { std::copy(local.begin(), local.end(), row); };
    uint32_t firstWord = UINT32_MAX, lastWord = 0; // every word shared
    if (orderUnit_ == 1) {
      firstWord = invocations[begin] / 64;
      lastWord = invocations[end - 1] / 64;
    } else if (orderUnit_ > 1) {
      auto [lowestFrame, highestFrame] = std::minmax_element(
          invocations.begin() + begin, invocations.begin() + end);
      firstWord = *lowestFrame / 64;
      lastWord = *highestFrame / 64;
    }
    for (uint64_t i = begin; i < end; ++i) {
      const uint32_t frame = invocations[i];
      const uint32_t next = nextStage[i];
      uint32_t set;
      if (next == SLUICE_RT_FINISHED)
        set = mainStages;
      else if (next < mainStages)
        set = next;
      else {
        moved[width - 1] = uint32_t(i);
        return done();
      }
      const uint32_t word = frame / 64;
      (set == mainStages ? freeFrames : mainQueues[set])
          .insertFrom(frame, word <= firstWord || word >= lastWord);
      ++moved[set];
      lowest[set] = std::min(lowest[set], frame);
      for (uint32_t e = 0; e < edges; ++e)
        published[e] += publishedCounts[i * ownerCount + producers[e].owner];
    }
    done();
  };
  inRuns(route);

  std::vector<uint64_t> totals(edges, 0);
  for (uint32_t c = 0; c < chunks; ++c) {
    const uint32_t *row = chunkTallies_.data() + uint64_t(c) * width;
    if (uint32_t bad = row[width - 1]; bad != UINT32_MAX) {
      // The lowest bad invocation, as routeMain reports it. The sets are
      // left half routed: the error stands until reset(), which refills them.
      (void)checkFrameOutcome(stage, bad, laneOfFrame[invocations[bad]],
                              nextStage[bad]);
      return;
    }
    for (uint32_t e = 0; e < edges; ++e)
      totals[e] += row[2 * sets + e];
  }
  for (uint32_t set = 0; set < sets; ++set) {
    uint32_t members = 0, lowest = UINT32_MAX;
    for (uint32_t c = 0; c < chunks; ++c) {
      const uint32_t *row = chunkTallies_.data() + uint64_t(c) * width;
      members += row[set];
      lowest = std::min(lowest, row[sets + set]);
    }
    (set == mainStages ? freeFrames : mainQueues[set]).added(members, lowest);
    if (set == mainStages)
      lanesFinished += members;
  }

  // The published items: each chunk's first queue position per edge.
  std::vector<uint64_t> firsts(uint64_t(chunks) * edges, 0);
  bool anyPublished = false;
  for (uint32_t e = 0; e < edges; ++e) {
    const ProducerEdge &edge = producers[e];
    OwnerStorage &owner = owners[edge.owner];
    IndexQueue &queue = owner.stageQueues[0];
    if (totals[e] > queue.capacity() - queue.size()) {
      failQueueOverflow(edge.owner);
      return;
    }
    uint64_t position = queue.extend(uint32_t(totals[e]));
    for (uint32_t c = 0; c < chunks; ++c) {
      firsts[uint64_t(c) * edges + e] = position;
      position += chunkTallies_[uint64_t(c) * width + 2 * sets + e];
    }
    owner.live += uint32_t(totals[e]);
    owner.published += totals[e];
    anyPublished |= totals[e] != 0;
  }
  if (!anyPublished)
    return;
  auto append = [&](uint32_t chunk, uint64_t begin, uint64_t end) {
    for (uint32_t e = 0; e < edges; ++e) {
      const ProducerEdge &edge = producers[e];
      IndexQueue &queue = owners[edge.owner].stageQueues[0];
      uint32_t *ring = queue.ring();
      const uint64_t capacity = queue.capacity();
      uint64_t position = firsts[uint64_t(chunk) * edges + e] % capacity;
      for (uint64_t i = begin; i < end; ++i) {
        const uint32_t count = publishedCounts[i * ownerCount + edge.owner];
        const uint32_t *slots =
            publishedSlots.data() + i * args.publish_stride + edge.publishBase;
        for (uint32_t k = 0; k < count; ++k) {
          ring[position] = slots[k];
          if (++position == capacity)
            position = 0;
        }
      }
    }
  };
  inRuns(append);
}

void HostRouter::failQueueOverflow(uint32_t owner) {
  fail(ErrorKind::CapacityExceeded, deviceLabel_ + ": first stage queue of " +
                                        ownerLabel(owner) +
                                        " overflowed its capacity " +
                                        std::to_string(owners[owner].capacity));
}

bool HostRouter::checkFrameOutcome(uint32_t stage, uint32_t invocation,
                                   uint32_t lane, uint32_t next) {
  uint32_t mainStages = shape->mainStageCount();
  if (next == SLUICE_RT_FINISHED || next < mainStages)
    return true;
  if (next == SLUICE_RT_UNDECIDED)
    fail(ErrorKind::LinearityViolation,
         stageLabel(stage) + " invocation " + std::to_string(invocation) +
             " (lane " + std::to_string(lane) +
             ") neither moved nor finished its frame");
  else
    fail(ErrorKind::InvalidTransition,
         stageLabel(stage) + " moved lane " + std::to_string(lane) +
             " to main stage " + std::to_string(next) +
             ", but the program has " + std::to_string(mainStages) +
             " main stages");
  return false;
}

bool HostRouter::checkItemOutcome(uint32_t stage, uint32_t invocation,
                                  uint32_t slot, uint32_t next) {
  uint32_t owner = shape->stage(stage).owner;
  uint32_t ownerStages = shape->ownerStageCount(owner);
  if (next == SLUICE_RT_FINISHED || next < ownerStages)
    return true;
  if (next == SLUICE_RT_UNDECIDED)
    fail(ErrorKind::LinearityViolation,
         stageLabel(stage) + " invocation " + std::to_string(invocation) +
             " (item slot " + std::to_string(slot) +
             ") neither moved nor released its item");
  else
    fail(ErrorKind::InvalidTransition,
         stageLabel(stage) + " moved an item to stage " +
             std::to_string(next) + " of " + ownerLabel(owner) +
             ", which has " + std::to_string(ownerStages) + " stages");
  return false;
}

void HostRouter::routeAuxiliary(const sluice_rt_kernel_args &args) {
  const uint32_t stage = args.stage;
  const uint32_t count = args.count;
  OwnerStorage &owner = owners[args.owner];
  const uint32_t ownerStages = shape->ownerStageCount(args.owner);
  uint32_t released = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t slot = invocations[i];
    const uint32_t next = nextStage[i];
    if (next == SLUICE_RT_FINISHED) {
      owner.freeSlots.insert(slot);
      ++released;
    } else if (next < ownerStages) {
      owner.stageQueues[next].push(slot); // at most `capacity` items live
    } else {
      (void)checkItemOutcome(stage, i, slot, next); // records the fault
      break;
    }
  }
  owner.live -= released;
  owner.released += released;
}

void HostRouter::routeAuxiliaryInChunks(const sluice_rt_kernel_args &args,
                                        uint32_t chunks) {
  // routeAuxiliary's result in two parallel passes, as routeMainInChunks:
  // released slots go into the free set, then the items that move on go to
  // their stage queues in invocation order.
  const uint32_t stage = args.stage;
  OwnerStorage &owner = owners[args.owner];
  const uint32_t ownerStages = shape->ownerStageCount(args.owner);
  // A chunk's row: items moved to each owner stage, items released, the
  // lowest released slot, its first invocation with a bad outcome.
  const uint32_t width = ownerStages + 3;
  chunkTallies_.assign(uint64_t(chunks) * width, 0);
  for (uint32_t c = 0; c < chunks; ++c) {
    chunkTallies_[uint64_t(c) * width + ownerStages + 1] = UINT32_MAX;
    chunkTallies_[uint64_t(c) * width + ownerStages + 2] = UINT32_MAX;
  }
  auto release = [&](uint32_t chunk, uint64_t begin, uint64_t end) {
    uint32_t *shared = chunkTallies_.data() + uint64_t(chunk) * width;
    std::vector<uint32_t> local(shared, shared + width); // as in routeMain
    uint32_t *row = local.data();
    auto done = [&] { std::copy(local.begin(), local.end(), shared); };
    for (uint64_t i = begin; i < end; ++i) {
      const uint32_t slot = invocations[i];
      const uint32_t next = nextStage[i];
      if (next == SLUICE_RT_FINISHED) {
        owner.freeSlots.insertFrom(slot, /*shared=*/true);
        ++row[ownerStages];
        row[ownerStages + 1] = std::min(row[ownerStages + 1], slot);
      } else if (next < ownerStages) {
        ++row[next];
      } else {
        row[ownerStages + 2] = uint32_t(i);
        return done();
      }
    }
    done();
  };
  runChunks(*parallel, chunks, args.count, release);

  uint32_t released = 0, lowest = UINT32_MAX;
  std::vector<uint64_t> moved(ownerStages, 0);
  for (uint32_t c = 0; c < chunks; ++c) {
    const uint32_t *row = chunkTallies_.data() + uint64_t(c) * width;
    if (uint32_t bad = row[ownerStages + 2]; bad != UINT32_MAX) {
      (void)checkItemOutcome(stage, bad, invocations[bad], nextStage[bad]);
      return;
    }
    released += row[ownerStages];
    lowest = std::min(lowest, row[ownerStages + 1]);
    for (uint32_t q = 0; q < ownerStages; ++q)
      moved[q] += row[q];
  }
  owner.freeSlots.added(released, lowest);
  owner.live -= released;
  owner.released += released;
  // Each chunk's first position in each stage queue. At most `capacity`
  // items are live, so the queues have room.
  std::vector<uint64_t> firsts(uint64_t(chunks) * ownerStages, 0);
  for (uint32_t q = 0; q < ownerStages; ++q) {
    uint64_t position = owner.stageQueues[q].extend(uint32_t(moved[q]));
    for (uint32_t c = 0; c < chunks; ++c) {
      firsts[uint64_t(c) * ownerStages + q] = position;
      position += chunkTallies_[uint64_t(c) * width + q];
    }
  }
  if (std::all_of(moved.begin(), moved.end(), [](uint64_t n) { return !n; }))
    return;
  auto append = [&](uint32_t chunk, uint64_t begin, uint64_t end) {
    const uint64_t *first = firsts.data() + uint64_t(chunk) * ownerStages;
    std::vector<uint64_t> position(first, first + ownerStages);
    for (uint32_t q = 0; q < ownerStages; ++q)
      position[q] %= owner.stageQueues[q].capacity();
    for (uint64_t i = begin; i < end; ++i) {
      const uint32_t next = nextStage[i];
      if (next >= ownerStages)
        continue;
      IndexQueue &queue = owner.stageQueues[next];
      queue.ring()[position[next]] = invocations[i];
      if (++position[next] == queue.capacity())
        position[next] = 0;
    }
  };
  runChunks(*parallel, chunks, args.count, append);
}

Status HostRouter::readCounts(Observation &out) const {
  if (!allocated_)
    return Status::error(ErrorKind::InvalidState,
                         deviceLabel_ + ": readCounts() before allocate()");
  // The device waited for its stream: the dispatches have completed.
  if (!pendingError_.ok())
    return pendingError_;
  if (out.stageCounts.size() != shape->totalStageCount())
    out.resize(*shape);
  for (uint32_t s = 0; s < shape->mainStageCount(); ++s)
    out.stageCounts[s] = mainQueues[s].size();
  for (uint32_t o = 0; o < shape->ownerCount(); ++o) {
    const OwnerStorage &owner = owners[o];
    uint32_t base = shape->ownerStageBase(o);
    for (uint32_t i = 0; i < owner.stageQueues.size(); ++i)
      out.stageCounts[base + i] = owner.stageQueues[i].size();
    out.ownerLive[o] = owner.live;
    out.ownerPublished[o] = owner.published;
    out.ownerReleased[o] = owner.released;
  }
  out.freeFrames = freeFrames.size();
  out.lanesStarted = lanesStarted;
  out.lanesFinished = lanesFinished;
  return Status::success();
}

} // namespace sluice::runtime
