//===- WaveToGPUPatterns.h - Frame and pool ops -> memref ops ---*- C++ -*-===//
//
// The patterns that lower the ops of a stage or handler body once it sits in
// its kernel, and the program shape they read. Private to WaveToGPU.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_LIB_CONVERSION_WAVETOGPU_WAVETOGPUPATTERNS_H
#define SLUICE_LIB_CONVERSION_WAVETOGPU_WAVETOGPUPATTERNS_H

#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace sluice::wave_to_gpu {

/// `next_stage` value of a finished frame or a released item
/// (SLUICE_RT_FINISHED in runtime/include/sluice/runtime/c_api.h).
constexpr int64_t kFinished = 0xFFFFFFFF;

/// Fault codes (sluice_rt_fault_code in
/// runtime/include/sluice/runtime/c_api.h).
constexpr int64_t kFaultBoundExceeded = 1;
constexpr int64_t kFaultPoolExhausted = 2;

/// Positions of the arguments every kernel takes.
enum KernelArg : unsigned {
  kCount = 0,        // index: invocations in this dispatch
  kInvocations,      // memref<?xi32>: frame index (main) / item slot (aux)
  kLaneIds,          // memref<?xi32>: lane of each frame
  kFrames,           // memref<?xi8>: frame storage
  kFieldOffsets,     // memref<?xi64>: SoA byte offset of each field's array
  kNextStage,        // memref<?xi32>: outcome of each invocation
  kCounters,         // memref<?xi32>: stage arrivals, alloc heads, releases
  kPublishedSlots,   // memref<?xi32>: [invocation * stride + base + k]
  kPublishedCounts,  // memref<?xi32>: [invocation * owners + owner]
  kAllocLimits,      // memref<?xi32>: per owner, free-ring end of this dispatch
  kFault,            // memref<?xi32>: code, stage, invocation, owner, value
  kFirstOwnerBuffer, // per owner: free ring, then one array per payload
};

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
  llvm::DenseMap<mlir::Operation *, KernelValues> kernels; // by gpu.func
};

/// Frame loads/stores, `wave.next`, and the pool ops.
void populateWaveToGPUPatterns(mlir::RewritePatternSet &patterns,
                               const LoweringState &state);

} // namespace sluice::wave_to_gpu

#endif // SLUICE_LIB_CONVERSION_WAVETOGPU_WAVETOGPUPATTERNS_H
