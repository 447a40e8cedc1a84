//===- InitAll.cpp - Register every Sluice dialect and pass ---------------===//

#include "sluice/InitAll.h"

#include "sluice/Config.h"
#include "sluice/Conversion/GPUToEmitC/HIPBackend.h"
#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"
#include "sluice/Conversion/Passes.h"
#include "sluice/Dialect/Cohort/IR/CohortOps.h"
#include "sluice/Dialect/Cohort/Transforms/Passes.h"
#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Pool/Transforms/Passes.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"
#include "sluice/Dialect/Wave/Transforms/Passes.h"
#include "sluice/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"

void sluice::registerSluiceDialects(mlir::DialectRegistry &registry) {
  registry.insert<wave::WaveDialect, pool::PoolDialect, cohort::CohortDialect>();
}

void sluice::registerSluicePasses() {
  pool::registerPoolPasses();
  cohort::registerCohortPasses();
  wave::registerWavePasses();
  registerSluiceConversionPasses();
  registerSluiceToSPIRVPipeline();
  registerSluiceGPUToHIPPipeline();
  registerSluicePipelines();
}

const char *sluice::getVersionString() {
  return "Sluice " SLUICE_VERSION " (LLVM " SLUICE_LLVM_VERSION ")";
}

void sluice::printVersion(llvm::raw_ostream &os) {
  os << getVersionString() << '\n';
}
