//===- CohortToLLVM.cpp - cohort.launch -> cohort runtime C ABI calls -----===//

#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/RuntimeCalls.h"
#include "sluice/Dialect/Cohort/IR/CohortOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace sluice {
#define GEN_PASS_DEF_CONVERTCOHORTTOLLVM
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;
using namespace sluice;

namespace {

// Mirrors SLUICE_COHORT_SYNC_START / _ALLOW_EARLY_RESOLVE in cohort/c_api.h.
constexpr int32_t kSyncStartFlag = 1;
constexpr int32_t kAllowEarlyResolveFlag = 2;

class CohortLowering {
public:
  CohortLowering(ModuleOp module)
      : module(module), symbols(module), runtime(module, symbols),
        builder(module.getContext()),
        ptrType(LLVM::LLVMPointerType::get(module.getContext())) {}

  LogicalResult run() {
    SmallVector<cohort::LaunchOp> launches;
    module.walk([&](cohort::LaunchOp launch) { launches.push_back(launch); });
    for (cohort::LaunchOp launch : launches)
      if (failed(lowerLaunch(launch)))
        return failure();
    for (auto graph : llvm::make_early_inc_range(module.getOps<cohort::GraphOp>()))
      graph.erase();
    return success();
  }

private:
  Type i32() { return builder.getI32Type(); }
  Type i64() { return builder.getI64Type(); }
  FunctionType kernelAbiType() {
    return builder.getFunctionType({ptrType, i64(), i64()}, {});
  }

  func::FuncOp declare(StringRef name, FunctionType type) {
    return runtime.declareFunction(name, type);
  }

  Value stringAddress(Location loc, StringRef symbol, StringRef text) {
    return runtime.stringAddress(builder, loc, symbol, text);
  }

  /// `@__sluice_cohort_entry_<k>(ptr, i64, i64)` calling `@k(index, index)`.
  FailureOr<func::FuncOp> entryWrapper(cohort::TaskOp task) {
    auto kernel = symbols.lookup<func::FuncOp>(task.getKernelAttr().getRootReference());
    if (!kernel || kernel.isExternal())
      return task.emitOpError("kernel ")
             << task.getKernel()
             << " must be a 'func.func' with a body to lower to the CPU executor";
    Type index = builder.getIndexType();
    if (kernel.getFunctionType() != builder.getFunctionType({index, index}, {}))
      return task.emitOpError("kernel ")
             << task.getKernel() << " has type " << kernel.getFunctionType()
             << "; the CPU executor calls kernels as (index, index) -> () with "
                "the block index and the block count";
    std::string name = ("__sluice_cohort_entry_" + kernel.getSymName()).str();
    if (auto existing = symbols.lookup<func::FuncOp>(name))
      return existing;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(kernel);
    Location loc = kernel.getLoc();
    auto wrapper = func::FuncOp::create(builder, loc, name, kernelAbiType());
    wrapper.setPrivate();
    symbols.insert(wrapper);
    Block *entry = wrapper.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    Value block = arith::IndexCastOp::create(builder, loc, index, entry->getArgument(1));
    Value count = arith::IndexCastOp::create(builder, loc, index, entry->getArgument(2));
    func::CallOp::create(builder, loc, kernel, ValueRange{block, count});
    func::ReturnOp::create(builder, loc);
    return wrapper;
  }

  Value constantI32(Location loc, int64_t value) {
    return arith::ConstantIntOp::create(builder, loc, value, 32);
  }

  LogicalResult lowerLaunch(cohort::LaunchOp launch) {
    auto graph = symbols.lookup<cohort::GraphOp>(launch.getGraph());
    if (!graph)
      return launch.emitOpError("launches graph @")
             << launch.getGraph()
             << ", which is not in the top-level module; the cohort lowering "
                "resolves graphs and kernels there only";
    Location loc = launch.getLoc();

    // Wrappers go beside their kernels; create them before emitting the calls.
    llvm::StringMap<func::FuncOp> wrappers;
    for (auto task : graph.getBody().front().getOps<cohort::TaskOp>()) {
      FailureOr<func::FuncOp> wrapper = entryWrapper(task);
      if (failed(wrapper))
        return failure();
      wrappers[task.getSymName()] = *wrapper;
    }

    auto create = declare("sluice_cohort_graph_create",
                          builder.getFunctionType({i32()}, {ptrType}));
    auto addTask = declare(
        "sluice_cohort_add_task",
        builder.getFunctionType({ptrType, ptrType, kernelAbiType(), ptrType, i64(), i32()},
                                {i32()}));
    auto addDependency = declare(
        "sluice_cohort_add_dependency",
        builder.getFunctionType({ptrType, i32(), i32()}, {i32()}));
    auto runGraph = declare("sluice_cohort_run",
                            builder.getFunctionType({ptrType}, {i32()}));
    auto lastError = declare("sluice_cohort_last_error",
                             builder.getFunctionType({ptrType}, {ptrType}));
    auto destroy = declare("sluice_cohort_graph_destroy",
                           builder.getFunctionType({ptrType}, {}));
    auto dprintf = runtime.declareVariadic("dprintf", i32(), {i32(), ptrType});
    auto exit = declare("exit", builder.getFunctionType({i32()}, {}));

    builder.setInsertionPoint(launch);
    int64_t cores = graph.getCoresAttr().getInt();
    Value handle =
        func::CallOp::create(builder, loc, create, ValueRange{constantI32(loc, cores)})
            .getResult(0);
    Value null = LLVM::ZeroOp::create(builder, loc, ptrType);

    llvm::StringMap<Value> taskIds;
    for (auto task : graph.getBody().front().getOps<cohort::TaskOp>()) {
      int32_t flags = (task.getSyncStart() ? kSyncStartFlag : 0) |
                      (task.getAllowEarlyResolve() ? kAllowEarlyResolveFlag : 0);
      func::FuncOp wrapper = wrappers[task.getSymName()];
      Value name = stringAddress(
          loc, ("__sluice_cohort_name_" + graph.getSymName() + "_" + task.getSymName()).str(),
          task.getSymName());
      Value fn = func::ConstantOp::create(builder, loc, kernelAbiType(),
                                          SymbolRefAttr::get(wrapper));
      Value blocks = arith::ConstantIntOp::create(builder, loc, task.getBlocksAttr().getInt(), 64);
      taskIds[task.getSymName()] =
          func::CallOp::create(builder, loc, addTask,
                               ValueRange{handle, name, fn, null, blocks,
                                          constantI32(loc, flags)})
              .getResult(0);
    }
    for (auto dep : graph.getBody().front().getOps<cohort::DependencyOp>())
      func::CallOp::create(builder, loc, addDependency,
                           ValueRange{handle, taskIds[dep.getProducer()],
                                      taskIds[dep.getConsumer()]});

    Value status =
        func::CallOp::create(builder, loc, runGraph, ValueRange{handle}).getResult(0);
    Value failed = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                         status, constantI32(loc, 0));
    auto ifFailed = scf::IfOp::create(builder, loc, failed, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPoint(ifFailed.thenBlock()->getTerminator());
      Value message =
          func::CallOp::create(builder, loc, lastError, ValueRange{handle}).getResult(0);
      Value format = stringAddress(
          loc, ("__sluice_cohort_failure_" + graph.getSymName()).str(),
          ("sluice: cohort graph @" + graph.getSymName() + " failed: %s\n").str());
      LLVM::CallOp::create(builder, loc, dprintf,
                           ValueRange{constantI32(loc, 2), format, message});
      func::CallOp::create(builder, loc, exit, ValueRange{constantI32(loc, 1)});
    }
    func::CallOp::create(builder, loc, destroy, ValueRange{handle});
    launch.erase();
    return success();
  }

  ModuleOp module;
  SymbolTable symbols;
  RuntimeCalls runtime;
  OpBuilder builder;
  Type ptrType;
};

struct ConvertCohortToLLVMPass
    : public sluice::impl::ConvertCohortToLLVMBase<ConvertCohortToLLVMPass> {
  void runOnOperation() override {
    if (failed(CohortLowering(getOperation()).run()))
      signalPassFailure();
  }
};

} // namespace
