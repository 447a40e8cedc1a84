//===- AggregateCounters.cpp - one atomic per block for counter adds ------===//
//
// On a GPU an integer atomic add that many lanes make to one address is
// combined by the hardware or the compiler (a warp's adds become one). On the
// CPU every lane's `lock add` is its own, and when the workers run blocks of
// one dispatch on several cores, the adds of all of them meet on one cache
// line: each costs a transfer of the line between cores. The stage kernels
// count every invocation's outcome that way (the counters argument of
// include/sluice/ABI/KernelABI.h: arrivals and releases), so on two workers
// the path tracer's `shade` kernel took almost four times the CPU time of
// one worker (docs/cpu-backend.md, "Counter adds, one per block").
//
// A block's lanes run one after another on one worker, so the adds of a block
// can be summed in a private accumulator and added once when the block ends.
// That is invisible when nothing reads the counter during the dispatch. A
// kernel argument says so with the unit attribute `sluice.counters`
// (kCountersAttrName): its buffer aliases no other argument and is read only
// after the dispatch; convert-wave-to-gpu puts it on the stage kernels'
// counters. Within the kernel the rewrite checks the rest: every use of the
// buffer is an `atomic_rmw addi` at constant indices, and at a summed index
// none of them uses the old value it returns (a claim that does, like an
// admission window's head, stays an atomic, and so do all adds at its
// index). Other blocks and the host see a block's sum when the block ends.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace sluice::gpu_to_cpu {

namespace {

/// The adds of one buffer at one constant index.
struct CounterSlot {
  Value buffer;
  SmallVector<int64_t> index;
  SmallVector<memref::AtomicRMWOp> adds;
  bool resultsUsed = false;
};

/// The constant indices of `add`, or nullopt when one is not a constant.
std::optional<SmallVector<int64_t>> constantIndices(memref::AtomicRMWOp add) {
  SmallVector<int64_t> out;
  for (Value index : add.getIndices()) {
    std::optional<int64_t> value = getConstantIntValue(index);
    if (!value)
      return std::nullopt;
    out.push_back(*value);
  }
  return out;
}

/// Appends the slots of `buffer` whose adds' results are unused; nothing when
/// the buffer has a use other than an integer add at constant indices.
void collectSlots(Value buffer, SmallVectorImpl<CounterSlot> &slots) {
  SmallVector<CounterSlot> found;
  for (Operation *user : buffer.getUsers()) {
    auto add = dyn_cast<memref::AtomicRMWOp>(user);
    if (!add || add.getMemref() != buffer ||
        add.getKind() != arith::AtomicRMWKind::addi)
      return;
    std::optional<SmallVector<int64_t>> index = constantIndices(add);
    if (!index)
      return;
    auto slot = llvm::find_if(
        found, [&](const CounterSlot &s) { return s.index == *index; });
    if (slot == found.end()) {
      found.push_back({buffer, *index, {}, false});
      slot = std::prev(found.end());
    }
    slot->adds.push_back(add);
    slot->resultsUsed |= !add.getResult().use_empty();
  }
  for (CounterSlot &slot : found)
    if (!slot.resultsUsed)
      slots.push_back(std::move(slot));
}

} // namespace

unsigned aggregateCounterAdds(func::FuncOp blockFunction,
                              ArrayRef<Value> counterBuffers) {
  Block &entry = blockFunction.getBody().front();
  SmallVector<CounterSlot> slots;
  for (Value buffer : counterBuffers)
    collectSlots(buffer, slots);
  if (slots.empty())
    return 0;

  SmallVector<func::ReturnOp> returns;
  blockFunction.walk([&](func::ReturnOp op) { returns.push_back(op); });
  OpBuilder builder(blockFunction.getContext());
  unsigned rewritten = 0;
  for (CounterSlot &slot : slots) {
    Location loc = slot.adds.front().getLoc();
    Type element = cast<MemRefType>(slot.buffer.getType()).getElementType();
    // The accumulator: a private scalar at the top of the entry block (LLVM
    // keeps it in a register across the lane loops).
    builder.setInsertionPointToStart(&entry);
    Value sum = memref::AllocaOp::create(builder, loc, MemRefType::get({}, element));
    Value zero = arith::ConstantOp::create(builder, loc, builder.getZeroAttr(element));
    memref::StoreOp::create(builder, loc, zero, sum);
    for (memref::AtomicRMWOp add : slot.adds) {
      builder.setInsertionPoint(add);
      Value before = memref::LoadOp::create(builder, add.getLoc(), sum);
      Value after = arith::AddIOp::create(builder, add.getLoc(), before, add.getValue());
      memref::StoreOp::create(builder, add.getLoc(), after, sum);
      add.erase();
      ++rewritten;
    }
    // The block's sum, added once (not at all when it is zero) before the
    // block function returns.
    for (func::ReturnOp ret : returns) {
      builder.setInsertionPoint(ret);
      Value total = memref::LoadOp::create(builder, loc, sum);
      Value any = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne, total, zero);
      auto ifAny = scf::IfOp::create(builder, loc, any, /*withElseRegion=*/false);
      builder.setInsertionPoint(ifAny.thenBlock()->getTerminator());
      SmallVector<Value> indices;
      for (int64_t i : slot.index)
        indices.push_back(arith::ConstantIndexOp::create(builder, loc, i));
      memref::AtomicRMWOp::create(builder, loc, arith::AtomicRMWKind::addi, total,
                                  slot.buffer, indices);
    }
  }
  return rewritten;
}

} // namespace sluice::gpu_to_cpu
