//===- PipelinesTest.cpp - compileWaveProgram from C++ --------------------===//
//
// A front end compiles a wave program with sluice::compileWaveProgram and
// gets the artifact bytes that the runtime's reader accepts; bad options are
// errors at the module, not crashes.
//
//===----------------------------------------------------------------------===//

#include "sluice/InitAll.h"
#include "sluice/Pipelines/Pipelines.h"
#include "sluice/runtime/program/artifact.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

// One lane publishes one item into a one-stage owner that releases it.
constexpr const char *kProgram = R"mlir(
pool.owner @sink capacity 8 stages ["drain"] payload [i32] {
  pool.handler "drain" (%item) {
    pool.release %item
  }
}
pool.emission_bound @emit -> @sink max 1
wave.coroutine @emit(%lane: i32) {
  pool.publish @sink "drain" (%lane) : i32
  wave.suspend "done"
  wave.terminate
}
)mlir";

class PipelinesTest : public ::testing::Test {
protected:
  PipelinesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    sluice::registerSluiceDialects(registry);
    context.appendDialectRegistry(registry);
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  std::string compileError(const sluice::WaveCompileOptions &options) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
      message = diagnostic.str();
      return success();
    });
    std::vector<unsigned char> bytes;
    EXPECT_TRUE(failed(sluice::compileWaveProgram(*module, options, bytes)));
    return message;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(PipelinesTest, CompilesAnArtifactTheRuntimeReads) {
  ASSERT_TRUE(module);
  sluice::WaveCompileOptions options;
  options.backends = {"cpu", "vulkan"};
  options.cpu = "generic";
  std::vector<unsigned char> bytes;
  ASSERT_TRUE(succeeded(sluice::compileWaveProgram(*module, options, bytes)));
  sluice::runtime::Artifact artifact;
  sluice::runtime::Status status =
      sluice::runtime::Artifact::read(bytes, "<test>", artifact);
  ASSERT_TRUE(status.ok()) << status.describe();
  const sluice::runtime::CompiledProgram &program = artifact.program();
  EXPECT_EQ(program.name, "emit");
  // Stages: entry and "done" (wave-split), one owner stage.
  ASSERT_EQ(program.mainStages.size(), 2u);
  ASSERT_EQ(program.owners.size(), 1u);
  EXPECT_EQ(program.owners[0].capacity, 8u);
  ASSERT_EQ(program.producers.size(), 1u);
  EXPECT_EQ(program.producers[0].bound, 1u);
  EXPECT_EQ(program.inputs, std::vector<std::string>{"i32"});
  // ELF magic in the CPU section, the SPIR-V magic number in the other.
  std::span<const unsigned char> elf = artifact.section("cpu.so");
  ASSERT_GE(elf.size(), 4u);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(elf.data()) + 1, 3),
            "ELF");
  std::span<const unsigned char> spirv = artifact.section("spirv");
  ASSERT_GE(spirv.size(), 4u);
  uint32_t magic = spirv[0] | spirv[1] << 8 | spirv[2] << 16 |
                   uint32_t(spirv[3]) << 24;
  EXPECT_EQ(magic, 0x07230203u);
}

TEST_F(PipelinesTest, RefusesAnEmptyBackendList) {
  ASSERT_TRUE(module);
  sluice::WaveCompileOptions options;
  options.backends.clear();
  EXPECT_EQ(compileError(options), "no backend to compile for");
}

TEST_F(PipelinesTest, CapacityOverridesReachTheDescriptor) {
  ASSERT_TRUE(module);
  sluice::WaveCompileOptions options;
  options.capacities = {"sink=3"};
  std::vector<unsigned char> bytes;
  ASSERT_TRUE(succeeded(sluice::compileWaveProgram(*module, options, bytes)));
  sluice::runtime::Artifact artifact;
  ASSERT_TRUE(sluice::runtime::Artifact::read(bytes, "<test>", artifact).ok());
  EXPECT_EQ(artifact.program().owners[0].capacity, 3u);
}

} // namespace
