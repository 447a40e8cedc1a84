//===- gpu_abi.h - Compiled stage kernels' argument convention --*- C++ -*-===//
//
// convert-wave-to-gpu gives every stage kernel the same arguments
// (docs/compiler.md): count, invocations, lane ids, frames, field offsets,
// outcomes, counters, publish records, allocation limits, fault, per owner its
// free ring and payload arrays, per coroutine argument its input array. The
// runtime's kernel ABI is `sluice_rt_kernel_args` (c_api.h). This header is
// the one translation between them, shared by every adapter that runs
// compiled kernels (the CPU backend's trampoline in sluice-run, the Vulkan
// device):
//
// - Free slots: the kernel takes ring positions from 0 with a private counter
//   (`counters[alloc_base + owner]`) out of a window of the runtime's free
//   ring, positions [head, head + window); afterwards the runtime's head
//   advances by what the kernel took, as sluice_rt_publish would have.
// - Publish records: the compiled (stride, base) of each owner are copied to
//   the runtime's per-stage (stride, base).
// - Faults: the kernel's five words (code, stage, invocation, owner, value)
//   become the runtime's record; the invocation is rebased and a
//   POOL_EXHAUSTED position is made absolute.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_GPU_ABI_H
#define SLUICE_RUNTIME_DEVICE_GPU_ABI_H

#include "sluice/ABI/KernelABI.h"
#include "sluice/runtime/device/kernel_abi.h"

#include <cstdint>
#include <vector>

namespace sluice::runtime {

class WorkerPool;

// Fixed arguments before the per-owner ones, in order (the kernel ABI,
// include/sluice/ABI/KernelABI.h, shared with the compiler).
enum class GpuKernelArgument : uint32_t {
  Count = SLUICE_KARG_COUNT,
  Invocations = SLUICE_KARG_INVOCATIONS,
  LaneIds = SLUICE_KARG_LANE_IDS,
  Frames = SLUICE_KARG_FRAMES,
  FieldOffsets = SLUICE_KARG_FIELD_OFFSETS,
  NextStage = SLUICE_KARG_NEXT_STAGE,
  Counters = SLUICE_KARG_COUNTERS,
  PublishedSlots = SLUICE_KARG_PUBLISHED_SLOTS,
  PublishedCounts = SLUICE_KARG_PUBLISHED_COUNTS,
  AllocLimits = SLUICE_KARG_ALLOC_LIMITS,
  Fault = SLUICE_KARG_FAULT,
  FirstOwnerArgument = SLUICE_KARG_FIRST_OWNER,
};

// Words of the kernel's fault argument.
inline constexpr uint32_t kGpuFaultWords = SLUICE_KERNEL_FAULT_WORDS;

// What the compiler fixed in the kernels (the `sluice.program` descriptor).
struct GpuKernelLayout {
  uint32_t counterCount = 0;  // entries of the counters argument
  uint32_t allocBase = 0;     // counters[allocBase + owner]: ring positions taken
  uint32_t publishStride = 0; // compiled publish record length
  std::vector<uint32_t> ownerPublishBase; // compiled, per owner
  std::vector<uint32_t> ownerCapacity;    // compiled: ring positions wrap here
  // The kernels publish at window position invocation * bound + k (no
  // claim; counters[allocBase + owner] stays 0): finishGpuDispatch takes
  // what they published from the publish counts and compacts the window.
  bool lanePublishPositions = false;
};

// The kernel-side scratch of one dispatch; the caller owns the memory (host
// vectors on the CPU, mapped buffers on Vulkan).
struct GpuDispatchViews {
  int32_t *counters = nullptr;       // counterCount entries
  int32_t *allocLimits = nullptr;    // one per owner
  uint32_t *publishedSlots = nullptr; // count * publishStride entries
  int32_t *fault = nullptr;          // kGpuFaultWords entries
  std::vector<uint32_t *> rings;     // per owner, ownerCapacity entries
  std::vector<uint64_t> ringHeads;   // filled by prepareGpuDispatch
  std::vector<uint32_t> compacted;   // finishGpuDispatch's, lane positions
};

// Before a kernel over invocations [begin, begin + count) of `args`: zeroes
// the counters and the fault, and copies each producing owner's window of
// free slots into its ring (allocLimits says how many the kernel may take).
void prepareGpuDispatch(const GpuKernelLayout &layout,
                        const sluice_rt_kernel_args &args, uint32_t count,
                        GpuDispatchViews &views);

// After it: records the kernel's fault in `args.fault` (the first one wins),
// and for a main stage advances every free-ring head by what the kernel took
// and copies its publish records into the runtime's, for invocations
// [begin, begin + count). `args.published_counts` must hold the kernel's
// counts of those invocations. With lane positions it first compacts each
// window in the free ring: the slots taken, in invocation order, then the
// rest in position order. The records of a large dispatch are copied in
// chunks on `workers` when given.
void finishGpuDispatch(const GpuKernelLayout &layout,
                       const sluice_rt_kernel_args &args, uint32_t begin,
                       uint32_t count, GpuDispatchViews &views,
                       WorkerPool *workers = nullptr);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_GPU_ABI_H
