//===- cpu_device.h - CPU device adapter ------------------------*- C++ -*-===//
//
// Stage kernels are C function pointers (c_api.h) run block by block on a
// worker pool. Item slots come from a per-owner ring of free slot indices
// claimed with an atomic counter; outcomes are written per invocation and
// routed to stage queues in invocation order after the kernel, so queue order
// does not depend on thread timing.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_CPU_DEVICE_H
#define SLUICE_RUNTIME_DEVICE_CPU_DEVICE_H

#include "sluice/runtime/device/device.h"

#include <functional>
#include <memory>

namespace sluice::runtime {

class WorkerPool;

struct CpuDeviceOptions {
  uint32_t workers = 0;    // 0: one per core
  uint32_t blockSize = 64; // invocations per block
  size_t arenaInlineBytes = size_t(4) << 20;
  // Lanes a run may start (the lanes compiled kernels were loaded for).
  uint64_t laneLimit = UINT64_MAX;
  // The workers that run the blocks and, between dispatches, the router's
  // host work on large dispatches (routing outcomes, sorting by key). Null:
  // the device makes a pool of its own of `workers` workers. A device whose
  // kernels launch their blocks themselves (compiled kernels) passes the
  // pool they launch on (sharedWorkerPool), so that one set of threads does
  // both.
  WorkerPool *pool = nullptr;
};

// Where a wavefront run's time went on the CPU device, since its reset().
struct CpuDeviceStats {
  uint64_t dispatches = 0;
  double dispatchNanoseconds = 0; // all of dispatch(): routing, sorting, kernel
  double kernelNanoseconds = 0;   // the blocks, on the workers
  uint64_t sortedDispatches = 0;  // ordered by a sort key
  double sortNanoseconds = 0;     // reading and sorting the keys
};

class HostRouter;

class CpuDevice final : public Device {
public:
  explicit CpuDevice(CpuDeviceOptions options = {});
  ~CpuDevice() override;

  const char *name() const override { return "cpu"; }
  uint32_t workerCount() const;
  const CpuDeviceStats &stats() const;

  Status allocate(const ProgramDescriptor &program, const ProgramShape &shape,
                  uint32_t framePool) override;
  void reset() override;
  void refill(uint32_t lanes) override;
  void setFrameSorting(const FrameSorting &sorting) override;
  void dispatch(uint32_t stage, uint32_t count) override;
  uint32_t lastDispatchOrder() const override;
  Status readCounts(Observation &out) override;
  Status runStateMachine(uint32_t lanes, StateMachineReport &report) override;
  // Runs the state-machine schedule by other means than this device's loop,
  // which calls the stage kernels one invocation at a time: a loaded
  // artifact's compiled megakernel (runtime/device/cpu/compiled_program.cpp),
  // given the device's router and its frame memory. Without one, the loop.
  using StateMachineRunner = std::function<Status(
      HostRouter &router, unsigned char *frames, uint64_t frameBytes,
      uint32_t lanes, StateMachineReport &report)>;
  void setStateMachineRunner(StateMachineRunner runner);
  // The device placement: the decision loop runs in the device (decision.h
  // and the router's device form), the same code the GPU placements run.
  Status residentSupport() const override;
  // The device loop calls compiled owner policies (owner_policy.h).
  bool runsOwnerPolicies() const override { return true; }
  Status runResident(const ResidentRun &run, ResidentLog &log) override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_CPU_DEVICE_H
