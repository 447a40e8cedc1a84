//===- StructureStageKernels.cpp - CFG stage kernels -> one region --------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace sluice {
#define GEN_PASS_DEF_STRUCTURESTAGEKERNELS
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

bool hasBarrier(gpu::GPUFuncOp kernel) {
  return kernel.walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Moves the CFG of `kernel` into one scf.execute_region; its gpu.returns
/// become scf.yields.
void wrapBody(gpu::GPUFuncOp kernel) {
  Region &body = kernel.getBody();
  Location loc = kernel.getLoc();
  Block *oldEntry = &body.front();
  Block *newEntry = new Block();
  for (BlockArgument argument : oldEntry->getArguments())
    newEntry->addArgument(argument.getType(), argument.getLoc());
  for (auto [from, to] :
       llvm::zip(oldEntry->getArguments(), newEntry->getArguments()))
    from.replaceAllUsesWith(to);
  oldEntry->eraseArguments(0, oldEntry->getNumArguments());
  OpBuilder builder(kernel.getContext());
  builder.setInsertionPointToEnd(newEntry);
  auto wrapper = scf::ExecuteRegionOp::create(builder, loc, TypeRange{});
  gpu::ReturnOp::create(builder, loc);
  Region &inner = wrapper.getRegion();
  inner.getBlocks().splice(inner.end(), body.getBlocks());
  body.push_back(newEntry);
  for (Block &block : inner) {
    auto ret = dyn_cast<gpu::ReturnOp>(block.getTerminator());
    if (!ret)
      continue;
    builder.setInsertionPoint(ret);
    scf::YieldOp::create(builder, ret.getLoc());
    ret.erase();
  }
}

struct StructureStageKernels
    : public sluice::impl::StructureStageKernelsBase<StructureStageKernels> {
  void runOnOperation() override {
    getOperation().walk([&](gpu::GPUFuncOp kernel) {
      if (kernel.getBody().hasOneBlock() ||
          kernel.getNumWorkgroupAttributions() != 0 ||
          kernel.getNumPrivateAttributions() != 0 || hasBarrier(kernel))
        return;
      wrapBody(kernel);
    });
  }
};

} // namespace
