//===- VectorizeLanes.cpp - lane loops as SIMD loops ----------------------===//
//
// Fission turns a kernel's barrier-free code into a loop over the lanes of a
// block, one lane at a time. LLVM's loop vectorizer gives up on such a loop as
// soon as its body holds an inner loop, a data-dependent branch it cannot
// if-convert or an atomic: a wave program's stage kernel has all three (the
// texture's octave loop, the material switch, the counters). Here the lane
// loop is vectorized the way an SPMD compiler (ISPC, a GPU) runs lanes: W
// lanes at a time, in vector registers, with a mask of the lanes that are
// active at each point of the code.
//
// * A value is *uniform* (a scalar, the same for the W lanes) when it is
//   defined outside the loop or computed by a side-effect-free operation from
//   uniform values, and *varying* (a vector<W x T>) otherwise; the lane
//   index is `base + [0, 1, .., W-1]`.
// * Element-wise operations (arith, math) on varying values become their
//   vector forms; integer division of inactive lanes divides by 1.
// * `scf.if` on a varying condition runs its then region under
//   `mask & c` and its else region under `mask & !c`, each only if one lane
//   is active, and selects the results; on a uniform condition it stays a
//   branch. `scf.for` with uniform bounds stays a loop (its carried values
//   are vectors). `scf.while`, and an `scf.for` whose bounds differ by lane,
//   run while a lane is in; a lane leaves when its condition is false, and
//   its results are the values it had then.
// * An acyclic CFG (the stage kernels' `scf.execute_region`) is linearized:
//   blocks in topological order, each under the mask of the edges into it,
//   block arguments selected per edge, each block's code run only when one
//   of its lanes is active.
// * Loads and stores at a varying index are masked gathers and scatters (a
//   scatter writes lane by lane, so the last of two lanes writing one address
//   wins, as in the scalar loop); at a uniform index of a buffer they are
//   scalar. A frame field's view at a lane-dependent byte offset gathers
//   from the frame buffer seen as an array of the field's type. A lane's
//   private array (`memref.alloca` in the loop) gets W copies,
//   element-major, so a uniform index reads W consecutive words.
// * Everything else that reads a varying value or has side effects (atomics,
//   calls) runs once per active lane, in lane order, on extracted scalars; an
//   atomic add whose old value is unused is summed over the lanes first.
//
// Lanes of a block are unordered without a barrier, so running them in
// groups of W changes no result a kernel may rely on; the operations are the
// same IEEE operations lane by lane (no reassociation), so a vectorized kernel
// computes bit for bit what the scalar loop does (the path tracer's films
// are compared byte by byte in test/pathtracer). A loop with something this
// file does not handle (a value with no vector form, a gather through a
// memref of several dimensions, a lane-dependent loop step, a cyclic CFG) is
// left scalar, and so is one the cost model (`pays`) does not expect to gain:
// a loop in it diverges, or its vector operations are few against its
// gathers, scatters and per-lane operations.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace sluice::gpu_to_cpu {

namespace {

class LaneVectorizer {
public:
  LaneVectorizer(scf::ForOp loop, unsigned width)
      : loop(loop), width(width), builder(loop) {}

  /// Emits the vector loop before the scalar one; on failure erases it and
  /// leaves the loop as it was. keep() then erases the scalar loop, or
  /// discard() the vector one.
  LogicalResult run(std::string &reason) {
    Location loc = loop.getLoc();
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step || *step != 1 || loop.getNumRegionIterArgs() != 0) {
      reason = "not a lane loop in steps of 1";
      return failure();
    }
    Value upper = loop.getUpperBound();
    Value stride = arith::ConstantIndexOp::create(builder, loc, width);
    auto vectorLoop =
        scf::ForOp::create(builder, loc, loop.getLowerBound(), upper, stride);
    emitted = {stride.getDefiningOp(), vectorLoop};
    builder.setInsertionPoint(vectorLoop.getBody()->getTerminator());
    VectorType laneType = vectorType(builder.getIndexType());
    SmallVector<int64_t> iota(width);
    for (unsigned i = 0; i < width; ++i)
      iota[i] = i;
    laneOffsets = arith::ConstantOp::create(builder, loc, laneType,
                                            builder.getIndexVectorAttr(iota));
    Value base = vector::BroadcastOp::create(builder, loc, laneType,
                                             vectorLoop.getInductionVar());
    Value lanes = arith::AddIOp::create(builder, loc, base, laneOffsets);
    Value bound = vector::BroadcastOp::create(builder, loc, laneType, upper);
    Value mask = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                       lanes, bound);
    varying[loop.getInductionVar()] = lanes;
    if (failed(emitBlock(*loop.getBody(), mask))) {
      reason = failureReason;
      discard();
      return failure();
    }
    return success();
  }

  void keep() { loop.erase(); }

  void discard() {
    for (Operation *op : llvm::reverse(emitted))
      op->erase();
    for (Operation *op : llvm::reverse(hoisted))
      op->erase();
  }

private:
  VectorType vectorType(Type type) { return VectorType::get({width}, type); }

  static bool hasVector(Type type) { return type.isIntOrIndexOrFloat(); }

  LogicalResult fail(Operation *op, const Twine &why) {
    if (failureReason.empty())
      failureReason = ("'" + op->getName().getStringRef() + "' " + why).str();
    return failure();
  }

  bool isVarying(Value value) const { return varying.count(value); }

  /// A value every lane has its own of: a varying value, a lane's private
  /// array, or a view at a lane-dependent offset.
  bool perLane(Value value) const {
    return varying.count(value) || privateArrays.count(value) ||
           views.count(value);
  }

  /// The vector types of `types`, or failure naming `op` and the first type
  /// that has none (a vector or a memref the lanes would each hold).
  LogicalResult vectorTypes(Operation *op, TypeRange types,
                            SmallVectorImpl<Type> &out) {
    for (Type type : types) {
      if (!hasVector(type)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << type;
        return fail(op, "has a value of type " + text +
                            " for each lane, which has no vector form");
      }
      out.push_back(vectorType(type));
    }
    return success();
  }

  /// Fails unless a gather or scatter through `memref` can index it.
  LogicalResult oneDimensional(Operation *op, MemRefType type) {
    if (type.getRank() == 1)
      return success();
    return fail(op, "reads or writes a " + Twine(type.getRank()) +
                        "-dimensional memref at a lane index (gathers and "
                        "scatters take one dimension)");
  }

  Value uniform(Value value) { return scalars.lookupOrDefault(value); }

  /// The vector of `value`: its varying form, or its uniform one broadcast.
  Value vectorOf(Value value, Location loc) {
    if (auto it = varying.find(value); it != varying.end())
      return it->second;
    return vector::BroadcastOp::create(
        builder, loc, vectorType(value.getType()), uniform(value));
  }

  Value zeros(Type type, Location loc) {
    return arith::ConstantOp::create(builder, loc, type,
                                     builder.getZeroAttr(type));
  }

  /// The else side of a guard no lane takes: zeros of `types`.
  void yieldZeros(TypeRange types, Location loc) {
    SmallVector<Value> none;
    for (Type type : types)
      none.push_back(zeros(type, loc));
    scf::YieldOp::create(builder, loc, none);
  }

  Value any(Value mask, Location loc) {
    return vector::ReductionOp::create(builder, loc, vector::CombiningKind::OR,
                                       mask);
  }

  /// `mask & condition` as a select, so that a poison lane of `condition`
  /// (computed from an inactive lane's data) cannot make the mask poison.
  Value narrow(Value mask, Value condition, Location loc, bool negate = false) {
    Value c = vectorOf(condition, loc);
    if (negate) {
      Value ones = arith::ConstantOp::create(
          builder, loc, c.getType(),
          DenseElementsAttr::get(cast<ShapedType>(c.getType()), true));
      c = arith::XOrIOp::create(builder, loc, c, ones);
    }
    Value none = zeros(mask.getType(), loc);
    return arith::SelectOp::create(builder, loc, mask, c, none);
  }

  /// Does anything `op` reads (operands, values its regions capture) differ
  /// between lanes (perLane)?
  bool readsVarying(Operation *op) {
    bool found = false;
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (!op->isAncestor(operand.getParentBlock()->getParentOp()) &&
            perLane(operand))
          found = true;
    });
    return found;
  }

  /// An scf.if whose blocks are empty (the caller adds the yields).
  scf::IfOp createIf(Location loc, TypeRange types, Value condition) {
    auto branch = scf::IfOp::create(builder, loc, types, condition,
                                    /*withElseRegion=*/true);
    for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()})
      if (!region->front().empty())
        region->front().back().erase();
    return branch;
  }

  /// An scf.for whose body is empty (the caller adds the yield).
  scf::ForOp createFor(Location loc, Value lower, Value upper, Value step,
                       ValueRange inits) {
    auto created = scf::ForOp::create(builder, loc, lower, upper, step, inits);
    if (!created.getBody()->empty())
      created.getBody()->back().erase();
    return created;
  }

  /// The block of a region of a new scf.while (created without blocks), with
  /// arguments of `types`; the builder at its end.
  Block *loopBlock(Region &region, TypeRange types, Location loc) {
    return builder.createBlock(&region, {}, types,
                               SmallVector<Location>(types.size(), loc));
  }

  Value gather(Location loc, VectorType type, Value base, ValueRange offsets,
               Value indices, Value mask, Value passThrough) {
    profile.memoryOps += weight;
    return vector::GatherOp::create(builder, loc, type, base, offsets, indices,
                                    mask, passThrough);
  }

  void scatter(Location loc, Value base, ValueRange offsets, Value indices,
               Value mask, Value value) {
    profile.memoryOps += weight;
    vector::ScatterOp::create(builder, loc, Type(), base, offsets, indices,
                              mask, value);
  }

  LogicalResult emitBlock(Block &block, Value mask) {
    for (Operation &op : block.without_terminator())
      if (failed(emitOp(&op, mask)))
        return failure();
    return success();
  }

  LogicalResult emitOp(Operation *op, Value mask) {
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return emitIf(branch, mask);
    if (auto inner = dyn_cast<scf::ForOp>(op))
      return emitFor(inner, mask);
    if (auto inner = dyn_cast<scf::WhileOp>(op))
      return emitWhile(inner, mask);
    if (auto region = dyn_cast<scf::ExecuteRegionOp>(op))
      return emitRegion(region, mask);
    if (auto alloca = dyn_cast<memref::AllocaOp>(op))
      return emitAlloca(alloca);
    if (auto view = dyn_cast<memref::ViewOp>(op); view && readsVarying(view))
      return emitView(view);
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return emitLoad(load, mask);
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return emitStore(store, mask);
    if (auto add = dyn_cast<memref::AtomicRMWOp>(op);
        add && add.getKind() == arith::AtomicRMWKind::addi &&
        add.getResult().use_empty() && !readsVaryingIndex(add))
      return emitSummedAdd(add, mask);

    bool reads = readsVarying(op);
    if (!reads && isMemoryEffectFree(op)) {
      builder.clone(*op, scalars);
      return success();
    }
    if (reads && op->getNumRegions() == 0 &&
        op->hasTrait<OpTrait::Elementwise>() && isMemoryEffectFree(op))
      return emitElementwise(op, mask);
    return emitPerLane(op, mask);
  }

  bool readsVaryingIndex(memref::AtomicRMWOp add) {
    return llvm::any_of(add.getIndices(),
                        [&](Value index) { return isVarying(index); }) ||
           perLane(add.getMemref());
  }

  LogicalResult emitElementwise(Operation *op, Value mask) {
    Location loc = op->getLoc();
    SmallVector<Type> operandTypes, types;
    if (failed(vectorTypes(op, op->getOperandTypes(), operandTypes)) ||
        failed(vectorTypes(op, op->getResultTypes(), types)))
      return failure();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      operands.push_back(vectorOf(operand, loc));
    // An inactive lane may hold any value: it divides by one.
    if (isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
            arith::CeilDivUIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(op)) {
      Value one = arith::ConstantOp::create(
          builder, loc, operands[1].getType(),
          DenseElementsAttr::get(
              cast<ShapedType>(operands[1].getType()),
              builder.getIntegerAttr(
                  getElementTypeOrSelf(operands[1].getType()), 1)));
      operands[1] =
          arith::SelectOp::create(builder, loc, mask, operands[1], one);
    }
    profile.vectorOps += weight;
    OperationState state(loc, op->getName(), operands, types, op->getAttrs());
    Operation *vectorOp = builder.create(state);
    for (auto [from, to] : llvm::zip(op->getResults(), vectorOp->getResults()))
      varying[from] = to;
    return success();
  }

  /// Runs `op` once per active lane, in lane order, on its lanes' scalars.
  LogicalResult emitPerLane(Operation *op, Value mask) {
    Location loc = op->getLoc();
    // Only the results something reads are collected into vectors (an unused
    // result stays unused, so an atomic add stays one that AggregateCounters
    // can sum).
    SmallVector<Value> results;
    for (Value result : op->getResults())
      if (!result.use_empty())
        results.push_back(result);
    SmallVector<Type> types;
    if (failed(vectorTypes(op, ValueRange(results).getTypes(), types)))
      return failure();
    SmallVector<Value> inits;
    for (Type type : types)
      inits.push_back(zeros(type, loc));
    // The varying values `op` reads, in a stable order.
    llvm::SetVector<Value> reads;
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (perLane(operand))
          reads.insert(operand);
    });
    for (Value value : reads)
      if (privateArrays.count(value) || views.count(value))
        return fail(op, "reads a lane's private array or view");
    profile.laneOps += weight;
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value count = arith::ConstantIndexOp::create(builder, loc, width);
    auto lanes = createFor(loc, zero, count, one, inits);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(lanes.getBody());
    Value lane = lanes.getInductionVar();
    Value active =
        vector::ExtractOp::create(builder, loc, mask, OpFoldResult(lane));
    auto branch = createIf(loc, types, active);
    builder.setInsertionPointToStart(&branch.getThenRegion().front());
    IRMapping map = scalars;
    for (Value value : reads)
      map.map(value, vector::ExtractOp::create(builder, loc, varying[value],
                                               OpFoldResult(lane)));
    builder.clone(*op, map);
    SmallVector<Value> updated;
    for (auto [result, acc] : llvm::zip(results, lanes.getRegionIterArgs()))
      updated.push_back(vector::InsertOp::create(
          builder, loc, map.lookup(result), acc, OpFoldResult(lane)));
    scf::YieldOp::create(builder, loc, updated);
    builder.setInsertionPointToStart(&branch.getElseRegion().front());
    scf::YieldOp::create(builder, loc, lanes.getRegionIterArgs());
    builder.setInsertionPointToEnd(lanes.getBody());
    scf::YieldOp::create(builder, loc, branch.getResults());
    for (auto [from, to] : llvm::zip(results, lanes.getResults()))
      varying[from] = to;
    return success();
  }

  /// `memref.atomic_rmw addi` at a uniform index whose old value is unused:
  /// the active lanes' sum, added once.
  LogicalResult emitSummedAdd(memref::AtomicRMWOp add, Value mask) {
    Location loc = add.getLoc();
    Value values = vectorOf(add.getValue(), loc);
    Value none = zeros(values.getType(), loc);
    Value active = arith::SelectOp::create(builder, loc, mask, values, none);
    Value sum = vector::ReductionOp::create(builder, loc,
                                            vector::CombiningKind::ADD, active);
    SmallVector<Value> indices;
    for (Value index : add.getIndices())
      indices.push_back(uniform(index));
    memref::AtomicRMWOp::create(builder, loc, arith::AtomicRMWKind::addi, sum,
                                uniform(add.getMemref()), indices);
    return success();
  }

  /// A view at a varying byte shift (a frame's field): the lanes' elements of
  /// the source buffer seen as an array of the view's element type, which
  /// the loads and stores through the view gather and scatter. The shift is
  /// a multiple of the element's size: a scalar access through the view is
  /// an aligned load or store of that type too.
  LogicalResult emitView(memref::ViewOp view) {
    Location loc = view.getLoc();
    MemRefType type = view.getType();
    Type element = type.getElementType();
    if (isVarying(view.getSource()) || !view.getSizes().empty() ||
        type.getRank() != 1 || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() % 8 != 0)
      return fail(view, "is a view at a lane-dependent offset of other than a "
                        "one-dimensional array of integers or floats");
    int64_t bytes = element.getIntOrFloatBitWidth() / 8;
    Value source = uniform(view.getSource());
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value size = arith::ConstantIndexOp::create(builder, loc, bytes);
    Value length = memref::DimOp::create(builder, loc, source, zero);
    Value elements = arith::DivUIOp::create(builder, loc, length, size);
    auto wholeType = MemRefType::get({ShapedType::kDynamic}, element);
    Value whole = memref::ViewOp::create(builder, loc, wholeType, source, zero,
                                         ValueRange{elements});
    Value first = arith::DivUIOp::create(
        builder, loc, vectorOf(view.getByteShift(), loc),
        vector::BroadcastOp::create(builder, loc,
                                    vectorType(builder.getIndexType()), size));
    views[view.getResult()] = {whole, first};
    return success();
  }

  /// For an access through a per-lane view: the typed buffer and the lanes'
  /// element indices.
  std::pair<Value, Value> viewElements(Value memref, ValueRange indices,
                                       Location loc) {
    const auto &[whole, first] = views[memref];
    Value at = indices.empty()
                   ? first
                   : arith::AddIOp::create(builder, loc, first,
                                           vectorOf(indices[0], loc))
                         .getResult();
    return {whole, at};
  }

  LogicalResult emitAlloca(memref::AllocaOp alloca) {
    MemRefType type = alloca.getType();
    if (!type.hasStaticShape() || type.getRank() > 1 ||
        !type.getLayout().isIdentity() || !alloca.getDynamicSizes().empty() ||
        !hasVector(type.getElementType()))
      return fail(alloca, "is not a static one-dimensional array");
    int64_t elements = type.getRank() == 0 ? 1 : type.getDimSize(0);
    auto wide =
        MemRefType::get({elements * width}, type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    // In the function's entry block: a fresh copy per iteration would be a
    // dynamic stack allocation; the lanes write before they read anyway.
    OpBuilder::InsertionGuard guard(builder);
    auto function = loop->getParentOfType<func::FuncOp>();
    builder.setInsertionPointToStart(&function.getBody().front());
    auto copy = memref::AllocaOp::create(builder, alloca.getLoc(), wide);
    if (alloca.getAlignment())
      copy.setAlignment(*alloca.getAlignment());
    hoisted.push_back(copy);
    privateArrays[alloca.getResult()] = copy.getResult();
    return success();
  }

  /// The element of every lane in its private copy: `index * W + lane`.
  Value privateIndices(Value index, Location loc) {
    Value scaled = arith::MulIOp::create(
        builder, loc, vectorOf(index, loc),
        vector::BroadcastOp::create(
            builder, loc, vectorType(builder.getIndexType()),
            arith::ConstantIndexOp::create(builder, loc, width)));
    return arith::AddIOp::create(builder, loc, scaled, laneOffsets);
  }

  /// Where the lanes of a load or store through `memref` at `indices` go:
  /// one scalar address for all of them (`scalar`: a uniform index, and not
  /// `eachLane`, which a store of a varying value to it asks for), W
  /// consecutive elements from `first` (a private array at a uniform index),
  /// or the elements at `indices` (a gather or scatter).
  struct LaneAddress {
    bool scalar = false;
    Value base, first, indices;
  };

  FailureOr<LaneAddress> laneAddress(Operation *op, Value memref,
                                     ValueRange indices, Type element,
                                     bool eachLane, Location loc) {
    LaneAddress address;
    if (auto it = privateArrays.find(memref); it != privateArrays.end()) {
      address.base = it->second;
      Value index = indices.empty()
                        ? arith::ConstantIndexOp::create(builder, loc, 0)
                        : indices[0];
      if (isVarying(index)) {
        address.indices = privateIndices(index, loc);
      } else {
        address.first = arith::MulIOp::create(
            builder, loc, uniform(index),
            arith::ConstantIndexOp::create(builder, loc, width));
      }
      return address;
    }
    if (views.count(memref)) {
      std::tie(address.base, address.indices) =
          viewElements(memref, indices, loc);
      return address;
    }
    // (A memref is never varying: vectorTypes refuses it.)
    if (!eachLane &&
        llvm::none_of(indices, [&](Value index) { return isVarying(index); })) {
      address.scalar = true;
      return address;
    }
    SmallVector<Type> types;
    if (failed(oneDimensional(op, cast<MemRefType>(memref.getType()))) ||
        failed(vectorTypes(op, element, types)))
      return failure();
    address.base = uniform(memref);
    address.indices = vectorOf(indices[0], loc);
    return address;
  }

  LogicalResult emitLoad(memref::LoadOp load, Value mask) {
    Location loc = load.getLoc();
    FailureOr<LaneAddress> address =
        laneAddress(load, load.getMemref(), load.getIndices(), load.getType(),
                    /*eachLane=*/false, loc);
    if (failed(address))
      return failure();
    if (address->scalar) {
      builder.clone(*load, scalars);
      return success();
    }
    VectorType type = vectorType(load.getType());
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    varying[load.getResult()] =
        address->first
            ? vector::MaskedLoadOp::create(builder, loc, type, address->base,
                                           ValueRange{address->first}, mask,
                                           zeros(type, loc))
                  .getResult()
            : gather(loc, type, address->base, ValueRange{zero},
                     address->indices, mask, zeros(type, loc));
    return success();
  }

  LogicalResult emitStore(memref::StoreOp store, Value mask) {
    Location loc = store.getLoc();
    // Lanes' values to one place scatter too: the last active lane's value
    // stays, as in lane order. The same value to the same place is stored
    // once, for the active lanes.
    FailureOr<LaneAddress> address =
        laneAddress(store, store.getMemref(), store.getIndices(),
                    store.getValue().getType(),
                    /*eachLane=*/isVarying(store.getValue()), loc);
    if (failed(address))
      return failure();
    if (address->scalar) {
      builder.clone(*store, scalars);
      return success();
    }
    Value value = vectorOf(store.getValue(), loc);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    if (address->first) {
      vector::MaskedStoreOp::create(builder, loc, address->base,
                                    ValueRange{address->first}, mask, value);
    } else {
      scatter(loc, address->base, ValueRange{zero}, address->indices, mask,
              value);
    }
    return success();
  }

  /// Emits `region`'s block under `mask` and yields the vectors of its
  /// terminator's operands.
  LogicalResult emitYieldingRegion(Region &region, Value mask) {
    Block &block = region.front();
    if (failed(emitBlock(block, mask)))
      return failure();
    SmallVector<Value> results;
    for (Value value : block.getTerminator()->getOperands())
      results.push_back(vectorOf(value, block.getTerminator()->getLoc()));
    scf::YieldOp::create(builder, block.getTerminator()->getLoc(), results);
    return success();
  }

  LogicalResult emitIf(scf::IfOp branch, Value mask) {
    Location loc = branch.getLoc();
    SmallVector<Type> types;
    if (failed(vectorTypes(branch, branch.getResultTypes(), types)))
      return failure();
    Value condition = branch.getCondition();
    if (!isVarying(condition)) {
      auto copy = createIf(loc, types, uniform(condition));
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&copy.getThenRegion().front());
      if (failed(emitYieldingRegion(branch.getThenRegion(), mask)))
        return failure();
      builder.setInsertionPointToStart(&copy.getElseRegion().front());
      if (branch.getElseRegion().empty())
        scf::YieldOp::create(builder, loc);
      else if (failed(emitYieldingRegion(branch.getElseRegion(), mask)))
        return failure();
      for (auto [from, to] : llvm::zip(branch.getResults(), copy.getResults()))
        varying[from] = to;
      return success();
    }
    // Each side under its lanes, only if one of them is active.
    auto side = [&](Region &region, bool negate) -> FailureOr<scf::IfOp> {
      Value sideMask = narrow(mask, condition, loc, negate);
      auto guarded = createIf(loc, types, any(sideMask, loc));
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&guarded.getThenRegion().front());
      if (failed(emitYieldingRegion(region, sideMask)))
        return failure();
      builder.setInsertionPointToStart(&guarded.getElseRegion().front());
      yieldZeros(types, loc);
      return guarded;
    };
    FailureOr<scf::IfOp> thenSide = side(branch.getThenRegion(), false);
    if (failed(thenSide))
      return failure();
    if (branch.getElseRegion().empty())
      return success();
    FailureOr<scf::IfOp> elseSide = side(branch.getElseRegion(), true);
    if (failed(elseSide))
      return failure();
    Value c = vectorOf(condition, loc);
    for (auto [from, t, e] :
         llvm::zip(branch.getResults(), thenSide->getResults(),
                   elseSide->getResults()))
      varying[from] = arith::SelectOp::create(builder, loc, c, t, e);
    return success();
  }

  LogicalResult emitFor(scf::ForOp inner, Value mask) {
    Location loc = inner.getLoc();
    if (isVarying(inner.getStep()))
      return fail(inner, "has a step that differs between lanes");
    if (isVarying(inner.getLowerBound()) || isVarying(inner.getUpperBound()))
      return emitVaryingFor(inner, mask);
    SmallVector<Type> types;
    if (failed(vectorTypes(inner, inner.getResultTypes(), types)))
      return failure();
    SmallVector<Value> inits;
    for (Value init : inner.getInitArgs())
      inits.push_back(vectorOf(init, loc));
    auto copy = createFor(loc, uniform(inner.getLowerBound()),
                          uniform(inner.getUpperBound()),
                          uniform(inner.getStep()), inits);
    scalars.map(inner.getInductionVar(), copy.getInductionVar());
    for (auto [from, to] :
         llvm::zip(inner.getRegionIterArgs(), copy.getRegionIterArgs()))
      varying[from] = to;
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToEnd(copy.getBody());
      weight *= kLoopWeight;
      LogicalResult body = emitYieldingRegion(inner.getRegion(), mask);
      weight /= kLoopWeight;
      if (failed(body))
        return failure();
    }
    for (auto [from, to] : llvm::zip(inner.getResults(), copy.getResults()))
      varying[from] = to;
    return success();
  }

  /// An scf.for whose bounds differ between lanes: a loop over the vector of
  /// induction variables while one lane is below its bound; a lane's carried
  /// values stop changing when it reaches it.
  LogicalResult emitVaryingFor(scf::ForOp inner, Value mask) {
    Location loc = inner.getLoc();
    SmallVector<Type> types;
    Type laneType = vectorType(inner.getInductionVar().getType());
    types.push_back(laneType);
    if (failed(vectorTypes(inner, inner.getResultTypes(), types)))
      return failure();
    types.push_back(mask.getType());
    SmallVector<Value> inits{vectorOf(inner.getLowerBound(), loc)};
    for (Value init : inner.getInitArgs())
      inits.push_back(vectorOf(init, loc));
    inits.push_back(mask);
    auto copy = scf::WhileOp::create(builder, loc, types, inits);
    OpBuilder::InsertionGuard guard(builder);
    Block *before = loopBlock(copy.getBefore(), types, loc);
    Value below = arith::CmpIOp::create(
        builder, loc,
        inner.getUnsignedCmp() ? arith::CmpIPredicate::ult
                               : arith::CmpIPredicate::slt,
        before->getArgument(0), vectorOf(inner.getUpperBound(), loc));
    Value none = zeros(mask.getType(), loc);
    Value active = arith::SelectOp::create(
        builder, loc, before->getArguments().back(), below, none);
    SmallVector<Value> forwarded(before->getArguments().drop_back());
    forwarded.push_back(active);
    scf::ConditionOp::create(builder, loc, any(active, loc), forwarded);
    Block *after = loopBlock(copy.getAfter(), types, loc);
    Value lanesIn = after->getArguments().back();
    varying[inner.getInductionVar()] = after->getArgument(0);
    for (auto [from, to] :
         llvm::zip(inner.getRegionIterArgs(), after->getArguments().slice(1)))
      varying[from] = to;
    ++profile.divergentLoops;
    weight *= kLoopWeight;
    LogicalResult body = emitBlock(*inner.getBody(), lanesIn);
    weight /= kLoopWeight;
    if (failed(body))
      return failure();
    SmallVector<Value> yielded{arith::AddIOp::create(
        builder, loc, after->getArgument(0), vectorOf(inner.getStep(), loc))};
    for (auto [value, old] :
         llvm::zip(inner.getBody()->getTerminator()->getOperands(),
                   after->getArguments().slice(1)))
      yielded.push_back(arith::SelectOp::create(builder, loc, lanesIn,
                                                vectorOf(value, loc), old));
    yielded.push_back(lanesIn);
    scf::YieldOp::create(builder, loc, yielded);
    for (auto [index, result] : llvm::enumerate(inner.getResults()))
      varying[result] = copy.getResult(index + 1);
    return success();
  }

  /// A lane leaves the loop when its condition is false; the loop carries,
  /// besides the vectors of the original's values, the results of the lanes
  /// that have left and the mask of those still in.
  LogicalResult emitWhile(scf::WhileOp inner, Value mask) {
    Location loc = inner.getLoc();
    SmallVector<Type> argTypes, resultTypes;
    if (failed(vectorTypes(inner, inner.getOperandTypes(), argTypes)) ||
        failed(vectorTypes(inner, inner.getResultTypes(), resultTypes)))
      return failure();
    unsigned numArgs = argTypes.size(), numResults = resultTypes.size();
    SmallVector<Value> inits;
    for (Value init : inner.getInits())
      inits.push_back(vectorOf(init, loc));
    for (Type type : resultTypes)
      inits.push_back(zeros(type, loc));
    inits.push_back(mask);
    SmallVector<Type> beforeTypes(argTypes);
    beforeTypes.append(resultTypes);
    beforeTypes.push_back(mask.getType());
    SmallVector<Type> afterTypes(resultTypes);
    afterTypes.append(resultTypes);
    afterTypes.push_back(mask.getType());
    auto copy = scf::WhileOp::create(builder, loc, afterTypes, inits);
    OpBuilder::InsertionGuard guard(builder);
    // Before: the condition of the lanes still in.
    Block *before = loopBlock(copy.getBefore(), beforeTypes, loc);
    Block &oldBefore = inner.getBefore().front();
    for (unsigned i = 0; i < numArgs; ++i)
      varying[oldBefore.getArgument(i)] = before->getArgument(i);
    Value in = before->getArgument(numArgs + numResults);
    ++profile.divergentLoops;
    weight *= kLoopWeight;
    if (failed(emitBlock(oldBefore, in)))
      return failure();
    scf::ConditionOp condition = inner.getConditionOp();
    Value stay = narrow(in, condition.getCondition(), loc);
    Value leave = narrow(in, condition.getCondition(), loc, /*negate=*/true);
    SmallVector<Value> forwarded;
    for (Value value : condition.getArgs())
      forwarded.push_back(vectorOf(value, loc));
    SmallVector<Value> next(forwarded);
    for (unsigned i = 0; i < numResults; ++i)
      next.push_back(arith::SelectOp::create(builder, loc, leave, forwarded[i],
                                             before->getArgument(numArgs + i)));
    next.push_back(stay);
    scf::ConditionOp::create(builder, loc, any(stay, loc), next);
    // After: the body of the lanes still in.
    Block *after = loopBlock(copy.getAfter(), afterTypes, loc);
    Block &oldAfter = inner.getAfter().front();
    for (unsigned i = 0; i < numResults; ++i)
      varying[oldAfter.getArgument(i)] = after->getArgument(i);
    Value still = after->getArgument(2 * numResults);
    LogicalResult body = emitBlock(oldAfter, still);
    weight /= kLoopWeight;
    if (failed(body))
      return failure();
    SmallVector<Value> yielded;
    for (Value value : oldAfter.getTerminator()->getOperands())
      yielded.push_back(vectorOf(value, loc));
    for (unsigned i = 0; i < numResults; ++i)
      yielded.push_back(after->getArgument(numResults + i));
    yielded.push_back(still);
    scf::YieldOp::create(builder, loc, yielded);
    for (unsigned i = 0; i < numResults; ++i)
      varying[inner.getResult(i)] = copy.getResult(numResults + i);
    return success();
  }

  /// An acyclic CFG without results, linearized (see the file comment).
  LogicalResult emitRegion(scf::ExecuteRegionOp region, Value mask) {
    if (region.getNumResults() != 0)
      return fail(region, "has results");
    Region &body = region.getRegion();
    // Topological order (reverse post-order); a back edge fails.
    SmallVector<Block *> order;
    llvm::DenseMap<Block *, int> state; // 1 on the stack, 2 done
    bool cyclic = false;
    std::function<void(Block *)> visit = [&](Block *block) {
      state[block] = 1;
      for (Block *successor : block->getSuccessors()) {
        int s = state.lookup(successor);
        if (s == 1)
          cyclic = true;
        else if (s == 0)
          visit(successor);
      }
      state[block] = 2;
      order.push_back(block);
    };
    visit(&body.front());
    if (cyclic)
      return fail(region, "has a cycle in its control flow");
    std::reverse(order.begin(), order.end());

    llvm::DenseMap<Block *, Value> masks;
    masks[&body.front()] = mask;
    for (Block *block : order) {
      Location loc = block->getTerminator()->getLoc();
      auto found = masks.find(block);
      if (found == masks.end())
        continue; // unreachable
      Value blockMask = found->second;
      // Values of the block used elsewhere, and those its terminator reads.
      llvm::SetVector<Value> escaping;
      for (Operation &op : block->without_terminator())
        for (Value result : op.getResults())
          for (Operation *user : result.getUsers())
            if (body.findAncestorBlockInRegion(*user->getBlock()) != block ||
                user == block->getTerminator())
              escaping.insert(result);
      SmallVector<Type> types;
      for (Value value : escaping)
        if (failed(vectorTypes(value.getDefiningOp(), value.getType(), types)))
          return failure();
      auto guarded = createIf(loc, types, any(blockMask, loc));
      {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(&guarded.getThenRegion().front());
        if (failed(emitBlock(*block, blockMask)))
          return failure();
        SmallVector<Value> out;
        for (Value value : escaping)
          out.push_back(vectorOf(value, loc));
        scf::YieldOp::create(builder, loc, out);
        builder.setInsertionPointToStart(&guarded.getElseRegion().front());
        yieldZeros(types, loc);
      }
      for (auto [value, result] : llvm::zip(escaping, guarded.getResults())) {
        scalars.erase(value);
        varying[value] = result;
      }
      // The edges out of the block.
      Operation *terminator = block->getTerminator();
      auto edge = [&](Block *successor, Value edgeMask,
                      ValueRange operands) -> LogicalResult {
        auto [it, first] = masks.try_emplace(successor, edgeMask);
        if (!first)
          it->second = arith::OrIOp::create(builder, loc, it->second, edgeMask);
        for (auto [argument, operand] :
             llvm::zip(successor->getArguments(), operands)) {
          SmallVector<Type> type;
          if (failed(vectorTypes(terminator, argument.getType(), type)))
            return failure();
          Value incoming = vectorOf(operand, loc);
          auto known = varying.find(argument);
          if (first || known == varying.end())
            varying[argument] = incoming;
          else
            known->second = arith::SelectOp::create(builder, loc, edgeMask,
                                                    incoming, known->second);
        }
        return success();
      };
      if (auto br = dyn_cast<cf::BranchOp>(terminator)) {
        if (failed(edge(br.getDest(), blockMask, br.getDestOperands())))
          return failure();
      } else if (auto cond = dyn_cast<cf::CondBranchOp>(terminator)) {
        Value taken = narrow(blockMask, cond.getCondition(), loc);
        Value other = narrow(blockMask, cond.getCondition(), loc, true);
        if (failed(
                edge(cond.getTrueDest(), taken, cond.getTrueDestOperands())) ||
            failed(
                edge(cond.getFalseDest(), other, cond.getFalseDestOperands())))
          return failure();
      } else if (!isa<scf::YieldOp>(terminator)) {
        return fail(terminator, "ends a block of the region");
      }
    }
    return success();
  }

  scf::ForOp loop;
  unsigned width;
  OpBuilder builder;
  Value laneOffsets;
  IRMapping scalars;                          // uniform: original -> copy
  llvm::DenseMap<Value, Value> varying;       // varying: original -> vector
  llvm::DenseMap<Value, Value> privateArrays; // alloca -> W copies
  // A per-lane view -> (the buffer as its element type, the lanes' first
  // elements).
  llvm::DenseMap<Value, std::pair<Value, Value>> views;
  SmallVector<Operation *> emitted; // before the loop, erased on failure
  SmallVector<Operation *> hoisted; // widened allocas in the entry block
  std::string failureReason;

public:
  /// What the vector loop does, weighted by how often it runs (an operation
  /// in a loop counts kLoopWeight times per level).
  struct Profile {
    double vectorOps = 0;        // element-wise operations on vectors
    double memoryOps = 0;        // gathers and scatters
    double laneOps = 0;          // operations run once per active lane
    unsigned divergentLoops = 0; // loops whose trip count differs by lane
  } profile;

  static constexpr double kLoopWeight = 8;

private:
  double weight = 1;
};

} // namespace

/// Whether the vector loop is likely faster than the scalar one. A loop whose
/// trip count differs between lanes (a BVH traversal) runs as long as its
/// longest lane, and incoherent lanes leave most of each vector idle: the
/// path tracer's intersect kernels took 1.7 and 2.1 times as long vectorized.
/// Otherwise the vector operations must outweigh what runs lane by lane
/// (gathers, scatters, atomics: the shadow rays' shading, a gather and a
/// film add per lane, took 1.4 times as long).
static bool pays(const LaneVectorizer::Profile &profile) {
  if (profile.divergentLoops != 0)
    return false;
  return profile.vectorOps >= 4 * (profile.memoryOps + profile.laneOps);
}

unsigned vectorizeLaneLoops(func::FuncOp blockFunction, unsigned width,
                            bool always,
                            SmallVectorImpl<std::string> *decisions) {
  SmallVector<scf::ForOp> loops;
  blockFunction.walk([&](scf::ForOp loop) {
    if (loop->removeAttr(kLaneLoopAttrName))
      loops.push_back(loop);
  });
  if (width < 2)
    return 0;
  unsigned count = 0;
  for (scf::ForOp loop : loops) {
    std::string reason;
    LaneVectorizer vectorizer(loop, width);
    if (failed(vectorizer.run(reason))) {
      if (decisions)
        decisions->push_back("left scalar: " + reason);
      continue;
    }
    const LaneVectorizer::Profile &profile = vectorizer.profile;
    bool vectorize = always || pays(profile);
    if (decisions)
      decisions->push_back(llvm::formatv(
          "{0} {1} lanes at a time{2} ({3:F0} vector operations, {4:F0} "
          "gathers and scatters, {5:F0} operations per lane, {6} divergent "
          "loops; in a loop, an operation counts {7:F0} times)",
          vectorize ? "vectorized," : "left scalar:", width,
          vectorize ? "" : " would not pay", profile.vectorOps,
          profile.memoryOps, profile.laneOps, profile.divergentLoops,
          LaneVectorizer::kLoopWeight));
    if (vectorize) {
      vectorizer.keep();
      ++count;
    } else {
      vectorizer.discard();
    }
  }
  return count;
}

} // namespace sluice::gpu_to_cpu
