//===- hip_launch.cpp - C ABI launching HIP kernels -----------------------===//
//
// The HIP wrapper of the host-launch ABI (hip_launch.h). Residency decisions
// are launch/residency.h's, shared with the Vulkan wrapper; this file holds
// the device buffers and does the copies. One process-wide stream orders
// every launch and copy, so a launch that is not waited for needs no batch:
// the next copy back or sluice_rt_hip_synchronize waits for it.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/hip/hip_launch.h"

#include "sluice/runtime/device/hip/hip_driver.h"
#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/launch/residency.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using namespace sluice::runtime;
using hip::DevicePointer;
using hip::Driver;

namespace {

[[noreturn]] void fatal(const std::string &message, int code = kExitFailure) {
  std::fprintf(stderr, "sluice: hip: %s\n", message.c_str());
  std::fflush(stderr);
  std::exit(code);
}

Driver &driver() {
  Driver *driver = nullptr;
  Status status = hip::processDriver(driver);
  if (!driver)
    fatal(status.describe(), exitCodeFor(status));
  return *driver;
}

void check(const Status &status, const std::string &what) {
  if (!status.ok())
    fatal(what + ": " + status.describe(), exitCodeFor(status));
}

// Resident buffers kept at most, as on Vulkan.
constexpr size_t kMaxCachedBuffers = 256;

struct Resident : residency::Resident {
  DevicePointer device = 0;
  ~Resident() override {
    if (device)
      driver().release(device);
  }
};
DevicePointer deviceOf(const residency::Resident &resident) {
  return static_cast<const Resident &>(resident).device;
}

struct Kernel {
  void *function = nullptr;
  int parameters = -1; // what the driver reports, -1 unknown
};

// Process-wide, leaked like the Vulkan wrapper's (launch state of other
// threads may outlive static destructors).
struct Global {
  std::mutex mutex;
  residency::Table table;
  void *stream = nullptr;
  bool timing = false;
  // SLUICE_HIP_TIMING: an event before and after each launch, read when
  // the host next waits, so that timed launches still run back to back (a
  // wait per launch would time the host's launch latency too).
  struct Timed {
    std::string line; // "@kernel grid ... block ..."
    uint64_t bytesIn = 0, bytesOut = 0;
  };
  std::vector<std::pair<void *, void *>> events; // grows to the longest batch
  std::vector<Timed> timed;                      // launches since the last wait
  bool pending = false; // launches or copies not waited for
  // Modules by source address; the same text at another address shares
  // the module.
  std::map<const char *, void *> modulesByAddress;
  std::map<std::string, void *> modulesBySource;
  std::map<std::pair<void *, std::string>, Kernel> kernels;
  uint64_t uploads = 0, uploadBytes = 0, downloads = 0, downloadBytes = 0;
  uint64_t deferredLaunches = 0;
  bool exitHook = false;
};

Global &global() {
  static Global *instance = new Global();
  return *instance;
}

// The stream and events, on first use (the caller holds the mutex).
void *streamOf(Global &g) {
  if (!g.stream) {
    Driver &d = driver();
    check(d.createStream(g.stream), "cannot create a stream");
    const char *timing = std::getenv("SLUICE_HIP_TIMING");
    g.timing = timing && *timing && std::strcmp(timing, "0") != 0;
  }
  return g.stream;
}

void waitAll(Global &g, const std::string &what) {
  if (!g.pending)
    return;
  g.pending = false;
  check(driver().synchronize(g.stream), what);
  if (g.timed.empty())
    return;
  // One line per timed launch, then the batch from the first launch's start
  // to the last one's end (the launches and the gaps between them).
  auto elapsed = [&](void *from, void *to) {
    float ms = 0;
    check(driver().elapsedMilliseconds(from, to, ms), "cannot time a launch");
    return double(ms) * 1000.0;
  };
  for (size_t k = 0; k < g.timed.size(); ++k)
    std::fprintf(stderr,
                 "sluice: hip: %s: gpu %.3f us, copies in %llu bytes / out "
                 "%llu bytes\n",
                 g.timed[k].line.c_str(),
                 elapsed(g.events[k].first, g.events[k].second),
                 (unsigned long long)g.timed[k].bytesIn,
                 (unsigned long long)g.timed[k].bytesOut);
  if (g.timed.size() > 1)
    std::fprintf(stderr, "sluice: hip: batch of %zu launches: gpu %.3f us\n",
                 g.timed.size(),
                 elapsed(g.events.front().first,
                         g.events[g.timed.size() - 1].second));
  g.timed.clear();
}

// Brings the host bytes of the stale entries up to date (mutex held).
void download(Global &g, const std::vector<residency::ResidentPtr> &stale,
              const std::string &what) {
  if (stale.empty())
    return;
  void *stream = streamOf(g);
  uint64_t bytes = 0;
  for (const residency::ResidentPtr &resident : stale) {
    check(driver().copyToHost(resident->host, deviceOf(*resident),
                              resident->bytes, stream),
          "downloading for " + what);
    bytes += resident->bytes;
  }
  g.pending = true;
  waitAll(g, "downloading " + std::to_string(bytes) + " bytes for " + what);
  for (const residency::ResidentPtr &resident : stale)
    resident->hostCurrent = true;
  g.downloads += stale.size();
  g.downloadBytes += bytes;
}

void flush(Global &g, const std::vector<residency::ResidentPtr> &entries,
           const std::string &what, bool erase) {
  download(g, residency::staleOnHost(entries), what);
  if (erase)
    for (const residency::ResidentPtr &resident : entries)
      g.table.erase(*resident);
}

void *moduleFor(Global &g, const char *source, uint64_t bytes) {
  auto found = g.modulesByAddress.find(source);
  if (found != g.modulesByAddress.end())
    return found->second;
  std::string text(source, bytes ? bytes - 1 : std::strlen(source));
  auto same = g.modulesBySource.find(text);
  void *module = nullptr;
  if (same != g.modulesBySource.end()) {
    module = same->second;
  } else {
    Driver &d = driver();
    std::vector<char> image;
    check(d.compile(text, "the HIP source of a gpu.module", image),
          "cannot compile a kernel module");
    check(d.loadModule(image, module), "cannot load a kernel module");
    g.modulesBySource.emplace(std::move(text), module);
  }
  g.modulesByAddress.emplace(source, module);
  return module;
}

struct Operand {
  enum Kind : uint8_t { Memref, Scalar } kind = Memref;
  char *data = nullptr;
  uint64_t bytes = 0, access = 0, value = 0;
  std::vector<int64_t> dynamicSizes;
};

struct LaunchState {
  bool open = false;
  const char *source = nullptr;
  uint64_t sourceBytes = 0;
  std::string kernel;
  uint64_t workgroupBytes = 0;
  std::vector<Operand> operands;
  std::vector<uint64_t> values;
  std::vector<void *> pointers;
};

LaunchState &launchState() {
  thread_local LaunchState *state = new LaunchState(); // leaked: see Global
  return *state;
}

LaunchState &openLaunch(const char *call) {
  LaunchState &launch = launchState();
  if (!launch.open)
    fatal(std::string(call) + " called without sluice_rt_hip_launch_begin");
  return launch;
}

} // namespace

extern "C" {

void sluice_rt_hip_launch_begin(const char *source, uint64_t bytes,
                                const char *kernel) {
  LaunchState &launch = launchState();
  if (launch.open)
    fatal("sluice_rt_hip_launch_begin for @" +
          std::string(kernel ? kernel : "") + " while @" + launch.kernel +
          " is still open");
  if (!source || !kernel)
    fatal("sluice_rt_hip_launch_begin with a null source or kernel name");
  if (bytes == 0 || source[bytes - 1] != '\0')
    fatal("kernel @" + std::string(kernel) + ": the HIP source of " +
          std::to_string(bytes) + " bytes does not end in a NUL byte");
  launch.source = source;
  launch.sourceBytes = bytes;
  launch.kernel = kernel;
  launch.workgroupBytes = 0;
  launch.operands.clear();
  launch.open = true;
}

void sluice_rt_hip_launch_workgroup_memory(uint64_t bytes) {
  openLaunch("sluice_rt_hip_launch_workgroup_memory").workgroupBytes = bytes;
}

void sluice_rt_hip_launch_memref(void *data, uint64_t bytes, uint64_t access,
                                 uint64_t rank, const int64_t *sizes) {
  LaunchState &launch = openLaunch("sluice_rt_hip_launch_memref");
  std::string which = "kernel @" + launch.kernel + " operand " +
                      std::to_string(launch.operands.size());
  if (!data && bytes > 0)
    fatal(which + " is a null memref of " + std::to_string(bytes) + " bytes");
  uint64_t dynamicBits = access >> SLUICE_LAUNCH_DYNAMIC_DIM_SHIFT;
  if (rank < 64 - SLUICE_LAUNCH_DYNAMIC_DIM_SHIFT && (dynamicBits >> rank) != 0)
    fatal(which + " of rank " + std::to_string(rank) +
          " marks a dynamic dimension beyond its rank (access " +
          std::to_string(access) + ")");
  Operand operand;
  operand.data = static_cast<char *>(data);
  operand.bytes = bytes;
  operand.access = access & SLUICE_LAUNCH_ACCESS_MASK;
  for (uint64_t d = 0; d < rank; ++d)
    if (access & SLUICE_LAUNCH_DYNAMIC_DIM(d))
      operand.dynamicSizes.push_back(sizes[d]);
  launch.operands.push_back(std::move(operand));
}

void sluice_rt_hip_launch_scalar(uint64_t value, uint64_t bytes) {
  LaunchState &launch = openLaunch("sluice_rt_hip_launch_scalar");
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    fatal("kernel @" + launch.kernel + " scalar operand " +
          std::to_string(launch.operands.size()) + " has " +
          std::to_string(bytes) + " bytes; expected 1, 2, 4 or 8");
  Operand operand;
  operand.kind = Operand::Scalar;
  operand.bytes = bytes;
  // Little-endian: the parameter's bytes are the low bytes of the slot.
  operand.value = bytes == 8 ? value : value & ((uint64_t(1) << (8 * bytes)) - 1);
  launch.operands.push_back(operand);
}

void sluice_rt_hip_launch_end(uint64_t gx, uint64_t gy, uint64_t gz,
                              uint64_t bx, uint64_t by, uint64_t bz) {
  LaunchState &launch = openLaunch("sluice_rt_hip_launch_end");
  launch.open = false;
  Driver &d = driver();
  const hip::DeviceInfo &info = d.info();
  std::string name = "kernel @" + launch.kernel;
  if (info.maxSharedMemoryPerBlock > 0 &&
      launch.workgroupBytes > uint64_t(info.maxSharedMemoryPerBlock))
    fatal(name + " uses " + std::to_string(launch.workgroupBytes) +
          " bytes of workgroup memory, but " + d.describe() + " allows " +
          std::to_string(info.maxSharedMemoryPerBlock) + " per block");
  uint64_t threads = bx * by * bz;
  if (bx == 0 || by == 0 || bz == 0 ||
      (info.maxThreadsPerBlock > 0 &&
       threads > uint64_t(info.maxThreadsPerBlock)) ||
      gx > uint64_t(info.maxGridX > 0 ? info.maxGridX : INT32_MAX) ||
      gy > 65535 || gz > 65535)
    fatal(name + " is launched with grid " + std::to_string(gx) + "x" +
          std::to_string(gy) + "x" + std::to_string(gz) + " and block " +
          std::to_string(bx) + "x" + std::to_string(by) + "x" +
          std::to_string(bz) + ", beyond " + d.describe() + " (at most " +
          std::to_string(info.maxThreadsPerBlock) + " threads a block, " +
          std::to_string(info.maxGridX) + " x 65535 x 65535 blocks)");

  Global &g = global();
  std::lock_guard<std::mutex> lock(g.mutex);
  void *stream = streamOf(g);
  void *module = moduleFor(g, launch.source, launch.sourceBytes);
  Kernel &kernel = g.kernels[{module, launch.kernel}];
  if (!kernel.function) {
    check(d.function(module, launch.kernel, kernel.function),
          "cannot find " + name);
    kernel.parameters = d.parameterCount(kernel.function);
  }

  std::vector<residency::Operand> memrefs(launch.operands.size());
  size_t parameterCount = 0;
  for (size_t i = 0; i < launch.operands.size(); ++i) {
    const Operand &operand = launch.operands[i];
    parameterCount += 1;
    if (operand.kind == Operand::Memref) {
      memrefs[i] = {operand.data, operand.bytes, operand.access};
      parameterCount += operand.dynamicSizes.size();
    }
  }
  if (kernel.parameters >= 0 && size_t(kernel.parameters) != parameterCount)
    fatal(name + " takes " + std::to_string(kernel.parameters) +
          " parameters, but the launch passes " +
          std::to_string(parameterCount) +
          " (a memref passes its pointer and one int64_t per dimension "
          "marked SLUICE_LAUNCH_DYNAMIC_DIM, a scalar its value)");

  residency::LaunchPlan plan;
  residency::planLaunch(g.table, memrefs, kMaxCachedBuffers, plan);
  std::string what = "before @" + launch.kernel;
  flush(g, plan.drop, what, /*erase=*/true);
  flush(g, plan.sync, what, /*erase=*/false);
  residency::settle(g.table, plan, [&](const residency::Group &group) {
    auto entry = std::make_shared<Resident>();
    check(d.allocate(group.bytes, entry->device),
          "cannot allocate the device copy of " + name + "'s operand");
    return entry;
  });
  uint64_t bytesIn = 0, bytesOut = 0;
  for (const residency::Group &group : plan.groups) {
    if (group.upload) {
      check(d.copyToDevice(deviceOf(*group.entry), group.host, group.bytes,
                           stream),
            "uploading an operand of " + name);
      bytesIn += group.bytes;
      ++g.uploads;
    }
    bytesOut += group.copyOut ? group.bytes : 0;
  }
  g.uploadBytes += bytesIn;

  // Parameters: pointers and dynamic sizes of memrefs, scalar values.
  launch.values.clear();
  for (size_t i = 0; i < launch.operands.size(); ++i) {
    const Operand &operand = launch.operands[i];
    if (operand.kind == Operand::Scalar) {
      launch.values.push_back(operand.value);
      continue;
    }
    size_t group = plan.groupOf[i];
    launch.values.push_back(group == SIZE_MAX
                                ? 0
                                : deviceOf(*plan.groups[group].entry));
    for (int64_t size : operand.dynamicSizes)
      launch.values.push_back(uint64_t(size));
  }
  launch.pointers.resize(launch.values.size());
  for (size_t i = 0; i < launch.values.size(); ++i)
    launch.pointers[i] = &launch.values[i];

  if (gx == 0 || gy == 0 || gz == 0)
    return; // an empty grid runs nothing
  const uint32_t grid[3] = {uint32_t(gx), uint32_t(gy), uint32_t(gz)};
  const uint32_t block[3] = {uint32_t(bx), uint32_t(by), uint32_t(bz)};
  std::pair<void *, void *> *events = nullptr;
  if (g.timing) {
    if (g.timed.size() == g.events.size()) {
      std::pair<void *, void *> pair;
      check(d.createEvent(pair.first), "cannot create an event");
      check(d.createEvent(pair.second), "cannot create an event");
      g.events.push_back(pair);
    }
    events = &g.events[g.timed.size()];
    check(d.record(events->first, stream), "cannot time " + name);
  }
  check(d.launch(kernel.function, grid, block, 0, stream,
                 launch.pointers.data()),
        "cannot launch " + name);
  g.pending = true;
  if (events) {
    check(d.record(events->second, stream), "cannot time " + name);
    char line[256];
    std::snprintf(line, sizeof line,
                  "@%s grid %llux%llux%llu block %llux%llux%llu",
                  launch.kernel.c_str(), (unsigned long long)gx,
                  (unsigned long long)gy, (unsigned long long)gz,
                  (unsigned long long)bx, (unsigned long long)by,
                  (unsigned long long)bz);
    g.timed.push_back({line, bytesIn, bytesOut});
  }
  if (plan.deferred) {
    ++g.deferredLaunches;
    if (!g.exitHook) {
      g.exitHook = true;
      std::atexit(sluice_rt_hip_synchronize);
    }
    return;
  }
  // Results back in host memory before returning.
  for (const residency::Group &group : plan.groups)
    if (group.copyOut) {
      check(d.copyToHost(group.host, deviceOf(*group.entry), group.bytes,
                         stream),
            "copying back an operand of " + name);
      ++g.downloads;
    }
  g.downloadBytes += bytesOut;
  waitAll(g, name + " failed");
}

void sluice_rt_hip_host_access(void *data, uint64_t bytes, uint64_t access) {
  if (std::string problem = residency::checkHostAccess(access);
      !problem.empty())
    fatal("sluice_rt_hip_host_access with " + problem);
  Global &g = global();
  std::lock_guard<std::mutex> lock(g.mutex);
  // Nothing resident (no HIP launch yet): never open the driver.
  if (g.table.entries.empty() || bytes == 0)
    return;
  std::vector<residency::ResidentPtr> touched =
      g.table.overlapping(reinterpret_cast<uintptr_t>(data), bytes);
  if (touched.empty())
    return;
  // Launches in flight may write these device copies.
  waitAll(g, "a launch before a host access failed");
  if (access != SLUICE_HOST_FREE)
    flush(g, touched, residency::hostAccessReason(access), /*erase=*/false);
  residency::finishHostAccess(g.table, touched, access);
}

void sluice_rt_hip_synchronize(void) {
  Global &g = global();
  std::lock_guard<std::mutex> lock(g.mutex);
  waitAll(g, "a launch failed");
}

void sluice_rt_hip_transfer_counts(struct sluice_rt_hip_transfers *out) {
  Global &g = global();
  std::lock_guard<std::mutex> lock(g.mutex);
  out->uploads = g.uploads;
  out->upload_bytes = g.uploadBytes;
  out->downloads = g.downloads;
  out->download_bytes = g.downloadBytes;
  out->resident_buffers = g.table.entries.size();
  out->resident_bytes = 0;
  for (const auto &[start, resident] : g.table.entries)
    out->resident_bytes += resident->bytes;
  out->deferred_launches = g.deferredLaunches;
}

const char *sluice_rt_hip_device_name(void) {
  static std::string *name = nullptr;
  Driver *d = nullptr;
  (void)hip::processDriver(d);
  if (!d)
    return nullptr;
  if (!name)
    name = new std::string(d->describe());
  return name->c_str();
}

} // extern "C"
