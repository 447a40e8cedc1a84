//===- WaveOps.cpp - Coroutine stages -------------------------------------===//

#include "sluice/Dialect/Wave/IR/WaveOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sluice::wave;

#include "sluice/Dialect/Wave/IR/WaveOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "sluice/Dialect/Wave/IR/WaveOpsAttributes.cpp.inc"

void WaveDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sluice/Dialect/Wave/IR/WaveOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sluice/Dialect/Wave/IR/WaveOpsAttributes.cpp.inc"
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

//===----------------------------------------------------------------------===//
// FrameLayoutOp
//===----------------------------------------------------------------------===//

FrameFieldAttr FrameLayoutOp::lookupField(StringRef name) {
  int64_t index = getFieldIndex(name);
  return index < 0 ? FrameFieldAttr()
                   : cast<FrameFieldAttr>(getFields()[index]);
}

int64_t FrameLayoutOp::getFieldIndex(StringRef name) {
  for (auto [index, attr] : llvm::enumerate(getFields()))
    if (cast<FrameFieldAttr>(attr).getName() == name)
      return static_cast<int64_t>(index);
  return -1;
}

LogicalResult FrameLayoutOp::verify() {
  bool aos = getLayout() == "aos";
  if (!aos && getLayout() != "soa")
    return emitOpError("layout must be 'aos' or 'soa', got '")
           << getLayout() << "'";
  if (aos != getStride().has_value())
    return emitOpError(aos ? "an 'aos' layout needs a stride"
                           : "an 'soa' layout has no stride");
  llvm::StringSet<> names;
  for (auto [index, attr] : llvm::enumerate(getFields())) {
    auto field = cast<FrameFieldAttr>(attr);
    if (!names.insert(field.getName()).second)
      return emitOpError("field '")
             << field.getName() << "' appears more than once";
    if (field.getSize() <= 0 || !llvm::isPowerOf2_64(field.getAlign()))
      return emitOpError("field '")
             << field.getName()
             << "' needs a positive size and a power-of-two alignment";
    if (aos != field.getOffset().has_value())
      return emitOpError("field '")
             << field.getName()
             << (aos ? "' needs an offset in an 'aos' layout"
                     : "' has no offset in an 'soa' layout");
    if (aos && (*field.getOffset() % field.getAlign() != 0 ||
                *field.getOffset() + field.getSize() >
                    static_cast<int64_t>(*getStride())))
      return emitOpError("field '")
             << field.getName() << "' at offset " << *field.getOffset()
             << " is misaligned or outside the stride " << *getStride();
  }
  StringRef header[] = {getLaneFieldName(), getNextFieldName()};
  for (auto [index, name] : llvm::enumerate(header))
    if (getFields().size() <= index ||
        cast<FrameFieldAttr>(getFields()[index]).getName() != name)
      return emitOpError("field #")
             << index << " must be the header field '" << name << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Frame access ops
//===----------------------------------------------------------------------===//

/// The layout of the split coroutine around `op`, or null.
static FrameLayoutOp findLayout(Operation *op) {
  auto coroutine = op->getParentOfType<CoroutineOp>();
  if (!coroutine)
    return {};
  auto layouts = coroutine.getBody().front().getOps<FrameLayoutOp>();
  return layouts.empty() ? FrameLayoutOp() : *layouts.begin();
}

FrameLayoutOp FrameLoadOp::getLayoutOp() { return findLayout(*this); }
FrameLayoutOp FrameStoreOp::getLayoutOp() { return findLayout(*this); }
FrameLayoutOp NextOp::getLayoutOp() { return findLayout(*this); }

static LogicalResult verifyFieldAccess(Operation *op, StringRef name,
                                       Type type) {
  FrameLayoutOp layout = findLayout(op);
  if (!layout)
    return op->emitOpError(
        "must be nested inside a split 'wave.coroutine' (one with a "
        "'wave.frame_layout')");
  FrameFieldAttr field = layout.lookupField(name);
  if (!field)
    return op->emitOpError("the frame has no field '") << name << "'";
  if (name == FrameLayoutOp::getNextFieldName())
    return op->emitOpError("the 'next' header field is written only by "
                           "'wave.next'");
  if (field.getType() != type)
    return op->emitOpError("field '")
           << name << "' has type " << field.getType() << ", not " << type;
  return success();
}

LogicalResult FrameLoadOp::verify() {
  return verifyFieldAccess(*this, getField(), getValue().getType());
}

LogicalResult FrameStoreOp::verify() {
  return verifyFieldAccess(*this, getField(), getValue().getType());
}

LogicalResult NextOp::verify() {
  auto coroutine = (*this)->getParentOfType<CoroutineOp>();
  if (!findLayout(*this))
    return emitOpError("must be nested inside a split 'wave.coroutine' (one "
                       "with a 'wave.frame_layout')");
  if (!getStage())
    return success();
  for (auto stage : coroutine.getBody().front().getOps<StageOp>())
    if (stage.getName() == *getStage())
      return success();
  return emitOpError("@") << coroutine.getSymName() << " has no stage '"
                          << *getStage() << "'";
}

//===----------------------------------------------------------------------===//
// StageOp
//===----------------------------------------------------------------------===//

void StageOp::getAsmBlockArgumentNames(Region &region,
                                       OpAsmSetValueNameFn setNameFn) {
  if (&region == &getBody() && !region.empty() && region.getNumArguments() > 0)
    setNameFn(region.getArgument(0), "frame");
}

LogicalResult StageOp::verifyRegions() {
  if (getBody().empty() || getBody().getNumArguments() == 0 ||
      !getBody().getArgument(0).getType().isIndex())
    return emitOpError("body must take the frame index (index) as its first "
                       "argument");
  if (getId() != 0 && getBody().getNumArguments() != 1)
    return emitOpError("only the entry stage (id 0) takes the coroutine "
                       "arguments");
  return success();
}

#define GET_OP_CLASSES
#include "sluice/Dialect/Wave/IR/WaveOps.cpp.inc"
