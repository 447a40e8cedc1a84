//===- SplitLoopHeaders.cpp - loop headers free of nested control flow ----===//
//
// MLIR's SPIR-V serializer emits a loop header's OpLoopMerge before the
// header's first nested spirv.mlir.selection or spirv.mlir.loop, and so
// starts a fresh block (a label of its own) for the header's ops. Its OpPhi
// operands do not follow that split: a nested loop entered from the header
// before any other nested construct names the header as the phi's incoming
// block, not the block its branch is in. The module then fails spirv-val
// ("OpPhi's incoming basic block is not a predecessor") and lavapipe runs
// such a kernel forever. This pass gives every such header a block of its
// own: the header keeps its arguments and branches to a new block that holds
// its ops, so the serializer's labels and phis agree.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/Builders.h"

namespace sluice {
#define GEN_PASS_DEF_SLUICESPIRVSPLITLOOPHEADERS
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

bool holdsStructuredControlFlow(Block &block) {
  return llvm::any_of(block, [](Operation &op) {
    return isa<spirv::LoopOp, spirv::SelectionOp>(op);
  });
}

struct SluiceSPIRVSplitLoopHeadersPass
    : public sluice::impl::SluiceSPIRVSplitLoopHeadersBase<
          SluiceSPIRVSplitLoopHeadersPass> {
  void runOnOperation() override {
    getOperation().walk([](spirv::LoopOp loop) {
      Block *header = loop.getHeaderBlock();
      if (!holdsStructuredControlFlow(*header))
        return;
      Block *body = header->splitBlock(header->begin());
      OpBuilder builder = OpBuilder::atBlockEnd(header);
      spirv::BranchOp::create(builder, loop.getLoc(), body);
    });
  }
};

} // namespace
