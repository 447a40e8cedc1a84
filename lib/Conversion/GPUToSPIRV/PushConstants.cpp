//===- PushConstants.cpp - Scalar kernel arguments as push constants ------===//
//
// spirv-lower-abi-attrs gives every kernel argument a storage buffer; a
// scalar argument (a wave kernel's invocation count, a barrier kernel's size)
// becomes a one-member block `!spirv.struct<(T [0])>` in StorageBuffer. This
// pass moves every such block of an entry point into the entry point's one
// push-constant block (Vulkan allows one per entry point), members in
// argument order at their natural alignment, and rewrites the access chains
// that read them. The host pushes the values (vkCmdPushConstants) instead of
// filling one buffer per scalar; the binding numbers of the other arguments
// do not change.
//
// A wave program's stage kernels (the enclosing module carries the program
// descriptor) keep their invocation count, the scalar at binding 0, in its
// storage buffer (KernelABI.h, SLUICE_KERNEL_ABI_VERSION 3): the device
// placement's scheduler dispatch writes it there and the stage kernel runs
// through vkCmdDispatchIndirect, so no host-recorded constant can hold it.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/MapVector.h"

namespace sluice {
#define GEN_PASS_DEF_SLUICESPIRVPUSHCONSTANTS
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

/// The scalar of a one-member StorageBuffer block, or null.
Type scalarOfBlock(spirv::GlobalVariableOp global) {
  auto pointer = dyn_cast<spirv::PointerType>(global.getType());
  if (!pointer || pointer.getStorageClass() != spirv::StorageClass::StorageBuffer)
    return {};
  auto block = dyn_cast<spirv::StructType>(pointer.getPointeeType());
  if (!block || block.getNumElements() != 1)
    return {};
  Type member = block.getElementType(0);
  return isa<IntegerType, FloatType>(member) ? member : Type();
}

struct SluiceSPIRVPushConstantsPass
    : public sluice::impl::SluiceSPIRVPushConstantsBase<
          SluiceSPIRVPushConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    spirv::ModuleOp module = getOperation();
    Operation *parent = module->getParentOp();
    keepCount = parent && parent->hasAttr(sluice::kProgramDescriptorAttrName);
    for (auto entry : module.getOps<spirv::EntryPointOp>()) {
      auto function = module.lookupSymbol<spirv::FuncOp>(entry.getFn());
      if (function && failed(rewrite(module, function)))
        return signalPassFailure();
    }
  }

  // A wave program: the count at binding 0 stays a storage buffer.
  bool keepCount = false;

  LogicalResult rewrite(spirv::ModuleOp module, spirv::FuncOp function) {
    // The scalar blocks this function reads, in binding order.
    llvm::MapVector<spirv::GlobalVariableOp, SmallVector<spirv::AddressOfOp>>
        scalars;
    function.walk([&](spirv::AddressOfOp address) {
      auto global =
          module.lookupSymbol<spirv::GlobalVariableOp>(address.getVariable());
      if (global && scalarOfBlock(global) &&
          !(keepCount && global.getBinding() == 0u))
        scalars[global].push_back(address);
    });
    if (scalars.empty())
      return success();
    SmallVector<spirv::GlobalVariableOp> ordered;
    for (auto &entry : scalars)
      ordered.push_back(entry.first);
    llvm::sort(ordered, [](spirv::GlobalVariableOp a, spirv::GlobalVariableOp b) {
      return a.getBinding().value_or(0) < b.getBinding().value_or(0);
    });

    MLIRContext *ctx = module.getContext();
    SmallVector<Type> members;
    SmallVector<spirv::StructType::OffsetInfo> offsets;
    uint32_t offset = 0;
    for (spirv::GlobalVariableOp global : ordered) {
      Type scalar = scalarOfBlock(global);
      uint32_t bytes = std::max(1u, scalar.getIntOrFloatBitWidth() / 8);
      offset = (offset + bytes - 1) / bytes * bytes;
      members.push_back(scalar);
      offsets.push_back(offset);
      offset += bytes;
    }
    auto block = spirv::StructType::get(members, offsets);
    auto pointer =
        spirv::PointerType::get(block, spirv::StorageClass::PushConstant);
    OpBuilder builder(ordered.front());
    std::string name = (function.getName() + "_push_constants").str();
    auto push = spirv::GlobalVariableOp::create(
        builder, function.getLoc(), TypeAttr::get(pointer),
        builder.getStringAttr(name), nullptr);
    SymbolTable(module).insert(push);
    ++numBlocks;

    for (auto [member, global] : llvm::enumerate(ordered)) {
      for (spirv::AddressOfOp address : scalars[global]) {
        OpBuilder b(address);
        Value base = spirv::AddressOfOp::create(b, address.getLoc(), push);
        for (Operation *user : llvm::make_early_inc_range(address->getUsers())) {
          auto chain = dyn_cast<spirv::AccessChainOp>(user);
          if (!chain || chain.getIndices().size() != 1)
            return user->emitOpError("reads the scalar kernel argument @")
                   << global.getSymName()
                   << " other than through one access-chain index; cannot "
                      "move it to the push-constant block";
          OpBuilder at(chain);
          Value index = spirv::ConstantOp::create(
              at, chain.getLoc(), IntegerType::get(ctx, 32),
              at.getI32IntegerAttr(int32_t(member)));
          Value replacement = spirv::AccessChainOp::create(
              at, chain.getLoc(), base, ValueRange{index});
          chain.replaceAllUsesWith(replacement);
          chain.erase();
        }
        address.erase();
      }
      if (SymbolTable::symbolKnownUseEmpty(global, module)) {
        // spirv.EntryPoint interfaces (SPIR-V >= 1.4) list globals by symbol.
        global.erase();
        ++numMoved;
      }
    }
    return success();
  }
};

} // namespace
