//===- BuilderAPITest.cpp - Build Sluice IR as a front end would ----------===//
//
// A front end builds wave/pool/cohort IR through the C++ builder API and runs
// the verification pipeline on it; these tests do the same.
//
//===----------------------------------------------------------------------===//

#include "sluice/Dialect/Cohort/IR/CohortOps.h"
#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"
#include "sluice/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace sluice;

namespace {

class BuilderAPITest : public ::testing::Test {
protected:
  BuilderAPITest() {
    DialectRegistry registry;
    registerSluiceDialects(registry);
    registry.insert<arith::ArithDialect, func::FuncDialect, scf::SCFDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(UnknownLoc::get(&context));
  }

  /// `pool.owner @shadow` with stages intersect -> shade and one i32 payload.
  void buildShadowOwner(int64_t capacity) {
    OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
    Location loc = b.getUnknownLoc();
    auto owner = pool::OwnerOp::create(
        b, loc, "shadow", capacity, b.getStrArrayAttr({"intersect", "shade"}),
        b.getTypeArrayAttr({b.getI32Type()}));
    Block *body = &owner.getBody().emplaceBlock();
    b.setInsertionPointToEnd(body);
    auto intersect = pool::HandlerOp::create(b, loc, "intersect");
    auto shade = pool::HandlerOp::create(b, loc, "shade");
    b.setInsertionPointToEnd(&intersect.getBody().front());
    pool::MoveOp::create(b, loc, intersect.getItem(), "shade", ValueRange());
    b.setInsertionPointToEnd(&shade.getBody().front());
    pool::ReleaseOp::create(b, loc, shade.getItem());
  }

  /// A coroutine whose entry stage publishes `perIteration` items in each of
  /// `trips` iterations of a constant-trip-count loop, then suspends once.
  void buildProducer(int64_t trips, int64_t perIteration, int64_t bound) {
    OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
    Location loc = b.getUnknownLoc();
    pool::EmissionBoundOp::create(b, loc, "path", "shadow", bound);
    auto coroutine = wave::CoroutineOp::create(b, loc, "path",
                                               TypeRange{b.getI32Type()});
    Value pixel = coroutine.getBody().front().getArgument(0);
    b.setInsertionPointToEnd(&coroutine.getBody().front());
    Value lower = arith::ConstantIndexOp::create(b, loc, 0);
    Value upper = arith::ConstantIndexOp::create(b, loc, trips);
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, lower, upper, step);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    for (int64_t i = 0; i < perIteration; ++i)
      pool::PublishOp::create(b, loc, "shadow", "intersect", ValueRange{pixel});
    b.setInsertionPointAfter(loop);
    wave::SuspendOp::create(b, loc, "shade", Value());
    wave::TerminateOp::create(b, loc);
  }

  /// Runs the verification pipeline; collects error messages.
  LogicalResult runVerification(std::vector<std::string> &errors) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        errors.push_back(diag.str());
      return success();
    });
    if (failed(verify(*module)))
      return failure();
    PassManager pm(&context);
    buildVerificationPipeline(pm);
    return pm.run(*module);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(BuilderAPITest, BoundHoldsWhenTripsTimesPublishesFit) {
  buildShadowOwner(/*capacity=*/64);
  buildProducer(/*trips=*/3, /*perIteration=*/2, /*bound=*/6);
  std::vector<std::string> errors;
  EXPECT_TRUE(succeeded(runVerification(errors)));
  EXPECT_TRUE(errors.empty());
}

TEST_F(BuilderAPITest, BoundViolationNamesTheComputedCount) {
  buildShadowOwner(/*capacity=*/64);
  const int64_t trips = 4, perIteration = 3;
  buildProducer(trips, perIteration, /*bound=*/trips * perIteration - 1);
  std::vector<std::string> errors;
  EXPECT_TRUE(failed(runVerification(errors)));
  ASSERT_EQ(errors.size(), 1u);
  std::string expected = "may publish " + std::to_string(trips * perIteration) +
                         " item(s) into @shadow, more than its declared "
                         "emission bound " +
                         std::to_string(trips * perIteration - 1);
  EXPECT_NE(errors.front().find(expected), std::string::npos) << errors.front();
}

TEST_F(BuilderAPITest, HandlerThatDropsItsItemIsRejected) {
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  Location loc = b.getUnknownLoc();
  auto owner = pool::OwnerOp::create(b, loc, "solo", 8,
                                     b.getStrArrayAttr({"only"}),
                                     b.getTypeArrayAttr({}));
  b.setInsertionPointToEnd(&owner.getBody().emplaceBlock());
  pool::HandlerOp::create(b, loc, "only");
  std::vector<std::string> errors;
  EXPECT_TRUE(failed(runVerification(errors)));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors.front().find("neither moves nor releases its item"),
            std::string::npos)
      << errors.front();
}

TEST_F(BuilderAPITest, CohortLargerThanTheMachineIsRejected) {
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  Location loc = b.getUnknownLoc();
  Type index = b.getIndexType();
  auto kernel = func::FuncOp::create(b, loc, "kernel",
                                     b.getFunctionType({index, index}, {}));
  kernel.addEntryBlock();
  b.setInsertionPointToEnd(&kernel.getBody().front());
  func::ReturnOp::create(b, loc);
  b.setInsertionPointToEnd(module->getBody());
  const int64_t cores = 4;
  auto graph = cohort::GraphOp::create(b, loc, "step", cores);
  b.setInsertionPointToEnd(&graph.getBody().emplaceBlock());
  cohort::TaskOp::create(b, loc, "wide", FlatSymbolRefAttr::get(&context, "kernel"),
                         cores + 1, /*sync_start=*/true,
                         /*allow_early_resolve=*/false);
  std::vector<std::string> errors;
  EXPECT_TRUE(failed(runVerification(errors)));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors.front().find("has 5 blocks but graph @step has 4 cores"),
            std::string::npos)
      << errors.front();
}

} // namespace
