//===- arena_test.cpp - Coroutine frame arena (DESIGN.md §2.2) ------------===//

#include "sluice/runtime/arena/arena.h"
#include "sluice/runtime/c_api.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <latch>
#include <thread>
#include <utility>
#include <vector>

using namespace sluice::runtime;

namespace {

constexpr size_t kMiB = size_t(1) << 20;
constexpr size_t kFrame72KiB = 72 * 1024;
constexpr size_t kMin = FrameArena::kMinAlignment;

uintptr_t address(const void *pointer) {
  return reinterpret_cast<uintptr_t>(pointer);
}

// Frames handed out in one block must never overlap.
void expectDisjoint(std::vector<std::pair<uintptr_t, size_t>> frames) {
  std::sort(frames.begin(), frames.end());
  for (size_t i = 1; i < frames.size(); ++i)
    ASSERT_LE(frames[i - 1].first + frames[i - 1].second, frames[i].first)
        << "frames " << i - 1 << " and " << i << " overlap";
}

} // namespace

// On an LP64 target two pointers are 16 bytes and the inline region is
// 4 MiB = 4194304 bytes, so 1-byte frames sit 16 bytes apart and exactly
// 4194304 / 16 = 262144 of them fill the inline region (one heap allocation
// of 4194304 bytes); frame 262145 opens the first overflow chunk.
TEST(FrameArena, MinimumAlignmentIsTwoPointers) {
  static_assert(FrameArena::kMinAlignment == 2 * sizeof(intptr_t));
  static_assert(FrameArena::kDefaultInlineBytes == 4 * kMiB);
  static_assert(sizeof(intptr_t) == 8, "the values below are for LP64");
  EXPECT_EQ(FrameArena::kMinAlignment, 16u);
  EXPECT_EQ(FrameArena::kDefaultInlineBytes, 4194304u);

  CountingHeapAllocator heap;
  FrameArena arena(FrameArena::kDefaultInlineBytes, heap);
  EXPECT_EQ(arena.inlineCapacity(), 4194304u);
  const uintptr_t first = address(arena.allocate(1).pointer);
  EXPECT_EQ(first % 16, 0u);
  EXPECT_EQ(heap.allocations(), 1u);
  EXPECT_EQ(heap.liveBytes(), 4194304u);
  for (uintptr_t frame = 1; frame < 262144; ++frame)
    ASSERT_EQ(address(arena.allocate(1).pointer), first + 16 * frame)
        << "frame " << frame;
  EXPECT_EQ(arena.inlineBytesUsed(), 4194304u);
  EXPECT_EQ(arena.chunkCount(), 0u);
  EXPECT_EQ(heap.allocations(), 1u);
  ASSERT_NE(arena.allocate(1).pointer, nullptr);
  EXPECT_EQ(arena.chunkCount(), 1u);
  EXPECT_EQ(heap.allocations(), 2u);
}

TEST(FrameArena, EverySizeFromZeroIsAlignedAndDisjoint) {
  for (size_t align : {size_t(0), size_t(1), size_t(8), size_t(16), size_t(32),
                       size_t(256), size_t(4096)}) {
    SCOPED_TRACE("align " + std::to_string(align));
    FrameArena arena;
    size_t expectedAlign = std::max(align, kMin);
    std::vector<std::pair<uintptr_t, size_t>> frames;
    for (size_t size = 0; size <= 4096; ++size) {
      ArenaAllocation frame = arena.allocate(size, align);
      ASSERT_EQ(frame.error, ArenaError::None) << "size " << size;
      ASSERT_NE(frame.pointer, nullptr);
      ASSERT_EQ(address(frame.pointer) % expectedAlign, 0u) << "size " << size;
      std::memset(frame.pointer, 0xA5, size); // writable over its full size
      frames.push_back({address(frame.pointer), std::max<size_t>(size, 1)});
    }
    expectDisjoint(frames);
  }
}

TEST(FrameArena, ZeroSizedFramesHaveDistinctAddresses) {
  FrameArena arena;
  void *first = arena.allocate(0).pointer;
  void *second = arena.allocate(0).pointer;
  EXPECT_NE(first, second);
  EXPECT_EQ(address(second) - address(first), kMin);
}

// 72 KiB is a multiple of 4 KiB, so each frame occupies 72 KiB + one 64-byte
// color line. 64 lanes x (72 KiB + 64) = 4.5 MiB + 4 KiB:
// floor(4 MiB / (72 KiB + 64)) = 56 frames fit the inline region; frame 56
// (0-based) is the first to need an overflow chunk of
// max(72 KiB + 64 + header, 4 MiB) = 4 MiB, which then holds frames 57..63.
TEST(FrameArena, OverflowChunkAppearsExactlyWhenInlineRegionIsExhausted) {
  CountingHeapAllocator heap;
  FrameArena arena(FrameArena::kDefaultInlineBytes, heap);
  const size_t occupied = kFrame72KiB + 64;
  const size_t inlineFrames = (4 * kMiB) / occupied;
  ASSERT_EQ(inlineFrames, 56u);
  std::vector<unsigned char *> frames;
  for (size_t lane = 0; lane < 64; ++lane) {
    ArenaAllocation frame = arena.allocate(kFrame72KiB, 16);
    ASSERT_EQ(frame.error, ArenaError::None);
    frames.push_back(static_cast<unsigned char *>(frame.pointer));
    // Lane data fills the whole frame.
    std::memset(frame.pointer, int(lane + 1), kFrame72KiB);
    EXPECT_EQ(heap.allocations(), lane < inlineFrames ? 1u : 2u)
        << "lane " << lane;
    EXPECT_EQ(arena.chunkCount(), lane < inlineFrames ? 0u : 1u);
  }
  EXPECT_EQ(arena.inlineBytesUsed(), inlineFrames * occupied);
  EXPECT_EQ(heap.liveBytes(), 4 * kMiB + 4 * kMiB);
  for (size_t lane = 0; lane < 64; ++lane) {
    EXPECT_EQ(frames[lane][0], lane + 1);
    EXPECT_EQ(frames[lane][kFrame72KiB - 1], lane + 1);
  }
  std::vector<std::pair<uintptr_t, size_t>> spans;
  for (unsigned char *frame : frames)
    spans.push_back({address(frame), kFrame72KiB});
  expectDisjoint(spans);
}

TEST(FrameArena, FramesNeverMoveWithinABlock) {
  FrameArena arena;
  std::vector<std::pair<uint64_t *, uint64_t>> frames;
  // Mixed sizes that spill into several chunks; earlier frames keep their
  // address and contents.
  for (uint64_t n = 0; n < 400; ++n) {
    size_t size = 8 + (n % 7) * 20000;
    auto *frame = static_cast<uint64_t *>(arena.allocate(size).pointer);
    ASSERT_NE(frame, nullptr);
    *frame = n * 0x9E3779B97F4A7C15ull;
    frames.push_back({frame, *frame});
  }
  EXPECT_GE(arena.chunkCount(), 1u);
  for (auto &[frame, value] : frames)
    EXPECT_EQ(*frame, value);
}

// Frames of a 4 KiB-multiple size start one cache line apart modulo 4 KiB,
// so their first lines do not share a cache set.
TEST(FrameArena, PageMultipleFramesAreStaggeredByACacheLine) {
  FrameArena arena;
  std::vector<uintptr_t> starts;
  for (int lane = 0; lane < 64; ++lane)
    starts.push_back(address(arena.allocate(8192).pointer));
  for (int lane = 1; lane < 64; ++lane)
    EXPECT_EQ(starts[lane] - starts[lane - 1], 8192u + 64u);
  std::vector<uintptr_t> lines;
  for (uintptr_t start : starts)
    lines.push_back((start % 4096) / 64);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(std::unique(lines.begin(), lines.end()), lines.end());
  // Other sizes are packed without padding.
  void *a = arena.allocate(4000).pointer;
  void *b = arena.allocate(16).pointer;
  EXPECT_EQ(address(b) - address(a), 4000u);
}

TEST(FrameArena, FreeIsANoOpAndResetRewindsWithoutClearing) {
  FrameArena arena;
  auto *first = static_cast<unsigned char *>(arena.allocate(64).pointer);
  std::memset(first, 0x5A, 64);
  FrameArena::free(first);
  sluice_rt_coro_free(first);
  auto *second = static_cast<unsigned char *>(arena.allocate(64).pointer);
  EXPECT_EQ(second, first + 64); // the freed frame is not reused
  arena.reset();
  auto *again = static_cast<unsigned char *>(arena.allocate(64).pointer);
  EXPECT_EQ(again, first);
  EXPECT_EQ(again[0], 0x5A); // reset does not clear
  EXPECT_EQ(again[63], 0x5A);
}

// After the first block every later block of the same shape reuses the
// inline region and the chunk, at the same addresses.
TEST(FrameArena, HeapAllocationCountIsStableAcrossEpochs) {
  CountingHeapAllocator heap;
  FrameArena arena(FrameArena::kDefaultInlineBytes, heap);
  std::vector<void *> firstEpoch;
  for (int epoch = 0; epoch < 100; ++epoch) {
    arena.reset();
    for (size_t lane = 0; lane < 64; ++lane) {
      void *frame = arena.allocate(kFrame72KiB).pointer;
      ASSERT_NE(frame, nullptr);
      if (epoch == 0)
        firstEpoch.push_back(frame);
      else
        ASSERT_EQ(frame, firstEpoch[lane]) << "epoch " << epoch;
    }
    EXPECT_EQ(heap.allocations(), 2u) << "epoch " << epoch;
    EXPECT_EQ(arena.chunksInUse(), 1u);
  }
  EXPECT_EQ(heap.deallocations(), 0u);
}

TEST(FrameArena, GrowingThenShrinkingBlocksReuseChunks) {
  CountingHeapAllocator heap;
  FrameArena arena(FrameArena::kDefaultInlineBytes, heap);
  auto block = [&](size_t frames) {
    arena.reset();
    for (size_t f = 0; f < frames; ++f)
      ASSERT_NE(arena.allocate(kFrame72KiB).pointer, nullptr);
  };
  // Inline holds 56 frames; every 4 MiB chunk holds
  // floor((4 MiB - header) / (72 KiB + 64)) = 56 frames as well.
  const size_t perChunk =
      (4 * kMiB - FrameArena::chunkHeaderBytes()) / (kFrame72KiB + 64);
  ASSERT_EQ(perChunk, 56u);
  block(1000); // 56 inline + 944 in ceil(944 / 56) = 17 chunks
  EXPECT_EQ(arena.chunkCount(), 17u);
  uint64_t afterLargest = heap.allocations();
  EXPECT_EQ(afterLargest, 1u + 17u);
  for (size_t frames : {10, 64, 500, 1000, 57, 0})
    block(frames);
  EXPECT_EQ(heap.allocations(), afterLargest);
}

// No hard-coded total: a single frame larger than the default chunk gets a
// chunk of exactly request + header bytes.
TEST(FrameArena, SingleFrameAboveFourMiB) {
  CountingHeapAllocator heap;
  FrameArena arena(FrameArena::kDefaultInlineBytes, heap);
  const size_t big = 5 * kMiB + 48;
  auto *frame = static_cast<unsigned char *>(arena.allocate(big).pointer);
  ASSERT_NE(frame, nullptr);
  frame[0] = 1;
  frame[big - 1] = 2;
  EXPECT_EQ(arena.chunkCount(), 1u);
  EXPECT_EQ(heap.liveBytes(), 4 * kMiB + big + FrameArena::chunkHeaderBytes());
  // The next block reuses it.
  arena.reset();
  EXPECT_EQ(arena.allocate(big).pointer, frame);
  EXPECT_EQ(heap.allocations(), 2u);

  // A large alignment adds its worst-case padding to the chunk.
  CountingHeapAllocator heap2;
  FrameArena aligned(0, heap2); // no inline region at all
  void *page = aligned.allocate(6 * kMiB, 4096).pointer;
  ASSERT_NE(page, nullptr);
  EXPECT_EQ(address(page) % 4096, 0u);
  // 6 MiB is a 4 KiB multiple: + 64 color bytes.
  EXPECT_EQ(heap2.liveBytes(),
            6 * kMiB + 64 + FrameArena::chunkHeaderBytes() + (4096 - kMin));
}

TEST(FrameArena, ArithmeticOverflowIsAnError) {
  FrameArena arena;
  EXPECT_EQ(arena.allocate(SIZE_MAX).error, ArenaError::SizeOverflow);
  // Rounds to SIZE_MAX - 15; adding the chunk header overflows.
  EXPECT_EQ(arena.allocate(SIZE_MAX - 20).error, ArenaError::SizeOverflow);
  // A huge but representable request reaches the heap, which refuses it.
  CountingHeapAllocator limitedHeap;
  limitedHeap.setMaxRequest(8 * kMiB);
  FrameArena limited(FrameArena::kDefaultInlineBytes, limitedHeap);
  EXPECT_EQ(limited.allocate(SIZE_MAX / 2).error, ArenaError::OutOfMemory);
  EXPECT_EQ(limited.allocate(64).error, ArenaError::None);
  // Alignment slack overflows.
  EXPECT_EQ(arena.allocate(SIZE_MAX - 4096, size_t(1) << 62).error,
            ArenaError::SizeOverflow);
  EXPECT_EQ(arena.allocate(16, 24).error, ArenaError::InvalidAlignment);
  EXPECT_EQ(arena.allocate(16, 3).error, ArenaError::InvalidAlignment);
  // The arena still works afterwards.
  EXPECT_EQ(arena.allocate(16).error, ArenaError::None);

  Status status = FrameArena::describe(ArenaError::SizeOverflow, SIZE_MAX, 16);
  EXPECT_EQ(status.kind(), ErrorKind::ArithmeticOverflow);
  EXPECT_EQ(status.describe(),
            "arithmetic overflow: coroutine frame of " +
                std::to_string(SIZE_MAX) +
                " bytes with alignment 16: size plus padding and chunk "
                "header overflows size_t");
  Status alignment = FrameArena::describe(ArenaError::InvalidAlignment, 8, 24);
  EXPECT_EQ(alignment.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(alignment.describe(),
            "invalid argument: coroutine frame of 8 bytes with alignment 24: "
            "alignment is not a power of two");
  // A value outside the enumeration still names the request.
  Status unknown = FrameArena::describe(ArenaError(0xff), 8, 16);
  EXPECT_EQ(unknown.kind(), ErrorKind::InvalidState);
  EXPECT_EQ(unknown.describe(),
            "invalid state: coroutine frame of 8 bytes with alignment 16");
}

TEST(FrameArena, HeapExhaustionIsAnError) {
  CountingHeapAllocator heap;
  heap.setMaxRequest(kMiB);
  FrameArena arena(FrameArena::kDefaultInlineBytes, heap);
  ArenaAllocation frame = arena.allocate(64);
  EXPECT_EQ(frame.error, ArenaError::OutOfMemory);
  EXPECT_EQ(frame.pointer, nullptr);
  Status status = FrameArena::describe(frame.error, 64, 16);
  EXPECT_EQ(status.kind(), ErrorKind::OutOfMemory);
  EXPECT_EQ(status.describe(), "out of memory: coroutine frame of 64 bytes "
                               "with alignment 16: the heap refused the arena "
                               "region");
}

TEST(ArenaMath, CheckedHelpers) {
  size_t out = 0;
  EXPECT_TRUE(arena_math::effectiveAlignment(0, out));
  EXPECT_EQ(out, kMin);
  EXPECT_TRUE(arena_math::effectiveAlignment(64, out));
  EXPECT_EQ(out, 64u);
  EXPECT_FALSE(arena_math::effectiveAlignment(48, out));

  uintptr_t aligned = 0;
  EXPECT_TRUE(arena_math::alignUp(17, 16, aligned));
  EXPECT_EQ(aligned, 32u);
  EXPECT_FALSE(arena_math::alignUp(UINTPTR_MAX - 3, 16, aligned));

  EXPECT_TRUE(arena_math::occupiedBytes(0, out));
  EXPECT_EQ(out, kMin);
  EXPECT_TRUE(arena_math::occupiedBytes(17, out));
  EXPECT_EQ(out, 32u);
  EXPECT_TRUE(arena_math::occupiedBytes(4096, out));
  EXPECT_EQ(out, 4096u + 64u);
  EXPECT_TRUE(arena_math::occupiedBytes(4081, out));
  EXPECT_EQ(out, 4096u + 64u);
  EXPECT_TRUE(arena_math::occupiedBytes(4097, out));
  EXPECT_EQ(out, 4112u);
  EXPECT_FALSE(arena_math::occupiedBytes(SIZE_MAX - 1, out));

  EXPECT_TRUE(arena_math::chunkCapacity(100, 16, 16, 4 * kMiB, out));
  EXPECT_EQ(out, 4 * kMiB);
  EXPECT_TRUE(arena_math::chunkCapacity(5 * kMiB, 64, 16, 4 * kMiB, out));
  EXPECT_EQ(out, 5 * kMiB + 16 + 48);
  EXPECT_FALSE(arena_math::chunkCapacity(SIZE_MAX - 8, 16, 16, 0, out));
}

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

namespace {
std::string lastFailure;
int failureCount = 0;
void recordFailure(const char *message) {
  lastFailure = message;
  ++failureCount;
}
} // namespace

TEST(CoroArenaCApi, AllocBindResetAndFailureHandler) {
  sluice_rt_coro_arena *arena = sluice_rt_coro_arena_create(kMiB);
  ASSERT_NE(arena, nullptr);
  sluice_rt_coro_arena *previous = sluice_rt_coro_arena_bind(arena);
  EXPECT_EQ(sluice_rt_coro_arena_current(), arena);

  void *first = sluice_rt_coro_alloc(40, 0);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(address(first) % (2 * sizeof(intptr_t)), 0u);
  void *second = sluice_rt_coro_alloc(1, 64);
  EXPECT_EQ(address(second) % 64, 0u);
  sluice_rt_coro_free(first);
  sluice_rt_coro_arena_reset();
  EXPECT_EQ(sluice_rt_coro_alloc(40, 0), first);

  sluice_rt_coro_failure_handler old =
      sluice_rt_coro_set_failure_handler(recordFailure);
  failureCount = 0;
  EXPECT_EQ(sluice_rt_coro_alloc(8, 12), nullptr);
  EXPECT_EQ(failureCount, 1);
  EXPECT_NE(lastFailure.find("alignment is not a power of two"),
            std::string::npos);
  EXPECT_EQ(sluice_rt_coro_alloc(SIZE_MAX, 0), nullptr);
  EXPECT_NE(lastFailure.find("overflows"), std::string::npos);
  sluice_rt_coro_set_failure_handler(old);

  sluice_rt_coro_arena_bind(previous);
  sluice_rt_coro_arena_destroy(arena);
}

TEST(CoroArenaCApi, DestroyingTheBoundArenaUnbindsIt) {
  sluice_rt_coro_arena *arena = sluice_rt_coro_arena_create(kMiB);
  sluice_rt_coro_arena *previous = sluice_rt_coro_arena_bind(arena);
  sluice_rt_coro_arena_destroy(arena);
  // The thread falls back to its own arena.
  EXPECT_NE(sluice_rt_coro_arena_current(), nullptr);
  EXPECT_NE(sluice_rt_coro_alloc(32, 0), nullptr);
  sluice_rt_coro_arena_bind(previous);
}

// Each thread has its own arena; frames of different threads never alias and
// the thread's arena is released when it exits (LeakSanitizer checks this in
// the asan build).
TEST(CoroArenaCApi, ThreadsUseTheirOwnArenas) {
  constexpr int kThreads = 4;
  std::vector<std::vector<uintptr_t>> frames(kThreads);
  std::vector<std::thread> threads;
  // No thread exits (freeing its arena) before all have allocated.
  std::latch allocated(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &frames, &allocated] {
      for (int block = 0; block < 20; ++block) {
        sluice_rt_coro_arena_reset();
        for (int lane = 0; lane < 64; ++lane) {
          auto *frame = static_cast<int *>(sluice_rt_coro_alloc(256, 0));
          frame[0] = t * 1000 + lane;
          if (block == 0)
            frames[t].push_back(address(frame));
          else
            EXPECT_EQ(address(frame), frames[t][lane]);
        }
        for (int lane = 0; lane < 64; ++lane)
          EXPECT_EQ(reinterpret_cast<int *>(frames[t][lane])[0],
                    t * 1000 + lane);
      }
      allocated.arrive_and_wait();
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  std::vector<std::pair<uintptr_t, size_t>> all;
  for (auto &perThread : frames)
    for (uintptr_t frame : perThread)
      all.push_back({frame, 256});
  expectDisjoint(all);
}
