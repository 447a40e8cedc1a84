//===- ItemLinearity.cpp - Every handler consumes its item once -----------===//
//
// Walks each handler in program order with a two-state abstract item
// (live / consumed). Branches must agree on the state they leave; regions that
// may run zero or many times (loops, unknown region ops) must not change it.
//
//===----------------------------------------------------------------------===//

#include "sluice/Dialect/Pool/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace sluice::pool {
#define GEN_PASS_DEF_VERIFYITEMLINEARITY
#include "sluice/Dialect/Pool/Transforms/Passes.h.inc"
} // namespace sluice::pool

using namespace mlir;
using namespace sluice::pool;

namespace {

/// The abstract item: live, or consumed by `consumer`.
struct ItemState {
  Operation *consumer = nullptr;
  bool isConsumed() const { return consumer != nullptr; }
};

class HandlerChecker {
public:
  explicit HandlerChecker(HandlerOp handler)
      : handler(handler), item(handler.getItem()) {}

  LogicalResult check() {
    ItemState state;
    if (failed(checkBlock(handler.getBody().front(), state)))
      return failure();
    if (!state.isConsumed())
      return handler.emitOpError("handler of stage '")
             << handler.getStage()
             << "' neither moves nor releases its item; every path must do "
                "exactly one";
    return success();
  }

private:
  LogicalResult checkBlock(Block &block, ItemState &state) {
    for (Operation &op : block)
      if (failed(checkOp(op, state)))
        return failure();
    return success();
  }

  LogicalResult checkOp(Operation &op, ItemState &state) {
    bool usesItem = llvm::is_contained(op.getOperands(), item);
    if (usesItem && state.isConsumed()) {
      InFlightDiagnostic diag = op.emitOpError("uses the item after it was ")
                                << consumedVerb(state.consumer);
      diag.attachNote(state.consumer->getLoc()) << "item consumed here";
      return diag;
    }
    if (usesItem) {
      if (isa<MoveOp, ReleaseOp>(op)) {
        state.consumer = &op;
        return success();
      }
      if (!isa<LoadOp>(op))
        return op.emitOpError("takes the item as an operand; only 'pool.load', "
                              "'pool.move' and 'pool.release' may use it");
    }
    if (op.getNumRegions() == 0)
      return success();
    if (isa<scf::IfOp, scf::IndexSwitchOp>(op))
      return checkBranches(op, state);
    if (auto exec = dyn_cast<scf::ExecuteRegionOp>(op);
        exec && exec.getRegion().hasOneBlock())
      return checkBlock(exec.getRegion().front(), state);
    return checkRepeatedRegions(op, state);
  }

  /// Every branch starts from `state`; all must leave the same state.
  LogicalResult checkBranches(Operation &op, ItemState &state) {
    SmallVector<std::pair<Region *, ItemState>> outcomes;
    for (Region &region : op.getRegions()) {
      ItemState branchState = state;
      if (!region.empty() && failed(checkRegion(region, branchState)))
        return failure();
      outcomes.push_back({&region, branchState});
    }
    auto consumedBranch = llvm::find_if(
        outcomes, [](auto &o) { return o.second.isConsumed(); });
    auto liveBranch = llvm::find_if(
        outcomes, [](auto &o) { return !o.second.isConsumed(); });
    if (consumedBranch != outcomes.end() && liveBranch != outcomes.end()) {
      InFlightDiagnostic diag =
          op.emitOpError("consumes the item on some paths but not on others; "
                         "every path must move or release it exactly once");
      diag.attachNote(consumedBranch->second.consumer->getLoc())
          << "consumed here on one path";
      // A region's own location is its parent op's: point into the branch.
      Region *live = liveBranch->first;
      if (live->empty() || live->front().empty())
        diag.attachNote(op.getLoc())
            << "this missing else branch leaves it unconsumed";
      else
        diag.attachNote(live->front().front().getLoc())
            << "this branch leaves it unconsumed";
      return diag;
    }
    if (!outcomes.empty())
      state = outcomes.front().second;
    return success();
  }

  /// Loops and unknown region ops may run their regions zero or many times.
  LogicalResult checkRepeatedRegions(Operation &op, ItemState &state) {
    for (Region &region : op.getRegions()) {
      ItemState inner = state;
      if (failed(checkRegion(region, inner)))
        return failure();
      if (inner.isConsumed() != state.isConsumed()) {
        InFlightDiagnostic diag =
            op.emitOpError("consumes the item inside a region that may run "
                           "zero or many times");
        diag.attachNote(inner.consumer->getLoc()) << "item consumed here";
        return diag;
      }
    }
    return success();
  }

  LogicalResult checkRegion(Region &region, ItemState &state) {
    if (region.empty())
      return success();
    if (!region.hasOneBlock())
      return region.getParentOp()->emitOpError(
          "has a multi-block region; item linearity needs structured control "
          "flow");
    return checkBlock(region.front(), state);
  }

  static StringRef consumedVerb(Operation *consumer) {
    return isa<MoveOp>(consumer) ? "moved" : "released";
  }

  HandlerOp handler;
  Value item;
};

struct VerifyItemLinearityPass
    : public sluice::pool::impl::VerifyItemLinearityBase<VerifyItemLinearityPass> {
  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](HandlerOp handler) {
      ok &= succeeded(HandlerChecker(handler).check());
    });
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
