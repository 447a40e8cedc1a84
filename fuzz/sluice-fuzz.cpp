//===- sluice-fuzz.cpp - libFuzzer: parser, verifiers, verification passes ===//
//
// Every input is parsed as a module with Sluice's dialects and the upstream
// ones their programs use, verified, and run through `sluice-verify`. Errors
// are expected and silenced; only crashes and sanitizer reports are findings.
//
//===----------------------------------------------------------------------===//

#include "sluice/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <memory>

using namespace mlir;

// LLVM's inline allocator templates poison and unpoison their slabs when
// compiled with ASan; our instrumented copies and the uninstrumented ones in
// libMLIR.so disagree, which reports false use-after-poison. Manual poisoning
// is therefore off; every heap access is still checked.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

static MLIRContext &fuzzContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    sluice::registerSluiceDialects(registry);
    registry.insert<arith::ArithDialect, func::FuncDialect, scf::SCFDialect>();
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    ctx->getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
    return ctx;
  }();
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = fuzzContext();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz-input"), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module || failed(verify(*module)))
    return 0;
  PassManager pm(&context);
  sluice::buildVerificationPipeline(pm);
  (void)pm.run(*module);
  return 0;
}
