//===- LiftControlFlow.cpp - kernel CFGs as structured control flow -------===//

#include "sluice/Conversion/GPUCollectives/LiftControlFlow.h"

#include "mlir/Conversion/ControlFlowToSCF/ControlFlowToSCF.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CFGToSCF.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace {

/// Lifts the CFG of `region` (several blocks); `owner` is the op errors
/// name.
LogicalResult liftRegion(Region &region, Operation *owner, StringRef target) {
  IRRewriter rewriter(owner->getContext());
  (void)eraseUnreachableBlocks(rewriter, region);
  if (region.hasOneBlock())
    return success();
  // transformCFGToSCF leaves the region half rewritten when it meets a
  // branch it does not know (erasing the function afterwards then touches
  // freed operations): such a branch is an error before it starts.
  for (Block &block : region) {
    Operation *terminator = block.getTerminator();
    if (!terminator || terminator->getNumSuccessors() == 0 ||
        isa<cf::BranchOp, cf::CondBranchOp, cf::SwitchOp>(terminator))
      continue;
    terminator->emitOpError("is a branch that is not a cf op; only cf.br, "
                            "cf.cond_br and cf.switch can be structured for ")
        << target;
    return owner->emitOpError("control flow could not be structured for ")
           << target;
  }
  ControlFlowToSCFTransformation transformation;
  DominanceInfo dominance(owner);
  if (failed(transformCFGToSCF(region, transformation, dominance)))
    return owner->emitOpError("control flow could not be structured for ")
           << target;
  return success();
}

} // namespace

LogicalResult sluice::liftKernelControlFlow(FunctionOpInterface func,
                                            StringRef target) {
  // Every execute_region, of one block too: neither backend has the op.
  SmallVector<scf::ExecuteRegionOp> regions;
  func->walk([&](scf::ExecuteRegionOp op) { regions.push_back(op); });
  for (scf::ExecuteRegionOp op : regions) {
    if (failed(liftRegion(op.getRegion(), op, target)))
      return failure();
    if (!op.getRegion().hasOneBlock())
      return op.emitOpError("control flow could not be structured for ")
             << target;
    Block &body = op.getRegion().front();
    auto yield = cast<scf::YieldOp>(body.getTerminator());
    SmallVector<Value> results(yield.getOperands());
    yield.erase();
    op->getBlock()->getOperations().splice(op->getIterator(),
                                           body.getOperations());
    op->replaceAllUsesWith(results);
    op.erase();
  }
  Region &body = func.getFunctionBody();
  if (body.empty() || body.hasOneBlock())
    return success();
  return liftRegion(body, func, target);
}
