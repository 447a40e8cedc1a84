//===- wavefront_scheduler.cpp - Wavefront host scheduler -----------------===//

#include "sluice/runtime/wavefront/wavefront.h"

#include "sluice/runtime/wavefront/trace.h"

#include <algorithm>

namespace sluice::runtime {

namespace {

using Clock = std::chrono::steady_clock;

double microsecondsSince(Clock::time_point origin) {
  return std::chrono::duration<double, std::micro>(Clock::now() - origin)
      .count();
}

} // namespace

const char *iterationActionName(IterationAction action) {
  switch (action) {
  case IterationAction::DispatchStage:
    return "dispatch";
  case IterationAction::AdmitProducer:
    return "admit";
  case IterationAction::AdmitProducerPartially:
    return "admit-partial";
  case IterationAction::DrainForAdmission:
    return "drain";
  }
  return "unknown";
}

const char *schedulerPlacementName(SchedulerPlacement placement) {
  switch (placement) {
  case SchedulerPlacement::Device:
    return "device";
  case SchedulerPlacement::Auto:
    return "auto";
  case SchedulerPlacement::Host:
    break;
  }
  return "host";
}

bool parseSchedulerPlacement(std::string_view text, SchedulerPlacement &out) {
  for (SchedulerPlacement placement :
       {SchedulerPlacement::Host, SchedulerPlacement::Device,
        SchedulerPlacement::Auto})
    if (text == schedulerPlacementName(placement)) {
      out = placement;
      return true;
    }
  return false;
}

std::string describeSchedulerPlacement(SchedulerPlacement asked,
                                       SchedulerPlacement ran,
                                       const std::string &note) {
  std::string text = schedulerPlacementName(ran);
  if (note.empty())
    return text;
  return text +
         (asked == SchedulerPlacement::Auto
              ? " (auto: "
              : " (device placement unavailable: ") +
         note + ")";
}

SchedulerPlacement resolveSchedulerPlacement(SchedulerPlacement asked,
                                             const Device &device) {
  if (asked != SchedulerPlacement::Auto)
    return asked;
  return device.prefersDevicePlacement() ? SchedulerPlacement::Device
                                         : SchedulerPlacement::Host;
}

bool isRunComplete(const Observation &observation, uint64_t lanes,
                   uint32_t framePool) {
  if (observation.lanesStarted != lanes || observation.freeFrames != framePool)
    return false;
  for (uint32_t live : observation.ownerLive)
    if (live != 0)
      return false;
  return true;
}

IterationObserver::~IterationObserver() = default;

WavefrontScheduler::WavefrontScheduler(const ProgramDescriptor &program,
                                       Device &device, SchedulerOptions options)
    : program_(program), device_(device), options_(std::move(options)) {}

WavefrontScheduler::~WavefrontScheduler() = default;

Status WavefrontScheduler::prepare() {
  if (state_ != RunState::Unprepared)
    return Status::success();
  Status status = ProgramShape::build(program_, shape_);
  if (status.ok())
    status = validateRunShape(shape_, program_, options_.framePool,
                              options_.partialAdmission);
  if (status.ok())
    status = checkFrameSorting(program_, options_.sorting);
  if (status.ok())
    status = device_.allocate(program_, shape_, options_.framePool);
  if (!status.ok()) {
    status_ = status;
    return status;
  }
  deviceEpoch_ = device_.allocationEpoch();
  clients_.resize(shape_.ownerCount(), nullptr);
  policyClients_.clear();
  policyClients_.resize(shape_.ownerCount());
  for (uint32_t o = 0; o < shape_.ownerCount(); ++o)
    if (program_.owners[o].policy.present())
      policyClients_[o] = device_.policyClient(o, program_.owners[o].policy);
  observation_.resize(shape_);
  stats_.assign(shape_.totalStageCount(), StageStatistics{});
  publishedBefore_.assign(shape_.ownerCount(), 0);
  releasedBefore_.assign(shape_.ownerCount(), 0);
  state_ = RunState::Ready;
  return Status::success();
}

void WavefrontScheduler::setOwnerClient(uint32_t owner,
                                        CapacityOwnerClient *client) {
  if (clients_.size() <= owner)
    clients_.resize(owner + 1, nullptr);
  clients_[owner] = client;
}

CapacityOwnerClient &WavefrontScheduler::client(uint32_t owner) {
  if (CapacityOwnerClient *client = clients_[owner])
    return *client;
  if (policyClients_[owner])
    return *policyClients_[owner];
  return defaultClient_;
}

const OwnerPolicy *WavefrontScheduler::policyOf(uint32_t owner) const {
  return policyClients_[owner] && !clients_[owner]
             ? &program_.owners[owner].policy
             : nullptr;
}

std::span<uint32_t> WavefrontScheduler::ownerCounts(uint32_t owner) {
  return {observation_.stageCounts.data() + shape_.ownerStageBase(owner),
          shape_.ownerStageCount(owner)};
}

OwnerView WavefrontScheduler::ownerView(uint32_t owner) const {
  return observedOwner(program_, shape_, observation_, owner);
}

Status WavefrontScheduler::start(uint32_t lanes) {
  // A successful prepare() leaves the scheduler Ready or later: canStart().
  if (Status status = prepare(); !status.ok())
    return status;
  for (uint32_t o = 0; o < shape_.ownerCount(); ++o)
    if (clients_[o] && policyClients_[o])
      return Status::error(ErrorKind::InvalidArgument,
                           "owner '" + program_.owners[o].name +
                               "' has a storage policy compiled from the "
                               "program; a host client cannot replace it");
  if (device_.allocationEpoch() != deviceEpoch_) {
    if (Status status = device_.allocate(program_, shape_, options_.framePool);
        !status.ok())
      return status;
    deviceEpoch_ = device_.allocationEpoch();
  }
  device_.reset();
  device_.setFrameSorting(options_.sorting);
  lanes_ = lanes;
  iteration_ = 0;
  status_ = Status::success();
  observation_.resize(shape_);
  record_ = IterationRecord();
  std::fill(stats_.begin(), stats_.end(), StageStatistics{});
  std::fill(publishedBefore_.begin(), publishedBefore_.end(), 0);
  std::fill(releasedBefore_.begin(), releasedBefore_.end(), 0);
  lastDispatchedStage_ = kNoStage;
  for (uint32_t o = 0; o < shape_.ownerCount(); ++o)
    client(o).beginRun(ownerView(o));
  trace_.reset();
  iterationLog_.clear();
  if (!options_.tracePath.empty())
    trace_ = std::make_unique<ChromeTraceRecorder>(program_, shape_);
  runStart_ = Clock::now();
  state_ = RunState::Running;
  return Status::success();
}

StepResult WavefrontScheduler::fail(Status status) {
  status_ = std::move(status);
  state_ = RunState::Failed;
  // The trace of a failed run is still written; its end event names the
  // error. A write failure does not hide the protocol error.
  (void)finishTrace();
  return StepResult::Failed;
}

void WavefrontScheduler::logIteration(const IterationRecord &record) {
  if (options_.iterationLogPath.empty())
    return;
  iterationLog_ += formatIterationLine(shape_, program_, record, observation_);
  iterationLog_ += '\n';
}

Status WavefrontScheduler::finishTrace() {
  if (!options_.iterationLogPath.empty()) {
    std::FILE *file = std::fopen(options_.iterationLogPath.c_str(), "w");
    bool written =
        file && std::fwrite(iterationLog_.data(), 1, iterationLog_.size(),
                            file) == iterationLog_.size();
    if (file && std::fclose(file) != 0)
      written = false;
    if (!written)
      return Status::error(ErrorKind::InvalidArgument,
                           "cannot write the iteration log '" +
                               options_.iterationLogPath + "'");
  }
  if (!trace_)
    return Status::success();
  trace_->recordEnd(microsecondsSince(runStart_), status_);
  return trace_->writeFile(options_.tracePath);
}

Status WavefrontScheduler::validateObservation() {
  const Observation &obs = observation_;
  for (uint32_t o = 0; o < shape_.ownerCount(); ++o) {
    const OwnerDesc &owner = program_.owners[o];
    std::span<const uint32_t> counts(obs.stageCounts.data() +
                                         shape_.ownerStageBase(o),
                                     shape_.ownerStageCount(o));
    if (Status status = validateOwnerCounts(owner.name, counts,
                                            obs.ownerLive[o], owner.capacity);
        !status.ok())
      return status;
    // Items are linear: every published item is live or released once.
    if (obs.ownerPublished[o] - obs.ownerReleased[o] != obs.ownerLive[o])
      return Status::error(ErrorKind::CountMismatch,
                           "owner '" + owner.name + "': published " +
                               std::to_string(obs.ownerPublished[o]) +
                               " - released " +
                               std::to_string(obs.ownerReleased[o]) +
                               " != live " + std::to_string(obs.ownerLive[o]) +
                               ": items were dropped or cloned");
  }
  uint64_t waiting = obs.freeFrames;
  for (uint32_t s = 0; s < shape_.mainStageCount(); ++s)
    waiting += obs.stageCounts[s];
  if (waiting != options_.framePool)
    return Status::error(ErrorKind::CountMismatch,
                         "frame pool: frames at main stages plus " +
                             std::to_string(obs.freeFrames) + " free = " +
                             std::to_string(waiting) + ", but the pool has " +
                             std::to_string(options_.framePool) + " frames");
  if (obs.lanesStarted > lanes_ || obs.lanesFinished > obs.lanesStarted)
    return Status::error(ErrorKind::CountMismatch,
                         "lanes: started " + std::to_string(obs.lanesStarted) +
                             ", finished " + std::to_string(obs.lanesFinished) +
                             " of " + std::to_string(lanes_));
  return Status::success();
}

// Items published or released since the previous readback belong to the
// stage dispatched in between.
void WavefrontScheduler::accountPreviousDispatch() {
  for (uint32_t o = 0; o < shape_.ownerCount(); ++o) {
    if (lastDispatchedStage_ != kNoStage) {
      StageStatistics &stats = stats_[lastDispatchedStage_];
      stats.itemsPublished +=
          observation_.ownerPublished[o] - publishedBefore_[o];
      stats.itemsReleased += observation_.ownerReleased[o] - releasedBefore_[o];
    }
    publishedBefore_[o] = observation_.ownerPublished[o];
    releasedBefore_[o] = observation_.ownerReleased[o];
  }
}

Status WavefrontScheduler::planProducer(uint32_t stage,
                                        IterationRecord &record) {
  AdmissionDecision combined{record.waiting, AdmissionOutcome::Full};
  uint64_t limitingAvailability = 0;
  bool first = true;
  for (const ProducerEdge &edge : shape_.producersOf(stage)) {
    OwnerView view = ownerView(edge.owner);
    CapacityOwnerClient &owner = client(edge.owner);
    const OwnerPolicy *policy = policyOf(edge.owner);
    std::span<uint32_t> counts = ownerCounts(edge.owner);
    if (Status status = callPrepareForAdmission(owner, policy, view, counts);
        !status.ok())
      return status;
    uint64_t availability = 0;
    if (Status status =
            callAvailability(owner, policy, view, counts, availability);
        !status.ok())
      return status;
    AdmissionDecision decision = decideAdmission(
        record.waiting, edge.bound, availability, options_.partialAdmission);
    if (decision.outcome == AdmissionOutcome::Blocked &&
        record.blockingOwner == kNoOwner) {
      record.blockingOwner = edge.owner;
      record.availability = availability;
    }
    if (first || decision.admitted < combined.admitted)
      limitingAvailability = availability;
    combined = combineAdmission(combined, decision);
    first = false;
  }

  if (record.blockingOwner != kNoOwner) {
    // Some owner cannot take even one invocation: drain it instead. It is not
    // empty, because an empty owner reports A = C >= b.
    OwnerView view = ownerView(record.blockingOwner);
    uint32_t drainStage = kNoStage;
    if (Status status = callAdmissionStage(
            client(record.blockingOwner), policyOf(record.blockingOwner), view,
            ownerCounts(record.blockingOwner), drainStage);
        !status.ok())
      return status;
    record.action = IterationAction::DrainForAdmission;
    record.dispatchedStage =
        shape_.globalStage(record.blockingOwner, drainStage);
    record.dispatched = view.stageCounts[drainStage];
    return Status::success();
  }

  record.action = combined.outcome == AdmissionOutcome::Partial
                      ? IterationAction::AdmitProducerPartially
                      : IterationAction::AdmitProducer;
  record.dispatched = combined.admitted;
  record.availability = limitingAvailability;
  for (const ProducerEdge &edge : shape_.producersOf(stage))
    if (Status status = callPrepareForProducer(
            client(edge.owner), policyOf(edge.owner), ownerView(edge.owner),
            ownerCounts(edge.owner), uint64_t(combined.admitted) * edge.bound);
        !status.ok())
      return status;
  return Status::success();
}

void WavefrontScheduler::accountDispatch(const IterationRecord &record) {
  StageStatistics &dispatched = stats_[record.dispatchedStage];
  ++dispatched.dispatches;
  dispatched.invocations += record.dispatched;
  if (record.action == IterationAction::AdmitProducerPartially)
    ++dispatched.partialAdmissions;
  if (record.action == IterationAction::DrainForAdmission) {
    ++stats_[record.chosenStage].admissionBlocks;
    ++dispatched.drainDispatches;
  }
}

Status WavefrontScheduler::iterationLimitError() const {
  return Status::error(
      ErrorKind::IterationLimit,
      "program '" + program_.name + "' did not finish within " +
          std::to_string(options_.maxIterations) + " iterations (" +
          std::to_string(observation_.lanesFinished) + " of " +
          std::to_string(lanes_) + " lanes finished)");
}

Status WavefrontScheduler::noProgressError() const {
  return Status::error(ErrorKind::NoProgress,
                       "program '" + program_.name +
                           "': no stage holds work but " +
                           std::to_string(observation_.lanesStarted -
                                          observation_.lanesFinished) +
                           " lanes are unfinished");
}

std::string WavefrontScheduler::devicePlacementBlocker() const {
  for (uint32_t o = 0; o < clients_.size(); ++o)
    if (clients_[o])
      return "owner '" + program_.owners[o].name +
             "' has a client whose policy hooks exist only on the host";
  for (uint32_t o = 0; o < policyClients_.size(); ++o)
    if (policyClients_[o] && !device_.runsOwnerPolicies())
      return "owner '" + program_.owners[o].name +
             "' has a storage policy, "
             "which the " +
             device_.name() + " device placement does not run yet";
  if (Status support = device_.residentSupport(); !support.ok())
    return support.message();
  return {};
}

namespace {

// A device placement's record as the host placement's.
IterationRecord toIterationRecord(const decision::Record &r) {
  IterationRecord record;
  record.iteration = r.iteration;
  record.chosenStage = r.chosenStage;
  record.dispatchedStage = r.dispatchedStage;
  record.waiting = r.waiting;
  record.dispatched = r.dispatched;
  record.refilled = r.refilled;
  record.blockingOwner = r.blockingOwner;
  record.availability = r.availability;
  record.action = IterationAction(r.action);
  return record;
}

} // namespace

void WavefrontScheduler::runOnDevice() {
  ResidentRun run;
  run.lanes = lanes_;
  run.partialAdmission = options_.partialAdmission;
  run.maxIterations = options_.maxIterations;
  run.sorting = options_.sorting;
  run.times = trace_ != nullptr;
  ResidentLog log;
  if (Status status = device_.runResident(run, log); !status.ok()) {
    fail(std::move(status));
    return;
  }
  size_t words = observationWords(shape_);
  uint32_t entry = shape_.entryStage();
  for (size_t n = 0; n < log.records.size(); ++n) {
    unpackObservation(shape_, log.snapshots.data() + n * words, observation_);
    if (observer_)
      observer_->observed(observation_);
    IterationRecord record = toIterationRecord(log.records[n]);
    record.order = n < log.orders.size() ? log.orders[n] : 0;
    accountDispatch(record);
    stats_[record.dispatchedStage].itemsPublished += log.itemsPublished[n];
    stats_[record.dispatchedStage].itemsReleased += log.itemsReleased[n];
    if (observer_)
      observer_->planned(record);
    // The trace and the log show the counts the decision saw: after the
    // refill.
    observation_.stageCounts[entry] += record.refilled;
    observation_.freeFrames -= record.refilled;
    observation_.lanesStarted += record.refilled;
    logIteration(record);
    if (trace_) {
      ChromeTraceRecorder::Timing timing;
      timing.readbackBegin = timing.planBegin = log.decideUs[n];
      timing.dispatchBegin = log.dispatchBeginUs[n];
      timing.dispatchEnd = log.dispatchEndUs[n];
      trace_->recordIteration(record, observation_, timing);
    }
    record_ = record;
  }
  iteration_ = log.records.size();
  if (!log.last.empty())
    unpackObservation(shape_, log.last.data(), observation_);
  if (!log.fault.ok()) {
    fail(log.fault);
    return;
  }
  if (observer_ && log.verdict != decision::kCountFault)
    observer_->observed(observation_);
  switch (log.verdict) {
  case decision::kFinished:
    state_ = RunState::Finished;
    if (Status status = finishTrace(); !status.ok())
      fail(std::move(status));
    return;
  case decision::kCountFault: {
    // The host's own validation names the numbers, as on the host placement.
    Status status = validateObservation();
    fail(status.ok() ? Status::error(ErrorKind::InvalidState,
                                     "device placement: the device stopped "
                                     "at counts the host finds consistent")
                     : std::move(status));
    return;
  }
  case decision::kIterationLimit:
    fail(iterationLimitError());
    return;
  case decision::kNoProgress:
    fail(noProgressError());
    return;
  default:
    fail(Status::error(ErrorKind::InvalidState,
                       "device placement: the device stopped with verdict " +
                           std::to_string(uint32_t(log.verdict))));
  }
}

StepResult WavefrontScheduler::step() {
  if (state_ == RunState::Finished)
    return StepResult::Finished;
  if (!canStep(state_)) {
    if (state_ != RunState::Failed)
      status_ = Status::error(ErrorKind::InvalidState,
                              "step() without a successful start()");
    return StepResult::Failed;
  }
  Clock::time_point origin = runStart_;
  ChromeTraceRecorder::Timing timing;
  if (trace_)
    timing.readbackBegin = microsecondsSince(origin);

  if (Status status = device_.readCounts(observation_); !status.ok())
    return fail(std::move(status));
  if (Status status = validateObservation(); !status.ok())
    return fail(std::move(status));
  accountPreviousDispatch();
  if (observer_)
    observer_->observed(observation_);
  if (isRunComplete(observation_, lanes_, options_.framePool)) {
    state_ = RunState::Finished;
    if (Status status = finishTrace(); !status.ok())
      return fail(std::move(status));
    return StepResult::Finished;
  }
  if (options_.maxIterations != 0 && iteration_ >= options_.maxIterations)
    return fail(iterationLimitError());
  if (trace_)
    timing.planBegin = microsecondsSince(origin);

  IterationRecord record;
  record.iteration = iteration_;
  uint64_t lanesLeft = lanes_ - observation_.lanesStarted;
  uint32_t refill =
      uint32_t(std::min<uint64_t>(observation_.freeFrames, lanesLeft));
  if (refill != 0) {
    device_.refill(refill);
    // The refill's effect is known without another readback.
    observation_.stageCounts[shape_.entryStage()] += refill;
    observation_.freeFrames -= refill;
    observation_.lanesStarted += refill;
  }
  record.refilled = refill;

  uint32_t chosen = chooseGreedyStage(observation_.stageCounts);
  if (chosen == kNoStage)
    return fail(noProgressError());
  record.chosenStage = chosen;
  record.dispatchedStage = chosen;
  record.waiting = observation_.stageCounts[chosen];
  record.dispatched = record.waiting;
  if (shape_.stage(chosen).kind == StageKind::Main &&
      shape_.isProducer(chosen)) {
    if (Status status = planProducer(chosen, record); !status.ok())
      return fail(std::move(status));
  }
  if (observer_)
    observer_->planned(record);

  accountDispatch(record);

  if (trace_)
    timing.dispatchBegin = microsecondsSince(origin);
  device_.dispatch(record.dispatchedStage, record.dispatched);
  record.order = device_.lastDispatchOrder();
  lastDispatchedStage_ = record.dispatchedStage;
  record_ = record;
  ++iteration_;
  logIteration(record);
  if (trace_) {
    timing.dispatchEnd = microsecondsSince(origin);
    trace_->recordIteration(record, observation_, timing);
  }
  return StepResult::Continue;
}

RunResult WavefrontScheduler::run(uint32_t lanes) {
  RunResult result;
  result.schedule = Schedule::Wavefront;
  if (Status status = start(lanes); !status.ok()) {
    result.status = status;
    return result;
  }
  std::string hostReason;
  SchedulerPlacement placement =
      resolveSchedulerPlacement(options_.placement, device_);
  if (placement == SchedulerPlacement::Device)
    hostReason = devicePlacementBlocker();
  else if (options_.placement == SchedulerPlacement::Auto)
    hostReason = std::string("the ") + device_.name() +
                 " device runs the host placement faster";
  if (placement == SchedulerPlacement::Device && hostReason.empty()) {
    result.placement = SchedulerPlacement::Device;
    runOnDevice();
  } else {
    result.placementNote = std::move(hostReason);
    StepResult step;
    do {
      step = this->step();
    } while (step == StepResult::Continue);
  }
  result.status = status_;
  result.iterations = iteration_;
  result.lanesFinished = observation_.lanesFinished;
  result.stages = stats_;
  return result;
}

Status prepareStateMachine(const ProgramDescriptor &program, Device &device,
                           uint32_t lanes, uint32_t framePool) {
  for (const OwnerDesc &owner : program.owners)
    if (owner.policy.present())
      return Status::error(ErrorKind::Unsupported,
                           "owner '" + owner.name +
                               "' has a storage policy; the state-machine "
                               "schedule gives every worker a private share "
                               "of the owner's slots and never asks for "
                               "availability (run the wavefront schedule)");
  ProgramShape shape;
  Status status = ProgramShape::build(program, shape);
  if (status.ok())
    status = validateRunShape(shape, program, framePool, true);
  if (status.ok())
    status = device.allocate(program, shape, framePool);
  // A failure to make the run's buffers here is the run's to report
  // (runStateMachine makes what is missing).
  if (status.ok())
    (void)device.reserveStateMachine(lanes);
  return status;
}

RunResult runStateMachine(const ProgramDescriptor &program, Device &device,
                          uint32_t lanes, uint32_t framePool) {
  RunResult result;
  result.schedule = Schedule::StateMachine;
  result.status = prepareStateMachine(program, device, lanes, framePool);
  if (!result.status.ok())
    return result;
  return runPreparedStateMachine(device, lanes);
}

RunResult runPreparedStateMachine(Device &device, uint32_t lanes) {
  RunResult result;
  result.schedule = Schedule::StateMachine;
  StateMachineReport report;
  result.status = device.runStateMachine(lanes, report);
  if (!result.status.ok())
    return result;
  result.stages = std::move(report.stages);
  result.lanesFinished = report.lanesFinished;
  result.iterations = 0; // one megakernel launch, no host iterations
  return result;
}

} // namespace sluice::runtime
