//===- GPUToCPU.cpp - gpu.module kernels -> CPU block functions -----------===//

#include "KernelLowering.h"
#include "sluice/Conversion/GPUCollectives/ExpandCollectives.h"
#include "sluice/Conversion/GPUCollectives/ExpandKernelMath.h"
#include "sluice/Conversion/GPULaunchToRuntime/LaunchLowering.h"
#include "sluice/Conversion/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace sluice {
#define GEN_PASS_DEF_CONVERTGPUTOCPU
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;
using namespace sluice;
using namespace sluice::gpu_to_cpu;

namespace {

/// An scf.if with results around a gpu.shuffle becomes one without: each
/// result goes through a one-element private attribution (stored where the
/// branch yields it, loaded after the scf.if), so the shuffle stands at the
/// block level of an scf.if, where fission and lane-group coroutines cut
/// lane loops. Results of other than integer, float or index type stay.
void hoistBranchResultsAroundShuffles(gpu::GPUFuncOp kernel) {
  SmallVector<scf::IfOp> branches;
  kernel.walk([&](scf::IfOp branch) { // innermost first
    if (branch.getNumResults() != 0 &&
        branch.walk([](gpu::ShuffleOp) { return WalkResult::interrupt(); })
            .wasInterrupted() &&
        llvm::all_of(branch.getResultTypes(), [](Type type) {
          return type.isIntOrIndexOrFloat();
        }))
      branches.push_back(branch);
  });
  MLIRContext *ctx = kernel.getContext();
  auto privateSpace = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getPrivateAddressSpace());
  for (scf::IfOp branch : branches) {
    Location loc = branch.getLoc();
    OpBuilder b(branch);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    SmallVector<Value> slots;
    for (Type type : branch.getResultTypes()) {
      Type stored = type.isIndex() ? b.getI64Type() : type;
      slots.push_back(kernel.addPrivateAttribution(
          MemRefType::get({1}, stored, MemRefLayoutAttrInterface(),
                          privateSpace),
          loc));
    }
    for (Region *region : {&branch.getThenRegion(), &branch.getElseRegion()}) {
      auto yield = cast<scf::YieldOp>(region->front().getTerminator());
      OpBuilder y(yield);
      for (auto [value, slot] : llvm::zip(yield.getOperands(), slots)) {
        Value stored = value;
        if (value.getType().isIndex())
          stored = arith::IndexCastOp::create(y, loc, y.getI64Type(), value);
        memref::StoreOp::create(y, loc, stored, slot, ValueRange{zero});
      }
      yield->setOperands({});
    }
    auto replacement = scf::IfOp::create(b, loc, TypeRange{},
                                         branch.getCondition(),
                                         /*withElseRegion=*/false);
    replacement.getThenRegion().takeBody(branch.getThenRegion());
    replacement.getElseRegion().takeBody(branch.getElseRegion());
    b.setInsertionPointAfter(replacement);
    SmallVector<Value> results;
    for (auto [type, slot] : llvm::zip(branch.getResultTypes(), slots)) {
      Value loaded = memref::LoadOp::create(b, loc, slot, ValueRange{zero});
      if (type.isIndex())
        loaded = arith::IndexCastOp::create(b, loc, type, loaded);
      results.push_back(loaded);
    }
    branch.replaceAllUsesWith(results);
    branch.erase();
  }
}

/// Rejects what the CPU backend cannot run, with the op and the reason.
LogicalResult checkSupported(gpu::GPUModuleOp module) {
  WalkResult walk = module.walk([&](Operation *op) -> WalkResult {
    if (op == module.getOperation())
      return WalkResult::advance();
    if (auto function = dyn_cast<gpu::GPUFuncOp>(op)) {
      if (!function.isKernel())
        return function.emitOpError("is not a kernel; convert-gpu-to-cpu "
                                    "lowers only kernels (inline device "
                                    "functions first)");
      for (BlockArgument buffer : llvm::concat<const BlockArgument>(
               function.getWorkgroupAttributions(),
               function.getPrivateAttributions())) {
        auto type = cast<MemRefType>(buffer.getType());
        if (!staticMemRefBytes(stripMemorySpace(type)))
          return function.emitOpError("memory attribution of type ")
                 << type
                 << " is not supported on the CPU: it needs a static shape, "
                    "an identity layout and an integer, float or vector "
                    "element type";
      }
      return WalkResult::advance();
    }
    if (op->getDialect() && isa<gpu::GPUDialect>(op->getDialect()) &&
        !isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
             gpu::BarrierOp, gpu::ShuffleOp, gpu::ReturnOp>(op))
      return op->emitOpError(
          "is not supported by the CPU backend (convert-gpu-to-cpu "
          "runs thread_id, block_id, block_dim, grid_dim, barrier, shuffle, "
          "the subgroup queries, subgroup_reduce and all_reduce)");
    if (op->getParentOp() == module.getOperation() &&
        !op->hasTrait<OpTrait::IsTerminator>())
      return op->emitOpError(
          "in a gpu.module is not supported by the CPU backend; only "
          "gpu.func kernels are");
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

struct ConvertGPUToCPUPass
    : public sluice::impl::ConvertGPUToCPUBase<ConvertGPUToCPUPass> {
  using ConvertGPUToCPUBase::ConvertGPUToCPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    RuntimeDeclarations runtime(module, symbols);
    LLVMTypeConverter typeConverter(&getContext());

    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    WalkResult launchesChecked = module.walk([](gpu::LaunchFuncOp launch) {
      return failed(checkLaunch(launch)) ? WalkResult::interrupt()
                                         : WalkResult::advance();
    });
    if (launchesChecked.wasInterrupted())
      return signalPassFailure();
    if (subgroupSize == 0 || subgroupSize > 128 ||
        !llvm::isPowerOf2_32(subgroupSize)) {
      module.emitError("convert-gpu-to-cpu: subgroup-size must be a power of "
                       "two from 1 to 128, got ")
          << unsigned(subgroupSize);
      return signalPassFailure();
    }
    CollectiveExpansionOptions collectives;
    collectives.subgroupSize = subgroupSize;
    collectives.shufflesAsIndexed = true;
    KernelMathOptions math;
    math.widenHalfFunctions = true; // libm has f32 and f64 functions
    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      if (failed(expandGPUCollectives(gpuModule, collectives)) ||
          failed(expandKernelMath(gpuModule, math)))
        return signalPassFailure();
      gpuModule.walk(hoistBranchResultsAroundShuffles);
      if (failed(checkSupported(gpuModule)))
        return signalPassFailure();
    }

    // Constant block sizes shared by every launch of a kernel.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>,
                   std::optional<std::array<int64_t, 3>>>
        launchBlockSizes;
    module.walk([&](gpu::LaunchFuncOp launch) {
      gpu::KernelDim3 sizes = launch.getBlockSizeOperandValues();
      std::optional<std::array<int64_t, 3>> constant = std::array<int64_t, 3>{};
      Value values[3] = {sizes.x, sizes.y, sizes.z};
      for (unsigned d = 0; d < 3; ++d) {
        std::optional<int64_t> size = getConstantIntValue(values[d]);
        if (!size || *size <= 0)
          constant.reset();
        else if (constant)
          (*constant)[d] = *size;
      }
      auto key =
          std::make_pair(launch.getKernelModuleName(), launch.getKernelName());
      auto [it, inserted] = launchBlockSizes.try_emplace(key, constant);
      if (!inserted && it->second != constant)
        it->second.reset();
    });

    // Kernels by (module, kernel) name.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, KernelLoweringResult>
        lowered;
    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        // Block functions are named by kernel; a second kernel of the same
        // name (another gpu.module) gets a uniqued name from the symbol
        // table, and its launches call it through `lowered`.
        KernelContext context{kernel,  module,        symbols,
                              runtime, typeConverter, std::nullopt};
        context.subgroupSize = subgroupSize;
        context.laneVectorWidth = laneVectorWidth;
        context.laneVectorAlways = laneVectorAlways;
        context.laneVectorRemarks = laneVectorRemarks;
        context.hasShuffles =
            kernel.walk([](gpu::ShuffleOp) { return WalkResult::interrupt(); })
                .wasInterrupted();
        if (std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize())
          context.staticBlockSize = {(*known)[0], (*known)[1], (*known)[2]};
        else if (auto it = launchBlockSizes.find(
                     {gpuModule.getSymNameAttr(),
                      SymbolTable::getSymbolName(kernel)});
                 it != launchBlockSizes.end())
          context.staticBlockSize = it->second;
        KernelLoweringResult result;
        std::string reason =
            forceCoroutines ? "forced"
                            : fissionObstacle(kernel, /*laneGroups=*/false);
        if (reason.empty() && failed(lowerByFission(context, result, reason))) {
          symbols.erase(result.blockFunction);
          result = KernelLoweringResult();
        } else if (reason.empty()) {
          ++numFissionKernels;
          numAggregatedAdds += result.aggregatedAdds;
          numVectorLaneLoops += result.vectorLaneLoops;
          numLaneLoops += result.laneLoops;
          numPerLaneArrays += result.spilledValues;
          lowered[{gpuModule.getSymNameAttr(),
                   SymbolTable::getSymbolName(kernel)}] = result;
          continue;
        }
        if (failed(lowerByCoroutines(context, result, coroutineLanes)))
          return signalPassFailure();
        ++numCoroutineKernels;
        numPerLaneArrays += result.spilledValues;
        numSuspendPoints += result.suspendPoints;
        lowered[{gpuModule.getSymNameAttr(),
                 SymbolTable::getSymbolName(kernel)}] = result;
      }
    }

    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    sluice::HostLaunchLowering host(module, symbols);
    for (gpu::LaunchFuncOp launch : launches)
      if (failed(lowerLaunch(launch, lowered, host)))
        return signalPassFailure();
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      gpuModule.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
    if (failed(callLibmForMissingIntrinsics(module)))
      return signalPassFailure();
  }

  /// The math functions LLVM has no (accurate) intrinsic for become calls of the host's
  /// libm (erff, cbrt, ...), which the JIT and the ahead-of-time objects
  /// resolve like the sinf and expf that LLVM's own intrinsics call.
  static LogicalResult callLibmForMissingIntrinsics(ModuleOp module) {
    ConversionTarget target(*module.getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    // expm1 and log1p too: MathToLLVM computes them as exp(x) - 1 and
    // log(1 + x), which lose every digit for small x.
    target.addIllegalOp<math::ErfOp, math::ErfcOp, math::CbrtOp, math::AcoshOp,
                        math::AsinhOp, math::AtanhOp, math::ExpM1Op,
                        math::Log1pOp>();
    RewritePatternSet patterns(module.getContext());
    populateMathToLibmConversionPatterns(patterns);
    return applyPartialConversion(module, target, std::move(patterns));
  }

  /// What the CPU backend cannot launch, checked before the kernels are
  /// lowered so that the error is at the launch.
  static LogicalResult checkLaunch(gpu::LaunchFuncOp launch) {
    if (failed(sluice::checkLaunchForm(launch, "CPU")))
      return failure();
    for (auto [position, operand] :
         llvm::enumerate(launch.getKernelOperands())) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      SmallVector<int64_t> strides;
      int64_t offset;
      if (type && failed(type.getStridesAndOffset(strides, offset)))
        return launch.emitError("operand #")
               << position << " of type " << type
               << " has a layout the CPU backend cannot pass: a strided "
                  "layout is needed";
      if (!type && sluice::hostElementBytes(operand.getType(), 8) == 0)
        return launch.emitError("operand #")
               << position << " of type " << operand.getType()
               << " cannot be passed to a CPU kernel (scalars: integers, "
                  "floats and index of 1 to 64 bits)";
    }
    return success();
  }

  LogicalResult lowerLaunch(gpu::LaunchFuncOp launch,
                            llvm::DenseMap<std::pair<StringAttr, StringAttr>,
                                           KernelLoweringResult> &lowered,
                            sluice::HostLaunchLowering &host) {
    auto it =
        lowered.find({launch.getKernelModuleName(), launch.getKernelName()});
    if (it == lowered.end())
      return launch.emitOpError("launches ")
             << launch.getKernel()
             << ", which is not a kernel of a top-level gpu.module; "
                "convert-gpu-to-cpu lowers those only";
    func::FuncOp blockFunction = it->second.blockFunction;
    sluice::HostLaunchTarget target;
    target.backend = SLUICE_LAUNCH_CPU;
    target.indexBytes = 8;
    target.workers = workers;
    host.lower(
        launch, target,
        [&](OpBuilder &b, Location loc) -> Value {
          Value function = func::ConstantOp::create(
              b, loc, blockFunction.getFunctionType(),
              SymbolRefAttr::get(blockFunction));
          return UnrealizedConversionCastOp::create(
                     b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                     function)
              .getResult(0);
        },
        /*handleBytes=*/0,
        // Host memory is the kernel's memory: no access flags, no copies.
        sluice::LaunchKernelInfo());
    return success();
  }
};

} // namespace
