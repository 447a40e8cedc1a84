//===- dispatch.cpp - The core loop: claims, staging, tier-0, gates -------===//
//
// Every core runs workerMain. A pass (step) first runs whatever sits in its
// running slot (staging queued early candidates before a regular block), then,
// when idle, in priority order: helps launch the tier-0 cohort, stages an early
// candidate, claims blocks of a regular task. Placement decisions that
// touch other cores' slots (staging, tier-0) take the placement mutex with
// try_lock, so no core ever blocks on another's placement.
//
//===----------------------------------------------------------------------===//
#include "executor_impl.h"

#include <exception>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace sluice::runtime::cohort {

namespace {
inline void cpuPause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
} // namespace

void Executor::Impl::relax(int32_t round) const {
  if (policy_ == SpinPolicy::Pure || round < 8)
    cpuPause();
  else
    std::this_thread::yield();
}

void Executor::Impl::idleBackoff(int32_t core, int32_t &failedPolls,
                                 uint32_t seenEpoch) {
  if (++failedPolls < config_.idleSpinRounds) {
    relax(failedPolls);
    return;
  }
  failedPolls = 0;
  // Sleep until any event after `seenEpoch`; bumpEpoch pairs with this. The
  // asleep bit keeps tier-0 launches from reserving a sleeping core.
  std::atomic<uint32_t> &word = coreRecords_[core].word;
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  if (epoch_.load(std::memory_order_seq_cst) == seenEpoch &&
      !stop_.load(std::memory_order_seq_cst) &&
      applySlotStep(word, beginSleep).ok) {
    epoch_.wait(seenEpoch, std::memory_order_seq_cst);
    applySlotStep(word, endSleep);
  }
  sleepers_.fetch_sub(1, std::memory_order_seq_cst);
}

void Executor::Impl::workerMain(int32_t core) {
  CoreRecord &record = coreRecords_[core];
  int32_t failedPolls = 0;
  for (;;) {
    uint32_t seenEpoch = epoch_.load(std::memory_order_seq_cst);
    if (stop_.load(std::memory_order_acquire))
      return;
    // Hazard flag: run() clears run_ and then waits for every core to be
    // outside a pass before it frees the run.
    record.active.store(1, std::memory_order_seq_cst);
    RunState *run = run_.load(std::memory_order_seq_cst);
    int outcome = run ? step(*run, core) : 0;
    record.active.store(0, std::memory_order_release);
    if (!run) {
      // Between runs, cores sleep: the submitting thread needs the hardware.
      failedPolls = config_.idleSpinRounds;
      idleBackoff(core, failedPolls, seenEpoch);
    } else if (outcome > 0) {
      failedPolls = 0;
    } else if (outcome < 0) {
      relax(failedPolls + 8);
    } else {
      idleBackoff(core, failedPolls, seenEpoch);
    }
  }
}

int Executor::Impl::step(RunState &run, int32_t core) {
  CoreRecord &record = coreRecords_[core];
  CoreWord word{record.word.load(std::memory_order_acquire)};
  SlotState running = word.running();
  if (running == SlotState::Normal || running == SlotState::Gated) {
    // A core about to run a regular block stages queued candidates first:
    // the core that publishes a producer's last block arms its consumers, and
    // staging must not wait until some core goes idle.
    if (running == SlotState::Normal && run.early.maybeNonEmpty() &&
        !run.aborting.load(std::memory_order_relaxed))
      tryStageEarly(run);
    executeRunning(run, core, word);
    return 1;
  }
  if (run.aborting.load(std::memory_order_acquire)) {
    if (word.reserved()) {
      SlotStep released = applySlotStep(record.word, releaseCoreReservation);
      if (released.ok)
        run.occupiedSlots.fetch_sub(1, std::memory_order_acq_rel);
      return released.ok ? 1 : -1;
    }
    return 0;
  }
  // A placer is filling one of our slots; it publishes (and wakes us) soon.
  // A core reserved for the tier-0 cohort takes no other work and stays awake
  // until the launch, so the cohort starts without waiting for a wake-up.
  if (running != SlotState::Empty || word.pending() != SlotState::Empty ||
      word.reserved())
    return -1;

  if (run.tier0.maybeNonEmpty()) {
    int outcome = tryTier0(run, core);
    if (outcome != 0)
      return outcome;
  }
  if (run.early.maybeNonEmpty()) {
    int outcome = tryStageEarly(run);
    if (outcome != 0)
      return outcome;
  }
  return tryClaimRegular(run, core) ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// Running a slot.
//===----------------------------------------------------------------------===//

void Executor::Impl::executeRunning(RunState &run, int32_t core,
                                    CoreWord word) {
  CoreRecord &record = coreRecords_[core];
  const unsigned slot = word.runningIndex();
  const SlotPayload payload = record.payload[slot];
  const ValidatedGraph::Task &task = run.graph.tasks[payload.task];
  TaskRecord &taskRecord = run.tasks[payload.task];

  bool runBlocks = true;
  if (word.running() == SlotState::Gated) {
    GateOutcome outcome = waitAtGate(run, core, slot, payload.task);
    if (outcome == GateOutcome::Run) {
      if (!applySlotStep(record.word, openRunningGate).ok)
        protocolError(run, "core " + std::to_string(core) +
                               " lost its gated block " +
                               std::to_string(payload.begin) + " of task '" +
                               task.name + "' while the doorbell rang");
      taskRecord.gatesPassed.fetch_add(1, std::memory_order_relaxed);
    } else {
      runBlocks = false;
    }
  }

  if (runBlocks) {
    BlockContext context{this, &run, payload.task, payload.begin};
    BlockContext *&current = currentBlockContext();
    current = &context;
    for (int64_t block = payload.begin; block < payload.end; ++block) {
      context.block = block;
      try {
        task.kernel(task.user, block, task.blocks);
      } catch (const std::exception &error) {
        recordFailure(run, payload.task, block,
                      std::string("exception: ") + error.what());
      } catch (...) {
        recordFailure(run, payload.task, block, "unknown exception");
      }
    }
    current = nullptr;
  }

  // Free the slot first so the core is placeable while completion fans out.
  SlotStep finished = applySlotStep(record.word, finishRunningSlot);
  if (!finished.ok)
    protocolError(run, "core " + std::to_string(core) +
                           " cannot finish its running slot (word " +
                           formatCoreWord(finished.next) + ")");
  run.occupiedSlots.fetch_sub(1, std::memory_order_acq_rel);
  if (finished.promoted && finished.next.running() == SlotState::Gated) {
    int32_t promoted = record.payload[finished.next.runningIndex()].task;
    run.tasks[promoted].rendezvous.addRunning(1);
    maybeRing(run, promoted);
  }
  // Completion first: it is on the critical path of a producer's consumers.
  if (runBlocks)
    finishBlocks(run, payload.task, payload.end - payload.begin);
  bumpEpoch();
}

GateOutcome Executor::Impl::waitAtGate(RunState &run, int32_t core,
                                       unsigned slot, int32_t task) {
  std::atomic<uint64_t> &bell = coreRecords_[core].doorbell[slot];
  const uint64_t token = doorbellToken(run.generation, task);
  Rendezvous &rendezvous = run.tasks[task].rendezvous;
  for (int32_t round = 0;; ++round) {
    GateOutcome outcome =
        readDoorbell(bell.load(std::memory_order_acquire), token);
    if (outcome != GateOutcome::Closed)
      return outcome;
    // Teardown exit: an aborting run releases the cohort by a cancel ring.
    // A ring already in progress (latch not None) still arrives.
    if (run.aborting.load(std::memory_order_acquire) &&
        rendezvous.latchState() == LaunchLatch::None &&
        rendezvous.tryBeginRing())
      ring(run, task, /*cancel=*/true);
    relax(round);
  }
}

//===----------------------------------------------------------------------===//
// Placement: tier-0 launch and early staging.
//===----------------------------------------------------------------------===//

void Executor::Impl::claimWholeCohort(RunState &run, int32_t task,
                                      int32_t blocks, const char *when) {
  BlockRange range =
      claimBlockRange(run.tasks[task].nextBlock, blocks, blocks);
  if (range.begin != 0 || range.end != blocks)
    protocolError(run, "cohort '" + run.graph.tasks[task].name +
                           "' claimed blocks [" + std::to_string(range.begin) +
                           ", " + std::to_string(range.end) + ") at " + when +
                           " instead of all " + std::to_string(blocks));
}

int Executor::Impl::tryTier0(RunState &run, int32_t self) {
  std::unique_lock<std::mutex> lock(placementMutex_, std::try_to_lock);
  if (!lock.owns_lock())
    return -1;
  int32_t headIndex = 0;
  int32_t task = run.tier0.peek(&headIndex);
  if (task < 0 || run.aborting.load(std::memory_order_acquire))
    return 0;
  const int32_t blocks = static_cast<int32_t>(run.graph.tasks[task].blocks);
  std::vector<int32_t> &reserved = run.tier0Reserved;

  // Reserve this core and every other idle, awake one until the cohort fits.
  // Reserved cores stay awake and take no other work.
  bool progressed = false;
  for (int32_t i = 0;
       i < coreCount_ && static_cast<int32_t>(reserved.size()) < blocks; ++i) {
    int32_t core = (self + i) % coreCount_;
    run.occupiedSlots.fetch_add(1, std::memory_order_seq_cst);
    if (applySlotStep(coreRecords_[core].word, reserveCoreForCohort).ok) {
      reserved.push_back(core);
      progressed = true;
    } else {
      run.occupiedSlots.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
  // Checked after the reservations are counted, so a drain never misses them.
  if (run.aborting.load(std::memory_order_seq_cst) ||
      static_cast<int32_t>(reserved.size()) < blocks)
    return progressed ? 1 : 0;

  TaskRecord &record = run.tasks[task];
  claimWholeCohort(run, task, blocks, "launch");
  SlotRef *staged = &run.stagedSlots[run.stagedOffset[task]];
  for (int32_t block = 0; block < blocks; ++block) {
    int32_t core = reserved[block];
    CoreWord word{coreRecords_[core].word.load(std::memory_order_acquire)};
    unsigned slot = word.runningIndex();
    coreRecords_[core].payload[slot] = SlotPayload{block, block + 1, task, 0};
    staged[block] = SlotRef{core, static_cast<int32_t>(slot)};
  }
  for (int32_t block = 0; block < blocks; ++block)
    if (!applySlotStep(coreRecords_[reserved[block]].word,
                       launchIntoReservedCore)
             .ok)
      protocolError(run, "core " + std::to_string(reserved[block]) +
                             " lost its reservation for cohort '" +
                             run.graph.tasks[task].name + "'");
  reserved.clear();
  run.tier0.advance(headIndex);
  record.stagedBlocks.store(blocks, std::memory_order_relaxed);
  record.cohortRoute.store(uint8_t(CohortRoute::Normal),
                           std::memory_order_relaxed);
  record.rendezvous.addRunning(blocks);
  maybeRing(run, task);
  bumpEpoch();
  return 1;
}

int Executor::Impl::tryStageEarly(RunState &run) {
  std::unique_lock<std::mutex> lock(placementMutex_, std::try_to_lock);
  if (!lock.owns_lock())
    return -1;
  int32_t task = run.early.pop();
  if (task < 0)
    return 0;
  TaskRecord &record = run.tasks[task];
  if (applyRouteStep(record.route, takeCandidate).action != RouteAction::Take)
    return 1; // A stale entry: the normal path owns the task.

  const int32_t blocks = static_cast<int32_t>(run.graph.tasks[task].blocks);
  auto letGo = [&] {
    record.stagingRetries.fetch_add(1, std::memory_order_relaxed);
    RouteStep cancelled = applyRouteStep(record.route, cancelStaging);
    if (cancelled.action == RouteAction::RequeueCandidate)
      run.early.push(task); // Retried after the next slot frees.
    else if (cancelled.action == RouteAction::HandOverReady)
      pushTier0(run, task);
  };
  if (run.aborting.load(std::memory_order_acquire)) {
    letGo();
    return 0;
  }

  // All-or-nothing: count first, so a hopeless attempt touches no slot.
  int32_t available = 0;
  for (int32_t core = 0; core < coreCount_; ++core) {
    CoreWord word{coreRecords_[core].word.load(std::memory_order_acquire)};
    if (reserveRunningSlot(word).ok || reservePendingSlot(word).ok)
      ++available;
  }
  if (available < blocks) {
    letGo();
    return 0;
  }

  // Free running slots first, then pending slots; one block per core.
  std::vector<SlotRef> &picks = stagingScratch_;
  picks.clear();
  for (int pass = 0; pass < 2; ++pass) {
    for (int32_t core = 0;
         core < coreCount_ && static_cast<int32_t>(picks.size()) < blocks;
         ++core) {
      bool taken = false;
      for (const SlotRef &pick : picks)
        taken |= pick.core == core;
      if (taken)
        continue;
      run.occupiedSlots.fetch_add(1, std::memory_order_seq_cst);
      SlotStep reservedSlot =
          pass == 0
              ? applySlotStep(coreRecords_[core].word, reserveRunningSlot)
              : applySlotStep(coreRecords_[core].word, reservePendingSlot);
      if (reservedSlot.ok)
        picks.push_back(SlotRef{core, static_cast<int32_t>(reservedSlot.slot)});
      else
        run.occupiedSlots.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
  // Checked after the reservations are counted, so a drain never misses them.
  if (static_cast<int32_t>(picks.size()) < blocks ||
      run.aborting.load(std::memory_order_seq_cst)) {
    for (const SlotRef &pick : picks) {
      applySlotStep(coreRecords_[pick.core].word, [&](CoreWord word) {
        return rollbackSlot(word, pick.slot);
      });
      run.occupiedSlots.fetch_sub(1, std::memory_order_acq_rel);
    }
    bumpEpoch();
    letGo();
    return 0;
  }

  claimWholeCohort(run, task, blocks, "staging");
  // Payloads and the staged-slot list are complete before any slot is
  // published, so a ringer or a cancel ring sees every doorbell.
  SlotRef *staged = &run.stagedSlots[run.stagedOffset[task]];
  for (int32_t block = 0; block < blocks; ++block) {
    const SlotRef &pick = picks[block];
    coreRecords_[pick.core].payload[pick.slot] =
        SlotPayload{block, block + 1, task, 0};
    staged[block] = pick;
  }
  int32_t inRunning = 0;
  for (int32_t block = 0; block < blocks; ++block) {
    const SlotRef &pick = picks[block];
    SlotStep published =
        applySlotStep(coreRecords_[pick.core].word, [&](CoreWord word) {
          return publishSlot(word, pick.slot, SlotState::Gated);
        });
    if (!published.ok)
      protocolError(run, "core " + std::to_string(pick.core) +
                             " lost staged block " + std::to_string(block) +
                             " of cohort '" + run.graph.tasks[task].name + "'");
    if (published.next.runningIndex() == static_cast<unsigned>(pick.slot))
      ++inRunning;
  }
  record.stagedBlocks.store(blocks, std::memory_order_relaxed);
  record.cohortRoute.store(uint8_t(CohortRoute::Early),
                           std::memory_order_relaxed);
  applyRouteStep(record.route, finishStaging);
  record.rendezvous.addRunning(inRunning);
  maybeRing(run, task);
  bumpEpoch();
  return 1;
}

//===----------------------------------------------------------------------===//
// Regular tasks.
//===----------------------------------------------------------------------===//

bool Executor::Impl::tryClaimRegular(RunState &run, int32_t core) {
  CoreRecord &record = coreRecords_[core];
  for (;;) {
    int32_t headIndex = 0;
    int32_t task = run.ready.peek(&headIndex);
    if (task < 0)
      return false;
    TaskRecord &taskRecord = run.tasks[task];
    const int64_t blocks = run.graph.tasks[task].blocks;
    if (taskRecord.nextBlock.load(std::memory_order_relaxed) >= blocks) {
      run.ready.advance(headIndex);
      continue;
    }
    // Reserve the slot before claiming, so a claimed range always has a home.
    run.occupiedSlots.fetch_add(1, std::memory_order_seq_cst);
    SlotStep reserved = applySlotStep(record.word, reserveRunningSlot);
    if (!reserved.ok) {
      run.occupiedSlots.fetch_sub(1, std::memory_order_acq_rel);
      return false;
    }
    BlockRange range;
    if (!run.aborting.load(std::memory_order_seq_cst))
      range =
          claimBlockRange(taskRecord.nextBlock, blocks, config_.maxClaimBlocks);
    if (range.empty()) {
      applySlotStep(record.word, [&](CoreWord word) {
        return rollbackSlot(word, reserved.slot);
      });
      run.occupiedSlots.fetch_sub(1, std::memory_order_acq_rel);
      bumpEpoch();
      if (run.aborting.load(std::memory_order_acquire))
        return false;
      run.ready.advance(headIndex);
      continue;
    }
    record.payload[reserved.slot] =
        SlotPayload{range.begin, range.end, task, 0};
    if (!applySlotStep(record.word, [&](CoreWord word) {
           return publishSlot(word, reserved.slot, SlotState::Normal);
         }).ok)
      protocolError(run, "core " + std::to_string(core) +
                             " lost its reserved slot for blocks [" +
                             std::to_string(range.begin) + ", " +
                             std::to_string(range.end) + ") of task '" +
                             run.graph.tasks[task].name + "'");
    notePublished(run, task, range.size());
    return true;
  }
}

} // namespace sluice::runtime::cohort
