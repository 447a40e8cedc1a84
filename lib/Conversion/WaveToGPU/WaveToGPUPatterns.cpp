//===- WaveToGPUPatterns.cpp - Frame and pool ops -> memref ops -----------===//

#include "WaveToGPUPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::wave_to_gpu;

namespace {

/// Emits the memref ops of one lowered op inside its kernel.
class KernelEmitter {
public:
  KernelEmitter(Operation *op, PatternRewriter &rewriter,
                const LoweringState &state)
      : loc(op->getLoc()), rewriter(rewriter), shape(state.shape),
        kernel(op->getParentOfType<gpu::GPUFuncOp>()),
        values(state.kernels.lookup(kernel)) {}

  bool valid() const { return kernel && values.invocation; }
  Value arg(unsigned position) { return kernel.getArgument(position); }
  Value invocation() { return values.invocation; }
  Value itemSlot() { return values.itemSlot; }
  Block *exit() { return values.exit; }
  unsigned owner() { return values.owner; }

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  }
  Value i32(int64_t value) {
    return arith::ConstantIntOp::create(rewriter, loc, value, 32);
  }
  Value toIndex(Value value) {
    return arith::IndexCastUIOp::create(rewriter, loc, rewriter.getIndexType(),
                                        value);
  }
  Value load(Value memref, Value at) {
    return memref::LoadOp::create(rewriter, loc, memref, ValueRange{at});
  }
  void store(Value value, Value memref, Value at) {
    memref::StoreOp::create(rewriter, loc, value, memref, ValueRange{at});
  }
  Value add(Value a, Value b) {
    return arith::AddIOp::create(rewriter, loc, a, b);
  }
  Value mul(Value a, Value b) {
    return arith::MulIOp::create(rewriter, loc, a, b);
  }

  /// `counters[slot] += 1`, atomically; returns the old value.
  Value bumpCounter(int64_t slot) {
    return memref::AtomicRMWOp::create(rewriter, loc,
                                       arith::AtomicRMWKind::addi, i32(1),
                                       arg(kCounters), ValueRange{index(slot)});
  }

  /// Records the dispatch's first fault: the code is claimed by
  /// compare-and-swap from 0, and only the claimer writes the details.
  void raiseFault(int64_t code, int64_t owner, Value value) {
    auto claim = memref::GenericAtomicRMWOp::create(rewriter, loc, arg(kFault),
                                                    ValueRange{index(0)});
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(claim.getBody());
      Value current = claim.getCurrentValue();
      Value unclaimed = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, current, i32(0));
      Value next =
          arith::SelectOp::create(rewriter, loc, unclaimed, i32(code), current);
      memref::AtomicYieldOp::create(rewriter, loc, next);
    }
    Value won = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      claim.getResult(), i32(0));
    auto ifWon = scf::IfOp::create(rewriter, loc, won, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(ifWon.thenBlock()->getTerminator());
    store(i32(values.stage), arg(kFault), index(1));
    store(arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI32Type(),
                                       invocation()),
          arg(kFault), index(2));
    store(i32(owner), arg(kFault), index(3));
    store(value, arg(kFault), index(4));
  }

  /// A one-element view of field `name` of `frame`; index fields are i64.
  Value fieldView(Value frame, StringRef name) {
    wave::FrameLayoutOp layout = shape.layout;
    int64_t fieldIndex = layout.getFieldIndex(name);
    auto field = cast<wave::FrameFieldAttr>(layout.getFields()[fieldIndex]);
    Value offset;
    if (layout.isArrayOfStructs()) {
      offset = add(mul(frame, index(*layout.getStride())),
                   index(*field.getOffset()));
    } else {
      Value array = load(arg(kFieldOffsets), index(fieldIndex));
      Value element = mul(frame, index(field.getSize()));
      offset = add(arith::IndexCastOp::create(rewriter, loc,
                                              rewriter.getIndexType(), array),
                   element);
    }
    Type stored =
        field.getType().isIndex() ? rewriter.getI64Type() : field.getType();
    auto view = memref::ViewOp::create(rewriter, loc,
                                       MemRefType::get({1}, stored),
                                       arg(kFrames), offset, ValueRange{});
    // sluice-build-megakernel keeps the field in a register of the thread.
    view->setAttr(kFrameFieldAttrName, rewriter.getI64IntegerAttr(fieldIndex));
    return view;
  }

  void storeField(Value frame, StringRef name, Value value) {
    Value view = fieldView(frame, name);
    if (value.getType().isIndex())
      value = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                         value);
    store(value, view, index(0));
  }

  Location loc;
  PatternRewriter &rewriter;
  const ProgramShape &shape;

private:
  gpu::GPUFuncOp kernel;
  KernelValues values;
};

template <typename Op> struct KernelPattern : public OpRewritePattern<Op> {
  KernelPattern(MLIRContext *context, const LoweringState &state)
      : OpRewritePattern<Op>(context), state(state) {}
  const LoweringState &state;
};

struct FrameLoadLowering : public KernelPattern<wave::FrameLoadOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(wave::FrameLoadOp op,
                                PatternRewriter &rewriter) const override {
    KernelEmitter emit(op, rewriter, state);
    if (!emit.valid())
      return failure();
    Value value =
        emit.load(emit.fieldView(op.getFrame(), op.getField()), emit.index(0));
    if (op.getType().isIndex())
      value = arith::IndexCastOp::create(rewriter, op.getLoc(),
                                         rewriter.getIndexType(), value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct FrameStoreLowering : public KernelPattern<wave::FrameStoreOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(wave::FrameStoreOp op,
                                PatternRewriter &rewriter) const override {
    KernelEmitter emit(op, rewriter, state);
    if (!emit.valid())
      return failure();
    emit.storeField(op.getFrame(), op.getField(), op.getValue());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Writes the frame header and the outcome, counts an arrival at the target
/// stage, and leaves the kernel.
struct NextLowering : public KernelPattern<wave::NextOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(wave::NextOp op,
                                PatternRewriter &rewriter) const override {
    KernelEmitter emit(op, rewriter, state);
    if (!emit.valid())
      return failure();
    int64_t target =
        op.getStage() ? state.shape.stageIds.lookup(*op.getStage()) : kFinished;
    Value id = emit.i32(target);
    emit.storeField(op.getFrame(), wave::FrameLayoutOp::getNextFieldName(), id);
    emit.store(id, emit.arg(kNextStage), emit.invocation());
    if (op.getStage())
      emit.bumpCounter(target);
    rewriter.replaceOpWithNewOp<cf::BranchOp>(op, emit.exit());
    return success();
  }
};

/// Takes the owner's next free-ring position atomically (or, with
/// lane-publish-positions, position invocation * bound + k for the
/// invocation's k-th publish: no claim shared by the invocations, the host
/// compacts the window's holes), writes the payload at that slot, appends
/// the slot to the invocation's publish record and counts an arrival at the
/// owner's first stage.
struct PublishLowering : public KernelPattern<pool::PublishOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(pool::PublishOp op,
                                PatternRewriter &rewriter) const override {
    KernelEmitter emit(op, rewriter, state);
    if (!emit.valid())
      return failure();
    const ProgramShape &shape = state.shape;
    unsigned owner = shape.ownerIds.lookup(op.getOwner());
    unsigned buffers = shape.ownerBufferBase[owner];
    Value countAt =
        emit.add(emit.mul(emit.invocation(), emit.index(shape.owners.size())),
                 emit.index(owner));
    Value published = emit.load(emit.arg(kPublishedCounts), countAt);
    int64_t bound = shape.bounds.lookup(op.getOwner());
    Value withinBound =
        arith::CmpIOp::create(rewriter, emit.loc, arith::CmpIPredicate::ult,
                              published, emit.i32(bound));
    auto ifWithinBound =
        scf::IfOp::create(rewriter, emit.loc, withinBound, /*withElse=*/true);
    rewriter.setInsertionPoint(ifWithinBound.elseBlock()->getTerminator());
    emit.raiseFault(kFaultBoundExceeded, owner,
                    emit.add(published, emit.i32(1)));

    rewriter.setInsertionPoint(ifWithinBound.thenBlock()->getTerminator());
    Value head;
    if (state.lanePublishPositions) {
      // The window holds `bound` positions per invocation (admission takes
      // n invocations only when n * bound fits it).
      Value invocation = arith::IndexCastUIOp::create(
          rewriter, emit.loc, rewriter.getI32Type(), emit.invocation());
      head = emit.add(emit.mul(invocation, emit.i32(bound)), published);
    } else {
      head = emit.bumpCounter(shape.allocBase + owner);
    }
    Value limit = emit.load(emit.arg(kAllocLimits), emit.index(owner));
    Value admitted = arith::CmpIOp::create(
        rewriter, emit.loc, arith::CmpIPredicate::ult, head, limit);
    auto ifAdmitted =
        scf::IfOp::create(rewriter, emit.loc, admitted, /*withElse=*/true);
    rewriter.setInsertionPoint(ifAdmitted.elseBlock()->getTerminator());
    emit.raiseFault(kFaultPoolExhausted, owner, head);

    rewriter.setInsertionPoint(ifAdmitted.thenBlock()->getTerminator());
    Value ringPosition = arith::RemUIOp::create(
        rewriter, op.getLoc(), head,
        emit.i32(pool::OwnerOp(shape.owners[owner]).getCapacity()));
    Value slot = emit.load(emit.arg(buffers), emit.toIndex(ringPosition));
    Value slotIndex = emit.toIndex(slot);
    for (auto [i, value] : llvm::enumerate(op.getPayload()))
      emit.store(value, emit.arg(buffers + 1 + i), slotIndex);
    Value record =
        emit.add(emit.mul(emit.invocation(), emit.index(shape.publishStride)),
                 emit.index(shape.publishBase.lookup(op.getOwner())));
    emit.store(slot, emit.arg(kPublishedSlots),
               emit.add(record, emit.toIndex(published)));
    emit.store(emit.add(published, emit.i32(1)), emit.arg(kPublishedCounts),
               countAt);
    emit.bumpCounter(shape.ownerStageBase[owner]);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ItemLoadLowering : public KernelPattern<pool::LoadOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(pool::LoadOp op,
                                PatternRewriter &rewriter) const override {
    KernelEmitter emit(op, rewriter, state);
    if (!emit.valid() || !emit.itemSlot())
      return failure();
    unsigned buffers = state.shape.ownerBufferBase[emit.owner()];
    SmallVector<Value> values;
    for (unsigned i = 0, e = op.getNumResults(); i < e; ++i)
      values.push_back(emit.load(emit.arg(buffers + 1 + i), emit.itemSlot()));
    rewriter.replaceOp(op, values);
    return success();
  }
};

/// Optionally rewrites the payload, records the target owner stage as the
/// outcome and counts an arrival there.
struct MoveLowering : public KernelPattern<pool::MoveOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(pool::MoveOp op,
                                PatternRewriter &rewriter) const override {
    KernelEmitter emit(op, rewriter, state);
    if (!emit.valid() || !emit.itemSlot())
      return failure();
    unsigned owner = emit.owner();
    unsigned buffers = state.shape.ownerBufferBase[owner];
    for (auto [i, value] : llvm::enumerate(op.getPayload()))
      emit.store(value, emit.arg(buffers + 1 + i), emit.itemSlot());
    int64_t target =
        pool::OwnerOp(state.shape.owners[owner]).getStageIndex(op.getStage());
    emit.store(emit.i32(target), emit.arg(kNextStage), emit.invocation());
    emit.bumpCounter(state.shape.ownerStageBase[owner] + target);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Records the released outcome and counts a release.
struct ReleaseLowering : public KernelPattern<pool::ReleaseOp> {
  using KernelPattern::KernelPattern;
  LogicalResult matchAndRewrite(pool::ReleaseOp op,
                                PatternRewriter &rewriter) const override {
    KernelEmitter emit(op, rewriter, state);
    if (!emit.valid() || !emit.itemSlot())
      return failure();
    unsigned owner = emit.owner();
    emit.store(emit.i32(kFinished), emit.arg(kNextStage), emit.invocation());
    emit.bumpCounter(state.shape.releaseBase + owner);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void sluice::wave_to_gpu::populateWaveToGPUPatterns(
    RewritePatternSet &patterns, const LoweringState &state) {
  patterns
      .add<FrameLoadLowering, FrameStoreLowering, NextLowering, PublishLowering,
           ItemLoadLowering, MoveLowering, ReleaseLowering>(
          patterns.getContext(), state);
}

/// Wraps `access` (a load, store or atomic of buffer binding `binding`) in
/// `scf.if` on its indices lying inside the buffer; outside, the access is
/// skipped (a result is 0) and an OUT_OF_BOUNDS fault records the binding
/// and the row-major element index.
static void guardAccess(Operation *access, Value memref, ValueRange indices,
                        unsigned binding, unsigned extentsArgument,
                        PatternRewriter &rewriter,
                        const LoweringState &state) {
  rewriter.setInsertionPoint(access);
  KernelEmitter emit(access, rewriter, state);
  Location loc = access->getLoc();
  auto type = cast<MemRefType>(memref.getType());
  Value inBounds, linear = emit.index(0);
  for (auto [d, at] : llvm::enumerate(indices)) {
    // A dynamic binding is rank 1: its extent is in the extents argument.
    Value extent = type.isDynamicDim(d)
                       ? arith::IndexCastOp::create(
                             rewriter, loc, rewriter.getIndexType(),
                             emit.load(emit.arg(extentsArgument),
                                       emit.index(binding)))
                             .getResult()
                       : emit.index(type.getDimSize(d));
    Value inside = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::ult, at, extent);
    inBounds = inBounds ? arith::AndIOp::create(rewriter, loc, inBounds, inside)
                              .getResult()
                        : inside;
    linear = emit.add(emit.mul(linear, extent), at);
  }
  if (!inBounds)
    return; // a rank-0 buffer has one element
  auto guard = scf::IfOp::create(rewriter, loc, access->getResultTypes(),
                                 inBounds, /*withElseRegion=*/true);
  // Without results the builder has already terminated both blocks.
  bool terminated = access->getNumResults() == 0;
  auto enter = [&](Block *block) {
    if (terminated)
      rewriter.setInsertionPoint(block->getTerminator());
    else
      rewriter.setInsertionPointToEnd(block);
  };
  enter(guard.thenBlock());
  Operation *inside = rewriter.clone(*access);
  if (!terminated)
    scf::YieldOp::create(rewriter, loc, inside->getResults());
  enter(guard.elseBlock());
  KernelEmitter faulting(guard, rewriter, state);
  Value element = arith::IndexCastUIOp::create(rewriter, loc,
                                               rewriter.getI32Type(), linear);
  faulting.raiseFault(kFaultOutOfBounds, binding, element);
  if (!terminated) {
    SmallVector<Value> zeros;
    for (Type result : access->getResultTypes())
      zeros.push_back(arith::ConstantOp::create(
          rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(result))));
    scf::YieldOp::create(rewriter, loc, zeros);
  }
  rewriter.replaceOp(access, guard.getResults());
}

void sluice::wave_to_gpu::insertBindingBoundsChecks(
    gpu::GPUModuleOp kernels, const LoweringState &state,
    unsigned bindingBase, ArrayRef<bool> isBuffer, unsigned extentsArgument) {
  SmallVector<std::tuple<Operation *, Value, SmallVector<Value>, unsigned>>
      accesses;
  kernels.walk([&](Operation *op) {
    Value memref;
    SmallVector<Value> indices;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemRef(), indices = load.getIndices();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemRef(), indices = store.getIndices();
    else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op))
      memref = atomic.getMemref(), indices = atomic.getIndices();
    auto arg = dyn_cast_if_present<BlockArgument>(memref);
    if (!arg || !isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()) ||
        arg.getArgNumber() < bindingBase ||
        arg.getArgNumber() >= bindingBase + isBuffer.size() ||
        !isBuffer[arg.getArgNumber() - bindingBase])
      return;
    accesses.emplace_back(op, memref, std::move(indices),
                          arg.getArgNumber() - bindingBase);
  });
  PatternRewriter rewriter(kernels.getContext());
  for (auto &[op, memref, indices, binding] : accesses)
    guardAccess(op, memref, indices, binding, extentsArgument, rewriter,
                state);
}
