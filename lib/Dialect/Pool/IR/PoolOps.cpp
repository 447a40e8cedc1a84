//===- PoolOps.cpp - Capacity owners --------------------------------------===//

#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace sluice::pool;

#include "sluice/Dialect/Pool/IR/PoolOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "sluice/Dialect/Pool/IR/PoolOpsTypes.cpp.inc"

namespace {

/// Helpers (`func.func`) may be inlined into handlers. Pool ops themselves
/// never sit in a helper (they must be nested in an owner or a coroutine).
struct PoolInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *src, bool, IRMapping &) const final {
    return src->hasOneBlock(); // handler bodies are a single block
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return false;
  }
};

} // namespace

void PoolDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sluice/Dialect/Pool/IR/PoolOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "sluice/Dialect/Pool/IR/PoolOpsTypes.cpp.inc"
      >();
  addInterfaces<PoolInlinerInterface>();
  handlerArgumentTypes = ItemType::get(getContext());
}

LogicalResult PoolDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() != getMaxTripsAttrName())
    return op->emitError("unknown pool dialect attribute '")
           << attr.getName().getValue() << "'";
  if (!isa<LoopLikeOpInterface>(op))
    return op->emitError("'") << getMaxTripsAttrName()
                              << "' is only meaningful on a loop";
  auto bound = dyn_cast<IntegerAttr>(attr.getValue());
  if (!bound || !bound.getType().isSignlessInteger(64))
    return op->emitError("'") << getMaxTripsAttrName()
                              << "' must be an i64 integer attribute";
  if (bound.getInt() < 0)
    return op->emitError("'") << getMaxTripsAttrName()
                              << "' must be non-negative, got "
                              << bound.getInt();
  return success();
}

/// Checks that `types` equals `expected`, naming the owner on mismatch.
static LogicalResult verifyPayloadTypes(Operation *op, OwnerOp owner,
                                        TypeRange types, StringRef what) {
  SmallVector<Type> expected = owner.getPayloadTypes();
  if (TypeRange(expected) == types)
    return success();
  InFlightDiagnostic diag = op->emitOpError(what) << " types (";
  llvm::interleaveComma(types, diag);
  diag << ") do not match the payload (";
  llvm::interleaveComma(expected, diag);
  diag << ") of @" << owner.getSymName();
  diag.attachNote(owner.getLoc()) << "owner declared here";
  return diag;
}

/// The owner of the handler that encloses `op`, with an error if none does.
static FailureOr<OwnerOp> getEnclosingOwner(Operation *op) {
  auto handler = op->getParentOfType<HandlerOp>();
  if (!handler)
    return op->emitOpError("must be nested inside a 'pool.handler'");
  return handler.getOwner();
}

//===----------------------------------------------------------------------===//
// OwnerOp
//===----------------------------------------------------------------------===//

int64_t OwnerOp::getStageIndex(StringRef stage) {
  for (auto [index, name] : llvm::enumerate(getStages().getAsValueRange<StringAttr>()))
    if (name == stage)
      return static_cast<int64_t>(index);
  return -1;
}

SmallVector<Type> OwnerOp::getPayloadTypes() {
  return llvm::to_vector(getPayload().getAsValueRange<TypeAttr>());
}

ArrayRef<StringRef> OwnerOp::getPolicyHookNames() {
  static const StringRef names[] = {"prepare_for_admission", "availability",
                                    "admission_stage", "prepare_for_producer"};
  return names;
}

/// The policy key holding the number of storage words.
static constexpr StringLiteral kPolicyStorageKey = "storage";

FlatSymbolRefAttr OwnerOp::getPolicyHook(StringRef hook) {
  DictionaryAttr policy = getPolicyAttr();
  return policy ? policy.getAs<FlatSymbolRefAttr>(hook) : nullptr;
}

int64_t OwnerOp::getPolicyStorageWords() {
  DictionaryAttr policy = getPolicyAttr();
  auto words = policy ? policy.getAs<IntegerAttr>(kPolicyStorageKey) : nullptr;
  return words ? words.getInt() : 0;
}

FunctionType OwnerOp::getPolicyHookType(StringRef hook) {
  MLIRContext *context = getContext();
  Type i32 = IntegerType::get(context, 32);
  Type i64 = IntegerType::get(context, 64);
  SmallVector<Type> inputs{MemRefType::get({getPolicyStorageWords()}, i64),
                           MemRefType::get({int64_t(getStages().size())}, i32),
                           i64, i64};
  SmallVector<Type> results;
  if (hook == "availability")
    results.push_back(i64);
  else if (hook == "admission_stage")
    results.push_back(i32);
  else if (hook == "prepare_for_producer")
    inputs.push_back(i64); // the admitted slots
  return FunctionType::get(context, inputs, results);
}

/// The policy dictionary: known keys, symbol hooks, a word count.
static LogicalResult verifyPolicy(OwnerOp owner, DictionaryAttr policy) {
  bool namesHook = false;
  for (NamedAttribute entry : policy) {
    StringRef key = entry.getName().getValue();
    if (key == kPolicyStorageKey) {
      auto words = dyn_cast<IntegerAttr>(entry.getValue());
      if (!words || !words.getType().isSignlessInteger(64) ||
          words.getInt() < 0 || uint64_t(words.getInt()) > UINT32_MAX)
        return owner.emitOpError("policy 'storage' must be an i64 word count "
                                 "in [0, 4294967295], got ")
               << entry.getValue();
      continue;
    }
    if (!llvm::is_contained(OwnerOp::getPolicyHookNames(), key))
      return owner.emitOpError("policy has unknown key '")
             << key << "'; it takes "
             << llvm::join(OwnerOp::getPolicyHookNames(), ", ") << " and "
             << kPolicyStorageKey;
    if (!isa<FlatSymbolRefAttr>(entry.getValue()))
      return owner.emitOpError("policy hook '")
             << key << "' must name a 'func.func' (@symbol), got "
             << entry.getValue();
    namesHook = true;
  }
  if (!namesHook)
    return owner.emitOpError("policy names no hook; it takes ")
           << llvm::join(OwnerOp::getPolicyHookNames(), ", ");
  return success();
}

LogicalResult OwnerOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  for (StringRef hook : getPolicyHookNames()) {
    FlatSymbolRefAttr name = getPolicyHook(hook);
    if (!name)
      continue;
    auto function =
        symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, name);
    if (!function)
      return emitOpError("policy hook '")
             << hook << "' names " << name << ", which is not a 'func.func'";
    if (function.isDeclaration()) {
      InFlightDiagnostic diag = emitOpError("policy hook '")
                                << hook << "' names " << name
                                << ", which has no body; a policy is "
                                   "compiled from the program's own functions";
      diag.attachNote(function.getLoc()) << "declared here";
      return diag;
    }
    FunctionType expected = getPolicyHookType(hook);
    if (function.getFunctionType() != expected) {
      InFlightDiagnostic diag =
          emitOpError("policy hook '")
          << hook << "' " << name << " has type " << function.getFunctionType()
          << ", but @" << getSymName() << "'s hook takes " << expected
          << " (storage, stage counts, capacity, live"
          << (hook == "prepare_for_producer" ? ", admitted slots)" : ")");
      diag.attachNote(function.getLoc()) << "function declared here";
      return diag;
    }
  }
  return success();
}

LogicalResult OwnerOp::verify() {
  if (uint64_t(getCapacity()) > UINT32_MAX)
    return emitOpError("capacity ")
           << getCapacity()
           << " does not fit the runtime's 32-bit slot counters (at most "
              "4294967295)";
  if (getStages().empty())
    return emitOpError("needs at least one stage");
  if (failed(sluice::wave::verifyKernelNamePart(*this, "name", getSymName())))
    return failure();
  llvm::StringSet<> seen;
  for (StringRef stage : getStages().getAsValueRange<StringAttr>()) {
    if (failed(sluice::wave::verifyKernelNamePart(*this, "stage name", stage)))
      return failure();
    if (!seen.insert(stage).second)
      return emitOpError("stage '") << stage << "' appears more than once";
  }
  if (DictionaryAttr policy = getPolicyAttr())
    return verifyPolicy(*this, policy);
  return success();
}

LogicalResult OwnerOp::verifyRegions() {
  llvm::StringMap<HandlerOp> handlers;
  for (Operation &op : getBody().front()) {
    auto handler = dyn_cast<HandlerOp>(op);
    if (!handler)
      return op.emitOpError("is not allowed in the body of 'pool.owner'; "
                            "only 'pool.handler' is");
    if (getStageIndex(handler.getStage()) < 0)
      return handler.emitOpError("handles unknown stage '")
             << handler.getStage() << "' of @" << getSymName();
    auto [it, inserted] = handlers.try_emplace(handler.getStage(), handler);
    if (!inserted) {
      InFlightDiagnostic diag = handler.emitOpError("stage '")
                                << handler.getStage()
                                << "' already has a handler";
      diag.attachNote(it->second.getLoc()) << "previous handler here";
      return diag;
    }
  }
  for (StringRef stage : getStages().getAsValueRange<StringAttr>())
    if (!handlers.count(stage))
      return emitOpError("stage '") << stage << "' has no handler";
  return success();
}

//===----------------------------------------------------------------------===//
// HandlerOp
//===----------------------------------------------------------------------===//

void HandlerOp::build(OpBuilder &builder, OperationState &state,
                      StringRef stage) {
  state.addAttribute(getStageAttrName(state.name), builder.getStringAttr(stage));
  Region *body = state.addRegion();
  Block *entry = new Block();
  body->push_back(entry);
  entry->addArgument(ItemType::get(builder.getContext()), state.location);
}

ParseResult HandlerOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr stage;
  OpAsmParser::Argument item;
  if (parser.parseAttribute(stage, getStageAttrName(result.name),
                            result.attributes) ||
      parser.parseLParen() || parser.parseArgument(item) ||
      parser.parseRParen() ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  item.type = ItemType::get(parser.getContext());
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {item}))
    return failure();
  if (body->empty())
    body->emplaceBlock().addArgument(item.type, result.location);
  return success();
}

void HandlerOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttribute(getStageAttr());
  p << " (";
  p.printRegionArgument(getItem(), /*argAttrs=*/{}, /*omitType=*/true);
  p << ')';
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getStageAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

OwnerOp HandlerOp::getOwner() { return (*this)->getParentOfType<OwnerOp>(); }

LogicalResult HandlerOp::verifyRegions() {
  Block &entry = getBody().front();
  if (entry.getNumArguments() != 1 || !isa<ItemType>(entry.getArgument(0).getType()))
    return emitOpError("body must take exactly one '!pool.item' argument");
  return success();
}

//===----------------------------------------------------------------------===//
// PublishOp
//===----------------------------------------------------------------------===//

LogicalResult PublishOp::verify() {
  if (!(*this)->getParentOfType<sluice::wave::CoroutineOp>())
    return emitOpError("only main stages publish: must be nested inside a "
                       "'wave.coroutine'");
  return success();
}

LogicalResult PublishOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto owner =
      symbolTable.lookupNearestSymbolFrom<OwnerOp>(*this, getOwnerAttr());
  if (!owner)
    return emitOpError("'") << getOwner()
                            << "' does not reference a 'pool.owner'";
  if (owner.getStageIndex(getStage()) < 0) {
    InFlightDiagnostic diag = emitOpError("@")
                              << getOwner() << " has no stage '" << getStage()
                              << "'";
    diag.attachNote(owner.getLoc()) << "owner declared here";
    return diag;
  }
  return verifyPayloadTypes(*this, owner, getPayload().getTypes(), "payload");
}

//===----------------------------------------------------------------------===//
// LoadOp, MoveOp, ReleaseOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  FailureOr<OwnerOp> owner = getEnclosingOwner(*this);
  if (failed(owner))
    return failure();
  return verifyPayloadTypes(*this, *owner, getValues().getTypes(), "result");
}

LogicalResult MoveOp::verify() {
  FailureOr<OwnerOp> owner = getEnclosingOwner(*this);
  if (failed(owner))
    return failure();
  if (owner->getStageIndex(getStage()) < 0)
    return emitOpError("target stage '")
           << getStage() << "' is not a stage of @" << owner->getSymName();
  if (getPayload().empty())
    return success();
  return verifyPayloadTypes(*this, *owner, getPayload().getTypes(), "payload");
}

LogicalResult ReleaseOp::verify() {
  return failure(failed(getEnclosingOwner(*this)));
}

//===----------------------------------------------------------------------===//
// EmissionBoundOp
//===----------------------------------------------------------------------===//

LogicalResult
EmissionBoundOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<sluice::wave::CoroutineOp>(
          *this, getProducerAttr()))
    return emitOpError("producer '")
           << getProducer() << "' does not reference a 'wave.coroutine'";
  if (!symbolTable.lookupNearestSymbolFrom<OwnerOp>(*this, getOwnerAttr()))
    return emitOpError("owner '")
           << getOwner() << "' does not reference a 'pool.owner'";
  return success();
}

#define GET_OP_CLASSES
#include "sluice/Dialect/Pool/IR/PoolOps.cpp.inc"
