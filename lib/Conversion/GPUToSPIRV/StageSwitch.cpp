//===- StageSwitch.cpp - One entry point that runs any stage kernel -------===//
//
// For a wave program's module (the enclosing module carries the program
// descriptor), adds the entry point `sluice_stage_switch`: it reads a stage
// index from the second word of binding 0 (the first is the count every
// stage kernel reads, KernelABI.h) and runs that stage kernel's body. The
// Vulkan device placement dispatches it once per iteration, indirectly,
// instead of one indirect dispatch per stage kernel with every grid but one
// empty (docs/runtime.md "The device placement on Vulkan").
//
// SPIR-V forbids calling an entry point, so each stage kernel's body moves
// into a plain function `<kernel>_body` that the entry point and the switch
// both call. The stage kernels share their bindings (one variable per kernel
// at each binding), so the switch binds what every stage binds. A module
// whose stage kernels disagree on their workgroup size gets no switch.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace sluice {
#define GEN_PASS_DEF_SLUICESPIRVSTAGESWITCH
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kSwitchName = "sluice_stage_switch";

struct SluiceSPIRVStageSwitchPass
    : public sluice::impl::SluiceSPIRVStageSwitchBase<
          SluiceSPIRVStageSwitchPass> {
  void runOnOperation() override {
    spirv::ModuleOp module = getOperation();
    Operation *parent = module->getParentOp();
    auto descriptor =
        parent ? parent->getAttrOfType<DictionaryAttr>(
                     sluice::kProgramDescriptorAttrName)
               : DictionaryAttr();
    if (!descriptor)
      return;
    SymbolTable symbols(module);
    if (symbols.lookup(kSwitchName))
      return;
    // The stage kernels in the runtime's global stage order: the main
    // stages, then each owner's stages (CompiledProgram::globalStages).
    SmallVector<StringRef> stageNames;
    auto addStages = [&](ArrayAttr stages) {
      for (Attribute stage : stages) {
        auto entry = dyn_cast<DictionaryAttr>(stage);
        auto kernel = entry ? entry.getAs<SymbolRefAttr>("kernel")
                            : SymbolRefAttr();
        if (kernel)
          stageNames.push_back(kernel.getLeafReference().getValue());
      }
    };
    if (auto main = descriptor.getAs<ArrayAttr>("main_stages"))
      addStages(main);
    if (auto owners = descriptor.getAs<ArrayAttr>("owners"))
      for (Attribute owner : owners)
        if (auto entry = dyn_cast<DictionaryAttr>(owner))
          if (auto stages = entry.getAs<ArrayAttr>("stages"))
            addStages(stages);
    SmallVector<spirv::EntryPointOp> entries;
    SmallVector<spirv::FuncOp> kernels;
    for (StringRef name : stageNames) {
      spirv::EntryPointOp found;
      for (auto entry : module.getOps<spirv::EntryPointOp>())
        if (entry.getFn() == name)
          found = entry;
      // A module of another gpu.module of the program: not the stages'.
      // (The module verifier makes every entry point name a spirv.func.)
      auto kernel = symbols.lookup<spirv::FuncOp>(name);
      if (!found || !kernel)
        return;
      entries.push_back(found);
      kernels.push_back(kernel);
    }
    if (entries.empty())
      return;
    // One workgroup size for every stage kernel.
    std::optional<SmallVector<int32_t>> size;
    for (auto mode : module.getOps<spirv::ExecutionModeOp>()) {
      if (mode.getExecutionMode() != spirv::ExecutionMode::LocalSize ||
          !llvm::is_contained(stageNames, mode.getFn()))
        continue;
      SmallVector<int32_t> values;
      for (Attribute value : mode.getValues())
        values.push_back(int32_t(cast<IntegerAttr>(value).getInt()));
      if (size && *size != values)
        return;
      size = values;
    }
    if (!size)
      return;
    // The count at binding 0 and, beside it, the stage index.
    spirv::GlobalVariableOp count;
    for (auto global : module.getOps<spirv::GlobalVariableOp>())
      if (global.getBinding() == 0u && global.getDescriptorSet() == 0u) {
        count = global;
        break;
      }
    auto countPointer =
        count ? dyn_cast<spirv::PointerType>(count.getType()) : nullptr;
    auto countBlock = countPointer ? dyn_cast<spirv::StructType>(
                                         countPointer.getPointeeType())
                                   : nullptr;
    if (!countBlock || countBlock.getNumElements() != 1 ||
        !countBlock.getElementType(0).isInteger(32))
      return;
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPoint(count);
    Type word = countBlock.getElementType(0);
    SmallVector<spirv::StructType::StructDecorationInfo> decorations;
    countBlock.getStructDecorations(decorations);
    auto block = spirv::StructType::get({word, word}, {0, 4}, {}, decorations);
    auto stage = spirv::GlobalVariableOp::create(
        builder, count.getLoc(),
        spirv::PointerType::get(block, spirv::StorageClass::StorageBuffer),
        (kSwitchName + "_stage").str(), /*descriptorSet=*/0, /*binding=*/0);
    symbols.insert(stage);

    // Each stage kernel's body into <kernel>_body.
    SmallVector<spirv::FuncOp> bodies;
    llvm::SetVector<Attribute> interface;
    for (auto [entry, kernel] : llvm::zip_equal(entries, kernels)) {
      for (Attribute variable : entry.getInterface())
        interface.insert(variable);
      builder.setInsertionPoint(kernel);
      auto body = cast<spirv::FuncOp>(builder.cloneWithoutRegions(*kernel));
      body.setSymName((kernel.getSymName() + "_body").str());
      body.getBody().takeBody(kernel.getBody());
      symbols.insert(body);
      Block *block = kernel.addEntryBlock();
      OpBuilder at = OpBuilder::atBlockEnd(block);
      spirv::FunctionCallOp::create(at, kernel.getLoc(), Type(),
                                    FlatSymbolRefAttr::get(body),
                                    ValueRange());
      spirv::ReturnOp::create(at, kernel.getLoc());
      bodies.push_back(body);
    }

    // The switch: if (stage == s) <kernel s>_body(), for every stage.
    Location loc = module.getLoc();
    builder.setInsertionPointToEnd(module.getBody());
    auto type = builder.getFunctionType({}, {});
    auto sw = spirv::FuncOp::create(builder, loc, kSwitchName, type);
    symbols.insert(sw);
    OpBuilder at = OpBuilder::atBlockEnd(sw.addEntryBlock());
    Value base = spirv::AddressOfOp::create(at, loc, stage);
    Value one = spirv::ConstantOp::create(at, loc, at.getI32Type(),
                                          at.getI32IntegerAttr(1));
    Value field = spirv::AccessChainOp::create(at, loc, base, ValueRange{one});
    Value index = spirv::LoadOp::create(at, loc, field);
    for (auto [s, body] : llvm::enumerate(bodies)) {
      Value value = spirv::ConstantOp::create(
          at, loc, word, at.getIntegerAttr(word, int64_t(s)));
      Value chosen = spirv::IEqualOp::create(at, loc, index, value);
      spirv::SelectionOp::createIfThen(
          loc, chosen,
          [&](OpBuilder &then) {
            spirv::FunctionCallOp::create(then, loc, Type(),
                                          FlatSymbolRefAttr::get(body),
                                          ValueRange());
          },
          at);
    }
    spirv::ReturnOp::create(at, loc);
    // SPIR-V 1.4 lists every global an entry point uses in its interface.
    spirv::TargetEnvAttr env = spirv::lookupTargetEnv(module);
    if (env && env.getVersion() >= spirv::Version::V_1_4)
      interface.insert(SymbolRefAttr::get(stage));
    spirv::EntryPointOp::create(builder, loc, spirv::ExecutionModel::GLCompute,
                                sw, interface.getArrayRef());
    spirv::ExecutionModeOp::create(builder, loc, sw,
                                   spirv::ExecutionMode::LocalSize, *size);
    ++numSwitches;
  }
};

} // namespace
