//===- resident_router.h - The device placement's loop on host memory -*- C++ -*-===//
//
// Internal to the runtime. The device placement of the wavefront scheduler
// (DESIGN.md §2.4) for devices whose kernels see host memory: every
// iteration runs decision::decide and the device form of the router
// (decision.h: one stage word per frame and per item slot, the canonical
// order) in the device's own loop, with no Observation handed to a host
// scheduler in between. The kernel arguments, the key order, the fault
// translation and the outcome messages are the HostRouter's, so the two
// placements report the same errors.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_RESIDENT_ROUTER_H
#define SLUICE_RUNTIME_DEVICE_RESIDENT_ROUTER_H

#include "host_router.h"

namespace sluice::runtime {

// The program as decision.h's flat tables (the arrays `tables` points at),
// shared by every device placement.
struct ResidentTables {
  std::vector<uint32_t> capacity, stageBase, stageCount, producerBegin,
      edgeOwner, edgeBound;
  decision::Tables tables;

  // `capacities`: per owner, its slots.
  void build(const ProgramShape &shape, uint32_t framePool,
             const ResidentRun &run, std::span<const uint32_t> capacities);
};


// Runs `kernel` over [0, args.count) and returns when it is done.
using ResidentKernelRunner = void (*)(void *context,
                                      sluice_rt_stage_kernel kernel,
                                      const sluice_rt_kernel_args &args);

// The whole run over `router` (allocated; reset here). Protocol faults end
// up in `log` (verdict or fault); the status is an invalid request.
Status runResidentLoop(HostRouter &router, const ResidentRun &run,
                       ResidentKernelRunner runKernel, void *context,
                       ResidentLog &log);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_RESIDENT_ROUTER_H
