//===- WaveOps.cpp - Coroutine stages -------------------------------------===//

#include "sluice/Dialect/Wave/IR/WaveOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace sluice::wave;

#include "sluice/Dialect/Wave/IR/WaveOpsDialect.cpp.inc"

void WaveDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sluice/Dialect/Wave/IR/WaveOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// CoroutineOp
//===----------------------------------------------------------------------===//

void CoroutineOp::build(OpBuilder &builder, OperationState &state,
                        StringRef name, TypeRange argumentTypes) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name),
                     TypeAttr::get(builder.getFunctionType(argumentTypes, {})));
  Region *body = state.addRegion();
  Block *entry = new Block();
  body->push_back(entry);
  for (Type type : argumentTypes)
    entry->addArgument(type, state.location);
}

ParseResult CoroutineOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &builder, ArrayRef<Type> argTypes,
                      ArrayRef<Type> results, function_interface_impl::VariadicFlag,
                      std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void CoroutineOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult CoroutineOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("a coroutine returns no values, but the signature has ")
           << getFunctionType().getNumResults() << " result(s)";
  return success();
}

// FunctionOpInterface already checks the entry block against the signature.
LogicalResult CoroutineOp::verifyRegions() {
  Block &entry = getBody().front();
  if (entry.empty() || !isa<TerminateOp>(entry.back()))
    return emitOpError("body must end in 'wave.terminate'");

  llvm::StringMap<SuspendOp> seen;
  WalkResult result = walk([&](SuspendOp suspend) {
    auto [it, inserted] = seen.try_emplace(suspend.getStage(), suspend);
    if (inserted)
      return WalkResult::advance();
    InFlightDiagnostic diag = suspend.emitOpError("stage '")
                              << suspend.getStage()
                              << "' is already a suspension point of @"
                              << getSymName();
    diag.attachNote(it->second.getLoc()) << "first suspension at this stage";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

SmallVector<StringRef> CoroutineOp::getSuspendStages() {
  SmallVector<StringRef> stages;
  walk([&](SuspendOp suspend) { stages.push_back(suspend.getStage()); });
  return stages;
}

//===----------------------------------------------------------------------===//
// SuspendOp
//===----------------------------------------------------------------------===//

LogicalResult SuspendOp::verify() {
  if (!(*this)->getParentOfType<CoroutineOp>())
    return emitOpError("must be nested inside a 'wave.coroutine'");
  if (getStage().empty())
    return emitOpError("stage name must not be empty");
  return success();
}

#define GET_OP_CLASSES
#include "sluice/Dialect/Wave/IR/WaveOps.cpp.inc"
