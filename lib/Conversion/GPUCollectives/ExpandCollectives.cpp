//===- ExpandCollectives.cpp - gpu collectives in terms of shuffles -------===//

#include "sluice/Conversion/GPUCollectives/ExpandCollectives.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace sluice {

namespace {

/// The largest subgroup any target has (gpu::kMaxSubgroupSize upstream): a
/// butterfly over a run-time subgroup size has this many steps at most.
constexpr unsigned kMaxSubgroupLog2 = 7;

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// x + block_dim.x * (y + block_dim.y * z): the thread's position in the
/// block, the order in which hardware forms subgroups.
Value linearThreadId(OpBuilder &b, Location loc) {
  Value id[3], dim[3];
  gpu::Dimension dims[3] = {gpu::Dimension::x, gpu::Dimension::y,
                            gpu::Dimension::z};
  for (unsigned d = 0; d < 3; ++d) {
    id[d] = gpu::ThreadIdOp::create(b, loc, dims[d]);
    dim[d] = gpu::BlockDimOp::create(b, loc, dims[d]);
  }
  Value yz = arith::AddIOp::create(
      b, loc, id[1], arith::MulIOp::create(b, loc, dim[1], id[2]));
  return arith::AddIOp::create(b, loc, id[0],
                               arith::MulIOp::create(b, loc, dim[0], yz));
}

Value blockLanes(OpBuilder &b, Location loc) {
  Value lanes = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  for (gpu::Dimension d : {gpu::Dimension::y, gpu::Dimension::z})
    lanes = arith::MulIOp::create(b, loc, lanes,
                                  gpu::BlockDimOp::create(b, loc, d));
  return lanes;
}

Value subgroupSize(OpBuilder &b, Location loc,
                   const CollectiveExpansionOptions &options) {
  if (options.subgroupSize)
    return indexConstant(b, loc, options.subgroupSize);
  return gpu::SubgroupSizeOp::create(b, loc, /*upper_bound=*/nullptr);
}

/// One combining step of a built-in reduction or of the region form.
Value combine(OpBuilder &b, Location loc,
              std::optional<gpu::AllReduceOperation> op, Region *body,
              Value lhs, Value rhs) {
  if (op)
    return vector::makeArithReduction(b, loc, gpu::convertReductionKind(*op),
                                      lhs, rhs);
  IRMapping map;
  Block &block = body->front();
  map.map(block.getArgument(0), lhs);
  map.map(block.getArgument(1), rhs);
  for (Operation &inner : block.without_terminator())
    b.clone(inner, map);
  return map.lookup(block.getTerminator()->getOperand(0));
}

/// The lanes an all_reduce of `function` must hold: its known block size,
/// else the constant block size of every launch of it, else the maximum.
int64_t allReduceCapacity(gpu::GPUFuncOp function) {
  if (std::optional<int64_t> lanes = staticBlockLanes(function))
    return *lanes;
  auto gpuModule = function->getParentOfType<gpu::GPUModuleOp>();
  Operation *host = gpuModule ? gpuModule->getParentOp() : nullptr;
  std::optional<int64_t> agreed;
  bool unknown = false;
  if (host)
    host->walk([&](gpu::LaunchFuncOp launch) {
      if (launch.getKernelModuleName() != gpuModule.getSymNameAttr() ||
          launch.getKernelName() != SymbolTable::getSymbolName(function))
        return;
      int64_t lanes = 1;
      for (Value size : {launch.getBlockSizeX(), launch.getBlockSizeY(),
                         launch.getBlockSizeZ()}) {
        std::optional<int64_t> constant = getConstantIntValue(size);
        if (!constant || *constant <= 0) {
          unknown = true;
          return;
        }
        lanes *= *constant;
      }
      if (agreed && *agreed != lanes)
        unknown = true;
      agreed = lanes;
    });
  if (agreed && !unknown && *agreed <= kMaxAllReduceLanes)
    return *agreed;
  return kMaxAllReduceLanes;
}

/// gpu.all_reduce: every lane stores its value to a workgroup array; a
/// tree over that array (stride halving from the largest power of two below
/// the capacity; a lane folds t + s into t when t < s and t + s < lanes),
/// with a barrier after each step; every lane reads element 0; a final
/// barrier lets the next all_reduce reuse nothing early.
LogicalResult expandAllReduce(gpu::AllReduceOp reduce,
                              gpu::GPUFuncOp function) {
  Type type = reduce.getType();
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() == 1)
    return reduce.emitOpError("of type ")
           << type
           << " is not supported: the expansion keeps one element per lane "
              "in workgroup memory, which needs an integer or float of 8 to "
              "64 bits";
  std::optional<gpu::AllReduceOperation> op;
  if (reduce.getOp())
    op = *reduce.getOp();
  Region *body = op ? nullptr : &reduce.getBody();
  if (!op && (body->empty() || !body->hasOneBlock()))
    return reduce.emitOpError(
        "without an operation needs a single-block region");

  int64_t capacity = allReduceCapacity(function);
  auto scratchType =
      MemRefType::get({capacity}, type, MemRefLayoutAttrInterface(),
                      gpu::AddressSpaceAttr::get(reduce.getContext(),
                                                 gpu::AddressSpace::Workgroup));
  Value scratch =
      function.addWorkgroupAttribution(scratchType, reduce.getLoc());

  OpBuilder b(reduce);
  Location loc = reduce.getLoc();
  Value thread = linearThreadId(b, loc);
  Value lanes = blockLanes(b, loc);
  memref::StoreOp::create(b, loc, reduce.getValue(), scratch, thread);
  gpu::BarrierOp::create(b, loc);
  unsigned steps = llvm::Log2_64_Ceil(uint64_t(capacity));
  auto loop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                                 indexConstant(b, loc, steps),
                                 indexConstant(b, loc, 1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    // s = 2^(steps - 1 - k)
    Value shift = arith::SubIOp::create(
        b, loc, indexConstant(b, loc, steps - 1), loop.getInductionVar());
    Value stride =
        arith::ShLIOp::create(b, loc, indexConstant(b, loc, 1), shift);
    Value partner = arith::AddIOp::create(b, loc, thread, stride);
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        thread, stride);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         partner, lanes);
    Value active = arith::AndIOp::create(b, loc, below, inside);
    auto fold = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(fold.thenBlock()->getTerminator());
      Value mine = memref::LoadOp::create(b, loc, scratch, thread);
      Value theirs = memref::LoadOp::create(b, loc, scratch, partner);
      memref::StoreOp::create(b, loc, combine(b, loc, op, body, mine, theirs),
                              scratch, thread);
    }
    gpu::BarrierOp::create(b, loc);
  }
  Value result =
      memref::LoadOp::create(b, loc, scratch, indexConstant(b, loc, 0));
  gpu::BarrierOp::create(b, loc);
  reduce.replaceAllUsesWith(result);
  reduce.erase();
  return success();
}

/// gpu.subgroup_reduce: a butterfly of gpu.shuffle xor over the cluster's
/// lanes (offsets stride, 2 stride, ..., below stride * size); every lane of
/// a cluster ends with the reduction of the cluster.
LogicalResult expandSubgroupReduce(gpu::SubgroupReduceOp reduce,
                                   const CollectiveExpansionOptions &options) {
  Type type = reduce.getType();
  if (!type.isIntOrFloat())
    return reduce.emitOpError("of type ")
           << type
           << " is not supported: gpu.shuffle exchanges scalars on every "
              "backend (reduce each element)";
  OpBuilder b(reduce);
  Location loc = reduce.getLoc();
  std::optional<gpu::AllReduceOperation> op = reduce.getOp();
  uint32_t stride = reduce.getClusterStride();
  Value width = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                           subgroupSize(b, loc, options));
  auto shuffleStep = [&](OpBuilder &at, Value value, Value offset) {
    auto shuffle = gpu::ShuffleOp::create(at, loc, value, offset, width,
                                          gpu::ShuffleMode::XOR);
    return combine(at, loc, op, nullptr, value, shuffle.getShuffleResult());
  };
  std::optional<uint32_t> size = reduce.getClusterSize();
  if (!size && options.subgroupSize)
    size = options.subgroupSize / stride;
  Value value = reduce.getValue();
  if (size) {
    for (uint32_t offset = stride; offset < stride * *size; offset *= 2)
      value = shuffleStep(b, value,
                          arith::ConstantIntOp::create(b, loc, offset, 32));
  } else {
    // The whole subgroup, of a size known at run time: step k runs while
    // stride << k is below the subgroup size.
    auto loop = scf::ForOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, 0, 32),
        arith::ConstantIntOp::create(b, loc, kMaxSubgroupLog2, 32),
        arith::ConstantIntOp::create(b, loc, 1, 32), ValueRange{value});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value offset = arith::ShLIOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, stride, 32),
        loop.getInductionVar());
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, offset, width);
    auto step = scf::IfOp::create(b, loc, TypeRange{type}, inside,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(step.thenBlock());
      scf::YieldOp::create(b, loc,
                           shuffleStep(b, loop.getRegionIterArgs()[0], offset));
      b.setInsertionPointToStart(step.elseBlock());
      scf::YieldOp::create(b, loc, loop.getRegionIterArgs()[0]);
    }
    scf::YieldOp::create(b, loc, step.getResult(0));
    value = loop.getResult(0);
  }
  reduce.replaceAllUsesWith(value);
  reduce.erase();
  return success();
}

/// lane_id, subgroup_id, num_subgroups (and subgroup_size, when it is a
/// constant) from the linear thread id.
void expandSubgroupQuery(Operation *query,
                         const CollectiveExpansionOptions &options) {
  OpBuilder b(query);
  Location loc = query->getLoc();
  Value size = subgroupSize(b, loc, options);
  Value replacement;
  if (isa<gpu::SubgroupSizeOp>(query))
    replacement = size;
  else if (isa<gpu::LaneIdOp>(query))
    replacement = arith::RemUIOp::create(b, loc, linearThreadId(b, loc), size);
  else if (isa<gpu::SubgroupIdOp>(query))
    replacement = arith::DivUIOp::create(b, loc, linearThreadId(b, loc), size);
  else // (lanes + size - 1) / size; not every backend lowers ceildivui
    replacement = arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, blockLanes(b, loc),
            arith::SubIOp::create(b, loc, size, indexConstant(b, loc, 1))),
        size);
  query->getResult(0).replaceAllUsesWith(replacement);
  query->erase();
}

/// gpu.shuffle as `idx` over the whole subgroup. Lane k with offset o and
/// width w reads lane k ^ o (xor), k + o (down), k - o (up) or o (idx); it is
/// valid when k and the source are below min(w, subgroup size) (and o <= k
/// for up). An invalid lane reads its own value. The rule every backend
/// follows: the CPU, SPIR-V and HIP lowerings take only this form.
void shuffleAsIndexed(gpu::ShuffleOp shuffle) {
  OpBuilder b(shuffle);
  Location loc = shuffle.getLoc();
  auto i32 = b.getI32Type();
  auto cmp = [&](arith::CmpIPredicate predicate, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  };
  Value size = arith::IndexCastUIOp::create(
      b, loc, i32, gpu::SubgroupSizeOp::create(b, loc, nullptr));
  Value lane = arith::IndexCastUIOp::create(
      b, loc, i32, gpu::LaneIdOp::create(b, loc, nullptr));
  Value offset = shuffle.getOffset();
  Value width = arith::MinUIOp::create(b, loc, shuffle.getWidth(), size);
  Value valid = cmp(arith::CmpIPredicate::ult, lane, width);
  Value from;
  switch (shuffle.getMode()) {
  case gpu::ShuffleMode::XOR:
    from = arith::XOrIOp::create(b, loc, lane, offset);
    break;
  case gpu::ShuffleMode::DOWN:
    from = arith::AddIOp::create(b, loc, lane, offset);
    break;
  case gpu::ShuffleMode::UP: {
    Value reaches = cmp(arith::CmpIPredicate::ule, offset, lane);
    valid = arith::AndIOp::create(b, loc, valid, reaches);
    from = arith::SelectOp::create(
        b, loc, reaches, arith::SubIOp::create(b, loc, lane, offset), lane);
    break;
  }
  case gpu::ShuffleMode::IDX:
    from = offset;
    break;
  }
  valid = arith::AndIOp::create(b, loc, valid,
                                cmp(arith::CmpIPredicate::ult, from, width));
  from = arith::SelectOp::create(b, loc, valid, from, lane);
  auto indexed = gpu::ShuffleOp::create(b, loc, shuffle.getValue(), from, size,
                                        gpu::ShuffleMode::IDX);
  indexed->setAttr(kIndexedShuffleAttr, b.getUnitAttr());
  shuffle.getShuffleResult().replaceAllUsesWith(indexed.getShuffleResult());
  shuffle.getValid().replaceAllUsesWith(valid);
  shuffle.erase();
}

} // namespace

int64_t blockLaneCapacity(gpu::GPUFuncOp function) {
  return allReduceCapacity(function);
}

std::optional<int64_t> staticBlockLanes(gpu::GPUFuncOp function) {
  std::optional<ArrayRef<int32_t>> known = function.getKnownBlockSize();
  if (!known)
    return std::nullopt;
  return int64_t((*known)[0]) * (*known)[1] * (*known)[2];
}

FailureOr<CollectiveExpansionResult>
expandGPUCollectives(gpu::GPUModuleOp module,
                     const CollectiveExpansionOptions &options) {
  CollectiveExpansionResult result;
  // First: the distribution creates shuffles, reductions and barriers.
  FailureOr<unsigned> warpOps = distributeWarpOps(module, options.subgroupSize);
  if (failed(warpOps))
    return failure();
  result.warpOps = *warpOps;
  for (auto function : module.getOps<gpu::GPUFuncOp>()) {
    SmallVector<gpu::AllReduceOp> allReduces;
    SmallVector<gpu::SubgroupReduceOp> subgroupReduces;
    function.walk([&](Operation *op) {
      if (auto all = dyn_cast<gpu::AllReduceOp>(op))
        allReduces.push_back(all);
      else if (auto sub = dyn_cast<gpu::SubgroupReduceOp>(op))
        subgroupReduces.push_back(sub);
    });
    // Innermost first: a region-form reduction may hold another.
    for (gpu::AllReduceOp reduce : llvm::reverse(allReduces)) {
      if (failed(expandAllReduce(reduce, function)))
        return failure();
      ++result.allReduces;
    }
    if (options.expandSubgroupReduce)
      for (gpu::SubgroupReduceOp reduce : subgroupReduces) {
        if (options.keepSubgroupReduce && options.keepSubgroupReduce(reduce))
          continue;
        if (failed(expandSubgroupReduce(reduce, options)))
          return failure();
        ++result.subgroupReduces;
      }
    if (options.shufflesAsIndexed) {
      SmallVector<gpu::ShuffleOp> shuffles;
      function.walk([&](gpu::ShuffleOp shuffle) {
        if (!shuffle->hasAttr(kIndexedShuffleAttr))
          shuffles.push_back(shuffle);
      });
      for (gpu::ShuffleOp shuffle : shuffles)
        shuffleAsIndexed(shuffle);
      result.indexedShuffles += shuffles.size();
    }
    // Queries last: the expansions above create gpu.subgroup_size ops.
    SmallVector<Operation *> queries;
    function.walk([&](Operation *op) {
      if ((options.subgroupSize &&
           isa<gpu::SubgroupSizeOp, gpu::LaneIdOp>(op)) ||
          ((options.subgroupSize || options.expandSubgroupQueries) &&
           isa<gpu::SubgroupIdOp, gpu::NumSubgroupsOp>(op)))
        queries.push_back(op);
    });
    for (Operation *query : queries)
      expandSubgroupQuery(query, options);
    result.subgroupQueries += queries.size();
  }
  return result;
}

} // namespace sluice
