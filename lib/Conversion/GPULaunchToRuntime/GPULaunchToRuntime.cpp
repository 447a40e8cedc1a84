//===- GPULaunchToRuntime.cpp - gpu.launch_func to the host-launch ABI ----===//
//
// convert-gpu-launch-to-runtime: the host half of the GPU backends for
// programs that launch their own kernels (backend=vulkan or hip). The device
// half is the sluice-to-spirv pipeline, run here on the whole module; its
// binaries become constants of the host code, and every launch becomes the
// one host-launch ABI (LaunchLowering.h) with the SPIR-V words as the kernel
// handle. Operand i is binding i, the order sluice-gpu-to-spirv gives the
// interface variables. With `resident` (the default) the memref operands are
// SLUICE_LAUNCH_RESIDENT and the host code calls sluice_rt_host_access
// before it touches their memory (HostAccess.h), so back-to-back launches
// keep their arrays on the device. The CPU backend's host half is in convert-gpu-to-cpu,
// on the same lowering.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPULaunchToRuntime/HostAccess.h"
#include "sluice/Conversion/GPULaunchToRuntime/LaunchLowering.h"
#include "sluice/Conversion/GPUToEmitC/HIPBackend.h"
#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"
#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/RuntimeCalls.h"
#include "sluice/Target/HIP/HIPSource.h"
#include "sluice/Target/SPIRV/SPIRVBinary.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace sluice {
#define GEN_PASS_DEF_CONVERTGPULAUNCHTORUNTIME
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

/// Bytes per element of a memref operand as both sides store it, or 0 when
/// the host and SPIR-V widths differ (index is i32 in SPIR-V, i1 is not a
/// storage type).
unsigned storageBytes(Type element) {
  if (element.isIndex() || element.isInteger(1))
    return 0;
  return sluice::hostElementBytes(element, /*indexBytes=*/0);
}

/// What the Vulkan backend cannot launch, checked before the kernels are
/// converted so the error is at the launch, not deep in the SPIR-V lowering.
LogicalResult checkLaunch(gpu::LaunchFuncOp launch) {
  if (failed(sluice::checkLaunchForm(launch, "Vulkan")))
    return failure();
  for (auto [position, operand] : llvm::enumerate(launch.getKernelOperands())) {
    Type type = operand.getType();
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (storageBytes(memref.getElementType()) == 0)
        return launch.emitError("operand #")
               << position << " has element type " << memref.getElementType()
               << ", whose SPIR-V storage width differs from the host's; use "
                  "i8/i16/i32/i64 or f16/f32/f64 elements";
      if (!memref.getLayout().isIdentity() || memref.getMemorySpace())
        return launch.emitError("operand #")
               << position << " of type " << memref
               << " needs an identity layout in the default memory space to "
                  "be copied to a Vulkan buffer";
      continue;
    }
    if (!type.isIndex() && !(type.isIntOrFloat() && storageBytes(type)))
      return launch.emitError("operand #")
             << position << " of type " << type
             << " cannot be passed to a Vulkan kernel (scalars: integers, "
                "floats and index of 8 to 64 bits)";
  }
  return success();
}

/// What the HIP backend cannot launch: memref operands are passed as
/// row-major pointers in the default memory space.
LogicalResult checkHIPLaunch(gpu::LaunchFuncOp launch) {
  if (failed(sluice::checkLaunchForm(launch, "HIP")))
    return failure();
  for (auto [position, operand] : llvm::enumerate(launch.getKernelOperands())) {
    Type type = operand.getType();
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (!memref.getLayout().isIdentity() || memref.getMemorySpace())
        return launch.emitError("operand #")
               << position << " of type " << memref
               << " needs an identity layout in the default memory space to "
                  "be passed to a HIP kernel as a pointer";
      if (sluice::hostElementBytes(memref.getElementType(), 8) == 0)
        return launch.emitError("operand #")
               << position << " has element type " << memref.getElementType()
               << ", which a HIP kernel does not take (integers of 1 to 64 "
                  "bits, f32, f64, index)";
      continue;
    }
    if (!type.isIndex() && !type.isF32() && !type.isF64() &&
        !(type.isInteger() && sluice::hostElementBytes(type, 8)))
      return launch.emitError("operand #")
             << position << " of type " << type
             << " cannot be passed to a HIP kernel (scalars: integers, f32, "
                "f64 and index)";
  }
  return success();
}

/// `source` as an internal constant NUL-terminated string.
LLVM::GlobalOp embedSource(ModuleOp module, StringRef gpuModule,
                           StringRef source) {
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToStart(module.getBody());
  std::string data = (source + Twine('\0')).str();
  return LLVM::GlobalOp::create(
      builder, module.getLoc(),
      LLVM::LLVMArrayType::get(builder.getI8Type(), data.size()),
      /*isConstant=*/true, LLVM::Linkage::Internal,
      ("__sluice_hip_" + gpuModule).str(), builder.getStringAttr(data));
}

/// The words of `spv` as an internal constant global.
LLVM::GlobalOp embed(ModuleOp module, spirv::ModuleOp spv,
                     ArrayRef<uint32_t> words) {
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToStart(module.getBody());
  StringRef name = sluice::gpuModuleNameOf(spv);
  Type i32 = builder.getI32Type();
  auto data = DenseElementsAttr::get(
      RankedTensorType::get({int64_t(words.size())}, i32), words);
  return LLVM::GlobalOp::create(
      builder, spv.getLoc(), LLVM::LLVMArrayType::get(i32, words.size()),
      /*isConstant=*/true, LLVM::Linkage::Internal,
      ("__sluice_spirv_" + name).str(), data);
}

struct ConvertGPULaunchToRuntimePass
    : public sluice::impl::ConvertGPULaunchToRuntimeBase<
          ConvertGPULaunchToRuntimePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    OpPassManager pm(ModuleOp::getOperationName());
    sluice::buildSluiceToSPIRVPipeline(pm, {});
    sluice::buildSluiceGPUToHIPPipeline(pm);
    pm.getDependentDialects(registry);
  }

  /// backend=hip: the HIP source of each gpu.module is the kernel handle.
  void lowerForHIP(ModuleOp module) {
    WalkResult checked = module.walk([](gpu::LaunchFuncOp launch) {
      return failed(checkHIPLaunch(launch)) ? WalkResult::interrupt()
                                            : WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();
    llvm::StringMap<sluice::LaunchKernelInfo> kernels;
    module.walk([&](gpu::GPUFuncOp kernel) {
      auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
      if (kernel.isKernel() && gpuModule)
        kernels[(gpuModule.getName() + "::" + kernel.getName()).str()] =
            sluice::launchKernelInfo(kernel);
    });
    OpPassManager pm(ModuleOp::getOperationName());
    sluice::buildSluiceGPUToHIPPipeline(pm);
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();

    SymbolTable symbols(module);
    if (resident) {
      sluice::RuntimeCalls runtime(module, symbols);
      numHostAccessCalls += sluice::insertHostAccessCalls(module, runtime);
    }
    sluice::HostLaunchLowering host(module, symbols);
    llvm::StringMap<std::pair<LLVM::GlobalOp, uint64_t>> sources;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      std::string source;
      llvm::raw_string_ostream os(source);
      if (failed(sluice::printHIPSource(module, os, gpuModule.getName())))
        return signalPassFailure();
      sources[gpuModule.getName()] = {
          embedSource(module, gpuModule.getName(), source), source.size() + 1};
    }
    sluice::HostLaunchTarget target;
    target.backend = SLUICE_LAUNCH_HIP;
    target.indexBytes = 8; // index is int64_t in the HIP kernel
    target.resident = resident;
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches) {
      StringRef moduleName = launch.getKernelModuleName().getValue();
      auto found = sources.find(moduleName);
      if (found == sources.end()) {
        launch.emitError("no HIP source was produced for @")
            << moduleName
            << ": only the gpu.modules of the top-level module are lowered";
        return signalPassFailure();
      }
      std::string kernel =
          (moduleName + "::" + launch.getKernelName().getValue()).str();
      LLVM::GlobalOp text = found->second.first;
      host.lower(
          launch, target,
          [&](OpBuilder &b, Location loc) -> Value {
            return LLVM::AddressOfOp::create(b, loc, text);
          },
          found->second.second, kernels[kernel],
          sluice::hipKernelSymbol(moduleName,
                                  launch.getKernelName().getValue()));
      ++numLaunches;
    }
    for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
      if (isa<gpu::GPUModuleOp, emitc::FileOp>(op))
        op.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (backend == "hip")
      return lowerForHIP(module);
    WalkResult checked = module.walk([](gpu::LaunchFuncOp launch) {
      return failed(checkLaunch(launch)) ? WalkResult::interrupt()
                                         : WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();
    if (backend != "vulkan") {
      module.emitError("convert-gpu-launch-to-runtime: backend must be "
                       "'vulkan' or 'hip', got '")
          << backend
          << "' (the CPU backend's launches are lowered by convert-gpu-to-cpu)";
      return signalPassFailure();
    }
    // Argument access, scratch arguments and workgroup memory, read off the
    // kernels before the conversion.
    llvm::StringMap<sluice::LaunchKernelInfo> kernels;
    module.walk([&](gpu::GPUFuncOp kernel) {
      auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
      if (!kernel.isKernel() || !gpuModule)
        return;
      sluice::LaunchKernelInfo &info =
          kernels[(gpuModule.getName() + "::" + kernel.getName()).str()];
      info = sluice::launchKernelInfo(kernel);
      info.scratch = sluice::scratchArguments(kernel, maxPrivateBytes);
      for (BlockArgument attribution : kernel.getWorkgroupAttributions())
        info.workgroupBytes += sluice::attributionBytes(
            cast<MemRefType>(attribution.getType()));
    });

    OpPassManager pm(ModuleOp::getOperationName());
    sluice::SluiceToSPIRVOptions options;
    options.workgroupSize = workgroupSize;
    options.maxPrivateBytes = maxPrivateBytes;
    sluice::buildSluiceToSPIRVPipeline(pm, options);
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();

    SymbolTable symbols(module);
    // Host-access calls first: they read the launches' operands.
    if (resident) {
      sluice::RuntimeCalls runtime(module, symbols);
      numHostAccessCalls += sluice::insertHostAccessCalls(module, runtime);
    }
    sluice::HostLaunchLowering host(module, symbols);
    llvm::StringMap<std::pair<LLVM::GlobalOp, uint64_t>> binaries;
    for (auto spv : llvm::make_early_inc_range(module.getOps<spirv::ModuleOp>())) {
      SmallVector<uint32_t> words;
      if (failed(sluice::serializeSPIRV(spv, words)))
        return signalPassFailure();
      binaries[sluice::gpuModuleNameOf(spv)] = {embed(module, spv, words),
                                                words.size()};
    }

    sluice::HostLaunchTarget target;
    target.backend = SLUICE_LAUNCH_VULKAN;
    target.indexBytes = 4; // index is i32 in the SPIR-V kernel
    target.resident = resident;
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches) {
      auto found = binaries.find(launch.getKernelModuleName().getValue());
      if (found == binaries.end()) {
        launch.emitError("no SPIR-V module was produced for @")
            << launch.getKernelModuleName().getValue()
            << ": only the gpu.modules of the top-level module are converted";
        return signalPassFailure();
      }
      std::string kernel = (launch.getKernelModuleName().getValue() + "::" +
                            launch.getKernelName().getValue())
                               .str();
      LLVM::GlobalOp binary = found->second.first;
      host.lower(
          launch, target,
          [&](OpBuilder &b, Location loc) -> Value {
            return LLVM::AddressOfOp::create(b, loc, binary);
          },
          4 * found->second.second, kernels[kernel]);
      ++numLaunches;
    }
    for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
      if (isa<gpu::GPUModuleOp, spirv::ModuleOp>(op))
        op.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
