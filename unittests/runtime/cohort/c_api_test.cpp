//===- c_api_test.cpp - The cohort C ABI ----------------------------------===//
#include "sluice/runtime/cohort/c_api.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

extern "C" int sluiceCohortCSmoke(void);

namespace {

TEST(cohortCApi, UsableFromC) { EXPECT_EQ(sluiceCohortCSmoke(), 0); }

struct Counters {
  std::atomic<int64_t> producerSum{0};
  std::atomic<int64_t> cohortArrived{0};
  std::atomic<int64_t> cohortSum{0};
  int64_t producerBlocks = 0;
  std::atomic<int64_t> producerDone{0};
  std::atomic<int32_t> violations{0};
};

extern "C" void producerKernel(void *user, int64_t block, int64_t count) {
  auto *c = static_cast<Counters *>(user);
  c->producerSum.fetch_add(block * 3 + 1);
  c->producerDone.fetch_add(1);
}

extern "C" void cohortKernel(void *user, int64_t block, int64_t count) {
  auto *c = static_cast<Counters *>(user);
  if (c->producerDone.load() != c->producerBlocks)
    c->violations.fetch_add(1);
  c->cohortArrived.fetch_add(1);
  // Cross-block barrier: all blocks of the cohort must be co-resident.
  for (int spins = 0; c->cohortArrived.load() < count; ++spins)
    if (spins > 64)
      std::this_thread::yield();
  c->cohortSum.fetch_add(block);
}

TEST(cohortCApi, ProducerFeedsCohort) {
  sluice_cohort_graph *graph = sluice_cohort_graph_create(3);
  ASSERT_NE(graph, nullptr);
  Counters counters;
  counters.producerBlocks = 10;
  int32_t p =
      sluice_cohort_add_task(graph, "producer", producerKernel, &counters, 10,
                             SLUICE_COHORT_ALLOW_EARLY_RESOLVE);
  int32_t c = sluice_cohort_add_task(graph, "cohort", cohortKernel, &counters,
                                     3, SLUICE_COHORT_SYNC_START);
  EXPECT_EQ(p, 0);
  EXPECT_EQ(c, 1);
  EXPECT_EQ(sluice_cohort_add_dependency(graph, p, c), 0);
  ASSERT_EQ(sluice_cohort_run(graph), 0) << sluice_cohort_last_error(graph);
  EXPECT_STREQ(sluice_cohort_last_error(graph), "");
  // sum_{b<10} (3b + 1) = 3 * 45 + 10
  EXPECT_EQ(counters.producerSum.load(), 145);
  EXPECT_EQ(counters.cohortSum.load(), 0 + 1 + 2);
  EXPECT_EQ(counters.violations.load(), 0);
  EXPECT_EQ(sluice_cohort_task_state(graph, p), SLUICE_COHORT_TASK_COMPLETED);
  EXPECT_EQ(sluice_cohort_task_blocks_run(graph, c), 3);
  EXPECT_STREQ(sluice_cohort_task_error(graph, c), "");
  // Runs again on the same executor.
  counters.producerDone = 0;
  counters.cohortArrived = 0;
  ASSERT_EQ(sluice_cohort_run(graph), 0) << sluice_cohort_last_error(graph);
  EXPECT_EQ(counters.producerSum.load(), 290);
  sluice_cohort_graph_destroy(graph);
}

TEST(cohortCApi, ErrorsAtAddTime) {
  sluice_cohort_graph *graph = sluice_cohort_graph_create(2);
  EXPECT_EQ(
      sluice_cohort_add_task(graph, "zero", producerKernel, nullptr, 0, 0), -1);
  EXPECT_STREQ(sluice_cohort_last_error(graph),
               "sluice_cohort_add_task: task 'zero' has 0 blocks; needs at "
               "least 1");
  EXPECT_EQ(
      sluice_cohort_add_task(graph, "flags", producerKernel, nullptr, 1, 64),
      -1);
  EXPECT_STREQ(sluice_cohort_last_error(graph),
               "sluice_cohort_add_task: task 'flags' has unknown flags 64");
  // An unnamed task is shown by the index it would have had (none added yet).
  EXPECT_EQ(sluice_cohort_add_task_named(graph, nullptr, "cohort.capi.any",
                                         nullptr, -3, 0),
            -1);
  EXPECT_STREQ(sluice_cohort_last_error(graph),
               "sluice_cohort_add_task_named: task task0 has -3 blocks; needs "
               "at least 1");
  EXPECT_EQ(
      sluice_cohort_add_task(graph, "negative", producerKernel, nullptr, 1, -1),
      -1);
  EXPECT_STREQ(sluice_cohort_last_error(graph),
               "sluice_cohort_add_task: task 'negative' has unknown flags -1");
  EXPECT_EQ(sluice_cohort_add_dependency(graph, 0, 1), -1);
  EXPECT_EQ(sluice_cohort_add_task(nullptr, "x", producerKernel, nullptr, 1, 0),
            -1);
  EXPECT_NE(std::string(sluice_cohort_last_error(nullptr)).find("null graph"),
            std::string::npos);
  EXPECT_EQ(sluice_cohort_register_kernel("", producerKernel), -1);
  EXPECT_EQ(sluice_cohort_register_kernel("cohort.capi.null", nullptr), -1);
  sluice_cohort_graph_destroy(graph);
}

TEST(cohortCApi, ErrorsAtRunStartNothing) {
  Counters counters;
  counters.producerBlocks = 1;
  {
    sluice_cohort_graph *graph = sluice_cohort_graph_create(2);
    sluice_cohort_add_task(graph, "ok", producerKernel, &counters, 1, 0);
    sluice_cohort_add_task(graph, "big", cohortKernel, &counters, 3,
                           SLUICE_COHORT_SYNC_START);
    EXPECT_NE(sluice_cohort_run(graph), 0);
    EXPECT_NE(std::string(sluice_cohort_last_error(graph))
                  .find("can never be co-resident"),
              std::string::npos)
        << sluice_cohort_last_error(graph);
    EXPECT_EQ(sluice_cohort_task_state(graph, 0), SLUICE_COHORT_TASK_NOT_RUN);
    sluice_cohort_graph_destroy(graph);
  }
  {
    sluice_cohort_graph *graph = sluice_cohort_graph_create(2);
    sluice_cohort_add_task(graph, "null", nullptr, nullptr, 1, 0);
    sluice_cohort_add_task_named(graph, "named", "cohort.capi.missing", nullptr,
                                 1, 0);
    EXPECT_NE(sluice_cohort_run(graph), 0);
    std::string error = sluice_cohort_last_error(graph);
    EXPECT_NE(error.find("task 'null' has no kernel"), std::string::npos)
        << error;
    EXPECT_NE(error.find("'cohort.capi.missing', which is not registered"),
              std::string::npos)
        << error;
    sluice_cohort_graph_destroy(graph);
  }
  {
    sluice_cohort_graph *graph = sluice_cohort_graph_create(2);
    sluice_cohort_add_task(graph, "x", producerKernel, &counters, 1, 0);
    sluice_cohort_add_task(graph, "y", producerKernel, &counters, 1, 0);
    sluice_cohort_add_dependency(graph, 0, 1);
    sluice_cohort_add_dependency(graph, 1, 0);
    EXPECT_NE(sluice_cohort_run(graph), 0);
    EXPECT_NE(std::string(sluice_cohort_last_error(graph))
                  .find("dependency cycle: 'x' -> 'y' -> 'x'"),
              std::string::npos)
        << sluice_cohort_last_error(graph);
    sluice_cohort_graph_destroy(graph);
  }
  EXPECT_EQ(counters.producerSum.load(), 0);
}

extern "C" void namedKernel(void *user, int64_t block, int64_t) {
  static_cast<std::atomic<int64_t> *>(user)->fetch_add(block);
}

extern "C" void failingKernel(void *, int64_t block, int64_t) {
  if (block == 1)
    sluice_cohort_fail_block("value 7 out of range [0, 5)");
}

TEST(cohortCApi, NamedKernelsAndFailures) {
  ASSERT_EQ(sluice_cohort_register_kernel("cohort.capi.named", namedKernel), 0);
  std::atomic<int64_t> sum{0};
  sluice_cohort_graph *graph = sluice_cohort_graph_create(0);
  int32_t t = sluice_cohort_add_task_named(graph, nullptr, "cohort.capi.named",
                                           &sum, 5, 0);
  ASSERT_EQ(sluice_cohort_run(graph), 0) << sluice_cohort_last_error(graph);
  EXPECT_EQ(sum.load(), 10);
  EXPECT_EQ(sluice_cohort_task_blocks_run(graph, t), 5);
  sluice_cohort_graph_destroy(graph);

  graph = sluice_cohort_graph_create(2);
  int32_t f =
      sluice_cohort_add_task(graph, "check", failingKernel, nullptr, 3, 0);
  EXPECT_NE(sluice_cohort_run(graph), 0);
  EXPECT_STREQ(sluice_cohort_last_error(graph),
               "task 'check' block 1 of 3 failed: value 7 out of range [0, 5)");
  EXPECT_EQ(sluice_cohort_task_state(graph, f), SLUICE_COHORT_TASK_FAILED);
  EXPECT_STREQ(sluice_cohort_task_error(graph, f),
               sluice_cohort_last_error(graph));
  sluice_cohort_graph_destroy(graph);
}

} // namespace
