//===- resident_router.cpp - The device placement's loop on host memory ---===//

#include "resident_router.h"

#include <algorithm>
#include <chrono>

namespace sluice::runtime {

namespace {

using decision::kNone;
using Clock = std::chrono::steady_clock;

// The counts and the router's device form on host memory.
struct ResidentState : ResidentTables {
  std::vector<uint32_t> stageCounts, ownerLive;
  std::vector<decision::u64> ownerPublished, ownerReleased;
  decision::Counts counts;
  // The stage of every frame and item slot (kNone: free).
  std::vector<uint32_t> frameStage;
  std::vector<std::vector<uint32_t>> slotStage;

  void build(const ProgramShape &shape, uint32_t framePool,
             const ResidentRun &run, const std::vector<OwnerStorage> &owners) {
    std::vector<uint32_t> capacities;
    for (const OwnerStorage &owner : owners)
      capacities.push_back(owner.capacity);
    ResidentTables::build(shape, framePool, run, capacities);
    uint32_t ownerCount = shape.ownerCount();
    stageCounts.assign(shape.totalStageCount(), 0);
    ownerLive.assign(ownerCount, 0);
    ownerPublished.assign(ownerCount, 0);
    ownerReleased.assign(ownerCount, 0);
    decision::Counts &c = counts;
    c.stageCounts = stageCounts.data();
    c.ownerLive = ownerLive.data();
    c.ownerPublished = ownerPublished.data();
    c.ownerReleased = ownerReleased.data();
    c.freeFrames = framePool;
    c.lanesStarted = 0;
    c.lanesFinished = 0;
    frameStage.assign(framePool, kNone);
    slotStage.resize(ownerCount);
    for (uint32_t o = 0; o < ownerCount; ++o)
      slotStage[o].assign(capacity[o], kNone);
  }

  void pack(std::vector<uint64_t> &out) const {
    packCounts(tables, counts, out);
  }
};

struct DispatchDeltas {
  uint64_t published = 0;
  uint64_t released = 0;
  uint32_t order = 0; // a main stage's order digest
};

// One dispatch of `r` in the canonical order; false after a fault (the
// router's pending error).
bool dispatchResident(HostRouter &router, ResidentState &state,
                      const decision::Record &r,
                      ResidentKernelRunner runKernel, void *context,
                      DispatchDeltas &deltas) {
  const ProgramShape &shape = *router.shape;
  decision::Counts &c = state.counts;
  uint32_t stage = r.dispatchedStage;
  uint32_t count = r.dispatched;
  uint32_t *invocations = router.invocations.data();
  const StageRef &ref = shape.stage(stage);
  bool main = ref.kind == StageKind::Main;

  sluice_rt_kernel_args args = router.argsTemplate;
  args.stage = stage;
  args.count = count;
  uint32_t taken =
      main ? decision::selectAscending(state.frameStage.data(),
                                       router.framePool, stage, count,
                                       invocations)
           : decision::selectAscending(state.slotStage[ref.owner].data(),
                                       state.capacity[ref.owner],
                                       ref.ownerStage, count, invocations);
  if (taken != count) {
    router.fail(ErrorKind::InvalidState,
                "device placement: " + router.stageLabel(stage) + " holds " +
                    std::to_string(taken) + " of the " + std::to_string(count) +
                    " invocations its count promised");
    return false;
  }
  c.stageCounts[stage] -= count;
  std::span<const ProducerEdge> producers;
  if (main) {
    if (Status status = router.sortByKey(stage, count); !status.ok()) {
      router.fail(status.kind(), "device placement: sorting the frames of " +
                                     router.stageLabel(stage) + ": " +
                                     status.message());
      return false;
    }
    deltas.order = router.orderDigest(count);
    producers = shape.producersOf(stage);
    router.prepareOwnerSlots(producers, count);
    if (!producers.empty())
      std::fill_n(router.publishedCounts.begin(),
                  uint64_t(count) * shape.ownerCount(), 0);
    args.owner = SLUICE_RT_NO_OWNER;
    args.publish_stride = shape.publishStride(stage);
  } else {
    router.prepareOwnerSlots({}, count);
    args.owner = ref.owner;
    args.owner_stage = ref.ownerStage;
    args.publish_stride = 0;
  }
  std::fill_n(router.nextStage.begin(), count, SLUICE_RT_UNDECIDED);

  runKernel(context, router.kernelOf(stage), args);
  router.settleWindows();
  if (!router.takeFault(args))
    return false;

  const uint32_t *next = router.nextStage.data();
  if (main) {
    uint32_t ownerCount = shape.ownerCount();
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t frame = invocations[i];
      if (!router.checkFrameOutcome(stage, i, router.laneOfFrame[frame],
                                    next[i]))
        return false;
      if (next[i] == SLUICE_RT_FINISHED) {
        state.frameStage[frame] = kNone;
        ++c.freeFrames;
        ++c.lanesFinished;
      } else {
        state.frameStage[frame] = next[i];
        ++c.stageCounts[next[i]];
      }
      for (const ProducerEdge &edge : producers) {
        uint32_t published =
            router.publishedCounts[uint64_t(i) * ownerCount + edge.owner];
        const uint32_t *slots = router.publishedSlots.data() +
                                uint64_t(i) * args.publish_stride +
                                edge.publishBase;
        for (uint32_t k = 0; k < published; ++k)
          state.slotStage[edge.owner][slots[k]] = 0;
        c.stageCounts[state.stageBase[edge.owner]] += published;
        c.ownerLive[edge.owner] += published;
        c.ownerPublished[edge.owner] += published;
        deltas.published += published;
      }
    }
    return true;
  }
  OwnerStorage &owner = router.owners[ref.owner];
  uint32_t base = state.stageBase[ref.owner];
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t slot = invocations[i];
    if (!router.checkItemOutcome(stage, i, slot, next[i]))
      return false;
    if (next[i] == SLUICE_RT_FINISHED) {
      state.slotStage[ref.owner][slot] = kNone;
      // The kernels allocate from the free slots' windows (KernelABI.h).
      owner.freeSlots.insert(slot);
      --c.ownerLive[ref.owner];
      ++c.ownerReleased[ref.owner];
      ++deltas.released;
    } else {
      state.slotStage[ref.owner][slot] = next[i];
      ++c.stageCounts[base + next[i]];
    }
  }
  return true;
}

} // namespace

void ResidentTables::build(const ProgramShape &shape, uint32_t framePool,
                           const ResidentRun &run,
                           std::span<const uint32_t> capacities) {
  uint32_t ownerCount = shape.ownerCount();
  uint32_t mainStages = shape.mainStageCount();
  capacity.assign(capacities.begin(), capacities.end());
  stageBase.clear();
  stageCount.clear();
  producerBegin.clear();
  edgeOwner.clear();
  edgeBound.clear();
  for (uint32_t o = 0; o < ownerCount; ++o) {
    stageBase.push_back(shape.ownerStageBase(o));
    stageCount.push_back(shape.ownerStageCount(o));
  }
  for (uint32_t s = 0; s < mainStages; ++s) {
    producerBegin.push_back(uint32_t(edgeOwner.size()));
    for (const ProducerEdge &edge : shape.producersOf(s)) {
      edgeOwner.push_back(edge.owner);
      edgeBound.push_back(edge.bound);
    }
  }
  producerBegin.push_back(uint32_t(edgeOwner.size()));

  decision::Tables &t = tables;
  t.stageCount = shape.totalStageCount();
  t.mainStageCount = mainStages;
  t.ownerCount = ownerCount;
  t.entryStage = shape.entryStage();
  t.framePool = framePool;
  t.partialAdmission = run.partialAdmission ? 1 : 0;
  t.lanes = run.lanes;
  t.maxIterations = run.maxIterations;
  t.ownerCapacity = capacity.data();
  t.ownerStageBase = stageBase.data();
  t.ownerStageCount = stageCount.data();
  t.producerBegin = producerBegin.data();
  t.edgeOwner = edgeOwner.data();
  t.edgeBound = edgeBound.data();
}

Status runResidentLoop(HostRouter &router, const ResidentRun &run,
                       ResidentKernelRunner runKernel, void *context,
                       ResidentLog &log) {
  if (!router.allocated())
    return Status::error(ErrorKind::InvalidState,
                         "device placement: a run before allocate()");
  router.reset();
  router.markQueuesUsed(); // the loop routes into the free slots itself
  router.setFrameSorting(run.sorting);
  log = ResidentLog();
  if (!router.checkLaneLimit(run.lanes)) {
    log.fault = router.pendingError();
    return Status::success();
  }
  ResidentState state;
  state.build(*router.shape, router.framePool, run, router.owners);
  const decision::Tables &t = state.tables;
  // The owners' compiled policies run in this loop, checked as on the host.
  std::vector<const OwnerPolicy *> policies;
  std::vector<std::string> ownerNames;
  for (const OwnerDesc &owner : router.program->owners) {
    policies.push_back(&owner.policy);
    ownerNames.push_back(owner.name);
  }
  PolicyHooks hooks(policies, ownerNames);
  hooks.beginRun(t, state.counts);
  Clock::time_point start = Clock::now();
  auto since = [&] {
    return std::chrono::duration<double, std::micro>(Clock::now() - start)
        .count();
  };
  for (uint64_t iteration = 0;; ++iteration) {
    double decideUs = since();
    size_t snapshot = log.snapshots.size();
    state.pack(log.snapshots);
    uint64_t firstLane = state.counts.lanesStarted;
    decision::Record record;
    decision::Verdict verdict =
        decision::decide(t, state.counts, iteration, record, hooks);
    if (verdict == decision::kPolicyFault) {
      // The hook's own message, at the counts it was called with.
      log.fault = hooks.fault();
      log.verdict = verdict;
      log.last.assign(log.snapshots.begin() + snapshot, log.snapshots.end());
      log.snapshots.resize(snapshot);
      break;
    }
    if (verdict != decision::kContinue) {
      log.verdict = verdict;
      log.last.assign(log.snapshots.begin() + snapshot, log.snapshots.end());
      log.snapshots.resize(snapshot);
      break;
    }
    decision::refillFrames(state.frameStage.data(), router.laneOfFrame.data(),
                           t.framePool, t.entryStage, record.refilled,
                           firstLane);
    double dispatchUs = since();
    DispatchDeltas deltas;
    bool ok =
        dispatchResident(router, state, record, runKernel, context, deltas);
    log.records.push_back(record);
    log.itemsPublished.push_back(deltas.published);
    log.itemsReleased.push_back(deltas.released);
    log.orders.push_back(deltas.order);
    log.decideUs.push_back(decideUs);
    log.dispatchBeginUs.push_back(dispatchUs);
    log.dispatchEndUs.push_back(since());
    if (!ok) {
      // Stopped at the end of this iteration (DESIGN.md §2.4).
      log.fault = router.pendingError();
      state.pack(log.last);
      break;
    }
  }
  log.readbacks = 1;
  return Status::success();
}

} // namespace sluice::runtime
