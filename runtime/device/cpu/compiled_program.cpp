//===- compiled_program.cpp - Compiled CPU kernels on the CPU device ------===//
//
// The CPU adapter of compiled programs. The artifact's `cpu.so` section is a
// shared object of block functions `__sluice_block_<kernel>(record, block)`
// (KernelABI.h); it is loaded from memory (memfd + dlopen) and its undefined
// symbols, the runtime's sluice_rt_* functions, resolve against the loading
// process (which exports them: ENABLE_EXPORTS / -rdynamic).
//
// Every stage of the runtime descriptor runs one host kernel, waveStageKernel,
// on the CPU device: it hands the dispatch to CompiledKernels
// (compiled_kernel_device.h), the per-dispatch half every compiled-kernel
// backend shares, over the CPU's primitives. Those have unified memory: a
// buffer is host memory, an argument a host pointer, and a launch builds the
// block function's argument record (the kernel ABI's arguments as memref
// descriptors, then the grid and block sizes) and runs ceil(count / 64)
// blocks on the runtime's block launcher.
//
//===----------------------------------------------------------------------===//

#include "../compiled_loaded_program.h"
#include "sluice/runtime/c_api.h"
#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/device/compiled_kernel_device.h"
#include "sluice/runtime/device/cpu_device.h"
#include "sluice/runtime/device/gpu_abi.h"
#include "sluice/runtime/device/worker_pool.h"
#include "sluice/runtime/launch/launch.h"
#include "sluice/runtime/program/bindings.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace sluice::runtime {
namespace {

using BlockFunction = void (*)(void *record, int64_t block);

/// Whether this process's CPU has level `isa` (one of kCpuLevels).
/// SLUICE_CPU_LEVEL_MAX=<level> caps the answer at that level (or
/// "generic": none), so that a newer machine can show what an older one
/// would say of an artifact.
bool cpuHasLevel(std::string_view isa) {
  if (const char *cap = std::getenv("SLUICE_CPU_LEVEL_MAX")) {
    auto rank = [](std::string_view level) {
      auto at = std::find(kCpuLevels.begin(), kCpuLevels.end(), level);
      return at == kCpuLevels.end() ? -1 : int(at - kCpuLevels.begin());
    };
    if (rank(isa) > rank(cap))
      return false;
  }
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (isa == "x86-64-v2")
    return __builtin_cpu_supports("x86-64-v2");
  if (isa == "x86-64-v3")
    return __builtin_cpu_supports("x86-64-v3");
  if (isa == "x86-64-v4")
    return __builtin_cpu_supports("x86-64-v4");
#endif
  return false;
}

/// The artifact's cpu backend, refused when its kernels were compiled for a
/// CPU level this machine lacks: they would stop the process with an illegal
/// instruction at their first AVX2 or FMA instruction.
Status cpuBackendOf(const Artifact &artifact, const CompiledBackend *&backend) {
  if (Status status = artifact.backend("cpu", backend); !status.ok())
    return status;
  if (backend->isa.empty() || cpuHasLevel(backend->isa))
    return Status::success();
  return Status::error(ErrorKind::Unsupported,
                       "the CPU kernels of " + artifact.origin() +
                           " were compiled for " + backend->isa +
                           " (backends.cpu.isa), which this CPU does not "
                           "support; compile them with --sluice-cpu=generic "
                           "(or native) to run here");
}

// What compiled CPU kernels call (KernelABI.h), referenced here so that every
// runner that links this adapter carries (and exports) them.
[[gnu::used]] const void *const kSymbolsForKernels[] = {
    reinterpret_cast<const void *>(&sluice_rt_coro_alloc),
    reinterpret_cast<const void *>(&sluice_rt_coro_free),
    reinterpret_cast<const void *>(&sluice_rt_barrier_divergence),
};

/// A shared object loaded from memory.
class SharedObject {
public:
  ~SharedObject() {
    if (handle)
      dlclose(handle);
    if (fd >= 0)
      close(fd);
  }

  Status load(std::span<const unsigned char> bytes, const std::string &origin) {
    fd = memfd_create("sluice-cpu-kernels", MFD_CLOEXEC);
    if (fd < 0)
      return Status::error(ErrorKind::OutOfMemory,
                           "memfd_create for the CPU kernels failed: " +
                               std::string(std::strerror(errno)));
    size_t written = 0;
    while (written < bytes.size()) {
      ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return Status::error(ErrorKind::OutOfMemory,
                             "writing the CPU kernels to memory failed: " +
                                 std::string(std::strerror(errno)));
      written += size_t(n);
    }
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return Status::error(
          ErrorKind::InvalidDescriptor,
          "cannot load the CPU kernels of " + origin + ": " + dlerror() +
              " (a runner exports the runtime's sluice_rt_* symbols: link it "
              "with -rdynamic / ENABLE_EXPORTS)");
    return Status::success();
  }

  void *symbol(const std::string &name) const { return dlsym(handle, name.c_str()); }

private:
  int fd = -1;
  void *handle = nullptr;
};

class HostKernelBuffer final : public KernelBuffer {
public:
  explicit HostKernelBuffer(uint64_t bytes)
      : KernelBuffer(bytes), words((bytes + 7) / 8 + 1, 0) {} // 8-aligned
  // Memory it does not own: the CPU device's frames.
  HostKernelBuffer(unsigned char *external, uint64_t bytes)
      : KernelBuffer(bytes), external(external) {}
  void *data() { return external ? external : static_cast<void *>(words.data()); }
  const void *data() const {
    return external ? external : static_cast<const void *>(words.data());
  }

private:
  std::vector<uint64_t> words;
  unsigned char *external = nullptr;
};

/// Appends a memref descriptor {allocated, aligned, offset, sizes[rank],
/// strides[rank]} (row-major) to the argument record.
void pushMemRef(std::vector<uint64_t> &record, const void *data,
                std::span<const int64_t> shape) {
  uint64_t address = reinterpret_cast<uintptr_t>(data);
  record.insert(record.end(), {address, address, 0});
  for (int64_t extent : shape)
    record.push_back(uint64_t(extent));
  size_t first = record.size();
  record.resize(first + shape.size());
  uint64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    record[first + d] = stride;
    stride *= uint64_t(shape[d]);
  }
}

// The pool sluice_rt_launch_blocks runs a launch of `workers` workers on
// (0: its default, SLUICE_WORKERS or one per core).
WorkerPool &launchPool(uint32_t workers) {
  return sharedWorkerPool(workers ? workers
                                  : sluice_rt_launch_default_workers());
}

class CpuPrimitives final : public KernelPrimitives {
public:
  std::string label() const override {
    return staged ? "cpu-staged device" : "cpu device";
  }
  bool unifiedMemory() const override { return !staged; }
  Status createBuffer(uint64_t bytes, KernelBufferUse,
                      std::unique_ptr<KernelBuffer> &out) override {
    try {
      out = std::make_unique<HostKernelBuffer>(bytes);
    } catch (const std::bad_alloc &) {
      return Status::error(ErrorKind::OutOfMemory,
                           "cpu device: cannot allocate " +
                               std::to_string(bytes) + " bytes");
    }
    return Status::success();
  }
  void *hostAddress(KernelBuffer &buffer) override {
    return static_cast<HostKernelBuffer &>(buffer).data();
  }
  Status upload(KernelBuffer &buffer,
                std::span<const unsigned char> bytes) override {
    if (!bytes.empty())
      std::memcpy(hostAddress(buffer), bytes.data(),
                  std::min<uint64_t>(bytes.size(), buffer.bytes()));
    return Status::success();
  }
  Status download(const KernelBuffer &buffer,
                  std::span<unsigned char> out) override {
    if (!out.empty())
      std::memcpy(out.data(),
                  static_cast<const HostKernelBuffer &>(buffer).data(),
                  std::min<uint64_t>(out.size(), buffer.bytes()));
    return Status::success();
  }
  Status downloadRange(const KernelBuffer &buffer, uint64_t offset,
                       std::span<unsigned char> out) override {
    // The router asks only for frames it dispatched: inside the buffer.
    assert(offset <= buffer.bytes() && out.size() <= buffer.bytes() - offset);
    if (!out.empty())
      std::memcpy(
          out.data(),
          static_cast<const unsigned char *>(
              static_cast<const HostKernelBuffer &>(buffer).data()) +
              offset,
          out.size());
    return Status::success();
  }
  // Runs the blocks before it returns. The CPU device's state-machine
  // workers call it concurrently.
  Status launch(uint32_t stage, std::span<const LaunchArgument> arguments,
                uint32_t count) override {
    thread_local std::vector<uint64_t> record;
    record.clear();
    record.push_back(count);
    for (const LaunchArgument &argument : arguments) {
      int64_t elements = int64_t(argument.elements);
      void *data =
          argument.buffer ? hostAddress(*argument.buffer) : argument.host;
      pushMemRef(record, data,
                 argument.shape.empty() ? std::span<const int64_t>(&elements, 1)
                                        : argument.shape);
    }
    uint64_t grid = (count + blockLanes - 1) / blockLanes;
    record.insert(record.end(), {grid, 1, 1, blockLanes, 1, 1});
    BlockFunction function = blockFunctions[stage];
    if (grid == 1) {
      function(record.data(), 0);
      sluice_rt_coro_arena_reset(); // the block's coroutine frames are dead
    } else {
      sluice_rt_launch_blocks(reinterpret_cast<sluice_rt_block_fn>(function),
                              record.data(), grid, launchWorkers);
    }
    return Status::success();
  }
  Status wait(double &gpuNanoseconds) override {
    gpuNanoseconds = 0; // launch() ran the blocks
    return Status::success();
  }
  // The workers that launch() runs the blocks on.
  WorkerPool *hostWorkers() override { return &launchPool(launchWorkers); }

  std::vector<BlockFunction> blockFunctions; // by global stage
  uint32_t blockLanes = SLUICE_KERNEL_BLOCK_LANES;
  uint32_t launchWorkers = 0;
  // Discrete memory: arguments are buffers, transfers copies ("cpu-staged").
  bool staged = false;
};

struct WaveContext {
  CpuPrimitives primitives;
  CompiledKernels kernels;
};

extern "C" void waveStageKernel(const sluice_rt_kernel_args *args,
                                uint32_t begin, uint32_t end) {
  if (begin >= end)
    return;
  WaveContext &context = *static_cast<WaveContext *>(args->user_data);
  // The CPU device hands the trampoline whole dispatches (blockSize is
  // UINT32_MAX): the free-ring window is read by one call at a time.
  assert(begin == 0 && end == args->count);
  thread_local DispatchScratch scratch;
  DispatchTimes times;
  Status status = context.kernels.dispatch(*args, end - begin,
                                           /*laneIdsChanged=*/false, scratch,
                                           times);
  if (!status.ok()) {
    // Unified memory: only the scratch's allocation can fail.
    std::fprintf(stderr, "sluice: %s\n", status.describe().c_str());
    std::abort();
  }
}

// The block functions of every stage, and the shape of the kernels.
Status loadCpuKernels(const Artifact &artifact, const CompiledBackend &backend,
                      const BackendOptions &options, SharedObject &object,
                      CpuPrimitives &primitives, CompiledKernelShape &shape) {
  const CompiledProgram &compiled = artifact.program();
  if (Status status =
          object.load(artifact.section(backend.section), artifact.origin());
      !status.ok())
    return status;
  primitives.blockLanes = backend.blockLanes;
  primitives.launchWorkers = options.workers;
  for (const CompiledStage *stage : compiled.globalStages()) {
    std::string symbol = SLUICE_CPU_BLOCK_PREFIX + stage->kernel;
    auto function = reinterpret_cast<BlockFunction>(object.symbol(symbol));
    if (!function)
      return Status::error(ErrorKind::InvalidDescriptor,
                           artifact.origin() + ": the CPU kernels have no " +
                               symbol + " for stage '" + stage->name + "'");
    primitives.blockFunctions.push_back(function);
  }
  shape.stages = uint32_t(primitives.blockFunctions.size());
  if (!compiled.megakernel.empty()) {
    std::string symbol = SLUICE_CPU_BLOCK_PREFIX + compiled.megakernel;
    auto function = reinterpret_cast<BlockFunction>(object.symbol(symbol));
    if (!function)
      return Status::error(ErrorKind::InvalidDescriptor,
                           artifact.origin() + ": the CPU kernels have no " +
                               symbol + " for the megakernel");
    primitives.blockFunctions.push_back(function); // kernel `stages`
    shape.megakernel = true;
    shape.megakernelUniforms = compiled.megakernelUniforms();
  }
  shape.layout = compiled.kernelLayout();
  shape.layout.lanePublishPositions = backend.lanePublishPositions;
  for (const CompiledOwner &owner : compiled.owners)
    shape.payloadElementBytes.emplace_back(owner.payload.size(), 8);
  shape.residentBuffers = uint32_t(compiled.bindings.size()) + 1; // + extents
  shape.lanes = options.lanes;
  return laneInputArrays(compiled, options.lanes, 8, shape.inputs);
}

// The owners' policy hooks: functions of the CPU kernels, exported under
// their own names (docs/artifact.md "Owner policies").
Status resolvePolicyHooks(const Artifact &artifact, const SharedObject &object,
                          ProgramDescriptor &program) {
  for (OwnerDesc &owner : program.owners)
    for (size_t h = 0; h < kPolicyHookCount; ++h) {
      const std::string &symbol = owner.policy.symbols[h];
      if (symbol.empty())
        continue;
      owner.policy.functions[h] = object.symbol(symbol);
      if (!owner.policy.functions[h])
        return Status::error(ErrorKind::InvalidDescriptor,
                             artifact.origin() + ": the CPU kernels have no " +
                                 symbol + " for the " +
                                 policyHookName(PolicyHook(h)) +
                                 " policy hook of owner '" + owner.name + "'");
    }
  return Status::success();
}

// The extents table is resident buffer n, after the n bindings (KernelABI.h).
template <typename Store>
Status storeExtentsTable(const CompiledProgram &compiled,
                         std::span<const int64_t> extents, Store store) {
  int64_t count = int64_t(extents.size());
  return store(uint32_t(compiled.bindings.size()),
               {reinterpret_cast<const unsigned char *>(extents.data()),
                extents.size() * sizeof(int64_t)},
               std::span<const int64_t>(&count, 1));
}

/// "cpu": the CPU device runs waveStageKernel, which hands every dispatch to
/// CompiledKernels over unified memory.
class CpuLoadedProgram final : public CompiledLoadedProgram {
public:
  explicit CpuLoadedProgram(const CpuDeviceOptions &options)
      : device_(options) {}

  Status load(const Artifact &artifact, const CompiledBackend &backend,
              const BackendOptions &options) {
    CompiledKernelShape shape;
    if (Status status = loadCpuKernels(artifact, backend, options, object_,
                                       context_.primitives, shape);
        !status.ok())
      return status;
    bool megakernel = shape.megakernel;
    if (Status status =
            context_.kernels.initialize(context_.primitives, std::move(shape));
        !status.ok())
      return status;
    // The state-machine schedule as the compiled megakernel on the device's
    // own frames: a lane runs its stages in one thread, not one dispatch of
    // one invocation per stage (docs/cpu-backend.md).
    if (megakernel)
      device_.setStateMachineRunner(
          [this](HostRouter &router, unsigned char *frames, uint64_t frameBytes,
                 uint32_t lanes, StateMachineReport &report) {
            HostKernelBuffer buffer(frames, frameBytes);
            MegakernelResult result;
            return runCompiledStateMachine(context_.kernels, router, buffer,
                                           "cpu device", lanes, report, result);
          });
    const CompiledProgram &compiled = artifact.program();
    ProgramDescriptor program =
        compiled.runtimeDescriptor(waveStageKernel, &context_);
    if (Status status = resolvePolicyHooks(artifact, object_, program);
        !status.ok())
      return status;
    return initialize(compiled, std::move(program));
  }

  Device &device() override { return device_; }
  std::string deviceSummary() const override {
    const CpuDeviceStats &stats = device_.stats();
    char line[512];
    std::snprintf(line, sizeof line,
                  "cpu device (last run): %" PRIu64 " dispatches, %.3f ms in "
                  "dispatch() of which %.3f ms in kernels and %.3f ms sorting "
                  "%" PRIu64 " of them by their key",
                  stats.dispatches, stats.dispatchNanoseconds * 1e-6,
                  stats.kernelNanoseconds * 1e-6, stats.sortNanoseconds * 1e-6,
                  stats.sortedDispatches);
    return line;
  }

private:
  Status storeBinding(uint32_t index, std::span<const unsigned char> bytes,
                      std::span<const int64_t> kernelShape) override {
    return context_.kernels.setResident(index, bytes, kernelShape);
  }
  Status storeExtents(std::span<const int64_t> extents) override {
    return storeExtentsTable(
        compiled(), extents,
        [&](uint32_t index, std::span<const unsigned char> bytes,
            std::span<const int64_t> shape) {
          return context_.kernels.setResident(index, bytes, shape);
        });
  }
  Status fetchBinding(uint32_t index,
                      std::span<unsigned char> out) const override {
    return context_.kernels.getResident(index, out);
  }

  // Destroyed in reverse: the device (and its workers) before the kernels.
  SharedObject object_;
  WaveContext context_;
  CpuDevice device_;
};

/// "cpu-staged": the same CPU kernels on the compiled-kernel device with
/// discrete memory, exactly as the Vulkan adapter runs its kernels: every
/// dispatch uploads what it reads and downloads what it wrote, and the
/// kernels see only the device's own copies. It runs the GPU adapters' path
/// on a machine without a GPU (the conformance suite runs against it).
class CpuStagedDevice final : public CompiledKernelDevice {
public:
  const char *name() const override { return "cpu-staged"; }
  Status create(std::unique_ptr<CpuPrimitives> primitives,
                CompiledKernelShape shape) {
    return initialize(std::move(primitives), std::move(shape));
  }
};

class CpuStagedLoadedProgram final : public CompiledLoadedProgram {
public:
  Status load(const Artifact &artifact, const CompiledBackend &backend,
              const BackendOptions &options) {
    auto primitives = std::make_unique<CpuPrimitives>();
    primitives->staged = true;
    CompiledKernelShape shape;
    if (Status status = loadCpuKernels(artifact, backend, options, object_,
                                       *primitives, shape);
        !status.ok())
      return status;
    if (Status status = device_.create(std::move(primitives), std::move(shape));
        !status.ok())
      return status;
    const CompiledProgram &compiled = artifact.program();
    ProgramDescriptor program = compiled.runtimeDescriptor(nullptr, nullptr);
    if (Status status = resolvePolicyHooks(artifact, object_, program);
        !status.ok())
      return status;
    return initialize(compiled, std::move(program));
  }

  Device &device() override { return device_; }
  std::string deviceSummary() const override {
    return compiledKernelSummary("cpu-staged device", device_.stats());
  }

private:
  Status storeBinding(uint32_t index, std::span<const unsigned char> bytes,
                      std::span<const int64_t> kernelShape) override {
    return device_.setBinding(index, bytes, kernelShape);
  }
  Status storeExtents(std::span<const int64_t> extents) override {
    return storeExtentsTable(
        compiled(), extents,
        [&](uint32_t index, std::span<const unsigned char> bytes,
            std::span<const int64_t> shape) {
          return device_.setBinding(index, bytes, shape);
        });
  }
  Status fetchBinding(uint32_t index,
                      std::span<unsigned char> out) const override {
    return device_.getBinding(index, out);
  }

  SharedObject object_; // destroyed after the device
  CpuStagedDevice device_;
};

} // namespace

Status loadCpuProgram(const Artifact &artifact, const BackendOptions &options,
                      std::unique_ptr<LoadedProgram> &out) {
  const CompiledBackend *backend = nullptr;
  if (Status status = cpuBackendOf(artifact, backend); !status.ok())
    return status;
  CpuDeviceOptions deviceOptions;
  deviceOptions.workers = options.workers;
  deviceOptions.laneLimit = options.lanes; // the input arrays' size
  // One trampoline call per dispatch; the trampoline runs the blocks, on the
  // pool the device does its host work on.
  deviceOptions.blockSize = UINT32_MAX;
  deviceOptions.pool = &launchPool(options.workers);
  auto loaded = std::make_unique<CpuLoadedProgram>(deviceOptions);
  if (Status status = loaded->load(artifact, *backend, options); !status.ok())
    return status;
  out = std::move(loaded);
  return Status::success();
}

Status loadCpuStagedProgram(const Artifact &artifact,
                            const BackendOptions &options,
                            std::unique_ptr<LoadedProgram> &out) {
  const CompiledBackend *backend = nullptr;
  if (Status status = cpuBackendOf(artifact, backend); !status.ok())
    return status;
  auto loaded = std::make_unique<CpuStagedLoadedProgram>();
  if (Status status = loaded->load(artifact, *backend, options); !status.ok())
    return status;
  out = std::move(loaded);
  return Status::success();
}

} // namespace sluice::runtime
