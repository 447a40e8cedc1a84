//===- compiled_program.cpp - Compiled CPU kernels on the CPU device ------===//
//
// The CPU adapter of compiled programs. The artifact's `cpu.so` section is a
// shared object of block functions `__sluice_block_<kernel>(record, block)`
// (KernelABI.h); it is loaded from memory (memfd + dlopen) and its undefined
// symbols, the runtime's sluice_rt_* functions, resolve against the loading
// process (which exports them: ENABLE_EXPORTS / -rdynamic).
//
// Every stage of the runtime descriptor runs one trampoline, waveStageKernel:
// per call it builds the block function's argument record (the kernel ABI's
// arguments as rank-1 memref descriptors, then the grid and block sizes) from
// `sluice_rt_kernel_args`, runs ceil(count / 64) blocks, and translates what
// the kernel wrote back (gpu_abi.h). Payloads live in host arrays owned here,
// one per payload field, indexed by item slot.
//
//===----------------------------------------------------------------------===//

#include "../compiled_loaded_program.h"
#include "sluice/runtime/c_api.h"
#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/device/cpu_device.h"
#include "sluice/runtime/device/gpu_abi.h"
#include "sluice/runtime/launch/launch.h"
#include "sluice/runtime/program/bindings.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cassert>
#include <new>

namespace sluice::runtime {
namespace {

using BlockFunction = void (*)(void *record, int64_t block);

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

struct WaveContext {
  GpuKernelLayout layout;
  uint32_t blockLanes = SLUICE_KERNEL_BLOCK_LANES;
  std::vector<BlockFunction> blockFunctions; // by global stage
  // Per owner, per payload field: capacity elements indexed by item slot.
  std::vector<std::vector<std::vector<uint64_t>>> payloads;
  // Per coroutine argument: one element per lane, indexed by lane id.
  std::vector<std::vector<unsigned char>> inputs;
  // Per binding: its resident storage (8-byte aligned) and kernel extents.
  std::vector<std::vector<uint64_t>> bindings;
  std::vector<std::vector<int64_t>> bindingShapes;
  std::vector<int64_t> bindingExtents; // per binding: dynamic extent or 0
  uint32_t launchWorkers = 0;
};

/// Per-call scratch; calls on different threads never share it.
struct Scratch {
  std::vector<int32_t> counters;
  std::vector<int32_t> allocLimits;
  std::vector<uint32_t> publishedSlots;
  std::vector<std::vector<uint32_t>> rings;
  int32_t fault[kGpuFaultWords] = {};
  GpuDispatchViews views;
  std::vector<uint64_t> record;
};

/// Appends a rank-1 memref descriptor {allocated, aligned, offset, size,
/// stride} to the argument record.
void pushMemRef(std::vector<uint64_t> &record, const void *data,
                uint64_t size) {
  uint64_t address = reinterpret_cast<uintptr_t>(data);
  record.insert(record.end(), {address, address, 0, size, 1});
}

/// Appends a row-major memref descriptor {allocated, aligned, offset,
/// sizes[rank], strides[rank]} to the argument record.
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

extern "C" void waveStageKernel(const sluice_rt_kernel_args *args,
                                uint32_t begin, uint32_t end) {
  if (begin >= end)
    return;
  WaveContext &context = *static_cast<WaveContext *>(args->user_data);
  const GpuKernelLayout &layout = context.layout;
  // The CPU device hands the trampoline whole dispatches (blockSize is
  // UINT32_MAX): the free-ring window below is read by one call at a time.
  assert(begin == 0 && end == args->count);

  thread_local Scratch scratch;
  uint32_t count = end - begin;
  uint32_t ownerCount = args->owner_count;
  scratch.counters.resize(std::max<uint32_t>(layout.counterCount, 1));
  scratch.allocLimits.resize(std::max<uint32_t>(ownerCount, 1));
  scratch.publishedSlots.assign(
      std::max<uint64_t>(uint64_t(count) * layout.publishStride, 1), 0);
  scratch.rings.resize(ownerCount);
  GpuDispatchViews &views = scratch.views;
  views.rings.resize(ownerCount);
  for (uint32_t o = 0; o < ownerCount; ++o) {
    scratch.rings[o].resize(std::max<uint32_t>(layout.ownerCapacity[o], 1));
    views.rings[o] = scratch.rings[o].data();
  }
  views.counters = scratch.counters.data();
  views.allocLimits = scratch.allocLimits.data();
  views.publishedSlots = scratch.publishedSlots.data();
  views.fault = scratch.fault;
  prepareGpuDispatch(layout, *args, count, views);

  // The argument record, in the kernel ABI's order.
  std::vector<uint64_t> &record = scratch.record;
  record.clear();
  const uint64_t unknown = uint64_t(1) << 40; // sizes the kernel never reads
  record.push_back(count);
  pushMemRef(record, args->invocations + begin, count);
  pushMemRef(record, args->lane_ids, unknown);
  pushMemRef(record, args->frames.base, unknown);
  pushMemRef(record, args->frames.field_offsets, args->frames.field_count);
  pushMemRef(record, args->next_stage + begin, count);
  pushMemRef(record, scratch.counters.data(), scratch.counters.size());
  pushMemRef(record, scratch.publishedSlots.data(),
             scratch.publishedSlots.size());
  pushMemRef(record,
             args->published_counts
                 ? args->published_counts + uint64_t(begin) * ownerCount
                 : nullptr,
             uint64_t(count) * ownerCount);
  pushMemRef(record, scratch.allocLimits.data(), scratch.allocLimits.size());
  pushMemRef(record, scratch.fault, kGpuFaultWords);
  for (uint32_t o = 0; o < ownerCount; ++o) {
    pushMemRef(record, scratch.rings[o].data(), scratch.rings[o].size());
    for (std::vector<uint64_t> &field : context.payloads[o])
      pushMemRef(record, field.data(), layout.ownerCapacity[o]);
  }
  for (std::vector<unsigned char> &input : context.inputs)
    pushMemRef(record, input.data(), unknown);
  for (size_t b = 0; b < context.bindings.size(); ++b)
    pushMemRef(record, context.bindings[b].data(), context.bindingShapes[b]);
  pushMemRef(record, context.bindingExtents.data(),
             context.bindingExtents.size());
  uint64_t grid = (count + context.blockLanes - 1) / context.blockLanes;
  record.insert(record.end(), {grid, 1, 1, context.blockLanes, 1, 1});

  BlockFunction function = context.blockFunctions[args->stage];
  if (grid == 1) {
    function(record.data(), 0);
    sluice_rt_coro_arena_reset(); // the block's coroutine frames are dead
  } else {
    sluice_rt_launch_blocks(reinterpret_cast<sluice_rt_block_fn>(function),
                            record.data(), grid, context.launchWorkers);
  }
  finishGpuDispatch(layout, *args, begin, count, views);
}

class CpuLoadedProgram final : public CompiledLoadedProgram {
public:
  explicit CpuLoadedProgram(const CpuDeviceOptions &options)
      : device_(options) {}

  Status load(const Artifact &artifact, const CompiledBackend &backend,
              const BackendOptions &options) {
    const CompiledProgram &compiled = artifact.program();
    if (Status status =
            object_.load(artifact.section(backend.section), artifact.origin());
        !status.ok())
      return status;
    context_.layout = compiled.kernelLayout();
    context_.blockLanes = backend.blockLanes;
    context_.launchWorkers = options.workers;
    for (const CompiledStage *stage : compiled.globalStages()) {
      std::string symbol = SLUICE_CPU_BLOCK_PREFIX + stage->kernel;
      auto function = reinterpret_cast<BlockFunction>(object_.symbol(symbol));
      if (!function)
        return Status::error(ErrorKind::InvalidDescriptor,
                             artifact.origin() + ": the CPU kernels have no " +
                                 symbol + " for stage '" + stage->name + "'");
      context_.blockFunctions.push_back(function);
    }
    for (const CompiledOwner &owner : compiled.owners) {
      auto &fields = context_.payloads.emplace_back();
      try {
        for (size_t f = 0; f < owner.payload.size(); ++f)
          fields.emplace_back(owner.capacity, 0); // every element fits 8 bytes
      } catch (const std::bad_alloc &) {
        return Status::error(
            ErrorKind::OutOfMemory,
            "cannot allocate the " + std::to_string(owner.payload.size()) +
                " payload arrays of " + std::to_string(owner.capacity) +
                " slots of owner '" + owner.name + "'");
      }
    }
    if (Status status =
            laneInputArrays(compiled, options.lanes, 8, context_.inputs);
        !status.ok())
      return status;
    context_.bindings.resize(compiled.bindings.size());
    context_.bindingShapes.resize(compiled.bindings.size());
    return initialize(compiled,
                      compiled.runtimeDescriptor(waveStageKernel, &context_));
  }

  Device &device() override { return device_; }

private:
  Status storeBinding(uint32_t index, std::span<const unsigned char> bytes,
                      std::span<const int64_t> kernelShape) override {
    std::vector<uint64_t> &storage = context_.bindings[index];
    try {
      storage.assign((bytes.size() + 7) / 8 + 1, 0); // 8-byte aligned
    } catch (const std::bad_alloc &) {
      return Status::error(ErrorKind::OutOfMemory,
                           "cannot allocate " + std::to_string(bytes.size()) +
                               " bytes for binding '" +
                               compiled().bindings[index].name + "'");
    }
    if (!bytes.empty()) // an empty binding may have no data pointer
      std::memcpy(storage.data(), bytes.data(), bytes.size());
    context_.bindingShapes[index].assign(kernelShape.begin(),
                                         kernelShape.end());
    return Status::success();
  }

  Status storeExtents(std::span<const int64_t> extents) override {
    context_.bindingExtents.assign(extents.begin(), extents.end());
    return Status::success();
  }

  Status fetchBinding(uint32_t index,
                      std::span<unsigned char> out) const override {
    if (!out.empty())
      std::memcpy(out.data(), context_.bindings[index].data(), out.size());
    return Status::success();
  }

  // Destroyed in reverse: the device (and its workers) before the kernels.
  SharedObject object_;
  WaveContext context_;
  CpuDevice device_;
};

} // namespace

Status loadCpuProgram(const Artifact &artifact, const BackendOptions &options,
                      std::unique_ptr<LoadedProgram> &out) {
  const CompiledBackend *backend = nullptr;
  if (Status status = artifact.backend("cpu", backend); !status.ok())
    return status;
  CpuDeviceOptions deviceOptions;
  deviceOptions.workers = options.workers;
  deviceOptions.laneLimit = options.lanes; // the input arrays' size
  // One trampoline call per dispatch; the trampoline runs the blocks.
  deviceOptions.blockSize = UINT32_MAX;
  auto loaded = std::make_unique<CpuLoadedProgram>(deviceOptions);
  if (Status status = loaded->load(artifact, *backend, options); !status.ok())
    return status;
  out = std::move(loaded);
  return Status::success();
}

} // namespace sluice::runtime
