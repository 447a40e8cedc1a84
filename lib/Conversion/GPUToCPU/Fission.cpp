//===- Fission.cpp - Barrier kernels by loop fission ----------------------===//
//
// The kernel body is cut at every barrier. Barrier-free runs of operations
// become lane loops (z, y, x; x innermost); barrier-containing scf.for,
// scf.while and scf.if ops, whose bounds and conditions are block-uniform,
// stay at block level and are cut recursively. Pure operations on uniform values are computed once at
// block level. A lane value used in a later lane loop is stored to a per-lane
// array (from the worker's arena) where it is defined and loaded where used;
// loop-carried values of a barrier-containing scf.for live in such arrays too.
//
// The same lowering builds the body of a lane-group coroutine: the lanes are
// one group of the block, a barrier stays as a gpu.barrier marker (a suspend
// point later), and a barrier-containing loop or branch whose bounds are lane
// values takes the group's first lane's values after checking that every lane
// of the group agrees (the barrier rule of OpenCL and CUDA).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace sluice::gpu_to_cpu {

namespace {

/// Operations that contain a gpu.barrier or a gpu.shuffle (at any depth):
/// both cut the lanes' code, a barrier for the block, a shuffle for its
/// subgroup. And the kernel's block-uniform values.
struct BarrierStructure {
  explicit BarrierStructure(gpu::GPUFuncOp kernel) {
    kernel.walk([&](Operation *cut) {
      if (!isa<gpu::BarrierOp, gpu::ShuffleOp>(cut))
        return;
      for (Operation *op = cut->getParentOp();
           op && op != kernel.getOperation(); op = op->getParentOp()) {
        containsBarrier.insert(op);
        if (isa<gpu::ShuffleOp>(cut))
          containsShuffle.insert(op);
      }
    });
    // The loop-carried values of a barrier-containing scf.while are uniform
    // when everything that enters them is: assumed at first, then dropped
    // until the assumption holds (each round only removes, so it ends).
    llvm::DenseSet<Value> assumed;
    kernel.walk([&](scf::WhileOp loop) {
      if (!containsBarrier.contains(loop))
        return;
      assumed.insert(loop.getBeforeArguments().begin(),
                     loop.getBeforeArguments().end());
      assumed.insert(loop.getAfterArguments().begin(),
                     loop.getAfterArguments().end());
      assumed.insert(loop.result_begin(), loop.result_end());
    });
    for (bool changed = true; changed;) {
      computeUniform(kernel, assumed);
      changed = false;
      auto drop = [&](Value value) { changed |= assumed.erase(value); };
      kernel.walk([&](scf::WhileOp loop) {
        if (!containsBarrier.contains(loop))
          return;
        for (auto [argument, init, yielded] :
             llvm::zip(loop.getBeforeArguments(), loop.getInits(),
                       loop.getYieldOp().getResults()))
          if (!isUniform(init) || !isUniform(yielded))
            drop(argument);
        for (auto [argument, result, forwarded] :
             llvm::zip(loop.getAfterArguments(), loop.getResults(),
                       loop.getConditionOp().getArgs()))
          if (!isUniform(forwarded)) {
            drop(argument);
            drop(result);
          }
      });
    }
  }

  /// The block-uniform values, given the scf.while values `assumed` uniform.
  void computeUniform(gpu::GPUFuncOp kernel,
                      const llvm::DenseSet<Value> &assumed) {
    uniform.clear();
    // The kernel's operands (not its private attributions, which are entry
    // block arguments too: each lane has its own).
    for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
      uniform.insert(kernel.getArgument(i));
    for (BlockArgument buffer : kernel.getWorkgroupAttributions())
      uniform.insert(buffer);
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp>(op)) {
        uniform.insert(op->getResult(0));
        return;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (containsBarrier.contains(op) && isUniform(loop.getLowerBound()) &&
            isUniform(loop.getUpperBound()) && isUniform(loop.getStep()))
          uniform.insert(loop.getInductionVar());
        return;
      }
      if (auto loop = dyn_cast<scf::WhileOp>(op)) {
        for (Region &region : loop->getRegions())
          for (Value argument : region.getArguments())
            if (assumed.contains(argument))
              uniform.insert(argument);
        for (Value result : loop.getResults())
          if (assumed.contains(result))
            uniform.insert(result);
        return;
      }
      // A shuffle's result is a lane value even when its operands are
      // uniform (`valid` depends on the lane).
      if (isa<gpu::ThreadIdOp, gpu::ShuffleOp>(op))
        return;
      // A load that every lane of the block executes at the same program
      // point from the same address reads the same value in every lane: no
      // lane of the block can write that location between their loads without
      // a data race (a write in an earlier or later segment is ordered by a
      // barrier). So a trip count or condition read from memory at a uniform
      // address is uniform too.
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        Operation *parent = op->getParentOp();
        if ((parent == kernel.getOperation() ||
             containsBarrier.contains(parent)) &&
            isUniform(load.getMemRef()) &&
            llvm::all_of(load.getIndices(),
                         [&](Value v) { return isUniform(v); }))
          uniform.insert(load.getResult());
        return;
      }
      if (op->getNumRegions() == 0 && isPure(op) &&
          llvm::all_of(op->getOperands(),
                       [&](Value v) { return isUniform(v); }))
        uniform.insert(op->result_begin(), op->result_end());
    });
  }
  bool isUniform(Value value) const { return uniform.contains(value); }
  bool isHoistable(Operation *op) const {
    return op->getNumResults() > 0 &&
           llvm::all_of(op->getResults(),
                        [&](Value v) { return isUniform(v); });
  }

  /// What a cut inside `op` is, for messages.
  const char *cutKind(Operation *op) const {
    return containsShuffle.contains(op) ? "a gpu.shuffle" : "a barrier";
  }

  llvm::DenseSet<Operation *> containsBarrier; // a barrier or a shuffle
  llvm::DenseSet<Operation *> containsShuffle;
  llvm::DenseSet<Value> uniform;
};

class FissionLowering {
public:
  FissionLowering(KernelContext &context, KernelLoweringResult &result,
                  OpBuilder &builder, BlockEnvironment &environment,
                  Operation *allocationAnchor, const LaneGroup *group)
      : context(context), result(result), builder(builder),
        environment(environment), structure(context.kernel),
        allocationAnchor(allocationAnchor), group(group) {}

  LogicalResult run(std::string &reason) {
    gpu::GPUFuncOp kernel = context.kernel;
    for (auto [argument, value] :
         llvm::zip(kernel.getArguments(), environment.kernelArguments))
      blockMap.map(argument, value);
    for (auto [buffer, value] : llvm::zip(kernel.getWorkgroupAttributions(),
                                          environment.workgroupBuffers))
      blockMap.map(buffer, value);
    if (failed(lowerBlockLevel(kernel.getBody().front()))) {
      reason = failureReason;
      return failure();
    }
    for (scf::ForOp lanes : innermostLaneLoops)
      if (!splitAtWrap(lanes))
        splitAtUniformBound(lanes);
    innermostLaneLoops.clear();
    // Innermost first: a nest of short loops unrolls from the inside out.
    for (scf::ForOp loop : llvm::reverse(blockLoops))
      unrollShortBlockLoop(loop);
    blockLoops.clear();
    return success();
  }

  /// Fully unrolls a block-level loop with a short constant trip count (the
  /// steps of a tree reduction or a scan): LLVM unrolls only innermost loops,
  /// and a block-level loop holds lane loops. Unrolled, each step's stride,
  /// split point and copy sizes are constants.
  static void unrollShortBlockLoop(scf::ForOp loop) {
    constexpr int64_t kMaxTrips = 16;
    constexpr int64_t kMaxUnrolledOps = 4096;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!lower || !upper || !step || *step <= 0 || *upper <= *lower)
      return;
    int64_t trips = (*upper - *lower + *step - 1) / *step;
    if (trips > kMaxTrips)
      return;
    int64_t ops = 0;
    loop.getBody()->walk([&](Operation *) { ++ops; });
    if (ops * trips > kMaxUnrolledOps)
      return;
    (void)loopUnrollFull(loop);
  }

private:
  struct LaneLoop {
    Value threadId[3];
    Value lane; // index into per-lane arrays
    Operation *outermost = nullptr;
    scf::ForOp innermost; // fission: the loop over the innermost dimension
    IRMapping map;
  };
  struct LaneDefinition {
    Value value; // the clone inside its lane loop
    Value lane;
  };

  /// Stores of a barrier-containing loop's yielded values to the per-lane
  /// arrays of its loop-carried values, emitted at the end of the body's last
  /// lane loop when the body does not end with a barrier (else in a lane loop
  /// of their own).
  struct CarriedStores {
    ValueRange yielded;
    ArrayRef<Value> slots;
    bool emitted = false;
  };

  LogicalResult lowerBlockLevel(Block &block,
                                CarriedStores *carried = nullptr) {
    SmallVector<Operation *> pending;
    for (Operation &op : block.without_terminator()) {
      if (isa<gpu::BarrierOp>(op)) {
        if (failed(flush(pending)))
          return failure();
        if (group)
          gpu::BarrierOp::create(builder, op.getLoc());
        continue;
      }
      if (structure.containsBarrier.contains(&op)) {
        if (failed(flush(pending)) || failed(lowerUniformControlFlow(&op)))
          return failure();
        continue;
      }
      if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
        // Every lane of the subgroup publishes its value before any reads
        // another's: the value goes to an array of its own where this
        // segment ends, and the shuffle starts the next segment.
        FailureOr<Value> source = newSlot(shuffle.getValue());
        if (failed(source))
          return failure();
        shuffleSources[shuffle] = *source;
        SmallVector<std::pair<Value, Value>> exports = {
            {shuffle.getValue(), *source}};
        if (failed(flush(pending, nullptr, exports)))
          return failure();
        pending.push_back(&op);
        continue;
      }
      if (structure.isHoistable(&op)) {
        // A uniform load runs once, before the segment's lane loop: if an
        // earlier op of the segment may write memory, that lane loop is
        // emitted first, so the load sees what every lane wrote before it.
        if (!isMemoryEffectFree(&op) &&
            llvm::any_of(pending, [](Operation *p) { return mayWrite(p); }))
          if (failed(flush(pending)))
            return failure();
        hoist(&op);
        continue;
      }
      pending.push_back(&op);
    }
    return flush(pending, carried);
  }

  static bool mayWrite(Operation *root) {
    bool writes = false;
    root->walk([&](Operation *op) {
      if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
        if (effects.hasEffect<MemoryEffects::Write>())
          writes = true;
      } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
        writes = true;
      }
    });
    return writes;
  }

  void hoist(Operation *op) {
    if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      blockMap.map(id.getResult(),
                   environment.blockId[unsigned(id.getDimension())]);
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      blockMap.map(dim.getResult(),
                   environment.blockDim[unsigned(dim.getDimension())]);
    else if (auto grid = dyn_cast<gpu::GridDimOp>(op))
      blockMap.map(grid.getResult(),
                   environment.gridDim[unsigned(grid.getDimension())]);
    else
      builder.clone(*op, blockMap);
  }

  /// A bound or condition of barrier-containing control flow, at block level.
  FailureOr<Value> controlValue(Value value) {
    if (Value mapped = blockMap.lookupOrNull(value))
      return mapped;
    if (!group) {
      failureReason = "a barrier or gpu.shuffle is inside control flow that "
                      "depends on the thread";
      return failure();
    }
    // Every lane of the group must agree; the first lane's value is taken.
    FailureOr<Value> slot = laneSlot(value);
    if (failed(slot))
      return failure();
    Location loc = value.getLoc();
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value first = memref::LoadOp::create(builder, loc, *slot, zero);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value none = arith::ConstantIntOp::create(builder, loc, 0, 1);
    auto check = scf::ForOp::create(builder, loc, one, group->size, one,
                                    ValueRange{none});
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(check.getBody());
      Value other =
          memref::LoadOp::create(builder, loc, *slot, check.getInductionVar());
      Value differs =
          other.getType().isIntOrIndex()
              ? arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                      other, first)
                    .getResult()
              : arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNE,
                                      other, first)
                    .getResult();
      Value any = arith::OrIOp::create(builder, loc,
                                       check.getRegionIterArgs()[0], differs);
      scf::YieldOp::create(builder, loc, any);
    }
    auto diverged = scf::IfOp::create(builder, loc, check.getResult(0), false);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(diverged.thenBlock()->getTerminator());
      group->reportDivergence(builder, loc);
    }
    return first;
  }

  LogicalResult lowerUniformControlFlow(Operation *op) {
    Location loc = op->getLoc();
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      FailureOr<Value> lower = controlValue(loop.getLowerBound());
      FailureOr<Value> upper =
          succeeded(lower) ? controlValue(loop.getUpperBound()) : lower;
      FailureOr<Value> step =
          succeeded(upper) ? controlValue(loop.getStep()) : upper;
      if (failed(step))
        return failure();
      // Loop-carried values live in per-lane arrays: initialized before the
      // loop, stored at the end of each iteration, read after the loop.
      SmallVector<Value> carried;
      if (loop.getNumRegionIterArgs() != 0) {
        LaneLoop init = openLaneLoop(loc);
        for (auto [argument, initial] :
             llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs())) {
          FailureOr<Value> slot = newSlot(argument);
          if (failed(slot))
            return failure();
          FailureOr<Value> value = laneValue(initial, init);
          if (failed(value))
            return failure();
          memref::StoreOp::create(builder, loc, *value, *slot, init.lane);
          carried.push_back(*slot);
        }
        closeLaneLoop(init);
      }
      auto lowered = scf::ForOp::create(builder, loc, *lower, *upper, *step);
      if (!group)
        blockLoops.push_back(lowered);
      blockMap.map(loop.getInductionVar(), lowered.getInductionVar());
      for (auto [argument, slot] : llvm::zip(loop.getRegionIterArgs(), carried))
        slotBacked[argument] = slot;
      {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPoint(lowered.getBody()->getTerminator());
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        CarriedStores stores{yield.getOperands(), carried};
        if (failed(lowerBlockLevel(*loop.getBody(),
                                   carried.empty() ? nullptr : &stores)) ||
            failed(finishCarried(stores, loc)))
          return failure();
      }
      for (auto [res, slot] : llvm::zip(loop.getResults(), carried))
        slotBacked[res] = slot;
      return success();
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op))
      return lowerWhile(loop);
    auto branch = cast<scf::IfOp>(op);
    FailureOr<Value> condition = controlValue(branch.getCondition());
    if (failed(condition))
      return failure();
    bool hasElse = !branch.getElseRegion().empty();
    auto lowered =
        scf::IfOp::create(builder, loc, *condition, /*withElseRegion=*/hasElse);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(lowered.thenBlock()->getTerminator());
    if (failed(lowerBlockLevel(*branch.thenBlock())))
      return failure();
    if (hasElse) {
      builder.setInsertionPoint(lowered.elseBlock()->getTerminator());
      return lowerBlockLevel(*branch.elseBlock());
    }
    return success();
  }

  /// The stores of `stores` in a lane loop of their own, unless the body's
  /// last lane loop emitted them (it does unless the body ends with a cut);
  /// also a loop's initial values.
  LogicalResult finishCarried(CarriedStores &stores, Location loc) {
    if (stores.slots.empty() || stores.emitted)
      return success();
    LaneLoop next = openLaneLoop(loc);
    SmallVector<Value> values;
    for (Value yielded : stores.yielded) {
      FailureOr<Value> value = laneValue(yielded, next);
      if (failed(value))
        return failure();
      values.push_back(*value);
    }
    for (auto [value, slot] : llvm::zip(values, stores.slots))
      memref::StoreOp::create(builder, loc, value, slot, next.lane);
    closeLaneLoop(next);
    stores.emitted = true;
    return success();
  }

  /// Per-lane arrays for the lane values among `values` (null entries for the
  /// uniform ones, which stay block-level values).
  FailureOr<SmallVector<Value>> laneSlots(ValueRange values) {
    SmallVector<Value> slots;
    for (Value value : values) {
      if (structure.isUniform(value)) {
        slots.push_back(nullptr);
        continue;
      }
      FailureOr<Value> slot = newSlot(value);
      if (failed(slot))
        return failure();
      slots.push_back(*slot);
    }
    return slots;
  }

  /// A barrier-containing scf.while at block level. Its uniform loop-carried
  /// values stay block-level values (the lowered loop's own arguments); the
  /// others live in per-lane arrays, one set for the values entering the
  /// condition region and one for those entering the body (and leaving the
  /// loop). The condition is a control value like an scf.if's.
  LogicalResult lowerWhile(scf::WhileOp loop) {
    Location loc = loop.getLoc();
    scf::ConditionOp condition = loop.getConditionOp();
    scf::YieldOp yield = loop.getYieldOp();
    FailureOr<SmallVector<Value>> beforeSlots =
        laneSlots(loop.getBeforeArguments());
    if (failed(beforeSlots))
      return failure();
    FailureOr<SmallVector<Value>> afterSlots =
        laneSlots(loop.getAfterArguments());
    if (failed(afterSlots))
      return failure();

    // Uniform values pass as block-level values (the lowered operands of the
    // terminator or loop); lane values are stored, in the region's last lane
    // loop, to the arrays the next region reads.
    struct Split {
      SmallVector<Value> uniform;  // original values
      SmallVector<Value> lane;     // original values
      SmallVector<Value> slots;    // for `lane`
    };
    auto split = [](ValueRange values, ArrayRef<Value> slots) {
      Split parts;
      for (auto [value, slot] : llvm::zip(values, slots)) {
        if (slot) {
          parts.lane.push_back(value);
          parts.slots.push_back(slot);
        } else {
          parts.uniform.push_back(value);
        }
      }
      return parts;
    };
    auto blockValues = [&](ArrayRef<Value> values)
        -> FailureOr<SmallVector<Value>> {
      SmallVector<Value> lowered;
      for (Value value : values) {
        FailureOr<Value> mapped = controlValue(value);
        if (failed(mapped))
          return failure();
        lowered.push_back(*mapped);
      }
      return lowered;
    };
    // Maps `values` to their lowered counterparts in order (uniform) or to
    // their arrays (lane values).
    auto bind = [&](ValueRange values, ArrayRef<Value> slots,
                    ValueRange lowered) {
      unsigned next = 0;
      for (auto [value, slot] : llvm::zip(values, slots)) {
        if (slot)
          slotBacked[value] = slot;
        else
          blockMap.map(value, lowered[next++]);
      }
    };
    auto typesOf = [](ArrayRef<Value> values) {
      return llvm::to_vector(
          llvm::map_range(values, [](Value v) { return v.getType(); }));
    };

    Split inits = split(loop.getInits(), *beforeSlots);
    CarriedStores initial{inits.lane, inits.slots};
    if (failed(finishCarried(initial, loc)))
      return failure();
    FailureOr<SmallVector<Value>> initValues = blockValues(inits.uniform);
    if (failed(initValues))
      return failure();
    Split forwarded = split(condition.getArgs(), *afterSlots);
    Split yielded = split(yield.getResults(), *beforeSlots);
    SmallVector<Type> afterTypes =
        typesOf(split(loop.getAfterArguments(), *afterSlots).uniform);
    auto lowered =
        scf::WhileOp::create(builder, loc, afterTypes, *initValues);
    {
      OpBuilder::InsertionGuard guard(builder);
      SmallVector<Type> beforeTypes =
          typesOf(split(loop.getBeforeArguments(), *beforeSlots).uniform);
      Block *before = builder.createBlock(
          &lowered.getBefore(), {}, beforeTypes,
          SmallVector<Location>(beforeTypes.size(), loc));
      bind(loop.getBeforeArguments(), *beforeSlots, before->getArguments());
      CarriedStores toBody{forwarded.lane, forwarded.slots};
      if (failed(lowerBlockLevel(loop.getBefore().front(),
                                 forwarded.lane.empty() ? nullptr : &toBody)) ||
          failed(finishCarried(toBody, loc)))
        return failure();
      FailureOr<Value> more = controlValue(condition.getCondition());
      if (failed(more))
        return failure();
      FailureOr<SmallVector<Value>> passed = blockValues(forwarded.uniform);
      if (failed(passed))
        return failure();
      scf::ConditionOp::create(builder, condition.getLoc(), *more, *passed);

      Block *after = builder.createBlock(
          &lowered.getAfter(), {}, afterTypes,
          SmallVector<Location>(afterTypes.size(), loc));
      bind(loop.getAfterArguments(), *afterSlots, after->getArguments());
      CarriedStores toCondition{yielded.lane, yielded.slots};
      if (failed(lowerBlockLevel(loop.getAfter().front(),
                                 yielded.lane.empty() ? nullptr
                                                      : &toCondition)) ||
          failed(finishCarried(toCondition, loc)))
        return failure();
      FailureOr<SmallVector<Value>> next = blockValues(yielded.uniform);
      if (failed(next))
        return failure();
      scf::YieldOp::create(builder, yield.getLoc(), *next);
    }
    bind(loop.getResults(), *afterSlots, lowered.getResults());
    return success();
  }

  /// Whether `value` (an index of a memory access in the kernel) is
  /// `thread_id d + (something independent of thread_id d)`.
  bool unitStrideIn(Value value, unsigned d, unsigned depth = 0) const {
    if (depth > 8)
      return false;
    Operation *op = value.getDefiningOp();
    if (!op)
      return false;
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      return unsigned(id.getDimension()) == d;
    if (auto add = dyn_cast<arith::AddIOp>(op))
      return (unitStrideIn(add.getLhs(), d, depth + 1) &&
              !dependsOnThread(add.getRhs(), d, depth + 1)) ||
             (unitStrideIn(add.getRhs(), d, depth + 1) &&
              !dependsOnThread(add.getLhs(), d, depth + 1));
    if (auto sub = dyn_cast<arith::SubIOp>(op))
      return unitStrideIn(sub.getLhs(), d, depth + 1) &&
             !dependsOnThread(sub.getRhs(), d, depth + 1);
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
            arith::ExtSIOp>(op))
      return unitStrideIn(op->getOperand(0), d, depth + 1);
    return false;
  }
  /// Whether `value` may depend on thread_id d (conservative).
  bool dependsOnThread(Value value, unsigned d, unsigned depth = 0) const {
    if (structure.isUniform(value))
      return false;
    if (depth > 8)
      return true;
    Operation *op = value.getDefiningOp();
    if (!op)
      return true; // a lane-level loop's induction variable or iter_arg
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      return unsigned(id.getDimension()) == d;
    if (op->getNumRegions() != 0 || !isPure(op))
      return true;
    return llvm::any_of(op->getOperands(), [&](Value operand) {
      return dependsOnThread(operand, d, depth + 1);
    });
  }

  /// The thread dimension of the innermost lane loop of a segment: the one in
  /// which the segment's memory accesses are contiguous (their last index is
  /// `thread_id d + c`). Loads count twice: a strided load waits for its data
  /// (often just stored by the previous segment, through store forwarding),
  /// a strided store does not. Ties keep x. The lanes of a segment are
  /// independent (nothing orders them without a barrier), so any order is
  /// correct; e.g. the read-back of a transposed tile, tile[tx][ty] ->
  /// out[..][tx], runs with ty innermost.
  unsigned innermostDimension(ArrayRef<Operation *> pending) const {
    if (!context.staticBlockSize)
      return 0;
    const std::array<int64_t, 3> &sizes = *context.staticBlockSize;
    unsigned score[3] = {0, 0, 0};
    auto count = [&](ValueRange indices, unsigned weight) {
      if (indices.empty())
        return;
      for (unsigned d = 0; d < 3; ++d) {
        if (sizes[d] <= 1 || !unitStrideIn(indices.back(), d))
          continue;
        if (llvm::any_of(indices.drop_back(), [&](Value index) {
              return dependsOnThread(index, d);
            }))
          continue;
        score[d] += weight;
      }
    };
    for (Operation *root : pending)
      root->walk([&](Operation *op) {
        if (auto load = dyn_cast<memref::LoadOp>(op))
          count(load.getIndices(), 2);
        else if (auto store = dyn_cast<memref::StoreOp>(op))
          count(store.getIndices(), 1);
      });
    unsigned best = 0;
    for (unsigned d = 1; d < 3; ++d)
      if (score[d] > score[best])
        best = d;
    return best;
  }

  /// Opens a lane loop at the builder's position and leaves the builder in its
  /// body; closeLaneLoop moves the builder after it. Without lane groups, the
  /// loop over `innermost` is the innermost one (the others z, y, x outside).
  LaneLoop openLaneLoop(Location loc, unsigned innermost = 0) {
    LaneLoop loop;
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    if (group) {
      auto laneLoop = scf::ForOp::create(builder, loc, zero, group->size, one);
      loop.outermost = laneLoop;
      builder.setInsertionPoint(laneLoop.getBody()->getTerminator());
      loop.lane = laneLoop.getInductionVar();
      Value linear = arith::AddIOp::create(
          builder, loc, group->base, loop.lane,
          arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw);
      if (context.staticBlockSize && (*context.staticBlockSize)[1] == 1 &&
          (*context.staticBlockSize)[2] == 1) {
        // One-dimensional block: the thread id is the linear lane.
        loop.threadId[0] = linear;
        loop.threadId[1] = loop.threadId[2] = zero;
        innermostLaneLoops.push_back(laneLoop);
        return loop;
      }
      auto threadId = delinearizeXYZ(builder, loc, linear,
                                     environment.blockDim[0],
                                     environment.blockDim[1]);
      llvm::copy(threadId, loop.threadId);
      return loop;
    }
    SmallVector<unsigned, 3> order;
    for (int d = 2; d >= 0; --d)
      if (unsigned(d) != innermost)
        order.push_back(d);
    order.push_back(innermost);
    for (unsigned d : order) {
      auto laneLoop =
          scf::ForOp::create(builder, loc, zero, environment.blockDim[d], one);
      if (!loop.outermost)
        loop.outermost = laneLoop;
      loop.innermost = laneLoop;
      loop.threadId[d] = laneLoop.getInductionVar();
      builder.setInsertionPoint(laneLoop.getBody()->getTerminator());
    }
    loop.innermost->setAttr(kLaneLoopAttrName, builder.getUnitAttr());
    // Lane indices never wrap: say so, so that LLVM can bound the accesses of
    // per-lane arrays and vectorize the lane loop.
    auto noWrap =
        arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
    Value lane = arith::MulIOp::create(builder, loc, loop.threadId[2],
                                       environment.blockDim[1], noWrap);
    lane = arith::AddIOp::create(builder, loc, lane, loop.threadId[1], noWrap);
    lane = arith::MulIOp::create(builder, loc, lane, environment.blockDim[0],
                                 noWrap);
    loop.lane =
        arith::AddIOp::create(builder, loc, lane, loop.threadId[0], noWrap);
    return loop;
  }
  void closeLaneLoop(LaneLoop &loop) {
    builder.setInsertionPointAfter(loop.outermost);
    if (group && group->laneLoops)
      group->laneLoops->push_back(loop.outermost);
  }

  /// Emits one lane loop nest for the barrier-free run `pending`; at its
  /// end each lane stores the `exports` (value, per-lane array) pairs.
  LogicalResult flush(SmallVectorImpl<Operation *> &pending,
                      CarriedStores *carried = nullptr,
                      ArrayRef<std::pair<Value, Value>> exports = {}) {
    if (pending.empty() && exports.empty())
      return success();
    OpBuilder::InsertionGuard guard(builder);
    Location loc = pending.empty() ? exports.front().first.getLoc()
                                   : pending.front()->getLoc();
    LaneLoop loop = openLaneLoop(loc, group ? 0 : innermostDimension(pending));
    Block *body = builder.getInsertionBlock();

    for (Operation *op : pending) {
      if (auto id = dyn_cast<gpu::ThreadIdOp>(op)) {
        loop.map.map(id.getResult(),
                     loop.threadId[unsigned(id.getDimension())]);
        continue;
      }
      if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
        if (failed(emitShuffle(shuffle, loop)))
          return failure();
        continue;
      }
      llvm::SetVector<Value> used(op->operand_begin(), op->operand_end());
      getUsedValuesDefinedAbove(op->getRegions(), used);
      for (Value value : used) {
        if (loop.map.contains(value))
          continue;
        FailureOr<Value> mapped = laneValue(value, loop);
        if (failed(mapped))
          return failure();
        loop.map.map(value, *mapped);
      }
      Operation *clone = builder.clone(*op, loop.map);
      for (auto [original, cloned] :
           llvm::zip(op->getResults(), clone->getResults()))
        definitions[original] = {cloned, loop.lane};
    }
    // Thread ids nested in cloned regions.
    SmallVector<gpu::ThreadIdOp> nested;
    body->walk([&](gpu::ThreadIdOp id) { nested.push_back(id); });
    for (gpu::ThreadIdOp id : nested) {
      id.getResult().replaceAllUsesWith(
          loop.threadId[unsigned(id.getDimension())]);
      id.erase();
    }
    if (carried) {
      // Every lane reads its loop-carried values before it overwrites them
      // (all loads first: a yield may permute them); lanes touch only their
      // own slots.
      SmallVector<Value> values;
      for (Value yielded : carried->yielded) {
        FailureOr<Value> value = laneValue(yielded, loop);
        if (failed(value))
          return failure();
        values.push_back(*value);
      }
      for (auto [value, slot] : llvm::zip(values, carried->slots))
        memref::StoreOp::create(builder, value.getLoc(), value, slot,
                                loop.lane);
      carried->emitted = true;
    }
    for (auto [value, slot] : exports) {
      FailureOr<Value> lanes = laneValue(value, loop);
      if (failed(lanes))
        return failure();
      memref::StoreOp::create(builder, value.getLoc(), *lanes, slot, loop.lane);
    }
    pending.clear();
    closeLaneLoop(loop);
    if (!group)
      innermostLaneLoops.push_back(loop.innermost);
    ++result.laneLoops;
    return success();
  }

  /// Index-set splitting: if the x loop's body compares the thread id x with a
  /// block-level value (`tid < stride`, `tid >= offset`), the loop is split at
  /// that value and the comparison becomes a constant in each part, so the
  /// guarded code needs no per-lane branch and the parts can be vectorized.
  /// Runs after all lane loops are complete (stores to per-lane arrays are
  /// added lazily), so both parts keep every store.
  void splitAtUniformBound(scf::ForOp lanes) {
    Value iv = lanes.getInductionVar();
    auto outside = [&](Value value) {
      return !lanes->isAncestor(value.getParentBlock()->getParentOp());
    };
    // The thread id is the loop's induction variable, or (in a lane group of a
    // one-dimensional block) `first lane + induction variable`.
    Value offset;
    auto isThreadId = [&](Value value) {
      if (value == iv)
        return true;
      auto add = value.getDefiningOp<arith::AddIOp>();
      if (add && add->getBlock() == lanes.getBody() && add.getRhs() == iv &&
          outside(add.getLhs())) {
        offset = add.getLhs();
        return true;
      }
      return false;
    };
    for (Operation &op : lanes.getBody()->without_terminator()) {
      auto compare = dyn_cast<arith::CmpIOp>(op);
      if (!compare || !compare.getLhs().getType().isIndex())
        continue;
      Value bound;
      offset = nullptr;
      arith::CmpIPredicate predicate = compare.getPredicate();
      if (isThreadId(compare.getLhs()) && outside(compare.getRhs())) {
        bound = compare.getRhs();
      } else if (isThreadId(compare.getRhs()) && outside(compare.getLhs())) {
        bound = compare.getLhs();
        predicate = swapPredicate(predicate);
      } else {
        continue;
      }
      // First lane of the second part, and the comparison's value before it.
      bool trueFirst;
      bool plusOne;
      switch (predicate) {
      case arith::CmpIPredicate::ult:
        trueFirst = true, plusOne = false;
        break;
      case arith::CmpIPredicate::ule:
        trueFirst = true, plusOne = true;
        break;
      case arith::CmpIPredicate::uge:
        trueFirst = false, plusOne = false;
        break;
      case arith::CmpIPredicate::ugt:
        trueFirst = false, plusOne = true;
        break;
      default:
        continue;
      }
      Location loc = compare.getLoc();
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(lanes);
      Value split = bound;
      if (plusOne)
        split = arith::AddIOp::create(
            builder, loc, split,
            arith::ConstantIndexOp::create(builder, loc, 1));
      if (offset) {
        // first + l < bound  <=>  l < bound - first (none if bound < first).
        split = arith::SubIOp::create(builder, loc, split, offset);
        split =
            arith::MaxSIOp::create(builder, loc, split, lanes.getLowerBound());
      }
      split =
          arith::MaxUIOp::create(builder, loc, split, lanes.getLowerBound());
      split =
          arith::MinUIOp::create(builder, loc, split, lanes.getUpperBound());
      IRMapping mapping;
      auto first = cast<scf::ForOp>(builder.clone(*lanes, mapping));
      first.getUpperBoundMutable().assign(split);
      if (group && group->laneLoops)
        group->laneLoops->push_back(first);
      Value firstCompare = mapping.lookup(compare.getResult());
      builder.setInsertionPoint(firstCompare.getDefiningOp());
      firstCompare.replaceAllUsesWith(
          arith::ConstantIntOp::create(builder, loc, trueFirst, 1));
      lanes.getLowerBoundMutable().assign(split);
      builder.setInsertionPoint(compare);
      compare.getResult().replaceAllUsesWith(
          arith::ConstantIntOp::create(builder, loc, !trueFirst, 1));
      return;
    }
  }

  /// Index-set splitting at a wrap-around: `(tid + c) mod n` (constants,
  /// 0 <= c < n, lanes 0 .. ub with ub + c <= 2n; e.g. a cyclic right
  /// neighbour) is `tid + c` below lane n - c and `tid + c - n` from there, so
  /// each part reads consecutive addresses and can be vectorized. Returns
  /// whether the loop was rewritten.
  bool splitAtWrap(scf::ForOp lanes) {
    Value iv = lanes.getInductionVar();
    std::optional<int64_t> lower = getConstantIntValue(lanes.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(lanes.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(lanes.getStep());
    if (!lower || !upper || !step || *lower != 0 || *step != 1)
      return false;
    for (Operation &op : lanes.getBody()->without_terminator()) {
      auto rem = dyn_cast<arith::RemUIOp>(op);
      if (!rem || !rem.getType().isIndex() || rem.use_empty())
        continue;
      auto add = rem.getLhs().getDefiningOp<arith::AddIOp>();
      std::optional<int64_t> n = getConstantIntValue(rem.getRhs());
      if (!add || !n || *n <= 0)
        continue;
      Value other;
      if (add.getLhs() == iv)
        other = add.getRhs();
      else if (add.getRhs() == iv)
        other = add.getLhs();
      std::optional<int64_t> c =
          other ? getConstantIntValue(other) : std::nullopt;
      if (!c || *c < 0 || *c >= *n || *upper + *c > 2 * *n)
        continue;
      Location loc = rem.getLoc();
      OpBuilder::InsertionGuard guard(builder);
      int64_t split = *n - *c;
      if (split >= *upper) {
        // No lane wraps.
        rem.getResult().replaceAllUsesWith(add.getResult());
        return true;
      }
      builder.setInsertionPoint(lanes);
      Value at = arith::ConstantIndexOp::create(builder, loc, split);
      IRMapping mapping;
      auto first = cast<scf::ForOp>(builder.clone(*lanes, mapping));
      first.getUpperBoundMutable().assign(at);
      if (group && group->laneLoops)
        group->laneLoops->push_back(first);
      auto firstRem = cast<arith::RemUIOp>(mapping.lookup(rem.getResult())
                                               .getDefiningOp());
      firstRem.getResult().replaceAllUsesWith(firstRem.getLhs());
      lanes.getLowerBoundMutable().assign(at);
      builder.setInsertionPoint(rem);
      rem.getResult().replaceAllUsesWith(
          arith::SubIOp::create(builder, loc, rem.getLhs(), rem.getRhs())
              .getResult());
      return true;
    }
    return false;
  }

  static arith::CmpIPredicate swapPredicate(arith::CmpIPredicate predicate) {
    switch (predicate) {
    case arith::CmpIPredicate::ult:
      return arith::CmpIPredicate::ugt;
    case arith::CmpIPredicate::ule:
      return arith::CmpIPredicate::uge;
    case arith::CmpIPredicate::ugt:
      return arith::CmpIPredicate::ult;
    case arith::CmpIPredicate::uge:
      return arith::CmpIPredicate::ule;
    default:
      return predicate;
    }
  }

  /// gpu.shuffle in `loop`, as sluice-expand-gpu-collectives leaves it: idx
  /// from a lane of the subgroup (the validity is computed beside it). The
  /// lane reads the source lane's entry of the array its value was
  /// published to; a source past the end of the block (undefined on a GPU)
  /// reads the lane's own value.
  LogicalResult emitShuffle(gpu::ShuffleOp shuffle, LaneLoop &loop) {
    Location loc = shuffle.getLoc();
    Value source = shuffleSources.lookup(shuffle);
    FailureOr<Value> from32 = laneValue(shuffle.getOffset(), loop);
    if (failed(from32))
      return failure();
    Value from = arith::IndexCastUIOp::create(builder, loc,
                                              builder.getIndexType(), *from32);
    Value size =
        arith::ConstantIndexOp::create(builder, loc, context.subgroupSize);
    Value linear =
        group ? arith::AddIOp::create(builder, loc, group->base, loop.lane)
                    .getResult()
              : loop.lane;
    Value lane = arith::RemUIOp::create(builder, loc, linear, size);
    Value entry = arith::AddIOp::create(
        builder, loc, arith::SubIOp::create(builder, loc, loop.lane, lane),
        from);
    Value lanes = group ? group->size : environment.laneCount;
    Value inBlock = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, entry, lanes);
    entry = arith::SelectOp::create(builder, loc, inBlock, entry, loop.lane);
    Value result = memref::LoadOp::create(builder, loc, source, entry);
    loop.map.map(shuffle.getShuffleResult(), result);
    loop.map.map(shuffle.getValid(), inBlock);
    definitions[shuffle.getShuffleResult()] = {result, loop.lane};
    definitions[shuffle.getValid()] = {inBlock, loop.lane};
    return success();
  }

  /// `value` inside `loop`, where it is not defined: a block-level value, the
  /// lane's slice of a private attribution, or a reload of a lane value.
  FailureOr<Value> laneValue(Value value, LaneLoop &loop) {
    if (Value mapped = blockMap.lookupOrNull(value))
      return mapped;
    if (auto id = value.getDefiningOp<gpu::ThreadIdOp>())
      return loop.threadId[unsigned(id.getDimension())];
    Location loc = value.getLoc();
    if (auto backed = slotBacked.find(value); backed != slotBacked.end())
      return memref::LoadOp::create(builder, loc, backed->second, loop.lane)
          .getResult();
    // Pure functions of thread ids and uniform values are recomputed, not
    // stored.
    if (Value recomputed = rematerialize(value, loop, /*depth=*/0))
      return recomputed;
    if (auto argument = dyn_cast<BlockArgument>(value);
        argument && argument.getOwner() == &context.kernel.getBody().front())
      return privateSlice(argument, loop);
    FailureOr<Value> slot = laneSlot(value);
    if (failed(slot))
      return failure();
    return memref::LoadOp::create(builder, loc, *slot, loop.lane).getResult();
  }

  /// `value` recomputed inside `loop` from thread ids and block-level values
  /// (pure ops without regions, up to a small depth); null if it cannot be.
  Value rematerialize(Value value, LaneLoop &loop, unsigned depth) {
    if (Value mapped = loop.map.lookupOrNull(value))
      return mapped;
    if (Value mapped = blockMap.lookupOrNull(value))
      return mapped;
    Operation *op = value.getDefiningOp();
    if (!op)
      return nullptr;
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      return loop.threadId[unsigned(id.getDimension())];
    constexpr unsigned kMaxRecomputeDepth = 6;
    // A shuffle reads other lanes' values as they were where it stands.
    if (depth > kMaxRecomputeDepth || op->getNumRegions() != 0 || !isPure(op) ||
        isa<gpu::ShuffleOp>(op))
      return nullptr;
    for (Value operand : op->getOperands()) {
      Value mapped = rematerialize(operand, loop, depth + 1);
      if (!mapped)
        return nullptr;
      loop.map.map(operand, mapped);
    }
    Operation *clone = builder.clone(*op, loop.map);
    for (auto [original, cloned] :
         llvm::zip(op->getResults(), clone->getResults()))
      loop.map.map(original, cloned);
    return loop.map.lookup(value);
  }

  /// A new per-lane array for values of `value`'s type.
  FailureOr<Value> newSlot(Value value) {
    Location loc = value.getLoc();
    std::optional<uint64_t> bytes = laneSlotBytes(value.getType());
    if (!bytes) {
      std::string type;
      llvm::raw_string_ostream os(type);
      os << value.getType();
      failureReason = "a value of type " + type +
                      " is live across a barrier and cannot be stored per lane";
      return failure();
    }
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(allocationAnchor);
    Value lanes = group ? group->capacity : environment.laneCount;
    Value size = arith::ConstantIndexOp::create(builder, loc, int64_t(*bytes));
    Value total = arith::MulIOp::create(builder, loc, size, lanes);
    Value pointer = allocateFromArena(builder, loc, context.runtime, total, 64);
    auto type = MemRefType::get({ShapedType::kDynamic}, value.getType());
    Value slot = memrefOverPointer(builder, loc, context.typeConverter, pointer,
                                   type, lanes);
    allocationAnchor = slot.getDefiningOp();
    ++result.spilledValues;
    return slot;
  }

  /// The per-lane array holding lane value `value`, created (with the store
  /// where `value` is defined) on first use.
  FailureOr<Value> laneSlot(Value value) {
    if (auto backed = slotBacked.find(value); backed != slotBacked.end())
      return backed->second;
    auto definition = definitions.find(value);
    if (definition == definitions.end()) {
      failureReason =
          "a value crosses a barrier from control flow it cannot leave";
      return failure();
    }
    Value &slot = spillSlots[value];
    if (!slot) {
      FailureOr<Value> created = newSlot(value);
      if (failed(created))
        return failure();
      slot = *created;
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointAfterValue(definition->second.value);
      memref::StoreOp::create(builder, value.getLoc(), definition->second.value,
                              slot, definition->second.lane);
    }
    return slot;
  }

  /// Lane `loop.lane`'s private buffer inside one per-block array.
  FailureOr<Value> privateSlice(BlockArgument argument, LaneLoop &loop) {
    Location loc = argument.getLoc();
    MemRefType type = stripMemorySpace(cast<MemRefType>(argument.getType()));
    uint64_t bytes = *staticMemRefBytes(type);
    Value &base = privateBases[argument];
    if (!base) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointAfter(allocationAnchor);
      Value size = arith::ConstantIndexOp::create(builder, loc, int64_t(bytes));
      Value lanes = group ? group->capacity : environment.laneCount;
      Value total = arith::MulIOp::create(builder, loc, size, lanes);
      base = allocateFromArena(builder, loc, context.runtime, total, 64);
      allocationAnchor = base.getDefiningOp();
    }
    Value offset = arith::MulIOp::create(
        builder, loc, loop.lane,
        arith::ConstantIndexOp::create(builder, loc, int64_t(bytes)));
    Value offset64 =
        arith::IndexCastOp::create(builder, loc, builder.getI64Type(), offset);
    Value pointer =
        LLVM::GEPOp::create(builder, loc, base.getType(), builder.getI8Type(),
                            base, ValueRange{offset64});
    return memrefOverPointer(builder, loc, context.typeConverter, pointer, type,
                             {});
  }

  KernelContext &context;
  KernelLoweringResult &result;
  OpBuilder &builder;
  BlockEnvironment &environment;
  BarrierStructure structure;
  Operation *allocationAnchor;
  IRMapping blockMap;
  llvm::DenseMap<Value, LaneDefinition> definitions;
  llvm::DenseMap<Value, Value> spillSlots;
  llvm::DenseMap<Value, Value> privateBases;
  llvm::DenseMap<Value, Value> slotBacked; // loop-carried values and results
  llvm::DenseMap<Operation *, Value> shuffleSources; // published values
  const LaneGroup *group;
  SmallVector<scf::ForOp> innermostLaneLoops; // fission: split candidates
  SmallVector<scf::ForOp> blockLoops; // fission: barrier-containing loops
  std::string failureReason;
};

} // namespace

std::string fissionObstacle(gpu::GPUFuncOp kernel, bool laneGroups) {
  if (!kernel.getBody().hasOneBlock())
    return "the kernel body has more than one block";
  BarrierStructure structure(kernel);
  for (Operation *op : structure.containsBarrier) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (!laneGroups && !structure.isUniform(loop.getInductionVar()))
        return std::string(structure.cutKind(op)) +
               " is inside an scf.for whose bounds depend on the thread or "
               "on memory";
      continue;
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      if (!laneGroups &&
          !structure.isUniform(loop.getConditionOp().getCondition()))
        return std::string(structure.cutKind(op)) +
               " is inside an scf.while whose condition depends on the "
               "thread or on memory";
      continue;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (branch.getNumResults() != 0)
        return std::string(structure.cutKind(op)) +
               " is inside an scf.if with results";
      if (!laneGroups && !structure.isUniform(branch.getCondition()))
        return std::string(structure.cutKind(op)) +
               " is inside an scf.if whose condition depends on the thread or "
               "on memory";
      continue;
    }
    return (structure.cutKind(op) + Twine(" is inside '") +
            op->getName().getStringRef() + "'")
        .str();
  }
  return "";
}

LogicalResult lowerByFission(KernelContext &context,
                             KernelLoweringResult &result,
                             std::string &reason) {
  OpBuilder builder(context.kernel.getContext());
  BlockEnvironment environment;
  func::FuncOp function = createBlockFunction(context, builder, environment);
  result.blockFunction = function;
  // Per-block arrays are allocated after the environment, before any lane loop.
  Operation *anchor = builder.getInsertionPoint()->getPrevNode();
  if (failed(FissionLowering(context, result, builder, environment, anchor,
                             nullptr)
                 .run(reason)))
    return failure();
  replaceBlockQueries(function, environment);
  SmallVector<std::string> decisions;
  result.vectorLaneLoops = vectorizeLaneLoops(
      function, context.laneVectorWidth, context.laneVectorAlways,
      context.laneVectorRemarks ? &decisions : nullptr);
  for (const std::string &decision : decisions)
    context.kernel.emitRemark("lane loop ") << decision;
  SmallVector<Value> counters;
  for (auto [position, value] : llvm::enumerate(environment.kernelArguments))
    if (context.kernel.getArgAttr(position, kCountersAttrName))
      counters.push_back(value);
  result.aggregatedAdds = aggregateCounterAdds(function, counters);
  return success();
}

LogicalResult lowerLaneGroupBody(KernelContext &context,
                                 KernelLoweringResult &result,
                                 OpBuilder &builder,
                                 BlockEnvironment &environment,
                                 Operation *allocationAnchor,
                                 const LaneGroup &group, std::string &reason) {
  return FissionLowering(context, result, builder, environment,
                         allocationAnchor, &group)
      .run(reason);
}

} // namespace sluice::gpu_to_cpu
