//===- hip_nvidia.cpp - The NVIDIA platform: CUDA driver API and NVRTC ----===//
//
// The CUDA driver API's ABI is stable, so its few types and constants are
// declared here rather than taken from cuda.h (the runtime builds without a
// CUDA toolkit); hip_driver_test.cpp checks them against cuda.h and nvrtc.h
// where those exist.
//
//===----------------------------------------------------------------------===//

#include "hip_internal.h"
#include "hip_nvidia_abi.h"

#include <dlfcn.h>

#include <filesystem>

namespace sluice::runtime::hip::detail {
namespace {

using namespace cuda_abi;

struct CudaFunctions {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemHostAlloc)(void **, size_t, unsigned);
  CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned);
  CUresult (*cuMemFreeHost)(void *);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
};

struct NvrtcFunctions {
  nvrtcResult (*nvrtcVersion)(int *, int *);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *,
                                    int, const char *const *,
                                    const char *const *);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
  const char *(*nvrtcGetErrorString)(nvrtcResult);
};

template <typename F> bool load(void *library, F &slot,
                                std::initializer_list<const char *> names) {
  slot = reinterpret_cast<F>(symbol(library, names));
  return slot != nullptr;
}

Status missingSymbol(const std::string &library, const char *name) {
  return Status::error(ErrorKind::DeviceUnavailable,
                       "hip device: " + library + " has no " + name +
                           " (a driver older than CUDA 12?)");
}

} // namespace

// NVRTC alone: the compile half, usable without a driver (tests compile for
// sm_90 on a machine without a GPU).
class Nvrtc {
public:
  Status open(const DriverRequest &request) {
    std::string tried;
    library_ = openFirst(nvrtcLibraryCandidates(request), name_, tried);
    if (!library_)
      return Status::error(ErrorKind::DeviceUnavailable,
                           "hip device: NVRTC not found (tried " + tried +
                               "; install the CUDA toolkit's libnvrtc, or set "
                               "SLUICE_HIP_NVRTC_LIBRARY)");
    NvrtcFunctions &f = fn_;
#define SLUICE_NVRTC(field)                                                    \
  if (!load(library_, f.field, {#field}))                                      \
    return missingSymbol(name_, #field);
    SLUICE_NVRTC(nvrtcVersion)
    SLUICE_NVRTC(nvrtcCreateProgram)
    SLUICE_NVRTC(nvrtcCompileProgram)
    SLUICE_NVRTC(nvrtcGetProgramLogSize)
    SLUICE_NVRTC(nvrtcGetProgramLog)
    SLUICE_NVRTC(nvrtcGetCUBINSize)
    SLUICE_NVRTC(nvrtcGetCUBIN)
    SLUICE_NVRTC(nvrtcDestroyProgram)
    SLUICE_NVRTC(nvrtcGetErrorString)
#undef SLUICE_NVRTC
    // The toolkit's headers (cooperative groups, the CCCL) beside the
    // library: <root>/lib64/libnvrtc.so -> <root>/include.
    Dl_info where{};
    if (dladdr(reinterpret_cast<void *>(f.nvrtcVersion), &where) &&
        where.dli_fname) {
      std::error_code error;
      std::filesystem::path lib =
          std::filesystem::canonical(where.dli_fname, error).parent_path();
      for (const std::filesystem::path &include :
           {lib.parent_path() / "include", lib.parent_path().parent_path() /
                                               "include"})
        if (std::filesystem::exists(include / "cuda_runtime.h", error)) {
          includeDir_ = include.string();
          break;
        }
    }
    if (includeDir_.empty() &&
        std::filesystem::exists("/usr/local/cuda/include/cuda_runtime.h"))
      includeDir_ = "/usr/local/cuda/include";
    return Status::success();
  }

  const std::string &name() const { return name_; }

  std::vector<std::string> options(const std::string &architecture) const {
    // --fmad=false: an arith.mulf feeding an arith.addf without the
    // `contract` flag must not fuse (the CPU and SPIR-V lowerings keep them
    // apart); math.fma is an explicit fmaf.
    std::vector<std::string> out = {"--gpu-architecture=" + architecture,
                                    "-std=c++17", "--fmad=false"};
    if (!includeDir_.empty()) {
      out.push_back("-I" + includeDir_ + "/cccl");
      out.push_back("-I" + includeDir_);
    }
    // Extra options for experiments on a GPU machine, part of the cache key.
    if (const char *extra = std::getenv("SLUICE_HIP_NVRTC_OPTIONS")) {
      std::string text = extra;
      size_t at = 0;
      while (at < text.size()) {
        size_t end = text.find(' ', at);
        if (end == std::string::npos)
          end = text.size();
        if (end > at)
          out.push_back(text.substr(at, end - at));
        at = end + 1;
      }
    }
    return out;
  }

  Status compile(const std::string &source, const std::string &label,
                 const std::vector<std::string> &options,
                 std::vector<char> &cubin) {
    const NvrtcFunctions &f = fn_;
    nvrtcProgram program = nullptr;
    nvrtcResult result = f.nvrtcCreateProgram(&program, source.c_str(),
                                              label.c_str(), 0, nullptr,
                                              nullptr);
    if (result != NVRTC_SUCCESS)
      return Status::error(ErrorKind::DeviceError,
                           "hip device: nvrtcCreateProgram for " + label +
                               " failed: " + f.nvrtcGetErrorString(result));
    std::vector<const char *> argv;
    for (const std::string &option : options)
      argv.push_back(option.c_str());
    result = f.nvrtcCompileProgram(program, int(argv.size()), argv.data());
    std::string log;
    size_t logSize = 0;
    if (f.nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS &&
        logSize > 1) {
      log.resize(logSize);
      f.nvrtcGetProgramLog(program, log.data());
      log.resize(logSize - 1);
    }
    Status status = Status::success();
    if (result != NVRTC_SUCCESS) {
      std::string joined;
      for (const std::string &option : options)
        joined += " " + option;
      status = Status::error(ErrorKind::DeviceError,
                             "hip device: NVRTC could not compile " + label +
                                 " (" + f.nvrtcGetErrorString(result) +
                                 ", options" + joined + "):\n" + log);
    } else {
      size_t size = 0;
      if (f.nvrtcGetCUBINSize(program, &size) != NVRTC_SUCCESS || size == 0) {
        status = Status::error(ErrorKind::DeviceError,
                               "hip device: NVRTC produced no CUBIN for " +
                                   label + " (is the architecture real, "
                                   "sm_XY rather than compute_XY?)");
      } else {
        cubin.resize(size);
        f.nvrtcGetCUBIN(program, cubin.data());
      }
    }
    f.nvrtcDestroyProgram(&program);
    return status;
  }

private:
  void *library_ = nullptr;
  std::string name_, includeDir_;
  NvrtcFunctions fn_{};
};

namespace {

class NvidiaDriver final : public Driver {
public:
  Platform platform() const override { return Platform::Nvidia; }

  Status open(const DriverRequest &request) {
    std::string tried;
    library_ = openFirst(cudaLibraryCandidates(request), libraryName_, tried);
    if (!library_)
      return Status::error(ErrorKind::DeviceUnavailable,
                           "hip device: no CUDA driver (libcuda.so.1 not "
                           "found; tried " +
                               tried +
                               "; install the NVIDIA driver, or set "
                               "SLUICE_HIP_CUDA_LIBRARY)");
    CudaFunctions &f = fn_;
#define SLUICE_CUDA(field, ...)                                                \
  if (!load(library_, f.field, {__VA_ARGS__}))                                 \
    return missingSymbol(libraryName_, #field);
    SLUICE_CUDA(cuInit, "cuInit")
    SLUICE_CUDA(cuDriverGetVersion, "cuDriverGetVersion")
    SLUICE_CUDA(cuDeviceGetCount, "cuDeviceGetCount")
    SLUICE_CUDA(cuDeviceGet, "cuDeviceGet")
    SLUICE_CUDA(cuDeviceGetAttribute, "cuDeviceGetAttribute")
    SLUICE_CUDA(cuDeviceGetName, "cuDeviceGetName")
    SLUICE_CUDA(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
    SLUICE_CUDA(cuCtxSetCurrent, "cuCtxSetCurrent")
    SLUICE_CUDA(cuModuleLoadData, "cuModuleLoadData")
    SLUICE_CUDA(cuModuleGetFunction, "cuModuleGetFunction")
    SLUICE_CUDA(cuMemAlloc, "cuMemAlloc_v2")
    SLUICE_CUDA(cuMemFree, "cuMemFree_v2")
    SLUICE_CUDA(cuMemHostAlloc, "cuMemHostAlloc")
    SLUICE_CUDA(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2")
    SLUICE_CUDA(cuMemFreeHost, "cuMemFreeHost")
    SLUICE_CUDA(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")
    SLUICE_CUDA(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")
    SLUICE_CUDA(cuMemsetD8Async, "cuMemsetD8Async")
    SLUICE_CUDA(cuLaunchKernel, "cuLaunchKernel")
    SLUICE_CUDA(cuStreamCreate, "cuStreamCreate")
    SLUICE_CUDA(cuStreamSynchronize, "cuStreamSynchronize")
    SLUICE_CUDA(cuEventCreate, "cuEventCreate")
    SLUICE_CUDA(cuEventRecord, "cuEventRecord")
    SLUICE_CUDA(cuEventElapsedTime, "cuEventElapsedTime_v2",
                "cuEventElapsedTime")
    SLUICE_CUDA(cuGetErrorName, "cuGetErrorName")
#undef SLUICE_CUDA
    // CUDA 12.4 and later: lets the first launch check the parameter count.
    load(library_, f.cuFuncGetParamInfo, {"cuFuncGetParamInfo"});

    if (CUresult r = f.cuInit(0); r != CUDA_SUCCESS)
      return Status::error(ErrorKind::DeviceUnavailable,
                           "hip device: " + libraryName_ +
                               " loaded but cuInit failed (" + errorName(r) +
                               "): no usable NVIDIA GPU");
    int count = 0;
    if (CUresult r = f.cuDeviceGetCount(&count); r != CUDA_SUCCESS || count == 0)
      return Status::error(ErrorKind::DeviceUnavailable,
                           "hip device: the CUDA driver reports no device");
    if (Status status = check(f.cuDeviceGet(&device_, 0), "cuDeviceGet");
        !status.ok())
      return status;
    if (Status status =
            check(f.cuDevicePrimaryCtxRetain(&context_, device_),
                  "cuDevicePrimaryCtxRetain");
        !status.ok())
      return status;
    if (Status status = bind(); !status.ok())
      return status;
    char name[256] = {};
    f.cuDeviceGetName(name, sizeof name - 1, device_);
    info_.name = name;
    auto attribute = [&](int which) {
      int value = 0;
      f.cuDeviceGetAttribute(&value, which, device_);
      return value;
    };
    info_.computeMajor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    info_.computeMinor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    info_.warpSize = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    info_.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    info_.maxThreadsPerBlock =
        attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    info_.maxSharedMemoryPerBlock =
        attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    info_.maxGridX = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    info_.architecture = "sm_" + std::to_string(info_.computeMajor) +
                         std::to_string(info_.computeMinor);
    info_.library = libraryName_;
    if (Status status = nvrtc_.open(request); !status.ok())
      return status;
    info_.compiler = nvrtc_.name();
    return Status::success();
  }

  Status loadModule(std::span<const char> image, void *&module) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    CUmodule out = nullptr;
    if (Status status = call(fn_.cuModuleLoadData(&out, image.data()),
                             "cuModuleLoadData");
        !status.ok())
      return status;
    module = out;
    return Status::success();
  }
  Status function(void *module, const std::string &symbol,
                  void *&out) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    CUfunction function = nullptr;
    CUresult r = fn_.cuModuleGetFunction(
        &function, static_cast<CUmodule>(module), symbol.c_str());
    if (r != CUDA_SUCCESS)
      return Status::error(ErrorKind::DeviceError,
                           "hip device: the compiled module has no kernel '" +
                               symbol + "' (cuModuleGetFunction: " +
                               errorName(r) + ")");
    out = function;
    return Status::success();
  }
  int parameterCount(void *function) override {
    if (!bind().ok())
      return -1;
    if (!fn_.cuFuncGetParamInfo)
      return -1;
    size_t offset = 0, size = 0, count = 0;
    while (fn_.cuFuncGetParamInfo(static_cast<CUfunction>(function), count,
                                  &offset, &size) == CUDA_SUCCESS)
      ++count;
    return int(count);
  }
  Status allocate(uint64_t bytes, DevicePointer &out) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    CUdeviceptr pointer = 0;
    if (Status status = call(fn_.cuMemAlloc(&pointer, std::max<uint64_t>(bytes, 16)),
                             "cuMemAlloc of " + std::to_string(bytes) +
                                 " bytes");
        !status.ok())
      return status;
    out = pointer;
    return Status::success();
  }
  void release(DevicePointer pointer) override {
    if (pointer && bind().ok())
      fn_.cuMemFree(pointer);
  }
  Status allocateMapped(uint64_t bytes, void *&host,
                        DevicePointer &device) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    void *memory = nullptr;
    if (Status status = call(
            fn_.cuMemHostAlloc(&memory, std::max<uint64_t>(bytes, 16),
                               kMemHostAllocPortable |
                                   kMemHostAllocDeviceMap),
            "cuMemHostAlloc of " + std::to_string(bytes) + " bytes");
        !status.ok())
      return status;
    CUdeviceptr pointer = 0;
    if (Status status = call(fn_.cuMemHostGetDevicePointer(&pointer, memory, 0),
                             "cuMemHostGetDevicePointer");
        !status.ok()) {
      fn_.cuMemFreeHost(memory);
      return status;
    }
    host = memory;
    device = pointer;
    return Status::success();
  }
  void releaseMapped(void *host) override {
    if (host && bind().ok())
      fn_.cuMemFreeHost(host);
  }
  Status createStream(void *&stream) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    CUstream out = nullptr;
    if (Status status = call(fn_.cuStreamCreate(&out, CU_STREAM_NON_BLOCKING),
                             "cuStreamCreate");
        !status.ok())
      return status;
    stream = out;
    return Status::success();
  }
  Status copyToDevice(DevicePointer to, const void *from, uint64_t bytes,
                      void *stream) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    return call(fn_.cuMemcpyHtoDAsync(to, from, bytes,
                                      static_cast<CUstream>(stream)),
                "cuMemcpyHtoDAsync of " + std::to_string(bytes) + " bytes");
  }
  Status copyToHost(void *to, DevicePointer from, uint64_t bytes,
                    void *stream) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    return call(fn_.cuMemcpyDtoHAsync(to, from, bytes,
                                      static_cast<CUstream>(stream)),
                "cuMemcpyDtoHAsync of " + std::to_string(bytes) + " bytes");
  }
  Status fill(DevicePointer to, uint8_t value, uint64_t bytes,
              void *stream) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    return call(fn_.cuMemsetD8Async(to, value, bytes,
                                    static_cast<CUstream>(stream)),
                "cuMemsetD8Async");
  }
  Status launch(void *function, const uint32_t grid[3], const uint32_t block[3],
                uint32_t sharedBytes, void *stream,
                void **parameters) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    return call(fn_.cuLaunchKernel(static_cast<CUfunction>(function), grid[0],
                                   grid[1], grid[2], block[0], block[1],
                                   block[2], sharedBytes,
                                   static_cast<CUstream>(stream), parameters,
                                   nullptr),
                "cuLaunchKernel");
  }
  Status synchronize(void *stream) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    return call(fn_.cuStreamSynchronize(static_cast<CUstream>(stream)),
                "cuStreamSynchronize");
  }
  Status createEvent(void *&event) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    CUevent out = nullptr;
    if (Status status = call(fn_.cuEventCreate(&out, CU_EVENT_DEFAULT),
                             "cuEventCreate");
        !status.ok())
      return status;
    event = out;
    return Status::success();
  }
  Status record(void *event, void *stream) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    return call(fn_.cuEventRecord(static_cast<CUevent>(event),
                                  static_cast<CUstream>(stream)),
                "cuEventRecord");
  }
  Status elapsedMilliseconds(void *start, void *end, float &ms) override {
    if (Status bound = bind(); !bound.ok())
      return bound;
    return call(fn_.cuEventElapsedTime(&ms, static_cast<CUevent>(start),
                                       static_cast<CUevent>(end)),
                "cuEventElapsedTime");
  }

protected:
  Status compileUncached(const std::string &source, const std::string &label,
                         const std::vector<std::string> &options,
                         std::vector<char> &image) override {
    return nvrtc_.compile(source, label, options, image);
  }
  std::vector<std::string> compileOptions() const override {
    return nvrtc_.options(info_.architecture);
  }

private:
  std::string errorName(CUresult r) const {
    const char *name = nullptr;
    if (fn_.cuGetErrorName && fn_.cuGetErrorName(r, &name) == CUDA_SUCCESS &&
        name)
      return name;
    return "CUresult " + std::to_string(r);
  }
  Status check(CUresult r, const std::string &what) const {
    if (r == CUDA_SUCCESS)
      return Status::success();
    return Status::error(ErrorKind::DeviceError,
                         "hip device: " + what + " failed: " + errorName(r));
  }
  // The primary context is current on the calling thread (each thread that
  // calls the driver binds it once).
  Status bind() const {
    thread_local CUcontext bound = nullptr;
    if (bound == context_)
      return Status::success();
    if (Status status = check(fn_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
        !status.ok())
      return status;
    bound = context_;
    return Status::success();
  }
  Status call(CUresult r, const std::string &what) const {
    return check(r, what);
  }

  void *library_ = nullptr;
  std::string libraryName_;
  CudaFunctions fn_{};
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  Nvrtc nvrtc_;
};

} // namespace

Status openNvidiaDriver(const DriverRequest &request,
                        std::unique_ptr<Driver> &out) {
  auto driver = std::make_unique<NvidiaDriver>();
  if (Status status = driver->open(request); !status.ok())
    return status;
  out = std::move(driver);
  return Status::success();
}

} // namespace sluice::runtime::hip::detail

namespace sluice::runtime::hip {

Status compileForNvidia(const DriverRequest &request, const std::string &source,
                        const std::string &label,
                        const std::string &architecture,
                        std::vector<char> &cubin) {
  detail::Nvrtc nvrtc;
  if (Status status = nvrtc.open(request); !status.ok())
    return status;
  return detail::cachedCompile(
      Platform::Nvidia, architecture, nvrtc.options(architecture), source,
      [&](const std::vector<std::string> &options, std::vector<char> &image) {
        return nvrtc.compile(source, label, options, image);
      },
      cubin);
}

} // namespace sluice::runtime::hip
