//===- scheduler_scenarios_test.cpp - Hand-derived wavefront runs ---------===//
//
// Each scenario's dispatch sequence and per-stage statistics are derived by
// hand in the comment above it, from the iteration rule in wavefront.h:
// observe -> refill -> greedy choice (ties to the lowest global index) ->
// admission (drain the first non-empty stage when blocked) -> dispatch.
// Count vectors list main stages first, then owner stages.
//
//===----------------------------------------------------------------------===//

#include "scripted_program.h"

#include "sluice/runtime/device/cpu_device.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <gtest/gtest.h>

using namespace sluice::runtime;
using namespace sluice::runtime::testing;

namespace {

struct ExpectedIteration {
  uint32_t stage;
  uint32_t count;
  IterationAction action;
};

constexpr IterationAction kDispatch = IterationAction::DispatchStage;
constexpr IterationAction kAdmit = IterationAction::AdmitProducer;
constexpr IterationAction kPartial = IterationAction::AdmitProducerPartially;
constexpr IterationAction kDrain = IterationAction::DrainForAdmission;

void expectSequence(const std::vector<IterationRecord> &records,
                    const std::vector<ExpectedIteration> &expected) {
  ASSERT_EQ(records.size(), expected.size());
  for (size_t n = 0; n < expected.size(); ++n) {
    SCOPED_TRACE("iteration " + std::to_string(n));
    EXPECT_EQ(records[n].dispatchedStage, expected[n].stage);
    EXPECT_EQ(records[n].dispatched, expected[n].count);
    EXPECT_EQ(records[n].action, expected[n].action);
  }
}

struct StageExpectation {
  uint64_t dispatches, invocations, published, released, partial, blocks,
      drains;
};

void expectStats(const std::vector<StageStatistics> &stats,
                 const std::vector<StageExpectation> &expected) {
  ASSERT_EQ(stats.size(), expected.size());
  for (size_t s = 0; s < expected.size(); ++s) {
    SCOPED_TRACE("stage " + std::to_string(s));
    EXPECT_EQ(stats[s].dispatches, expected[s].dispatches);
    EXPECT_EQ(stats[s].invocations, expected[s].invocations);
    EXPECT_EQ(stats[s].itemsPublished, expected[s].published);
    EXPECT_EQ(stats[s].itemsReleased, expected[s].released);
    EXPECT_EQ(stats[s].partialAdmissions, expected[s].partial);
    EXPECT_EQ(stats[s].admissionBlocks, expected[s].blocks);
    EXPECT_EQ(stats[s].drainDispatches, expected[s].drains);
  }
}

// The plan's closed-form totals must agree with the run as well.
void expectPlanTotals(const ScriptedProgram &program,
                      const std::vector<StageStatistics> &stats) {
  std::vector<StageStatistics> plan = program.expectedStatistics();
  ASSERT_EQ(stats.size(), plan.size());
  for (size_t s = 0; s < plan.size(); ++s) {
    EXPECT_EQ(stats[s].invocations, plan[s].invocations) << "stage " << s;
    EXPECT_EQ(stats[s].itemsPublished, plan[s].itemsPublished) << "stage " << s;
    EXPECT_EQ(stats[s].itemsReleased, plan[s].itemsReleased) << "stage " << s;
  }
}

struct ScenarioRun {
  RunResult result;
  std::vector<IterationRecord> records;
  std::string observerFailure;
};

ScenarioRun runScenario(ScriptedProgram &program, uint32_t framePool,
                        CapacityOwnerClient *client = nullptr,
                        bool partialAdmission = true, uint32_t workers = 1) {
  CpuDeviceOptions deviceOptions;
  deviceOptions.workers = workers;
  deviceOptions.blockSize = 1; // several workers share even tiny dispatches
  CpuDevice device(deviceOptions);
  SchedulerOptions options;
  options.framePool = framePool;
  options.partialAdmission = partialAdmission;
  options.maxIterations = program.totalVisits();
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  if (client)
    scheduler.setOwnerClient(0, client);
  RecordingObserver observer(program);
  scheduler.setObserver(&observer);
  program.resetLogs();
  ScenarioRun run;
  run.result = scheduler.run(program.laneCount());
  run.records = observer.records;
  run.observerFailure = observer.failure;
  return run;
}

// One main stage `emit` (publishes one item into `pool` and finishes); `pool`
// has stages {a, b} with capacity 4. Items of even lanes are released at a,
// items of odd lanes move to b and are released there.
void evenOddPoolProgram(ScriptedProgram &program, uint32_t lanes) {
  program.name = "even-odd-pool";
  program.mainStages = {"emit"};
  program.owners = {{"pool", 4, {"a", "b"}}};
  program.producers = {{0, 0, 1}};
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    std::vector<uint32_t> path =
        lane % 2 == 0 ? std::vector<uint32_t>{0} : std::vector<uint32_t>{0, 1};
    program.lanes.push_back({{0, {{0, path}}}});
  }
  program.finalize();
}

} // namespace

// Append allocator that reclaims only when empty, so A < C - L. Stages:
// emit=0, a=1, b=2; C=4, b=1, 8 lanes, pool 8.
//  it0: refill 8 -> [8,0,0]. emit; empty -> reclaim, A=4 -> partial 4
//       (lanes 0-3) -> [4,4,0], appended 4.
//  it1: [4,4,0] tie -> emit. A = 4-4 = 0 -> blocked; drain a x4: lanes 0,2
//       released, 1,3 -> b -> [4,0,2], L=2, appended still 4.
//  it2: [4,0,2] -> emit. A = 0 although C-L = 2 -> blocked; first
//       non-empty stage is b: drain b x2 -> [4,0,0], L=0.
//  it3: emit; empty -> reclaim, A=4 -> full 4 -> [0,4,0].
//  it4: a x4 (greedy): lanes 4,6 released, 5,7 -> b -> [0,0,2].
//  it5: b x2 -> all released; it6 observes completion.
// emit: 2 dispatches, 8 invocations, 8 published, 1 partial, 2 blocks.
// a: 2 dispatches, 8 invocations, 4 released, 1 drain.
// b: 2 dispatches, 4 invocations, 4 released, 1 drain.
TEST(WavefrontScenario, AppendAllocatorReclaimsOnlyWhenEmpty) {
  ScriptedProgram program;
  evenOddPoolProgram(program, 8);
  AppendAllocatorClient client;
  ScenarioRun run = runScenario(program, 8, &client);
  ASSERT_TRUE(run.result.status.ok()) << run.result.status.describe();
  EXPECT_EQ(run.observerFailure, "");
  EXPECT_EQ(program.verifyCompleteRun(), "");
  expectSequence(run.records, {{0, 4, kPartial},
                               {1, 4, kDrain},
                               {2, 2, kDrain},
                               {0, 4, kAdmit},
                               {1, 4, kDispatch},
                               {2, 2, kDispatch}});
  expectStats(
      run.result.stages,
      {{2, 8, 8, 0, 1, 2, 0}, {2, 8, 0, 4, 0, 0, 1}, {2, 4, 0, 4, 0, 0, 1}});
  expectPlanTotals(program, run.result.stages);
  EXPECT_EQ(run.result.iterations, 6u);
  EXPECT_EQ(client.reclaims, 1u); // it3; it0 found nothing to reclaim
}

// The same program with the default client (A = C - L):
//  it0: [8,0,0] emit, A=4 -> partial 4 -> [4,4,0].
//  it1: [4,4,0] emit, A=0 -> drain a x4 -> 0,2 released; 1,3 -> b: [4,0,2].
//  it2: [4,0,2] emit, A=2 -> partial 2 (lanes 4,5) -> [2,2,2], L=4.
//  it3: [2,2,2] tie -> emit, A=0 -> drain a x2: 4 released, 5 -> b: [2,0,3].
//  it4: [2,0,3] -> b x3 (greedy) -> [2,0,0].
//  it5: emit, A=4 -> full 2 (lanes 6,7) -> [0,2,0].
//  it6: a x2: 6 released, 7 -> b. it7: b x1.
TEST(WavefrontScenario, DefaultClientAdmitsEveryFreeSlot) {
  ScriptedProgram program;
  evenOddPoolProgram(program, 8);
  ScenarioRun run = runScenario(program, 8);
  ASSERT_TRUE(run.result.status.ok()) << run.result.status.describe();
  EXPECT_EQ(program.verifyCompleteRun(), "");
  expectSequence(run.records, {{0, 4, kPartial},
                               {1, 4, kDrain},
                               {0, 2, kPartial},
                               {1, 2, kDrain},
                               {2, 3, kDispatch},
                               {0, 2, kAdmit},
                               {1, 2, kDispatch},
                               {2, 1, kDispatch}});
  expectStats(
      run.result.stages,
      {{3, 8, 8, 0, 2, 2, 0}, {3, 8, 0, 4, 0, 0, 2}, {2, 4, 0, 4, 0, 0, 0}});
  expectPlanTotals(program, run.result.stages);
}

// Multi-stage owner whose later stage holds every item while the entry stage
// is empty. emit=0, s0=1, s1=2; C=4, b=1, 10 lanes, pool 10; item path
// [s0, s1].
//  it0: refill 10 -> emit, A=4 -> partial 4 -> [6,4,0].
//  it1: [6,4,0] emit, A=0 -> drain first non-empty s0 x4 -> [6,0,4].
//  it2: [6,0,4] emit, A=0 -> entry stage empty: drain s1 x4 -> [6,0,0].
//  it3: emit, A=4 -> partial 4 -> [2,4,0].
//  it4: s0 x4 (greedy) -> [2,0,4]. it5: s1 x4 -> [2,0,0].
//  it6: emit, A=4 -> full 2 -> [0,2,0]. it7: s0 x2. it8: s1 x2.
TEST(WavefrontScenario, DrainsLaterStageWhenEntryStageIsEmpty) {
  ScriptedProgram program;
  program.mainStages = {"emit"};
  program.owners = {{"chain", 4, {"s0", "s1"}}};
  program.producers = {{0, 0, 1}};
  for (uint32_t lane = 0; lane < 10; ++lane)
    program.lanes.push_back({{0, {{0, {0, 1}}}}});
  program.finalize();
  ScenarioRun run = runScenario(program, 10);
  ASSERT_TRUE(run.result.status.ok()) << run.result.status.describe();
  EXPECT_EQ(program.verifyCompleteRun(), "");
  expectSequence(run.records, {{0, 4, kPartial},
                               {1, 4, kDrain},
                               {2, 4, kDrain},
                               {0, 4, kPartial},
                               {1, 4, kDispatch},
                               {2, 4, kDispatch},
                               {0, 2, kAdmit},
                               {1, 2, kDispatch},
                               {2, 2, kDispatch}});
  expectStats(run.result.stages, {{3, 10, 10, 0, 2, 2, 0},
                                  {3, 10, 0, 0, 0, 0, 1},
                                  {3, 10, 0, 10, 0, 0, 1}});
  EXPECT_EQ(run.records[2].blockingOwner, 0u);
  EXPECT_EQ(run.records[2].availability, 0u);
}

// Self-loops and bypass in main and auxiliary stages. gen=0, trace=1,
// finish=2, intersect=3, shade=4; C=8, b=1, pool 2.
// Lane 0: gen, trace (item A: [intersect] - bypass), trace (item B:
// [intersect, shade, shade] - shade self-loop), finish.
// Lane 1: gen, trace (item C: [intersect, shade]), finish.
//  it0: [2,0,0,0,0] gen x2 -> [0,2,0,0,0].
//  it1: trace, A=8 >= 2 -> admit 2: lane 0 publishes A and loops on trace,
//       lane 1 publishes C -> finish: [0,1,1,2,0].
//  it2: intersect x2: A released, C -> shade: [0,1,1,0,1].
//  it3: tie of ones -> trace (lowest), A=7 -> admit 1: B published, lane 0
//       -> finish: [0,0,2,1,1].
//  it4: finish x2 -> [0,0,0,1,1]. it5: tie -> intersect x1: B -> shade.
//  it6: shade x2: C released, B loops -> [0,0,0,0,1]. it7: shade x1.
TEST(WavefrontScenario, SelfLoopsAndBypass) {
  ScriptedProgram program;
  program.mainStages = {"gen", "trace", "finish"};
  program.owners = {{"shadow", 8, {"intersect", "shade"}}};
  program.producers = {{1, 0, 1}};
  program.lanes = {
      {{0, {}}, {1, {{0, {0}}}}, {1, {{0, {0, 1, 1}}}}, {2, {}}},
      {{0, {}}, {1, {{0, {0, 1}}}}, {2, {}}},
  };
  program.finalize();
  for (uint32_t workers : {1u, 2u}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    ScenarioRun run = runScenario(program, 2, nullptr, true, workers);
    ASSERT_TRUE(run.result.status.ok()) << run.result.status.describe();
    EXPECT_EQ(program.verifyCompleteRun(), "");
    expectSequence(run.records, {{0, 2, kDispatch},
                                 {1, 2, kAdmit},
                                 {3, 2, kDispatch},
                                 {1, 1, kAdmit},
                                 {2, 2, kDispatch},
                                 {3, 1, kDispatch},
                                 {4, 2, kDispatch},
                                 {4, 1, kDispatch}});
    expectStats(run.result.stages, {{1, 2, 0, 0, 0, 0, 0},
                                    {2, 3, 3, 0, 0, 0, 0},
                                    {1, 2, 0, 0, 0, 0, 0},
                                    {2, 3, 0, 1, 0, 0, 0},
                                    {2, 3, 0, 2, 0, 0, 0}});
  }
}

// A producer feeding two owners with partial admission off; blocked until a
// drain frees capacity. emit=0, x0=1, y0=2. X: C=2, b=1; Y: C=4, b=2; pool 2
// (P*b fits both: 2 <= 2, 4 <= 4); 4 lanes, each publishes 1 X and 2 Y items.
//  it0: refill 2 -> emit: X A=2 fits 2, Y A=4 fits 2*2 -> admit 2:
//       [0,2,4], frames free 2.
//  it1: refill 2 -> [2,2,4] -> y0 x4 (greedy) -> [2,2,0].
//  it2: [2,2,0] tie -> emit: X A=0 blocked (no partial) -> drain x0 x2.
//  it3: [2,0,0] emit admitted 2 -> [0,2,4]. it4: y0 x4. it5: x0 x2.
TEST(WavefrontScenario, ProducerBlockedUntilDrainReleasesCapacity) {
  ScriptedProgram program;
  program.mainStages = {"emit"};
  program.owners = {{"X", 2, {"x0"}}, {"Y", 4, {"y0"}}};
  program.producers = {{0, 0, 1}, {0, 1, 2}};
  for (uint32_t lane = 0; lane < 4; ++lane)
    program.lanes.push_back({{0, {{0, {0}}, {1, {0}}, {1, {0}}}}});
  program.finalize();
  ScenarioRun run = runScenario(program, 2, nullptr, false);
  ASSERT_TRUE(run.result.status.ok()) << run.result.status.describe();
  EXPECT_EQ(program.verifyCompleteRun(), "");
  expectSequence(run.records, {{0, 2, kAdmit},
                               {2, 4, kDispatch},
                               {1, 2, kDrain},
                               {0, 2, kAdmit},
                               {2, 4, kDispatch},
                               {1, 2, kDispatch}});
  expectStats(
      run.result.stages,
      {{2, 4, 12, 0, 0, 1, 0}, {2, 4, 0, 4, 0, 0, 1}, {2, 8, 0, 8, 0, 0, 0}});
  EXPECT_EQ(run.records[2].blockingOwner, 0u);
}

namespace {

// Default behaviour, with every hook call logged as "<owner>.<hook>(<value>)".
class RecordingClient final : public CapacityOwnerClient {
public:
  explicit RecordingClient(std::vector<std::string> &log) : log_(log) {}
  void beginRun(const OwnerView &owner) override {
    log_.push_back(std::string(owner.name) + ".begin");
  }
  void prepareForAdmission(const OwnerView &owner) override {
    log_.push_back(std::string(owner.name) + ".prepare");
  }
  uint64_t materializableAvailability(const OwnerView &owner) override {
    uint64_t available = CapacityOwnerClient::materializableAvailability(owner);
    log_.push_back(std::string(owner.name) + ".available(" +
                   std::to_string(available) + ")");
    return available;
  }
  uint32_t admissionStage(const OwnerView &owner) override {
    uint32_t stage = CapacityOwnerClient::admissionStage(owner);
    log_.push_back(std::string(owner.name) + ".drain(" + std::to_string(stage) +
                   ")");
    return stage;
  }
  void prepareForProducer(const OwnerView &owner, uint64_t slots) override {
    log_.push_back(std::string(owner.name) + ".producer(" +
                   std::to_string(slots) + ")");
  }

private:
  std::vector<std::string> &log_;
};

} // namespace

// Hook order on the ProducerBlockedUntilDrainReleasesCapacity scenario: every
// owner the producer feeds is prepared and asked for A; a blocked owner is
// asked for its admission stage; an admitted dispatch materializes
// admitted * b slots per owner. Iterations 1, 4 and 5 dispatch auxiliary
// stages and call no hook.
TEST(WavefrontScenario, HooksAreCalledInProtocolOrder) {
  ScriptedProgram program;
  program.mainStages = {"emit"};
  program.owners = {{"X", 2, {"x0"}}, {"Y", 4, {"y0"}}};
  program.producers = {{0, 0, 1}, {0, 1, 2}};
  for (uint32_t lane = 0; lane < 4; ++lane)
    program.lanes.push_back({{0, {{0, {0}}, {1, {0}}, {1, {0}}}}});
  program.finalize();
  std::vector<std::string> log;
  RecordingClient x(log), y(log);
  CpuDevice device(CpuDeviceOptions{1});
  SchedulerOptions options;
  options.framePool = 2;
  options.partialAdmission = false;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  scheduler.setOwnerClient(0, &x);
  scheduler.setOwnerClient(1, &y);
  RunResult result = scheduler.run(4);
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  std::vector<std::string> expected = {
      "X.begin", "Y.begin",
      // it0: admit 2 -> X materializes 2*1, Y 2*2 slots.
      "X.prepare", "X.available(2)", "Y.prepare", "Y.available(4)",
      "X.producer(2)", "Y.producer(4)",
      // it2: X is full -> drain its stage 0.
      "X.prepare", "X.available(0)", "Y.prepare", "Y.available(4)",
      "X.drain(0)",
      // it3: admit 2 again.
      "X.prepare", "X.available(2)", "Y.prepare", "Y.available(4)",
      "X.producer(2)", "Y.producer(4)"};
  EXPECT_EQ(log, expected);
}

// With partial admission off, a pool whose full queue cannot fit an empty
// owner is rejected before the run: P*b = 3*1 > C = 2.
TEST(WavefrontScenario, RejectsPoolThatCanNeverBeAdmittedWithoutPartial) {
  ScriptedProgram program;
  program.mainStages = {"emit"};
  program.owners = {{"X", 2, {"x0"}}};
  program.producers = {{0, 0, 1}};
  program.lanes = {{{0, {{0, {0}}}}}};
  program.finalize();
  ScenarioRun run = runScenario(program, 3, nullptr, false);
  EXPECT_EQ(run.result.status.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(run.result.status.message().find("needs 3 slots"),
            std::string::npos)
      << run.result.status.message();
  EXPECT_NE(run.result.status.message().find("'X' has capacity 2"),
            std::string::npos);
}

// The scheduler is reusable: a second run after reset repeats the first
// exactly (scenario AppendAllocatorReclaimsOnlyWhenEmpty), also after a run
// of a different size in between.
TEST(WavefrontScenario, ReuseAfterReset) {
  ScriptedProgram program;
  evenOddPoolProgram(program, 8);
  CpuDeviceOptions deviceOptions;
  deviceOptions.workers = 1;
  CpuDevice device(deviceOptions);
  SchedulerOptions options;
  options.framePool = 8;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  AppendAllocatorClient client;
  scheduler.setOwnerClient(0, &client);
  std::vector<ExpectedIteration> expected = {
      {0, 4, kPartial}, {1, 4, kDrain},    {2, 2, kDrain},
      {0, 4, kAdmit},   {1, 4, kDispatch}, {2, 2, kDispatch}};
  for (uint32_t lanes : {8u, 2u, 8u}) {
    SCOPED_TRACE("lanes " + std::to_string(lanes));
    RecordingObserver observer(program);
    scheduler.setObserver(&observer);
    program.resetLogs();
    RunResult result = scheduler.run(lanes);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
    if (lanes == 8) {
      EXPECT_EQ(program.verifyCompleteRun(), "");
      expectSequence(observer.records, expected);
      expectStats(result.stages, {{2, 8, 8, 0, 1, 2, 0},
                                  {2, 8, 0, 4, 0, 0, 1},
                                  {2, 4, 0, 4, 0, 0, 1}});
    } else {
      // Two lanes: emit x2 (A=4), a x2 (lane 0 released, 1 -> b), b x1.
      expectSequence(observer.records,
                     {{0, 2, kAdmit}, {1, 2, kDispatch}, {2, 1, kDispatch}});
    }
    EXPECT_EQ(scheduler.state(), RunState::Finished);
  }
}

// A run with no lanes finishes at the first observation.
TEST(WavefrontScenario, EmptyRunFinishesImmediately) {
  ScriptedProgram program;
  evenOddPoolProgram(program, 0);
  ScenarioRun run = runScenario(program, 4);
  ASSERT_TRUE(run.result.status.ok());
  EXPECT_EQ(run.result.iterations, 0u);
  EXPECT_TRUE(run.records.empty());
}

// The state-machine schedule runs the same plans to the same totals.
TEST(WavefrontScenario, StateMachineMatchesPlanTotals) {
  ScriptedProgram program;
  program.mainStages = {"gen", "trace", "finish"};
  program.owners = {{"shadow", 8, {"intersect", "shade"}}};
  program.producers = {{1, 0, 1}};
  program.lanes = {
      {{0, {}}, {1, {{0, {0}}}}, {1, {{0, {0, 1, 1}}}}, {2, {}}},
      {{0, {}}, {1, {{0, {0, 1}}}}, {2, {}}},
      {{0, {}}, {1, {}}, {2, {}}},
  };
  program.finalize();
  for (uint32_t workers : {1u, 3u}) {
    CpuDeviceOptions deviceOptions;
    deviceOptions.workers = workers;
    CpuDevice device(deviceOptions);
    program.resetLogs();
    RunResult result =
        runStateMachine(program.descriptor(), device, program.laneCount(), 4);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
    EXPECT_EQ(program.verifyCompleteRun(), "");
    expectPlanTotals(program, result.stages);
    EXPECT_EQ(result.lanesFinished, 3u);
    EXPECT_LE(program.maxLiveItems(0), 8);
  }
}

// Two schedulers (and the state-machine schedule) may share one device: each
// re-allocates it when another one used it in between.
TEST(WavefrontScenario, SchedulersShareADevice) {
  ScriptedProgram first;
  evenOddPoolProgram(first, 8);
  ScriptedProgram second;
  second.mainStages = {"a", "b"};
  second.lanes = {{{0, {}}, {1, {}}}, {{0, {}}}};
  second.finalize();
  CpuDevice device(CpuDeviceOptions{1});
  SchedulerOptions options;
  options.framePool = 8;
  WavefrontScheduler one(first.descriptor(), device, options);
  WavefrontScheduler two(second.descriptor(), device, options);
  for (int round = 0; round < 2; ++round) {
    first.resetLogs();
    ASSERT_TRUE(one.run(8).status.ok());
    EXPECT_EQ(first.verifyCompleteRun(), "");
    second.resetLogs();
    ASSERT_TRUE(two.run(2).status.ok());
    EXPECT_EQ(second.verifyCompleteRun(), "");
    first.resetLogs();
    ASSERT_TRUE(runStateMachine(first.descriptor(), device, 8, 8).status.ok());
    EXPECT_EQ(first.verifyCompleteRun(), "");
  }
}
