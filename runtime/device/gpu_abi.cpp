//===- gpu_abi.cpp - Compiled kernel arguments <-> sluice_rt_kernel_args --===//

#include "sluice/runtime/device/gpu_abi.h"
#include "sluice/runtime/device/worker_pool.h"

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
      // The ring from the head, wrapping at most once (window <= capacity).
      const uint64_t start = head % slots.capacity;
      const uint64_t firstRun = std::min(window, slots.capacity - start);
      std::copy_n(slots.free_ring + start, firstRun, views.rings[o]);
      std::copy_n(slots.free_ring, window - firstRun,
                  views.rings[o] + firstRun);
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
                           GpuDispatchViews &views, WorkerPool *workers) {
  const sluice_rt_owner_slots &slots = args.owners[owner];
  const uint64_t window = uint32_t(views.allocLimits[owner]);
  const uint64_t bound = slots.bound;
  const uint32_t *ring = views.rings[owner];
  // Invocation i's published count, read at counts[i * stride].
  const uint32_t *counts =
      args.published_counts + uint64_t(begin) * args.owner_count + owner;
  const uint64_t stride = args.owner_count;
  // The invocations whose positions start inside the window.
  const uint64_t covered =
      std::min<uint64_t>(count, (window + bound - 1) / bound);
  auto takenEnd = [&](uint64_t i, uint64_t first) {
    return std::min(first + std::min<uint64_t>(counts[i * stride], bound),
                    window);
  };
  // The positions invocations [from, to) took.
  auto tally = [&](uint64_t from, uint64_t to) {
    uint64_t taken = 0;
    for (uint64_t i = from, first = from * bound; i < to; ++i, first += bound)
      taken += takenEnd(i, first) - first;
    return taken;
  };
  // Writes the positions of invocations [from, to): those taken from
  // `used` on, the others from `unused` on.
  auto split = [&](uint64_t from, uint64_t to, uint32_t *used,
                   uint32_t *unused) {
    if (bound == 1) { // one position an invocation: taken or not
      for (uint64_t i = from; i < to; ++i)
        *(counts[i * stride] != 0 ? used++ : unused++) = ring[i];
      return;
    }
    for (uint64_t i = from, first = from * bound; i < to; ++i, first += bound) {
      const uint64_t end = takenEnd(i, first);
      const uint64_t last = std::min(first + bound, window);
      used = std::copy(ring + first, ring + end, used);
      unused = std::copy(ring + end, ring + last, unused);
    }
  };
  std::vector<uint32_t> &order = views.compacted;
  growScratch(order, window);
  uint64_t taken = 0;
  if (uint32_t chunks = chunkCount(workers, covered); chunks > 1) {
    // Each chunk's positions taken first; then each chunk writes its taken
    // positions after those of the chunks before it, and its others after
    // theirs.
    std::vector<uint64_t> takenBefore(chunks + 1, 0);
    auto tallyChunk = [&](uint32_t chunk, uint64_t from, uint64_t to) {
      takenBefore[chunk + 1] = tally(from, to);
    };
    runChunks(*workers, chunks, covered, tallyChunk);
    for (uint32_t c = 0; c < chunks; ++c)
      takenBefore[c + 1] += takenBefore[c];
    taken = takenBefore[chunks];
    auto splitChunk = [&](uint32_t chunk, uint64_t from, uint64_t to) {
      const uint64_t positionsBefore = std::min(from * bound, window);
      split(from, to, order.data() + takenBefore[chunk],
            order.data() + taken + (positionsBefore - takenBefore[chunk]));
    };
    runChunks(*workers, chunks, covered, splitChunk);
  } else {
    taken = tally(0, covered);
    split(0, covered, order.data(), order.data() + taken);
  }
  // Then the positions past the last invocation's.
  uint32_t *unused = order.data() + std::min(covered * bound, window);
  if (covered * bound < window)
    std::copy(ring + covered * bound, ring + window, unused);
  // The ring is the router's (read-only to the kernels, hence the ABI's
  // const); the window is not free to anyone else during the dispatch.
  auto *freeRing = const_cast<uint32_t *>(slots.free_ring);
  const uint64_t start = views.ringHeads[owner] % slots.capacity;
  const uint64_t firstRun = std::min(window, slots.capacity - start);
  std::copy(order.data(), order.data() + firstRun, freeRing + start);
  std::copy(order.data() + firstRun, order.data() + window, freeRing);
  return taken;
}

} // namespace

void finishGpuDispatch(const GpuKernelLayout &layout,
                       const sluice_rt_kernel_args &args, uint32_t begin,
                       uint32_t count, GpuDispatchViews &views,
                       WorkerPool *workers) {
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
    uint64_t taken =
        layout.lanePublishPositions
            ? compactLaneWindow(args, o, begin, count, views, workers)
            : uint32_t(views.counters[layout.allocBase + o]);
    std::atomic_ref<uint64_t>(*slots.alloc_head).fetch_add(taken);
    const uint32_t compiledBase = layout.ownerPublishBase[o];
    auto copy = [&](uint32_t, uint64_t first, uint64_t end) {
      const uint32_t *counts =
          args.published_counts + (begin + first) * ownerCount + o;
      uint32_t *to = args.published_slots +
                     (begin + first) * args.publish_stride + slots.publish_base;
      const uint32_t *from =
          views.publishedSlots + first * layout.publishStride + compiledBase;
      for (uint64_t i = first; i < end; ++i, counts += ownerCount,
                    to += args.publish_stride, from += layout.publishStride) {
        // Most invocations publish nothing or a slot or two.
        const uint32_t published = std::min(*counts, slots.bound);
        for (uint32_t k = 0; k < published; ++k)
          to[k] = from[k];
      }
    };
    if (uint32_t chunks = chunkCount(workers, count); chunks > 1)
      runChunks(*workers, chunks, count, copy);
    else
      copy(0, 0, count);
  }
}

} // namespace sluice::runtime
