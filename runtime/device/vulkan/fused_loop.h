//===- fused_loop.h - The scheduler shader linked with a program -*- C++
//-*-===//
//
// The Vulkan device placement's fused loop (docs/runtime.md "The fused
// loop"): the scheduler shader built with SLUICE_FUSED (entry point
// sluice_resident_loop, one workgroup running a batch of iterations) calls
// sluice_stage_run, which the program's module defines
// (sluice-spirv-stage-switch). The two modules become one with SPIRV-Tools'
// linker here, at run time, since the program is known only then.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_VULKAN_FUSED_LOOP_H
#define SLUICE_RUNTIME_DEVICE_VULKAN_FUSED_LOOP_H

#include "sluice/runtime/admission/status.h"

#include <cstdint>
#include <span>
#include <vector>

namespace sluice::runtime::vulkan {

// The fused loop's entry point in the linked module.
inline constexpr const char *kFusedLoopEntry = "sluice_resident_loop";
// The function the program exports and the scheduler imports.
inline constexpr const char *kStageRunName = "sluice_stage_run";

// Links `scheduler` (the fused scheduler shader, whose sluice_stage_run is
// a placeholder) with `program` (a wave program's SPIR-V with
// sluice_stage_run) into `out`, validated for Vulkan 1.2. Unsupported, with
// the reason, when the program has no sluice_stage_run, is SPIR-V 1.4 or
// later (its entry points' interfaces would need every global), or when the
// linker or the validator refuse the result.
Status linkFusedLoop(std::span<const uint32_t> program,
                     std::span<const uint32_t> scheduler,
                     std::vector<uint32_t> &out);

} // namespace sluice::runtime::vulkan

#endif // SLUICE_RUNTIME_DEVICE_VULKAN_FUSED_LOOP_H
