//===- vulkan_context_test.cpp - Vulkan compute layer and launch ABI ------===//
//
// Runs on whatever device the loader offers (Mesa lavapipe on CI machines);
// skips with the reason when there is none, except the checks of SPIR-V
// capabilities against DeviceInfo values, which need no device. Expected
// values come from host loops over the same inputs.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/vulkan/vulkan.h"
#include "sluice/runtime/device/vulkan/vulkan_device.h"
#include "sluice/runtime/device/vulkan/vulkan_launch.h"

#include "vulkan_test_shaders.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <utility>

using namespace sluice::runtime;
using namespace sluice::runtime::vulkan;

namespace {

// Kept alive for the process: the launch ABI caches kernels by pointer.
const std::vector<uint32_t> &cachedShader(const std::string &name) {
  static std::map<std::string, std::vector<uint32_t>> shaders;
  auto it = shaders.find(name);
  if (it == shaders.end())
    it = shaders.emplace(name, loadShader(name)).first;
  return it->second;
}

std::vector<uint32_t> randomWords(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> words(count);
  for (uint32_t &w : words)
    w = rng();
  return words;
}

uint32_t *words(Buffer &buffer) {
  return static_cast<uint32_t *>(buffer.data());
}

class VulkanTest : public ::testing::Test {
protected:
  void SetUp() override {
    Status status = Context::create(context);
    if (!status.ok() && status.kind() == ErrorKind::DeviceUnavailable)
      GTEST_SKIP() << "no Vulkan device: " << status.describe();
    ASSERT_TRUE(status.ok()) << status.describe();
  }

  std::unique_ptr<Buffer> buffer(uint64_t bytes,
                                 Placement placement = Placement::Device) {
    std::unique_ptr<Buffer> out;
    Status status = context->createBuffer(bytes, placement, out);
    EXPECT_TRUE(status.ok()) << status.describe();
    return out;
  }
  std::unique_ptr<Kernel> kernel(const std::string &name, uint32_t bindings,
                                 uint32_t pushBytes = 0) {
    std::unique_ptr<Kernel> out;
    Status status =
        context->createKernel(loadShader(name), name, bindings, pushBytes, out);
    EXPECT_TRUE(status.ok()) << status.describe();
    return out;
  }
  std::unique_ptr<Stream> stream() {
    std::unique_ptr<Stream> out;
    Status status = context->createStream(out);
    EXPECT_TRUE(status.ok()) << status.describe();
    return out;
  }

  std::unique_ptr<Context> context;
};

TEST_F(VulkanTest, ReportsTheDevice) {
  const DeviceInfo &info = context->info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.apiVersion, (1u << 22) | (1u << 12)); // 1.1
  EXPECT_GT(info.maxWorkgroupCount[0], 0u);
  EXPECT_GT(info.maxWorkgroupInvocations, 0u);
  EXPECT_GE(info.maxSharedMemoryBytes, 16384u); // the Vulkan minimum
  EXPECT_GE(info.maxStorageBufferRange, uint64_t(1) << 27);
  std::vector<DeviceInfo> devices;
  ASSERT_TRUE(Context::listDevices(devices).ok());
  ASSERT_LT(info.index, devices.size());
  EXPECT_EQ(devices[info.index].name, info.name);
  std::printf("device #%u %s (%s), driver '%s', maxWorkgroupCount %u %u %u, "
              "invocations %u, shared memory %u bytes, timestamp period %g "
              "ns, shaderInt64 %d\n",
              info.index, info.name.c_str(), info.type.c_str(),
              info.driver.c_str(), info.maxWorkgroupCount[0],
              info.maxWorkgroupCount[1], info.maxWorkgroupCount[2],
              info.maxWorkgroupInvocations, info.maxSharedMemoryBytes,
              info.timestampPeriodNs, info.shaderInt64 ? 1 : 0);
}

TEST_F(VulkanTest, BufferMapRoundTrip) {
  auto tiny = buffer(0, Placement::Host);
  ASSERT_TRUE(tiny);
  EXPECT_EQ(tiny->size(), 16u);
  auto odd = buffer(10, Placement::Host);
  EXPECT_EQ(odd->size(), 16u);
  auto odd2 = buffer(1001, Placement::Device);
  EXPECT_EQ(odd2->size(), 1004u);
  std::unique_ptr<Buffer> huge;
  Status status = context->createBuffer(UINT64_MAX, Placement::Host, huge);
  EXPECT_EQ(status.kind(), ErrorKind::ArithmeticOverflow);
  EXPECT_EQ(status.message(), "buffer of 18446744073709551615 bytes overflows "
                              "when rounded up to 4");
  EXPECT_FALSE(huge);

  // DeviceOnly memory is mapped only where it is host-visible anyway.
  auto deviceOnly = buffer(1001, Placement::DeviceOnly);
  ASSERT_TRUE(deviceOnly);
  EXPECT_EQ(deviceOnly->size(), 1004u);
  EXPECT_EQ(deviceOnly->hostVisible(), deviceOnly->data() != nullptr);
  // DeviceFirst memory is device-local wherever the device has any (every
  // device's, lavapipe's included), mapped where it is host-visible too
  // (unless SLUICE_VULKAN_UNMAPPED_DEVICE_FIRST=1 says to leave it
  // unmapped), and its contents move with copies like any buffer's.
  auto deviceFirst = buffer(1001, Placement::DeviceFirst);
  ASSERT_TRUE(deviceFirst);
  EXPECT_EQ(deviceFirst->size(), 1004u);
  EXPECT_TRUE(deviceFirst->deviceLocal());
  const char *unmapped = std::getenv("SLUICE_VULKAN_UNMAPPED_DEVICE_FIRST");
  if (!unmapped || std::string(unmapped) != "1")
    EXPECT_EQ(deviceFirst->hostVisible(), deviceFirst->data() != nullptr);
  else
    EXPECT_EQ(deviceFirst->data(), nullptr);

  std::vector<uint32_t> pattern = randomWords(4096, 1);
  for (Placement placement : {Placement::Device, Placement::Host}) {
    auto b = buffer(pattern.size() * 4, placement);
    ASSERT_TRUE(b && b->data());
    std::memcpy(b->data(), pattern.data(), pattern.size() * 4);
    EXPECT_EQ(std::memcmp(b->data(), pattern.data(), pattern.size() * 4), 0);
  }
}

TEST_F(VulkanTest, DispatchComputesTriplePlusOne) {
  const size_t n = 1000; // not a multiple of the 64-wide workgroup
  auto k = kernel("triple_plus_one", 2);
  auto in = buffer(n * 4), out = buffer(n * 4);
  std::vector<uint32_t> input = randomWords(n, 2);
  std::memcpy(in->data(), input.data(), n * 4);
  std::memset(out->data(), 0, n * 4);

  auto s = stream();
  Buffer *bindings[] = {in.get(), out.get()};
  const uint64_t groups[3] = {(n + 63) / 64, 1, 1};
  s->dispatch(*k, bindings, {}, groups);
  std::vector<double> ns;
  Status status = s->submitAndWait(&ns);
  ASSERT_TRUE(status.ok()) << status.describe();
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(words(*out)[i], input[i] * 3u + 1u) << "at " << i;
  if (context->info().timestampPeriodNs > 0) {
    ASSERT_EQ(ns.size(), 1u);
    EXPECT_GE(ns[0], 0.0);
  } else {
    EXPECT_TRUE(ns.empty());
  }
  // Nothing recorded: returns at once.
  EXPECT_TRUE(s->submitAndWait(&ns).ok());
  EXPECT_TRUE(ns.empty());
}

// Restores an environment variable when a test that sets it ends.
class EnvRestore {
public:
  explicit EnvRestore(const char *name) : name_(name) {
    const char *old = std::getenv(name);
    had_ = old != nullptr;
    if (old)
      old_ = old;
  }
  ~EnvRestore() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }

private:
  std::string name_;
  bool had_ = false;
  std::string old_;
};

// Runs split_chunk_size over a one-dimensional grid of `groupCount`
// workgroups on `context`: slot i holds the size of the dispatch that ran
// workgroup i (times the number of runs), slots past the grid stay 0.
std::vector<uint32_t> dispatchSizes(Context &context, uint64_t groupCount,
                                    uint64_t slots) {
  std::unique_ptr<Kernel> k;
  Status status = context.createKernel(loadShader("split_chunk_size"),
                                       "split_chunk_size", 1, 0, k);
  EXPECT_TRUE(status.ok()) << status.describe();
  std::unique_ptr<Buffer> counts;
  status = context.createBuffer(slots * 4, Placement::Device, counts);
  EXPECT_TRUE(status.ok()) << status.describe();
  std::unique_ptr<Stream> s;
  status = context.createStream(s);
  EXPECT_TRUE(status.ok()) << status.describe();
  if (!k || !counts || !s)
    return {};
  std::memset(counts->data(), 0, counts->size());
  Buffer *bindings[] = {counts.get()};
  const uint64_t groups[3] = {groupCount, 1, 1};
  s->dispatch(*k, bindings, {}, groups);
  status = s->submitAndWait();
  EXPECT_TRUE(status.ok()) << status.describe();
  return std::vector<uint32_t>(words(*counts), words(*counts) + slots);
}

// How many slots disagree with expected(i).
template <typename Expected>
uint64_t mismatches(const std::vector<uint32_t> &sizes, Expected expected) {
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < sizes.size(); ++i)
    wrong += sizes[i] != expected(i);
  return wrong;
}

TEST_F(VulkanTest, GridBeyondTheWorkgroupCountLimitIsSplit) {
  // Within the device limit a grid of 4465 workgroups is one dispatch.
  const uint64_t slack = 64;
  std::vector<uint32_t> whole = dispatchSizes(*context, 4465, 4465 + slack);
  ASSERT_EQ(whole.size(), 4465 + slack);
  EXPECT_EQ(mismatches(whole, [](uint64_t i) { return i < 4465 ? 4465u : 0u; }),
            0u);

  // With the chunk limit forced to 1000, on every device: dispatches of 1000,
  // 1000, 1000, 1000 and 465 workgroups, each workgroup run once with its
  // global id.
  std::unique_ptr<Context> limited;
  {
    EnvRestore restore("SLUICE_VULKAN_SPLIT_GROUPS_X");
    setenv("SLUICE_VULKAN_SPLIT_GROUPS_X", "1000", 1);
    Status status = Context::create(limited);
    ASSERT_TRUE(status.ok()) << status.describe();
  }
  std::vector<uint32_t> split = dispatchSizes(*limited, 4465, 4465 + slack);
  ASSERT_EQ(split.size(), 4465 + slack);
  EXPECT_EQ(split[0], 1000u);
  EXPECT_EQ(split[3999], 1000u);
  EXPECT_EQ(split[4000], 465u);
  EXPECT_EQ(split[4464], 465u);
  EXPECT_EQ(split[4465], 0u);
  EXPECT_EQ(mismatches(split,
                       [](uint64_t i) {
                         return i < 4000 ? 1000u : i < 4465 ? 465u : 0u;
                       }),
            0u);

  // The device's own limit: limit + 4465 workgroups are one dispatch of
  // `limit` and one of 4465 (every device's limit is at least 65535), where
  // the buffer fits in 1 GiB.
  const uint64_t limit = context->info().maxWorkgroupCount[0];
  const uint64_t groupCount = limit + 4465;
  if ((groupCount + slack) * 4 > (uint64_t(1) << 30)) {
    std::printf("maxComputeWorkGroupCount.x %llu: a grid beyond it needs more "
                "than a 1 GiB buffer; the forced chunk limit covered the "
                "split\n",
                static_cast<unsigned long long>(limit));
    return;
  }
  std::vector<uint32_t> beyond =
      dispatchSizes(*context, groupCount, groupCount + slack);
  ASSERT_EQ(beyond.size(), groupCount + slack);
  EXPECT_EQ(mismatches(beyond,
                       [&](uint64_t i) {
                         return i < limit        ? uint32_t(limit)
                                : i < groupCount ? 4465u
                                                 : 0u;
                       }),
            0u)
      << "of " << groupCount << " workgroups (limit " << limit << ")";
}

TEST_F(VulkanTest, MultiDimensionalGridBeyondTheLimitIsAnError) {
  const DeviceInfo &info = context->info();
  auto k = kernel("count_workgroups", 1);
  auto counts = buffer(256);
  auto s = stream();
  Buffer *bindings[] = {counts.get()};
  const uint64_t wideX[3] = {uint64_t(info.maxWorkgroupCount[0]) + 1, 2, 1};
  s->dispatch(*k, bindings, {}, wideX);
  Status status = s->submitAndWait();
  EXPECT_EQ(status.kind(), ErrorKind::Unsupported);
  const std::string limits = std::to_string(info.maxWorkgroupCount[0]) + "x" +
                             std::to_string(info.maxWorkgroupCount[1]) + "x" +
                             std::to_string(info.maxWorkgroupCount[2]);
  EXPECT_EQ(status.message(),
            "kernel 'count_workgroups' grid " + std::to_string(wideX[0]) +
                "x2x1 exceeds the device's maxComputeWorkGroupCount " +
                limits +
                "; only a one-dimensional grid (y = z = 1) is split along x");

  // WorkgroupId is 32-bit: no split reaches a larger grid.
  const uint64_t huge[3] = {uint64_t(UINT32_MAX) + 1, 1, 1};
  s->dispatch(*k, bindings, {}, huge);
  status = s->submitAndWait();
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(),
            "kernel 'count_workgroups' grid dimension 0 is 4294967296 "
            "workgroups; WorkgroupId is 32-bit, so at most 4294967295");

  // y beyond its limit is never split either; z = 3 with x beyond the limit.
  const uint64_t tallY[3] = {1, uint64_t(info.maxWorkgroupCount[1]) + 1, 1};
  s->dispatch(*k, bindings, {}, tallY);
  EXPECT_EQ(s->submitAndWait().kind(), ErrorKind::Unsupported);
  const uint64_t wideXz[3] = {uint64_t(info.maxWorkgroupCount[0]) + 1, 1, 3};
  s->dispatch(*k, bindings, {}, wideXz);
  EXPECT_EQ(s->submitAndWait().kind(), ErrorKind::Unsupported);

  // The stream stays usable; an empty grid dispatches nothing.
  std::memset(counts->data(), 0, counts->size());
  const uint64_t empty[3] = {uint64_t(info.maxWorkgroupCount[0]) + 1, 0, 2};
  s->dispatch(*k, bindings, {}, empty);
  const uint64_t small[3] = {3, 1, 1};
  s->dispatch(*k, bindings, {}, small);
  ASSERT_TRUE(s->submitAndWait().ok());
  EXPECT_EQ(words(*counts)[0], 1u);
  EXPECT_EQ(words(*counts)[2], 1u);
  EXPECT_EQ(words(*counts)[3], 0u);
}

TEST_F(VulkanTest, CopiesAndDispatchesRunInStreamOrder) {
  const size_t n = 64 * 30 + 17;
  const uint64_t bytes = n * 4;
  auto k = kernel("triple_plus_one", 2);
  auto upload = buffer(bytes, Placement::Host);
  auto download = buffer(bytes, Placement::Host);
  auto a = buffer(bytes, Placement::DeviceOnly);
  auto b = buffer(bytes, Placement::DeviceOnly);
  ASSERT_TRUE(upload && download && a && b);
  auto s = stream();
  const uint64_t groups[3] = {(n + 63) / 64, 1, 1};
  Buffer *ab[] = {a.get(), b.get()};

  // Twice, to check the stream is reusable after copies.
  for (uint32_t round = 0; round < 2; ++round) {
    std::vector<uint32_t> input = randomWords(n, 20 + round);
    std::memcpy(upload->data(), input.data(), bytes);
    std::memset(download->data(), 0xff, bytes);
    // host -> a, a -> b (f), b -> a (device copy), a -> b (f), b -> host.
    s->copy(*upload, 0, *a, 0, bytes);
    s->dispatch(*k, ab, {}, groups);
    s->copy(*b, 0, *a, 0, bytes);
    s->dispatch(*k, ab, {}, groups);
    s->copy(*b, 0, *download, 0, bytes);
    std::vector<double> dispatchNs, copyNs;
    Status status = s->submitAndWait(&dispatchNs, &copyNs);
    ASSERT_TRUE(status.ok()) << status.describe();
    if (context->info().timestampPeriodNs > 0) {
      EXPECT_EQ(dispatchNs.size(), 2u);
      EXPECT_EQ(copyNs.size(), 3u);
    } else {
      EXPECT_TRUE(dispatchNs.empty() && copyNs.empty());
    }
    const uint32_t *result = words(*download);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(result[i], (input[i] * 3u + 1u) * 3u + 1u)
          << "round " << round << " at " << i;
  }

  // Offsets: the middle of `upload` lands at the start of `download`.
  std::vector<uint32_t> input = randomWords(n, 30);
  std::memcpy(upload->data(), input.data(), bytes);
  std::memset(download->data(), 0, bytes);
  s->copy(*upload, 40, *a, 8, 100);
  s->copy(*a, 8, *download, 0, 100);
  ASSERT_TRUE(s->submitAndWait().ok());
  EXPECT_EQ(std::memcmp(download->data(), input.data() + 10, 100), 0);
  EXPECT_EQ(words(*download)[25], 0u);
}

TEST_F(VulkanTest, BadCopiesAreErrors) {
  auto a = buffer(64, Placement::Host), b = buffer(64, Placement::DeviceOnly);
  auto s = stream();
  s->copy(*a, 0, *b, 8, 60);
  Status status = s->submitAndWait();
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(status.message().find("copy of 60 bytes at destination offset 8 "
                                  "exceeds the destination buffer of 64 bytes"),
            std::string::npos)
      << status.message();
  s->copy(*a, UINT64_MAX, *b, 0, 2);
  status = s->submitAndWait();
  EXPECT_NE(status.message().find("source offset"), std::string::npos)
      << status.message();
  s->copy(*a, 0, *a, 16, 32);
  status = s->submitAndWait();
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(),
            "copy of 32 bytes within one buffer from 0 to 16 overlaps itself");

  std::unique_ptr<Context> other;
  ASSERT_TRUE(Context::create(other).ok());
  std::unique_ptr<Buffer> foreign;
  ASSERT_TRUE(other->createBuffer(64, Placement::Host, foreign).ok());
  s->copy(*foreign, 0, *b, 0, 16);
  status = s->submitAndWait();
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(status.message().find("another Vulkan context"), std::string::npos)
      << status.message();
  foreign.reset();
  other.reset();

  // The first error wins and the stream stays usable; 0 bytes is a no-op.
  std::memset(a->data(), 7, 64);
  s->copy(*a, 64, *b, 64, 0);
  s->copy(*a, 0, *b, 0, 64);
  s->copy(*b, 0, *a, 32, 16);
  ASSERT_TRUE(s->submitAndWait().ok());
  EXPECT_EQ(words(*a)[8], 0x07070707u);
}

TEST_F(VulkanTest, DependentDispatchesSeeEachOthersWrites) {
  const size_t n = 64 * 40;
  auto triple = kernel("triple_plus_one", 2);
  auto affine = kernel("affine_push", 1, 8);
  auto reverse = kernel("reverse_workgroup", 2);
  auto a = buffer(n * 4), b = buffer(n * 4), c = buffer(n * 4);
  auto s = stream();

  // Twice, to check the stream is reusable after a wait.
  for (uint32_t round = 0; round < 2; ++round) {
    std::vector<uint32_t> input = randomWords(n, 10 + round);
    std::memcpy(a->data(), input.data(), n * 4);
    const uint64_t groups[3] = {n / 64, 1, 1};
    Buffer *ab[] = {a.get(), b.get()};
    Buffer *bOnly[] = {b.get()};
    Buffer *bc[] = {b.get(), c.get()};
    const uint32_t push[2] = {5 + round, 7};
    s->dispatch(*triple, ab, {}, groups);
    s->dispatch(*affine, bOnly, std::as_bytes(std::span(push)), groups);
    s->dispatch(*reverse, bc, {}, groups);
    std::vector<double> ns;
    Status status = s->submitAndWait(&ns);
    ASSERT_TRUE(status.ok()) << status.describe();
    if (context->info().timestampPeriodNs > 0)
      EXPECT_EQ(ns.size(), 3u);
    for (size_t i = 0; i < n; ++i) {
      size_t block = i / 64, lane = i % 64;
      uint32_t x = input[block * 64 + 63 - lane];
      ASSERT_EQ(words(*c)[i], (x * 3u + 1u) * push[0] + push[1])
          << "round " << round << " at " << i;
    }
  }
}

TEST_F(VulkanTest, SubmittedPiecesRunInOrderAndAreWaitedForTogether) {
  // The dependent chain of the test above, each dispatch queued on its own
  // (Stream::submit) before the next is recorded: the later pieces see the
  // earlier ones' writes, one wait covers all three, and the timings come
  // back in recording order. Then an error recorded after a queued piece is
  // reported by the wait, and the stream is reusable afterwards.
  const size_t n = 64 * 40;
  auto triple = kernel("triple_plus_one", 2);
  auto affine = kernel("affine_push", 1, 8);
  auto reverse = kernel("reverse_workgroup", 2);
  auto a = buffer(n * 4), b = buffer(n * 4), c = buffer(n * 4);
  auto s = stream();
  for (uint32_t round = 0; round < 3; ++round) {
    std::vector<uint32_t> input = randomWords(n, 20 + round);
    std::memcpy(a->data(), input.data(), n * 4);
    const uint64_t groups[3] = {n / 64, 1, 1};
    Buffer *ab[] = {a.get(), b.get()};
    Buffer *bOnly[] = {b.get()};
    Buffer *bc[] = {b.get(), c.get()};
    const uint32_t push[2] = {3 + round, 11};
    s->dispatch(*triple, ab, {}, groups);
    ASSERT_TRUE(s->submit().ok());
    s->dispatch(*affine, bOnly, std::as_bytes(std::span(push)), groups);
    ASSERT_TRUE(s->submit().ok());
    if (round == 1) {
      Buffer *one[] = {a.get()};
      s->dispatch(*reverse, one, {}, groups); // one binding short
      Status status = s->submitAndWait();
      EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
      EXPECT_NE(status.message().find("has 2 bindings but the dispatch passes "
                                      "1 buffers"),
                std::string::npos)
          << status.describe();
      continue;
    }
    s->dispatch(*reverse, bc, {}, groups);
    std::vector<double> ns;
    Status status = s->submitAndWait(&ns);
    ASSERT_TRUE(status.ok()) << status.describe();
    if (context->info().timestampPeriodNs > 0)
      EXPECT_EQ(ns.size(), 3u);
    for (size_t i = 0; i < n; ++i) {
      size_t block = i / 64, lane = i % 64;
      uint32_t x = input[block * 64 + 63 - lane];
      ASSERT_EQ(words(*c)[i], (x * 3u + 1u) * push[0] + push[1])
          << "round " << round << " at " << i;
    }
  }
  // A submit with nothing recorded queues nothing; the wait returns at once.
  ASSERT_TRUE(s->submit().ok());
  EXPECT_TRUE(s->submitAndWait().ok());
}

// A recording runs its commands in order on every submission, reads each
// indirect grid when the dispatch starts (so a host write between
// submissions changes it), and an x = 0 grid runs nothing.
TEST_F(VulkanTest, RecordingIsSubmittedAgainWithIndirectGrids) {
  auto count = kernel("count_workgroups", 1);
  auto triple = kernel("triple_plus_one", 2);
  const size_t slots = 16;
  auto counts = buffer(slots * 4), grids = buffer(24);
  const size_t n = 64 * 4;
  auto a = buffer(n * 4), b = buffer(n * 4);
  std::memset(counts->data(), 0, slots * 4);
  uint32_t *grid = words(*grids);
  const uint32_t initial[6] = {3, 1, 1, 0, 1, 1};
  std::memcpy(grid, initial, sizeof initial);
  std::vector<uint32_t> input = randomWords(n, 7);
  std::memcpy(a->data(), input.data(), n * 4);

  std::unique_ptr<Recording> r;
  Status status = context->createRecording(r);
  ASSERT_TRUE(status.ok()) << status.describe();
  Buffer *countsOnly[] = {counts.get()};
  Buffer *ab[] = {a.get(), b.get()}, *ba[] = {b.get(), a.get()};
  r->dispatchIndirect(*count, countsOnly, {}, *grids, 0);
  r->dispatchIndirect(*count, countsOnly, {}, *grids, 12);
  r->dispatch(*triple, ab, {}, uint32_t(n / 64));
  r->barrier();
  r->dispatch(*triple, ba, {}, uint32_t(n / 64)); // reads the first's b
  ASSERT_TRUE(r->finish().ok());

  ASSERT_TRUE(r->submitAndWait().ok());
  for (size_t i = 0; i < slots; ++i)
    ASSERT_EQ(words(*counts)[i], i < 3 ? 1u : 0u) << "slot " << i;
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(words(*a)[i], (input[i] * 3u + 1u) * 3u + 1u) << "at " << i;
  // Again, with grids the host changed: 5 workgroups, then 2 more.
  grid[0] = 5;
  grid[3] = 2;
  double ns = -1;
  ASSERT_TRUE(r->submitAndWait(&ns).ok());
  EXPECT_GE(ns, 0.0);
  for (size_t i = 0; i < slots; ++i)
    ASSERT_EQ(words(*counts)[i], i < 2 ? 3u : i < 3 ? 2u : i < 5 ? 1u : 0u)
        << "slot " << i;
}

// Two recordings in flight run in submission order: the second's dispatch
// reads what the first's fill wrote, and its result is what the host finds
// after both waits; each is then submitted again.
TEST_F(VulkanTest, RecordingsInFlightRunInSubmissionOrder) {
  auto triple = kernel("triple_plus_one", 2);
  const size_t n = 64 * 4;
  auto a = buffer(n * 4), b = buffer(n * 4), c = buffer(n * 4);
  std::vector<uint32_t> input = randomWords(n, 11);
  std::memcpy(a->data(), input.data(), n * 4);
  std::unique_ptr<Recording> first, second;
  ASSERT_TRUE(context->createRecording(first).ok());
  ASSERT_TRUE(context->createRecording(second).ok());
  Buffer *ab[] = {a.get(), b.get()}, *ac[] = {a.get(), c.get()};
  first->dispatch(*triple, ab, {}, uint32_t(n / 64));
  first->fill(*a, 8, n * 4 - 8, 7); // after the dispatch read a
  ASSERT_TRUE(first->finish().ok());
  second->dispatch(*triple, ac, {}, uint32_t(n / 64));
  ASSERT_TRUE(second->finish().ok());
  ASSERT_TRUE(first->submit().ok());
  ASSERT_TRUE(second->submit().ok());
  EXPECT_TRUE(first->inFlight());
  EXPECT_EQ(first->submit().message(),
            "a recording submitted again before its wait()");
  ASSERT_TRUE(first->wait().ok());
  ASSERT_TRUE(second->wait().ok());
  EXPECT_FALSE(second->inFlight());
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(words(*b)[i], input[i] * 3u + 1u) << "at " << i;
    uint32_t filled = i < 2 ? input[i] : 7u;
    ASSERT_EQ(words(*a)[i], filled) << "at " << i;
    ASSERT_EQ(words(*c)[i], filled * 3u + 1u) << "at " << i;
  }
  EXPECT_EQ(second->wait().message(),
            "a recording waited for without a submission");
  ASSERT_TRUE(second->submitAndWait().ok()); // reusable after its wait
}

// Recording misuse is reported, never recorded.
TEST_F(VulkanTest, RecordingErrors) {
  auto count = kernel("count_workgroups", 1);
  auto grids = buffer(16);
  std::unique_ptr<Recording> r;
  ASSERT_TRUE(context->createRecording(r).ok());
  EXPECT_EQ(r->submitAndWait().message(),
            "a recording submitted before finish()");
  Buffer *none[] = {grids.get(), grids.get()};
  r->dispatch(*count, none, {}, 1);
  Status status = r->finish();
  EXPECT_EQ(status.message(), "kernel 'count_workgroups' has 1 bindings but "
                              "the recorded dispatch passes 2 buffers");
  std::unique_ptr<Recording> pushing;
  ASSERT_TRUE(context->createRecording(pushing).ok());
  Buffer *one[] = {grids.get()};
  const uint32_t word = 1;
  pushing->dispatch(*count, one, std::as_bytes(std::span(&word, 1)), 1);
  EXPECT_EQ(pushing->finish().message(),
            "kernel 'count_workgroups' takes 0 push constant bytes but the "
            "recorded dispatch passes 4");
  std::unique_ptr<Recording> late;
  ASSERT_TRUE(context->createRecording(late).ok());
  late->dispatchIndirect(*count, one, {}, *grids, 8); // 8 + 12 > 16
  EXPECT_EQ(late->finish().message(),
            "kernel 'count_workgroups': indirect arguments at byte 8 of a "
            "buffer of 16");
  EXPECT_FALSE(late->submitAndWait().ok());
  std::unique_ptr<Recording> filling;
  ASSERT_TRUE(context->createRecording(filling).ok());
  filling->fill(*grids, 4, 16, 0); // 4 + 16 > 16
  EXPECT_EQ(filling->finish().message(),
            "a recorded fill of 16 bytes at byte 4 of a buffer of 16 (both "
            "must be multiples of 4, inside it)");
  std::unique_ptr<Recording> stamped;
  ASSERT_TRUE(context->createRecording(stamped, 1).ok());
  stamped->timestamp();
  stamped->timestamp();
  EXPECT_EQ(stamped->finish().message(),
            "a recording made for 1 timestamps records one more");
}

// Timestamps between commands: one per call, in the order recorded, within
// the recording's own start and end.
TEST_F(VulkanTest, RecordingTimestamps) {
  const size_t n = 64 * 64;
  auto triple = kernel("triple_plus_one", 2);
  auto a = buffer(n * 4), b = buffer(n * 4);
  std::unique_ptr<Recording> r;
  ASSERT_TRUE(context->createRecording(r, 3).ok());
  Buffer *ab[] = {a.get(), b.get()}, *ba[] = {b.get(), a.get()};
  r->timestamp();
  r->dispatch(*triple, ab, {}, uint32_t(n / 64));
  r->barrier();
  r->timestamp();
  r->dispatch(*triple, ba, {}, uint32_t(n / 64));
  r->barrier();
  r->timestamp();
  ASSERT_TRUE(r->finish().ok());
  for (int round = 0; round < 2; ++round) {
    double ns = 0;
    std::vector<uint64_t> stamps;
    Status status = r->submitAndWait(&ns, &stamps);
    ASSERT_TRUE(status.ok()) << status.describe();
    if (context->info().timestampPeriodNs == 0) {
      EXPECT_TRUE(stamps.empty());
      continue;
    }
    ASSERT_EQ(stamps.size(), 3u);
    EXPECT_LE(stamps[0], stamps[1]);
    EXPECT_LE(stamps[1], stamps[2]);
    EXPECT_LT(stamps[0], stamps[2]); // two dispatches take time
    EXPECT_LE(double(stamps[2]), ns + 1.0);
  }
}

// A recorded copy runs after the commands before it (it copies what the
// dispatch wrote, on every submission) and before those after it; a range
// outside either buffer is an error of the recording.
TEST_F(VulkanTest, RecordingCopiesAfterTheDispatches) {
  const size_t n = 64 * 4;
  auto triple = kernel("triple_plus_one", 2);
  auto a = buffer(n * 4), b = buffer(n * 4);
  auto host = buffer(n * 4, Placement::Host);
  std::vector<uint32_t> input = randomWords(n, 11);
  std::memcpy(a->data(), input.data(), n * 4);
  std::unique_ptr<Recording> r;
  ASSERT_TRUE(context->createRecording(r).ok());
  Buffer *ab[] = {a.get(), b.get()}, *ba[] = {b.get(), a.get()};
  r->dispatch(*triple, ab, {}, uint32_t(n / 64));
  // Words [16, n) of b land at word 0 of the host buffer.
  r->copy(*b, 64, *host, 0, (n - 16) * 4);
  r->dispatch(*triple, ba, {}, uint32_t(n / 64)); // after the copy: unseen
  ASSERT_TRUE(r->finish().ok());
  std::vector<uint32_t> x = input;
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(r->submitAndWait().ok());
    for (size_t i = 16; i < n; ++i)
      ASSERT_EQ(words(*host)[i - 16], x[i] * 3u + 1u)
          << "round " << round << " at " << i;
    for (uint32_t &v : x)
      v = (v * 3u + 1u) * 3u + 1u; // a after this round
  }
  std::unique_ptr<Recording> outside;
  ASSERT_TRUE(context->createRecording(outside).ok());
  outside->copy(*b, 8, *host, 0, n * 4);
  EXPECT_EQ(outside->finish().message(),
            "a recorded copy of " + std::to_string(n * 4) +
                " bytes from byte 8 of a buffer of " + std::to_string(n * 4) +
                " to byte 0 of a buffer of " + std::to_string(n * 4));
}

TEST_F(VulkanTest, PushConstants) {
  const size_t n = 300;
  auto k = kernel("affine_push", 1, 8);
  auto data = buffer(n * 4);
  std::vector<uint32_t> input = randomWords(n, 3);
  std::memcpy(data->data(), input.data(), n * 4);
  auto s = stream();
  Buffer *bindings[] = {data.get()};
  const uint32_t push[2] = {0x10001u, 0xdeadbeefu};
  const uint64_t groups[3] = {(n + 63) / 64, 1, 1};
  s->dispatch(*k, bindings, std::as_bytes(std::span(push)), groups);
  Status status = s->submitAndWait();
  ASSERT_TRUE(status.ok()) << status.describe();
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(words(*data)[i], input[i] * push[0] + push[1]) << "at " << i;

  // The wrong push constant size is reported, and the stream stays usable.
  const uint32_t shortPush[1] = {1};
  s->dispatch(*k, bindings, std::as_bytes(std::span(shortPush)), groups);
  status = s->submitAndWait();
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(), "kernel 'affine_push' takes 8 push constant "
                              "bytes but the dispatch passes 4");
  s->dispatch(*k, bindings, std::as_bytes(std::span(push)), groups);
  EXPECT_TRUE(s->submitAndWait().ok());
}

TEST_F(VulkanTest, WrongBindingCountIsAnError) {
  auto k = kernel("triple_plus_one", 2);
  auto a = buffer(256);
  auto s = stream();
  Buffer *one[] = {a.get()};
  const uint64_t groups[3] = {1, 1, 1};
  s->dispatch(*k, one, {}, groups);
  Status status = s->submitAndWait();
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(status.message().find("has 2 bindings but the dispatch passes 1"),
            std::string::npos)
      << status.message();

  Buffer *withNull[] = {a.get(), nullptr};
  s->dispatch(*k, withNull, {}, groups);
  status = s->submitAndWait();
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(),
            "kernel 'triple_plus_one' binding 1 is a null buffer");
}

TEST_F(VulkanTest, BadSpirvIsRejected) {
  std::vector<uint32_t> shader = loadShader("triple_plus_one");
  shader[0] = 0x12345678u;
  std::unique_ptr<Kernel> out;
  Status status = context->createKernel(shader, "triple_plus_one", 2, 0, out);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(status.message().find("not a SPIR-V binary"), std::string::npos);
  EXPECT_FALSE(out);

  std::vector<uint32_t> tooShort = {0x07230203u, 0x10000u};
  status = context->createKernel(tooShort, "x", 0, 0, out);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);

  status = context->createKernel(loadShader("affine_push"), "affine_push", 1, 6,
                                 out);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument); // not a multiple of 4
  // The limit follows: maxPushConstantsSize, at least 128 on every device.
  const std::string prefix = "kernel 'affine_push' asks for 6 push constant "
                             "bytes; the size must be a multiple of 4 and at "
                             "most ";
  ASSERT_EQ(status.message().substr(0, prefix.size()), prefix);
  EXPECT_GE(std::stoul(status.message().substr(prefix.size())), 128u);
}

TEST_F(VulkanTest, DeviceSelectionByEnvironment) {
  EnvRestore restore("SLUICE_VULKAN_DEVICE");
  const DeviceInfo chosen = context->info();

  setenv("SLUICE_VULKAN_DEVICE", "nosuchdevice", 1);
  std::unique_ptr<Context> other;
  Status status = Context::create(other);
  EXPECT_EQ(status.kind(), ErrorKind::DeviceUnavailable);
  EXPECT_FALSE(other);
  const std::string &message = status.message();
  EXPECT_NE(message.find("SLUICE_VULKAN_DEVICE='nosuchdevice'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("  #" + std::to_string(chosen.index) + " " +
                         chosen.name + " (" + chosen.type + ")"),
            std::string::npos)
      << message;

  setenv("SLUICE_VULKAN_DEVICE", std::to_string(chosen.index).c_str(), 1);
  status = Context::create(other);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(other->info().name, chosen.name);
  other.reset();

  std::string upper = chosen.name.substr(0, 4);
  for (char &ch : upper)
    ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  setenv("SLUICE_VULKAN_DEVICE", upper.c_str(), 1);
  status = Context::create(other);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_NE(other->info().name.find(chosen.name.substr(0, 4)),
            std::string::npos);

  setenv("SLUICE_VULKAN_DEVICE", "999", 1);
  EXPECT_EQ(Context::create(other).kind(), ErrorKind::DeviceUnavailable);
}

void launchAddScalar(std::vector<uint32_t> &data, uint32_t value,
                     uint64_t block) {
  const std::vector<uint32_t> &shader = cachedShader("add_scalar");
  sluice_rt_vk_launch_begin(shader.data(), shader.size(), "add_scalar");
  sluice_rt_vk_launch_arg(data.data(), data.size() * 4,
                          SLUICE_RT_VK_READ | SLUICE_RT_VK_WRITE);
  sluice_rt_vk_launch_scalar(value, 4);
  sluice_rt_vk_launch_end((data.size() + block - 1) / block, 1, 1, block, 1, 1);
}

TEST_F(VulkanTest, LaunchAbiComputesTheResult) {
  ASSERT_NE(sluice_rt_vk_device_name(), nullptr);
  std::vector<uint32_t> data = randomWords(100, 4);
  std::vector<uint32_t> expected = data;
  for (uint32_t &w : expected)
    w += 7u + 0x12345u;
  launchAddScalar(data, 7, 32);
  // Same array again: the cached buffer is reused and copied in afresh.
  launchAddScalar(data, 0x12345u, 32);
  EXPECT_EQ(data, expected);

  // A 2-byte scalar passes only its low bytes.
  const std::vector<uint32_t> &shader = cachedShader("add_scalar");
  std::vector<uint32_t> small(40, 1);
  sluice_rt_vk_launch_begin(shader.data(), shader.size(), "add_scalar");
  sluice_rt_vk_launch_arg(small.data(), small.size() * 4,
                          SLUICE_RT_VK_READ | SLUICE_RT_VK_WRITE);
  sluice_rt_vk_launch_scalar(0xabcd0003u, 2);
  sluice_rt_vk_launch_end(2, 1, 1, 32, 1, 1);
  EXPECT_EQ(small, std::vector<uint32_t>(40, 4));
}

TEST_F(VulkanTest, LaunchAbiHonoursAccessFlags) {
  // READ only: the kernel adds to the array on the device, but nothing is
  // copied back.
  const std::vector<uint32_t> &addScalar = cachedShader("add_scalar");
  std::vector<uint32_t> data = randomWords(96, 5);
  const std::vector<uint32_t> original = data;
  sluice_rt_vk_launch_begin(addScalar.data(), addScalar.size(), "add_scalar");
  sluice_rt_vk_launch_arg(data.data(), data.size() * 4, SLUICE_RT_VK_READ);
  sluice_rt_vk_launch_scalar(9, 4);
  sluice_rt_vk_launch_end(3, 1, 1, 32, 1, 1);
  EXPECT_EQ(data, original);

  // The device buffer kept the kernel's result; READ|WRITE copies in afresh
  // (the unchanged host array), so the result is original + 1, not + 10.
  sluice_rt_vk_launch_begin(addScalar.data(), addScalar.size(), "add_scalar");
  sluice_rt_vk_launch_arg(data.data(), data.size() * 4,
                          SLUICE_RT_VK_READ | SLUICE_RT_VK_WRITE);
  sluice_rt_vk_launch_scalar(1, 4);
  sluice_rt_vk_launch_end(3, 1, 1, 32, 1, 1);
  for (size_t i = 0; i < data.size(); ++i)
    ASSERT_EQ(data[i], original[i] + 1u) << "at " << i;

  // READ input, WRITE-only output: the output's stale host contents do not
  // matter and the result comes back.
  const std::vector<uint32_t> &triple = cachedShader("triple_plus_one");
  const size_t n = 200;
  std::vector<uint32_t> in = randomWords(n, 6), out(n, 0xdeadbeefu);
  sluice_rt_vk_launch_begin(triple.data(), triple.size(), "triple_plus_one");
  sluice_rt_vk_launch_arg(in.data(), n * 4, SLUICE_RT_VK_READ);
  sluice_rt_vk_launch_arg(out.data(), n * 4, SLUICE_RT_VK_WRITE);
  sluice_rt_vk_launch_end((n + 63) / 64, 1, 1, 64, 1, 1);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], in[i] * 3u + 1u) << "at " << i;

  // Access 0 binds only: neither array is copied in either direction.
  std::vector<uint32_t> other = randomWords(n, 7);
  const std::vector<uint32_t> otherCopy = other, outCopy = out;
  sluice_rt_vk_launch_begin(triple.data(), triple.size(), "triple_plus_one");
  sluice_rt_vk_launch_arg(other.data(), n * 4, 0);
  sluice_rt_vk_launch_arg(out.data(), n * 4, 0);
  sluice_rt_vk_launch_end((n + 63) / 64, 1, 1, 64, 1, 1);
  EXPECT_EQ(other, otherCopy);
  EXPECT_EQ(out, outCopy);
}

TEST_F(VulkanTest, LaunchAbiBadAccessFlagsExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<uint32_t> &shader = cachedShader("add_scalar");
  std::vector<uint32_t> data(32, 0);
  EXPECT_EXIT(
      {
        sluice_rt_vk_launch_begin(shader.data(), shader.size(), "add_scalar");
        sluice_rt_vk_launch_arg(data.data(), 128, 8);
      },
      ::testing::ExitedWithCode(1),
      std::string("sluice: vulkan: kernel @add_scalar argument 0 has access "
                  "flags 8; ") +
          "expected a mask of SLUICE_RT_VK_READ " +
          "\\(1\\), SLUICE_RT_VK_WRITE \\(2\\) and SLUICE_RT_VK_RESIDENT \\(4\\)");
}

// Runs scratch_private on a gx x gy grid of 32-wide workgroups; every
// invocation must find its own 16-byte scratch slot.
void launchScratch(uint64_t gx, uint64_t gy) {
  const std::vector<uint32_t> &shader = cachedShader("scratch_private");
  const size_t n = gx * gy * 32;
  std::vector<uint32_t> out(n, 0);
  sluice_rt_vk_launch_begin(shader.data(), shader.size(), "scratch_private");
  sluice_rt_vk_launch_arg(out.data(), n * 4, SLUICE_RT_VK_WRITE);
  sluice_rt_vk_launch_scratch(16);
  sluice_rt_vk_launch_end(gx, gy, 1, 32, 1, 1);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], uint32_t(28 * i + 6))
        << "at " << i << " of grid " << gx << "x" << gy;
}

TEST_F(VulkanTest, LaunchAbiScratch) {
  launchScratch(2, 1);
  // A larger grid grows the cached scratch buffer; a smaller one reuses it.
  launchScratch(5, 3);
  launchScratch(1, 2);
}

TEST_F(VulkanTest, LaunchAbiScratchOverflowExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<uint32_t> &shader = cachedShader("scratch_private");
  std::vector<uint32_t> out(32, 0);
  EXPECT_EXIT(
      {
        sluice_rt_vk_launch_begin(shader.data(), shader.size(),
                                  "scratch_private");
        sluice_rt_vk_launch_arg(out.data(), 128, SLUICE_RT_VK_WRITE);
        sluice_rt_vk_launch_scratch(uint64_t(1) << 40);
        sluice_rt_vk_launch_end(uint64_t(1) << 20, 1, 1, 32, 1, 1);
      },
      ::testing::ExitedWithCode(1),
      "sluice: vulkan: kernel @scratch_private scratch of 1099511627776 bytes "
      "per invocation for 33554432 invocations: 1099511627776 \\* 33554432 "
      "overflows 64 bits");
}

TEST_F(VulkanTest, LaunchAbiLocalSizeMismatchExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<uint32_t> data(64, 0);
  EXPECT_EXIT(launchAddScalar(data, 1, 64), ::testing::ExitedWithCode(1),
              "sluice: vulkan: kernel @add_scalar is launched with block "
              "64x1x1 but its SPIR-V LocalSize is 32x1x1");
}

TEST_F(VulkanTest, LaunchAbiUnknownEntryExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<uint32_t> &shader = cachedShader("add_scalar");
  EXPECT_EXIT(
      {
        sluice_rt_vk_launch_begin(shader.data(), shader.size(), "nope");
        sluice_rt_vk_launch_end(1, 1, 1, 32, 1, 1);
      },
      ::testing::ExitedWithCode(1),
      "sluice: vulkan: the SPIR-V module has no entry point named 'nope'");
}

// add_scalar without its OpExecutionMode LocalSize (each word of it replaced
// by OpNop): the launch cannot check the block size against it.
TEST_F(VulkanTest, LaunchAbiMissingLocalSizeExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  static std::vector<uint32_t> shader = loadShader("add_scalar");
  constexpr uint32_t kOpNop = 0, kOpExecutionMode = 16, kLocalSize = 17;
  for (size_t at = 5; at < shader.size();) {
    uint32_t count = shader[at] >> 16;
    ASSERT_GT(count, 0u);
    if ((shader[at] & 0xffff) == kOpExecutionMode && count >= 3 &&
        shader[at + 2] == kLocalSize)
      std::fill(shader.begin() + at, shader.begin() + at + count,
                (1u << 16) | kOpNop);
    at += count;
  }
  std::vector<uint32_t> data(64, 0);
  EXPECT_EXIT(
      {
        sluice_rt_vk_launch_begin(shader.data(), shader.size(), "add_scalar");
        sluice_rt_vk_launch_arg(data.data(), 256, SLUICE_RT_VK_WRITE);
        sluice_rt_vk_launch_scalar(1, 4);
        sluice_rt_vk_launch_end(2, 1, 1, 32, 1, 1);
      },
      ::testing::ExitedWithCode(1),
      "sluice: vulkan: entry point @add_scalar has no LocalSize execution "
      "mode");
}

TEST_F(VulkanTest, LaunchAbiTimingLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<uint32_t> data(64, 0);
  // The child process reads SLUICE_VULKAN_TIMING when it creates its context.
  EXPECT_EXIT(
      {
        setenv("SLUICE_VULKAN_TIMING", "1", 1);
        launchAddScalar(data, 1, 32);
        std::exit(data[63] == 1 ? 0 : 2);
      },
      ::testing::ExitedWithCode(0),
      "sluice: vulkan: @add_scalar grid 2x1x1 block 32x1x1: gpu .* us, copies "
      "in 256 bytes [0-9.]+\\+.* us / out 256 bytes [0-9.]+\\+.* us "
      "\\(host\\+device\\)");
}

//===----------------------------------------------------------------------===//
// Shader capabilities against device features (no device needed)
//===----------------------------------------------------------------------===//

constexpr uint32_t kOpCapability = 17, kOpMemoryModel = 14;
constexpr uint32_t kInt64 = 11, kFloat64 = 10, kAtomicFloat32AddEXT = 6033,
                   kAtomicFloat64AddEXT = 6034;

// A SPIR-V header, OpCapability Shader, one OpCapability per entry of
// `capabilities`, and OpMemoryModel Logical GLSL450.
std::vector<uint32_t> moduleDeclaring(std::vector<uint32_t> capabilities) {
  std::vector<uint32_t> words = {0x07230203u, 0x00010300u, 0, 16, 0};
  capabilities.insert(capabilities.begin(), 1); // Shader
  for (uint32_t capability : capabilities) {
    words.push_back((2u << 16) | kOpCapability);
    words.push_back(capability);
  }
  words.insert(words.end(), {(3u << 16) | kOpMemoryModel, 0, 1});
  return words;
}

DeviceInfo deviceWith(bool int64, bool float64, bool atomicAdd32,
                      bool atomicAdd64) {
  DeviceInfo info;
  info.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
  info.shaderInt64 = int64;
  info.shaderFloat64 = float64;
  info.shaderBufferFloat32AtomicAdd = atomicAdd32;
  info.shaderBufferFloat64AtomicAdd = atomicAdd64;
  return info;
}

TEST(VulkanShaderCapabilities, EachCapabilityNeedsItsFeature) {
  struct Case {
    uint32_t capability;
    bool DeviceInfo::*feature;
    const char *message;
  };
  const Case cases[] = {
      {kInt64, &DeviceInfo::shaderInt64,
       "vulkan device 'llvmpipe (LLVM 15.0.6, 256 bits)' lacks shaderInt64, "
       "which the kernels of the test module use (64-bit integers, such as "
       "frame field offsets and i64 bindings)"},
      {kFloat64, &DeviceInfo::shaderFloat64,
       "vulkan device 'llvmpipe (LLVM 15.0.6, 256 bits)' lacks shaderFloat64, "
       "which the kernels of the test module use (64-bit float arithmetic)"},
      {kAtomicFloat32AddEXT, &DeviceInfo::shaderBufferFloat32AtomicAdd,
       "vulkan device 'llvmpipe (LLVM 15.0.6, 256 bits)' lacks "
       "shaderBufferFloat32AtomicAdd, which the kernels of the test module use "
       "(atomic f32 adds on storage buffers, VK_EXT_shader_atomic_float)"},
      {kAtomicFloat64AddEXT, &DeviceInfo::shaderBufferFloat64AtomicAdd,
       "vulkan device 'llvmpipe (LLVM 15.0.6, 256 bits)' lacks "
       "shaderBufferFloat64AtomicAdd, which the kernels of the test module use "
       "(atomic f64 adds on storage buffers, VK_EXT_shader_atomic_float)"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("capability " + std::to_string(c.capability));
    std::vector<uint32_t> spirv = moduleDeclaring({c.capability});
    DeviceInfo everything = deviceWith(true, true, true, true);
    EXPECT_TRUE(
        checkShaderCapabilities(spirv, everything, "the test module").ok());
    DeviceInfo lacking = everything;
    lacking.*c.feature = false;
    Status status = checkShaderCapabilities(spirv, lacking, "the test module");
    EXPECT_EQ(status.kind(), ErrorKind::DeviceUnavailable);
    EXPECT_EQ(status.message(), c.message);
    // Only this feature matters for this spirv.
    DeviceInfo onlyThis = deviceWith(false, false, false, false);
    onlyThis.*c.feature = true;
    EXPECT_TRUE(
        checkShaderCapabilities(spirv, onlyThis, "the test module").ok());
  }
}

TEST(VulkanShaderCapabilities, UncheckedCapabilitiesNeedNoFeature) {
  DeviceInfo nothing = deviceWith(false, false, false, false);
  // Shader only; then GroupNonUniform (61) and GroupNonUniformShuffle (65),
  // which every Vulkan 1.1 device has for compute: not checked.
  EXPECT_TRUE(checkShaderCapabilities(moduleDeclaring({}), nothing, "m").ok());
  EXPECT_TRUE(
      checkShaderCapabilities(moduleDeclaring({61, 65}), nothing, "m").ok());
  // A capability's number as the operand of another instruction is not a
  // capability: OpMemoryModel's operands, a constant.
  std::vector<uint32_t> spirv = moduleDeclaring({});
  spirv.insert(spirv.end(), {(4u << 16) | 43, 1, 2, kFloat64}); // OpConstant
  EXPECT_TRUE(checkShaderCapabilities(spirv, nothing, "m").ok());
}

// The small types: Int16 (22), Float16 (9), Int8 (39),
// StorageBuffer16BitAccess (4433), StorageBuffer8BitAccess (4448), each
// needing its own feature bit, which the device enables when it has it.
TEST(VulkanShaderCapabilities, SmallTypesNeedTheirFeatures) {
  DeviceInfo device = deviceWith(false, false, false, false);
  std::vector<uint32_t> spirv = moduleDeclaring({22, 9, 39, 4433, 4448});
  Status status = checkShaderCapabilities(spirv, device, "p");
  EXPECT_EQ(status.kind(), ErrorKind::DeviceUnavailable);
  for (const char *feature :
       {"shaderInt16", "shaderFloat16", "shaderInt8",
        "storageBuffer16BitAccess", "storageBuffer8BitAccess"})
    EXPECT_NE(status.message().find(feature), std::string::npos) << feature;
  device.shaderInt16 = device.shaderFloat16 = device.shaderInt8 = true;
  device.storageBuffer16BitAccess = true;
  status = checkShaderCapabilities(spirv, device, "p");
  EXPECT_EQ(status.message(),
            "vulkan device '" + device.name +
                "' lacks storageBuffer8BitAccess, which the kernels of p use "
                "(8-bit elements in storage buffers)");
  device.storageBuffer8BitAccess = true;
  EXPECT_TRUE(checkShaderCapabilities(spirv, device, "p").ok());
}

TEST(VulkanShaderCapabilities, EveryMissingFeatureIsNamed) {
  std::vector<uint32_t> spirv =
      moduleDeclaring({kInt64, kFloat64, kAtomicFloat32AddEXT,
                       kAtomicFloat64AddEXT, kFloat64});
  Status status = checkShaderCapabilities(
      spirv, deviceWith(true, false, true, false), "the program");
  EXPECT_EQ(status.kind(), ErrorKind::DeviceUnavailable);
  EXPECT_EQ(status.message(),
            "vulkan device 'llvmpipe (LLVM 15.0.6, 256 bits)' lacks "
            "shaderFloat64, which the kernels of the program use (64-bit float "
            "arithmetic); it also lacks shaderBufferFloat64AtomicAdd, which "
            "the kernels of the program use (atomic f64 adds on storage "
            "buffers, VK_EXT_shader_atomic_float)");
  EXPECT_TRUE(checkShaderCapabilities(spirv, deviceWith(true, true, true, true),
                                      "the program")
                  .ok());
}

TEST(VulkanShaderCapabilities, MalformedModulesAreErrors) {
  DeviceInfo everything = deviceWith(true, true, true, true);
  auto expectInvalid = [&](const std::vector<uint32_t> &words,
                           const std::string &text) {
    Status status = checkShaderCapabilities(words, everything, "module m");
    EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(status.message().find(text), std::string::npos)
        << status.message();
  };
  // No header, a short one, a wrong magic number.
  expectInvalid({}, "the SPIR-V of module m is not a SPIR-V binary (0 words; "
                    "expected at least 5 words starting with 0x07230203)");
  expectInvalid({0x07230203u, 0x00010300u},
                "words; expected at least 5 words starting with 0x07230203");
  std::vector<uint32_t> spirv = moduleDeclaring({kFloat64});
  spirv[0] = 0x03022307u; // byte-swapped
  expectInvalid(spirv, "is not a SPIR-V binary");

  // Word count 0: the scan would never advance.
  spirv = moduleDeclaring({kFloat64});
  spirv[7] = kOpCapability;
  expectInvalid(spirv, "the SPIR-V of module m has a malformed instruction "
                        "at word 7 (opcode 17, word count 0, 5 words left)");
  // The last instruction runs past the end.
  spirv = moduleDeclaring({kFloat64});
  spirv[spirv.size() - 3] = (9u << 16) | kOpMemoryModel;
  expectInvalid(spirv, "has a malformed instruction at word 9 (opcode 14, "
                        "word count 9, 3 words left)");
  // Past the end by a huge count, and cut in the middle of an OpCapability.
  spirv = moduleDeclaring({kFloat64});
  spirv[5] = (0xffffu << 16) | kOpCapability;
  expectInvalid(spirv, "word count 65535");
  spirv = moduleDeclaring({kFloat64});
  spirv.resize(8);
  expectInvalid(spirv, "has a malformed instruction at word 7");
  // An OpCapability needs exactly its one operand.
  spirv = moduleDeclaring({kFloat64});
  spirv[7] = (1u << 16) | kOpCapability;
  expectInvalid(spirv, "has a malformed instruction at word 7");
  spirv = moduleDeclaring({});
  spirv.insert(spirv.begin() + 5, {(3u << 16) | kOpCapability, kInt64, 0});
  expectInvalid(spirv, "has a malformed instruction at word 5");
}

//===----------------------------------------------------------------------===//
// Shader features of the device
//===----------------------------------------------------------------------===//

TEST_F(VulkanTest, ReportsShaderFeatures) {
  const DeviceInfo &info = context->info();
  std::vector<DeviceInfo> devices;
  ASSERT_TRUE(Context::listDevices(devices).ok());
  ASSERT_LT(info.index, devices.size());
  const DeviceInfo &listed = devices[info.index];
  EXPECT_EQ(listed.shaderInt64, info.shaderInt64);
  EXPECT_EQ(listed.shaderFloat64, info.shaderFloat64);
  EXPECT_EQ(listed.shaderBufferFloat32AtomicAdd,
            info.shaderBufferFloat32AtomicAdd);
  EXPECT_EQ(listed.shaderBufferFloat64AtomicAdd,
            info.shaderBufferFloat64AtomicAdd);
  // Mesa's lavapipe has had 64-bit integers and floats and
  // VK_EXT_shader_atomic_float's buffer f32 add since Mesa 21.
  if (info.name.find("llvmpipe") != std::string::npos) {
    EXPECT_TRUE(info.shaderInt64);
    EXPECT_TRUE(info.shaderFloat64);
    EXPECT_TRUE(info.shaderBufferFloat32AtomicAdd);
  }
  // The device's own features pass the check for every capability it has.
  std::vector<uint32_t> capabilities;
  if (info.shaderInt64)
    capabilities.push_back(kInt64);
  if (info.shaderFloat64)
    capabilities.push_back(kFloat64);
  if (info.shaderBufferFloat32AtomicAdd)
    capabilities.push_back(kAtomicFloat32AddEXT);
  if (info.shaderBufferFloat64AtomicAdd)
    capabilities.push_back(kAtomicFloat64AddEXT);
  Status status =
      checkShaderCapabilities(moduleDeclaring(capabilities), info, "m");
  EXPECT_TRUE(status.ok()) << status.describe();
  std::printf("device %s: shaderInt64 %d shaderFloat64 %d "
              "shaderBufferFloat32AtomicAdd %d shaderBufferFloat64AtomicAdd "
              "%d\n",
              info.name.c_str(), info.shaderInt64, info.shaderFloat64,
              info.shaderBufferFloat32AtomicAdd,
              info.shaderBufferFloat64AtomicAdd);
}

// Assembled with `spirv-as --target-env vulkan1.1` (and checked with
// spirv-val) from:
// ; sum[0] += 1.0 (atomic f32 add) and halves[i] = double(i) * 0.5 for
// ; i = GlobalInvocationId.x bounded by the length of halves.
// ; Bindings: 0 sum (f32), 1 halves (f64).
//                OpCapability Shader
//                OpCapability Float64
//                OpCapability AtomicFloat32AddEXT
//                OpExtension "SPV_EXT_shader_atomic_float_add"
//                OpMemoryModel Logical GLSL450
//                OpEntryPoint GLCompute %main "f64_atomic" %gid
//                OpExecutionMode %main LocalSize 32 1 1
//                OpDecorate %gid BuiltIn GlobalInvocationId
//                OpDecorate %rtf ArrayStride 4
//                OpMemberDecorate %SumBuf 0 Offset 0
//                OpDecorate %SumBuf Block
//                OpDecorate %rtd ArrayStride 8
//                OpMemberDecorate %HalfBuf 0 Offset 0
//                OpDecorate %HalfBuf Block
//                OpDecorate %sum DescriptorSet 0
//                OpDecorate %sum Binding 0
//                OpDecorate %halves DescriptorSet 0
//                OpDecorate %halves Binding 1
//        %void = OpTypeVoid
//          %fn = OpTypeFunction %void
//        %bool = OpTypeBool
//        %uint = OpTypeInt 32 0
//       %float = OpTypeFloat 32
//      %double = OpTypeFloat 64
//      %v3uint = OpTypeVector %uint 3
//   %ptr_in_v3 = OpTypePointer Input %v3uint
//         %gid = OpVariable %ptr_in_v3 Input
//         %rtf = OpTypeRuntimeArray %float
//      %SumBuf = OpTypeStruct %rtf
//     %ptr_sum = OpTypePointer StorageBuffer %SumBuf
//         %sum = OpVariable %ptr_sum StorageBuffer
//         %rtd = OpTypeRuntimeArray %double
//     %HalfBuf = OpTypeStruct %rtd
//    %ptr_half = OpTypePointer StorageBuffer %HalfBuf
//      %halves = OpVariable %ptr_half StorageBuffer
//   %ptr_float = OpTypePointer StorageBuffer %float
//  %ptr_double = OpTypePointer StorageBuffer %double
//      %uint_0 = OpConstant %uint 0
//      %uint_1 = OpConstant %uint 1
//     %float_1 = OpConstant %float 1
//   %double_h = OpConstant %double 0.5
//        %main = OpFunction %void None %fn
//       %entry = OpLabel
//           %g = OpLoad %v3uint %gid
//           %i = OpCompositeExtract %uint %g 0
//           %n = OpArrayLength %uint %halves 0
//          %ok = OpULessThan %bool %i %n
//                OpSelectionMerge %end None
//                OpBranchConditional %ok %body %end
//        %body = OpLabel
//          %ps = OpAccessChain %ptr_float %sum %uint_0 %uint_0
//         %old = OpAtomicFAddEXT %float %ps %uint_1 %uint_0 %float_1
//           %d = OpConvertUToF %double %i
//           %h = OpFMul %double %d %double_h
//          %ph = OpAccessChain %ptr_double %halves %uint_0 %i
//                OpStore %ph %h
//                OpBranch %end
//         %end = OpLabel
//                OpReturn
//                OpFunctionEnd
const uint32_t kF64AtomicShader[] = {
    0x07230203, 0x00010300, 0x00070000, 0x00000025, 0x00000000, 0x00020011,
    0x00000001, 0x00020011, 0x0000000a, 0x00020011, 0x00001791, 0x0009000a,
    0x5f565053, 0x5f545845, 0x64616873, 0x615f7265, 0x696d6f74, 0x6c665f63,
    0x5f74616f, 0x00646461, 0x0003000e, 0x00000000, 0x00000001, 0x0007000f,
    0x00000005, 0x00000001, 0x5f343666, 0x6d6f7461, 0x00006369, 0x00000002,
    0x00060010, 0x00000001, 0x00000011, 0x00000020, 0x00000001, 0x00000001,
    0x00040047, 0x00000002, 0x0000000b, 0x0000001c, 0x00040047, 0x00000003,
    0x00000006, 0x00000004, 0x00050048, 0x00000004, 0x00000000, 0x00000023,
    0x00000000, 0x00030047, 0x00000004, 0x00000002, 0x00040047, 0x00000005,
    0x00000006, 0x00000008, 0x00050048, 0x00000006, 0x00000000, 0x00000023,
    0x00000000, 0x00030047, 0x00000006, 0x00000002, 0x00040047, 0x00000007,
    0x00000022, 0x00000000, 0x00040047, 0x00000007, 0x00000021, 0x00000000,
    0x00040047, 0x00000008, 0x00000022, 0x00000000, 0x00040047, 0x00000008,
    0x00000021, 0x00000001, 0x00020013, 0x00000009, 0x00030021, 0x0000000a,
    0x00000009, 0x00020014, 0x0000000b, 0x00040015, 0x0000000c, 0x00000020,
    0x00000000, 0x00030016, 0x0000000d, 0x00000020, 0x00030016, 0x0000000e,
    0x00000040, 0x00040017, 0x0000000f, 0x0000000c, 0x00000003, 0x00040020,
    0x00000010, 0x00000001, 0x0000000f, 0x0004003b, 0x00000010, 0x00000002,
    0x00000001, 0x0003001d, 0x00000003, 0x0000000d, 0x0003001e, 0x00000004,
    0x00000003, 0x00040020, 0x00000011, 0x0000000c, 0x00000004, 0x0004003b,
    0x00000011, 0x00000007, 0x0000000c, 0x0003001d, 0x00000005, 0x0000000e,
    0x0003001e, 0x00000006, 0x00000005, 0x00040020, 0x00000012, 0x0000000c,
    0x00000006, 0x0004003b, 0x00000012, 0x00000008, 0x0000000c, 0x00040020,
    0x00000013, 0x0000000c, 0x0000000d, 0x00040020, 0x00000014, 0x0000000c,
    0x0000000e, 0x0004002b, 0x0000000c, 0x00000015, 0x00000000, 0x0004002b,
    0x0000000c, 0x00000016, 0x00000001, 0x0004002b, 0x0000000d, 0x00000017,
    0x3f800000, 0x0005002b, 0x0000000e, 0x00000018, 0x00000000, 0x3fe00000,
    0x00050036, 0x00000009, 0x00000001, 0x00000000, 0x0000000a, 0x000200f8,
    0x00000019, 0x0004003d, 0x0000000f, 0x0000001a, 0x00000002, 0x00050051,
    0x0000000c, 0x0000001b, 0x0000001a, 0x00000000, 0x00050044, 0x0000000c,
    0x0000001c, 0x00000008, 0x00000000, 0x000500b0, 0x0000000b, 0x0000001d,
    0x0000001b, 0x0000001c, 0x000300f7, 0x0000001e, 0x00000000, 0x000400fa,
    0x0000001d, 0x0000001f, 0x0000001e, 0x000200f8, 0x0000001f, 0x00060041,
    0x00000013, 0x00000020, 0x00000007, 0x00000015, 0x00000015, 0x00071793,
    0x0000000d, 0x00000021, 0x00000020, 0x00000016, 0x00000015, 0x00000017,
    0x00040070, 0x0000000e, 0x00000022, 0x0000001b, 0x00050085, 0x0000000e,
    0x00000023, 0x00000022, 0x00000018, 0x00060041, 0x00000014, 0x00000024,
    0x00000008, 0x00000015, 0x0000001b, 0x0003003e, 0x00000024, 0x00000023,
    0x000200f9, 0x0000001e, 0x000200f8, 0x0000001e, 0x000100fd, 0x00010038,
};

// Word 10 is the operand of OpCapability AtomicFloat32AddEXT.
constexpr size_t kF64AtomicSecondCapability = 10;

TEST_F(VulkanTest, Float64AndAtomicFloatAddRun) {
  const DeviceInfo &info = context->info();
  if (!info.shaderFloat64 || !info.shaderBufferFloat32AtomicAdd)
    GTEST_SKIP() << info.name << " lacks shaderFloat64 or "
                 << "shaderBufferFloat32AtomicAdd";
  std::vector<uint32_t> shader(std::begin(kF64AtomicShader),
                               std::end(kF64AtomicShader));
  ASSERT_EQ(shader[kF64AtomicSecondCapability], kAtomicFloat32AddEXT);
  ASSERT_TRUE(checkShaderCapabilities(shader, info, "f64_atomic").ok());
  std::unique_ptr<Kernel> k;
  Status status = context->createKernel(shader, "f64_atomic", 2, 0, k);
  ASSERT_TRUE(status.ok()) << status.describe();
  const uint32_t n = 100;
  auto sum = buffer(4), halves = buffer(n * 8);
  ASSERT_TRUE(sum && halves && k);
  float zero = 0;
  std::memcpy(sum->data(), &zero, 4);
  std::memset(halves->data(), 0xff, n * 8);
  auto s = stream();
  Buffer *bindings[] = {sum.get(), halves.get()};
  const uint64_t groups[3] = {(n + 31) / 32, 1, 1};
  s->dispatch(*k, bindings, {}, groups);
  status = s->submitAndWait();
  ASSERT_TRUE(status.ok()) << status.describe();
  float total = 0;
  std::memcpy(&total, sum->data(), 4);
  EXPECT_EQ(total, float(n)); // one atomic add of 1.0 per invocation < n
  const double *out = static_cast<const double *>(halves->data());
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], i * 0.5) << "at " << i;
}

// The first of the four checked capabilities whose feature `info` lacks, or
// 0; `feature` gets the feature's name.
uint32_t lackedCapability(const DeviceInfo &info, std::string &feature) {
  const std::pair<bool, std::pair<uint32_t, const char *>> checked[] = {
      {info.shaderInt64, {kInt64, "shaderInt64"}},
      {info.shaderFloat64, {kFloat64, "shaderFloat64"}},
      {info.shaderBufferFloat32AtomicAdd,
       {kAtomicFloat32AddEXT, "shaderBufferFloat32AtomicAdd"}},
      {info.shaderBufferFloat64AtomicAdd,
       {kAtomicFloat64AddEXT, "shaderBufferFloat64AtomicAdd"}},
  };
  for (const auto &[has, capability] : checked)
    if (!has) {
      feature = capability.second;
      return capability.first;
    }
  return 0;
}

// Checked before any Vulkan call, so it needs no device.
TEST(VulkanDeviceAdapter, WorkgroupSizeZeroIsAnError) {
  VulkanProgram program;
  program.workgroupSize = 0;
  std::unique_ptr<VulkanDevice> device;
  Status status = VulkanDevice::create(std::move(program), device);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(), "vulkan device: workgroup size 0");
  EXPECT_FALSE(device);
}

TEST_F(VulkanTest, DeviceAdapterNamesAMissingFeature) {
  std::string feature;
  uint32_t capability = lackedCapability(context->info(), feature);
  if (capability == 0)
    GTEST_SKIP() << context->info().name << " has all four shader features";
  VulkanProgram program;
  program.spirv.assign(std::begin(kF64AtomicShader),
                       std::end(kF64AtomicShader));
  program.spirv[kF64AtomicSecondCapability] = capability;
  program.entryPoints = {"f64_atomic"};
  std::unique_ptr<VulkanDevice> device;
  Status status = VulkanDevice::create(std::move(program), device);
  EXPECT_EQ(status.kind(), ErrorKind::DeviceUnavailable);
  EXPECT_NE(status.message().find("vulkan device '" + context->info().name +
                                  "' lacks " + feature +
                                  ", which the kernels of the program use"),
            std::string::npos)
      << status.message();
  EXPECT_FALSE(device);
}

TEST_F(VulkanTest, LaunchAbiMissingFeatureExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string feature;
  uint32_t capability = lackedCapability(context->info(), feature);
  if (capability == 0)
    GTEST_SKIP() << context->info().name << " has all four shader features";
  static std::vector<uint32_t> shader(std::begin(kF64AtomicShader),
                                      std::end(kF64AtomicShader));
  shader[kF64AtomicSecondCapability] = capability;
  std::vector<float> sum(1, 0);
  std::vector<double> halves(32, 0);
  // Exit code 3: no device (exit_codes.h), as for DeviceUnavailable.
  EXPECT_EXIT(
      {
        sluice_rt_vk_launch_begin(shader.data(), shader.size(), "f64_atomic");
        sluice_rt_vk_launch_arg(sum.data(), 4, SLUICE_RT_VK_READ |
                                                   SLUICE_RT_VK_WRITE);
        sluice_rt_vk_launch_arg(halves.data(), 32 * 8, SLUICE_RT_VK_WRITE);
        sluice_rt_vk_launch_end(1, 1, 1, 32, 1, 1);
      },
      ::testing::ExitedWithCode(3),
      "sluice: vulkan: device unavailable: vulkan device '.*' lacks " +
          feature +
          ", which the kernels of the module of kernel @f64_atomic use");
}

} // namespace
