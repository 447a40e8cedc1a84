//===- host_launch_test.cpp - The host-launch ABI's CPU wrapper -----------===//
//
// A hand-written block function reads the argument record the CPU wrapper
// builds and checks it against the layout of an LLVM struct written out by
// hand: {memref descriptor (ptr, ptr, i64, [2 x i64], [2 x i64]) at 0, f32 at
// 56, i8 at 60, i64 at 64, then gx gy gz bx by bz at 72..112}. Misuse of the
// call sequence exits 2 with a message naming the kernel.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/launch/host_launch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>

namespace {

struct Seen {
  std::atomic<uint64_t> blocks{0};
  std::atomic<uint64_t> mismatches{0};
};
Seen seen;

template <typename T> T at(const unsigned char *record, size_t offset) {
  T value;
  std::memcpy(&value, record + offset, sizeof(T));
  return value;
}

float data[6] = {1, 2, 3, 4, 5, 6};

// Of type sluice_rt_block_fn: UBSan checks calls through the pointer.
void checkRecord(void *argument, uint64_t block) {
  const auto *record = static_cast<const unsigned char *>(argument);
  bool ok = at<float *>(record, 0) == data && at<float *>(record, 8) == data &&
            at<int64_t>(record, 16) == 1 && at<int64_t>(record, 24) == 2 &&
            at<int64_t>(record, 32) == 2 && at<int64_t>(record, 40) == 3 &&
            at<int64_t>(record, 48) == 1 && at<float>(record, 56) == 2.5f &&
            at<int8_t>(record, 60) == -3 &&
            at<int64_t>(record, 64) == (int64_t(1) << 40) &&
            at<uint64_t>(record, 72) == 3 && at<uint64_t>(record, 80) == 2 &&
            at<uint64_t>(record, 88) == 1 && at<uint64_t>(record, 96) == 8 &&
            at<uint64_t>(record, 104) == 1 && at<uint64_t>(record, 112) == 1 &&
            block < 6;
  seen.blocks.fetch_add(1);
  if (!ok)
    seen.mismatches.fetch_add(1);
}

void beginCpu(const char *kernel) {
  sluice_rt_launch_begin(SLUICE_LAUNCH_CPU,
                         reinterpret_cast<const void *>(&checkRecord), 0,
                         kernel);
}

TEST(HostLaunch, CpuWrapperLaysOutTheBlockFunctionRecord) {
  seen.blocks = 0;
  seen.mismatches = 0;
  beginCpu("check");
  sluice_rt_launch_workers(2);
  // A 2 x 2 view at offset 1 with strides (3, 1) of a 2 x 3 array.
  sluice_rt_launch_memref(data, 1, 2, 4,
                          SLUICE_LAUNCH_READ | SLUICE_LAUNCH_WRITE);
  sluice_rt_launch_memref_dim(2, 3);
  sluice_rt_launch_memref_dim(2, 1);
  float half = 2.5f;
  uint32_t bits;
  std::memcpy(&bits, &half, 4);
  sluice_rt_launch_scalar(bits, 4);
  sluice_rt_launch_scalar(uint8_t(-3), 1);
  sluice_rt_launch_scalar(uint64_t(1) << 40, 8);
  sluice_rt_launch_end(3, 2, 1, 8, 1, 1);
  EXPECT_EQ(seen.blocks.load(), 6u); // 3 * 2 * 1 blocks
  EXPECT_EQ(seen.mismatches.load(), 0u);
}

TEST(HostLaunchDeathTest, MisuseExitsTwoNamingTheCall) {
  EXPECT_EXIT(sluice_rt_launch_scalar(1, 4), testing::ExitedWithCode(2),
              "sluice: launch: sluice_rt_launch_scalar called without "
              "sluice_rt_launch_begin");
  EXPECT_EXIT(
      {
        beginCpu("k");
        beginCpu("k2");
      },
      testing::ExitedWithCode(2),
      "sluice_rt_launch_begin for @k2 while the launch of @k is not ended");
  EXPECT_EXIT(sluice_rt_launch_begin(SLUICE_LAUNCH_CPU, nullptr, 0, "k"),
              testing::ExitedWithCode(2),
              "sluice_rt_launch_begin with a null kernel handle or name");
  EXPECT_EXIT(sluice_rt_launch_begin(7, data, 0, "k"),
              testing::ExitedWithCode(2),
              "kernel @k: unknown launch backend 7");
  EXPECT_EXIT(sluice_rt_launch_begin(SLUICE_LAUNCH_VULKAN, data, 6, "k"),
              testing::ExitedWithCode(2),
              "kernel @k: a SPIR-V module of 6 bytes is not whole words");
  EXPECT_EXIT(
      {
        beginCpu("k");
        sluice_rt_launch_memref(data, 0, 1, 4, SLUICE_LAUNCH_READ);
        sluice_rt_launch_scalar(1, 4);
      },
      testing::ExitedWithCode(2),
      "sluice_rt_launch_scalar for @k before every dimension of the memref "
      "operand was given");
  EXPECT_EXIT(
      {
        beginCpu("k");
        sluice_rt_launch_memref_dim(1, 1);
      },
      testing::ExitedWithCode(2),
      "sluice_rt_launch_memref_dim for @k without a memref operand whose "
      "dimensions it gives");
  EXPECT_EXIT(
      {
        beginCpu("k");
        sluice_rt_launch_scalar(1, 3);
      },
      testing::ExitedWithCode(2), "kernel @k: a scalar of 3 bytes");
  EXPECT_EXIT(
      {
        beginCpu("k");
        sluice_rt_launch_scratch(64);
      },
      testing::ExitedWithCode(2),
      "kernel @k: scratch buffers exist on the Vulkan backend only");
  EXPECT_EXIT(
      {
        beginCpu("k");
        sluice_rt_launch_end(uint64_t(1) << 32, uint64_t(1) << 32, 2, 1, 1, 1);
      },
      testing::ExitedWithCode(2),
      "kernel @k: a grid of 4294967296 x 4294967296 x 2 blocks overflows 64 "
      "bits");
  EXPECT_EXIT(sluice_rt_host_access(data, sizeof data, 8),
              testing::ExitedWithCode(2),
              std::string("sluice: launch: sluice_rt_host_access with access "
                          "8; ") +
                  "expected SLUICE_HOST_READ \\(1\\), SLUICE_HOST_WRITE \\(2\\)" +
                  ", both, or SLUICE_HOST_FREE " + "\\(4\\) alone");
  EXPECT_EXIT(sluice_rt_host_access(data, sizeof data,
                                    SLUICE_HOST_FREE | SLUICE_HOST_WRITE),
              testing::ExitedWithCode(2), "with access 6; expected");
  EXPECT_EXIT(
      {
        beginCpu("k");
        sluice_rt_host_access(data, sizeof data, SLUICE_HOST_READ);
      },
      testing::ExitedWithCode(2),
      // '.' for the parentheses keeps the message's text in one piece.
      "sluice_rt_host_access during the launch of @k .between "
      "sluice_rt_launch_begin and sluice_rt_launch_end.");
}

// Host accesses where nothing is resident (every CPU launch) return at once
// and never start a Vulkan context, whatever the range.
TEST(HostLaunch, HostAccessWithNothingResidentIsANoOp) {
  float before[6];
  std::memcpy(before, data, sizeof data);
  sluice_rt_host_access(data, sizeof data, SLUICE_HOST_READ);
  sluice_rt_host_access(data, sizeof data, SLUICE_HOST_READ | SLUICE_HOST_WRITE);
  sluice_rt_host_access(nullptr, UINT64_MAX, SLUICE_HOST_WRITE);
  sluice_rt_host_access(data, sizeof data, SLUICE_HOST_FREE);
  EXPECT_EQ(std::memcmp(before, data, sizeof data), 0);
}

} // namespace
