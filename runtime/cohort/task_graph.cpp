//===- task_graph.cpp - Task graphs, kernel registry, validation ----------===//
//
// Cold path: everything here runs before a graph starts.
//
//===----------------------------------------------------------------------===//
#include "sluice/runtime/cohort/task_graph.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace sluice::runtime::cohort {

TaskId TaskGraph::addTask(TaskSpec spec) {
  TaskId id = static_cast<TaskId>(tasks_.size());
  if (spec.name.empty())
    spec.name = "task" + std::to_string(id);
  tasks_.push_back(std::move(spec));
  return id;
}

void TaskGraph::addDependency(TaskId producer, TaskId consumer) {
  edges_.emplace_back(producer, consumer);
}

namespace {
struct KernelRegistry {
  std::mutex mutex;
  std::unordered_map<std::string, KernelFn> kernels;
};
KernelRegistry &registry() {
  static KernelRegistry instance;
  return instance;
}

/// Returns one cycle among the tasks left over by a topological sort (each
/// has a producer among them) as "a -> b -> ... -> a", from its lowest id.
std::string describeCycle(const TaskGraph &graph,
                          const std::vector<std::vector<TaskId>> &producers,
                          const std::vector<bool> &leftOver) {
  // Walk producer edges backwards inside the left-over set until a task
  // repeats; the repeated stretch is a cycle.
  TaskId start = -1;
  for (TaskId id = 0; id < graph.taskCount(); ++id)
    if (leftOver[id]) {
      start = id;
      break;
    }
  std::vector<int32_t> position(graph.taskCount(), -1);
  std::vector<TaskId> walk;
  TaskId current = start;
  while (position[current] < 0) {
    position[current] = static_cast<int32_t>(walk.size());
    walk.push_back(current);
    TaskId next = -1;
    for (TaskId producer : producers[current])
      if (leftOver[producer]) {
        next = producer;
        break;
      }
    current = next;
  }
  // walk[position[current]..] follows consumer -> producer; print it in
  // producer -> consumer order.
  std::vector<TaskId> cycle(walk.begin() + position[current], walk.end());
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()),
              cycle.end());
  std::string text = "dependency cycle: ";
  for (TaskId id : cycle)
    text += "'" + graph.task(id).name + "' -> ";
  text += "'" + graph.task(cycle.front()).name + "'";
  return text;
}
} // namespace

bool registerKernel(const std::string &name, KernelFn kernel) {
  if (name.empty() || !kernel)
    return false;
  KernelRegistry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  reg.kernels[name] = kernel;
  return true;
}

KernelFn lookupKernel(const std::string &name) {
  KernelRegistry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto it = reg.kernels.find(name);
  return it == reg.kernels.end() ? nullptr : it->second;
}

std::optional<std::string> validateGraph(const TaskGraph &graph, int32_t cores,
                                         ValidatedGraph *out) {
  std::vector<std::string> errors;
  const int32_t count = graph.taskCount();
  std::vector<KernelFn> kernels(count, nullptr);

  for (TaskId id = 0; id < count; ++id) {
    const TaskSpec &spec = graph.task(id);
    const std::string quoted = "task '" + spec.name + "'";
    if (spec.blocks < 1)
      errors.push_back(quoted + " has " + std::to_string(spec.blocks) +
                       " blocks; a task needs at least 1");
    if (spec.flags & ~kKnownTaskFlags)
      errors.push_back(quoted + " has unknown flags 0x" + [&] {
        char buf[16];
        std::snprintf(buf, sizeof(buf), "%x", unsigned(spec.flags));
        return std::string(buf);
      }());
    if (spec.kernel) {
      kernels[id] = spec.kernel;
    } else if (!spec.kernelName.empty()) {
      kernels[id] = lookupKernel(spec.kernelName);
      if (!kernels[id])
        errors.push_back(quoted + " names kernel '" + spec.kernelName +
                         "', which is not registered");
    } else {
      errors.push_back(quoted + " has no kernel (null function pointer)");
    }
    if ((spec.flags & TaskSyncStart) && spec.blocks > cores)
      errors.push_back(quoted + " is sync_start with " +
                       std::to_string(spec.blocks) +
                       " blocks but the executor has " + std::to_string(cores) +
                       " cores: its blocks can never be co-resident");
  }

  // Edges: range check, deduplicate, then look for cycles.
  std::vector<std::vector<TaskId>> producers(count), consumers(count);
  for (auto [producer, consumer] : graph.dependencies()) {
    if (producer < 0 || producer >= count || consumer < 0 ||
        consumer >= count) {
      errors.push_back("dependency " + std::to_string(producer) + " -> " +
                       std::to_string(consumer) + " names a task outside [0, " +
                       std::to_string(count) + ")");
      continue;
    }
    if (std::find(consumers[producer].begin(), consumers[producer].end(),
                  consumer) != consumers[producer].end())
      continue;
    consumers[producer].push_back(consumer);
    producers[consumer].push_back(producer);
  }

  std::vector<int32_t> indegree(count);
  std::vector<TaskId> order;
  for (TaskId id = 0; id < count; ++id) {
    indegree[id] = static_cast<int32_t>(producers[id].size());
    if (indegree[id] == 0)
      order.push_back(id);
  }
  for (size_t i = 0; i < order.size(); ++i)
    for (TaskId consumer : consumers[order[i]])
      if (--indegree[consumer] == 0)
        order.push_back(consumer);
  if (static_cast<int32_t>(order.size()) != count) {
    std::vector<bool> leftOver(count, false);
    for (TaskId id = 0; id < count; ++id)
      leftOver[id] = indegree[id] > 0;
    errors.push_back(describeCycle(graph, producers, leftOver));
  }

  if (!errors.empty()) {
    std::string message = errors.front();
    for (size_t i = 1; i < errors.size(); ++i)
      message += "; " + errors[i];
    return message;
  }
  if (!out)
    return std::nullopt;

  out->tasks.assign(count, {});
  out->consumers.clear();
  for (TaskId id = 0; id < count; ++id) {
    const TaskSpec &spec = graph.task(id);
    ValidatedGraph::Task &task = out->tasks[id];
    task.name = spec.name;
    task.kernel = kernels[id];
    task.user = spec.user;
    task.blocks = spec.blocks;
    task.flags = spec.flags;
    task.producerCount = static_cast<int32_t>(producers[id].size());
    task.earlyCandidate =
        (spec.flags & TaskSyncStart) && !producers[id].empty() &&
        std::all_of(producers[id].begin(), producers[id].end(), [&](TaskId p) {
          return (graph.task(p).flags & TaskAllowEarlyResolve) != 0;
        });
    task.firstConsumer = static_cast<int32_t>(out->consumers.size());
    task.consumerCount = static_cast<int32_t>(consumers[id].size());
    out->consumers.insert(out->consumers.end(), consumers[id].begin(),
                          consumers[id].end());
  }
  return std::nullopt;
}

} // namespace sluice::runtime::cohort
