//===- hip_resident.h - The hip backend's device placement ------*- C++ -*-===//
//
// Internal to the runtime. The wavefront scheduler's device placement on the
// hip backend (DESIGN.md §2.4, docs/runtime.md "The device placement on a
// GPU"): one persistent scheduler kernel (resident_kernel.hip), compiled at
// first use together with the program's HIP source so that it calls the
// stage kernels' `__device__` bodies, launched cooperatively (every block
// resident, so its grid barrier cannot deadlock) on a grid sized from the
// occupancy query.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_HIP_HIP_RESIDENT_H
#define SLUICE_RUNTIME_DEVICE_HIP_HIP_RESIDENT_H

#include "../resident_launch.h"
#include "../resident_state.h"
#include "sluice/runtime/device/hip/hip_driver.h"

#include <array>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace sluice::runtime::hip {

// Threads per block of the scheduler kernel (resident_kernel.hip).
inline constexpr uint32_t kResidentBlockThreads = 256;
// The scheduler kernel takes the layout's address and the stage kernels'
// parameter words by value (resident_kernel.hip's Words): together within
// the 4,096 bytes of parameters every CUDA and HIP device takes.
inline constexpr size_t kResidentMaxParameterWords = 4096 / 8 - 1;
// Unsupported, with the numbers, when `parameterCount` words do not fit.
Status checkResidentParameterWords(size_t parameterCount);

// The source NVRTC / hiprtc compiles: the program's source, decision.h,
// resident_layout.h, the scheduler kernel, and a generated
// sluice_resident_stage() that calls `bodies[s]` for global stage s with the
// `parameterCount` kernel parameter words (the count first) and the
// invocation.
std::string residentSchedulerSource(const std::string &programSource,
                                    std::span<const std::string> bodies,
                                    size_t parameterCount);

// The body function of a stage kernel's symbol ("<symbol>_body"), or an
// error when `programSource` has none.
Status stageBodySymbol(const std::string &programSource,
                       const std::string &symbol, std::string &body);

// The owners' policy hooks as the program's source gains them (empty when
// no owner has a policy): `sluice_policy_hook(owner, hook, storage, counts,
// C, L, slots, &value)`, a __device__ switch over owner * 4 + hook
// (PolicyHook) that calls `hooks[o][h]` (a __device__ function of
// `programSource`; empty: the default, and it returns 0), which the device
// placement's scheduler calls; and `sluice_policy_call`, an extern "C"
// kernel of one thread around it, which the host placement launches.
// Defines SLUICE_RESIDENT_POLICIES. An error names a hook the source lacks.
Status policyHookSource(const std::string &programSource,
                        std::span<const std::array<std::string, 4>> hooks,
                        std::string &out);
inline constexpr const char *kPolicyCallSymbol = "sluice_policy_call";

// SLUICE_HIP_PROFILE's summary line from ResidentLayout::profile's
// kProfileWords sums: the mean cycles of each of resident_kernel.hip's parts
// (SLUICE_MARK(0) .. SLUICE_MARK(9)) over the iterations that ran every part,
// and of the wait from MARK(9) to the next iteration's MARK(0) over the
// waits counted.
std::string residentProfileLine(const uint64_t *sums);

class ResidentScheduler {
public:
  ResidentScheduler() = default;
  ResidentScheduler(const ResidentScheduler &) = delete;
  ResidentScheduler &operator=(const ResidentScheduler &) = delete;
  ~ResidentScheduler();

  // Compiles and loads the scheduler kernel once (later calls return the
  // first result).
  Status prepare(Driver &driver, const std::string &programSource,
                 std::span<const std::string> symbols, size_t parameterCount);

  // The whole run. `parameters`: the stage kernels' parameter words with
  // every array at its allocated size; `address`: a launch argument's
  // device address.
  Status run(Driver &driver, void *stream, void *startEvent, void *endEvent,
             const ResidentLaunch &launch, std::span<const uint64_t> parameters,
             const std::function<DevicePointer(const KernelBuffer &)> &address,
             ResidentLaunchResult &out);

  // Before a run's clock: builds the state image of `launch`'s shape and
  // allocates its device buffer, which run() then reuses.
  Status prepareState(Driver &driver, const ResidentLaunch &launch);

  // Blocks of the last run's grid.
  uint32_t gridBlocks() const { return gridBlocks_; }

private:
  // The grid, the state's image (stateImage_) and its buffer (state_) of
  // `launch`.
  Status buildState(Driver &driver, const ResidentLaunch &launch);

  Driver *driver_ = nullptr;
  bool prepared_ = false;
  Status prepareStatus_;
  void *module_ = nullptr;
  void *function_ = nullptr;
  int blocksPerMultiprocessor_ = 0;
  DevicePointer state_ = 0;
  uint64_t stateBytes_ = 0;
  ResidentState stateImage_; // its memory reused by the next run
  std::vector<uint64_t> stateImageKey_; // buildResidentStateOnce's
  uint32_t gridBlocks_ = 0;
  size_t parameterCount_ = 0; // the kernel's Words
  bool profiled_ = false; // built with SLUICE_PROFILE (SLUICE_HIP_PROFILE=1)
};

} // namespace sluice::runtime::hip

#endif // SLUICE_RUNTIME_DEVICE_HIP_HIP_RESIDENT_H
