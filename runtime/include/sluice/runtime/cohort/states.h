//===- states.h - Cohort launch state machines ------------------*- C++ -*-===//
//
// The state machines of the doorbell rendezvous (DESIGN.md §2.3), as enums with
// a fixed layout and one pure function per transition. The executor applies
// them through compare-and-swap loops; tests drive them directly to script
// exact interleavings. The Promela model (runtime/cohort/model/cohort.pml) uses
// the same state names; the model step applying a transition carries the
// transition's name in a comment, e.g. `/* reserveRunningSlot */`.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_COHORT_STATES_H
#define SLUICE_RUNTIME_COHORT_STATES_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace sluice::runtime::cohort {

//===----------------------------------------------------------------------===//
// Block ranges: the one claim path.
//===----------------------------------------------------------------------===//

/// A half-open range of block indices [begin, end) of one task.
struct BlockRange {
  int64_t begin = 0;
  int64_t end = 0;
  constexpr int64_t size() const { return end - begin; }
  constexpr bool empty() const { return end <= begin; }
};

/// The range a claimer takes when the task's next unclaimed block is `next`:
/// at most `maxCount` blocks, never past `total`. Claims through one counter
/// therefore never overlap and, taken together, cover [0, total).
constexpr BlockRange nextClaim(int64_t next, int64_t total, int64_t maxCount) {
  if (next >= total || maxCount <= 0)
    return BlockRange{next, next};
  int64_t left = total - next;
  return BlockRange{next, next + (maxCount < left ? maxCount : left)};
}

//===----------------------------------------------------------------------===//
// Executor slots. Model: `SlotEmpty` ... `SlotOpen`, proctype Core.
//===----------------------------------------------------------------------===//

/// What one of a core's two slots holds.
enum class SlotState : uint8_t {
  Empty = 0,   ///< Nothing; may be filled.
  Filling = 1, ///< Reserved by a placer that is writing the payload.
  Normal = 2,  ///< A claimed range of a regular task; runs to completion.
  Gated = 3,   ///< A staged cohort block behind a closed doorbell.
  Open = 4,    ///< A cohort block whose doorbell rang; runs to completion.
};
static_assert(sizeof(SlotState) == 1);

/// Whether a running block in this state finishes without waiting on anyone.
constexpr bool finishesUnconditionally(SlotState state) {
  return state == SlotState::Normal || state == SlotState::Open;
}

/// The packed state of one core: two physical slots (buffers), which of them
/// is the running one, a tier-0 reservation flag and whether the core's thread
/// sleeps. Promotion flips `runningIndex`, so a payload never moves between
/// buffers.
struct CoreWord {
  uint32_t bits = 0;

  static constexpr uint32_t kStateMask = 0xF;
  static constexpr uint32_t kRunningIndexBit = 1u << 8;
  static constexpr uint32_t kReservedBit = 1u << 9;
  static constexpr uint32_t kAsleepBit = 1u << 10;

  constexpr SlotState slot(unsigned index) const {
    return static_cast<SlotState>((bits >> (4 * index)) & kStateMask);
  }
  constexpr unsigned runningIndex() const {
    return (bits & kRunningIndexBit) ? 1u : 0u;
  }
  constexpr unsigned pendingIndex() const { return 1u - runningIndex(); }
  constexpr SlotState running() const { return slot(runningIndex()); }
  constexpr SlotState pending() const { return slot(pendingIndex()); }
  constexpr bool reserved() const { return (bits & kReservedBit) != 0; }
  constexpr bool asleep() const { return (bits & kAsleepBit) != 0; }
  constexpr bool idle() const {
    return running() == SlotState::Empty && pending() == SlotState::Empty &&
           !reserved();
  }

  constexpr CoreWord withSlot(unsigned index, SlotState state) const {
    uint32_t shift = 4 * index;
    return CoreWord{(bits & ~(kStateMask << shift)) |
                    (static_cast<uint32_t>(state) << shift)};
  }
  constexpr CoreWord withRunningIndex(unsigned index) const {
    return CoreWord{index ? (bits | kRunningIndexBit)
                          : (bits & ~kRunningIndexBit)};
  }
  constexpr CoreWord withReserved(bool value) const {
    return CoreWord{value ? (bits | kReservedBit) : (bits & ~kReservedBit)};
  }
  constexpr CoreWord withAsleep(bool value) const {
    return CoreWord{value ? (bits | kAsleepBit) : (bits & ~kAsleepBit)};
  }
  friend constexpr bool operator==(CoreWord a, CoreWord b) {
    return a.bits == b.bits;
  }
};
static_assert(sizeof(CoreWord) == 4, "CoreWord lives in one atomic word");

/// The word as protocol errors print it: "0x" and its bits in hexadecimal.
inline std::string formatCoreWord(CoreWord word) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%x", unsigned(word.bits));
  return text;
}

/// Result of a slot transition: whether it applies, the new word, the physical
/// slot it concerns and whether a pending block became the running one.
struct SlotStep {
  bool ok = false;
  CoreWord next;
  unsigned slot = 0;
  bool promoted = false;
};

/// Take the running slot of an idle, unreserved core for filling. Requiring an
/// empty pending slot keeps "nothing waits behind a gated block".
/// Model: step `reserveRunningSlot`.
constexpr SlotStep reserveRunningSlot(CoreWord w) {
  if (!w.idle())
    return SlotStep{};
  unsigned slot = w.runningIndex();
  return SlotStep{true, w.withSlot(slot, SlotState::Filling), slot, false};
}

/// Take the pending slot for staging a cohort block. Allowed only behind a
/// running block that finishes unconditionally, so the staged block is
/// promoted eventually. Model: step `reservePendingSlot`.
constexpr SlotStep reservePendingSlot(CoreWord w) {
  if (w.reserved() || w.pending() != SlotState::Empty ||
      !finishesUnconditionally(w.running()))
    return SlotStep{};
  unsigned slot = w.pendingIndex();
  return SlotStep{true, w.withSlot(slot, SlotState::Filling), slot, false};
}

/// Publish a filled slot as `state` (Normal or Gated). A pending slot whose
/// running slot emptied meanwhile becomes the running slot at once.
/// Model: step `publishSlot`.
constexpr SlotStep publishSlot(CoreWord w, unsigned slot, SlotState state) {
  if (slot > 1 || w.slot(slot) != SlotState::Filling ||
      (state != SlotState::Normal && state != SlotState::Gated))
    return SlotStep{};
  CoreWord next = w.withSlot(slot, state);
  bool promoted = false;
  if (slot == w.pendingIndex() && w.running() == SlotState::Empty) {
    next = next.withRunningIndex(slot);
    promoted = true;
  }
  return SlotStep{true, next, slot, promoted};
}

/// Give a reserved-but-unused slot back. Model: step `rollbackSlot`.
constexpr SlotStep rollbackSlot(CoreWord w, unsigned slot) {
  if (slot > 1 || w.slot(slot) != SlotState::Filling)
    return SlotStep{};
  return SlotStep{true, w.withSlot(slot, SlotState::Empty), slot, false};
}

/// The running cohort block saw its doorbell ring. Model: step
/// `openRunningGate`.
constexpr SlotStep openRunningGate(CoreWord w) {
  if (w.running() != SlotState::Gated)
    return SlotStep{};
  unsigned slot = w.runningIndex();
  return SlotStep{true, w.withSlot(slot, SlotState::Open), slot, false};
}

/// The running block finished (or was cancelled). A published pending block is
/// promoted; a pending slot still being filled is promoted by its publisher.
/// Model: inline `finish_running`.
constexpr SlotStep finishRunningSlot(CoreWord w) {
  SlotState running = w.running();
  if (running != SlotState::Normal && running != SlotState::Open &&
      running != SlotState::Gated)
    return SlotStep{};
  unsigned slot = w.runningIndex();
  CoreWord next = w.withSlot(slot, SlotState::Empty);
  SlotState pending = w.pending();
  bool promoted = pending == SlotState::Normal || pending == SlotState::Gated;
  if (promoted)
    next = next.withRunningIndex(w.pendingIndex());
  return SlotStep{true, next, slot, promoted};
}

/// Reserve an idle, awake core for the tier-0 cohort: a reserved core never
/// sleeps, so the launch does not wait for a wake-up. A sleeping core reserves
/// itself once woken. Model: step `reserveCoreForCohort`.
constexpr SlotStep reserveCoreForCohort(CoreWord w) {
  if (!w.idle() || w.asleep())
    return SlotStep{};
  return SlotStep{true, w.withReserved(true), w.runningIndex(), false};
}

/// Place a tier-0 cohort block into a reserved core's running slot.
/// Model: step `launchIntoReservedCore`.
constexpr SlotStep launchIntoReservedCore(CoreWord w) {
  if (!w.reserved() || w.running() != SlotState::Empty ||
      w.pending() != SlotState::Empty)
    return SlotStep{};
  unsigned slot = w.runningIndex();
  return SlotStep{true, w.withReserved(false).withSlot(slot, SlotState::Gated),
                  slot, false};
}

/// An idle core's thread goes to sleep; excludes a tier-0 reservation.
/// Model: none (sleeping is the blocking of an idle core).
constexpr SlotStep beginSleep(CoreWord w) {
  if (!w.idle() || w.asleep())
    return SlotStep{};
  return SlotStep{true, w.withAsleep(true), w.runningIndex(), false};
}

/// The core's thread woke up.
constexpr SlotStep endSleep(CoreWord w) {
  if (!w.asleep())
    return SlotStep{};
  return SlotStep{true, w.withAsleep(false), w.runningIndex(), false};
}

/// Drop a tier-0 reservation (teardown). Model: none (abort is not modelled).
constexpr SlotStep releaseCoreReservation(CoreWord w) {
  if (!w.reserved())
    return SlotStep{};
  return SlotStep{true, w.withReserved(false), w.runningIndex(), false};
}

//===----------------------------------------------------------------------===//
// Launch latch. Model: `LatchNone`, `LatchRinging`, `LatchComplete`.
//===----------------------------------------------------------------------===//

/// Exactly one thread moves a cohort's latch out of None; it opens every
/// doorbell of the cohort and then marks the latch Complete.
enum class LaunchLatch : uint8_t { None = 0, Ringing = 1, Complete = 2 };
static_assert(sizeof(LaunchLatch) == 1);

/// The rendezvous condition: (a) every staged block sits in a running slot
/// and (b) every producer completed. Model: inline `try_ring`.
constexpr bool readyToRing(int32_t runningStaged, int32_t blocks,
                           int32_t producersRemaining) {
  return blocks > 0 && runningStaged == blocks && producersRemaining == 0;
}

struct LatchStep {
  bool ok = false;
  LaunchLatch next = LaunchLatch::None;
};

/// Would-be ringer: wins iff the latch is still None. Model: step `beginRing`
/// in `try_ring`.
constexpr LatchStep beginRing(LaunchLatch latch) {
  if (latch != LaunchLatch::None)
    return LatchStep{};
  return LatchStep{true, LaunchLatch::Ringing};
}

/// The winner has opened every doorbell. Model: step `completeRing` in
/// `try_ring`.
constexpr LatchStep completeRing(LaunchLatch latch) {
  if (latch != LaunchLatch::Ringing)
    return LatchStep{};
  return LatchStep{true, LaunchLatch::Complete};
}

//===----------------------------------------------------------------------===//
// Route word: one owner for the early path and the normal ready path.
// Model: `RouteOwner`, `RouteArmed`, `RouteReady`, `RouteComplete`.
//===----------------------------------------------------------------------===//

/// Bits of a cohort's route word. OWNER: the early path holds the task (from
/// taking the candidate until the record is reused, unless it cancels).
/// ARMED: the candidate was propagated. READY: every producer completed.
/// COMPLETE: the route is decided; no further enqueue happens.
enum RouteBits : uint8_t {
  RouteOwner = 1,
  RouteArmed = 2,
  RouteReady = 4,
  RouteComplete = 8,
};

/// What the caller of a route transition must do next.
enum class RouteAction : uint8_t {
  None = 0,             ///< Nothing to enqueue.
  EnqueueCandidate = 1, ///< Push onto the early-candidate queue.
  EnqueueNormal = 2,    ///< Push onto the tier-0 ready queue.
  Take = 3,             ///< The stager owns the task; stage it.
  Drop = 4,             ///< A stale candidate entry; forget it.
  RequeueCandidate = 5, ///< Staging failed before readiness; retry later.
  HandOverReady = 6,    ///< Staging failed after readiness; go normal path.
};
static_assert(sizeof(RouteAction) == 1);

struct RouteStep {
  uint8_t next = 0;
  RouteAction action = RouteAction::None;
};

/// Full publication of every producer reached: propagate the candidate unless
/// the normal path already owns the task. Model: step `armCandidate` in
/// `note_published`.
constexpr RouteStep armCandidate(uint8_t w) {
  if (w != 0)
    return RouteStep{w, RouteAction::None};
  return RouteStep{RouteArmed, RouteAction::EnqueueCandidate};
}

/// A stager pops the candidate. Only an armed, not yet ready, unowned task is
/// taken; anything else is a stale entry. Model: step `takeCandidate`.
constexpr RouteStep takeCandidate(uint8_t w) {
  if (w != RouteArmed)
    return RouteStep{w, RouteAction::Drop};
  return RouteStep{uint8_t(RouteArmed | RouteOwner), RouteAction::Take};
}

/// Every producer completed. Under OWNER the event is recorded and nothing is
/// enqueued; otherwise the normal path takes the task. Model: step `readyEvent`
/// in `on_ready`.
constexpr RouteStep readyEvent(uint8_t w) {
  if (w & RouteReady)
    return RouteStep{w, RouteAction::None};
  if (w & RouteOwner)
    return RouteStep{uint8_t(w | RouteReady), RouteAction::None};
  return RouteStep{uint8_t(w | RouteReady | RouteComplete),
                   RouteAction::EnqueueNormal};
}

/// All-or-nothing staging found too few slots. The owner lets go: a recorded
/// ready event is handed to the normal path, otherwise the candidate is
/// requeued. Model: step `cancelStaging` in `let_go`.
constexpr RouteStep cancelStaging(uint8_t w) {
  if (!(w & RouteOwner) || (w & RouteComplete))
    return RouteStep{w, RouteAction::None};
  if (w & RouteReady)
    return RouteStep{uint8_t(RouteArmed | RouteReady | RouteComplete),
                     RouteAction::HandOverReady};
  return RouteStep{RouteArmed, RouteAction::RequeueCandidate};
}

/// Every block is staged: the early route is final. Model: step
/// `finishStaging`.
constexpr RouteStep finishStaging(uint8_t w) {
  if (!(w & RouteOwner) || (w & RouteComplete))
    return RouteStep{w, RouteAction::None};
  return RouteStep{uint8_t(w | RouteComplete), RouteAction::None};
}

//===----------------------------------------------------------------------===//
// Doorbells.
//===----------------------------------------------------------------------===//

/// A doorbell word holds the token of the block's run and task once rung; the
/// cancel bit marks a ring that releases the block without running it.
constexpr uint64_t kDoorbellCancelBit = 1ull << 63;
constexpr uint64_t doorbellToken(uint32_t runGeneration, int32_t task) {
  return (uint64_t(runGeneration & 0x7FFFFFFFu) << 32) | uint32_t(task + 1);
}

enum class GateOutcome : uint8_t { Closed = 0, Run = 1, Cancelled = 2 };

/// How a gated block reads its doorbell value.
constexpr GateOutcome readDoorbell(uint64_t value, uint64_t token) {
  if (value == token)
    return GateOutcome::Run;
  if (value == (token | kDoorbellCancelBit))
    return GateOutcome::Cancelled;
  return GateOutcome::Closed;
}

} // namespace sluice::runtime::cohort

#endif // SLUICE_RUNTIME_COHORT_STATES_H
