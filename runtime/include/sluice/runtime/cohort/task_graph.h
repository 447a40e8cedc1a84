//===- task_graph.h - Cohort task graphs ------------------------*- C++ -*-===//
//
// A task graph: SPMD tasks of `blocks` blocks, some flagged sync_start
// (cohorts), connected by producer -> consumer dependencies. Building a graph
// never fails; `validateGraph` reports every structural error at submit time,
// before anything starts.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_COHORT_TASK_GRAPH_H
#define SLUICE_RUNTIME_COHORT_TASK_GRAPH_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::runtime::cohort {

/// A kernel runs one block: `blockIndex` in [0, blockCount).
using KernelFn = void (*)(void *user, int64_t blockIndex, int64_t blockCount);

/// Task flags; the values are the C ABI's.
enum TaskFlags : uint32_t {
  TaskNone = 0,
  /// All blocks start together on distinct cores (a cohort).
  TaskSyncStart = 1,
  /// Consumers may be staged behind closed doorbells before this task
  /// completes (once it has published all its blocks).
  TaskAllowEarlyResolve = 2,
};
constexpr uint32_t kKnownTaskFlags = TaskSyncStart | TaskAllowEarlyResolve;

using TaskId = int32_t;

struct TaskSpec {
  std::string name;
  /// The kernel; when null, `kernelName` is looked up in the kernel registry.
  KernelFn kernel = nullptr;
  std::string kernelName;
  void *user = nullptr;
  int64_t blocks = 1;
  uint32_t flags = TaskNone;
};

class TaskGraph {
public:
  TaskId addTask(TaskSpec spec);
  void addDependency(TaskId producer, TaskId consumer);

  int32_t taskCount() const { return static_cast<int32_t>(tasks_.size()); }
  const TaskSpec &task(TaskId id) const { return tasks_[id]; }
  TaskSpec &task(TaskId id) { return tasks_[id]; }
  const std::vector<std::pair<TaskId, TaskId>> &dependencies() const {
    return edges_;
  }

private:
  std::vector<TaskSpec> tasks_;
  std::vector<std::pair<TaskId, TaskId>> edges_;
};

/// Register `kernel` under `name` (process-wide). Re-registering a name
/// replaces it. Returns false for an empty name or a null kernel.
bool registerKernel(const std::string &name, KernelFn kernel);
/// The kernel registered under `name`, or null.
KernelFn lookupKernel(const std::string &name);

/// The checked, flattened form of a graph that the executor runs.
struct ValidatedGraph {
  struct Task {
    std::string name;
    KernelFn kernel = nullptr;
    void *user = nullptr;
    int64_t blocks = 0;
    uint32_t flags = 0;
    int32_t producerCount = 0;
    /// Early candidate: a cohort whose producers (at least one) all allow
    /// early resolve.
    bool earlyCandidate = false;
    int32_t firstConsumer = 0; ///< Range into `consumers`.
    int32_t consumerCount = 0;
  };
  std::vector<Task> tasks;
  std::vector<TaskId> consumers; ///< Deduplicated, grouped by producer.
};

/// Checks `graph` for an executor of `cores` cores. On error returns a
/// message naming the task(s) and numbers involved: an unknown kernel, a
/// cohort that can never be co-resident, a dependency cycle (listed), a bad
/// block count, flag or task id.
std::optional<std::string> validateGraph(const TaskGraph &graph, int32_t cores,
                                         ValidatedGraph *out = nullptr);

} // namespace sluice::runtime::cohort

#endif // SLUICE_RUNTIME_COHORT_TASK_GRAPH_H
