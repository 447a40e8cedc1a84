//===- cohort_bench.cpp - Cohort launch skew and early dispatch -----------===//
//
// Measures, on an executor of --cores=N cores (env SLUICE_COHORT_BENCH_CORES;
// default: hardware threads):
//   * launch skew: first to last block start of one cohort spanning every
//     core, on the normal path and on the early path;
//   * producer completion to ring: end of the producer's last block to the
//     ringer's Complete store (early path);
//   * dispatch latency: end of the producer's last block to the first cohort
//     block start, early-staged cohort vs a baseline that stages only after
//     the producer completed (the normal path). Prints the fraction of the
//     baseline's dispatch latency that early staging hides.
//
//===----------------------------------------------------------------------===//
#include "sluice/runtime/cohort/executor.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace sluice::runtime::cohort;

namespace {

int32_t gCores = 0;
int64_t gProducerWorkNs = 20000;

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Samples {
  std::vector<double> values;
  double quantile(double q) const {
    if (values.empty())
      return 0;
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    size_t index = static_cast<size_t>(q * (sorted.size() - 1));
    return sorted[index];
  }
  double median() const { return quantile(0.5); }
};

/// Timestamps of one run, written by the kernels.
struct Probe {
  int64_t blocks = 0;
  std::unique_ptr<std::atomic<int64_t>[]> startNs;
  std::unique_ptr<std::atomic<int64_t>[]> endNs;
  explicit Probe(int64_t count)
      : blocks(count), startNs(std::make_unique<std::atomic<int64_t>[]>(count)),
        endNs(std::make_unique<std::atomic<int64_t>[]>(count)) {}
  int64_t minStart() const {
    int64_t value = INT64_MAX;
    for (int64_t b = 0; b < blocks; ++b)
      value = std::min(value, startNs[b].load());
    return value;
  }
  int64_t maxStart() const {
    int64_t value = 0;
    for (int64_t b = 0; b < blocks; ++b)
      value = std::max(value, startNs[b].load());
    return value;
  }
  int64_t maxEnd() const {
    int64_t value = 0;
    for (int64_t b = 0; b < blocks; ++b)
      value = std::max(value, endNs[b].load());
    return value;
  }
};

/// Producer block: busy for gProducerWorkNs, then stamps its end.
void producerKernel(void *user, int64_t block, int64_t) {
  auto *probe = static_cast<Probe *>(user);
  int64_t start = nowNs();
  probe->startNs[block].store(start);
  while (nowNs() - start < gProducerWorkNs) {
  }
  probe->endNs[block].store(nowNs());
}

/// Cohort block: stamps its start first thing.
void cohortKernel(void *user, int64_t block, int64_t) {
  auto *probe = static_cast<Probe *>(user);
  probe->startNs[block].store(nowNs());
}

std::unique_ptr<Executor> makeExecutor() {
  ExecutorConfig config;
  config.cores = gCores;
  config.recordTimestamps = true;
  // Idle cores keep spinning between runs, as a busy machine's would.
  config.idleSpinRounds = 1 << 30;
  return std::make_unique<Executor>(config);
}

struct Figures {
  Samples skew;
  Samples dispatch;
  Samples completionToRing;
  int64_t earlyRoutes = 0;
  int64_t runs = 0;
};
Figures gEarly, gBaseline, gAlone;

/// One producer of `cores` blocks feeding a cohort of `cores` blocks.
void runPair(benchmark::State &state, bool early, Figures &figures) {
  auto executor = makeExecutor();
  const int32_t cores = executor->cores();
  for (auto _ : state) {
    Probe producer(cores), cohort(cores);
    TaskGraph graph;
    TaskSpec p;
    p.name = "producer";
    p.kernel = producerKernel;
    p.user = &producer;
    p.blocks = cores;
    p.flags = early ? TaskAllowEarlyResolve : TaskNone;
    TaskSpec c;
    c.name = "cohort";
    c.kernel = cohortKernel;
    c.user = &cohort;
    c.blocks = cores;
    c.flags = TaskSyncStart;
    TaskId pid = graph.addTask(p);
    TaskId cid = graph.addTask(c);
    graph.addDependency(pid, cid);
    RunResult result = executor->run(graph);
    if (!result.ok) {
      state.SkipWithError(result.error.c_str());
      return;
    }
    int64_t producerEnd = producer.maxEnd();
    double dispatch = double(cohort.minStart() - producerEnd);
    figures.dispatch.values.push_back(dispatch);
    figures.skew.values.push_back(
        double(cohort.maxStart() - cohort.minStart()));
    figures.completionToRing.values.push_back(
        double(result.tasks[cid].rungAtNs - producerEnd));
    figures.earlyRoutes += result.tasks[cid].route == CohortRoute::Early;
    ++figures.runs;
    state.SetIterationTime(dispatch * 1e-9);
  }
  state.counters["cores"] = cores;
  state.counters["dispatch_median_ns"] = figures.dispatch.median();
  state.counters["skew_median_ns"] = figures.skew.median();
  state.counters["skew_p90_ns"] = figures.skew.quantile(0.9);
  state.counters["ring_median_ns"] = figures.completionToRing.median();
  state.counters["early_route_fraction"] =
      figures.runs ? double(figures.earlyRoutes) / double(figures.runs) : 0;
}

void BM_CohortEarlyDispatch(benchmark::State &state) {
  runPair(state, true, gEarly);
}
void BM_CohortBaselineDispatch(benchmark::State &state) {
  runPair(state, false, gBaseline);
}

/// A cohort alone (normal path, all cores idle): pure launch skew.
void BM_CohortLaunchSkew(benchmark::State &state) {
  auto executor = makeExecutor();
  const int32_t cores = executor->cores();
  for (auto _ : state) {
    Probe cohort(cores);
    TaskGraph graph;
    TaskSpec c;
    c.name = "cohort";
    c.kernel = cohortKernel;
    c.user = &cohort;
    c.blocks = cores;
    c.flags = TaskSyncStart;
    graph.addTask(c);
    RunResult result = executor->run(graph);
    if (!result.ok) {
      state.SkipWithError(result.error.c_str());
      return;
    }
    double skew = double(cohort.maxStart() - cohort.minStart());
    gAlone.skew.values.push_back(skew);
    state.SetIterationTime(skew * 1e-9);
  }
  state.counters["cores"] = cores;
  state.counters["skew_median_ns"] = gAlone.skew.median();
  state.counters["skew_p90_ns"] = gAlone.skew.quantile(0.9);
}

BENCHMARK(BM_CohortLaunchSkew)->UseManualTime()->Iterations(2000);
BENCHMARK(BM_CohortEarlyDispatch)->UseManualTime()->Iterations(2000);
BENCHMARK(BM_CohortBaselineDispatch)->UseManualTime()->Iterations(2000);

} // namespace

int main(int argc, char **argv) {
  if (const char *env = std::getenv("SLUICE_COHORT_BENCH_CORES"))
    gCores = std::atoi(env);
  // Our flags first; the rest goes to Google Benchmark.
  std::vector<char *> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--cores=", 8) == 0)
      gCores = std::atoi(argv[i] + 8);
    else if (std::strncmp(argv[i], "--producer-work-ns=", 19) == 0)
      gProducerWorkNs = std::atoll(argv[i] + 19);
    else
      rest.push_back(argv[i]);
  }
  int restCount = static_cast<int>(rest.size());
  benchmark::Initialize(&restCount, rest.data());
  if (benchmark::ReportUnrecognizedArguments(restCount, rest.data()))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  unsigned hardware = std::thread::hardware_concurrency();
  int32_t cores = gCores > 0 ? gCores : static_cast<int32_t>(hardware);
  std::printf("\ncohort summary: %d cores on %u hardware threads (%s spin)\n",
              cores, hardware, cores <= int32_t(hardware) ? "pure" : "yield");
  if (!gAlone.skew.values.empty())
    std::printf("  launch skew, cohort alone:       median %8.0f ns  p90 %8.0f "
                "ns  (target < 5000 ns on >= 8 cores)\n",
                gAlone.skew.median(), gAlone.skew.quantile(0.9));
  if (!gEarly.skew.values.empty())
    std::printf("  launch skew, early-staged:       median %8.0f ns  p90 %8.0f "
                "ns\n",
                gEarly.skew.median(), gEarly.skew.quantile(0.9));
  if (!gEarly.completionToRing.values.empty())
    std::printf("  producer completion -> ring:     median %8.0f ns  p90 %8.0f "
                "ns  (early path)\n",
                gEarly.completionToRing.median(),
                gEarly.completionToRing.quantile(0.9));
  if (!gEarly.dispatch.values.empty() && !gBaseline.dispatch.values.empty()) {
    double early = gEarly.dispatch.median();
    double baseline = gBaseline.dispatch.median();
    std::printf("  dispatch latency (producer end -> first cohort block):\n"
                "    baseline (stage after completion) median %8.0f ns\n"
                "    early staging                     median %8.0f ns  "
                "(%.0f%% of runs took the early route)\n"
                "    ratio baseline/early %.2fx; hidden fraction of baseline "
                "dispatch latency: %.1f%% (target >= 80%%)\n",
                baseline, early,
                100.0 * double(gEarly.earlyRoutes) /
                    double(std::max<int64_t>(1, gEarly.runs)),
                early > 0 ? baseline / early : 0.0,
                baseline > 0 ? 100.0 * (1.0 - early / baseline) : 0.0);
  }
  return 0;
}
