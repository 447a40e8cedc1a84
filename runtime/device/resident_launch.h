//===- resident_launch.h - A GPU device placement's launch -------*- C++ -*-===//
//
// Internal to the runtime. What CompiledKernelDevice hands an adapter whose
// kernels run the scheduler on the device (KernelPrimitives::runResident):
// the decision tables, the stage kernels' argument table (the same buffers
// as a host-placement dispatch), the buffers the scheduler fills, and how
// frames are sorted; and what the adapter returns.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_RESIDENT_LAUNCH_H
#define SLUICE_RUNTIME_DEVICE_RESIDENT_LAUNCH_H

#include "sluice/runtime/device/compiled_kernel_device.h"
#include "sluice/runtime/wavefront/resident_layout.h"

#include <span>
#include <vector>

namespace sluice::runtime {

struct ResidentLaunch {
  const decision::Tables *tables = nullptr; // host arrays
  const GpuKernelLayout *layout = nullptr;
  // The stage kernels' arguments (every array at its allocated size).
  std::span<const LaunchArgument> arguments;
  KernelBuffer *frames = nullptr;
  KernelBuffer *invocations = nullptr, *laneIds = nullptr,
               *nextStage = nullptr, *counters = nullptr,
               *publishedSlots = nullptr, *publishedCounts = nullptr,
               *allocLimits = nullptr, *fault = nullptr;
  std::vector<KernelBuffer *> windows; // per owner: its admission window
  // Per main stage: key bytes (0: none), SortKeyKind, step, column offset.
  std::vector<uint32_t> sortKeys;
  FrameSorting sorting;
  uint32_t maxInvocations = 0;
  bool times = true; // ResidentRun::times
  // Per owner: the words of its policy's storage (OwnerPolicy::storageWords)
  // and its compiled hooks (bit h: PolicyHook h; 0: no policy).
  std::vector<uint32_t> policyStorage, policyHooks;
};

struct ResidentLaunchResult {
  ResidentLog log; // records, snapshots, deltas, times, verdict, last
  uint32_t stopReason = decision::kStopRunning;
  uint32_t detail = 0;              // kStopShortSelect: members found
  std::vector<uint64_t> allocHeads; // per owner, at the end
  // On decision::kPolicyFault: the layout's policyFault words.
  std::vector<uint64_t> policyFault;
  uint32_t launches = 0;
  // The scheduler's profile, when one was asked for (a line of text).
  std::string profile;
  double gpuNanoseconds = 0; // the launches' device time
  // How the device ran an iteration, for the run summary ("a stage switch
  // dispatch per iteration"); empty when there is nothing to say.
  std::string form;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_RESIDENT_LAUNCH_H
