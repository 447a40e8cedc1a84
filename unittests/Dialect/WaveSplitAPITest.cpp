//===- WaveSplitAPITest.cpp - splitCoroutine from C++ ---------------------===//
//
// The wave-split pass skips coroutines that are already split; a front end
// calling sluice::wave::splitCoroutine directly gets an error instead.
//
//===----------------------------------------------------------------------===//

#include "sluice/Dialect/Wave/Transforms/Passes.h"
#include "sluice/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
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
  // The splitter builds func and cf ops; the pass declares them as dependent
  // dialects, a direct caller loads them.
  context.loadAllAvailableDialects();
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

} // namespace
