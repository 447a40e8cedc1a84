//===- worker_pool.h - Block worker pool of the CPU device ------*- C++ -*-===//
//
// Runs the blocks of one dispatch on a fixed set of workers: the calling
// thread plus (workers - 1) background threads. Blocks are claimed through
// one atomic counter, so every block runs exactly once. Each worker owns a
// coroutine frame arena that is bound while it runs blocks and reset at every
// block boundary; arenas are released when the pool (its workers) exits.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_WORKER_POOL_H
#define SLUICE_RUNTIME_DEVICE_WORKER_POOL_H

#include "sluice/runtime/arena/arena.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice::runtime {

// Sizes a scratch vector that is reused across dispatches to at least `size`
// elements and never shrinks it: a resize up value-initializes (zero-fills)
// the new elements, which a vector resized to each dispatch's count would
// pay on every dispatch.
template <typename T> void growScratch(std::vector<T> &scratch, size_t size) {
  if (scratch.size() < size)
    scratch.resize(size);
}

// One worker per core when `requested` is zero.
uint32_t defaultWorkerCount(uint32_t requested);

class WorkerPool {
public:
  // `body(context, block, worker)` runs one block.
  using BlockFunction = void (*)(void *context, uint32_t block,
                                 uint32_t worker);

  explicit WorkerPool(uint32_t workers, size_t arenaInlineBytes =
                                            FrameArena::kDefaultInlineBytes);
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  uint32_t workerCount() const { return uint32_t(arenas_.size()); }
  FrameArena &arena(uint32_t worker) { return *arenas_[worker]; }

  // Runs blocks [0, blockCount) and returns when all have completed. A single
  // block runs on the calling thread without waking anyone, and so does a
  // job that a block of this pool's current job starts (a nested run: the
  // other workers are busy with the outer job).
  void run(uint32_t blockCount, BlockFunction body, void *context);

private:
  struct Job {
    BlockFunction body;
    void *context;
    uint32_t blockCount;
    std::atomic<uint32_t> nextBlock{0};
  };
  void workerLoop(uint32_t worker);
  void runClaims(Job &job, uint32_t worker);

  std::vector<std::unique_ptr<FrameArena>> arenas_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable workAvailable_;
  std::condition_variable workDone_;
  Job *job_ = nullptr; // guarded by mutex_
  // Written under mutex_; read without it too, by the short spins that
  // spare a sleep and a wake-up between back-to-back jobs (worker_pool.cpp).
  std::atomic<uint64_t> generation_{0};
  std::atomic<uint32_t> busyWorkers_{0}; // background workers inside a job
  bool stopping_ = false;                // guarded by mutex_
};

// The process's pool of `workers` workers (0: one per core), made on first
// use and kept until exit. The CPU backend's block launcher
// (sluice_rt_launch_blocks) runs compiled kernels on it, and the CPU device
// running those kernels does its host work between dispatches (routing,
// sorting) on the same workers, so that no second set of threads spins while
// the first runs. Safe to call from any thread; like any pool's, its run()
// takes one job at a time (one thread launching at a time).
WorkerPool &sharedWorkerPool(uint32_t workers);

// How many chunks host work over `items` items (routing a dispatch's
// outcomes, copying its records) is cut into on `pool`: about four a worker,
// none smaller than `itemsPerChunk`, which is about what it takes to be
// worth waking a worker; 1 (run it on the calling thread) without a pool of
// several workers or for fewer than twice `itemsPerChunk` items.
inline uint32_t chunkCount(const WorkerPool *pool, uint64_t items,
                           uint64_t itemsPerChunk = 4096) {
  if (!pool || pool->workerCount() < 2)
    return 1;
  const uint64_t chunks =
      std::min<uint64_t>(items / itemsPerChunk, 4 * pool->workerCount());
  return chunks < 2 ? 1 : uint32_t(chunks);
}

// Runs body(chunk, begin, end) for the `chunks` contiguous ranges that cut
// [0, n) as evenly as integer division does (chunk c is [n * c / chunks,
// n * (c + 1) / chunks)), on the pool's workers and the calling thread, and
// returns when every chunk has run. Chunks are claimed in no fixed order.
template <typename Body>
void runChunks(WorkerPool &pool, uint32_t chunks, uint64_t n, Body &body) {
  struct Context {
    Body *body;
    uint64_t n;
    uint32_t chunks;
  } context{&body, n, chunks};
  pool.run(
      chunks,
      [](void *opaque, uint32_t chunk, uint32_t) {
        const Context &c = *static_cast<const Context *>(opaque);
        (*c.body)(chunk, c.n * chunk / c.chunks, c.n * (chunk + 1) / c.chunks);
      },
      &context);
}

// runChunks over runs of `run` consecutive items of [0, n) (the last run
// shorter): no chunk splits a run, and body(chunk, begin, end) gets item
// ranges. At most `chunks` chunks, fewer when there are fewer runs.
template <typename Body>
void runChunksOfRuns(WorkerPool &pool, uint32_t chunks, uint64_t n,
                     uint64_t run, Body &body) {
  const uint64_t runs = (n + run - 1) / run;
  auto chunkOfRuns = [&](uint32_t chunk, uint64_t first, uint64_t last) {
    body(chunk, first * run, std::min<uint64_t>(last * run, n));
  };
  runChunks(pool, uint32_t(std::min<uint64_t>(chunks, runs)), runs,
            chunkOfRuns);
}

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_WORKER_POOL_H
