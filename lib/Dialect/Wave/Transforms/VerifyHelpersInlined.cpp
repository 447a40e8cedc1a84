//===- VerifyHelpersInlined.cpp - No call left in stage code --------------===//
//
// Stage code and handlers become kernels one lane at a time: the proofs, the
// frame analysis and both backends assume a call-free body. The pipelines
// inline helpers first (buildInlineHelpersPipeline); what is left is an
// error with the reason the inliner could not remove it.
//
//===----------------------------------------------------------------------===//

#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/Transforms/Passes.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace sluice::wave {
#define GEN_PASS_DEF_WAVEVERIFYHELPERSINLINED
#include "sluice/Dialect/Wave/Transforms/Passes.h.inc"
} // namespace sluice::wave

using namespace mlir;

namespace {

/// The callees `callable`'s body calls directly (resolvable calls only).
SmallVector<CallableOpInterface>
directCallees(CallableOpInterface callable, SymbolTableCollection &symbols) {
  SmallVector<CallableOpInterface> callees;
  if (Region *body = callable.getCallableRegion())
    body->walk([&](CallOpInterface call) {
      if (auto callee = dyn_cast_or_null<CallableOpInterface>(
              call.resolveCallableInTable(&symbols)))
        callees.push_back(callee);
    });
  return callees;
}

/// A cycle of calls from `helper` back to itself, as helper names
/// ("@f -> @g -> @f"), or empty when there is none.
std::string recursionCycle(CallableOpInterface helper,
                           SymbolTableCollection &symbols) {
  SmallVector<CallableOpInterface> path{helper};
  SmallPtrSet<Operation *, 8> visited;
  auto name = [](CallableOpInterface callable) {
    auto symbol = dyn_cast<SymbolOpInterface>(callable.getOperation());
    return ("@" + (symbol ? symbol.getName() : StringRef("?"))).str();
  };
  std::function<bool(CallableOpInterface)> reaches =
      [&](CallableOpInterface from) {
        for (CallableOpInterface callee : directCallees(from, symbols)) {
          path.push_back(callee);
          if (callee == helper)
            return true;
          if (visited.insert(callee).second && reaches(callee))
            return true;
          path.pop_back();
        }
        return false;
      };
  if (!reaches(helper))
    return "";
  return llvm::join(llvm::map_range(path, name), " -> ");
}

/// Why `call` (left by the inliner) could not be inlined.
std::string notInlinedReason(CallOpInterface call,
                             SymbolTableCollection &symbols) {
  auto callee =
      dyn_cast_or_null<CallableOpInterface>(call.resolveCallableInTable(&symbols));
  if (!callee)
    return "its callee is not a function of this module (an indirect call or "
           "an unknown symbol)";
  Region *body = callee.getCallableRegion();
  if (!body || body->empty())
    return "the helper has no body (a declaration)";
  std::string cycle = recursionCycle(callee, symbols);
  if (!cycle.empty())
    return "the helper is recursive (" + cycle +
           "); write the recursion as a loop with an explicit stack";
  if (!body->hasOneBlock())
    return "the helper's body has " + std::to_string(body->getBlocks().size()) +
           " blocks; write its control flow with scf ops";
  return "an operation in the helper cannot be inlined here";
}

struct VerifyHelpersInlinedPass
    : public sluice::wave::impl::WaveVerifyHelpersInlinedBase<
          VerifyHelpersInlinedPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    bool ok = true;
    auto check = [&](Operation *scope, StringRef what, StringRef name) {
      scope->walk([&](CallOpInterface call) {
        InFlightDiagnostic error = call->emitError("call in ")
                                   << what << " @" << name
                                   << " was not inlined: "
                                   << notInlinedReason(call, symbols);
        if (Operation *callee = call.resolveCallableInTable(&symbols))
          error.attachNote(callee->getLoc()) << "the helper is here";
        ok = false;
      });
    };
    for (Operation &op : getOperation().getOps()) {
      if (auto coroutine = dyn_cast<sluice::wave::CoroutineOp>(op))
        check(coroutine, "wave.coroutine", coroutine.getSymName());
      else if (auto owner = dyn_cast<sluice::pool::OwnerOp>(op))
        check(owner, "pool.owner", owner.getSymName());
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
