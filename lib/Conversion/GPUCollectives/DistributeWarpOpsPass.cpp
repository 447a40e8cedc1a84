//===- DistributeWarpOpsPass.cpp - The sluice-distribute-warp-ops pass ---===//

#include "sluice/Conversion/GPUCollectives/ExpandCollectives.h"
#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace sluice {
#define GEN_PASS_DEF_DISTRIBUTEWARPOPS
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

struct DistributeWarpOpsPass
    : public sluice::impl::DistributeWarpOpsBase<DistributeWarpOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto gpuModule : getOperation().getOps<gpu::GPUModuleOp>())
      if (failed(sluice::distributeWarpOps(gpuModule, subgroupSize)))
        return signalPassFailure();
  }
};

} // namespace
