//===- Prepare.cpp - The gpu hand-off made ready for EmitC ----------------===//
//
// What sluice-gpu-to-hip-emitc does at the gpu/memref level before the
// dialect conversion, on the copy of each gpu.module: attributions become
// memref.alloca (workgroup ones in workgroup memory: `__shared__` arrays),
// multi-block regions are lifted to scf, N-D accesses are linearized onto a
// 1-D view of their memref, memref arguments get one index argument per
// dynamic dimension (the HIP parameter ABI) and every memref.dim is resolved
// to a value, and a wave stage kernel's body is split into a function of
// the kernel's parameters and the invocation index.
//
//===----------------------------------------------------------------------===//

#include "Prepare.h"

#include "sluice/Conversion/GPUCollectives/LiftControlFlow.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace sluice {
namespace {

bool isWorkgroup(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Attributions as allocas at the start of the body: workgroup ones keep
/// their memory space (the lowering makes them `__shared__`).
void attributionsToAllocas(gpu::GPUFuncOp func) {
  OpBuilder b(&func.getBody().front(), func.getBody().front().begin());
  auto replace = [&](ArrayRef<BlockArgument> attributions) {
    for (BlockArgument attribution : attributions) {
      auto type = cast<MemRefType>(attribution.getType());
      Value alloca = memref::AllocaOp::create(b, attribution.getLoc(), type);
      attribution.replaceAllUsesWith(alloca);
    }
  };
  replace(func.getWorkgroupAttributions());
  replace(func.getPrivateAttributions());
}

/// A `memref.global` in workgroup memory is a `__shared__` array of each
/// function that uses it: every `memref.get_global` of it becomes one
/// workgroup alloca at the start of the function.
LogicalResult workgroupGlobalsToAllocas(gpu::GPUModuleOp module) {
  DenseMap<std::pair<Operation *, Operation *>, Value> allocas;
  SmallVector<memref::GetGlobalOp> uses;
  module.walk([&](memref::GetGlobalOp use) { uses.push_back(use); });
  for (memref::GetGlobalOp use : uses) {
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        use, use.getNameAttr());
    MemRefType type = use.getType();
    if (!global || !isWorkgroup(type) || global.getInitialValue())
      return use.emitOpError("of @")
             << use.getName()
             << " is not lowered to HIP (only uninitialized globals in "
                "workgroup memory, as __shared__ arrays)";
    auto func = use->getParentOfType<FunctionOpInterface>();
    Value &alloca = allocas[{func, global}];
    if (!alloca) {
      Block &entry = func.getFunctionBody().front();
      OpBuilder b(&entry, entry.begin());
      alloca = memref::AllocaOp::create(b, use.getLoc(), type);
    }
    use.replaceAllUsesWith(alloca);
    use.erase();
  }
  for (auto global :
       llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
    global.erase();
  return success();
}

/// `arith.mului_extended` of up to 32 bits as a 64-bit product (the i64 form
/// is `__umul64hi`, a pattern of the conversion).
struct NarrowMulUIExtended : OpRewritePattern<arith::MulUIExtendedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::MulUIExtendedOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<IntegerType>(op.getLhs().getType());
    if (!type || type.getWidth() > 32)
      return failure();
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    Value lhs = arith::ExtUIOp::create(rewriter, loc, i64, op.getLhs());
    Value rhs = arith::ExtUIOp::create(rewriter, loc, i64, op.getRhs());
    Value product = arith::MulIOp::create(rewriter, loc, lhs, rhs);
    Value shift =
        arith::ConstantIntOp::create(rewriter, loc, i64, type.getWidth());
    Value high = arith::TruncIOp::create(
        rewriter, loc, type,
        arith::ShRUIOp::create(rewriter, loc, product, shift));
    Value low = arith::TruncIOp::create(rewriter, loc, type, product);
    rewriter.replaceOp(op, {low, high});
    return success();
  }
};

/// arith.minnumf / maxnumf on f32 and f64 as fminf / fmaxf (fmin / fmax):
/// the C functions have their semantics exactly (a NaN operand yields the
/// other; either zero of +0 and -0), and compile to one instruction
/// (NVIDIA's FMNMX, AMD's v_min/v_max), where the arith expansion would
/// test both operands for NaN around a compare and two selects.
template <typename Op> struct MinMaxNumAsCall : OpRewritePattern<Op> {
  MinMaxNumAsCall(MLIRContext *ctx, StringRef name)
      : OpRewritePattern<Op>(ctx, /*benefit=*/2), name(name) {}
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!type.isF32() && !type.isF64())
      return failure();
    rewriter.replaceOpWithNewOp<emitc::CallOpaqueOp>(
        op, TypeRange{type}, name + (type.isF32() ? "f" : ""),
        ValueRange{op.getLhs(), op.getRhs()});
    return success();
  }
  std::string name;
};

/// The memref operand of an access op and its indices.
struct Access {
  Operation *op;
  OpOperand *memref;
  MutableOperandRange indices;
};

std::optional<Access> accessOf(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return Access{op, &load.getMemrefMutable(), load.getIndicesMutable()};
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return Access{op, &store.getMemrefMutable(), store.getIndicesMutable()};
  if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
    return Access{op, &rmw.getMemrefMutable(), rmw.getIndicesMutable()};
  if (auto rmw = dyn_cast<memref::GenericAtomicRMWOp>(op))
    return Access{op, &rmw.getMemrefMutable(), rmw.getIndicesMutable()};
  return std::nullopt;
}

/// Row-major linear index of an N-D access, on a 1-D reinterpretation of its
/// memref (the same pointer in C).
void linearize(Access access) {
  auto type = cast<MemRefType>(access.memref->get().getType());
  if (type.getRank() < 2)
    return;
  OpBuilder b(access.op);
  Location loc = access.op->getLoc();
  Value memref = access.memref->get();
  SmallVector<Value> indices;
  for (OpOperand &operand : access.indices)
    indices.push_back(operand.get());
  Value linear = indices[0];
  int64_t elements = type.getDimSize(0);
  for (int64_t d = 1; d < type.getRank(); ++d) {
    Value size =
        type.isDynamicDim(d)
            ? Value(memref::DimOp::create(b, loc, memref, d))
            : Value(arith::ConstantIndexOp::create(b, loc, type.getDimSize(d)));
    linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, linear, size), indices[d]);
    elements = ShapedType::isDynamic(elements) || type.isDynamicDim(d)
                   ? ShapedType::kDynamic
                   : elements * type.getDimSize(d);
  }
  auto flat =
      MemRefType::get({elements}, type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  // The C pointer has no size: a dynamic one is never read, any value does.
  OpFoldResult size = ShapedType::isDynamic(elements)
                          ? OpFoldResult(linear)
                          : OpFoldResult(b.getIndexAttr(elements));
  Value view = memref::ReinterpretCastOp::create(
      b, loc, flat, memref, b.getIndexAttr(0), ArrayRef<OpFoldResult>{size},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  access.memref->set(view);
  access.indices.assign(ValueRange{linear});
}

/// The row-major element offset of `offsets` into a contiguous `memref`.
Value linearOffset(OpBuilder &b, Location loc, Value memref,
                   ArrayRef<OpFoldResult> offsets) {
  auto type = cast<MemRefType>(memref.getType());
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value offset = getValueOrCreateConstantIndexOp(b, loc, offsets[d]);
    Value size =
        d == 0 ? Value()
        : type.isDynamicDim(d)
            ? Value(memref::DimOp::create(b, loc, memref, d))
            : Value(arith::ConstantIndexOp::create(b, loc, type.getDimSize(d)));
    if (size)
      linear = arith::MulIOp::create(b, loc, linear, size);
    linear = arith::AddIOp::create(b, loc, linear, offset);
  }
  return linear;
}

/// A contiguous memref.subview as a reinterpret_cast whose offset is the
/// element offset from the source's first element (the C pointer moves by
/// it); anything else is not a row-major pointer.
LogicalResult rewriteSubviews(Operation *root) {
  SmallVector<memref::SubViewOp> subviews;
  root->walk([&](memref::SubViewOp op) { subviews.push_back(op); });
  for (memref::SubViewOp op : subviews) {
    MemRefType result = op.getType();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!sluice::isContiguousMemRef(op.getSource().getType()) ||
        !sluice::isContiguousMemRef(result) ||
        failed(result.getStridesAndOffset(strides, offset)) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return op.emitOpError("of type ")
             << result
             << " is not a contiguous row-major view; the HIP lowering "
                "passes memrefs as row-major pointers";
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value start = linearOffset(b, loc, op.getSource(), op.getMixedOffsets());
    SmallVector<OpFoldResult> sizes;
    llvm::SmallBitVector dropped = op.getDroppedDims();
    for (auto [d, size] : llvm::enumerate(op.getMixedSizes()))
      if (!dropped.test(d))
        sizes.push_back(size);
    SmallVector<OpFoldResult> strideValues;
    for (int64_t stride : strides)
      strideValues.push_back(b.getIndexAttr(stride));
    Value view = memref::ReinterpretCastOp::create(
        b, loc, result, op.getSource(), OpFoldResult(start), sizes,
        strideValues);
    op.replaceAllUsesWith(view);
    op.erase();
  }
  return success();
}

/// Every memref value must be contiguous and row-major: the C form is a
/// plain pointer.
LogicalResult checkLayouts(Operation *root) {
  auto bad = [](Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    return memref && !sluice::isContiguousMemRef(memref);
  };
  WalkResult walk = root->walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (bad(result.getType())) {
        op->emitOpError("result of type ")
            << result.getType()
            << " is not contiguous and row-major; the HIP lowering passes "
               "memrefs as row-major pointers";
        return WalkResult::interrupt();
      }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          if (bad(argument.getType())) {
            op->emitOpError("argument #")
                << argument.getArgNumber() << " of type " << argument.getType()
                << " is not contiguous and row-major; the HIP lowering "
                   "passes memrefs as row-major pointers";
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Inserts one index argument after every memref argument per dynamic
/// dimension; returns, per original memref argument, its dimension values.
void expandDynamicDims(FunctionOpInterface func,
                       DenseMap<Value, SmallVector<Value>> &dims) {
  SmallVector<unsigned> positions;
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> attrs;
  SmallVector<Location> locs;
  ArrayRef<Type> arguments = func.getArgumentTypes();
  for (auto [i, type] : llvm::enumerate(arguments)) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref)
      continue;
    for (int64_t d = 0; d < memref.getRank(); ++d)
      if (memref.isDynamicDim(d)) {
        positions.push_back(i + 1);
        types.push_back(IndexType::get(func.getContext()));
        attrs.push_back(DictionaryAttr::get(func.getContext()));
        locs.push_back(func.getLoc());
      }
  }
  SmallVector<Value> originals(func.getArguments().begin(),
                               func.getArguments().end());
  if (!positions.empty())
    (void)func.insertArguments(positions, types, attrs, locs);
  unsigned next = 0;
  for (Value original : originals) {
    unsigned at = cast<BlockArgument>(original).getArgNumber();
    next = at + 1;
    auto memref = dyn_cast<MemRefType>(original.getType());
    if (!memref)
      continue;
    SmallVector<Value> &values = dims[original];
    values.assign(memref.getRank(), Value());
    for (int64_t d = 0; d < memref.getRank(); ++d)
      if (memref.isDynamicDim(d))
        values[d] = func.getArgument(next++);
  }
}

/// The value of dimension `d` of `memref`, or null.
Value resolveDim(Value memref, int64_t d,
                 const DenseMap<Value, SmallVector<Value>> &argumentDims,
                 OpBuilder &b, Location loc) {
  auto type = cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(d));
  auto dynamicPosition = [&](int64_t dim) {
    unsigned position = 0;
    for (int64_t i = 0; i < dim; ++i)
      position += type.isDynamicDim(i);
    return position;
  };
  if (auto it = argumentDims.find(memref); it != argumentDims.end())
    return it->second[d];
  Operation *def = memref.getDefiningOp();
  if (auto view = dyn_cast_or_null<memref::ViewOp>(def))
    return view.getSizes()[dynamicPosition(d)];
  if (auto alloca = dyn_cast_or_null<memref::AllocaOp>(def))
    return alloca.getDynamicSizes()[dynamicPosition(d)];
  if (auto cast = dyn_cast_or_null<memref::ReinterpretCastOp>(def))
    return getValueOrCreateConstantIndexOp(b, loc, cast.getMixedSizes()[d]);
  return Value();
}

/// Replaces every memref.dim with the value of the dimension.
LogicalResult resolveDims(Operation *root,
                          const DenseMap<Value, SmallVector<Value>> &dims) {
  SmallVector<memref::DimOp> ops;
  root->walk([&](memref::DimOp op) { ops.push_back(op); });
  for (memref::DimOp op : ops) {
    std::optional<int64_t> index = op.getConstantIndex();
    if (!index)
      return op.emitOpError("with a non-constant dimension is not lowered to "
                            "HIP");
    OpBuilder b(op);
    Value value = resolveDim(op.getSource(), *index, dims, b, op.getLoc());
    if (!value)
      return op.emitOpError("of a memref that is not a kernel argument, a "
                            "memref.view or a memref.alloca is not lowered "
                            "to HIP: the C pointer has no extents");
    op.replaceAllUsesWith(value);
    op.erase();
  }
  return success();
}

/// The global invocation index `block_id.x * block_dim.x + thread_id.x` of a
/// stage kernel (convert-wave-to-gpu computes it first), or null.
Value invocationIndex(Block &entry) {
  for (Operation &op : entry) {
    auto add = dyn_cast<arith::AddIOp>(op);
    if (!add)
      continue;
    auto mul = add.getLhs().getDefiningOp<arith::MulIOp>();
    auto thread = add.getRhs().getDefiningOp<gpu::ThreadIdOp>();
    if (!mul || !thread || thread.getDimension() != gpu::Dimension::x)
      continue;
    auto block = mul.getLhs().getDefiningOp<gpu::BlockIdOp>();
    auto dim = mul.getRhs().getDefiningOp<gpu::BlockDimOp>();
    if (block && dim && block.getDimension() == gpu::Dimension::x &&
        dim.getDimension() == gpu::Dimension::x)
      return add;
  }
  return Value();
}

/// Moves the body of stage kernel `kernel` into `func.func @<name>_body(<the
/// kernel's arguments>, %invocation: index)`; the kernel computes the
/// invocation index and calls it.
void splitStageBody(gpu::GPUFuncOp kernel, StringRef bodyName) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  OpBuilder b(kernel);
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  inputs.push_back(IndexType::get(ctx));
  auto body = func::FuncOp::create(b, loc, bodyName,
                                   FunctionType::get(ctx, inputs, {}));
  body.getBody().takeBody(kernel.getBody());
  Block &entry = body.getBody().front();
  BlockArgument invocation = entry.addArgument(IndexType::get(ctx), loc);
  if (Value computed = invocationIndex(entry))
    computed.replaceAllUsesWith(invocation);
  body.walk([](gpu::ReturnOp ret) {
    OpBuilder rb(ret);
    func::ReturnOp::create(rb, ret.getLoc());
    ret.erase();
  });

  Block *launcher = b.createBlock(&kernel.getBody());
  for (Type type : kernel.getArgumentTypes())
    launcher->addArgument(type, loc);
  b.setInsertionPointToStart(launcher);
  Value blockId = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value blockDim = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value threadId = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value index = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, blockId, blockDim), threadId);
  SmallVector<Value> operands(launcher->getArguments());
  operands.push_back(index);
  func::CallOp::create(b, loc, body, operands);
  gpu::ReturnOp::create(b, loc);
}

/// Call operands that are memrefs get their dynamic dimensions after them
/// (as memref.dim, resolved with the others).
void expandCallOperands(func::CallOp call) {
  SmallVector<Value> operands;
  OpBuilder b(call);
  for (Value operand : call.getOperands()) {
    operands.push_back(operand);
    if (auto memref = dyn_cast<MemRefType>(operand.getType()))
      for (int64_t d = 0; d < memref.getRank(); ++d)
        if (memref.isDynamicDim(d))
          operands.push_back(
              memref::DimOp::create(b, call.getLoc(), operand, d));
  }
  call->setOperands(operands);
}

/// The index arguments of `block` as `type`, each cast back to index at the
/// block's start for its uses.
void indexArgumentsAs(Block &block, Type type) {
  OpBuilder b(&block, block.begin());
  for (BlockArgument argument : block.getArguments()) {
    if (!argument.getType().isIndex())
      continue;
    argument.setType(type);
    auto cast = arith::IndexCastOp::create(
        b, argument.getLoc(), IndexType::get(type.getContext()), argument);
    argument.replaceAllUsesExcept(cast, cast);
  }
}

/// scf.while carries index values as integers of the index's width (i64,
/// or i32 with index-bitwidth=32): upstream's scf.while lowering assigns the
/// loop variables from the op's original operands, whose index type no
/// longer matches the converted variables.
void whileCarriesIntegers(scf::WhileOp loop, unsigned indexBitwidth) {
  auto isIndex = [](Type type) { return type.isIndex(); };
  if (llvm::none_of(loop->getOperandTypes(), isIndex) &&
      llvm::none_of(loop->getResultTypes(), isIndex))
    return;
  MLIRContext *ctx = loop.getContext();
  Type carried = IntegerType::get(ctx, indexBitwidth);
  auto carry = [&](OpBuilder &b, Location loc, ValueRange values) {
    SmallVector<Value> out;
    for (Value value : values)
      out.push_back(
          value.getType().isIndex()
              ? Value(arith::IndexCastOp::create(b, loc, carried, value))
              : value);
    return out;
  };
  auto retype = [&](TypeRange types) {
    SmallVector<Type> out;
    for (Type type : types)
      out.push_back(type.isIndex() ? carried : type);
    return out;
  };
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  SmallVector<Value> inits = carry(b, loc, loop.getInits());
  auto replacement =
      scf::WhileOp::create(b, loc, retype(loop.getResultTypes()), inits);
  replacement.getBefore().takeBody(loop.getBefore());
  replacement.getAfter().takeBody(loop.getAfter());
  // Block arguments become integers, cast back to index for their uses.
  indexArgumentsAs(replacement.getBefore().front(), carried);
  indexArgumentsAs(replacement.getAfter().front(), carried);
  scf::ConditionOp condition = replacement.getConditionOp();
  OpBuilder cb(condition);
  condition.getArgsMutable().assign(
      carry(cb, condition.getLoc(), condition.getArgs()));
  scf::YieldOp yield = replacement.getYieldOp();
  OpBuilder yb(yield);
  yield.getResultsMutable().assign(
      carry(yb, yield.getLoc(), yield.getResults()));
  b.setInsertionPointAfter(replacement);
  SmallVector<Value> results;
  for (auto [old, now] : llvm::zip(loop.getResults(), replacement.getResults()))
    results.push_back(old.getType().isIndex()
                          ? Value(arith::IndexCastOp::create(
                                b, loc, IndexType::get(ctx), now))
                          : Value(now));
  loop.replaceAllUsesWith(results);
  loop.erase();
}

/// An index-typed `scf.for` whose bounds are 32-bit values (constants that
/// fit, or index_casts of i32) counts in int32_t: index is int64_t in the
/// HIP ABI, and a 64-bit counter costs a GPU two instructions per compare
/// and per increment (NVIDIA and AMD have no 64-bit integer ALU). The
/// increment cannot overflow: the step is 1, or a constant with a constant
/// upper bound at most INT32_MAX - step.
void narrowIndexLoop(scf::ForOp loop) {
  if (!loop.getInductionVar().getType().isIndex())
    return;
  auto constant = [](Value value) -> std::optional<int64_t> {
    if (auto c = value.getDefiningOp<arith::ConstantIndexOp>())
      return c.value();
    return std::nullopt;
  };
  auto fits = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
  auto isNarrow = [&](Value value) {
    if (std::optional<int64_t> c = constant(value))
      return fits(*c);
    auto cast = value.getDefiningOp<arith::IndexCastOp>();
    return cast && cast.getIn().getType().isInteger(32);
  };
  std::optional<int64_t> step = constant(loop.getStep());
  if (!step || *step < 1 || !isNarrow(loop.getLowerBound()) ||
      !isNarrow(loop.getUpperBound()))
    return;
  if (*step != 1) {
    std::optional<int64_t> upper = constant(loop.getUpperBound());
    if (!upper || *upper > int64_t(INT32_MAX) - *step)
      return;
  }
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto narrow = [&](Value value) -> Value {
    if (std::optional<int64_t> c = constant(value))
      return arith::ConstantIntOp::create(b, loc, *c, 32);
    return value.getDefiningOp<arith::IndexCastOp>().getIn();
  };
  auto replacement = scf::ForOp::create(
      b, loc, narrow(loop.getLowerBound()), narrow(loop.getUpperBound()),
      narrow(loop.getStep()), loop.getInitArgs());
  Block *body = replacement.getBody();
  if (!body->empty())
    body->back().erase(); // the implicit yield of a loop without results
  Block *old = loop.getBody();
  body->getOperations().splice(body->end(), old->getOperations());
  b.setInsertionPointToStart(body);
  Value counter = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                             replacement.getInductionVar());
  old->getArgument(0).replaceAllUsesWith(counter);
  for (auto [from, to] : llvm::zip(old->getArguments().drop_front(),
                                   body->getArguments().drop_front()))
    from.replaceAllUsesWith(to);
  loop.replaceAllUsesWith(replacement.getResults());
  loop.erase();
}

/// A do-while `scf.while` (its "after" region only forwards its arguments)
/// as a while loop whose "before" region only tests a flag. LLVM 22's
/// scf.while lowering to emitc.do drops the assignment of the loop
/// variables when the "after" region is empty, so such a loop would run its
/// first iteration forever (the megakernel's stage loop did: #13). The
/// general form, with the work in the "after" region, lowers correctly:
///
///   scf.while (%go = true, %x = inits) {
///     scf.condition(%go) %x        // the results: the last condargs
///   } do { ^bb(%x): <before body on %x>; scf.yield %c, %condargs }
scf::WhileOp doWhileAsWhile(scf::WhileOp loop) {
  Block &after = loop.getAfter().front();
  scf::YieldOp yield = loop.getYieldOp();
  if (&after.front() != yield.getOperation() ||
      yield.getResults().size() != after.getNumArguments() ||
      !llvm::equal(yield.getResults(), after.getArguments()) ||
      loop.getBefore().front().getArgumentTypes() != loop.getResultTypes())
    return loop;
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  Type i1 = IntegerType::get(ctx, 1);
  OpBuilder b(loop);
  SmallVector<Value> inits{arith::ConstantIntOp::create(b, loc, 1, 1)};
  llvm::append_range(inits, loop.getInits());
  auto replacement =
      scf::WhileOp::create(b, loc, loop.getResultTypes(), inits);
  SmallVector<Type> tested{i1};
  llvm::append_range(tested, loop.getResultTypes());
  SmallVector<Location> locs(tested.size(), loc);
  Block *test = b.createBlock(&replacement.getBefore(), {}, tested, locs);
  scf::ConditionOp::create(b, loc, test->getArgument(0),
                           test->getArguments().drop_front());

  // The old "before" block, on the forwarded values, is the new "after"
  // block; its scf.condition becomes the yield of the flag and the values.
  Block *body = &loop.getBefore().front();
  replacement.getAfter().getBlocks().splice(replacement.getAfter().end(),
                                            loop.getBefore().getBlocks());
  auto condition = cast<scf::ConditionOp>(body->getTerminator());
  b.setInsertionPoint(condition);
  SmallVector<Value> next{condition.getCondition()};
  llvm::append_range(next, condition.getArgs());
  scf::YieldOp::create(b, condition.getLoc(), next);
  condition.erase();

  loop.replaceAllUsesWith(replacement.getResults());
  loop.erase();
  return replacement;
}

/// f16 and bf16 arithmetic and math computed in f32 and rounded back after
/// every op (upstream's emulation patterns), as the CPU computes them: what
/// is left of the two types is storage (loads, stores, selects, shuffles),
/// constants, bitcasts and the extf/truncf conversions, which the HIP
/// lowering writes as bit-level C (the prelude's sluice_half_to_double and
/// sluice_double_to_half). A failure names the op that could not be.
LogicalResult emulateHalfFloats(gpu::GPUModuleOp module) {
  MLIRContext *ctx = module.getContext();
  bool any = false;
  module.walk([&](Operation *op) {
    auto half = [](Type type) {
      Type element = getElementTypeOrSelf(type);
      return element.isF16() || element.isBF16();
    };
    if (llvm::any_of(op->getOperandTypes(), half) ||
        llvm::any_of(op->getResultTypes(), half))
      any = true;
  });
  if (!any)
    return success();
  Type f32 = Float32Type::get(ctx);
  SmallVector<Type> halves = {Float16Type::get(ctx), BFloat16Type::get(ctx)};
  TypeConverter arith;
  arith::populateEmulateUnsupportedFloatsConversions(arith, halves, f32);
  RewritePatternSet arithPatterns(ctx);
  arith::populateEmulateUnsupportedFloatsPatterns(arithPatterns, arith);
  ConversionTarget arithTarget(*ctx);
  arith::populateEmulateUnsupportedFloatsLegality(arithTarget, arith);
  if (failed(applyPartialConversion(module, arithTarget,
                                    std::move(arithPatterns))))
    return failure();
  // math.fma, which upstream's extension leaves alone, as an f32 fma
  // rounded back (the exact product of two halves fits f32).
  SmallVector<math::FmaOp> fmas;
  module.walk([&](math::FmaOp fma) {
    if (fma.getType().isF16() || fma.getType().isBF16())
      fmas.push_back(fma);
  });
  for (math::FmaOp fma : fmas) {
    OpBuilder b(fma);
    Location loc = fma.getLoc();
    SmallVector<Value> wide;
    for (Value operand : fma->getOperands())
      wide.push_back(arith::ExtFOp::create(b, loc, f32, operand));
    Value product = math::FmaOp::create(b, loc, wide[0], wide[1], wide[2],
                                        fma.getFastmathAttr());
    fma.replaceAllUsesWith(
        arith::TruncFOp::create(b, loc, fma.getType(), product).getResult());
    fma.erase();
  }
  TypeConverter math;
  // The set names the supported types beside f32 and f64: none, so every
  // other float type (f16, bf16) is extended.
  // (The converter keeps a reference to the set.)
  llvm::SetVector<Type> supported;
  math::populateExtendToSupportedTypesTypeConverter(math, supported, f32);
  RewritePatternSet mathPatterns(ctx);
  math::populateExtendToSupportedTypesPatterns(mathPatterns, math);
  ConversionTarget mathTarget(*ctx);
  math::populateExtendToSupportedTypesConversionTarget(mathTarget, math);
  return applyPartialConversion(module, mathTarget, std::move(mathPatterns));
}

} // namespace

/// A kernel's index parameters as i64, cast to index at its entry: the HIP
/// ABI passes an index as int64_t whatever width the kernel computes in.
void widenIndexParameters(gpu::GPUFuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  Block &entry = kernel.getBody().front();
  indexArgumentsAs(entry, IntegerType::get(ctx, 64));
  kernel.setFunctionType(
      FunctionType::get(ctx, entry.getArgumentTypes(), TypeRange{}));
}

LogicalResult prepareForHIP(gpu::GPUModuleOp module,
                            const llvm::StringSet<> &stageKernels,
                            unsigned indexBitwidth) {
  MLIRContext *ctx = module.getContext();
  // A kernel has no heap: MemRefToEmitC would call malloc, which a GPU
  // thread cannot use for a buffer others see.
  WalkResult heap = module.walk([](Operation *op) {
    if (!isa<memref::AllocOp, memref::DeallocOp, memref::ReallocOp>(op))
      return WalkResult::advance();
    op->emitOpError("in a kernel is not lowered to HIP (no device heap): use "
                    "memref.alloca for a private array, a workgroup "
                    "attribution for shared memory, or a buffer argument");
    return WalkResult::interrupt();
  });
  if (heap.wasInterrupted() || failed(emulateHalfFloats(module)))
    return failure();
  // Device helpers carry the module's name, as the kernels do.
  SymbolTable symbols(module);
  for (auto helper : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    // A clash gets a unique suffix (SymbolTable::rename).
    (void)symbols.rename(helper,
                         (module.getName() + "_" + helper.getName()).str());

  for (auto kernel :
       llvm::make_early_inc_range(module.getOps<gpu::GPUFuncOp>())) {
    attributionsToAllocas(kernel);
    if (kernel.isKernel() && stageKernels.contains(kernel.getName()) &&
        kernel.getWorkgroupAttributions().empty() &&
        kernel.getPrivateAttributions().empty())
      splitStageBody(kernel, (module.getName() + "_" + kernel.getName() +
                              SLUICE_HIP_BODY_SUFFIX)
                                 .str());
  }

  if (failed(workgroupGlobalsToAllocas(module)))
    return failure();
  for (Operation &op : module.getBody()->getOperations())
    if (auto func = dyn_cast<FunctionOpInterface>(op))
      if (failed(sluice::liftKernelControlFlow(func, "HIP C++")))
        return failure();

  SmallVector<scf::ForOp> counted;
  module.walk([&](scf::ForOp loop) { counted.push_back(loop); });
  for (scf::ForOp loop : counted)
    narrowIndexLoop(loop);

  RewritePatternSet patterns(ctx);
  arith::populateArithExpandOpsPatterns(patterns);
  patterns.add<MinMaxNumAsCall<arith::MinNumFOp>>(ctx, "fmin");
  patterns.add<MinMaxNumAsCall<arith::MaxNumFOp>>(ctx, "fmax");
  patterns.add<NarrowMulUIExtended>(ctx);
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  // Not converging leaves ops that the conversion reports by name.
  (void)applyPatternsGreedily(module, std::move(patterns), config);

  SmallVector<scf::WhileOp> loops;
  module.walk([&](scf::WhileOp loop) { loops.push_back(loop); });
  for (scf::WhileOp loop : loops)
    whileCarriesIntegers(doWhileAsWhile(loop), indexBitwidth);

  if (failed(rewriteSubviews(module)) || failed(checkLayouts(module)))
    return failure();
  SmallVector<Access> accesses;
  module.walk([&](Operation *op) {
    if (std::optional<Access> access = accessOf(op))
      accesses.push_back(*access);
  });
  for (Access &access : accesses)
    linearize(access);

  DenseMap<Value, SmallVector<Value>> dims;
  for (Operation &op : module.getBody()->getOperations())
    if (auto func = dyn_cast<FunctionOpInterface>(op))
      expandDynamicDims(func, dims);
  module.walk([](func::CallOp call) { expandCallOperands(call); });
  if (failed(resolveDims(module, dims)))
    return failure();
  if (indexBitwidth != 64) {
    WalkResult big = module.walk([](arith::ConstantIndexOp constant) {
      int64_t v = constant.value();
      if (v >= INT32_MIN && v <= INT32_MAX)
        return WalkResult::advance();
      constant.emitOpError("index constant ")
          << v << " does not fit the 32-bit index of index-bitwidth=32";
      return WalkResult::interrupt();
    });
    if (big.wasInterrupted())
      return failure();
    for (auto kernel : module.getOps<gpu::GPUFuncOp>())
      if (kernel.isKernel())
        widenIndexParameters(kernel);
  }
  // What the rewrites left unused (dimension indices, replaced values) would
  // be unused C variables.
  module.walk<WalkOrder::PostOrder, ::mlir::ReverseIterator>([](Operation *op) {
    if (isOpTriviallyDead(op))
      op->erase();
  });
  return success();
}

} // namespace sluice
