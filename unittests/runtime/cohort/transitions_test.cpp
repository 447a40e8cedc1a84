//===- transitions_test.cpp - Cohort state machines without threads -------===//
//
// Drives the pure transitions of states.h and the atomic cells of protocol.h
// through exact interleavings, composed the way runtime/cohort/dispatch.cpp and
// completion.cpp compose them.
//
//===----------------------------------------------------------------------===//
#include "sluice/runtime/cohort/protocol.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace sluice::runtime::cohort;

namespace {

CoreWord word(SlotState slot0, SlotState slot1, unsigned runningIndex = 0,
              bool reserved = false) {
  return CoreWord{}
      .withSlot(0, slot0)
      .withSlot(1, slot1)
      .withRunningIndex(runningIndex)
      .withReserved(reserved);
}

//===----------------------------------------------------------------------===//
// Claims.
//===----------------------------------------------------------------------===//

TEST(cohortClaims, NextClaimClosedForm) {
  for (int64_t total = 0; total <= 9; ++total)
    for (int64_t max = 1; max <= 4; ++max)
      for (int64_t next = 0; next <= total + 1; ++next) {
        BlockRange range = nextClaim(next, total, max);
        EXPECT_EQ(range.begin, next);
        EXPECT_EQ(range.size(),
                  std::max<int64_t>(0, std::min(max, total - next)));
      }
  EXPECT_TRUE(nextClaim(0, 5, 0).empty());
}

TEST(cohortClaims, ConcurrentClaimsCoverEveryBlockOnce) {
  constexpr int64_t kTotal = 20000;
  std::atomic<int64_t> next{0};
  std::vector<std::atomic<int32_t>> hits(kTotal);
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (;;) {
        BlockRange range = claimBlockRange(next, kTotal, 1 + t);
        if (range.empty())
          return;
        for (int64_t block = range.begin; block < range.end; ++block)
          hits[block].fetch_add(1);
      }
    });
  for (auto &thread : threads)
    thread.join();
  for (int64_t block = 0; block < kTotal; ++block)
    ASSERT_EQ(hits[block].load(), 1) << "block " << block;
  EXPECT_EQ(next.load(), kTotal);
}

//===----------------------------------------------------------------------===//
// Slots.
//===----------------------------------------------------------------------===//

TEST(cohortSlots, LayoutIsPacked) {
  CoreWord w = word(SlotState::Gated, SlotState::Open, 1, true);
  EXPECT_EQ(w.bits, 0x3u | (0x4u << 4) | (1u << 8) | (1u << 9));
  EXPECT_EQ(w.running(), SlotState::Open);
  EXPECT_EQ(w.pending(), SlotState::Gated);
  EXPECT_TRUE(w.reserved());
}

// Protocol errors print a core word in hexadecimal: running index bit 8,
// reserved bit 9, asleep bit 10, slot i in bits 4i..4i+3.
TEST(cohortSlots, ProtocolErrorsPrintTheWordInHex) {
  EXPECT_EQ(formatCoreWord(CoreWord{}), "0x0");
  EXPECT_EQ(formatCoreWord(word(SlotState::Normal, SlotState::Gated, 1, true)),
            "0x332");
  EXPECT_EQ(formatCoreWord(word(SlotState::Open, SlotState::Empty)
                               .withAsleep(true)),
            "0x404");
  EXPECT_EQ(formatCoreWord(CoreWord{0xdeadbeefu}), "0xdeadbeef");
}

// A refused step reports the word it refused, not an empty one.
TEST(cohortSlots, RefusedStepHoldsTheRefusedWord) {
  const CoreWord filling = word(SlotState::Filling, SlotState::Normal);
  std::atomic<uint32_t> cell{filling.bits};
  SlotStep step = applySlotStep(cell, finishRunningSlot);
  EXPECT_FALSE(step.ok);
  EXPECT_EQ(step.next, filling);
  EXPECT_EQ(formatCoreWord(step.next), "0x21");
  EXPECT_EQ(cell.load(), filling.bits);
}

TEST(cohortSlots, RunningSlotOnlyOnIdleUnreservedCores) {
  EXPECT_TRUE(reserveRunningSlot(word(SlotState::Empty, SlotState::Empty)).ok);
  SlotStep step =
      reserveRunningSlot(word(SlotState::Empty, SlotState::Empty, 1));
  ASSERT_TRUE(step.ok);
  EXPECT_EQ(step.slot, 1u);
  EXPECT_EQ(step.next.running(), SlotState::Filling);
  EXPECT_FALSE(
      reserveRunningSlot(word(SlotState::Empty, SlotState::Empty, 0, true)).ok);
  EXPECT_FALSE(
      reserveRunningSlot(word(SlotState::Empty, SlotState::Filling, 0)).ok);
  EXPECT_FALSE(
      reserveRunningSlot(word(SlotState::Normal, SlotState::Empty)).ok);
}

TEST(cohortSlots, PendingOnlyBehindBlocksThatFinishUnconditionally) {
  for (SlotState running :
       {SlotState::Empty, SlotState::Filling, SlotState::Normal,
        SlotState::Gated, SlotState::Open}) {
    SlotStep step = reservePendingSlot(word(running, SlotState::Empty));
    bool expected = running == SlotState::Normal || running == SlotState::Open;
    EXPECT_EQ(step.ok, expected) << int(running);
    if (step.ok) {
      EXPECT_EQ(step.slot, 1u);
      EXPECT_EQ(step.next.pending(), SlotState::Filling);
    }
  }
  EXPECT_FALSE(
      reservePendingSlot(word(SlotState::Normal, SlotState::Gated)).ok);
  EXPECT_FALSE(
      reservePendingSlot(word(SlotState::Normal, SlotState::Empty, 0, true))
          .ok);
}

TEST(cohortSlots, PublishPromotesWhenTheRunningSlotEmptied) {
  // Pending filled behind a running block that finished meanwhile.
  CoreWord w = word(SlotState::Empty, SlotState::Filling, 0);
  SlotStep step = publishSlot(w, 1, SlotState::Gated);
  ASSERT_TRUE(step.ok);
  EXPECT_TRUE(step.promoted);
  EXPECT_EQ(step.next.runningIndex(), 1u);
  EXPECT_EQ(step.next.running(), SlotState::Gated);
  // Still behind a running block: stays pending.
  step = publishSlot(word(SlotState::Normal, SlotState::Filling), 1,
                     SlotState::Gated);
  ASSERT_TRUE(step.ok);
  EXPECT_FALSE(step.promoted);
  EXPECT_EQ(step.next.pending(), SlotState::Gated);
  EXPECT_FALSE(
      publishSlot(word(SlotState::Empty, SlotState::Empty), 0, SlotState::Gated)
          .ok);
  EXPECT_FALSE(publishSlot(word(SlotState::Filling, SlotState::Empty), 0,
                           SlotState::Open)
                   .ok);
}

TEST(cohortSlots, FinishPromotesPublishedPendingOnly) {
  SlotStep step = finishRunningSlot(word(SlotState::Normal, SlotState::Gated));
  ASSERT_TRUE(step.ok);
  EXPECT_TRUE(step.promoted);
  EXPECT_EQ(step.next, word(SlotState::Empty, SlotState::Gated, 1));
  step = finishRunningSlot(word(SlotState::Open, SlotState::Filling));
  ASSERT_TRUE(step.ok);
  EXPECT_FALSE(step.promoted);
  EXPECT_EQ(step.next, word(SlotState::Empty, SlotState::Filling, 0));
  step = finishRunningSlot(word(SlotState::Empty, SlotState::Normal, 1));
  ASSERT_TRUE(step.ok);
  EXPECT_EQ(step.next, word(SlotState::Empty, SlotState::Empty, 1));
  EXPECT_FALSE(finishRunningSlot(word(SlotState::Empty, SlotState::Empty)).ok);
  EXPECT_FALSE(
      finishRunningSlot(word(SlotState::Filling, SlotState::Empty)).ok);
}

TEST(cohortSlots, Tier0ReservationAndLaunch) {
  SlotStep reserved = reserveCoreForCohort(CoreWord{});
  ASSERT_TRUE(reserved.ok);
  EXPECT_FALSE(reserveRunningSlot(reserved.next).ok);
  EXPECT_FALSE(reservePendingSlot(reserved.next).ok);
  EXPECT_FALSE(reserveCoreForCohort(reserved.next).ok);
  SlotStep launched = launchIntoReservedCore(reserved.next);
  ASSERT_TRUE(launched.ok);
  EXPECT_FALSE(launched.next.reserved());
  EXPECT_EQ(launched.next.running(), SlotState::Gated);
  EXPECT_FALSE(launchIntoReservedCore(CoreWord{}).ok);
  EXPECT_TRUE(releaseCoreReservation(reserved.next).ok);
  EXPECT_EQ(releaseCoreReservation(reserved.next).next, CoreWord{});
}

TEST(cohortSlots, SleepingCoresAreNeverReserved) {
  SlotStep asleep = beginSleep(CoreWord{});
  ASSERT_TRUE(asleep.ok);
  EXPECT_TRUE(asleep.next.asleep());
  EXPECT_FALSE(reserveCoreForCohort(asleep.next).ok);
  // Staging may still fill a sleeping core; the stager wakes it.
  EXPECT_TRUE(reserveRunningSlot(asleep.next).ok);
  EXPECT_FALSE(beginSleep(asleep.next).ok);
  EXPECT_EQ(endSleep(asleep.next).next, CoreWord{});
  // A reserved or busy core does not go to sleep.
  EXPECT_FALSE(beginSleep(reserveCoreForCohort(CoreWord{}).next).ok);
  EXPECT_FALSE(beginSleep(word(SlotState::Normal, SlotState::Empty)).ok);
}

TEST(cohortSlots, GateOpensOnlyFromGated) {
  SlotStep step = openRunningGate(word(SlotState::Empty, SlotState::Gated, 1));
  ASSERT_TRUE(step.ok);
  EXPECT_EQ(step.next.running(), SlotState::Open);
  EXPECT_FALSE(openRunningGate(word(SlotState::Normal, SlotState::Empty)).ok);
}

//===----------------------------------------------------------------------===//
// Latch and doorbells.
//===----------------------------------------------------------------------===//

TEST(cohortLatch, NoneRingingComplete) {
  EXPECT_TRUE(beginRing(LaunchLatch::None).ok);
  EXPECT_EQ(beginRing(LaunchLatch::None).next, LaunchLatch::Ringing);
  EXPECT_FALSE(beginRing(LaunchLatch::Ringing).ok);
  EXPECT_FALSE(beginRing(LaunchLatch::Complete).ok);
  EXPECT_EQ(completeRing(LaunchLatch::Ringing).next, LaunchLatch::Complete);
  EXPECT_FALSE(completeRing(LaunchLatch::None).ok);
  EXPECT_TRUE(readyToRing(3, 3, 0));
  EXPECT_FALSE(readyToRing(2, 3, 0));
  EXPECT_FALSE(readyToRing(3, 3, 1));
  EXPECT_FALSE(readyToRing(0, 0, 0));
}

TEST(cohortLatch, DoorbellTokens) {
  uint64_t token = doorbellToken(7, 4);
  EXPECT_EQ(token, (uint64_t(7) << 32) | 5u);
  EXPECT_EQ(readDoorbell(0, token), GateOutcome::Closed);
  EXPECT_EQ(readDoorbell(token, token), GateOutcome::Run);
  EXPECT_EQ(readDoorbell(token | kDoorbellCancelBit, token),
            GateOutcome::Cancelled);
  // A token of another run or task never opens the gate.
  EXPECT_EQ(readDoorbell(doorbellToken(6, 4), token), GateOutcome::Closed);
  EXPECT_EQ(readDoorbell(doorbellToken(7, 3), token), GateOutcome::Closed);
}

TEST(cohortLatch, TwoWouldBeRingersOneWinner) {
  // A promotes the last staged block while B completes the last producer;
  // both observe the full condition and both try the latch.
  for (int winner = 0; winner < 2; ++winner) {
    Rendezvous rendezvous;
    rendezvous.reset(1);
    rendezvous.addRunning(1);                // block 0 already running
    rendezvous.addRunning(1);                // A: block 1 promoted
    EXPECT_EQ(rendezvous.producerDone(), 0); // B
    EXPECT_TRUE(rendezvous.observe(2));      // A
    EXPECT_TRUE(rendezvous.observe(2));      // B
    bool first = rendezvous.tryBeginRing();
    bool second = rendezvous.tryBeginRing();
    EXPECT_TRUE(first);
    EXPECT_FALSE(second);
    EXPECT_EQ(rendezvous.latchState(), LaunchLatch::Ringing);
    rendezvous.completeRing();
    EXPECT_EQ(rendezvous.latchState(), LaunchLatch::Complete);
    EXPECT_FALSE(rendezvous.tryBeginRing());
  }
}

TEST(cohortLatch, ThreadedRingersExactlyOneWins) {
  for (int round = 0; round < 200; ++round) {
    Rendezvous rendezvous;
    rendezvous.reset(1);
    rendezvous.addRunning(2);
    std::atomic<int> wins{0};
    std::atomic<bool> go{false};
    auto ringer = [&](bool producer) {
      while (!go.load())
        std::this_thread::yield();
      if (producer)
        rendezvous.producerDone();
      else
        rendezvous.addRunning(1);
      if (rendezvous.observe(3) && rendezvous.tryBeginRing())
        wins.fetch_add(1);
    };
    std::thread a(ringer, true), b(ringer, false);
    go.store(true);
    a.join();
    b.join();
    EXPECT_EQ(wins.load(), 1) << "round " << round;
  }
}

//===----------------------------------------------------------------------===//
// Route word.
//===----------------------------------------------------------------------===//

struct RouteLog {
  std::atomic<uint8_t> word{0};
  int normalEnqueues = 0;
  int candidateEnqueues = 0;
  int staged = 0;

  void arm() {
    if (applyRouteStep(word, armCandidate).action ==
        RouteAction::EnqueueCandidate)
      ++candidateEnqueues;
  }
  bool take() {
    return applyRouteStep(word, takeCandidate).action == RouteAction::Take;
  }
  void ready() {
    if (applyRouteStep(word, readyEvent).action == RouteAction::EnqueueNormal)
      ++normalEnqueues;
  }
  void cancel() {
    RouteAction action = applyRouteStep(word, cancelStaging).action;
    if (action == RouteAction::RequeueCandidate)
      ++candidateEnqueues;
    if (action == RouteAction::HandOverReady)
      ++normalEnqueues;
  }
  void finish() {
    applyRouteStep(word, finishStaging);
    ++staged;
  }
};

TEST(cohortRoute, ReadyEventUnderOwnerEnqueuesNothing) {
  RouteLog log;
  log.arm();
  ASSERT_TRUE(log.take());
  log.ready();
  EXPECT_EQ(log.normalEnqueues, 0);
  log.finish();
  EXPECT_EQ(log.word.load(),
            RouteOwner | RouteArmed | RouteReady | RouteComplete);
  EXPECT_EQ(log.normalEnqueues + log.staged, 1);
}

TEST(cohortRoute, CancellationAfterReadyHandsTheEventOver) {
  RouteLog log;
  log.arm();
  ASSERT_TRUE(log.take());
  log.ready();  // recorded only
  log.cancel(); // staging failed: hand over
  EXPECT_EQ(log.normalEnqueues, 1);
  EXPECT_EQ(log.word.load() & RouteOwner, 0);
  // The queued candidate entry (if any) is stale now.
  EXPECT_FALSE(log.take());
  log.ready();
  EXPECT_EQ(log.normalEnqueues, 1);
}

TEST(cohortRoute, CancellationBeforeReadyRequeuesThenReadyWins) {
  RouteLog log;
  log.arm();
  ASSERT_TRUE(log.take());
  log.cancel(); // requeue
  EXPECT_EQ(log.candidateEnqueues, 2);
  EXPECT_EQ(log.normalEnqueues, 0);
  log.ready(); // nobody owns: normal path
  EXPECT_EQ(log.normalEnqueues, 1);
  EXPECT_FALSE(log.take()); // the requeued entry is dropped
  EXPECT_EQ(log.staged, 0);
}

TEST(cohortRoute, CancellationBeforeReadyRequeuesThenStagingWins) {
  RouteLog log;
  log.arm();
  ASSERT_TRUE(log.take());
  log.cancel();
  ASSERT_TRUE(log.take());
  log.finish();
  log.ready();
  EXPECT_EQ(log.normalEnqueues, 0);
  EXPECT_EQ(log.staged, 1);
}

TEST(cohortRoute, ReadyBeforeArmOrTakeGoesNormal) {
  RouteLog early;
  early.ready();
  early.arm();
  EXPECT_EQ(early.candidateEnqueues, 0);
  EXPECT_EQ(early.normalEnqueues, 1);
  RouteLog armed;
  armed.arm();
  armed.ready();
  EXPECT_FALSE(armed.take());
  EXPECT_EQ(armed.normalEnqueues, 1);
}

TEST(cohortRoute, EveryInterleavingHasExactlyOneRoute) {
  // The stager takes the candidate and either finishes staging, or cancels,
  // retakes and finishes. The ready event lands before any of its steps or
  // after all of them. Exactly one of (staged, normal enqueue) happens.
  for (bool cancelFirst : {false, true}) {
    const int steps = cancelFirst ? 4 : 2;
    for (int readyAt = 0; readyAt <= steps; ++readyAt) {
      RouteLog log;
      log.arm();
      std::vector<std::function<bool()>> stager;
      stager.push_back([&] { return log.take(); });
      if (cancelFirst) {
        stager.push_back([&] {
          log.cancel();
          return true;
        });
        stager.push_back([&] { return log.take(); });
      }
      stager.push_back([&] {
        log.finish();
        return true;
      });
      bool readyDone = false;
      for (int i = 0; i < steps; ++i) {
        if (i == readyAt) {
          log.ready();
          readyDone = true;
        }
        if (!stager[i]())
          break;
      }
      if (!readyDone)
        log.ready();
      EXPECT_EQ(log.staged + log.normalEnqueues, 1)
          << "cancelFirst " << cancelFirst << " readyAt " << readyAt;
      EXPECT_LE(log.normalEnqueues, 1);
    }
  }
}

//===----------------------------------------------------------------------===//
// The rendezvous, scripted: producer completion, last staging, promotion.
//===----------------------------------------------------------------------===//

/// A cohort of 2 blocks with one producer on 2 cores. Block 0 goes into
/// core 0's free running slot; block 1 into core 1's pending slot behind a
/// regular running block. Each event is an update followed by an observe,
/// as in dispatch.cpp / completion.cpp.
struct RendezvousScene {
  std::atomic<uint32_t> cores[2];
  Rendezvous rendezvous;
  int rings = 0;
  bool allRunningAtRing = false;

  RendezvousScene() {
    rendezvous.reset(1);
    // Stager reserved both slots (all-or-nothing, before the events).
    cores[0].store(word(SlotState::Filling, SlotState::Empty).bits);
    cores[1].store(word(SlotState::Normal, SlotState::Filling).bits);
  }
  void maybeRing() {
    if (rendezvous.observe(2) && rendezvous.tryBeginRing()) {
      ++rings;
      allRunningAtRing =
          CoreWord{cores[0].load()}.running() == SlotState::Gated &&
          CoreWord{cores[1].load()}.running() == SlotState::Gated;
      rendezvous.completeRing();
    }
  }
  // Event S: the stager publishes both blocks and counts those in running.
  void stagingUpdate() {
    int inRunning = 0;
    for (int core = 0; core < 2; ++core) {
      unsigned slot = core == 0 ? 0 : 1;
      SlotStep step = applySlotStep(cores[core], [&](CoreWord w) {
        return publishSlot(w, slot, SlotState::Gated);
      });
      ASSERT_TRUE(step.ok);
      inRunning += step.next.runningIndex() == slot;
    }
    rendezvous.addRunning(inRunning);
  }
  // Event R: core 1's regular block finishes; a published pending block is
  // promoted and counted by the core.
  bool promoted = false;
  void promotionUpdate() {
    SlotStep step = applySlotStep(cores[1], finishRunningSlot);
    ASSERT_TRUE(step.ok);
    promoted = step.promoted && step.next.running() == SlotState::Gated;
    if (promoted)
      rendezvous.addRunning(1);
  }
  void promotionObserve() {
    if (promoted)
      maybeRing();
  }
  // Event P: the producer completes.
  void producerUpdate() { rendezvous.producerDone(); }
};

TEST(cohortRendezvous, EveryOrderOfCompletionStagingAndPromotionRingsOnce) {
  // Three events (S, R, P), each two half-steps; all 90 interleavings.
  std::vector<int> sequence = {0, 0, 1, 1, 2, 2};
  int interleavings = 0;
  do {
    RendezvousScene scene;
    int half[3] = {0, 0, 0};
    for (int event : sequence) {
      int phase = half[event]++;
      switch (event) {
      case 0:
        if (phase == 0)
          scene.stagingUpdate();
        else
          scene.maybeRing();
        break;
      case 1:
        if (phase == 0)
          scene.promotionUpdate();
        else
          scene.promotionObserve();
        break;
      case 2:
        if (phase == 0)
          scene.producerUpdate();
        else
          scene.maybeRing();
        break;
      }
    }
    std::string order;
    for (int event : sequence)
      order += "SRP"[event];
    EXPECT_EQ(scene.rings, 1) << order;
    EXPECT_TRUE(scene.allRunningAtRing) << order;
    EXPECT_EQ(scene.rendezvous.runningStaged.load(), 2) << order;
    ++interleavings;
  } while (std::next_permutation(sequence.begin(), sequence.end()));
  EXPECT_EQ(interleavings, 90);
}

TEST(cohortRendezvous, NoRingWhileAConditionIsMissing) {
  RendezvousScene scene;
  scene.stagingUpdate();
  scene.maybeRing();
  scene.producerUpdate();
  scene.maybeRing(); // block 1 still pending
  EXPECT_EQ(scene.rings, 0);
  scene.promotionUpdate();
  scene.promotionObserve();
  EXPECT_EQ(scene.rings, 1);
}

} // namespace
