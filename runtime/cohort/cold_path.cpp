//===- cold_path.cpp - Executor lifecycle, submit, abort, results ---------===//
//
// Construction and teardown of the core threads, submitting a graph (validate,
// seed, wait, drain), aborts, errors and the per-task results.
//
//===----------------------------------------------------------------------===//
#include "executor_impl.h"

#include <chrono>

namespace sluice::runtime::cohort {

int64_t steadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

BlockContext *&currentBlockContext() {
  thread_local BlockContext *context = nullptr;
  return context;
}

const char *taskStateName(TaskState state) {
  switch (state) {
  case TaskState::NotRun:
    return "not-run";
  case TaskState::Completed:
    return "completed";
  case TaskState::Failed:
    return "failed";
  case TaskState::Cancelled:
    return "cancelled";
  }
  return "?";
}

Executor::Impl::Impl(ExecutorConfig config) : config_(config) {
  unsigned hardware = std::thread::hardware_concurrency();
  if (hardware == 0)
    hardware = 1;
  coreCount_ = config.cores > 0 ? config.cores : static_cast<int32_t>(hardware);
  policy_ = config.spin;
  if (policy_ == SpinPolicy::Auto)
    policy_ = static_cast<unsigned>(coreCount_) <= hardware ? SpinPolicy::Pure
                                                            : SpinPolicy::Yield;
  if (config_.maxClaimBlocks < 1)
    config_.maxClaimBlocks = 1;
  if (config_.idleSpinRounds < 1)
    config_.idleSpinRounds = 1;
  coreRecords_ = std::make_unique<CoreRecord[]>(coreCount_);
  stagingScratch_.reserve(coreCount_);
  threads_.reserve(coreCount_);
  for (int32_t core = 0; core < coreCount_; ++core)
    threads_.emplace_back([this, core] { workerMain(core); });
}

Executor::Impl::~Impl() {
  // No run is in flight once runMutex_ is ours; every core is idle or asleep.
  std::lock_guard<std::mutex> lock(runMutex_);
  stop_.store(true, std::memory_order_seq_cst);
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  epoch_.notify_all();
  for (std::thread &thread : threads_)
    thread.join();
}

RunResult Executor::Impl::run(const TaskGraph &graph) {
  std::lock_guard<std::mutex> runLock(runMutex_);
  auto owned = std::make_unique<RunState>();
  RunState &run = *owned;
  RunResult result;
  if (std::optional<std::string> error =
          validateGraph(graph, coreCount_, &run.graph)) {
    result.error = *error;
    result.tasks.assign(graph.taskCount(), TaskResult{});
    return result;
  }

  const int32_t count = static_cast<int32_t>(run.graph.tasks.size());
  run.generation = ++generation_;
  run.tasks = std::make_unique<TaskRecord[]>(count);
  run.stagedOffset.assign(count, 0);
  int32_t stagedTotal = 0;
  for (int32_t task = 0; task < count; ++task) {
    const ValidatedGraph::Task &info = run.graph.tasks[task];
    run.stagedOffset[task] = stagedTotal;
    if (info.flags & TaskSyncStart)
      stagedTotal += static_cast<int32_t>(info.blocks);
    TaskRecord &record = run.tasks[task];
    record.rendezvous.reset(info.producerCount);
    record.unpublishedProducers.store(info.producerCount,
                                      std::memory_order_relaxed);
  }
  run.stagedSlots = std::make_unique<SlotRef[]>(stagedTotal + 1);
  run.completedAtNs = std::make_unique<std::atomic<int64_t>[]>(count);
  run.rungAtNs = std::make_unique<std::atomic<int64_t>[]>(count);
  run.ready.reset(count);
  run.tier0.reset(count);
  run.taskErrors.assign(count, std::string());
  run.tier0Reserved.reserve(coreCount_);
  run.tasksRemaining.store(count, std::memory_order_relaxed);
  if (count == 0) {
    result.ok = true;
    return result;
  }

  // Seed before any core can see the run.
  for (int32_t task = 0; task < count; ++task)
    if (run.graph.tasks[task].producerCount == 0)
      onReady(run, task);

  run_.store(&run, std::memory_order_seq_cst);
  bumpEpoch();
  while (run.finished.load(std::memory_order_acquire) == 0)
    run.finished.wait(0, std::memory_order_acquire);
  // An aborted run drains: running blocks finish, gated ones are released.
  while (run.occupiedSlots.load(std::memory_order_seq_cst) != 0)
    std::this_thread::yield();
  {
    std::lock_guard<std::mutex> lock(abortMutex_);
    run_.store(nullptr, std::memory_order_seq_cst);
  }
  for (int32_t core = 0; core < coreCount_; ++core)
    while (coreRecords_[core].active.load(std::memory_order_seq_cst) != 0)
      std::this_thread::yield();

  // Every slot is empty between runs.
  for (int32_t core = 0; core < coreCount_; ++core) {
    CoreWord word{coreRecords_[core].word.load(std::memory_order_acquire)};
    if (word.running() != SlotState::Empty ||
        word.pending() != SlotState::Empty || word.reserved()) {
      protocolError(run, "core " + std::to_string(core) +
                             " still holds a slot after the run (word " +
                             formatCoreWord(word) + ")");
      coreRecords_[core].word.store(0, std::memory_order_release);
    }
  }
  return collectResults(run);
}

void Executor::Impl::abort(const std::string &reason) {
  std::lock_guard<std::mutex> lock(abortMutex_);
  RunState *run = run_.load(std::memory_order_acquire);
  if (!run)
    return;
  {
    std::lock_guard<std::mutex> errorLock(run->errorMutex);
    if (run->firstError.empty())
      run->firstError = "run aborted: " + reason;
  }
  beginAbort(*run);
}

void Executor::Impl::beginAbort(RunState &run) {
  if (run.aborting.exchange(true, std::memory_order_seq_cst))
    return;
  run.finished.store(1, std::memory_order_release);
  run.finished.notify_all();
  bumpEpoch();
}

void Executor::Impl::recordFailure(RunState &run, int32_t task, int64_t block,
                                   const std::string &message) {
  const ValidatedGraph::Task &info = run.graph.tasks[task];
  std::string text = "task '" + info.name + "' block " + std::to_string(block) +
                     " of " + std::to_string(info.blocks) +
                     " failed: " + message;
  {
    std::lock_guard<std::mutex> lock(run.errorMutex);
    if (run.taskErrors[task].empty())
      run.taskErrors[task] = text;
    if (run.firstError.empty())
      run.firstError = text;
  }
  run.tasks[task].failed.store(1, std::memory_order_release);
  beginAbort(run);
}

void Executor::Impl::protocolError(RunState &run, const std::string &message) {
  {
    std::lock_guard<std::mutex> lock(run.errorMutex);
    if (run.firstError.empty() ||
        run.firstError.rfind("protocol error", 0) != 0)
      run.firstError = "protocol error: " + message;
  }
  beginAbort(run);
}

RunResult Executor::Impl::collectResults(RunState &run) {
  RunResult result;
  const int32_t count = static_cast<int32_t>(run.graph.tasks.size());
  result.tasks.resize(count);
  bool allCompleted = true;
  for (int32_t task = 0; task < count; ++task) {
    const TaskRecord &record = run.tasks[task];
    TaskResult &out = result.tasks[task];
    const int64_t blocks = run.graph.tasks[task].blocks;
    out.blocksRun = record.doneBlocks.load(std::memory_order_acquire);
    if (record.failed.load(std::memory_order_acquire))
      out.state = TaskState::Failed;
    else if (record.doneBlocks.load(std::memory_order_acquire) == blocks)
      out.state = TaskState::Completed;
    else if (record.nextBlock.load(std::memory_order_acquire) > 0)
      out.state = TaskState::Cancelled;
    else
      out.state = TaskState::NotRun;
    allCompleted &= out.state == TaskState::Completed;
    out.route = static_cast<CohortRoute>(
        record.cohortRoute.load(std::memory_order_acquire));
    out.rings = record.rings.load(std::memory_order_acquire);
    out.doorbellsOpened =
        record.doorbellsOpened.load(std::memory_order_acquire);
    out.gatesPassed = record.gatesPassed.load(std::memory_order_acquire);
    out.stagingRetries = record.stagingRetries.load(std::memory_order_acquire);
    out.error = run.taskErrors[task];
    out.completedAtNs = run.completedAtNs[task].load(std::memory_order_acquire);
    out.rungAtNs = run.rungAtNs[task].load(std::memory_order_acquire);
  }
  result.error = run.firstError;
  result.ok = allCompleted && result.error.empty() &&
              !run.aborting.load(std::memory_order_acquire);
  return result;
}

//===----------------------------------------------------------------------===//
// Public API.
//===----------------------------------------------------------------------===//

Executor::Executor(ExecutorConfig config)
    : impl_(std::make_unique<Impl>(config)) {}
Executor::~Executor() = default;
int32_t Executor::cores() const { return impl_->cores(); }
SpinPolicy Executor::spinPolicy() const { return impl_->spinPolicy(); }
RunResult Executor::run(const TaskGraph &graph) { return impl_->run(graph); }
void Executor::abort(const std::string &reason) { impl_->abort(reason); }

void failCurrentBlock(const std::string &message) {
  BlockContext *context = currentBlockContext();
  if (!context)
    return;
  context->executor->recordFailure(*context->run, context->task, context->block,
                                   message);
}

} // namespace sluice::runtime::cohort
