//===- InterfaceVersion.cpp - Keep a SPIR-V 1.4+ module at its version ----===//
//
// For a target environment of SPIR-V 1.4 or later, spirv-lower-abi-attrs
// lists every global an entry point uses in its interface (storage buffers
// and workgroup variables included), as 1.4 requires; spirv-update-vce then
// lowers the module's version to the 1.0 its ops need, and 1.0 allows only
// Input and Output variables there: the module fails validation. This pass,
// after update-vce, raises the version back to the target environment's.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"

namespace sluice {
#define GEN_PASS_DEF_SLUICESPIRVINTERFACEVERSION
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

struct SluiceSPIRVInterfaceVersionPass
    : public sluice::impl::SluiceSPIRVInterfaceVersionBase<
          SluiceSPIRVInterfaceVersionPass> {
  void runOnOperation() override {
    spirv::ModuleOp module = getOperation();
    std::optional<spirv::VerCapExtAttr> triple = module.getVceTriple();
    spirv::TargetEnvAttr env = spirv::lookupTargetEnv(module);
    if (!triple || !env)
      return;
    spirv::Version wanted = env.getVersion();
    if (wanted < spirv::Version::V_1_4 || triple->getVersion() >= wanted)
      return;
    SmallVector<spirv::Capability> capabilities(triple->getCapabilities());
    SmallVector<spirv::Extension> extensions(triple->getExtensions());
    module.setVceTripleAttr(spirv::VerCapExtAttr::get(
        wanted, capabilities, extensions, &getContext()));
  }
};

} // namespace
