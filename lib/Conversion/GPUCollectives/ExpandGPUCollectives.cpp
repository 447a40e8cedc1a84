//===- ExpandGPUCollectives.cpp - The sluice-expand-gpu-collectives pass --===//

#include "sluice/Conversion/GPUCollectives/ExpandCollectives.h"
#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace sluice {
#define GEN_PASS_DEF_EXPANDGPUCOLLECTIVES
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

struct ExpandGPUCollectivesPass
    : public sluice::impl::ExpandGPUCollectivesBase<ExpandGPUCollectivesPass> {
  using Base::Base;

  void runOnOperation() override {
    sluice::CollectiveExpansionOptions options;
    options.subgroupSize = subgroupSize;
    options.expandSubgroupQueries = expandSubgroupQueries;
    options.expandSubgroupReduce = expandSubgroupReduce;
    options.shufflesAsIndexed = shufflesAsIndexed;
    for (auto gpuModule : getOperation().getOps<gpu::GPUModuleOp>())
      if (failed(sluice::expandGPUCollectives(gpuModule, options)))
        return signalPassFailure();
  }
};

} // namespace
