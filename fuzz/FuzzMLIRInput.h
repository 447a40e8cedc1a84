//===- FuzzMLIRInput.h - What the MLIR fuzz targets share -------*- C++ -*-===//
//
// The bytes of one input parsed as a module and verified, in a context whose
// diagnostics are silenced (errors are expected; only crashes are findings).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FUZZ_FUZZMLIRINPUT_H
#define SLUICE_FUZZ_FUZZMLIRINPUT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

// LLVM's inline allocator templates poison and unpoison their slabs when
// compiled with ASan; our instrumented copies and the uninstrumented ones in
// libMLIR.so disagree, which reports false use-after-poison. Manual poisoning
// is therefore off; every heap access is still checked.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

namespace sluice::fuzz {

// A context of `registry`, single-threaded, that drops every diagnostic.
inline mlir::MLIRContext *silentContext(const mlir::DialectRegistry &registry) {
  auto *context =
      new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
  context->getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  return context;
}

// The input as a verified module, or null.
inline mlir::OwningOpRef<mlir::ModuleOp>
parseVerifiedModule(const uint8_t *data, size_t size,
                    mlir::MLIRContext &context) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz-input"), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module || mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

} // namespace sluice::fuzz

#endif // SLUICE_FUZZ_FUZZMLIRINPUT_H
