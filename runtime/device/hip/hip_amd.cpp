//===- hip_amd.cpp - The AMD platform: HIP module API and hiprtc ----------===//
//
// Types and attribute numbers come from the HIP headers of the build (HIP's
// attribute enum is not stable across ROCm releases); without them
// (SLUICE_HIP_AMD_HEADERS undefined) the platform reports that it was left
// out. Built and selected here, but never run on an AMD GPU so far.
//
//===----------------------------------------------------------------------===//

#include "hip_internal.h"

#ifdef SLUICE_HIP_AMD_HEADERS
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
#endif

#include <algorithm>
#include <cstdlib>

namespace sluice::runtime::hip::detail {

#ifndef SLUICE_HIP_AMD_HEADERS

Status openAmdDriver(const DriverRequest &, std::unique_ptr<Driver> &) {
  return Status::error(ErrorKind::DeviceUnavailable,
                       "hip device: this runtime was built without the HIP "
                       "headers (install libamdhip64-dev and rebuild)");
}

#else

namespace {

struct HipFunctions {
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceGetAttribute)(int *, hipDeviceAttribute_t, int);
  hipError_t (*hipDeviceGetName)(char *, int, int);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipHostMalloc)(void **, size_t, unsigned);
  hipError_t (*hipHostGetDevicePointer)(void **, void *, unsigned);
  hipError_t (*hipHostFree)(void *);
  hipError_t (*hipMemcpyHtoDAsync)(hipDeviceptr_t, void *, size_t,
                                   hipStream_t);
  hipError_t (*hipMemcpyDtoHAsync)(void *, hipDeviceptr_t, size_t,
                                   hipStream_t);
  hipError_t (*hipMemsetD8Async)(hipDeviceptr_t, unsigned char, size_t,
                                 hipStream_t);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipStreamCreateWithFlags)(hipStream_t *, unsigned);
  hipError_t (*hipStreamSynchronize)(hipStream_t);
  hipError_t (*hipEventCreate)(hipEvent_t *);
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t);
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  const char *(*hipGetErrorName)(hipError_t);
  // hiprtc
  hiprtcResult (*hiprtcCreateProgram)(hiprtcProgram *, const char *,
                                      const char *, int, const char **,
                                      const char **);
  hiprtcResult (*hiprtcCompileProgram)(hiprtcProgram, int, const char **);
  hiprtcResult (*hiprtcGetProgramLogSize)(hiprtcProgram, size_t *);
  hiprtcResult (*hiprtcGetProgramLog)(hiprtcProgram, char *);
  hiprtcResult (*hiprtcGetCodeSize)(hiprtcProgram, size_t *);
  hiprtcResult (*hiprtcGetCode)(hiprtcProgram, char *);
  hiprtcResult (*hiprtcDestroyProgram)(hiprtcProgram *);
  const char *(*hiprtcGetErrorString)(hiprtcResult);
};

template <typename F> bool load(void *library, F &slot, const char *name) {
  slot = reinterpret_cast<F>(symbol(library, {name}));
  return slot != nullptr;
}

#define SLUICE_HIP_BIND()                                                      \
  if (Status bound = bind(); !bound.ok())                                      \
  return bound

class AmdDriver final : public Driver {
public:
  Platform platform() const override { return Platform::Amd; }

  Status open(const DriverRequest &request) {
    std::string tried;
    library_ = openFirst(amdLibraryCandidates(request), libraryName_, tried);
    if (!library_)
      return Status::error(ErrorKind::DeviceUnavailable,
                           "hip device: libamdhip64.so not found (tried " +
                               tried +
                               "; install libamdhip64-5 / ROCm, or set "
                               "SLUICE_HIP_AMD_LIBRARY)");
    HipFunctions &f = fn_;
#define SLUICE_HIP(field)                                                      \
  if (!load(library_, f.field, #field))                                        \
    return missing(libraryName_, #field);
    SLUICE_HIP(hipInit)
    SLUICE_HIP(hipGetDeviceCount)
    SLUICE_HIP(hipSetDevice)
    SLUICE_HIP(hipDeviceGetAttribute)
    SLUICE_HIP(hipDeviceGetName)
    SLUICE_HIP(hipModuleLoadData)
    SLUICE_HIP(hipModuleGetFunction)
    SLUICE_HIP(hipMalloc)
    SLUICE_HIP(hipFree)
    SLUICE_HIP(hipHostMalloc)
    SLUICE_HIP(hipHostGetDevicePointer)
    SLUICE_HIP(hipHostFree)
    SLUICE_HIP(hipMemcpyHtoDAsync)
    SLUICE_HIP(hipMemcpyDtoHAsync)
    SLUICE_HIP(hipMemsetD8Async)
    SLUICE_HIP(hipModuleLaunchKernel)
    SLUICE_HIP(hipStreamCreateWithFlags)
    SLUICE_HIP(hipStreamSynchronize)
    SLUICE_HIP(hipEventCreate)
    SLUICE_HIP(hipEventRecord)
    SLUICE_HIP(hipEventElapsedTime)
    SLUICE_HIP(hipGetErrorName)
#undef SLUICE_HIP
    if (hipError_t e = f.hipInit(0); e != hipSuccess)
      return Status::error(ErrorKind::DeviceUnavailable,
                           "hip device: " + libraryName_ +
                               " loaded but hipInit failed (" + errorName(e) +
                               "): no usable AMD GPU");
    int count = 0;
    if (hipError_t e = f.hipGetDeviceCount(&count);
        e != hipSuccess || count == 0)
      return Status::error(ErrorKind::DeviceUnavailable,
                           "hip device: " + libraryName_ +
                               " loaded but reports no AMD GPU");
    if (Status status = bind(); !status.ok())
      return status;
    char name[256] = {};
    (void)f.hipDeviceGetName(name, sizeof name - 1, 0);
    info_.name = name;
    auto attribute = [&](hipDeviceAttribute_t which) {
      int value = 0;
      (void)f.hipDeviceGetAttribute(&value, which, 0);
      return value;
    };
    info_.computeMajor = attribute(hipDeviceAttributeComputeCapabilityMajor);
    info_.computeMinor = attribute(hipDeviceAttributeComputeCapabilityMinor);
    info_.warpSize = attribute(hipDeviceAttributeWarpSize);
    info_.multiprocessors = attribute(hipDeviceAttributeMultiprocessorCount);
    info_.maxThreadsPerBlock = attribute(hipDeviceAttributeMaxThreadsPerBlock);
    info_.maxSharedMemoryPerBlock =
        attribute(hipDeviceAttributeMaxSharedMemoryPerBlock);
    info_.maxGridX = attribute(hipDeviceAttributeMaxGridDimX);
    // hiprtc compiles for the current device unless told otherwise.
    if (const char *arch = std::getenv("SLUICE_HIP_AMD_ARCH"))
      info_.architecture = arch;
    info_.library = libraryName_;
    // hiprtc: its own library (ROCm 6), else libamdhip64 itself (ROCm 5).
    std::string rtcTried;
    rtc_ = openFirst(hiprtcLibraryCandidates(request), rtcName_, rtcTried);
    if (!rtc_ || !symbol(rtc_, {"hiprtcCreateProgram"})) {
      rtc_ = library_;
      rtcName_ = libraryName_;
    }
#define SLUICE_HIPRTC(field)                                                   \
  if (!load(rtc_, f.field, #field))                                            \
    return Status::error(ErrorKind::DeviceUnavailable,                         \
                         "hip device: hiprtc not found (tried " + rtcTried +   \
                             " and " + libraryName_ +                          \
                             "; install libhiprtc / ROCm, or set "             \
                             "SLUICE_HIP_HIPRTC_LIBRARY)");
    SLUICE_HIPRTC(hiprtcCreateProgram)
    SLUICE_HIPRTC(hiprtcCompileProgram)
    SLUICE_HIPRTC(hiprtcGetProgramLogSize)
    SLUICE_HIPRTC(hiprtcGetProgramLog)
    SLUICE_HIPRTC(hiprtcGetCodeSize)
    SLUICE_HIPRTC(hiprtcGetCode)
    SLUICE_HIPRTC(hiprtcDestroyProgram)
    SLUICE_HIPRTC(hiprtcGetErrorString)
#undef SLUICE_HIPRTC
    info_.compiler = rtcName_;
    return Status::success();
  }

  Status loadModule(std::span<const char> image, void *&module) override {
    SLUICE_HIP_BIND();
    hipModule_t out = nullptr;
    if (Status status = check(fn_.hipModuleLoadData(&out, image.data()),
                              "hipModuleLoadData");
        !status.ok())
      return status;
    module = out;
    return Status::success();
  }
  Status function(void *module, const std::string &name, void *&out) override {
    SLUICE_HIP_BIND();
    hipFunction_t function = nullptr;
    hipError_t e = fn_.hipModuleGetFunction(
        &function, static_cast<hipModule_t>(module), name.c_str());
    if (e != hipSuccess)
      return Status::error(ErrorKind::DeviceError,
                           "hip device: the compiled module has no kernel '" +
                               name + "' (hipModuleGetFunction: " +
                               errorName(e) + ")");
    out = function;
    return Status::success();
  }
  int parameterCount(void *) override { return -1; }
  Status allocate(uint64_t bytes, DevicePointer &out) override {
    SLUICE_HIP_BIND();
    void *pointer = nullptr;
    if (Status status =
            check(fn_.hipMalloc(&pointer, std::max<uint64_t>(bytes, 16)),
                  "hipMalloc of " + std::to_string(bytes) + " bytes");
        !status.ok())
      return status;
    out = reinterpret_cast<uintptr_t>(pointer);
    return Status::success();
  }
  void release(DevicePointer pointer) override {
    if (pointer && bind().ok())
      (void)fn_.hipFree(reinterpret_cast<void *>(uintptr_t(pointer)));
  }
  Status allocateMapped(uint64_t bytes, void *&host,
                        DevicePointer &device) override {
    SLUICE_HIP_BIND();
    void *memory = nullptr;
    if (Status status = check(
            fn_.hipHostMalloc(&memory, std::max<uint64_t>(bytes, 16),
                              hipHostMallocPortable | hipHostMallocMapped),
            "hipHostMalloc of " + std::to_string(bytes) + " bytes");
        !status.ok())
      return status;
    void *pointer = nullptr;
    if (Status status = check(fn_.hipHostGetDevicePointer(&pointer, memory, 0),
                              "hipHostGetDevicePointer");
        !status.ok()) {
      (void)fn_.hipHostFree(memory);
      return status;
    }
    host = memory;
    device = reinterpret_cast<uintptr_t>(pointer);
    return Status::success();
  }
  void releaseMapped(void *host) override {
    if (host && bind().ok())
      (void)fn_.hipHostFree(host);
  }
  Status createStream(void *&stream) override {
    SLUICE_HIP_BIND();
    hipStream_t out = nullptr;
    if (Status status = check(
            fn_.hipStreamCreateWithFlags(&out, hipStreamNonBlocking),
            "hipStreamCreateWithFlags");
        !status.ok())
      return status;
    stream = out;
    return Status::success();
  }
  Status copyToDevice(DevicePointer to, const void *from, uint64_t bytes,
                      void *stream) override {
    SLUICE_HIP_BIND();
    return check(fn_.hipMemcpyHtoDAsync(device(to), const_cast<void *>(from),
                                        bytes, hipStream(stream)),
                 "hipMemcpyHtoDAsync of " + std::to_string(bytes) + " bytes");
  }
  Status copyToHost(void *to, DevicePointer from, uint64_t bytes,
                    void *stream) override {
    SLUICE_HIP_BIND();
    return check(
        fn_.hipMemcpyDtoHAsync(to, device(from), bytes, hipStream(stream)),
        "hipMemcpyDtoHAsync of " + std::to_string(bytes) + " bytes");
  }
  Status fill(DevicePointer to, uint8_t value, uint64_t bytes,
              void *stream) override {
    SLUICE_HIP_BIND();
    return check(
        fn_.hipMemsetD8Async(device(to), value, bytes, hipStream(stream)),
        "hipMemsetD8Async");
  }
  Status launch(void *function, const uint32_t grid[3], const uint32_t block[3],
                uint32_t sharedBytes, void *stream,
                void **parameters) override {
    SLUICE_HIP_BIND();
    return check(fn_.hipModuleLaunchKernel(
                     static_cast<hipFunction_t>(function), grid[0], grid[1],
                     grid[2], block[0], block[1], block[2], sharedBytes,
                     hipStream(stream), parameters, nullptr),
                 "hipModuleLaunchKernel");
  }
  Status synchronize(void *stream) override {
    SLUICE_HIP_BIND();
    return check(fn_.hipStreamSynchronize(hipStream(stream)),
                 "hipStreamSynchronize");
  }
  Status createEvent(void *&event) override {
    SLUICE_HIP_BIND();
    hipEvent_t out = nullptr;
    if (Status status = check(fn_.hipEventCreate(&out), "hipEventCreate");
        !status.ok())
      return status;
    event = out;
    return Status::success();
  }
  Status record(void *event, void *stream) override {
    SLUICE_HIP_BIND();
    return check(fn_.hipEventRecord(static_cast<hipEvent_t>(event),
                                    hipStream(stream)),
                 "hipEventRecord");
  }
  Status elapsedMilliseconds(void *start, void *end, float &ms) override {
    SLUICE_HIP_BIND();
    return check(fn_.hipEventElapsedTime(&ms, static_cast<hipEvent_t>(start),
                                         static_cast<hipEvent_t>(end)),
                 "hipEventElapsedTime");
  }

protected:
  Status compileUncached(const std::string &source, const std::string &label,
                         const std::vector<std::string> &options,
                         std::vector<char> &image) override {
    const HipFunctions &f = fn_;
    hiprtcProgram program = nullptr;
    hiprtcResult r = f.hiprtcCreateProgram(&program, source.c_str(),
                                           label.c_str(), 0, nullptr, nullptr);
    if (r != HIPRTC_SUCCESS)
      return Status::error(ErrorKind::DeviceError,
                           "hip device: hiprtcCreateProgram for " + label +
                               " failed: " + f.hiprtcGetErrorString(r));
    std::vector<const char *> argv;
    for (const std::string &option : options)
      argv.push_back(option.c_str());
    r = f.hiprtcCompileProgram(program, int(argv.size()), argv.data());
    std::string log;
    size_t logSize = 0;
    if (f.hiprtcGetProgramLogSize(program, &logSize) == HIPRTC_SUCCESS &&
        logSize > 1) {
      log.resize(logSize);
      f.hiprtcGetProgramLog(program, log.data());
      log.resize(logSize - 1);
    }
    Status status = Status::success();
    size_t size = 0;
    if (r != HIPRTC_SUCCESS)
      status = Status::error(ErrorKind::DeviceError,
                             "hip device: hiprtc could not compile " + label +
                                 " (" + f.hiprtcGetErrorString(r) + "):\n" +
                                 log);
    else if (f.hiprtcGetCodeSize(program, &size) != HIPRTC_SUCCESS ||
             size == 0)
      status = Status::error(ErrorKind::DeviceError,
                             "hip device: hiprtc produced no code object for " +
                                 label);
    else {
      image.resize(size);
      f.hiprtcGetCode(program, image.data());
    }
    f.hiprtcDestroyProgram(&program);
    return status;
  }
  std::vector<std::string> compileOptions() const override {
    // No contraction of a multiply and an add (see hip_nvidia.cpp).
    std::vector<std::string> out = {"-std=c++17", "-O3", "-ffp-contract=off"};
    if (!info_.architecture.empty())
      out.push_back("--offload-arch=" + info_.architecture);
    else // the cache key must still tell devices apart
      out.push_back("-DSLUICE_HIP_DEVICE_CC=" +
                    std::to_string(info_.computeMajor * 100 +
                                   info_.computeMinor));
    return out;
  }

private:
  static hipDeviceptr_t device(DevicePointer pointer) {
    return reinterpret_cast<hipDeviceptr_t>(uintptr_t(pointer));
  }
  static hipStream_t hipStream(void *stream) {
    return static_cast<hipStream_t>(stream);
  }
  static Status missing(const std::string &library, const char *name) {
    return Status::error(ErrorKind::DeviceUnavailable,
                         "hip device: " + library + " has no " + name);
  }
  std::string errorName(hipError_t e) const {
    const char *name = fn_.hipGetErrorName ? fn_.hipGetErrorName(e) : nullptr;
    return name ? name : "hipError_t " + std::to_string(int(e));
  }
  Status check(hipError_t e, const std::string &what) const {
    if (e == hipSuccess)
      return Status::success();
    return Status::error(ErrorKind::DeviceError,
                         "hip device: " + what + " failed: " + errorName(e));
  }
  // Device 0 is current on the calling thread.
  Status bind() const {
    thread_local bool bound = false;
    if (bound)
      return Status::success();
    if (Status status = check(fn_.hipSetDevice(0), "hipSetDevice");
        !status.ok())
      return status;
    bound = true;
    return Status::success();
  }

  void *library_ = nullptr, *rtc_ = nullptr;
  std::string libraryName_, rtcName_;
  HipFunctions fn_{};
};

} // namespace

Status openAmdDriver(const DriverRequest &request,
                     std::unique_ptr<Driver> &out) {
  auto driver = std::make_unique<AmdDriver>();
  if (Status status = driver->open(request); !status.ok())
    return status;
  out = std::move(driver);
  return Status::success();
}

#endif // SLUICE_HIP_AMD_HEADERS

} // namespace sluice::runtime::hip::detail
