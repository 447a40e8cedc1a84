//===- hip_driver.cpp - Platform selection and the code-object cache ------===//

#include "hip_internal.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <unistd.h>

namespace sluice::runtime::hip {

Driver::~Driver() = default;

const char *platformName(Platform platform) {
  return platform == Platform::Amd ? "amd" : "nvidia";
}

Status Driver::cooperativeSupport() {
  return Status::error(ErrorKind::Unsupported,
                       std::string("the ") + platformName(platform()) +
                           " platform has no cooperative launch");
}

Status Driver::occupancy(void *, uint32_t, int &) {
  return cooperativeSupport();
}

Status Driver::launchCooperative(void *, const uint32_t[3], const uint32_t[3],
                                 uint32_t, void *, void **) {
  return cooperativeSupport();
}

std::string Driver::describe() const {
  std::string text = std::string(platformName(platform())) + " '" +
                     info_.name + "'";
  if (!info_.architecture.empty())
    text += " (" + info_.architecture + ")";
  return text;
}

namespace {

std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

std::atomic<uint64_t> cacheHits{0}, cacheMisses{0}, cacheWrites{0};

// FNV-1a over every part, each followed by its length so that parts cannot
// run into each other.
struct Hash {
  uint64_t value;
  void add(const void *data, size_t bytes) {
    const auto *p = static_cast<const unsigned char *>(data);
    for (size_t i = 0; i < bytes; ++i) {
      value ^= p[i];
      value *= 0x100000001b3ull;
    }
  }
  void add(const std::string &text) {
    add(text.data(), text.size());
    uint64_t size = text.size();
    add(&size, sizeof size);
  }
};

// A cache file: magic, a second hash of the key (a collision of the file
// name alone reads as a miss), the image size, the image.
constexpr char kCacheMagic[8] = {'S', 'L', 'H', 'I', 'P', 'C', '0', '1'};

} // namespace

DriverRequest driverRequestFromEnvironment() {
  DriverRequest request;
  request.platform = environment("SLUICE_HIP_PLATFORM");
  request.cudaLibrary = environment("SLUICE_HIP_CUDA_LIBRARY");
  request.nvrtcLibrary = environment("SLUICE_HIP_NVRTC_LIBRARY");
  request.amdLibrary = environment("SLUICE_HIP_AMD_LIBRARY");
  request.hiprtcLibrary = environment("SLUICE_HIP_HIPRTC_LIBRARY");
  return request;
}

std::vector<std::string> cudaLibraryCandidates(const DriverRequest &request) {
  if (!request.cudaLibrary.empty())
    return {request.cudaLibrary};
  // The loader path first; then where drivers live when it is not set up
  // (the H200 machine mounts the driver at /usr/local/nvidia). Never the
  // toolkit's stubs/libcuda.so, which loads but has no device.
  return {"libcuda.so.1",
          "/usr/local/nvidia/lib64/libcuda.so.1",
          "/usr/local/nvidia/lib/libcuda.so.1",
          "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
          "/usr/lib64/libcuda.so.1",
          "/usr/local/cuda/compat/libcuda.so.1"};
}

std::vector<std::string> nvrtcLibraryCandidates(const DriverRequest &request) {
  if (!request.nvrtcLibrary.empty())
    return {request.nvrtcLibrary};
  std::vector<std::string> names = {"libnvrtc.so.13", "libnvrtc.so.12",
                                    "libnvrtc.so"};
  std::vector<std::string> out = names;
  for (const std::string &home :
       {environment("CUDA_HOME"), environment("CUDA_PATH"),
        std::string("/usr/local/cuda")})
    if (!home.empty())
      for (const std::string &name : names)
        out.push_back(home + "/lib64/" + name);
  return out;
}

std::vector<std::string> amdLibraryCandidates(const DriverRequest &request) {
  if (!request.amdLibrary.empty())
    return {request.amdLibrary};
  return {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5",
          "/opt/rocm/lib/libamdhip64.so"};
}

std::vector<std::string> hiprtcLibraryCandidates(const DriverRequest &request) {
  if (!request.hiprtcLibrary.empty())
    return {request.hiprtcLibrary};
  // ROCm 5 exports hiprtc from libamdhip64 itself (the AMD driver tries it
  // after these).
  return {"libhiprtc.so", "libhiprtc.so.6", "libhiprtc.so.5",
          "/opt/rocm/lib/libhiprtc.so"};
}

namespace detail {

void *openFirst(const std::vector<std::string> &candidates, std::string &opened,
                std::string &tried) {
  for (const std::string &name : candidates) {
    dlerror();
    if (void *library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      opened = name;
      return library;
    }
    const char *reason = dlerror();
    std::string why = reason ? reason : "not found";
    // dlerror repeats the name: keep only the reason after it.
    if (size_t colon = why.rfind(": "); colon != std::string::npos)
      why = why.substr(colon + 2);
    tried += (tried.empty() ? "" : ", ") + name + " (" + why + ")";
  }
  return nullptr;
}

void *symbol(void *library, std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (void *address = dlsym(library, name))
      return address;
  return nullptr;
}

} // namespace detail

Status openDriver(const DriverRequest &request, std::unique_ptr<Driver> &out) {
  out.reset();
  if (request.platform == "nvidia")
    return detail::openNvidiaDriver(request, out);
  if (request.platform == "amd")
    return detail::openAmdDriver(request, out);
  if (!request.platform.empty())
    return Status::error(ErrorKind::InvalidArgument,
                         "hip device: SLUICE_HIP_PLATFORM is '" +
                             request.platform +
                             "'; expected 'amd' or 'nvidia' (or unset: AMD "
                             "when it has a device, else NVIDIA)");
  Status amd = detail::openAmdDriver(request, out);
  if (amd.ok())
    return amd;
  Status nvidia = detail::openNvidiaDriver(request, out);
  if (nvidia.ok())
    return nvidia;
  // Both messages start with "hip device: "; say both.
  auto reason = [](const Status &status) {
    std::string text = status.message();
    const std::string prefix = "hip device: ";
    return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
  };
  ErrorKind kind = nvidia.kind() == ErrorKind::DeviceUnavailable ? amd.kind()
                                                                 : nvidia.kind();
  return Status::error(kind, "hip device: no usable platform: NVIDIA: " +
                                 reason(nvidia) + "; AMD: " + reason(amd));
}

Status processDriver(Driver *&out) {
  static std::once_flag once;
  static Driver *driver = nullptr; // leaked: launches may outlive statics
  static Status *status = nullptr;
  std::call_once(once, [] {
    std::unique_ptr<Driver> opened;
    status = new Status(openDriver(driverRequestFromEnvironment(), opened));
    driver = opened.release();
  });
  out = driver;
  return *status;
}

std::string cacheDirectory() {
  if (const char *dir = std::getenv("SLUICE_HIP_CACHE_DIR"))
    return dir; // "" turns the cache off
  std::string xdg = environment("XDG_CACHE_HOME");
  if (!xdg.empty())
    return xdg + "/sluice/hip";
  std::string home = environment("HOME");
  if (!home.empty())
    return home + "/.cache/sluice/hip";
  return "";
}

std::string cacheKey(Platform platform, const std::string &architecture,
                     const std::vector<std::string> &options,
                     const std::string &source) {
  Hash hash{0xcbf29ce484222325ull};
  hash.add(platformName(platform));
  hash.add(architecture);
  for (const std::string &option : options)
    hash.add(option);
  hash.add(source);
  char name[64];
  std::snprintf(name, sizeof name, "%s-%s-%016llx", platformName(platform),
                architecture.empty() ? "any" : architecture.c_str(),
                static_cast<unsigned long long>(hash.value));
  return name;
}

CacheCounts cacheCounts() {
  return {cacheHits.load(), cacheMisses.load(), cacheWrites.load()};
}

namespace detail {

Status cachedCompile(Platform platform, const std::string &architecture,
                     const std::vector<std::string> &options,
                     const std::string &source, const UncachedCompile &compile,
                     std::vector<char> &image) {
  std::string directory = cacheDirectory();
  std::string key = cacheKey(platform, architecture, options, source);
  // The check hash: the key's inputs again under another basis.
  Hash check{0x84222325cbf29ce4ull};
  check.add(key);
  check.add(source);
  for (const std::string &option : options)
    check.add(option);
  std::string path = directory.empty() ? "" : directory + "/" + key + ".bin";
  if (!path.empty()) {
    std::ifstream in(path, std::ios::binary);
    char magic[8];
    uint64_t stored = 0, size = 0;
    if (in.read(magic, 8) && std::memcmp(magic, kCacheMagic, 8) == 0 &&
        in.read(reinterpret_cast<char *>(&stored), 8) &&
        stored == check.value &&
        in.read(reinterpret_cast<char *>(&size), 8) && size > 0 &&
        size < (uint64_t(1) << 32)) {
      image.resize(size);
      if (in.read(image.data(), std::streamsize(size))) {
        ++cacheHits;
        return Status::success();
      }
    }
  }
  ++cacheMisses;
  if (Status status = compile(options, image); !status.ok())
    return status;
  if (path.empty())
    return Status::success();
  // Written to a private name, then renamed: a reader never sees half a file.
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream outFile(temporary, std::ios::binary | std::ios::trunc);
    uint64_t size = image.size();
    outFile.write(kCacheMagic, 8);
    outFile.write(reinterpret_cast<const char *>(&check.value), 8);
    outFile.write(reinterpret_cast<const char *>(&size), 8);
    outFile.write(image.data(), std::streamsize(image.size()));
    if (!outFile) {
      outFile.close();
      std::filesystem::remove(temporary, error);
      return Status::success(); // an unwritable cache is not an error
    }
  }
  std::filesystem::rename(temporary, path, error);
  if (error)
    std::filesystem::remove(temporary, error);
  else
    ++cacheWrites;
  return Status::success();
}

} // namespace detail

Status Driver::compile(const std::string &source, const std::string &label,
                       std::vector<char> &image) {
  return detail::cachedCompile(
      platform(), info_.architecture, compileOptions(), source,
      [&](const std::vector<std::string> &options, std::vector<char> &out) {
        return compileUncached(source, label, options, out);
      },
      image);
}

} // namespace sluice::runtime::hip
