//===- wavefront.h - Wavefront host scheduler -------------------*- C++ -*-===//
//
// Drives a program descriptor over a Device. One iteration:
//   1. read counts after same-stream completion and validate every owner
//      (L <= C, total == sum of stage counts) and the frame pool;
//   2. stop if every lane was started and finished and every owner is empty;
//   3. refill free frames with new lanes at the entry stage;
//   4. choose the stage with the largest count (main and auxiliary stages
//      compete alike, ties to the lowest global index);
//   5. if it is a producer, run admission for each owner it feeds: dispatch
//      the admitted prefix, or, when some owner admits nothing, dispatch that
//      owner's admission stage instead;
//   6. enqueue the dispatch.
// Refilling right after the readback is the same point in stream order as
// refilling at the end of the previous iteration, and lets new lanes compete
// in the current choice.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WAVEFRONT_WAVEFRONT_H
#define SLUICE_RUNTIME_WAVEFRONT_WAVEFRONT_H

#include "sluice/runtime/admission/admission.h"
#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/device/device.h"
#include "sluice/runtime/wavefront/program.h"

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::runtime {

// Prints the per-stage statistics table (one row per stage, `names[s]` for
// stage s) that the demo and `sluice-run --stats` show.
void printStageTable(std::FILE *out, const std::vector<std::string> &names,
                     const std::vector<StageStatistics> &stages);

struct RunResult;

// The header line of a run report.
struct RunSummary {
  uint32_t lanes = 0;
  const char *schedule = "wavefront";
  const char *layout = "soa";
  uint32_t framePool = 0;
  bool stats = false; // add the per-stage table and the iteration count
};

// What `sluice-run` and `sluice-run-artifact` print after a wave program's run:
// "<program>: N lanes, ..." , with `stats` the stage table and "iterations:",
// then "lanes finished: N" and per owner its capacity, items published (by
// its producers) and released (by its stages). The same text for every
// device, so runs on two backends compare line by line.
void printRunSummary(std::FILE *out, const ProgramDescriptor &program,
                     const RunResult &result, const RunSummary &summary);

class ChromeTraceRecorder;


enum class Schedule : uint8_t { Wavefront = 0, StateMachine = 1 };
static_assert(sizeof(Schedule) == 1);

// Where the scheduler decides (DESIGN.md §2.4): on the host, with a
// readback after every dispatch, or on the device, which runs decision.h in
// its own loop and hands the host the per-iteration records when it ends.
// Auto: Device where the device runs its placement faster than the host's
// (Device::prefersDevicePlacement: hip and a Vulkan GPU, not the CPU
// backend nor a Vulkan device that is a CPU, like Mesa lavapipe), otherwise
// Host (resolveSchedulerPlacement). WavefrontScheduler::run resolves it and,
// when it picks the host, says so in RunResult::placementNote; a RunResult
// says which of Host and Device ran.
enum class SchedulerPlacement : uint8_t { Host = 0, Device = 1, Auto = 2 };
static_assert(sizeof(SchedulerPlacement) == 1);
const char *schedulerPlacementName(SchedulerPlacement placement);
// "host", "device" or "auto" (the option's text) into `out`; false for any
// other text.
bool parseSchedulerPlacement(std::string_view text, SchedulerPlacement &out);
// The placement `asked` runs on `device`: Auto becomes Device where the
// device prefers it, else Host; Host and Device stay.
SchedulerPlacement resolveSchedulerPlacement(SchedulerPlacement asked,
                                             const Device &device);
// What a run's summary says of its placement: the one that ran, and, when
// the host ran with a note (RunResult::placementNote), why: "host (auto:
// NOTE)" when `asked` was Auto, "host (device placement unavailable: NOTE)"
// when it was Device.
std::string describeSchedulerPlacement(SchedulerPlacement asked,
                                       SchedulerPlacement ran,
                                       const std::string &note);

struct SchedulerOptions {
  uint32_t framePool = 256;
  // Device: when the device has a device placement and every owner keeps the
  // default policy; otherwise the host placement runs and the result says
  // why (RunResult::placementNote).
  SchedulerPlacement placement = SchedulerPlacement::Host;
  bool partialAdmission = true;
  uint64_t maxIterations = 0; // 0: unbounded
  std::string tracePath;      // Chrome trace JSON; empty: no trace
  // One line per iteration (formatIterationLine); empty: none. Both
  // placements write the same text for the same decisions.
  std::string iterationLogPath;
  FrameSorting sorting;       // handed to the device at every start()
};

// What one iteration did.
enum class IterationAction : uint8_t {
  DispatchStage = 0,          // the chosen stage is not a producer
  AdmitProducer = 1,          // a producer admitted in full
  AdmitProducerPartially = 2, // a producer admitted as a strict prefix
  DrainForAdmission = 3,      // producer blocked: an admission stage runs
};
static_assert(sizeof(IterationAction) == 1);
const char *iterationActionName(IterationAction action);

inline constexpr uint32_t kNoOwner = UINT32_MAX;

struct IterationRecord {
  uint64_t iteration = 0;
  uint32_t chosenStage = kNoStage;     // greedy choice
  uint32_t dispatchedStage = kNoStage; // differs when draining
  uint32_t waiting = 0;                // count at the chosen stage
  uint32_t dispatched = 0;             // invocations dispatched
  uint32_t refilled = 0;               // lanes started this iteration
  uint32_t blockingOwner = kNoOwner;   // owner drained, if any
  uint64_t availability = 0;           // A of the blocking/limiting owner
  IterationAction action = IterationAction::DispatchStage;
  // A main stage's dispatch: the digest of its frame order,
  // decision::orderDigest (both placements must give the same).
  uint32_t order = 0;
};

// "iteration 3: admit-partial chosen=bounce dispatched=bounce waiting=40
// dispatched=16 refilled=0 blocking=- availability=16 counts=0,40,16
// live=16 free=0 finished=0 order=20": an iteration's decision, the counts
// it saw (after the refill) and, for a main stage, the digest of the order
// its frames ran in (order=- for an owner's stage, whose item slots depend
// on the order of the publishes), as the iteration log writes it.
std::string formatIterationLine(const ProgramShape &shape,
                                const ProgramDescriptor &program,
                                const IterationRecord &record,
                                const Observation &observation);

// Lifecycle of a scheduler; one function per transition.
enum class RunState : uint8_t {
  Unprepared = 0, // descriptor not validated or device not allocated
  Ready = 1,      // buffers allocated, no run in progress
  Running = 2,    // start() succeeded, step() may be called
  Finished = 3,   // every lane and item completed
  Failed = 4,     // a protocol or device error stopped the run
};
static_assert(sizeof(RunState) == 1);
// start() prepares an Unprepared scheduler first and abandons a run in
// progress.
constexpr bool canStart(RunState state) {
  return state != RunState::Unprepared;
}
constexpr bool canStep(RunState state) { return state == RunState::Running; }

// Pure: the run is complete when every lane was started and finished and
// every owner is empty.
bool isRunComplete(const Observation &observation, uint64_t lanes,
                   uint32_t framePool);

enum class StepResult : uint8_t { Continue = 0, Finished = 1, Failed = 2 };
static_assert(sizeof(StepResult) == 1);

struct RunResult {
  Status status;
  Schedule schedule = Schedule::Wavefront;
  SchedulerPlacement placement = SchedulerPlacement::Host; // what ran
  std::string placementNote; // why the host ran when the device was asked
                             // (or Auto picked the host)
  uint64_t iterations = 0;
  uint64_t lanesFinished = 0;
  std::vector<StageStatistics> stages; // per global stage
};

// Called after every validated readback; tests use it to check invariants.
class IterationObserver {
public:
  virtual ~IterationObserver();
  // `observation` is the readback before this iteration's refill.
  virtual void observed(const Observation &observation) {}
  virtual void planned(const IterationRecord &record) {}
};

class WavefrontScheduler {
public:
  WavefrontScheduler(const ProgramDescriptor &program, Device &device,
                     SchedulerOptions options = {});
  ~WavefrontScheduler();
  WavefrontScheduler(const WavefrontScheduler &) = delete;
  WavefrontScheduler &operator=(const WavefrontScheduler &) = delete;

  // Validates the descriptor and allocates device buffers (once).
  Status prepare();
  // nullptr restores the default client (or the owner's compiled policy).
  // Clients outlive the scheduler. An owner with a compiled policy takes no
  // client: start() refuses, since the policy would be ignored.
  void setOwnerClient(uint32_t owner, CapacityOwnerClient *client);
  void setObserver(IterationObserver *observer) { observer_ = observer; }

  // Resets device, statistics and clients for a run of `lanes` lanes; the
  // device is re-allocated if someone else allocated it meanwhile.
  Status start(uint32_t lanes);
  // One iteration; after Failed, status() says why.
  StepResult step();
  // prepare() + start() + step() until done; reusable run after run.
  RunResult run(uint32_t lanes);

  RunState state() const { return state_; }
  const Status &status() const { return status_; }
  uint64_t iterations() const { return iteration_; }
  const std::vector<StageStatistics> &statistics() const { return stats_; }
  const ProgramShape &shape() const { return shape_; }
  const Observation &lastObservation() const { return observation_; }
  const IterationRecord &lastRecord() const { return record_; }

private:
  StepResult fail(Status status);
  Status validateObservation();
  // Per-stage statistics of one planned dispatch.
  void accountDispatch(const IterationRecord &record);
  Status iterationLimitError() const;
  Status noProgressError() const;
  // Empty when the device placement can run, otherwise why not.
  std::string devicePlacementBlocker() const;
  // The device placement's run: the records become statistics, observer
  // calls and the trace; the verdict becomes the same status as on the host.
  void runOnDevice();
  void accountPreviousDispatch();
  OwnerView ownerView(uint32_t owner) const;
  CapacityOwnerClient &client(uint32_t owner);
  // The owner's compiled policy when it runs (messages name its hooks).
  const OwnerPolicy *policyOf(uint32_t owner) const;
  std::span<uint32_t> ownerCounts(uint32_t owner);
  Status planProducer(uint32_t stage, IterationRecord &record);
  Status finishTrace();
  void logIteration(const IterationRecord &record);

  const ProgramDescriptor &program_;
  Device &device_;
  SchedulerOptions options_;
  ProgramShape shape_;
  RunState state_ = RunState::Unprepared;
  Status status_;
  std::vector<CapacityOwnerClient *> clients_;
  CapacityOwnerClient defaultClient_;
  // Per owner: the client of its compiled policy, or null.
  std::vector<std::unique_ptr<CapacityOwnerClient>> policyClients_;
  IterationObserver *observer_ = nullptr;

  uint32_t lanes_ = 0;
  uint64_t iteration_ = 0;
  Observation observation_;
  IterationRecord record_;
  std::vector<StageStatistics> stats_;
  std::vector<uint64_t> publishedBefore_; // per owner, at the last dispatch
  std::vector<uint64_t> releasedBefore_;
  uint32_t lastDispatchedStage_ = kNoStage;
  uint64_t deviceEpoch_ = 0; // device allocation made by prepare()
  std::chrono::steady_clock::time_point runStart_;
  std::unique_ptr<ChromeTraceRecorder> trace_;
  std::string iterationLog_; // options_.iterationLogPath's text
};

// The state-machine (megakernel) schedule of the same descriptor, for
// comparison: same kernels, same results, no host iterations.
// prepareStateMachine() + runPreparedStateMachine().
RunResult runStateMachine(const ProgramDescriptor &program, Device &device,
                          uint32_t lanes, uint32_t framePool);
// Its set-up: checks the program (no owner with a storage policy) and the
// frame pool, allocates the device's storage (Device::allocate) and the
// buffers of a run of `lanes` lanes (Device::reserveStateMachine).
Status prepareStateMachine(const ProgramDescriptor &program, Device &device,
                           uint32_t lanes, uint32_t framePool);
// Its run on a device that prepareStateMachine() set up (the runtime's
// Program::run keeps the set-up out of the schedule's wall time).
RunResult runPreparedStateMachine(Device &device, uint32_t lanes);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_WAVEFRONT_WAVEFRONT_H
