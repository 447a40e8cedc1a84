//===- GPUToCPU.cpp - gpu.module kernels -> CPU block functions -----------===//

#include "KernelLowering.h"
#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace sluice {
#define GEN_PASS_DEF_CONVERTGPUTOCPU
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;
using namespace sluice;
using namespace sluice::gpu_to_cpu;

namespace {

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
             gpu::BarrierOp, gpu::ReturnOp>(op))
      return op->emitOpError(
          "is not supported by the CPU backend (convert-gpu-to-cpu "
          "runs thread_id, block_id, block_dim, grid_dim and barrier; "
          "lanes run one at a time, so subgroup operations have no "
          "lowering)");
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
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      if (failed(checkSupported(gpuModule)))
        return signalPassFailure();

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
        if (symbols.lookup((SLUICE_CPU_BLOCK_PREFIX + kernel.getName()).str())) {
          kernel.emitOpError("two kernels named ")
              << kernel.getName()
              << " cannot both be lowered: block functions are named by kernel";
          return signalPassFailure();
        }
        KernelContext context{kernel,  module,        symbols,
                              runtime, typeConverter, std::nullopt};
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
    for (gpu::LaunchFuncOp launch : launches)
      if (failed(lowerLaunch(launch, lowered, runtime, typeConverter)))
        return signalPassFailure();
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      gpuModule.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }

  LogicalResult lowerLaunch(gpu::LaunchFuncOp launch,
                            llvm::DenseMap<std::pair<StringAttr, StringAttr>,
                                           KernelLoweringResult> &lowered,
                            RuntimeDeclarations &runtime,
                            const LLVMTypeConverter &typeConverter) {
    if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
      return launch.emitOpError(
          "asynchronous launches are not supported by the CPU backend");
    if (launch.hasClusterSize())
      return launch.emitOpError(
          "cluster launches are not supported by the CPU backend");
    if (launch.getDynamicSharedMemorySize())
      return launch.emitOpError("dynamic shared memory is not supported by "
                                "the CPU backend; use a workgroup attribution");
    auto it =
        lowered.find({launch.getKernelModuleName(), launch.getKernelName()});
    if (it == lowered.end())
      return launch.emitOpError("launches ")
             << launch.getKernel() << ", which is not a kernel of a gpu.module";
    func::FuncOp blockFunction = it->second.blockFunction;

    OpBuilder builder(launch);
    Location loc = launch.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    auto i64 = builder.getI64Type();
    SmallVector<Type> fields;
    for (Value operand : launch.getKernelOperands())
      fields.push_back(typeConverter.convertType(operand.getType()));
    fields.append(6, i64);
    auto recordType = LLVM::LLVMStructType::getLiteral(&getContext(), fields);
    Value one = LLVM::ConstantOp::create(builder, loc, i64,
                                         builder.getI64IntegerAttr(1));
    Value record = LLVM::AllocaOp::create(builder, loc, ptr, recordType, one);
    auto store = [&](Value value, unsigned position) {
      Value address =
          LLVM::GEPOp::create(builder, loc, ptr, recordType, record,
                              ArrayRef<LLVM::GEPArg>{0, int32_t(position)});
      LLVM::StoreOp::create(builder, loc, value, address);
    };
    for (auto [position, operand] :
         llvm::enumerate(launch.getKernelOperands())) {
      Value value = operand;
      if (fields[position] != operand.getType())
        value = UnrealizedConversionCastOp::create(builder, loc,
                                                   fields[position], operand)
                    .getResult(0);
      store(value, position);
    }
    unsigned base = launch.getKernelOperands().size();
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value gridSizes[3] = {grid.x, grid.y, grid.z};
    Value blockSizes[3] = {block.x, block.y, block.z};
    Value total;
    for (unsigned d = 0; d < 3; ++d) {
      Value g = arith::IndexCastOp::create(builder, loc, i64, gridSizes[d]);
      store(g, base + d);
      store(arith::IndexCastOp::create(builder, loc, i64, blockSizes[d]),
            base + 3 + d);
      total =
          total ? arith::MulIOp::create(builder, loc, total, g).getResult() : g;
    }
    Value function =
        func::ConstantOp::create(builder, loc, blockFunction.getFunctionType(),
                                 SymbolRefAttr::get(blockFunction));
    Value workerCount = arith::ConstantIntOp::create(builder, loc, workers, 32);
    func::CallOp::create(builder, loc, runtime.launchBlocks(),
                         ValueRange{function, record, total, workerCount});
    launch.erase();
    return success();
  }
};

} // namespace
