//===- arena.h - Coroutine frame arena (CPU fallback) -----------*- C++ -*-===//
//
// DESIGN.md §2.2. One arena per worker thread. Frames are bump-allocated from
// an inline region (4 MiB by default, allocated once); requests that do not
// fit go to overflow chunks of capacity max(request + header, 4 MiB), chained
// in a list and shared by many frames. Frames never move, frees are no-ops,
// and reset() at a launch boundary rewinds cursors only, so chunks are reused
// by later blocks and the steady state performs no heap allocation. Frames
// whose size is a multiple of 4 KiB are staggered by one cache line.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_ARENA_ARENA_H
#define SLUICE_RUNTIME_ARENA_ARENA_H

#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/arena/coro_c_api.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace sluice::runtime {

// Where arenas get their memory; tests plug in a counting implementation.
class HeapAllocator {
public:
  virtual ~HeapAllocator();
  // `align` is a power of two >= alignof(max_align_t); nullptr on failure.
  virtual void *allocate(size_t bytes, size_t align) noexcept = 0;
  virtual void deallocate(void *pointer, size_t bytes,
                          size_t align) noexcept = 0;
};

// Aligned operator new/delete.
HeapAllocator &systemHeap();

// Forwards to the system heap and counts; can simulate exhaustion.
class CountingHeapAllocator final : public HeapAllocator {
public:
  void *allocate(size_t bytes, size_t align) noexcept override;
  void deallocate(void *pointer, size_t bytes, size_t align) noexcept override;

  uint64_t allocations() const { return allocations_.load(); }
  uint64_t deallocations() const { return deallocations_.load(); }
  uint64_t liveBytes() const { return liveBytes_.load(); }
  // Requests larger than this fail (simulated exhaustion).
  void setMaxRequest(size_t bytes) { maxRequest_.store(bytes); }

private:
  std::atomic<uint64_t> allocations_{0};
  std::atomic<uint64_t> deallocations_{0};
  std::atomic<uint64_t> liveBytes_{0};
  std::atomic<size_t> maxRequest_{SIZE_MAX};
};

enum class ArenaError : uint8_t {
  None = 0,
  InvalidAlignment = 1, // not zero and not a power of two
  SizeOverflow = 2,     // size plus padding and header overflows size_t
  OutOfMemory = 3,      // the heap refused a region or chunk
};
static_assert(sizeof(ArenaError) == 1);

struct ArenaAllocation {
  void *pointer = nullptr;
  ArenaError error = ArenaError::None;
};

// Pure, overflow-checked arithmetic used by the arena; exposed for tests.
namespace arena_math {
// Alignment actually used for a request: max(align, 2 * sizeof(intptr_t)),
// 0 means the minimum. False if `align` is not a power of two.
bool effectiveAlignment(size_t align, size_t &out);
// Rounds `value` up to `align` (power of two); false on overflow.
bool alignUp(uintptr_t value, size_t align, uintptr_t &out);
// Frames whose rounded size is a multiple of this period get one cache line
// of padding, so the first lines of consecutive frames do not all map to the
// same cache set (lanes are resumed round-robin, each touching its frame's
// start).
inline constexpr size_t kColorPeriod = 4096;
inline constexpr size_t kColorPadding = 64;
// Bytes a frame occupies: size rounded up to the minimum alignment, at least
// one granule so every frame has a distinct address, plus the color padding
// when it applies; false on overflow.
inline bool occupiedBytes(size_t size, size_t &out) {
  constexpr size_t granule = 2 * sizeof(intptr_t);
  size_t bumped;
  if (__builtin_add_overflow(size, granule - 1, &bumped))
    return false;
  size_t rounded = bumped & ~(granule - 1);
  if (rounded == 0)
    rounded = granule;
  if ((rounded & (kColorPeriod - 1)) == 0 &&
      __builtin_add_overflow(rounded, kColorPadding, &rounded))
    return false;
  out = rounded;
  return true;
}
// Capacity of an overflow chunk for a request: max(request + header +
// alignment slack, minimum chunk size); false on overflow.
bool chunkCapacity(size_t occupied, size_t align, size_t header,
                   size_t minimumChunk, size_t &out);
} // namespace arena_math

class FrameArena {
public:
  static constexpr size_t kMinAlignment = 2 * sizeof(intptr_t);
  static_assert(arena_math::kColorPadding % kMinAlignment == 0,
                "padding keeps the cursor aligned");
  static constexpr size_t kDefaultInlineBytes = size_t(4) << 20;
  static constexpr size_t kMinChunkBytes = size_t(4) << 20;

  explicit FrameArena(size_t inlineBytes = kDefaultInlineBytes,
                      HeapAllocator &heap = systemHeap());
  ~FrameArena();
  FrameArena(const FrameArena &) = delete;
  FrameArena &operator=(const FrameArena &) = delete;

  // Bump-allocates `size` bytes aligned to max(align, kMinAlignment). The
  // inline region is allocated by the first call.
  ArenaAllocation allocate(size_t size, size_t align = 0) noexcept {
    // Fast path: minimum alignment, room in the inline region. The inline
    // cursor is always kMinAlignment-aligned, so no padding is needed.
    size_t occupied;
    if (align <= kMinAlignment && (align & (align - 1)) == 0 &&
        arena_math::occupiedBytes(size, occupied) &&
        occupied <= size_t(inlineEnd_ - inlineCursor_)) {
      unsigned char *frame = inlineCursor_;
      inlineCursor_ += occupied;
      return {frame, ArenaError::None};
    }
    return allocateChecked(size, align);
  }
  // Frames are reclaimed only by reset().
  static void free(void *) noexcept {}
  // Launch boundary: rewinds every cursor; keeps and reuses every chunk.
  void reset() noexcept;

  size_t inlineCapacity() const { return inlineBytes_; }
  bool inlineAllocated() const { return inlineBegin_ != nullptr; }
  // Overflow chunks owned by the arena (used or not in this block).
  size_t chunkCount() const { return chunkCount_; }
  // Chunks that hold frames of the current block.
  size_t chunksInUse() const { return chunksInUse_; }
  // Bytes handed out from the inline region in the current block.
  size_t inlineBytesUsed() const;
  // Header bytes at the start of every overflow chunk.
  static size_t chunkHeaderBytes();

  // A readable description of an allocation failure.
  static Status describe(ArenaError error, size_t size, size_t align);

private:
  struct Chunk;
  ArenaAllocation allocateChecked(size_t size, size_t align) noexcept;
  ArenaAllocation allocateSlow(size_t occupied, size_t align) noexcept;
  static unsigned char *chunkData(Chunk *chunk);

  HeapAllocator *heap_;
  size_t inlineBytes_;
  unsigned char *inlineBegin_ = nullptr;
  unsigned char *inlineCursor_ = nullptr;
  unsigned char *inlineEnd_ = nullptr;
  Chunk *firstChunk_ = nullptr;
  Chunk *lastChunk_ = nullptr;
  Chunk *currentChunk_ = nullptr; // chunk being filled; nullptr: none yet
  unsigned char *chunkCursor_ = nullptr;
  unsigned char *chunkEnd_ = nullptr;
  size_t chunkCount_ = 0;
  size_t chunksInUse_ = 0;
};

// The arena bound to the calling thread (its own one if none was bound).
FrameArena &currentArena();
// Binds `arena` (nullptr: the thread's own) and returns the previous binding
// (nullptr if the thread used its own).
FrameArena *bindArena(FrameArena *arena);

// The C ABI handle of an arena (sluice_rt_coro_arena is never defined).
inline sluice_rt_coro_arena *toHandle(FrameArena *arena) {
  return reinterpret_cast<sluice_rt_coro_arena *>(arena);
}
inline FrameArena *fromHandle(sluice_rt_coro_arena *handle) {
  return reinterpret_cast<FrameArena *>(handle);
}

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_ARENA_ARENA_H
