//===- compiled_kernel_device_test.cpp - The compiled-kernel device -------===//
//
// CompiledKernelDevice over fake primitives with discrete memory: every
// buffer is the fake's own storage, every transfer is counted, and a launch
// runs a C++ stand-in for a compiled kernel on the device copies only. The
// tests check the kernel ABI's argument order, that bindings are resident
// (uploaded by setBinding, never by a dispatch), that lane ids are uploaded
// only after they change, and the device's errors.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/compiled_kernel_device.h"

#include "../../runtime/device/resident_launch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>

namespace sluice::runtime {
namespace {

class FakeBuffer final : public KernelBuffer {
public:
  FakeBuffer(uint64_t bytes, KernelBufferUse use)
      : KernelBuffer(bytes), data(bytes, 0), use(use) {}
  std::vector<unsigned char> data;
  KernelBufferUse use;
  uint32_t uploads = 0, downloads = 0;
};

FakeBuffer &fake(const KernelBuffer &buffer) {
  return const_cast<FakeBuffer &>(static_cast<const FakeBuffer &>(buffer));
}

template <typename T> T *words(const LaunchArgument &argument) {
  EXPECT_NE(argument.buffer, nullptr) << "discrete memory: a device buffer";
  EXPECT_EQ(argument.host, nullptr) << "discrete memory: no host pointer";
  return reinterpret_cast<T *>(fake(*argument.buffer).data.data());
}

// The stand-in kernel of the one stage: invocation i takes frame
// invocations[i], adds 1 to counts[laneIds[frame]] (binding 0) and finishes.
class FakePrimitives final : public KernelPrimitives {
public:
  std::string label() const override { return "fake device"; }
  bool unifiedMemory() const override { return false; }
  Status createBuffer(uint64_t bytes, KernelBufferUse use,
                      std::unique_ptr<KernelBuffer> &out) override {
    auto buffer = std::make_unique<FakeBuffer>(bytes, use);
    created.push_back(buffer.get());
    out = std::move(buffer);
    return Status::success();
  }
  Status upload(KernelBuffer &buffer,
                std::span<const unsigned char> bytes) override {
    EXPECT_LE(bytes.size(), buffer.bytes());
    std::memcpy(fake(buffer).data.data(), bytes.data(), bytes.size());
    ++fake(buffer).uploads;
    return Status::success();
  }
  Status download(const KernelBuffer &buffer,
                  std::span<unsigned char> out) override {
    EXPECT_LE(out.size(), buffer.bytes());
    std::memcpy(out.data(), fake(buffer).data.data(), out.size());
    ++fake(buffer).downloads;
    return Status::success();
  }
  Status downloadRange(const KernelBuffer &buffer, uint64_t offset,
                       std::span<unsigned char> out) override {
    EXPECT_LE(offset + out.size(), buffer.bytes());
    std::memcpy(out.data(), fake(buffer).data.data() + offset, out.size());
    ++fake(buffer).downloads;
    return Status::success();
  }
  Status launch(uint32_t stage, std::span<const LaunchArgument> arguments,
                uint32_t count) override {
    if (stage == 1)
      return runMegakernel(arguments, count);
    // invocations, lane ids, frames, field offsets, next stage, counters,
    // published slots, published counts, alloc limits, fault; no owners, no
    // inputs; binding 0, extents.
    EXPECT_EQ(arguments.size(), 12u);
    EXPECT_EQ(stage, 0u);
    uses.clear();
    for (const LaunchArgument &argument : arguments)
      uses.push_back(fake(*argument.buffer).use);
    const uint32_t *invocations = words<uint32_t>(arguments[0]);
    const uint32_t *laneIds = words<uint32_t>(arguments[1]);
    uint32_t *next = words<uint32_t>(arguments[4]);
    int32_t *counts = words<int32_t>(arguments[10]);
    const int64_t *extents = words<int64_t>(arguments[11]);
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t lane = laneIds[invocations[i]];
      order.push_back(lane);
      if (int64_t(lane) < extents[0])
        ++counts[lane];
      next[i] = SLUICE_RT_FINISHED;
    }
    ++launches;
    return Status::success();
  }
  Status wait(double &gpuNanoseconds) override {
    gpuNanoseconds = 1000;
    return Status::success();
  }

  // The stand-in megakernel (KernelABI.h): each of `count` threads claims up
  // to LANES_PER_THREAD lanes, runs the one stage on each (counts[lane] += 1)
  // and writes its statistics; thread `faultThread` records BAD_OUTCOME at
  // its first lane instead.
  Status runMegakernel(std::span<const LaunchArgument> arguments,
                       uint32_t count) {
    if (!megakernelRuns) {
      ++launches;
      return Status::success();
    }
    EXPECT_EQ(arguments.size(), 13u) << "the stage arguments + machine words";
    int32_t *counts = words<int32_t>(arguments[10]);
    int32_t *fault = words<int32_t>(arguments[9]);
    uint32_t *machine = words<uint32_t>(arguments[12]);
    for (uint32_t g = 0; g < count; ++g) {
      uint32_t *thread = machine + SLUICE_MEGAKERNEL_HEADER_WORDS +
                         g * SLUICE_MEGAKERNEL_THREAD_WORDS(1);
      std::fill_n(thread, SLUICE_MEGAKERNEL_THREAD_WORDS(1), 0u);
      for (uint32_t claimed = 0;
           claimed < machine[SLUICE_MEGAKERNEL_LANES_PER_THREAD]; ++claimed) {
        uint32_t lane = machine[SLUICE_MEGAKERNEL_NEXT_LANE]++;
        if (lane >= machine[SLUICE_MEGAKERNEL_LANE_END])
          break;
        thread[4] = lane;
        if (g == faultThread) {
          int32_t words[] = {SLUICE_KERNEL_FAULT_BAD_OUTCOME, 0, int32_t(g),
                             int32_t(SLUICE_KERNEL_NO_OWNER), 7};
          std::memcpy(fault, words, sizeof words);
          break;
        }
        ++counts[lane];
        ++thread[0]; // invocations of stage 0
        ++thread[3]; // lanes finished
      }
    }
    ++launches;
    return Status::success();
  }
  uint32_t megakernelLanesPerThread() const override { return 3; }
  Status prepare(bool stateMachine, bool resident) override {
    prepared.emplace_back(stateMachine, resident);
    return Status::success();
  }
  // A device placement these primitives claim: a run records the shape of
  // its launch and stops at once with an empty log (no iteration).
  Status residentSupport() const override {
    if (residentSupported)
      return Status::success();
    return KernelPrimitives::residentSupport();
  }
  struct LaunchShape {
    uint32_t framePool, stages, maxInvocations;
    std::vector<KernelBuffer *> windows;
    bool operator==(const LaunchShape &) const = default;
  };
  static LaunchShape shapeOf(const ResidentLaunch &launch) {
    return {launch.tables->framePool, launch.tables->stageCount,
            launch.maxInvocations, launch.windows};
  }
  Status prepareResidentState(const ResidentLaunch &launch) override {
    statesPrepared.push_back(shapeOf(launch));
    return Status::success();
  }
  Status runResident(const ResidentLaunch &launch,
                     ResidentLaunchResult &out) override {
    residentRuns.push_back(shapeOf(launch));
    out = ResidentLaunchResult();
    out.stopReason = decision::kStopVerdict;
    return Status::success();
  }
  std::vector<LaunchShape> statesPrepared, residentRuns;

  std::vector<FakeBuffer *> created;
  std::vector<KernelBufferUse> uses; // the last stage launch's arguments'
  bool residentSupported = false;
  std::vector<std::pair<bool, bool>> prepared; // prepare()'s requests
  std::vector<uint32_t> order; // the lanes launched, in invocation order
  uint32_t launches = 0;
  uint32_t faultThread = UINT32_MAX;
  bool megakernelRuns = true; // false: a launch that does nothing
};

class FakeDevice final : public CompiledKernelDevice {
public:
  const char *name() const override { return "fake"; }
  Status create(std::unique_ptr<FakePrimitives> primitives,
                CompiledKernelShape shape) {
    fakes = primitives.get();
    return initialize(std::move(primitives), std::move(shape));
  }
  FakePrimitives *fakes = nullptr;
};

constexpr int64_t kCounts = 16;

CompiledKernelShape oneStageShape() {
  CompiledKernelShape shape;
  shape.stages = 1;
  shape.residentBuffers = 2; // counts, then the extents table
  return shape;
}

ProgramDescriptor oneStageProgram() {
  ProgramDescriptor program;
  program.name = "count";
  program.mainStages = {StageDesc{"run", nullptr}};
  program.frameLayout.fields = {FrameField{"lane", 4, 4}};
  program.bindingNames = {"counts"};
  return program;
}

template <typename T> std::span<const unsigned char> bytes(const std::vector<T> &v) {
  return {reinterpret_cast<const unsigned char *>(v.data()), v.size() * sizeof(T)};
}

class CompiledKernelDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(device.create(std::make_unique<FakePrimitives>(),
                              oneStageShape())
                    .ok());
    program = oneStageProgram();
    ASSERT_TRUE(ProgramShape::build(program, shape).ok());
  }
  void setBindings() {
    std::vector<int32_t> zeros(kCounts, 0);
    std::vector<int64_t> extents{kCounts};
    ASSERT_TRUE(device.setBinding(0, bytes(zeros)).ok());
    ASSERT_TRUE(device.setBinding(1, bytes(extents)).ok());
  }
  std::vector<int32_t> counts() {
    std::vector<int32_t> out(kCounts);
    Status status = device.getBinding(
        0, {reinterpret_cast<unsigned char *>(out.data()), out.size() * 4});
    EXPECT_TRUE(status.ok()) << status.describe();
    return out;
  }
  FakeBuffer *bindingBuffer() {
    // The first buffer of 64 bytes created after the kernels' own (none):
    // the binding's.
    for (FakeBuffer *buffer : device.fakes->created)
      if (buffer->bytes() == kCounts * 4)
        return buffer;
    return nullptr;
  }

  FakeDevice device;
  ProgramDescriptor program;
  ProgramShape shape;
};

TEST_F(CompiledKernelDeviceTest, BindingsStayResidentAcrossDispatches) {
  setBindings();
  ASSERT_TRUE(device.allocate(program, shape, 8).ok());
  device.reset();
  device.refill(8);
  device.dispatch(0, 8);
  device.refill(4); // lanes 8..11 take the freed frames
  device.dispatch(0, 4);
  Observation observed;
  Status status = device.readCounts(observed);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(observed.lanesFinished, 12u);
  std::vector<int32_t> expected(kCounts, 0);
  for (int lane = 0; lane < 12; ++lane)
    expected[lane] = 1;
  EXPECT_EQ(counts(), expected);

  FakeBuffer *binding = bindingBuffer();
  ASSERT_NE(binding, nullptr);
  EXPECT_EQ(binding->uploads, 1u) << "setBinding only; no dispatch copies it";
  EXPECT_EQ(binding->downloads, 1u) << "getBinding only";
  EXPECT_EQ(device.fakes->launches, 2u);
  EXPECT_EQ(device.stats().dispatches, 2u);
  EXPECT_EQ(device.stats().gpuNanoseconds, 2000);

  // A second run on the same bindings adds to them in place.
  device.reset();
  device.refill(8);
  device.dispatch(0, 8);
  for (int lane = 0; lane < 8; ++lane)
    expected[lane] = 2;
  EXPECT_EQ(counts(), expected);
  EXPECT_EQ(binding->uploads, 1u);
}

TEST_F(CompiledKernelDeviceTest, LaneIdsAreUploadedOnlyAfterTheyChange) {
  setBindings();
  ASSERT_TRUE(device.allocate(program, shape, 8).ok());
  device.reset();
  device.refill(8);
  // Two dispatches of 4 frames each with no refill between them: the lane
  // ids go up once.
  device.dispatch(0, 4);
  device.dispatch(0, 4);
  FakeBuffer *laneIds = nullptr;
  for (FakeBuffer *buffer : device.fakes->created)
    if (buffer->uploads == 1 && buffer->bytes() == 8 * 4 && buffer != bindingBuffer())
      laneIds = buffer;
  ASSERT_NE(laneIds, nullptr) << "a 32-byte buffer uploaded once: lane ids";
  device.refill(3);
  device.dispatch(0, 3);
  EXPECT_EQ(laneIds->uploads, 2u);
  std::vector<int32_t> expected(kCounts, 0);
  for (int lane = 0; lane < 11; ++lane)
    expected[lane] = 1;
  EXPECT_EQ(counts(), expected);
}

// The stage sorts by its frame field 0 (an i32): the router downloads the
// key column from the device's frame buffer (it has no host copy) and
// launches the frames in key order, equal keys in queue order.
// The per-invocation arrays (invocations, lane ids, outcomes, publish
// records, fault) live where the run's placement wants them: Transfer memory
// for the host placement, device memory once a run is prepared for the
// device placement, and Transfer again for a host-placement run after it;
// what every invocation shares (field offsets, counters, allocation limits)
// is device memory throughout. A dispatch after each switch still counts
// each lane once: the lane ids go up again into the new buffer.
TEST_F(CompiledKernelDeviceTest, ArraysFollowTheSchedulerPlacement) {
  setBindings();
  device.fakes->residentSupported = true;
  ASSERT_TRUE(device.allocate(program, shape, 8).ok());
  using Use = KernelBufferUse;
  constexpr Use T = Use::Transfer, R = Use::Resident;
  // invocations, lane ids, frames, field offsets, next stage, counters,
  // published slots, published counts, alloc limits, fault; binding 0,
  // extents.
  auto expected = [&](Use arrays) {
    return std::vector<Use>{arrays, arrays, R, R, arrays, R,
                            arrays, arrays, R, arrays, R, R};
  };
  std::vector<int32_t> total(kCounts, 0);
  auto run = [&](uint32_t lanes) {
    device.reset();
    device.refill(lanes);
    device.dispatch(0, lanes);
    for (uint32_t lane = 0; lane < lanes; ++lane)
      ++total[lane];
    EXPECT_EQ(counts(), total);
  };
  run(8);
  EXPECT_EQ(device.fakes->uses, expected(T));
  ASSERT_TRUE(device.prepare(false, true).ok());
  run(6);
  EXPECT_EQ(device.fakes->uses, expected(R)) << "prepared for the device placement";
  ASSERT_TRUE(device.prepare(true, false).ok());
  run(5);
  EXPECT_EQ(device.fakes->uses, expected(R)) << "a state-machine run uses none";
  ASSERT_TRUE(device.prepare(false, false).ok());
  run(7);
  EXPECT_EQ(device.fakes->uses, expected(T)) << "prepared for the host placement";
  // Without a device placement, a run asked to place the scheduler there
  // keeps the host placement and its Transfer arrays.
  device.fakes->residentSupported = false;
  ASSERT_TRUE(device.prepare(false, true).ok());
  run(8);
  EXPECT_EQ(device.fakes->uses, expected(T));
  // SLUICE_KERNEL_ARRAYS=device: a host-placement run on the device
  // placement's memory (the benchmarks' stage-kernel time).
  ASSERT_EQ(setenv("SLUICE_KERNEL_ARRAYS", "device", 1), 0);
  ASSERT_TRUE(device.prepare(false, false).ok());
  unsetenv("SLUICE_KERNEL_ARRAYS");
  run(3);
  EXPECT_EQ(device.fakes->uses, expected(R));
}

// The device placement's state (its image and buffer) is made before the
// run's clock, for the launch the run then makes: by prepare() when the
// frames exist, else by the allocate() that makes them; never for a host
// placement.
TEST_F(CompiledKernelDeviceTest, TheDevicePlacementsStateIsMadeBeforeTheRun) {
  setBindings();
  FakePrimitives &fakes = *device.fakes;
  fakes.residentSupported = true;
  ASSERT_TRUE(device.prepare(false, true).ok());
  EXPECT_TRUE(fakes.statesPrepared.empty()) << "no frames yet";
  ASSERT_TRUE(device.allocate(program, shape, 8).ok());
  ASSERT_EQ(fakes.statesPrepared.size(), 1u);
  ResidentRun run;
  run.lanes = 8;
  ResidentLog log;
  ASSERT_TRUE(device.runResident(run, log).ok());
  ASSERT_EQ(fakes.residentRuns.size(), 1u);
  EXPECT_EQ(fakes.statesPrepared[0], fakes.residentRuns[0]);
  EXPECT_EQ(fakes.residentRuns[0].framePool, 8u);
  EXPECT_EQ(fakes.residentRuns[0].maxInvocations, 8u);
  ASSERT_TRUE(device.prepare(false, true).ok());
  ASSERT_EQ(fakes.statesPrepared.size(), 2u) << "frames allocated: at once";
  ASSERT_TRUE(device.allocate(program, shape, 16).ok());
  ASSERT_EQ(fakes.statesPrepared.size(), 3u);
  EXPECT_EQ(fakes.statesPrepared[2].framePool, 16u);
  ASSERT_TRUE(device.prepare(false, false).ok());
  ASSERT_TRUE(device.allocate(program, shape, 32).ok());
  EXPECT_EQ(fakes.statesPrepared.size(), 3u) << "a host placement: none";
}

TEST_F(CompiledKernelDeviceTest, APassMakesTheDevicePlacementsStateOnce) {
  // A renderer's pass: the run's sorting, prepare(), allocate() of the kept
  // pool, then the run. The state is made once a pass, whichever of them
  // asks first, and again after a run used it.
  setBindings();
  FakePrimitives &fakes = *device.fakes;
  fakes.residentSupported = true;
  ASSERT_TRUE(device.prepare(false, true).ok());
  ASSERT_TRUE(device.allocate(program, shape, 8).ok());
  ASSERT_EQ(fakes.statesPrepared.size(), 1u);
  FrameSorting off;
  off.enabled = false;
  for (int pass = 0; pass < 3; ++pass) {
    SCOPED_TRACE("pass " + std::to_string(pass));
    size_t before = fakes.statesPrepared.size();
    // Pass 1 changes the sorting; the others keep the last pass's.
    device.setFrameSorting(pass == 0 ? FrameSorting{} : off);
    ASSERT_TRUE(device.prepare(false, true).ok());
    ASSERT_TRUE(device.allocate(program, shape, 8).ok());
    EXPECT_EQ(fakes.statesPrepared.size(), before + (pass == 0 ? 0u : 1u))
        << "pass 0 follows the first allocate(), which made it";
    ResidentRun run;
    run.lanes = 8;
    run.sorting = pass == 0 ? FrameSorting{} : off;
    ResidentLog log;
    ASSERT_TRUE(device.runResident(run, log).ok());
  }
  size_t before = fakes.statesPrepared.size();
  ASSERT_TRUE(device.allocate(program, shape, 8).ok());
  EXPECT_EQ(fakes.statesPrepared.size(), before + 1) << "after a run: anew";
  ASSERT_TRUE(device.allocate(program, shape, 16).ok());
  EXPECT_EQ(fakes.statesPrepared.size(), before + 2) << "a new pool: anew";
  EXPECT_EQ(fakes.statesPrepared.back().framePool, 16u);
}

TEST_F(CompiledKernelDeviceTest, SortedStageDownloadsItsKeysFromTheDevice) {
  program.mainStages[0].sortKeyField = 0;
  ASSERT_TRUE(ProgramShape::build(program, shape).ok());
  setBindings();
  size_t before = device.fakes->created.size();
  ASSERT_TRUE(device.allocate(program, shape, 8).ok());
  FakeBuffer *frames = device.fakes->created[before]; // the router's first
  ASSERT_GE(frames->bytes(), 8u * 4);
  const int32_t keys[8] = {2, -1, 2, 0, -1, 5, 0, 2}; // SoA: frame f at 4 f
  std::memcpy(frames->data.data(), keys, sizeof keys);
  device.reset();
  device.refill(8); // lane l takes frame l
  uint32_t framesDownloaded = frames->downloads;
  device.dispatch(0, 8);
  EXPECT_EQ(device.fakes->order,
            (std::vector<uint32_t>{1, 4, 3, 6, 0, 2, 7, 5}));
  EXPECT_EQ(frames->downloads, framesDownloaded + 1);
  EXPECT_EQ(device.stats().sortedDispatches, 1u);
  EXPECT_EQ(device.stats().sortKeyBytes, 8u * 4);

  // Sorting off: queue order.
  device.fakes->order.clear();
  device.setFrameSorting({false, 0});
  device.reset();
  device.refill(8);
  device.dispatch(0, 8);
  EXPECT_EQ(device.fakes->order,
            (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(device.stats().sortedDispatches, 0u);
}

TEST_F(CompiledKernelDeviceTest, ErrorsNameTheDeviceAndTheNumbers) {
  // A binding never set.
  Status status = device.allocate(program, shape, 8);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidState);
  EXPECT_EQ(status.message(), "fake device: binding 0 was never set");
  // Bindings out of range and reads larger than the buffer.
  std::vector<int32_t> one(1, 0);
  status = device.setBinding(2, bytes(one));
  EXPECT_EQ(status.message(), "fake device: binding 2 of 2");
  std::vector<unsigned char> out(8);
  status = device.getBinding(0, out);
  EXPECT_EQ(status.message(),
            "fake device: binding 0 is not set or smaller than 8 bytes");
  // Dispatch and readCounts before allocate().
  Observation observed;
  status = device.readCounts(observed);
  EXPECT_EQ(status.message(), "fake device: readCounts() before allocate()");
  // A program with another number of stages or owners.
  setBindings();
  ProgramDescriptor twoStages = oneStageProgram();
  twoStages.mainStages.push_back(StageDesc{"more", nullptr});
  ProgramShape twoShape;
  ASSERT_TRUE(ProgramShape::build(twoStages, twoShape).ok());
  status = device.allocate(twoStages, twoShape, 8);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_EQ(status.message(), "fake device: the program has 2 stages but 1 "
                              "kernels were compiled");
  ProgramDescriptor withOwner = oneStageProgram();
  withOwner.owners = {OwnerDesc{"pool", 4, 4, {StageDesc{"handle", nullptr}}}};
  ProgramShape ownerShape;
  ASSERT_TRUE(ProgramShape::build(withOwner, ownerShape).ok());
  status = device.allocate(withOwner, ownerShape, 8);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_EQ(status.message(), "fake device: the program has 2 stages but 1 "
                              "kernels were compiled");
}

TEST(CompiledKernels, ShapeMismatchesAreErrors) {
  FakePrimitives primitives;
  CompiledKernelShape shape = oneStageShape();
  shape.payloadElementBytes = {{4}}; // one owner's payload, no owner compiled
  CompiledKernels kernels;
  Status status = kernels.initialize(primitives, shape);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_EQ(status.message(),
            "fake device: 1 owners' payloads for 0 compiled owners");

  // Two stages compiled, one owner in the program but none compiled.
  shape = oneStageShape();
  shape.stages = 2;
  ASSERT_TRUE(kernels.initialize(primitives, shape).ok());
  ProgramDescriptor withOwner = oneStageProgram();
  withOwner.owners = {OwnerDesc{"pool", 4, 4, {StageDesc{"handle", nullptr}}}};
  ProgramShape ownerShape;
  ASSERT_TRUE(ProgramShape::build(withOwner, ownerShape).ok());
  status = kernels.checkProgramShape(ownerShape);
  EXPECT_EQ(status.message(), "fake device: the program has 1 owners but the "
                              "kernels were compiled for 0");
}

} // namespace
} // namespace sluice::runtime

namespace sluice::runtime {
namespace {

TEST_F(CompiledKernelDeviceTest, WithoutAMegakernelTheStateMachineIsUnsupported) {
  setBindings();
  ASSERT_TRUE(device.allocate(program, shape, 4).ok());
  StateMachineReport report;
  Status status = device.runStateMachine(8, report);
  EXPECT_EQ(status.kind(), ErrorKind::Unsupported) << status.describe();
  EXPECT_NE(status.message().find("has no state-machine schedule"),
            std::string::npos)
      << status.message();
}

class MegakernelTest : public CompiledKernelDeviceTest {
protected:
  void SetUp() override {
    CompiledKernelShape shape = oneStageShape();
    shape.megakernel = true;
    ASSERT_TRUE(device.create(std::make_unique<FakePrimitives>(), shape).ok());
    program = oneStageProgram();
    ASSERT_TRUE(ProgramShape::build(program, this->shape).ok());
  }
};

TEST_F(MegakernelTest, LaunchesInRoundsUntilEveryLaneRan) {
  setBindings();
  StateMachineReport early;
  Status before = device.runStateMachine(kCounts, early);
  EXPECT_EQ(before.kind(), ErrorKind::InvalidState) << before.describe();
  EXPECT_EQ(before.message(),
            "fake device: runStateMachine() before allocate()");
  // 4 threads (the frame pool) of 3 lanes per launch: 12 lanes a launch,
  // so 16 lanes take two launches.
  ASSERT_TRUE(device.allocate(program, shape, 4).ok());
  StateMachineReport report;
  Status status = device.runStateMachine(kCounts, report);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(device.fakes->launches, 2u);
  EXPECT_EQ(device.stats().dispatches, 2u);
  EXPECT_EQ(report.workersUsed, 4u);
  EXPECT_EQ(report.lanesFinished, uint64_t(kCounts));
  ASSERT_EQ(report.stages.size(), 1u);
  EXPECT_EQ(report.stages[0].invocations, uint64_t(kCounts));
  EXPECT_EQ(counts(), std::vector<int32_t>(kCounts, 1));
  // Fewer lanes than the frame pool: one thread per lane, one launch.
  device.fakes->launches = 0;
  ASSERT_TRUE(device.runStateMachine(2, report).ok());
  EXPECT_EQ(device.fakes->launches, 1u);
  EXPECT_EQ(report.workersUsed, 2u);
  EXPECT_EQ(report.lanesFinished, 2u);
}

// Device::prepare asks the primitives for the megakernel's pipeline only
// before a state-machine run of kernels that have one, and for the device
// placement's only where the primitives have a device placement (these do
// not: KernelPrimitives' default refuses it).
TEST_F(MegakernelTest, PrepareAsksForWhatTheRunWillLaunch) {
  using Request = std::pair<bool, bool>;
  ASSERT_TRUE(device.prepare(true, true).ok());
  ASSERT_TRUE(device.prepare(false, true).ok());
  EXPECT_EQ(device.fakes->prepared,
            (std::vector<Request>{{true, false}, {false, false}}));
  FakeDevice plain;
  ASSERT_TRUE(
      plain.create(std::make_unique<FakePrimitives>(), oneStageShape()).ok());
  ASSERT_TRUE(plain.prepare(true, false).ok());
  EXPECT_EQ(plain.fakes->prepared, (std::vector<Request>{{false, false}}));
}

TEST_F(MegakernelTest, AFaultNamesTheStageTheThreadAndItsLane) {
  setBindings();
  ASSERT_TRUE(device.allocate(program, shape, 4).ok());
  device.fakes->faultThread = 2; // claims lane 6 first (threads 0, 1: 0..5)
  StateMachineReport report;
  Status status = device.runStateMachine(kCounts, report);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidTransition) << status.describe();
  EXPECT_NE(status.message().find("stage 'run' invocation 2 ended with "
                                  "outcome 7, which names no stage it may "
                                  "go to"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(device.fakes->launches, 1u) << "a fault stops the run";
}

TEST_F(MegakernelTest, ALaunchThatClaimsNoLaneIsNoProgress) {
  // A megakernel that never ran (or returned at once) leaves the lane
  // counter where the host set it: the run stops instead of relaunching
  // forever.
  setBindings();
  ASSERT_TRUE(device.allocate(program, shape, 4).ok());
  device.fakes->megakernelRuns = false;
  StateMachineReport report;
  Status status = device.runStateMachine(kCounts, report);
  EXPECT_EQ(status.kind(), ErrorKind::NoProgress) << status.describe();
  EXPECT_EQ(status.message(),
            "fake device: megakernel: pass 1 of 4 threads claimed no lane "
            "(lane counter 0, lanes 0 to 16 left): the kernel did not run");
  EXPECT_EQ(device.fakes->launches, 1u);
}

} // namespace
} // namespace sluice::runtime
