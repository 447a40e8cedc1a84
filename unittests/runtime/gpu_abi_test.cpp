//===- gpu_abi_test.cpp - Compiled kernel arguments, lane positions -------===//
//
// finishGpuDispatch of a main-stage dispatch, one owner (capacity 8, bound 2,
// free-ring head 3, so the window wraps): with claimed positions the kernel's
// claim counter says how far the head advances; with lane positions
// (backends.cpu.publish_positions "lane") invocation i took positions
// [2i, 2i + p_i) and the window is compacted in the free ring. The expected
// rings below are derived by hand from that rule.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/gpu_abi.h"
#include "sluice/runtime/device/worker_pool.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <string>

namespace sluice::runtime {
namespace {

// One owner's main-stage dispatch of `count` invocations of bound `bound`:
// the free ring holds slots first, first + 1, ... from position 0, its head
// at `head`, and the kernel may take `window` positions from there.
struct OwnerDispatch {
  uint32_t count, bound, capacity;
  GpuKernelLayout layout;
  std::vector<uint32_t> freeRing;
  uint64_t allocHead;
  sluice_rt_owner_slots slots{};
  sluice_rt_fault fault{};
  std::vector<uint32_t> publishedSlots, publishedCounts, kernelSlots, ring;
  sluice_rt_kernel_args args{};
  std::vector<int32_t> counters = std::vector<int32_t>(4, 0);
  std::vector<int32_t> allocLimits = std::vector<int32_t>(1);
  int32_t kernelFault[kGpuFaultWords] = {};
  GpuDispatchViews views;

  OwnerDispatch(uint32_t count, uint32_t bound, uint32_t capacity,
                uint64_t head, uint32_t window, uint32_t first)
      : count(count), bound(bound), capacity(capacity), freeRing(capacity),
        allocHead(head), publishedSlots(count * bound, 0xFFFFFFFFu),
        publishedCounts(count, 0), kernelSlots(count * bound), ring(capacity) {
    layout.counterCount = 4;
    layout.allocBase = 3;
    layout.publishStride = bound;
    layout.ownerPublishBase = {0};
    layout.ownerCapacity = {capacity};
    std::iota(freeRing.begin(), freeRing.end(), first);
    slots.free_ring = freeRing.data();
    slots.alloc_head = &allocHead;
    slots.alloc_limit = allocHead + window;
    slots.capacity = capacity;
    slots.bound = bound;
    args.count = count;
    args.owner = SLUICE_RT_NO_OWNER;
    args.owner_count = 1;
    args.publish_stride = bound;
    args.owners = &slots;
    args.published_slots = publishedSlots.data();
    args.published_counts = publishedCounts.data();
    args.fault = &fault;
    views.counters = counters.data();
    views.allocLimits = allocLimits.data();
    views.publishedSlots = kernelSlots.data();
    views.fault = kernelFault;
    views.rings = {ring.data()};
  }
  // What a kernel does when invocation `i` publishes at window position `p`.
  void publish(uint32_t i, uint32_t p) {
    kernelSlots[i * bound + publishedCounts[i]++] = ring[p];
  }
};

// Capacity 8, bound 2, head 3, so the window wraps: slots 10..17; positions
// 3..7 then 0..2 hold 13..17 then 10..12.
struct OneOwnerDispatch : OwnerDispatch {
  static constexpr uint32_t kCount = 3, kBound = 2, kCapacity = 8;
  OneOwnerDispatch()
      : OwnerDispatch(kCount, kBound, kCapacity, 3, kCapacity, 10) {}
  std::vector<uint32_t> ringFromHead() const {
    std::vector<uint32_t> out;
    for (uint32_t k = 0; k < kCapacity; ++k)
      out.push_back(freeRing[(3 + k) % kCapacity]);
    return out;
  }
};

TEST(GpuAbi, ThePrepareCopiesTheWindowFromTheHead) {
  OneOwnerDispatch d;
  prepareGpuDispatch(d.layout, d.args, d.kCount, d.views);
  EXPECT_EQ(d.allocLimits[0], 6); // count * bound
  EXPECT_EQ(std::vector<uint32_t>(d.ring.begin(), d.ring.begin() + 6),
            (std::vector<uint32_t>{13, 14, 15, 16, 17, 10}));
}

TEST(GpuAbi, ClaimedPositionsAdvanceTheHeadByTheClaims) {
  OneOwnerDispatch d;
  prepareGpuDispatch(d.layout, d.args, d.kCount, d.views);
  // Claims in the order the lanes ran: invocation 2, then 0, then 2.
  d.publish(2, 0);
  d.publish(0, 1);
  d.publish(2, 2);
  d.counters[d.layout.allocBase] = 3;
  finishGpuDispatch(d.layout, d.args, 0, d.kCount, d.views);
  EXPECT_EQ(d.allocHead, 6u);
  EXPECT_EQ(d.ringFromHead(),
            (std::vector<uint32_t>{13, 14, 15, 16, 17, 10, 11, 12}))
      << "claimed positions leave the ring as it was";
  EXPECT_EQ(d.publishedSlots[0], 14u);
  EXPECT_EQ(d.publishedSlots[4], 13u);
  EXPECT_EQ(d.publishedSlots[5], 15u);
}

TEST(GpuAbi, LanePositionsCompactTheWindow) {
  OneOwnerDispatch d;
  d.layout.lanePublishPositions = true;
  prepareGpuDispatch(d.layout, d.args, d.kCount, d.views);
  // Invocation 0 publishes once (position 0), 1 not at all, 2 twice
  // (positions 4 and 5); the claim counter stays 0.
  d.publish(0, 0);
  d.publish(2, 4);
  d.publish(2, 5);
  finishGpuDispatch(d.layout, d.args, 0, d.kCount, d.views);
  EXPECT_EQ(d.allocHead, 6u) << "the head advances over the 3 slots taken";
  // Window positions 0..5 held 13 14 15 16 17 10: taken 13, 17, 10 in
  // invocation order, then the untaken 14, 15, 16 in position order.
  EXPECT_EQ(d.ringFromHead(),
            (std::vector<uint32_t>{13, 17, 10, 14, 15, 16, 11, 12}));
  EXPECT_EQ(d.publishedSlots[0], 13u);
  EXPECT_EQ(d.publishedSlots[4], 17u);
  EXPECT_EQ(d.publishedSlots[5], 10u);
}

TEST(GpuAbi, LanePositionsOfAWindowSmallerThanTheDispatch) {
  // An available window of 3 for 3 invocations of bound 2 (the admission
  // would dispatch only one; the host takes what the kernel published).
  OneOwnerDispatch d;
  d.layout.lanePublishPositions = true;
  d.slots.alloc_limit = d.allocHead + 3;
  prepareGpuDispatch(d.layout, d.args, d.kCount, d.views);
  ASSERT_EQ(d.allocLimits[0], 3);
  d.publish(1, 2); // invocation 1's first position; 0 published nothing
  finishGpuDispatch(d.layout, d.args, 0, d.kCount, d.views);
  EXPECT_EQ(d.allocHead, 4u);
  EXPECT_EQ(d.ringFromHead(),
            (std::vector<uint32_t>{15, 13, 14, 16, 17, 10, 11, 12}));
}

// A large dispatch with lane positions, finished on one thread and in
// chunks on four workers: the same free ring, head and publish records. The
// hand-derived cases above check the one-thread form.
struct LargeDispatch : OwnerDispatch {
  LargeDispatch(uint32_t count, uint32_t bound, uint32_t window, uint32_t seed)
      : OwnerDispatch(count, bound, count * bound + 777,
                      count * bound + 277, // the window wraps
                      window, 1000) {
    layout.lanePublishPositions = true;
    prepareGpuDispatch(layout, args, count, views);
    // Invocation i takes the first p_i of its positions inside the window.
    std::mt19937 random(seed);
    for (uint32_t i = 0; i < count; ++i)
      for (uint32_t k = 0, p = random() % (bound + 1); k < p; ++k)
        if (uint64_t(i) * bound + k < uint32_t(allocLimits[0]))
          publish(i, i * bound + k);
  }
};

TEST(GpuAbi, LanePositionsInChunksCompactAsOneThreadDoes) {
  WorkerPool workers(4);
  for (uint32_t bound : {1u, 3u})
    for (uint32_t window :
         {20000u * bound, 9000u * bound, 20000u * bound / 2 + 1}) {
      SCOPED_TRACE("bound " + std::to_string(bound) + ", window " +
                   std::to_string(window));
      LargeDispatch one(20000, bound, window, bound * 7 + window);
      LargeDispatch chunked(20000, bound, window, bound * 7 + window);
      ASSERT_GT(chunkCount(&workers, std::min(20000u, window)), 1u);
      finishGpuDispatch(one.layout, one.args, 0, one.count, one.views);
      finishGpuDispatch(chunked.layout, chunked.args, 0, chunked.count,
                        chunked.views, &workers);
      EXPECT_GT(one.allocHead, one.capacity - 500); // something was taken
      EXPECT_EQ(one.allocHead, chunked.allocHead);
      EXPECT_EQ(one.freeRing, chunked.freeRing);
      EXPECT_EQ(one.publishedSlots, chunked.publishedSlots);
    }
}

} // namespace
} // namespace sluice::runtime
