//===- SequentializeAsync.cpp - async.execute bodies in program order -----===//
//
// sluice-sequentialize-async: each async.execute body runs where it is
// written. Its dependencies dominate it, so they have run; an await after it
// finds it finished. That is one of the schedules the async dialect allows,
// and the one every Sluice backend's in-order stream gives its launches.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Async/IR/Async.h"

namespace sluice {
#define GEN_PASS_DEF_SEQUENTIALIZEASYNC
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

/// Whether `user` is an op this pass removes, so a use by it is allowed.
bool isRemovedAsyncUse(Operation *user) {
  return isa<async::ExecuteOp, async::AwaitOp, async::AwaitAllOp,
             async::AddToGroupOp>(user);
}

struct SequentializeAsyncPass
    : public sluice::impl::SequentializeAsyncBase<SequentializeAsyncPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // async.func, async.call and the coroutine and runtime ops would need
    // the async runtime; only regions run in place are supported.
    WalkResult unsupported =
        module.walk<WalkOrder::PreOrder>([](Operation *op) {
          if (!isa<async::AsyncDialect>(op->getDialect()) ||
              isa<async::ExecuteOp, async::YieldOp, async::AwaitOp,
                  async::AwaitAllOp, async::AddToGroupOp, async::CreateGroupOp>(
                  op))
            return WalkResult::advance();
          op->emitError("'")
              << op->getName()
              << "' is not supported: sluice-sequentialize-async runs "
                 "async.execute regions in place and has no async runtime "
                 "(write the work inline or in an async.execute)";
          return WalkResult::interrupt();
        });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    SmallVector<async::ExecuteOp> executes;
    module.walk<WalkOrder::PreOrder>(
        [&](async::ExecuteOp execute) { executes.push_back(execute); });

    // What each !async.value result of an inlined execute yielded.
    DenseMap<Value, Value> yielded;
    for (async::ExecuteOp execute : executes) {
      for (Value result : execute->getResults())
        for (Operation *user : result.getUsers())
          if (!isRemovedAsyncUse(user)) {
            InFlightDiagnostic diag =
                execute.emitError(
                    "async.execute runs in place (sluice-sequentialize-async), "
                    "so "
                    "its results may only be awaited, added to a group or "
                    "passed "
                    "to another async.execute; this one is used by '")
                << user->getName() << "'";
            diag.attachNote(user->getLoc()) << "used here";
            return signalPassFailure();
          }
      Block &body = execute.getBodyRegion().front();
      for (auto [operand, argument] :
           llvm::zip(execute.getBodyOperands(), body.getArguments())) {
        auto found = yielded.find(operand);
        if (found == yielded.end()) {
          execute.emitError("operand ")
              << operand
              << " is an !async.value that no async.execute of this module "
                 "produced; async.execute bodies run in place "
                 "(sluice-sequentialize-async) and take only the values of "
                 "earlier async.execute ops";
          return signalPassFailure();
        }
        argument.replaceAllUsesWith(found->second);
      }
      auto yield = cast<async::YieldOp>(body.getTerminator());
      for (auto [result, value] :
           llvm::zip(execute.getBodyResults(), yield.getOperands()))
        yielded[result] = value;
      // The body's ops, without its terminator, in front of the execute.
      Block *parent = execute->getBlock();
      parent->getOperations().splice(execute->getIterator(),
                                     body.getOperations(), body.begin(),
                                     yield->getIterator());
      ++numExecutes;
    }

    // Awaits, groups, then the executes (consumers before producers).
    SmallVector<Operation *> erase;
    WalkResult walk = module.walk([&](Operation *op) {
      if (auto await = dyn_cast<async::AwaitOp>(op)) {
        if (await->getNumResults() != 0) {
          auto found = yielded.find(await.getOperand());
          if (found == yielded.end()) {
            await.emitError("awaits an !async.value that no async.execute of "
                            "this module produced (async.execute bodies run "
                            "in place, sluice-sequentialize-async)");
            return WalkResult::interrupt();
          }
          await.getResult().replaceAllUsesWith(found->second);
        }
        erase.push_back(await);
      } else if (auto add = dyn_cast<async::AddToGroupOp>(op)) {
        if (!add.getRank().use_empty()) {
          OpBuilder b(add);
          add.getRank().replaceAllUsesWith(
              arith::ConstantIndexOp::create(b, add.getLoc(), 0));
        }
        erase.push_back(add);
      } else if (isa<async::AwaitAllOp>(op)) {
        erase.push_back(op);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (Operation *op : erase)
      op->erase();
    for (async::ExecuteOp execute : llvm::reverse(executes))
      execute->erase();
    SmallVector<async::CreateGroupOp> groups;
    module.walk([&](async::CreateGroupOp group) { groups.push_back(group); });
    for (async::CreateGroupOp group : groups) {
      if (!group->use_empty()) {
        Operation *user = *group->getUsers().begin();
        InFlightDiagnostic diag =
            group.emitError(
                "async groups only collect async.execute tokens for "
                "async.await_all (sluice-sequentialize-async); this one is "
                "used "
                "by '")
            << user->getName() << "'";
        diag.attachNote(user->getLoc()) << "used here";
        return signalPassFailure();
      }
      group->erase();
    }
  }
};

} // namespace
