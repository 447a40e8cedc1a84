//===- completion.cpp - Completion, readiness, publication, the ring ------===//
//
// What happens after blocks finish or get placed: tasks complete, consumers
// become ready (by the route word for early candidates), full publication arms
// early candidates, and the rendezvous rings a cohort's doorbells once.
//
//===----------------------------------------------------------------------===//
#include "executor_impl.h"

namespace sluice::runtime::cohort {

void Executor::Impl::bumpEpoch() {
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0)
    epoch_.notify_all();
}

void Executor::Impl::pushReady(RunState &run, int32_t task) {
  if (!run.ready.push(task))
    protocolError(run, "task '" + run.graph.tasks[task].name +
                           "' was made ready twice");
  bumpEpoch();
}

void Executor::Impl::pushTier0(RunState &run, int32_t task) {
  if (!run.tier0.push(task))
    protocolError(run, "cohort '" + run.graph.tasks[task].name +
                           "' was routed to the normal path twice");
  bumpEpoch();
}

void Executor::Impl::finishBlocks(RunState &run, int32_t task, int64_t count) {
  const int64_t blocks = run.graph.tasks[task].blocks;
  int64_t done =
      run.tasks[task].doneBlocks.fetch_add(count, std::memory_order_acq_rel) +
      count;
  if (done > blocks)
    protocolError(run, "task '" + run.graph.tasks[task].name + "' finished " +
                           std::to_string(done) + " blocks of " +
                           std::to_string(blocks));
  if (done == blocks)
    completeTask(run, task);
}

void Executor::Impl::completeTask(RunState &run, int32_t task) {
  const ValidatedGraph::Task &info = run.graph.tasks[task];
  for (int32_t i = 0; i < info.consumerCount; ++i)
    producerDone(run, run.graph.consumers[info.firstConsumer + i]);
  if (config_.recordTimestamps)
    run.completedAtNs[task].store(steadyNowNs(), std::memory_order_relaxed);
  if (run.tasksRemaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    run.finished.store(1, std::memory_order_release);
    run.finished.notify_all();
  }
}

void Executor::Impl::producerDone(RunState &run, int32_t consumer) {
  int32_t remaining = run.tasks[consumer].rendezvous.producerDone();
  if (remaining < 0)
    protocolError(run,
                  "task '" + run.graph.tasks[consumer].name +
                      "' saw more producer completions than its " +
                      std::to_string(run.graph.tasks[consumer].producerCount) +
                      " producers");
  if (remaining == 0)
    onReady(run, consumer);
  // Condition (b) of the rendezvous may be the last one to hold.
  if (run.graph.tasks[consumer].earlyCandidate)
    maybeRing(run, consumer);
}

void Executor::Impl::onReady(RunState &run, int32_t task) {
  const ValidatedGraph::Task &info = run.graph.tasks[task];
  if (!(info.flags & TaskSyncStart)) {
    pushReady(run, task);
    return;
  }
  if (!info.earlyCandidate) {
    pushTier0(run, task);
    return;
  }
  // Under OWNER the early path keeps the task and enqueues nothing here.
  if (applyRouteStep(run.tasks[task].route, readyEvent).action ==
      RouteAction::EnqueueNormal)
    pushTier0(run, task);
}

void Executor::Impl::notePublished(RunState &run, int32_t task, int64_t count) {
  const ValidatedGraph::Task &info = run.graph.tasks[task];
  int64_t published = run.tasks[task].publishedBlocks.fetch_add(
                          count, std::memory_order_acq_rel) +
                      count;
  if (published != info.blocks)
    return;
  // Full-publication gate: a candidate is armed only when every producer has
  // placed all of its blocks.
  for (int32_t i = 0; i < info.consumerCount; ++i) {
    int32_t consumer = run.graph.consumers[info.firstConsumer + i];
    if (!run.graph.tasks[consumer].earlyCandidate)
      continue;
    if (run.tasks[consumer].unpublishedProducers.fetch_sub(
            1, std::memory_order_acq_rel) == 1)
      propagateCandidate(run, consumer);
  }
}

void Executor::Impl::propagateCandidate(RunState &run, int32_t task) {
  if (applyRouteStep(run.tasks[task].route, armCandidate).action ==
      RouteAction::EnqueueCandidate) {
    run.early.push(task);
    bumpEpoch();
  }
}

void Executor::Impl::maybeRing(RunState &run, int32_t task) {
  Rendezvous &rendezvous = run.tasks[task].rendezvous;
  if (!rendezvous.observe(static_cast<int32_t>(run.graph.tasks[task].blocks)))
    return;
  if (!rendezvous.tryBeginRing())
    return;
  ring(run, task, run.aborting.load(std::memory_order_acquire));
}

void Executor::Impl::ring(RunState &run, int32_t task, bool cancel) {
  // The caller won the latch (Ringing).
  const int32_t blocks = static_cast<int32_t>(run.graph.tasks[task].blocks);
  TaskRecord &record = run.tasks[task];
  const uint64_t value =
      doorbellToken(run.generation, task) | (cancel ? kDoorbellCancelBit : 0);
  const SlotRef *staged = &run.stagedSlots[run.stagedOffset[task]];
  // Request every doorbell line for writing at once, then open them in a
  // burst: the opening takes about one line transfer rather than B of them.
  for (int32_t block = 0; block < blocks; ++block)
    __builtin_prefetch(
        &coreRecords_[staged[block].core].doorbell[staged[block].slot], 1, 3);
  for (int32_t block = 0; block < blocks; ++block)
    coreRecords_[staged[block].core].doorbell[staged[block].slot].store(
        value, std::memory_order_release);
  record.doorbellsOpened.fetch_add(blocks, std::memory_order_relaxed);
  record.rings.fetch_add(1, std::memory_order_relaxed);
  record.rendezvous.completeRing();
  if (config_.recordTimestamps)
    run.rungAtNs[task].store(steadyNowNs(), std::memory_order_relaxed);
  // Downstream sees the cohort dispatched only after COMPLETE.
  if (!cancel)
    notePublished(run, task, blocks);
}

} // namespace sluice::runtime::cohort
