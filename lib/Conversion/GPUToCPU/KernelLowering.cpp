//===- KernelLowering.cpp - Pieces shared by both kernel lowerings --------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace sluice::gpu_to_cpu {

func::FuncOp RuntimeDeclarations::coroAlloc() {
  Builder b(getModule().getContext());
  auto ptr = LLVM::LLVMPointerType::get(getModule().getContext());
  func::FuncOp alloc =
      declareFunction(SLUICE_RT_SYM_CORO_ALLOC,
              b.getFunctionType({b.getI64Type(), b.getI64Type()}, {ptr}));
  // Like malloc: every result is fresh memory of the current block, so LLVM
  // may assume it aliases no kernel argument and no other allocation.
  alloc.setResultAttr(0, LLVM::LLVMDialect::getNoAliasAttrName(),
                      b.getUnitAttr());
  return alloc;
}

func::FuncOp RuntimeDeclarations::coroFree() {
  Builder b(getModule().getContext());
  auto ptr = LLVM::LLVMPointerType::get(getModule().getContext());
  return declareFunction(SLUICE_RT_SYM_CORO_FREE, b.getFunctionType({ptr}, {}));
}

func::FuncOp RuntimeDeclarations::barrierDivergence() {
  Builder b(getModule().getContext());
  auto ptr = LLVM::LLVMPointerType::get(getModule().getContext());
  return declareFunction(SLUICE_RT_SYM_BARRIER_DIVERGENCE,
                 b.getFunctionType({ptr, b.getI64Type()}, {}));
}

std::array<Value, 3> delinearizeXYZ(OpBuilder &builder, Location loc,
                                    Value linear, Value sizeX, Value sizeY) {
  Value rest = arith::DivUIOp::create(builder, loc, linear, sizeX);
  return {arith::RemUIOp::create(builder, loc, linear, sizeX),
          arith::RemUIOp::create(builder, loc, rest, sizeY),
          arith::DivUIOp::create(builder, loc, rest, sizeY)};
}

LLVM::LLVMStructType argumentRecordType(gpu::GPUFuncOp kernel,
                                        const LLVMTypeConverter &converter) {
  SmallVector<Type> fields;
  for (Type type : kernel.getArgumentTypes())
    fields.push_back(converter.convertType(type));
  auto i64 = IntegerType::get(kernel.getContext(), 64);
  fields.append(6, i64); // grid x, y, z; block x, y, z
  return LLVM::LLVMStructType::getLiteral(kernel.getContext(), fields);
}

MemRefType stripMemorySpace(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout());
}

std::optional<uint64_t> laneSlotBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.isScalable() || !vector.getElementType().isIntOrFloat())
      return std::nullopt;
    uint64_t bits = vector.getNumElements() * vector.getElementTypeBitWidth();
    return llvm::PowerOf2Ceil(llvm::divideCeil(bits, 8));
  }
  return std::nullopt;
}

std::optional<uint64_t> staticMemRefBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return std::nullopt;
  std::optional<uint64_t> element = laneSlotBytes(type.getElementType());
  if (!element)
    return std::nullopt;
  return *element * uint64_t(type.getNumElements());
}

Value allocateFromArena(OpBuilder &builder, Location loc,
                        RuntimeDeclarations &runtime, Value bytes,
                        uint64_t align) {
  Value size =
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(), bytes);
  Value alignment = arith::ConstantIntOp::create(builder, loc, align, 64);
  return func::CallOp::create(builder, loc, runtime.coroAlloc(),
                              ValueRange{size, alignment})
      .getResult(0);
}

Value memrefOverPointer(OpBuilder &builder, Location loc,
                        const LLVMTypeConverter &converter, Value pointer,
                        MemRefType type, ValueRange dynamicSizes) {
  Type descriptorType = converter.convertType(type);
  auto i64 = builder.getI64Type();
  auto constant = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, i64,
                                    builder.getI64IntegerAttr(value));
  };
  Value descriptor = LLVM::PoisonOp::create(builder, loc, descriptorType);
  descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor, pointer,
                                           ArrayRef<int64_t>{0});
  descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor, pointer,
                                           ArrayRef<int64_t>{1});
  descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor,
                                           constant(0), ArrayRef<int64_t>{2});
  int64_t rank = type.getRank();
  SmallVector<Value> sizes;
  unsigned nextDynamic = 0;
  for (int64_t dim : type.getShape()) {
    if (ShapedType::isDynamic(dim))
      sizes.push_back(arith::IndexCastOp::create(builder, loc, i64,
                                                 dynamicSizes[nextDynamic++]));
    else
      sizes.push_back(constant(dim));
  }
  // Row-major strides of an identity layout.
  SmallVector<Value> strides(rank);
  Value stride = constant(1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    if (d > 0)
      stride = LLVM::MulOp::create(builder, loc, stride, sizes[d]);
  }
  for (int64_t d = 0; d < rank; ++d) {
    descriptor = LLVM::InsertValueOp::create(builder, loc, descriptor, sizes[d],
                                             ArrayRef<int64_t>{3, d});
    descriptor = LLVM::InsertValueOp::create(
        builder, loc, descriptor, strides[d], ArrayRef<int64_t>{4, d});
  }
  return UnrealizedConversionCastOp::create(builder, loc, type, descriptor)
      .getResult(0);
}

func::FuncOp createBlockFunction(KernelContext &context, OpBuilder &builder,
                                 BlockEnvironment &environment) {
  gpu::GPUFuncOp kernel = context.kernel;
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = builder.getI64Type();
  auto index = builder.getIndexType();

  builder.setInsertionPointToEnd(context.hostModule.getBody());
  std::string name = (SLUICE_CPU_BLOCK_PREFIX + kernel.getName()).str();
  auto function = func::FuncOp::create(builder, loc, name,
                                       builder.getFunctionType({ptr, i64}, {}));
  function.setPrivate();
  context.symbols.insert(function);
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  func::ReturnOp::create(builder, loc);
  builder.setInsertionPointToStart(entry);

  Value record = entry->getArgument(0);
  LLVM::LLVMStructType recordType =
      argumentRecordType(kernel, context.typeConverter);
  auto field = [&](unsigned position) -> Value {
    Type type = recordType.getBody()[position];
    Value address =
        LLVM::GEPOp::create(builder, loc, ptr, recordType, record,
                            ArrayRef<LLVM::GEPArg>{0, int32_t(position)});
    return LLVM::LoadOp::create(builder, loc, type, address);
  };
  unsigned argumentCount = kernel.getNumArguments();
  environment.kernelArguments.clear();
  for (auto [position, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    Value value = field(position);
    if (value.getType() != type)
      value = UnrealizedConversionCastOp::create(builder, loc, type, value)
                  .getResult(0);
    environment.kernelArguments.push_back(value);
  }
  for (unsigned d = 0; d < 3; ++d) {
    environment.gridDim[d] = arith::IndexCastOp::create(
        builder, loc, index, field(argumentCount + d));
    environment.blockDim[d] =
        context.staticBlockSize
            ? arith::ConstantIndexOp::create(builder, loc,
                                             (*context.staticBlockSize)[d])
                  .getResult()
            : arith::IndexCastOp::create(builder, loc, index,
                                         field(argumentCount + 3 + d))
                  .getResult();
  }
  // Linear block -> (x, y, z), x fastest.
  Value block =
      arith::IndexCastOp::create(builder, loc, index, entry->getArgument(1));
  auto blockId = delinearizeXYZ(builder, loc, block, environment.gridDim[0],
                                environment.gridDim[1]);
  llvm::copy(blockId, environment.blockId);
  Value lanes = arith::MulIOp::create(builder, loc, environment.blockDim[0],
                                      environment.blockDim[1]);
  environment.laneCount =
      arith::MulIOp::create(builder, loc, lanes, environment.blockDim[2]);

  // Shared memory of the block: worker-local, from the arena (reset per block).
  environment.workgroupBuffers.clear();
  for (BlockArgument buffer : kernel.getWorkgroupAttributions()) {
    MemRefType type = stripMemorySpace(cast<MemRefType>(buffer.getType()));
    uint64_t bytes = *staticMemRefBytes(type);
    Value size = arith::ConstantIndexOp::create(builder, loc, int64_t(bytes));
    Value pointer = allocateFromArena(builder, loc, context.runtime, size, 64);
    environment.workgroupBuffers.push_back(memrefOverPointer(
        builder, loc, context.typeConverter, pointer, type, {}));
  }
  return function;
}

void replaceBlockQueries(Operation *root, const BlockEnvironment &environment) {
  SmallVector<Operation *> queries;
  root->walk([&](Operation *op) {
    if (isa<gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp>(op))
      queries.push_back(op);
  });
  for (Operation *op : queries) {
    Value replacement;
    if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = environment.blockId[unsigned(id.getDimension())];
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      replacement = environment.blockDim[unsigned(dim.getDimension())];
    else
      replacement =
          environment
              .gridDim[unsigned(cast<gpu::GridDimOp>(op).getDimension())];
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
}

} // namespace sluice::gpu_to_cpu
