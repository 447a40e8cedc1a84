//===- sluice-translate.cpp - mlir-translate with Sluice's dialects -------===//

#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"
#include "sluice/InitAll.h"
#include "sluice/Pipelines/Pipelines.h"
#include "sluice/Target/HIP/HIPSource.h"
#include "sluice/Target/SPIRV/SPIRVBinary.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  sluice::registerProgramDescriptorTranslation();
  sluice::registerSPIRVBinaryTranslation();
  sluice::registerHIPSourceTranslation();
  sluice::registerArtifactTranslation();
  llvm::cl::AddExtraVersionPrinter(sluice::printVersion);
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Sluice translation driver\n"));
}
