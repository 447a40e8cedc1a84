//===- ProgramDescriptorJSON.cpp - sluice.program -> JSON -----------------===//

#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"
#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;

/// `attr` as a JSON value; fails on attribute kinds the schema lacks.
static FailureOr<llvm::json::Value> toJSON(Attribute attr) {
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : dict) {
      FailureOr<llvm::json::Value> value = toJSON(entry.getValue());
      if (failed(value))
        return failure();
      object[entry.getName().getValue()] = std::move(*value);
    }
    return llvm::json::Value(std::move(object));
  }
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array list;
    for (Attribute element : array) {
      FailureOr<llvm::json::Value> value = toJSON(element);
      if (failed(value))
        return failure();
      list.push_back(std::move(*value));
    }
    return llvm::json::Value(std::move(list));
  }
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return llvm::json::Value(boolean.getValue());
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return llvm::json::Value(integer.getInt());
  if (auto string = dyn_cast<StringAttr>(attr))
    return llvm::json::Value(string.getValue());
  if (auto symbol = dyn_cast<SymbolRefAttr>(attr))
    return llvm::json::Value(symbol.getLeafReference().getValue());
  if (auto type = dyn_cast<TypeAttr>(attr)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.getValue().print(os);
    return llvm::json::Value(text);
  }
  return emitError(UnknownLoc::get(attr.getContext()),
                   "the program descriptor holds an attribute JSON has no "
                   "form for: ")
         << attr;
}

FailureOr<llvm::json::Object> sluice::programDescriptorJSON(ModuleOp module) {
  auto descriptor =
      module->getAttrOfType<DictionaryAttr>(kProgramDescriptorAttrName);
  if (!descriptor)
    return module.emitError("no '")
           << kProgramDescriptorAttrName
           << "' program descriptor; run convert-wave-to-gpu first";
  FailureOr<llvm::json::Value> value = toJSON(descriptor);
  if (failed(value))
    return failure();
  return std::move(*value->getAsObject());
}

LogicalResult sluice::printProgramDescriptorJSON(ModuleOp module,
                                                 llvm::raw_ostream &os) {
  FailureOr<llvm::json::Object> object = programDescriptorJSON(module);
  if (failed(object))
    return failure();
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*object))) << '\n';
  return success();
}

void sluice::registerProgramDescriptorTranslation() {
  static TranslateFromMLIRRegistration registration(
      "sluice-to-descriptor-json",
      "Print the program descriptor of a module lowered by "
      "convert-wave-to-gpu as JSON",
      [](ModuleOp module, llvm::raw_ostream &os) {
        return printProgramDescriptorJSON(module, os);
      },
      [](DialectRegistry &registry) {
        registerAllDialects(registry);
        registry.insert<sluice::wave::WaveDialect, sluice::pool::PoolDialect>();
      });
}
