//===- frame_order_test.cpp - Coherence sorting of a dispatch's frames ----===//
//
// The `sort_by` hint in the runtime: key codes and buckets against their
// definition (docs/runtime.md "Coherence sorting"), the stable radix sort
// against a comparison sort, the router's order on discrete memory (keys
// downloaded from a device copy of the frames, both layouts), and the order
// the CPU device really runs a sorted stage in under the wavefront scheduler.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/cpu_device.h"
#include "sluice/runtime/device/frame_order.h"
#include "sluice/runtime/device/worker_pool.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include "../../runtime/device/host_router.h"
#include "../../runtime/device/resident_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace sluice::runtime {
namespace {

template <typename T> uint64_t codeOf(T value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  return sortKeyCode(bytes, sizeof(T),
                     std::is_floating_point_v<T> ? SortKeyKind::Float
                                                 : SortKeyKind::Integer);
}

template <typename T> uint64_t bucketOf(T value, uint32_t buckets) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  return sortKeyBucket(bytes, sizeof(T),
                       std::is_floating_point_v<T> ? SortKeyKind::Float
                                                   : SortKeyKind::Integer,
                       buckets);
}

TEST(FrameOrder, IntegerCodesOrderLikeTheSignedValues) {
  const int64_t values[] = {
      std::numeric_limits<int64_t>::min(), -5, -1, 0, 1, 7,
      std::numeric_limits<int64_t>::max()};
  for (size_t i = 1; i < std::size(values); ++i)
    EXPECT_LT(codeOf(values[i - 1]), codeOf(values[i])) << values[i];
  // Narrow keys are sign-extended: -1 in i8, i16 and i32 is -1 in i64.
  EXPECT_EQ(codeOf(int8_t(-1)), codeOf(int64_t(-1)));
  EXPECT_EQ(codeOf(int16_t(-300)), codeOf(int64_t(-300)));
  EXPECT_EQ(codeOf(int32_t(-70000)), codeOf(int64_t(-70000)));
  EXPECT_LT(codeOf(int32_t(-2)), codeOf(int32_t(3)));
}

TEST(FrameOrder, FloatCodesOrderByValueWithNaNLast) {
  const double inf = std::numeric_limits<double>::infinity();
  const double values[] = {-inf,   -1e300, -2.5,  -1e-300, 0.0,
                           1e-300, 3.0,    1e300, inf};
  for (size_t i = 1; i < std::size(values); ++i)
    EXPECT_LT(codeOf(values[i - 1]), codeOf(values[i])) << values[i];
  EXPECT_EQ(codeOf(-0.0), codeOf(0.0)) << "-0 == +0";
  EXPECT_EQ(codeOf(-0.0f), codeOf(0.0f));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_GT(codeOf(nan), codeOf(inf));
  EXPECT_EQ(codeOf(nan), codeOf(-nan)) << "every NaN is equal";
  EXPECT_EQ(codeOf(std::numeric_limits<float>::quiet_NaN()), codeOf(nan));
  // f32 keys order as their values do: 0.1f < 0.25f < 1.5f.
  EXPECT_LT(codeOf(-1.5f), codeOf(0.1f));
  EXPECT_LT(codeOf(0.1f), codeOf(0.25f));
  EXPECT_EQ(codeOf(0.25f), codeOf(0.25)) << "0.25 is exact in both widths";
}

TEST(FrameOrder, BucketsAreTheNonNegativeRemainder) {
  EXPECT_EQ(bucketOf(int32_t(13), 4), 1u);
  EXPECT_EQ(bucketOf(int32_t(-1), 4), 3u) << "-1 = -1 * 4 + 3";
  EXPECT_EQ(bucketOf(int64_t(-8), 4), 0u);
  EXPECT_EQ(bucketOf(int32_t(5), 1), 0u);
  EXPECT_EQ(bucketOf(2.75f, 3), 2u) << "floor(2.75) = 2";
  EXPECT_EQ(bucketOf(-0.5, 3), 2u) << "floor(-0.5) = -1 = -1 * 3 + 2";
  EXPECT_EQ(bucketOf(std::numeric_limits<double>::quiet_NaN(), 5), 4u);
  // 2^63 - 1 saturates: (2^63 - 1) mod 10 = 7.
  EXPECT_EQ(bucketOf(1e30, 10), 7u);
}

// A stable order by `keys`, computed independently of the radix sort.
std::vector<uint32_t> stableOrder(const std::vector<uint64_t> &keys) {
  std::vector<uint32_t> frames(keys.size());
  std::iota(frames.begin(), frames.end(), 0);
  // Stable: equal keys keep the index order (std::sort with the index as
  // the tie-break; libstdc++'s std::stable_sort warns under clang).
  std::sort(frames.begin(), frames.end(), [&](uint32_t a, uint32_t b) {
    return keys[a] != keys[b] ? keys[a] < keys[b] : a < b;
  });
  return frames;
}

TEST(FrameOrder, RadixSortIsStableForEveryKeySpan) {
  std::mt19937_64 random(12);
  FrameSortScratch scratch;
  // Spans of one digit (a counting sort), two digits, and all 64 bits.
  for (uint64_t span :
       {uint64_t(7), uint64_t(255), uint64_t(256), uint64_t(70000),
        std::numeric_limits<uint64_t>::max()}) {
    for (uint32_t count : {2u, 17u, 1000u}) {
      std::vector<uint64_t> keys(count);
      uint64_t base =
          span == std::numeric_limits<uint64_t>::max() ? 0 : uint64_t(1) << 40;
      for (uint64_t &key : keys)
        key = base + (span == std::numeric_limits<uint64_t>::max()
                          ? random()
                          : random() % (span + 1));
      std::vector<uint32_t> frames(count);
      std::iota(frames.begin(), frames.end(), 0);
      std::vector<uint64_t> codes = keys;
      sortFramesByCode(frames, codes, scratch);
      EXPECT_EQ(frames, stableOrder(keys)) << "span " << span << ", " << count;
      for (uint32_t i = 0; i < count; ++i)
        EXPECT_EQ(codes[i], keys[frames[i]]) << "codes travel with frames";
    }
  }
}

// FrameSorting::partition: runs of P consecutive entries, each sorted on its
// own. The expected order is computed without the radix sort: positions
// ordered by (position / P, key, position).
TEST(FrameOrder, PartitionsSortEveryRunOfConsecutiveFramesOnItsOwn) {
  std::mt19937_64 random(31);
  FrameSortScratch scratch;
  for (uint32_t partition : {0u, 1u, 2u, 7u, 32u, 1000u, 1024u, 5000u}) {
    for (uint32_t count : {1u, 2u, 33u, 1000u, 4097u}) {
      // An ascending frame list with gaps, as a dispatch takes them.
      std::vector<uint32_t> frames(count);
      uint32_t next = 0;
      for (uint32_t &frame : frames)
        frame = next += 1 + uint32_t(random() % 3);
      std::vector<uint64_t> keys(count);
      for (uint64_t &key : keys)
        key = random() % 5; // a few materials
      std::vector<uint32_t> positions(count);
      std::iota(positions.begin(), positions.end(), 0);
      uint64_t run = partition == 0 ? count : partition;
      std::sort(positions.begin(), positions.end(),
                [&](uint32_t a, uint32_t b) {
                  if (a / run != b / run)
                    return a / run < b / run;
                  return keys[a] != keys[b] ? keys[a] < keys[b] : a < b;
                });
      std::vector<uint32_t> expected(count);
      for (uint32_t i = 0; i < count; ++i)
        expected[i] = frames[positions[i]];
      std::vector<uint64_t> codes = keys;
      sortFramesInPartitions(frames, codes, partition, scratch);
      EXPECT_EQ(frames, expected)
          << "partition " << partition << ", " << count << " frames";
      for (uint32_t i = 0; i < count; ++i)
        EXPECT_EQ(codes[i], keys[positions[i]]) << "codes travel with frames";
    }
  }
}

//===----------------------------------------------------------------------===//
// The router on discrete memory: the keys come from a device copy
//===----------------------------------------------------------------------===//

// Frame memory the router may not read: its host pointer is a token, and the
// frames live in `device`, read only through downloadFrames().
class DiscreteFrames final : public HostRouter::Memory {
public:
  Status allocateFrames(uint64_t bytes, unsigned char *&out) override {
    device.assign(bytes, 0);
    out = reinterpret_cast<unsigned char *>(&token);
    return Status::success();
  }
  unsigned char *allocatePayload(uint32_t, uint64_t bytes) override {
    payload.assign(std::max<uint64_t>(bytes, 1), 0);
    return payload.data();
  }
  bool framesInHostMemory() const override { return false; }
  Status downloadFrames(uint64_t offset,
                        std::span<unsigned char> out) override {
    if (broken)
      return Status::error(ErrorKind::DeviceError, "the copy engine is gone");
    EXPECT_LE(offset + out.size(), device.size());
    std::memcpy(out.data(), device.data() + offset, out.size());
    ++downloads;
    downloadedBytes += out.size();
    return Status::success();
  }
  std::vector<unsigned char> device, payload;
  uint64_t token = 0;
  uint32_t downloads = 0;
  uint64_t downloadedBytes = 0;
  bool broken = false;
};

// Two main stages: "entry" and "shade", which sorts by field 1 ("key", i32)
// of frames {pad: 8 bytes, key: i32, tail: 2 bytes}.
ProgramDescriptor keyedProgram(FrameLayoutKind layout) {
  ProgramDescriptor program;
  program.name = "keyed";
  program.mainStages = {StageDesc{"entry", nullptr},
                        StageDesc{"shade", nullptr, 1, SortKeyKind::Integer}};
  program.frameLayout.kind = layout;
  program.frameLayout.fields = {FrameField{"pad", 8, 8},
                                FrameField{"key", 4, 4},
                                FrameField{"tail", 2, 2}};
  return program;
}

void runDiscreteRouter(FrameLayoutKind layoutKind, uint32_t buckets) {
  SCOPED_TRACE(layoutKind == FrameLayoutKind::StructOfArrays ? "soa" : "aos");
  ProgramDescriptor program = keyedProgram(layoutKind);
  ProgramShape shape;
  ASSERT_TRUE(ProgramShape::build(program, shape).ok());
  constexpr uint32_t kFrames = 40;
  DiscreteFrames memory;
  HostRouter router("discrete", /*hostKernels=*/false);
  ASSERT_TRUE(router.allocate(program, shape, kFrames, memory).ok());
  router.setFrameSorting({true, buckets});
  router.refill(kFrames);
  // Every frame moves from entry to shade, in refill order (lane order).
  sluice_rt_kernel_args args;
  ASSERT_TRUE(router.beginDispatch(0, kFrames, args));
  std::vector<uint32_t> laneOrder(args.invocations, args.invocations + kFrames);
  for (uint32_t i = 0; i < kFrames; ++i)
    args.next_stage[i] = 1;
  router.finishDispatch(args);
  // The device writes key(lane) = (lane * 7) % 5 - 2 (-2 .. 2), so the
  // router must download it; the host token stays 0.
  const ComputedFrameLayout &layout = router.frameLayout();
  std::vector<int32_t> keyOfFrame(kFrames);
  for (uint32_t frame = 0; frame < kFrames; ++frame) {
    int32_t key = int32_t(router.laneOfFrame[frame] * 7 % 5) - 2;
    keyOfFrame[frame] = key;
    uint64_t at = layout.kind == FrameLayoutKind::ArrayOfStructs
                      ? frame * layout.frameStride + layout.fieldOffsets[1]
                      : layout.fieldOffsets[1] + frame * 4;
    std::memcpy(memory.device.data() + at, &key, 4);
  }
  // A dispatch of the first 30 waiting frames: queue order, then sorted.
  constexpr uint32_t kDispatched = 30;
  ASSERT_TRUE(router.beginDispatch(1, kDispatched, args));
  std::vector<uint32_t> expected(laneOrder.begin(),
                                 laneOrder.begin() + kDispatched);
  auto bucket = [&](uint32_t frame) {
    int64_t key = keyOfFrame[frame];
    return buckets ? ((key % int64_t(buckets)) + buckets) % buckets : key;
  };
  std::vector<uint32_t> position(kFrames);
  for (uint32_t i = 0; i < kDispatched; ++i)
    position[expected[i]] = i;
  std::sort(expected.begin(), expected.end(), [&](uint32_t a, uint32_t b) {
    return bucket(a) != bucket(b) ? bucket(a) < bucket(b)
                                  : position[a] < position[b];
  });
  EXPECT_EQ(
      std::vector<uint32_t>(args.invocations, args.invocations + kDispatched),
      expected);
  EXPECT_EQ(memory.downloads, 1u) << "one download of the key column";
  // SoA: the column's span over the dispatched frames, 4 bytes a frame; AoS:
  // their rows.
  uint32_t lowest = *std::min_element(expected.begin(), expected.end());
  uint32_t highest = *std::max_element(expected.begin(), expected.end());
  uint64_t step =
      layout.kind == FrameLayoutKind::ArrayOfStructs ? layout.frameStride : 4;
  EXPECT_EQ(memory.downloadedBytes, (highest - lowest) * step + 4);
  EXPECT_EQ(router.sortStats.dispatches, 1u);
  EXPECT_EQ(memory.token, 0u) << "the router never writes the host token";
}

TEST(FrameOrder, RouterDownloadsKeysOnDiscreteMemorySoA) {
  runDiscreteRouter(FrameLayoutKind::StructOfArrays, 0);
}
TEST(FrameOrder, RouterDownloadsKeysOnDiscreteMemoryAoS) {
  runDiscreteRouter(FrameLayoutKind::ArrayOfStructs, 0);
}
TEST(FrameOrder, RouterBucketsKeysModN) {
  runDiscreteRouter(FrameLayoutKind::StructOfArrays, 3);
}

TEST(FrameOrder, AFailedKeyDownloadStopsTheRun) {
  ProgramDescriptor program = keyedProgram(FrameLayoutKind::StructOfArrays);
  ProgramShape shape;
  ASSERT_TRUE(ProgramShape::build(program, shape).ok());
  DiscreteFrames memory;
  HostRouter router("discrete", /*hostKernels=*/false);
  ASSERT_TRUE(router.allocate(program, shape, 4, memory).ok());
  router.refill(4);
  sluice_rt_kernel_args args;
  ASSERT_TRUE(router.beginDispatch(0, 4, args));
  for (uint32_t i = 0; i < 4; ++i)
    args.next_stage[i] = 1;
  router.finishDispatch(args);
  memory.broken = true;
  EXPECT_FALSE(router.beginDispatch(1, 4, args));
  EXPECT_EQ(router.pendingError().kind(), ErrorKind::DeviceError);
  EXPECT_EQ(router.pendingError().message(),
            "discrete: sorting the frames of stage 'shade': the copy engine is "
            "gone");
}

TEST(FrameOrder, HostFrameMemoryHasNoDownload) {
  struct HostFrames final : HostRouter::Memory {
    Status allocateFrames(uint64_t, unsigned char *&out) override {
      out = nullptr;
      return Status::success();
    }
    unsigned char *allocatePayload(uint32_t, uint64_t) override {
      return nullptr;
    }
  } memory;
  unsigned char byte = 0;
  EXPECT_TRUE(memory.framesInHostMemory());
  EXPECT_EQ(memory.downloadFrames(0, {&byte, 1}).message(),
            "frame memory in host memory has no download");
}

TEST(FrameOrder, OwnerStagesMayNotSort) {
  ProgramDescriptor program = keyedProgram(FrameLayoutKind::StructOfArrays);
  program.owners = {OwnerDesc{"o", 4, 0, {StageDesc{"x", nullptr, 0}}}};
  ProgramShape shape;
  Status status = ProgramShape::build(program, shape);
  EXPECT_EQ(status.message(),
            "program 'keyed': stage 'x' of owner 'o' has a sort key; only "
            "main stages sort their frames");
}

TEST(FrameOrder, SortingParsesOnOffAndStageLists) {
  FrameSorting sorting;
  ASSERT_TRUE(parseFrameSorting("off", sorting));
  EXPECT_FALSE(sorting.enabled);
  EXPECT_TRUE(sorting.stages.empty());
  ASSERT_TRUE(parseFrameSorting("intersect,shade", sorting));
  EXPECT_TRUE(sorting.enabled);
  EXPECT_EQ(sorting.stages, (std::vector<std::string>{"intersect", "shade"}));
  ASSERT_TRUE(parseFrameSorting("on", sorting)); // clears the list
  EXPECT_TRUE(sorting.enabled);
  EXPECT_TRUE(sorting.stages.empty());
  for (const char *bad : {"", ",", "a,", ",a", "a,,b"})
    EXPECT_FALSE(parseFrameSorting(bad, sorting)) << "'" << bad << "'";
}

TEST(FrameOrder, ASortingListSortsOnlyTheStagesItNames) {
  ProgramDescriptor program = keyedProgram(FrameLayoutKind::StructOfArrays);
  const StageDesc &entry = program.mainStages[0],
                  &shade = program.mainStages[1];
  ASSERT_EQ(entry.sortKeyField, kNoSortKey);
  FrameSorting sorting;
  EXPECT_TRUE(sorting.sorts(shade));
  EXPECT_FALSE(sorting.sorts(entry));
  sorting.stages = {"other"};
  EXPECT_FALSE(sorting.sorts(shade));
  sorting.stages = {"other", "shade"};
  EXPECT_TRUE(sorting.sorts(shade));
  sorting.enabled = false;
  EXPECT_FALSE(sorting.sorts(shade));

  EXPECT_EQ(checkFrameSorting(program, sorting).message(),
            "program 'keyed': sorting names stage 'other', which is not a "
            "main stage (the stages with a key: 'shade')");
  sorting.stages = {"shade", program.mainStages[0].name};
  EXPECT_EQ(checkFrameSorting(program, sorting).message(),
            "program 'keyed': sorting names stage '" + entry.name +
                "', which has no sort_by key (the stages with a key: "
                "'shade')");
  sorting.stages = {"shade"};
  EXPECT_TRUE(checkFrameSorting(program, sorting).ok());
}

TEST(FrameOrder, SortKeyMustNameAReadableField) {
  ProgramDescriptor program = keyedProgram(FrameLayoutKind::StructOfArrays);
  program.mainStages[1].sortKeyField = 3;
  ProgramShape shape;
  EXPECT_EQ(ProgramShape::build(program, shape).message(),
            "program 'keyed': main stage 'shade' sorts by frame field #3, but "
            "the frame has 3 fields");
  program.mainStages[1].sortKeyField = 2;
  program.mainStages[1].sortKeyKind = SortKeyKind::Float;
  EXPECT_EQ(ProgramShape::build(program, shape).message(),
            "program 'keyed': main stage 'shade' sorts by frame field 'tail' "
            "of 2 bytes; an integer key has 1, 2, 4 or 8 bytes, a float key 4 "
            "or 8");
}

//===----------------------------------------------------------------------===//
// The CPU device under the scheduler: the order the kernel really runs
//===----------------------------------------------------------------------===//

// Entry writes key = f(lane) (an f32) and moves on; "shade" logs the lanes
// of its dispatch in invocation order and finishes. One block per dispatch.
struct OrderLog {
  std::vector<std::vector<uint32_t>> dispatches; // lanes, invocation order
};

constexpr uint32_t kKeyField = 0;

float keyOfLane(uint32_t lane) {
  // Five materials, with a NaN among them: -1, 0.5, NaN, 2, -0.
  static const float keys[] = {
      -1.0f, 0.5f, std::numeric_limits<float>::quiet_NaN(), 2.0f, -0.0f};
  return keys[(lane * 3) % 5];
}

void entryKernel(const sluice_rt_kernel_args *args, uint32_t begin,
                 uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) {
    uint32_t frame = args->invocations[i];
    float key = keyOfLane(args->lane_ids[frame]);
    std::memcpy(sluice_rt_frame_field(args, frame, kKeyField), &key, 4);
    sluice_rt_move_frame(args, i, 1);
  }
}

void shadeKernel(const sluice_rt_kernel_args *args, uint32_t begin,
                 uint32_t end) {
  auto *log = static_cast<OrderLog *>(args->user_data);
  if (begin == 0)
    log->dispatches.emplace_back();
  for (uint32_t i = begin; i < end; ++i) {
    log->dispatches.back().push_back(args->lane_ids[args->invocations[i]]);
    sluice_rt_finish_frame(args, i);
  }
}

OrderLog runOnCpu(bool sorting, FrameLayoutKind layout) {
  OrderLog log;
  ProgramDescriptor program;
  program.name = "materials";
  program.mainStages = {
      StageDesc{"entry", entryKernel},
      StageDesc{"shade", shadeKernel, kKeyField, SortKeyKind::Float}};
  program.frameLayout.kind = layout;
  program.frameLayout.fields = {FrameField{"key", 4, 4}};
  program.userData = &log;
  CpuDeviceOptions options;
  options.workers = 1;
  options.blockSize = 4096; // one block, so one kernel call, per dispatch
  CpuDevice device(options);
  SchedulerOptions scheduler;
  scheduler.framePool = 64;
  scheduler.sorting.enabled = sorting;
  RunResult result = WavefrontScheduler(program, device, scheduler).run(300);
  EXPECT_TRUE(result.status.ok()) << result.status.describe();
  EXPECT_EQ(result.lanesFinished, 300u);
  return log;
}

void expectSortedAndStable(const OrderLog &log) {
  uint64_t lanes = 0;
  for (const std::vector<uint32_t> &dispatch : log.dispatches) {
    lanes += dispatch.size();
    for (size_t i = 1; i < dispatch.size(); ++i) {
      float a = keyOfLane(dispatch[i - 1]), b = keyOfLane(dispatch[i]);
      // By value, NaN last, -0 == +0 (so -1 < -0 == 0 < 0.5 < 2 < NaN).
      bool ordered = std::isnan(b) || (!std::isnan(a) && a <= b);
      EXPECT_TRUE(ordered) << "lane " << dispatch[i - 1] << " (" << a
                           << ") before lane " << dispatch[i] << " (" << b
                           << ")";
      // Stable: frames waited in lane order, so equal keys keep it.
      bool equal = (std::isnan(a) && std::isnan(b)) || a == b;
      if (equal)
        EXPECT_LT(dispatch[i - 1], dispatch[i]);
    }
  }
  EXPECT_EQ(lanes, 300u);
}

TEST(FrameOrder, CpuDeviceRunsASortedStageInKeyOrder) {
  for (FrameLayoutKind layout :
       {FrameLayoutKind::StructOfArrays, FrameLayoutKind::ArrayOfStructs}) {
    OrderLog sorted = runOnCpu(true, layout);
    ASSERT_GT(sorted.dispatches.size(), 1u);
    expectSortedAndStable(sorted);
    // Unsorted, a dispatch runs in queue order: lanes ascending, keys not.
    OrderLog plain = runOnCpu(false, layout);
    bool unsortedSomewhere = false;
    for (const std::vector<uint32_t> &dispatch : plain.dispatches) {
      EXPECT_TRUE(std::is_sorted(dispatch.begin(), dispatch.end()));
      for (size_t i = 1; i < dispatch.size(); ++i)
        unsortedSomewhere |=
            !(keyOfLane(dispatch[i - 1]) <= keyOfLane(dispatch[i]));
    }
    EXPECT_TRUE(unsortedSomewhere) << "the test's keys need sorting";
  }
}

//===----------------------------------------------------------------------===//
// reset(): the sets and free slots refilled only after they were used
//===----------------------------------------------------------------------===//

// Main stages "emit" (which publishes at most one item) and "next", one
// owner "items" of capacity 8 with the stage "drain", and host memory for a
// HostRouter of the program.
struct ItemPool {
  struct HostMemory final : HostRouter::Memory {
    Status allocateFrames(uint64_t bytes, unsigned char *&out) override {
      if (!refusal.empty())
        return Status::error(ErrorKind::OutOfMemory, refusal);
      frames.assign(std::max<uint64_t>(bytes, 1), 0);
      out = frames.data();
      return Status::success();
    }
    unsigned char *allocatePayload(uint32_t, uint64_t bytes) override {
      payload.assign(std::max<uint64_t>(bytes, 1), 0);
      return payload.data();
    }
    std::vector<unsigned char> frames, payload;
    std::string refusal; // allocateFrames fails with it when set
  } memory;
  ProgramDescriptor program;
  ProgramShape shape;
  Status build() {
    program.name = "pool";
    program.mainStages = {StageDesc{"emit", nullptr},
                          StageDesc{"next", nullptr}};
    program.owners = {OwnerDesc{"items", 8, 4, {StageDesc{"drain", nullptr}}}};
    program.producers = {ProducerDesc{0, 0, 1}};
    program.frameLayout.fields = {FrameField{"x", 4, 4}};
    return ProgramShape::build(program, shape);
  }
};

// A frame buffer the device cannot give (a hip device whose kernels compute
// index in 32 bits refuses one beyond 2 GiB): the run's error says how
// large, for how many frames, and the device's reason.
TEST(HostRouterAllocate, AFrameBufferRefusedSaysWhy) {
  ItemPool pool;
  ASSERT_TRUE(pool.build().ok());
  pool.memory.refusal = "the kernels address at most 64 bytes";
  HostRouter router("router", /*hostKernels=*/false);
  Status status = router.allocate(pool.program, pool.shape, 70, pool.memory);
  EXPECT_EQ(status.kind(), ErrorKind::OutOfMemory);
  EXPECT_NE(status.message().find(
                "router: cannot allocate the frame buffer of 70 frames ("),
            std::string::npos)
      << status.message();
  EXPECT_NE(
      status.message().find(" bytes): the kernels address at most 64 bytes"),
      std::string::npos)
      << status.message();
}

TEST(HostRouterReset, RefillsWhatARunUsedAndOnlyThat) {
  ItemPool pool;
  ASSERT_TRUE(pool.build().ok());
  const ProgramDescriptor &program = pool.program;
  const ProgramShape &shape = pool.shape;
  ItemPool::HostMemory &memory = pool.memory;
  constexpr uint32_t kFrames = 70; // two words of the frame sets
  HostRouter router("router", /*hostKernels=*/false);
  ASSERT_TRUE(router.allocate(program, shape, kFrames, memory).ok());
  auto expectFresh = [&](const char *when) {
    SCOPED_TRACE(when);
    EXPECT_EQ(router.freeFrames.size(), kFrames);
    EXPECT_EQ(router.mainQueues[0].size(), 0u);
    EXPECT_EQ(router.mainQueues[1].size(), 0u);
    EXPECT_EQ(router.owners[0].freeSlots.size(), 8u);
    for (uint32_t slot = 0; slot < 8; ++slot)
      EXPECT_TRUE(router.owners[0].freeSlots.contains(slot)) << slot;
    // The lowest frames come first again.
    std::vector<uint32_t> lowest(3);
    FrameSet copy = router.freeFrames;
    copy.popLowest(3, lowest.data());
    EXPECT_EQ(lowest, (std::vector<uint32_t>{0, 1, 2}));
  };
  expectFresh("allocated");
  router.refill(5); // a run that stops after its first refill
  router.reset();
  expectFresh("after a refill");
  // A run through the router: a refill and a dispatch that moves frames on.
  router.refill(kFrames);
  sluice_rt_kernel_args args;
  ASSERT_TRUE(router.beginDispatch(0, 40, args));
  for (uint32_t i = 0; i < 40; ++i)
    args.next_stage[i] = i % 2 ? 1 : SLUICE_RT_FINISHED;
  router.finishDispatch(args);
  ASSERT_TRUE(router.pendingError().ok());
  router.reset();
  expectFresh("after a dispatch");
  router.reset(); // nothing used since: nothing to refill
  expectFresh("reset twice");
  // A device placement's own loop takes free slots and says so.
  std::vector<uint32_t> taken(3);
  router.owners[0].freeSlots.popLowest(3, taken.data());
  router.markQueuesUsed();
  router.reset();
  expectFresh("after markQueuesUsed()");
}

//===----------------------------------------------------------------------===//
// Item slots: a producer dispatch's window holds the lowest free slots
//===----------------------------------------------------------------------===//

TEST(HostRouterSlots, AWindowHoldsTheLowestFreeSlotsAndGivesBackTheRest) {
  ItemPool pool;
  ASSERT_TRUE(pool.build().ok());
  HostRouter router("router", /*hostKernels=*/false);
  ASSERT_TRUE(router.allocate(pool.program, pool.shape, 8, pool.memory).ok());
  OwnerStorage &owner = router.owners[0];
  const uint32_t drain = pool.shape.ownerStageBase(0);
  // The window of a dispatch: its ring positions from the head to the limit.
  auto window = [&](const sluice_rt_kernel_args &args) {
    std::vector<uint32_t> slots;
    for (uint64_t p = owner.allocHead; p < args.owners[0].alloc_limit; ++p)
      slots.push_back(owner.freeRing[p % owner.capacity]);
    return slots;
  };
  // A host kernel: the invocations `publishing` take the window's next
  // positions, the others none; every frame finishes.
  auto run = [&](sluice_rt_kernel_args &args,
                 std::initializer_list<uint32_t> publishing) {
    for (uint32_t i = 0; i < args.count; ++i)
      args.next_stage[i] = SLUICE_RT_FINISHED;
    for (uint32_t i : publishing) {
      uint32_t slot = owner.freeRing[owner.allocHead++ % owner.capacity];
      args.published_counts[i] = 1;
      args.published_slots[i * args.publish_stride] = slot;
    }
    router.finishDispatch(args);
    ASSERT_TRUE(router.pendingError().ok()) << router.pendingError().message();
  };
  router.refill(6);
  sluice_rt_kernel_args args;
  ASSERT_TRUE(router.beginDispatch(0, 6, args));
  EXPECT_EQ(window(args), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  run(args, {0, 2, 4}); // slots 0, 1, 2; 3, 4 and 5 go back
  EXPECT_EQ(owner.freeSlots.size(), 5u);
  EXPECT_EQ(owner.live, 3u);
  // The drain releases slots 2 and 0 and keeps 1.
  ASSERT_TRUE(router.beginDispatch(drain, 3, args));
  ASSERT_EQ(std::vector<uint32_t>(args.invocations, args.invocations + 3),
            (std::vector<uint32_t>{0, 1, 2}));
  args.next_stage[0] = SLUICE_RT_FINISHED;
  args.next_stage[1] = 0;
  args.next_stage[2] = SLUICE_RT_FINISHED;
  router.finishDispatch(args);
  ASSERT_TRUE(router.pendingError().ok());
  // The next window starts at the lowest free slots, 0 and 2 (a queue of
  // free slots would hand out 3 and 4, the oldest).
  router.refill(2);
  ASSERT_TRUE(router.beginDispatch(0, 2, args));
  EXPECT_EQ(window(args), (std::vector<uint32_t>{0, 2}));
  run(args, {1}); // takes slot 0; slot 2 goes back
  EXPECT_EQ(owner.live, 2u);
  ASSERT_TRUE(router.beginDispatch(drain, 2, args));
  EXPECT_EQ(std::vector<uint32_t>(args.invocations, args.invocations + 2),
            (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(owner.freeSlots.size(), 6u);
  for (uint32_t slot : {2u, 3u, 4u, 5u, 6u, 7u})
    EXPECT_TRUE(owner.freeSlots.contains(slot)) << slot;
}

//===----------------------------------------------------------------------===//
// The device placement's state image, made once for a renderer's passes
//===----------------------------------------------------------------------===//

TEST(ResidentStateOnce, APassOfOtherLanesKeepsTheImageAndTakesItsLanes) {
  // Two main stages, one owner of two stages fed by main stage 0.
  const decision::u32 capacity[] = {48}, stageBase[] = {2}, ownerStages[] = {2},
                      producerBegin[] = {0, 1, 1}, edgeOwner[] = {0},
                      edgeBound[] = {2};
  decision::Tables t;
  t.stageCount = 4;
  t.mainStageCount = 2;
  t.ownerCount = 1;
  t.framePool = 100;
  t.lanes = 1000;
  t.ownerCapacity = capacity;
  t.ownerStageBase = stageBase;
  t.ownerStageCount = ownerStages;
  t.producerBegin = producerBegin;
  t.edgeOwner = edgeOwner;
  t.edgeBound = edgeBound;
  GpuKernelLayout layout;
  layout.counterCount = 3;
  layout.publishStride = 2;
  layout.ownerPublishBase = {0};
  layout.ownerCapacity = {48};
  ResidentLaunch launch;
  launch.tables = &t;
  launch.layout = &layout;
  launch.maxInvocations = 100;
  launch.sortKeys = {4, 0, 1, 8, 0, 0, 0, 0};

  ResidentState kept, fresh;
  std::vector<uint64_t> builtFor;
  buildResidentStateOnce(launch, 1, 64, kept, builtFor);
  ASSERT_FALSE(builtFor.empty());
  // Located the same way (as a run locates them), the kept state and one
  // built now for the launch are the same bytes and layout.
  struct Buffer final : KernelBuffer {
    Buffer() : KernelBuffer(4) {}
  } buffer;
  for (KernelBuffer **at :
       {&launch.frames, &launch.invocations, &launch.laneIds, &launch.nextStage,
        &launch.counters, &launch.publishedSlots, &launch.publishedCounts,
        &launch.allocLimits, &launch.fault})
    *at = &buffer;
  launch.windows = {&buffer};
  auto locate = [&](ResidentState &state) {
    locateResidentState(
        launch, 1 << 20, [](const KernelBuffer &) { return uint64_t(1) << 30; },
        state);
  };
  auto expectAsBuilt = [&](const char *when, uint32_t gridBlocks = 1) {
    SCOPED_TRACE(when);
    buildResidentState(launch, gridBlocks, 64, fresh);
    ResidentState run = kept;
    locate(run);
    locate(fresh);
    EXPECT_EQ(run.bytes, fresh.bytes);
    EXPECT_EQ(std::memcmp(&run.layout, &fresh.layout, sizeof(run.layout)), 0);
    EXPECT_EQ(run.layout.lanes, t.lanes);
    EXPECT_EQ(run.deviceBytes, fresh.deviceBytes);
  };
  expectAsBuilt("first");
  // A run locates the state (its layout's addresses) before the next pass.
  locate(kept);
  // The next pass runs other lanes with an iteration limit: kept, not made.
  // (A mark in the image that a build would overwrite: slot 0 of the ring.)
  kept.bytes[kept.built.freeRing] = 0xAB;
  t.lanes = 5;
  t.maxIterations = 9;
  buildResidentStateOnce(launch, 1, 64, kept, builtFor);
  EXPECT_EQ(kept.bytes[kept.built.freeRing], 0xAB) << "made again";
  kept.bytes[kept.built.freeRing] = 0;
  expectAsBuilt("other lanes");
  kept.bytes[kept.built.freeRing] = 0xAB;
  // Anything else the image holds makes it anew.
  t.framePool = 70;
  buildResidentStateOnce(launch, 1, 64, kept, builtFor);
  EXPECT_EQ(kept.bytes[kept.built.freeRing], 0) << "not made again";
  expectAsBuilt("another frame pool");
  launch.sortKeys[3] = 12;
  buildResidentStateOnce(launch, 1, 64, kept, builtFor);
  expectAsBuilt("another sort key column");
  launch.sorting.partition = 256;
  buildResidentStateOnce(launch, 1, 64, kept, builtFor);
  expectAsBuilt("another sort partition");
  buildResidentStateOnce(launch, 2, 64, kept, builtFor);
  expectAsBuilt("another grid", 2);
}

} // namespace

//===----------------------------------------------------------------------===//
// Routing in chunks on several workers: the same sets, queues and counts as
// on the calling thread
//===----------------------------------------------------------------------===//

namespace {

// Main stages "emit" (sorted by its frame field "key"; publishes at most two
// items) and "next", one owner "items" with the stage "drain", and two
// routers of it with the same random kernels: one routes on the calling
// thread, the other in chunks on four workers.
struct TwinRouters {
  static constexpr uint32_t kFrames = 50000;
  static constexpr uint32_t kCapacity = 70000;
  ItemPool::HostMemory serialMemory, chunkedMemory;
  ProgramDescriptor program;
  ProgramShape shape;
  HostRouter serial{"router", /*hostKernels=*/false},
      chunked{"router", /*hostKernels=*/false};
  WorkerPool workers{4};
  std::mt19937 random{20261207};

  void build(uint32_t partition) {
    program.name = "pool";
    program.mainStages = {StageDesc{"emit", nullptr, 0},
                          StageDesc{"next", nullptr}};
    program.owners = {
        OwnerDesc{"items", kCapacity, 4, {StageDesc{"drain", nullptr}}}};
    program.producers = {ProducerDesc{0, 0, 2}};
    program.frameLayout.fields = {FrameField{"key", 4, 4}};
    ASSERT_TRUE(ProgramShape::build(program, shape).ok());
    for (HostRouter *router : {&serial, &chunked}) {
      ASSERT_TRUE(
          router
              ->allocate(program, shape, kFrames,
                         router == &serial ? serialMemory : chunkedMemory)
              .ok());
      router->setFrameSorting({true, 0, partition});
    }
    chunked.parallel = &workers;
  }
  // Random keys for every frame, the same in both routers.
  void writeKeys() {
    for (uint32_t frame = 0; frame < kFrames; ++frame) {
      int32_t key = int32_t(random() % 5);
      for (HostRouter *router : {&serial, &chunked})
        std::memcpy(router->frames + router->layout.fieldOffsets[0] +
                        uint64_t(frame) * 4,
                    &key, 4);
    }
  }
  // One dispatch of `count` frames of `stage` in both routers: each
  // invocation publishes 0-2 items (taking its window's next positions) and
  // moves its frame to a random stage or finishes it; the invocations `bad`
  // end with an outcome that names no stage.
  void dispatch(uint32_t stage, uint32_t count,
                std::initializer_list<uint32_t> bad = {}) {
    std::vector<uint32_t> next(count), items(count);
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t r = random();
      next[i] = r % 3 == 2 ? SLUICE_RT_FINISHED : r % 3;
      items[i] = stage == 0 ? (r >> 8) % 3 : 0;
    }
    for (uint32_t i : bad)
      next[i] = 7;
    for (HostRouter *router : {&serial, &chunked}) {
      sluice_rt_kernel_args args;
      ASSERT_TRUE(router->beginDispatch(stage, count, args));
      OwnerStorage &owner = router->owners[0];
      for (uint32_t i = 0; i < count; ++i) {
        args.next_stage[i] = next[i];
        for (uint32_t k = 0; k < items[i]; ++k)
          args.published_slots[i * args.publish_stride + k] =
              owner.freeRing[owner.allocHead++ % owner.capacity];
        args.published_counts[i] = items[i];
      }
      router->finishDispatch(args);
    }
  }
  // A dispatch of every item of "drain": each item is released or drained
  // again (to the back of the queue), at random.
  void drain() {
    const uint32_t items = serial.owners[0].stageQueues[0].size();
    std::vector<uint32_t> next(items);
    for (uint32_t &outcome : next)
      outcome = random() % 3 == 0 ? 0 : SLUICE_RT_FINISHED;
    for (HostRouter *router : {&serial, &chunked}) {
      sluice_rt_kernel_args args;
      ASSERT_TRUE(router->beginDispatch(2, items, args));
      std::copy(next.begin(), next.end(), args.next_stage);
      router->finishDispatch(args);
    }
  }
  // Every set, queue and count equal; the frames a dispatch of each stage
  // would take in the same order.
  void expectEqual() {
    ASSERT_EQ(serial.pendingError().message(),
              chunked.pendingError().message());
    EXPECT_EQ(serial.lanesFinished, chunked.lanesFinished);
    EXPECT_EQ(serial.laneOfFrame, chunked.laneOfFrame);
    auto members = [](FrameSet set) {
      std::vector<uint32_t> out(set.size());
      set.popLowest(set.size(), out.data());
      return out;
    };
    EXPECT_EQ(members(serial.freeFrames), members(chunked.freeFrames));
    for (uint32_t s = 0; s < 2; ++s)
      EXPECT_EQ(members(serial.mainQueues[s]), members(chunked.mainQueues[s]))
          << "stage " << s;
    const OwnerStorage &a = serial.owners[0], &b = chunked.owners[0];
    EXPECT_EQ(a.live, b.live);
    EXPECT_EQ(a.published, b.published);
    EXPECT_EQ(a.released, b.released);
    EXPECT_EQ(members(a.freeSlots), members(b.freeSlots));
    IndexQueue qa = a.stageQueues[0], qb = b.stageQueues[0];
    ASSERT_EQ(qa.size(), qb.size());
    std::vector<uint32_t> ia(qa.size()), ib(qb.size());
    qa.popFront(qa.size(), ia.data());
    qb.popFront(qb.size(), ib.data());
    EXPECT_EQ(ia, ib);
  }
};

} // namespace

TEST(HostRouterChunks, RoutesAsOneThreadDoes) {
  for (uint32_t partition : {1024u, 0u}) {
    SCOPED_TRACE("partition " + std::to_string(partition));
    TwinRouters twins;
    twins.build(partition);
    twins.writeKeys();
    for (HostRouter *router : {&twins.serial, &twins.chunked})
      router->refill(TwinRouters::kFrames);
    ASSERT_GT(chunkCount(&twins.workers, TwinRouters::kFrames), 1u);
    // Sorted "emit" (chunks share words anywhere), then unsorted "next"
    // (ascending: only at their ends), three rounds, the queue's items
    // wrapping around its ring.
    for (int round = 0; round < 3; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      twins.dispatch(0, twins.serial.mainQueues[0].size());
      twins.expectEqual();
      twins.dispatch(1, twins.serial.mainQueues[1].size());
      twins.expectEqual();
      // Drain two thirds of the items (in chunks too): the next round's
      // publishes wrap the ring.
      twins.drain();
      twins.expectEqual();
      for (HostRouter *router : {&twins.serial, &twins.chunked})
        router->refill(router->freeFrames.size());
    }
  }
}

TEST(HostRouterChunks, PopLowestInChunksTakesTheSameMembers) {
  WorkerPool workers(3);
  std::mt19937 random(7);
  for (uint32_t universe : {20000u, 100000u}) {
    FrameSet serial, chunked;
    serial.init(universe);
    chunked.init(universe);
    for (uint32_t i = 0; i < universe; ++i)
      if (random() % 4 != 0 && i > 300) // the first words empty
        serial.insert(i), chunked.insert(i);
    // Two partial pops (the second starts where the first left its lowest
    // word), the rest, then a pop after inserts all over.
    for (uint32_t round = 0; round < 4; ++round) {
      const uint32_t count = round == 2 ? serial.size() : serial.size() / 3;
      SCOPED_TRACE(std::to_string(universe) + " frames, pop " +
                   std::to_string(count));
      std::vector<uint32_t> a(count), b(count);
      serial.popLowest(count, a.data());
      chunked.popLowest(count, b.data(), &workers);
      ASSERT_EQ(a, b);
      ASSERT_EQ(serial.size(), chunked.size());
      for (uint32_t i = 0; i < universe; i += 7)
        ASSERT_EQ(serial.contains(i), chunked.contains(i)) << i;
      for (uint32_t i = 5; round == 2 && i < universe; i += 3)
        serial.insert(i), chunked.insert(i);
    }
  }
}

TEST(HostRouterChunks, ReportTheFirstBadOutcome) {
  TwinRouters twins;
  twins.build(1024);
  for (HostRouter *router : {&twins.serial, &twins.chunked})
    router->refill(TwinRouters::kFrames);
  // Bad outcomes in two chunks, neither the first: the lowest one is
  // reported, naming its lane, as on one thread.
  twins.dispatch(0, TwinRouters::kFrames, {45000, 31000});
  EXPECT_EQ(twins.chunked.pendingError().kind(), ErrorKind::InvalidTransition);
  EXPECT_EQ(twins.serial.pendingError().message(),
            twins.chunked.pendingError().message());
  EXPECT_NE(twins.chunked.pendingError().message().find("to main stage 7"),
            std::string::npos)
      << twins.chunked.pendingError().message();
}

TEST(HostRouterChunks, ReportTheFirstBadItemOutcome) {
  TwinRouters twins;
  twins.build(1024);
  for (HostRouter *router : {&twins.serial, &twins.chunked})
    router->refill(TwinRouters::kFrames);
  twins.dispatch(0, TwinRouters::kFrames);
  const uint32_t items = twins.serial.owners[0].stageQueues[0].size();
  ASSERT_GT(chunkCount(&twins.workers, items), 2u);
  for (HostRouter *router : {&twins.serial, &twins.chunked}) {
    sluice_rt_kernel_args args;
    ASSERT_TRUE(router->beginDispatch(2, items, args));
    for (uint32_t i = 0; i < items; ++i)
      args.next_stage[i] = i == items - 10 || i == items / 2
                               ? SLUICE_RT_UNDECIDED
                               : SLUICE_RT_FINISHED;
    router->finishDispatch(args);
  }
  EXPECT_EQ(twins.chunked.pendingError().kind(), ErrorKind::LinearityViolation);
  EXPECT_EQ(twins.serial.pendingError().message(),
            twins.chunked.pendingError().message());
  EXPECT_NE(twins.chunked.pendingError().message().find(
                "invocation " + std::to_string(items / 2) + " "),
            std::string::npos)
      << twins.chunked.pendingError().message();
}

TEST(HostRouterChunks, AnOverflowingQueueIsReported) {
  TwinRouters twins;
  twins.build(1024);
  for (HostRouter *router : {&twins.serial, &twins.chunked}) {
    router->refill(TwinRouters::kFrames);
    // Fill the item queue so that the dispatch's items cannot all fit.
    IndexQueue &queue = router->owners[0].stageQueues[0];
    queue.extend(TwinRouters::kCapacity - 1000);
  }
  twins.dispatch(0, TwinRouters::kFrames);
  EXPECT_EQ(twins.chunked.pendingError().message(),
            "router: first stage queue of owner 'items' overflowed its "
            "capacity 70000");
  EXPECT_EQ(twins.serial.pendingError().message(),
            twins.chunked.pendingError().message());
}

} // namespace sluice::runtime
