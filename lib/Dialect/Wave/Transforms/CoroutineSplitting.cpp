//===- CoroutineSplitting.cpp - Coroutine -> stages over a frame ----------===//
//
// A coroutine is split on a CFG copy of its body: the scf ops that contain a
// suspension are lowered to `cf`, every suspension then ends its block with a
// branch to its resume block, and liveness on that CFG gives the values live
// across each suspension. A stage is the code reachable from its resume block
// without crossing another suspension; it is cloned from the CFG, entered
// through a block that loads its live-in values, and left through frame stores
// and `wave.set_next` at every suspension and termination it reaches.
//
//===----------------------------------------------------------------------===//

#include "sluice/Dialect/Wave/Transforms/Passes.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace sluice;
using namespace sluice::wave;

namespace {

constexpr StringLiteral kEntryStage = "entry";

/// A frame field: the value it holds in the CFG copy, and its storage.
struct Field {
  Value value;
  std::string name;
  int64_t size = 0;
  int64_t align = 0;
};

/// One stage: where it resumes in the CFG copy and what it reaches.
struct Stage {
  std::string name;
  SuspendOp suspend;                    // null for the entry stage
  Block *resume = nullptr;              // first block of the stage
  SmallVector<Value> liveIn;            // values live across `suspend`
  SmallVector<unsigned> fields;         // indices into `fields`: what it stores
  std::optional<unsigned> sortKeyField; // the `sort_by` key's field
  func::FuncOp function;
};

/// Bytes a frame field of `type` takes (a power of two), or nullopt.
static std::optional<int64_t> frameBytes(Type type) {
  unsigned bits = 0;
  if (auto integer = dyn_cast<IntegerType>(type))
    bits = integer.getWidth();
  else if (auto real = dyn_cast<FloatType>(type))
    bits = real.getWidth();
  else if (isa<IndexType>(type))
    bits = 64;
  if (bits == 0 || bits > 128)
    return std::nullopt;
  return static_cast<int64_t>(llvm::PowerOf2Ceil((bits + 7) / 8));
}

/// Constants and bindings are re-created in every stage that uses them
/// instead of being stored in the frame.
static bool isRematerializable(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         (def->hasTrait<OpTrait::ConstantLike>() || isa<BindingOp>(def));
}

namespace {

/// Erases the blocks that no path from the region's entry reaches (upstream's
/// eraseUnreachableBlocks) before a branch of the region is canonicalized:
/// the pattern outranks the canonicalizations. A branch folded to one side
/// can leave a loop that nothing enters; cf.br's canonicalization would then
/// merge the loop's header into its only predecessor, the loop's own latch,
/// replacing the header's arguments by the latch's operands, which are those
/// very arguments, and erase the header with its arguments still in use (a
/// use after free that crashed wave-split:
/// test/Dialect/Wave/split-unreachable-loop.mlir). The driver's region
/// simplification would erase such blocks, but only between its rounds of
/// patterns.
template <typename BranchOp>
struct EraseUnreachableBlocksFirst : OpRewritePattern<BranchOp> {
  EraseUnreachableBlocksFirst(MLIRContext *context)
      : OpRewritePattern<BranchOp>(context, /*benefit=*/10) {}

  LogicalResult matchAndRewrite(BranchOp branch,
                                PatternRewriter &rewriter) const override {
    return eraseUnreachableBlocks(rewriter, *branch->getParentRegion());
  }
};

} // namespace

/// The branch canonicalizations that merge and forward blocks.
static void populateBranchCanonicalization(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<EraseUnreachableBlocksFirst<cf::BranchOp>,
               EraseUnreachableBlocksFirst<cf::CondBranchOp>,
               EraseUnreachableBlocksFirst<cf::SwitchOp>>(context);
  cf::BranchOp::getCanonicalizationPatterns(patterns, context);
  cf::CondBranchOp::getCanonicalizationPatterns(patterns, context);
  cf::SwitchOp::getCanonicalizationPatterns(patterns, context);
}

static bool containsSuspend(Operation *op) {
  return op->walk([](SuspendOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Reconstructs SSA for one value with two definitions in a stage: `initial`
/// at the stage entry and `redefinition` somewhere inside (Braun et al.'s
/// on-demand construction, block arguments standing for phis).
class SsaRepair {
public:
  SsaRepair(Value redefinition, Value initial, Block *entry)
      : redefinition(redefinition), initial(initial), entry(entry) {}

  Value valueAtStart(Block *block) {
    if (block == entry)
      return initial;
    if (auto arg = dyn_cast<BlockArgument>(redefinition);
        arg && arg.getOwner() == block)
      return redefinition;
    if (auto it = atStart.find(block); it != atStart.end())
      return it->second;
    SmallVector<Block *> predecessors(block->getPredecessors());
    if (predecessors.size() == 1) {
      Value value = valueAtEnd(predecessors.front());
      atStart[block] = value;
      return value;
    }
    Value phi =
        block->addArgument(redefinition.getType(), redefinition.getLoc());
    atStart[block] = phi;
    for (auto it = block->pred_begin(), e = block->pred_end(); it != e; ++it) {
      auto branch = cast<BranchOpInterface>((*it)->getTerminator());
      branch.getSuccessorOperands(it.getSuccessorIndex())
          .append(valueAtEnd(*it));
    }
    return phi;
  }

private:
  Value valueAtEnd(Block *block) {
    if (redefinition.getParentBlock() == block)
      return redefinition;
    return valueAtStart(block);
  }

  Value redefinition;
  Value initial;
  Block *entry;
  llvm::DenseMap<Block *, Value> atStart;
};

class CoroutineSplitter {
public:
  CoroutineSplitter(CoroutineOp coroutine, FrameLayoutKind layout)
      : coroutine(coroutine), layout(layout), builder(coroutine) {}

  FailureOr<SplitResult> run() {
    if (failed(checkStructure()))
      return failure();
    if (failed(buildCfg()) || failed(analyzeFrame()) || failed(buildStages())) {
      cleanup();
      return failure();
    }
    rewriteCoroutine();
    cleanup();
    SplitResult result;
    result.stages = stages.size();
    result.frameFields = fields.size();
    result.rematerializedConstants = rematerialized;
    return result;
  }

private:
  /// Rejects what the splitter does not handle, before changing anything.
  LogicalResult checkStructure() {
    WalkResult walk = coroutine.walk([&](SuspendOp suspend) {
      if (suspend.getStage() == kEntryStage) {
        suspend.emitOpError("stage name '")
            << kEntryStage << "' is reserved for the entry stage";
        return WalkResult::interrupt();
      }
      for (Operation *parent = suspend->getParentOp(); parent != coroutine;
           parent = parent->getParentOp()) {
        if (isa<scf::IfOp, scf::ForOp, scf::WhileOp, scf::IndexSwitchOp,
                scf::ExecuteRegionOp>(parent))
          continue;
        InFlightDiagnostic diag =
            parent->emitOpError("contains a suspension, but only scf.if, "
                                "scf.for, scf.while, scf.index_switch and "
                                "scf.execute_region may enclose one");
        diag.attachNote(suspend.getLoc()) << "suspension here";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  std::string stageSymbol(StringRef stage) {
    return (coroutine.getSymName() + "__" + stage).str();
  }

  /// Copies the body into `cfg`, lowers the scf ops around suspensions and
  /// ends the block of every suspension with a branch to its resume block.
  LogicalResult buildCfg() {
    builder.setInsertionPointAfter(coroutine);
    cfg = func::FuncOp::create(builder, coroutine.getLoc(), stageSymbol("cfg"),
                               coroutine.getFunctionType());
    IRMapping mapping;
    coroutine.getBody().cloneInto(&cfg.getBody(), mapping);
    // Bound arguments become `wave.binding`s: rematerialized, never stored.
    Block &entry = cfg.front();
    builder.setInsertionPointToStart(&entry);
    unsigned laneCount = coroutine.getNumLaneArguments();
    for (unsigned i = 0, e = coroutine.getNumBindings(); i < e; ++i) {
      BlockArgument arg = entry.getArgument(laneCount + i);
      arg.replaceAllUsesWith(BindingOp::create(builder, arg.getLoc(),
                                               arg.getType(),
                                               coroutine.getBindingName(i)));
    }
    entry.eraseArguments(laneCount, coroutine.getNumBindings());
    cfg.setFunctionType(builder.getFunctionType(
        coroutine.getLaneArgumentTypes(), {}));
    cfg.walk([&](TerminateOp terminate) {
      builder.setInsertionPoint(terminate);
      func::ReturnOp::create(builder, terminate.getLoc());
      terminate.erase();
    });

    ConversionTarget target(*coroutine.getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<scf::IfOp, scf::ForOp, scf::WhileOp,
                                 scf::IndexSwitchOp, scf::ExecuteRegionOp>(
        [](Operation *op) { return !containsSuspend(op); });
    RewritePatternSet patterns(coroutine.getContext());
    populateSCFToControlFlowConversionPatterns(patterns);
    if (failed(applyPartialConversion(cfg, target, std::move(patterns))))
      return coroutine.emitOpError(
          "cannot lower the control flow around its suspensions to a CFG");

    // Dead code and straight-line block chains would only blur liveness.
    RewritePatternSet cleanup(coroutine.getContext());
    populateBranchCanonicalization(cleanup);
    (void)applyPatternsGreedily(cfg, std::move(cleanup));

    stages.push_back({kEntryStage.str(), {}, &cfg.front(), {}, {}, {}, {}});
    SmallVector<SuspendOp> suspends;
    cfg.walk([&](SuspendOp suspend) { suspends.push_back(suspend); });
    for (SuspendOp suspend : suspends) {
      Block *block = suspend->getBlock();
      Block *resume = block->splitBlock(suspend->getNextNode());
      builder.setInsertionPointToEnd(block);
      cf::BranchOp::create(builder, suspend.getLoc(), resume);
      stageOfBlockExit[block] = stages.size();
      stages.push_back(
          {suspend.getStage().str(), suspend, resume, {}, {}, {}, {}});
    }
    return success();
  }

  /// Computes the live-in values of every stage and the frame fields.
  LogicalResult analyzeFrame() {
    // Program order of every value, for deterministic field numbering.
    llvm::DenseMap<Value, unsigned> order;
    for (Block &block : cfg.getBody()) {
      for (BlockArgument arg : block.getArguments())
        order.try_emplace(arg, order.size());
      block.walk([&](Operation *op) {
        for (Value result : op->getResults())
          order.try_emplace(result, order.size());
      });
    }
    auto byOrder = [&](Value a, Value b) {
      return order.lookup(a) < order.lookup(b);
    };

    Liveness liveness(cfg);
    llvm::MapVector<Value, unsigned> fieldOf;
    auto addField = [&](Value value, Stage &stage) -> FailureOr<unsigned> {
      auto [it, inserted] = fieldOf.try_emplace(value, fields.size());
      if (!inserted)
        return it->second;
      std::optional<int64_t> bytes = frameBytes(value.getType());
      if (!bytes) {
        InFlightDiagnostic diag =
            emitError(value.getLoc(), "a value of type ")
            << value.getType() << " is live across suspension '" << stage.name
            << "', but only integers, floats and index can be stored in a "
               "frame";
        diag.attachNote(stage.suspend.getLoc()) << "suspension here";
        return diag;
      }
      fields.push_back({value, "", *bytes, std::min<int64_t>(*bytes, 16)});
      return it->second;
    };

    for (Stage &stage : llvm::drop_begin(stages)) {
      const Liveness::ValueSetT &in = liveness.getLiveIn(stage.resume);
      stage.liveIn.assign(in.begin(), in.end());
      llvm::sort(stage.liveIn, byOrder);
      for (Value value : stage.liveIn) {
        if (isRematerializable(value))
          continue;
        FailureOr<unsigned> field = addField(value, stage);
        if (failed(field))
          return failure();
        stage.fields.push_back(*field);
      }
      if (Value key = stage.suspend.getSortKey()) {
        FailureOr<unsigned> field = addField(key, stage);
        if (failed(field))
          return failure();
        stage.sortKeyField = *field;
        if (!llvm::is_contained(stage.fields, *field))
          stage.fields.push_back(*field);
      }
    }

    // Number fields in program order: coroutine arguments, then values.
    SmallVector<unsigned> permutation(fields.size());
    std::iota(permutation.begin(), permutation.end(), 0);
    llvm::sort(permutation, [&](unsigned a, unsigned b) {
      return byOrder(fields[a].value, fields[b].value);
    });
    SmallVector<Field> sorted;
    SmallVector<unsigned> newIndex(fields.size());
    unsigned valueCount = 0;
    for (unsigned old : permutation) {
      newIndex[old] = sorted.size();
      Field field = fields[old];
      auto arg = dyn_cast<BlockArgument>(field.value);
      field.name = arg && arg.getOwner() == &cfg.front()
                       ? "arg" + std::to_string(arg.getArgNumber())
                       : "v" + std::to_string(valueCount++);
      sorted.push_back(field);
    }
    fields = std::move(sorted);
    for (Stage &stage : stages) {
      for (unsigned &field : stage.fields)
        field = newIndex[field];
      llvm::sort(stage.fields);
      if (stage.sortKeyField)
        stage.sortKeyField = newIndex[*stage.sortKeyField];
    }
    return success();
  }

  /// Blocks of the CFG reachable from `start` without crossing a suspension.
  llvm::SetVector<Block *> reachableFrom(Block *start) {
    llvm::SetVector<Block *> reached;
    SmallVector<Block *> worklist{start};
    reached.insert(start);
    while (!worklist.empty()) {
      Block *block = worklist.pop_back_val();
      if (stageOfBlockExit.count(block))
        continue;
      for (Block *successor : block->getSuccessors())
        if (reached.insert(successor))
          worklist.push_back(successor);
    }
    return reached;
  }

  LogicalResult buildStages() {
    for (auto [index, stage] : llvm::enumerate(stages))
      if (failed(buildStage(index, stage)))
        return failure();
    return success();
  }

  LogicalResult buildStage(unsigned index, Stage &stage) {
    MLIRContext *context = coroutine.getContext();
    Location loc = stage.suspend ? stage.suspend.getLoc() : coroutine.getLoc();
    Type indexType = builder.getIndexType();
    SmallVector<Type> inputs{indexType};
    if (index == 0)
      llvm::append_range(inputs, coroutine.getLaneArgumentTypes());
    builder.setInsertionPoint(cfg);
    auto function = func::FuncOp::create(builder, loc, stageSymbol(stage.name),
                                         builder.getFunctionType(inputs, {}));
    stage.function = function;
    IRMapping mapping;
    cfg.getBody().cloneInto(&function.getBody(), mapping);
    llvm::SetVector<Block *> reached = reachableFrom(stage.resume);

    // Entry: the frame index, then the arguments (entry stage) or the loads.
    Value frame;
    llvm::DenseMap<Value, Value> entryValues;
    if (index == 0) {
      frame = function.front().insertArgument(0u, indexType, loc);
    } else {
      Block *entry = new Block();
      function.getBody().push_front(entry);
      frame = entry->addArgument(indexType, loc);
      builder.setInsertionPointToStart(entry);
      for (Value value : stage.liveIn) {
        if (isRematerializable(value)) {
          entryValues[value] =
              builder.clone(*value.getDefiningOp())->getResult(0);
          continue;
        }
        const Field &field = fields[fieldIndex(value)];
        entryValues[value] = FrameLoadOp::create(
            builder, value.getLoc(), value.getType(), frame, field.name);
      }
      cf::BranchOp::create(builder, loc, mapping.lookup(stage.resume));
    }

    // Exits: stores and the next stage at every suspension and return.
    for (Block *block : reached) {
      Block *clone = mapping.lookup(block);
      if (auto it = stageOfBlockExit.find(block);
          it != stageOfBlockExit.end()) {
        Stage &next = stages[it->second];
        Operation *branch = clone->getTerminator();
        Operation *suspend = branch->getPrevNode();
        builder.setInsertionPoint(branch);
        for (unsigned field : next.fields)
          FrameStoreOp::create(builder, suspend->getLoc(),
                               mapping.lookup(fields[field].value), frame,
                               fields[field].name);
        NextOp::create(builder, suspend->getLoc(), frame,
                       builder.getStringAttr(next.name));
        branch->erase();
        suspend->erase();
        addTransition(index, it->second);
      } else if (auto ret = dyn_cast<func::ReturnOp>(clone->getTerminator())) {
        builder.setInsertionPoint(ret);
        NextOp::create(builder, ret.getLoc(), frame, StringAttr());
        ret.erase();
        addTransition(index, std::nullopt);
      }
    }

    // Live-in values defined outside the stage come from the entry block.
    SmallVector<Value> definedInStage;
    for (Value value : stage.liveIn) {
      Value clone = mapping.lookup(value);
      if (reached.contains(value.getParentBlock()))
        definedInStage.push_back(value);
      else
        clone.replaceAllUsesWith(entryValues[value]);
    }
    SmallVector<Block *> unreached;
    for (Block &block : cfg.getBody())
      if (!reached.contains(&block))
        unreached.push_back(mapping.lookup(&block));
    for (Block *block : unreached)
      block->dropAllReferences();
    for (Block *block : unreached) {
      block->dropAllDefinedValueUses();
      block->erase();
    }

    // A live-in value redefined inside the stage (a loop-carried value): its
    // uses dominated by the redefinition keep it, the others read the frame
    // copy, through block arguments where both reach a block.
    // The repair appends branch operands, which can move a branch's
    // operands to new storage: the values are found first, for the blocks
    // of the uses, and the uses collected only after that (holding them
    // across the repair wrote through freed operands, leaving a use of the
    // loop-carried value the resume path does not dominate and a corrupt
    // use list: differential-lane-vectors --wave --vulkan --seed 190).
    DominanceInfo dominance(function);
    for (Value value : definedInStage) {
      Value clone = mapping.lookup(value);
      // A use nested in a structured op reads the value its top-level
      // ancestor sees at the start of that ancestor's block.
      auto blockOfUse = [&](OpOperand &use) -> Block * {
        if (dominance.properlyDominates(clone, use.getOwner()))
          return nullptr;
        return function.getBody()
            .findAncestorOpInRegion(*use.getOwner())
            ->getBlock();
      };
      SmallVector<Block *> blocks;
      for (OpOperand &use : clone.getUses())
        if (Block *block = blockOfUse(use))
          blocks.push_back(block);
      SsaRepair repair(clone, entryValues[value], &function.front());
      llvm::DenseMap<Block *, Value> atStart;
      for (Block *block : blocks)
        atStart.try_emplace(block, repair.valueAtStart(block));
      SmallVector<std::pair<OpOperand *, Value>> uses;
      for (OpOperand &use : clone.getUses())
        if (Block *block = blockOfUse(use)) {
          // The repair's own uses are dominated by the redefinition.
          assert(atStart.count(block) && "a use the repair added");
          uses.push_back({&use, atStart.lookup(block)});
        }
      for (auto [use, replacement] : uses)
        use->set(replacement);
    }
    for (auto &entry : entryValues) {
      if (entry.second.use_empty())
        entry.second.getDefiningOp()->erase();
      else if (isRematerializable(entry.first))
        ++rematerialized;
    }

    // A field that still holds the value loaded at the stage entry needs no
    // store: stores happen only at exits, after every load.
    function.walk([](FrameStoreOp store) {
      auto load = store.getValue().getDefiningOp<FrameLoadOp>();
      if (load && load.getField() == store.getField() &&
          load.getFrame() == store.getFrame())
        store.erase();
    });

    // Merge the straight-line block chains the CFG lowering leaves behind.
    RewritePatternSet patterns(context);
    populateBranchCanonicalization(patterns);
    (void)applyPatternsGreedily(function, std::move(patterns));
    return success();
  }

  unsigned fieldIndex(Value value) {
    for (auto [index, field] : llvm::enumerate(fields))
      if (field.value == value)
        return index;
    llvm_unreachable("live-in value without a frame field");
  }

  void addTransition(unsigned from, std::optional<unsigned> to) {
    auto edge = std::make_pair(from, to ? int64_t(*to) : int64_t(-1));
    if (!llvm::is_contained(transitions, edge))
      transitions.push_back(edge);
  }

  /// Replaces the coroutine body by its split form.
  void rewriteCoroutine() {
    Block &body = coroutine.getBody().front();
    body.dropAllReferences();
    while (!body.empty())
      body.back().erase();
    builder.setInsertionPointToEnd(&body);
    Location loc = coroutine.getLoc();
    MLIRContext *context = coroutine.getContext();

    // Header (lane id, next stage), then the fields, in AoS natural order.
    Type i32 = builder.getI32Type();
    SmallVector<Field> all{
        {Value(), FrameLayoutOp::getLaneFieldName().str(), 4, 4},
        {Value(), FrameLayoutOp::getNextFieldName().str(), 4, 4}};
    llvm::append_range(all, fields);
    bool aos = layout == FrameLayoutKind::ArrayOfStructs;
    SmallVector<Attribute> fieldAttrs;
    int64_t offset = 0, maxAlign = 1;
    for (const Field &field : all) {
      Type type = field.value ? field.value.getType() : i32;
      std::optional<int64_t> fieldOffset;
      if (aos) {
        offset = llvm::alignTo(offset, field.align);
        fieldOffset = offset;
        offset += field.size;
        maxAlign = std::max(maxAlign, field.align);
      }
      fieldAttrs.push_back(FrameFieldAttr::get(
          context, field.name, type, field.size, field.align, fieldOffset));
    }
    IntegerAttr stride;
    if (aos)
      stride = builder.getI64IntegerAttr(llvm::alignTo(offset, maxAlign));
    FrameLayoutOp::create(builder, loc, aos ? "aos" : "soa", stride,
                          builder.getArrayAttr(fieldAttrs));

    for (auto [index, stage] : llvm::enumerate(stages)) {
      StringAttr sortKey;
      if (stage.sortKeyField)
        sortKey = builder.getStringAttr(fields[*stage.sortKeyField].name);
      auto stageOp =
          StageOp::create(builder, stage.suspend ? stage.suspend.getLoc() : loc,
                          builder.getI64IntegerAttr(index),
                          builder.getStringAttr(stage.name), sortKey);
      stageOp.getBody().takeBody(stage.function.getBody());
    }
    for (auto [from, to] : transitions) {
      if (to < 0) {
        TransitionOp::create(builder, loc,
                             builder.getStringAttr(stages[from].name),
                             StringAttr(), ArrayAttr());
        continue;
      }
      SmallVector<StringRef> names;
      for (unsigned field : stages[to].fields)
        names.push_back(fields[field].name);
      TransitionOp::create(builder, loc,
                           builder.getStringAttr(stages[from].name),
                           builder.getStringAttr(stages[to].name),
                           builder.getStrArrayAttr(names));
    }
    TerminateOp::create(builder, loc);
  }

  void cleanup() {
    for (Stage &stage : stages)
      if (stage.function)
        stage.function.erase();
    if (cfg)
      cfg.erase();
  }

  CoroutineOp coroutine;
  FrameLayoutKind layout;
  OpBuilder builder;
  func::FuncOp cfg;
  SmallVector<Stage> stages;
  SmallVector<Field> fields;
  llvm::DenseMap<Block *, unsigned> stageOfBlockExit;
  SmallVector<std::pair<unsigned, int64_t>> transitions;
  unsigned rematerialized = 0;
};

} // namespace

bool sluice::wave::isSplit(CoroutineOp coroutine) {
  return !coroutine.getBody().front().getOps<FrameLayoutOp>().empty();
}

FailureOr<SplitResult> sluice::wave::splitCoroutine(CoroutineOp coroutine,
                                                    FrameLayoutKind layout) {
  if (isSplit(coroutine))
    return coroutine.emitOpError("is already split");
  // The dialects the split form is built from: the wave-split pass declares
  // them as dependent dialects, a direct caller may not have loaded them.
  // Loading an already loaded dialect returns it, so this is safe in a pass.
  coroutine.getContext()
      ->loadDialect<arith::ArithDialect, cf::ControlFlowDialect,
                    func::FuncDialect>();
  return CoroutineSplitter(coroutine, layout).run();
}
