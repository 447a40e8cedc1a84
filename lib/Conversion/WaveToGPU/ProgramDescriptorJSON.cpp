//===- ProgramDescriptorJSON.cpp - sluice.program -> JSON -----------------===//

#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"
#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/JSON.h"

using namespace mlir;

/// Writes `attr` as a JSON value; fails on attribute kinds the schema lacks.
static LogicalResult writeJSON(Attribute attr, llvm::json::OStream &json) {
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    LogicalResult result = success();
    json.object([&] {
      for (NamedAttribute entry : dict) {
        if (failed(result))
          return;
        json.attributeBegin(entry.getName().getValue());
        result = writeJSON(entry.getValue(), json);
        json.attributeEnd();
      }
    });
    return result;
  }
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    LogicalResult result = success();
    json.array([&] {
      for (Attribute element : array)
        if (succeeded(result))
          result = writeJSON(element, json);
    });
    return result;
  }
  if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    json.value(integer.getInt());
    return success();
  }
  if (auto string = dyn_cast<StringAttr>(attr)) {
    json.value(string.getValue());
    return success();
  }
  if (auto symbol = dyn_cast<SymbolRefAttr>(attr)) {
    json.value(symbol.getLeafReference().getValue());
    return success();
  }
  if (auto type = dyn_cast<TypeAttr>(attr)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.getValue().print(os);
    json.value(text);
    return success();
  }
  return emitError(UnknownLoc::get(attr.getContext()),
                   "the program descriptor holds an attribute JSON has no "
                   "form for: ")
         << attr;
}

LogicalResult sluice::printProgramDescriptorJSON(ModuleOp module,
                                                 llvm::raw_ostream &os) {
  auto descriptor =
      module->getAttrOfType<DictionaryAttr>(kProgramDescriptorAttrName);
  if (!descriptor)
    return module.emitError("no '")
           << kProgramDescriptorAttrName
           << "' program descriptor; run convert-wave-to-gpu first";
  llvm::json::OStream json(os, /*IndentSize=*/2);
  if (failed(writeJSON(descriptor, json)))
    return failure();
  os << '\n';
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
