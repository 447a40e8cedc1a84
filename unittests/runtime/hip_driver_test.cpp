//===- hip_driver_test.cpp - The hip backend without (and with) a GPU -----===//
//
// Platform selection and its errors (libraries pointed at paths that do not
// exist), the kernel parameter list against a hand derivation, NVRTC and
// the code-object cache (skipped without libnvrtc), the CUDA constants of
// hip_nvidia_abi.h against cuda.h (where the build found it), and on a
// machine with a GPU the host-launch wrapper's residency on a hand-written
// kernel (skipped with the reason otherwise).
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/hip/hip_device.h"
#include "sluice/runtime/device/hip/hip_driver.h"
#include "sluice/runtime/device/hip/hip_launch.h"
#include "sluice/runtime/launch/host_launch.h"

#include "hip_nvidia_abi.h"
#include "hip_resident.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#ifdef SLUICE_TEST_HAVE_CUDA_H
#include <cuda.h>
#include <nvrtc.h>
#endif

namespace sluice::runtime {
namespace {

using hip::DriverRequest;

DriverRequest nowhere() {
  DriverRequest request;
  request.cudaLibrary = "/nonexistent/libcuda.so.1";
  request.nvrtcLibrary = "/nonexistent/libnvrtc.so";
  request.amdLibrary = "/nonexistent/libamdhip64.so";
  request.hiprtcLibrary = "/nonexistent/libhiprtc.so";
  return request;
}

TEST(HipDriver, NoDriverNamesBothPlatformsAndWhatToInstall) {
  std::unique_ptr<hip::Driver> driver;
  Status status = hip::openDriver(nowhere(), driver);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(driver, nullptr);
  EXPECT_EQ(status.kind(), ErrorKind::DeviceUnavailable);
  const std::string &text = status.message();
  EXPECT_NE(text.find("hip device: no usable platform: NVIDIA: no CUDA "
                      "driver (libcuda.so.1 not found; tried "
                      "/nonexistent/libcuda.so.1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("install the NVIDIA driver"), std::string::npos) << text;
#ifdef SLUICE_TEST_HAVE_HIP_HEADERS
  EXPECT_NE(text.find("AMD: libamdhip64.so not found (tried "
                      "/nonexistent/libamdhip64.so"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("install libamdhip64-5 / ROCm"), std::string::npos)
      << text;
#endif
}

TEST(HipDriver, ForcedPlatformReportsOnlyItself) {
  DriverRequest request = nowhere();
  request.platform = "nvidia";
  std::unique_ptr<hip::Driver> driver;
  Status status = hip::openDriver(request, driver);
  ASSERT_EQ(status.kind(), ErrorKind::DeviceUnavailable);
  EXPECT_EQ(status.message().rfind("hip device: no CUDA driver (libcuda.so.1 "
                                   "not found",
                                   0),
            0u)
      << status.message();
  EXPECT_EQ(status.message().find("AMD"), std::string::npos);
  request.platform = "intel";
  status = hip::openDriver(request, driver);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(status.message().find("SLUICE_HIP_PLATFORM is 'intel'; expected "
                                  "'amd' or 'nvidia' (or unset: AMD when it "
                                  "has a device, else NVIDIA)"),
            std::string::npos)
      << status.message();
}

// This machine may have libamdhip64 (HIP 5.2) but no AMD GPU: the platform
// loads and says there is no device, or is missing; never a crash.
TEST(HipDriver, AmdWithoutGpuIsUnavailable) {
  DriverRequest request;
  request.platform = "amd";
  std::unique_ptr<hip::Driver> driver;
  Status status = hip::openDriver(request, driver);
  if (status.ok())
    GTEST_SKIP() << "an AMD GPU is present: " << driver->describe();
  EXPECT_EQ(status.kind(), ErrorKind::DeviceUnavailable) << status.describe();
  EXPECT_NE(status.message().find("hip device: "), std::string::npos);
}

TEST(HipDriver, SearchListsAndOverrides) {
  DriverRequest request;
  std::vector<std::string> cuda = hip::cudaLibraryCandidates(request);
  ASSERT_FALSE(cuda.empty());
  EXPECT_EQ(cuda.front(), "libcuda.so.1");
  EXPECT_NE(std::find(cuda.begin(), cuda.end(),
                      "/usr/local/nvidia/lib64/libcuda.so.1"),
            cuda.end());
  for (const std::string &name : cuda)
    EXPECT_EQ(name.find("stubs"), std::string::npos) << name;
  std::vector<std::string> nvrtc = hip::nvrtcLibraryCandidates(request);
  EXPECT_NE(std::find(nvrtc.begin(), nvrtc.end(),
                      "/usr/local/cuda/lib64/libnvrtc.so.13"),
            nvrtc.end());
  request.cudaLibrary = "/x/libcuda.so";
  EXPECT_EQ(hip::cudaLibraryCandidates(request),
            std::vector<std::string>{"/x/libcuda.so"});
}

TEST(HipDriver, CacheKeyChangesWithEveryInput) {
  using hip::Platform;
  std::string base = hip::cacheKey(Platform::Nvidia, "sm_90", {"-a"}, "src");
  EXPECT_EQ(base, hip::cacheKey(Platform::Nvidia, "sm_90", {"-a"}, "src"));
  EXPECT_EQ(base.rfind("nvidia-sm_90-", 0), 0u) << base;
  EXPECT_NE(base, hip::cacheKey(Platform::Amd, "sm_90", {"-a"}, "src"));
  EXPECT_NE(base, hip::cacheKey(Platform::Nvidia, "sm_80", {"-a"}, "src"));
  EXPECT_NE(base, hip::cacheKey(Platform::Nvidia, "sm_90", {"-b"}, "src"));
  EXPECT_NE(base, hip::cacheKey(Platform::Nvidia, "sm_90", {"-a"}, "src2"));
  // Parts cannot run into each other.
  EXPECT_NE(hip::cacheKey(Platform::Nvidia, "sm_90", {"-a", "b"}, "s"),
            hip::cacheKey(Platform::Nvidia, "sm_90", {"-ab"}, "s"));
}

#ifdef SLUICE_TEST_HAVE_CUDA_H
// hip_nvidia_abi.h declares what cuda.h and nvrtc.h define.
namespace abi = hip::cuda_abi;
static_assert(abi::CUDA_SUCCESS == CUDA_SUCCESS);
static_assert(abi::NVRTC_SUCCESS == NVRTC_SUCCESS);
static_assert(abi::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK ==
              CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(abi::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X ==
              CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
static_assert(abi::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
static_assert(abi::CU_DEVICE_ATTRIBUTE_WARP_SIZE == CU_DEVICE_ATTRIBUTE_WARP_SIZE);
static_assert(abi::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(abi::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH ==
              CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
static_assert(abi::kMemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);
static_assert(abi::kMemHostAllocDeviceMap == CU_MEMHOSTALLOC_DEVICEMAP);
static_assert(abi::CU_STREAM_NON_BLOCKING == CU_STREAM_NON_BLOCKING);
static_assert(abi::CU_EVENT_DEFAULT == CU_EVENT_DEFAULT);
static_assert(sizeof(abi::CUdeviceptr) == sizeof(CUdeviceptr));
static_assert(sizeof(abi::CUdevice) == sizeof(CUdevice));
static_assert(sizeof(abi::CUresult) == sizeof(CUresult));
#endif

//===----------------------------------------------------------------------===//
// The kernel parameter list
//===----------------------------------------------------------------------===//

class FakeBuffer final : public KernelBuffer {
public:
  explicit FakeBuffer(uint64_t address) : KernelBuffer(16), address(address) {}
  uint64_t address;
};

// One owner with two payload fields, one lane input, and four bindings:
// a dynamic buffer (-1), a static 2x3 buffer, a 2-D buffer (-1, 4) and a
// uniform. The parameters are, by KernelABI.h and the hip contract:
//   count; 10 fixed arrays, each pointer + its element count; the ring and
//   the two fields (pointer + count each); the input (pointer + count);
//   buffer 0: pointer + 7; buffer 1: pointer only; buffer 2: pointer + 5;
//   the uniform: pointer only; the extents: pointer + 4.
TEST(HipParameters, PackedLayoutMatchesTheHandDerivation) {
  std::vector<std::vector<uint32_t>> payloads = {{4, 8}};
  std::vector<std::vector<int64_t>> bindings = {{-1}, {2, 3}, {-1, 4}, {}};
  std::vector<KernelArgumentForm> forms =
      kernelArgumentForms(payloads, 1, bindings, /*megakernel=*/false);
  ASSERT_EQ(forms.size(), 10u + 3 + 1 + 4 + 1);
  // 1 + 10 * 2 + 3 * 2 + 2 + (2 + 1 + 2 + 1) + 2
  EXPECT_EQ(kernelParameterCount(forms), 37u);

  std::vector<std::unique_ptr<FakeBuffer>> buffers;
  std::vector<LaunchArgument> arguments;
  std::vector<int64_t> shape0 = {7}, shape1 = {2, 3}, shape2 = {5, 4},
                       uniform = {1}, extents = {4};
  for (size_t i = 0; i < forms.size(); ++i) {
    buffers.push_back(std::make_unique<FakeBuffer>(0x1000 * (i + 1)));
    LaunchArgument argument;
    argument.buffer = buffers.back().get();
    argument.elements = 100 + i;
    arguments.push_back(argument);
  }
  arguments[14].shape = shape0;
  arguments[15].shape = shape1;
  arguments[16].shape = shape2;
  arguments[17].shape = uniform;
  arguments[18].shape = extents;
  KernelParameters parameters;
  Status status = packKernelParameters(
      33, arguments, forms,
      [](const LaunchArgument &a) {
        return static_cast<const FakeBuffer *>(a.buffer)->address;
      },
      parameters);
  ASSERT_TRUE(status.ok()) << status.describe();
  std::vector<uint64_t> expected = {33};
  for (uint64_t i = 0; i < 14; ++i) // fixed arrays, ring, fields, input
    expected.insert(expected.end(), {0x1000 * (i + 1), 100 + i});
  expected.insert(expected.end(), {0xf000, 7});   // buffer 0
  expected.insert(expected.end(), {0x10000});     // buffer 1: static
  expected.insert(expected.end(), {0x11000, 5});  // buffer 2: dim 0
  expected.insert(expected.end(), {0x12000});     // the uniform
  expected.insert(expected.end(), {0x13000, 4});  // the extents
  EXPECT_EQ(parameters.values, expected);
  ASSERT_EQ(parameters.pointers.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(parameters.pointers[i], &parameters.values[i]);

  // The megakernel adds the machine words: pointer + count.
  std::vector<KernelArgumentForm> mega =
      kernelArgumentForms(payloads, 1, bindings, /*megakernel=*/true);
  EXPECT_EQ(kernelParameterCount(mega), 39u);
  // A rank mismatch is an error naming the argument.
  arguments[16].shape = shape0;
  arguments[16].shape = std::span<const int64_t>();
  forms[16] = {4, -1};
  status = packKernelParameters(33, arguments, forms,
                                [](const LaunchArgument &) { return 0ull; },
                                parameters);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_NE(status.message().find("argument 16 has rank 0 but its dimension "
                                  "1 is dynamic in the kernel"),
            std::string::npos)
      << status.message();
  status = packKernelParameters(1, std::span(arguments).first(3), forms,
                                [](const LaunchArgument &) { return 0ull; },
                                parameters);
  EXPECT_NE(status.message().find("3 launch arguments for a kernel of 19"),
            std::string::npos)
      << status.message();
}

//===----------------------------------------------------------------------===//
// NVRTC and the cache (no GPU needed)
//===----------------------------------------------------------------------===//

const char *kAxpySource = R"(
typedef long long int64_t;
extern "C" __global__ void sluice_axpy(float *x, int64_t n, float a,
                                       float *y, int64_t m) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && i < m)
    y[i] = a * x[i] + y[i];
}
)";

class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::string old_;
  bool had_ = false;
};

TEST(HipNvrtc, CompilesForSm90AndTheCacheHits) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("sluice-hip-cache-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  ScopedEnv cache("SLUICE_HIP_CACHE_DIR", dir.string());
  DriverRequest request;
  std::vector<char> first, second;
  hip::CacheCounts before = hip::cacheCounts();
  Status status =
      hip::compileForNvidia(request, kAxpySource, "axpy.hip", "sm_90", first);
  if (status.kind() == ErrorKind::DeviceUnavailable)
    GTEST_SKIP() << "no NVRTC: " << status.describe();
  ASSERT_TRUE(status.ok()) << status.describe();
  // An ELF CUBIN.
  ASSERT_GT(first.size(), 4u);
  EXPECT_EQ(std::string(first.data() + 1, 3), "ELF");
  hip::CacheCounts compiled = hip::cacheCounts();
  EXPECT_EQ(compiled.misses, before.misses + 1);
  EXPECT_EQ(compiled.writes, before.writes + 1);
  ASSERT_TRUE(
      hip::compileForNvidia(request, kAxpySource, "axpy.hip", "sm_90", second)
          .ok());
  EXPECT_EQ(hip::cacheCounts().hits, compiled.hits + 1);
  EXPECT_EQ(first, second);
  // A cache that cannot be written is not an error.
  {
    ScopedEnv unwritable("SLUICE_HIP_CACHE_DIR", "/proc/sluice-no-cache");
    std::vector<char> third;
    EXPECT_TRUE(hip::compileForNvidia(request, std::string(kAxpySource) + "\n",
                                      "axpy.hip", "sm_90", third)
                    .ok());
    EXPECT_EQ(third.size(), first.size());
  }
  std::filesystem::remove_all(dir);
}

TEST(HipNvrtc, MissingNvrtcSaysWhatToInstall) {
  std::vector<char> image;
  Status status = hip::compileForNvidia(nowhere(), kAxpySource, "axpy.hip",
                                        "sm_90", image);
  EXPECT_EQ(status.kind(), ErrorKind::DeviceUnavailable);
  EXPECT_NE(status.message().find(
                "hip device: NVRTC not found (tried /nonexistent/libnvrtc.so "
                "(No such file or directory); install the CUDA toolkit's "
                "libnvrtc, or set SLUICE_HIP_NVRTC_LIBRARY)"),
            std::string::npos)
      << status.message();
}

TEST(HipNvrtc, ACompileErrorReturnsTheLog) {
  ScopedEnv cache("SLUICE_HIP_CACHE_DIR", "");
  std::vector<char> image;
  Status status = hip::compileForNvidia(
      DriverRequest{}, "extern \"C\" __global__ void k() { undefined_name; }",
      "broken.hip", "sm_90", image);
  if (status.kind() == ErrorKind::DeviceUnavailable)
    GTEST_SKIP() << "no NVRTC: " << status.describe();
  EXPECT_EQ(status.kind(), ErrorKind::DeviceError);
  EXPECT_NE(status.message().find("hip device: NVRTC could not compile "
                                  "broken.hip"),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("undefined_name"), std::string::npos)
      << status.message();
}

//===----------------------------------------------------------------------===//
// On a GPU: the host-launch wrapper
//===----------------------------------------------------------------------===//

#define SLUICE_REQUIRE_HIP_DEVICE()                                            \
  do {                                                                         \
    hip::Driver *driver = nullptr;                                             \
    Status status = hip::processDriver(driver);                                \
    if (!driver)                                                               \
      GTEST_SKIP() << "no hip device: " << status.describe();                  \
  } while (0)

void launchAxpy(float *x, float *y, int64_t n, float a, uint64_t access) {
  sluice_rt_launch_begin(SLUICE_LAUNCH_HIP, kAxpySource,
                         std::strlen(kAxpySource) + 1, "sluice_axpy");
  sluice_rt_launch_memref(x, 0, 1, 4,
                          SLUICE_LAUNCH_READ | access | SLUICE_LAUNCH_DYNAMIC_DIM(0));
  sluice_rt_launch_memref_dim(n, 1);
  float scalar = a;
  uint32_t bits;
  std::memcpy(&bits, &scalar, 4);
  sluice_rt_launch_scalar(bits, 4);
  sluice_rt_launch_memref(y, 0, 1, 4,
                          SLUICE_LAUNCH_READ | SLUICE_LAUNCH_WRITE | access |
                              SLUICE_LAUNCH_DYNAMIC_DIM(0));
  sluice_rt_launch_memref_dim(n, 1);
  sluice_rt_launch_end(uint64_t(n + 63) / 64, 1, 1, 64, 1, 1);
}

TEST(HipLaunch, AxpyCopiesInAndOut) {
  SLUICE_REQUIRE_HIP_DEVICE();
  const int64_t n = 1000;
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i)
    x[i] = float(i), y[i] = 1.0f;
  launchAxpy(x.data(), y.data(), n, 2.0f, 0);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], 2.0f * float(i) + 1.0f) << i; // exact: small integers
}

TEST(HipLaunch, ResidentLaunchesDownloadOnlyOnHostRead) {
  SLUICE_REQUIRE_HIP_DEVICE();
  const int64_t n = 4096;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  sluice_rt_hip_transfers before{};
  sluice_rt_hip_transfer_counts(&before);
  for (int k = 0; k < 10; ++k)
    launchAxpy(x.data(), y.data(), n, 3.0f, SLUICE_LAUNCH_RESIDENT);
  sluice_rt_hip_transfers launched{};
  sluice_rt_hip_transfer_counts(&launched);
  EXPECT_EQ(launched.uploads - before.uploads, 2u); // x and y, once
  EXPECT_EQ(launched.downloads, before.downloads);
  EXPECT_EQ(launched.deferred_launches - before.deferred_launches, 10u);
  EXPECT_EQ(y[0], 0.0f); // still on the device
  sluice_rt_host_access(y.data(), n * 4, SLUICE_HOST_READ);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], 30.0f) << i;
  sluice_rt_hip_transfers read{};
  sluice_rt_hip_transfer_counts(&read);
  EXPECT_EQ(read.downloads - launched.downloads, 1u); // y only
  // The host writes y: the next launch uploads it again.
  sluice_rt_host_access(y.data(), n * 4, SLUICE_HOST_WRITE);
  for (float &value : y)
    value = 1.0f;
  launchAxpy(x.data(), y.data(), n, 3.0f, SLUICE_LAUNCH_RESIDENT);
  sluice_rt_host_access(y.data(), n * 4, SLUICE_HOST_READ);
  EXPECT_EQ(y[n - 1], 4.0f);
  sluice_rt_host_access(x.data(), n * 4, SLUICE_HOST_FREE);
  sluice_rt_host_access(y.data(), n * 4, SLUICE_HOST_FREE);
}

//===----------------------------------------------------------------------===//
// The device placement's scheduler kernel (hip_resident.h)
//===----------------------------------------------------------------------===//

TEST(HipResident, EveryStageKernelNeedsItsBody) {
  std::string body;
  const std::string source = "__device__ void k_body(int64_t v1) {}\n";
  EXPECT_TRUE(hip::stageBodySymbol(source, "k", body).ok());
  EXPECT_EQ(body, "k_body");
  Status missing = hip::stageBodySymbol(source, "other", body);
  EXPECT_EQ(missing.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(missing.message(),
            "the program's HIP source has no body function 'other_body' for "
            "stage kernel 'other' (compile it again with this Sluice)");
}

#if defined(SLUICE_TEST_SHADOW_HIP) && defined(SLUICE_TEST_POLICY_HIP)
std::string readText(const char *path) {
  std::ifstream file(path);
  EXPECT_TRUE(file) << path;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The stage bodies of a program's HIP source in source order (the stage
// kernels' order) and the parameter count of their kernels: a body takes
// the kernel's parameters and the invocation.
std::vector<std::string> stageBodies(const std::string &source,
                                     size_t &parameters) {
  std::vector<std::string> bodies;
  parameters = 0;
  std::regex declaration(R"(__device__ void (\w+)_body\(([^)]*)\))");
  for (std::sregex_iterator it(source.begin(), source.end(), declaration), end;
       it != end; ++it) {
    bodies.push_back((*it)[1].str() + "_body");
    std::string list = (*it)[2].str();
    size_t commas = size_t(std::count(list.begin(), list.end(), ','));
    if (parameters == 0)
      parameters = commas; // commas + 1 names, one of them the invocation
    EXPECT_EQ(commas, parameters) << "every stage kernel has the same ABI";
  }
  return bodies;
}

// NVRTC compiles `source` for sm_90 into a cubin (false: no NVRTC here).
bool compilesForSm90(const std::string &source) {
  DriverRequest request;
  std::vector<char> cubin;
  Status status =
      hip::compileForNvidia(request, source, "resident.hip", "sm_90", cubin);
  if (status.kind() == ErrorKind::DeviceUnavailable)
    return false;
  EXPECT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(std::string(cubin.data() + 1, 3), "ELF");
  return true;
}

// hipcc (HIP 5.2 from scripts/install-deps: offline AMD code objects)
// compiles `source` for gfx90a, as hiprtc would on an AMD GPU: the resident
// kernel's branches for platforms other than CUDA (false: no hipcc here).
bool compilesForGfx90a(const std::string &source) {
  if (std::system("command -v hipcc > /dev/null 2>&1") != 0)
    return false;
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("sluice-hipcc-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream file(dir / "resident.hip");
    file << source;
  }
  std::string command = "hipcc --genco --offload-arch=gfx90a -O1 -std=c++17 -o " +
                        (dir / "resident.co").string() + " " +
                        (dir / "resident.hip").string() + " > " +
                        (dir / "log.txt").string() + " 2>&1";
  int rc = std::system(command.c_str());
  EXPECT_EQ(rc, 0) << readText((dir / "log.txt").string().c_str());
  std::filesystem::remove_all(dir);
  return true;
}
#endif

TEST(HipResident, TheSchedulerCompilesWithTheShadowPoolsBodies) {
#if !defined(SLUICE_TEST_SHADOW_HIP) || !defined(SLUICE_TEST_POLICY_HIP)
  GTEST_SKIP() << "built without the compiler: no HIP source of the shadow "
                  "pool";
#else
  std::string source = readText(SLUICE_TEST_SHADOW_HIP);
  size_t parameters = 0;
  std::vector<std::string> bodies = stageBodies(source, parameters);
  // The shadow pool: path (entry, bounce, finish) and shadow (intersect,
  // shade).
  ASSERT_EQ(bodies.size(), 5u);
  std::string scheduler =
      hip::residentSchedulerSource(source, bodies, parameters);
  EXPECT_NE(scheduler.find("sluice_resident_scheduler("), std::string::npos);
  EXPECT_EQ(scheduler.find("#include \"sluice/"), std::string::npos);
  EXPECT_EQ(scheduler.find("#define SLUICE_RESIDENT_POLICIES"),
            std::string::npos);
  if (!compilesForSm90(scheduler))
    GTEST_SKIP() << "no NVRTC";
  // SLUICE_HIP_PROFILE's build of it (hip_resident.cpp prepends the define).
  EXPECT_TRUE(compilesForSm90("#define SLUICE_PROFILE 1\n" + scheduler));
  if (!compilesForGfx90a(scheduler))
    GTEST_SKIP() << "no hipcc: the AMD build is not checked";
#endif
}

// examples/append_allocator.mlir: owner 0 ("arena") names
// prepare_for_admission, availability and prepare_for_producer, so the
// switch has cases 0, 1 and 3 (owner * 4 + hook), the value of hook 1
// assigned; the scheduler (device placement) and the program's source with
// the one-thread call kernel (host placement) both compile.
TEST(HipResident, TheSchedulerCompilesWithAnOwnerPolicy) {
#if !defined(SLUICE_TEST_SHADOW_HIP) || !defined(SLUICE_TEST_POLICY_HIP)
  GTEST_SKIP() << "built without the compiler: no HIP source of the append "
                  "allocator";
#else
  std::string source = readText(SLUICE_TEST_POLICY_HIP);
  const std::array<std::string, 4> arena = {
      "sluice_kernels_arena_reclaim", "sluice_kernels_arena_available", "",
      "sluice_kernels_arena_append"};
  std::string hooks;
  ASSERT_TRUE(hip::policyHookSource(source, {&arena, 1}, hooks).ok());
  EXPECT_NE(hooks.find("#define SLUICE_RESIDENT_POLICIES 1"),
            std::string::npos);
  EXPECT_NE(hooks.find("  case 0u:\n    sluice_kernels_arena_reclaim((int64_t "
                       "*)storage, (int32_t *)counts, capacity, live);"),
            std::string::npos)
      << hooks;
  EXPECT_NE(hooks.find("  case 1u:\n    *value = (long "
                       "long)sluice_kernels_arena_available("),
            std::string::npos)
      << hooks;
  EXPECT_EQ(hooks.find("case 2u"), std::string::npos);
  EXPECT_NE(hooks.find("  case 3u:\n    sluice_kernels_arena_append((int64_t "
                       "*)storage, (int32_t *)counts, capacity, live, slots);"),
            std::string::npos)
      << hooks;
  EXPECT_NE(hooks.find(std::string("__global__ void ") +
                       hip::kPolicyCallSymbol + "("),
            std::string::npos);
  source += hooks;
  size_t parameters = 0;
  std::vector<std::string> bodies = stageBodies(source, parameters);
  ASSERT_EQ(bodies.size(), 3u); // entry, arena.sort, arena.keep
  std::string scheduler =
      hip::residentSchedulerSource(source, bodies, parameters);
  // Without a policy, nothing is added.
  std::array<std::string, 4> none;
  std::string nothing;
  EXPECT_TRUE(hip::policyHookSource(source, {&none, 1}, nothing).ok());
  EXPECT_TRUE(nothing.empty());
  if (!compilesForSm90(scheduler) || !compilesForSm90(source))
    GTEST_SKIP() << "no NVRTC";
#endif
}

// SLUICE_HIP_PROFILE's line: each part's sum over the iterations that ran
// every part, the wait's over the waits counted (one fewer per launch).
TEST(HipResident, TheProfileLineGivesEachPartsMean) {
  uint64_t sums[decision::kProfileWords] = {};
  for (uint64_t k = 0; k < 9; ++k)
    sums[k] = (k + 1) * 1000 + 7; // 4 iterations: mean (k + 1) * 250 + 1
  sums[9] = 3 * 600;              // 3 waits of 600 cycles
  sums[decision::kProfileWords - 2] = 3;
  sums[decision::kProfileWords - 1] = 4;
  EXPECT_EQ(hip::residentProfileLine(sums),
            "scheduler profile: 4 iterations ran every part; block 0's mean "
            "clock cycles: loads 251, snapshot 501, decision 751, "
            "refill+select 1001, sort 1251, arguments 1501, publish 1751, "
            "stage (block 0's share) 2001, tallies 2251, waiting for the "
            "other blocks 600");
  // No iteration ran every part (the run stopped in the first): zeros.
  uint64_t none[decision::kProfileWords] = {};
  none[0] = 123;
  EXPECT_EQ(hip::residentProfileLine(none).find("loads 0, "),
            std::string("scheduler profile: 0 iterations ran every part; "
                        "block 0's mean clock cycles: ")
                .size());
}

// The scheduler kernel takes the layout's address (8 bytes) and the words
// by value: 4,096 bytes of parameters hold 511 words.
TEST(HipResident, TheWordsMustFitTheKernelsParameters) {
  EXPECT_TRUE(hip::checkResidentParameterWords(511).ok());
  Status status = hip::checkResidentParameterWords(512);
  EXPECT_EQ(status.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(status.message(),
            "the device placement passes the stage kernels' 512 parameter "
            "words to its kernel by value, and at most 511 fit in a kernel's "
            "4,096 bytes of parameters (run with --scheduler-placement=host)");
}

TEST(HipResident, APolicyHookNeedsItsFunction) {
  const std::array<std::string, 4> hooks = {"", "", "", "missing_hook"};
  std::string text;
  Status status = hip::policyHookSource(
      "__device__ void present(int64_t *v1) {}\n", {&hooks, 1}, text);
  EXPECT_EQ(status.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(status.message(),
            "the program's HIP source has no __device__ function "
            "'missing_hook' for the prepare_for_producer hook of owner 0 "
            "(compile it again with this Sluice)");
}

} // namespace
} // namespace sluice::runtime
