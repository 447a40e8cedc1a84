//===- vulkan_residency_test.cpp - Resident memrefs of the Vulkan launch ABI -===//
//
// The residency table of runtime/device/vulkan/vulkan_launch.cpp: launches
// whose memref arguments are SLUICE_RT_VK_RESIDENT keep their device copies,
// and sluice_rt_vk_host_access brings them back when the host is about to
// use them. Every test counts the transfers (sluice_rt_vk_transfer_counts)
// and checks the host bytes: that nothing came back before the host asked
// (the host array still holds the old values) and everything did after.
// The kernel is add_scalar (data[i] += s, 32 lanes a workgroup). Runs on
// whatever device the loader offers (lavapipe on CI machines); skips with
// the reason when there is none.
//
// Each test frees (SLUICE_HOST_FREE) the arrays it launched on before they
// go out of scope, as generated code does at memref.dealloc: a later array at
// the same address must not find their entries; SetUp drops whatever the
// launches of other tests (without residency) left.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/vulkan/vulkan.h"
#include "sluice/runtime/device/vulkan/vulkan_launch.h"

#include "vulkan_test_shaders.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {

// Kept alive for the process: the launch ABI caches kernels by pointer.
const std::vector<uint32_t> &addScalarShader() {
  static const std::vector<uint32_t> words = loadShader("add_scalar");
  return words;
}

// out[i] = in[i] * 3 + 1 for i below in's length, 64 lanes a workgroup.
const std::vector<uint32_t> &triplePlusOneShader() {
  static const std::vector<uint32_t> words = loadShader("triple_plus_one");
  return words;
}

constexpr uint64_t kReadWrite = SLUICE_RT_VK_READ | SLUICE_RT_VK_WRITE;
constexpr uint64_t kResident = kReadWrite | SLUICE_RT_VK_RESIDENT;

// data[i] += value on the device for the `count` words at `data`.
void add(uint32_t *data, size_t count, uint32_t value, uint64_t access) {
  const std::vector<uint32_t> &shader = addScalarShader();
  sluice_rt_vk_launch_begin(shader.data(), shader.size(), "add_scalar");
  sluice_rt_vk_launch_arg(data, count * 4, access);
  sluice_rt_vk_launch_scalar(value, 4);
  sluice_rt_vk_launch_end((count + 31) / 32, 1, 1, 32, 1, 1);
}

void add(std::vector<uint32_t> &data, uint32_t value,
         uint64_t access = kResident) {
  add(data.data(), data.size(), value, access);
}

void access(std::vector<uint32_t> &data, uint64_t how) {
  sluice_rt_vk_host_access(data.data(), data.size() * 4, how);
}

std::vector<uint32_t> plus(const std::vector<uint32_t> &data, uint32_t value) {
  std::vector<uint32_t> out = data;
  for (uint32_t &word : out)
    word += value;
  return out;
}

std::vector<uint32_t> iota(size_t count, uint32_t first) {
  std::vector<uint32_t> out(count);
  for (size_t i = 0; i < count; ++i)
    out[i] = first + uint32_t(i) * 7u;
  return out;
}

// Transfers since the fixture's SetUp (and the table now).
class VulkanResidency : public ::testing::Test {
protected:
  void SetUp() override {
    // A context of its own, not the launch ABI's: that one reads
    // SLUICE_VULKAN_TIMING when it is created, which the timing test sets.
    std::unique_ptr<sluice::runtime::vulkan::Context> context;
    sluice::runtime::Status status =
        sluice::runtime::vulkan::Context::create(context);
    if (!status.ok() &&
        status.kind() == sluice::runtime::ErrorKind::DeviceUnavailable)
      GTEST_SKIP() << "no Vulkan device: " << status.describe();
    ASSERT_TRUE(status.ok()) << status.describe();
    // Entries other tests of this process left behind (their arrays are
    // gone) must not meet this test's arrays at the same addresses.
    sluice_rt_vk_host_access(nullptr, UINT64_MAX, SLUICE_HOST_FREE);
    sluice_rt_vk_transfer_counts(&start);
  }
  sluice_rt_vk_transfers since() const {
    sluice_rt_vk_transfers now;
    sluice_rt_vk_transfer_counts(&now);
    return {now.uploads - start.uploads,
            now.upload_bytes - start.upload_bytes,
            now.downloads - start.downloads,
            now.download_bytes - start.download_bytes,
            now.resident_buffers,
            now.resident_bytes,
            now.batched_launches - start.batched_launches,
            now.batch_submits - start.batch_submits,
            now.batch_waits - start.batch_waits};
  }
  uint64_t uploads() const { return since().uploads; }
  uint64_t downloads() const { return since().downloads; }
  uint64_t residentBuffers() const { return since().resident_buffers; }

  sluice_rt_vk_transfers start{};
};

TEST_F(VulkanResidency, BackToBackLaunchesUploadOnce) {
  std::vector<uint32_t> data = iota(100, 3);
  const std::vector<uint32_t> original = data;
  uint64_t buffers = residentBuffers();
  add(data, 1);
  EXPECT_EQ(uploads(), 1u);
  EXPECT_EQ(since().upload_bytes, 400u);
  EXPECT_EQ(residentBuffers(), buffers + 1);
  add(data, 2);
  add(data, 4);
  // No host access in between: one upload, and nothing came back yet.
  EXPECT_EQ(uploads(), 1u);
  EXPECT_EQ(downloads(), 0u);
  EXPECT_EQ(data, original);

  access(data, SLUICE_HOST_READ);
  EXPECT_EQ(downloads(), 1u);
  EXPECT_EQ(since().download_bytes, 400u);
  EXPECT_EQ(data, plus(original, 7));
  // Read again: the host copy is current, nothing to download.
  access(data, SLUICE_HOST_READ);
  EXPECT_EQ(downloads(), 1u);
  access(data, SLUICE_HOST_FREE);
  EXPECT_EQ(residentBuffers(), buffers);
}

TEST_F(VulkanResidency, HostReadBetweenLaunchesDownloadsOnceAndKeepsTheDeviceCopy) {
  std::vector<uint32_t> data = iota(96, 11);
  const std::vector<uint32_t> original = data;
  add(data, 1);
  access(data, SLUICE_HOST_READ);
  EXPECT_EQ(data, plus(original, 1));
  // A read leaves the device copy current: the next launch uploads nothing.
  add(data, 2);
  EXPECT_EQ(uploads(), 1u);
  EXPECT_EQ(downloads(), 1u);
  EXPECT_EQ(data, plus(original, 1));
  access(data, SLUICE_HOST_READ);
  EXPECT_EQ(downloads(), 2u);
  EXPECT_EQ(data, plus(original, 3));
  access(data, SLUICE_HOST_FREE);
}

TEST_F(VulkanResidency, HostWriteReuploads) {
  std::vector<uint32_t> data = iota(64, 5);
  const std::vector<uint32_t> original = data;
  add(data, 1);
  // The device copy is newer: a write downloads first (the host may write
  // only part of the array), then marks the device copy stale.
  access(data, SLUICE_HOST_READ | SLUICE_HOST_WRITE);
  EXPECT_EQ(downloads(), 1u);
  EXPECT_EQ(data, plus(original, 1));
  data[5] = 1000;
  add(data, 2);
  EXPECT_EQ(uploads(), 2u);
  access(data, SLUICE_HOST_READ);
  std::vector<uint32_t> expected = plus(original, 3);
  expected[5] = 1002;
  EXPECT_EQ(data, expected);

  // A write while the host copy is current downloads nothing, and still
  // re-uploads.
  access(data, SLUICE_HOST_WRITE);
  EXPECT_EQ(downloads(), 2u);
  data[0] = 0;
  add(data, 4);
  EXPECT_EQ(uploads(), 3u);
  access(data, SLUICE_HOST_READ);
  expected = plus(expected, 4);
  expected[0] = 4;
  EXPECT_EQ(data, expected);
  access(data, SLUICE_HOST_FREE);
}

TEST_F(VulkanResidency, AccessToPartOfTheRangeSyncsTheEntry) {
  // A subview of the launched array: its bytes overlap the entry's range.
  std::vector<uint32_t> data = iota(128, 9);
  const std::vector<uint32_t> original = data;
  add(data, 3);
  sluice_rt_vk_host_access(data.data() + 100, 4, SLUICE_HOST_READ);
  EXPECT_EQ(downloads(), 1u);
  EXPECT_EQ(data, plus(original, 3));
  // A range that ends where the array starts shares no byte with it.
  add(data, 1);
  sluice_rt_vk_host_access(
      reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(data.data()) - 16),
      16, SLUICE_HOST_READ);
  EXPECT_EQ(downloads(), 1u);
  EXPECT_EQ(data, plus(original, 3));
  // (NULL, UINT64_MAX) is every resident copy.
  sluice_rt_vk_host_access(nullptr, UINT64_MAX, SLUICE_HOST_READ);
  EXPECT_EQ(downloads(), 2u);
  EXPECT_EQ(data, plus(original, 4));
  access(data, SLUICE_HOST_FREE);
}

TEST_F(VulkanResidency, LaunchOnAnOverlappingRangeBringsTheOtherEntryBack) {
  std::vector<uint32_t> data = iota(128, 1);
  const std::vector<uint32_t> original = data;
  uint64_t buffers = residentBuffers();
  add(data, 1); // entry: all 128 words
  // The upper half as its own argument: the whole-array entry is downloaded
  // and dropped (ranges stay disjoint), the half is uploaded from the host.
  add(data.data() + 64, 64, 10, kResident);
  EXPECT_EQ(downloads(), 1u);
  EXPECT_EQ(uploads(), 2u);
  EXPECT_EQ(residentBuffers(), buffers + 1);
  std::vector<uint32_t> expected = plus(original, 1);
  EXPECT_EQ(data, expected);
  access(data, SLUICE_HOST_READ);
  for (size_t i = 64; i < 128; ++i)
    expected[i] += 10;
  EXPECT_EQ(data, expected);
  access(data, SLUICE_HOST_FREE);
  EXPECT_EQ(residentBuffers(), buffers);
}

TEST_F(VulkanResidency, ResidentLaunchesAreBatchedIntoOneWait) {
  // Twenty resident launches, each adding a different scalar (its own
  // scalar buffer while the batch is pending): the host waits for none of
  // them until it reads, then once for all. Meanwhile the batch goes to the
  // device in pieces of 1, 1, 2, 4 and 8 launches (each piece as long as
  // everything queued before it, at least 1), queued after launches 1, 2, 4,
  // 8 and 16; the wait submits the last 4.
  std::vector<uint32_t> data = iota(200, 5);
  const std::vector<uint32_t> original = data;
  for (uint32_t k = 1; k <= 20; ++k)
    add(data, k);
  EXPECT_EQ(since().batched_launches, 20u);
  EXPECT_EQ(since().batch_submits, 5u);
  EXPECT_EQ(since().batch_waits, 0u);
  EXPECT_EQ(data, original);
  access(data, SLUICE_HOST_READ);
  EXPECT_EQ(since().batch_submits, 6u);
  EXPECT_EQ(since().batch_waits, 1u);
  EXPECT_EQ(data, plus(original, 20 * 21 / 2));

  // Beyond 32 queued launches, pieces stay at 32: 64 more launches are
  // queued after launches 1, 2, 4, 8, 16, 32 and 64 of the new batch, so the
  // wait submits nothing more.
  for (uint32_t k = 1; k <= 64; ++k)
    add(data, 1);
  EXPECT_EQ(since().batch_submits, 6u + 7u);
  access(data, SLUICE_HOST_READ);
  EXPECT_EQ(since().batch_submits, 6u + 7u);
  EXPECT_EQ(since().batch_waits, 2u);
  EXPECT_EQ(data, plus(original, 210 + 64));

  // A launch that copies back waits for the batch first: the resident
  // array's launches before it run before it.
  std::vector<uint32_t> other = iota(64, 9);
  const std::vector<uint32_t> otherOriginal = other;
  add(data, 100);
  add(other, 3, kReadWrite); // not resident: waits for the batch, then itself
  EXPECT_EQ(since().batch_waits, 3u);
  EXPECT_EQ(other, plus(otherOriginal, 3));
  access(data, SLUICE_HOST_READ);
  EXPECT_EQ(data, plus(original, 374));
  // An explicit synchronize with nothing recorded waits for nothing.
  sluice_rt_vk_synchronize();
  EXPECT_EQ(since().batch_waits, 3u);
  access(data, SLUICE_HOST_FREE);
  access(other, SLUICE_HOST_FREE);
}

TEST_F(VulkanResidency, LaunchWithoutResidencyFlushesAndCopiesBack) {
  std::vector<uint32_t> data = iota(80, 2);
  const std::vector<uint32_t> original = data;
  add(data, 1);
  // No RESIDENT: the resident copy comes back first, then the launch copies
  // in and out as it always did.
  add(data, 2, kReadWrite);
  EXPECT_EQ(data, plus(original, 3));
  EXPECT_EQ(uploads(), 2u);
  EXPECT_EQ(downloads(), 2u);
  // It left the device copy stale (the host may change it unannounced): the
  // next resident launch uploads.
  data[0] = 7;
  add(data, 4);
  EXPECT_EQ(uploads(), 3u);
  access(data, SLUICE_HOST_READ);
  std::vector<uint32_t> expected = plus(original, 7);
  expected[0] = 11;
  EXPECT_EQ(data, expected);
  access(data, SLUICE_HOST_FREE);
}

TEST_F(VulkanResidency, FreeDropsTheDeviceCopyWithoutADownload) {
  std::vector<uint32_t> data = iota(32, 4);
  const std::vector<uint32_t> original = data;
  uint64_t buffers = residentBuffers();
  add(data, 1);
  access(data, SLUICE_HOST_FREE);
  EXPECT_EQ(downloads(), 0u);
  EXPECT_EQ(residentBuffers(), buffers);
  EXPECT_EQ(data, original);
  // The same address again is a new array: uploaded afresh.
  add(data, 1);
  EXPECT_EQ(uploads(), 2u);
  access(data, SLUICE_HOST_READ);
  EXPECT_EQ(data, plus(original, 1));
  access(data, SLUICE_HOST_FREE);
}

TEST_F(VulkanResidency, TwoArraysAreIndependent) {
  std::vector<uint32_t> a = iota(64, 100), b = iota(64, 200);
  const std::vector<uint32_t> originalA = a, originalB = b;
  add(a, 1);
  add(b, 2);
  access(a, SLUICE_HOST_READ);
  EXPECT_EQ(downloads(), 1u);
  EXPECT_EQ(a, plus(originalA, 1));
  EXPECT_EQ(b, originalB);
  access(a, SLUICE_HOST_FREE);
  access(b, SLUICE_HOST_FREE);
  EXPECT_EQ(downloads(), 1u);
}

TEST_F(VulkanResidency, PartiallyOverlappingArgumentsOfOneLaunchAreCopied) {
  // in = words [0, 64), out = words [32, 96) of one array: the two ranges
  // overlap partially, so this launch copies both in and out (as without
  // residency) after bringing the resident whole-array copy back.
  std::vector<uint32_t> data = iota(96, 1);
  add(data, 1); // resident entry of all 96 words, device copy newer
  std::vector<uint32_t> expected = plus(iota(96, 1), 1);
  const std::vector<uint32_t> &shader = triplePlusOneShader();
  sluice_rt_vk_launch_begin(shader.data(), shader.size(), "triple_plus_one");
  sluice_rt_vk_launch_arg(data.data(), 64 * 4,
                          SLUICE_RT_VK_READ | SLUICE_RT_VK_RESIDENT);
  sluice_rt_vk_launch_arg(data.data() + 32, 64 * 4,
                          SLUICE_RT_VK_WRITE | SLUICE_RT_VK_RESIDENT);
  sluice_rt_vk_launch_end(1, 1, 1, 64, 1, 1);
  EXPECT_EQ(downloads(), 2u); // the whole-array entry, then out
  const std::vector<uint32_t> in = expected;
  for (size_t i = 0; i < 64; ++i)
    expected[32 + i] = in[i] * 3 + 1;
  EXPECT_EQ(data, expected);
  // Nothing of it stayed resident: reading downloads nothing more.
  access(data, SLUICE_HOST_READ);
  EXPECT_EQ(downloads(), 2u);
  EXPECT_EQ(residentBuffers(), 0u);
}

TEST_F(VulkanResidency, EvictionBringsEntriesBackFirst) {
  // More arrays than the table keeps (256), none freed: the launch that
  // overflows it downloads the entries it drops, so every result arrives.
  std::vector<std::vector<uint32_t>> arrays;
  for (uint32_t a = 0; a < 300; ++a)
    arrays.push_back(iota(32, a * 1000));
  for (std::vector<uint32_t> &array : arrays)
    add(array, 5);
  EXPECT_EQ(uploads(), 300u);
  EXPECT_GT(downloads(), 0u);
  EXPECT_LE(residentBuffers(), 256u);
  for (uint32_t a = 0; a < 300; ++a) {
    access(arrays[a], SLUICE_HOST_READ);
    ASSERT_EQ(arrays[a], plus(iota(32, a * 1000), 5)) << "array " << a;
  }
  EXPECT_EQ(downloads(), 300u);
  for (std::vector<uint32_t> &array : arrays)
    access(array, SLUICE_HOST_FREE);
  EXPECT_EQ(residentBuffers(), 0u);
}

TEST_F(VulkanResidency, NothingResidentIsANoOp) {
  std::vector<uint32_t> data(16, 0);
  access(data, SLUICE_HOST_READ | SLUICE_HOST_WRITE);
  sluice_rt_vk_host_access(nullptr, 0, SLUICE_HOST_READ);
  EXPECT_EQ(downloads(), 0u);
  EXPECT_EQ(uploads(), 0u);
}

TEST_F(VulkanResidency, BadAccessFlagsExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<uint32_t> data(16, 0);
  EXPECT_EXIT(access(data, SLUICE_HOST_FREE | SLUICE_HOST_READ),
              ::testing::ExitedWithCode(1),
              std::string("sluice: vulkan: sluice_rt_vk_host_access with "
                          "access 5; ") +
                  "expected SLUICE_HOST_READ \\(1\\), SLUICE_HOST_WRITE \\(2\\)" +
                  ", both, or SLUICE_HOST_FREE " + "\\(4\\) alone");
}

TEST_F(VulkanResidency, TimingLinesCountTheBytes) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The child process reads SLUICE_VULKAN_TIMING when it creates its context.
  EXPECT_EXIT(
      {
        setenv("SLUICE_VULKAN_TIMING", "1", 1);
        std::vector<uint32_t> data(64, 0);
        add(data, 1);
        add(data, 1);
        access(data, SLUICE_HOST_READ);
        std::exit(data[63] == 2 ? 0 : 2);
      },
      ::testing::ExitedWithCode(0),
      "@add_scalar grid 2x1x1 block 32x1x1: gpu .* us, copies in 256 bytes "
      "[0-9.]+\\+.* us / out 0 bytes [0-9.]+\\+.* us \\(host\\+device\\)\n"
      "sluice: vulkan: @add_scalar grid 2x1x1 block 32x1x1: gpu .* us, "
      "copies in 0 bytes [0-9.]+\\+.* us / out 0 bytes .*\n"
      "sluice: vulkan: host read: download 256 bytes \\(1 buffer\\) in "
      "[0-9.]+\\+[0-9.a/n]+ us \\(host\\+device\\)");
}

} // namespace
