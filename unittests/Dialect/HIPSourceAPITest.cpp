//===- HIPSourceAPITest.cpp - printHIPSource from C++ ---------------------===//
//
// sluice::printHIPSource prints the HIP C++ of one converted gpu.module when
// asked by name; a name the HIP lowering gave no source is an error at the
// module, not an empty translation unit.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/GPUToEmitC/HIPBackend.h"
#include "sluice/InitAll.h"
#include "sluice/Target/HIP/HIPSource.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

constexpr const char *kKernels = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi32>) kernel {
      gpu.return
    }
  }
}
)mlir";

TEST(HIPSourceAPI, AModuleWithoutASourceIsAnError) {
  DialectRegistry registry;
  registerAllDialects(registry);
  sluice::registerSluiceDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kKernels, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  sluice::buildSluiceGPUToHIPPipeline(pm);
  ASSERT_TRUE(succeeded(pm.run(*module)));

  std::string source;
  llvm::raw_string_ostream os(source);
  ASSERT_TRUE(succeeded(sluice::printHIPSource(*module, os, "kernels")));
  EXPECT_NE(source.find("__global__"), std::string::npos) << source;

  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  std::string none;
  llvm::raw_string_ostream noneOs(none);
  EXPECT_TRUE(failed(sluice::printHIPSource(*module, noneOs, "others")));
  EXPECT_EQ(message, "no HIP source for gpu.module @others");
}

} // namespace
