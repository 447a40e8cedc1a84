//===- RuntimeCalls.h - Runtime C ABI declarations in a module --*- C++ -*-===//
//
// Lowerings that call into Sluice's runtime declare its C functions once per
// module and pass string constants by address; this is the one place that
// does both.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_RUNTIMECALLS_H
#define SLUICE_CONVERSION_RUNTIMECALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace sluice {

class RuntimeCalls {
public:
  RuntimeCalls(mlir::ModuleOp module, mlir::SymbolTable &symbols)
      : module(module), symbols(symbols) {}

  /// A private external `func.func` named `name`, declared once per module.
  mlir::func::FuncOp declareFunction(llvm::StringRef name,
                                     mlir::FunctionType type);

  /// An external variadic `llvm.func` (e.g. dprintf), declared once.
  mlir::LLVM::LLVMFuncOp declareVariadic(llvm::StringRef name,
                                         mlir::Type result,
                                         llvm::ArrayRef<mlir::Type> fixed);

  /// Address of a NUL-terminated string constant, deduplicated by symbol.
  mlir::Value stringAddress(mlir::OpBuilder &builder, mlir::Location loc,
                            llvm::StringRef symbol, llvm::StringRef text);

  mlir::ModuleOp getModule() const { return module; }

private:
  mlir::ModuleOp module;
  mlir::SymbolTable &symbols;
};

} // namespace sluice

#endif // SLUICE_CONVERSION_RUNTIMECALLS_H
