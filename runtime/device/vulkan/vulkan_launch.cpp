//===- vulkan_launch.cpp - C ABI launching barrier kernels on Vulkan ------===//

#include "sluice/runtime/vulkan_launch.h"
#include "sluice/runtime/vulkan.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace sluice::runtime;
using namespace sluice::runtime::vulkan;

namespace {

[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "sluice: vulkan: %s\n", message.c_str());
  std::fflush(stderr);
  std::exit(1);
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
  std::map<std::tuple<const uint32_t *, std::string, uint32_t>, CachedKernel>
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
    fatal(global().status.describe());
  return *context;
}

constexpr size_t kMaxCachedBuffers = 256;

struct Argument {
  void *data = nullptr; // null: a scalar
  uint64_t bytes = 0;
  uint64_t value = 0;
};

struct LaunchState {
  const uint32_t *spirv = nullptr;
  uint64_t words = 0;
  std::string entry;
  bool open = false;
  std::vector<Argument> args;
  std::unique_ptr<Stream> stream;
  // Memref buffers by (host pointer, size); scalar buffers by position.
  std::map<std::pair<void *, uint64_t>, std::unique_ptr<Buffer>> buffers;
  std::vector<std::unique_ptr<Buffer>> scalars;
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

const Global::CachedKernel &kernelFor(const LaunchState &launch) {
  Global &g = global();
  uint32_t bindings = static_cast<uint32_t>(launch.args.size());
  std::lock_guard<std::mutex> lock(g.kernelMutex);
  auto key = std::make_tuple(launch.spirv, launch.entry, bindings);
  auto it = g.kernels.find(key);
  if (it != g.kernels.end())
    return it->second;
  Global::CachedKernel cached;
  findLocalSize(launch.spirv, launch.words, launch.entry, cached.localSize);
  Status status = context().createKernel(
      std::span<const uint32_t>(launch.spirv, launch.words), launch.entry,
      bindings, 0, cached.kernel);
  if (!status.ok())
    fatal("cannot create kernel @" + launch.entry + ": " + status.describe());
  return g.kernels.emplace(key, std::move(cached)).first->second;
}

Buffer &bufferFor(LaunchState &launch, void *data, uint64_t bytes) {
  auto key = std::make_pair(data, bytes);
  auto it = launch.buffers.find(key);
  if (it != launch.buffers.end())
    return *it->second;
  std::unique_ptr<Buffer> buffer;
  Status status = context().createBuffer(bytes, Placement::Device, buffer);
  if (!status.ok())
    fatal("cannot create a buffer of " + std::to_string(bytes) +
          " bytes: " + status.describe());
  return *launch.buffers.emplace(key, std::move(buffer)).first->second;
}

Buffer &scalarBuffer(LaunchState &launch, size_t position) {
  while (launch.scalars.size() <= position) {
    std::unique_ptr<Buffer> buffer;
    Status status = context().createBuffer(16, Placement::Device, buffer);
    if (!status.ok())
      fatal("cannot create a scalar buffer: " + status.describe());
    launch.scalars.push_back(std::move(buffer));
  }
  return *launch.scalars[position];
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
  launch.open = true;
}

void sluice_rt_vk_launch_arg(void *data, uint64_t bytes) {
  LaunchState &launch = openLaunch("sluice_rt_vk_launch_arg");
  if (!data && bytes > 0)
    fatal("kernel @" + launch.entry + " argument " +
          std::to_string(launch.args.size()) + " is a null memref of " +
          std::to_string(bytes) + " bytes");
  // A null pointer marks scalars; an empty memref gets a dummy address.
  static char emptyMemref;
  launch.args.push_back({data ? data : &emptyMemref, bytes, 0});
}

void sluice_rt_vk_launch_scalar(uint64_t value, uint64_t bytes) {
  LaunchState &launch = openLaunch("sluice_rt_vk_launch_scalar");
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    fatal("kernel @" + launch.entry + " scalar argument " +
          std::to_string(launch.args.size()) + " has " + std::to_string(bytes) +
          " bytes; expected 1, 2, 4 or 8");
  launch.args.push_back({nullptr, bytes, value});
}

void sluice_rt_vk_launch_end(uint64_t gx, uint64_t gy, uint64_t gz, uint64_t bx,
                             uint64_t by, uint64_t bz) {
  LaunchState &launch = openLaunch("sluice_rt_vk_launch_end");
  launch.open = false;
  Context &ctx = context();
  const Global::CachedKernel &cached = kernelFor(launch);
  const uint32_t *local = cached.localSize;
  if (bx != local[0] || by != local[1] || bz != local[2])
    fatal("kernel @" + launch.entry + " is launched with block " +
          std::to_string(bx) + "x" + std::to_string(by) + "x" +
          std::to_string(bz) + " but its SPIR-V LocalSize is " +
          std::to_string(local[0]) + "x" + std::to_string(local[1]) + "x" +
          std::to_string(local[2]));
  if (!launch.stream) {
    Status status = ctx.createStream(launch.stream);
    if (!status.ok())
      fatal("cannot create a stream: " + status.describe());
  }

  // Bounded: programs that allocate fresh arrays per launch do not grow the
  // cache forever. Evicting before any binding is taken keeps this launch's
  // buffers alive.
  if (launch.buffers.size() + launch.args.size() > kMaxCachedBuffers)
    launch.buffers.clear();

  using Clock = std::chrono::steady_clock;
  Clock::duration copyTime{};
  auto copyStart = Clock::now();
  std::vector<Buffer *> bindings;
  std::vector<std::pair<Buffer *, const Argument *>> memrefs;
  size_t scalarCount = 0;
  for (const Argument &arg : launch.args) {
    if (arg.data) {
      Buffer &buffer = bufferFor(launch, arg.data, arg.bytes);
      std::memcpy(buffer.data(), arg.data, arg.bytes);
      bindings.push_back(&buffer);
      memrefs.emplace_back(&buffer, &arg);
    } else {
      Buffer &buffer = scalarBuffer(launch, scalarCount++);
      std::memset(buffer.data(), 0, buffer.size());
      // Little-endian: the low `bytes` bytes come first.
      std::memcpy(buffer.data(), &arg.value, arg.bytes);
      bindings.push_back(&buffer);
    }
  }
  copyTime += Clock::now() - copyStart;

  const uint64_t groups[3] = {gx, gy, gz};
  launch.stream->dispatch(*cached.kernel, bindings, {}, groups);
  std::vector<double> gpuNs;
  Status status = launch.stream->submitAndWait(&gpuNs);
  if (!status.ok())
    fatal("kernel @" + launch.entry + " failed: " + status.describe());

  copyStart = Clock::now();
  for (auto &[buffer, arg] : memrefs)
    std::memcpy(arg->data, buffer->data(), arg->bytes);
  copyTime += Clock::now() - copyStart;

  if (global().timing) {
    double copyUs = std::chrono::duration<double, std::micro>(copyTime).count();
    char gpu[32] = "n/a";
    if (!gpuNs.empty())
      std::snprintf(gpu, sizeof(gpu), "%.3f", gpuNs[0] / 1000.0);
    std::fprintf(stderr,
                 "sluice: vulkan: @%s grid %llux%llux%llu block %llux%llux%llu"
                 ": gpu %s us, host copies %.3f us\n",
                 launch.entry.c_str(), static_cast<unsigned long long>(gx),
                 static_cast<unsigned long long>(gy),
                 static_cast<unsigned long long>(gz),
                 static_cast<unsigned long long>(bx),
                 static_cast<unsigned long long>(by),
                 static_cast<unsigned long long>(bz), gpu, copyUs);
  }
}

const char *sluice_rt_vk_device_name(void) {
  Context *context = tryContext();
  return context ? context->info().name.c_str() : nullptr;
}

} // extern "C"
