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

namespace {

// Lane positions: invocation i took window positions [i * bound, i * bound
// + p_i). Rewrites the window in the free ring as those slots in invocation
// order, then the positions no invocation took, so that the ring's head
// advances over exactly the slots taken; returns their count.
uint64_t compactLaneWindow(const sluice_rt_kernel_args &args, uint32_t owner,
                           uint32_t begin, uint32_t count,
                           GpuDispatchViews &views) {
  const sluice_rt_owner_slots &slots = args.owners[owner];
  const uint64_t window = uint32_t(views.allocLimits[owner]);
  const uint32_t *ring = views.rings[owner];
  std::vector<uint32_t> &order = views.compacted;
  order.resize(window);
  auto takenBy = [&](uint32_t i) {
    uint64_t first = uint64_t(i) * slots.bound;
    uint64_t published = std::min(
        args.published_counts[(uint64_t(begin) + i) * args.owner_count + owner],
        slots.bound);
    return std::make_pair(first, std::min(first + published, window));
  };
  uint64_t taken = 0;
  for (uint32_t i = 0; i < count; ++i) {
    auto [first, end] = takenBy(i);
    taken += end > first ? end - first : 0;
  }
  uint64_t used = 0, unused = taken;
  for (uint32_t i = 0; i < count && uint64_t(i) * slots.bound < window; ++i) {
    auto [first, end] = takenBy(i);
    uint64_t last = std::min(first + slots.bound, window);
    for (uint64_t p = first; p < end; ++p)
      order[used++] = ring[p];
    for (uint64_t p = std::max(first, end); p < last; ++p)
      order[unused++] = ring[p];
  }
  for (uint64_t p = uint64_t(count) * slots.bound; p < window; ++p)
    order[unused++] = ring[p];
  // The ring is the router's (read-only to the kernels, hence the ABI's
  // const); the window is not free to anyone else during the dispatch.
  auto *freeRing = const_cast<uint32_t *>(slots.free_ring);
  const uint64_t head = views.ringHeads[owner];
  for (uint64_t k = 0; k < window; ++k)
    freeRing[(head + k) % slots.capacity] = order[k];
  return taken;
}

} // namespace

void finishGpuDispatch(const GpuKernelLayout &layout,
                       const sluice_rt_kernel_args &args, uint32_t begin,
                       uint32_t count, GpuDispatchViews &views) {
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
    uint64_t taken = layout.lanePublishPositions
                         ? compactLaneWindow(args, o, begin, count, views)
                         : uint32_t(views.counters[layout.allocBase + o]);
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
