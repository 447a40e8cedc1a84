//===- protocol.h - Atomic cells of the cohort protocol ---------*- C++ -*-===//
//
// Thin atomic wrappers that apply the pure transitions of states.h. The
// executor uses exactly these; tests call them one step at a time to script
// interleavings without threads.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_COHORT_PROTOCOL_H
#define SLUICE_RUNTIME_COHORT_PROTOCOL_H

#include "sluice/runtime/cohort/states.h"

#include <atomic>
#include <cstdint>

namespace sluice::runtime::cohort {

/// The one block-claim path: every claimer of a task goes through the task's
/// `next` counter, so claimed ranges never overlap and none is lost.
/// Model: step `claimBlockRange`.
inline BlockRange claimBlockRange(std::atomic<int64_t> &next, int64_t total,
                                  int64_t maxCount) {
  int64_t current = next.load(std::memory_order_relaxed);
  for (;;) {
    BlockRange range = nextClaim(current, total, maxCount);
    if (range.empty())
      return range;
    if (next.compare_exchange_weak(current, range.end,
                                   std::memory_order_acq_rel,
                                   std::memory_order_relaxed))
      return range;
  }
}

/// Applies a slot transition to a core word by compare-and-swap; returns the
/// step (ok == false when the transition does not apply to the current word,
/// which `next` then holds, for the protocol error that reports it).
template <typename Transition>
SlotStep applySlotStep(std::atomic<uint32_t> &word, Transition transition) {
  uint32_t current = word.load(std::memory_order_acquire);
  for (;;) {
    SlotStep step = transition(CoreWord{current});
    if (!step.ok) {
      step.next = CoreWord{current};
      return step;
    }
    if (word.compare_exchange_weak(current, step.next.bits,
                                   std::memory_order_acq_rel,
                                   std::memory_order_acquire))
      return step;
  }
}

/// Applies a route transition by compare-and-swap and returns its action.
template <typename Transition>
RouteStep applyRouteStep(std::atomic<uint8_t> &word, Transition transition) {
  uint8_t current = word.load(std::memory_order_acquire);
  for (;;) {
    RouteStep step = transition(current);
    if (step.next == current)
      return step;
    if (word.compare_exchange_weak(current, step.next,
                                   std::memory_order_acq_rel,
                                   std::memory_order_acquire))
      return step;
  }
}

/// The rendezvous of one cohort. The two conditions are counted in separate
/// words; every update is sequentially consistent and followed by `observe`,
/// so whoever makes the last update sees both conditions hold (possibly
/// together with another thread) and the latch picks one ringer.
struct Rendezvous {
  std::atomic<int32_t> runningStaged{0};
  std::atomic<int32_t> producersRemaining{0};
  std::atomic<uint8_t> latch{0};

  void reset(int32_t producers) {
    runningStaged.store(0, std::memory_order_relaxed);
    producersRemaining.store(producers, std::memory_order_relaxed);
    latch.store(uint8_t(LaunchLatch::None), std::memory_order_relaxed);
  }
  /// `count` staged blocks now sit in running slots. Model:
  /// `runningStaged[k]++`.
  void addRunning(int32_t count) {
    runningStaged.fetch_add(count, std::memory_order_seq_cst);
  }
  /// One producer completed; returns how many remain. Model: step
  /// `producerDone` in `finish_block`.
  int32_t producerDone() {
    return producersRemaining.fetch_sub(1, std::memory_order_seq_cst) - 1;
  }
  /// Both conditions as seen now. Model: the two loads of `try_ring`.
  bool observe(int32_t blocks) const {
    return readyToRing(runningStaged.load(std::memory_order_seq_cst), blocks,
                       producersRemaining.load(std::memory_order_seq_cst));
  }
  /// Would-be ringer; true for exactly one caller. Model: step `beginRing` in
  /// `try_ring`.
  bool tryBeginRing() {
    uint8_t expected = uint8_t(LaunchLatch::None);
    LatchStep step = beginRing(LaunchLatch::None);
    return latch.compare_exchange_strong(expected, uint8_t(step.next),
                                         std::memory_order_acq_rel,
                                         std::memory_order_acquire);
  }
  /// The ringer opened every doorbell. Model: step `completeRing` in
  /// `try_ring`.
  void completeRing() {
    latch.store(uint8_t(cohort::completeRing(LaunchLatch::Ringing).next),
                std::memory_order_release);
  }
  LaunchLatch latchState() const {
    return static_cast<LaunchLatch>(latch.load(std::memory_order_acquire));
  }
};

} // namespace sluice::runtime::cohort

#endif // SLUICE_RUNTIME_COHORT_PROTOCOL_H
