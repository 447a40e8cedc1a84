//===- GPUToEmitC.cpp - Sluice's gpu hand-off to EmitC for HIP ------------===//
//
// sluice-gpu-to-hip-emitc: a copy of every gpu.module is prepared
// (Prepare.cpp) and converted with upstream's Arith, SCF, Func and Math (C99)
// to EmitC patterns plus Sluice's (Patterns.cpp) into the emitc.file
// "sluice.hip.<module>", after the prelude file "sluice.hip" that makes the
// source compile under hipcc and NVRTC alike. Every kernel is preceded by a
// comment naming its parameters (HIPABI.h). docs/hip-backend.md.
//
//===----------------------------------------------------------------------===//

#include "Prepare.h"
#include "sluice/Conversion/GPUCollectives/ExpandCollectives.h"
#include "sluice/Conversion/GPUCollectives/ExpandKernelMath.h"

#include "sluice/Conversion/GPUToEmitC/HIPBackend.h"
#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"

#include "mlir/Conversion/ArithToEmitC/ArithToEmitC.h"
#include "mlir/Conversion/FuncToEmitC/FuncToEmitC.h"
#include "mlir/Conversion/MathToEmitC/MathToEmitC.h"
#include "mlir/Conversion/SCFToEmitC/SCFToEmitC.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace sluice {
#define GEN_PASS_DEF_CONVERTSLUICEGPUTOHIPEMITC
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

/// The names of the kernel ABI's arguments (KernelABI.h) for the program of
/// descriptor `program`.
SmallVector<std::string> stageArgumentNames(DictionaryAttr program) {
  SmallVector<std::string> names{"count",
                                 "invocations",
                                 "lane_ids",
                                 "frames",
                                 "field_offsets",
                                 "next_stage",
                                 "counters",
                                 "published_slots",
                                 "published_counts",
                                 "alloc_limits",
                                 "fault"};
  if (auto owners = program.getAs<ArrayAttr>("owners"))
    for (auto owner : owners.getAsRange<DictionaryAttr>()) {
      std::string name = "owner";
      if (auto text = owner.getAs<StringAttr>("name"))
        name = text.str();
      names.push_back(name + ".free_ring");
      if (auto payload = owner.getAs<ArrayAttr>("payload"))
        for (size_t k = 0; k < payload.size(); ++k)
          names.push_back(name + ".payload" + std::to_string(k));
    }
  if (auto inputs = program.getAs<ArrayAttr>("inputs"))
    for (size_t k = 0; k < inputs.size(); ++k)
      names.push_back("input" + std::to_string(k));
  if (auto bindings = program.getAs<ArrayAttr>("bindings"))
    for (auto binding : bindings.getAsRange<DictionaryAttr>())
      if (auto text = binding.getAs<StringAttr>("name"))
        names.push_back("binding " + text.str());
  names.push_back("binding_extents");
  return names;
}

/// Adds `module::kernel` of every kernel reference under `attr` to `out`.
void collectKernelRefs(Attribute attr, llvm::StringSet<> &out) {
  if (auto ref = dyn_cast<SymbolRefAttr>(attr)) {
    if (!ref.getNestedReferences().empty())
      out.insert((ref.getRootReference().getValue() +
                  "::" + ref.getLeafReference().getValue())
                     .str());
    return;
  }
  if (auto dict = dyn_cast<DictionaryAttr>(attr))
    for (NamedAttribute entry : dict)
      collectKernelRefs(entry.getValue(), out);
  if (auto array = dyn_cast<ArrayAttr>(attr))
    for (Attribute entry : array)
      collectKernelRefs(entry, out);
}

/// The C spelling of a kernel parameter of MLIR type `type`.
std::string cParameterType(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type)) {
    Type element = memref.getElementType();
    return (element.isInteger(1) ? std::string("uint8_t")
                                 : cParameterType(element)) +
           " *";
  }
  if (type.isIndex())
    return "int64_t";
  if (type.isInteger(1))
    return "bool";
  if (type.isInteger())
    return "int" + std::to_string(type.getIntOrFloatBitWidth()) + "_t";
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  return "?";
}

/// The comment lines naming the parameters of `kernel` (before preparation).
SmallVector<std::string> parameterComment(gpu::GPUFuncOp kernel,
                                          StringRef symbol,
                                          ArrayRef<std::string> names,
                                          bool hasBody,
                                          unsigned indexBitwidth) {
  SmallVector<std::string> lines;
  auto module = kernel->getParentOfType<gpu::GPUModuleOp>();
  lines.push_back(("// " + symbol + ": gpu.func @" + module.getName() + "::@" +
                   kernel.getName() + "; parameters:")
                      .str());
  unsigned parameter = 0;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    std::string name = i < names.size() ? names[i] : "arg " + std::to_string(i);
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    os << type;
    lines.push_back("//   " + std::to_string(parameter++) + ": " +
                    cParameterType(type) + " " + name + " (" + typeText + ")");
    if (auto memref = dyn_cast<MemRefType>(type))
      for (int64_t d = 0; d < memref.getRank(); ++d)
        if (memref.isDynamicDim(d))
          lines.push_back("//   " + std::to_string(parameter++) + ": int64_t " +
                          name + " dimension " + std::to_string(d));
  }
  if (hasBody)
    lines.push_back(("// The body is " + symbol + SLUICE_HIP_BODY_SUFFIX +
                     "(<the parameters>, int" + std::to_string(indexBitwidth) +
                     "_t invocation).")
                        .str());
  return lines;
}

/// The constant block size of every launch of each kernel, by
/// "module::kernel"; launches that disagree or are not constant give none.
llvm::StringMap<int64_t> launchBlockSizes(ModuleOp module) {
  llvm::StringMap<int64_t> sizes;
  llvm::StringSet<> unknown;
  module.walk([&](gpu::LaunchFuncOp launch) {
    std::string key = (launch.getKernelModuleName().getValue() +
                       "::" + launch.getKernelName().getValue())
                          .str();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    int64_t total = 1;
    for (Value value : {block.x, block.y, block.z}) {
      APInt constant;
      if (!matchPattern(value, m_ConstantInt(&constant))) {
        unknown.insert(key);
        return;
      }
      total *= constant.getSExtValue();
    }
    auto [it, inserted] = sizes.try_emplace(key, total);
    if (!inserted && it->second != total)
      unknown.insert(key);
  });
  for (const auto &key : unknown)
    sizes.erase(key.getKey());
  return sizes;
}

void emitPrelude(OpBuilder &b, Location loc) {
  auto line = [&](StringRef text) { emitc::VerbatimOp::create(b, loc, text); };
  line("// HIP C++ generated by Sluice (sluice-gpu-to-hip-emitc); compiles "
       "with hipcc and NVRTC.");
  line("#if defined(__HIPCC__)");
  emitc::IncludeOp::create(b, loc, "hip/hip_runtime.h",
                           /*is_standard_include=*/true);
  line("#elif defined(__CUDACC_RTC__)");
  // NVRTC has no <stdint.h>; these are the widths of every CUDA target.
  line("typedef signed char int8_t;");
  line("typedef short int16_t;");
  line("typedef int int32_t;");
  line("typedef long long int64_t;");
  line("typedef unsigned char uint8_t;");
  line("typedef unsigned short uint16_t;");
  line("typedef unsigned int uint32_t;");
  line("typedef unsigned long long uint64_t;");
  // Nor <math.h>: the C++ printer writes a NaN or infinite constant as NAN
  // or INFINITY.
  line("#define NAN __int_as_float(0x7fc00000)");
  line("#define INFINITY __int_as_float(0x7f800000)");
  line("#else");
  emitc::IncludeOp::create(b, loc, "stdint.h", /*is_standard_include=*/true);
  line("#endif");
  // The lane within the wavefront or warp, of any warp size.
  line("#define SLUICE_LANE_ID() ((threadIdx.x + blockDim.x * (threadIdx.y + "
       "blockDim.y * threadIdx.z)) % warpSize)");
  // The value of lane `lane` of the subgroup (all its lanes take part).
  line("#if defined(__CUDACC_RTC__) || defined(__CUDACC__)");
  line("#define SLUICE_SHFL(value, lane) __shfl_sync(0xffffffffu, (value), "
       "(int)(lane))");
  line("#else");
  line("#define SLUICE_SHFL(value, lane) __shfl((value), (int)(lane))");
  line("#endif");
  // Whole-subgroup reductions of an i32 (isHIPNativeSubgroupReduce): one
  // REDUX instruction on NVIDIA from sm_80, else a butterfly of xor
  // shuffles over warpSize. Every lane of the subgroup takes part.
  line(R"(#if (defined(__CUDACC_RTC__) || defined(__CUDACC__)) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define SLUICE_SUBGROUP_REDUCE(name, T, redux, combine) \
  __device__ inline int32_t sluice_subgroup_##name(int32_t value) { \
    return (int32_t)redux(__activemask(), (T)value); \
  }
#else
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define SLUICE_SHFL_XOR(value, mask) __shfl_xor_sync(__activemask(), (value), (mask))
#else
#define SLUICE_SHFL_XOR(value, mask) __shfl_xor((value), (mask))
#endif
#define SLUICE_SUBGROUP_REDUCE(name, T, redux, combine) \
  __device__ inline int32_t sluice_subgroup_##name(int32_t value) { \
    T x = (T)value; \
    for (int mask = 1; mask < warpSize; mask <<= 1) { \
      T y = (T)SLUICE_SHFL_XOR((int32_t)x, mask); \
      x = combine; \
    } \
    return (int32_t)x; \
  }
#endif
SLUICE_SUBGROUP_REDUCE(add, uint32_t, __reduce_add_sync, x + y)
SLUICE_SUBGROUP_REDUCE(and, uint32_t, __reduce_and_sync, x & y)
SLUICE_SUBGROUP_REDUCE(or, uint32_t, __reduce_or_sync, x | y)
SLUICE_SUBGROUP_REDUCE(xor, uint32_t, __reduce_xor_sync, x ^ y)
SLUICE_SUBGROUP_REDUCE(minsi, int32_t, __reduce_min_sync, (y < x ? y : x))
SLUICE_SUBGROUP_REDUCE(maxsi, int32_t, __reduce_max_sync, (y > x ? y : x))
SLUICE_SUBGROUP_REDUCE(minui, uint32_t, __reduce_min_sync, (y < x ? y : x))
SLUICE_SUBGROUP_REDUCE(maxui, uint32_t, __reduce_max_sync, (y > x ? y : x)))");
  // f16 (e = 5, m = 10) and bf16 (e = 8, m = 7) are their bits; arithmetic
  // is f32 (emulateHalfFloats), so these are the only conversions: the exact
  // value as a double, and round to nearest even from a double.
  line(R"(__device__ inline double sluice_half_to_double(uint32_t bits, int e, int m) {
  uint64_t sign = (uint64_t)((bits >> (e + m)) & 1u) << 63;
  int bias = (1 << (e - 1)) - 1;
  uint32_t expo = (bits >> m) & ((1u << e) - 1u);
  uint64_t frac = bits & ((1u << m) - 1u);
  uint64_t out = sign;
  if (expo == (1u << e) - 1u) {
    out |= 0x7ff0000000000000ull | (frac << (52 - m)) |
           (frac ? 0x0008000000000000ull : 0ull);
  } else if (expo != 0 || frac != 0) {
    int exponent = (int)expo - bias;
    if (expo == 0) {
      exponent = 1 - bias;
      while (!(frac & (1ull << m))) {
        frac <<= 1;
        --exponent;
      }
      frac &= (1ull << m) - 1ull;
    }
    out |= ((uint64_t)(exponent + 1023) << 52) | (frac << (52 - m));
  }
  return __longlong_as_double((long long)out);
})");
  line(R"(__device__ inline uint16_t sluice_double_to_half(double value, int e, int m) {
  uint64_t bits = (uint64_t)__double_as_longlong(value);
  uint32_t sign = (uint32_t)(bits >> 63) << (e + m);
  uint64_t mag = bits & 0x7fffffffffffffffull;
  uint32_t inf = ((1u << e) - 1u) << m;
  if (mag >= 0x7ff0000000000000ull)
    return (uint16_t)(sign | inf |
                      (mag > 0x7ff0000000000000ull
                           ? (1u << (m - 1)) |
                                 (uint32_t)((mag >> (52 - m)) & ((1u << m) - 1u))
                           : 0u));
  if ((mag >> 52) == 0)
    return (uint16_t)sign;
  int biased = (int)(mag >> 52) - 1023 + (1 << (e - 1)) - 1;
  uint64_t mant = (mag & 0xfffffffffffffull) | 0x10000000000000ull;
  int shift = 52 - m + (biased <= 0 ? 1 - biased : 0);
  if (shift > 63)
    return (uint16_t)sign;
  uint64_t q = mant >> shift;
  uint64_t rem = mant & ((1ull << shift) - 1ull);
  uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1ull)))
    ++q;
  if (biased <= 0)
    return (uint16_t)(sign | (uint32_t)q);
  if (q >> (m + 1)) {
    q >>= 1;
    ++biased;
  }
  if (biased >= (1 << e) - 1)
    return (uint16_t)(sign | inf);
  return (uint16_t)(sign | ((uint32_t)biased << m) |
                    (uint32_t)(q & ((1ull << m) - 1ull)));
})");
}

emitc::FileOp createFile(OpBuilder &b, Location loc, StringRef id) {
  auto file = emitc::FileOp::create(b, loc, id);
  if (file.getBodyRegion().empty())
    file.getBodyRegion().emplaceBlock();
  return file;
}

/// The emitted C++ has no vector types: what distribution and the
/// expansions leave as a vector is an error at the op.
LogicalResult checkScalarOnly(gpu::GPUModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    auto vector =
        llvm::find_if(types, [](Type type) { return isa<VectorType>(type); });
    if (vector == types.end())
      return WalkResult::advance();
    op->emitOpError("on ") << *vector
                           << ": the HIP backend writes scalar C++ and has no "
                              "vector types; compute each element as a scalar";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// HIP has __clz/__popc of 32 and 64 bits and no cttz, absi or class tests
/// of its own for every width; the rest of math maps to C99 functions.
sluice::KernelMathOptions hipKernelMath() {
  sluice::KernelMathOptions options;
  options.narrowBitCounts = true;
  options.cttzAsCtpop = true;
  options.integerAbsAndClassAsArith = true;
  return options;
}

/// The owners' policy hooks (the descriptor's owners[].policy) become
/// helpers of the gpu.module of the stage kernels, so that they are lowered
/// with them as __device__ functions (named `<module>_<hook>`, as every
/// helper) that the hip runtime calls (docs/hip-backend.md).
LogicalResult clonePolicyHooks(ModuleOp module) {
  auto program =
      module->getAttrOfType<DictionaryAttr>(sluice::kProgramDescriptorAttrName);
  auto owners = program ? program.getAs<ArrayAttr>("owners") : ArrayAttr();
  auto stages = program ? program.getAs<ArrayAttr>("main_stages") : ArrayAttr();
  if (!owners || !stages || stages.empty())
    return success();
  SmallVector<FlatSymbolRefAttr> hooks;
  for (Attribute owner : owners)
    if (auto dict = dyn_cast<DictionaryAttr>(owner))
      if (auto policy = dict.getAs<DictionaryAttr>("policy"))
        for (NamedAttribute entry : policy)
          if (auto hook = dyn_cast<FlatSymbolRefAttr>(entry.getValue()))
            if (!llvm::is_contained(hooks, hook))
              hooks.push_back(hook);
  if (hooks.empty())
    return success();
  auto first = dyn_cast<DictionaryAttr>(stages[0]);
  auto kernel = first ? first.getAs<SymbolRefAttr>("kernel") : SymbolRefAttr();
  auto kernels = kernel ? module.lookupSymbol<gpu::GPUModuleOp>(
                              kernel.getRootReference())
                        : gpu::GPUModuleOp();
  if (!kernels)
    return module.emitError("no gpu.module of the stage kernels for the "
                            "owners' policy hooks");
  OpBuilder b = OpBuilder::atBlockEnd(kernels.getBody());
  for (FlatSymbolRefAttr hook : hooks) {
    auto function = module.lookupSymbol<func::FuncOp>(hook.getAttr());
    if (!function || function.isExternal())
      return module.emitError("owner policy hook ")
             << hook << " is not a func.func with a body";
    if (!kernels.lookupSymbol(hook.getAttr()))
      b.clone(*function);
  }
  return success();
}

struct ConvertSluiceGPUToHIPEmitCPass
    : public sluice::impl::ConvertSluiceGPUToHIPEmitCBase<
          ConvertSluiceGPUToHIPEmitCPass> {
  using Base::Base;

  LogicalResult convert(gpu::GPUModuleOp module) {
    MLIRContext *ctx = module.getContext();
    TypeConverter converter;
    RewritePatternSet patterns(ctx);
    // Upstream adds index -> size_t; the HIP ABI's index is int64_t, so
    // Sluice's conversions are added after it (the last added wins).
    populateArithToEmitCPatterns(converter, patterns);
    sluice::populateHIPTypeConversions(converter, indexBitwidth);
    populateSCFToEmitCConversionPatterns(patterns, converter);
    populateFuncToEmitCPatterns(converter, patterns);
    populateConvertMathToEmitCPatterns(patterns, emitc::LanguageTarget::c99);
    sluice::populateSluiceGPUToHIPPatterns(converter, patterns);
    ConversionTarget target(*ctx);
    target.addLegalDialect<emitc::EmitCDialect>();
    target.addIllegalDialect<arith::ArithDialect, math::MathDialect,
                             memref::MemRefDialect, scf::SCFDialect,
                             func::FuncDialect, cf::ControlFlowDialect,
                             ub::UBDialect, gpu::GPUDialect>();
    target.addLegalOp<gpu::GPUModuleOp>();
    // A pattern that refuses an op says why at the op; the conversion's own
    // "failed to legalize" that follows it says nothing more.
    bool refused = false;
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (refused &&
          StringRef(diagnostic.str()).starts_with("failed to legalize"))
        return success();
      refused = true;
      return failure();
    });
    return applyFullConversion(module, target, std::move(patterns));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (indexBitwidth != 32 && indexBitwidth != 64) {
      module.emitError("sluice-gpu-to-hip-emitc: index-bitwidth must be 32 "
                       "or 64, not ")
          << static_cast<unsigned>(indexBitwidth);
      return signalPassFailure();
    }
    SmallVector<gpu::GPUModuleOp> originals(module.getOps<gpu::GPUModuleOp>());
    if (originals.empty())
      return;

    llvm::StringSet<> stageKernels;
    SmallVector<std::string> stageNames;
    std::string megakernel;
    if (auto program = module->getAttrOfType<DictionaryAttr>(
            sluice::kProgramDescriptorAttrName)) {
      for (StringRef key : {"main_stages", "owners"})
        if (Attribute stages = program.get(key))
          collectKernelRefs(stages, stageKernels);
      if (auto mega = program.getAs<DictionaryAttr>("megakernel"))
        if (auto ref = mega.getAs<SymbolRefAttr>("kernel"))
          megakernel = (ref.getRootReference().getValue() +
                        "::" + ref.getLeafReference().getValue())
                           .str();
      stageNames = stageArgumentNames(program);
    }
    if (failed(clonePolicyHooks(module)))
      return signalPassFailure();
    llvm::StringMap<int64_t> launchSizes = launchBlockSizes(module);

    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    Location loc = module.getLoc();
    emitc::FileOp prelude = createFile(b, loc, sluice::kHIPPreludeFileId);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&prelude.getBodyRegion().front());
      emitPrelude(b, loc);
    }

    for (gpu::GPUModuleOp original : originals) {
      auto copy = cast<gpu::GPUModuleOp>(original->clone());
      module.getBody()->push_back(copy);
      llvm::StringSet<> bodies;
      llvm::StringMap<SmallVector<std::string>> comments;
      SmallVector<std::string> none;
      for (auto kernel : copy.getOps<gpu::GPUFuncOp>()) {
        if (!kernel.isKernel())
          continue;
        std::string key = (copy.getName() + "::" + kernel.getName()).str();
        bool stage = stageKernels.contains(key);
        bool mega = key == megakernel;
        SmallVector<std::string> names;
        if (stage || mega) {
          names = stageNames;
          if (mega)
            names.push_back("machine");
        }
        int64_t size = blockSize;
        if (std::optional<DenseI32ArrayAttr> known =
                kernel.getKnownBlockSizeAttr()
                    ? std::optional(kernel.getKnownBlockSizeAttr())
                    : std::nullopt) {
          size = 1;
          for (int32_t extent : known->asArrayRef())
            size *= extent;
        } else if (auto it = launchSizes.find(key); it != launchSizes.end()) {
          size = it->second;
        }
        if (size > 0)
          kernel->setAttr("sluice.hip.block_size", b.getI64IntegerAttr(size));
        bool hasBody = stage && kernel.getWorkgroupAttributions().empty() &&
                       kernel.getPrivateAttributions().empty();
        if (hasBody)
          bodies.insert(kernel.getName());
        std::string symbol =
            sluice::hipKernelSymbol(copy.getName(), kernel.getName());
        comments[symbol] =
            parameterComment(kernel, symbol, names, hasBody, indexBitwidth);
        ++numKernels;
      }
      sluice::CollectiveExpansionOptions collectives;
      collectives.expandSubgroupQueries = true; // no subgroup id builtins
      collectives.shufflesAsIndexed = true;     // __shfl reads a lane
      collectives.keepSubgroupReduce = sluice::isHIPNativeSubgroupReduce;
      if (failed(sluice::checkHIPSubgroupOps(copy)) ||
          failed(sluice::expandGPUCollectives(copy, collectives)) ||
          failed(sluice::expandKernelMath(copy, hipKernelMath())) ||
          failed(sluice::prepareForHIP(copy, bodies, indexBitwidth)) ||
          failed(checkScalarOnly(copy)) || failed(convert(copy))) {
        copy.erase();
        return signalPassFailure();
      }
      emitc::FileOp file =
          createFile(b, copy.getLoc(), sluice::hipFileId(copy.getName()));
      OpBuilder fb = OpBuilder::atBlockEnd(&file.getBodyRegion().front());
      for (Operation &op :
           llvm::make_early_inc_range(copy.getBody()->getOperations())) {
        auto func = dyn_cast<emitc::FuncOp>(op);
        if (!func)
          continue;
        if (!func.getSpecifiers() || func.getSpecifiersAttr().empty())
          func.setSpecifiersAttr(fb.getStrArrayAttr({"__device__"}));
        if (auto it = comments.find(func.getName()); it != comments.end())
          for (const std::string &line : it->second)
            emitc::VerbatimOp::create(fb, func.getLoc(), line);
        op.moveBefore(fb.getBlock(), fb.getBlock()->end());
      }
      copy.erase();
    }
  }
};

} // namespace

void sluice::buildSluiceGPUToHIPPipeline(OpPassManager &pm, unsigned blockSize,
                                         unsigned indexBitwidth) {
  ConvertSluiceGPUToHIPEmitCOptions options;
  options.blockSize = blockSize;
  options.indexBitwidth = indexBitwidth;
  pm.addPass(createConvertSluiceGPUToHIPEmitC(options));
}

namespace {
struct SluiceGPUToHIPOptions
    : public PassPipelineOptions<SluiceGPUToHIPOptions> {
  Option<unsigned> blockSize{
      *this, "block-size",
      llvm::cl::desc("__launch_bounds__ of kernels without a known block "
                     "size (0: none)"),
      llvm::cl::init(0)};
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("the width of `index` inside kernels, 64 or 32 (kernel "
                     "parameters stay int64_t)"),
      llvm::cl::init(64)};
};
} // namespace

void sluice::registerSluiceGPUToHIPPipeline() {
  PassPipelineRegistration<SluiceGPUToHIPOptions>(
      "sluice-gpu-to-hip",
      "Lower the gpu hand-off to HIP C++ in EmitC (one emitc.file per "
      "gpu.module and the prelude); print it with --sluice-to-hip",
      [](OpPassManager &pm, const SluiceGPUToHIPOptions &options) {
        buildSluiceGPUToHIPPipeline(pm, options.blockSize,
                                    options.indexBitwidth);
      });
}
