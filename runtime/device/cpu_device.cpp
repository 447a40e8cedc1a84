//===- cpu_device.cpp - CPU device adapter --------------------------------===//

#include "sluice/runtime/cpu_device.h"

#include "sluice/runtime/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <utility>

namespace sluice::runtime {

namespace {

// Heap bytes aligned to a cache line; zero-length buffers still get a line.
class AlignedBuffer {
public:
  static constexpr size_t kAlignment = 64;
  AlignedBuffer() = default;
  ~AlignedBuffer() { release(); }
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
  AlignedBuffer(AlignedBuffer &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  AlignedBuffer &operator=(AlignedBuffer &&other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  bool allocate(uint64_t bytes) {
    release();
    if (bytes > SIZE_MAX - kAlignment)
      return false;
    size_ = std::max<size_t>(size_t(bytes), kAlignment);
    data_ = static_cast<unsigned char *>(
        ::operator new(size_, std::align_val_t(kAlignment), std::nothrow));
    return data_ != nullptr;
  }
  unsigned char *data() const { return data_; }

private:
  void release() {
    if (data_)
      ::operator delete(data_, std::align_val_t(kAlignment));
    data_ = nullptr;
  }
  unsigned char *data_ = nullptr;
  size_t size_ = 0;
};

// FIFO of frame or slot indices with a fixed capacity.
class IndexQueue {
public:
  void init(uint32_t capacity) {
    entries_.assign(std::max<uint32_t>(capacity, 1), 0);
    clear();
  }
  void clear() { head_ = size_ = 0; }
  uint32_t size() const { return size_; }
  bool push(uint32_t value) {
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
  // Moves the first `count` entries (count <= size) to `out`.
  void popFront(uint32_t count, uint32_t *out) {
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

private:
  std::vector<uint32_t> entries_;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

struct OwnerStorage {
  uint32_t capacity = 0;
  uint64_t itemStride = 0;
  AlignedBuffer payload;
  // Ring positions [allocHead, freeTail) hold the free slot indices, so
  // freeTail - allocHead == capacity - live.
  std::vector<uint32_t> freeRing;
  uint64_t allocHead = 0; // advanced by kernels through atomic_ref
  uint64_t freeTail = 0;
  std::vector<IndexQueue> stageQueues;
  uint32_t live = 0;
  uint64_t published = 0;
  uint64_t released = 0;
};

// A kernel run over [0, count) split into blocks.
struct KernelLaunch {
  sluice_rt_stage_kernel kernel;
  const sluice_rt_kernel_args *args;
  uint32_t count;
  uint32_t blockSize;
};

void runLaunchBlock(void *context, uint32_t block, uint32_t worker) {
  const KernelLaunch &launch = *static_cast<const KernelLaunch *>(context);
  uint64_t begin = uint64_t(block) * launch.blockSize;
  uint64_t end = std::min<uint64_t>(launch.count, begin + launch.blockSize);
  launch.kernel(launch.args, uint32_t(begin), uint32_t(end));
}

const char *wrongKindHelperName(uint64_t helper) {
  static const char *const names[] = {
      "sluice_rt_move_frame", "sluice_rt_finish_frame", "sluice_rt_publish",
      "sluice_rt_move_item", "sluice_rt_release_item"};
  return helper < 5 ? names[helper] : "a kernel helper";
}

// One persistent megakernel worker: it owns frame `frame` and, per owner, a
// private share of `maxBound` item slots, so live items never exceed C.
struct MegakernelWorker {
  uint32_t frame = 0;
  uint32_t invocation = 0;
  uint32_t outcome = SLUICE_RT_UNDECIDED;
  std::vector<uint32_t> publishedCounts;
  std::vector<uint32_t> publishedSlots;
  std::vector<sluice_rt_owner_slots> slots;
  std::vector<std::vector<uint32_t>> rings;
  std::vector<uint64_t> allocHeads;
  std::vector<uint64_t> freeTails;
  std::vector<StageStatistics> stats;
  sluice_rt_fault fault{};
  uint64_t lanesFinished = 0;
  Status error;
};

} // namespace

struct CpuDevice::Impl {
  CpuDeviceOptions options;
  WorkerPool pool;

  const ProgramDescriptor *program = nullptr;
  ProgramShape shapeCopy; // the device keeps its own tables
  const ProgramShape *shape = &shapeCopy;
  uint32_t framePool = 0;
  bool allocated = false;

  ComputedFrameLayout layout;
  AlignedBuffer frameBuffer;
  std::vector<uint32_t> laneOfFrame;
  std::vector<uint32_t> freeFrames; // stack of free frame indices
  uint32_t freeFrameCount = 0;
  std::vector<IndexQueue> mainQueues;
  std::vector<OwnerStorage> owners;
  uint64_t lanesStarted = 0;
  uint64_t lanesFinished = 0;

  // Per-dispatch scratch, sized once by allocate().
  std::vector<uint32_t> invocations;
  std::vector<uint32_t> nextStage;
  std::vector<uint32_t> publishedCounts;
  std::vector<uint32_t> publishedSlots;
  std::vector<sluice_rt_owner_slots> ownerSlots;
  sluice_rt_kernel_args argsTemplate{};
  sluice_rt_fault fault{};
  Status pendingError; // sticky until reset()

  explicit Impl(const CpuDeviceOptions &options)
      : options(options), pool(options.workers, options.arenaInlineBytes) {}

  void fail(ErrorKind kind, std::string message) {
    if (pendingError.ok())
      pendingError = Status::error(kind, std::move(message));
  }
  std::string stageLabel(uint32_t stage) const {
    return "stage '" + std::string(shape->stageName(stage)) + "'";
  }
  std::string ownerLabel(uint32_t owner) const {
    if (owner >= program->owners.size())
      return "owner #" + std::to_string(owner);
    return "owner '" + program->owners[owner].name + "'";
  }

  Status allocateBuffers();
  void resetState();
  void prepareOwnerSlots(std::span<const ProducerEdge> producers);
  bool runKernel(sluice_rt_stage_kernel kernel,
                 const sluice_rt_kernel_args &args, uint32_t count);
  bool takeFault(const sluice_rt_kernel_args &args);
  void dispatchMain(uint32_t stage, uint32_t count);
  void dispatchAuxiliary(uint32_t stage, uint32_t count);
  struct MegakernelRun {
    Impl *device;
    std::vector<MegakernelWorker> *workers;
    uint32_t lanes;
    std::atomic<uint64_t> nextLane{0}; // 64-bit: never wraps past `lanes`
    std::atomic<bool> stop{false};
  };
  Status runStateMachine(uint32_t lanes, StateMachineReport &report);
  void runMegakernelWorker(MegakernelRun &run, MegakernelWorker &w);
  bool runItem(MegakernelWorker &w, const sluice_rt_kernel_args &mainArgs,
               uint32_t owner, uint32_t slot);
};

CpuDevice::CpuDevice(CpuDeviceOptions options)
    : impl_(std::make_unique<Impl>(options)) {
  if (impl_->options.blockSize == 0)
    impl_->options.blockSize = 64;
}

CpuDevice::~CpuDevice() = default;

uint32_t CpuDevice::workerCount() const { return impl_->pool.workerCount(); }

Status CpuDevice::allocate(const ProgramDescriptor &program,
                           const ProgramShape &shape, uint32_t framePool) {
  impl_->program = &program;
  impl_->shapeCopy = shape;
  impl_->framePool = framePool;
  impl_->allocated = false;
  Status status = impl_->allocateBuffers();
  impl_->allocated = status.ok();
  if (impl_->allocated) {
    impl_->resetState();
    noteAllocation();
  }
  return status;
}

Status CpuDevice::Impl::allocateBuffers() {
  for (uint32_t s = 0; s < shape->mainStageCount(); ++s)
    if (!program->mainStages[s].kernel)
      return Status::error(ErrorKind::InvalidDescriptor, "cpu device: main " +
                                                             stageLabel(s) +
                                                             " has no kernel");
  for (uint32_t o = 0; o < shape->ownerCount(); ++o)
    for (uint32_t i = 0; i < shape->ownerStageCount(o); ++i)
      if (!program->owners[o].stages[i].kernel)
        return Status::error(
            ErrorKind::InvalidDescriptor,
            "cpu device: " + stageLabel(shape->globalStage(o, i)) +
                " has no kernel");
  if (framePool == 0)
    return Status::error(ErrorKind::InvalidArgument,
                         "cpu device: frame pool of 0 frames");

  if (Status status =
          computeFrameLayout(program->frameLayout, framePool, layout);
      !status.ok())
    return status;
  auto outOfMemory = [&](const std::string &what, uint64_t bytes) {
    return Status::error(ErrorKind::OutOfMemory,
                         "cpu device: cannot allocate " + what + " (" +
                             std::to_string(bytes) + " bytes)");
  };
  if (!frameBuffer.allocate(layout.totalBytes))
    return outOfMemory("the frame buffer", layout.totalBytes);

  laneOfFrame.assign(framePool, 0);
  freeFrames.assign(framePool, 0);
  mainQueues.assign(shape->mainStageCount(), IndexQueue());
  for (IndexQueue &queue : mainQueues)
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
    if (!owner.payload.allocate(payloadBytes))
      return outOfMemory("items of " + ownerLabel(o), payloadBytes);
    owner.freeRing.assign(desc.capacity, 0);
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
  args.frames.base = frameBuffer.data();
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

void CpuDevice::Impl::resetState() {
  for (uint32_t f = 0; f < framePool; ++f)
    freeFrames[f] = framePool - 1 - f; // frame 0 is refilled first
  freeFrameCount = framePool;
  for (IndexQueue &queue : mainQueues)
    queue.clear();
  for (uint32_t o = 0; o < owners.size(); ++o) {
    OwnerStorage &owner = owners[o];
    for (uint32_t slot = 0; slot < owner.capacity; ++slot)
      owner.freeRing[slot] = slot;
    owner.allocHead = 0;
    owner.freeTail = owner.capacity;
    for (IndexQueue &queue : owner.stageQueues)
      queue.clear();
    owner.live = 0;
    owner.published = 0;
    owner.released = 0;
    sluice_rt_owner_slots &slots = ownerSlots[o];
    slots.payload = owner.payload.data();
    slots.item_stride = owner.itemStride;
    slots.free_ring = owner.freeRing.data();
    slots.alloc_head = &owner.allocHead;
    slots.capacity = owner.capacity;
  }
  lanesStarted = 0;
  lanesFinished = 0;
  fault = sluice_rt_fault{};
  pendingError = Status::success();
}

void CpuDevice::reset() {
  if (impl_->allocated)
    impl_->resetState();
}

void CpuDevice::refill(uint32_t lanes) {
  Impl &d = *impl_;
  if (!d.pendingError.ok())
    return;
  if (lanes > d.freeFrameCount) {
    d.fail(ErrorKind::InvalidArgument,
           "cpu device: refill of " + std::to_string(lanes) +
               " lanes but only " + std::to_string(d.freeFrameCount) +
               " frames are free");
    return;
  }
  IndexQueue &entry = d.mainQueues[d.shape->entryStage()];
  for (uint32_t i = 0; i < lanes; ++i) {
    uint32_t frame = d.freeFrames[--d.freeFrameCount];
    d.laneOfFrame[frame] = uint32_t(d.lanesStarted++);
    entry.push(frame); // cannot fail: the queue holds every frame
  }
}

void CpuDevice::Impl::prepareOwnerSlots(
    std::span<const ProducerEdge> producers) {
  for (uint32_t o = 0; o < owners.size(); ++o) {
    ownerSlots[o].bound = 0;
    ownerSlots[o].publish_base = 0;
    ownerSlots[o].alloc_limit = owners[o].freeTail;
  }
  for (const ProducerEdge &edge : producers) {
    ownerSlots[edge.owner].bound = edge.bound;
    ownerSlots[edge.owner].publish_base = edge.publishBase;
  }
}

bool CpuDevice::Impl::runKernel(sluice_rt_stage_kernel kernel,
                                const sluice_rt_kernel_args &args,
                                uint32_t count) {
  std::fill_n(nextStage.begin(), count, SLUICE_RT_UNDECIDED);
  KernelLaunch launch{kernel, &args, count, options.blockSize};
  uint32_t blocks =
      uint32_t((uint64_t(count) + options.blockSize - 1) / options.blockSize);
  pool.run(blocks, runLaunchBlock, &launch);
  return takeFault(args);
}

// Converts a recorded kernel fault into the pending error; false if any.
bool CpuDevice::Impl::takeFault(const sluice_rt_kernel_args &args) {
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

void CpuDevice::dispatch(uint32_t stage, uint32_t count) {
  Impl &d = *impl_;
  if (!d.pendingError.ok())
    return;
  if (!d.allocated || stage >= d.shape->totalStageCount()) {
    d.fail(ErrorKind::InvalidArgument,
           "cpu device: dispatch of stage " + std::to_string(stage) +
               (d.allocated ? " out of range" : " before allocate()"));
    return;
  }
  if (count == 0)
    return;
  if (d.shape->stage(stage).kind == StageKind::Main)
    d.dispatchMain(stage, count);
  else
    d.dispatchAuxiliary(stage, count);
}

void CpuDevice::Impl::dispatchMain(uint32_t stage, uint32_t count) {
  IndexQueue &queue = mainQueues[stage];
  if (count > queue.size()) {
    fail(ErrorKind::InvalidArgument, "cpu device: dispatch of " +
                                         std::to_string(count) + " frames at " +
                                         stageLabel(stage) + " which holds " +
                                         std::to_string(queue.size()));
    return;
  }
  queue.popFront(count, invocations.data());
  std::span<const ProducerEdge> producers = shape->producersOf(stage);
  prepareOwnerSlots(producers);
  if (!producers.empty())
    std::fill_n(publishedCounts.begin(), uint64_t(count) * owners.size(), 0);

  sluice_rt_kernel_args args = argsTemplate;
  args.stage = stage;
  args.owner = SLUICE_RT_NO_OWNER;
  args.count = count;
  args.publish_stride = shape->publishStride(stage);
  if (!runKernel(program->mainStages[stage].kernel, args, count))
    return;

  // Route outcomes in invocation order.
  uint32_t mainStages = shape->mainStageCount();
  uint32_t ownerCount = uint32_t(owners.size());
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t frame = invocations[i];
    uint32_t next = nextStage[i];
    if (next == SLUICE_RT_FINISHED) {
      freeFrames[freeFrameCount++] = frame;
      ++lanesFinished;
    } else if (next < mainStages) {
      mainQueues[next].push(frame);
    } else if (next == SLUICE_RT_UNDECIDED) {
      fail(ErrorKind::LinearityViolation,
           stageLabel(stage) + " invocation " + std::to_string(i) + " (lane " +
               std::to_string(laneOfFrame[frame]) +
               ") neither moved nor finished its frame");
      return;
    } else {
      fail(ErrorKind::InvalidTransition,
           stageLabel(stage) + " moved lane " +
               std::to_string(laneOfFrame[frame]) + " to main stage " +
               std::to_string(next) + ", but the program has " +
               std::to_string(mainStages) + " main stages");
      return;
    }
    for (const ProducerEdge &edge : producers) {
      OwnerStorage &owner = owners[edge.owner];
      uint32_t published =
          publishedCounts[uint64_t(i) * ownerCount + edge.owner];
      const uint32_t *slots = publishedSlots.data() +
                              uint64_t(i) * args.publish_stride +
                              edge.publishBase;
      for (uint32_t k = 0; k < published; ++k) {
        if (!owner.stageQueues[0].push(slots[k])) {
          fail(ErrorKind::CapacityExceeded,
               "cpu device: first stage queue of " + ownerLabel(edge.owner) +
                   " overflowed its capacity " +
                   std::to_string(owner.capacity));
          return;
        }
      }
      owner.live += published;
      owner.published += published;
    }
  }
}

void CpuDevice::Impl::dispatchAuxiliary(uint32_t stage, uint32_t count) {
  const StageRef &ref = shape->stage(stage);
  OwnerStorage &owner = owners[ref.owner];
  IndexQueue &queue = owner.stageQueues[ref.ownerStage];
  if (count > queue.size()) {
    fail(ErrorKind::InvalidArgument, "cpu device: dispatch of " +
                                         std::to_string(count) + " items at " +
                                         stageLabel(stage) + " which holds " +
                                         std::to_string(queue.size()));
    return;
  }
  queue.popFront(count, invocations.data());
  prepareOwnerSlots({});

  sluice_rt_kernel_args args = argsTemplate;
  args.stage = stage;
  args.owner = ref.owner;
  args.owner_stage = ref.ownerStage;
  args.count = count;
  args.publish_stride = 0;
  const StageDesc &desc = program->owners[ref.owner].stages[ref.ownerStage];
  if (!runKernel(desc.kernel, args, count))
    return;

  uint32_t ownerStages = uint32_t(owner.stageQueues.size());
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t slot = invocations[i];
    uint32_t next = nextStage[i];
    if (next == SLUICE_RT_FINISHED) {
      owner.freeRing[owner.freeTail % owner.capacity] = slot;
      ++owner.freeTail;
      --owner.live;
      ++owner.released;
    } else if (next < ownerStages) {
      owner.stageQueues[next].push(slot); // at most `capacity` items live
    } else if (next == SLUICE_RT_UNDECIDED) {
      fail(ErrorKind::LinearityViolation,
           stageLabel(stage) + " invocation " + std::to_string(i) +
               " (item slot " + std::to_string(slot) +
               ") neither moved nor released its item");
      return;
    } else {
      fail(ErrorKind::InvalidTransition,
           stageLabel(stage) + " moved an item to stage " +
               std::to_string(next) + " of " + ownerLabel(ref.owner) +
               ", which has " + std::to_string(ownerStages) + " stages");
      return;
    }
  }
}

Status CpuDevice::readCounts(Observation &out) {
  Impl &d = *impl_;
  if (!d.allocated)
    return Status::error(ErrorKind::InvalidState,
                         "cpu device: readCounts() before allocate()");
  // Dispatches ran to completion when they returned: the stream is idle.
  if (!d.pendingError.ok())
    return d.pendingError;
  const ProgramShape &shape = *d.shape;
  if (out.stageCounts.size() != shape.totalStageCount())
    out.resize(shape);
  for (uint32_t s = 0; s < shape.mainStageCount(); ++s)
    out.stageCounts[s] = d.mainQueues[s].size();
  for (uint32_t o = 0; o < shape.ownerCount(); ++o) {
    const OwnerStorage &owner = d.owners[o];
    uint32_t base = shape.ownerStageBase(o);
    for (uint32_t i = 0; i < owner.stageQueues.size(); ++i)
      out.stageCounts[base + i] = owner.stageQueues[i].size();
    out.ownerLive[o] = owner.live;
    out.ownerPublished[o] = owner.published;
    out.ownerReleased[o] = owner.released;
  }
  out.freeFrames = d.freeFrameCount;
  out.lanesStarted = d.lanesStarted;
  out.lanesFinished = d.lanesFinished;
  return Status::success();
}

Status CpuDevice::runStateMachine(uint32_t lanes, StateMachineReport &report) {
  if (!impl_->allocated)
    return Status::error(ErrorKind::InvalidState,
                         "cpu device: runStateMachine() before allocate()");
  impl_->resetState();
  return impl_->runStateMachine(lanes, report);
}

//===----------------------------------------------------------------------===//
// State-machine (megakernel) schedule
//===----------------------------------------------------------------------===//

void CpuDevice::Impl::runMegakernelWorker(MegakernelRun &run,
                                          MegakernelWorker &w) {
  sluice_rt_kernel_args args = argsTemplate;
  args.invocations = &w.invocation;
  args.next_stage = &w.outcome;
  args.owners = w.slots.data();
  args.published_counts = w.publishedCounts.data();
  args.published_slots = w.publishedSlots.data();
  args.fault = &w.fault;
  args.count = 1;
  args.owner = SLUICE_RT_NO_OWNER;
  while (!run.stop.load(std::memory_order_relaxed)) {
    uint64_t claimed = run.nextLane.fetch_add(1, std::memory_order_relaxed);
    if (claimed >= run.lanes)
      return;
    uint32_t lane = uint32_t(claimed);
    laneOfFrame[w.frame] = lane;
    uint32_t stage = shape->entryStage();
    for (;;) {
      std::span<const ProducerEdge> producers = shape->producersOf(stage);
      for (uint32_t o = 0; o < w.slots.size(); ++o) {
        w.slots[o].bound = 0;
        w.slots[o].alloc_limit = w.freeTails[o];
        w.publishedCounts[o] = 0;
      }
      for (const ProducerEdge &edge : producers) {
        w.slots[edge.owner].bound = edge.bound;
        w.slots[edge.owner].publish_base = edge.publishBase;
      }
      args.stage = stage;
      args.owner = SLUICE_RT_NO_OWNER;
      args.publish_stride = shape->publishStride(stage);
      w.invocation = w.frame;
      w.outcome = SLUICE_RT_UNDECIDED;
      program->mainStages[stage].kernel(&args, 0, 1);
      StageStatistics &stats = w.stats[stage];
      ++stats.invocations;
      if (w.fault.code != SLUICE_RT_FAULT_NONE) {
        run.stop.store(true);
        return;
      }
      // Depth-first: every item of this invocation is released before the
      // lane continues, so the worker never holds more than `bound` items.
      uint32_t next = w.outcome;
      for (const ProducerEdge &edge : producers) {
        uint32_t published = w.publishedCounts[edge.owner];
        stats.itemsPublished += published;
        for (uint32_t k = 0; k < published; ++k) {
          if (!runItem(w, args, edge.owner,
                       w.publishedSlots[edge.publishBase + k])) {
            run.stop.store(true);
            return;
          }
        }
      }
      if (next == SLUICE_RT_FINISHED) {
        ++w.lanesFinished;
        break;
      }
      if (next >= shape->mainStageCount()) {
        bool undecided = next == SLUICE_RT_UNDECIDED;
        w.error = Status::error(
            undecided ? ErrorKind::LinearityViolation
                      : ErrorKind::InvalidTransition,
            stageLabel(stage) + " lane " + std::to_string(lane) +
                (undecided
                     ? " neither moved nor finished its frame"
                     : " moved to main stage " + std::to_string(next) + " of " +
                           std::to_string(shape->mainStageCount())));
        run.stop.store(true);
        return;
      }
      stage = next;
    }
  }
}

Status CpuDevice::Impl::runStateMachine(uint32_t lanes,
                                        StateMachineReport &report) {
  uint32_t workerCount = std::min(pool.workerCount(), framePool);
  for (uint32_t o = 0; o < owners.size(); ++o)
    if (uint32_t bound = shape->maxBoundInto(o))
      workerCount = std::min(workerCount, owners[o].capacity / bound);
  workerCount = std::max<uint32_t>(workerCount, 1);

  std::vector<MegakernelWorker> workers(workerCount);
  uint32_t ownerCount = uint32_t(owners.size());
  uint32_t largestStride = 0;
  for (uint32_t s = 0; s < shape->mainStageCount(); ++s)
    largestStride = std::max(largestStride, shape->publishStride(s));
  for (uint32_t w = 0; w < workerCount; ++w) {
    MegakernelWorker &worker = workers[w];
    worker.frame = w;
    worker.publishedCounts.assign(ownerCount, 0);
    worker.publishedSlots.assign(std::max<uint32_t>(largestStride, 1), 0);
    worker.slots.assign(ownerCount, sluice_rt_owner_slots{});
    worker.rings.resize(ownerCount);
    worker.allocHeads.assign(ownerCount, 0);
    worker.freeTails.assign(ownerCount, 0);
    worker.stats.assign(shape->totalStageCount(), StageStatistics{});
    for (uint32_t o = 0; o < ownerCount; ++o) {
      uint32_t share = std::max<uint32_t>(shape->maxBoundInto(o), 1);
      std::vector<uint32_t> &ring = worker.rings[o];
      ring.resize(share);
      for (uint32_t k = 0; k < share; ++k)
        ring[k] = (w * share + k) % owners[o].capacity;
      worker.freeTails[o] = share;
      sluice_rt_owner_slots &slots = worker.slots[o];
      slots.payload = owners[o].payload.data();
      slots.item_stride = owners[o].itemStride;
      slots.free_ring = ring.data();
      slots.alloc_head = &worker.allocHeads[o];
      slots.capacity = share;
    }
  }

  MegakernelRun run;
  run.device = this;
  run.workers = &workers;
  run.lanes = lanes;
  auto body = [](void *context, uint32_t block, uint32_t) {
    MegakernelRun &run = *static_cast<MegakernelRun *>(context);
    run.device->runMegakernelWorker(run, (*run.workers)[block]);
  };
  pool.run(workerCount, body, &run);

  report.stages.assign(shape->totalStageCount(), StageStatistics{});
  report.lanesFinished = 0;
  report.workersUsed = workerCount;
  for (MegakernelWorker &worker : workers) {
    if (worker.fault.code != SLUICE_RT_FAULT_NONE) {
      fault = worker.fault;
      sluice_rt_kernel_args args = argsTemplate;
      args.owners = worker.slots.data();
      takeFault(args);
      fault = sluice_rt_fault{};
      return pendingError;
    }
    if (!worker.error.ok())
      return worker.error;
    for (uint32_t s = 0; s < worker.stats.size(); ++s) {
      StageStatistics &total = report.stages[s];
      total.invocations += worker.stats[s].invocations;
      total.itemsPublished += worker.stats[s].itemsPublished;
      total.itemsReleased += worker.stats[s].itemsReleased;
    }
    report.lanesFinished += worker.lanesFinished;
  }
  lanesStarted = lanes;
  lanesFinished = report.lanesFinished;
  return Status::success();
}

// Runs one item through its owner's stages until it is released.
bool CpuDevice::Impl::runItem(MegakernelWorker &w,
                              const sluice_rt_kernel_args &mainArgs,
                              uint32_t owner, uint32_t slot) {
  const OwnerDesc &desc = program->owners[owner];
  sluice_rt_kernel_args args = mainArgs;
  args.owner = owner;
  args.publish_stride = 0;
  for (uint32_t o = 0; o < w.slots.size(); ++o)
    w.slots[o].bound = 0;
  uint32_t ownerStage = 0;
  for (;;) {
    uint32_t stage = shape->globalStage(owner, ownerStage);
    args.stage = stage;
    args.owner_stage = ownerStage;
    w.invocation = slot;
    w.outcome = SLUICE_RT_UNDECIDED;
    desc.stages[ownerStage].kernel(&args, 0, 1);
    StageStatistics &stats = w.stats[stage];
    ++stats.invocations;
    if (w.fault.code != SLUICE_RT_FAULT_NONE)
      return false;
    uint32_t next = w.outcome;
    if (next == SLUICE_RT_FINISHED) {
      ++stats.itemsReleased;
      std::vector<uint32_t> &ring = w.rings[owner];
      ring[w.freeTails[owner] % ring.size()] = slot;
      ++w.freeTails[owner];
      return true;
    }
    if (next >= desc.stages.size()) {
      w.error = Status::error(
          next == SLUICE_RT_UNDECIDED ? ErrorKind::LinearityViolation
                                      : ErrorKind::InvalidTransition,
          stageLabel(stage) + " item slot " + std::to_string(slot) +
              (next == SLUICE_RT_UNDECIDED
                   ? " was neither moved nor released"
                   : " moved to stage " + std::to_string(next) + " of " +
                         std::to_string(desc.stages.size())));
      return false;
    }
    ownerStage = next;
  }
}

} // namespace sluice::runtime
