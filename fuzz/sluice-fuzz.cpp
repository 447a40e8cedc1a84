//===- sluice-fuzz.cpp - libFuzzer: parser, verifiers, verification passes ===//
//
// Every input is parsed as a module with Sluice's dialects and the upstream
// ones their programs use, verified, and run through `sluice-verify`. Errors
// are expected and silenced; only crashes and sanitizer reports are findings.
//
//===----------------------------------------------------------------------===//

#include "FuzzMLIRInput.h"

#include "sluice/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>

using namespace mlir;

static MLIRContext &fuzzContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    sluice::registerSluiceDialects(registry);
    registry.insert<arith::ArithDialect, func::FuncDialect, scf::SCFDialect>();
    MLIRContext *ctx = sluice::fuzz::silentContext(registry);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = fuzzContext();
  OwningOpRef<ModuleOp> module =
      sluice::fuzz::parseVerifiedModule(data, size, context);
  if (!module)
    return 0;
  PassManager pm(&context);
  sluice::buildVerificationPipeline(pm);
  (void)pm.run(*module);
  return 0;
}
