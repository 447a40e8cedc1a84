//===- Int64Atomics.cpp - Int64Atomics for 64-bit atomics -----------------===//
//
// spirv-update-vce derives a module's capabilities from its ops' declared
// requirements, and the atomic ops declare none that depend on the operand
// type; spirv-val and the Vulkan feature check need Int64Atomics for an
// atomic on an i64. This pass adds it after update-vce.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

namespace sluice {
#define GEN_PASS_DEF_SLUICESPIRVINT64ATOMICS
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

bool isInt64(Type type) { return type.isInteger(64); }

/// Whether `op` is a SPIR-V atomic on a 64-bit integer.
bool isInt64Atomic(Operation *op) {
  if (!isa<spirv::SPIRVDialect>(op->getDialect()) ||
      !op->getName().stripDialect().starts_with("Atomic"))
    return false;
  return llvm::any_of(op->getResultTypes(), isInt64) ||
         llvm::any_of(op->getOperandTypes(), isInt64);
}

struct SluiceSPIRVInt64AtomicsPass
    : public sluice::impl::SluiceSPIRVInt64AtomicsBase<
          SluiceSPIRVInt64AtomicsPass> {
  void runOnOperation() override {
    spirv::ModuleOp module = getOperation();
    std::optional<spirv::VerCapExtAttr> triple = module.getVceTriple();
    if (!triple || !module.walk([](Operation *op) {
                         return isInt64Atomic(op) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
                       }).wasInterrupted())
      return;
    SmallVector<spirv::Capability> capabilities(triple->getCapabilities());
    if (llvm::is_contained(capabilities, spirv::Capability::Int64Atomics))
      return;
    capabilities.push_back(spirv::Capability::Int64Atomics);
    SmallVector<spirv::Extension> extensions(triple->getExtensions());
    module.setVceTripleAttr(spirv::VerCapExtAttr::get(
        triple->getVersion(), capabilities, extensions, &getContext()));
  }
};

} // namespace
