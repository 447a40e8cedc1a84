//===- ExpandHostViews.cpp - Host views in the form MemRefToLLVM lowers ---===//
//
// sluice-expand-host-views: upstream's expand-strided-metadata and
// lower-affine patterns on the host functions that have a subview or a
// reshape, without the folding and constant hoisting of those passes, so
// the rest of the host code keeps its order.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace sluice {
#define GEN_PASS_DEF_EXPANDHOSTVIEWS
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

/// Whether `function` has a view that MemRefToLLVM lowers only expanded.
bool hasView(Operation *function) {
  WalkResult walk = function->walk([](Operation *op) {
    return isa<memref::SubViewOp, memref::ExpandShapeOp,
               memref::CollapseShapeOp>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

struct ExpandHostViewsPass
    : public sluice::impl::ExpandHostViewsBase<ExpandHostViewsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    memref::populateExpandStridedMetadataPatterns(patterns);
    populateAffineToStdConversionPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    for (auto function : getOperation().getOps<FunctionOpInterface>())
      if (hasView(function) &&
          failed(applyPatternsGreedily(function, frozen, config)))
        return signalPassFailure();
  }
};

} // namespace
