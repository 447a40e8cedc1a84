//===- executor_impl.h - Cohort executor internals --------------*- C++ -*-===//
//
// Per-run records and the executor's responsibilities, split by file:
//   dispatch.cpp   - the core loop: claims, early staging, tier-0 launch,
//   gates. completion.cpp - block completion, readiness, publication, the ring.
//   cold_path.cpp  - construction, submit, abort, teardown, results.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_COHORT_EXECUTOR_IMPL_H
#define SLUICE_RUNTIME_COHORT_EXECUTOR_IMPL_H

#include "sluice/runtime/cohort/executor.h"
#include "sluice/runtime/cohort/protocol.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sluice::runtime::cohort {

constexpr size_t kCacheLine = 64;

/// What a slot holds: blocks [begin, end) of `task`. Written only while the
/// slot is Filling (or its core reserved) and read by the owning core after
/// an acquire load of the core word.
struct SlotPayload {
  int64_t begin = 0;
  int64_t end = 0;
  int32_t task = -1;
  uint32_t pad = 0;
};
static_assert(sizeof(SlotPayload) == 24);

/// One executor. Line 0 is written by placers and the owner; line 1 holds the
/// doorbells, written once per cohort block by the ringer and read by the
/// owner while gated.
struct alignas(kCacheLine) CoreRecord {
  std::atomic<uint32_t> word{0};
  /// 1 while the core's thread may touch the current run (hazard flag).
  std::atomic<uint32_t> active{0};
  SlotPayload payload[2];
  alignas(kCacheLine) std::atomic<uint64_t> doorbell[2] = {};
};
static_assert(sizeof(CoreRecord) == 2 * kCacheLine,
              "a core record is its slot line plus its doorbell line");

/// A physical slot: core and buffer index.
struct SlotRef {
  int32_t core = -1;
  int32_t slot = -1;
};

/// Per-task state of one run. Line 0: claim / publication / completion,
/// touched per block range. Line 1: the rendezvous and the route.
struct alignas(kCacheLine) TaskRecord {
  std::atomic<int64_t> nextBlock{0};
  std::atomic<int64_t> publishedBlocks{0};
  std::atomic<int64_t> doneBlocks{0}; ///< Blocks that ran (never cancelled).
  /// Early candidates: producers that have not yet published every block.
  std::atomic<int32_t> unpublishedProducers{0};
  std::atomic<int32_t> stagedBlocks{0};
  std::atomic<uint8_t> failed{0};
  std::atomic<uint8_t> cohortRoute{0}; ///< CohortRoute

  alignas(kCacheLine) Rendezvous rendezvous;
  std::atomic<uint8_t> route{0}; ///< RouteBits
  std::atomic<int32_t> rings{0};
  std::atomic<int32_t> doorbellsOpened{0};
  std::atomic<int32_t> gatesPassed{0};
  std::atomic<int32_t> stagingRetries{0};
};
static_assert(sizeof(TaskRecord) == 2 * kCacheLine,
              "hot task fields and rendezvous fields take one line each");

/// Each task is enqueued at most once per run, so a queue is an append-only
/// array; the head advances past tasks with nothing left to take.
class AppendQueue {
public:
  void reset(int32_t capacity) {
    entries_ = std::make_unique<std::atomic<int32_t>[]>(capacity);
    for (int32_t i = 0; i < capacity; ++i)
      entries_[i].store(-1, std::memory_order_relaxed);
    capacity_ = capacity;
    head_.store(0, std::memory_order_relaxed);
    tail_.store(0, std::memory_order_relaxed);
  }
  /// False when the queue is full (a task enqueued twice: a protocol error).
  bool push(int32_t task) {
    int32_t index = tail_.fetch_add(1, std::memory_order_acq_rel);
    if (index >= capacity_)
      return false;
    entries_[index].store(task, std::memory_order_release);
    return true;
  }
  /// The head entry, or -1 when empty or not yet published.
  int32_t peek(int32_t *headIndex) const {
    int32_t head = head_.load(std::memory_order_acquire);
    *headIndex = head;
    if (head >= capacity_ || head >= tail_.load(std::memory_order_acquire))
      return -1;
    return entries_[head].load(std::memory_order_acquire);
  }
  void advance(int32_t fromHead) {
    head_.compare_exchange_strong(fromHead, fromHead + 1,
                                  std::memory_order_acq_rel);
  }
  bool maybeNonEmpty() const {
    return head_.load(std::memory_order_relaxed) <
           tail_.load(std::memory_order_relaxed);
  }

private:
  std::unique_ptr<std::atomic<int32_t>[]> entries_;
  int32_t capacity_ = 0;
  alignas(kCacheLine) std::atomic<int32_t> head_{0};
  alignas(kCacheLine) std::atomic<int32_t> tail_{0};
};

/// Early candidates; a candidate that could not be staged is requeued, so
/// entries repeat. Cold compared with block dispatch.
class CandidateQueue {
public:
  void push(int32_t task) {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(task);
    size_.store(static_cast<int32_t>(tasks_.size()), std::memory_order_release);
  }
  int32_t pop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (tasks_.empty())
      return -1;
    int32_t task = tasks_.front();
    tasks_.pop_front();
    size_.store(static_cast<int32_t>(tasks_.size()), std::memory_order_release);
    return task;
  }
  bool maybeNonEmpty() const {
    return size_.load(std::memory_order_acquire) > 0;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.clear();
    size_.store(0, std::memory_order_release);
  }

private:
  std::mutex mutex_;
  std::deque<int32_t> tasks_;
  std::atomic<int32_t> size_{0};
};

/// Everything of one submitted graph.
struct RunState {
  ValidatedGraph graph;
  uint32_t generation = 0;
  std::unique_ptr<TaskRecord[]> tasks;
  /// Cohorts: where block i was staged, at stagedOffset[task] + i.
  std::vector<int32_t> stagedOffset;
  std::unique_ptr<SlotRef[]> stagedSlots;
  std::unique_ptr<std::atomic<int64_t>[]> completedAtNs;
  std::unique_ptr<std::atomic<int64_t>[]> rungAtNs;

  AppendQueue ready;    ///< Regular tasks with unclaimed blocks.
  AppendQueue tier0;    ///< Cohorts on the normal path.
  CandidateQueue early; ///< Early candidates to stage.

  std::atomic<int32_t> tasksRemaining{0};
  /// Slots reserved, filled or running, plus tier-0 core reservations.
  std::atomic<int32_t> occupiedSlots{0};
  std::atomic<uint32_t> finished{0};
  std::atomic<bool> aborting{false};

  /// Cores reserved for the tier-0 head; guarded by the placement mutex.
  std::vector<int32_t> tier0Reserved;

  std::mutex errorMutex;
  std::string firstError;
  std::vector<std::string> taskErrors;
};

class Executor::Impl {
public:
  explicit Impl(ExecutorConfig config);
  ~Impl();

  RunResult run(const TaskGraph &graph);
  void abort(const std::string &reason);
  int32_t cores() const { return coreCount_; }
  SpinPolicy spinPolicy() const { return policy_; }

  //--- dispatch.cpp --------------------------------------------------------//
  void workerMain(int32_t core);
  /// One pass of the core loop: 1 progress, 0 nothing to do, -1 retry soon.
  int step(RunState &run, int32_t core);
  void executeRunning(RunState &run, int32_t core, CoreWord word);
  GateOutcome waitAtGate(RunState &run, int32_t core, unsigned slot,
                         int32_t task);
  int tryTier0(RunState &run, int32_t self);
  int tryStageEarly(RunState &run);
  bool tryClaimRegular(RunState &run, int32_t core);
  void idleBackoff(int32_t core, int32_t &failedPolls, uint32_t seenEpoch);
  void relax(int32_t round) const;

  //--- completion.cpp ------------------------------------------------------//
  void finishBlocks(RunState &run, int32_t task, int64_t count);
  void completeTask(RunState &run, int32_t task);
  void producerDone(RunState &run, int32_t consumer);
  void onReady(RunState &run, int32_t task);
  void notePublished(RunState &run, int32_t task, int64_t count);
  void propagateCandidate(RunState &run, int32_t task);
  /// Called after any change to a cohort's rendezvous counters.
  void maybeRing(RunState &run, int32_t task);
  void ring(RunState &run, int32_t task, bool cancel);
  void pushTier0(RunState &run, int32_t task);
  void pushReady(RunState &run, int32_t task);
  // A cohort takes all its blocks in one claim; anything else is a protocol
  // error naming `when` ("launch", "staging").
  void claimWholeCohort(RunState &run, int32_t task, int32_t blocks,
                        const char *when);
  void bumpEpoch();

  //--- cold_path.cpp -------------------------------------------------------//
  void beginAbort(RunState &run);
  void recordFailure(RunState &run, int32_t task, int64_t block,
                     const std::string &message);
  void protocolError(RunState &run, const std::string &message);
  RunResult collectResults(RunState &run);

  ExecutorConfig config_;
  int32_t coreCount_ = 0;
  SpinPolicy policy_ = SpinPolicy::Yield;
  std::unique_ptr<CoreRecord[]> coreRecords_;
  std::vector<std::thread> threads_;

  alignas(kCacheLine) std::atomic<RunState *> run_{nullptr};
  alignas(kCacheLine) std::atomic<uint32_t> epoch_{0};
  std::atomic<int32_t> sleepers_{0};
  std::atomic<bool> stop_{false};

  std::mutex runMutex_;       ///< One run at a time.
  std::mutex placementMutex_; ///< One stager / tier-0 launcher at a time.
  std::mutex abortMutex_;     ///< Keeps run_ alive for an external abort.
  uint32_t generation_ = 0;
  std::vector<SlotRef> stagingScratch_; ///< Guarded by placementMutex_.
};

/// The block a kernel runs on this thread, for failCurrentBlock.
struct BlockContext {
  Executor::Impl *executor = nullptr;
  RunState *run = nullptr;
  int32_t task = -1;
  int64_t block = -1;
};
BlockContext *&currentBlockContext();

int64_t steadyNowNs();

} // namespace sluice::runtime::cohort

#endif // SLUICE_RUNTIME_COHORT_EXECUTOR_IMPL_H
