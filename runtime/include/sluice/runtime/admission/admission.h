//===- admission.h - Capacity owners and the admission rule -----*- C++ -*-===//
//
// DESIGN.md §2.1. A capacity owner is a pool of C item slots shared by k >= 1
// stages. A main producer stage may publish at most b items per invocation
// into an owner; a dispatch of n invocations is admitted iff
// uint64(n) * b <= A, where A is the owner's materializable availability.
//
// The decision functions here are pure and allocation-free so tests can drive
// them without a scheduler and benchmarks can time them alone.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_ADMISSION_ADMISSION_H
#define SLUICE_RUNTIME_ADMISSION_ADMISSION_H

#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/wavefront/decision.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace sluice::runtime {

// Sentinel for "no stage".
inline constexpr uint32_t kNoStage = UINT32_MAX;

enum class AdmissionOutcome : uint8_t {
  Full = decision::kAdmitFull,       // All waiting invocations fit.
  Partial = decision::kAdmitPartial, // The largest prefix floor(A / b) >= 1 fits.
  Blocked = decision::kAdmitBlocked, // Nothing fits; the owner must drain first.
};
static_assert(sizeof(AdmissionOutcome) == 1);

struct AdmissionDecision {
  uint32_t admitted = 0;
  AdmissionOutcome outcome = AdmissionOutcome::Blocked;
};
static_assert(sizeof(AdmissionDecision) == 8, "returned in one register");

// The exact admission rule: a 64-bit product of 32-bit factors never wraps.
constexpr bool admissionFits(uint32_t invocations, uint32_t bound,
                             uint64_t availability) {
  return uint64_t(invocations) * uint64_t(bound) <= availability;
}

// Admits all `waiting` invocations if they fit, otherwise (when partial
// admission is allowed) the prefix floor(A / b) if it is at least one.
// A bound of zero never consumes capacity and is always admitted in full.
// The rule itself is decision::admit, shared with the device placement.
constexpr AdmissionDecision decideAdmission(uint32_t waiting, uint32_t bound,
                                            uint64_t availability,
                                            bool allowPartial) {
  decision::Admission a =
      decision::admit(waiting, bound, availability, allowPartial);
  return {a.admitted, AdmissionOutcome(a.outcome)};
}

// Combines the per-owner decisions of a producer that feeds several owners:
// the dispatch is the smallest admitted prefix.
constexpr AdmissionDecision combineAdmission(AdmissionDecision a,
                                             AdmissionDecision b) {
  decision::Admission c =
      decision::combine({a.admitted, uint32_t(a.outcome)},
                        {b.admitted, uint32_t(b.outcome)});
  return {c.admitted, AdmissionOutcome(c.outcome)};
}

// The greedy choice: the stage with the largest count, ties to the lowest
// index; kNoStage when every count is zero.
uint32_t chooseGreedyStage(std::span<const uint32_t> counts);

// The default admission (drain) stage: the first non-empty stage.
uint32_t firstNonEmptyStage(std::span<const uint32_t> stageCounts);

// L <= C and total == sum(stage counts). The error names the owner, every
// stage count, the total and the capacity.
Status validateOwnerCounts(std::string_view owner,
                           std::span<const uint32_t> stageCounts,
                           uint64_t observedTotal, uint32_t capacity);

// 0 <= A <= C - L, and A == C when the owner is empty (progress rule).
// `hook`, when given, names where A came from (a compiled policy's
// availability hook reports a signed value: above INT64_MAX it is negative).
Status validateAvailability(std::string_view owner, uint32_t live,
                            uint32_t capacity, uint64_t availability,
                            std::string_view hook = {});

// Owner hooks are storage-only: the stage counts before and after one are
// equal. The error names the owner, the hook and both counts.
Status validateStorageOnly(std::string_view owner, std::string_view hook,
                           std::span<const uint32_t> before,
                           std::span<const uint32_t> after);

// A producer's bound must be >= 1 and <= C, otherwise it can never run.
Status validateProducerBound(std::string_view stage, std::string_view owner,
                             uint32_t bound, uint32_t capacity);

// The client's admission stage must name a non-empty stage of the owner.
Status validateAdmissionStage(std::string_view owner,
                              std::span<const uint32_t> stageCounts,
                              uint32_t chosenStage);

// What hooks see of an owner at one observation.
struct OwnerView {
  uint32_t index = 0;
  std::string_view name;
  uint32_t capacity = 0;
  std::span<const uint32_t> stageCounts; // q[i], i < k
  uint32_t live = 0;                     // L, validated <= capacity
  uint64_t published = 0;                // items published this run
  uint64_t released = 0;                 // items released this run
};

// Client hooks of one capacity owner. The defaults describe an owner whose
// every free slot is materializable: A = C - L, drain the first non-empty
// stage, and no storage work.
class CapacityOwnerClient {
public:
  virtual ~CapacityOwnerClient();

  // Called once when a run starts.
  virtual void beginRun(const OwnerView &owner) {}
  // Storage-only work before admission (e.g. compaction); counts must not
  // change.
  virtual void prepareForAdmission(const OwnerView &owner) {}
  // A with 0 <= A <= C - L; an empty owner must report C.
  virtual uint64_t materializableAvailability(const OwnerView &owner) {
    return uint64_t(owner.capacity) - owner.live;
  }
  // The stage dispatched to release capacity when a producer is blocked.
  virtual uint32_t admissionStage(const OwnerView &owner) {
    return firstNonEmptyStage(owner.stageCounts);
  }
  // Storage-only: materializes `admittedSlots` (= admitted * bound) slots
  // before the producer runs.
  virtual void prepareForProducer(const OwnerView &owner,
                                  uint64_t admittedSlots) {}
};

// Per-stage statistics kept by the scheduler (never per owner).
struct StageStatistics {
  uint64_t dispatches = 0;     // kernel launches of this stage
  uint64_t invocations = 0;    // frames (main) or items (auxiliary) processed
  uint64_t itemsPublished = 0; // items published by this stage (producers)
  uint64_t itemsReleased = 0;  // items released by this stage (auxiliary)
  uint64_t partialAdmissions = 0; // dispatches admitted as a strict prefix
  uint64_t admissionBlocks = 0;   // times chosen but blocked by admission
  uint64_t drainDispatches = 0;   // dispatches as an owner's admission stage

  friend bool operator==(const StageStatistics &,
                         const StageStatistics &) = default;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_ADMISSION_ADMISSION_H
