//===- worker_pool.cpp - Block worker pool of the CPU device --------------===//

#include "sluice/runtime/device/worker_pool.h"

#include <chrono>
#include <map>

namespace sluice::runtime {

uint32_t defaultWorkerCount(uint32_t requested) {
  if (requested != 0)
    return requested;
  unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : cores;
}

WorkerPool::WorkerPool(uint32_t workers, size_t arenaInlineBytes) {
  workers = defaultWorkerCount(workers);
  for (uint32_t w = 0; w < workers; ++w)
    arenas_.push_back(std::make_unique<FrameArena>(arenaInlineBytes));
  for (uint32_t w = 1; w < workers; ++w)
    threads_.emplace_back([this, w] { workerLoop(w); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  workAvailable_.notify_all();
  for (std::thread &thread : threads_)
    thread.join();
}

namespace {
// The pool whose job of several blocks the thread is running, and as which
// worker; a run() of that pool from such a block runs inline.
thread_local const WorkerPool *runningPool = nullptr;
thread_local uint32_t runningWorker = 0;
} // namespace

void WorkerPool::runClaims(Job &job, uint32_t worker) {
  FrameArena &workerArena = *arenas_[worker];
  FrameArena *previous = bindArena(&workerArena);
  const WorkerPool *outerPool = runningPool;
  const uint32_t outerWorker = runningWorker;
  if (job.blockCount > 1) {
    runningPool = this;
    runningWorker = worker;
  }
  for (;;) {
    uint32_t block = job.nextBlock.fetch_add(1, std::memory_order_relaxed);
    if (block >= job.blockCount)
      break;
    // Launch boundary: frames of the previous block are dead.
    workerArena.reset();
    job.body(job.context, block, worker);
  }
  runningPool = outerPool;
  runningWorker = outerWorker;
  bindArena(previous);
}

namespace {

// How long a thread polls for what it waits on before it sleeps. A
// wavefront run's dispatches follow each other within tens of microseconds,
// about what a futex sleep and wake-up cost, so a short poll saves both on
// every dispatch; a longer one would only burn a core that has nothing to do.
constexpr std::chrono::microseconds kSpin{50};

template <typename Done> bool spinUntil(Done done) {
  auto until = std::chrono::steady_clock::now() + kSpin;
  for (uint32_t i = 1;; ++i) {
    if (done())
      return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0 && std::chrono::steady_clock::now() >= until)
      return false;
  }
}

} // namespace

void WorkerPool::workerLoop(uint32_t worker) {
  uint64_t seenGeneration = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    lock.unlock();
    spinUntil([&] { return generation_.load() != seenGeneration; });
    lock.lock();
    workAvailable_.wait(
        lock, [&] { return stopping_ || generation_ != seenGeneration; });
    if (stopping_)
      return;
    seenGeneration = generation_;
    Job *job = job_;
    if (!job)
      continue; // The job finished before this worker woke.
    ++busyWorkers_;
    lock.unlock();
    runClaims(*job, worker);
    lock.lock();
    if (--busyWorkers_ == 0)
      workDone_.notify_all();
  }
}

void WorkerPool::run(uint32_t blockCount, BlockFunction body, void *context) {
  if (blockCount == 0)
    return;
  Job job;
  job.body = body;
  job.context = context;
  job.blockCount = blockCount;
  if (runningPool == this) { // nested: this thread's worker runs it all
    for (uint32_t block = 0; block < blockCount; ++block)
      body(context, block, runningWorker);
    return;
  }
  if (blockCount == 1 || threads_.empty()) {
    runClaims(job, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    ++generation_;
  }
  workAvailable_.notify_all();
  runClaims(job, 0);
  // Every block is claimed; wait for the workers still running theirs. A
  // worker that wakes after job_ is cleared finds no job.
  spinUntil([&] { return busyWorkers_.load() == 0; });
  std::unique_lock<std::mutex> lock(mutex_);
  workDone_.wait(lock, [&] { return busyWorkers_ == 0; });
  job_ = nullptr;
}

WorkerPool &sharedWorkerPool(uint32_t workers) {
  workers = defaultWorkerCount(workers);
  static std::mutex mutex;
  static std::map<uint32_t, std::unique_ptr<WorkerPool>> pools;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<WorkerPool> &pool = pools[workers];
  if (!pool)
    pool = std::make_unique<WorkerPool>(workers);
  return *pool;
}

} // namespace sluice::runtime
