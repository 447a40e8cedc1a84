//===- cpu_device_test.cpp - CPU device, worker pool, C ABI and trace -----===//

#include "scripted_program.h"

#include "sluice/runtime/c_api.h"
#include "sluice/runtime/device/cpu_device.h"
#include "sluice/runtime/device/worker_pool.h"
#include "sluice/runtime/wavefront/trace.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace sluice::runtime;
using namespace sluice::runtime::testing;

//===----------------------------------------------------------------------===//
// Worker pool
//===----------------------------------------------------------------------===//

namespace {

struct PoolProbe {
  WorkerPool *pool;
  std::vector<std::atomic<uint32_t>> runs;
  std::vector<std::atomic<uintptr_t>> firstFrame; // per worker
  std::atomic<uint32_t> wrongArena{0};
  std::atomic<uint32_t> notReset{0};
  explicit PoolProbe(WorkerPool &pool, uint32_t blocks)
      : pool(&pool), runs(blocks), firstFrame(pool.workerCount()) {}
};

void probeBlock(void *context, uint32_t block, uint32_t worker) {
  auto &probe = *static_cast<PoolProbe *>(context);
  probe.runs[block].fetch_add(1);
  if (&currentArena() != &probe.pool->arena(worker))
    probe.wrongArena.fetch_add(1);
  // Each block starts on a rewound arena: its first frame is always the
  // worker's first address.
  auto frame = reinterpret_cast<uintptr_t>(sluice_rt_coro_alloc(512, 0));
  uintptr_t expected = 0;
  if (!probe.firstFrame[worker].compare_exchange_strong(expected, frame) &&
      expected != frame)
    probe.notReset.fetch_add(1);
  sluice_rt_coro_alloc(4096, 0);
}

} // namespace

TEST(WorkerPoolTest, EveryBlockRunsExactlyOnceOnItsWorkersArena) {
  for (uint32_t workers : {1u, 2u, 4u}) {
    WorkerPool pool(workers, 1 << 20);
    ASSERT_EQ(pool.workerCount(), workers);
    for (uint32_t blocks : {0u, 1u, 7u, 1000u}) {
      PoolProbe probe(pool, blocks);
      pool.run(blocks, probeBlock, &probe);
      for (uint32_t block = 0; block < blocks; ++block)
        ASSERT_EQ(probe.runs[block].load(), 1u) << "block " << block;
      EXPECT_EQ(probe.wrongArena.load(), 0u);
      EXPECT_EQ(probe.notReset.load(), 0u);
    }
  }
}

TEST(WorkerPoolTest, ManyShortJobsBackToBack) {
  WorkerPool pool(3, 1 << 16);
  std::atomic<uint64_t> total{0};
  auto add = [](void *context, uint32_t block, uint32_t) {
    static_cast<std::atomic<uint64_t> *>(context)->fetch_add(block + 1);
  };
  const uint32_t jobs = 2000, blocks = 5;
  for (uint32_t job = 0; job < jobs; ++job)
    pool.run(blocks, add, &total);
  // Each job adds 1 + 2 + ... + blocks.
  EXPECT_EQ(total.load(), uint64_t(jobs) * blocks * (blocks + 1) / 2);
}

TEST(WorkerPoolTest, ARunFromABlockOfTheSamePoolRunsOnItsThread) {
  // A block of a job that starts a job of its own pool (the other workers
  // are busy with the outer job) runs the inner blocks itself, in order.
  WorkerPool pool(3, 1 << 16);
  struct Outer {
    WorkerPool *pool;
    std::vector<std::vector<uint32_t>> inner; // per outer block
    std::atomic<uint32_t> otherThread{0};
  } outer{&pool, std::vector<std::vector<uint32_t>>(6), {}};
  pool.run(
      6,
      [](void *context, uint32_t block, uint32_t) {
        auto &o = *static_cast<Outer *>(context);
        struct Inner {
          Outer *outer;
          uint32_t block;
          std::thread::id thread;
        } inner{&o, block, std::this_thread::get_id()};
        o.pool->run(
            4,
            [](void *c, uint32_t b, uint32_t) {
              auto &i = *static_cast<Inner *>(c);
              if (std::this_thread::get_id() != i.thread)
                i.outer->otherThread.fetch_add(1);
              i.outer->inner[i.block].push_back(b);
            },
            &inner);
      },
      &outer);
  for (const std::vector<uint32_t> &blocks : outer.inner)
    EXPECT_EQ(blocks, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(outer.otherThread.load(), 0u);
}

TEST(WorkerPoolTest, SharedPoolsAreOnePerWorkerCount) {
  EXPECT_EQ(&sharedWorkerPool(3), &sharedWorkerPool(3));
  EXPECT_NE(&sharedWorkerPool(3), &sharedWorkerPool(2));
  EXPECT_EQ(sharedWorkerPool(3).workerCount(), 3u);
  EXPECT_EQ(&sharedWorkerPool(0), &sharedWorkerPool(defaultWorkerCount(0)));
}

TEST(WorkerPoolTest, ChunksCoverTheRangeOnce) {
  WorkerPool pool(4, 1 << 16);
  EXPECT_EQ(chunkCount(nullptr, 1 << 20), 1u);
  EXPECT_EQ(chunkCount(&pool, 8191), 1u); // under two chunks' worth
  EXPECT_EQ(chunkCount(&pool, 8192), 2u);
  EXPECT_EQ(chunkCount(&pool, 1 << 20), 16u); // four a worker
  for (uint64_t n : {16u, 17u, 1000u}) {
    std::vector<std::atomic<uint32_t>> seen(n);
    std::atomic<uint32_t> empty{0};
    auto body = [&](uint32_t, uint64_t begin, uint64_t end) {
      if (begin == end)
        empty.fetch_add(1);
      for (uint64_t i = begin; i < end; ++i)
        seen[i].fetch_add(1);
    };
    runChunks(pool, 16, n, body);
    for (uint64_t i = 0; i < n; ++i)
      ASSERT_EQ(seen[i].load(), 1u) << i;
    EXPECT_EQ(empty.load(), 0u);
  }
}

TEST(WorkerPoolTest, DefaultIsOneWorkerPerCore) {
  unsigned cores = std::thread::hardware_concurrency();
  EXPECT_EQ(defaultWorkerCount(0), cores == 0 ? 1u : cores);
  EXPECT_EQ(defaultWorkerCount(5), 5u);
}

//===----------------------------------------------------------------------===//
// Frame layouts
//===----------------------------------------------------------------------===//

namespace {

constexpr uint32_t kFieldCount = 5;
const uint64_t kFieldSizes[kFieldCount] = {1, 8, 2, 24, 4};

uint8_t fieldByte(uint32_t lane, uint32_t field, uint64_t byte) {
  return uint8_t(lane * 31 + field * 7 + byte);
}

void writeFields(const sluice_rt_kernel_args *args, uint32_t begin,
                 uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) {
    uint32_t frame = sluice_rt_frame_of(args, i);
    uint32_t lane = sluice_rt_lane_of(args, i);
    for (uint32_t field = 0; field < kFieldCount; ++field) {
      auto *bytes =
          static_cast<uint8_t *>(sluice_rt_frame_field(args, frame, field));
      for (uint64_t b = 0; b < kFieldSizes[field]; ++b)
        bytes[b] = fieldByte(lane, field, b);
    }
    sluice_rt_move_frame(args, i, 1);
  }
}

std::atomic<uint32_t> corruptedFields{0};
std::atomic<uint32_t> misalignedFields{0};

void checkFields(const sluice_rt_kernel_args *args, uint32_t begin,
                 uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) {
    uint32_t frame = sluice_rt_frame_of(args, i);
    uint32_t lane = sluice_rt_lane_of(args, i);
    for (uint32_t field = 0; field < kFieldCount; ++field) {
      auto *bytes =
          static_cast<uint8_t *>(sluice_rt_frame_field(args, frame, field));
      if (reinterpret_cast<uintptr_t>(bytes) %
              std::min<uint64_t>(kFieldSizes[field], 8) !=
          0)
        misalignedFields.fetch_add(1);
      for (uint64_t b = 0; b < kFieldSizes[field]; ++b)
        if (bytes[b] != fieldByte(lane, field, b))
          corruptedFields.fetch_add(1);
    }
    sluice_rt_finish_frame(args, i);
  }
}

} // namespace

// All frames of the pool are written before any is read back, so any overlap
// between fields or frames corrupts a pattern.
TEST(CpuDeviceTest, FrameFieldsAreDisjointInBothLayouts) {
  for (FrameLayoutKind kind :
       {FrameLayoutKind::ArrayOfStructs, FrameLayoutKind::StructOfArrays}) {
    ProgramDescriptor program;
    program.name = "fields";
    program.mainStages = {{"write", writeFields}, {"check", checkFields}};
    program.frameLayout.kind = kind;
    program.frameLayout.fields = {
        {"a", 1, 1}, {"b", 8, 8}, {"c", 2, 2}, {"d", 24, 8}, {"e", 4, 4}};
    corruptedFields = 0;
    misalignedFields = 0;
    CpuDevice device(CpuDeviceOptions{2, 3});
    SchedulerOptions options;
    options.framePool = 37;
    WavefrontScheduler scheduler(program, device, options);
    RunResult result = scheduler.run(37 * 3);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
    EXPECT_EQ(corruptedFields.load(), 0u);
    EXPECT_EQ(misalignedFields.load(), 0u);
    // write x37, check x37, three times: 6 dispatches.
    EXPECT_EQ(result.iterations, 6u);
  }
}

TEST(CpuDeviceTest, DeviceRejectsRequestsBeyondItsState) {
  ScriptedProgram program;
  program.mainStages = {"only"};
  program.lanes = {{{0, {}}}};
  program.finalize();
  ProgramShape shape;
  ASSERT_TRUE(ProgramShape::build(program.descriptor(), shape).ok());
  CpuDevice device(CpuDeviceOptions{1});
  Observation observation;
  EXPECT_EQ(device.readCounts(observation).kind(), ErrorKind::InvalidState);
  ASSERT_TRUE(device.allocate(program.descriptor(), shape, 2).ok());
  device.refill(3);
  Status status = device.readCounts(observation);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(status.message().find("only 2 frames are free"), std::string::npos);
  device.reset();
  ASSERT_TRUE(device.readCounts(observation).ok());
  device.dispatch(0, 1); // nothing waits at stage 0
  EXPECT_EQ(device.readCounts(observation).kind(), ErrorKind::InvalidArgument);

  CpuDevice unallocated(CpuDeviceOptions{1});
  StateMachineReport report;
  status = unallocated.runStateMachine(1, report);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidState);
  EXPECT_EQ(status.message(),
            "cpu device: runStateMachine() before allocate()");

  ProgramDescriptor noKernel = program.descriptor();
  noKernel.mainStages[0].kernel = nullptr;
  EXPECT_EQ(device.allocate(noKernel, shape, 2).kind(),
            ErrorKind::InvalidDescriptor);
}

//===----------------------------------------------------------------------===//
// Larger runs on several workers
//===----------------------------------------------------------------------===//

namespace {

// gen -> trace (self-loop, publishes into shadow {intersect, shade}) ->
// finish, with lane-dependent paths; many lanes so dispatches span blocks.
void largeShadowProgram(ScriptedProgram &program, uint32_t lanes) {
  program.name = "large-shadow";
  program.mainStages = {"gen", "trace", "finish"};
  program.owners = {{"shadow", 48, {"intersect", "shade"}}};
  program.producers = {{1, 0, 2}};
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    LanePath path = {{0, {}}};
    uint32_t bounces = 1 + lane % 4;
    for (uint32_t bounce = 0; bounce < bounces; ++bounce) {
      StepSpec trace{1, {}};
      uint32_t items = (lane + bounce) % 3; // 0, 1 or 2 <= bound
      for (uint32_t item = 0; item < items; ++item) {
        std::vector<uint32_t> itemPath = {0};
        if ((lane + item) % 4 != 0) // otherwise bypass: released at intersect
          for (uint32_t loop = 0; loop <= (lane + bounce + item) % 3; ++loop)
            itemPath.push_back(1);
        trace.publishes.push_back({0, itemPath});
      }
      path.push_back(trace);
    }
    path.push_back({2, {}});
    program.lanes.push_back(path);
  }
  program.finalize();
}

} // namespace

TEST(CpuDeviceTest, ManyWorkersMatchThePlanAndTheStateMachine) {
  ScriptedProgram program;
  largeShadowProgram(program, 3000);
  for (uint32_t workers : {1u, 4u}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    CpuDevice device(CpuDeviceOptions{workers, 8});
    SchedulerOptions options;
    options.framePool = 200;
    WavefrontScheduler scheduler(program.descriptor(), device, options);
    RecordingObserver observer(program);
    scheduler.setObserver(&observer);
    program.resetLogs();
    RunResult wave = scheduler.run(program.laneCount());
    ASSERT_TRUE(wave.status.ok()) << wave.status.describe();
    EXPECT_EQ(observer.failure, "");
    EXPECT_EQ(program.verifyCompleteRun(), "");
    EXPECT_LE(program.maxLiveItems(0), 48);
    std::vector<StageStatistics> plan = program.expectedStatistics();
    for (size_t s = 0; s < plan.size(); ++s) {
      EXPECT_EQ(wave.stages[s].invocations, plan[s].invocations);
      EXPECT_EQ(wave.stages[s].itemsPublished, plan[s].itemsPublished);
      EXPECT_EQ(wave.stages[s].itemsReleased, plan[s].itemsReleased);
    }

    program.resetLogs();
    RunResult machine =
        runStateMachine(program.descriptor(), device, program.laneCount(), 200);
    ASSERT_TRUE(machine.status.ok()) << machine.status.describe();
    EXPECT_EQ(program.verifyCompleteRun(), "");
    EXPECT_LE(program.maxLiveItems(0), 48);
    for (size_t s = 0; s < plan.size(); ++s)
      EXPECT_EQ(machine.stages[s].invocations, plan[s].invocations);
  }
}

//===----------------------------------------------------------------------===//
// C ABI program runner
//===----------------------------------------------------------------------===//

// The SelfLoopsAndBypass scenario (scheduler_scenarios_test.cpp) through the
// C ABI: same hand-derived dispatch counts per stage.
TEST(CApiProgram, RunsADescriptorAndReportsPerStageStatistics) {
  ScriptedProgram program;
  program.mainStages = {"gen", "trace", "finish"};
  program.owners = {{"shadow", 8, {"intersect", "shade"}}};
  program.producers = {{1, 0, 1}};
  program.lanes = {
      {{0, {}}, {1, {{0, {0}}}}, {1, {{0, {0, 1, 1}}}}, {2, {}}},
      {{0, {}}, {1, {{0, {0, 1}}}}, {2, {}}},
  };
  program.finalize();

  sluice_rt_stage_desc mainStages[] = {{"gen", ScriptedProgram::mainKernel},
                                       {"trace", ScriptedProgram::mainKernel},
                                       {"finish", ScriptedProgram::mainKernel}};
  sluice_rt_stage_desc shadowStages[] = {
      {"intersect", ScriptedProgram::ownerKernel},
      {"shade", ScriptedProgram::ownerKernel}};
  sluice_rt_owner_desc owners[] = {
      {"shadow", 8, sizeof(ItemPayload), 2, shadowStages}};
  sluice_rt_producer_desc producers[] = {{1, 0, 1}};
  sluice_rt_frame_field_desc fields[] = {{4, 4}};
  sluice_rt_program_desc desc = {
      "c-abi", 3,         mainStages,          0, 1,      owners,
      1,       producers, SLUICE_RT_FRAME_SOA, 1, fields, &program};
  sluice_rt_run_options options = {2, 2,      1, SLUICE_RT_SCHEDULE_WAVEFRONT,
                                   1, nullptr};
  sluice_rt_stage_stats stats[5] = {};
  uint64_t iterations = 0;
  char error[256] = "unset";
  int rc = sluice_rt_run_program(&desc, &options, stats, 5, &iterations, error,
                                 sizeof(error));
  ASSERT_EQ(rc, 0) << error;
  EXPECT_STREQ(error, "");
  EXPECT_EQ(program.verifyCompleteRun(), "");
  EXPECT_EQ(iterations, 8u);
  const uint64_t dispatches[] = {1, 2, 1, 2, 2};
  const uint64_t invocations[] = {2, 3, 2, 3, 3};
  for (int s = 0; s < 5; ++s) {
    EXPECT_EQ(stats[s].dispatches, dispatches[s]) << "stage " << s;
    EXPECT_EQ(stats[s].invocations, invocations[s]) << "stage " << s;
  }
  EXPECT_EQ(stats[1].items_published, 3u);
  EXPECT_EQ(stats[3].items_released + stats[4].items_released, 3u);

  // The state-machine schedule through the same entry point.
  program.resetLogs();
  options.schedule = SLUICE_RT_SCHEDULE_STATE_MACHINE;
  ASSERT_EQ(sluice_rt_run_program(&desc, &options, stats, 5, &iterations, error,
                                  sizeof(error)),
            0)
      << error;
  EXPECT_EQ(program.verifyCompleteRun(), "");
  EXPECT_EQ(stats[4].invocations, 3u);

  // Errors come back as a kind and a message.
  sluice_rt_producer_desc tooBig[] = {{1, 0, 9}};
  desc.producers = tooBig;
  rc = sluice_rt_run_program(&desc, &options, nullptr, 0, nullptr, error,
                             sizeof(error));
  EXPECT_EQ(rc, int(ErrorKind::InvalidDescriptor));
  EXPECT_NE(std::string(error).find("capacity is only 8"), std::string::npos);
  desc.producers = producers;
  options.schedule = SLUICE_RT_SCHEDULE_WAVEFRONT;
  rc = sluice_rt_run_program(&desc, &options, stats, 4, nullptr, error,
                             sizeof(error));
  EXPECT_EQ(rc, int(ErrorKind::InvalidArgument));
  EXPECT_EQ(
      sluice_rt_run_program(nullptr, &options, nullptr, 0, nullptr, nullptr, 0),
      int(ErrorKind::InvalidArgument));
}

//===----------------------------------------------------------------------===//
// Chrome trace
//===----------------------------------------------------------------------===//

namespace {

// A strict recursive-descent JSON recognizer (RFC 8259 grammar).
class JsonChecker {
public:
  explicit JsonChecker(const std::string &text) : text_(text) {}
  bool valid() {
    skipSpace();
    if (!value())
      return false;
    skipSpace();
    return pos_ == text_.size();
  }

private:
  bool value() {
    skipSpace();
    if (pos_ >= text_.size())
      return false;
    char c = text_[pos_];
    if (c == '{')
      return object();
    if (c == '[')
      return array();
    if (c == '"')
      return string();
    if (c == '-' || (c >= '0' && c <= '9'))
      return number();
    for (const char *word : {"true", "false", "null"})
      if (text_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        return true;
      }
    return false;
  }
  bool object() {
    ++pos_;
    skipSpace();
    if (peek('}'))
      return ++pos_, true;
    for (;;) {
      skipSpace();
      if (!string())
        return false;
      skipSpace();
      if (!peek(':'))
        return false;
      ++pos_;
      if (!value())
        return false;
      skipSpace();
      if (peek('}'))
        return ++pos_, true;
      if (!peek(','))
        return false;
      ++pos_;
    }
  }
  bool array() {
    ++pos_;
    skipSpace();
    if (peek(']'))
      return ++pos_, true;
    for (;;) {
      if (!value())
        return false;
      skipSpace();
      if (peek(']'))
        return ++pos_, true;
      if (!peek(','))
        return false;
      ++pos_;
    }
  }
  bool string() {
    if (!peek('"'))
      return false;
    for (++pos_; pos_ < text_.size(); ++pos_) {
      unsigned char c = text_[pos_];
      if (c == '"')
        return ++pos_, true;
      if (c < 0x20)
        return false;
      if (c == '\\') {
        if (++pos_ >= text_.size() ||
            std::string("\"\\/bfnrtu").find(text_[pos_]) == std::string::npos)
          return false;
      }
    }
    return false;
  }
  bool number() {
    size_t start = pos_;
    if (peek('-'))
      ++pos_;
    size_t digits = pos_;
    while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_]))
      ++pos_;
    if (pos_ == digits)
      return false;
    if (peek('.')) {
      ++pos_;
      size_t fraction = pos_;
      while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_]))
        ++pos_;
      if (pos_ == fraction)
        return false;
    }
    return pos_ > start;
  }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace((unsigned char)text_[pos_]))
      ++pos_;
  }
  const std::string &text_;
  size_t pos_ = 0;
};

size_t countOccurrences(const std::string &text, const std::string &part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + 1))
    ++count;
  return count;
}

} // namespace

TEST(ChromeTrace, EveryIterationIsTracedAsValidJson) {
  ScriptedProgram program;
  program.name = "traced \"program\"";
  program.mainStages = {"emit"};
  program.owners = {{"pool", 4, {"a", "b"}}};
  program.producers = {{0, 0, 1}};
  for (uint32_t lane = 0; lane < 8; ++lane)
    program.lanes.push_back({{0, {{0, {0, 1}}}}});
  program.finalize();

  std::string path = ::testing::TempDir() + "sluice_trace_" +
                     std::to_string(::getpid()) + ".json";
  CpuDevice device(CpuDeviceOptions{1});
  SchedulerOptions options;
  options.framePool = 8;
  options.tracePath = path;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  RunResult result = scheduler.run(8);
  ASSERT_TRUE(result.status.ok()) << result.status.describe();

  std::ifstream file(path);
  std::stringstream buffer;
  buffer << file.rdbuf();
  std::string json = buffer.str();
  std::remove(path.c_str());
  ASSERT_FALSE(json.empty());
  EXPECT_TRUE(JsonChecker(json).valid());
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  EXPECT_EQ(countOccurrences(json, "\"cat\":\"dispatch\""), result.iterations);
  EXPECT_EQ(countOccurrences(json, "\"name\":\"readback\""), result.iterations);
  EXPECT_EQ(countOccurrences(json, "\"name\":\"pool items\""),
            result.iterations);
  EXPECT_NE(json.find("traced \\\"program\\\""), std::string::npos);
  EXPECT_NE(json.find("\"action\":\"drain\""), std::string::npos);
  EXPECT_NE(json.find("\"status\":\"finished\""), std::string::npos);

  // A failed run's trace names the error.
  ProgramDescriptor bad = program.descriptor();
  SchedulerOptions limited = options;
  limited.maxIterations = 1;
  WavefrontScheduler limitedScheduler(bad, device, limited);
  EXPECT_EQ(limitedScheduler.run(8).status.kind(), ErrorKind::IterationLimit);
  std::ifstream failedFile(path);
  std::stringstream failedBuffer;
  failedBuffer << failedFile.rdbuf();
  std::remove(path.c_str());
  EXPECT_TRUE(JsonChecker(failedBuffer.str()).valid());
  EXPECT_NE(failedBuffer.str().find("iteration limit"), std::string::npos);

  EXPECT_FALSE(JsonChecker("{\"a\":}").valid());
  EXPECT_EQ(jsonEscape("a\"b\\c\n\x01"), "a\\\"b\\\\c\\n\\u0001");
}

TEST(ChromeTrace, UnwritablePathIsAnError) {
  ScriptedProgram program;
  program.mainStages = {"only"};
  program.lanes = {{{0, {}}}};
  program.finalize();
  CpuDevice device(CpuDeviceOptions{1});
  SchedulerOptions options;
  options.tracePath = "/nonexistent-directory/trace.json";
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  RunResult result = scheduler.run(1);
  EXPECT_EQ(result.status.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(result.status.message().find("cannot open trace file"),
            std::string::npos);
}
