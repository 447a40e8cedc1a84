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
constexpr llvm::StringLiteral kRunName = "sluice_stage_run";

// The built-ins a stage body may read and still run as a virtual
// invocation of a one-dimensional launch (sluice_stage_run).
bool virtualizable(spirv::BuiltIn builtin) {
  switch (builtin) {
  case spirv::BuiltIn::WorkgroupId:
  case spirv::BuiltIn::LocalInvocationId:
  case spirv::BuiltIn::GlobalInvocationId:
  case spirv::BuiltIn::NumWorkgroups:
  case spirv::BuiltIn::LocalInvocationIndex:
    return true;
  default:
    return false;
  }
}

std::optional<spirv::BuiltIn> builtinOf(spirv::GlobalVariableOp global) {
  std::optional<StringRef> name = global.getBuiltIn();
  if (!name)
    return std::nullopt;
  return spirv::symbolizeBuiltIn(*name);
}

// Whether every use of `pointer` (a built-in's address) is a load, or an
// access chain whose uses are such.
bool onlyRead(Value pointer) {
  return llvm::all_of(pointer.getUsers(), [&](Operation *user) {
    if (isa<spirv::LoadOp>(user))
      return true;
    auto chain = dyn_cast<spirv::AccessChainOp>(user);
    return chain && chain.getBasePtr() == pointer && onlyRead(chain);
  });
}

// `pointer` and the access chains on it into the Private class.
void retarget(Value pointer) {
  auto type = cast<spirv::PointerType>(pointer.getType());
  pointer.setType(spirv::PointerType::get(type.getPointeeType(),
                                          spirv::StorageClass::Private));
  for (Operation *user : pointer.getUsers())
    if (auto chain = dyn_cast<spirv::AccessChainOp>(user))
      retarget(chain);
}

// At `at`: if (index == s) <body s>() for every stage s, the constants of
// index's type. The stage switch and sluice_stage_run both choose so.
void callChosenBody(OpBuilder &at, Location loc, Value index,
                    ArrayRef<spirv::FuncOp> bodies) {
  Type word = index.getType();
  for (auto [s, body] : llvm::enumerate(bodies)) {
    Value value = spirv::ConstantOp::create(
        at, loc, word, at.getIntegerAttr(word, int64_t(s)));
    Value chosen = spirv::IEqualOp::create(at, loc, index, value);
    spirv::SelectionOp::createIfThen(
        loc, chosen,
        [&](OpBuilder &then) {
          spirv::FunctionCallOp::create(
              then, loc, Type(), FlatSymbolRefAttr::get(body), ValueRange());
        },
        at);
  }
}

// Adds `sluice_stage_run(stage, invocation, groups)` (each a pointer to a
// Function-class i32, as a GLSL caller passes its arguments): it runs
// invocation `invocation` of stage `stage`'s body as if the stage kernel
// had been launched over `groups` workgroups, so that one workgroup of
// another shader, linked with this module, can run any stage's dispatch in
// a loop (the Vulkan device placement's fused loop, docs/runtime.md). The
// built-ins the bodies read become Private variables that every entry
// point fills from the real ones first and sluice_stage_run fills from its
// arguments. Bodies that meet at a barrier, share workgroup memory, use
// group operations or read another built-in cannot run so; they get no
// sluice_stage_run (false).
bool addStageRun(spirv::ModuleOp module, SymbolTable &symbols,
                 ArrayRef<spirv::FuncOp> bodies, int32_t groupSize) {
  // The functions the bodies reach.
  llvm::SetVector<spirv::FuncOp> reached(bodies.begin(), bodies.end());
  for (size_t i = 0; i < reached.size(); ++i) {
    spirv::FuncOp function = reached[i];
    function.walk([&](spirv::FunctionCallOp call) {
      if (auto callee = symbols.lookup<spirv::FuncOp>(call.getCallee()))
        reached.insert(callee);
    });
  }
  bool runnable = true;
  for (spirv::FuncOp function : reached)
    function.walk([&](Operation *op) {
      StringRef name = op->getName().getStringRef();
      if (isa<spirv::ControlBarrierOp>(op) ||
          name.starts_with("spirv.Group") || // GroupNonUniform* too
          name.starts_with("spirv.KHR.Subgroup"))
        runnable = false;
      if (auto address = dyn_cast<spirv::AddressOfOp>(op)) {
        auto global =
            symbols.lookup<spirv::GlobalVariableOp>(address.getVariable());
        if (!global)
          return;
        auto pointer = cast<spirv::PointerType>(global.getType());
        if (pointer.getStorageClass() == spirv::StorageClass::Workgroup)
          runnable = false;
        if (std::optional<spirv::BuiltIn> builtin = builtinOf(global))
          if (!virtualizable(*builtin) || !onlyRead(address.getPointer()))
            runnable = false;
      }
    });
  if (!runnable || symbols.lookup(kRunName))
    return false;

  // A Private shadow per built-in input the module reads. (A workgroup
  // size read as a variable would be the fused loop's, not the stage
  // kernel's: virtualizable() refuses it; as a constant it is the stage
  // kernel's and stays.)
  struct Shadow {
    spirv::GlobalVariableOp builtin, shadow;
    spirv::BuiltIn kind;
  };
  SmallVector<Shadow> shadows;
  OpBuilder builder(module.getBodyRegion());
  for (auto global :
       llvm::make_early_inc_range(module.getOps<spirv::GlobalVariableOp>())) {
    std::optional<spirv::BuiltIn> kind = builtinOf(global);
    auto pointer = cast<spirv::PointerType>(global.getType());
    if (!kind || !virtualizable(*kind) ||
        pointer.getStorageClass() != spirv::StorageClass::Input)
      continue;
    builder.setInsertionPointAfter(global);
    auto shadow = spirv::GlobalVariableOp::create(
        builder, global.getLoc(),
        spirv::PointerType::get(pointer.getPointeeType(),
                                spirv::StorageClass::Private),
        ("sluice_virtual_" + global.getSymName()).str());
    symbols.insert(shadow);
    shadows.push_back({global, shadow, *kind});
  }
  // Every read goes to the shadow (the address and the access chains on
  // it become Private pointers)...
  for (Shadow &s : shadows)
    module.walk([&](spirv::AddressOfOp address) {
      if (address.getVariable() != s.builtin.getSymName())
        return;
      address.setVariableAttr(FlatSymbolRefAttr::get(s.shadow));
      retarget(address.getPointer());
    });
  // ...which every entry point fills first.
  spirv::TargetEnvAttr env = spirv::lookupTargetEnv(module);
  bool listsGlobals = env && env.getVersion() >= spirv::Version::V_1_4;
  for (auto entry : module.getOps<spirv::EntryPointOp>()) {
    auto function = symbols.lookup<spirv::FuncOp>(entry.getFn());
    if (!function || function.isExternal())
      continue;
    OpBuilder at = OpBuilder::atBlockBegin(&function.front());
    llvm::SetVector<Attribute> interface(entry.getInterface().begin(),
                                         entry.getInterface().end());
    for (Shadow &s : shadows) {
      Location loc = function.getLoc();
      Value from = spirv::AddressOfOp::create(at, loc, s.builtin);
      Value to = spirv::AddressOfOp::create(at, loc, s.shadow);
      Value value = spirv::LoadOp::create(at, loc, from);
      spirv::StoreOp::create(at, loc, to, value);
      interface.insert(SymbolRefAttr::get(s.builtin));
      if (listsGlobals)
        interface.insert(SymbolRefAttr::get(s.shadow));
    }
    entry.setInterfaceAttr(
        ArrayAttr::get(module.getContext(), interface.getArrayRef()));
  }

  // sluice_stage_run: the shadows from the arguments, then the chosen body.
  Location loc = module.getLoc();
  builder.setInsertionPointToEnd(module.getBody());
  Type i32 = builder.getI32Type();
  Type argument = spirv::PointerType::get(i32, spirv::StorageClass::Function);
  auto run = spirv::FuncOp::create(
      builder, loc, kRunName,
      builder.getFunctionType({argument, argument, argument}, {}));
  symbols.insert(run);
  Block *block = run.addEntryBlock();
  OpBuilder at = OpBuilder::atBlockEnd(block);
  Value stage = spirv::LoadOp::create(at, loc, block->getArgument(0));
  Value invocation = spirv::LoadOp::create(at, loc, block->getArgument(1));
  Value groups = spirv::LoadOp::create(at, loc, block->getArgument(2));
  auto constant = [&](int32_t value) -> Value {
    return spirv::ConstantOp::create(at, loc, i32, at.getI32IntegerAttr(value));
  };
  Value size = constant(groupSize), zero = constant(0), one = constant(1);
  Value group = spirv::UDivOp::create(at, loc, invocation, size);
  Value local = spirv::UModOp::create(at, loc, invocation, size);
  for (Shadow &s : shadows) {
    Type pointee =
        cast<spirv::PointerType>(s.shadow.getType()).getPointeeType();
    Value x, rest = zero;
    switch (s.kind) {
    case spirv::BuiltIn::WorkgroupId:
      x = group;
      break;
    case spirv::BuiltIn::LocalInvocationId:
    case spirv::BuiltIn::LocalInvocationIndex:
      x = local;
      break;
    case spirv::BuiltIn::GlobalInvocationId:
      x = invocation;
      break;
    case spirv::BuiltIn::NumWorkgroups:
    default:
      x = groups;
      rest = one;
      break;
    }
    Value value = x;
    if (auto vector = dyn_cast<VectorType>(pointee)) {
      SmallVector<Value> parts(vector.getNumElements(), rest);
      parts[0] = x;
      value = spirv::CompositeConstructOp::create(at, loc, vector, parts);
    }
    Value to = spirv::AddressOfOp::create(at, loc, s.shadow);
    spirv::StoreOp::create(at, loc, to, value);
  }
  callChosenBody(at, loc, stage, bodies);
  spirv::ReturnOp::create(at, loc);
  return true;
}

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
    callChosenBody(at, loc, index, bodies);
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
    if (addStageRun(module, symbols, bodies,
                    (*size)[0] * (*size)[1] * (*size)[2]))
      ++numRuns;
  }
};

} // namespace
