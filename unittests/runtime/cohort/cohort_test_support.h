//===- cohort_test_support.h - Probes, barriers and watchdogs ---*- C++ -*-===//
//
// Test kernels record what happened independently of the executor: per-block
// run counts, whether every producer had finished when a block started, and
// whether a cohort's blocks were co-resident (a cross-block spin barrier that
// times out instead of hanging).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_UNITTESTS_COHORT_TEST_SUPPORT_H
#define SLUICE_UNITTESTS_COHORT_TEST_SUPPORT_H

#include "sluice/runtime/cohort/executor.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::runtime::cohort::testing {

/// "asan", "tsan" or "" (SLUICE_UNDER_SANITIZER, set by ctest).
inline std::string underSanitizer() {
  const char *value = std::getenv("SLUICE_UNDER_SANITIZER");
  return value ? value : "";
}

/// Fails the whole test binary (instead of hanging it) when not disarmed in
/// time.
class Watchdog {
public:
  Watchdog(std::string what, std::chrono::seconds limit)
      : what_(std::move(what)) {
    thread_ = std::thread([this, limit] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!cv_.wait_for(lock, limit, [this] { return disarmed_; })) {
        std::fprintf(stderr, "WATCHDOG: '%s' did not finish within %lld s\n",
                     what_.c_str(), static_cast<long long>(limit.count()));
        std::fflush(stderr);
        std::_Exit(3);
      }
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      disarmed_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

private:
  std::string what_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool disarmed_ = false;
  std::thread thread_;
};

/// Observes one task: per-block runs, producer completion at block start,
/// and (for cohorts) a cross-block spin barrier.
struct TaskProbe {
  std::string name;
  int64_t blocks = 0;
  bool barrier = false;
  std::vector<TaskProbe *> producers;
  std::unique_ptr<std::atomic<int32_t>[]> runs;
  std::atomic<int64_t> finishedBlocks{0};
  std::atomic<int64_t> arrived{0};
  std::atomic<int32_t> dependencyViolations{0};
  std::atomic<int32_t> barrierTimeouts{0};
  std::atomic<int64_t> maxConcurrent{0};
  std::atomic<int64_t> concurrent{0};
  std::chrono::milliseconds barrierLimit{20000};
  /// Extra work per block, in spin iterations.
  int64_t work = 0;
  /// One block that sleeps, so consumers are staged early while it runs.
  int64_t slowBlock = -1;
  std::chrono::microseconds slowFor{0};
  /// The slow block first waits (up to 10 s) for every other block of its
  /// task to finish, so that the task is fully published when it sleeps:
  /// a scene that asserts early staging does not depend on how fast a
  /// loaded machine runs the other blocks. Needs two or more cores.
  bool slowAfterOthers = false;
  std::atomic<int64_t> sink{0};

  TaskProbe(std::string taskName, int64_t blockCount, bool useBarrier)
      : name(std::move(taskName)), blocks(blockCount), barrier(useBarrier),
        runs(std::make_unique<std::atomic<int32_t>[]>(blockCount)) {}

  static void kernel(void *user, int64_t block, int64_t blockCount) {
    static_cast<TaskProbe *>(user)->runBlock(block, blockCount);
  }

  void runBlock(int64_t block, int64_t blockCount) {
    for (TaskProbe *producer : producers)
      if (producer->finishedBlocks.load(std::memory_order_acquire) !=
          producer->blocks)
        dependencyViolations.fetch_add(1);
    if (block < 0 || block >= blocks || blockCount != blocks) {
      dependencyViolations.fetch_add(1000);
      return;
    }
    runs[block].fetch_add(1);
    int64_t now = concurrent.fetch_add(1) + 1;
    int64_t seen = maxConcurrent.load();
    while (now > seen && !maxConcurrent.compare_exchange_weak(seen, now)) {
    }
    if (barrier) {
      // Deadlocks unless all blocks are co-resident; times out instead.
      arrived.fetch_add(1, std::memory_order_acq_rel);
      auto deadline = std::chrono::steady_clock::now() + barrierLimit;
      int64_t spins = 0;
      while (arrived.load(std::memory_order_acquire) < blocks) {
        if (++spins > 64)
          std::this_thread::yield();
        if ((spins & 255) == 0 && std::chrono::steady_clock::now() > deadline) {
          barrierTimeouts.fetch_add(1);
          break;
        }
      }
    }
    if (block == slowBlock) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (slowAfterOthers &&
             finishedBlocks.load(std::memory_order_acquire) < blocks - 1 &&
             std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
      std::this_thread::sleep_for(slowFor);
    }
    int64_t acc = 0;
    for (int64_t i = 0; i < work; ++i)
      acc += i ^ block;
    sink.fetch_add(acc, std::memory_order_relaxed);
    concurrent.fetch_sub(1);
    finishedBlocks.fetch_add(1, std::memory_order_acq_rel);
  }

  /// Blocks that ran a number of times other than once, as text.
  std::string runAnomalies() const {
    std::string out;
    for (int64_t block = 0; block < blocks; ++block) {
      int32_t count = runs[block].load();
      if (count != 1)
        out += " block " + std::to_string(block) + " ran " +
               std::to_string(count) + "x;";
    }
    return out;
  }
  int64_t totalRuns() const {
    int64_t total = 0;
    for (int64_t block = 0; block < blocks; ++block)
      total += runs[block].load();
    return total;
  }
};

} // namespace sluice::runtime::cohort::testing

#endif // SLUICE_UNITTESTS_COHORT_TEST_SUPPORT_H
