//===- EmissionBounds.cpp - Prove producers' emission bounds --------------===//
//
// For one (coroutine, owner) pair, every region is summarised by the largest
// publish counts of four kinds of path pieces, combined in max-plus algebra:
//   through  entry -> exit without suspending,
//   prefix   entry -> first suspension,
//   suffix   suspension s -> exit without suspending again (keyed by s),
//   closed   suspension s -> next suspension (a whole stage, keyed by s).
// A stage's bound is then prefix/through (the entry stage) or suffix/closed
// (the stage that resumes at s). Loops compose their body with itself by
// repeated squaring, so the work is logarithmic in the trip count.
//
//===----------------------------------------------------------------------===//

#include "sluice/Dialect/Pool/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace sluice::pool {
#define GEN_PASS_DEF_VERIFYEMISSIONBOUNDS
#include "sluice/Dialect/Pool/Transforms/Passes.h.inc"
} // namespace sluice::pool

using namespace mlir;
using namespace sluice;
using namespace sluice::pool;

namespace {

/// A publish count and the publishes along the path that reaches it. A count
/// of 2^64 or more saturates: `value` is UINT64_MAX and `saturated` is set, so
/// that it stays distinct from an exact count of 2^64 - 1.
struct Count {
  uint64_t value = 0;
  bool saturated = false;
  llvm::SmallSetVector<Operation *, 4> witnesses;

  static Count saturatingSum(const Count &a, const Count &b) {
    Count sum;
    sum.saturated = a.saturated || b.saturated || a.value > UINT64_MAX - b.value;
    sum.value = sum.saturated ? UINT64_MAX : a.value + b.value;
    sum.witnesses = a.witnesses;
    sum.witnesses.insert(b.witnesses.begin(), b.witnesses.end());
    return sum;
  }

  bool exceeds(const Count &other) const {
    return value != other.value ? value > other.value
                                : saturated && !other.saturated;
  }
};

using MaybeCount = std::optional<Count>;

static MaybeCount sum(const MaybeCount &a, const MaybeCount &b) {
  if (!a || !b)
    return std::nullopt;
  return Count::saturatingSum(*a, *b);
}

static MaybeCount larger(const MaybeCount &a, const MaybeCount &b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return b->exceeds(*a) ? b : a;
}

using CountsBySuspension = llvm::MapVector<Operation *, Count>;

static void mergeLarger(CountsBySuspension &into, Operation *key,
                        const MaybeCount &count) {
  if (!count)
    return;
  auto [it, inserted] = into.try_emplace(key, *count);
  if (!inserted && count->exceeds(it->second))
    it->second = *count;
}

/// Max-plus summary of a region for one owner (see the file comment).
struct Summary {
  MaybeCount through;
  MaybeCount prefix;
  CountsBySuspension suffix;
  CountsBySuspension closed;

  static Summary identity() {
    Summary s;
    s.through = Count();
    return s;
  }

  static Summary publish(Operation *op) {
    Summary s;
    s.through = Count();
    s.through->value = 1;
    s.through->witnesses.insert(op);
    return s;
  }

  static Summary suspend(Operation *op) {
    Summary s;
    s.prefix = Count();
    s.suffix[op] = Count();
    return s;
  }

  /// `a` followed by `b`.
  static Summary sequence(const Summary &a, const Summary &b) {
    Summary s;
    s.through = sum(a.through, b.through);
    s.prefix = larger(a.prefix, sum(a.through, b.prefix));
    for (const auto &[key, count] : b.suffix)
      mergeLarger(s.suffix, key, count);
    for (const auto &[key, count] : a.suffix)
      mergeLarger(s.suffix, key, sum(count, b.through));
    for (const auto &[key, count] : a.closed)
      mergeLarger(s.closed, key, count);
    for (const auto &[key, count] : b.closed)
      mergeLarger(s.closed, key, count);
    for (const auto &[key, count] : a.suffix)
      mergeLarger(s.closed, key, sum(count, b.prefix));
    return s;
  }

  /// Either `a` or `b`.
  static Summary choice(const Summary &a, const Summary &b) {
    Summary s;
    s.through = larger(a.through, b.through);
    s.prefix = larger(a.prefix, b.prefix);
    for (const Summary *side : {&a, &b}) {
      for (const auto &[key, count] : side->suffix)
        mergeLarger(s.suffix, key, count);
      for (const auto &[key, count] : side->closed)
        mergeLarger(s.closed, key, count);
    }
    return s;
  }

  /// Exactly `times` repetitions of `body`.
  static Summary power(const Summary &body, APInt times) {
    Summary result = identity();
    Summary base = body;
    while (!times.isZero()) {
      if (times[0])
        result = sequence(result, base);
      times.lshrInPlace(1);
      if (!times.isZero())
        base = sequence(base, base);
    }
    return result;
  }

  /// Between zero and `maxTimes` repetitions. Every component of power(n) grows
  /// with n, so the maximum over [0, maxTimes] is the larger of the two ends.
  static Summary upTo(const Summary &body, uint64_t maxTimes) {
    return choice(identity(), power(body, APInt(64, maxTimes)));
  }

  bool publishes() const {
    auto positive = [](const MaybeCount &c) { return c && c->value > 0; };
    if (positive(through) || positive(prefix))
      return true;
    for (const CountsBySuspension *map : {&suffix, &closed})
      for (const auto &entry : *map)
        if (entry.second.value > 0)
          return true;
    return false;
  }
};

/// The exact trip count of an `scf.for` with constant bounds and a positive
/// constant step. It is computed one bit wider than the induction variable so
/// that `ub - lb` cannot wrap (upstream's getStaticTripCount returns 0 for a
/// signed loop whose span overflows, e.g. -100 to 100 : i8).
static std::optional<APInt> constantTripCount(scf::ForOp loop) {
  APInt lb, ub, step;
  if (!matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) ||
      !matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) ||
      !matchPattern(loop.getStep(), m_ConstantInt(&step)))
    return std::nullopt;
  bool isSigned = !loop.getUnsignedCmp();
  unsigned width = lb.getBitWidth() + 1;
  auto widen = [&](const APInt &value) {
    return isSigned ? value.sext(width) : value.zext(width);
  };
  APInt lower = widen(lb), upper = widen(ub), stride = widen(step);
  if (isSigned ? !stride.isStrictlyPositive() : stride.isZero())
    return std::nullopt;
  if (isSigned ? upper.sle(lower) : upper.ule(lower))
    return APInt(width, 0);
  return llvm::APIntOps::RoundingUDiv(upper - lower, stride, APInt::Rounding::UP);
}

/// Computes summaries of one coroutine for one owner, reporting loops that
/// cannot be bounded. Control flow the analysis does not model is reported
/// once per op in `reportedStructure`, however many owners run into it.
class OwnerAnalysis {
public:
  OwnerAnalysis(StringAttr owner,
                llvm::DenseSet<Operation *> &reportedStructure)
      : owner(owner), reportedStructure(reportedStructure) {}

  FailureOr<Summary> summarize(Block &block) {
    Summary result = Summary::identity();
    for (Operation &op : block) {
      FailureOr<Summary> piece = summarize(op);
      if (failed(piece))
        return failure();
      result = Summary::sequence(result, *piece);
    }
    return result;
  }

private:
  FailureOr<Summary> summarize(Region &region) {
    if (region.empty())
      return Summary::identity();
    if (!region.hasOneBlock())
      return summarizeUnmodelled(
          *region.getParentOp(), region,
          "has a multi-block region with a publish or suspension; emission "
          "bounds need structured control flow there");
    return summarize(region.front());
  }

  FailureOr<Summary> summarize(Operation &op) {
    if (auto publish = dyn_cast<PublishOp>(op))
      return publish.getOwnerAttr().getAttr() == owner
                 ? Summary::publish(publish)
                 : Summary::identity();
    if (isa<wave::SuspendOp>(op))
      return Summary::suspend(&op);
    if (op.getNumRegions() == 0)
      return Summary::identity();
    if (isa<scf::IfOp, scf::IndexSwitchOp>(op))
      return summarizeChoice(op);
    if (auto exec = dyn_cast<scf::ExecuteRegionOp>(op))
      return summarize(exec.getRegion());
    if (auto whileOp = dyn_cast<scf::WhileOp>(op))
      return summarizeWhile(whileOp);
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return summarizeFor(loop);
    // Other loops (scf.parallel, scf.forall, affine.for, ...) run iterations
    // that cannot hold a suspension; they are opaque.
    return summarizeOpaque(op);
  }

  FailureOr<Summary> summarizeChoice(Operation &op) {
    std::optional<Summary> result;
    bool hasEmptyRegion = false;
    for (Region &region : op.getRegions()) {
      if (region.empty()) {
        hasEmptyRegion = true;
        continue;
      }
      FailureOr<Summary> branch = summarize(region);
      if (failed(branch))
        return failure();
      result = result ? Summary::choice(*result, *branch) : *branch;
    }
    if (!result)
      return Summary::identity();
    return hasEmptyRegion ? Summary::choice(*result, Summary::identity())
                          : *result;
  }

  /// The declared trip-count bound of a loop without a static trip count.
  FailureOr<uint64_t> tripBound(Operation &loop, const Summary &body) {
    if (auto declared = loop.getAttrOfType<IntegerAttr>(
            PoolDialect::getMaxTripsAttrName()))
      return static_cast<uint64_t>(declared.getInt());
    // Without publishes, any two repetitions already show every path shape.
    // So do they when every repetition suspends (no path goes through the
    // body): a stage then spans at most the end of one repetition and the
    // start of the next, and power(n) is power(2) for every n >= 2.
    if (!body.publishes() || !body.through)
      return uint64_t(2);
    InFlightDiagnostic diag =
        loop.emitOpError("publishes into @")
        << owner.getValue()
        << " inside a loop without a constant trip count; declare a bound with '"
        << PoolDialect::getMaxTripsAttrName() << " = N : i64'";
    for (Operation *publish : collectPublishes(loop))
      diag.attachNote(publish->getLoc()) << "publish inside the loop";
    return diag;
  }

  FailureOr<Summary> summarizeFor(scf::ForOp loop) {
    FailureOr<Summary> body = summarize(loop.getRegion());
    if (failed(body))
      return failure();
    if (std::optional<APInt> trips = constantTripCount(loop))
      return Summary::power(*body, *trips);
    FailureOr<uint64_t> bound = tripBound(*loop, *body);
    if (failed(bound))
      return failure();
    return Summary::upTo(*body, *bound);
  }

  /// `before (after before)^k`, k bounded by `pool.max_trips`.
  FailureOr<Summary> summarizeWhile(scf::WhileOp loop) {
    FailureOr<Summary> before = summarize(loop.getBefore());
    FailureOr<Summary> after = summarize(loop.getAfter());
    if (failed(before) || failed(after))
      return failure();
    Summary iteration = Summary::sequence(*after, *before);
    FailureOr<uint64_t> bound = tripBound(*loop, iteration);
    if (failed(bound))
      return failure();
    return Summary::sequence(*before, Summary::upTo(iteration, *bound));
  }

  /// Region ops we do not model may not contain publishes or suspensions.
  FailureOr<Summary> summarizeOpaque(Operation &op) {
    return summarizeUnmodelled(
        op, op.getRegions(),
        "contains a publish or suspension, but its control flow is not "
        "understood by the emission-bound analysis (use scf.if, scf.for, "
        "scf.while, scf.index_switch or scf.execute_region)");
  }

  /// Control flow the analysis does not model (`regions` of `op`) emits
  /// nothing when it neither publishes nor suspends, whatever its paths;
  /// otherwise it is an error at `op` (reported once), with a note at the
  /// first publish or suspension.
  FailureOr<Summary> summarizeUnmodelled(Operation &op,
                                         MutableArrayRef<Region> regions,
                                         StringRef reason) {
    Operation *offender = nullptr;
    for (Region &region : regions) {
      region.walk([&](Operation *nested) {
        if (!isa<PublishOp, wave::SuspendOp>(nested))
          return WalkResult::advance();
        offender = nested;
        return WalkResult::interrupt();
      });
      if (offender)
        break;
    }
    if (!offender)
      return Summary::identity();
    if (!reportedStructure.insert(&op).second)
      return failure();
    InFlightDiagnostic diag = op.emitOpError(reason);
    diag.attachNote(offender->getLoc()) << "nested here";
    return diag;
  }

  SmallVector<Operation *> collectPublishes(Operation &root) {
    SmallVector<Operation *> publishes;
    root.walk([&](PublishOp publish) {
      if (publish.getOwnerAttr().getAttr() == owner)
        publishes.push_back(publish);
    });
    return publishes;
  }

  StringAttr owner;
  llvm::DenseSet<Operation *> &reportedStructure;
};

/// One main stage's bound: where it starts, what it is called, its count.
struct StageBound {
  Operation *start;
  StringRef name;
  Count count;
};

static SmallVector<StageBound> stageBounds(wave::CoroutineOp coroutine,
                                           const Summary &summary) {
  SmallVector<StageBound> stages;
  MaybeCount entry = larger(summary.through, summary.prefix);
  stages.push_back({coroutine, "entry", entry ? *entry : Count()});
  coroutine.walk([&](wave::SuspendOp suspend) {
    MaybeCount count;
    if (auto it = summary.suffix.find(suspend); it != summary.suffix.end())
      count = it->second;
    if (auto it = summary.closed.find(suspend); it != summary.closed.end())
      count = larger(count, it->second);
    stages.push_back({suspend, suspend.getStage(), count ? *count : Count()});
  });
  return stages;
}

static std::string formatCount(const Count &count) {
  return count.saturated ? std::string("2^64 or more")
                         : std::to_string(count.value);
}

struct VerifyEmissionBoundsPass
    : public sluice::pool::impl::VerifyEmissionBoundsBase<VerifyEmissionBoundsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;

    // Declared bounds, keyed by (producer, owner), and in program order.
    llvm::DenseMap<std::pair<StringAttr, StringAttr>, EmissionBoundOp> declared;
    SmallVector<EmissionBoundOp> declarations;
    bool ok = true;
    module.walk([&](EmissionBoundOp bound) {
      auto key = std::make_pair(bound.getProducerAttr().getAttr(),
                                bound.getOwnerAttr().getAttr());
      auto [it, inserted] = declared.try_emplace(key, bound);
      if (inserted) {
        declarations.push_back(bound);
      } else {
        InFlightDiagnostic diag = bound.emitOpError("duplicate emission bound for @")
                                  << key.first.getValue() << " -> @"
                                  << key.second.getValue();
        diag.attachNote(it->second.getLoc()) << "first declared here";
        ok = false;
      }
    });

    llvm::DenseSet<Operation *> reportedStructure;
    module.walk([&](wave::CoroutineOp coroutine) {
      llvm::SetVector<StringAttr> owners;
      coroutine.walk(
          [&](PublishOp publish) { owners.insert(publish.getOwnerAttr().getAttr()); });
      for (EmissionBoundOp bound : declarations)
        if (bound.getProducerAttr().getAttr() == coroutine.getSymNameAttr())
          owners.insert(bound.getOwnerAttr().getAttr());
      for (StringAttr owner : owners)
        ok &= succeeded(
            checkOwner(coroutine, owner, declared, reportedStructure));
    });
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult checkOwner(wave::CoroutineOp coroutine, StringAttr owner,
                           llvm::DenseMap<std::pair<StringAttr, StringAttr>,
                                          EmissionBoundOp> &declared,
                           llvm::DenseSet<Operation *> &reportedStructure) {
    OwnerAnalysis analysis(owner, reportedStructure);
    FailureOr<Summary> summary = analysis.summarize(coroutine.getBody().front());
    if (failed(summary))
      return failure();
    SmallVector<StageBound> stages = stageBounds(coroutine, *summary);

    if (printBounds)
      for (const StageBound &stage : stages)
        stage.start->emitRemark("stage '")
            << stage.name << "' of @" << coroutine.getSymName()
            << " publishes at most " << formatCount(stage.count)
            << " item(s) into @" << owner.getValue();

    auto it = declared.find({coroutine.getSymNameAttr(), owner});
    const StageBound *worst = &stages.front();
    for (const StageBound &stage : stages)
      if (stage.count.exceeds(worst->count))
        worst = &stage;
    if (it == declared.end()) {
      if (worst->count.value == 0)
        return success();
      InFlightDiagnostic diag = coroutine.emitOpError("publishes into @")
                                << owner.getValue()
                                << " but declares no emission bound; ";
      // A bound is an i64: suggest one only where it can be declared.
      if (worst->count.value <= uint64_t(INT64_MAX))
        diag << "add 'pool.emission_bound @" << coroutine.getSymName()
             << " -> @" << owner.getValue() << " max "
             << formatCount(worst->count) << "'";
      else
        diag << "stage '" << worst->name << "' may publish "
             << formatCount(worst->count)
             << " item(s), more than any bound can declare";
      for (Operation *publish : worst->count.witnesses)
        diag.attachNote(publish->getLoc()) << "publish on the worst path";
      return diag;
    }

    EmissionBoundOp declaration = it->second;
    uint64_t bound = declaration.getBound();
    LogicalResult result = success();
    for (const StageBound &stage : stages) {
      if (stage.count.value <= bound)
        continue;
      InFlightDiagnostic diag =
          stage.start->emitError("stage '")
          << stage.name << "' of @" << coroutine.getSymName() << " may publish "
          << formatCount(stage.count) << " item(s) into @"
          << owner.getValue() << ", more than its declared emission bound "
          << bound;
      diag.attachNote(declaration.getLoc()) << "bound declared here";
      for (Operation *publish : stage.count.witnesses)
        diag.attachNote(publish->getLoc()) << "publish on the worst path";
      result = failure();
    }
    return result;
  }
};

} // namespace
