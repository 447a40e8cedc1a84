//===- device.h - Device interface of the wavefront runtime -----*- C++ -*-===//
//
// One interface for every backend. The scheduler allocates buffers once, then
// per iteration enqueues a refill and one stage dispatch on the device's
// in-order stream, and reads counts back only after same-stream completion.
// Kernel protocol faults (a publish beyond the bound, a frame neither moved
// nor finished) surface as errors from readCounts().
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_DEVICE_H
#define SLUICE_RUNTIME_DEVICE_DEVICE_H

#include "sluice/runtime/admission/admission.h"
#include "sluice/runtime/admission/owner_policy.h"
#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/wavefront/decision.h"
#include "sluice/runtime/wavefront/program.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace sluice::runtime {

// Counts read back after completion.
struct Observation {
  std::vector<uint32_t> stageCounts;    // per global stage
  std::vector<uint32_t> ownerLive;      // per owner, kept apart from the stages
  std::vector<uint64_t> ownerPublished; // per owner, this run
  std::vector<uint64_t> ownerReleased;  // per owner, this run
  uint32_t freeFrames = 0;
  uint64_t lanesStarted = 0;
  uint64_t lanesFinished = 0;

  void resize(const ProgramShape &shape);
};

// Per-stage totals of a state-machine (megakernel) run.
struct StateMachineReport {
  std::vector<StageStatistics> stages;
  uint64_t lanesFinished = 0;
  uint32_t workersUsed = 0;
};

// A run of the device placement (DESIGN.md §2.4): the device decides every
// iteration itself (decision.h, default owner policy) and the host reads
// back only when the run ends.
struct ResidentRun {
  uint32_t lanes = 0;
  bool partialAdmission = true;
  uint64_t maxIterations = 0; // 0: unbounded
  FrameSorting sorting;
  // Whether the records' times are wanted (the trace's): a device whose
  // clock reads cost time per iteration (Vulkan's timestamp queries) leaves
  // them 0 when not.
  bool times = true;
};

// What a device placement leaves for the host: per iteration the decision
// record and the counts it decided from (before that iteration's refill,
// packed by packCounts), the items its dispatch published and
// released, and when it happened; then why it stopped.
struct ResidentLog {
  std::vector<decision::Record> records;
  std::vector<uint64_t> snapshots; // observationWords() per record
  std::vector<uint64_t> itemsPublished, itemsReleased; // per record
  std::vector<uint32_t> orders; // per record: the order digest (main stages)
  // Per record: microseconds since the run started at which the decision
  // began, the dispatch began and it ended (0 where the device cannot tell).
  std::vector<double> decideUs, dispatchBeginUs, dispatchEndUs;
  decision::Verdict verdict = decision::kContinue;
  std::vector<uint64_t> last; // the counts the run stopped at (packed)
  Status fault;                // a kernel or routing fault, if any
  uint64_t readbacks = 0;      // host reads of device state during the run
};

// The counts of an iteration as observationWords(shape) 64-bit words: stage
// counts, owner live, published and released counts, free frames, lanes
// started, lanes finished. Device placements pack decision::Counts
// (packCounts; the GPU kernels write the same order), the host unpacks
// them into an Observation.
size_t observationWords(const ProgramShape &shape);
void packCounts(const decision::Tables &t, const decision::Counts &c,
                std::vector<uint64_t> &out);
void unpackObservation(const ProgramShape &shape, const uint64_t *words,
                       Observation &out);
// Owner `owner` of `program` as the counts of `observation` show it (its
// stage counts are a view into observation.stageCounts).
OwnerView observedOwner(const ProgramDescriptor &program,
                        const ProgramShape &shape,
                        const Observation &observation, uint32_t owner);

class Device {
public:
  virtual ~Device();
  virtual const char *name() const = 0;

  // Allocates frame, item and queue buffers for `framePool` frames.
  virtual Status allocate(const ProgramDescriptor &program,
                          const ProgramShape &shape, uint32_t framePool) = 0;
  // Starts a run on the same buffers: frames free, owners empty, counters 0.
  virtual void reset() = 0;
  // Enqueues: the next `lanes` lanes take free frames at the entry stage.
  virtual void refill(uint32_t lanes) = 0;
  // Enqueues: runs `stage` over the first `count` frames or items waiting
  // there. A device that sorts (setFrameSorting) runs the frames of a main
  // stage with a sort key in key order; results never depend on that order.
  virtual void dispatch(uint32_t stage, uint32_t count) = 0;
  // The order digest (decision::orderTerm) of the last dispatch of a main
  // stage: the frames in the order they ran; 0 where the device cannot tell.
  virtual uint32_t lastDispatchOrder() const { return 0; }
  // How later dispatches order the frames of main stages with a sort key.
  // The default ignores it: sorting is a hint, and a device that does not
  // sort runs the frames in queue order.
  virtual void setFrameSorting(const FrameSorting &sorting);
  // Waits for everything enqueued, then reads the counts.
  virtual Status readCounts(Observation &out) = 0;

  // Makes, before a run starts its clock, what the run will need that is
  // costly to make the first time (a GPU driver compiling a pipeline), so
  // that the run's time is the run's: the state-machine schedule's
  // megakernel when `stateMachine`, the device placement's kernels when
  // `resident`. Later runs find them made. The default has nothing to make.
  virtual Status prepare(bool stateMachine, bool resident);

  // The state-machine schedule: every lane runs to completion inside one
  // megakernel launch; items are handled by the lane's worker right after
  // they are published.
  virtual Status runStateMachine(uint32_t lanes, StateMachineReport &report);
  // After allocate(): makes the buffers a state-machine run of `lanes` lanes
  // needs, so that runStateMachine() finds them made (it makes whatever is
  // missing, and reports a failure to make it). Nothing by default.
  virtual Status reserveStateMachine(uint32_t lanes);

  // The device placement: success when this device can run the decision
  // loop itself, otherwise why not (the scheduler then keeps the host
  // placement and says so).
  virtual Status residentSupport() const;
  // Whether the device placement calls the owners' compiled storage
  // policies (OwnerDesc::policy); a device that does not keeps the host
  // placement for programs that have one.
  virtual bool runsOwnerPolicies() const { return false; }
  // Whether SchedulerPlacement::Auto picks the device placement: true where
  // it is the faster one (no round trip per iteration on a GPU); false by
  // default and on the CPU devices, whose host placement is faster (it has
  // no round trip to remove).
  virtual bool prefersDevicePlacement() const { return false; }
  // The client that runs owner `owner`'s compiled policy in the host
  // placement, as storage-only work ordered with this device's dispatches.
  // The default calls the host functions the CPU backend resolved
  // (CompiledPolicyClient); a GPU device runs the hooks in its own code.
  virtual std::unique_ptr<CapacityOwnerClient>
  policyClient(uint32_t owner, const OwnerPolicy &policy);
  // Runs every iteration on the device, after allocate(). Fills `log`; a
  // non-success status is a device failure, protocol faults are in `log`.
  virtual Status runResident(const ResidentRun &run, ResidentLog &log);

  // Changes with every successful allocate(), so a scheduler notices that
  // another user re-allocated the device since its own allocate().
  uint64_t allocationEpoch() const { return allocationEpoch_; }

protected:
  void noteAllocation() { ++allocationEpoch_; }

private:
  uint64_t allocationEpoch_ = 0;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_DEVICE_H
