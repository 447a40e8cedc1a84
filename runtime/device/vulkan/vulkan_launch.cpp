//===- vulkan_launch.cpp - C ABI launching barrier kernels on Vulkan ------===//

#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/device/vulkan/vulkan_launch.h"
#include "sluice/runtime/device/vulkan/vulkan.h"
#include "sluice/runtime/launch/residency.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

using namespace sluice::runtime;
using namespace sluice::runtime::vulkan;

namespace {

[[noreturn]] void fatal(const std::string &message, int code = kExitFailure) {
  std::fprintf(stderr, "sluice: vulkan: %s\n", message.c_str());
  std::fflush(stderr);
  std::exit(code);
}

// The process-wide context is never destroyed: thread_local launch state and
// kernels of other threads may outlive any static destructor order.
struct Global {
  std::once_flag once;
  Context *context = nullptr;
  Status status;
  bool timing = false;
  std::mutex kernelMutex;
  struct CachedKernel {
    std::unique_ptr<Kernel> kernel;
    uint32_t localSize[3];
  };
  // By module, entry, bindings and the block size of a kernel whose block
  // size is chosen at run time (0 0 0 for every other kernel).
  std::map<std::tuple<const uint32_t *, std::string, uint32_t,
                      std::array<uint32_t, 3>>,
           CachedKernel>
      kernels;
};

Global &global() {
  static Global *instance = new Global();
  return *instance;
}

Context *tryContext() {
  Global &g = global();
  std::call_once(g.once, [&g] {
    std::unique_ptr<Context> context;
    g.status = Context::create(context);
    g.context = context.release();
    const char *timing = std::getenv("SLUICE_VULKAN_TIMING");
    g.timing = timing && *timing && std::strcmp(timing, "0") != 0;
  });
  return g.context;
}

Context &context() {
  Context *context = tryContext();
  if (!context)
    fatal(global().status.describe(), exitCodeFor(global().status));
  return *context;
}

// Resident buffers kept at most (ResidencyTable).
constexpr size_t kMaxCachedBuffers = 256;

struct Argument {
  enum Kind : uint8_t { Memref, Scalar, Scratch } kind = Memref;
  void *data = nullptr;
  uint64_t bytes = 0;  // memref and scalar size; scratch bytes per invocation
  uint64_t value = 0;  // scalar value
  uint64_t access = 0; // memref SLUICE_RT_VK_READ / _WRITE / _RESIDENT
};

struct LaunchState {
  const uint32_t *spirv = nullptr;
  uint64_t words = 0;
  std::string entry;
  bool open = false;
  uint64_t workgroupBytes = 0;
  std::vector<Argument> args;
  std::unique_ptr<Stream> stream;
  // Scalar and scratch buffers by position among the scalars / scratch calls
  // of a launch; the buffer every empty memref binds.
  std::vector<std::unique_ptr<Buffer>> scalars;
  std::vector<std::unique_ptr<Buffer>> scratch;
  std::unique_ptr<Buffer> empty;
};

LaunchState &launchState() {
  // Leaked on purpose like the context: see Global.
  thread_local LaunchState *state = new LaunchState();
  return *state;
}

// Reads the null-terminated literal string starting at words[at].
std::string literalString(const uint32_t *words, uint64_t at, uint64_t end) {
  std::string text;
  for (uint64_t i = at; i < end; ++i) {
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((words[i] >> (8 * b)) & 0xff);
      if (c == '\0')
        return text;
      text.push_back(c);
    }
  }
  return text;
}

// Finds the LocalSize of the GLCompute entry point `entry`; exits if absent.
void findLocalSize(const uint32_t *words, uint64_t count,
                   const std::string &entry, uint32_t localSize[3]) {
  constexpr uint32_t kOpEntryPoint = 15, kOpExecutionMode = 16, kLocalSize = 17;
  if (count < 5 || words[0] != 0x07230203u)
    fatal("kernel @" + entry + ": the SPIR-V binary has no valid header");
  uint64_t entryId = UINT64_MAX;
  bool found = false;
  // Entry points precede execution modes in the module layout, but a second
  // pass keeps the parser independent of that.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t at = 5; at < count;) {
      uint32_t wordCount = words[at] >> 16, opcode = words[at] & 0xffff;
      if (wordCount == 0 || at + wordCount > count)
        fatal("kernel @" + entry + ": malformed SPIR-V instruction at word " +
              std::to_string(at));
      if (pass == 0 && opcode == kOpEntryPoint && wordCount >= 4 &&
          literalString(words, at + 3, at + wordCount) == entry)
        entryId = words[at + 2];
      if (pass == 1 && opcode == kOpExecutionMode && wordCount >= 6 &&
          words[at + 1] == entryId && words[at + 2] == kLocalSize) {
        for (int d = 0; d < 3; ++d)
          localSize[d] = words[at + 3 + d];
        found = true;
      }
      at += wordCount;
    }
    if (pass == 0 && entryId == UINT64_MAX)
      fatal("the SPIR-V module has no entry point named '" + entry + "'");
  }
  if (!found)
    fatal("entry point @" + entry + " has no LocalSize execution mode");
}

// The push-constant block the compiler builds from a kernel's scalar
// arguments (sluice-spirv-push-constants): the scalars in argument order,
// each at its natural alignment. The range is rounded up to 4 bytes.
std::vector<std::byte> pushConstants(const LaunchState &launch) {
  std::vector<std::byte> block;
  for (const Argument &arg : launch.args) {
    if (arg.kind != Argument::Scalar)
      continue;
    size_t offset = (block.size() + arg.bytes - 1) / arg.bytes * arg.bytes;
    block.resize(offset + arg.bytes);
    // Little-endian: the low `bytes` bytes come first.
    std::memcpy(block.data() + offset, &arg.value, arg.bytes);
  }
  block.resize((block.size() + 3) / 4 * 4);
  return block;
}

// The words of a kernel whose block size is chosen at run time
// (sluice-gpu-to-spirv: spec constants `<entry>__block_dim_{x,y,z}` and
// LocalSize 1 1 1) specialized for `block`: both set to it. Empty when
// `entry` has no such constants.
std::vector<uint32_t>
specializeBlockSize(const uint32_t *words, uint64_t count,
                    const std::string &entry,
                    const std::array<uint32_t, 3> &block) {
  constexpr uint32_t kOpName = 5, kOpEntryPoint = 15, kOpExecutionMode = 16,
                     kOpSpecConstant = 50, kLocalSize = 17;
  std::map<uint32_t, int> dimOf; // spec constant id -> dimension
  uint64_t entryId = UINT64_MAX;
  for (uint64_t at = 5; at < count; at += words[at] >> 16) {
    uint32_t wordCount = words[at] >> 16, opcode = words[at] & 0xffff;
    if (wordCount == 0 || at + wordCount > count)
      return {};
    if (opcode == kOpEntryPoint && wordCount >= 4 &&
        literalString(words, at + 3, at + wordCount) == entry)
      entryId = words[at + 2];
    if (opcode != kOpName || wordCount < 3)
      continue;
    std::string name = literalString(words, at + 2, at + wordCount);
    for (int d = 0; d < 3; ++d)
      if (name == entry + "__block_dim_" + char('x' + d))
        dimOf[words[at + 1]] = d;
  }
  if (dimOf.size() != 3 || entryId == UINT64_MAX)
    return {};
  std::vector<uint32_t> specialized(words, words + count);
  for (uint64_t at = 5; at < count; at += words[at] >> 16) {
    uint32_t wordCount = words[at] >> 16, opcode = words[at] & 0xffff;
    if (opcode == kOpSpecConstant && wordCount == 4)
      if (auto found = dimOf.find(words[at + 2]); found != dimOf.end())
        specialized[at + 3] = block[found->second];
    if (opcode == kOpExecutionMode && wordCount >= 6 &&
        words[at + 1] == entryId && words[at + 2] == kLocalSize)
      for (int d = 0; d < 3; ++d)
        specialized[at + 3 + d] = block[d];
  }
  return specialized;
}

// The pipeline of the launch's kernel for `block`: a kernel whose block size
// is chosen at run time gets one per block size, cached.
const Global::CachedKernel &kernelFor(const LaunchState &launch,
                                      const std::array<uint32_t, 3> &block) {
  Global &g = global();
  uint32_t bindings = static_cast<uint32_t>(launch.args.size());
  std::lock_guard<std::mutex> lock(g.kernelMutex);
  auto key = std::make_tuple(launch.spirv, launch.entry, bindings,
                             std::array<uint32_t, 3>{});
  auto it = g.kernels.find(key);
  if (it != g.kernels.end())
    return it->second;
  std::get<3>(key) = block;
  it = g.kernels.find(key);
  if (it != g.kernels.end())
    return it->second;
  Global::CachedKernel cached;
  findLocalSize(launch.spirv, launch.words, launch.entry, cached.localSize);
  std::vector<uint32_t> specialized =
      specializeBlockSize(launch.spirv, launch.words, launch.entry, block);
  if (specialized.empty())
    std::get<3>(key) = {}; // a fixed LocalSize: launch_end checks it
  else
    std::copy(block.begin(), block.end(), cached.localSize);
  std::span<const uint32_t> words =
      specialized.empty()
          ? std::span<const uint32_t>(launch.spirv, launch.words)
          : std::span<const uint32_t>(specialized);
  if (Status status = checkShaderCapabilities(
          words, context().info(), "the module of kernel @" + launch.entry);
      !status.ok())
    fatal(status.describe(), exitCodeFor(status));
  Status status = context().createKernel(
      words, launch.entry, bindings, uint32_t(pushConstants(launch).size()),
      cached.kernel);
  if (!status.ok())
    fatal("cannot create kernel @" + launch.entry + ": " + status.describe());
  return g.kernels.emplace(key, std::move(cached)).first->second;
}

std::unique_ptr<Buffer> makeBuffer(uint64_t bytes, Placement placement,
                                   const char *what) {
  std::unique_ptr<Buffer> buffer;
  Status status = context().createBuffer(bytes, placement, buffer);
  if (!status.ok())
    fatal(std::string("cannot create a ") + what + " buffer of " +
          std::to_string(bytes) + " bytes: " + status.describe());
  return buffer;
}

Buffer &scalarBuffer(LaunchState &launch, size_t position) {
  while (launch.scalars.size() <= position)
    launch.scalars.push_back(makeBuffer(16, Placement::Host, "scalar"));
  return *launch.scalars[position];
}

// a * b, or exits naming the overflowing product.
uint64_t checkedMultiply(uint64_t a, uint64_t b, const std::string &what) {
  uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    fatal(what + ": " + std::to_string(a) + " * " + std::to_string(b) +
          " overflows 64 bits");
  return product;
}

// The scratch buffer at `position`, at least `bytes` large.
Buffer &scratchBuffer(LaunchState &launch, size_t position, uint64_t bytes) {
  if (launch.scratch.size() <= position)
    launch.scratch.resize(position + 1);
  std::unique_ptr<Buffer> &buffer = launch.scratch[position];
  if (!buffer || buffer->size() < bytes) {
    buffer.reset(); // Free the old one before allocating the larger one.
    buffer = makeBuffer(bytes, Placement::DeviceOnly, "scratch");
  }
  return *buffer;
}

// Copies between host arrays and staging buffers: one thread moves about
// 5 GB/s (an H200 host took 12 ms for a 64 MiB operand), so large copies are
// split over up to 8 threads.
void copyBytes(void *destination, const void *source, uint64_t bytes) {
  constexpr uint64_t kSplitAbove = uint64_t(4) << 20;
  unsigned threads = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  if (bytes < kSplitAbove || threads == 1) {
    std::memcpy(destination, source, bytes);
    return;
  }
  uint64_t chunk = (bytes / threads + 63) & ~uint64_t(63);
  std::vector<std::thread> workers;
  auto *to = static_cast<unsigned char *>(destination);
  const auto *from = static_cast<const unsigned char *>(source);
  for (uint64_t begin = chunk; begin < bytes; begin += chunk) {
    uint64_t length = std::min(chunk, bytes - begin);
    workers.emplace_back([=] { std::memcpy(to + begin, from + begin, length); });
  }
  std::memcpy(to, from, std::min(chunk, bytes));
  for (std::thread &worker : workers)
    worker.join();
}

//===----------------------------------------------------------------------===//
// Residency: the device copies of host memory (vulkan_launch.h)
//===----------------------------------------------------------------------===//

// The device copy of a host range (residency.h decides which copy is
// current): a device-only buffer and a host-visible staging buffer.
struct Resident : residency::Resident {
  std::unique_ptr<Buffer> device;
  std::unique_ptr<Buffer> staging; // host-visible, made on the first copy
};
Resident &vulkanResident(residency::Resident &resident) {
  return static_cast<Resident &>(resident);
}
using residency::ResidentPtr;

// Process-wide: host memory is. Entries are shared with the launches that
// bind them, so dropping one while another thread's launch runs is safe.
struct ResidencyTable : residency::Table {
  std::mutex mutex;
  uint64_t uploads = 0, uploadBytes = 0, downloads = 0, downloadBytes = 0;
  uint64_t batchedLaunches = 0, batchSubmits = 0, batchWaits = 0;

  // Launches whose every memref stays resident (no copy back, no transient
  // range) are not waited for: they are recorded into this one process-wide
  // batch, in launch order, and submitted together when something needs
  // their results or their buffers: a host access to a resident range, a
  // launch that copies back or drops entries, an upload (its staging buffer
  // may still be read by a recorded copy), a full batch, or the exit. So N
  // back-to-back launches cost one submit and one wait, not N.
  struct Pending {
    std::string entry;
    uint64_t grid[3], block[3];
    uint64_t bytesIn = 0;
    double hostInUs = 0;
    size_t copiesIn = 0;
  };
  std::unique_ptr<Stream> batch;
  std::vector<Pending> pending;
  // The recorded launches go to the device in pieces while the host records
  // the rest (Stream::submit): the first alone, then pieces that double up
  // to kLaunchesPerSubmit, so the device starts at once and the submits
  // stay few. `queued`: launches of the batch already submitted.
  size_t queued = 0;
  // Of the batch: its submits so far, and the host's time recording it
  // (from the start of sluice_rt_vk_launch_end to the launch's return).
  size_t pieces = 0;
  double recordUs = 0;
  // Scalar buffers of the recorded launches: one set per launch, reused only
  // after the batch's wait.
  std::vector<std::unique_ptr<Buffer>> batchScalars;
  size_t batchScalarsUsed = 0;
  bool exitHook = false;
};

ResidencyTable &residencyTable() {
  static ResidencyTable *table = new ResidencyTable(); // leaked: see Global
  return *table;
}

// Recorded launches at most before the batch is waited for on its own.
constexpr size_t kMaxBatchedLaunches = 1024;
// Recorded launches at most per submit of a batch's piece.
constexpr size_t kLaunchesPerSubmit = 32;
// Bytes of one piece of an upload (the last may be shorter).
constexpr uint64_t kUploadPiece = uint64_t(16) << 20;

// Submits the recorded launches and waits for them (the caller holds the
// table's mutex); prints their timing lines under SLUICE_VULKAN_TIMING.
void flushBatch(ResidencyTable &table) {
  if (table.pending.empty())
    return;
  std::vector<double> gpuNs, copyNs;
  Status status = table.batch->submitAndWait(&gpuNs, &copyNs);
  size_t pieces = table.pieces + (table.queued < table.pending.size());
  table.batchSubmits += table.queued < table.pending.size();
  ++table.batchWaits;
  double recordUs = table.recordUs;
  std::vector<ResidencyTable::Pending> pending;
  pending.swap(table.pending);
  table.batchScalarsUsed = 0;
  table.queued = 0;
  table.pieces = 0;
  table.recordUs = 0;
  if (!status.ok()) {
    std::string kernels;
    for (const ResidencyTable::Pending &launch : pending)
      if (kernels.find("@" + launch.entry) == std::string::npos)
        kernels += (kernels.empty() ? "@" : ", @") + launch.entry;
    fatal("a batch of " + std::to_string(pending.size()) + " launches (" +
          kernels + ") failed: " + status.describe());
  }
  if (!global().timing)
    return;
  size_t copy = 0;
  for (size_t i = 0; i < pending.size(); ++i) {
    const ResidencyTable::Pending &launch = pending[i];
    char gpu[32] = "n/a", deviceIn[32] = "n/a";
    if (gpuNs.size() == pending.size())
      std::snprintf(gpu, sizeof(gpu), "%.3f", gpuNs[i] / 1000.0);
    if (copy + launch.copiesIn <= copyNs.size()) {
      double in = 0;
      for (size_t c = 0; c < launch.copiesIn; ++c)
        in += copyNs[copy + c];
      std::snprintf(deviceIn, sizeof(deviceIn), "%.3f", in / 1000.0);
    }
    copy += launch.copiesIn;
    std::fprintf(stderr,
                 "sluice: vulkan: @%s grid %llux%llux%llu block %llux%llux%llu"
                 ": gpu %s us, copies in %llu bytes %.3f+%s us / out 0 "
                 "bytes 0.000+0.000 us (host+device)\n",
                 launch.entry.c_str(),
                 static_cast<unsigned long long>(launch.grid[0]),
                 static_cast<unsigned long long>(launch.grid[1]),
                 static_cast<unsigned long long>(launch.grid[2]),
                 static_cast<unsigned long long>(launch.block[0]),
                 static_cast<unsigned long long>(launch.block[1]),
                 static_cast<unsigned long long>(launch.block[2]), gpu,
                 static_cast<unsigned long long>(launch.bytesIn),
                 launch.hostInUs, deviceIn);
  }
  // Where the batch's time went: the host recording the launches (the
  // device runs the queued pieces meanwhile) against their device time.
  double gpuUs = 0;
  for (double ns : gpuNs)
    gpuUs += ns / 1000.0;
  std::fprintf(stderr,
               "sluice: vulkan: batch of %zu launches in %zu submits: host "
               "recording %.3f us, gpu %.3f us\n",
               pending.size(), pieces, recordUs, gpuUs);
}

// The batch's stream and a fresh scalar buffer for a recorded launch (the
// caller holds the table's mutex).
Stream &batchStream(ResidencyTable &table) {
  if (!table.batch) {
    // Timestamps only for the timing lines: an untimed batch runs without
    // the two queries per launch.
    Status status = context().createStream(table.batch, global().timing);
    if (!status.ok())
      fatal("cannot create a stream: " + status.describe());
  }
  return *table.batch;
}
Buffer &batchScalar(ResidencyTable &table) {
  if (table.batchScalarsUsed == table.batchScalars.size())
    table.batchScalars.push_back(makeBuffer(16, Placement::Host, "scalar"));
  return *table.batchScalars[table.batchScalarsUsed++];
}

Buffer &stagingOf(residency::Resident &entry) {
  Resident &resident = vulkanResident(entry);
  if (!resident.staging)
    resident.staging = makeBuffer(resident.bytes, Placement::Host, "staging");
  return *resident.staging;
}

Stream &threadStream() {
  LaunchState &launch = launchState();
  if (!launch.stream) {
    Status status = context().createStream(launch.stream);
    if (!status.ok())
      fatal("cannot create a stream: " + status.describe());
  }
  return *launch.stream;
}

// Brings the host bytes of every entry of `stale` (none host-current) up to
// date: device -> staging on the GPU, staging -> host here. The caller holds
// the table's mutex. `what` names the reason in the timing line.
void download(ResidencyTable &table, const std::vector<ResidentPtr> &stale,
              const std::string &what) {
  if (stale.empty())
    return;
  flushBatch(table); // the launches that wrote them
  Stream &stream = threadStream();
  uint64_t bytes = 0;
  for (const ResidentPtr &resident : stale) {
    stream.copy(*vulkanResident(*resident).device, 0, stagingOf(*resident), 0,
                resident->bytes);
    bytes += resident->bytes;
  }
  std::vector<double> copyNs;
  Status status = stream.submitAndWait(nullptr, &copyNs);
  if (!status.ok())
    fatal("downloading " + std::to_string(bytes) + " bytes for " + what +
          " failed: " + status.describe());
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  for (const ResidentPtr &resident : stale) {
    copyBytes(resident->host, stagingOf(*resident).data(), resident->bytes);
    resident->hostCurrent = true;
  }
  auto host = Clock::now() - start;
  table.downloads += stale.size();
  table.downloadBytes += bytes;
  if (global().timing) {
    char device[32] = "n/a";
    if (copyNs.size() == stale.size()) {
      double ns = 0;
      for (double copy : copyNs)
        ns += copy;
      std::snprintf(device, sizeof(device), "%.3f", ns / 1000.0);
    }
    std::fprintf(
        stderr,
        "sluice: vulkan: %s: download %llu bytes (%zu buffer%s) in %.3f+%s us "
        "(host+device)\n",
        what.c_str(), static_cast<unsigned long long>(bytes), stale.size(),
        stale.size() == 1 ? "" : "s",
        std::chrono::duration<double, std::micro>(host).count(), device);
  }
}

// Downloads the entries of `flush` that are not host-current, then, when
// `erase`, drops them from the table. The caller holds the mutex.
void flush(ResidencyTable &table, const std::vector<ResidentPtr> &entries,
           const std::string &what, bool erase) {
  download(table, residency::staleOnHost(entries), what);
  if (erase)
    for (const ResidentPtr &resident : entries)
      table.erase(*resident);
}

LaunchState &openLaunch(const char *call) {
  LaunchState &launch = launchState();
  if (!launch.open)
    fatal(std::string(call) + " called without sluice_rt_vk_launch_begin");
  return launch;
}

} // namespace

extern "C" {

void sluice_rt_vk_launch_begin(const uint32_t *spirv, uint64_t words,
                               const char *entry) {
  LaunchState &launch = launchState();
  if (launch.open)
    fatal("sluice_rt_vk_launch_begin for @" + std::string(entry ? entry : "") +
          " while @" + launch.entry + " is still open");
  if (!spirv || !entry)
    fatal("sluice_rt_vk_launch_begin with a null SPIR-V or entry name");
  launch.spirv = spirv;
  launch.words = words;
  launch.entry = entry;
  launch.args.clear();
  launch.workgroupBytes = 0;
  launch.open = true;
}

void sluice_rt_vk_launch_workgroup_memory(uint64_t bytes) {
  LaunchState &launch = openLaunch("sluice_rt_vk_launch_workgroup_memory");
  launch.workgroupBytes = bytes;
}

void sluice_rt_vk_launch_arg(void *data, uint64_t bytes, uint64_t access) {
  LaunchState &launch = openLaunch("sluice_rt_vk_launch_arg");
  if (!data && bytes > 0)
    fatal("kernel @" + launch.entry + " argument " +
          std::to_string(launch.args.size()) + " is a null memref of " +
          std::to_string(bytes) + " bytes");
  if (access &
      ~uint64_t(SLUICE_RT_VK_READ | SLUICE_RT_VK_WRITE | SLUICE_RT_VK_RESIDENT))
    fatal("kernel @" + launch.entry + " argument " +
          std::to_string(launch.args.size()) + " has access flags " +
          std::to_string(access) +
          "; expected a mask of SLUICE_RT_VK_READ (1), SLUICE_RT_VK_WRITE (2) "
          "and SLUICE_RT_VK_RESIDENT (4)");
  Argument arg;
  arg.kind = Argument::Memref;
  arg.data = data;
  arg.bytes = bytes;
  arg.access = access;
  launch.args.push_back(arg);
}

void sluice_rt_vk_launch_scratch(uint64_t bytes_per_invocation) {
  LaunchState &launch = openLaunch("sluice_rt_vk_launch_scratch");
  Argument arg;
  arg.kind = Argument::Scratch;
  arg.bytes = bytes_per_invocation;
  launch.args.push_back(arg);
}

void sluice_rt_vk_launch_scalar(uint64_t value, uint64_t bytes) {
  LaunchState &launch = openLaunch("sluice_rt_vk_launch_scalar");
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    fatal("kernel @" + launch.entry + " scalar argument " +
          std::to_string(launch.args.size()) + " has " + std::to_string(bytes) +
          " bytes; expected 1, 2, 4 or 8");
  Argument arg;
  arg.kind = Argument::Scalar;
  arg.bytes = bytes;
  arg.value = value;
  launch.args.push_back(arg);
}

void sluice_rt_vk_launch_end(uint64_t gx, uint64_t gy, uint64_t gz, uint64_t bx,
                             uint64_t by, uint64_t bz) {
  auto entered = std::chrono::steady_clock::now();
  LaunchState &launch = openLaunch("sluice_rt_vk_launch_end");
  launch.open = false;
  Context &ctx = context();
  if (launch.workgroupBytes > ctx.info().maxSharedMemoryBytes)
    fatal("kernel @" + launch.entry + " uses " +
          std::to_string(launch.workgroupBytes) +
          " bytes of workgroup memory, but '" + ctx.info().name +
          "' allows " + std::to_string(ctx.info().maxSharedMemoryBytes) +
          " (maxComputeSharedMemorySize)");
  uint64_t lanes =
      checkedMultiply(checkedMultiply(bx, by, "block size"), bz, "block size");
  if (lanes > ctx.info().maxWorkgroupInvocations)
    fatal("kernel @" + launch.entry + " is launched with block " +
          std::to_string(bx) + "x" + std::to_string(by) + "x" +
          std::to_string(bz) + " (" + std::to_string(lanes) +
          " invocations), but '" + ctx.info().name + "' allows " +
          std::to_string(ctx.info().maxWorkgroupInvocations) +
          " (maxComputeWorkGroupInvocations)");
  std::array<uint32_t, 3> block{};
  if (bx <= UINT32_MAX && by <= UINT32_MAX && bz <= UINT32_MAX)
    block = {uint32_t(bx), uint32_t(by), uint32_t(bz)};
  const Global::CachedKernel &cached = kernelFor(launch, block);
  const uint32_t *local = cached.localSize;
  if (bx != local[0] || by != local[1] || bz != local[2])
    fatal("kernel @" + launch.entry + " is launched with block " +
          std::to_string(bx) + "x" + std::to_string(by) + "x" +
          std::to_string(bz) + " but its SPIR-V LocalSize is " +
          std::to_string(local[0]) + "x" + std::to_string(local[1]) + "x" +
          std::to_string(local[2]));
  // Scratch is sized by the whole grid's invocation count.
  uint64_t invocations = 0;
  bool hasScratch = false;
  for (const Argument &arg : launch.args)
    hasScratch |= arg.kind == Argument::Scratch;
  if (hasScratch) {
    std::string what = "kernel @" + launch.entry + " scratch size";
    invocations = checkedMultiply(gx, gy, what);
    invocations = checkedMultiply(invocations, gz, what);
    invocations = checkedMultiply(invocations, bx, what);
    invocations = checkedMultiply(invocations, by, what);
    invocations = checkedMultiply(invocations, bz, what);
  }

  // The memref arguments by host range (residency.h).
  std::vector<residency::Operand> operands(launch.args.size());
  for (size_t i = 0; i < launch.args.size(); ++i)
    if (launch.args[i].kind == Argument::Memref)
      operands[i] = {static_cast<char *>(launch.args[i].data),
                     launch.args[i].bytes, launch.args[i].access};
  residency::LaunchPlan plan;
  std::vector<residency::Group> &groups = plan.groups;
  const std::vector<size_t> &groupOf = plan.groupOf;

  using Clock = std::chrono::steady_clock;
  Clock::duration hostIn{}; // memcpy host -> staging only, not allocation
  uint64_t bytesIn = 0, bytesOut = 0;
  ResidencyTable &table = residencyTable();
  // Held through the recording when the launch goes into the batch.
  std::unique_lock<std::mutex> lock(table.mutex);
  bool deferred = false;
  {
    residency::planLaunch(table, operands, kMaxCachedBuffers, plan);
    deferred = plan.deferred;
    if (!deferred)
      flushBatch(table); // this launch waits: everything before it first
    if (!plan.drop.empty() || !plan.sync.empty()) {
      std::string what = "before @" + launch.entry;
      flush(table, plan.drop, what, /*erase=*/true);
      flush(table, plan.sync, what, /*erase=*/false);
    }
    residency::settle(table, plan, [](const residency::Group &g) {
      auto entry = std::make_shared<Resident>();
      entry->device = makeBuffer(g.bytes, Placement::DeviceOnly, "device");
      return entry;
    });
    for (residency::Group &g : groups) {
      if (g.upload) {
        flushBatch(table); // a recorded copy may still read this staging
        stagingOf(*g.entry);
        bytesIn += g.bytes;
      }
      if (g.copyOut) {
        stagingOf(*g.entry);
        bytesOut += g.bytes;
      }
    }
    table.uploads += std::count_if(groups.begin(), groups.end(),
                                   [](const residency::Group &g) { return g.upload; });
    table.uploadBytes += bytesIn;
    table.downloads += std::count_if(groups.begin(), groups.end(),
                                     [](const residency::Group &g) { return g.copyOut; });
    table.downloadBytes += bytesOut;
  }
  if (!deferred)
    lock.unlock();
  Stream &stream = deferred ? batchStream(table) : threadStream();

  std::vector<Buffer *> bindings;
  size_t scalarCount = 0, scratchCount = 0;
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const Argument &arg = launch.args[i];
    switch (arg.kind) {
    case Argument::Memref: {
      if (groupOf[i] != SIZE_MAX) {
        bindings.push_back(
            vulkanResident(*groups[groupOf[i]].entry).device.get());
        break;
      }
      if (!launch.empty)
        launch.empty = makeBuffer(0, Placement::DeviceOnly, "device");
      bindings.push_back(launch.empty.get());
      break;
    }
    case Argument::Scalar: {
      Buffer &buffer = deferred ? batchScalar(table)
                                : scalarBuffer(launch, scalarCount++);
      std::memset(buffer.data(), 0, buffer.size());
      // Little-endian: the low `bytes` bytes come first.
      std::memcpy(buffer.data(), &arg.value, arg.bytes);
      bindings.push_back(&buffer);
      break;
    }
    case Argument::Scratch: {
      uint64_t bytes = checkedMultiply(
          arg.bytes, invocations,
          "kernel @" + launch.entry + " scratch of " +
              std::to_string(arg.bytes) + " bytes per invocation for " +
              std::to_string(invocations) + " invocations");
      uint64_t range = ctx.info().maxStorageBufferRange;
      if (bytes > range)
        fatal("kernel @" + launch.entry + " needs " + std::to_string(bytes) +
              " bytes of scratch (" + std::to_string(arg.bytes) +
              " bytes per invocation * " + std::to_string(invocations) +
              " invocations) but the device binds at most " +
              std::to_string(range) + " bytes per storage buffer");
      size_t position = scratchCount++;
      // A recorded launch may still use the buffer a larger one replaces.
      if (deferred && (position >= launch.scratch.size() ||
                       !launch.scratch[position] ||
                       launch.scratch[position]->size() < bytes))
        flushBatch(table);
      bindings.push_back(&scratchBuffer(launch, position, bytes));
      break;
    }
    }
  }

  // Uploads in pieces of kUploadPiece bytes: the device copies one piece
  // from staging while the host fills the staging of the next.
  size_t copiesIn = 0, copiesOut = 0;
  for (const residency::Group &g : groups) {
    if (!g.upload)
      continue;
    Resident &entry = vulkanResident(*g.entry);
    for (uint64_t at = 0; at < g.bytes; at += kUploadPiece) {
      uint64_t bytes = std::min(kUploadPiece, g.bytes - at);
      auto start = Clock::now();
      copyBytes(static_cast<char *>(entry.staging->data()) + at, g.host + at,
                bytes);
      hostIn += Clock::now() - start;
      stream.copy(*entry.staging, at, *entry.device, at, bytes);
      ++copiesIn;
      if (at + bytes == g.bytes)
        continue;
      (void)stream.submit(); // errors surface at the wait
      if (deferred) {
        ++table.batchSubmits;
        ++table.pieces;
        table.queued = table.pending.size();
      }
    }
  }
  const uint64_t grid[3] = {gx, gy, gz};
  std::vector<std::byte> push = pushConstants(launch);
  stream.dispatch(*cached.kernel, bindings, push, grid);
  for (const residency::Group &g : groups)
    if (g.copyOut) {
      Resident &entry = vulkanResident(*g.entry);
      stream.copy(*entry.device, 0, *entry.staging, 0, g.bytes);
      ++copiesOut;
    }
  if (deferred) {
    ResidencyTable::Pending &pending = table.pending.emplace_back();
    pending.entry = launch.entry;
    std::copy(grid, grid + 3, pending.grid);
    pending.block[0] = bx, pending.block[1] = by, pending.block[2] = bz;
    pending.bytesIn = bytesIn;
    pending.hostInUs =
        std::chrono::duration<double, std::micro>(hostIn).count();
    pending.copiesIn = copiesIn;
    ++table.batchedLaunches;
    if (!table.exitHook) {
      table.exitHook = true;
      std::atexit(sluice_rt_vk_synchronize);
    }
    if (table.pending.size() >= kMaxBatchedLaunches) {
      flushBatch(table);
    } else if (table.pending.size() - table.queued >=
               std::clamp<size_t>(table.queued, 1, kLaunchesPerSubmit)) {
      // Errors surface at the batch's wait.
      (void)table.batch->submit();
      ++table.batchSubmits;
      ++table.pieces;
      table.queued = table.pending.size();
    }
    table.recordUs += std::chrono::duration<double, std::micro>(
                          std::chrono::steady_clock::now() - entered)
                          .count();
    return;
  }
  std::vector<double> gpuNs, copyNs;
  Status status = stream.submitAndWait(&gpuNs, &copyNs);
  if (!status.ok())
    fatal("kernel @" + launch.entry + " failed: " + status.describe());

  // In argument order: of two transient ranges that overlap, the later
  // argument's bytes win where both were written.
  auto hostOutStart = Clock::now();
  for (const residency::Group &g : groups)
    if (g.copyOut)
      copyBytes(g.host, stagingOf(*g.entry).data(), g.bytes);
  auto hostOut = Clock::now() - hostOutStart;

  if (global().timing) {
    using Micro = std::chrono::duration<double, std::micro>;
    char gpu[32] = "n/a", deviceIn[32] = "n/a", deviceOut[32] = "n/a";
    if (!gpuNs.empty())
      std::snprintf(gpu, sizeof(gpu), "%.3f", gpuNs[0] / 1000.0);
    // copyNs holds the copies in, then the copies out, in recording order.
    if (copyNs.size() == copiesIn + copiesOut) {
      double in = 0, out = 0;
      for (size_t i = 0; i < copyNs.size(); ++i)
        (i < copiesIn ? in : out) += copyNs[i];
      std::snprintf(deviceIn, sizeof(deviceIn), "%.3f", in / 1000.0);
      std::snprintf(deviceOut, sizeof(deviceOut), "%.3f", out / 1000.0);
    }
    std::fprintf(stderr,
                 "sluice: vulkan: @%s grid %llux%llux%llu block %llux%llux%llu"
                 ": gpu %s us, copies in %llu bytes %.3f+%s us / out %llu "
                 "bytes %.3f+%s us (host+device)\n",
                 launch.entry.c_str(), static_cast<unsigned long long>(gx),
                 static_cast<unsigned long long>(gy),
                 static_cast<unsigned long long>(gz),
                 static_cast<unsigned long long>(bx),
                 static_cast<unsigned long long>(by),
                 static_cast<unsigned long long>(bz), gpu,
                 static_cast<unsigned long long>(bytesIn),
                 Micro(hostIn).count(), deviceIn,
                 static_cast<unsigned long long>(bytesOut),
                 Micro(hostOut).count(), deviceOut);
  }
}

void sluice_rt_vk_host_access(void *data, uint64_t bytes, uint64_t access) {
  if (std::string problem = residency::checkHostAccess(access);
      !problem.empty())
    fatal("sluice_rt_vk_host_access with " + problem);
  ResidencyTable &table = residencyTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  // Nothing resident (no launch yet, the CPU backend): never touch Vulkan.
  if (table.entries.empty() || bytes == 0)
    return;
  std::vector<ResidentPtr> touched =
      table.overlapping(reinterpret_cast<uintptr_t>(data), bytes);
  // The recorded launches may read or write these ranges' device copies.
  if (!touched.empty())
    flushBatch(table);
  if (access != SLUICE_HOST_FREE)
    flush(table, touched, residency::hostAccessReason(access),
          /*erase=*/false);
  residency::finishHostAccess(table, touched, access);
}

void sluice_rt_vk_synchronize(void) {
  ResidencyTable &table = residencyTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  flushBatch(table);
}

void sluice_rt_vk_transfer_counts(struct sluice_rt_vk_transfers *out) {
  ResidencyTable &table = residencyTable();
  std::lock_guard<std::mutex> lock(table.mutex);
  out->uploads = table.uploads;
  out->upload_bytes = table.uploadBytes;
  out->downloads = table.downloads;
  out->download_bytes = table.downloadBytes;
  out->resident_buffers = table.entries.size();
  out->batched_launches = table.batchedLaunches;
  out->batch_submits = table.batchSubmits;
  out->batch_waits = table.batchWaits;
  out->resident_bytes = 0;
  for (const auto &[start, resident] : table.entries)
    out->resident_bytes += resident->bytes;
}

const char *sluice_rt_vk_device_name(void) {
  Context *context = tryContext();
  return context ? context->info().name.c_str() : nullptr;
}

} // extern "C"
