//===- random_dag_test.cpp - Thousands of random task graphs --------------===//
//
// Random DAGs of regular tasks and cohorts (every cohort runs a cross-block
// spin barrier) on executors of 2..8 cores. For each: the run completes, every
// block runs exactly once, no block starts before its producers finished,
// every cohort's doorbells ring once and its blocks are co-resident.
//
//===----------------------------------------------------------------------===//
#include "cohort_test_support.h"

#include <gtest/gtest.h>

#include <random>

using namespace sluice::runtime::cohort;
using namespace sluice::runtime::cohort::testing;
using namespace std::chrono_literals;

namespace {

int graphCount() {
  if (const char *value = std::getenv("SLUICE_COHORT_RANDOM_DAGS"))
    return std::atoi(value);
  std::string sanitizer = underSanitizer();
  if (sanitizer == "tsan")
    return 5000;
  if (sanitizer == "asan")
    return 4000;
  return 10000;
}

struct RandomGraph {
  TaskGraph graph;
  std::vector<std::unique_ptr<TaskProbe>> probes;
  std::string description;
};

RandomGraph makeRandomGraph(std::mt19937_64 &rng, int32_t cores) {
  RandomGraph out;
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  const int32_t tasks = static_cast<int32_t>(uniform(1, 9));
  for (int32_t id = 0; id < tasks; ++id) {
    bool cohort = chance(0.4);
    uint32_t flags = cohort ? TaskSyncStart : TaskNone;
    if (chance(0.6))
      flags |= TaskAllowEarlyResolve;
    // Cohorts up to the whole machine; regular tasks up to 5x the cores.
    int64_t blocks = cohort ? uniform(1, cores) : uniform(1, 5 * cores);
    auto probe =
        std::make_unique<TaskProbe>("t" + std::to_string(id), blocks, cohort);
    probe->work = uniform(0, 3) * 100;
    // Some producers outlast their consumers' staging: the early route.
    if (chance(0.15)) {
      probe->slowBlock = uniform(0, blocks - 1);
      probe->slowFor = std::chrono::microseconds(uniform(50, 300));
    }
    TaskSpec spec;
    spec.name = probe->name;
    spec.kernel = &TaskProbe::kernel;
    spec.user = probe.get();
    spec.blocks = blocks;
    spec.flags = flags;
    out.graph.addTask(std::move(spec));
    out.description += probe->name + "(" + std::to_string(blocks) +
                       (cohort ? ",sync" : "") +
                       ((flags & TaskAllowEarlyResolve) ? ",early" : "") + ") ";
    out.probes.push_back(std::move(probe));
  }
  for (int32_t consumer = 1; consumer < tasks; ++consumer)
    for (int32_t producer = 0; producer < consumer; ++producer)
      if (chance(0.35)) {
        out.graph.addDependency(producer, consumer);
        out.probes[consumer]->producers.push_back(out.probes[producer].get());
        out.description += "t" + std::to_string(producer) + "->t" +
                           std::to_string(consumer) + " ";
      }
  return out;
}

/// Returns "" or what went wrong.
std::string checkRun(const RandomGraph &g, const RunResult &result) {
  if (!result.ok)
    return "run failed: " + result.error;
  std::string problems;
  for (size_t id = 0; id < g.probes.size(); ++id) {
    const TaskProbe &probe = *g.probes[id];
    const TaskResult &task = result.tasks[id];
    std::string prefix = probe.name + ": ";
    if (task.state != TaskState::Completed)
      problems += prefix + "state " + taskStateName(task.state) + "; ";
    std::string anomalies = probe.runAnomalies();
    if (!anomalies.empty())
      problems += prefix + anomalies + " ";
    if (probe.dependencyViolations.load() != 0)
      problems += prefix + "started before a producer finished; ";
    if (probe.barrierTimeouts.load() != 0)
      problems += prefix + "cohort blocks not co-resident (barrier timeout); ";
    if (probe.barrier) {
      if (task.rings != 1 || task.doorbellsOpened != probe.blocks ||
          task.gatesPassed != probe.blocks)
        problems += prefix + "rings " + std::to_string(task.rings) +
                    " doorbells " + std::to_string(task.doorbellsOpened) +
                    " gates " + std::to_string(task.gatesPassed) + "; ";
      if (probe.maxConcurrent.load() != probe.blocks)
        problems += prefix + "max concurrent blocks " +
                    std::to_string(probe.maxConcurrent.load()) + "; ";
    }
  }
  return problems;
}

TEST(cohortRandomDag, ThousandsOfGraphsComplete) {
  const int graphs = graphCount();
  ASSERT_GT(graphs, 0) << "no graph to check (SLUICE_COHORT_RANDOM_DAGS="
                       << graphs << ")";
  struct Setup {
    int32_t cores;
    int64_t claim;
  };
  const std::vector<Setup> setups = {{2, 1}, {3, 2}, {4, 1}, {5, 3}, {8, 1}};
  std::vector<std::unique_ptr<Executor>> executors;
  for (const Setup &setup : setups) {
    ExecutorConfig config;
    config.cores = setup.cores;
    config.maxClaimBlocks = setup.claim;
    config.idleSpinRounds = 200;
    executors.push_back(std::make_unique<Executor>(config));
  }
  uint64_t seed = 0xC0407;
  if (const char *value = std::getenv("SLUICE_COHORT_SEED"))
    seed = std::strtoull(value, nullptr, 0);
  std::mt19937_64 rng(seed);
  Watchdog watchdog("random DAGs", 600s);
  int64_t early = 0, normal = 0, cohorts = 0, blocks = 0;
  for (int index = 0; index < graphs; ++index) {
    size_t which = index % executors.size();
    Executor &executor = *executors[which];
    RandomGraph g = makeRandomGraph(rng, executor.cores());
    for (auto &probe : g.probes)
      probe->barrierLimit = 30s;
    RunResult result = executor.run(g.graph);
    std::string problems = checkRun(g, result);
    ASSERT_EQ(problems, "") << "graph " << index << " on " << executor.cores()
                            << " cores: " << g.description;
    for (size_t id = 0; id < g.probes.size(); ++id) {
      blocks += g.probes[id]->blocks;
      if (!g.probes[id]->barrier)
        continue;
      ++cohorts;
      early += result.tasks[id].route == CohortRoute::Early;
      normal += result.tasks[id].route == CohortRoute::Normal;
    }
  }
  std::printf("random DAGs (seed %llu): %d graphs, %lld blocks, %lld cohorts "
              "(%lld early, %lld normal path)\n",
              static_cast<unsigned long long>(seed), graphs,
              static_cast<long long>(blocks), static_cast<long long>(cohorts),
              static_cast<long long>(early), static_cast<long long>(normal));
  // Both routes are exercised.
  EXPECT_GT(early, 0);
  EXPECT_GT(normal, 0);
}

} // namespace
