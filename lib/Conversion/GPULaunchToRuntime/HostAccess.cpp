//===- HostAccess.cpp - Host-access calls around resident launches --------===//
//
// Per function F that launches kernels (docs/spirv-backend.md, "Residency"):
//
// 1. Roots. A memref's root is what it is a view of, through
//    ViewLikeOpInterface ops (subview, cast, reinterpret_cast, expand and
//    collapse shape, ...): the allocation it aliases. The launched roots are
//    those of F's launch operands.
// 2. Private and shared roots. A root that memref.alloc / memref.alloca make
//    in F and whose address goes nowhere but into F's loads, stores, other
//    memory operations, views, launches and dealloc is private: nothing else
//    can reach it. Every other root (an argument, a call result, a global, an
//    allocation passed to a call, yielded or cast to an integer) is shared:
//    it may alias any other shared root, and a callee may reach it.
// 3. Accesses. An operation of F with a memref operand whose root was
//    launched, or is shared while a launched root is, is an access: a read
//    when its memory effects on the operand are reads (memref.load), a free
//    for memref.dealloc, else read + write (stores, copies, calls, unknown
//    operations). While a launched root is shared, a call or an operation
//    with unknown memory effects also accesses everything (the range (NULL,
//    UINT64_MAX)). At each exit of F, launched shared roots are read and
//    written (the caller may use them unannounced), and launched allocas of
//    F's allocation scope are freed (their stack goes).
// 4. Placement. An access's call goes before the operation, hoisted out of
//    the loops around it that neither launch on its root nor, for a shared
//    root, call anything, while its root is defined outside them: a loop that
//    fills or checks an array syncs once, not per element. Frees stay, and
//    nothing leaves a region that may run later (async.execute).
// 5. Redundancy. A call is dropped when an earlier one of its block (or of a
//    block around it, through single-block regions that are not loops)
//    covered its root and access, with no launch and, for a shared root, no
//    call in between.
//
// The call names the root's bytes: its aligned pointer plus the lowest
// element offset its layout reaches, up to the highest.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPULaunchToRuntime/HostAccess.h"
#include "sluice/Conversion/GPULaunchToRuntime/LaunchLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace sluice {
namespace {

constexpr uint64_t kRead = SLUICE_HOST_READ;
constexpr uint64_t kReadWrite = SLUICE_HOST_READ | SLUICE_HOST_WRITE;
constexpr uint64_t kFree = SLUICE_HOST_FREE;

/// The value `value` is a view of, through any chain of views.
Value rootOf(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewDest() != value)
      break;
    value = view.getViewSource();
  }
  return value;
}

bool isViewSource(OpOperand &use) {
  auto view = dyn_cast<ViewLikeOpInterface>(use.getOwner());
  return view && view.getViewSource() == use.get();
}

/// What `op` does to the memory of its memref operand `operand`: 0 (it only
/// passes the memref on: a view, memref.dim, a terminator, a region op whose
/// nested operations are accesses of their own), kRead, kFree, or kReadWrite.
uint64_t accessOf(Operation *op, Value operand) {
  if (isa<memref::DeallocOp>(op))
    return kFree;
  if (auto view = dyn_cast<ViewLikeOpInterface>(op);
      view && view.getViewSource() == operand)
    return 0;
  if (isa<CallOpInterface>(op))
    return kReadWrite;
  if (op->hasTrait<OpTrait::IsTerminator>() || op->getNumRegions() != 0)
    return 0;
  auto interface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!interface)
    return kReadWrite;
  SmallVector<MemoryEffects::EffectInstance> effects;
  interface.getEffects(effects);
  uint64_t access = 0;
  for (const MemoryEffects::EffectInstance &effect : effects) {
    if (effect.getValue() && effect.getValue() != operand)
      continue;
    if (isa<MemoryEffects::Read>(effect.getEffect()))
      access |= kRead;
    else if (!isa<MemoryEffects::Allocate>(effect.getEffect()))
      access |= kReadWrite; // a write, or a free of another kind (realloc)
  }
  return access;
}

/// Whether `op` may read or write memory it does not name as a memref
/// operand: a call, an operation on a pointer, one with unknown effects.
bool touchesUnnamedMemory(Operation *op) {
  if (isa<gpu::LaunchFuncOp>(op))
    return false;
  if (isa<CallOpInterface>(op))
    return true;
  if (op->hasTrait<OpTrait::IsTerminator>() ||
      op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  auto interface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!interface)
    return op->getNumRegions() == 0;
  SmallVector<MemoryEffects::EffectInstance> effects;
  interface.getEffects(effects);
  for (const MemoryEffects::EffectInstance &effect : effects) {
    if (isa<MemoryEffects::Allocate>(effect.getEffect()))
      continue;
    Value value = effect.getValue();
    if (value ? !isa<BaseMemRefType>(value.getType())
              : effect.getResource() == SideEffects::DefaultResource::get())
      return true;
  }
  return false;
}

/// The access each root (Value(): everything) was last synced for.
using Synced = llvm::SmallDenseMap<Value, uint64_t>;

/// Whether the regions of `op` run in place, before the operation after it:
/// loops, and the single-execution regions of scf.if, scf.index_switch and
/// scf.execute_region. A call may be hoisted out of them (if nothing in them
/// interferes) and a non-loop one sees the state of the block around it; an
/// op whose regions may run later or elsewhere (async.execute) is opaque.
bool runsInPlace(Operation *op) {
  return isa<LoopLikeOpInterface, scf::IfOp, scf::IndexSwitchOp,
             scf::ExecuteRegionOp>(op);
}

/// One sluice_rt_host_access call: before `at`, of `root`'s bytes (null:
/// everything).
struct HostCall {
  Operation *at;
  Value root;
  uint64_t access;
  bool dropped = false;
};

class FunctionHostAccess {
public:
  explicit FunctionHostAccess(FunctionOpInterface function)
      : function(function), dominance(function) {}

  /// Finds the calls F needs; false when F launches nothing.
  bool analyze();
  /// Inserts the calls that remain; returns how many.
  unsigned emit(func::FuncOp hostAccess);

private:
  bool isPrivate(Value root);
  bool isShared(Value root) { return !isPrivate(root); }
  bool needsCalls(Value root) {
    return launched.contains(root) || (sharedLaunched && isShared(root));
  }
  bool interferes(Operation *region, Value root);
  Operation *placement(Operation *at, Value root);
  void add(Operation *at, Value root, uint64_t access);
  void addExitCalls();
  void prune(Block &block, Synced synced);

  FunctionOpInterface function;
  DominanceInfo dominance;
  llvm::SetVector<Value> launched;
  bool sharedLaunched = false;
  llvm::DenseMap<Value, bool> privateRoots;
  std::vector<HostCall> calls;
  // (at, root, free) -> position in `calls`: one call per root and place.
  llvm::DenseMap<std::tuple<Operation *, Value, unsigned>, size_t> callIndex;
};

bool FunctionHostAccess::isPrivate(Value root) {
  auto cached = privateRoots.find(root);
  if (cached != privateRoots.end())
    return cached->second;
  bool result = [&] {
    Operation *allocation = root.getDefiningOp();
    if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(allocation))
      return false;
    SmallVector<Value> worklist{root};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (isViewSource(use)) {
          worklist.push_back(cast<ViewLikeOpInterface>(user).getViewDest());
          continue;
        }
        if (isa<gpu::LaunchFuncOp, memref::DeallocOp>(user))
          continue;
        if (isa<CallOpInterface, memref::ExtractAlignedPointerAsIndexOp>(
                user) ||
            user->hasTrait<OpTrait::IsTerminator>() ||
            user->getNumRegions() != 0 || !isa<MemoryEffectOpInterface>(user))
          return false;
        if (auto store = dyn_cast<memref::StoreOp>(user);
            store && store.getValueToStore() == value)
          return false;
        // Loads, stores, copies, atomics and memref.dim give back values,
        // not the address.
        if (llvm::any_of(user->getResultTypes(), [](Type type) {
              return !type.isIntOrIndexOrFloat() && !isa<VectorType>(type);
            }))
          return false;
      }
    }
    return true;
  }();
  privateRoots[root] = result;
  return result;
}

/// Whether the operations in `region` (a loop a call for `root` would be
/// hoisted out of) may change what the call finds: a launch on the root, or
/// for a shared root (or everything) any launch or call.
bool FunctionHostAccess::interferes(Operation *region, Value root) {
  bool shared = !root || isShared(root);
  return region
      ->walk([&](Operation *op) {
        if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
          if (shared)
            return WalkResult::interrupt();
          for (Value operand : launch.getKernelOperands())
            if (isa<BaseMemRefType>(operand.getType()) &&
                rootOf(operand) == root)
              return WalkResult::interrupt();
        }
        if (shared && isa<CallOpInterface>(op))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Before `at`, or before the outermost loop around it that the call may be
/// hoisted out of (see the file comment).
Operation *FunctionHostAccess::placement(Operation *at, Value root) {
  Operation *best = at, *current = at;
  while (Operation *parent = current->getParentOp()) {
    if (parent == function.getOperation() || !runsInPlace(parent) ||
        interferes(parent, root) ||
        (root && !dominance.properlyDominates(root, parent)))
      break;
    current = parent;
    if (isa<LoopLikeOpInterface>(parent))
      best = parent;
  }
  return best;
}

void FunctionHostAccess::add(Operation *at, Value root, uint64_t access) {
  if (access != kFree)
    at = placement(at, root);
  auto key = std::make_tuple(at, root, unsigned(access == kFree));
  auto [it, inserted] = callIndex.try_emplace(key, calls.size());
  if (inserted)
    calls.push_back(HostCall{at, root, access});
  else
    calls[it->second].access |= access;
}

/// At the exits of F: launched shared roots are read and written, launched
/// allocas of F's allocation scope freed; a root that does not dominate the
/// exit is covered by a call for everything.
void FunctionHostAccess::addExitCalls() {
  SmallVector<Operation *> exits;
  for (Block &block : function.getFunctionBody())
    if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>() &&
        block.back().getNumSuccessors() == 0)
      exits.push_back(&block.back());
  for (Operation *exit : exits) {
    // Frees first: a dying alloca's bytes need no download.
    for (Value root : launched) {
      auto alloca = root.getDefiningOp<memref::AllocaOp>();
      if (!alloca ||
          alloca->getParentWithTrait<OpTrait::AutomaticAllocationScope>() !=
              function.getOperation())
        continue;
      if (dominance.properlyDominates(root, exit))
        add(exit, root, kFree);
      else
        add(exit, Value(), kReadWrite);
    }
    for (Value root : launched) {
      if (isPrivate(root))
        continue;
      add(exit, dominance.properlyDominates(root, exit) ? root : Value(),
          kReadWrite);
    }
  }
  // An alloca of a nested allocation scope (memref.alloca_scope) dies at the
  // scope's end.
  for (Value root : launched) {
    auto alloca = root.getDefiningOp<memref::AllocaOp>();
    if (!alloca)
      continue;
    Operation *scope =
        alloca->getParentWithTrait<OpTrait::AutomaticAllocationScope>();
    if (scope == function.getOperation())
      continue;
    for (Region &region : scope->getRegions())
      for (Block &block : region)
        if (!block.empty() && block.back().getNumSuccessors() == 0 &&
            block.back().hasTrait<OpTrait::IsTerminator>()) {
          Operation *end = &block.back();
          if (dominance.properlyDominates(root, end))
            add(end, root, kFree);
          else
            add(end, Value(), kReadWrite);
        }
  }
}

bool FunctionHostAccess::analyze() {
  function.getFunctionBody().walk([&](gpu::LaunchFuncOp launch) {
    for (Value operand : launch.getKernelOperands())
      if (isa<BaseMemRefType>(operand.getType()))
        launched.insert(rootOf(operand));
  });
  if (launched.empty())
    return false;
  sharedLaunched = llvm::any_of(launched, [&](Value root) {
    return isShared(root);
  });

  function.getFunctionBody().walk([&](Operation *op) {
    if (isa<gpu::LaunchFuncOp>(op))
      return;
    // Everything first: it covers the operands' own calls.
    if (sharedLaunched && touchesUnnamedMemory(op))
      add(op, Value(), kReadWrite);
    for (Value operand : op->getOperands()) {
      if (!isa<BaseMemRefType>(operand.getType()))
        continue;
      Value root = rootOf(operand);
      if (!needsCalls(root))
        continue;
      if (uint64_t access = accessOf(op, operand))
        add(op, root, access);
    }
  });
  addExitCalls();
  return true;
}

/// Drops the calls of `block` (and of the blocks nested in it) that an
/// earlier one covers. `synced`: the access each root (Value(): everything)
/// was last synced for, with nothing in between that undoes it.
void FunctionHostAccess::prune(Block &block,
                               Synced synced) {
  llvm::DenseMap<Operation *, SmallVector<size_t>> at;
  for (size_t i = 0; i < calls.size(); ++i)
    if (calls[i].at->getBlock() == &block)
      at[calls[i].at].push_back(i);
  for (Operation &op : block) {
    for (size_t i : at.lookup(&op)) {
      HostCall &call = calls[i];
      if (call.access == kFree) {
        synced.erase(call.root);
        continue;
      }
      uint64_t covered = synced.lookup(call.root) | synced.lookup(Value());
      if ((covered & call.access) == call.access) {
        call.dropped = true;
        continue;
      }
      synced[call.root] |= call.access;
    }
    for (Region &region : op.getRegions()) {
      bool carries = region.hasOneBlock() && runsInPlace(&op) &&
                     !isa<LoopLikeOpInterface>(op);
      for (Block &inner : region)
        prune(inner, carries ? synced : Synced());
    }
    bool launches = false, callsOut = false;
    op.walk([&](Operation *inner) {
      launches |= isa<gpu::LaunchFuncOp>(inner);
      callsOut |= isa<CallOpInterface>(inner);
    });
    if (launches) {
      synced.clear();
    } else if (callsOut) {
      SmallVector<Value> undone;
      for (auto &[root, access] : synced)
        if (!root || isShared(root))
          undone.push_back(root);
      for (Value root : undone)
        synced.erase(root);
    }
  }
}

Value constantI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

Value toI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// The bytes of `root` as (pointer, bytes), or everything (null, UINT64_MAX)
/// when the root is null or its extent cannot be computed (unranked, a
/// layout without strides, an element of unknown size).
std::pair<Value, Value> rangeOf(OpBuilder &b, Location loc, Value root) {
  Type ptrType = LLVM::LLVMPointerType::get(b.getContext());
  auto everything = [&]() -> std::pair<Value, Value> {
    return {LLVM::ZeroOp::create(b, loc, ptrType), constantI64(b, loc, -1)};
  };
  auto type = root ? dyn_cast<MemRefType>(root.getType()) : MemRefType();
  if (!type)
    return everything();
  unsigned elementBytes = hostElementBytes(type.getElementType(), 8);
  SmallVector<int64_t> staticStrides;
  int64_t staticOffset = 0;
  if (!elementBytes ||
      failed(type.getStridesAndOffset(staticStrides, staticOffset)))
    return everything();
  Value aligned = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, root));
  if (type.getLayout().isIdentity()) {
    int64_t staticCount = 1;
    Value count;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        staticCount *= type.getDimSize(d);
        continue;
      }
      Value size = toI64(b, loc, memref::DimOp::create(b, loc, root, d));
      count = count ? Value(arith::MulIOp::create(b, loc, count, size)) : size;
    }
    Value bytes = constantI64(b, loc, staticCount * int64_t(elementBytes));
    if (count)
      bytes = arith::MulIOp::create(b, loc, count, bytes);
    return {LLVM::IntToPtrOp::create(b, loc, ptrType, aligned), bytes};
  }
  // A strided layout: elements offset + sum_d i_d * stride_d for
  // 0 <= i_d < size_d, from the lowest to the highest; none if a size is 0.
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, root);
  Value eb = constantI64(b, loc, elementBytes);
  Value zero = constantI64(b, loc, 0), one = constantI64(b, loc, 1);
  Value low = ShapedType::isDynamic(staticOffset)
                  ? toI64(b, loc, metadata.getOffset())
                  : constantI64(b, loc, staticOffset);
  Value high = low;
  Value empty = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value size = type.isDynamicDim(d)
                     ? toI64(b, loc, metadata.getSizes()[d])
                     : constantI64(b, loc, type.getDimSize(d));
    Value stride = ShapedType::isDynamic(staticStrides[d])
                       ? toI64(b, loc, metadata.getStrides()[d])
                       : constantI64(b, loc, staticStrides[d]);
    Value last = arith::SubIOp::create(b, loc, size, one);
    Value span = arith::MulIOp::create(b, loc, last, stride);
    low = arith::AddIOp::create(b, loc, low,
                                arith::MinSIOp::create(b, loc, span, zero));
    high = arith::AddIOp::create(b, loc, high,
                                 arith::MaxSIOp::create(b, loc, span, zero));
    empty = arith::OrIOp::create(
        b, loc, empty,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, zero));
  }
  Value count = arith::AddIOp::create(
      b, loc, arith::SubIOp::create(b, loc, high, low), one);
  count = arith::SelectOp::create(b, loc, empty, zero, count);
  Value bytes = arith::MulIOp::create(b, loc, count, eb);
  Value start = arith::AddIOp::create(b, loc, aligned,
                                      arith::MulIOp::create(b, loc, low, eb));
  return {LLVM::IntToPtrOp::create(b, loc, ptrType, start), bytes};
}

unsigned FunctionHostAccess::emit(func::FuncOp hostAccess) {
  for (Block &block : function.getFunctionBody())
    prune(block, Synced());
  unsigned emitted = 0;
  for (const HostCall &call : calls) {
    if (call.dropped)
      continue;
    OpBuilder b(call.at);
    Location loc = call.at->getLoc();
    auto [pointer, bytes] = rangeOf(b, loc, call.root);
    func::CallOp::create(
        b, loc, hostAccess,
        ValueRange{pointer, bytes, constantI64(b, loc, int64_t(call.access))});
    ++emitted;
  }
  return emitted;
}

} // namespace

unsigned insertHostAccessCalls(ModuleOp module, RuntimeCalls &runtime) {
  SmallVector<FunctionOpInterface> functions;
  module.walk([&](FunctionOpInterface function) {
    if (!function.isExternal() &&
        function->walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      functions.push_back(function);
  });
  if (functions.empty())
    return 0;
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  Type i64 = b.getI64Type();
  func::FuncOp hostAccess = runtime.declareFunction(
      SLUICE_RT_SYM_HOST_ACCESS,
      b.getFunctionType({LLVM::LLVMPointerType::get(ctx), i64, i64}, {}));
  unsigned emitted = 0;
  for (FunctionOpInterface function : functions) {
    FunctionHostAccess access(function);
    if (access.analyze())
      emitted += access.emit(hostAccess);
  }
  return emitted;
}

} // namespace sluice
