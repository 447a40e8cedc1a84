//===- Pipelines.cpp - Registered pipelines and the wave compiler ---------===//
//
// compileWaveProgram: sluice-wave-to-gpu; the descriptor is printed as JSON
// and read back through the runtime's one reader (so what the compiler
// writes is what every runner will accept); the stage kernels' signatures
// are checked against the kernel ABI; then per backend a clone of the gpu
// hand-off is lowered (sluice-wave-to-cpu + object code + lld, or
// sluice-wave-to-spirv + spirv::serialize, or sluice-wave-to-hip + the C++
// printer) and the artifact is written.
//
//===----------------------------------------------------------------------===//

#include "sluice/Pipelines/Pipelines.h"

#include "CPUObject.h"

#include "sluice/Conversion/GPUToEmitC/HIPBackend.h"
#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"
#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"
#include "sluice/Dialect/Cohort/Transforms/Passes.h"
#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Pool/Transforms/Passes.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"
#include "sluice/Dialect/Wave/Transforms/Passes.h"
#include "sluice/InitAll.h"
#include "sluice/Target/HIP/HIPSource.h"
#include "sluice/Target/SPIRV/SPIRVBinary.h"
#include "sluice/runtime/program/artifact.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
namespace rt = sluice::runtime;

namespace sluice {

void buildInlineHelpersPipeline(OpPassManager &pm) {
  // No simplification pipeline: the inlined code is left as written, so the
  // proofs and diagnostics see the program's own operations. (Set through
  // the option, so that the printed pipeline says so and reparses the same.)
  std::unique_ptr<Pass> inliner = createInlinerPass();
  LogicalResult configured = inliner->initializeOptions(
      "default-pipeline=''", [](const Twine &) { return failure(); });
  assert(succeeded(configured) && "the inliner's option parses");
  (void)configured;
  pm.addPass(std::move(inliner));
  pm.addPass(wave::createWaveVerifyHelpersInlined());
  // Helpers whose every call was inlined (the inliner keeps those that a
  // handler called: an owner is not a callable node of its call graph).
  pm.addPass(createSymbolDCEPass());
}

void buildVerificationPipeline(OpPassManager &pm) {
  buildInlineHelpersPipeline(pm);
  pm.addPass(pool::createVerifyEmissionBounds());
  pm.addPass(pool::createVerifyItemLinearity());
  pm.addPass(cohort::createVerifyCohortFit());
}

void buildWaveToGPUPipeline(OpPassManager &pm,
                            const WaveToGPUOptions &options) {
  // No conversion sees a block that no path reaches (docs/compiler.md).
  pm.addPass(createEraseUnreachableBlocks());
  pool::PoolSetCapacityOptions capacity;
  capacity.capacities.assign(options.capacities.begin(),
                             options.capacities.end());
  pm.addPass(pool::createPoolSetCapacity(capacity));
  buildVerificationPipeline(pm);
  // Before the split: the stage kernels and the megakernel fuse the same
  // multiply-adds.
  pm.addPass(wave::createFuseMultiplyAdd());
  wave::WaveSplitOptions split;
  split.layout = options.layout;
  pm.addPass(wave::createWaveSplit(split));
  ConvertWaveToGPUOptions convert;
  convert.checkBounds = options.checkBounds;
  convert.lanePublishPositions = options.lanePublishPositions;
  pm.addPass(createConvertWaveToGPU(convert));
  pm.addPass(createBuildMegakernel());
}

void buildWaveToCPUPipeline(OpPassManager &pm,
                            const WaveToCPUOptions &options) {
  pm.addPass(createStructureStageKernels());
  ConvertGPUToCPUOptions gpu;
  gpu.forceCoroutines = options.forceCoroutines;
  gpu.coroutineLanes = options.coroutineLanes;
  gpu.laneVectorWidth = options.laneVectorWidth;
  gpu.laneVectorAlways = options.laneVectorAlways;
  pm.addPass(createConvertGPUToCPU(gpu));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void buildWaveToSPIRVPipeline(OpPassManager &pm) {
  SluiceToSPIRVOptions spirv;
  spirv.workgroupSize = SLUICE_KERNEL_BLOCK_LANES;
  buildSluiceToSPIRVPipeline(pm, spirv);
}

void buildWaveToHIPPipeline(OpPassManager &pm, unsigned indexBitwidth) {
  buildSluiceGPUToHIPPipeline(pm, SLUICE_KERNEL_BLOCK_LANES, indexBitwidth);
}

void buildHostToLLVMPipeline(OpPassManager &pm,
                             const HostToLLVMOptions &options) {
  // The host side of the gpu dialect, the same for every backend: inline
  // gpu.launch outlined into gpu.modules, async.execute bodies and gpu host
  // ops in program order on host memory (docs/gpu-host.md).
  // Every backend fuses the same multiply-adds (docs/compiler.md), and no
  // conversion sees a block that no path reaches.
  pm.addPass(createEraseUnreachableBlocks());
  pm.addPass(wave::createFuseMultiplyAdd());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createSequentializeAsync());
  pm.addPass(createLowerGPUHost());
  pm.addPass(createConvertCohortToLLVM());
  // Before any backend lowers the kernels: every backend prints the same.
  pm.addPass(createLowerGPUPrintf());
  if (options.backend == "cpu") {
    ConvertGPUToCPUOptions gpu;
    gpu.forceCoroutines = options.forceCoroutines;
    gpu.coroutineLanes = options.coroutineLanes;
    gpu.laneVectorWidth = options.laneVectorWidth;
    gpu.laneVectorAlways = options.laneVectorAlways;
    pm.addPass(createConvertGPUToCPU(gpu));
  } else {
    ConvertGPULaunchToRuntimeOptions launch;
    launch.backend = options.backend;
    pm.addPass(createConvertGPULaunchToRuntime(launch));
  }
  // Views of host memory (a gpu.memcpy from a subview): MemRefToLLVM lowers
  // them only as reinterpret casts of the extracted metadata.
  pm.addPass(createExpandHostViews());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
struct WaveToHIPOptions : public PassPipelineOptions<WaveToHIPOptions> {
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("the width of `index` inside the kernels, 64 or 32 (as "
                     "on SPIR-V; kernel parameters stay int64_t)"),
      llvm::cl::init(64)};
};
} // namespace

void registerSluicePipelines() {
  PassPipelineRegistration<>(
      "sluice-inline-helpers",
      "Inline every func.func helper called from coroutines and pool "
      "handlers (the upstream inliner), then check that no call is left",
      buildInlineHelpersPipeline);
  PassPipelineRegistration<>(
      "sluice-verify",
      "Prove Sluice's compile-time contracts: emission bounds, item "
      "linearity, cohort fit",
      buildVerificationPipeline);
  PassPipelineRegistration<WaveToGPUOptions>(
      "sluice-wave-to-gpu",
      "A wave program to the gpu hand-off: capacity overrides, the three "
      "proofs, the contracted multiply-adds fused, wave-split, "
      "convert-wave-to-gpu",
      buildWaveToGPUPipeline);
  PassPipelineRegistration<WaveToCPUOptions>(
      "sluice-wave-to-cpu",
      "The gpu hand-off's stage kernels to CPU block functions in the LLVM "
      "dialect",
      buildWaveToCPUPipeline);
  PassPipelineRegistration<HostToLLVMOptions>(
      "sluice-host-to-llvm",
      "A host program (gpu.launch_func, cohort graphs) to the LLVM dialect, "
      "its kernels compiled for backend=cpu|vulkan|hip and its launches on the "
      "host-launch ABI",
      buildHostToLLVMPipeline);
  PassPipelineRegistration<WaveToHIPOptions>(
      "sluice-wave-to-hip",
      "The gpu hand-off's stage kernels to HIP C++ in EmitC (sluice-gpu-to-hip "
      "with __launch_bounds__ of the kernel ABI's block size)",
      [](OpPassManager &pm, const WaveToHIPOptions &options) {
        buildWaveToHIPPipeline(pm, options.indexBitwidth);
      });
  PassPipelineRegistration<>(
      "sluice-wave-to-spirv",
      "The gpu hand-off's stage kernels to spirv.modules (workgroups of the "
      "kernel ABI's block size)",
      buildWaveToSPIRVPipeline);
}

llvm::ArrayRef<llvm::StringRef> waveBackends() {
  static const llvm::StringRef names[] = {"cpu", "vulkan", "hip"};
  return names;
}

namespace {

/// The sections each backend's kernels live in.
constexpr llvm::StringLiteral kCPUSection = "cpu.so";
constexpr llvm::StringLiteral kSPIRVSection = "spirv";
constexpr llvm::StringLiteral kHIPSection = SLUICE_HIP_SECTION;

llvm::StringRef sectionOf(llvm::StringRef backend) {
  if (backend == "cpu")
    return kCPUSection;
  if (backend == "hip")
    return kHIPSection;
  return kSPIRVSection;
}

/// The gpu.module of a wave program's kernels.
constexpr llvm::StringLiteral kWaveKernelModule = "sluice_kernels";

/// Each kernel's extern "C" symbol in the HIP source, by kernel name, and
/// each owner policy hook's __device__ function, by "@<hook>" (the HIP
/// lowering makes it a helper of the stage kernels' module, named as every
/// helper). `owners` is the descriptor's.
llvm::json::Object hipSymbols(ModuleOp module, const llvm::json::Array *owners) {
  llvm::json::Object symbols;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>())
      if (kernel.isKernel())
        symbols[kernel.getName()] =
            hipKernelSymbol(gpuModule.getName(), kernel.getName());
  for (const llvm::json::Value &owner : owners ? *owners : llvm::json::Array())
    if (const llvm::json::Object *object = owner.getAsObject())
      if (const llvm::json::Object *policy = object->getObject("policy"))
        for (const auto &[key, value] : *policy)
          if (std::optional<llvm::StringRef> hook = value.getAsString())
            symbols[("@" + *hook).str()] =
                hipKernelSymbol(kWaveKernelModule, *hook);
  return symbols;
}

/// The types of the kernel ABI (KernelABI.h) for a program whose owners have
/// `payloads` and whose coroutine takes `inputs`.
FailureOr<SmallVector<Type>>
expectedKernelArguments(MLIRContext *context,
                        const rt::CompiledProgram &program, Location loc) {
  auto dynamic = [](Type element) {
    return MemRefType::get({ShapedType::kDynamic}, element);
  };
  auto parse = [&](const std::string &text) -> Type {
    Type type = parseType(text, context);
    if (!type)
      emitError(loc, "the descriptor names type '") << text << "'";
    return type;
  };
  Type i32 = IntegerType::get(context, 32);
  SmallVector<Type> expected{IndexType::get(context)};
  expected.append({dynamic(i32), dynamic(i32),
                   dynamic(IntegerType::get(context, 8)),
                   dynamic(IntegerType::get(context, 64))});
  expected.append(SLUICE_KARG_FIRST_OWNER - SLUICE_KARG_NEXT_STAGE,
                  dynamic(i32));
  for (const rt::CompiledOwner &owner : program.owners) {
    expected.push_back(dynamic(i32));
    for (const std::string &text : owner.payload) {
      Type type = parse(text);
      if (!type)
        return failure();
      expected.push_back(dynamic(type));
    }
  }
  for (const std::string &text : program.inputs) {
    Type type = parse(text);
    if (!type)
      return failure();
    expected.push_back(dynamic(type));
  }
  for (const rt::CompiledBinding &binding : program.bindings) {
    Type element = parse(binding.element);
    if (!element)
      return failure();
    SmallVector<int64_t> shape;
    for (int64_t extent : binding.shape)
      shape.push_back(extent < 0 ? ShapedType::kDynamic : extent);
    if (binding.kind == rt::BindingKind::Uniform)
      shape.push_back(1);
    expected.push_back(MemRefType::get(shape, element));
  }
  expected.push_back(dynamic(IntegerType::get(context, 64))); // extents
  return expected;
}

/// Every runner fills the argument record in the kernel ABI's order; a
/// kernel with other arguments would read garbage.
LogicalResult checkKernelSignatures(ModuleOp module,
                                    const rt::CompiledProgram &program) {
  FailureOr<SmallVector<Type>> expected =
      expectedKernelArguments(module.getContext(), program, module.getLoc());
  if (failed(expected))
    return failure();
  // The megakernel takes the machine words after them (KernelABI.h).
  SmallVector<Type> megakernel(*expected);
  megakernel.push_back(
      MemRefType::get({ShapedType::kDynamic}, IntegerType::get(module.getContext(), 32)));
  WalkResult walk = module.walk([&](gpu::GPUFuncOp kernel) {
    ArrayRef<Type> wanted = kernel.getName() == program.megakernel
                                ? ArrayRef<Type>(megakernel)
                                : ArrayRef<Type>(*expected);
    if (!kernel.isKernel() || kernel.getArgumentTypes() == wanted)
      return WalkResult::advance();
    kernel.emitError("stage kernel @")
        << kernel.getName() << " takes " << kernel.getArgumentTypes()
        << ", but the kernel ABI passes " << TypeRange(wanted);
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// The runtime gives each lane its lane id as the coroutine's per-lane
/// argument; everything else comes in through bindings.
LogicalResult checkCoroutineArguments(ModuleOp module) {
  auto coroutines = module.getOps<wave::CoroutineOp>();
  if (coroutines.empty())
    return module.emitError("no wave.coroutine to compile");
  wave::CoroutineOp coroutine = *coroutines.begin();
  ArrayRef<Type> lane = coroutine.getLaneArgumentTypes();
  if (lane.size() > 1 ||
      llvm::any_of(lane, [](Type type) { return !isa<IntegerType>(type); }))
    return coroutine.emitError("the runtime passes each lane its lane id as "
                               "the coroutine's only (integer) per-lane "
                               "argument; @")
           << coroutine.getSymName() << " takes " << lane
           << " (pass shared data as bindings: bind(%name: type, ...))";
  return success();
}

bool isCPULevel(llvm::StringRef cpu) {
  return llvm::is_contained(rt::kCpuLevels, std::string_view(cpu));
}

LogicalResult checkOptions(ModuleOp module, const WaveCompileOptions &options) {
  if (options.megakernelVote != "hip" && options.megakernelVote != "gpu" &&
      options.megakernelVote != "none")
    return module.emitError("megakernel vote must be 'hip', 'gpu' or 'none', "
                            "got '")
           << options.megakernelVote << "'";
  if (options.hipIndexBitwidth != 32 && options.hipIndexBitwidth != 64)
    return module.emitError("the HIP index width must be 32 or 64, got ")
           << options.hipIndexBitwidth;
  if (options.layout != "soa" && options.layout != "aos")
    return module.emitError("frame layout must be 'soa' or 'aos', got '")
           << options.layout << "'";
  if (options.optLevel > 3)
    return module.emitError("optimization level must be 0..3, got ")
           << options.optLevel;
  if (options.cpu != "native" && options.cpu != "generic" &&
      !isCPULevel(options.cpu))
    return module.emitError("CPU must be 'native', 'generic', 'x86-64-v2', "
                            "'x86-64-v3' or 'x86-64-v4', got '")
           << options.cpu << "'";
  if (isCPULevel(options.cpu) &&
      llvm::Triple(llvm::sys::getDefaultTargetTriple()).getArch() !=
          llvm::Triple::x86_64)
    return module.emitError("CPU '")
           << options.cpu << "' is an x86-64 level, and this compiler targets "
           << llvm::sys::getDefaultTargetTriple();
  if (options.backends.empty())
    return module.emitError("no backend to compile for");
  for (const std::string &backend : options.backends)
    if (!llvm::is_contained(waveBackends(), backend))
      return module.emitError("unknown backend '")
             << backend << "'; wave programs compile for: "
             << llvm::join(waveBackends(), ", ");
  return success();
}

/// Clones the body of single-block `hook` at `b`, its arguments taking
/// `arguments`; the values it returns, or failure (at the hook) when it has
/// more than one block.
FailureOr<SmallVector<Value>> inlineHook(OpBuilder &b, func::FuncOp hook,
                                         ValueRange arguments) {
  if (!hook.getBody().hasOneBlock())
    return hook.emitOpError("is an owner policy hook with ")
           << hook.getBody().getBlocks().size()
           << " blocks; the vulkan backend inlines hooks of one block (use "
              "scf for control flow)";
  Block &body = hook.getBody().front();
  IRMapping mapping;
  mapping.map(body.getArguments(), arguments);
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> results;
  for (Value value : body.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(value));
  return results;
}

/// Per owner with a storage policy, the kernel `sluice_policy_<o>` of the
/// stage kernels' module that makes one hook call (docs/runtime.md "Owner
/// policies"): `(%call: memref<5xi64>, %storage: memref<max(N, 1)xi64>,
/// %counts: memref<max(k, 1)xi32>)`, where call = [hook (PolicyHook), C,
/// L, slots, value]; invocation 0 runs the hook, inlined, and stores its
/// value (availability, admission stage) into call[4].
LogicalResult addPolicyKernels(ModuleOp module,
                               const rt::CompiledProgram &program) {
  auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kWaveKernelModule);
  MLIRContext *ctx = module.getContext();
  Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
  for (size_t o = 0; o < program.owners.size(); ++o) {
    const rt::CompiledOwner &owner = program.owners[o];
    if (!owner.hasPolicy())
      continue;
    if (!kernels)
      return module.emitError("no gpu.module @")
             << kWaveKernelModule << " for the owners' policy kernels";
    Location loc = module.getLoc();
    int64_t words = std::max<int64_t>(owner.policyStorage, 1);
    int64_t stages = std::max<int64_t>(owner.stages.size(), 1);
    SmallVector<Type> inputs{MemRefType::get({5}, i64),
                             MemRefType::get({words}, i64),
                             MemRefType::get({stages}, i32)};
    OpBuilder b = OpBuilder::atBlockEnd(kernels.getBody());
    auto kernel = gpu::GPUFuncOp::create(
        b, loc, (rt::kPolicyKernelPrefix + std::to_string(o)),
        FunctionType::get(ctx, inputs, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    Block &entry = kernel.getBody().front();
    b.setInsertionPointToStart(&entry);
    Value call = entry.getArgument(0), storage = entry.getArgument(1),
          counts = entry.getArgument(2);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value first = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, block, zero));
    auto once = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    b.setInsertionPointToStart(once.thenBlock());
    auto word = [&](int64_t i) -> Value {
      return memref::LoadOp::create(
          b, loc, call, ValueRange{arith::ConstantIndexOp::create(b, loc, i)});
    };
    Value hook = word(0), capacity = word(1), live = word(2), slots = word(3);
    for (size_t h = 0; h < rt::kPolicyHookCount; ++h) {
      if (owner.policyHooks[h].empty())
        continue;
      auto function = module.lookupSymbol<func::FuncOp>(owner.policyHooks[h]);
      if (!function)
        return module.emitError("owner policy hook @")
               << owner.policyHooks[h] << " is not a func.func";
      Value is = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, hook,
          arith::ConstantIntOp::create(b, loc, i64, int64_t(h)));
      auto branch = scf::IfOp::create(b, loc, is, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      SmallVector<Value> arguments{storage, counts, capacity, live};
      if (rt::PolicyHook(h) == rt::PolicyHook::PrepareForProducer)
        arguments.push_back(slots);
      FailureOr<SmallVector<Value>> results =
          inlineHook(b, function, arguments);
      if (failed(results))
        return failure();
      if (!results->empty()) {
        Value value = results->front();
        if (value.getType() != i64)
          value = arith::ExtSIOp::create(b, loc, i64, value);
        memref::StoreOp::create(
            b, loc, value, call,
            ValueRange{arith::ConstantIndexOp::create(b, loc, 4)});
      }
    }
    b.setInsertionPointToEnd(&entry);
    gpu::ReturnOp::create(b, loc);
  }
  return success();
}

/// The spirv.module of the stage kernels, serialized.
LogicalResult lowerToSPIRV(ModuleOp module, const WaveCompileOptions &options,
                           const rt::CompiledProgram &program,
                           rt::ArtifactSection &out) {
  if (failed(addPolicyKernels(module, program)))
    return failure();
  PassManager pm(module.getContext());
  buildWaveToSPIRVPipeline(pm);
  if (failed(pm.run(module)))
    return failure();
  spirv::ModuleOp spv = spirvModuleFor(module, kWaveKernelModule);
  if (!spv)
    return module.emitError(
        "sluice-wave-to-spirv produced no spirv.module for @sluice_kernels");
  SmallVector<uint32_t> words;
  if (failed(serializeSPIRV(spv, words)))
    return failure();
  if (options.printLowered)
    spv->print(*options.printLowered);
  out.name = kSPIRVSection.str();
  const auto *bytes = reinterpret_cast<const unsigned char *>(words.data());
  out.bytes.assign(bytes, bytes + words.size() * sizeof(uint32_t));
  return success();
}

/// The stage kernels as HIP C++ source, one translation unit (UTF-8).
LogicalResult lowerToHIP(ModuleOp module, const WaveCompileOptions &options,
                         rt::ArtifactSection &out) {
  PassManager pm(module.getContext());
  buildWaveToHIPPipeline(pm, options.hipIndexBitwidth);
  if (failed(pm.run(module)))
    return failure();
  std::string source;
  llvm::raw_string_ostream os(source);
  if (failed(printHIPSource(module, os)))
    return failure();
  if (options.printLowered)
    *options.printLowered << source;
  out.name = kHIPSection.str();
  out.bytes.assign(source.begin(), source.end());
  return success();
}

/// The stage kernels as a shared object of block functions, and the owners'
/// policy hooks under their own names.
LogicalResult lowerToCPU(ModuleOp module, const WaveCompileOptions &options,
                         const rt::CompiledProgram &program,
                         rt::ArtifactSection &out) {
  PassManager pm(module.getContext());
  WaveToCPUOptions cpu;
  cpu.forceCoroutines = options.forceCoroutines;
  cpu.coroutineLanes = options.coroutineLanes;
  cpu.laneVectorWidth = options.laneVectorWidth;
  cpu.laneVectorAlways = options.laneVectorAlways;
  buildWaveToCPUPipeline(pm, cpu);
  if (failed(pm.run(module)))
    return failure();
  if (options.printLowered)
    module->print(*options.printLowered);
  CPUObjectOptions object;
  object.optLevel = options.optLevel;
  object.cpu = options.cpu;
  object.fastGather = options.laneVectorWidth > 1;
  object.exportPrefix = SLUICE_CPU_BLOCK_PREFIX;
  for (const rt::CompiledOwner &owner : program.owners)
    for (const std::string &hook : owner.policyHooks)
      if (!hook.empty())
        object.exportNames.push_back(hook);
  out.name = kCPUSection.str();
  return buildSharedObject(module, object, out.bytes);
}

} // namespace

LogicalResult compileWaveProgram(ModuleOp module,
                                 const WaveCompileOptions &options,
                                 std::vector<unsigned char> &artifact) {
  if (failed(checkOptions(module, options)) ||
      failed(checkCoroutineArguments(module)))
    return failure();
  // The CPU kernels publish at positions of their own (no claim that the
  // workers' cores would pass between them: docs/cpu-backend.md, "Publish
  // positions without a claim"), so they come from a hand-off of their own.
  const bool cpu = llvm::is_contained(options.backends, "cpu");
  OwningOpRef<ModuleOp> cpuHandOff;
  if (cpu)
    cpuHandOff = cast<ModuleOp>(module->clone());
  auto handOff = [&](ModuleOp target, bool lanePublishPositions) {
    PassManager pm(target.getContext());
    WaveToGPUOptions gpu;
    gpu.layout = options.layout;
    gpu.capacities = llvm::ArrayRef<std::string>(options.capacities);
    gpu.checkBounds = options.checkBounds;
    gpu.lanePublishPositions = lanePublishPositions;
    buildWaveToGPUPipeline(pm, gpu);
    return pm.run(target);
  };
  if (failed(handOff(module, false)) ||
      (cpu && failed(handOff(*cpuHandOff, true))))
    return failure();
  // Both ran the same passes on copies of one module; the option changes
  // only the kernels' claim code, never the descriptor.
  assert((!cpu || (*cpuHandOff)->getAttr(kProgramDescriptorAttrName) ==
                      module->getAttr(kProgramDescriptorAttrName)) &&
         "the CPU hand-off describes another program");

  // The descriptor, with an entry per backend, through the runtime's reader.
  FailureOr<llvm::json::Object> json = programDescriptorJSON(module);
  if (failed(json))
    return failure();
  llvm::json::Object backends;
  for (const std::string &backend : options.backends) {
    llvm::json::Object entry{{"section", sectionOf(backend)},
                             {"block_lanes", SLUICE_KERNEL_BLOCK_LANES}};
    // The level the CPU kernels need of the machine that loads them.
    if (backend == "cpu" && isCPULevel(options.cpu))
      entry["isa"] = options.cpu;
    if (backend == "cpu")
      entry["publish_positions"] = "lane";
    if (backend == "hip")
      entry["symbols"] = hipSymbols(module, json->getArray("owners"));
    // Kernels that compute index in int32_t: the runtime keeps every buffer
    // they address within its range.
    if (backend == "hip" && options.hipIndexBitwidth != 64)
      entry["index_bits"] = int64_t(options.hipIndexBitwidth);
    backends[backend] = std::move(entry);
  }
  (*json)["backends"] = std::move(backends);
  std::string text =
      llvm::formatv("{0:2}", llvm::json::Value(std::move(*json))).str();
  rt::CompiledProgram program;
  if (rt::Status status = rt::parseDescriptor(text, "<compiled>", program);
      !status.ok())
    return module.emitError(status.message());
  // The hip lowering reads the stage kernels off the descriptor (each
  // one's body becomes a __device__ function the device placement calls);
  // the spirv lowering knows a wave program's kernels by it (their count
  // stays at binding 0, KernelABI.h).
  Attribute descriptor = module->getAttr(kProgramDescriptorAttrName);
  module->removeAttr(kProgramDescriptorAttrName);
  if (failed(checkKernelSignatures(module, program)))
    return failure();
  if (cpu) {
    (*cpuHandOff)->removeAttr(kProgramDescriptorAttrName);
    if (failed(checkKernelSignatures(*cpuHandOff, program)))
      return failure();
  }

  std::vector<rt::ArtifactSection> sections;
  for (const std::string &backend : options.backends) {
    OwningOpRef<ModuleOp> copy(
        cast<ModuleOp>((backend == "cpu" ? *cpuHandOff : module)->clone()));
    if (backend != "cpu" && descriptor)
      (*copy)->setAttr(kProgramDescriptorAttrName, descriptor);
    rt::ArtifactSection &section = sections.emplace_back();
    // The hip megakernel votes per subgroup on the stage it runs (on an
    // H100: 1.17x the nested form's Mrays/s on the path tracer, 1.28x with
    // heavy shading; on the NVIDIA Vulkan driver it lost 9-15%, so SPIR-V
    // keeps the nested form: docs/compiler.md).
    bool vote = backend == "hip" ? options.megakernelVote != "none"
                : backend == "vulkan" ? options.megakernelVote == "gpu"
                                      : false;
    if (vote && !program.megakernel.empty()) {
      PassManager pm(copy->getContext());
      BuildMegakernelOptions voting;
      voting.warpVote = true;
      pm.addPass(createBuildMegakernel(voting));
      if (failed(pm.run(*copy)))
        return failure();
    }
    LogicalResult lowered =
        backend == "cpu"   ? lowerToCPU(*copy, options, program, section)
        : backend == "hip" ? lowerToHIP(*copy, options, section)
                           : lowerToSPIRV(*copy, options, program, section);
    if (failed(lowered))
      return failure();
  }
  if (rt::Status status = rt::writeArtifact(text, sections, artifact);
      !status.ok())
    return module.emitError(status.message());
  return success();
}

} // namespace sluice
