//===- Pipeline.cpp - The sluice-to-spirv pass pipeline -------------------===//

#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"
#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void sluice::buildSluiceToSPIRVPipeline(OpPassManager &pm,
                                        const SluiceToSPIRVOptions &options) {
  pm.addPass(createSluiceCheckSPIRV());
  ConvertSluiceGPUToSPIRVOptions convert;
  convert.workgroupSize = options.workgroupSize;
  convert.spirvVersion = options.spirvVersion;
  convert.maxPrivateBytes = options.maxPrivateBytes;
  pm.addPass(createConvertSluiceGPUToSPIRV(convert));
  OpPassManager &spv = pm.nest<spirv::ModuleOp>();
  spv.addPass(createCanonicalizerPass());
  spv.addPass(createCSEPass());
  spv.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spv.addPass(createSluiceSPIRVPushConstants());
  spv.addPass(createSluiceSPIRVStageSwitch());
  spv.addPass(spirv::createSPIRVUpdateVCEPass());
  spv.addPass(createSluiceSPIRVInt64Atomics());
  spv.addPass(createSluiceSPIRVInterfaceVersion());
  spv.addPass(createSluiceSPIRVSplitLoopHeaders());
}

void sluice::registerSluiceToSPIRVPipeline() {
  PassPipelineRegistration<SluiceToSPIRVOptions>(
      "sluice-to-spirv",
      "Lower the gpu hand-off to Vulkan spirv.modules: sluice-check-spirv, "
      "sluice-gpu-to-spirv, spirv-lower-abi-attrs, "
      "sluice-spirv-push-constants, "
      "sluice-spirv-stage-switch, spirv-update-vce, "
      "sluice-spirv-int64-atomics, sluice-spirv-interface-version, "
      "sluice-spirv-split-loop-headers",
      buildSluiceToSPIRVPipeline);
}
