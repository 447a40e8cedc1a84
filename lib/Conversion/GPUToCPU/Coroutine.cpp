//===- Coroutine.cpp - Barrier kernels as one coroutine per lane ----------===//
//
// `@__sluice_lane_<kernel>` is an LLVM switch-resumed coroutine whose frame
// comes from the worker's arena (sluice_rt_coro_alloc); a barrier is a suspend
// point. One coroutine runs either one lane (any control flow around barriers,
// as long as every lane of a block executes the same number of them) or a
// group of lanes as lane loops between suspend points (barrier control flow
// must then be the same for the lanes of a group; checked at run time). The
// block function starts every coroutine (each runs to its first barrier), then
// resumes the unfinished ones round-robin until all are done.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace sluice::gpu_to_cpu {

namespace {

// Thread id (one lane) or (first lane, lanes, unused) (a group); block id,
// block dim, grid dim.
constexpr unsigned kLaneQueries = 12;

/// `@__sluice_lane_<kernel>(kernel args..., workgroup buffers..., 12 x index)
/// -> !llvm.ptr` (the coroutine handle). `groupLanes` > 1: a lane-group
/// coroutine; fails with `reason` if the kernel's body cannot be grouped.
FailureOr<func::FuncOp> buildLaneCoroutine(KernelContext &context,
                                           KernelLoweringResult &result,
                                           unsigned groupLanes,
                                           std::string &reason) {
  gpu::GPUFuncOp kernel = context.kernel;
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  OpBuilder builder(ctx);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto token = LLVM::LLVMTokenType::get(ctx);
  auto i1 = builder.getI1Type();
  auto i8 = builder.getI8Type();

  SmallVector<Type> inputs(kernel.getArgumentTypes());
  for (BlockArgument buffer : kernel.getWorkgroupAttributions())
    inputs.push_back(stripMemorySpace(cast<MemRefType>(buffer.getType())));
  inputs.append(kLaneQueries, builder.getIndexType());

  builder.setInsertionPointToEnd(context.hostModule.getBody());
  auto function = func::FuncOp::create(
      builder, loc, ("__sluice_lane_" + kernel.getName()).str(),
      builder.getFunctionType(inputs, {ptr}));
  function.setPrivate();
  function->setAttr(
      "passthrough",
      builder.getArrayAttr({builder.getStringAttr("presplitcoroutine")}));
  context.symbols.insert(function);
  Block *entry = function.addEntryBlock();
  unsigned argumentCount = kernel.getNumArguments();
  unsigned bufferCount = kernel.getNumWorkgroupAttributions();
  auto query = [&](unsigned which, unsigned dim) -> Value {
    return entry->getArgument(argumentCount + bufferCount + which * 3 + dim);
  };

  // Coroutine setup: id, frame from the arena, begin.
  builder.setInsertionPointToStart(entry);
  Value null = LLVM::ZeroOp::create(builder, loc, ptr);
  Value zero32 = LLVM::ConstantOp::create(builder, loc, builder.getI32Type(),
                                          builder.getI32IntegerAttr(0));
  Value id =
      LLVM::CoroIdOp::create(builder, loc, token, zero32, null, null, null);
  Value size = LLVM::CoroSizeOp::create(builder, loc, builder.getI64Type());
  Value align = LLVM::CoroAlignOp::create(builder, loc, builder.getI64Type());
  Value memory = func::CallOp::create(builder, loc, context.runtime.coroAlloc(),
                                      ValueRange{size, align})
                     .getResult(0);
  Value handle = LLVM::CoroBeginOp::create(builder, loc, ptr, id, memory);

  // Final suspend, cleanup (destroy path) and the common exit.
  Region &body = function.getBody();
  Block *finalBlock = new Block();
  Block *cleanupBlock = new Block();
  Block *exitBlock = new Block();
  Value noToken = LLVM::NoneTokenOp::create(builder, loc, token);
  auto suspend = [&](Block *continuation, bool final) {
    Value isFinal =
        LLVM::ConstantOp::create(builder, loc, i1, builder.getBoolAttr(final));
    Value state =
        LLVM::CoroSuspendOp::create(builder, loc, i8, noToken, isFinal);
    // -1: suspended (return the handle), 0: resumed, 1: destroyed.
    cf::SwitchOp::create(builder, loc, state, exitBlock, ValueRange{},
                         ArrayRef<APInt>{APInt(8, 0), APInt(8, 1)},
                         BlockRange{continuation, cleanupBlock},
                         ArrayRef<ValueRange>{ValueRange{}, ValueRange{}});
  };

  if (groupLanes > 1) {
    // Lane loops over the group; gpu.barrier markers become suspend points.
    BlockEnvironment environment;
    for (unsigned i = 0; i < argumentCount; ++i)
      environment.kernelArguments.push_back(entry->getArgument(i));
    for (unsigned i = 0; i < bufferCount; ++i)
      environment.workgroupBuffers.push_back(
          entry->getArgument(argumentCount + i));
    for (unsigned d = 0; d < 3; ++d) {
      environment.blockId[d] = query(1, d);
      environment.blockDim[d] =
          context.staticBlockSize
              ? arith::ConstantIndexOp::create(builder, loc,
                                               (*context.staticBlockSize)[d])
                    .getResult()
              : query(2, d);
      environment.gridDim[d] = query(3, d);
    }
    Value lanes = arith::MulIOp::create(builder, loc, environment.blockDim[0],
                                        environment.blockDim[1]);
    environment.laneCount =
        arith::MulIOp::create(builder, loc, lanes, environment.blockDim[2]);
    Operation *anchor = environment.laneCount.getDefiningOp();
    Block *groupBody = new Block();
    body.push_back(groupBody);
    cf::BranchOp::create(builder, loc, groupBody);
    LaneGroup group;
    group.base = query(0, 0);
    group.size = query(0, 1);
    builder.setInsertionPointAfter(anchor);
    group.capacity = arith::ConstantIndexOp::create(builder, loc, groupLanes);
    anchor = group.capacity.getDefiningOp();
    std::string kernelName = kernel.getName().str();
    group.reportDivergence = [&context, kernelName, groupLanes](OpBuilder &b,
                                                                Location at) {
      Value name = context.runtime.stringAddress(
          b, at, "__sluice_kernel_name_" + kernelName, kernelName);
      Value count = arith::ConstantIntOp::create(b, at, groupLanes, 64);
      func::CallOp::create(b, at, context.runtime.barrierDivergence(),
                           ValueRange{name, count});
    };
    SmallVector<Operation *> laneLoops;
    group.laneLoops = &laneLoops;
    builder.setInsertionPointToStart(groupBody);
    auto endOfBody = cf::BranchOp::create(builder, loc, finalBlock);
    builder.setInsertionPoint(endOfBody);
    if (failed(lowerLaneGroupBody(context, result, builder, environment, anchor,
                                  group, reason))) {
      // The body branches to the detached blocks: erase it first.
      context.symbols.erase(function);
      delete finalBlock;
      delete cleanupBlock;
      delete exitBlock;
      return failure();
    }
    replaceBlockQueries(function, environment);
    // Each lane loop becomes a plain function: values live across suspend
    // points are then read from the frame once per call, not once per lane, and
    // the loop can be vectorized.
    IRRewriter rewriter(ctx);
    for (auto [index, laneLoop] : llvm::enumerate(laneLoops)) {
      rewriter.setInsertionPoint(laneLoop);
      auto wrapper = scf::ExecuteRegionOp::create(rewriter, laneLoop->getLoc(),
                                                  TypeRange{});
      Block *wrapped = rewriter.createBlock(&wrapper.getRegion());
      rewriter.setInsertionPointToStart(wrapped);
      scf::YieldOp::create(rewriter, laneLoop->getLoc());
      laneLoop->moveBefore(wrapped->getTerminator());
      // Unique before outlining: the call is created by name, and equally
      // named kernels of other gpu.modules have lane loops too.
      std::string base =
          ("__sluice_lanes_" + kernel.getName() + "_" + Twine(index)).str();
      std::string name = base;
      for (unsigned n = 0; context.symbols.lookup(name); ++n)
        name = base + "_" + std::to_string(n);
      FailureOr<func::FuncOp> outlined = outlineSingleBlockRegion(
          rewriter, laneLoop->getLoc(), wrapper.getRegion(), name);
      if (failed(outlined))
        return function.emitError("cannot outline a lane loop of kernel ")
               << kernel.getName();
      outlined->setPrivate();
      // Inlined back, the loop would again read the frame in every iteration.
      (*outlined)->setAttr(
          "passthrough",
          rewriter.getArrayAttr({rewriter.getStringAttr("noinline")}));
      context.symbols.insert(*outlined);
    }
  } else {
    IRMapping mapping;
    Block &kernelEntry = kernel.getBody().front();
    for (unsigned i = 0; i < argumentCount + bufferCount; ++i)
      mapping.map(kernelEntry.getArgument(i), entry->getArgument(i));
    // Private buffers are allocas; CoroSplit moves those live across a suspend
    // point into the frame.
    for (BlockArgument buffer : kernel.getPrivateAttributions())
      mapping.map(buffer,
                  memref::AllocaOp::create(
                      builder, loc,
                      stripMemorySpace(cast<MemRefType>(buffer.getType()))));
    // The kernel body, after the setup block.
    kernel.getBody().cloneInto(&body, std::next(body.begin()), mapping);
    Block *bodyEntry = &*std::next(body.begin());
    cf::BranchOp::create(builder, loc, bodyEntry);
  }
  body.push_back(finalBlock);
  body.push_back(cleanupBlock);
  body.push_back(exitBlock);

  builder.setInsertionPointToStart(finalBlock);
  suspend(cleanupBlock, /*final=*/true);
  builder.setInsertionPointToStart(cleanupBlock);
  Value frame = LLVM::CoroFreeOp::create(builder, loc, ptr, id, handle);
  func::CallOp::create(builder, loc, context.runtime.coroFree(),
                       ValueRange{frame});
  cf::BranchOp::create(builder, loc, exitBlock);
  builder.setInsertionPointToStart(exitBlock);
  LLVM::CoroEndOp::create(
      builder, loc, i1, handle,
      LLVM::ConstantOp::create(builder, loc, i1, builder.getBoolAttr(false)),
      noToken);
  func::ReturnOp::create(builder, loc, handle);

  // Lane queries become arguments; gpu.return ends at the final suspend.
  SmallVector<Operation *> rewritten;
  function.walk([&](Operation *op) {
    if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
            gpu::ReturnOp>(op))
      rewritten.push_back(op);
  });
  for (Operation *op : rewritten) {
    if (isa<gpu::ReturnOp>(op)) {
      builder.setInsertionPoint(op);
      cf::BranchOp::create(builder, op->getLoc(), finalBlock);
      op->erase();
      continue;
    }
    Value replacement;
    if (auto tid = dyn_cast<gpu::ThreadIdOp>(op))
      replacement = query(0, unsigned(tid.getDimension()));
    else if (auto bid = dyn_cast<gpu::BlockIdOp>(op))
      replacement = query(1, unsigned(bid.getDimension()));
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      replacement = query(2, unsigned(dim.getDimension()));
    else
      replacement = query(3, unsigned(cast<gpu::GridDimOp>(op).getDimension()));
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }

  // Suspend points need a CFG: lower the structured control flow first.
  RewritePatternSet patterns(ctx);
  populateSCFToControlFlowConversionPatterns(patterns);
  ConversionTarget target(*ctx);
  target.addIllegalDialect<scf::SCFDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  if (failed(applyPartialConversion(function, target, std::move(patterns))))
    return function.emitError(
               "cannot lower the structured control flow of kernel ")
           << kernel.getName() << " for its lane coroutine";

  SmallVector<gpu::BarrierOp> barriers;
  function.walk([&](gpu::BarrierOp barrier) { barriers.push_back(barrier); });
  for (gpu::BarrierOp barrier : barriers) {
    Block *before = barrier->getBlock();
    Block *after = before->splitBlock(barrier->getNextNode());
    builder.setInsertionPoint(barrier);
    suspend(after, /*final=*/false);
    barrier->erase();
    ++result.suspendPoints;
  }
  return function;
}

} // namespace

/// The lane coroutine of the kernel: groups of `groupLanes` where groups
/// apply, else one per lane; for a kernel with shuffles, groups of one
/// subgroup or an error at the shuffle.
static FailureOr<func::FuncOp> buildCoroutine(KernelContext &context,
                                              KernelLoweringResult &result,
                                              unsigned &groupLanes) {
  std::string reason;
  if (context.hasShuffles) {
    // A subgroup's lanes exchange values inside one coroutine, between lane
    // loops; one coroutine per lane could not.
    groupLanes = context.subgroupSize;
    reason = fissionObstacle(context.kernel, /*laneGroups=*/true);
    FailureOr<func::FuncOp> laneFunction = failure();
    if (reason.empty())
      laneFunction = buildLaneCoroutine(context, result, groupLanes, reason);
    if (succeeded(laneFunction))
      return laneFunction;
    context.kernel.walk([&](gpu::ShuffleOp shuffle) {
      shuffle.emitOpError("cannot run on the CPU: the lanes of a subgroup "
                          "exchange values between the lane loops of one "
                          "coroutine, which this kernel cannot be split into (")
          << reason << ")";
      return WalkResult::interrupt();
    });
    return failure();
  }
  groupLanes = std::max(groupLanes, 1u);
  if (groupLanes > 1 &&
      !fissionObstacle(context.kernel, /*laneGroups=*/true).empty())
    groupLanes = 1;
  FailureOr<func::FuncOp> laneFunction =
      buildLaneCoroutine(context, result, groupLanes, reason);
  if (failed(laneFunction) && groupLanes > 1) {
    groupLanes = 1;
    result = KernelLoweringResult();
    laneFunction = buildLaneCoroutine(context, result, groupLanes, reason);
  }
  return laneFunction;
}

LogicalResult lowerByCoroutines(KernelContext &context,
                                KernelLoweringResult &result,
                                unsigned groupLanes) {
  FailureOr<func::FuncOp> laneFunction =
      buildCoroutine(context, result, groupLanes);
  if (failed(laneFunction))
    return failure();
  result.usedCoroutines = true;
  result.groupLanes = groupLanes;

  OpBuilder builder(context.kernel.getContext());
  BlockEnvironment environment;
  func::FuncOp function = createBlockFunction(context, builder, environment);
  result.blockFunction = function;
  Location loc = context.kernel.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(builder.getContext());
  auto i1 = builder.getI1Type();

  // One coroutine per lane or per group of lanes; one handle each, in the
  // worker's arena.
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value coroutines = environment.laneCount;
  Value capacity = arith::ConstantIndexOp::create(builder, loc, groupLanes);
  if (groupLanes > 1)
    coroutines = arith::CeilDivUIOp::create(builder, loc, environment.laneCount,
                                            capacity);
  Value pointerBytes =
      arith::ConstantIndexOp::create(builder, loc, sizeof(void *));
  Value bytes = arith::MulIOp::create(builder, loc, pointerBytes, coroutines);
  Value handles =
      allocateFromArena(builder, loc, context.runtime, bytes, alignof(void *));
  auto handleAddress = [&](Value lane) -> Value {
    Value lane64 =
        arith::IndexCastOp::create(builder, loc, builder.getI64Type(), lane);
    return LLVM::GEPOp::create(builder, loc, ptr, ptr, handles,
                               ValueRange{lane64});
  };
  auto start = [&](Value coroutine, Value first, Value second, Value third) {
    SmallVector<Value> operands(environment.kernelArguments);
    operands.append(environment.workgroupBuffers);
    operands.append({first, second, third});
    for (const Value *query :
         {environment.blockId, environment.blockDim, environment.gridDim})
      for (unsigned d = 0; d < 3; ++d)
        operands.push_back(query[d]);
    Value handle = func::CallOp::create(builder, loc, *laneFunction, operands)
                       .getResult(0);
    LLVM::StoreOp::create(builder, loc, handle, handleAddress(coroutine));
  };

  // Start every coroutine; each runs to its first barrier.
  {
    OpBuilder::InsertionGuard guard(builder);
    if (groupLanes > 1) {
      auto groups = scf::ForOp::create(builder, loc, zero, coroutines, one);
      builder.setInsertionPoint(groups.getBody()->getTerminator());
      Value first = arith::MulIOp::create(builder, loc,
                                          groups.getInductionVar(), capacity);
      Value left =
          arith::SubIOp::create(builder, loc, environment.laneCount, first);
      Value lanes = arith::MinUIOp::create(builder, loc, left, capacity);
      start(groups.getInductionVar(), first, lanes, zero);
    } else {
      Value threadId[3];
      for (int d = 2; d >= 0; --d) {
        auto laneLoop = scf::ForOp::create(builder, loc, zero,
                                           environment.blockDim[d], one);
        threadId[d] = laneLoop.getInductionVar();
        builder.setInsertionPoint(laneLoop.getBody()->getTerminator());
      }
      Value lane = arith::MulIOp::create(builder, loc, threadId[2],
                                         environment.blockDim[1]);
      lane = arith::AddIOp::create(builder, loc, lane, threadId[1]);
      lane = arith::MulIOp::create(builder, loc, lane, environment.blockDim[0]);
      lane = arith::AddIOp::create(builder, loc, lane, threadId[0]);
      start(lane, threadId[0], threadId[1], threadId[2]);
    }
  }

  // Round-robin: resume every unfinished coroutine until none is left.
  auto rounds = scf::WhileOp::create(builder, loc, TypeRange{}, ValueRange{});
  {
    OpBuilder::InsertionGuard guard(builder);
    Block *before = builder.createBlock(&rounds.getBefore());
    Value none = arith::ConstantIntOp::create(builder, loc, 0, 1);
    auto sweep = scf::ForOp::create(builder, loc, zero, coroutines, one,
                                    ValueRange{none});
    builder.setInsertionPointToStart(sweep.getBody());
    Value handle = LLVM::LoadOp::create(builder, loc, ptr,
                                        handleAddress(sweep.getInductionVar()));
    Value done = LLVM::CallIntrinsicOp::create(
                     builder, loc, i1, builder.getStringAttr("llvm.coro.done"),
                     ValueRange{handle})
                     .getResult(0);
    Value live = arith::XOrIOp::create(
        builder, loc, done, arith::ConstantIntOp::create(builder, loc, 1, 1));
    auto resume =
        scf::IfOp::create(builder, loc, live, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(builder);
      builder.setInsertionPoint(resume.thenBlock()->getTerminator());
      LLVM::CoroResumeOp::create(builder, loc, handle);
    }
    Value anyLive =
        arith::OrIOp::create(builder, loc, sweep.getRegionIterArgs()[0], live);
    scf::YieldOp::create(builder, loc, anyLive);
    builder.setInsertionPointToEnd(before);
    scf::ConditionOp::create(builder, loc, sweep.getResult(0), ValueRange{});
    builder.createBlock(&rounds.getAfter());
    scf::YieldOp::create(builder, loc);
  }
  return success();
}

} // namespace sluice::gpu_to_cpu
