//===- frame_arena.cpp - Coroutine frame arena ----------------------------===//

#include "sluice/runtime/arena/arena.h"

#include <algorithm>
#include <memory>
#include <new>
#include <string>

namespace sluice::runtime {

HeapAllocator::~HeapAllocator() = default;

namespace {

class SystemHeap final : public HeapAllocator {
public:
  void *allocate(size_t bytes, size_t align) noexcept override {
    return ::operator new(bytes, std::align_val_t(align), std::nothrow);
  }
  void deallocate(void *pointer, size_t bytes, size_t align) noexcept override {
    ::operator delete(pointer, std::align_val_t(align));
  }
};

} // namespace

HeapAllocator &systemHeap() {
  static SystemHeap heap;
  return heap;
}

void *CountingHeapAllocator::allocate(size_t bytes, size_t align) noexcept {
  if (bytes > maxRequest_.load())
    return nullptr;
  void *pointer = systemHeap().allocate(bytes, align);
  if (pointer) {
    allocations_.fetch_add(1);
    liveBytes_.fetch_add(bytes);
  }
  return pointer;
}

void CountingHeapAllocator::deallocate(void *pointer, size_t bytes,
                                       size_t align) noexcept {
  deallocations_.fetch_add(1);
  liveBytes_.fetch_sub(bytes);
  systemHeap().deallocate(pointer, bytes, align);
}

namespace arena_math {

bool effectiveAlignment(size_t align, size_t &out) {
  if (align != 0 && (align & (align - 1)) != 0)
    return false;
  out = std::max(align, FrameArena::kMinAlignment);
  return true;
}

bool alignUp(uintptr_t value, size_t align, uintptr_t &out) {
  uintptr_t bumped;
  if (__builtin_add_overflow(value, uintptr_t(align - 1), &bumped))
    return false;
  out = bumped & ~uintptr_t(align - 1);
  return true;
}

bool chunkCapacity(size_t occupied, size_t align, size_t header,
                   size_t minimumChunk, size_t &out) {
  // Chunk data starts kMinAlignment-aligned; a larger alignment may need up
  // to align - kMinAlignment bytes of padding.
  size_t slack = align - FrameArena::kMinAlignment;
  size_t needed;
  if (__builtin_add_overflow(occupied, header, &needed) ||
      __builtin_add_overflow(needed, slack, &needed))
    return false;
  out = std::max(needed, minimumChunk);
  return true;
}

} // namespace arena_math

struct FrameArena::Chunk {
  Chunk *next;
  size_t capacity; // bytes including this header
};

size_t FrameArena::chunkHeaderBytes() {
  return (sizeof(Chunk) + kMinAlignment - 1) & ~(kMinAlignment - 1);
}

unsigned char *FrameArena::chunkData(Chunk *chunk) {
  return reinterpret_cast<unsigned char *>(chunk) + chunkHeaderBytes();
}

FrameArena::FrameArena(size_t inlineBytes, HeapAllocator &heap)
    : heap_(&heap), inlineBytes_(inlineBytes & ~(kMinAlignment - 1)) {}

FrameArena::~FrameArena() {
  if (inlineBegin_)
    heap_->deallocate(inlineBegin_, inlineBytes_, kMinAlignment);
  for (Chunk *chunk = firstChunk_; chunk;) {
    Chunk *next = chunk->next;
    heap_->deallocate(chunk, chunk->capacity, kMinAlignment);
    chunk = next;
  }
}

// Bump-allocates from [cursor, end) or returns nullptr if it does not fit.
static unsigned char *bumpWithin(unsigned char *&cursor, unsigned char *end,
                                 size_t occupied, size_t align) {
  if (!cursor)
    return nullptr;
  uintptr_t aligned;
  uintptr_t limit = reinterpret_cast<uintptr_t>(end);
  if (!arena_math::alignUp(reinterpret_cast<uintptr_t>(cursor), align,
                           aligned) ||
      aligned > limit || occupied > limit - aligned)
    return nullptr;
  cursor = reinterpret_cast<unsigned char *>(aligned + occupied);
  return reinterpret_cast<unsigned char *>(aligned);
}

ArenaAllocation FrameArena::allocateChecked(size_t size,
                                            size_t align) noexcept {
  size_t effective, occupied;
  if (!arena_math::effectiveAlignment(align, effective))
    return {nullptr, ArenaError::InvalidAlignment};
  if (!arena_math::occupiedBytes(size, occupied))
    return {nullptr, ArenaError::SizeOverflow};
  if (unsigned char *frame =
          bumpWithin(inlineCursor_, inlineEnd_, occupied, effective))
    return {frame, ArenaError::None};
  return allocateSlow(occupied, effective);
}

ArenaAllocation FrameArena::allocateSlow(size_t occupied,
                                         size_t align) noexcept {
  if (!inlineBegin_ && inlineBytes_ != 0) {
    void *region = heap_->allocate(inlineBytes_, kMinAlignment);
    if (!region)
      return {nullptr, ArenaError::OutOfMemory};
    inlineBegin_ = inlineCursor_ = static_cast<unsigned char *>(region);
    inlineEnd_ = inlineBegin_ + inlineBytes_;
    if (unsigned char *frame =
            bumpWithin(inlineCursor_, inlineEnd_, occupied, align))
      return {frame, ArenaError::None};
  }

  if (unsigned char *frame =
          bumpWithin(chunkCursor_, chunkEnd_, occupied, align))
    return {frame, ArenaError::None};

  // Later chunks kept from earlier blocks are entered in list order; a chunk
  // too small for this request is skipped for the rest of the block.
  Chunk *candidate = currentChunk_ ? currentChunk_->next : firstChunk_;
  for (; candidate; candidate = candidate->next) {
    unsigned char *cursor = chunkData(candidate);
    unsigned char *end =
        reinterpret_cast<unsigned char *>(candidate) + candidate->capacity;
    if (unsigned char *frame = bumpWithin(cursor, end, occupied, align)) {
      ++chunksInUse_;
      currentChunk_ = candidate;
      chunkCursor_ = cursor;
      chunkEnd_ = end;
      return {frame, ArenaError::None};
    }
    currentChunk_ = candidate;
  }

  size_t capacity;
  if (!arena_math::chunkCapacity(occupied, align, chunkHeaderBytes(),
                                 kMinChunkBytes, capacity))
    return {nullptr, ArenaError::SizeOverflow};
  void *memory = heap_->allocate(capacity, kMinAlignment);
  if (!memory)
    return {nullptr, ArenaError::OutOfMemory};
  Chunk *chunk = static_cast<Chunk *>(memory);
  chunk->next = nullptr;
  chunk->capacity = capacity;
  if (lastChunk_)
    lastChunk_->next = chunk;
  else
    firstChunk_ = chunk;
  lastChunk_ = chunk;
  ++chunkCount_;
  ++chunksInUse_;
  currentChunk_ = chunk;
  chunkCursor_ = chunkData(chunk);
  chunkEnd_ = reinterpret_cast<unsigned char *>(chunk) + capacity;
  // The capacity covers the request plus worst-case alignment padding.
  return {bumpWithin(chunkCursor_, chunkEnd_, occupied, align),
          ArenaError::None};
}

void FrameArena::reset() noexcept {
  inlineCursor_ = inlineBegin_;
  currentChunk_ = nullptr;
  chunkCursor_ = nullptr;
  chunkEnd_ = nullptr;
  chunksInUse_ = 0;
}

size_t FrameArena::inlineBytesUsed() const {
  return size_t(inlineCursor_ - inlineBegin_);
}

Status FrameArena::describe(ArenaError error, size_t size, size_t align) {
  std::string request = "coroutine frame of " + std::to_string(size) +
                        " bytes with alignment " + std::to_string(align);
  switch (error) {
  case ArenaError::None:
    return Status::success();
  case ArenaError::InvalidAlignment:
    return Status::error(ErrorKind::InvalidArgument,
                         request + ": alignment is not a power of two");
  case ArenaError::SizeOverflow:
    return Status::error(ErrorKind::ArithmeticOverflow,
                         request + ": size plus padding and chunk header "
                                   "overflows size_t");
  case ArenaError::OutOfMemory:
    return Status::error(ErrorKind::OutOfMemory,
                         request + ": the heap refused the arena region");
  }
  return Status::error(ErrorKind::InvalidState, request);
}

namespace {
thread_local FrameArena *boundArena = nullptr;
thread_local std::unique_ptr<FrameArena> ownArena;
} // namespace

FrameArena &currentArena() {
  if (boundArena)
    return *boundArena;
  // Released by the thread_local destructor when the thread exits.
  if (!ownArena)
    ownArena = std::make_unique<FrameArena>();
  return *ownArena;
}

FrameArena *bindArena(FrameArena *arena) {
  FrameArena *previous = boundArena;
  boundArena = arena;
  return previous;
}

} // namespace sluice::runtime
