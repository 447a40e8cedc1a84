//===- ExpandCollectives.h - gpu collectives in terms of shuffles -*- C++
//-*-===//
//
// Every backend starts from the same gpu hand-off, so the collective ops whose
// meaning does not depend on the target are rewritten once, here, before a
// backend lowers the rest: gpu.all_reduce becomes a tree reduction in
// workgroup memory (the same combination order on every backend, so float
// results agree bit for bit), gpu.subgroup_reduce a butterfly of
// gpu.shuffle xor, and, for a backend with a fixed subgroup size (the CPU),
// the subgroup queries arithmetic on the thread id.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_GPUCOLLECTIVES_EXPANDCOLLECTIVES_H
#define SLUICE_CONVERSION_GPUCOLLECTIVES_EXPANDCOLLECTIVES_H

#include <functional>
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cstdint>

namespace sluice {

struct CollectiveExpansionOptions {
  /// The backend's subgroup size when it is a compile-time constant (the
  /// CPU's); 0: the target's own, read with gpu.subgroup_size at run time.
  unsigned subgroupSize = 0;
  /// Rewrite gpu.subgroup_id and gpu.num_subgroups as thread-id arithmetic
  /// over gpu.subgroup_size (a target without those builtins: HIP). Always
  /// done, with gpu.lane_id and gpu.subgroup_size, when subgroupSize != 0.
  bool expandSubgroupQueries = false;
  /// Rewrite gpu.subgroup_reduce as shuffles (a target without native
  /// subgroup reductions).
  bool expandSubgroupReduce = true;
  /// With expandSubgroupReduce: the reductions the target lowers itself
  /// (HIP: the whole subgroup on i32, `sluice_subgroup_<op>` of the prelude);
  /// empty: every one is expanded.
  std::function<bool(mlir::gpu::SubgroupReduceOp)> keepSubgroupReduce;
  /// Rewrite every gpu.shuffle as `idx` from a source lane computed at the
  /// arith level, with the subgroup size as width (a target whose shuffle
  /// primitive reads a lane by number: HIP's __shfl).
  bool shufflesAsIndexed = false;
};

/// What one expansion rewrote.
struct CollectiveExpansionResult {
  unsigned warpOps = 0;
  unsigned allReduces = 0;
  unsigned subgroupReduces = 0;
  unsigned subgroupQueries = 0;
  unsigned indexedShuffles = 0;
};

/// The largest block (lanes) an all_reduce of a kernel without a known block
/// size is expanded for: its workgroup array has this many elements.
constexpr int64_t kMaxAllReduceLanes = 1024;

/// Marks a gpu.shuffle idx whose offset is a lane of the subgroup and whose
/// width is the subgroup size (shufflesAsIndexed made it).
constexpr llvm::StringLiteral kIndexedShuffleAttr = "sluice.indexed";

/// Expands the collectives of every gpu.func in `module`. Fails, with an
/// error at the op, for what cannot be expanded (a reduction of a type or
/// with a cluster the expansion does not handle).
mlir::FailureOr<CollectiveExpansionResult>
expandGPUCollectives(mlir::gpu::GPUModuleOp module,
                     const CollectiveExpansionOptions &options);

/// Distributes and lowers every gpu.warp_execute_on_lane_0 of `module`
/// (upstream's patterns; DistributeWarpOps.cpp): lanes exchange values with
/// gpu.shuffle / gpu.subgroup_reduce when the op's warp size equals
/// `subgroupSize` (the backend's constant subgroup size; 0: none), else
/// through workgroup memory and barriers. Returns how many ops it lowered;
/// fails with an error at the op it cannot lower. expandGPUCollectives runs
/// it first.
mlir::FailureOr<unsigned> distributeWarpOps(mlir::gpu::GPUModuleOp module,
                                            unsigned subgroupSize);

/// The lanes a workgroup array with one element per lane of `function`'s
/// block holds: the known block size, else the constant block size of every
/// launch of it, else kMaxAllReduceLanes.
int64_t blockLaneCapacity(mlir::gpu::GPUFuncOp function);

/// A kernel's block size when it is static (known_block_size), else nullopt.
std::optional<int64_t> staticBlockLanes(mlir::gpu::GPUFuncOp function);

} // namespace sluice

#endif // SLUICE_CONVERSION_GPUCOLLECTIVES_EXPANDCOLLECTIVES_H
