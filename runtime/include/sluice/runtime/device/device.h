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
#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/wavefront/program.h"

#include <cstdint>
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
  // How later dispatches order the frames of main stages with a sort key.
  // The default ignores it: sorting is a hint, and a device that does not
  // sort runs the frames in queue order.
  virtual void setFrameSorting(const FrameSorting &sorting);
  // Waits for everything enqueued, then reads the counts.
  virtual Status readCounts(Observation &out) = 0;

  // The state-machine schedule: every lane runs to completion inside one
  // megakernel launch; items are handled by the lane's worker right after
  // they are published.
  virtual Status runStateMachine(uint32_t lanes, StateMachineReport &report);

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
