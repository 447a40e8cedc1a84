//===- KernelLowering.h - gpu.func kernels -> CPU blocks --------*- C++ -*-===//
//
// Shared pieces of convert-gpu-to-cpu. A kernel becomes a block function
// `(ctx: !llvm.ptr, block: i64) -> ()` that runs every lane of one block;
// `ctx` points to an argument record written by the launch site: the kernel
// arguments (converted to their LLVM types), then grid and block sizes (i64).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_LIB_CONVERSION_GPUTOCPU_KERNELLOWERING_H
#define SLUICE_LIB_CONVERSION_GPUTOCPU_KERNELLOWERING_H

#include "sluice/ABI/KernelABI.h"
#include "sluice/Conversion/RuntimeCalls.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <array>
#include <functional>
#include <optional>
#include <string>

namespace sluice::gpu_to_cpu {

/// Counters of one kernel's lowering.
struct KernelLoweringResult {
  mlir::func::FuncOp blockFunction;
  bool usedCoroutines = false;
  // Fission: lane loop nests emitted.
  unsigned laneLoops = 0;
  // Per-lane (or per-group) arrays for values live across barriers.
  unsigned spilledValues = 0;
  // Coroutines: barriers lowered to suspend points; lanes per coroutine.
  unsigned suspendPoints = 0;
  unsigned groupLanes = 0;
  // Fission: counter adds summed per block (aggregateCounterAdds).
  unsigned aggregatedAdds = 0;
  // Fission: lane loops run in vector registers (vectorizeLaneLoops).
  unsigned vectorLaneLoops = 0;
};

/// Declares the runtime's C ABI functions in the host module on first use.
class RuntimeDeclarations : public RuntimeCalls {
public:
  using RuntimeCalls::RuntimeCalls;
  /// void *sluice_rt_coro_alloc(size_t size, size_t align)
  mlir::func::FuncOp coroAlloc();
  /// void sluice_rt_coro_free(void *frame)
  mlir::func::FuncOp coroFree();
  /// void sluice_rt_barrier_divergence(const char *kernel, uint64_t
  /// group_lanes)
  mlir::func::FuncOp barrierDivergence();
};

/// Values every lowering of a kernel body starts from, all at block level of
/// the block function.
struct BlockEnvironment {
  mlir::Value blockId[3], blockDim[3], gridDim[3]; // index
  mlir::Value laneCount;                           // index: product of blockDim
  llvm::SmallVector<mlir::Value> kernelArguments;  // original types
  llvm::SmallVector<mlir::Value> workgroupBuffers; // memory space stripped
};

/// Shared state of one kernel's lowering.
struct KernelContext {
  mlir::gpu::GPUFuncOp kernel;
  mlir::ModuleOp hostModule;
  mlir::SymbolTable &symbols;
  RuntimeDeclarations &runtime;
  const mlir::LLVMTypeConverter &typeConverter;
  /// Block sizes every launch of the kernel uses, when they are constants
  /// (or the kernel's known_block_size); lane loops then have constant trips.
  std::optional<std::array<int64_t, 3>> staticBlockSize;
  /// Lanes of a subgroup: what gpu.shuffle exchanges among (consecutive
  /// linear thread ids, from 0).
  unsigned subgroupSize = 32;
  /// The kernel exchanges values through gpu.shuffle: its coroutines are one
  /// subgroup each.
  bool hasShuffles = false;
  /// Lanes a fission lane loop runs at a time in vector registers (0 or 1:
  /// one at a time).
  unsigned laneVectorWidth = 0;
  /// Vectorize every lane loop that can be, not only where it pays.
  bool laneVectorAlways = false;
  /// A remark at the kernel for every lane loop: vectorized or why not.
  bool laneVectorRemarks = false;
};

/// The LLVM struct type of a kernel's argument record.
mlir::LLVM::LLVMStructType
argumentRecordType(mlir::gpu::GPUFuncOp kernel,
                   const mlir::LLVMTypeConverter &converter);

/// Splits a linear index into (x, y, z) over extents (sizeX, sizeY, *),
/// x fastest: the order of thread ids within a block and of blocks in a grid.
std::array<mlir::Value, 3> delinearizeXYZ(mlir::OpBuilder &builder,
                                          mlir::Location loc,
                                          mlir::Value linear,
                                          mlir::Value sizeX, mlir::Value sizeY);

/// `type` without its memory space (workgroup and private attributions).
mlir::MemRefType stripMemorySpace(mlir::MemRefType type);

/// Bytes one element of `type` occupies in a per-lane array; nullopt when a
/// value of this type cannot be stored per lane.
std::optional<uint64_t> laneSlotBytes(mlir::Type type);

/// Bytes of an identity-layout memref with a static shape; nullopt otherwise.
std::optional<uint64_t> staticMemRefBytes(mlir::MemRefType type);

/// Calls sluice_rt_coro_alloc(bytes, align); `bytes` is an index value.
mlir::Value allocateFromArena(mlir::OpBuilder &builder, mlir::Location loc,
                              RuntimeDeclarations &runtime, mlir::Value bytes,
                              uint64_t align);

/// An identity-layout memref of `type` over `pointer`; `dynamicSizes` gives
/// the dynamic dimensions (index values), in order. Supports static shapes
/// and rank-1 dynamic shapes.
mlir::Value memrefOverPointer(mlir::OpBuilder &builder, mlir::Location loc,
                              const mlir::LLVMTypeConverter &converter,
                              mlir::Value pointer, mlir::MemRefType type,
                              mlir::ValueRange dynamicSizes);

/// Creates `@__sluice_block_<kernel>(ctx, block)` at the end of the host
/// module and fills in `environment` (arguments, ids, sizes, workgroup
/// memory from the worker's arena). The builder is left at the end of the
/// entry block, before the return.
mlir::func::FuncOp createBlockFunction(KernelContext &context,
                                       mlir::OpBuilder &builder,
                                       BlockEnvironment &environment);

/// The unit attribute of a kernel argument whose buffer aliases no other
/// argument and is read only after the dispatch (KernelABI.h).
inline constexpr llvm::StringLiteral kCountersAttrName =
    SLUICE_KERNEL_COUNTERS_ATTR;

/// Sums a block's integer atomic adds to each of `counterBuffers` (the block
/// function's values of `sluice.counters` arguments) in a private accumulator
/// per index and adds the sum once when the block function returns: where
/// every use of the buffer is a `memref.atomic_rmw addi` at constant indices,
/// at each index none of whose adds uses the value it returns
/// (AggregateCounters.cpp says why that is invisible). For block functions
/// whose body is inline (fission); returns the adds rewritten.
unsigned aggregateCounterAdds(mlir::func::FuncOp blockFunction,
                              llvm::ArrayRef<mlir::Value> counterBuffers);

/// The unit attribute fission puts on the innermost loop of a lane loop nest
/// (the loop vectorizeLaneLoops takes); removed when that has run.
inline constexpr llvm::StringLiteral kLaneLoopAttrName = "sluice.lane_loop";

/// Runs the lane loops of `blockFunction` `width` lanes at a time in vector
/// registers, with masks for lanes that diverge (VectorizeLanes.cpp), where
/// that is likely to pay or `always`; a loop holding something it cannot
/// vectorize, or that would not pay, stays scalar. With `decisions`, says of
/// each loop what became of it and why. Returns the loops vectorized.
unsigned vectorizeLaneLoops(mlir::func::FuncOp blockFunction, unsigned width,
                            bool always,
                            llvm::SmallVectorImpl<std::string> *decisions);

/// Replaces gpu.block_id / block_dim / grid_dim ops under `root` with the
/// environment's values.
void replaceBlockQueries(mlir::Operation *root,
                         const BlockEnvironment &environment);

/// Why the kernel cannot take the fission path, or an empty string if it can
/// (structurally: barriers only in uniform scf.for / scf.if without results).
/// With `laneGroups`, bounds and conditions may be lane values (lane-group
/// coroutines take them from the group's first lane).
std::string fissionObstacle(mlir::gpu::GPUFuncOp kernel, bool laneGroups);

/// The lanes one lane-group coroutine runs.
struct LaneGroup {
  mlir::Value base;     // first linear lane of the group (index)
  mlir::Value size;     // lanes in this group (index)
  mlir::Value capacity; // lanes of a full group: the per-lane array length
  /// Emits the report of lanes that disagree on barrier control flow.
  std::function<void(mlir::OpBuilder &, mlir::Location)> reportDivergence;
  /// Receives every lane loop emitted, outermost op first.
  llvm::SmallVector<mlir::Operation *> *laneLoops = nullptr;
};

/// Emits the body of a lane-group coroutine at the builder's position: lane
/// loops over the group, gpu.barrier markers where it must suspend.
mlir::LogicalResult
lowerLaneGroupBody(KernelContext &context, KernelLoweringResult &result,
                   mlir::OpBuilder &builder, BlockEnvironment &environment,
                   mlir::Operation *allocationAnchor, const LaneGroup &group,
                   std::string &reason);

/// Loop fission: lane loops between barriers, per-lane arrays for values
/// crossing them. Fails (leaving a partial function to be erased) when a value
/// crossing a barrier cannot be stored per lane; `reason` says which.
mlir::LogicalResult lowerByFission(KernelContext &context,
                                   KernelLoweringResult &result,
                                   std::string &reason);

/// LLVM switch-resumed coroutines, each running `groupLanes` lanes (1: one
/// per lane, which allows any control flow around barriers); barriers are
/// suspend points, coroutines are resumed round-robin until all are done.
/// Falls back to one coroutine per lane where lane groups do not apply.
mlir::LogicalResult lowerByCoroutines(KernelContext &context,
                                      KernelLoweringResult &result,
                                      unsigned groupLanes);

} // namespace sluice::gpu_to_cpu

#endif // SLUICE_LIB_CONVERSION_GPUTOCPU_KERNELLOWERING_H
