//===- RuntimeCalls.cpp - Declaring the runtime's C ABI in a module -------===//

#include "sluice/Conversion/RuntimeCalls.h"

using namespace mlir;

namespace sluice {

func::FuncOp RuntimeCalls::declareFunction(StringRef name, FunctionType type) {
  if (auto existing = symbols.lookup<func::FuncOp>(name))
    return existing;
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  auto decl = func::FuncOp::create(builder, module.getLoc(), name, type);
  decl.setPrivate();
  symbols.insert(decl);
  return decl;
}

LLVM::LLVMFuncOp RuntimeCalls::declareVariadic(StringRef name, Type result,
                                               ArrayRef<Type> fixed) {
  if (auto existing = symbols.lookup<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder builder(module.getContext());
  builder.setInsertionPointToEnd(module.getBody());
  auto decl = LLVM::LLVMFuncOp::create(
      builder, module.getLoc(), name,
      LLVM::LLVMFunctionType::get(result, fixed, /*isVarArg=*/true));
  symbols.insert(decl);
  return decl;
}

Value RuntimeCalls::stringAddress(OpBuilder &builder, Location loc,
                                  StringRef symbol, StringRef text) {
  auto global = symbols.lookup<LLVM::GlobalOp>(symbol);
  if (!global) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    std::string data = (text + Twine('\0')).str();
    auto type = LLVM::LLVMArrayType::get(builder.getI8Type(), data.size());
    global = LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, symbol,
                                    builder.getStringAttr(data));
    symbols.insert(global);
  }
  return LLVM::AddressOfOp::create(builder, loc, global);
}

} // namespace sluice
