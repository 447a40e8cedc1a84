//===- gpu_abi.cpp - Compiled kernel arguments <-> sluice_rt_kernel_args --===//

#include "sluice/runtime/device/gpu_abi.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace sluice::runtime {

void prepareGpuDispatch(const GpuKernelLayout &layout,
                        const sluice_rt_kernel_args &args, uint32_t count,
                        GpuDispatchViews &views) {
  uint32_t ownerCount = args.owner_count;
  bool mainStage = args.owner == SLUICE_RT_NO_OWNER;
  std::fill_n(views.counters, layout.counterCount, 0);
  std::fill_n(views.fault, kGpuFaultWords, 0);
  views.ringHeads.assign(ownerCount, 0);
  for (uint32_t o = 0; o < ownerCount; ++o) {
    const sluice_rt_owner_slots &slots = args.owners[o];
    uint64_t window = 0;
    if (mainStage && slots.bound != 0 && slots.capacity != 0) {
      uint64_t head = std::atomic_ref<uint64_t>(*slots.alloc_head).load();
      uint64_t available =
          slots.alloc_limit > head ? slots.alloc_limit - head : 0;
      window = std::min<uint64_t>(available, uint64_t(count) * slots.bound);
      // The kernel takes positions modulo its compile-time capacity.
      window = std::min<uint64_t>(window, layout.ownerCapacity[o]);
      for (uint64_t k = 0; k < window; ++k)
        views.rings[o][k] = slots.free_ring[(head + k) % slots.capacity];
      views.ringHeads[o] = head;
    }
    views.allocLimits[o] = int32_t(window);
  }
}

void finishGpuDispatch(const GpuKernelLayout &layout,
                       const sluice_rt_kernel_args &args, uint32_t begin,
                       uint32_t count, const GpuDispatchViews &views) {
  uint32_t ownerCount = args.owner_count;
  const int32_t *fault = views.fault;
  if (fault[0] != SLUICE_RT_FAULT_NONE) {
    uint32_t expected = SLUICE_RT_FAULT_NONE;
    if (std::atomic_ref<uint32_t>(args.fault->code)
            .compare_exchange_strong(expected, uint32_t(fault[0]))) {
      uint32_t owner = uint32_t(fault[3]);
      args.fault->stage = uint32_t(fault[1]);
      args.fault->invocation = uint32_t(fault[2]) + begin;
      args.fault->owner = owner;
      uint64_t value = uint32_t(fault[4]);
      // The kernel counts ring positions from its window's start.
      if (fault[0] == SLUICE_RT_FAULT_POOL_EXHAUSTED && owner < ownerCount)
        value += views.ringHeads[owner];
      args.fault->value = value;
    }
  }
  if (args.owner != SLUICE_RT_NO_OWNER)
    return;
  for (uint32_t o = 0; o < ownerCount; ++o) {
    const sluice_rt_owner_slots &slots = args.owners[o];
    if (slots.bound == 0)
      continue;
    uint64_t taken = uint32_t(views.counters[layout.allocBase + o]);
    std::atomic_ref<uint64_t>(*slots.alloc_head).fetch_add(taken);
    uint32_t compiledBase = layout.ownerPublishBase[o];
    for (uint32_t i = 0; i < count; ++i) {
      uint64_t invocation = uint64_t(begin) + i;
      uint32_t published = std::min(
          args.published_counts[invocation * ownerCount + o], slots.bound);
      std::memcpy(args.published_slots + invocation * args.publish_stride +
                      slots.publish_base,
                  views.publishedSlots + uint64_t(i) * layout.publishStride +
                      compiledBase,
                  published * sizeof(uint32_t));
    }
  }
}

} // namespace sluice::runtime
