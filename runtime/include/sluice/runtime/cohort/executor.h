//===- executor.h - Cohort executor -----------------------------*- C++ -*-===//
//
// Executes task graphs on `cores` worker threads ("cores"), each with a running
// and a pending slot, implementing the doorbell rendezvous of DESIGN.md §2.3.
// One graph runs at a time; `run` submits it and waits for it.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_COHORT_EXECUTOR_H
#define SLUICE_RUNTIME_COHORT_EXECUTOR_H

#include "sluice/runtime/cohort/task_graph.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sluice::runtime::cohort {

/// How waiting cores burn time.
enum class SpinPolicy : uint8_t {
  /// Pure when cores <= hardware threads, Yield otherwise.
  Auto = 0,
  /// Busy-wait with a pause instruction: lowest latency, needs a hardware
  /// thread per core.
  Pure = 1,
  /// Pause briefly, then yield the hardware thread on every retry, so more
  /// cores than hardware threads still make progress.
  Yield = 2,
};

struct ExecutorConfig {
  int32_t cores = 0; ///< <= 0: one per hardware thread.
  SpinPolicy spin = SpinPolicy::Auto;
  /// Most blocks of a regular task one claim takes.
  int64_t maxClaimBlocks = 1;
  /// Failed idle polls before an idle core sleeps until the next event.
  int32_t idleSpinRounds = 2000;
  /// Record steady-clock timestamps of completion and ring per task.
  bool recordTimestamps = false;
};

enum class TaskState : uint8_t {
  NotRun = 0,    ///< Never started (the run failed validation or aborted).
  Completed = 1, ///< Every block ran.
  Failed = 2,    ///< A block reported an error.
  Cancelled = 3, ///< Started or staged, then released by an abort.
};
const char *taskStateName(TaskState state);

/// How a cohort was launched.
enum class CohortRoute : uint8_t { None = 0, Early = 1, Normal = 2 };

struct TaskResult {
  TaskState state = TaskState::NotRun;
  CohortRoute route = CohortRoute::None;
  int64_t blocksRun = 0;
  /// Cohorts: latch wins (must be 1), doorbells opened and gates passed.
  int32_t rings = 0;
  int32_t doorbellsOpened = 0;
  int32_t gatesPassed = 0;
  /// Early staging attempts that found too few slots.
  int32_t stagingRetries = 0;
  std::string error;
  /// steady_clock nanoseconds when recordTimestamps is set, else 0.
  int64_t completedAtNs = 0;
  int64_t rungAtNs = 0;
};

struct RunResult {
  bool ok = false;
  std::string error; ///< The first error, naming task and block.
  std::vector<TaskResult> tasks;
};

class Executor {
public:
  explicit Executor(ExecutorConfig config = {});
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  int32_t cores() const;
  SpinPolicy spinPolicy() const;

  /// Validates, runs and waits. A validation error starts nothing.
  RunResult run(const TaskGraph &graph);
  /// Aborts the current run (if any): nothing new starts, gated blocks are
  /// released without running, running blocks finish, `run` returns the
  /// reason. Callable from any thread, including kernels.
  void abort(const std::string &reason);

  class Impl;

private:
  std::unique_ptr<Impl> impl_;
};

/// From inside a kernel: mark the current block failed. The run aborts and
/// reports `message` with the task name and block index.
void failCurrentBlock(const std::string &message);

} // namespace sluice::runtime::cohort

#endif // SLUICE_RUNTIME_COHORT_EXECUTOR_H
