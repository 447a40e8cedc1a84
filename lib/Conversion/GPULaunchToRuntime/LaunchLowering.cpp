//===- LaunchLowering.cpp - gpu.launch_func to the host-launch ABI --------===//

#include "sluice/Conversion/GPULaunchToRuntime/LaunchLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace sluice {

unsigned hostElementBytes(Type type, unsigned indexBytes) {
  if (type.isIndex())
    return indexBytes;
  if (type.isInteger(1))
    return 1;
  if (!type.isIntOrFloat())
    return 0;
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
}

/// What the kernel may do with memref argument `value`: 0 unused, read, or
/// read and write. A written argument is also copied in, since the kernel
/// may write only part of it.
static uint64_t accessOf(Value value) {
  uint64_t access = 0;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value memref = worklist.pop_back_val();
    for (Operation *user : memref.getUsers()) {
      if (isa<memref::LoadOp>(user)) {
        access |= SLUICE_LAUNCH_READ;
      } else if (auto view = dyn_cast<ViewLikeOpInterface>(user);
                 view && view.getViewSource() == memref) {
        worklist.push_back(view->getResult(0));
      } else {
        // Stores, atomics, calls: conservatively both.
        access |= SLUICE_LAUNCH_READ | SLUICE_LAUNCH_WRITE;
      }
    }
  }
  return access;
}

LaunchKernelInfo launchKernelInfo(gpu::GPUFuncOp kernel) {
  LaunchKernelInfo info;
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
    info.access.push_back(accessOf(kernel.getArgument(i)));
  return info;
}

LogicalResult checkLaunchForm(gpu::LaunchFuncOp launch, StringRef backend) {
  if (!launch.getAsyncDependencies().empty() || launch.getAsyncToken())
    return launch.emitError("the ")
           << backend << " backend runs launches synchronously; this launch "
                         "is async";
  if (launch.getDynamicSharedMemorySize())
    return launch.emitError("dynamic shared memory is not supported by the ")
           << backend << " backend; use a workgroup attribution";
  if (launch.hasClusterSize())
    return launch.emitError("cluster launches are not supported by the ")
           << backend << " backend";
  return success();
}

HostLaunchLowering::HostLaunchLowering(ModuleOp module, SymbolTable &symbols)
    : runtime(module, symbols) {
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  begin = runtime.declareFunction(SLUICE_RT_SYM_LAUNCH_BEGIN,
                                  b.getFunctionType({i32, ptr, i64, ptr}, {}));
  workers = runtime.declareFunction(SLUICE_RT_SYM_LAUNCH_WORKERS,
                                    b.getFunctionType({i32}, {}));
  workgroupMemory = runtime.declareFunction(
      SLUICE_RT_SYM_LAUNCH_WORKGROUP_MEMORY, b.getFunctionType({i64}, {}));
  memref = runtime.declareFunction(
      SLUICE_RT_SYM_LAUNCH_MEMREF,
      b.getFunctionType({ptr, i64, i64, i64, i64}, {}));
  memrefDim = runtime.declareFunction(SLUICE_RT_SYM_LAUNCH_MEMREF_DIM,
                                      b.getFunctionType({i64, i64}, {}));
  scalar = runtime.declareFunction(SLUICE_RT_SYM_LAUNCH_SCALAR,
                                   b.getFunctionType({i64, i64}, {}));
  scratch = runtime.declareFunction(SLUICE_RT_SYM_LAUNCH_SCRATCH,
                                    b.getFunctionType({i64}, {}));
  end = runtime.declareFunction(
      SLUICE_RT_SYM_LAUNCH_END,
      b.getFunctionType(SmallVector<Type>(6, i64), {}));
}

static Value toI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

static Value constantI64(OpBuilder &b, Location loc, uint64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), int64_t(value));
}

static Value pointerOf(OpBuilder &b, Location loc, Value memref) {
  Value address = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
}

void HostLaunchLowering::passMemRef(OpBuilder &b, Location loc, Value operand,
                                    uint64_t access) {
  auto type = cast<MemRefType>(operand.getType());
  int64_t rank = type.getRank();
  // Offset and strides from the type where they are static (every identity
  // layout), from the descriptor where they are not.
  SmallVector<int64_t> staticStrides;
  int64_t staticOffset = 0;
  (void)type.getStridesAndOffset(staticStrides, staticOffset);
  bool dynamicLayout = ShapedType::isDynamic(staticOffset) ||
                       llvm::any_of(staticStrides, ShapedType::isDynamic);
  memref::ExtractStridedMetadataOp metadata;
  if (dynamicLayout)
    metadata = memref::ExtractStridedMetadataOp::create(b, loc, operand);
  Value offset = dynamicLayout ? toI64(b, loc, metadata.getOffset())
                               : constantI64(b, loc, staticOffset);
  unsigned bytes = hostElementBytes(type.getElementType(), 8);
  func::CallOp::create(b, loc, memref,
                       ValueRange{pointerOf(b, loc, operand), offset,
                                  constantI64(b, loc, rank),
                                  constantI64(b, loc, bytes),
                                  constantI64(b, loc, access)});
  for (int64_t d = 0; d < rank; ++d) {
    Value size = type.isDynamicDim(d)
                     ? toI64(b, loc, memref::DimOp::create(b, loc, operand, d))
                     : constantI64(b, loc, type.getDimSize(d));
    Value stride = dynamicLayout ? toI64(b, loc, metadata.getStrides()[d])
                                 : constantI64(b, loc, staticStrides[d]);
    func::CallOp::create(b, loc, memrefDim, ValueRange{size, stride});
  }
}

void HostLaunchLowering::passScalar(OpBuilder &b, Location loc, Value operand,
                                    unsigned indexBytes) {
  Type type = operand.getType();
  Type i64 = b.getI64Type();
  Value value;
  unsigned bytes = hostElementBytes(type, indexBytes);
  if (type.isIndex()) {
    value = toI64(b, loc, operand);
  } else if (auto real = dyn_cast<FloatType>(type)) {
    Value bits = arith::BitcastOp::create(
        b, loc, b.getIntegerType(real.getWidth()), operand);
    value = real.getWidth() == 64 ? bits
                                  : Value(arith::ExtUIOp::create(b, loc, i64, bits));
  } else {
    value = type.isInteger(64)
                ? operand
                : Value(arith::ExtUIOp::create(b, loc, i64, operand));
  }
  func::CallOp::create(b, loc, scalar,
                       ValueRange{value, constantI64(b, loc, bytes)});
}

void HostLaunchLowering::lower(
    gpu::LaunchFuncOp launch, const HostLaunchTarget &target,
    llvm::function_ref<Value(OpBuilder &, Location)> handle,
    uint64_t handleBytes, const LaunchKernelInfo &kernel, StringRef symbol) {
  OpBuilder b(launch);
  Location loc = launch.getLoc();
  StringRef name = symbol.empty() ? launch.getKernelName().getValue() : symbol;
  Value kernelName = runtime.stringAddress(
      b, loc,
      ("__sluice_kernel_" + launch.getKernelModuleName().getValue() + "_" +
       launch.getKernelName().getValue())
          .str(),
      name);
  Value backend =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), target.backend);
  func::CallOp::create(b, loc, begin,
                       ValueRange{backend, handle(b, loc),
                                  constantI64(b, loc, handleBytes),
                                  kernelName});
  if (target.workers != 0)
    func::CallOp::create(
        b, loc, workers,
        ValueRange{arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                target.workers)});
  if (kernel.workgroupBytes != 0)
    func::CallOp::create(b, loc, workgroupMemory,
                         ValueRange{constantI64(b, loc, kernel.workgroupBytes)});
  for (auto [position, operand] :
       llvm::enumerate(launch.getKernelOperands())) {
    if (isa<MemRefType>(operand.getType())) {
      uint64_t access = position < kernel.access.size()
                            ? kernel.access[position]
                            : SLUICE_LAUNCH_READ | SLUICE_LAUNCH_WRITE;
      if (target.resident)
        access |= SLUICE_LAUNCH_RESIDENT;
      // A HIP kernel takes the sizes of its dynamic dimensions only.
      auto type = cast<MemRefType>(operand.getType());
      if (target.backend == SLUICE_LAUNCH_HIP)
        for (int64_t d = 0, rank = std::min<int64_t>(type.getRank(), 32);
             d < rank; ++d)
          if (type.isDynamicDim(d))
            access |= SLUICE_LAUNCH_DYNAMIC_DIM(d);
      passMemRef(b, loc, operand, access);
    } else {
      passScalar(b, loc, operand, target.indexBytes);
    }
  }
  for (uint64_t bytes : kernel.scratch)
    func::CallOp::create(b, loc, scratch,
                         ValueRange{constantI64(b, loc, bytes)});
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  func::CallOp::create(
      b, loc, end,
      ValueRange{toI64(b, loc, grid.x), toI64(b, loc, grid.y),
                 toI64(b, loc, grid.z), toI64(b, loc, block.x),
                 toI64(b, loc, block.y), toI64(b, loc, block.z)});
  launch.erase();
}

} // namespace sluice
