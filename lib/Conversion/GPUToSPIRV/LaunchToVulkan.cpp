//===- LaunchToVulkan.cpp - gpu.launch_func to the Vulkan launch ABI ------===//
//
// The host half of the Vulkan backend for programs that launch their own
// kernels. The device half is the sluice-to-spirv pipeline, run here on the
// whole module; its binaries become constants of the host code, and every
// launch becomes begin / one call per operand / end on the runtime's launch
// ABI (runtime/include/sluice/runtime/vulkan_launch.h). Operand i is binding
// i, the order sluice-gpu-to-spirv gives the interface variables.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"
#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/RuntimeCalls.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace sluice {
#define GEN_PASS_DEF_CONVERTGPULAUNCHTOVULKAN
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

/// Bytes per element of a memref operand as both sides store it, or 0 when
/// the host and SPIR-V widths differ (index is i32 in SPIR-V, i1 is not a
/// storage type).
unsigned storageBytes(Type element) {
  if (!element.isIntOrFloat() || element.isInteger(1))
    return 0;
  unsigned bits = element.getIntOrFloatBitWidth();
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
}

/// What the Vulkan backend cannot launch, checked before the kernels are
/// converted so the error is at the launch, not deep in the SPIR-V lowering.
LogicalResult checkLaunch(gpu::LaunchFuncOp launch) {
  if (!launch.getAsyncDependencies().empty() || launch.getAsyncToken())
    return launch.emitError("the Vulkan backend runs launches "
                            "synchronously; this launch is async");
  if (launch.getDynamicSharedMemorySize())
    return launch.emitError("dynamic shared memory is not supported by "
                            "the Vulkan backend");
  if (launch.hasClusterSize())
    return launch.emitError("cluster launches are not supported by the "
                            "Vulkan backend");
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

struct LaunchABI {
  func::FuncOp begin, workgroupMemory, arg, scalar, scratch, end;
};

// Access bits of sluice_rt_vk_launch_arg (vulkan_launch.h).
constexpr uint64_t kRead = 1, kWrite = 2;

/// What the kernel may do with memref argument `value`: 0 unused, read, or
/// read and write. A written argument is also copied in, since the kernel
/// may write only part of it.
uint64_t accessOf(Value value) {
  uint64_t access = 0;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value memref = worklist.pop_back_val();
    for (Operation *user : memref.getUsers()) {
      if (isa<memref::LoadOp>(user)) {
        access |= kRead;
      } else if (auto view = dyn_cast<ViewLikeOpInterface>(user);
                 view && view.getViewSource() == memref) {
        worklist.push_back(view->getResult(0));
      } else {
        access |= kRead | kWrite; // stores, atomics, calls: conservatively
      }
    }
  }
  return access;
}

/// The per-kernel facts a launch needs from the kernel before it is
/// converted.
struct KernelInfo {
  SmallVector<uint64_t> access;  // per argument
  SmallVector<uint64_t> scratch; // bytes per invocation, per scratch argument
  uint64_t workgroupBytes = 0;   // sum of the workgroup attributions
};

class LaunchRewriter {
public:
  LaunchRewriter(ModuleOp module, SymbolTable &symbols)
      : runtime(module, symbols), ctx(module.getContext()) {
    Builder b(ctx);
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = b.getI64Type();
    abi.begin = runtime.declareFunction(
        "sluice_rt_vk_launch_begin", b.getFunctionType({ptr, i64, ptr}, {}));
    abi.workgroupMemory = runtime.declareFunction(
        "sluice_rt_vk_launch_workgroup_memory", b.getFunctionType({i64}, {}));
    abi.arg = runtime.declareFunction("sluice_rt_vk_launch_arg",
                                      b.getFunctionType({ptr, i64, i64}, {}));
    abi.scratch = runtime.declareFunction("sluice_rt_vk_launch_scratch",
                                          b.getFunctionType({i64}, {}));
    abi.scalar = runtime.declareFunction("sluice_rt_vk_launch_scalar",
                                         b.getFunctionType({i64, i64}, {}));
    abi.end = runtime.declareFunction(
        "sluice_rt_vk_launch_end",
        b.getFunctionType(SmallVector<Type>(6, i64), {}));
  }

  /// The words of `spv` as an internal constant global.
  LLVM::GlobalOp embed(spirv::ModuleOp spv, ArrayRef<uint32_t> words) {
    OpBuilder builder(ctx);
    builder.setInsertionPointToStart(runtime.getModule().getBody());
    StringRef name = sluice::gpuModuleNameOf(spv);
    Type i32 = builder.getI32Type();
    auto data = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(words.size())}, i32), words);
    return LLVM::GlobalOp::create(
        builder, spv.getLoc(), LLVM::LLVMArrayType::get(i32, words.size()),
        /*isConstant=*/true, LLVM::Linkage::Internal,
        ("__sluice_spirv_" + name).str(), data);
  }

  /// Rewrites a launch that checkLaunch() admitted.
  void rewrite(gpu::LaunchFuncOp launch, LLVM::GlobalOp binary,
               uint64_t wordCount, const KernelInfo &kernelInfo) {
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    Type i64 = b.getI64Type();
    auto toI64 = [&](Value index) -> Value {
      return arith::IndexCastUIOp::create(b, loc, i64, index);
    };
    auto constant = [&](uint64_t value) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, int64_t(value));
    };

    Value words = LLVM::AddressOfOp::create(b, loc, binary);
    StringRef kernel = launch.getKernelName().getValue();
    Value entry = runtime.stringAddress(
        b, loc, ("__sluice_entry_" + launch.getKernelModuleName().getValue() +
                 "_" + kernel)
                    .str(),
        kernel);
    func::CallOp::create(b, loc, abi.begin,
                         ValueRange{words, constant(wordCount), entry});
    if (kernelInfo.workgroupBytes != 0)
      func::CallOp::create(b, loc, abi.workgroupMemory,
                           ValueRange{constant(kernelInfo.workgroupBytes)});

    for (auto [position, operand] :
         llvm::enumerate(launch.getKernelOperands())) {
      uint64_t access = position < kernelInfo.access.size()
                            ? kernelInfo.access[position]
                            : kRead | kWrite;
      passOperand(b, loc, operand, access, toI64, constant);
    }
    for (uint64_t bytes : kernelInfo.scratch)
      func::CallOp::create(b, loc, abi.scratch, ValueRange{constant(bytes)});
    func::CallOp::create(
        b, loc, abi.end,
        ValueRange{toI64(launch.getGridSizeX()), toI64(launch.getGridSizeY()),
                   toI64(launch.getGridSizeZ()), toI64(launch.getBlockSizeX()),
                   toI64(launch.getBlockSizeY()),
                   toI64(launch.getBlockSizeZ())});
    launch.erase();
  }

private:
  template <typename ToI64, typename Constant>
  void passOperand(OpBuilder &b, Location loc, Value operand, uint64_t access,
                   ToI64 toI64, Constant constant) {
    Type type = operand.getType();
    Type i64 = b.getI64Type();
    if (auto memref = dyn_cast<MemRefType>(type)) {
      unsigned bytes = storageBytes(memref.getElementType());
      // Address of the first element (an identity layout has offset 0) and
      // the bytes of all elements.
      Value address = toI64(
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand));
      Value size = constant(bytes);
      for (int64_t d = 0; d < memref.getRank(); ++d)
        size = arith::MulIOp::create(
            b, loc, size, toI64(memref::DimOp::create(b, loc, operand, d)));
      Value pointer = LLVM::IntToPtrOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
      func::CallOp::create(b, loc, abi.arg,
                           ValueRange{pointer, size, constant(access)});
      return;
    }
    Value value;
    uint64_t bytes = 0;
    if (type.isIndex()) {
      value = toI64(operand);
      bytes = 4; // index is i32 in the SPIR-V kernel
    } else if (auto integer = dyn_cast<IntegerType>(type);
               integer && storageBytes(integer)) {
      bytes = storageBytes(integer);
      value = integer.getWidth() == 64
                  ? operand
                  : Value(arith::ExtUIOp::create(b, loc, i64, operand));
    } else if (auto real = dyn_cast<FloatType>(type);
               real && storageBytes(real)) {
      bytes = storageBytes(real);
      Value bits = arith::BitcastOp::create(
          b, loc, b.getIntegerType(real.getWidth()), operand);
      value = real.getWidth() == 64
                  ? bits
                  : Value(arith::ExtUIOp::create(b, loc, i64, bits));
    } else {
      llvm_unreachable("checkLaunch admits no other operand type");
    }
    func::CallOp::create(b, loc, abi.scalar,
                         ValueRange{value, constant(bytes)});
  }

  sluice::RuntimeCalls runtime;
  MLIRContext *ctx;
  LaunchABI abi;
};

struct ConvertGPULaunchToVulkanPass
    : public sluice::impl::ConvertGPULaunchToVulkanBase<
          ConvertGPULaunchToVulkanPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    OpPassManager pm(ModuleOp::getOperationName());
    sluice::buildSluiceToSPIRVPipeline(pm, {});
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    WalkResult checked = module.walk([](gpu::LaunchFuncOp launch) {
      return failed(checkLaunch(launch)) ? WalkResult::interrupt()
                                         : WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();
    // Argument access and scratch arguments, read off the kernels before
    // the conversion.
    llvm::StringMap<KernelInfo> kernels;
    module.walk([&](gpu::GPUFuncOp kernel) {
      auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
      if (!kernel.isKernel() || !gpuModule)
        return;
      KernelInfo &info =
          kernels[(gpuModule.getName() + "::" + kernel.getName()).str()];
      for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
        info.access.push_back(accessOf(kernel.getArgument(i)));
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
    LaunchRewriter rewriter(module, symbols);
    llvm::StringMap<std::pair<LLVM::GlobalOp, uint64_t>> binaries;
    for (auto spv : llvm::make_early_inc_range(module.getOps<spirv::ModuleOp>())) {
      SmallVector<uint32_t> words;
      if (failed(sluice::serializeSPIRV(spv, words)))
        return signalPassFailure();
      binaries[sluice::gpuModuleNameOf(spv)] = {rewriter.embed(spv, words),
                                                words.size()};
    }

    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches) {
      auto found = binaries.find(launch.getKernelModuleName().getValue());
      if (found == binaries.end()) {
        launch.emitError("no SPIR-V module was produced for @")
            << launch.getKernelModuleName().getValue();
        return signalPassFailure();
      }
      std::string kernel = (launch.getKernelModuleName().getValue() + "::" +
                            launch.getKernelName().getValue())
                               .str();
      rewriter.rewrite(launch, found->second.first, found->second.second,
                       kernels[kernel]);
      ++numLaunches;
    }
    for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
      if (isa<gpu::GPUModuleOp, spirv::ModuleOp>(op))
        op.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
