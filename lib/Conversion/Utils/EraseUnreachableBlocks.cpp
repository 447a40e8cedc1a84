//===- EraseUnreachableBlocks.cpp - sluice-erase-unreachable-blocks -------===//
//
// Dialect conversion walks a region's blocks in dominance order and so never
// sees a block that no path from the entry reaches; its operations would
// stay in their source dialects and fail the translation to LLVM IR with an
// unrealized cast. The pipelines run this pass first, so such blocks are
// gone before any conversion.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace sluice {
#define GEN_PASS_DEF_ERASEUNREACHABLEBLOCKS
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

struct EraseUnreachableBlocksPass
    : sluice::impl::EraseUnreachableBlocksBase<EraseUnreachableBlocksPass> {
  void runOnOperation() override {
    // The upstream helper goes down into the regions of the operations in
    // reachable blocks itself.
    IRRewriter rewriter(&getContext());
    (void)eraseUnreachableBlocks(rewriter, getOperation()->getRegions());
  }
};

} // namespace
