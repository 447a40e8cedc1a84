//===- decision.h - The wavefront decision, one source for two placements -===//
//
// DESIGN.md §2.4 and §4 "Where the scheduler runs". The decision path of a
// wavefront iteration (validate the counts, stop when done, refill free
// frames with new lanes, the greedy choice with ties to the lowest index,
// admission with availability A and partial admission, the drain stage) and
// the device form of the router (per-frame and per-slot stage words, the
// canonical order) are written here once, over plain arrays, so that the same
// text compiles for the host (the host placement's pure functions in
// admission.h call these) and for every device placement: the CPU device's
// own loop includes it, and HIP/CUDA source can include it as it is (no
// standard library, no exceptions, no allocation; the functions are
// `__host__ __device__` under a CUDA or HIP compiler).
//
// The canonical order that lets both placements make identical decisions:
//   - a dispatch of a main stage takes the waiting frames in ascending frame
//     index (the first `count` of them), then, when `sort_by` sorting is on,
//     orders those stably by key;
//   - a refill gives the next lanes, in lane order, to the lowest free
//     frames;
//   - an auxiliary stage is always dispatched whole, in ascending slot index
//     (which slot an item occupies never changes a decision).
//
// Errors are verdicts with the numbers involved; the host turns a device
// verdict into the same message the host placement prints (it re-validates
// the counts the device stopped at with the host's own functions).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WAVEFRONT_DECISION_H
#define SLUICE_RUNTIME_WAVEFRONT_DECISION_H

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__CUDACC_RTC__) ||   \
    defined(__HIP__)
#define SLUICE_DECISION_FN __host__ __device__ inline
#else
#define SLUICE_DECISION_FN constexpr inline
#endif

namespace sluice::decision {

using u32 = unsigned int;
using u64 = unsigned long long;
static_assert(sizeof(u32) == 4 && sizeof(u64) == 8, "fixed-width words");

// "No stage", "no owner", and a free frame or slot.
inline constexpr u32 kNone = 0xFFFFFFFFu;

//===----------------------------------------------------------------------===//
// Pure pieces (the host placement calls these through admission.h)
//===----------------------------------------------------------------------===//

// Outcomes of the admission rule, as in AdmissionOutcome.
inline constexpr u32 kAdmitFull = 0;
inline constexpr u32 kAdmitPartial = 1;
inline constexpr u32 kAdmitBlocked = 2;

struct Admission {
  u32 admitted;
  u32 outcome;
};

// The stage with the largest count; ties to the lowest index (strictly
// greater keeps the first); kNone when every count is zero.
SLUICE_DECISION_FN u32 greedyStage(const u32 *counts, u32 stages) {
  u32 best = kNone;
  u32 bestCount = 0;
  for (u32 stage = 0; stage < stages; ++stage)
    if (counts[stage] > bestCount) {
      bestCount = counts[stage];
      best = stage;
    }
  return best;
}

// The default admission (drain) stage: the first non-empty stage.
SLUICE_DECISION_FN u32 firstNonEmpty(const u32 *counts, u32 stages) {
  for (u32 stage = 0; stage < stages; ++stage)
    if (counts[stage] != 0)
      return stage;
  return kNone;
}

// The exact rule: a dispatch of n invocations of bound b is admitted iff
// uint64(n) * b <= A (32-bit factors: the product never wraps). When it does
// not fit and partial admission is on, the prefix floor(A / b) if >= 1.
SLUICE_DECISION_FN Admission admit(u32 waiting, u32 bound, u64 availability,
                                   bool allowPartial) {
  if (u64(waiting) * u64(bound) <= availability)
    return {waiting, kAdmitFull};
  if (!allowPartial)
    return {0, kAdmitBlocked};
  // waiting * bound > availability, so the quotient is below `waiting`.
  u64 prefix = availability / bound;
  if (prefix == 0)
    return {0, kAdmitBlocked};
  return {u32(prefix), kAdmitPartial};
}

// A producer feeding several owners dispatches the smallest admitted prefix.
SLUICE_DECISION_FN Admission combine(Admission a, Admission b) {
  if (a.outcome == kAdmitBlocked)
    return a;
  if (b.outcome == kAdmitBlocked)
    return b;
  if (b.admitted < a.admitted)
    return b;
  if (a.admitted < b.admitted)
    return a;
  return a.outcome == kAdmitPartial ? a : b;
}

//===----------------------------------------------------------------------===//
// The program and the counts, as flat tables
//===----------------------------------------------------------------------===//

// Constant for a run. Stages are global: main stages first, then each
// owner's stages at ownerStageBase[o].
struct Tables {
  u32 stageCount = 0;
  u32 mainStageCount = 0;
  u32 ownerCount = 0;
  u32 entryStage = 0;
  u32 framePool = 0;
  u32 partialAdmission = 1;
  u64 lanes = 0;
  u64 maxIterations = 0; // 0: unbounded
  const u32 *ownerCapacity = nullptr;   // [ownerCount]
  const u32 *ownerStageBase = nullptr;  // [ownerCount]
  const u32 *ownerStageCount = nullptr; // [ownerCount]
  // Main stage s feeds edges [producerBegin[s], producerBegin[s + 1]).
  const u32 *producerBegin = nullptr; // [mainStageCount + 1]
  const u32 *edgeOwner = nullptr;
  const u32 *edgeBound = nullptr;
};

// What the host placement reads back every iteration; the device placement
// keeps it on the device.
struct Counts {
  u32 *stageCounts = nullptr;    // [stageCount]
  u32 *ownerLive = nullptr;      // [ownerCount]
  u64 *ownerPublished = nullptr; // [ownerCount], this run
  u64 *ownerReleased = nullptr;  // [ownerCount], this run
  u32 freeFrames = 0;
  u64 lanesStarted = 0;
  u64 lanesFinished = 0;
};

// Actions, as in IterationAction.
inline constexpr u32 kActionDispatch = 0;
inline constexpr u32 kActionAdmit = 1;
inline constexpr u32 kActionAdmitPartially = 2;
inline constexpr u32 kActionDrain = 3;

// One iteration's decision, the same fields as IterationRecord; 48 bytes in
// a device buffer.
struct Record {
  u64 iteration = 0;
  u64 availability = 0;
  u32 chosenStage = kNone;
  u32 dispatchedStage = kNone;
  u32 waiting = 0;
  u32 dispatched = 0;
  u32 refilled = 0;
  u32 blockingOwner = kNone;
  u32 action = kActionDispatch;
  u32 reserved = 0;
};
static_assert(sizeof(Record) == 48, "the device record layout");

// What decide() concluded.
enum Verdict : u32 {
  kContinue = 0,       // `record` holds a dispatch to run
  kFinished = 1,       // every lane started and finished, every owner empty
  kCountFault = 2,     // the counts break L <= C, linearity or the pool sum
  kIterationLimit = 3, // maxIterations reached before the end
  kNoProgress = 4,     // unfinished lanes but no stage holds work
  kPolicyFault = 5,    // an owner policy hook broke its contract (it says how)
};

// The default owner policy: A = C - L, drain the first non-empty stage, no
// storage work. A policy is a type with these four members; each returns
// false when the hook broke its contract (storage-only, 0 <= A <= C - L,
// A == C when empty, a non-empty drain stage), and decide() then stops with
// kPolicyFault. The owner's counts are c.stageCounts + t.ownerStageBase[o].
struct DefaultPolicy {
  SLUICE_DECISION_FN bool prepareForAdmission(const Tables &, Counts &, u32) {
    return true;
  }
  SLUICE_DECISION_FN bool availability(const Tables &t, Counts &c, u32 owner,
                                       u64 &out) {
    out = u64(t.ownerCapacity[owner]) - c.ownerLive[owner];
    return true;
  }
  SLUICE_DECISION_FN bool admissionStage(const Tables &t, Counts &c, u32 owner,
                                         u32 &out) {
    out = firstNonEmpty(c.stageCounts + t.ownerStageBase[owner],
                        t.ownerStageCount[owner]);
    return true;
  }
  SLUICE_DECISION_FN bool prepareForProducer(const Tables &, Counts &, u32,
                                             u64) {
    return true;
  }
};

// L <= C, total == sum of the owner's stage counts, published - released ==
// live, frames at main stages + free == pool, finished <= started <= lanes.
SLUICE_DECISION_FN bool countsConsistent(const Tables &t, const Counts &c) {
  for (u32 o = 0; o < t.ownerCount; ++o) {
    u64 sum = 0;
    for (u32 i = 0; i < t.ownerStageCount[o]; ++i)
      sum += c.stageCounts[t.ownerStageBase[o] + i];
    if (sum != c.ownerLive[o] || c.ownerLive[o] > t.ownerCapacity[o])
      return false;
    if (c.ownerPublished[o] - c.ownerReleased[o] != c.ownerLive[o])
      return false;
  }
  u64 frames = c.freeFrames;
  for (u32 s = 0; s < t.mainStageCount; ++s)
    frames += c.stageCounts[s];
  return frames == t.framePool && c.lanesStarted <= t.lanes &&
         c.lanesFinished <= c.lanesStarted;
}

SLUICE_DECISION_FN bool runComplete(const Tables &t, const Counts &c) {
  if (c.lanesStarted != t.lanes || c.freeFrames != t.framePool)
    return false;
  for (u32 o = 0; o < t.ownerCount; ++o)
    if (c.ownerLive[o] != 0)
      return false;
  return true;
}

// Lanes the refill starts: as many as frames are free and lanes are left.
SLUICE_DECISION_FN u32 refillCount(const Tables &t, const Counts &c) {
  u64 left = t.lanes - c.lanesStarted;
  return left < c.freeFrames ? u32(left) : c.freeFrames;
}

// One iteration of the decision under the owner policy `policy` (the hooks
// in the host scheduler's order: per producer edge prepare_for_admission then
// availability; the blocking owner's admission stage; per edge
// prepare_for_producer), from the counts after the previous dispatch. On
// kContinue the refill is applied to `c` (entry stage, free frames, lanes
// started) and `r` names the dispatch; the caller then refills and
// dispatches in the canonical order.
template <typename Policy>
SLUICE_DECISION_FN Verdict decide(const Tables &t, Counts &c, u64 iteration,
                                  Record &r, Policy &policy) {
  if (!countsConsistent(t, c))
    return kCountFault;
  if (runComplete(t, c))
    return kFinished;
  if (t.maxIterations != 0 && iteration >= t.maxIterations)
    return kIterationLimit;
  r = Record();
  r.iteration = iteration;
  u32 refill = refillCount(t, c);
  c.stageCounts[t.entryStage] += refill;
  c.freeFrames -= refill;
  c.lanesStarted += refill;
  r.refilled = refill;

  u32 chosen = greedyStage(c.stageCounts, t.stageCount);
  if (chosen == kNone)
    return kNoProgress;
  r.chosenStage = chosen;
  r.dispatchedStage = chosen;
  r.waiting = c.stageCounts[chosen];
  r.dispatched = r.waiting;
  if (chosen >= t.mainStageCount ||
      t.producerBegin[chosen] == t.producerBegin[chosen + 1])
    return kContinue;

  Admission combined{r.waiting, kAdmitFull};
  u64 limiting = 0;
  bool first = true;
  for (u32 e = t.producerBegin[chosen]; e < t.producerBegin[chosen + 1]; ++e) {
    u32 owner = t.edgeOwner[e];
    u64 availability = 0;
    if (!policy.prepareForAdmission(t, c, owner) ||
        !policy.availability(t, c, owner, availability))
      return kPolicyFault;
    Admission a = admit(r.waiting, t.edgeBound[e], availability,
                        t.partialAdmission != 0);
    if (a.outcome == kAdmitBlocked && r.blockingOwner == kNone) {
      r.blockingOwner = owner;
      r.availability = availability;
    }
    if (first || a.admitted < combined.admitted)
      limiting = availability;
    combined = combine(combined, a);
    first = false;
  }
  if (r.blockingOwner != kNone) {
    // Not empty: an empty owner has A = C >= b.
    u32 base = t.ownerStageBase[r.blockingOwner];
    u32 drain = kNone;
    if (!policy.admissionStage(t, c, r.blockingOwner, drain))
      return kPolicyFault;
    r.action = kActionDrain;
    r.dispatchedStage = base + drain;
    r.dispatched = c.stageCounts[base + drain];
    return kContinue;
  }
  r.action = combined.outcome == kAdmitPartial ? kActionAdmitPartially
                                               : kActionAdmit;
  r.dispatched = combined.admitted;
  r.availability = limiting;
  for (u32 e = t.producerBegin[chosen]; e < t.producerBegin[chosen + 1]; ++e)
    if (!policy.prepareForProducer(t, c, t.edgeOwner[e],
                                   u64(combined.admitted) * t.edgeBound[e]))
      return kPolicyFault;
  return kContinue;
}

// decide() under the default owner policy.
SLUICE_DECISION_FN Verdict decide(const Tables &t, Counts &c, u64 iteration,
                                  Record &r) {
  DefaultPolicy policy;
  return decide(t, c, iteration, r, policy);
}

//===----------------------------------------------------------------------===//
// The router's device form: one stage word per frame and per item slot
//===----------------------------------------------------------------------===//

// Sequential reference of the canonical refill: the `lanes` lowest free
// frames (frameStage == kNone) take lanes firstLane, firstLane + 1, ... at
// `entry`. A parallel device ranks the free frames with a prefix sum instead.
SLUICE_DECISION_FN void refillFrames(u32 *frameStage, u32 *laneOfFrame,
                                     u32 framePool, u32 entry, u32 lanes,
                                     u64 firstLane) {
  u32 given = 0;
  for (u32 f = 0; f < framePool && given < lanes; ++f)
    if (frameStage[f] == kNone) {
      frameStage[f] = entry;
      laneOfFrame[f] = u32(firstLane + given);
      ++given;
    }
}

// The canonical dispatch: the first `count` indices i in ascending order with
// stageOf[i] == stage go to invocations[0, count); returns how many there
// were (== count unless the counts were wrong).
SLUICE_DECISION_FN u32 selectAscending(const u32 *stageOf, u32 size, u32 stage,
                                       u32 count, u32 *invocations) {
  u32 taken = 0;
  for (u32 i = 0; i < size && taken < count; ++i)
    if (stageOf[i] == stage)
      invocations[taken++] = i;
  return taken;
}

} // namespace sluice::decision

#endif // SLUICE_RUNTIME_WAVEFRONT_DECISION_H
