//===- CompileAPITest.cpp - Compile a wave program and run it from C++ ----===//
//
// The two calls of a front end (sluice/Pipelines/Compile.h): compileProgram
// (or compileArtifact / compileArtifactFile) and the runtime's Program. The
// shadow pool's film is checked against the closed form in
// examples/shadow_pool.mlir's header, computed here.
//
//===----------------------------------------------------------------------===//

#include "sluice/Pipelines/Compile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mlir;
namespace rt = sluice::runtime;

namespace {

constexpr int kFilm = 4096;

// One lane publishes one item into a one-stage owner that releases it; no
// bindings.
constexpr const char *kEmit = R"mlir(
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

// Publishes two items per lane, but declares one.
constexpr const char *kOverBound = R"mlir(
pool.owner @sink capacity 8 stages ["drain"] payload [i32] {
  pool.handler "drain" (%item) {
    pool.release %item
  }
}
pool.emission_bound @producer -> @sink max 1
wave.coroutine @producer(%lane: i32) {
  pool.publish @sink "drain" (%lane) : i32
  pool.publish @sink "drain" (%lane) : i32
  wave.suspend "done"
  wave.terminate
}
)mlir";

std::vector<int32_t> expectedFilm(const std::vector<int32_t> &occluders,
                                  uint32_t lanes, uint32_t shift) {
  std::vector<int32_t> film(kFilm, 0);
  uint32_t lights = uint32_t(occluders.size());
  for (uint32_t p = 0; p < lanes; ++p)
    for (uint32_t s = 0; s < 2; ++s) {
      uint32_t light = (7 * p + s + shift) % lights;
      if (occluders[light] == 0)
        film[p % kFilm] += int32_t(light + 1);
    }
  return film;
}

class CompileAPITest : public ::testing::Test {
protected:
  CompileAPITest() {
    DialectRegistry registry;
    sluice::registerWaveCompiler(registry);
    context.appendDialectRegistry(registry);
  }

  OwningOpRef<ModuleOp> parseShadowPool() {
    return parseSourceFile<ModuleOp>(SLUICE_SOURCE_DIR "/examples/shadow_pool.mlir",
                                     &context);
  }

  // Binds the shadow pool's inputs, runs 4096 lanes, checks the film.
  void runShadowPool(rt::Program &program) {
    std::vector<int32_t> occluders(61);
    for (int l = 0; l < 61; ++l)
      occluders[l] = l % 4 == 1;
    ASSERT_TRUE(program.bind("occluders", std::span<const int32_t>(occluders))
                    .ok());
    ASSERT_TRUE(program.setUniform("lights", 61).ok());
    ASSERT_TRUE(program.setUniform("shift", 5).ok());
    rt::RunOptions options;
    options.lanes = kFilm;
    rt::RunReport report = program.run(options);
    ASSERT_TRUE(report.ok()) << report.status.describe();
    std::vector<int32_t> film;
    ASSERT_TRUE(program.read("film", film).ok());
    EXPECT_EQ(film, expectedFilm(occluders, kFilm, 5));
  }

  MLIRContext context;
};

TEST_F(CompileAPITest, CompileProgramThenRun) {
  OwningOpRef<ModuleOp> module = parseShadowPool();
  ASSERT_TRUE(module);
  rt::Program program;
  sluice::WaveCompileOptions options; // backends {"cpu"}, soa
  rt::Status status = sluice::compileProgram(*module, options, "cpu", program,
                                             rt::LoadOptions{kFilm, 0});
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(program.name(), "path");
  EXPECT_EQ(program.bindings().size(), 4u);
  runShadowPool(program);
}

TEST_F(CompileAPITest, OneArtifactOnBothBackends) {
  OwningOpRef<ModuleOp> module = parseShadowPool();
  ASSERT_TRUE(module);
  sluice::WaveCompileOptions options;
  options.backends = {"cpu", "vulkan"};
  options.layout = "aos";
  options.checkBounds = true;
  rt::Artifact artifact;
  ASSERT_TRUE(succeeded(sluice::compileArtifact(*module, options, artifact)));
  EXPECT_TRUE(artifact.program().checkBounds);
  EXPECT_EQ(artifact.program().layout, rt::FrameLayoutKind::ArrayOfStructs);
  rt::Program cpu;
  ASSERT_TRUE(rt::Program::load(artifact, "cpu", cpu).ok());
  runShadowPool(cpu);
  rt::Program vulkan;
  rt::Status status = rt::Program::load(artifact, "vulkan", vulkan);
  if (status.kind() == rt::ErrorKind::DeviceUnavailable)
    GTEST_SKIP() << status.describe();
  ASSERT_TRUE(status.ok()) << status.describe();
  runShadowPool(vulkan);
}

TEST_F(CompileAPITest, ArtifactFileRunsWithoutBindings) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kEmit, &context);
  ASSERT_TRUE(module);
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("emit", "sluice", path));
  sluice::WaveCompileOptions options;
  options.cpu = "generic";
  ASSERT_TRUE(succeeded(sluice::compileArtifactFile(*module, options, path)));
  rt::Program program;
  rt::Status status = rt::Program::loadFile(std::string(path), "cpu", program);
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(status.ok()) << status.describe();
  rt::RunOptions run;
  run.lanes = 100;
  run.framePool = 8;
  rt::RunReport report = program.run(run);
  ASSERT_TRUE(report.ok()) << report.status.describe();
  ASSERT_EQ(report.stageNames,
            (std::vector<std::string>{"entry", "done", "sink.drain"}));
  EXPECT_EQ(report.stages[0].itemsPublished, 100u);
  EXPECT_EQ(report.stages[2].itemsReleased, 100u);
  rt::HostBuffer value;
  EXPECT_EQ(program.read("x", value).message(),
            "'x' is not a binding of @emit; it has no bindings");
}

TEST_F(CompileAPITest, CompileErrorsAreAStatusAndDiagnostics) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kOverBound, &context);
  ASSERT_TRUE(module);
  std::vector<std::string> seen; // what reaches the front end's handler
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    seen.push_back(diagnostic.str());
    return success();
  });
  rt::Program program;
  rt::Status status =
      sluice::compileProgram(*module, {}, "cpu", program);
  EXPECT_EQ(status.kind(), rt::ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message().rfind("cannot compile @producer: loc(", 0), 0u)
      << status.message();
  EXPECT_NE(status.message().find(
                "may publish 2 item(s) into @sink, more than its declared "
                "emission bound 1"),
            std::string::npos)
      << status.message();
  ASSERT_FALSE(seen.empty());
  EXPECT_NE(seen.front().find("more than its declared emission bound 1"),
            std::string::npos)
      << seen.front();
  EXPECT_FALSE(program.loaded());
}

TEST_F(CompileAPITest, UnwritableArtifactFileIsAnError) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kEmit, &context);
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(sluice::compileArtifactFile(
      *module, {}, "/nonexistent-dir/emit.sluice")));
  EXPECT_EQ(message, "failed to write the artifact to "
                     "'/nonexistent-dir/emit.sluice': No such file or "
                     "directory");
}

} // namespace
