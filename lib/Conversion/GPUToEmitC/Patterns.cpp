//===- Patterns.cpp - Sluice's gpu/memref/math/arith to EmitC for HIP -----===//
//
// The patterns of sluice-gpu-to-hip-emitc that upstream's EmitC conversions
// lack: gpu.func as an `extern "C" __global__` function, the thread and block
// ids, barriers, memrefs as pointers (loads and stores on the linear index
// Prepare.cpp computes, views, local and `__shared__` arrays), the atomics
// HIP and CUDA share, the math functions C99 EmitC lacks and a few arith ops.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUToEmitC/HIPBackend.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace {

/// The C spelling of an EmitC scalar type.
std::string cTypeName(Type type) {
  if (type.isInteger(1))
    return "bool";
  if (auto integer = dyn_cast<IntegerType>(type))
    return (integer.isUnsigned() ? "uint" : "int") +
           std::to_string(integer.getWidth()) + "_t";
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (auto opaque = dyn_cast<emitc::OpaqueType>(type))
    return opaque.getValue().str();
  return "void";
}

/// What `index` is in the HIP C++ of this conversion (int64_t, or int32_t
/// with index-bitwidth=32).
Type hipIndexType(const TypeConverter *converter, MLIRContext *ctx) {
  return converter->convertType(IndexType::get(ctx));
}

Value constantI64(OpBuilder &b, Location loc, int64_t value) {
  return emitc::ConstantOp::create(b, loc, b.getI64Type(),
                                   b.getI64IntegerAttr(value));
}

/// The lvalue `pointer[index]`.
Value element(OpBuilder &b, Location loc, Value pointer, Value index) {
  return emitc::SubscriptOp::create(
      b, loc, cast<TypedValue<emitc::PointerType>>(pointer), index);
}

/// The linear index of a prepared access (rank 0: element 0).
Value linearIndex(OpBuilder &b, Location loc, ValueRange indices) {
  return indices.empty() ? constantI64(b, loc, 0) : indices.front();
}

//===----------------------------------------------------------------------===//
// gpu
//===----------------------------------------------------------------------===//

struct GPUFuncLowering : OpConversionPattern<gpu::GPUFuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::GPUFuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    auto module = op->getParentOfType<gpu::GPUModuleOp>();
    TypeConverter::SignatureConversion signature(
        op.getBody().getNumArguments());
    SmallVector<Type> inputs;
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes())) {
      Type converted = getTypeConverter()->convertType(type);
      if (!converted)
        return op.emitOpError("argument #")
               << i << " of type " << type
               << " has no HIP parameter type (index, integers of 1 to 64 "
                  "bits, f16, bf16, f32, f64 and memrefs of them)";
      signature.addInputs(i, converted);
      inputs.push_back(converted);
    }
    SmallVector<Attribute> specifiers;
    if (op.isKernel()) {
      specifiers.push_back(StringAttr::get(ctx, "extern \"C\""));
      specifiers.push_back(StringAttr::get(ctx, "__global__"));
      if (auto bounds = op->getAttrOfType<IntegerAttr>("sluice.hip.block_size"))
        specifiers.push_back(StringAttr::get(
            ctx, "__launch_bounds__(" + std::to_string(bounds.getInt()) + ")"));
    } else {
      specifiers.push_back(StringAttr::get(ctx, "__device__"));
    }
    auto func = emitc::FuncOp::create(
        rewriter, op.getLoc(),
        sluice::hipKernelSymbol(module.getName(), op.getName()),
        FunctionType::get(ctx, inputs, {}));
    func.setSpecifiersAttr(ArrayAttr::get(ctx, specifiers));
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    if (failed(rewriter.convertRegionTypes(&func.getBody(), *getTypeConverter(),
                                           &signature)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct GPUReturnLowering : OpConversionPattern<gpu::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::ReturnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<emitc::ReturnOp>(op, Value());
    return success();
  }
};

/// threadIdx.x and friends: `unsigned int` builtins, as int64_t (index).
template <typename Op> struct GPUIdLowering : OpConversionPattern<Op> {
  GPUIdLowering(const TypeConverter &converter, MLIRContext *ctx,
                StringRef builtin)
      : OpConversionPattern<Op>(converter, ctx), builtin(builtin) {}
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    StringRef dim = stringifyDimension(op.getDimension());
    Type u32 = IntegerType::get(op.getContext(), 32, IntegerType::Unsigned);
    Value value = emitc::LiteralOp::create(rewriter, op.getLoc(), u32,
                                           (builtin + "." + dim).str());
    rewriter.replaceOpWithNewOp<emitc::CastOp>(
        op, hipIndexType(this->getTypeConverter(), op.getContext()), value);
    return success();
  }
  std::string builtin;
};

struct GPULaneIdLowering : OpConversionPattern<gpu::LaneIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::LaneIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type u32 = IntegerType::get(op.getContext(), 32, IntegerType::Unsigned);
    auto call = emitc::CallOpaqueOp::create(
        rewriter, op.getLoc(), TypeRange{u32}, "SLUICE_LANE_ID", ValueRange{});
    rewriter.replaceOpWithNewOp<emitc::CastOp>(
        op, hipIndexType(getTypeConverter(), op.getContext()),
        call.getResult(0));
    return success();
  }
};

/// blockIdx * blockDim + threadIdx, as an index (int64_t or int32_t).
struct GPUGlobalIdLowering : OpConversionPattern<gpu::GlobalIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::GlobalIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    StringRef dim = stringifyDimension(op.getDimension());
    Type u32 = IntegerType::get(op.getContext(), 32, IntegerType::Unsigned);
    Type i64 = hipIndexType(getTypeConverter(), op.getContext());
    auto builtin = [&](StringRef name) -> Value {
      Value value = emitc::LiteralOp::create(rewriter, loc, u32,
                                             (name + "." + dim).str());
      return emitc::CastOp::create(rewriter, loc, i64, value);
    };
    Value block = emitc::MulOp::create(rewriter, loc, i64, builtin("blockIdx"),
                                       builtin("blockDim"));
    rewriter.replaceOpWithNewOp<emitc::AddOp>(op, i64, block,
                                              builtin("threadIdx"));
    return success();
  }
};

/// The wavefront or warp size: the `warpSize` builtin.
struct GPUSubgroupSizeLowering : OpConversionPattern<gpu::SubgroupSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupSizeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value size = emitc::LiteralOp::create(rewriter, op.getLoc(),
                                          rewriter.getI32Type(), "warpSize");
    rewriter.replaceOpWithNewOp<emitc::CastOp>(
        op, hipIndexType(getTypeConverter(), op.getContext()), size);
    return success();
  }
};

struct GPUBarrierLowering : OpConversionPattern<gpu::BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // __syncthreads fences every address space, whichever the op names.
    emitc::CallOpaqueOp::create(rewriter, op.getLoc(), TypeRange{},
                                "__syncthreads", ValueRange{});
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// memref
//===----------------------------------------------------------------------===//

struct LoadLowering : OpConversionPattern<memref::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type result = getTypeConverter()->convertType(op.getType());
    if (!result || !isa<emitc::PointerType>(adaptor.getMemref().getType()))
      return rewriter.notifyMatchFailure(op, "unconverted type");
    Value lvalue = element(rewriter, loc, adaptor.getMemref(),
                           linearIndex(rewriter, loc, adaptor.getIndices()));
    Type stored = cast<emitc::LValueType>(lvalue.getType()).getValueType();
    Value value = emitc::LoadOp::create(rewriter, loc, stored, lvalue);
    if (stored != result)
      value = emitc::CastOp::create(rewriter, loc, result, value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct StoreLowering : OpConversionPattern<memref::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (!isa<emitc::PointerType>(adaptor.getMemref().getType()))
      return rewriter.notifyMatchFailure(op, "unconverted type");
    Value lvalue = element(rewriter, loc, adaptor.getMemref(),
                           linearIndex(rewriter, loc, adaptor.getIndices()));
    Type stored = cast<emitc::LValueType>(lvalue.getType()).getValueType();
    Value value = adaptor.getValue();
    if (value.getType() != stored)
      value = emitc::CastOp::create(rewriter, loc, stored, value);
    emitc::AssignOp::create(rewriter, loc, lvalue, value);
    rewriter.eraseOp(op);
    return success();
  }
};

/// `(T *)(base + byte_shift)`.
struct ViewLowering : OpConversionPattern<memref::ViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type result = getTypeConverter()->convertType(op.getType());
    Value base = adaptor.getSource();
    if (!result || !isa<emitc::PointerType>(base.getType()))
      return rewriter.notifyMatchFailure(op, "unconverted type");
    Value shifted = emitc::AddOp::create(rewriter, op.getLoc(), base.getType(),
                                         base, adaptor.getByteShift());
    rewriter.replaceOpWithNewOp<emitc::CastOp>(op, result, shifted);
    return success();
  }
};

/// Prepare.cpp's 1-D views of N-D memrefs (offset 0: the same pointer) and
/// contiguous subviews (the pointer moved by the element offset).
struct ReinterpretCastLowering
    : OpConversionPattern<memref::ReinterpretCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::ReinterpretCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type result = getTypeConverter()->convertType(op.getType());
    if (!result || result != adaptor.getSource().getType() ||
        op.getMixedOffsets().size() != 1)
      return rewriter.notifyMatchFailure(op, "not a view of the same pointer");
    Value pointer = adaptor.getSource();
    OpFoldResult offset = op.getMixedOffsets()[0];
    if (getConstantIntValue(offset) == 0) {
      rewriter.replaceOp(op, pointer);
      return success();
    }
    Value elements =
        adaptor.getOffsets().empty()
            ? constantI64(rewriter, op.getLoc(), *getConstantIntValue(offset))
            : adaptor.getOffsets().front();
    rewriter.replaceOpWithNewOp<emitc::AddOp>(op, pointer.getType(), pointer,
                                              elements);
    return success();
  }
};

struct CastLowering : OpConversionPattern<memref::CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSource());
    return success();
  }
};

bool isWorkgroup(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// A local array (`T name[n];`), or a `__shared__` one in workgroup memory,
/// and a pointer to its first element.
struct AllocaLowering : OpConversionPattern<memref::AllocaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::AllocaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    if (!type.hasStaticShape())
      return op.emitOpError("with a dynamic shape is not lowered to HIP "
                            "(local and __shared__ arrays have constant "
                            "sizes)");
    auto pointer = dyn_cast_or_null<emitc::PointerType>(
        getTypeConverter()->convertType(type));
    if (!pointer)
      return rewriter.notifyMatchFailure(op, "unconverted type");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Type elementType = pointer.getPointee();
    bool shared = isWorkgroup(type);
    if (shared)
      elementType = emitc::OpaqueType::get(
          ctx, "__shared__ " + cTypeName(pointer.getPointee()));
    int64_t elements = std::max<int64_t>(type.getNumElements(), 1);
    auto array = emitc::ArrayType::get({elements}, elementType);
    auto variable = emitc::VariableOp::create(rewriter, loc, array,
                                              emitc::OpaqueAttr::get(ctx, ""));
    Value first = emitc::SubscriptOp::create(
        rewriter, loc, cast<TypedValue<emitc::ArrayType>>(variable.getResult()),
        ValueRange{constantI64(rewriter, loc, 0)});
    if (!shared) {
      rewriter.replaceOpWithNewOp<emitc::AddressOfOp>(op, pointer, first);
      return success();
    }
    // `(T *)&shared[0]` as one expression: a variable of the shared
    // element's pointer type would itself be declared __shared__.
    auto expression =
        emitc::ExpressionOp::create(rewriter, loc, pointer, ValueRange{first});
    Block *body = rewriter.createBlock(&expression.getRegion(), {},
                                       TypeRange{first.getType()}, {loc});
    rewriter.setInsertionPointToStart(body);
    Value address = emitc::AddressOfOp::create(
        rewriter, loc, emitc::PointerType::get(elementType),
        body->getArgument(0));
    Value casted = emitc::CastOp::create(rewriter, loc, pointer, address);
    emitc::YieldOp::create(rewriter, loc, casted);
    rewriter.replaceOp(op, expression.getResult());
    return success();
  }
};

/// The C types an atomic of `kind` on `element` works on in HIP and CUDA
/// (pointer element, value), or null when neither has that atomic.
Type atomicOperandType(arith::AtomicRMWKind kind, Type element) {
  MLIRContext *ctx = element.getContext();
  auto opaque = [&](StringRef name) {
    return emitc::OpaqueType::get(ctx, name);
  };
  bool is64 = element.getIntOrFloatBitWidth() == 64;
  switch (kind) {
  case arith::AtomicRMWKind::addf:
    return element.isF32() || element.isF64() ? element : Type();
  case arith::AtomicRMWKind::assign:
    if (element.isF32())
      return element;
    [[fallthrough]];
  case arith::AtomicRMWKind::addi:
  case arith::AtomicRMWKind::andi:
  case arith::AtomicRMWKind::ori:
  case arith::AtomicRMWKind::xori:
  case arith::AtomicRMWKind::maxu:
  case arith::AtomicRMWKind::minu:
    if (!element.isInteger(32) && !element.isInteger(64))
      return Type();
    return is64 ? opaque("unsigned long long") : opaque("unsigned int");
  case arith::AtomicRMWKind::maxs:
  case arith::AtomicRMWKind::mins:
    if (!element.isInteger(32) && !element.isInteger(64))
      return Type();
    return is64 ? opaque("long long") : opaque("int");
  default:
    return Type();
  }
}

StringRef atomicFunction(arith::AtomicRMWKind kind) {
  switch (kind) {
  case arith::AtomicRMWKind::addf:
  case arith::AtomicRMWKind::addi:
    return "atomicAdd";
  case arith::AtomicRMWKind::assign:
    return "atomicExch";
  case arith::AtomicRMWKind::andi:
    return "atomicAnd";
  case arith::AtomicRMWKind::ori:
    return "atomicOr";
  case arith::AtomicRMWKind::xori:
    return "atomicXor";
  case arith::AtomicRMWKind::maxs:
  case arith::AtomicRMWKind::maxu:
    return "atomicMax";
  case arith::AtomicRMWKind::mins:
  case arith::AtomicRMWKind::minu:
    return "atomicMin";
  default:
    return "";
  }
}

/// `(C *)&pointer[index]` for the atomic's C operand type.
Value atomicAddress(OpBuilder &b, Location loc, Value pointer, Value index,
                    Type operand) {
  Value lvalue = element(b, loc, pointer, index);
  Type stored = cast<emitc::LValueType>(lvalue.getType()).getValueType();
  Value address = emitc::AddressOfOp::create(
      b, loc, emitc::PointerType::get(stored), lvalue);
  if (operand == stored)
    return address;
  return emitc::CastOp::create(b, loc, emitc::PointerType::get(operand),
                               address);
}

Value castIfNeeded(OpBuilder &b, Location loc, Type type, Value value) {
  return value.getType() == type ? value
                                 : emitc::CastOp::create(b, loc, type, value);
}

/// Signed 64-bit max/min as a compare-and-swap loop (HIP has no
/// atomicMax/Min on long long; CUDA has):
///   do { assumed = *p; desired = assumed <op> v ? assumed : v;
///        again = atomicCAS(p, assumed, desired) != assumed; } while (again);
/// The result is the last `assumed`, the value the swap replaced.
Value signedMinMax64(ConversionPatternRewriter &rewriter, Location loc,
                     Value pointer, Value index, Value value, bool max) {
  MLIRContext *ctx = rewriter.getContext();
  Type u64 = emitc::OpaqueType::get(ctx, "unsigned long long");
  Type i64 = rewriter.getI64Type();
  Type i1 = rewriter.getI1Type();
  Value address = atomicAddress(rewriter, loc, pointer, index, u64);
  auto uninitialized = emitc::OpaqueAttr::get(ctx, "");
  Value replaced = emitc::VariableOp::create(
      rewriter, loc, emitc::LValueType::get(u64), uninitialized);
  Value again = emitc::VariableOp::create(
      rewriter, loc, emitc::LValueType::get(i1), uninitialized);
  auto loop = emitc::DoOp::create(rewriter, loc);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.createBlock(&loop.getBodyRegion());
    Value zero = constantI64(rewriter, loc, 0);
    Value assumed = emitc::LoadOp::create(
        rewriter, loc, u64, element(rewriter, loc, address, zero));
    Value signedAssumed = emitc::CastOp::create(rewriter, loc, i64, assumed);
    Value keep = emitc::CmpOp::create(rewriter, loc, i1,
                                      max ? emitc::CmpPredicate::gt
                                          : emitc::CmpPredicate::lt,
                                      signedAssumed, value);
    Value desired = emitc::ConditionalOp::create(rewriter, loc, i64, keep,
                                                 signedAssumed, value);
    auto swap = emitc::CallOpaqueOp::create(
        rewriter, loc, TypeRange{u64}, "atomicCAS",
        ValueRange{address, assumed,
                   emitc::CastOp::create(rewriter, loc, u64, desired)});
    Value changed = emitc::CmpOp::create(
        rewriter, loc, i1, emitc::CmpPredicate::ne, swap.getResult(0), assumed);
    emitc::AssignOp::create(rewriter, loc, replaced, assumed);
    emitc::AssignOp::create(rewriter, loc, again, changed);

    rewriter.createBlock(&loop.getConditionRegion());
    auto condition =
        emitc::ExpressionOp::create(rewriter, loc, i1, ValueRange{again});
    Block *body = rewriter.createBlock(&condition.getRegion(), {},
                                       TypeRange{again.getType()}, {loc});
    rewriter.setInsertionPointToStart(body);
    Value loaded =
        emitc::LoadOp::create(rewriter, loc, i1, body->getArgument(0));
    emitc::YieldOp::create(rewriter, loc, loaded);
    rewriter.setInsertionPointAfter(condition);
    emitc::YieldOp::create(rewriter, loc, condition.getResult());
  }
  Value result = emitc::LoadOp::create(rewriter, loc, u64, replaced);
  return emitc::CastOp::create(rewriter, loc, i64, result);
}

struct AtomicRMWLowering : OpConversionPattern<memref::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = op.getType();
    if (element.isInteger(64) && (op.getKind() == arith::AtomicRMWKind::maxs ||
                                  op.getKind() == arith::AtomicRMWKind::mins)) {
      Location loc = op.getLoc();
      rewriter.replaceOp(
          op, signedMinMax64(rewriter, loc, adaptor.getMemref(),
                             linearIndex(rewriter, loc, adaptor.getIndices()),
                             adaptor.getValue(),
                             op.getKind() == arith::AtomicRMWKind::maxs));
      return success();
    }
    Type operand = element.isIntOrFloat()
                       ? atomicOperandType(op.getKind(), element)
                       : Type();
    if (!operand)
      return op.emitOpError("'")
             << arith::stringifyAtomicRMWKind(op.getKind()) << "' on "
             << element
             << " has no HIP atomic (atomicAdd/Max/Min/And/Or/Xor/Exch on "
                "32- and 64-bit integers, atomicAdd on f32/f64, atomicExch "
                "on f32)";
    Location loc = op.getLoc();
    Value address = atomicAddress(
        rewriter, loc, adaptor.getMemref(),
        linearIndex(rewriter, loc, adaptor.getIndices()), operand);
    Value value = castIfNeeded(rewriter, loc, operand, adaptor.getValue());
    auto call = emitc::CallOpaqueOp::create(rewriter, loc, TypeRange{operand},
                                            atomicFunction(op.getKind()),
                                            ValueRange{address, value});
    rewriter.replaceOp(op,
                       castIfNeeded(rewriter, loc, element, call.getResult(0)));
    return success();
  }
};

/// The body `select(cmpi eq(%old, expected), desired, %old)` of
/// convert-wave-to-gpu's fault claim: atomicCAS(address, expected, desired).
struct GenericAtomicRMWLowering
    : OpConversionPattern<memref::GenericAtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::GenericAtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getRegion().front();
    Value old = body.getArgument(0);
    auto yield = cast<memref::AtomicYieldOp>(body.getTerminator());
    auto select = yield.getResult().getDefiningOp<arith::SelectOp>();
    arith::CmpIOp compare =
        select ? select.getCondition().getDefiningOp<arith::CmpIOp>() : nullptr;
    Value expected, desired;
    if (compare && compare.getPredicate() == arith::CmpIPredicate::eq &&
        select.getFalseValue() == old) {
      if (compare.getLhs() == old)
        expected = compare.getRhs();
      else if (compare.getRhs() == old)
        expected = compare.getLhs();
      desired = select.getTrueValue();
    }
    auto outside = [&](Value value) {
      return value && (value.getParentRegion() != &op.getRegion() ||
                       matchPattern(value, m_Constant()));
    };
    Type element = op.getResult().getType();
    if (!outside(expected) || !outside(desired) ||
        !(element.isInteger(32) || element.isInteger(64)))
      return op.emitOpError(
          "is lowered to HIP only in compare-and-swap form on 32- or 64-bit "
          "integers (yield select(cmpi eq(%old, expected), desired, %old))");
    Location loc = op.getLoc();
    // Constants of the body are cloned out of it (it is erased).
    auto valueOf = [&](Value value) -> Value {
      if (value.getParentRegion() != &op.getRegion())
        return rewriter.getRemappedValue(value);
      Operation *clone = rewriter.clone(*value.getDefiningOp());
      return rewriter.getRemappedValue(clone->getResult(0));
    };
    Value expectedValue = valueOf(expected);
    Value desiredValue = valueOf(desired);
    if (!expectedValue || !desiredValue)
      return rewriter.notifyMatchFailure(op, "operands not converted");
    Type operand = emitc::OpaqueType::get(
        op.getContext(),
        element.isInteger(64) ? "unsigned long long" : "unsigned int");
    Value address = atomicAddress(
        rewriter, loc, adaptor.getMemref(),
        linearIndex(rewriter, loc, adaptor.getIndices()), operand);
    auto call = emitc::CallOpaqueOp::create(
        rewriter, loc, TypeRange{operand}, "atomicCAS",
        ValueRange{address, castIfNeeded(rewriter, loc, operand, expectedValue),
                   castIfNeeded(rewriter, loc, operand, desiredValue)});
    rewriter.replaceOp(op,
                       castIfNeeded(rewriter, loc, element, call.getResult(0)));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// math and arith
//===----------------------------------------------------------------------===//

/// Whether `op`'s fastmath flags include `afn` (approximate functions).
bool approximatesFunctions(Operation *op) {
  auto fastmath = dyn_cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlagsAttr flags =
      fastmath ? fastmath.getFastMathFlagsAttr() : nullptr;
  return flags &&
         arith::bitEnumContainsAll(flags.getValue(), arith::FastMathFlags::afn);
}

/// A math op as its C function (`name`, `name` + "f" for f32), or, for an
/// f32 op whose fastmath flags include `afn` (approximate functions), as the
/// device intrinsic `fastName` that HIP and CUDA share (`__sinf`: the
/// hardware's approximation, as `--use_fast_math` would substitute it for
/// the whole program).
template <typename Op> struct MathCallLowering : OpConversionPattern<Op> {
  MathCallLowering(const TypeConverter &converter, MLIRContext *ctx,
                   StringRef name, StringRef fastName = "")
      : OpConversionPattern<Op>(converter, ctx, /*benefit=*/2), name(name),
        fastName(fastName) {}
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op->getResult(0).getType();
    // Other float types have no C type here: their producers are refused.
    if (!type.isF32() && !type.isF64())
      return rewriter.notifyMatchFailure(op, "not f32 or f64");
    std::string callee = name + (type.isF32() ? "f" : "");
    if (type.isF32() && !fastName.empty() && approximatesFunctions(op))
      callee = fastName;
    rewriter.replaceOpWithNewOp<emitc::CallOpaqueOp>(
        op, TypeRange{type}, callee, adaptor.getOperands());
    return success();
  }
  std::string name, fastName;
};

/// An f32 `arith.divf` with `afn` as `__fdividef`, the hardware's
/// approximate division that HIP and CUDA share (2 ulp; what LLVM's NVPTX and
/// AMDGPU backends make of an `fdiv afn`, and what `--use_fast_math` makes of
/// every division). Without the flag the division stays C's correctly
/// rounded `/` (ArithToEmitC).
struct ApproximateDivLowering : OpConversionPattern<arith::DivFOp> {
  ApproximateDivLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern<arith::DivFOp>(converter, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32() || !approximatesFunctions(op))
      return rewriter.notifyMatchFailure(op, "not an f32 division with afn");
    rewriter.replaceOpWithNewOp<emitc::CallOpaqueOp>(
        op, TypeRange{op.getType()}, "__fdividef", adaptor.getOperands());
    return success();
  }
};

/// Integer math as the device intrinsics HIP and CUDA share.
template <typename Op> struct IntegerMathLowering : OpConversionPattern<Op> {
  IntegerMathLowering(const TypeConverter &converter, MLIRContext *ctx,
                      StringRef name32, StringRef name64)
      : OpConversionPattern<Op>(converter, ctx), name32(name32),
        name64(name64) {}
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op->getResult(0).getType();
    // Narrower integers go through i32 first (expandKernelMath).
    if (!type.isInteger(32) && !type.isInteger(64))
      return rewriter.notifyMatchFailure(op, "not i32 or i64");
    bool is64 = type.isInteger(64);
    Location loc = op.getLoc();
    Type operand =
        emitc::OpaqueType::get(op.getContext(), is64 ? "long long" : "int");
    Value argument =
        castIfNeeded(rewriter, loc, operand, adaptor.getOperands().front());
    auto call = emitc::CallOpaqueOp::create(rewriter, loc, TypeRange{operand},
                                            is64 ? name64 : name32,
                                            ValueRange{argument});
    rewriter.replaceOp(op,
                       castIfNeeded(rewriter, loc, type, call.getResult(0)));
    return success();
  }
  std::string name32, name64;
};

/// f32 <-> i32 and f64 <-> i64 through the reinterpreting intrinsics HIP and
/// CUDA share (__float_as_int, __int_as_float, __double_as_longlong,
/// __longlong_as_double).
struct BitcastLowering : OpConversionPattern<arith::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::BitcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type from = op.getIn().getType(), to = op.getType();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto half = [](Type type) { return type.isF16() || type.isBF16(); };
    auto bits16 = [&](Type type) { return half(type) || type.isInteger(16); };
    if (from == to || (bits16(from) && bits16(to) && (half(from) || half(to)))) {
      rewriter.replaceOp(op, adaptor.getIn()); // the same 16 bits
      return success();
    }
    StringRef callee;
    Type argument, result;
    if (from.isF32() && to.isInteger(32)) {
      callee = "__float_as_int", argument = from,
      result = emitc::OpaqueType::get(ctx, "int");
    } else if (from.isInteger(32) && to.isF32()) {
      callee = "__int_as_float", argument = emitc::OpaqueType::get(ctx, "int"),
      result = to;
    } else if (from.isF64() && to.isInteger(64)) {
      callee = "__double_as_longlong", argument = from,
      result = emitc::OpaqueType::get(ctx, "long long");
    } else if (from.isInteger(64) && to.isF64()) {
      callee = "__longlong_as_double",
      argument = emitc::OpaqueType::get(ctx, "long long"), result = to;
    } else if (from.isInteger() && to.isInteger()) {
      rewriter.replaceOpWithNewOp<emitc::CastOp>(op, to, adaptor.getIn());
      return success();
    } else {
      return op.emitOpError("from ")
             << from << " to " << to
             << " is not lowered to HIP (f32 <-> i32, f64 <-> i64, f16 and "
                "bf16 <-> i16)";
    }
    Value in = castIfNeeded(rewriter, loc, argument, adaptor.getIn());
    auto call = emitc::CallOpaqueOp::create(rewriter, loc, TypeRange{result},
                                            callee, ValueRange{in});
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, to, call.getResult(0)));
    return success();
  }
};

/// The high half of a 64-bit unsigned product is `__umul64hi`; narrower
/// ones are rewritten at the arith level (Prepare.cpp).
struct MulUIExtendedLowering : OpConversionPattern<arith::MulUIExtendedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::MulUIExtendedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getLhs().getType();
    if (!type.isInteger(64))
      return rewriter.notifyMatchFailure(op, "wider than 64 bits");
    Location loc = op.getLoc();
    Type u64 = emitc::OpaqueType::get(op.getContext(), "unsigned long long");
    Value lhs = castIfNeeded(rewriter, loc, u64, adaptor.getLhs());
    Value rhs = castIfNeeded(rewriter, loc, u64, adaptor.getRhs());
    Value low = emitc::MulOp::create(rewriter, loc, u64, lhs, rhs);
    auto high = emitc::CallOpaqueOp::create(rewriter, loc, TypeRange{u64},
                                            "__umul64hi", ValueRange{lhs, rhs});
    rewriter.replaceOp(op,
                       {castIfNeeded(rewriter, loc, type, low),
                        castIfNeeded(rewriter, loc, type, high.getResult(0))});
    return success();
  }
};

/// An index constant as the int64_t (or, with index-bitwidth=32, int32_t)
/// it is in HIP (upstream keeps the index attribute, which only fits
/// emitc.size_t).
struct IndexConstantLowering : OpConversionPattern<arith::ConstantOp> {
  IndexConstantLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern<arith::ConstantOp>(converter, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<IntegerAttr>(op.getValue());
    if (!value || !value.getType().isIndex())
      return failure();
    auto type =
        cast<IntegerType>(hipIndexType(getTypeConverter(), op.getContext()));
    // prepareForHIP refused a constant that does not fit.
    rewriter.replaceOpWithNewOp<emitc::ConstantOp>(
        op, type, rewriter.getIntegerAttr(type, value.getInt()));
    return success();
  }
};

/// Unsigned division and remainder on the converted operands (upstream's
/// pattern casts the original, index-typed operands).
template <typename Op, typename EmitCOp>
struct UnsignedBinaryLowering : OpConversionPattern<Op> {
  UnsignedBinaryLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern<Op>(converter, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = this->getTypeConverter()->convertType(op.getType());
    auto integer = dyn_cast_or_null<IntegerType>(type);
    if (!integer || integer.getWidth() == 1)
      return failure();
    Location loc = op.getLoc();
    Type unsignedType = IntegerType::get(op.getContext(), integer.getWidth(),
                                         IntegerType::Unsigned);
    Value lhs = castIfNeeded(rewriter, loc, unsignedType, adaptor.getLhs());
    Value rhs = castIfNeeded(rewriter, loc, unsignedType, adaptor.getRhs());
    Value result = EmitCOp::create(rewriter, loc, unsignedType, lhs, rhs);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, type, result));
    return success();
  }
};

/// A call of the prelude's conversion `callee` for half float type `half`:
/// `callee(operand, e, m)` with the type's exponent and mantissa bits.
Value callHalfConversion(OpBuilder &b, Location loc, StringRef callee,
                         Type result, Value operand, Type half) {
  auto [exponent, mantissa] =
      half.isF16() ? std::pair{5, 10} : std::pair{8, 7};
  return emitc::CallOpaqueOp::create(
             b, loc, TypeRange{result}, callee, ValueRange{operand},
             b.getArrayAttr({b.getIndexAttr(0), b.getI32IntegerAttr(exponent),
                             b.getI32IntegerAttr(mantissa)}))
      .getResult(0);
}

/// arith.extf from f16/bf16: the value, exactly, as a double (the prelude's
/// sluice_half_to_double), then narrowed to f32 where asked (exact too).
struct HalfExtFLowering : OpConversionPattern<arith::ExtFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type from = op.getIn().getType();
    if (!from.isF16() && !from.isBF16())
      return rewriter.notifyMatchFailure(op, "not from a half float");
    Location loc = op.getLoc();
    // Unsigned, so that the call's uint32_t parameter does not sign-extend.
    Value bits = castIfNeeded(
        rewriter, loc,
        IntegerType::get(op.getContext(), 16, IntegerType::Unsigned),
        adaptor.getIn());
    Value wide = callHalfConversion(rewriter, loc, "sluice_half_to_double",
                                    rewriter.getF64Type(), bits, from);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, op.getType(), wide));
    return success();
  }
};

/// arith.truncf to f16/bf16, rounded to nearest even from the exact double
/// (an f32 operand widens exactly, so there is one rounding).
struct HalfTruncFLowering : OpConversionPattern<arith::TruncFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type to = op.getType();
    if (!to.isF16() && !to.isBF16())
      return rewriter.notifyMatchFailure(op, "not to a half float");
    if (op.getRoundingmodeAttr())
      return op.emitOpError("with a rounding mode is not lowered to HIP "
                            "(half floats round to nearest even)");
    Location loc = op.getLoc();
    Value wide = castIfNeeded(rewriter, loc, rewriter.getF64Type(),
                              adaptor.getIn());
    Value bits = callHalfConversion(
        rewriter, loc, "sluice_double_to_half",
        IntegerType::get(op.getContext(), 16, IntegerType::Unsigned), wide,
        to);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc,
                                        rewriter.getIntegerType(16), bits));
    return success();
  }
};

/// An f16/bf16 constant: its bits.
struct HalfConstantLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<FloatAttr>(op.getValue());
    if (!value || (!value.getType().isF16() && !value.getType().isBF16()))
      return rewriter.notifyMatchFailure(op, "not a half float constant");
    APInt bits = value.getValue().bitcastToAPInt();
    Type i16 = rewriter.getIntegerType(16);
    rewriter.replaceOpWithNewOp<emitc::ConstantOp>(
        op, i16, rewriter.getIntegerAttr(i16, bits.getSExtValue()));
    return success();
  }
};

/// An undefined value of the CFG lifting: zero.
struct PoisonLowering : OpConversionPattern<ub::PoisonOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ub::PoisonOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || !type.isIntOrFloat())
      return op.emitOpError("of type ")
             << op.getType() << " is not lowered to HIP";
    Attribute zero = isa<FloatType>(type)
                         ? Attribute(rewriter.getFloatAttr(type, 0.0))
                         : Attribute(rewriter.getIntegerAttr(type, 0));
    rewriter.replaceOpWithNewOp<emitc::ConstantOp>(op, type, zero);
    return success();
  }
};

} // namespace

namespace sluice {

bool isContiguousMemRef(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    if (type.getDimSize(d) != 1 && strides[d] != expected)
      return false;
    if (d > 0 && type.isDynamicDim(d))
      return false;
    expected *= type.getDimSize(d);
  }
  return true;
}

void populateHIPTypeConversions(TypeConverter &converter,
                                unsigned indexBitwidth) {
  converter.addConversion([](Type type) -> std::optional<Type> {
    if (isa<emitc::EmitCDialect>(type.getDialect()))
      return type;
    return std::nullopt;
  });
  converter.addConversion([](IntegerType type) -> Type {
    unsigned width = type.getWidth();
    if (width == 1 || width == 8 || width == 16 || width == 32 || width == 64)
      return type;
    return Type();
  });
  converter.addConversion([](FloatType type) -> Type {
    // f16 and bf16 are their bits: emulateHalfFloats leaves them only in
    // storage, constants and conversions.
    if (type.isF16() || type.isBF16())
      return IntegerType::get(type.getContext(), 16);
    return type.isF32() || type.isF64() ? type : Type();
  });
  converter.addConversion([indexBitwidth](IndexType type) -> Type {
    return IntegerType::get(type.getContext(), indexBitwidth);
  });
  converter.addConversion([&converter](MemRefType type) -> Type {
    if (!isContiguousMemRef(type))
      return Type();
    Type element = type.getElementType();
    if (element.isInteger(1))
      return emitc::PointerType::get(
          IntegerType::get(type.getContext(), 8, IntegerType::Unsigned));
    Type converted = converter.convertType(element);
    if (!converted || isa<emitc::PointerType>(converted))
      return Type();
    return emitc::PointerType::get(converted);
  });
}

void populateSluiceGPUToHIPPatterns(const TypeConverter &converter,
                                    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<GPUFuncLowering, GPUReturnLowering, GPUBarrierLowering,
               GPUGlobalIdLowering, GPUSubgroupSizeLowering, GPULaneIdLowering,
               LoadLowering, StoreLowering, ViewLowering,
               ReinterpretCastLowering, CastLowering, AllocaLowering,
               AtomicRMWLowering, GenericAtomicRMWLowering, BitcastLowering,
               MulUIExtendedLowering, PoisonLowering, IndexConstantLowering>(
      converter, ctx);
  // Before ArithToEmitC's float patterns, which do not know the bits.
  patterns.add<HalfExtFLowering, HalfTruncFLowering, HalfConstantLowering>(
      converter, ctx, /*benefit=*/10);
  populateHIPSubgroupPatterns(converter, patterns);
  patterns.add<UnsignedBinaryLowering<arith::DivUIOp, emitc::DivOp>,
               UnsignedBinaryLowering<arith::RemUIOp, emitc::RemOp>>(converter,
                                                                     ctx);
  patterns.add<GPUIdLowering<gpu::ThreadIdOp>>(converter, ctx, "threadIdx");
  patterns.add<GPUIdLowering<gpu::BlockIdOp>>(converter, ctx, "blockIdx");
  patterns.add<GPUIdLowering<gpu::BlockDimOp>>(converter, ctx, "blockDim");
  patterns.add<GPUIdLowering<gpu::GridDimOp>>(converter, ctx, "gridDim");
  // The C99 functions upstream's MathToEmitC lacks (and, at a higher
  // benefit, those it has, so that every math op is one name per type).
  patterns.add<MathCallLowering<math::SqrtOp>>(converter, ctx, "sqrt");
  patterns.add<MathCallLowering<math::RsqrtOp>>(converter, ctx, "rsqrt");
  patterns.add<MathCallLowering<math::CbrtOp>>(converter, ctx, "cbrt");
  patterns.add<MathCallLowering<math::LogOp>>(converter, ctx, "log", "__logf");
  patterns.add<MathCallLowering<math::Log2Op>>(converter, ctx, "log2", "__log2f");
  patterns.add<MathCallLowering<math::Log10Op>>(converter, ctx, "log10", "__log10f");
  patterns.add<MathCallLowering<math::Log1pOp>>(converter, ctx, "log1p");
  patterns.add<MathCallLowering<math::Exp2Op>>(converter, ctx, "exp2");
  patterns.add<MathCallLowering<math::ExpM1Op>>(converter, ctx, "expm1");
  patterns.add<MathCallLowering<math::TanOp>>(converter, ctx, "tan", "__tanf");
  patterns.add<MathCallLowering<math::TanhOp>>(converter, ctx, "tanh");
  patterns.add<MathCallLowering<math::SinhOp>>(converter, ctx, "sinh");
  patterns.add<MathCallLowering<math::CoshOp>>(converter, ctx, "cosh");
  patterns.add<MathCallLowering<math::AtanOp>>(converter, ctx, "atan");
  patterns.add<MathCallLowering<math::AsinhOp>>(converter, ctx, "asinh");
  patterns.add<MathCallLowering<math::AcoshOp>>(converter, ctx, "acosh");
  patterns.add<MathCallLowering<math::AtanhOp>>(converter, ctx, "atanh");
  patterns.add<MathCallLowering<math::ErfOp>>(converter, ctx, "erf");
  patterns.add<MathCallLowering<math::ErfcOp>>(converter, ctx, "erfc");
  patterns.add<MathCallLowering<math::FmaOp>>(converter, ctx, "fma");
  patterns.add<MathCallLowering<math::CopySignOp>>(converter, ctx, "copysign");
  patterns.add<MathCallLowering<math::TruncOp>>(converter, ctx, "trunc");
  patterns.add<MathCallLowering<math::RoundEvenOp>>(converter, ctx, "rint");
  patterns.add<MathCallLowering<math::SinOp>>(converter, ctx, "sin", "__sinf");
  patterns.add<MathCallLowering<math::CosOp>>(converter, ctx, "cos", "__cosf");
  patterns.add<MathCallLowering<math::ExpOp>>(converter, ctx, "exp", "__expf");
  patterns.add<MathCallLowering<math::PowFOp>>(converter, ctx, "pow", "__powf");
  patterns.add<MathCallLowering<arith::RemFOp>>(converter, ctx, "fmod");
  patterns.add<ApproximateDivLowering>(converter, ctx);
  patterns.add<IntegerMathLowering<math::CountLeadingZerosOp>>(
      converter, ctx, "__clz", "__clzll");
  patterns.add<IntegerMathLowering<math::CtPopOp>>(converter, ctx, "__popc",
                                                   "__popcll");
}

std::string hipFileId(StringRef gpuModule) {
  return (kHIPPreludeFileId + "." + gpuModule).str();
}

std::string hipKernelSymbol(StringRef gpuModule, StringRef kernel) {
  return (gpuModule + "_" + kernel).str();
}

} // namespace sluice
