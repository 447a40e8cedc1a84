//===- LowerGPUHost.cpp - gpu host ops on host memory, in program order ---===//
//
// sluice-lower-gpu-host: every backend passes host memory to its kernels and
// runs a program's gpu work in program order, so gpu.alloc is an ordinary
// allocation, gpu.memcpy/memset are host copies and stores, registration is
// a no-op, and an async token orders nothing that program order does not
// (a token's producer dominates its users).
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace sluice {
#define GEN_PASS_DEF_LOWERGPUHOST
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

/// Emits `body(indices)` inside a loop nest over every element of `memref`.
void forEachElement(OpBuilder &b, Location loc, Value memref,
                    llvm::function_ref<void(OpBuilder &, ValueRange)> body) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<Value> lower, upper, steps;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    lower.push_back(zero);
    upper.push_back(memref::DimOp::create(b, loc, memref, d));
    steps.push_back(one);
  }
  scf::buildLoopNest(b, loc, lower, upper, steps,
                     [&](OpBuilder &nested, Location, ValueRange indices) {
                       body(nested, indices);
                     });
}

struct LowerGPUHostPass
    : public sluice::impl::LowerGPUHostBase<LowerGPUHostPass> {
  using Base::Base;

  /// The ready token of the function around `op`, created at its entry.
  DenseMap<Operation *, gpu::WaitOp> readyTokens;
  Value readyToken(Operation *op) {
    Operation *function =
        op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
    gpu::WaitOp &ready = readyTokens[function];
    if (!ready) {
      OpBuilder b(&function->getRegion(0).front(),
                  function->getRegion(0).front().begin());
      ready = gpu::WaitOp::create(b, function->getLoc(),
                                  gpu::AsyncTokenType::get(op->getContext()),
                                  ValueRange{});
    }
    return ready.getAsyncToken();
  }

  /// Replaces `token` (if any) by the function's ready token.
  void replaceToken(Operation *op, Value token) {
    if (!token)
      return;
    token.replaceAllUsesWith(readyToken(op));
    ++numTokens;
  }

  LogicalResult lower(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      MemRefType type = alloc.getMemref().getType();
      if (type.getMemorySpace())
        return alloc.emitError("gpu.alloc of ")
               << type
               << ": every backend gives kernels host memory in the default "
                  "memory space; allocate without a memory space";
      auto host =
          memref::AllocOp::create(b, loc, type, alloc.getDynamicSizes(),
                                  alloc.getSymbolOperands(), IntegerAttr());
      alloc.getMemref().replaceAllUsesWith(host.getResult());
      replaceToken(op, alloc.getAsyncToken());
    } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      memref::DeallocOp::create(b, loc, dealloc.getMemref());
      replaceToken(op, dealloc.getAsyncToken());
    } else if (auto memcpy = dyn_cast<gpu::MemcpyOp>(op)) {
      auto dst = cast<MemRefType>(memcpy.getDst().getType());
      auto src = cast<MemRefType>(memcpy.getSrc().getType());
      if (dst.getLayout().isIdentity() && src.getLayout().isIdentity()) {
        memref::CopyOp::create(b, loc, memcpy.getSrc(), memcpy.getDst());
      } else {
        forEachElement(b, loc, memcpy.getDst(),
                       [&](OpBuilder &nested, ValueRange indices) {
                         Value value = memref::LoadOp::create(
                             nested, loc, memcpy.getSrc(), indices);
                         memref::StoreOp::create(nested, loc, value,
                                                 memcpy.getDst(), indices);
                       });
      }
      replaceToken(op, memcpy.getAsyncToken());
    } else if (auto memset = dyn_cast<gpu::MemsetOp>(op)) {
      forEachElement(b, loc, memset.getDst(),
                     [&](OpBuilder &nested, ValueRange indices) {
                       memref::StoreOp::create(nested, loc, memset.getValue(),
                                               memset.getDst(), indices);
                     });
      replaceToken(op, memset.getAsyncToken());
    } else if (isa<gpu::HostRegisterOp, gpu::HostUnregisterOp>(op)) {
      // Kernels receive host memory on every backend.
    } else if (auto wait = dyn_cast<gpu::WaitOp>(op)) {
      // The host's reads of launched memory wait through the host-access
      // calls; an async wait is a ready token.
      replaceToken(op, wait.getAsyncToken());
    } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      if (!launch.getAsyncToken() && launch.getAsyncDependencies().empty())
        return success();
      std::optional<gpu::KernelDim3> cluster;
      if (launch.hasClusterSize())
        cluster = launch.getClusterSizeOperandValues();
      auto sync = gpu::LaunchFuncOp::create(
          b, loc, launch.getKernel(), launch.getGridSizeOperandValues(),
          launch.getBlockSizeOperandValues(),
          launch.getDynamicSharedMemorySize(), launch.getKernelOperands(),
          Type(), ValueRange{}, cluster);
      sync->setDiscardableAttrs(launch->getDiscardableAttrDictionary());
      replaceToken(op, launch.getAsyncToken());
    } else {
      return success();
    }
    ++numHostOps;
    op->erase();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> hostOps;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp, gpu::MemsetOp,
              gpu::HostRegisterOp, gpu::HostUnregisterOp, gpu::WaitOp,
              gpu::LaunchFuncOp>(op))
        hostOps.push_back(op);
      return WalkResult::advance();
    });
    for (Operation *op : hostOps)
      if (failed(lower(op)))
        return signalPassFailure();

    // Loop-carried and scf.if tokens are now the ready token on every path.
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    scf::ForOp::getCanonicalizationPatterns(patterns, context);
    scf::IfOp::getCanonicalizationPatterns(patterns, context);
    scf::WhileOp::getCanonicalizationPatterns(patterns, context);
    scf::ExecuteRegionOp::getCanonicalizationPatterns(patterns, context);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (auto &[function, ready] : readyTokens) {
      if (failed(applyPatternsGreedily(function, frozen)))
        return signalPassFailure();
    }
    for (auto &[function, ready] : readyTokens) {
      if (ready.getAsyncToken().use_empty()) {
        ready->erase();
        continue;
      }
      Operation *user = *ready.getAsyncToken().getUsers().begin();
      user->emitError("a !gpu.async.token is used by '")
          << user->getName()
          << "': every backend runs gpu work in program order "
             "(sluice-lower-gpu-host), so a token may only order gpu ops "
             "and flow through scf loops and branches of one function";
      return signalPassFailure();
    }
  }
};

} // namespace
