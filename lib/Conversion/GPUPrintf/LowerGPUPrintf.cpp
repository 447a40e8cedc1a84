//===- LowerGPUPrintf.cpp - The sluice-lower-gpu-printf pass -------------===//
//
// gpu.printf becomes records in a buffer of words (include/sluice/ABI/
// PrintfABI.h) at the gpu level, before any backend lowers the kernels, so
// the CPU, Vulkan and HIP write the same records and the host prints them in
// the same order: by block linear id, then thread linear id, then each
// thread's call order (a thread's reservations are atomic adds on one word
// in program order, and the host's sort is stable).
//
//===----------------------------------------------------------------------===//

#include "sluice/ABI/PrintfABI.h"
#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/RuntimeCalls.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/StringSet.h"

namespace sluice {
#define GEN_PASS_DEF_LOWERGPUPRINTF
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;
namespace pa = sluice::printf_abi;

namespace {

/// `format` as the diagnostics quote it (escaped, like the op's syntax).
std::string quoted(StringRef format) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '"';
  llvm::printEscapedString(format, os);
  os << '"';
  return text;
}

/// The format-table entry of `op` (type codes, ':', format), or an error at
/// the op naming the reason.
FailureOr<std::string> formatEntry(gpu::PrintfOp op) {
  std::vector<pa::FormatPiece> pieces;
  std::string reason;
  if (!pa::parseFormat(op.getFormat(), pieces, reason))
    return op.emitOpError("format ")
           << quoted(op.getFormat()) << ": " << reason;
  std::string codes;
  for (auto [index, arg] : llvm::enumerate(op.getArgs())) {
    Type type = arg.getType();
    if (type.isInteger(32))
      codes += char(pa::ArgType::I32);
    else if (type.isInteger(64) || type.isIndex())
      codes += char(pa::ArgType::I64);
    else if (type.isF32())
      codes += char(pa::ArgType::F32);
    else if (type.isF64())
      codes += char(pa::ArgType::F64);
    else
      return op.emitOpError("argument ")
             << index << " has type " << type
             << ": gpu.printf prints i32, i64, index, f32 and f64";
  }
  size_t conversion = 0;
  for (const pa::FormatPiece &piece : pieces) {
    if (!piece.isConversion)
      continue;
    if (conversion >= codes.size())
      return op.emitOpError("format ")
             << quoted(op.getFormat()) << " has more conversions than its "
             << codes.size() << " arguments";
    auto type = static_cast<pa::ArgType>(codes[conversion]);
    if (!pa::conversionTakes(piece.conversion, type))
      return op.emitOpError("conversion ")
             << conversion << " ('" << piece.text << "') takes "
             << (pa::isIntegerArg(type) ? "a float" : "an integer")
             << " but argument " << conversion << " has type "
             << op.getArgs()[conversion].getType();
    ++conversion;
  }
  if (conversion != codes.size())
    return op.emitOpError("format ")
           << quoted(op.getFormat()) << " has " << conversion
           << " conversions but the op has " << codes.size() << " arguments";
  return codes + ":" + op.getFormat().str();
}

/// x + dx * (y + dy * z) of a gpu dimension query (thread or block ids).
template <typename IdOp, typename DimOp>
Value linearId(OpBuilder &b, Location loc) {
  Value x = IdOp::create(b, loc, gpu::Dimension::x);
  Value y = IdOp::create(b, loc, gpu::Dimension::y);
  Value z = IdOp::create(b, loc, gpu::Dimension::z);
  Value dx = DimOp::create(b, loc, gpu::Dimension::x);
  Value dy = DimOp::create(b, loc, gpu::Dimension::y);
  Value yz =
      arith::AddIOp::create(b, loc, y, arith::MulIOp::create(b, loc, dy, z));
  Value id =
      arith::AddIOp::create(b, loc, x, arith::MulIOp::create(b, loc, dx, yz));
  return arith::IndexCastOp::create(b, loc, b.getI32Type(), id);
}

/// The two words (low, high) of a printf argument.
std::pair<Value, Value> argumentWords(OpBuilder &b, Location loc, Value arg) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  Type type = arg.getType();
  if (type.isF32())
    return {arith::BitcastOp::create(b, loc, i32, arg), zero};
  if (type.isInteger(32))
    return {arg, zero};
  if (type.isIndex())
    arg = arith::IndexCastOp::create(b, loc, i64, arg);
  else if (type.isF64())
    arg = arith::BitcastOp::create(b, loc, i64, arg);
  Value shift = arith::ConstantIntOp::create(b, loc, i64, 32);
  Value high = arith::ShRUIOp::create(b, loc, arg, shift);
  return {arith::TruncIOp::create(b, loc, i32, arg),
          arith::TruncIOp::create(b, loc, i32, high)};
}

/// Reserve, then write the record of `op` (format `index`) into `buffer`,
/// or count it as dropped.
void lowerPrintf(gpu::PrintfOp op, unsigned index, Value buffer) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type i32 = b.getI32Type();
  auto word = [&](int64_t i) -> Value {
    return arith::ConstantIndexOp::create(b, loc, i);
  };
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  int64_t size = pa::kRecordFixedWords +
                 pa::kWordsPerArgument * int64_t(op.getArgs().size());
  Value sizeValue = constant(size);
  Value reserved =
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, sizeValue,
                                  buffer, ValueRange{word(pa::kUsedWord)});
  Value capacity = memref::LoadOp::create(b, loc, buffer,
                                          ValueRange{word(pa::kCapacityWord)});
  // Unsigned, so that a counter past the capacity never wraps into a fit.
  Value startsInside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                             reserved, capacity);
  Value left = arith::SubIOp::create(b, loc, capacity, reserved);
  Value sizeFits =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, sizeValue, left);
  Value fits = arith::AndIOp::create(b, loc, startsInside, sizeFits);
  auto ifOp = scf::IfOp::create(b, loc, fits, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value start =
        arith::AddIOp::create(b, loc, reserved, constant(pa::kHeaderWords));
    Value base = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), start);
    int64_t offset = 0;
    auto store = [&](Value value) {
      Value at = arith::AddIOp::create(b, loc, base, word(offset++));
      memref::StoreOp::create(b, loc, value, buffer, ValueRange{at});
    };
    store(constant(index));
    store(linearId<gpu::BlockIdOp, gpu::GridDimOp>(b, loc));
    store(linearId<gpu::ThreadIdOp, gpu::BlockDimOp>(b, loc));
    for (Value arg : op.getArgs()) {
      auto [low, high] = argumentWords(b, loc, arg);
      store(low);
      store(high);
    }
    b.setInsertionPointToStart(ifOp.elseBlock());
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, constant(1),
                                buffer, ValueRange{word(pa::kDroppedWord)});
    // The one reservation that starts inside the area and does not fit
    // marks where the written records end.
    Value straddles = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            reserved, capacity);
    auto markIf = scf::IfOp::create(b, loc, straddles);
    b.setInsertionPointToStart(markIf.thenBlock());
    Value markAt =
        arith::AddIOp::create(b, loc, reserved, constant(pa::kHeaderWords));
    memref::StoreOp::create(b, loc, constant(int32_t(pa::kEndMarker)), buffer,
                            ValueRange{arith::IndexCastUIOp::create(
                                b, loc, b.getIndexType(), markAt)});
  }
  op.erase();
}

struct LowerGPUPrintfPass
    : public sluice::impl::LowerGPUPrintfBase<LowerGPUPrintfPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = module.getContext();
    auto bufferType =
        MemRefType::get({ShapedType::kDynamic}, IntegerType::get(context, 32));
    // The format table of each gpu.module, and the kernels that print.
    llvm::StringMap<std::string> tables;
    llvm::StringSet<> printing;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      std::string table;
      unsigned next = 0;
      bool misplaced = false;
      gpuModule.walk([&](gpu::PrintfOp op) {
        auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
        if (!kernel || !kernel.isKernel()) {
          op.emitOpError("outside a gpu.func kernel: the record buffer is a "
                         "kernel argument, so only kernels print");
          misplaced = true;
        }
      });
      if (misplaced)
        return signalPassFailure();
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        SmallVector<gpu::PrintfOp> ops;
        kernel.walk([&](gpu::PrintfOp op) { ops.push_back(op); });
        if (ops.empty())
          continue;
        SmallVector<std::string> entries;
        for (gpu::PrintfOp op : ops) {
          FailureOr<std::string> entry = formatEntry(op);
          if (failed(entry))
            return signalPassFailure();
          entries.push_back(*entry);
        }
        unsigned position = kernel.getNumArguments();
        if (failed(kernel.insertArgument(position, bufferType, {},
                                         kernel.getLoc())))
          return signalPassFailure();
        Value buffer = kernel.getArgument(position);
        for (auto [op, entry] : llvm::zip(ops, entries)) {
          table += entry;
          table += '\0';
          lowerPrintf(op, next++, buffer);
        }
        printing.insert((gpuModule.getName() + "::" + kernel.getName()).str());
        numPrintfs += ops.size();
      }
      if (!table.empty())
        tables[gpuModule.getName()] = table;
    }
    if (printing.empty())
      return;

    SymbolTable symbols(module);
    sluice::RuntimeCalls runtime(module, symbols);
    Type i64 = IntegerType::get(context, 64);
    func::FuncOp capacityFn = runtime.declareFunction(
        "sluice_rt_printf_capacity", FunctionType::get(context, {}, {i64}));
    func::FuncOp flushFn = runtime.declareFunction(
        "sluice_rt_printf_flush",
        FunctionType::get(
            context, {bufferType, LLVM::LLVMPointerType::get(context)}, {}));
    llvm::StringSet<> launched;
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    for (gpu::LaunchFuncOp launch : launches) {
      StringRef moduleName = launch.getKernelModuleName().getValue();
      std::string kernel =
          (moduleName + "::" + launch.getKernelName().getValue()).str();
      if (!printing.contains(kernel))
        continue;
      if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty()) {
        launch.emitOpError("is asynchronous and its kernel prints: the host "
                           "prints gpu.printf records when the launch is done");
        return signalPassFailure();
      }
      launched.insert(kernel);
      Location loc = launch.getLoc();
      OpBuilder b(launch);
      Type i32 = b.getI32Type();
      Value capacity =
          func::CallOp::create(b, loc, capacityFn, ValueRange{}).getResult(0);
      Value words = arith::AddIOp::create(
          b, loc, capacity,
          arith::ConstantIntOp::create(b, loc, i64, pa::kHeaderWords));
      Value size = arith::IndexCastOp::create(b, loc, b.getIndexType(), words);
      Value buffer =
          memref::AllocOp::create(b, loc, bufferType, ValueRange{size});
      Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
      for (uint32_t header = 0; header < pa::kHeaderWords; ++header) {
        Value value = header == pa::kCapacityWord
                          ? arith::TruncIOp::create(b, loc, i32, capacity)
                          : zero;
        memref::StoreOp::create(
            b, loc, value, buffer,
            ValueRange{arith::ConstantIndexOp::create(b, loc, header)});
      }
      launch.getKernelOperandsMutable().append(buffer);
      b.setInsertionPointAfter(launch);
      Value formats = runtime.stringAddress(
          b, loc, ("__sluice_printf_formats_" + moduleName).str(),
          tables[moduleName]);
      func::CallOp::create(b, loc, flushFn, ValueRange{buffer, formats});
      memref::DeallocOp::create(b, loc, buffer);
      ++numLaunches;
    }
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        std::string name =
            (gpuModule.getName() + "::" + kernel.getName()).str();
        if (printing.contains(name) && !launched.contains(name)) {
          kernel.emitOpError("prints (gpu.printf) but no gpu.launch_func of "
                             "this module launches it: the host prints the "
                             "records after each launch");
          return signalPassFailure();
        }
      }
  }
};

} // namespace
