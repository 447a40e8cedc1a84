//===- executor_test.cpp - Cohort executor scenes and bad input -----------===//
#include "cohort_test_support.h"

#include "sluice/runtime/cohort/executor.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace sluice::runtime::cohort;
using namespace sluice::runtime::cohort::testing;
using namespace std::chrono_literals;

namespace {

struct Scene {
  TaskGraph graph;
  std::vector<std::unique_ptr<TaskProbe>> probes;

  TaskId add(const std::string &name, int64_t blocks, uint32_t flags,
             int64_t work = 0) {
    auto probe =
        std::make_unique<TaskProbe>(name, blocks, (flags & TaskSyncStart) != 0);
    probe->work = work;
    TaskSpec spec;
    spec.name = name;
    spec.kernel = &TaskProbe::kernel;
    spec.user = probe.get();
    spec.blocks = blocks;
    spec.flags = flags;
    probes.push_back(std::move(probe));
    return graph.addTask(std::move(spec));
  }
  void depend(TaskId producer, TaskId consumer) {
    graph.addDependency(producer, consumer);
    probes[consumer]->producers.push_back(probes[producer].get());
  }
  /// Asserts a clean run: every block once, producers finished first,
  /// cohorts co-resident and rung once.
  void expectClean(const RunResult &result) {
    ASSERT_TRUE(result.ok) << result.error;
    ASSERT_EQ(result.tasks.size(), probes.size());
    for (size_t id = 0; id < probes.size(); ++id) {
      const TaskProbe &probe = *probes[id];
      const TaskResult &task = result.tasks[id];
      EXPECT_EQ(task.state, TaskState::Completed) << probe.name;
      EXPECT_EQ(probe.runAnomalies(), "") << probe.name;
      EXPECT_EQ(task.blocksRun, probe.blocks) << probe.name;
      EXPECT_EQ(probe.dependencyViolations.load(), 0) << probe.name;
      EXPECT_EQ(probe.barrierTimeouts.load(), 0) << probe.name;
      if (probe.barrier) {
        EXPECT_EQ(task.rings, 1) << probe.name;
        EXPECT_EQ(task.doorbellsOpened, probe.blocks) << probe.name;
        EXPECT_EQ(task.gatesPassed, probe.blocks) << probe.name;
        EXPECT_EQ(probe.maxConcurrent.load(), probe.blocks) << probe.name;
        EXPECT_NE(task.route, CohortRoute::None) << probe.name;
      } else {
        EXPECT_EQ(task.rings, 0) << probe.name;
      }
    }
  }
};

TEST(cohortExecutor, RegularChainComputesValues) {
  // out[i] = i * i for 37 blocks; then a second task sums them per block.
  constexpr int64_t kBlocks = 37;
  struct Data {
    std::vector<int64_t> squares = std::vector<int64_t>(kBlocks, -1);
    std::atomic<int64_t> total{0};
  } data;
  TaskGraph graph;
  TaskSpec square;
  square.name = "square";
  square.blocks = kBlocks;
  square.user = &data;
  square.kernel = [](void *user, int64_t block, int64_t) {
    static_cast<Data *>(user)->squares[block] = block * block;
  };
  TaskSpec sum;
  sum.name = "sum";
  sum.blocks = kBlocks;
  sum.user = &data;
  sum.kernel = [](void *user, int64_t block, int64_t) {
    static_cast<Data *>(user)->total.fetch_add(
        static_cast<Data *>(user)->squares[block]);
  };
  TaskId a = graph.addTask(square);
  TaskId b = graph.addTask(sum);
  graph.addDependency(a, b);
  Executor executor(ExecutorConfig{3});
  RunResult result = executor.run(graph);
  ASSERT_TRUE(result.ok) << result.error;
  // sum_{i<n} i^2 = (n-1) n (2n-1) / 6
  EXPECT_EQ(data.total.load(), (kBlocks - 1) * kBlocks * (2 * kBlocks - 1) / 6);
}

TEST(cohortExecutor, EmptyGraphSucceeds) {
  Executor executor(ExecutorConfig{2});
  TaskGraph graph;
  RunResult result = executor.run(graph);
  EXPECT_TRUE(result.ok);
  EXPECT_TRUE(result.tasks.empty());
}

/// The scene the full-publication gate exists for: a producer with far more
/// blocks than cores feeds a cohort spanning every core.
void runWideProducerScene(int32_t cores, bool early, int repeats) {
  Executor executor(ExecutorConfig{cores});
  for (int repeat = 0; repeat < repeats; ++repeat) {
    Scene scene;
    TaskId producer = scene.add("producer", 16 * cores + 3,
                                early ? TaskAllowEarlyResolve : TaskNone, 200);
    // Block 0 outlasts the others, so the cohort is staged while it runs.
    scene.probes[producer]->slowBlock = 0;
    scene.probes[producer]->slowFor = 20ms;
    scene.probes[producer]->slowAfterOthers = true;
    TaskId cohort = scene.add("cohort", cores, TaskSyncStart);
    TaskId after = scene.add("after", 2 * cores, TaskNone);
    scene.depend(producer, cohort);
    scene.depend(cohort, after);
    Watchdog watchdog("wide producer scene", 60s);
    RunResult result = executor.run(scene.graph);
    scene.expectClean(result);
    EXPECT_EQ(result.tasks[cohort].route,
              early ? CohortRoute::Early : CohortRoute::Normal);
  }
}

TEST(cohortExecutor, WideProducerFeedsAllCoreCohortEarly) {
  runWideProducerScene(3, true, 20);
  runWideProducerScene(4, true, 10);
}

TEST(cohortExecutor, WideProducerFeedsAllCoreCohortNormalPath) {
  runWideProducerScene(3, false, 20);
}

TEST(cohortExecutor, OversubscribedCoresStillRendezvous) {
  // More cores than hardware threads: cores are threads and waits yield.
  int32_t cores = static_cast<int32_t>(std::thread::hardware_concurrency()) + 4;
  Executor executor(ExecutorConfig{cores});
  EXPECT_EQ(executor.spinPolicy(), SpinPolicy::Yield);
  runWideProducerScene(cores, true, underSanitizer().empty() ? 5 : 2);
}

TEST(cohortExecutor, CrossBlockBarrierNeedsCoResidency) {
  // Repeated cohorts that deadlock unless co-resident, with two producers
  // of different kinds (early-resolving and not) and a regular side task.
  const int repeats = underSanitizer().empty() ? 100 : 20;
  Executor executor(ExecutorConfig{4});
  Watchdog watchdog("barrier cohorts", 120s);
  for (int repeat = 0; repeat < repeats; ++repeat) {
    Scene scene;
    TaskId a = scene.add("a", 9, TaskAllowEarlyResolve, 50);
    scene.probes[a]->slowBlock = 4;
    scene.probes[a]->slowFor = 20ms;
    scene.probes[a]->slowAfterOthers = true;
    TaskId b = scene.add("b", 5, TaskAllowEarlyResolve, 50);
    TaskId side = scene.add("side", 11, TaskNone, 50);
    TaskId c1 = scene.add("c1", 4, TaskSyncStart | TaskAllowEarlyResolve);
    TaskId c2 = scene.add("c2", 3, TaskSyncStart);
    TaskId c3 = scene.add("c3", 2, TaskSyncStart);
    scene.depend(a, c1);
    scene.depend(b, c1);
    scene.depend(c1, c2);
    scene.depend(side, c3);
    scene.depend(a, c3);
    RunResult result = executor.run(scene.graph);
    scene.expectClean(result);
    EXPECT_EQ(result.tasks[c1].route, CohortRoute::Early);
    // c3 has a producer that does not allow early resolve: normal path.
    EXPECT_EQ(result.tasks[c3].route, CohortRoute::Normal);
    if (::testing::Test::HasFailure())
      return;
  }
}

TEST(cohortExecutor, ExecutorIsReusableAcrossManyRuns) {
  Executor executor(ExecutorConfig{2});
  for (int repeat = 0; repeat < 200; ++repeat) {
    Scene scene;
    TaskId p = scene.add("p", 3, TaskAllowEarlyResolve);
    TaskId c = scene.add("c", 2, TaskSyncStart);
    scene.depend(p, c);
    scene.expectClean(executor.run(scene.graph));
    if (::testing::Test::HasFailure())
      return;
  }
}

//===----------------------------------------------------------------------===//
// Bad input: a clear error at submit, nothing started.
//===----------------------------------------------------------------------===//

void expectNothingStarted(const Scene &scene, const RunResult &result) {
  EXPECT_FALSE(result.ok);
  ASSERT_EQ(result.tasks.size(), scene.probes.size());
  for (size_t id = 0; id < scene.probes.size(); ++id) {
    EXPECT_EQ(scene.probes[id]->totalRuns(), 0);
    EXPECT_EQ(result.tasks[id].state, TaskState::NotRun);
  }
}

TEST(cohortExecutor, CohortLargerThanMachineIsRejected) {
  Executor executor(ExecutorConfig{3});
  Scene scene;
  scene.add("fine", 2, TaskNone);
  scene.add("huge", 4, TaskSyncStart);
  RunResult result = executor.run(scene.graph);
  expectNothingStarted(scene, result);
  EXPECT_NE(result.error.find("task 'huge' is sync_start with 4 blocks but the "
                              "executor has 3 cores: its blocks can never be "
                              "co-resident"),
            std::string::npos)
      << result.error;
}

TEST(cohortExecutor, CycleIsNamed) {
  Executor executor(ExecutorConfig{2});
  Scene scene;
  TaskId source = scene.add("source", 1, TaskNone);
  TaskId a = scene.add("a", 1, TaskNone);
  TaskId b = scene.add("b", 1, TaskSyncStart);
  TaskId c = scene.add("c", 2, TaskNone);
  scene.depend(source, a);
  scene.depend(a, b);
  scene.depend(b, c);
  scene.depend(c, a);
  RunResult result = executor.run(scene.graph);
  expectNothingStarted(scene, result);
  EXPECT_NE(result.error.find("dependency cycle: 'a' -> 'b' -> 'c' -> 'a'"),
            std::string::npos)
      << result.error;
}

TEST(cohortExecutor, SelfDependencyIsACycle) {
  Executor executor(ExecutorConfig{2});
  Scene scene;
  TaskId a = scene.add("loop", 1, TaskNone);
  scene.depend(a, a);
  RunResult result = executor.run(scene.graph);
  expectNothingStarted(scene, result);
  EXPECT_NE(result.error.find("dependency cycle: 'loop' -> 'loop'"),
            std::string::npos)
      << result.error;
}

TEST(cohortExecutor, UnknownKernelIsRejected) {
  Executor executor(ExecutorConfig{2});
  Scene scene;
  scene.add("ok", 2, TaskNone);
  TaskSpec nullKernel;
  nullKernel.name = "nokernel";
  nullKernel.blocks = 2;
  scene.graph.addTask(nullKernel);
  TaskSpec named;
  named.name = "named";
  named.kernelName = "cohort.test.never_registered";
  scene.graph.addTask(named);
  RunResult result = executor.run(scene.graph);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(scene.probes[0]->totalRuns(), 0);
  EXPECT_NE(result.error.find(
                "task 'nokernel' has no kernel (null function pointer)"),
            std::string::npos)
      << result.error;
  EXPECT_NE(result.error.find("task 'named' names kernel "
                              "'cohort.test.never_registered', which is not "
                              "registered"),
            std::string::npos)
      << result.error;
  for (const TaskResult &task : result.tasks)
    EXPECT_EQ(task.state, TaskState::NotRun);
}

TEST(cohortExecutor, RegisteredKernelByName) {
  static std::atomic<int64_t> sum{0};
  sum = 0;
  ASSERT_TRUE(
      registerKernel("cohort.test.add", [](void *, int64_t block, int64_t) {
        sum.fetch_add(block + 1);
      }));
  TaskGraph graph;
  TaskSpec spec;
  spec.name = "named";
  spec.kernelName = "cohort.test.add";
  spec.blocks = 10;
  graph.addTask(spec);
  Executor executor(ExecutorConfig{2});
  RunResult result = executor.run(graph);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(sum.load(), 55);
}

TEST(cohortExecutor, BadBlockCountAndDependencyIdsAreRejected) {
  Executor executor(ExecutorConfig{2});
  Scene scene;
  scene.add("zero", 0, TaskNone);
  scene.graph.addDependency(0, 7);
  RunResult result = executor.run(scene.graph);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("task 'zero' has 0 blocks; a task needs at "
                              "least 1"),
            std::string::npos)
      << result.error;
  EXPECT_NE(result.error.find("dependency 0 -> 7 names a task outside [0, 1)"),
            std::string::npos)
      << result.error;
}

TEST(cohortExecutor, UnknownFlagsAreRejected) {
  // 0x30: bit 4 and bit 5, neither sync_start (1) nor allow_early_resolve (2).
  Executor executor(ExecutorConfig{2});
  Scene scene;
  scene.add("odd", 1, TaskAllowEarlyResolve | 0x30u);
  RunResult result = executor.run(scene.graph);
  expectNothingStarted(scene, result);
  EXPECT_NE(result.error.find("task 'odd' has unknown flags 0x32"),
            std::string::npos)
      << result.error;
}

//===----------------------------------------------------------------------===//
// Errors at run time: per-task results, clean stop.
//===----------------------------------------------------------------------===//

TEST(cohortExecutor, FailingBlockStopsTheRunAndNamesTaskAndBlock) {
  Executor executor(ExecutorConfig{3});
  Scene scene;
  TaskId producer = scene.add("producer", 6, TaskAllowEarlyResolve);
  TaskSpec failing;
  failing.name = "failing";
  failing.blocks = 4;
  failing.kernel = [](void *, int64_t block, int64_t) {
    if (block == 2)
      failCurrentBlock("checksum 17 != 18");
  };
  TaskId bad = scene.graph.addTask(failing);
  scene.probes.push_back(nullptr);
  TaskId cohort = scene.add("cohort", 3, TaskSyncStart);
  TaskId after = scene.add("after", 2, TaskNone);
  scene.graph.addDependency(producer, bad);
  scene.depend(producer, cohort);
  scene.graph.addDependency(bad, after);
  Watchdog watchdog("failing block", 60s);
  RunResult result = executor.run(scene.graph);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error,
            "task 'failing' block 2 of 4 failed: checksum 17 != 18");
  EXPECT_EQ(result.tasks[bad].state, TaskState::Failed);
  EXPECT_EQ(result.tasks[bad].error, result.error);
  EXPECT_EQ(result.tasks[producer].state, TaskState::Completed);
  EXPECT_EQ(result.tasks[after].state, TaskState::NotRun);
  EXPECT_EQ(scene.probes[after]->totalRuns(), 0);
  // The cohort either ran completely or not at all.
  int64_t cohortRuns = scene.probes[cohort]->totalRuns();
  EXPECT_TRUE(cohortRuns == 0 || cohortRuns == 3) << cohortRuns;
  EXPECT_LE(result.tasks[cohort].rings, 1);
  // The executor is usable afterwards.
  Scene again;
  again.add("x", 3, TaskNone);
  again.expectClean(executor.run(again.graph));
}

TEST(cohortExecutor, ExceptionInKernelIsReported) {
  Executor executor(ExecutorConfig{2});
  TaskGraph graph;
  TaskSpec spec;
  spec.name = "thrower";
  spec.blocks = 3;
  spec.kernel = [](void *, int64_t block, int64_t) {
    if (block == 1)
      throw std::runtime_error("bad input 42");
  };
  graph.addTask(spec);
  RunResult result = executor.run(graph);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error,
            "task 'thrower' block 1 of 3 failed: exception: bad input 42");
}

TEST(cohortExecutor, AbortReleasesGatedCohort) {
  // The cohort is staged behind closed doorbells while the producer blocks
  // until the test aborts; the gated blocks must be released, not run.
  struct Gate {
    std::atomic<bool> release{false};
    std::atomic<int32_t> waiting{0};
  } gate;
  Executor executor(ExecutorConfig{3});
  TaskGraph graph;
  TaskSpec producer;
  producer.name = "slow";
  producer.blocks = 1;
  producer.flags = TaskAllowEarlyResolve;
  producer.user = &gate;
  producer.kernel = [](void *user, int64_t, int64_t) {
    auto *g = static_cast<Gate *>(user);
    g->waiting.fetch_add(1);
    while (!g->release.load())
      std::this_thread::yield();
  };
  static std::atomic<int32_t> cohortRuns{0};
  cohortRuns = 0;
  TaskSpec cohort;
  cohort.name = "gated";
  cohort.blocks = 2;
  cohort.flags = TaskSyncStart;
  cohort.kernel = [](void *, int64_t, int64_t) { cohortRuns.fetch_add(1); };
  TaskId p = graph.addTask(producer);
  TaskId c = graph.addTask(cohort);
  graph.addDependency(p, c);
  Watchdog watchdog("abort", 60s);
  std::thread aborter([&] {
    while (gate.waiting.load() == 0)
      std::this_thread::yield();
    std::this_thread::sleep_for(20ms); // let the cohort stage
    executor.abort("test abort");
    gate.release.store(true);
  });
  RunResult result = executor.run(graph);
  aborter.join();
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "run aborted: test abort");
  EXPECT_EQ(result.tasks[p].state, TaskState::Completed);
  EXPECT_EQ(cohortRuns.load(), 0);
  EXPECT_EQ(result.tasks[c].state, TaskState::Cancelled);
  EXPECT_EQ(result.tasks[c].rings, 1);
  EXPECT_EQ(result.tasks[c].gatesPassed, 0);
  EXPECT_EQ(result.tasks[c].route, CohortRoute::Early);
}

} // namespace
