//===- vulkan_fault_test.cpp - Vulkan driver and loader failures ----------===//
//
// The errors a broken loader or a failing driver produces, which lavapipe
// never does: this executable's runpath holds the fake loader of
// vulkan/fake_loader.cpp, which forwards to the real one and injects what
// SLUICE_FAKE_VULKAN names. The launch ABI's failures exit the process and
// run as death tests; so do the loader-open failures, whose child processes
// find another libvulkan.so.1 first on LD_LIBRARY_PATH.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/vulkan/vulkan.h"
#include "sluice/runtime/device/vulkan/vulkan_launch.h"
#include "sluice/runtime/exit_codes.h"

#include "vulkan_test_shaders.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace sluice::runtime;
using namespace sluice::runtime::vulkan;

namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  std::string name_, old_;
  bool had_ = false;
};

// The device the unfaulted loader offers, or a skip when there is none.
class VulkanFaultTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::unique_ptr<Context> context;
    Status status = Context::create(context);
    if (!status.ok() && status.kind() == ErrorKind::DeviceUnavailable)
      GTEST_SKIP() << "no Vulkan device: " << status.describe();
    ASSERT_TRUE(status.ok()) << status.describe();
    deviceName = context->info().name;
    deviceType = context->info().type;
  }

  // Context::create with SLUICE_FAKE_VULKAN = `faults`.
  Status createWith(const std::string &faults,
                    std::unique_ptr<Context> &context) {
    ScopedEnv env("SLUICE_FAKE_VULKAN", faults);
    return Context::create(context);
  }

  std::string deviceName, deviceType;
};

void expectError(const Status &status, ErrorKind kind,
                 const std::string &message) {
  EXPECT_EQ(status.kind(), kind) << status.describe();
  EXPECT_EQ(status.message(), message);
}

//===----------------------------------------------------------------------===//
// The loader and its entry points.
//===----------------------------------------------------------------------===//

TEST_F(VulkanFaultTest, LoaderWithoutCreateInstance) {
  std::unique_ptr<Context> context;
  expectError(createWith("hide:vkCreateInstance", context),
              ErrorKind::DeviceUnavailable,
              "the Vulkan loader has no vkCreateInstance");
  EXPECT_FALSE(context);
}

TEST_F(VulkanFaultTest, LoaderOfVulkan10) {
  std::unique_ptr<Context> context;
  expectError(createWith("hide:vkEnumerateInstanceVersion", context),
              ErrorKind::DeviceUnavailable,
              "the Vulkan loader supports only Vulkan 1.0; Sluice needs 1.1");
}

TEST_F(VulkanFaultTest, LoaderWithoutAnInstanceFunction) {
  std::unique_ptr<Context> context;
  expectError(createWith("hide:vkGetPhysicalDeviceFeatures2", context),
              ErrorKind::DeviceUnavailable,
              "the Vulkan loader has no vkGetPhysicalDeviceFeatures2");
}

TEST_F(VulkanFaultTest, DeviceWithoutDestroyDevice) {
  std::unique_ptr<Context> context;
  expectError(createWith("hide:vkDestroyDevice", context),
              ErrorKind::DeviceError,
              "vkGetDeviceProcAddr returned no vkDestroyDevice");
  EXPECT_FALSE(context);
}

TEST_F(VulkanFaultTest, DeviceWithoutADeviceFunction) {
  std::unique_ptr<Context> context;
  expectError(createWith("hide:vkCmdDispatchBase", context),
              ErrorKind::DeviceError,
              "vkGetDeviceProcAddr returned no vkCmdDispatchBase");
}

// The child process finds another libvulkan.so.1 before the fake loader:
// LD_LIBRARY_PATH comes before the runpath, and it applies at the child's
// exec. Its statement prints what Context::create says and exits with the
// code a tool would.
void createAndExit() {
  std::unique_ptr<Context> context;
  Status status = Context::create(context);
  std::fprintf(stderr, "%s\n", status.describe().c_str());
  std::exit(exitCodeFor(status));
}

TEST(VulkanLoaderFault, UnloadableLoader) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ScopedEnv path("LD_LIBRARY_PATH", SLUICE_FAKE_VULKAN_UNLOADABLE_DIR);
  EXPECT_EXIT(createAndExit(), ::testing::ExitedWithCode(kExitNoDevice),
              "device unavailable: cannot open the Vulkan loader "
              "libvulkan.so.1 \\(.+\\); install libvulkan1 and a driver "
              "such as mesa-vulkan-drivers");
}

TEST(VulkanLoaderFault, LoaderWithoutGetInstanceProcAddr) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ScopedEnv path("LD_LIBRARY_PATH", SLUICE_FAKE_VULKAN_EMPTY_DIR);
  EXPECT_EXIT(createAndExit(), ::testing::ExitedWithCode(kExitNoDevice),
              "device unavailable: the Vulkan loader libvulkan.so.1 does not "
              "export vkGetInstanceProcAddr");
}

//===----------------------------------------------------------------------===//
// Device selection.
//===----------------------------------------------------------------------===//

TEST_F(VulkanFaultTest, NoPhysicalDevice) {
  std::unique_ptr<Context> context;
  expectError(createWith("devices:0", context), ErrorKind::DeviceUnavailable,
              "the Vulkan loader reports no physical device; install a "
              "driver such as mesa-vulkan-drivers (lavapipe runs on the CPU)");
  std::vector<DeviceInfo> devices;
  ScopedEnv env("SLUICE_FAKE_VULKAN", "devices:0");
  ASSERT_TRUE(Context::listDevices(devices).ok());
  EXPECT_TRUE(devices.empty());
}

TEST_F(VulkanFaultTest, NoComputeQueue) {
  std::vector<DeviceInfo> devices;
  ASSERT_TRUE(Context::listDevices(devices).ok());
  std::string list;
  for (const DeviceInfo &info : devices)
    list += "\n  #" + std::to_string(info.index) + " " + info.name + " (" +
            info.type + ")";
  std::unique_ptr<Context> context;
  expectError(createWith("no-compute", context), ErrorKind::DeviceUnavailable,
              "no Vulkan device has a compute queue; devices:" + list);

  ScopedEnv device("SLUICE_VULKAN_DEVICE", "0");
  expectError(createWith("no-compute", context), ErrorKind::DeviceUnavailable,
              "Vulkan device #0 " + devices[0].name +
                  " has no compute queue family");
}

TEST_F(VulkanFaultTest, Vulkan10Device) {
  std::unique_ptr<Context> context;
  expectError(createWith("api:1.0", context), ErrorKind::DeviceUnavailable,
              "Vulkan device " + deviceName +
                  " supports only Vulkan 1.0; Sluice needs 1.1");
}

//===----------------------------------------------------------------------===//
// Buffers, kernels and streams: VkResult failures are DeviceError, running
// out of memory is OutOfMemory.
//===----------------------------------------------------------------------===//

TEST_F(VulkanFaultTest, FailedCreateBufferIsADeviceError) {
  std::unique_ptr<Context> context;
  ASSERT_TRUE(createWith("", context).ok());
  ScopedEnv env("SLUICE_FAKE_VULKAN", "fail:vkCreateBuffer=-3");
  std::unique_ptr<Buffer> buffer;
  expectError(context->createBuffer(64, Placement::Device, buffer),
              ErrorKind::DeviceError,
              "vkCreateBuffer failed with VkResult -3");
  EXPECT_FALSE(buffer);
}

TEST_F(VulkanFaultTest, ExhaustedMemoryIsOutOfMemory) {
  std::unique_ptr<Context> context;
  ASSERT_TRUE(createWith("", context).ok());
  std::unique_ptr<Buffer> buffer;
  {
    ScopedEnv env("SLUICE_FAKE_VULKAN", "fail:vkAllocateMemory=-2");
    // 1001 bytes round up to 1004.
    expectError(context->createBuffer(1001, Placement::Host, buffer),
                ErrorKind::OutOfMemory,
                "vkAllocateMemory of 1004 bytes failed with VkResult -2");
  }
  // Any other failure of the allocation is the driver's.
  ScopedEnv env("SLUICE_FAKE_VULKAN", "fail:vkAllocateMemory=-4");
  expectError(context->createBuffer(64, Placement::Device, buffer),
              ErrorKind::DeviceError,
              "vkAllocateMemory failed with VkResult -4");
}

TEST_F(VulkanFaultTest, NoMemoryTypeForABuffer) {
  std::unique_ptr<Context> context;
  ASSERT_TRUE(createWith("", context).ok());
  ScopedEnv env("SLUICE_FAKE_VULKAN", "no-memory-types");
  std::unique_ptr<Buffer> buffer;
  expectError(context->createBuffer(64, Placement::Host, buffer),
              ErrorKind::Unsupported,
              "Vulkan device " + deviceName +
                  " has no host-visible, host-coherent memory type for a "
                  "storage buffer");
  expectError(context->createBuffer(64, Placement::DeviceOnly, buffer),
              ErrorKind::Unsupported,
              "Vulkan device " + deviceName +
                  " has no memory type for a storage buffer");
}

TEST_F(VulkanFaultTest, KernelBeyondTheStorageBufferLimit) {
  std::unique_ptr<Context> context;
  ASSERT_TRUE(createWith("max-storage-buffers:1", context).ok());
  std::unique_ptr<Kernel> kernel;
  expectError(context->createKernel(loadShader("triple_plus_one"),
                                    "triple_plus_one", 2, 0, kernel),
              ErrorKind::Unsupported,
              "kernel 'triple_plus_one' uses 2 storage buffers; the device "
              "allows 1");
}

TEST_F(VulkanFaultTest, LostDeviceBreaksTheStream) {
  std::unique_ptr<Context> context;
  ASSERT_TRUE(createWith("", context).ok());
  std::unique_ptr<Buffer> a, b;
  ASSERT_TRUE(context->createBuffer(64, Placement::Host, a).ok());
  ASSERT_TRUE(context->createBuffer(64, Placement::Host, b).ok());
  std::unique_ptr<Stream> stream;
  ASSERT_TRUE(context->createStream(stream).ok());
  ScopedEnv env("SLUICE_FAKE_VULKAN", "fail:vkWaitForFences=-4");
  stream->copy(*a, 0, *b, 0, 64);
  expectError(stream->submitAndWait(), ErrorKind::DeviceError,
              "vkWaitForFences failed with VkResult -4");
  // Nothing more runs on it, whatever the driver says now.
  unsetenv("SLUICE_FAKE_VULKAN");
  stream->copy(*a, 0, *b, 0, 64);
  expectError(stream->submitAndWait(), ErrorKind::DeviceError,
              "the stream is unusable after vkWaitForFences failed");
}

//===----------------------------------------------------------------------===//
// The launch ABI exits with the failure.
//===----------------------------------------------------------------------===//

const std::vector<uint32_t> &addScalarShader() {
  static const std::vector<uint32_t> shader = loadShader("add_scalar");
  return shader;
}

// add_scalar on 64 words, with the access flags of its array.
void launchAddScalar(uint64_t access) {
  static std::vector<uint32_t> data(64, 1);
  const std::vector<uint32_t> &shader = addScalarShader();
  sluice_rt_vk_launch_begin(shader.data(), shader.size(), "add_scalar");
  sluice_rt_vk_launch_arg(data.data(), data.size() * 4, access);
  sluice_rt_vk_launch_scalar(1, 4);
  sluice_rt_vk_launch_end(2, 1, 1, 32, 1, 1);
  sluice_rt_vk_synchronize();
}

constexpr uint64_t kReadWrite = SLUICE_RT_VK_READ | SLUICE_RT_VK_WRITE;

TEST_F(VulkanFaultTest, LaunchAbiKernelFailureExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("SLUICE_FAKE_VULKAN", "fail:vkCreateShaderModule=-3", 1);
        launchAddScalar(kReadWrite);
      },
      ::testing::ExitedWithCode(kExitFailure),
      "sluice: vulkan: cannot create kernel @add_scalar: device error: "
      "vkCreateShaderModule failed with VkResult -3");
}

TEST_F(VulkanFaultTest, LaunchAbiBufferFailureExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("SLUICE_FAKE_VULKAN", "fail:vkCreateBuffer=-2", 1);
        launchAddScalar(kReadWrite);
      },
      ::testing::ExitedWithCode(kExitFailure),
      "sluice: vulkan: cannot create a [a-z]+ buffer of [0-9]+ bytes: device "
      "error: vkCreateBuffer failed with VkResult -2");
}

TEST_F(VulkanFaultTest, LaunchAbiStreamFailureExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // A launch that waits records on the thread's stream, a resident one on
  // the batch stream.
  for (uint64_t access : {kReadWrite, kReadWrite | SLUICE_RT_VK_RESIDENT})
    EXPECT_EXIT(
        {
          setenv("SLUICE_FAKE_VULKAN", "fail:vkCreateCommandPool=-1", 1);
          launchAddScalar(access);
        },
        ::testing::ExitedWithCode(kExitFailure),
        "sluice: vulkan: cannot create a stream: device error: "
        "vkCreateCommandPool failed with VkResult -1")
        << "access " << access;
}

TEST_F(VulkanFaultTest, LaunchAbiScratchBeyondTheStorageRangeExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<uint32_t> shader = loadShader("scratch_private");
  EXPECT_EXIT(
      {
        setenv("SLUICE_FAKE_VULKAN", "max-storage-range:1000", 1);
        std::vector<uint32_t> out(64, 0);
        sluice_rt_vk_launch_begin(shader.data(), shader.size(),
                                  "scratch_private");
        sluice_rt_vk_launch_arg(out.data(), out.size() * 4,
                                SLUICE_RT_VK_WRITE);
        sluice_rt_vk_launch_scratch(16);
        sluice_rt_vk_launch_end(2, 1, 1, 32, 1, 1);
      },
      ::testing::ExitedWithCode(kExitFailure),
      std::string("sluice: vulkan: kernel @scratch_private needs 1024 bytes "
                  "of scratch \\(16 bytes per invocation \\* 64 "
                  "invocations\\) ") +
          "but the device binds at most" + " 1000 bytes per storage buffer");
}

} // namespace
