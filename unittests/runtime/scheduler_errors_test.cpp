//===- scheduler_errors_test.cpp - Protocol errors stop runs cleanly ------===//
//
// Every violation, whether by a client, a kernel or a device, ends the run
// with a Status naming the owner or stage and the numbers involved; the
// scheduler stays usable for the next run.
//
//===----------------------------------------------------------------------===//

#include "scripted_program.h"

#include "sluice/runtime/device/cpu_device.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <gtest/gtest.h>

#include <functional>

using namespace sluice::runtime;
using namespace sluice::runtime::testing;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// emit=0 publishes one item into pool {a, b} (C=4); item path [a, b].
void poolProgram(ScriptedProgram &program, uint32_t lanes) {
  program.name = "pool-program";
  program.mainStages = {"emit"};
  program.owners = {{"pool", 4, {"a", "b"}}};
  program.producers = {{0, 0, 1}};
  for (uint32_t lane = 0; lane < lanes; ++lane)
    program.lanes.push_back({{0, {{0, {0, 1}}}}});
  program.finalize();
}

class OverReportingClient final : public CapacityOwnerClient {
public:
  uint64_t materializableAvailability(const OwnerView &owner) override {
    return uint64_t(owner.capacity) - owner.live + 1;
  }
};

class ShortEmptyClient final : public CapacityOwnerClient {
public:
  uint64_t materializableAvailability(const OwnerView &owner) override {
    return owner.live == 0 ? owner.capacity - 1 : 0;
  }
};

class EmptyStageClient final : public CapacityOwnerClient {
public:
  uint32_t admissionStage(const OwnerView &owner) override {
    return owner.stageCounts.size() - 1; // b, empty when the drain starts
  }
};

} // namespace

TEST(SchedulerErrors, ClientOverReportingAvailability) {
  ScriptedProgram program;
  poolProgram(program, 4);
  CpuDevice device(CpuDeviceOptions{1});
  SchedulerOptions options;
  options.framePool = 4;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  OverReportingClient client;
  scheduler.setOwnerClient(0, &client);
  RunResult result = scheduler.run(4);
  ASSERT_EQ(result.status.kind(), ErrorKind::AvailabilityOutOfRange);
  EXPECT_TRUE(contains(result.status.message(), "owner 'pool'"));
  EXPECT_TRUE(contains(result.status.message(), "reported availability 5"));
  EXPECT_TRUE(contains(result.status.message(), "4 - 0 = 4"));
  EXPECT_EQ(scheduler.state(), RunState::Failed);

  // The same scheduler runs cleanly once the client is fixed.
  scheduler.setOwnerClient(0, nullptr);
  program.resetLogs();
  RunResult retry = scheduler.run(4);
  ASSERT_TRUE(retry.status.ok()) << retry.status.describe();
  EXPECT_EQ(program.verifyCompleteRun(), "");
}

TEST(SchedulerErrors, EmptyOwnerMustReportCapacity) {
  ScriptedProgram program;
  poolProgram(program, 2);
  CpuDevice device(CpuDeviceOptions{1});
  WavefrontScheduler scheduler(program.descriptor(), device);
  ShortEmptyClient client;
  scheduler.setOwnerClient(0, &client);
  RunResult result = scheduler.run(2);
  ASSERT_EQ(result.status.kind(), ErrorKind::EmptyOwnerAvailability);
  EXPECT_TRUE(contains(result.status.message(), "'pool' is empty"));
  EXPECT_TRUE(contains(result.status.message(), "availability 3"));
  EXPECT_TRUE(contains(result.status.message(), "capacity 4"));
}

TEST(SchedulerErrors, AdmissionStageMustHoldItems) {
  // 8 lanes, pool 8, C=4: it0 admits 4 into a, it1 blocks (A=0) and asks
  // the client, which names b while all 4 items sit at a.
  ScriptedProgram program;
  poolProgram(program, 8);
  CpuDevice device(CpuDeviceOptions{1});
  SchedulerOptions options;
  options.framePool = 8;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  EmptyStageClient client;
  scheduler.setOwnerClient(0, &client);
  RunResult result = scheduler.run(8);
  ASSERT_EQ(result.status.kind(), ErrorKind::InvalidAdmissionStage);
  EXPECT_TRUE(
      contains(result.status.message(), "stage 1 which holds no items"));
  EXPECT_TRUE(contains(result.status.message(), "[4, 0]"));
  EXPECT_EQ(result.iterations, 1u);
}

TEST(SchedulerErrors, ProducerBoundAboveCapacityFailsPrepare) {
  ScriptedProgram program;
  poolProgram(program, 1);
  ProgramDescriptor descriptor = program.descriptor();
  descriptor.producers = {{0, 0, 5}};
  CpuDevice device(CpuDeviceOptions{1});
  WavefrontScheduler scheduler(descriptor, device);
  Status status = scheduler.prepare();
  ASSERT_EQ(status.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_TRUE(contains(status.message(), "'emit' may publish 5 items"));
  EXPECT_TRUE(contains(status.message(), "'pool' whose capacity is only 4"));
  EXPECT_EQ(scheduler.run(1).status.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_EQ(scheduler.state(), RunState::Unprepared);
}

TEST(SchedulerErrors, IterationLimitStopsALivelock) {
  ScriptedProgram program;
  poolProgram(program, 3);
  CpuDevice device(CpuDeviceOptions{1});
  SchedulerOptions options;
  options.framePool = 3;
  options.maxIterations = 2;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  RunResult result = scheduler.run(3);
  ASSERT_EQ(result.status.kind(), ErrorKind::IterationLimit);
  // it0 admits all 3 lanes (C = 4), which finish at emit; it1 moves their
  // items from a to b; the limit stops the run before b releases them.
  EXPECT_EQ(result.status.describe(),
            "iteration limit: program 'pool-program' did not finish within 2 "
            "iterations (3 of 3 lanes finished)");
  EXPECT_EQ(result.iterations, 2u);
}

TEST(SchedulerErrors, StepWithoutStartIsAnError) {
  ScriptedProgram program;
  poolProgram(program, 1);
  CpuDevice device(CpuDeviceOptions{1});
  WavefrontScheduler scheduler(program.descriptor(), device);
  EXPECT_EQ(scheduler.step(), StepResult::Failed);
  EXPECT_EQ(scheduler.status().kind(), ErrorKind::InvalidState);
  EXPECT_EQ(scheduler.status().describe(),
            "invalid state: step() without a successful start()");
}

//===----------------------------------------------------------------------===//
// Device counts that break the invariants
//===----------------------------------------------------------------------===//

namespace {

// Forwards to a CPU device and rewrites the readback from call `corruptAt`.
class CorruptingDevice final : public Device {
public:
  CorruptingDevice(uint32_t corruptAt,
                   std::function<void(Observation &)> corrupt)
      : inner_(CpuDeviceOptions{1}), corruptAt_(corruptAt),
        corrupt_(std::move(corrupt)) {}
  const char *name() const override { return "corrupting"; }
  Status allocate(const ProgramDescriptor &program, const ProgramShape &shape,
                  uint32_t framePool) override {
    return inner_.allocate(program, shape, framePool);
  }
  void reset() override {
    inner_.reset();
    reads_ = 0;
  }
  void refill(uint32_t lanes) override { inner_.refill(lanes); }
  void dispatch(uint32_t stage, uint32_t count) override {
    inner_.dispatch(stage, count);
  }
  Status readCounts(Observation &out) override {
    Status status = inner_.readCounts(out);
    if (status.ok() && reads_++ == corruptAt_)
      corrupt_(out);
    return status;
  }

private:
  CpuDevice inner_;
  uint32_t corruptAt_;
  std::function<void(Observation &)> corrupt_;
  uint32_t reads_ = 0;
};

RunResult runCorrupted(uint32_t corruptAt,
                       std::function<void(Observation &)> corrupt) {
  ScriptedProgram program;
  poolProgram(program, 8);
  CorruptingDevice device(corruptAt, std::move(corrupt));
  SchedulerOptions options;
  options.framePool = 8;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  return scheduler.run(8);
}

} // namespace

TEST(SchedulerErrors, ObservedLiveAboveCapacity) {
  // After it0 the pool holds 4 items at a (stage index 1).
  RunResult result = runCorrupted(1, [](Observation &obs) {
    obs.stageCounts[2] += 1;
    obs.ownerLive[0] += 1;
    obs.ownerPublished[0] += 1;
  });
  ASSERT_EQ(result.status.kind(), ErrorKind::CapacityExceeded);
  EXPECT_TRUE(contains(result.status.message(), "owner 'pool'"));
  EXPECT_TRUE(contains(result.status.message(), "[4, 1]"));
  EXPECT_TRUE(contains(result.status.message(), "observed total 5"));
  EXPECT_TRUE(contains(result.status.message(), "capacity 4"));
  EXPECT_EQ(result.iterations, 1u);
}

TEST(SchedulerErrors, ObservedTotalDiffersFromStageSum) {
  RunResult result =
      runCorrupted(1, [](Observation &obs) { obs.ownerLive[0] -= 1; });
  ASSERT_EQ(result.status.kind(), ErrorKind::CountMismatch);
  EXPECT_TRUE(contains(result.status.message(), "(sum 4), observed total 3"));
}

TEST(SchedulerErrors, DroppedItemIsDetected) {
  RunResult result = runCorrupted(1, [](Observation &obs) {
    obs.stageCounts[1] -= 1;
    obs.ownerLive[0] -= 1;
  });
  ASSERT_EQ(result.status.kind(), ErrorKind::CountMismatch);
  EXPECT_TRUE(contains(result.status.message(), "dropped or cloned"));
}

TEST(SchedulerErrors, LostFrameIsDetected) {
  // After it0 (4 of 8 admitted, C = 4) 4 frames wait at emit and 4 are free;
  // one more free frame makes 9 of a pool of 8.
  RunResult result =
      runCorrupted(1, [](Observation &obs) { obs.freeFrames += 1; });
  ASSERT_EQ(result.status.kind(), ErrorKind::CountMismatch);
  EXPECT_EQ(result.status.describe(),
            "count mismatch: frame pool: frames at main stages plus 5 free = "
            "9, but the pool has 8 frames");
}

TEST(SchedulerErrors, MoreLanesFinishedThanStarted) {
  // it0 started all 8 lanes and finished the 4 it admitted.
  RunResult result = runCorrupted(
      1, [](Observation &obs) { obs.lanesFinished = obs.lanesStarted + 1; });
  ASSERT_EQ(result.status.kind(), ErrorKind::CountMismatch);
  EXPECT_EQ(result.status.describe(),
            "count mismatch: lanes: started 8, finished 9 of 8");
  RunResult overStarted =
      runCorrupted(1, [](Observation &obs) { obs.lanesStarted += 1; });
  EXPECT_EQ(overStarted.status.describe(),
            "count mismatch: lanes: started 9, finished 4 of 8");
}

TEST(SchedulerErrors, TraceThatCannotBeWrittenFailsTheRun) {
  // /dev/full opens for writing, and every write to it fails (ENOSPC).
  ScriptedProgram program;
  poolProgram(program, 2);
  CpuDevice device(CpuDeviceOptions{1});
  SchedulerOptions options;
  options.framePool = 2;
  options.tracePath = "/dev/full";
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  RunResult result = scheduler.run(2);
  EXPECT_EQ(program.verifyCompleteRun(), "");
  ASSERT_EQ(result.status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(result.status.describe(),
            "invalid argument: cannot write trace file '/dev/full'");
  EXPECT_EQ(scheduler.state(), RunState::Failed);
}

//===----------------------------------------------------------------------===//
// Kernels that break the ABI contract
//===----------------------------------------------------------------------===//

namespace {

// Main stage 0 of a one-stage program with owner "pool" {a} (C=4, b=1).
using MainBody = void (*)(const sluice_rt_kernel_args *, uint32_t);

template <MainBody Body>
void mainKernel(const sluice_rt_kernel_args *args, uint32_t begin,
                uint32_t end) {
  for (uint32_t i = begin; i < end; ++i)
    Body(args, i);
}

void releaseKernel(const sluice_rt_kernel_args *args, uint32_t begin,
                   uint32_t end) {
  for (uint32_t i = begin; i < end; ++i)
    sluice_rt_release_item(args, i);
}

void publishTwice(const sluice_rt_kernel_args *args, uint32_t i) {
  sluice_rt_publish(args, i, 0);
  sluice_rt_publish(args, i, 0);
  sluice_rt_finish_frame(args, i);
}
void forgetFrame(const sluice_rt_kernel_args *, uint32_t) {}
void moveNowhere(const sluice_rt_kernel_args *args, uint32_t i) {
  sluice_rt_move_frame(args, i, 9);
}
void publishUndeclared(const sluice_rt_kernel_args *args, uint32_t i) {
  sluice_rt_publish(args, i, 1);
  sluice_rt_finish_frame(args, i);
}
void finishTwice(const sluice_rt_kernel_args *args, uint32_t i) {
  sluice_rt_finish_frame(args, i);
  sluice_rt_finish_frame(args, i);
}
void releaseInMainStage(const sluice_rt_kernel_args *args, uint32_t i) {
  sluice_rt_release_item(args, i);
}
void outOfRange(const sluice_rt_kernel_args *args, uint32_t i) {
  sluice_rt_finish_frame(args, args->count + i);
}
void publishOnce(const sluice_rt_kernel_args *args, uint32_t i) {
  sluice_rt_publish(args, i, 0);
  sluice_rt_finish_frame(args, i);
}

void forgetItem(const sluice_rt_kernel_args *, uint32_t, uint32_t) {}
void moveItemNowhere(const sluice_rt_kernel_args *args, uint32_t begin,
                     uint32_t end) {
  for (uint32_t i = begin; i < end; ++i)
    sluice_rt_move_item(args, i, 3);
}

void unknownFault(const sluice_rt_kernel_args *args, uint32_t i) {
  if (i == 0) {
    args->fault->code = 99; // no helper records this code
    args->fault->stage = args->stage;
    args->fault->invocation = i;
  }
  sluice_rt_finish_frame(args, i);
}

SchedulerPlacement gPlacement = SchedulerPlacement::Host;

RunResult runKernels(sluice_rt_stage_kernel main,
                     sluice_rt_stage_kernel owner = releaseKernel,
                     uint32_t workers = 1) {
  ProgramDescriptor program;
  program.name = "faulty";
  program.mainStages = {{"emit", main}};
  program.owners = {{"pool", 4, 8, {{"a", owner}}},
                    {"other", 4, 8, {{"o", releaseKernel}}}};
  program.producers = {{0, 0, 1}};
  CpuDevice device(CpuDeviceOptions{workers, 1});
  SchedulerOptions options;
  options.framePool = 4;
  options.placement = gPlacement;
  WavefrontScheduler scheduler(program, device, options);
  return scheduler.run(6);
}

} // namespace

TEST(KernelFaults, PublishBeyondBound) {
  for (uint32_t workers : {1u, 2u}) {
    RunResult result =
        runKernels(mainKernel<publishTwice>, releaseKernel, workers);
    ASSERT_EQ(result.status.kind(), ErrorKind::EmissionBoundExceeded);
    EXPECT_TRUE(contains(result.status.message(), "stage 'emit'"));
    EXPECT_TRUE(contains(result.status.message(), "item #2"));
    EXPECT_TRUE(contains(result.status.message(), "owner 'pool'"));
    EXPECT_TRUE(contains(result.status.message(), "its bound is 1"));
  }
}

TEST(KernelFaults, FrameNeitherMovedNorFinished) {
  RunResult result = runKernels(mainKernel<forgetFrame>);
  ASSERT_EQ(result.status.kind(), ErrorKind::LinearityViolation);
  EXPECT_TRUE(contains(result.status.message(), "neither moved nor finished"));
}

TEST(KernelFaults, ItemNeitherMovedNorReleased) {
  RunResult result = runKernels(mainKernel<publishOnce>, forgetItem);
  ASSERT_EQ(result.status.kind(), ErrorKind::LinearityViolation);
  EXPECT_TRUE(contains(result.status.message(), "stage 'pool.a'"));
  EXPECT_TRUE(contains(result.status.message(), "neither moved nor released"));
}

TEST(KernelFaults, MovesToStagesThatDoNotExist) {
  RunResult frame = runKernels(mainKernel<moveNowhere>);
  ASSERT_EQ(frame.status.kind(), ErrorKind::InvalidTransition);
  EXPECT_TRUE(contains(frame.status.message(), "to main stage 9"));
  RunResult item = runKernels(mainKernel<publishOnce>, moveItemNowhere);
  ASSERT_EQ(item.status.kind(), ErrorKind::InvalidTransition);
  EXPECT_TRUE(contains(item.status.message(), "stage 3 of owner 'pool'"));
}

TEST(KernelFaults, PublishIntoUndeclaredOwner) {
  RunResult result = runKernels(mainKernel<publishUndeclared>);
  ASSERT_EQ(result.status.kind(), ErrorKind::EmissionBoundExceeded);
  EXPECT_TRUE(contains(result.status.message(), "owner 'other'"));
  EXPECT_TRUE(contains(result.status.message(), "declares no emission bound"));
}

TEST(KernelFaults, DecidedTwiceWrongKindAndOutOfRange) {
  EXPECT_EQ(runKernels(mainKernel<finishTwice>).status.kind(),
            ErrorKind::LinearityViolation);
  RunResult wrongKind = runKernels(mainKernel<releaseInMainStage>);
  ASSERT_EQ(wrongKind.status.kind(), ErrorKind::InvalidTransition);
  EXPECT_TRUE(contains(wrongKind.status.message(), "sluice_rt_release_item"));
  EXPECT_EQ(runKernels(mainKernel<outOfRange>).status.kind(),
            ErrorKind::InvalidArgument);
}

// Every kernel fault, on both placements: the same full message (the device
// placement shares the HostRouter's fault translation and outcome checks).
TEST(KernelFaults, BothPlacementsReportTheSameMessages) {
  struct Case {
    sluice_rt_stage_kernel main, owner;
    ErrorKind kind;
    const char *message;
  };
  // Frame pool 4, 6 lanes: iteration 0 refills frames 0-3 (lanes 0-3) and
  // runs "emit" over them, so invocation 0 is lane 0's frame.
  const Case cases[] = {
      {mainKernel<moveNowhere>, releaseKernel, ErrorKind::InvalidTransition,
       "stage 'emit' moved lane 0 to main stage 9, but the program has 1 main "
       "stages"},
      {mainKernel<publishOnce>, moveItemNowhere, ErrorKind::InvalidTransition,
       "stage 'pool.a' moved an item to stage 3 of owner 'pool', which has 1 "
       "stages"},
      {mainKernel<finishTwice>, releaseKernel, ErrorKind::LinearityViolation,
       "stage 'emit' invocation 0 decided the outcome of its frame or item "
       "twice"},
      {mainKernel<releaseInMainStage>, releaseKernel,
       ErrorKind::InvalidTransition,
       "stage 'emit' invocation 0 called sluice_rt_release_item, which "
       "belongs to the other stage kind"},
      {mainKernel<outOfRange>, releaseKernel, ErrorKind::InvalidArgument,
       "stage 'emit' invocation 4 is out of range: the dispatch has 4 "
       "invocations"},
      {mainKernel<unknownFault>, releaseKernel, ErrorKind::InvalidState,
       "stage 'emit' invocation 0 recorded unknown fault code 99"},
      {mainKernel<forgetFrame>, releaseKernel, ErrorKind::LinearityViolation,
       "stage 'emit' invocation 0 (lane 0) neither moved nor finished its "
       "frame"},
  };
  for (const Case &c : cases) {
    gPlacement = SchedulerPlacement::Host;
    RunResult host = runKernels(c.main, c.owner);
    gPlacement = SchedulerPlacement::Device;
    RunResult device = runKernels(c.main, c.owner);
    gPlacement = SchedulerPlacement::Host;
    EXPECT_EQ(device.placement, SchedulerPlacement::Device);
    EXPECT_EQ(host.status.kind(), c.kind) << c.message;
    EXPECT_EQ(host.status.message(), c.message);
    EXPECT_EQ(device.status.describe(), host.status.describe());
    EXPECT_EQ(device.iterations, host.iterations) << c.message;
  }
}

TEST(KernelFaults, StateMachineReportsTheSameFaults) {
  ProgramDescriptor program;
  program.name = "faulty";
  program.mainStages = {{"emit", mainKernel<publishTwice>}};
  program.owners = {{"pool", 4, 8, {{"a", releaseKernel}}}};
  program.producers = {{0, 0, 1}};
  CpuDevice device(CpuDeviceOptions{2});
  RunResult result = runStateMachine(program, device, 5, 4);
  ASSERT_EQ(result.status.kind(), ErrorKind::EmissionBoundExceeded);
  EXPECT_TRUE(contains(result.status.message(), "its bound is 1"));
  program.mainStages[0].kernel = mainKernel<forgetFrame>;
  EXPECT_EQ(runStateMachine(program, device, 5, 4).status.kind(),
            ErrorKind::LinearityViolation);
}

//===----------------------------------------------------------------------===//
// The device placement's verdicts become the host placement's messages.
//===----------------------------------------------------------------------===//

namespace {

namespace decision = sluice::decision;

// A device whose placement "stops" with a given verdict at given counts.
class VerdictDevice final : public Device {
public:
  decision::Verdict verdict = decision::kCountFault;
  Observation last;
  bool supported = true;
  bool prefers = false; // prefersDevicePlacement(), for Auto
  const char *name() const override { return "verdict"; }
  bool prefersDevicePlacement() const override { return prefers; }
  Status allocate(const ProgramDescriptor &, const ProgramShape &shape,
                  uint32_t) override {
    if (last.stageCounts.size() != shape.totalStageCount())
      last.resize(shape);
    return Status::success();
  }
  void reset() override {}
  void refill(uint32_t) override {}
  void dispatch(uint32_t, uint32_t) override {}
  Status readCounts(Observation &out) override {
    out = last;
    return Status::success();
  }
  Status residentSupport() const override {
    return supported ? Status::success() : Device::residentSupport();
  }
  Status runResident(const ResidentRun &, ResidentLog &log) override {
    log.verdict = verdict;
    // The device's counts, as a device placement packs them.
    std::vector<decision::u64> published(last.ownerPublished.begin(),
                                         last.ownerPublished.end());
    std::vector<decision::u64> released(last.ownerReleased.begin(),
                                        last.ownerReleased.end());
    decision::Tables tables;
    tables.stageCount = uint32_t(last.stageCounts.size());
    tables.ownerCount = uint32_t(last.ownerLive.size());
    decision::Counts counts;
    counts.stageCounts = last.stageCounts.data();
    counts.ownerLive = last.ownerLive.data();
    counts.ownerPublished = published.data();
    counts.ownerReleased = released.data();
    counts.freeFrames = last.freeFrames;
    counts.lanesStarted = last.lanesStarted;
    counts.lanesFinished = last.lanesFinished;
    packCounts(tables, counts, log.last);
    return Status::success();
  }
};

RunResult
runVerdict(VerdictDevice &device, uint32_t lanes = 2,
           SchedulerPlacement placement = SchedulerPlacement::Device) {
  static ScriptedProgram program;
  if (program.lanes.empty())
    poolProgram(program, 2);
  SchedulerOptions options;
  options.framePool = 4;
  options.placement = placement;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  if (Status status = scheduler.prepare(); !status.ok()) {
    RunResult failed;
    failed.status = status;
    return failed;
  }
  // The counts the device stops at: every frame free unless a test says so.
  if (device.last.freeFrames == 0 && device.last.stageCounts[0] == 0)
    device.last.freeFrames = 4;
  return scheduler.run(lanes);
}

} // namespace

TEST(DevicePlacementVerdicts, CountFaultIsReportedWithTheHostMessage) {
  VerdictDevice device;
  ScriptedProgram program;
  poolProgram(program, 2);
  ProgramShape shape;
  ASSERT_TRUE(ProgramShape::build(program.descriptor(), shape).ok());
  device.last.resize(shape);
  // Owner 'pool' (C = 4): 5 live items at stage a, published 5.
  device.last.stageCounts[1] = 5;
  device.last.ownerLive[0] = 5;
  device.last.ownerPublished[0] = 5;
  device.last.freeFrames = 4;
  RunResult result = runVerdict(device);
  EXPECT_EQ(result.placement, SchedulerPlacement::Device);
  EXPECT_EQ(result.status.kind(), ErrorKind::CapacityExceeded);
  EXPECT_TRUE(contains(result.status.message(),
                       "owner 'pool': stage counts [5, 0] (sum 5), observed "
                       "total 5, capacity 4: live items exceed the capacity"))
      << result.status.message();
}

TEST(DevicePlacementVerdicts, ACountFaultTheHostCannotSeeIsAnInternalError) {
  VerdictDevice device; // consistent counts, but a count-fault verdict
  RunResult result = runVerdict(device);
  EXPECT_EQ(result.status.kind(), ErrorKind::InvalidState);
  EXPECT_TRUE(contains(result.status.message(),
                       "device placement: the device stopped at counts the "
                       "host finds consistent"));
}

TEST(DevicePlacementVerdicts, IterationLimitAndUnknownVerdicts) {
  VerdictDevice device;
  device.verdict = decision::kIterationLimit;
  RunResult limit = runVerdict(device);
  EXPECT_EQ(limit.status.kind(), ErrorKind::IterationLimit);
  EXPECT_TRUE(contains(limit.status.message(),
                       "program 'pool-program' did not finish within"));
  device.verdict = decision::kNoProgress;
  RunResult stuck = runVerdict(device);
  EXPECT_EQ(stuck.status.kind(), ErrorKind::NoProgress);
  EXPECT_TRUE(contains(stuck.status.message(),
                       "program 'pool-program': no stage holds work but 0 "
                       "lanes are unfinished"));
  device.verdict = decision::Verdict(99);
  RunResult odd = runVerdict(device);
  EXPECT_EQ(odd.status.kind(), ErrorKind::InvalidState);
  EXPECT_TRUE(contains(odd.status.message(),
                       "device placement: the device stopped with verdict 99"));
}

TEST(DevicePlacementVerdicts, ClientHooksKeepTheHostPlacement) {
  ScriptedProgram program;
  poolProgram(program, 3);
  CpuDevice device;
  SchedulerOptions options;
  options.framePool = 4;
  options.placement = SchedulerPlacement::Device;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  EmptyStageClient client;
  scheduler.setOwnerClient(0, &client);
  RunResult result = scheduler.run(3);
  EXPECT_EQ(result.placement, SchedulerPlacement::Host);
  EXPECT_EQ(result.placementNote,
            "owner 'pool' has a client whose policy hooks exist only on the "
            "host");
}

// Auto runs the device placement on a device that prefers it, and the
// host's on one that does not (the CPU device: the same run as Host's).
TEST(DevicePlacementVerdicts, AutoFollowsTheDevicesPreference) {
  VerdictDevice preferring;
  preferring.prefers = true;
  preferring.verdict = decision::kNoProgress;
  RunResult onDevice = runVerdict(preferring, 2, SchedulerPlacement::Auto);
  EXPECT_EQ(onDevice.placement, SchedulerPlacement::Device);
  EXPECT_EQ(onDevice.status.kind(), ErrorKind::NoProgress);

  RunResult runs[2];
  SchedulerPlacement asked[2] = {SchedulerPlacement::Auto,
                                 SchedulerPlacement::Host};
  for (int i = 0; i < 2; ++i) {
    ScriptedProgram program; // its script runs once
    poolProgram(program, 3);
    CpuDevice device(CpuDeviceOptions{1});
    EXPECT_FALSE(device.prefersDevicePlacement());
    SchedulerOptions options;
    options.framePool = 4;
    options.placement = asked[i];
    WavefrontScheduler scheduler(program.descriptor(), device, options);
    runs[i] = scheduler.run(3);
    ASSERT_TRUE(runs[i].status.ok()) << runs[i].status.message();
    EXPECT_EQ(runs[i].placement, SchedulerPlacement::Host);
    EXPECT_EQ(runs[i].placementNote,
              i == 0 ? "the cpu device runs the host placement faster" : "");
  }
  EXPECT_EQ(runs[0].iterations, runs[1].iterations);
  SchedulerPlacement parsed = SchedulerPlacement::Host;
  EXPECT_TRUE(parseSchedulerPlacement("auto", parsed));
  EXPECT_EQ(parsed, SchedulerPlacement::Auto);
  EXPECT_TRUE(parseSchedulerPlacement("device", parsed));
  EXPECT_EQ(parsed, SchedulerPlacement::Device);
  EXPECT_FALSE(parseSchedulerPlacement("gpu", parsed));
  EXPECT_EQ(parsed, SchedulerPlacement::Device); // unchanged
  EXPECT_EQ(std::string(schedulerPlacementName(SchedulerPlacement::Auto)),
            "auto");
}

TEST(DevicePlacementVerdicts, ARunBeforeAllocateIsRefused) {
  CpuDevice device;
  ResidentLog log;
  Status status = device.runResident(ResidentRun{}, log);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidState);
  EXPECT_EQ(status.message(), "device placement: a run before allocate()");
}

namespace {

// Bumps the count of the owner's first stage: not storage-only.
class CountChangingClient final : public CapacityOwnerClient {
public:
  void prepareForProducer(const OwnerView &owner, uint64_t) override {
    ++const_cast<uint32_t *>(owner.stageCounts.data())[0];
  }
};

int64_t fullAvailability(int64_t *, int64_t *, int64_t, int64_t, int64_t,
                         uint32_t *, uint32_t *, int64_t, int64_t, int64_t,
                         int64_t capacity, int64_t live) {
  return capacity - live;
}

} // namespace

TEST(SchedulerErrors, ClientThatChangesACountIsNotStorageOnly) {
  // 4 lanes, pool 4, C = 4: iteration 0 admits all 4 into an empty owner,
  // then the client's prepare_for_producer turns counts [0, 0] into [1, 0].
  ScriptedProgram program;
  poolProgram(program, 4);
  CpuDevice device(CpuDeviceOptions{1});
  SchedulerOptions options;
  options.framePool = 4;
  WavefrontScheduler scheduler(program.descriptor(), device, options);
  CountChangingClient client;
  scheduler.setOwnerClient(0, &client);
  RunResult result = scheduler.run(4);
  ASSERT_EQ(result.status.kind(), ErrorKind::CountMismatch);
  EXPECT_EQ(result.status.message(),
            "owner 'pool': hook prepare_for_producer changed the stage counts "
            "[0, 0] to [1, 0]; owner hooks are storage-only");
}

TEST(SchedulerErrors, HostClientCannotReplaceACompiledPolicy) {
  ScriptedProgram program;
  poolProgram(program, 2);
  ProgramDescriptor descriptor = program.descriptor();
  descriptor.owners[0].policy.functions[size_t(PolicyHook::Availability)] =
      reinterpret_cast<void *>(&fullAvailability);
  descriptor.owners[0].policy.symbols[size_t(PolicyHook::Availability)] =
      "full_availability";
  CpuDevice device(CpuDeviceOptions{1});
  WavefrontScheduler scheduler(descriptor, device);
  OverReportingClient client;
  scheduler.setOwnerClient(0, &client);
  RunResult result = scheduler.run(2);
  ASSERT_EQ(result.status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(result.status.message(),
            "owner 'pool' has a storage policy compiled from the program; a "
            "host client cannot replace it");
  // Without the client the compiled policy (A = C - L) runs the program.
  scheduler.setOwnerClient(0, nullptr);
  program.resetLogs();
  RunResult retry = scheduler.run(2);
  ASSERT_TRUE(retry.status.ok()) << retry.status.describe();
  EXPECT_EQ(program.verifyCompleteRun(), "");
}
