//===- vulkan_launch.cpp - C ABI launching barrier kernels on Vulkan ------===//

#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/device/vulkan/vulkan_launch.h"
#include "sluice/runtime/device/vulkan/vulkan.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
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
    fatal(global().status.describe(), exitCodeFor(global().status));
  return *context;
}

constexpr size_t kMaxCachedBuffers = 256;

struct Argument {
  enum Kind : uint8_t { Memref, Scalar, Scratch } kind = Memref;
  void *data = nullptr;
  uint64_t bytes = 0;  // memref and scalar size; scratch bytes per invocation
  uint64_t value = 0;  // scalar value
  uint64_t access = 0; // memref SLUICE_RT_VK_READ / SLUICE_RT_VK_WRITE
};

// A memref's device-only buffer and its host-visible staging buffer (made on
// first need: an access-0 argument has none).
struct MemrefBuffers {
  std::unique_ptr<Buffer> device;
  std::unique_ptr<Buffer> staging;
};

struct LaunchState {
  const uint32_t *spirv = nullptr;
  uint64_t words = 0;
  std::string entry;
  bool open = false;
  uint64_t workgroupBytes = 0;
  std::vector<Argument> args;
  std::unique_ptr<Stream> stream;
  // Memref buffers by (host pointer, size); scalar and scratch buffers by
  // position among the scalars / scratch calls of a launch.
  std::map<std::pair<void *, uint64_t>, MemrefBuffers> buffers;
  std::vector<std::unique_ptr<Buffer>> scalars;
  std::vector<std::unique_ptr<Buffer>> scratch;
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
  std::span<const uint32_t> words(launch.spirv, launch.words);
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

// The device buffer of a memref, with its staging buffer when `staged`.
MemrefBuffers &buffersFor(LaunchState &launch, void *data, uint64_t bytes,
                          bool staged) {
  MemrefBuffers &entry = launch.buffers[std::make_pair(data, bytes)];
  if (!entry.device)
    entry.device = makeBuffer(bytes, Placement::DeviceOnly, "device");
  if (staged && !entry.staging)
    entry.staging = makeBuffer(bytes, Placement::Host, "staging");
  return entry;
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
  if (access & ~uint64_t(SLUICE_RT_VK_READ | SLUICE_RT_VK_WRITE))
    fatal("kernel @" + launch.entry + " argument " +
          std::to_string(launch.args.size()) + " has access flags " +
          std::to_string(access) +
          "; expected a mask of SLUICE_RT_VK_READ (1) and SLUICE_RT_VK_WRITE "
          "(2)");
  // An empty memref gets a dummy address (its cache key).
  static char emptyMemref;
  Argument arg;
  arg.kind = Argument::Memref;
  arg.data = data ? data : &emptyMemref;
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
  LaunchState &launch = openLaunch("sluice_rt_vk_launch_end");
  launch.open = false;
  Context &ctx = context();
  if (launch.workgroupBytes > ctx.info().maxSharedMemoryBytes)
    fatal("kernel @" + launch.entry + " uses " +
          std::to_string(launch.workgroupBytes) +
          " bytes of workgroup memory, but '" + ctx.info().name +
          "' allows " + std::to_string(ctx.info().maxSharedMemoryBytes) +
          " (maxComputeSharedMemorySize)");
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

  using Clock = std::chrono::steady_clock;
  Clock::duration hostIn{}; // memcpy host -> staging only, not allocation
  std::vector<Buffer *> bindings;
  struct Transfer {
    const Argument *arg;
    Buffer *device;
    Buffer *staging;
  };
  std::vector<Transfer> copyIn, copyOut;
  size_t scalarCount = 0, scratchCount = 0;
  for (const Argument &arg : launch.args) {
    switch (arg.kind) {
    case Argument::Memref: {
      bool in = arg.access & SLUICE_RT_VK_READ;
      bool out = arg.access & SLUICE_RT_VK_WRITE;
      MemrefBuffers &buffers =
          buffersFor(launch, arg.data, arg.bytes, (in || out) && arg.bytes);
      bindings.push_back(buffers.device.get());
      if (arg.bytes == 0)
        break;
      Transfer transfer{&arg, buffers.device.get(), buffers.staging.get()};
      if (in) {
        auto start = Clock::now();
        copyBytes(transfer.staging->data(), arg.data, arg.bytes);
        hostIn += Clock::now() - start;
        copyIn.push_back(transfer);
      }
      if (out)
        copyOut.push_back(transfer);
      break;
    }
    case Argument::Scalar: {
      Buffer &buffer = scalarBuffer(launch, scalarCount++);
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
      bindings.push_back(&scratchBuffer(launch, scratchCount++, bytes));
      break;
    }
    }
  }

  Stream &stream = *launch.stream;
  for (const Transfer &t : copyIn)
    stream.copy(*t.staging, 0, *t.device, 0, t.arg->bytes);
  const uint64_t groups[3] = {gx, gy, gz};
  std::vector<std::byte> push = pushConstants(launch);
  stream.dispatch(*cached.kernel, bindings, push, groups);
  for (const Transfer &t : copyOut)
    stream.copy(*t.device, 0, *t.staging, 0, t.arg->bytes);
  std::vector<double> gpuNs, copyNs;
  Status status = stream.submitAndWait(&gpuNs, &copyNs);
  if (!status.ok())
    fatal("kernel @" + launch.entry + " failed: " + status.describe());

  auto hostOutStart = Clock::now();
  for (const Transfer &t : copyOut)
    copyBytes(t.arg->data, t.staging->data(), t.arg->bytes);
  auto hostOut = Clock::now() - hostOutStart;

  if (global().timing) {
    using Micro = std::chrono::duration<double, std::micro>;
    char gpu[32] = "n/a", deviceIn[32] = "n/a", deviceOut[32] = "n/a";
    if (!gpuNs.empty())
      std::snprintf(gpu, sizeof(gpu), "%.3f", gpuNs[0] / 1000.0);
    // copyNs holds the copies in, then the copies out, in recording order.
    if (copyNs.size() == copyIn.size() + copyOut.size()) {
      double in = 0, out = 0;
      for (size_t i = 0; i < copyNs.size(); ++i)
        (i < copyIn.size() ? in : out) += copyNs[i];
      std::snprintf(deviceIn, sizeof(deviceIn), "%.3f", in / 1000.0);
      std::snprintf(deviceOut, sizeof(deviceOut), "%.3f", out / 1000.0);
    }
    std::fprintf(stderr,
                 "sluice: vulkan: @%s grid %llux%llux%llu block %llux%llux%llu"
                 ": gpu %s us, copies in %.3f+%s us / out %.3f+%s us "
                 "(host+device)\n",
                 launch.entry.c_str(), static_cast<unsigned long long>(gx),
                 static_cast<unsigned long long>(gy),
                 static_cast<unsigned long long>(gz),
                 static_cast<unsigned long long>(bx),
                 static_cast<unsigned long long>(by),
                 static_cast<unsigned long long>(bz), gpu,
                 Micro(hostIn).count(), deviceIn, Micro(hostOut).count(),
                 deviceOut);
  }
}

const char *sluice_rt_vk_device_name(void) {
  Context *context = tryContext();
  return context ? context->info().name.c_str() : nullptr;
}

} // extern "C"
