//===- sluice-opt.cpp - mlir-opt with every upstream and Sluice dialect ---===//

#include "sluice/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  sluice::registerSluicePasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  sluice::registerSluiceDialects(registry);

  llvm::cl::AddExtraVersionPrinter(sluice::printVersion);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Sluice optimizer driver: coroutine stages, capacity owners, cohort launches\n",
      registry));
}
