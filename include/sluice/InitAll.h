//===- InitAll.h - Register every Sluice dialect and pass -------*- C++ -*-===//
//
// The entry points a front end or a driver calls once at start-up.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_INITALL_H
#define SLUICE_INITALL_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice {

/// Adds the wave, pool and cohort dialects to `registry`.
void registerSluiceDialects(mlir::DialectRegistry &registry);

/// Registers every Sluice pass and the `sluice-verify` pipeline with the
/// global pass registry (for `sluice-opt` and textual pipelines).
void registerSluicePasses();

/// Appends what `--sluice-verify` runs to `pm`: sluice-inline-helpers (the
/// helpers called from stage code inlined), then the proofs of emission
/// bounds, item linearity and cohort fit (defined in lib/Pipelines with the
/// other registered pipelines).
void buildVerificationPipeline(mlir::OpPassManager &pm);

/// "Sluice <version> (LLVM <version>)".
const char *getVersionString();

/// Prints the Sluice and LLVM versions; used as a cl::AddExtraVersionPrinter.
void printVersion(llvm::raw_ostream &os);

} // namespace sluice

#endif // SLUICE_INITALL_H
