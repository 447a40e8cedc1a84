//===- GPUToSPIRV.cpp - Sluice's gpu hand-off to spirv.module -------------===//
//
// sluice-gpu-to-spirv: prepares every gpu.module kernel for the upstream
// GPU/Arith/Math/Index/CF/SCF/MemRef/Func/UB to SPIR-V patterns (structured
// control flow, frame field access as 32-bit words, workgroup attributions as
// Workgroup variables, storage classes, entry point and interface ABI) and
// runs them, plus the Sluice patterns upstream lacks: the fault claim
// (`memref.generic_atomic_rmw` in compare-and-swap form) and module-scope
// workgroup variables. docs/spirv-backend.md.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUCollectives/ExpandCollectives.h"
#include "sluice/Conversion/GPUCollectives/ExpandKernelMath.h"
#include "sluice/Conversion/GPUCollectives/LiftControlFlow.h"
#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"
#include "sluice/Conversion/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/ControlFlowToSPIRV/ControlFlowToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/IndexToSPIRV/IndexToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/UBToSPIRV/UBToSPIRV.h"
#include "mlir/Conversion/VectorToSPIRV/VectorToSPIRV.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

namespace sluice {
#define GEN_PASS_DEF_CONVERTSLUICEGPUTOSPIRV
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

//===----------------------------------------------------------------------===//
// Preparation (memref level, on the copy of each gpu.module)
//===----------------------------------------------------------------------===//

/// `scf.index_switch` (transformCFGToSCF selects among the exits of a region
/// with several with one) as a chain of `scf.if`: SCFToSPIRV has no lowering
/// for it.
void lowerIndexSwitches(gpu::GPUFuncOp func) {
  SmallVector<scf::IndexSwitchOp> switches;
  func.walk([&](scf::IndexSwitchOp op) { switches.push_back(op); });
  IRRewriter rewriter(func.getContext());
  for (scf::IndexSwitchOp op : switches) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    if (op.getNumCases() == 0) {
      Block &only = op.getDefaultBlock();
      auto yield = cast<scf::YieldOp>(only.getTerminator());
      SmallVector<Value> values(yield.getOperands());
      rewriter.eraseOp(yield);
      rewriter.inlineBlockBefore(&only, op);
      rewriter.replaceOp(op, values);
      continue;
    }
    SmallVector<Value> results;
    for (auto [i, value] : llvm::enumerate(op.getCases())) {
      Value at = arith::ConstantIndexOp::create(rewriter, loc, value);
      Value match = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, op.getArg(), at);
      auto branch = scf::IfOp::create(rewriter, loc, op.getResultTypes(), match,
                                      /*addThenBlock=*/false,
                                      /*addElseBlock=*/false);
      if (i == 0)
        results.assign(branch.getResults().begin(), branch.getResults().end());
      else
        scf::YieldOp::create(rewriter, loc, branch.getResults());
      branch.getThenRegion().takeBody(op.getCaseRegions()[i]);
      if (i + 1 == op.getNumCases()) {
        branch.getElseRegion().takeBody(op.getDefaultRegion());
      } else {
        rewriter.createBlock(&branch.getElseRegion());
      }
    }
    rewriter.replaceOp(op, results);
  }
}

/// Lifts the CFG of every multi-block region of `func` to scf
/// (LiftControlFlow.h), then the index switches it may leave.
LogicalResult liftControlFlow(gpu::GPUFuncOp func) {
  if (failed(sluice::liftKernelControlFlow(func, "SPIR-V Shader")))
    return failure();
  lowerIndexSwitches(func);
  return success();
}

/// Every sign extension to i64 (arith.extsi, and arith.index_cast of an
/// index, 32 bits in these kernels) as `(zext x << k) >>s k`, k = 64 - the
/// source width. Mesa 22.3's lavapipe (NIR) evaluates a signed compare of
/// `OpSConvert` to i64 with a constant wrongly (`x < 0` false for negative
/// x; docs/gpu-kernels.md, "Known driver bugs"); the shifts it gets right,
/// and an LLVM-based driver folds them back into one sign extension.
void signExtendToI64WithShifts(gpu::GPUModuleOp module) {
  SmallVector<Operation *> extensions;
  module.walk([&](Operation *op) {
    if (op->getNumResults() == 1 && op->getResult(0).getType().isInteger(64) &&
        (isa<arith::ExtSIOp>(op) || (isa<arith::IndexCastOp>(op) &&
                                     op->getOperand(0).getType().isIndex())))
      extensions.push_back(op);
  });
  for (Operation *op : extensions) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type i64 = op->getResult(0).getType();
    Value in = op->getOperand(0);
    if (in.getType().isIndex())
      in = arith::IndexCastOp::create(b, loc, b.getI32Type(), in);
    unsigned shift = 64 - in.getType().getIntOrFloatBitWidth();
    Value wide = arith::ExtUIOp::create(b, loc, i64, in);
    Value k = arith::ConstantIntOp::create(b, loc, i64, shift);
    Value up = arith::ShLIOp::create(b, loc, wide, k);
    op->getResult(0).replaceAllUsesWith(
        arith::ShRSIOp::create(b, loc, up, k).getResult());
    op->erase();
  }
}

/// Upstream's scf.for lowering keeps each loop result in a Function variable
/// that only the loop body stores, so a loop that runs zero times yields an
/// uninitialized value instead of its init operand. Every scf.for with
/// results is put under `scf.if (lb < ub)`, whose else branch yields the
/// init operands: inside it the loop runs at least once.
void guardZeroTripLoopResults(gpu::GPUModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    if (loop.getNumResults() > 0)
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value runs = arith::CmpIOp::create(
        b, loc,
        loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                              : arith::CmpIPredicate::slt,
        loop.getLowerBound(), loop.getUpperBound());
    auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                   /*withElseRegion=*/true);
    loop->replaceAllUsesWith(guard.getResults());
    loop->moveBefore(guard.thenBlock(), guard.thenBlock()->end());
    OpBuilder then = guard.getThenBodyBuilder();
    scf::YieldOp::create(then, loc, loop.getResults());
    OpBuilder otherwise = guard.getElseBodyBuilder();
    scf::YieldOp::create(otherwise, loc, loop.getInitArgs());
  }
}

/// Bit width of a frame field type in memory (index is 64 bits in the frame).
unsigned frameBits(Type type) {
  if (type.isIndex())
    return 64;
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth();
  return 0;
}

/// Loads `bits`/32 words at `word` and returns them as `type`.
Value loadField(OpBuilder &b, Location loc, Value words, Value word,
                Type type) {
  Value lo = memref::LoadOp::create(b, loc, words, word);
  if (frameBits(type) == 32)
    return type.isInteger(32) ? lo : arith::BitcastOp::create(b, loc, type, lo);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value hiWord = arith::AddIOp::create(b, loc, word, one);
  Value hi = memref::LoadOp::create(b, loc, words, hiWord);
  Type i64 = b.getI64Type();
  Value lo64 = arith::ExtUIOp::create(b, loc, i64, lo);
  Value hi64 = arith::ExtUIOp::create(b, loc, i64, hi);
  Value c32 = arith::ConstantIntOp::create(b, loc, i64, 32);
  Value shifted = arith::ShLIOp::create(b, loc, hi64, c32);
  Value whole = arith::OrIOp::create(b, loc, lo64, shifted);
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, whole);
  if (type.isInteger(64))
    return whole;
  return arith::BitcastOp::create(b, loc, type, whole);
}

/// Stores `value` as `bits`/32 words at `word`.
void storeField(OpBuilder &b, Location loc, Value value, Value words,
                Value word) {
  Type type = value.getType();
  Type i32 = b.getI32Type();
  if (frameBits(type) == 32) {
    Value w = type.isInteger(32) ? value
                                 : arith::BitcastOp::create(b, loc, i32, value);
    memref::StoreOp::create(b, loc, w, words, word);
    return;
  }
  Type i64 = b.getI64Type();
  Value whole = value;
  if (type.isIndex())
    whole = arith::IndexCastOp::create(b, loc, i64, value);
  else if (!type.isInteger(64))
    whole = arith::BitcastOp::create(b, loc, i64, value);
  Value c32 = arith::ConstantIntOp::create(b, loc, i64, 32);
  Value lo = arith::TruncIOp::create(b, loc, i32, whole);
  Value hi = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, whole, c32));
  memref::StoreOp::create(b, loc, lo, words, word);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  memref::StoreOp::create(b, loc, hi, words,
                          arith::AddIOp::create(b, loc, word, one).getResult());
}

/// Bit position of byte `byte` inside its 32-bit word, as i32.
Value bitShift(OpBuilder &b, Location loc, Value byte) {
  Value c3 = arith::ConstantIndexOp::create(b, loc, 3);
  Value inWord = arith::AndIOp::create(b, loc, byte, c3);
  Value bits = arith::ShLIOp::create(b, loc, inWord, c3);
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), bits);
}

/// An integer field narrower than a word (i1, i8, i16): shift it out of its
/// word.
Value loadSubWord(OpBuilder &b, Location loc, Value words, Value byte,
                  Type type) {
  Value c2 = arith::ConstantIndexOp::create(b, loc, 2);
  Value word = arith::ShRUIOp::create(b, loc, byte, c2);
  Value w = memref::LoadOp::create(b, loc, words, word);
  Value v = arith::ShRUIOp::create(b, loc, w, bitShift(b, loc, byte));
  return arith::TruncIOp::create(b, loc, type, v);
}

/// Stores a narrow integer field with an atomic and (clear its bytes) and an
/// atomic or (set them): neighbouring fields of other frames share the word.
void storeSubWord(OpBuilder &b, Location loc, Value value, Value words,
                  Value byte, unsigned bytes) {
  Type i32 = b.getI32Type();
  Value c2 = arith::ConstantIndexOp::create(b, loc, 2);
  Value word = arith::ShRUIOp::create(b, loc, byte, c2);
  Value shift = bitShift(b, loc, byte);
  Value ones = arith::ConstantIntOp::create(
      b, loc, i32, static_cast<int64_t>((uint64_t{1} << (8 * bytes)) - 1));
  Value mask = arith::ShLIOp::create(b, loc, ones, shift);
  Value allOnes = arith::ConstantIntOp::create(b, loc, i32, -1);
  Value keep = arith::XOrIOp::create(b, loc, mask, allOnes);
  Value wide = arith::ExtUIOp::create(b, loc, i32, value);
  Value placed = arith::ShLIOp::create(b, loc, wide, shift);
  memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::andi, keep, words,
                              ValueRange{word});
  memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::ori, placed, words,
                              ValueRange{word});
}

/// Frame field access: a `memref<?xi8>` argument used only by `memref.view`s
/// becomes a `memref<?xi32>` word array, and every load/store of a view a
/// load/store of the field's words (narrow integers: a shift out of the word,
/// and atomic and/or into it). Returns the number of accesses rewritten.
FailureOr<unsigned> rewriteFrameAccess(gpu::GPUFuncOp func) {
  MLIRContext *ctx = func.getContext();
  unsigned rewritten = 0;
  SmallVector<Type> argTypes(func.getArgumentTypes());
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    BlockArgument arg = func.getArgument(i);
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || type.getRank() != 1 || !type.getElementType().isInteger(8) ||
        type.getMemorySpace() || arg.use_empty() ||
        !llvm::all_of(arg.getUsers(), [](Operation *user) {
          return isa<memref::ViewOp>(user);
        }))
      continue;
    auto words =
        MemRefType::get({ShapedType::kDynamic}, IntegerType::get(ctx, 32));
    // The word array's type first: the loads below take their result type
    // from it (created on the byte array, they were i8 loads of words, which
    // only a target without Int8 hid by holding i8 in an i32).
    arg.setType(words);
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
      auto view = cast<memref::ViewOp>(user);
      MemRefType fieldType = view.getType();
      Type elem = fieldType.getElementType();
      unsigned bits = frameBits(elem);
      bool subWord = isa<IntegerType>(elem) && bits >= 1 && bits <= 16;
      if (fieldType.getRank() != 1 || (bits != 32 && bits != 64 && !subWord))
        return view.emitOpError("frame field of type ")
               << fieldType << ": the SPIR-V backend accesses frame fields as "
               << "32-bit words and supports integers of up to 64 bits and "
               << "32- and 64-bit floats only";
      unsigned bytes = bits <= 8 ? 1 : bits / 8;
      for (Operation *access : llvm::make_early_inc_range(view->getUsers())) {
        OpBuilder b(access);
        Location loc = access->getLoc();
        auto wordOf = [&](Value index) -> Value {
          Value c2 = arith::ConstantIndexOp::create(b, loc, 2);
          Value base = arith::ShRUIOp::create(b, loc, view.getByteShift(), c2);
          Value per = arith::ConstantIndexOp::create(b, loc, bits / 32);
          Value off = arith::MulIOp::create(b, loc, index, per);
          return arith::AddIOp::create(b, loc, base, off);
        };
        auto byteOf = [&](Value index) -> Value {
          Value size = arith::ConstantIndexOp::create(b, loc, bytes);
          Value off = arith::MulIOp::create(b, loc, index, size);
          return arith::AddIOp::create(b, loc, view.getByteShift(), off);
        };
        if (subWord) {
          if (auto load = dyn_cast<memref::LoadOp>(access)) {
            Value v =
                loadSubWord(b, loc, arg, byteOf(load.getIndices()[0]), elem);
            load.replaceAllUsesWith(v);
            load.erase();
            ++rewritten;
            continue;
          }
          if (auto store = dyn_cast<memref::StoreOp>(access)) {
            storeSubWord(b, loc, store.getValueToStore(), arg,
                         byteOf(store.getIndices()[0]), bytes);
            store.erase();
            ++rewritten;
            continue;
          }
        }
        if (auto load = dyn_cast<memref::LoadOp>(access)) {
          Value v = loadField(b, loc, arg, wordOf(load.getIndices()[0]), elem);
          load.replaceAllUsesWith(v);
          load.erase();
        } else if (auto store = dyn_cast<memref::StoreOp>(access)) {
          storeField(b, loc, store.getValueToStore(), arg,
                     wordOf(store.getIndices()[0]));
          store.erase();
        } else {
          return access->emitOpError(
              "uses a frame field view; the SPIR-V backend supports only "
              "memref.load and memref.store of frame fields");
        }
        ++rewritten;
      }
      view.erase();
    }
    argTypes[i] = words;
  }
  func.setFunctionType(FunctionType::get(ctx, argTypes, func.getResultTypes()));
  return rewritten;
}

/// The invocation's index in the whole grid, for scratch memory:
/// ((bid.z * grid.y + bid.y) * grid.x + bid.x) * block size + the thread's
/// linear id in its block.
Value globalInvocationIndex(OpBuilder &b, Location loc) {
  auto dim = [&](auto op, gpu::Dimension d) -> Value {
    return decltype(op)::create(b, loc, d);
  };
  using gpu::Dimension;
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  Value bx = dim(gpu::BlockDimOp(), Dimension::x);
  Value by = dim(gpu::BlockDimOp(), Dimension::y);
  Value bz = dim(gpu::BlockDimOp(), Dimension::z);
  Value thread = add(dim(gpu::ThreadIdOp(), Dimension::x),
                     mul(bx, add(dim(gpu::ThreadIdOp(), Dimension::y),
                                 mul(by, dim(gpu::ThreadIdOp(), Dimension::z)))));
  Value block = add(
      dim(gpu::BlockIdOp(), Dimension::x),
      mul(dim(gpu::GridDimOp(), Dimension::x),
          add(dim(gpu::BlockIdOp(), Dimension::y),
              mul(dim(gpu::GridDimOp(), Dimension::y),
                  dim(gpu::BlockIdOp(), Dimension::z)))));
  return add(mul(block, mul(bx, mul(by, bz))), thread);
}

/// A private attribution of more than `maxPrivateBytes` per invocation would
/// be a huge Function-storage array, which drivers place in their own scratch
/// or refuse (NVIDIA fails pipeline creation for 32 KiB). It becomes a
/// trailing storage-buffer argument instead, one slice of
/// `shape.numElements()` elements per invocation at
/// globalInvocationIndex() * numElements; every load and store is re-indexed.
/// The host passes a scratch buffer there (sluice_rt_vk_launch_scratch).
LogicalResult moveToScratch(gpu::GPUFuncOp func, BlockArgument attribution,
                            MemRefType type, Value &base, OpBuilder &entry) {
  Location loc = func.getLoc();
  auto scratchType = MemRefType::get({ShapedType::kDynamic},
                                     type.getElementType());
  unsigned position = func.getNumArguments();
  if (failed(func.insertArgument(position, scratchType, DictionaryAttr(), loc)))
    return func.emitOpError("cannot add a scratch argument");
  Value scratch = func.getArgument(position);
  if (!base)
    base = arith::MulIOp::create(
        entry, loc, globalInvocationIndex(entry, loc),
        arith::ConstantIndexOp::create(entry, loc, type.getNumElements()));
  SmallVector<int64_t> strides = computeSuffixProduct(type.getShape());
  SmallVector<Operation *> users(attribution.getUsers());
  for (Operation *user : users) {
    auto load = dyn_cast<memref::LoadOp>(user);
    auto store = dyn_cast<memref::StoreOp>(user);
    if (!load && !store)
      return user->emitOpError("uses a private array of ")
             << sluice::attributionBytes(type)
             << " bytes per invocation, which moves to scratch memory; only "
                "memref.load and memref.store can be rewritten there";
    OpBuilder b(user);
    ValueRange indices = load ? load.getIndices() : store.getIndices();
    Value index = base;
    for (auto [i, stride] : llvm::zip(indices, strides))
      index = arith::AddIOp::create(
          b, loc, index,
          arith::MulIOp::create(b, loc, i,
                                arith::ConstantIndexOp::create(b, loc, stride)));
    if (load)
      load->replaceAllUsesWith(
          memref::LoadOp::create(b, loc, scratch, ValueRange{index}));
    else
      memref::StoreOp::create(b, loc, store.getValueToStore(), scratch,
                              ValueRange{index});
    user->erase();
  }
  return success();
}

/// Workgroup attributions become module-scope `memref.global`s (converted to
/// Workgroup `spirv.GlobalVariable`s below) read through `memref.get_global`;
/// private attributions become `memref.alloca`s (Function variables), or
/// scratch-buffer arguments when they exceed `maxPrivateBytes`.
LogicalResult hoistWorkgroupAttributions(gpu::GPUFuncOp func,
                                         uint64_t maxPrivateBytes) {
  OpBuilder moduleBuilder(func);
  OpBuilder bodyBuilder = OpBuilder::atBlockBegin(&func.front());
  // Private attributions: Function-storage variables (memref.alloca).
  SmallVector<BlockArgument> privates(func.getPrivateAttributions());
  Value scratchBase;
  for (auto [index, attribution] : llvm::enumerate(privates)) {
    auto type = cast<MemRefType>(attribution.getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return func.emitOpError("private attribution ")
             << index << " of type " << type
             << " has no static identity-layout shape";
    if (sluice::attributionBytes(type) > maxPrivateBytes) {
      if (failed(moveToScratch(func, attribution, type, scratchBase,
                               bodyBuilder)))
        return failure();
      continue;
    }
    type = MemRefType::get(
        type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
        spirv::StorageClassAttr::get(func.getContext(),
                                     spirv::StorageClass::Function));
    Value alloca = memref::AllocaOp::create(bodyBuilder, func.getLoc(), type);
    attribution.replaceAllUsesWith(alloca);
  }
  if (!privates.empty())
    func.front().eraseArguments(func.getFirstPrivateAttributionIndex(),
                                privates.size());
  unsigned count = func.getNumWorkgroupAttributions();
  if (count == 0)
    return success();
  SmallVector<BlockArgument> attributions(func.getWorkgroupAttributions());
  for (auto [index, attribution] : llvm::enumerate(attributions)) {
    auto type = cast<MemRefType>(attribution.getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return func.emitOpError("workgroup attribution ")
             << index << " of type " << type
             << " has no static identity-layout shape";
    type = MemRefType::get(
        type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
        spirv::StorageClassAttr::get(func.getContext(),
                                     spirv::StorageClass::Workgroup));
    std::string name = (func.getName() + "__workgroup" + Twine(index)).str();
    memref::GlobalOp::create(moduleBuilder, func.getLoc(), name,
                             moduleBuilder.getStringAttr("private"), type,
                             Attribute(), /*constant=*/false, IntegerAttr());
    Value global =
        memref::GetGlobalOp::create(bodyBuilder, func.getLoc(), type, name);
    attribution.replaceAllUsesWith(global);
  }
  func.front().eraseArguments(func.getFirstWorkgroupAttributionIndex(), count);
  func->removeAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName());
  return success();
}

//===----------------------------------------------------------------------===//
// Sluice patterns
//===----------------------------------------------------------------------===//

spirv::Scope scopeOf(MemRefType type) {
  auto storage =
      dyn_cast_or_null<spirv::StorageClassAttr>(type.getMemorySpace());
  if (storage && storage.getValue() == spirv::StorageClass::Workgroup)
    return spirv::Scope::Workgroup;
  return spirv::Scope::Device;
}

/// `memref.generic_atomic_rmw` whose body yields
/// `select(cmpi eq(%current, %expected), %desired, %current)` (the fault claim
/// of convert-wave-to-gpu) is `spirv.AtomicCompareExchange`.
struct GenericAtomicCASPattern
    : public OpConversionPattern<memref::GenericAtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(memref::GenericAtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getAtomicBody().front();
    Value current = body.getArgument(0);
    auto yield = cast<memref::AtomicYieldOp>(body.getTerminator());
    auto select = yield.getResult().getDefiningOp<arith::SelectOp>();
    if (!select || select.getFalseValue() != current)
      return op.emitOpError("is not a compare-and-swap (select(cmpi eq(%x, "
                            "expected), desired, %x)); SPIR-V has no "
                            "general atomic read-modify-write loop");
    auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq ||
        (cmp.getLhs() != current && cmp.getRhs() != current))
      return op.emitOpError("is not a compare-and-swap (select(cmpi eq(%x, "
                            "expected), desired, %x)); SPIR-V has no "
                            "general atomic read-modify-write loop");
    Value expected = cmp.getLhs() == current ? cmp.getRhs() : cmp.getLhs();
    Value desired = select.getTrueValue();

    Type elemType = getTypeConverter()->convertType(op.getResult().getType());
    if (!elemType)
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    // An operand is a constant (materialized again) or defined outside the
    // body (already converted).
    auto operand = [&](Value v) -> Value {
      Attribute value;
      if (matchPattern(v, m_Constant(&value)))
        return spirv::ConstantOp::create(rewriter, op.getLoc(), elemType,
                                         cast<TypedAttr>(value));
      if (v.getParentRegion() == &op.getAtomicBody())
        return nullptr;
      return rewriter.getRemappedValue(v);
    };
    Value expectedValue = operand(expected);
    Value desiredValue = operand(desired);
    if (!expectedValue || !desiredValue)
      return op.emitOpError("compare-and-swap operands must be constants or "
                            "defined outside the atomic body");

    auto memrefType = cast<MemRefType>(op.getMemref().getType());
    Value ptr = spirv::getElementPtr(*getTypeConverter<SPIRVTypeConverter>(),
                                     memrefType, adaptor.getMemref(),
                                     adaptor.getIndices(), op.getLoc(),
                                     rewriter);
    if (!ptr)
      return rewriter.notifyMatchFailure(op, "no element pointer");
    rewriter.replaceOpWithNewOp<spirv::AtomicCompareExchangeOp>(
        op, elemType, ptr, scopeOf(memrefType), spirv::MemorySemantics::None,
        spirv::MemorySemantics::None, desiredValue, expectedValue);
    return success();
  }
};

/// `memref.atomic_rmw addf` (a handler accumulating into a float binding)
/// -> `spirv.EXT.AtomicFAdd` (SPV_EXT_shader_atomic_float_add; the runtime
/// checks the device's shaderBufferFloat32/64AtomicAdd before it runs).
struct AtomicFAddPattern : public OpConversionPattern<memref::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(memref::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getKind() != arith::AtomicRMWKind::addf)
      return rewriter.notifyMatchFailure(op, "not an addf");
    Type elemType = getTypeConverter()->convertType(op.getResult().getType());
    if (!elemType)
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    auto memrefType = cast<MemRefType>(op.getMemref().getType());
    Value ptr = spirv::getElementPtr(*getTypeConverter<SPIRVTypeConverter>(),
                                     memrefType, adaptor.getMemref(),
                                     adaptor.getIndices(), op.getLoc(),
                                     rewriter);
    if (!ptr)
      return rewriter.notifyMatchFailure(op, "no element pointer");
    rewriter.replaceOpWithNewOp<spirv::EXTAtomicFAddOp>(
        op, elemType, ptr, scopeOf(memrefType), spirv::MemorySemantics::None,
        adaptor.getValue());
    return success();
  }
};

/// `memref.alloca` (a stage's private array) is a Function-storage variable:
/// its type gets that storage class before the conversion, and it
/// moves to the kernel's entry block, where SPIR-V declares variables (a
/// static alloca has no operands; its contents start undefined either way).
/// A private array (`memref.alloca`) of integers narrower than 32 bits as
/// an array of i32, each element zero-extended on its store and truncated
/// on its load: upstream's MemRefToSPIRV emulates narrow elements in
/// storage buffers and workgroup memory (words, masks, atomics) but not in
/// Function variables, so `memref.store` into a `memref<8xi16>` alloca
/// failed to legalize. An invocation's private array has no other view, so
/// only its loads and stores change; an alloca with another use is left as
/// it was (and fails as before, at that use).
static void widenNarrowPrivateArrays(gpu::GPUModuleOp module) {
  SmallVector<memref::AllocaOp> narrow;
  module.walk([&](memref::AllocaOp alloca) {
    auto element = dyn_cast<IntegerType>(alloca.getType().getElementType());
    if (!element || element.getWidth() >= 32 ||
        alloca.getType().getMemorySpace())
      return;
    for (OpOperand &use : alloca->getUses()) {
      auto store = dyn_cast<memref::StoreOp>(use.getOwner());
      if (!isa<memref::LoadOp>(use.getOwner()) &&
          !(store && use.get() == store.getMemRef()))
        return;
    }
    narrow.push_back(alloca);
  });
  for (memref::AllocaOp alloca : narrow) {
    OpBuilder b(alloca);
    MemRefType type = alloca.getType();
    Type element = type.getElementType();
    auto wide = memref::AllocaOp::create(
        b, alloca.getLoc(),
        MemRefType::get(type.getShape(), b.getI32Type(), type.getLayout()),
        alloca.getDynamicSizes(), alloca.getSymbolOperands(),
        alloca.getAlignmentAttr());
    for (Operation *user : llvm::make_early_inc_range(alloca->getUsers())) {
      b.setInsertionPoint(user);
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        Value word =
            memref::LoadOp::create(b, load.getLoc(), wide, load.getIndices());
        load.replaceAllUsesWith(
            arith::TruncIOp::create(b, load.getLoc(), element, word)
                .getResult());
        load.erase();
        continue;
      }
      auto store = cast<memref::StoreOp>(user);
      Value word = arith::ExtUIOp::create(b, store.getLoc(), b.getI32Type(),
                                          store.getValueToStore());
      memref::StoreOp::create(b, store.getLoc(), word, wide,
                              store.getIndices());
      store.erase();
    }
    alloca.erase();
  }
}

static void placeAllocasInPrivateMemory(gpu::GPUModuleOp module) {
  Attribute privateSpace = spirv::StorageClassAttr::get(
      module.getContext(), spirv::StorageClass::Function);
  module.walk([&](memref::AllocaOp alloca) {
    MemRefType type = alloca.getType();
    if (type.getMemorySpace() || !type.hasStaticShape())
      return;
    alloca.getResult().setType(MemRefType::get(
        type.getShape(), type.getElementType(), type.getLayout(),
        privateSpace));
    if (auto kernel = alloca->getParentOfType<gpu::GPUFuncOp>())
      alloca->moveBefore(&kernel.getBody().front().front());
  });
}

/// `memref.global` (a hoisted workgroup attribution) -> `spirv.GlobalVariable`.
struct GlobalPattern : public OpConversionPattern<memref::GlobalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(memref::GlobalOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getInitialValue())
      return rewriter.notifyMatchFailure(op, "initialized globals");
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unsupported type");
    rewriter.replaceOpWithNewOp<spirv::GlobalVariableOp>(op, type,
                                                         op.getSymName());
    return success();
  }
};

/// `memref.get_global` -> `spirv.mlir.addressof`.
struct GetGlobalPattern : public OpConversionPattern<memref::GetGlobalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(memref::GetGlobalOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unsupported type");
    rewriter.replaceOpWithNewOp<spirv::AddressOfOp>(op, type, op.getName());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Kernels whose block size is chosen at run time (their entry point ABI
/// has no workgroup size): `gpu.block_dim` became loads of the
/// WorkgroupSize builtin, which Vulkan allows only on a constant. Each such
/// kernel gets the spec constants `@<kernel>__block_dim_{x,y,z}` (default 1)
/// in their place and LocalSize 1 1 1; the Vulkan runtime sets both to the
/// launch's block size in a pipeline per size (vulkan_launch.cpp), found by
/// those names.
void specializeBlockSize(spirv::ModuleOp spv) {
  MLIRContext *ctx = spv.getContext();
  StringAttr builtInName = StringAttr::get(
      ctx, spirv::SPIRVDialect::getAttributeName(spirv::Decoration::BuiltIn));
  spirv::GlobalVariableOp workgroupSize;
  spv.walk([&](spirv::GlobalVariableOp var) {
    if (auto builtIn = var->getAttrOfType<StringAttr>(builtInName);
        builtIn && builtIn.getValue() ==
                       spirv::stringifyBuiltIn(spirv::BuiltIn::WorkgroupSize))
      workgroupSize = var;
  });
  OpBuilder b(ctx);
  Type i32 = b.getI32Type();
  for (auto func : llvm::make_early_inc_range(spv.getOps<spirv::FuncOp>())) {
    auto abi = func->getAttrOfType<spirv::EntryPointABIAttr>(
        spirv::getEntryPointABIAttrName());
    if (!abi || abi.getWorkgroupSize())
      continue;
    b.setInsertionPoint(func);
    SmallVector<FlatSymbolRefAttr, 3> dims;
    for (char dim : {'x', 'y', 'z'}) {
      auto constant = spirv::SpecConstantOp::create(
          b, func.getLoc(),
          b.getStringAttr(func.getName() + "__block_dim_" + Twine(dim)),
          b.getI32IntegerAttr(1));
      dims.push_back(FlatSymbolRefAttr::get(constant.getSymNameAttr()));
    }
    func->setAttr(spirv::getEntryPointABIAttrName(),
                  spirv::getEntryPointABIAttr(ctx, {1, 1, 1}));
    if (!workgroupSize)
      continue;
    SmallVector<spirv::AddressOfOp> addresses;
    func.walk([&](spirv::AddressOfOp address) {
      if (address.getVariable() == workgroupSize.getSymName())
        addresses.push_back(address);
    });
    for (spirv::AddressOfOp address : addresses) {
      for (Operation *user : llvm::make_early_inc_range(address->getUsers())) {
        auto load = cast<spirv::LoadOp>(user);
        b.setInsertionPoint(load);
        SmallVector<Value, 3> values;
        for (FlatSymbolRefAttr dim : dims)
          values.push_back(
              spirv::ReferenceOfOp::create(b, load.getLoc(), i32, dim));
        Value size = spirv::CompositeConstructOp::create(
            b, load.getLoc(), load.getType(), values);
        load.replaceAllUsesWith(size);
        load.erase();
      }
      address.erase();
    }
  }
  if (workgroupSize &&
      SymbolTable::symbolKnownUseEmpty(workgroupSize.getSymNameAttr(), spv))
    workgroupSize.erase();
}

struct ConvertSluiceGPUToSPIRVPass
    : public sluice::impl::ConvertSluiceGPUToSPIRVBase<
          ConvertSluiceGPUToSPIRVPass> {
  using Base::Base;

  /// What GLSL.std.450 and the SPIR-V core lack among the math ops, and the
  /// bit counts that the i32 emulation of i8/i16 and 32-bit FindUMsb/ILsb
  /// would get wrong.
  static sluice::KernelMathOptions spirvKernelMath() {
    sluice::KernelMathOptions options;
    options.narrowBitCounts = true;
    options.wideBitCounts = true;
    options.cttzAsCtpop = true;
    options.truncAsFloor = true;
    options.polynomialFunctions = true;
    options.ceilFloorDivisions = true;
    // absi as arith, which widenNarrowIntegers keeps sign-extended.
    options.integerAbsAndClassAsArith = true;
    return options;
  }

  static bool usesVectors(gpu::GPUFuncOp func) {
    return func
        .walk([](Operation *op) {
          auto isVector = [](Type type) { return isa<VectorType>(type); };
          return llvm::any_of(op->getResultTypes(), isVector) ||
                         llvm::any_of(op->getOperandTypes(), isVector)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// What upstream's unrolling leaves of a vector of more than 4 elements or
  /// of several dimensions (broadcasts, inserts, extracts, shuffles, ...) is
  /// an error at the op: SPIR-V vectors have 2 to 4 elements. A memref.dim
  /// of a dynamic buffer argument (also what a transfer that is not
  /// in_bounds checks) too: the kernel is not given a buffer's length.
  static LogicalResult checkVectorShapes(gpu::GPUModuleOp module) {
    auto unsupported = [](Type type) {
      auto vector = dyn_cast<VectorType>(type);
      return vector && (vector.getRank() > 1 || vector.getNumElements() > 4);
    };
    WalkResult result = module.walk([&](Operation *op) {
      SmallVector<Type> types(op->getOperandTypes());
      llvm::append_range(types, op->getResultTypes());
      if (auto bad = llvm::find_if(types, unsupported); bad != types.end()) {
        op->emitOpError("on ")
            << *bad
            << ": SPIR-V vectors have 2 to 4 elements and one dimension, and "
               "this op on a larger vector is not split (elementwise ops, "
               "reductions and transfers are); use vectors of at most 4 "
               "elements";
        return WalkResult::interrupt();
      }
      if (auto dim = dyn_cast<memref::DimOp>(op);
          dim && isa<BlockArgument>(dim.getSource()) &&
          !cast<MemRefType>(dim.getSource().getType()).hasStaticShape()) {
        op->emitOpError("of a buffer argument: a Vulkan kernel is not given "
                        "its storage buffers' lengths; pass the extent as an "
                        "argument (or mark a vector transfer in_bounds)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  LogicalResult attachTargetEnv(ModuleOp module) {
    if (module->hasAttr(spirv::getTargetEnvAttrName()))
      return success();
    // SPIR-V 1.4+ lists every global an entry point uses in its interface,
    // which spirv-lower-abi-attrs does for such a target environment, but
    // spirv-update-vce then lowers the module's version to what the ops need
    // (1.0), and the module is invalid. Stay at 1.0 .. 1.3 (Vulkan 1.0/1.1).
    static const char *versions[] = {"1.0", "1.1", "1.2", "1.3"};
    if (!llvm::is_contained(versions, StringRef(spirvVersion)))
      return module.emitError(
                 "sluice-gpu-to-spirv: unsupported spirv-version '")
             << spirvVersion << "' (1.0 .. 1.3)";
    std::string text =
        // What the kernels may use; spirv-update-vce keeps what they do use,
        // and the runtime checks the device's features against that.
        "#spirv.target_env<#spirv.vce<v" + spirvVersion + ", [Shader" +
        (int64 ? ", Int64, Int64Atomics" : "") +
        ", Float64, AtomicFloat32AddEXT, AtomicFloat64AddEXT, "
        "GroupNonUniform, GroupNonUniformShuffle], "
        "[SPV_KHR_storage_buffer_storage_class, "
        "SPV_EXT_shader_atomic_float_add]>, api=Vulkan, "
        "#spirv.resource_limits<max_compute_shared_memory_size = 16384, "
        "max_compute_workgroup_invocations = 1024, "
        "max_compute_workgroup_size = [1024, 1024, 64]>>";
    Attribute env = parseAttribute(text, module.getContext());
    if (!env)
      return module.emitError("sluice-gpu-to-spirv: bad target environment");
    module->setAttr(spirv::getTargetEnvAttrName(), env);
    return success();
  }

  /// The block size of the launches of each kernel ("module::kernel"): the
  /// constant they agree on, or none when one is not constant or two differ
  /// (the kernel then takes its block size at run time).
  void collectLaunchSizes(
      ModuleOp module,
      llvm::StringMap<std::optional<SmallVector<int32_t, 3>>> &sizes) {
    module.walk([&](gpu::LaunchFuncOp launch) {
      std::optional<SmallVector<int32_t, 3>> size = SmallVector<int32_t, 3>();
      for (Value v : {launch.getBlockSizeX(), launch.getBlockSizeY(),
                      launch.getBlockSizeZ()}) {
        APInt value;
        if (!matchPattern(v, m_ConstantInt(&value))) {
          size.reset();
          break;
        }
        size->push_back(static_cast<int32_t>(value.getSExtValue()));
      }
      std::string key = (launch.getKernelModuleName().getValue() +
                         "::" + launch.getKernelName().getValue())
                            .str();
      auto [it, inserted] = sizes.try_emplace(key, size);
      if (!inserted && it->second != size)
        it->second.reset();
    });
  }

  LogicalResult prepareKernel(
      gpu::GPUFuncOp func, StringRef moduleName,
      const llvm::StringMap<std::optional<SmallVector<int32_t, 3>>> &sizes) {
    MLIRContext *ctx = func.getContext();
    if (failed(hoistWorkgroupAttributions(func, maxPrivateBytes)))
      return failure();
    FailureOr<unsigned> accesses = rewriteFrameAccess(func);
    if (failed(accesses))
      return failure();
    numFrameAccesses += *accesses;
    if (failed(liftControlFlow(func)))
      return failure();

    if (!func->hasAttr(spirv::getEntryPointABIAttrName())) {
      SmallVector<int32_t, 3> size;
      if (std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize())
        size.assign(known->begin(), known->end());
      else if (auto it = sizes.find((moduleName + "::" + func.getName()).str());
               it != sizes.end() && it->second)
        size = *it->second;
      else if (it != sizes.end())
        size.clear(); // chosen at run time: specializeBlockSize below
      else
        size = {static_cast<int32_t>(workgroupSize.getValue()), 1, 1};
      func->setAttr(spirv::getEntryPointABIAttrName(),
                    spirv::getEntryPointABIAttr(ctx, size));
    }
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (!func.getArgAttr(i, spirv::getInterfaceVarABIAttrName()))
        func.setArgAttr(
            i, spirv::getInterfaceVarABIAttrName(),
            spirv::getInterfaceVarABIAttr(
                0, i,
                isa<MemRefType>(func.getArgumentTypes()[i])
                    ? std::nullopt
                    : std::optional(spirv::StorageClass::StorageBuffer),
                ctx));
    ++numKernels;
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<gpu::GPUModuleOp> originals(module.getOps<gpu::GPUModuleOp>());
    if (originals.empty())
      return;
    if (failed(attachTargetEnv(module)))
      return signalPassFailure();
    llvm::StringMap<std::optional<SmallVector<int32_t, 3>>> sizes;
    collectLaunchSizes(module, sizes);

    // Convert copies; the gpu.modules stay for the descriptor and the host.
    SmallVector<Operation *> copies;
    OpBuilder builder(ctx);
    for (gpu::GPUModuleOp original : originals) {
      builder.setInsertionPoint(original);
      auto copy = cast<gpu::GPUModuleOp>(builder.clone(*original));
      copies.push_back(copy);
      // The device's subgroup size is known only at run time.
      sluice::CollectiveExpansionOptions collectives;
      collectives.shufflesAsIndexed = true;
      if (failed(sluice::expandGPUCollectives(copy, collectives)) ||
          failed(sluice::expandKernelMath(copy, spirvKernelMath())))
        return signalPassFailure();
      // Vectors of more than 4 elements or of several dimensions, as
      // vectors of 2 to 4 elements (SPIR-V's, VectorToSPIRV's).
      // (Its greedy rewrite folds too: only kernels with vectors get it.)
      for (auto func : copy.getOps<gpu::GPUFuncOp>())
        if (usesVectors(func) &&
            failed(spirv::unrollVectorsInFuncBodies(func)))
          return signalPassFailure();
      if (failed(checkVectorShapes(copy)))
        return signalPassFailure();
      widenNarrowPrivateArrays(copy);
      spirv::TargetEnv env(spirv::lookupTargetEnvOrDefault(copy));
      if (failed(sluice::widenNarrowIntegers(
              copy, env.allows(spirv::Capability::Int8),
              env.allows(spirv::Capability::Int16))))
        return signalPassFailure();
      if (signExtendWithShifts)
        signExtendToI64WithShifts(copy);
      for (auto func :
           llvm::make_early_inc_range(copy.getOps<gpu::GPUFuncOp>())) {
        if (!func.isKernel())
          continue;
        if (failed(prepareKernel(func, copy.getName(), sizes)))
          return signalPassFailure();
      }
      placeAllocasInPrivateMemory(copy);
      guardZeroTripLoopResults(copy);
      spirv::MemorySpaceToStorageClassConverter storage(
          spirv::mapMemorySpaceToVulkanStorageClass);
      spirv::convertMemRefTypesAndAttrs(copy, storage);
    }

    for (Operation *copy : copies) {
      spirv::TargetEnvAttr targetAttr = spirv::lookupTargetEnvOrDefault(copy);
      std::unique_ptr<ConversionTarget> target =
          SPIRVConversionTarget::get(targetAttr);
      SPIRVConversionOptions options;
      SPIRVTypeConverter typeConverter(targetAttr, options);
      RewritePatternSet patterns(ctx);
      ScfToSPIRVContext scfContext;
      populateGPUToSPIRVPatterns(typeConverter, patterns);
      arith::populateArithToSPIRVPatterns(typeConverter, patterns);
      populateMathToSPIRVPatterns(typeConverter, patterns);
      index::populateIndexToSPIRVPatterns(typeConverter, patterns);
      cf::populateControlFlowToSPIRVPatterns(typeConverter, patterns);
      populateSCFToSPIRVPatterns(typeConverter, scfContext, patterns);
      populateMemRefToSPIRVPatterns(typeConverter, patterns);
      populateFuncToSPIRVPatterns(typeConverter, patterns);
      ub::populateUBToSPIRVConversionPatterns(typeConverter, patterns);
      // Vectors of 1 to 4 elements (gpu.warp_execute_on_lane_0's
      // distributed values among them).
      populateVectorToSPIRVPatterns(typeConverter, patterns);
      patterns.add<GenericAtomicCASPattern, GlobalPattern, GetGlobalPattern>(
          typeConverter, ctx);
      patterns.add<AtomicFAddPattern>(typeConverter, ctx, /*benefit=*/2);
      sluice::populateSubgroupToSPIRVPatterns(typeConverter, patterns);
      sluice::populateMathExtrasToSPIRVPatterns(typeConverter, patterns);
      if (failed(applyFullConversion(copy, *target, std::move(patterns))))
        return signalPassFailure();
    }
    // Atomics: AcquireRelease without a storage-class bit orders no memory
    // in Vulkan's model (it is Relaxed in effect), and lavapipe (Mesa 22.3)
    // miscompiles loops of such atomics in partial workgroups; say Relaxed.
    // No contraction but the explicit one: a float multiply and an add are
    // rounded each (math.fma is GL.Fma), as NVRTC with --fmad=false and
    // LLVM round them, so that a driver rounds a kernel's arithmetic alike
    // however it was split into stages (the megakernel's private frames:
    // sluice-build-megakernel) and as the other backends do.
    module.walk([&](Operation *op) {
      if (isa<spirv::FMulOp, spirv::FAddOp, spirv::FSubOp>(op)) {
        op->setAttr("no_contraction", UnitAttr::get(ctx));
        return;
      }
      if (!isa<spirv::SPIRVDialect>(op->getDialect()) ||
          !op->getName().stripDialect().contains("Atomic"))
        return;
      for (NamedAttribute attr : op->getAttrs())
        if (auto semantics =
                dyn_cast<spirv::MemorySemanticsAttr>(attr.getValue());
            semantics &&
            semantics.getValue() == spirv::MemorySemantics::AcquireRelease)
          op->setAttr(attr.getName(),
                      spirv::MemorySemanticsAttr::get(
                          ctx, spirv::MemorySemantics::None));
    });
    module.walk([](spirv::ModuleOp spv) { specializeBlockSize(spv); });
    // The gpu.func attribution count is copied onto spirv.func; drop it.
    module.walk([](spirv::FuncOp func) {
      func->removeAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName());
    });
  }
};

} // namespace

uint64_t sluice::spirvStorageBytes(Type element) {
  if (element.isIndex())
    return 4;
  uint64_t bytes = (element.getIntOrFloatBitWidth() + 7) / 8;
  return std::max<uint64_t>(1, llvm::PowerOf2Ceil(bytes));
}

uint64_t sluice::attributionBytes(MemRefType type) {
  return type.hasStaticShape()
             ? spirvStorageBytes(type.getElementType()) * type.getNumElements()
             : 0;
}

SmallVector<uint64_t> sluice::scratchArguments(gpu::GPUFuncOp kernel,
                                               uint64_t maxPrivateBytes) {
  SmallVector<uint64_t> bytes;
  for (BlockArgument attribution : kernel.getPrivateAttributions()) {
    auto type = cast<MemRefType>(attribution.getType());
    if (type.getLayout().isIdentity() &&
        attributionBytes(type) > maxPrivateBytes)
      bytes.push_back(attributionBytes(type));
  }
  return bytes;
}
