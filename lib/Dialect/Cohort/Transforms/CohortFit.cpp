//===- CohortFit.cpp - Cohorts fit the machine; graphs are acyclic --------===//

#include "sluice/Dialect/Cohort/Transforms/Passes.h"

#include "llvm/ADT/MapVector.h"

namespace sluice::cohort {
#define GEN_PASS_DEF_VERIFYCOHORTFIT
#include "sluice/Dialect/Cohort/Transforms/Passes.h.inc"
} // namespace sluice::cohort

using namespace mlir;
using namespace sluice::cohort;

namespace {

/// Finds a dependency cycle by depth-first search; returns its edges in order.
class CycleFinder {
public:
  explicit CycleFinder(GraphOp graph) {
    for (auto dep : graph.getBody().front().getOps<DependencyOp>())
      successors[dep.getProducerAttr().getAttr()].push_back(dep);
    for (auto task : graph.getBody().front().getOps<TaskOp>())
      order.push_back(task.getSymNameAttr());
  }

  SmallVector<DependencyOp> find() {
    for (StringAttr task : order)
      if (color.lookup(task) == Color::White && visit(task))
        return cycle;
    return {};
  }

private:
  enum class Color { White, Grey, Black };

  bool visit(StringAttr task) {
    color[task] = Color::Grey;
    for (DependencyOp dep : successors.lookup(task)) {
      StringAttr next = dep.getConsumerAttr().getAttr();
      path.push_back(dep);
      if (color.lookup(next) == Color::Grey) {
        // The cycle is the suffix of the path that starts at `next`.
        auto start = llvm::find_if(path, [&](DependencyOp edge) {
          return edge.getProducerAttr().getAttr() == next;
        });
        cycle.assign(start, path.end());
        return true;
      }
      if (color.lookup(next) == Color::White && visit(next))
        return true;
      path.pop_back();
    }
    color[task] = Color::Black;
    return false;
  }

  llvm::DenseMap<StringAttr, SmallVector<DependencyOp>> successors;
  SmallVector<StringAttr> order;
  llvm::DenseMap<StringAttr, Color> color;
  SmallVector<DependencyOp> path;
  SmallVector<DependencyOp> cycle;
};

struct VerifyCohortFitPass
    : public sluice::cohort::impl::VerifyCohortFitBase<VerifyCohortFitPass> {
  using Base::Base;

  void runOnOperation() override {
    if (coresOverride < 0) {
      // Stream the value, not the cl::opt: that would print as a char.
      getOperation().emitError("option 'cores' must be positive (or 0 to use "
                               "each graph's own core count), got ")
          << static_cast<int64_t>(coresOverride);
      return signalPassFailure();
    }
    bool ok = true;
    getOperation().walk([&](GraphOp graph) { ok &= succeeded(check(graph)); });
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult check(GraphOp graph) {
    int64_t cores = coresOverride > 0 ? int64_t(coresOverride)
                                     : graph.getCoresAttr().getInt();
    LogicalResult result = success();
    for (auto task : graph.getBody().front().getOps<TaskOp>()) {
      int64_t blocks = task.getBlocksAttr().getInt();
      if (!task.getSyncStart() || blocks <= cores)
        continue;
      task.emitOpError("cohort @")
          << task.getSymName() << " has " << blocks
          << " blocks but graph @" << graph.getSymName() << " has " << cores
          << " cores: its blocks can never be co-resident";
      result = failure();
    }

    SmallVector<DependencyOp> cycle = CycleFinder(graph).find();
    if (!cycle.empty()) {
      InFlightDiagnostic diag = graph.emitOpError("has a dependency cycle: @");
      for (DependencyOp edge : cycle)
        diag << edge.getProducer() << " -> @";
      diag << cycle.front().getProducer();
      for (DependencyOp edge : cycle)
        diag.attachNote(edge.getLoc()) << "dependency @" << edge.getProducer()
                                       << " -> @" << edge.getConsumer();
      result = failure();
    }
    return result;
  }
};

} // namespace
