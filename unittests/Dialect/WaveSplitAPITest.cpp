//===- WaveSplitAPITest.cpp - splitCoroutine from C++ ---------------------===//
//
// The wave-split pass skips coroutines that are already split; a front end
// calling sluice::wave::splitCoroutine directly gets an error instead, and
// needs to load no dialect but the wave dialect first.
//
//===----------------------------------------------------------------------===//

#include "sluice/Dialect/Wave/Transforms/Passes.h"
#include "sluice/InitAll.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

constexpr const char *kCoroutine = R"mlir(
wave.coroutine @path(%lane: i32) {
  wave.suspend "bounce"
  wave.terminate
}
)mlir";

TEST(WaveSplitAPI, SplittingTwiceIsAnError) {
  DialectRegistry registry;
  registerAllDialects(registry);
  sluice::registerSluiceDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kCoroutine, &context);
  ASSERT_TRUE(module);
  auto coroutine = *module->getOps<sluice::wave::CoroutineOp>().begin();

  FailureOr<sluice::wave::SplitResult> first = sluice::wave::splitCoroutine(
      coroutine, sluice::wave::FrameLayoutKind::StructOfArrays);
  ASSERT_TRUE(succeeded(first));
  EXPECT_EQ(first->stages, 2u); // the entry and "bounce"
  EXPECT_TRUE(sluice::wave::isSplit(coroutine));

  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(sluice::wave::splitCoroutine(
      coroutine, sluice::wave::FrameLayoutKind::StructOfArrays)));
  EXPECT_EQ(message, "'wave.coroutine' op is already split");
}

// Only the wave dialect is loaded (by the parser): the splitter loads the
// func, cf and arith dialects of the split form itself.
TEST(WaveSplitAPI, SplittingLoadsTheDialectsItBuilds) {
  DialectRegistry registry;
  registry.insert<sluice::wave::WaveDialect>();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kCoroutine, &context);
  ASSERT_TRUE(module);
  ASSERT_EQ(context.getLoadedDialect<func::FuncDialect>(), nullptr);
  auto coroutine = *module->getOps<sluice::wave::CoroutineOp>().begin();

  FailureOr<sluice::wave::SplitResult> split = sluice::wave::splitCoroutine(
      coroutine, sluice::wave::FrameLayoutKind::ArrayOfStructs);
  ASSERT_TRUE(succeeded(split));
  EXPECT_EQ(split->stages, 2u); // the entry and "bounce"
  EXPECT_NE(context.getLoadedDialect<func::FuncDialect>(), nullptr);
  EXPECT_NE(context.getLoadedDialect<cf::ControlFlowDialect>(), nullptr);
  EXPECT_TRUE(succeeded(verify(*module)));
}

} // namespace
