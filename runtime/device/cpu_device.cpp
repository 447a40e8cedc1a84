//===- cpu_device.cpp - CPU device adapter --------------------------------===//

#include "sluice/runtime/device/cpu_device.h"

#include "host_router.h"
#include "resident_router.h"

#include "sluice/runtime/device/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
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
  size_t size() const { return size_; }

private:
  void release() {
    if (data_)
      ::operator delete(data_, std::align_val_t(kAlignment));
    data_ = nullptr;
  }
  unsigned char *data_ = nullptr;
  size_t size_ = 0;
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

struct CpuDevice::Impl final : HostRouter::Memory {
  CpuDeviceOptions options;
  std::unique_ptr<WorkerPool> ownPool; // without options.pool
  WorkerPool &pool;
  // The host-side protocol; frames and payloads live in the buffers below.
  HostRouter router{"cpu device"};
  CpuDeviceStats stats;
  AlignedBuffer frameBuffer;
  std::vector<AlignedBuffer> payloads; // per owner
  CpuDevice::StateMachineRunner stateMachineRunner;

  explicit Impl(const CpuDeviceOptions &options)
      : options(options),
        ownPool(options.pool ? nullptr
                             : std::make_unique<WorkerPool>(
                                   options.workers, options.arenaInlineBytes)),
        pool(options.pool ? *options.pool : *ownPool) {
    if (pool.workerCount() > 1)
      router.parallel = &pool;
  }

  Status allocateFrames(uint64_t bytes, unsigned char *&out) override {
    out = frameBuffer.allocate(bytes) ? frameBuffer.data() : nullptr;
    // The router says what could not be allocated.
    return out ? Status::success() : Status::error(ErrorKind::OutOfMemory, "");
  }
  unsigned char *allocatePayload(uint32_t owner, uint64_t bytes) override {
    if (payloads.size() <= owner)
      payloads.resize(size_t(owner) + 1);
    return payloads[owner].allocate(bytes) ? payloads[owner].data() : nullptr;
  }

  void runKernel(sluice_rt_stage_kernel kernel,
                 const sluice_rt_kernel_args &args);
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
  impl_->router.laneLimit = impl_->options.laneLimit;
}

CpuDevice::~CpuDevice() = default;

uint32_t CpuDevice::workerCount() const { return impl_->pool.workerCount(); }

Status CpuDevice::allocate(const ProgramDescriptor &program,
                           const ProgramShape &shape, uint32_t framePool) {
  // A run of the program and frame pool allocated last keeps that storage,
  // as CompiledKernelDevice::allocate does (a renderer's next pass).
  if (impl_->router.holds(program, framePool)) {
    impl_->router.reset();
    return Status::success();
  }
  Status status = impl_->router.allocate(program, shape, framePool, *impl_);
  if (status.ok()) {
    impl_->payloads.resize(shape.ownerCount()); // drop a larger program's
    noteAllocation();
  }
  return status;
}

void CpuDevice::reset() {
  impl_->router.reset();
  impl_->stats = CpuDeviceStats{};
}

const CpuDeviceStats &CpuDevice::stats() const { return impl_->stats; }

void CpuDevice::refill(uint32_t lanes) { impl_->router.refill(lanes); }

void CpuDevice::setFrameSorting(const FrameSorting &sorting) {
  impl_->router.setFrameSorting(sorting);
}

void CpuDevice::Impl::runKernel(sluice_rt_stage_kernel kernel,
                                const sluice_rt_kernel_args &args) {
  KernelLaunch launch{kernel, &args, args.count, options.blockSize};
  uint32_t blocks = uint32_t((uint64_t(args.count) + options.blockSize - 1) /
                             options.blockSize);
  pool.run(blocks, runLaunchBlock, &launch);
}

Status CpuDevice::residentSupport() const { return Status::success(); }

Status CpuDevice::runResident(const ResidentRun &run, ResidentLog &log) {
  auto start = std::chrono::steady_clock::now();
  auto runKernel = [](void *context, sluice_rt_stage_kernel kernel,
                      const sluice_rt_kernel_args &args) {
    auto &impl = *static_cast<Impl *>(context);
    auto launched = std::chrono::steady_clock::now();
    impl.runKernel(kernel, args);
    ++impl.stats.dispatches;
    impl.stats.kernelNanoseconds +=
        std::chrono::duration<double, std::nano>(
            std::chrono::steady_clock::now() - launched)
            .count();
  };
  impl_->stats = CpuDeviceStats{};
  Status status =
      runResidentLoop(impl_->router, run, runKernel, impl_.get(), log);
  impl_->stats.dispatchNanoseconds =
      std::chrono::duration<double, std::nano>(
          std::chrono::steady_clock::now() - start)
          .count();
  impl_->stats.sortedDispatches = impl_->router.sortStats.dispatches;
  impl_->stats.sortNanoseconds = impl_->router.sortStats.nanoseconds;
  return status;
}

uint32_t CpuDevice::lastDispatchOrder() const {
  return impl_->router.lastOrder;
}

void CpuDevice::dispatch(uint32_t stage, uint32_t count) {
  using Clock = std::chrono::steady_clock;
  HostRouter &router = impl_->router;
  CpuDeviceStats &stats = impl_->stats;
  auto start = Clock::now();
  sluice_rt_kernel_args args;
  if (!router.beginDispatch(stage, count, args))
    return;
  auto launched = Clock::now();
  impl_->runKernel(router.kernelOf(stage), args);
  auto ran = Clock::now();
  router.finishDispatch(args);
  ++stats.dispatches;
  stats.kernelNanoseconds +=
      std::chrono::duration<double, std::nano>(ran - launched).count();
  stats.dispatchNanoseconds +=
      std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  stats.sortedDispatches = router.sortStats.dispatches;
  stats.sortNanoseconds = router.sortStats.nanoseconds;
}

Status CpuDevice::readCounts(Observation &out) {
  // Dispatches ran to completion when they returned: the stream is idle.
  return impl_->router.readCounts(out);
}

void CpuDevice::setStateMachineRunner(StateMachineRunner runner) {
  impl_->stateMachineRunner = std::move(runner);
}

Status CpuDevice::runStateMachine(uint32_t lanes, StateMachineReport &report) {
  if (!impl_->router.allocated())
    return Status::error(ErrorKind::InvalidState,
                         "cpu device: runStateMachine() before allocate()");
  if (impl_->stateMachineRunner)
    return impl_->stateMachineRunner(impl_->router, impl_->frameBuffer.data(),
                                     impl_->frameBuffer.size(), lanes, report);
  impl_->router.reset();
  if (lanes > impl_->router.laneLimit)
    return Status::error(ErrorKind::InvalidArgument,
                         "cpu device: a state-machine run of " +
                             std::to_string(lanes) +
                             " lanes, but the program was loaded for " +
                             std::to_string(impl_->router.laneLimit) +
                             " (BackendOptions::lanes)");
  return impl_->runStateMachine(lanes, report);
}

//===----------------------------------------------------------------------===//
// State-machine (megakernel) schedule
//===----------------------------------------------------------------------===//

void CpuDevice::Impl::runMegakernelWorker(MegakernelRun &run,
                                          MegakernelWorker &w) {
  sluice_rt_kernel_args args = router.argsTemplate;
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
    router.laneOfFrame[w.frame] = lane;
    uint32_t stage = router.shape->entryStage();
    for (;;) {
      std::span<const ProducerEdge> producers =
          router.shape->producersOf(stage);
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
      args.publish_stride = router.shape->publishStride(stage);
      w.invocation = w.frame;
      w.outcome = SLUICE_RT_UNDECIDED;
      router.program->mainStages[stage].kernel(&args, 0, 1);
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
      if (next >= router.shape->mainStageCount()) {
        bool undecided = next == SLUICE_RT_UNDECIDED;
        w.error = Status::error(
            undecided ? ErrorKind::LinearityViolation
                      : ErrorKind::InvalidTransition,
            router.stageLabel(stage) + " lane " + std::to_string(lane) +
                (undecided
                     ? " neither moved nor finished its frame"
                     : " moved to main stage " + std::to_string(next) + " of " +
                           std::to_string(router.shape->mainStageCount())));
        run.stop.store(true);
        return;
      }
      stage = next;
    }
  }
}

Status CpuDevice::Impl::runStateMachine(uint32_t lanes,
                                        StateMachineReport &report) {
  uint32_t workerCount = std::min(pool.workerCount(), router.framePool);
  for (uint32_t o = 0; o < router.owners.size(); ++o)
    if (uint32_t bound = router.shape->maxBoundInto(o))
      workerCount = std::min(workerCount, router.owners[o].capacity / bound);
  workerCount = std::max<uint32_t>(workerCount, 1);

  std::vector<MegakernelWorker> workers(workerCount);
  uint32_t ownerCount = uint32_t(router.owners.size());
  uint32_t largestStride = 0;
  for (uint32_t s = 0; s < router.shape->mainStageCount(); ++s)
    largestStride = std::max(largestStride, router.shape->publishStride(s));
  for (uint32_t w = 0; w < workerCount; ++w) {
    MegakernelWorker &worker = workers[w];
    worker.frame = w;
    worker.publishedCounts.assign(ownerCount, 0);
    worker.publishedSlots.assign(std::max<uint32_t>(largestStride, 1), 0);
    worker.slots.assign(ownerCount, sluice_rt_owner_slots{});
    worker.rings.resize(ownerCount);
    worker.allocHeads.assign(ownerCount, 0);
    worker.freeTails.assign(ownerCount, 0);
    worker.stats.assign(router.shape->totalStageCount(), StageStatistics{});
    for (uint32_t o = 0; o < ownerCount; ++o) {
      uint32_t share = std::max<uint32_t>(router.shape->maxBoundInto(o), 1);
      std::vector<uint32_t> &ring = worker.rings[o];
      ring.resize(share);
      for (uint32_t k = 0; k < share; ++k)
        ring[k] = (w * share + k) % router.owners[o].capacity;
      worker.freeTails[o] = share;
      sluice_rt_owner_slots &slots = worker.slots[o];
      slots.payload = router.owners[o].payload;
      slots.item_stride = router.owners[o].itemStride;
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

  report.stages.assign(router.shape->totalStageCount(), StageStatistics{});
  report.lanesFinished = 0;
  report.workersUsed = workerCount;
  for (MegakernelWorker &worker : workers) {
    if (worker.fault.code != SLUICE_RT_FAULT_NONE) {
      sluice_rt_kernel_args args = router.argsTemplate;
      args.owners = worker.slots.data();
      args.fault = &worker.fault;
      router.takeFault(args);
      return router.pendingError();
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
  router.lanesStarted = lanes;
  router.lanesFinished = report.lanesFinished;
  return Status::success();
}

// Runs one item through its owner's stages until it is released.
bool CpuDevice::Impl::runItem(MegakernelWorker &w,
                              const sluice_rt_kernel_args &mainArgs,
                              uint32_t owner, uint32_t slot) {
  const OwnerDesc &desc = router.program->owners[owner];
  sluice_rt_kernel_args args = mainArgs;
  args.owner = owner;
  args.publish_stride = 0;
  for (uint32_t o = 0; o < w.slots.size(); ++o)
    w.slots[o].bound = 0;
  uint32_t ownerStage = 0;
  for (;;) {
    uint32_t stage = router.shape->globalStage(owner, ownerStage);
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
          router.stageLabel(stage) + " item slot " + std::to_string(slot) +
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
