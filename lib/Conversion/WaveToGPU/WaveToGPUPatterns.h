//===- WaveToGPUPatterns.h - Frame and pool ops -> memref ops ---*- C++ -*-===//
//
// The patterns that lower the ops of a stage or handler body once it sits in
// its kernel, and the program shape they read. Private to WaveToGPU.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_LIB_CONVERSION_WAVETOGPU_WAVETOGPUPATTERNS_H
#define SLUICE_LIB_CONVERSION_WAVETOGPU_WAVETOGPUPATTERNS_H

#include "sluice/ABI/KernelABI.h"
#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace sluice::wave_to_gpu {

/// `next_stage` value of a finished frame or a released item, fault codes,
/// and the positions of the arguments every kernel takes: the kernel ABI
/// (include/sluice/ABI/KernelABI.h), shared with the runtime.
constexpr int64_t kFinished = SLUICE_KERNEL_FINISHED;
constexpr int64_t kFaultBoundExceeded = SLUICE_KERNEL_FAULT_BOUND_EXCEEDED;
constexpr int64_t kFaultPoolExhausted = SLUICE_KERNEL_FAULT_POOL_EXHAUSTED;
constexpr int64_t kFaultOutOfBounds = SLUICE_KERNEL_FAULT_OUT_OF_BOUNDS;

enum KernelArg : unsigned {
  kCount = SLUICE_KARG_COUNT,
  kInvocations = SLUICE_KARG_INVOCATIONS,
  kLaneIds = SLUICE_KARG_LANE_IDS,
  kFrames = SLUICE_KARG_FRAMES,
  kFieldOffsets = SLUICE_KARG_FIELD_OFFSETS,
  kNextStage = SLUICE_KARG_NEXT_STAGE,
  kCounters = SLUICE_KARG_COUNTERS,
  kPublishedSlots = SLUICE_KARG_PUBLISHED_SLOTS,
  kPublishedCounts = SLUICE_KARG_PUBLISHED_COUNTS,
  kAllocLimits = SLUICE_KARG_ALLOC_LIMITS,
  kFault = SLUICE_KARG_FAULT,
  kFirstOwnerBuffer = SLUICE_KARG_FIRST_OWNER,
};

/// On the `memref.view` of a frame field (one element of the frame buffer):
/// the field's index in the frame layout, so that sluice-build-megakernel
/// can give the field a private variable of the thread instead.
constexpr llvm::StringLiteral kFrameFieldAttrName = "sluice.frame_field";

/// The program as the patterns see it.
struct ProgramShape {
  wave::FrameLayoutOp layout;
  llvm::StringMap<int64_t> stageIds;
  llvm::SmallVector<pool::OwnerOp> owners;
  llvm::StringMap<unsigned> ownerIds;
  llvm::SmallVector<int64_t> ownerStageBase;   // global id of stage 0
  llvm::SmallVector<unsigned> ownerBufferBase; // argument of the free ring
  llvm::StringMap<int64_t> publishBase;
  llvm::StringMap<int64_t> bounds; // the coroutine's emission bound per owner
  int64_t publishStride = 0;
  int64_t allocBase = 0;   // counters: free-ring head of owner o at +o
  int64_t releaseBase = 0; // counters: release count of owner o at +o
};

/// Values of one kernel that its lowered ops use.
struct KernelValues {
  mlir::Value invocation;
  mlir::Value itemSlot; // handlers only
  mlir::Block *exit = nullptr;
  unsigned owner = 0; // handlers only: the owner of the handled stage
  int64_t stage = 0;  // global stage index of the kernel
};

struct LoweringState {
  ProgramShape shape;
  // pool.publish at position invocation * bound + k rather than a claim
  // (convert-wave-to-gpu's lane-publish-positions).
  bool lanePublishPositions = false;
  llvm::DenseMap<mlir::Operation *, KernelValues> kernels; // by gpu.func
};

/// Frame loads/stores, `wave.next`, and the pool ops.
void populateWaveToGPUPatterns(mlir::RewritePatternSet &patterns,
                               const LoweringState &state);

/// check-bounds: guards every load, store and atomic of a buffer binding
/// (kernel arguments from `bindingBase`, `isBuffer` per binding; dynamic
/// extents in argument `extentsArgument`) with a bounds check that records
/// an OUT_OF_BOUNDS fault.
void insertBindingBoundsChecks(mlir::gpu::GPUModuleOp kernels,
                               const LoweringState &state,
                               unsigned bindingBase,
                               llvm::ArrayRef<bool> isBuffer,
                               unsigned extentsArgument);

} // namespace sluice::wave_to_gpu

#endif // SLUICE_LIB_CONVERSION_WAVETOGPU_WAVETOGPUPATTERNS_H
