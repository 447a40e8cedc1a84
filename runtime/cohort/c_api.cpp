//===- c_api.cpp - C ABI of the cohort executor ---------------------------===//
#include "sluice/runtime/cohort/c_api.h"

#include "sluice/runtime/cohort/executor.h"

#include <memory>
#include <new>
#include <string>

using namespace sluice::runtime::cohort;

struct sluice_cohort_graph {
  int32_t cores = 0;
  TaskGraph graph;
  std::unique_ptr<Executor> executor; ///< Created by the first run.
  std::string lastError;
  RunResult lastRun;
};

namespace {
std::string &nullGraphError() {
  thread_local std::string error;
  return error;
}

bool checkGraph(const sluice_cohort_graph *graph, const char *function) {
  if (graph)
    return true;
  nullGraphError() = std::string(function) + ": null graph";
  return false;
}

int32_t addTask(sluice_cohort_graph *graph, const char *function,
                const char *name, sluice_cohort_kernel_fn fn,
                const char *kernelName, void *user, int64_t blocks,
                int32_t flags) {
  if (!checkGraph(graph, function))
    return -1;
  TaskSpec spec;
  spec.name = name ? name : "";
  spec.kernel = fn;
  spec.kernelName = kernelName ? kernelName : "";
  spec.user = user;
  spec.blocks = blocks;
  spec.flags = static_cast<uint32_t>(flags);
  std::string shown = name ? std::string("'") + name + "'"
                           : "task" + std::to_string(graph->graph.taskCount());
  if (blocks < 1) {
    graph->lastError = std::string(function) + ": task " + shown + " has " +
                       std::to_string(blocks) + " blocks; needs at least 1";
    return -1;
  }
  if (flags < 0 || (static_cast<uint32_t>(flags) & ~kKnownTaskFlags)) {
    graph->lastError = std::string(function) + ": task " + shown +
                       " has unknown flags " + std::to_string(flags);
    return -1;
  }
  return graph->graph.addTask(std::move(spec));
}

const TaskResult *taskResult(const sluice_cohort_graph *graph, int32_t task) {
  if (!graph || task < 0 ||
      task >= static_cast<int32_t>(graph->lastRun.tasks.size()))
    return nullptr;
  return &graph->lastRun.tasks[task];
}
} // namespace

extern "C" {

sluice_cohort_graph *sluice_cohort_graph_create(int32_t cores) {
  auto *graph = new (std::nothrow) sluice_cohort_graph();
  if (graph)
    graph->cores = cores;
  return graph;
}

void sluice_cohort_graph_destroy(sluice_cohort_graph *graph) { delete graph; }

int32_t sluice_cohort_add_task(sluice_cohort_graph *graph, const char *name,
                               sluice_cohort_kernel_fn fn, void *user,
                               int64_t blocks, int32_t flags) {
  return addTask(graph, "sluice_cohort_add_task", name, fn, nullptr, user,
                 blocks, flags);
}

int32_t sluice_cohort_add_task_named(sluice_cohort_graph *graph,
                                     const char *name, const char *kernel_name,
                                     void *user, int64_t blocks,
                                     int32_t flags) {
  return addTask(graph, "sluice_cohort_add_task_named", name, nullptr,
                 kernel_name, user, blocks, flags);
}

int32_t sluice_cohort_add_dependency(sluice_cohort_graph *graph,
                                     int32_t producer, int32_t consumer) {
  if (!checkGraph(graph, "sluice_cohort_add_dependency"))
    return -1;
  int32_t count = graph->graph.taskCount();
  if (producer < 0 || producer >= count || consumer < 0 || consumer >= count) {
    graph->lastError =
        "sluice_cohort_add_dependency: " + std::to_string(producer) + " -> " +
        std::to_string(consumer) + " names a task outside [0, " +
        std::to_string(count) + ")";
    return -1;
  }
  graph->graph.addDependency(producer, consumer);
  return 0;
}

int32_t sluice_cohort_register_kernel(const char *kernel_name,
                                      sluice_cohort_kernel_fn fn) {
  if (!kernel_name)
    return -1;
  return registerKernel(kernel_name, fn) ? 0 : -1;
}

int32_t sluice_cohort_run(sluice_cohort_graph *graph) {
  if (!checkGraph(graph, "sluice_cohort_run"))
    return -1;
  try {
    if (!graph->executor) {
      ExecutorConfig config;
      config.cores = graph->cores;
      graph->executor = std::make_unique<Executor>(config);
    }
    graph->lastRun = graph->executor->run(graph->graph);
  } catch (const std::exception &error) {
    graph->lastError = std::string("sluice_cohort_run: ") + error.what();
    return -1;
  }
  graph->lastError = graph->lastRun.ok ? "" : graph->lastRun.error;
  return graph->lastRun.ok ? 0 : 1;
}

const char *sluice_cohort_last_error(const sluice_cohort_graph *graph) {
  return graph ? graph->lastError.c_str() : nullGraphError().c_str();
}

int32_t sluice_cohort_task_state(const sluice_cohort_graph *graph,
                                 int32_t task) {
  const TaskResult *result = taskResult(graph, task);
  return result ? static_cast<int32_t>(result->state)
                : SLUICE_COHORT_TASK_NOT_RUN;
}

int64_t sluice_cohort_task_blocks_run(const sluice_cohort_graph *graph,
                                      int32_t task) {
  const TaskResult *result = taskResult(graph, task);
  return result ? result->blocksRun : 0;
}

const char *sluice_cohort_task_error(const sluice_cohort_graph *graph,
                                     int32_t task) {
  const TaskResult *result = taskResult(graph, task);
  return result ? result->error.c_str() : "";
}

void sluice_cohort_fail_block(const char *message) {
  failCurrentBlock(message ? message : "(no message)");
}

} // extern "C"

static_assert(SLUICE_COHORT_SYNC_START == TaskSyncStart);
static_assert(SLUICE_COHORT_ALLOW_EARLY_RESOLVE == TaskAllowEarlyResolve);
static_assert(SLUICE_COHORT_TASK_COMPLETED == int(TaskState::Completed));
static_assert(SLUICE_COHORT_TASK_FAILED == int(TaskState::Failed));
static_assert(SLUICE_COHORT_TASK_CANCELLED == int(TaskState::Cancelled));
static_assert(SLUICE_COHORT_TASK_NOT_RUN == int(TaskState::NotRun));
