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

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice::runtime {

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
  // block runs on the calling thread without waking anyone.
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

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_WORKER_POOL_H
