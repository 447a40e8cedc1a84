//===- Megakernel.cpp - The state-machine schedule as one kernel ----------===//
//
// sluice-build-megakernel: after convert-wave-to-gpu, one more kernel in
// which each thread claims lanes and runs each to completion, looping over
// copies of the main stage kernels' bodies, and handles the items an
// invocation published right after it, depth-first, with copies of the
// handler kernels' bodies (docs/compiler.md, "The megakernel").
//
// A copied body sees its invocation as 0 and its per-invocation arguments
// (invocation, lane id, outcome, counters, publish record, admission limits,
// the owners' free rings) and the uniforms as private arrays of the thread,
// so the megakernel's buffers are only the frames, the payload arrays, the
// fault record, the inputs, the buffer bindings and the machine words.
// With `private-state` (the default) the frame and the item slots are
// private too: a thread runs its lane's stages one after another on frame
// g, and the items it publishes at its own slots g * bound + k right after,
// and no other thread and nothing after the kernel reads either. So each
// frame field becomes a one-element private variable (a register), each
// payload field a private array of `bound` elements (registers too when
// the bound is 1), and the bodies' frame and payload accesses stop going
// through memory. Rounding is unchanged: wave-fuse-multiply-add makes every
// fusion explicit and the backends contract nothing else (docs/compiler.md).
//
//===----------------------------------------------------------------------===//

#include "WaveToGPUPatterns.h"
#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace sluice {
#define GEN_PASS_DEF_BUILDMEGAKERNEL
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;
using namespace sluice;
using namespace sluice::wave_to_gpu;

namespace {

constexpr int64_t kUndecided = SLUICE_KERNEL_UNDECIDED;
constexpr int64_t kNoOwner = SLUICE_KERNEL_NO_OWNER;
constexpr int64_t kStageWords = SLUICE_MEGAKERNEL_STAGE_WORDS;

/// A uniform binding: the megakernel reads it from the machine words (one
/// buffer for all of them: a device bounds the buffers of one kernel).
struct Uniform {
  unsigned argument;
  Type type;
  int64_t word; // after the machine header
};

struct OwnerShape {
  SmallVector<gpu::GPUFuncOp> stages;
  SmallVector<Type> payload;
  int64_t share = 0;       // private item slots per thread: the bound
  int64_t publishBase = 0; // in the publish record
  int64_t firstStage = 0;  // global id of the owner's first stage
  unsigned ringArgument = 0;
};

class MegakernelBuilder {
public:
  MegakernelBuilder(ModuleOp module, bool warpVote, bool privateState)
      : module(module), builder(module.getContext()), warpVote(warpVote),
        privateState(privateState) {}

  LogicalResult run();

private:
  LogicalResult readDescriptor();
  gpu::GPUFuncOp lookupKernel(Attribute entry);
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  Value i32(int64_t value) {
    return arith::ConstantIntOp::create(builder, loc, value, 32);
  }
  Value toIndex(Value value) {
    return arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(),
                                        value);
  }
  Value load(Value memref, Value at) {
    return memref::LoadOp::create(builder, loc, memref, ValueRange{at});
  }
  void store(Value value, Value memref, Value at) {
    memref::StoreOp::create(builder, loc, value, memref, ValueRange{at});
  }
  Value cmp(arith::CmpIPredicate predicate, Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, predicate, a, b);
  }
  Value addI32(Value a, int64_t b) {
    return arith::AddIOp::create(builder, loc, a, i32(b));
  }
  Value privateArray(int64_t elements, Type element) {
    return memref::AllocaOp::create(
        builder, loc,
        MemRefType::get({std::max<int64_t>(elements, 1)}, element));
  }
  // statistics[at] += amount (private, so not atomic).
  void count(Value at, Value amount) {
    store(arith::AddIOp::create(builder, loc, load(stats, at), amount), stats,
          at);
  }
  Value statIndex(Value globalStage, int64_t word) {
    Value base = arith::MulIOp::create(builder, loc, toIndex(globalStage),
                                       index(kStageWords));
    return arith::AddIOp::create(builder, loc, base, index(word));
  }
  Block *newBlock(TypeRange arguments = {}) {
    Block *block = new Block();
    for (Type type : arguments)
      block->addArgument(type, loc);
    mega.getBody().push_back(block);
    return block;
  }
  // Branches on `selector` to `targets[i]` when it equals i (the last one
  // unconditionally: the caller checked the range).
  void selectCase(Value selector, ArrayRef<Block *> targets);
  void raiseBadOutcome(Value stage, Value owner, Value outcome);
  // To `finished` when `outcome` is FINISHED, to `on` (with `onArguments`)
  // when it is below `stages`, else BAD_OUTCOME (stage, owner, outcome).
  void branchOnOutcome(Value outcome, Value stages, Block *finished, Block *on,
                       ValueRange onArguments, Value stage, Value owner);
  // owners[o].*field as an i32, for a run-time owner index `o`.
  Value ownerTable(Value o, function_ref<int64_t(const OwnerShape &)> field);
  FailureOr<Block *> inlineKernel(gpu::GPUFuncOp kernel, Block *continuation);
  Value argumentFor(unsigned position);

  // The pieces both loop forms share.
  void emitSetup();
  void emitFlush();
  void emitClaim(Block *noLane);
  LogicalResult emitMainDispatch(Value stage, Block *post);
  Value faulted() {
    return cmp(arith::CmpIPredicate::ne,
               load(mega.getArgument(kFault), index(0)), i32(0));
  }
  // The loop forms: each thread runs its lanes to completion with nested
  // loops (buildNested), or runs a state machine whose stage its subgroup
  // votes on (buildVoting).
  LogicalResult buildNested(Value inRange);
  LogicalResult buildVoting(Value inRange);

  ModuleOp module;
  OpBuilder builder;
  bool warpVote;
  bool privateState;
  Location loc = UnknownLoc::get(module.getContext());
  DictionaryAttr descriptor;
  gpu::GPUModuleOp kernels;
  SmallVector<gpu::GPUFuncOp> mainStages;
  SmallVector<OwnerShape> owners;
  int64_t publishStride = 0, allocBase = 0, counterCount = 0;
  int64_t globalStages = 0;
  FunctionType stageType;
  SmallVector<Uniform> uniforms;
  int64_t uniformWords = 0;
  SmallVector<Value> uniformVars; // per uniform, private

  gpu::GPUFuncOp mega;
  Value zero, thread, threadI32, stats;
  // The private per-invocation arguments.
  Value invocationVar, laneVar, outcomeVar, counters, publishedSlots,
      publishedCounts, allocLimits;
  SmallVector<Value> rings; // per owner
  // With privateState: per frame field (its layout index), the thread's
  // one-element variable, allocated at the entry (after the other private
  // arrays, before `privateEnd`) when a body first uses it.
  llvm::DenseMap<int64_t, Value> frameVars;
  // With privateState: per owner, per payload field, the thread's `share`
  // slots, and the payload arguments they replace.
  SmallVector<SmallVector<Value>> payloadVars;
  llvm::DenseMap<Value, std::pair<unsigned, unsigned>> payloadArguments;
  Operation *privateEnd = nullptr;
  Value machine, claimedVar;
  int64_t statWords = 0;
  // Where a thread goes when it stops (a fault, a bad outcome).
  Block *stopBlock = nullptr;
};

gpu::GPUFuncOp MegakernelBuilder::lookupKernel(Attribute entry) {
  auto dict = dyn_cast<DictionaryAttr>(entry);
  auto symbol = dict ? dict.getAs<SymbolRefAttr>("kernel") : SymbolRefAttr();
  if (!symbol)
    return {};
  return kernels.lookupSymbol<gpu::GPUFuncOp>(symbol.getLeafReference());
}

LogicalResult MegakernelBuilder::readDescriptor() {
  descriptor = module->getAttrOfType<DictionaryAttr>(kProgramDescriptorAttrName);
  if (!descriptor)
    return module.emitError("sluice-build-megakernel: no '")
           << kProgramDescriptorAttrName
           << "' program descriptor; run convert-wave-to-gpu first";
  kernels = module.lookupSymbol<gpu::GPUModuleOp>("sluice_kernels");
  auto mainEntries = descriptor.getAs<ArrayAttr>("main_stages");
  auto ownerEntries = descriptor.getAs<ArrayAttr>("owners");
  auto producers = descriptor.getAs<ArrayAttr>("producers");
  auto countersEntry = descriptor.getAs<DictionaryAttr>("counters");
  auto stride = descriptor.getAs<IntegerAttr>("publish_stride");
  if (!kernels || !mainEntries || mainEntries.empty() || !ownerEntries ||
      !producers || !countersEntry || !stride)
    return module.emitError("sluice-build-megakernel: the '")
           << kProgramDescriptorAttrName
           << "' descriptor lacks the stage kernels, owners, producers or "
              "counters of convert-wave-to-gpu";
  publishStride = stride.getInt();
  allocBase = countersEntry.getAs<IntegerAttr>("alloc_base").getInt();
  counterCount = countersEntry.getAs<IntegerAttr>("size").getInt();
  for (Attribute entry : mainEntries) {
    gpu::GPUFuncOp kernel = lookupKernel(entry);
    if (!kernel)
      return module.emitError("sluice-build-megakernel: main stage ")
             << entry << " names no kernel of @sluice_kernels";
    mainStages.push_back(kernel);
  }
  globalStages = mainStages.size();
  unsigned argument = kFirstOwnerBuffer;
  for (Attribute attr : ownerEntries) {
    auto entry = cast<DictionaryAttr>(attr);
    OwnerShape &owner = owners.emplace_back();
    owner.firstStage = globalStages;
    owner.ringArgument = argument;
    for (Attribute type : entry.getAs<ArrayAttr>("payload"))
      owner.payload.push_back(cast<TypeAttr>(type).getValue());
    argument += 1 + owner.payload.size();
    for (Attribute stage : entry.getAs<ArrayAttr>("stages")) {
      gpu::GPUFuncOp kernel = lookupKernel(stage);
      if (!kernel)
        return module.emitError("sluice-build-megakernel: owner stage ")
               << stage << " names no kernel of @sluice_kernels";
      owner.stages.push_back(kernel);
    }
    globalStages += owner.stages.size();
  }
  for (Attribute attr : producers) {
    auto entry = cast<DictionaryAttr>(attr);
    OwnerShape &owner = owners[entry.getAs<IntegerAttr>("owner").getInt()];
    owner.share = entry.getAs<IntegerAttr>("bound").getInt();
    owner.publishBase = entry.getAs<IntegerAttr>("publish_base").getInt();
  }
  stageType = mainStages.front().getFunctionType();
  auto inputs = descriptor.getAs<ArrayAttr>("inputs");
  auto bindings = descriptor.getAs<ArrayAttr>("bindings");
  if (!inputs || !bindings)
    return module.emitError("sluice-build-megakernel: the '")
           << kProgramDescriptorAttrName << "' descriptor lacks inputs or "
           << "bindings";
  unsigned bindingBase = argument + inputs.size();
  for (auto [i, attr] : llvm::enumerate(bindings)) {
    auto entry = cast<DictionaryAttr>(attr);
    if (entry.getAs<StringAttr>("kind").getValue() != "uniform")
      continue;
    Type type = cast<TypeAttr>(entry.get("element")).getValue();
    uniforms.push_back({unsigned(bindingBase + i), type, uniformWords});
    uniformWords += type.getIntOrFloatBitWidth() > 32 ? 2 : 1;
  }
  return success();
}

Value MegakernelBuilder::argumentFor(unsigned position) {
  switch (position) {
  case kInvocations:
    return invocationVar;
  case kLaneIds:
    return laneVar;
  case kNextStage:
    return outcomeVar;
  case kCounters:
    return counters;
  case kPublishedSlots:
    return publishedSlots;
  case kPublishedCounts:
    return publishedCounts;
  case kAllocLimits:
    return allocLimits;
  default:
    break;
  }
  for (auto [u, uniform] : llvm::enumerate(uniforms))
    if (position == uniform.argument)
      return uniformVars[u];
  for (auto [o, owner] : llvm::enumerate(owners))
    if (position == owner.ringArgument)
      return rings[o];
  return mega.getArgument(position);
}

void MegakernelBuilder::selectCase(Value selector, ArrayRef<Block *> targets) {
  for (auto [i, target] : llvm::enumerate(targets)) {
    if (i + 1 == targets.size()) {
      cf::BranchOp::create(builder, loc, target);
      return;
    }
    Block *next = newBlock();
    cf::CondBranchOp::create(builder, loc,
                             cmp(arith::CmpIPredicate::eq, selector, i32(i)),
                             target, next);
    builder.setInsertionPointToEnd(next);
  }
}

/// Records fault BAD_OUTCOME (the first fault wins, as in every kernel) and
/// stops the thread.
void MegakernelBuilder::raiseBadOutcome(Value stage, Value owner,
                                        Value outcome) {
  Value fault = mega.getArgument(kFault);
  auto claim = memref::GenericAtomicRMWOp::create(builder, loc, fault,
                                                  ValueRange{index(0)});
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(claim.getBody());
    Value current = claim.getCurrentValue();
    Value unclaimed = cmp(arith::CmpIPredicate::eq, current, i32(0));
    Value next = arith::SelectOp::create(
        builder, loc, unclaimed, i32(SLUICE_KERNEL_FAULT_BAD_OUTCOME), current);
    memref::AtomicYieldOp::create(builder, loc, next);
  }
  Value won = cmp(arith::CmpIPredicate::eq, claim.getResult(), i32(0));
  Block *record = newBlock();
  cf::CondBranchOp::create(builder, loc, won, record, stopBlock);
  builder.setInsertionPointToEnd(record);
  store(stage, fault, index(SLUICE_FAULT_WORD_STAGE));
  store(threadI32, fault, index(SLUICE_FAULT_WORD_INVOCATION));
  store(owner, fault, index(SLUICE_FAULT_WORD_OWNER));
  store(outcome, fault, index(SLUICE_FAULT_WORD_VALUE));
  cf::BranchOp::create(builder, loc, stopBlock);
}

void MegakernelBuilder::branchOnOutcome(Value outcome, Value stages,
                                        Block *finished, Block *on,
                                        ValueRange onArguments, Value stage,
                                        Value owner) {
  Block *moved = newBlock();
  Block *bad = newBlock();
  cf::CondBranchOp::create(
      builder, loc, cmp(arith::CmpIPredicate::eq, outcome, i32(kFinished)),
      finished, moved);
  builder.setInsertionPointToEnd(moved);
  cf::CondBranchOp::create(builder, loc,
                           cmp(arith::CmpIPredicate::ult, outcome, stages), on,
                           onArguments, bad, ValueRange{});
  builder.setInsertionPointToEnd(bad);
  raiseBadOutcome(stage, owner, outcome);
}

Value MegakernelBuilder::ownerTable(
    Value o, function_ref<int64_t(const OwnerShape &)> field) {
  Value value = i32(field(owners.back()));
  for (size_t i = owners.size() - 1; i-- > 0;)
    value = arith::SelectOp::create(builder, loc,
                                    cmp(arith::CmpIPredicate::eq, o, i32(i)),
                                    i32(field(owners[i])), value);
  return value;
}

/// Copies the body of `kernel` into the megakernel; its returns branch to
/// `continuation`. Returns the copy's entry block.
FailureOr<Block *> MegakernelBuilder::inlineKernel(gpu::GPUFuncOp kernel,
                                                   Block *continuation) {
  // convert-wave-to-gpu's prologue: `cond_br (invocation < count)`.
  Block &entry = kernel.getBody().front();
  auto guard = dyn_cast<cf::CondBranchOp>(entry.getTerminator());
  auto inRange =
      guard ? guard.getCondition().getDefiningOp<arith::CmpIOp>() : nullptr;
  if (!inRange || inRange.getRhs() != entry.getArgument(kCount) ||
      kernel.getFunctionType() != stageType)
    return kernel.emitOpError("is not a stage kernel of convert-wave-to-gpu "
                              "(the prologue `invocation < count` or the "
                              "common arguments differ)");
  Value invocation = inRange.getLhs();
  IRMapping mapping;
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i)
    mapping.map(entry.getArgument(i), argumentFor(i));
  Region &body = mega.getBody();
  unsigned before = body.getBlocks().size();
  kernel.getBody().cloneInto(&body, body.end(), mapping);
  SmallVector<Block *> copied;
  for (Block &block : llvm::drop_begin(body.getBlocks(), before))
    copied.push_back(&block);
  mapping.lookup(invocation).replaceAllUsesWith(zero);

  Block *megaEntry = &body.front();
  SmallVector<Operation *> returns, allocas, atomics, faultInvocations,
      frameViews, payloadAccesses;
  Value frames = mega.getArgument(kFrames);
  auto accessesPayload = [&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return payloadArguments.contains(load.getMemRef());
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return payloadArguments.contains(store.getMemRef());
    return false;
  };
  for (Block *block : copied)
    block->walk([&](Operation *op) {
      if (isa<gpu::ReturnOp>(op))
        returns.push_back(op);
      else if (auto view = dyn_cast<memref::ViewOp>(op);
               privateState && view && view.getSource() == frames &&
               view->hasAttr(kFrameFieldAttrName))
        frameViews.push_back(op);
      else if (privateState && accessesPayload(op))
        payloadAccesses.push_back(op);
      else if (auto alloca = dyn_cast<memref::AllocaOp>(op);
               alloca && alloca.getType().hasStaticShape())
        allocas.push_back(op);
      else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op);
               atomic && atomic.getMemref() == counters)
        atomics.push_back(op);
      else if (auto faultStore = dyn_cast<memref::StoreOp>(op);
               faultStore &&
               faultStore.getMemRef() == mega.getArgument(kFault) &&
               getConstantIntValue(faultStore.getIndices().front()) ==
                   int64_t(SLUICE_FAULT_WORD_INVOCATION))
        faultInvocations.push_back(op);
    });
  for (Operation *op : returns) {
    builder.setInsertionPoint(op);
    cf::BranchOp::create(builder, op->getLoc(), continuation);
    op->erase();
  }
  // A private array of the body is allocated once per thread (the body runs
  // in a loop; its contents start undefined either way).
  for (Operation *op : allocas)
    op->moveBefore(&megaEntry->front());
  // The counters are the thread's own: plain arithmetic.
  for (Operation *op : atomics) {
    auto atomic = cast<memref::AtomicRMWOp>(op);
    builder.setInsertionPoint(op);
    Value old = memref::LoadOp::create(builder, op->getLoc(), counters,
                                       atomic.getIndices());
    Value updated = arith::getReductionOp(atomic.getKind(), builder,
                                          op->getLoc(), old, atomic.getValue());
    memref::StoreOp::create(builder, op->getLoc(), updated, counters,
                            atomic.getIndices());
    atomic.getResult().replaceAllUsesWith(old);
    op->erase();
  }
  // The frame is the thread's (frame g): a field is a private variable.
  for (Operation *op : frameViews) {
    auto view = cast<memref::ViewOp>(op);
    int64_t field =
        view->getAttrOfType<IntegerAttr>(kFrameFieldAttrName).getInt();
    Value &var = frameVars[field];
    if (!var) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(privateEnd);
      var = memref::AllocaOp::create(builder, loc, view.getType());
    }
    assert(var.getType() == view.getType() &&
           "a field's type is the frame layout's, in every body");
    view.getResult().replaceAllUsesWith(var);
    op->erase();
  }
  // The item slots are the thread's: slot g * share + k is element k of the
  // private array (element 0 when the bound is 1, so that the backend keeps
  // it in a register).
  auto privatize = [&](auto access) {
    auto [o, f] = payloadArguments.lookup(access.getMemRef());
    builder.setInsertionPoint(access);
    int64_t share = owners[o].share;
    Value element =
        share == 1
            ? zero
            : arith::SubIOp::create(
                  builder, access.getLoc(), access.getIndices().front(),
                  arith::MulIOp::create(builder, access.getLoc(), thread,
                                        index(share)));
    access.getMemrefMutable().assign(payloadVars[o][f]);
    access.getIndicesMutable().assign(element);
  };
  for (Operation *op : payloadAccesses) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      privatize(load);
    else
      privatize(cast<memref::StoreOp>(op));
  }
  // The fault names the thread: every copied invocation is 0.
  for (Operation *op : faultInvocations)
    cast<memref::StoreOp>(op).getValueMutable().assign(threadI32);
  // The lane id is the thread's one private word (the body indexes it by
  // its frame).
  for (OpOperand &use : llvm::make_early_inc_range(laneVar.getUses()))
    if (auto load = dyn_cast<memref::LoadOp>(use.getOwner()))
      load.getIndicesMutable().assign(zero);
  return mapping.lookup(&entry);
}

void MegakernelBuilder::emitSetup() {
  // Zero statistics; the private ring of each owner holds the thread's slots
  // g * bound + k of the payload arrays.
  auto forEach = [&](int64_t n, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(builder, loc, index(0), index(n), index(1));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar());
  };
  forEach(statWords, [&](Value i) { store(i32(0), stats, i); });
  Type i32Type = builder.getI32Type();
  for (auto [o, owner] : llvm::enumerate(owners)) {
    Value first = arith::MulIOp::create(builder, loc, thread,
                                        index(owner.share));
    forEach(owner.share, [&](Value k) {
      Value slot = arith::AddIOp::create(builder, loc, first, k);
      store(arith::IndexCastUIOp::create(builder, loc, i32Type, slot),
            rings[o], k);
    });
    store(i32(owner.share), allocLimits, index(o));
  }
  // The uniforms, out of the machine words (64-bit ones low word first).
  for (auto [u, uniform] : llvm::enumerate(uniforms)) {
    Value at = index(SLUICE_MEGAKERNEL_HEADER_WORDS + uniform.word);
    Value bits = load(machine, at);
    unsigned width = uniform.type.getIntOrFloatBitWidth();
    if (width > 32) {
      Type i64Type = builder.getI64Type();
      Value low = arith::ExtUIOp::create(builder, loc, i64Type, bits);
      Value high = arith::ExtUIOp::create(
          builder, loc, i64Type,
          load(machine, arith::AddIOp::create(builder, loc, at, index(1))));
      high = arith::ShLIOp::create(
          builder, loc, high,
          arith::ConstantIntOp::create(builder, loc, 32, 64));
      bits = arith::OrIOp::create(builder, loc, high, low);
    }
    Value value = bits;
    if (isa<FloatType>(uniform.type))
      value = arith::BitcastOp::create(builder, loc, uniform.type, bits);
    store(value, uniformVars[u], zero);
  }
  store(i32(0), claimedVar, zero);
  store(threadI32, invocationVar, zero);
}

/// The statistics into the thread's machine words, and the lane it claimed
/// last (the one a fault happened in).
void MegakernelBuilder::emitFlush() {
  Value statBase = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, thread, index(statWords + 1)),
      index(SLUICE_MEGAKERNEL_HEADER_WORDS + uniformWords));
  auto loop =
      scf::ForOp::create(builder, loc, index(0), index(statWords), index(1));
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(loop.getBody()->getTerminator());
    Value i = loop.getInductionVar();
    store(load(stats, i), machine,
          arith::AddIOp::create(builder, loc, statBase, i));
  }
  store(load(laneVar, zero), machine,
        arith::AddIOp::create(builder, loc, statBase, index(statWords)));
}

/// The next lane, while this launch allows the thread another, in the lane
/// word (the insertion point is then in the block that got it), else
/// `noLane`.
void MegakernelBuilder::emitClaim(Block *noLane) {
  Block *tryClaim = newBlock();
  Value claimed = load(claimedVar, zero);
  cf::CondBranchOp::create(
      builder, loc,
      cmp(arith::CmpIPredicate::ult, claimed,
          load(machine, index(SLUICE_MEGAKERNEL_LANES_PER_THREAD))),
      tryClaim, noLane);
  builder.setInsertionPointToEnd(tryClaim);
  Value lane = memref::AtomicRMWOp::create(
      builder, loc, arith::AtomicRMWKind::addi, i32(1), machine,
      ValueRange{index(SLUICE_MEGAKERNEL_NEXT_LANE)});
  Block *start = newBlock();
  cf::CondBranchOp::create(
      builder, loc,
      cmp(arith::CmpIPredicate::ult, lane,
          load(machine, index(SLUICE_MEGAKERNEL_LANE_END))),
      start, noLane);
  builder.setInsertionPointToEnd(start);
  store(addI32(claimed, 1), claimedVar, zero);
  store(lane, laneVar, zero);
}

/// One invocation of main stage `stage` on frame `thread`; the bodies
/// return to `post`.
LogicalResult MegakernelBuilder::emitMainDispatch(Value stage, Block *post) {
  store(threadI32, invocationVar, zero);
  store(i32(kUndecided), outcomeVar, zero);
  for (size_t o = 0; o < owners.size(); ++o) {
    store(i32(0), publishedCounts, index(o));
    store(i32(0), counters, index(allocBase + o));
  }
  Block *dispatch = builder.getInsertionBlock();
  SmallVector<Block *> cases;
  for (gpu::GPUFuncOp kernel : mainStages) {
    FailureOr<Block *> copy = inlineKernel(kernel, post);
    if (failed(copy))
      return failure();
    cases.push_back(*copy);
  }
  builder.setInsertionPointToEnd(dispatch);
  selectCase(stage, cases);
  return success();
}

/// Each thread claims lanes and runs each to completion; the items an
/// invocation published run right after it, depth-first.
LogicalResult MegakernelBuilder::buildNested(Value inRange) {
  Type i32Type = builder.getI32Type();
  Block *setup = newBlock();
  Block *exit = newBlock();
  cf::CondBranchOp::create(builder, loc, inRange, setup, exit);
  builder.setInsertionPointToEnd(exit);
  gpu::ReturnOp::create(builder, loc);

  builder.setInsertionPointToEnd(setup);
  emitSetup();
  Block *claim = newBlock();
  cf::BranchOp::create(builder, loc, claim);

  // Flush: the statistics, then stop.
  stopBlock = newBlock();
  builder.setInsertionPointToEnd(stopBlock);
  emitFlush();
  cf::BranchOp::create(builder, loc, exit);

  // Claim, then dispatch stage 0 of the lane.
  builder.setInsertionPointToEnd(claim);
  emitClaim(stopBlock);
  Block *dispatch = newBlock({i32Type});
  cf::BranchOp::create(builder, loc, dispatch, ValueRange{i32(0)});

  // Dispatch: one invocation of main stage %stage on frame `thread`.
  Value stage = dispatch->getArgument(0);
  builder.setInsertionPointToEnd(dispatch);
  Block *post = newBlock();
  if (failed(emitMainDispatch(stage, post)))
    return failure();

  // Post: count the invocation; stop after any fault.
  builder.setInsertionPointToEnd(post);
  Value outcome = load(outcomeVar, zero);
  count(statIndex(stage, 0), i32(1));
  auto stopOnFault = [&](Block *next) {
    cf::CondBranchOp::create(builder, loc, faulted(), stopBlock, next);
  };

  // The published items of each owner, in publish order, each through the
  // owner's stages until it is released.
  Block *ownersDone = newBlock();
  Block *nextOwner = ownersDone;
  for (size_t o = owners.size(); o-- > 0;) {
    OwnerShape &owner = owners[o];
    if (owner.share == 0)
      continue;
    Block *begin = newBlock();
    Block *loop = newBlock({builder.getIndexType()});
    Block *item = newBlock();
    Block *ownerDispatch = newBlock({i32Type});
    Block *handled = newBlock();
    Block *released = newBlock();

    builder.setInsertionPointToEnd(begin);
    Value published = load(publishedCounts, index(o));
    count(statIndex(stage, 1), published);
    cf::BranchOp::create(builder, loc, loop, ValueRange{zero});

    builder.setInsertionPointToEnd(loop);
    Value k = loop->getArgument(0);
    cf::CondBranchOp::create(
        builder, loc, cmp(arith::CmpIPredicate::ult, k, toIndex(published)),
        item, nextOwner);

    builder.setInsertionPointToEnd(item);
    Value slot = load(publishedSlots,
                      arith::AddIOp::create(builder, loc, k,
                                            index(owner.publishBase)));
    store(slot, invocationVar, zero);
    cf::BranchOp::create(builder, loc, ownerDispatch, ValueRange{i32(0)});

    Value ownerStage = ownerDispatch->getArgument(0);
    SmallVector<Block *> handlerCases;
    for (gpu::GPUFuncOp kernel : owner.stages) {
      FailureOr<Block *> copy = inlineKernel(kernel, handled);
      if (failed(copy))
        return failure();
      handlerCases.push_back(*copy);
    }
    builder.setInsertionPointToEnd(ownerDispatch);
    store(i32(kUndecided), outcomeVar, zero);
    selectCase(ownerStage, handlerCases);

    builder.setInsertionPointToEnd(handled);
    Value itemOutcome = load(outcomeVar, zero);
    Value globalStage = addI32(ownerStage, owner.firstStage);
    count(statIndex(globalStage, 0), i32(1));
    Block *decide = newBlock();
    stopOnFault(decide);
    builder.setInsertionPointToEnd(decide);
    branchOnOutcome(itemOutcome, i32(owner.stages.size()), released,
                    ownerDispatch, ValueRange{itemOutcome}, globalStage,
                    i32(o));

    builder.setInsertionPointToEnd(released);
    count(statIndex(globalStage, 2), i32(1));
    cf::BranchOp::create(
        builder, loc, loop,
        ValueRange{arith::AddIOp::create(builder, loc, k, index(1))});
    nextOwner = begin;
  }
  builder.setInsertionPointToEnd(post);
  stopOnFault(nextOwner);

  // The lane goes on at its next stage, or is finished.
  builder.setInsertionPointToEnd(ownersDone);
  Block *finished = newBlock();
  branchOnOutcome(outcome, i32(mainStages.size()), finished, dispatch,
                  ValueRange{outcome}, stage, i32(kNoOwner));
  builder.setInsertionPointToEnd(finished);
  count(index(statWords - 1), i32(1));
  cf::BranchOp::create(builder, loc, claim);
  return success();
}

/// A state machine per thread whose state is the global stage it runs next
/// (a main stage, or an owner's stage for the item it handles), "needs a
/// lane" or "stopped"; each turn the subgroup runs only the threads at the
/// furthest state any of them waits at.
LogicalResult MegakernelBuilder::buildVoting(Value inRange) {
  Type i32Type = builder.getI32Type();
  int64_t mainCount = mainStages.size();
  int64_t claimState = globalStages, idleState = globalStages + 1;
  Value nextVar = privateArray(1, i32Type);
  // The lane's main stage and its outcome, while its items run.
  Value mainStageVar = privateArray(1, i32Type);
  Value mainOutcomeVar = privateArray(1, i32Type);
  // The item being handled: its owner, its index in the publish record and
  // its slot.
  Value itemOwnerVar = privateArray(1, i32Type);
  Value itemIndexVar = privateArray(1, i32Type);
  Value itemSlotVar = privateArray(1, i32Type);

  Block *setup = newBlock();
  Block *head = newBlock();
  Block *outside = newBlock();
  stopBlock = newBlock();
  // A thread past `count` takes part in its subgroup's votes, idle. (Its
  // own block: the loop has one entry, its head.)
  cf::CondBranchOp::create(builder, loc, inRange, setup, outside);
  for (Block *idle : {outside, stopBlock}) {
    builder.setInsertionPointToEnd(idle);
    store(i32(idleState), nextVar, zero);
    cf::BranchOp::create(builder, loc, head);
  }
  builder.setInsertionPointToEnd(setup);
  emitSetup();
  store(i32(claimState), nextVar, zero);
  cf::BranchOp::create(builder, loc, head);

  // Head: a thread that needs a lane claims one; then the vote.
  builder.setInsertionPointToEnd(head);
  Block *claim = newBlock();
  Block *vote = newBlock();
  cf::CondBranchOp::create(
      builder, loc,
      cmp(arith::CmpIPredicate::eq, load(nextVar, zero), i32(claimState)),
      claim, vote);
  builder.setInsertionPointToEnd(claim);
  Block *noLane = newBlock();
  emitClaim(noLane);
  store(i32(0), nextVar, zero);
  cf::BranchOp::create(builder, loc, vote);
  builder.setInsertionPointToEnd(noLane);
  store(i32(idleState), nextVar, zero);
  cf::BranchOp::create(builder, loc, vote);

  // Vote: the furthest state (the highest global stage) a thread of the
  // subgroup waits at; only its threads run. When all are stopped, each
  // writes its statistics and returns.
  builder.setInsertionPointToEnd(vote);
  Value stage = load(nextVar, zero);
  Value key = arith::SelectOp::create(
      builder, loc, cmp(arith::CmpIPredicate::eq, stage, i32(idleState)),
      i32(0), addI32(stage, 1));
  Value chosen = gpu::SubgroupReduceOp::create(
      builder, loc, key, gpu::AllReduceOperation::MAXUI, /*uniform=*/true);
  Block *exit = newBlock();
  Block *choose = newBlock();
  cf::CondBranchOp::create(builder, loc,
                           cmp(arith::CmpIPredicate::eq, chosen, i32(0)),
                           exit, choose);
  builder.setInsertionPointToEnd(choose);
  Block *runStage = newBlock();
  cf::CondBranchOp::create(builder, loc,
                           cmp(arith::CmpIPredicate::eq, key, chosen),
                           runStage, head);
  builder.setInsertionPointToEnd(runStage);
  Block *dispatch = newBlock();
  Block *ownerDispatch = newBlock();
  cf::CondBranchOp::create(
      builder, loc, cmp(arith::CmpIPredicate::ult, stage, i32(mainCount)),
      dispatch, ownerDispatch);

  builder.setInsertionPointToEnd(exit);
  Block *flush = newBlock();
  Block *done = newBlock();
  cf::CondBranchOp::create(builder, loc, inRange, flush, done);
  builder.setInsertionPointToEnd(done);
  gpu::ReturnOp::create(builder, loc);
  builder.setInsertionPointToEnd(flush);
  emitFlush();
  cf::BranchOp::create(builder, loc, done);

  builder.setInsertionPointToEnd(dispatch);
  Block *post = newBlock();
  if (failed(emitMainDispatch(stage, post)))
    return failure();

  // Post: count the invocation; stop after any fault; then the items it
  // published, in owner and publish order, each through its owner's stages
  // until it is released (seek), then the lane's next stage (laneNext).
  builder.setInsertionPointToEnd(post);
  count(statIndex(stage, 0), i32(1));
  Block *posted = newBlock();
  cf::CondBranchOp::create(builder, loc, faulted(), stopBlock, posted);
  builder.setInsertionPointToEnd(posted);
  store(stage, mainStageVar, zero);
  store(load(outcomeVar, zero), mainOutcomeVar, zero);
  for (size_t o = 0; o < owners.size(); ++o)
    count(statIndex(stage, 1), load(publishedCounts, index(o)));
  Block *laneNext = newBlock();
  if (owners.empty()) {
    cf::BranchOp::create(builder, loc, laneNext);
    // Only main stages exist: a vote never names another.
    builder.setInsertionPointToEnd(ownerDispatch);
    cf::BranchOp::create(builder, loc, stopBlock);
  } else {
    Block *seek = newBlock({i32Type, i32Type});
    cf::BranchOp::create(builder, loc, seek, ValueRange{i32(0), i32(0)});

    // Seek(o, k): item k of owner o if it published that many, else the
    // next owner's first.
    builder.setInsertionPointToEnd(seek);
    Value seekOwner = seek->getArgument(0), seekItem = seek->getArgument(1);
    Block *seekIn = newBlock();
    cf::CondBranchOp::create(builder, loc,
                             cmp(arith::CmpIPredicate::ult, seekOwner,
                                 i32(owners.size())),
                             seekIn, laneNext);
    builder.setInsertionPointToEnd(seekIn);
    Block *found = newBlock();
    cf::CondBranchOp::create(
        builder, loc,
        cmp(arith::CmpIPredicate::ult, seekItem,
            load(publishedCounts, toIndex(seekOwner))),
        found, ValueRange{}, seek, ValueRange{addI32(seekOwner, 1), i32(0)});
    builder.setInsertionPointToEnd(found);
    Value base = ownerTable(seekOwner, [](const OwnerShape &owner) {
      return owner.publishBase;
    });
    store(load(publishedSlots,
               toIndex(arith::AddIOp::create(builder, loc, base, seekItem))),
          itemSlotVar, zero);
    store(seekOwner, itemOwnerVar, zero);
    store(seekItem, itemIndexVar, zero);
    store(ownerTable(seekOwner,
                     [](const OwnerShape &owner) { return owner.firstStage; }),
          nextVar, zero);
    cf::BranchOp::create(builder, loc, head);

    // Owner dispatch: one invocation of the item's stage on its slot.
    Block *handled = newBlock();
    SmallVector<Block *> handlerCases;
    for (OwnerShape &owner : owners)
      for (gpu::GPUFuncOp kernel : owner.stages) {
        FailureOr<Block *> copy = inlineKernel(kernel, handled);
        if (failed(copy))
          return failure();
        handlerCases.push_back(*copy);
      }
    builder.setInsertionPointToEnd(ownerDispatch);
    store(load(itemSlotVar, zero), invocationVar, zero);
    store(i32(kUndecided), outcomeVar, zero);
    selectCase(addI32(stage, -mainCount), handlerCases);

    // Handled: released -> the next item; moved -> its stage.
    builder.setInsertionPointToEnd(handled);
    Value itemOutcome = load(outcomeVar, zero);
    count(statIndex(stage, 0), i32(1));
    Block *decide = newBlock();
    cf::CondBranchOp::create(builder, loc, faulted(), stopBlock, decide);
    builder.setInsertionPointToEnd(decide);
    Block *released = newBlock();
    Block *itemOn = newBlock();
    Value owner = load(itemOwnerVar, zero);
    branchOnOutcome(itemOutcome,
                    ownerTable(owner,
                               [](const OwnerShape &owner) {
                                 return int64_t(owner.stages.size());
                               }),
                    released, itemOn, ValueRange{}, stage, owner);
    builder.setInsertionPointToEnd(released);
    count(statIndex(stage, 2), i32(1));
    cf::BranchOp::create(builder, loc, seek,
                         ValueRange{load(itemOwnerVar, zero),
                                    addI32(load(itemIndexVar, zero), 1)});
    builder.setInsertionPointToEnd(itemOn);
    store(arith::AddIOp::create(builder, loc,
                                ownerTable(owner,
                                           [](const OwnerShape &owner) {
                                             return owner.firstStage;
                                           }),
                                itemOutcome),
          nextVar, zero);
    cf::BranchOp::create(builder, loc, head);
  }

  // The lane goes on at its next stage, or is finished and claims another.
  builder.setInsertionPointToEnd(laneNext);
  Value outcome = load(mainOutcomeVar, zero);
  Block *finished = newBlock();
  Block *movedOn = newBlock();
  branchOnOutcome(outcome, i32(mainCount), finished, movedOn, ValueRange{},
                  load(mainStageVar, zero), i32(kNoOwner));
  builder.setInsertionPointToEnd(finished);
  count(index(statWords - 1), i32(1));
  store(i32(claimState), nextVar, zero);
  cf::BranchOp::create(builder, loc, head);
  builder.setInsertionPointToEnd(movedOn);
  store(outcome, nextVar, zero);
  cf::BranchOp::create(builder, loc, head);
  return success();
}

LogicalResult MegakernelBuilder::run() {
  if (failed(readDescriptor()))
    return failure();
  std::string name =
      (descriptor.getAs<StringAttr>("name").getValue() + "__megakernel").str();
  // A module whose megakernel this pass built is rebuilt (a GPU backend's
  // copy of the kernels gets the voting form: compileWaveProgram).
  SmallVector<NamedAttribute> entries;
  for (NamedAttribute entry : descriptor.getValue())
    if (entry.getName() != "megakernel")
      entries.push_back(entry);
  if (Operation *existing = kernels.lookupSymbol(name)) {
    auto recorded = descriptor.getAs<DictionaryAttr>("megakernel");
    auto symbol =
        recorded ? recorded.getAs<SymbolRefAttr>("kernel") : SymbolRefAttr();
    if (!symbol || symbol.getLeafReference() != name)
      return module.emitError("sluice-build-megakernel: @sluice_kernels "
                              "already has a kernel @")
             << name << " that is not the descriptor's megakernel";
    existing->erase();
  }
  loc = mainStages.front().getLoc();
  SmallVector<Type> inputs(stageType.getInputs());
  unsigned machineArgument = inputs.size();
  Type i32Type = builder.getI32Type();
  inputs.push_back(MemRefType::get({ShapedType::kDynamic}, i32Type));
  builder.setInsertionPointToEnd(kernels.getBody());
  mega = gpu::GPUFuncOp::create(builder, loc, name,
                                FunctionType::get(module.getContext(), inputs,
                                                  {}));
  mega->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  machine = mega.getArgument(machineArgument);
  // Per global stage: invocations, published, released; then lanes
  // finished.
  statWords = globalStages * kStageWords + 1;

  // Entry: the thread's id and private memory.
  Block *entry = &mega.getBody().front();
  builder.setInsertionPointToEnd(entry);
  zero = index(0);
  invocationVar = privateArray(1, i32Type);
  laneVar = privateArray(1, i32Type);
  outcomeVar = privateArray(1, i32Type);
  claimedVar = privateArray(1, i32Type);
  counters = privateArray(counterCount, i32Type);
  publishedSlots = privateArray(publishStride, i32Type);
  publishedCounts = privateArray(owners.size(), i32Type);
  allocLimits = privateArray(owners.size(), i32Type);
  stats = privateArray(statWords, i32Type);
  for (Uniform &uniform : uniforms)
    uniformVars.push_back(privateArray(1, uniform.type));
  for (OwnerShape &owner : owners)
    rings.push_back(privateArray(owner.share, i32Type));
  if (privateState) {
    for (auto [o, owner] : llvm::enumerate(owners)) {
      SmallVector<Value> &vars = payloadVars.emplace_back();
      for (size_t f = 0; f < owner.payload.size(); ++f) {
        Value argument = mega.getArgument(owner.ringArgument + 1 + f);
        vars.push_back(privateArray(
            owner.share,
            cast<MemRefType>(argument.getType()).getElementType()));
        payloadArguments[argument] = {unsigned(o), unsigned(f)};
      }
    }
  }
  Value block = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
  privateEnd = block.getDefiningOp();
  Value size = gpu::BlockDimOp::create(builder, loc, gpu::Dimension::x);
  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  thread = arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, block, size), tid);
  threadI32 = arith::IndexCastUIOp::create(builder, loc, i32Type, thread);
  Value inRange =
      cmp(arith::CmpIPredicate::ult, thread, mega.getArgument(kCount));
  if (failed(warpVote ? buildVoting(inRange) : buildNested(inRange)))
    return failure();

  // Record it in the descriptor.
  entries.push_back(builder.getNamedAttr(
      "megakernel",
      builder.getDictionaryAttr(
          {builder.getNamedAttr(
               "kernel",
               SymbolRefAttr::get(kernels.getSymNameAttr(),
                                  {FlatSymbolRefAttr::get(mega.getNameAttr())})),
           builder.getNamedAttr("uniform_words",
                                builder.getI64IntegerAttr(uniformWords))})));
  module->setAttr(kProgramDescriptorAttrName,
                  builder.getDictionaryAttr(entries));
  return success();
}

struct BuildMegakernelPass
    : public sluice::impl::BuildMegakernelBase<BuildMegakernelPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(
            MegakernelBuilder(getOperation(), warpVote, privateState).run()))
      signalPassFailure();
  }
};

} // namespace

