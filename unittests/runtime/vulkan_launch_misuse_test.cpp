//===- vulkan_launch_misuse_test.cpp - The Vulkan wrapper's fatal errors --===//
//
// Misuse of the host-launch Vulkan wrapper's call sequence, bad arguments and
// a SPIR-V binary it cannot read each stop the process with exit code 1 and
// a message naming the call or the kernel (vulkan_launch.h).
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/vulkan/vulkan.h"
#include "sluice/runtime/device/vulkan/vulkan_launch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

namespace {

namespace rt = sluice::runtime;

const uint32_t kModuleWords[5] = {0x07230203u, 0x00010300u, 0, 8, 0};
constexpr int kFatal = 1; // kExitFailure

TEST(VulkanLaunchDeathTest, CallSequenceMisuseNamesTheCall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(sluice_rt_vk_launch_arg(nullptr, 0, 0),
              testing::ExitedWithCode(kFatal),
              "sluice: vulkan: sluice_rt_vk_launch_arg called without "
              "sluice_rt_vk_launch_begin");
  EXPECT_EXIT(sluice_rt_vk_launch_begin(nullptr, 5, "k"),
              testing::ExitedWithCode(kFatal),
              "sluice: vulkan: sluice_rt_vk_launch_begin with a null SPIR-V "
              "or entry name");
  EXPECT_EXIT(
      {
        sluice_rt_vk_launch_begin(kModuleWords, 5, "first");
        sluice_rt_vk_launch_begin(kModuleWords, 5, "second");
      },
      testing::ExitedWithCode(kFatal),
      "sluice_rt_vk_launch_begin for @second while @first is still open");
}

TEST(VulkanLaunchDeathTest, BadArgumentsNameTheKernelAndArgument) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        sluice_rt_vk_launch_begin(kModuleWords, 5, "k");
        sluice_rt_vk_launch_arg(nullptr, 16, SLUICE_RT_VK_READ);
      },
      testing::ExitedWithCode(kFatal),
      "kernel @k argument 0 is a null memref of 16 bytes");
  EXPECT_EXIT(
      {
        sluice_rt_vk_launch_begin(kModuleWords, 5, "k");
        sluice_rt_vk_launch_scalar(7, 4);
        sluice_rt_vk_launch_scalar(7, 3);
      },
      testing::ExitedWithCode(kFatal),
      "kernel @k scalar argument 1 has 3 bytes; expected 1, 2, 4 or 8");
}

// The wrapper reads the kernel's LocalSize from the binary before it creates
// the pipeline, which needs the device.
TEST(VulkanLaunchDeathTest, UnreadableSpirvNamesTheKernel) {
  std::unique_ptr<rt::vulkan::Context> context;
  rt::Status status = rt::vulkan::Context::create(context);
  if (!status.ok() && status.kind() == rt::ErrorKind::DeviceUnavailable)
    GTEST_SKIP() << "no Vulkan device: " << status.describe();
  ASSERT_TRUE(status.ok()) << status.describe();
  context.reset();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  static const uint32_t notSpirv[5] = {0x12345678u, 0, 0, 0, 0};
  // A header, then an instruction of word count 0 (it cannot advance).
  static const uint32_t zeroWordCount[6] = {0x07230203u, 0x00010300u, 0, 8,
                                            0,           0x0000000fu};
  // A header, then an instruction of 4 words that runs past the binary.
  static const uint32_t pastTheEnd[6] = {0x07230203u, 0x00010300u, 0,
                                         8,           0,           0x0004000fu};
  struct Case {
    const uint32_t *words;
    uint64_t count;
    const char *message;
  };
  for (const Case &bad :
       {Case{notSpirv, 5, "kernel @k: the SPIR-V binary has no valid header"},
        Case{zeroWordCount, 6,
             "kernel @k: malformed SPIR-V instruction at word 5"},
        Case{pastTheEnd, 6,
             "kernel @k: malformed SPIR-V instruction at word 5"}})
    EXPECT_EXIT(
        {
          sluice_rt_vk_launch_begin(bad.words, bad.count, "k");
          sluice_rt_vk_launch_end(1, 1, 1, 1, 1, 1);
        },
        testing::ExitedWithCode(kFatal), bad.message)
        << bad.message;
}

} // namespace
