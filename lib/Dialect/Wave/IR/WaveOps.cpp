//===- WaveOps.cpp - Coroutine stages -------------------------------------===//

#include "sluice/Dialect/Wave/IR/WaveOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sluice::wave;

#include "sluice/Dialect/Wave/IR/WaveOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "sluice/Dialect/Wave/IR/WaveOpsAttributes.cpp.inc"

namespace {

/// Helpers (`func.func`) may be inlined into coroutine bodies. Of the wave
/// ops only `wave.binding` may come from a helper: the others belong to a
/// coroutine's own structure.
struct WaveInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *src, bool, IRMapping &) const final {
    return src->hasOneBlock(); // coroutine bodies are a single block
  }
  bool isLegalToInline(Operation *op, Region *, bool,
                       IRMapping &) const final {
    return isa<BindingOp>(op);
  }
};

} // namespace

void WaveDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sluice/Dialect/Wave/IR/WaveOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sluice/Dialect/Wave/IR/WaveOpsAttributes.cpp.inc"
      >();
  addInterfaces<WaveInlinerInterface>();
}

//===----------------------------------------------------------------------===//
// CoroutineOp
//===----------------------------------------------------------------------===//

void CoroutineOp::build(OpBuilder &builder, OperationState &state,
                        StringRef name, TypeRange argumentTypes,
                        ArrayRef<BindingDecl> bindings) {
  SmallVector<Type> types(argumentTypes);
  SmallVector<StringRef> names, access;
  for (const BindingDecl &binding : bindings) {
    types.push_back(binding.type);
    names.push_back(binding.name);
    access.push_back(binding.access == BindingAccessDecl::ReadOnly ? "readonly"
                     : binding.access == BindingAccessDecl::WriteOnly
                         ? "writeonly"
                         : "");
  }
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name),
                     TypeAttr::get(builder.getFunctionType(types, {})));
  if (!bindings.empty()) {
    state.addAttribute(getBindingNamesAttrName(state.name),
                       builder.getStrArrayAttr(names));
    state.addAttribute(getBindingAccessAttrName(state.name),
                       builder.getStrArrayAttr(access));
  }
  Region *body = state.addRegion();
  Block *entry = new Block();
  body->push_back(entry);
  for (Type type : types)
    entry->addArgument(type, state.location);
}

// wave.coroutine @name(%lane: i32, ...)
//     [bind(%buffer: memref<...> [readonly|writeonly], %uniform: i32, ...)]
//     [attributes {...}] { body }
ParseResult CoroutineOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr name;
  if (parser.parseSymbolName(name, SymbolTable::getSymbolAttrName(),
                             result.attributes))
    return failure();
  SmallVector<OpAsmParser::Argument> arguments;
  if (parser.parseArgumentList(arguments, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true, /*allowAttrs=*/true))
    return failure();
  SmallVector<Attribute> names, access;
  if (succeeded(parser.parseOptionalKeyword("bind"))) {
    auto parseBinding = [&]() -> ParseResult {
      OpAsmParser::Argument &argument = arguments.emplace_back();
      SMLoc loc = parser.getCurrentLocation();
      if (parser.parseArgument(argument, /*allowType=*/true))
        return failure();
      StringRef ssa = argument.ssaName.name.drop_front(); // drop the '%'
      if (ssa.empty() || !(llvm::isAlpha(ssa.front()) || ssa.front() == '_'))
        return parser.emitError(loc, "a binding is named by its SSA name, "
                                     "which must start with a letter or '_' "
                                     "(write %film, not %")
               << ssa << ")";
      names.push_back(builder.getStringAttr(ssa));
      StringRef declared = "";
      if (succeeded(parser.parseOptionalKeyword("readonly")))
        declared = "readonly";
      else if (succeeded(parser.parseOptionalKeyword("writeonly")))
        declared = "writeonly";
      access.push_back(builder.getStringAttr(declared));
      return success();
    };
    if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                       parseBinding, " in the binding list"))
      return failure();
  }
  // Results are parsed only so that the verifier can reject them.
  SmallVector<Type> types, results;
  if (parser.parseOptionalArrowTypeList(results))
    return failure();
  for (OpAsmParser::Argument &argument : arguments)
    types.push_back(argument.type);
  result.addAttribute(getFunctionTypeAttrName(result.name),
                      TypeAttr::get(builder.getFunctionType(types, results)));
  if (!names.empty()) {
    result.addAttribute(getBindingNamesAttrName(result.name),
                        builder.getArrayAttr(names));
    result.addAttribute(getBindingAccessAttrName(result.name),
                        builder.getArrayAttr(access));
  }
  unsigned laneCount = arguments.size() - names.size();
  call_interface_impl::addArgAndResultAttrs(
      builder, result, ArrayRef(arguments).take_front(laneCount), {},
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  SMLoc bodyLoc = parser.getCurrentLocation();
  if (parser.parseRegion(*body, arguments, /*enableNameShadowing=*/false))
    return failure();
  if (body->empty())
    return parser.emitError(bodyLoc, "expected non-empty function body");
  return success();
}

void CoroutineOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  Block &entry = getBody().front();
  unsigned laneCount = getNumLaneArguments();
  p << '(';
  for (unsigned i = 0; i < laneCount; ++i) {
    if (i)
      p << ", ";
    ArrayRef<NamedAttribute> attrs;
    if (DictionaryAttr dict = getArgAttrDict(i))
      attrs = dict.getValue();
    p.printRegionArgument(entry.getArgument(i), attrs);
  }
  p << ')';
  if (!getResultTypes().empty()) {
    p << " -> ";
    llvm::interleaveComma(getResultTypes(), p);
  }
  if (unsigned count = getNumBindings()) {
    p << " bind(";
    for (unsigned i = 0; i < count; ++i) {
      if (i)
        p << ", ";
      p.printRegionArgument(getBindingArgument(i));
      switch (getBindingAccessDecl(i)) {
      case BindingAccessDecl::ReadOnly:
        p << " readonly";
        break;
      case BindingAccessDecl::WriteOnly:
        p << " writeonly";
        break;
      case BindingAccessDecl::Any:
        break;
      }
    }
    p << ')';
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {SymbolTable::getSymbolAttrName(), getFunctionTypeAttrName(),
       getArgAttrsAttrName(), getResAttrsAttrName(), getBindingNamesAttrName(),
       getBindingAccessAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

void CoroutineOp::getAsmBlockArgumentNames(Region &region,
                                           OpAsmSetValueNameFn setNameFn) {
  if (&region != &getBody() || region.empty())
    return;
  for (unsigned i = 0, e = getNumBindings(); i < e; ++i)
    if (getNumLaneArguments() + i < region.getNumArguments())
      setNameFn(getBindingArgument(i), getBindingName(i));
}

StringRef CoroutineOp::getBindingName(unsigned i) {
  return cast<StringAttr>((*getBindingNames())[i]).getValue();
}

BindingAccessDecl CoroutineOp::getBindingAccessDecl(unsigned i) {
  std::optional<ArrayAttr> access = getBindingAccess();
  if (!access || i >= access->size())
    return BindingAccessDecl::Any;
  StringRef text = cast<StringAttr>((*access)[i]).getValue();
  return text == "readonly"    ? BindingAccessDecl::ReadOnly
         : text == "writeonly" ? BindingAccessDecl::WriteOnly
                               : BindingAccessDecl::Any;
}

std::optional<unsigned> CoroutineOp::lookupBinding(StringRef name) {
  for (unsigned i = 0, e = getNumBindings(); i < e; ++i)
    if (getBindingName(i) == name)
      return i;
  return std::nullopt;
}

LogicalResult sluice::wave::verifyKernelNamePart(Operation *op, StringRef what,
                                                 StringRef name) {
  if (name.empty())
    return op->emitOpError(what) << " must not be empty";
  if (llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return success();
  std::string escaped;
  llvm::raw_string_ostream os(escaped);
  llvm::printEscapedString(name, os);
  return op->emitOpError(what)
         << " \"" << escaped
         << "\" may hold letters, digits and '_' only: it becomes part of "
            "kernel names on every backend";
}

bool sluice::wave::isBindingType(Type type) {
  auto isElement = [](Type element) {
    return element.isInteger(32) || element.isInteger(64) ||
           element.isF32() || element.isF64();
  };
  if (auto memref = dyn_cast<MemRefType>(type))
    return isElement(memref.getElementType()) &&
           memref.getLayout().isIdentity() && !memref.getMemorySpace() &&
           (memref.hasStaticShape() ||
            (memref.getRank() == 1 && memref.isDynamicDim(0)));
  return isElement(type);
}

/// Adds the uses of the callee's argument that `use` (an argument operand of
/// `call`) binds; false when the callee has no body to follow.
static bool followIntoCallee(CallOpInterface call, OpOperand &use,
                             BindingUses &uses) {
  auto callee = dyn_cast_or_null<CallableOpInterface>(call.resolveCallable());
  Region *body = callee ? callee.getCallableRegion() : nullptr;
  if (!body || body->empty())
    return false;
  OperandRange arguments = call.getArgOperands();
  if (arguments.empty() ||
      use.getOperandNumber() < arguments.getBeginOperandIndex())
    return false;
  unsigned position =
      use.getOperandNumber() - arguments.getBeginOperandIndex();
  if (position >= arguments.size() ||
      position >= body->front().getNumArguments())
    return false;
  Value argument = body->front().getArgument(position);
  if (uses.followed.insert(argument).second)
    sluice::wave::collectBindingUses(argument, uses);
  return true;
}

void sluice::wave::collectBindingUses(Value value, BindingUses &uses) {
  auto noteRead = [&](Operation *op) {
    uses.read = true;
    if (!uses.firstRead)
      uses.firstRead = op;
  };
  auto noteWrite = [&](Operation *op) {
    uses.written = true;
    if (!uses.firstWrite)
      uses.firstWrite = op;
  };
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      noteRead(load);
    } else if (auto store = dyn_cast<memref::StoreOp>(user);
               store && store.getMemRef() == value) {
      noteWrite(store);
    } else if (isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(user)) {
      // A read-modify-write: an update, not a plain read.
      uses.atomic = true;
      noteWrite(user);
    } else if (isa<memref::DimOp, memref::ExtractStridedMetadataOp>(user)) {
      // Reads the shape, not the data.
    } else if (auto view = dyn_cast<ViewLikeOpInterface>(user);
               view && view.getViewSource() == value) {
      for (Value result : user->getResults())
        collectBindingUses(result, uses);
    } else if (auto call = dyn_cast<CallOpInterface>(user);
               call && followIntoCallee(call, use, uses)) {
      // A helper's uses of the argument, followed above.
    } else {
      // An op Sluice does not know (a copy, a call it cannot follow): it may
      // read and write.
      noteRead(user);
      noteWrite(user);
    }
  }
}

LogicalResult CoroutineOp::verify() {
  if (failed(verifyKernelNamePart(*this, "name", getSymName())))
    return failure();
  if (!getFunctionType().getResults().empty())
    return emitOpError("a coroutine returns no values, but the signature has ")
           << getFunctionType().getNumResults() << " result(s)";
  unsigned count = getNumBindings();
  if (count > getNumArguments())
    return emitOpError("declares ")
           << count << " binding names but takes " << getNumArguments()
           << " arguments";
  if (std::optional<ArrayAttr> access = getBindingAccess();
      access && access->size() != count)
    return emitOpError("declares the access of ")
           << access->size() << " bindings but has " << count;
  llvm::StringSet<> names;
  for (unsigned i = 0; i < count; ++i) {
    StringRef name = getBindingName(i);
    if (!names.insert(name).second)
      return emitOpError("binds '") << name << "' twice";
    Type type = getBindingType(i);
    if (!isBindingType(type))
      return emitOpError("binding '")
             << name << "' has type " << type
             << ", but a binding is a memref of i32, i64, f32 or f64 (static "
                "shape, or rank 1 and dynamic, identity layout) or one of "
                "those scalars";
    if (getBindingAccessDecl(i) != BindingAccessDecl::Any &&
        !isa<MemRefType>(type))
      return emitOpError("uniform '")
             << name << "' is read-only; only buffers take 'readonly' or "
                        "'writeonly'";
  }
  return success();
}

LogicalResult sluice::wave::checkDeclaredAccess(StringRef name,
                                               BindingAccessDecl declared,
                                               const BindingUses &uses,
                                               Operation *declaration) {
  Operation *bad = nullptr;
  StringRef what;
  if (declared == BindingAccessDecl::ReadOnly && uses.written) {
    bad = uses.firstWrite;
    what = "readonly";
  } else if (declared == BindingAccessDecl::WriteOnly && uses.read) {
    bad = uses.firstRead;
    what = "writeonly";
  }
  if (!bad)
    return success();
  bool writes = what == "readonly";
  InFlightDiagnostic diag = bad->emitOpError()
                            << (writes ? "writes" : "reads") << " binding '"
                            << name << "', which is declared " << what;
  diag.attachNote(declaration->getLoc())
      << "binding '" << name << "' is declared here";
  return diag;
}

/// Checks the uses of every buffer binding (its body argument, and the
/// `wave.binding`s of a split coroutine's stages) against its declaration.
static LogicalResult verifyBindingAccess(CoroutineOp coroutine) {
  for (unsigned i = 0, e = coroutine.getNumBindings(); i < e; ++i) {
    BindingAccessDecl declared = coroutine.getBindingAccessDecl(i);
    if (declared == BindingAccessDecl::Any)
      continue;
    StringRef name = coroutine.getBindingName(i);
    BindingUses uses;
    collectBindingUses(coroutine.getBindingArgument(i), uses);
    coroutine.walk([&](BindingOp binding) {
      if (binding.getName() == name)
        collectBindingUses(binding.getValue(), uses);
    });
    if (failed(checkDeclaredAccess(name, declared, uses, coroutine)))
      return failure();
  }
  return success();
}

// FunctionOpInterface already checks the entry block against the signature.
LogicalResult CoroutineOp::verifyRegions() {
  Block &entry = getBody().front();
  if (entry.empty() || !isa<TerminateOp>(entry.back()))
    return emitOpError("body must end in 'wave.terminate'");

  if (failed(verifyBindingAccess(*this)))
    return failure();
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
  return verifyKernelNamePart(*this, "stage name", getStage());
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
// BindingOp
//===----------------------------------------------------------------------===//

LogicalResult BindingOp::verify() {
  // Inside a coroutine the binding is the coroutine's; elsewhere (a pool
  // handler) it is the program's coroutine's, checked when lowering.
  auto coroutine = (*this)->getParentOfType<CoroutineOp>();
  if (!coroutine)
    return success();
  std::optional<unsigned> index = coroutine.lookupBinding(getName());
  if (!index)
    return emitOpError("@") << coroutine.getSymName()
                            << " has no binding '" << getName() << "'";
  if (coroutine.getBindingType(*index) != getValue().getType())
    return emitOpError("binding '")
           << getName() << "' has type " << coroutine.getBindingType(*index)
           << ", not " << getValue().getType();
  return success();
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
