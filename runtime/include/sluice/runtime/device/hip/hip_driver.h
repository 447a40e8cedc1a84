//===- hip_driver.h - The HIP backend's driver table ------------*- C++ -*-===//
//
// One HIP C++ source runs on two platforms (DESIGN.md §4):
//
//   amd     libamdhip64 (HIP module API), code objects from hiprtc
//   nvidia  libcuda.so.1 (CUDA driver API), CUBINs from NVRTC
//
// Both are opened with dlopen, so nothing links against a GPU library: a
// machine without one gets a DeviceUnavailable Status naming every library
// that was tried and what to install. A Driver is the small table of calls
// the adapter and the launch wrapper need, the same on both platforms.
//
// Selection: SLUICE_HIP_PLATFORM=amd|nvidia forces a platform; otherwise AMD
// when libamdhip64 loads and reports a device, else NVIDIA. Test and machine
// overrides: SLUICE_HIP_CUDA_LIBRARY, SLUICE_HIP_NVRTC_LIBRARY,
// SLUICE_HIP_AMD_LIBRARY, SLUICE_HIP_HIPRTC_LIBRARY (a path or soname each,
// tried alone). Compiled code objects are cached under
// $SLUICE_HIP_CACHE_DIR, else $XDG_CACHE_HOME/sluice/hip, else
// ~/.cache/sluice/hip (SLUICE_HIP_CACHE_DIR= empty turns the cache off); a
// cache that cannot be read or written is never an error.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_HIP_HIP_DRIVER_H
#define SLUICE_RUNTIME_DEVICE_HIP_HIP_DRIVER_H

#include "sluice/runtime/admission/status.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sluice::runtime::hip {

enum class Platform : uint8_t { Amd, Nvidia };
const char *platformName(Platform platform); // "amd", "nvidia"

// A device address (CUdeviceptr, or hipDeviceptr_t as an integer).
using DevicePointer = uint64_t;

struct DeviceInfo {
  std::string name;         // cuDeviceGetName / hipDeviceGetName
  std::string architecture; // "sm_90"; on AMD the hiprtc target or ""
  int computeMajor = 0, computeMinor = 0;
  int warpSize = 0, multiprocessors = 0;
  int maxThreadsPerBlock = 0, maxSharedMemoryPerBlock = 0;
  int maxGridX = 0;
  std::string library;  // the driver library that was opened
  std::string compiler; // the runtime compiler library that was opened
};

// The calls, the same on both platforms. Streams, events, modules and
// functions are opaque handles. Errors are DeviceError naming the call and
// the driver's error name.
class Driver {
public:
  virtual ~Driver();
  virtual Platform platform() const = 0;
  const DeviceInfo &info() const { return info_; }
  // "nvidia 'NVIDIA H200' (sm_90)": for messages.
  std::string describe() const;

  // The code object of `source` for this device: from the cache, or
  // compiled with NVRTC / hiprtc (`label` names the source in errors; a
  // failed compile returns the compiler's log).
  Status compile(const std::string &source, const std::string &label,
                 std::vector<char> &image);
  virtual Status loadModule(std::span<const char> image, void *&module) = 0;
  virtual Status function(void *module, const std::string &symbol,
                          void *&out) = 0;
  // The number of parameters of `function`, or -1 when the driver cannot
  // tell (CUDA < 12.4, AMD).
  virtual int parameterCount(void *function) = 0;

  virtual Status allocate(uint64_t bytes, DevicePointer &out) = 0;
  virtual void release(DevicePointer pointer) = 0;
  // Pinned host memory the device can address (`device` gets its address).
  virtual Status allocateMapped(uint64_t bytes, void *&host,
                                DevicePointer &device) = 0;
  virtual void releaseMapped(void *host) = 0;

  virtual Status createStream(void *&stream) = 0;
  virtual Status copyToDevice(DevicePointer to, const void *from,
                              uint64_t bytes, void *stream) = 0;
  virtual Status copyToHost(void *to, DevicePointer from, uint64_t bytes,
                            void *stream) = 0;
  virtual Status fill(DevicePointer to, uint8_t value, uint64_t bytes,
                      void *stream) = 0;
  // `parameters[i]` points at parameter i's value (cuLaunchKernel).
  virtual Status launch(void *function, const uint32_t grid[3],
                        const uint32_t block[3], uint32_t sharedBytes,
                        void *stream, void **parameters) = 0;
  // Cooperative launches (the device placement's persistent scheduler):
  // success when every block of a grid that fits can be made co-resident,
  // otherwise why not. The base class has none.
  virtual Status cooperativeSupport();
  // Blocks of `blockThreads` threads of `function` that one multiprocessor
  // holds at once (the occupancy query).
  virtual Status occupancy(void *function, uint32_t blockThreads,
                           int &blocksPerMultiprocessor);
  // Like launch(), with every block resident at once (the driver refuses a
  // grid larger than that).
  virtual Status launchCooperative(void *function, const uint32_t grid[3],
                                   const uint32_t block[3],
                                   uint32_t sharedBytes, void *stream,
                                   void **parameters);
  virtual Status synchronize(void *stream) = 0;
  virtual Status createEvent(void *&event) = 0;
  virtual Status record(void *event, void *stream) = 0;
  // After both events completed.
  virtual Status elapsedMilliseconds(void *start, void *end, float &ms) = 0;

protected:
  // The platform compiler: source -> code object, no cache.
  virtual Status compileUncached(const std::string &source,
                                 const std::string &label,
                                 const std::vector<std::string> &options,
                                 std::vector<char> &image) = 0;
  // The options of every compile (part of the cache key).
  virtual std::vector<std::string> compileOptions() const = 0;
  DeviceInfo info_;
};

// Where each library is looked for, and what the caller forces.
struct DriverRequest {
  std::string platform; // "", "amd" or "nvidia"
  // Empty: the default search list of each.
  std::string cudaLibrary, nvrtcLibrary, amdLibrary, hiprtcLibrary;
};
// From SLUICE_HIP_PLATFORM and SLUICE_HIP_*_LIBRARY.
DriverRequest driverRequestFromEnvironment();

// The search lists (an override replaces its list).
std::vector<std::string> cudaLibraryCandidates(const DriverRequest &request);
std::vector<std::string> nvrtcLibraryCandidates(const DriverRequest &request);
std::vector<std::string> amdLibraryCandidates(const DriverRequest &request);
std::vector<std::string> hiprtcLibraryCandidates(const DriverRequest &request);

// Opens a driver for `request` (not shared; tests use it directly).
// DeviceUnavailable names, per platform tried, what was missing.
Status openDriver(const DriverRequest &request, std::unique_ptr<Driver> &out);
// The process-wide driver of driverRequestFromEnvironment(), opened once
// and never closed; the Status of that one attempt on failure.
Status processDriver(Driver *&out);

// The code-object cache (hip_driver.cpp). The directory, or "" when off.
std::string cacheDirectory();
// The cache file name of one compile: a hash of everything that changes the
// code object.
std::string cacheKey(Platform platform, const std::string &architecture,
                     const std::vector<std::string> &options,
                     const std::string &source);
// Cache counters since the process started (the tests').
struct CacheCounts {
  uint64_t hits = 0, misses = 0, writes = 0;
};
CacheCounts cacheCounts();

// Compiles `source` for NVIDIA `architecture` ("sm_90") with NVRTC alone,
// through the cache: no driver or GPU needed.
Status compileForNvidia(const DriverRequest &request, const std::string &source,
                        const std::string &label,
                        const std::string &architecture,
                        std::vector<char> &cubin);

} // namespace sluice::runtime::hip

#endif // SLUICE_RUNTIME_DEVICE_HIP_HIP_DRIVER_H
