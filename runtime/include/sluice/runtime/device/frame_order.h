//===- frame_order.h - Coherence sorting of a dispatch's frames -*- C++ -*-===//
//
// The pure half of the `sort_by` hint (docs/runtime.md "Coherence sorting"):
// a key's order code, its bucket, and a stable sort of a dispatch's frame
// indices by those codes. HostRouter::beginDispatch applies it to the frames
// it pops for a main stage with a sort key; tests drive it directly.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_FRAME_ORDER_H
#define SLUICE_RUNTIME_DEVICE_FRAME_ORDER_H

#include "sluice/runtime/wavefront/program.h"

#include <cstdint>
#include <span>
#include <vector>

namespace sluice::runtime {

// An unsigned code whose order is the key's order. `key` holds `bytes`
// little-endian bytes. Integer keys are signed. Float keys order by value:
// -0 and +0 are equal, and every NaN (whatever its sign or payload) is equal
// to every other NaN and after +infinity.
uint64_t sortKeyCode(const unsigned char *key, uint32_t bytes,
                     SortKeyKind kind);

// The bucket of a key, in [0, buckets) (buckets >= 1): an integer key k gives
// k mod buckets (the non-negative remainder), a float key floor(k) mod
// buckets with floor(k) saturated to the int64 range, and NaN buckets - 1.
uint64_t sortKeyBucket(const unsigned char *key, uint32_t bytes,
                       SortKeyKind kind, uint32_t buckets);

// Scratch of sortFramesByCode, reused across dispatches.
struct FrameSortScratch {
  std::vector<uint32_t> frames;
  std::vector<uint64_t> codes;
  std::vector<uint32_t> histogram;
};

// Orders `frames` stably by `codes` (one per frame, permuted alongside): an
// LSD radix sort over 8-bit digits of code - min(codes), with as many passes
// as max - min needs (one, a counting sort, when the codes span at most 256
// values, as material ids do).
void sortFramesByCode(std::span<uint32_t> frames, std::span<uint64_t> codes,
                      FrameSortScratch &scratch);

// sortFramesByCode over every run of `partition` consecutive entries on its
// own (FrameSorting::partition; 0: the whole span is one run).
void sortFramesInPartitions(std::span<uint32_t> frames,
                            std::span<uint64_t> codes, uint32_t partition,
                            FrameSortScratch &scratch);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_FRAME_ORDER_H
