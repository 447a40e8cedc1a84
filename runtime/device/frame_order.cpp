//===- frame_order.cpp - Coherence sorting of a dispatch's frames ---------===//

#include "sluice/runtime/device/frame_order.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace sluice::runtime {
namespace {

constexpr uint64_t kSignBit = uint64_t(1) << 63;

int64_t signedKey(const unsigned char *key, uint32_t bytes) {
  switch (bytes) {
  case 1:
    return int8_t(key[0]);
  case 2: {
    int16_t v;
    std::memcpy(&v, key, 2);
    return v;
  }
  case 4: {
    int32_t v;
    std::memcpy(&v, key, 4);
    return v;
  }
  default: {
    int64_t v;
    std::memcpy(&v, key, 8);
    return v;
  }
  }
}

double floatKey(const unsigned char *key, uint32_t bytes) {
  if (bytes == 4) {
    float v;
    std::memcpy(&v, key, 4);
    return v;
  }
  double v;
  std::memcpy(&v, key, 8);
  return v;
}

} // namespace

uint64_t sortKeyCode(const unsigned char *key, uint32_t bytes,
                     SortKeyKind kind) {
  if (kind == SortKeyKind::Integer)
    return uint64_t(signedKey(key, bytes)) ^ kSignBit;
  double value = floatKey(key, bytes); // f32 -> f64 keeps the order
  if (std::isnan(value))
    return std::numeric_limits<uint64_t>::max();
  if (value == 0)
    value = 0; // -0 == +0
  uint64_t bits = std::bit_cast<uint64_t>(value);
  // Negative floats order reversed by their bits: flip them all; positive
  // ones come after every negative one.
  return (bits & kSignBit) ? ~bits : bits | kSignBit;
}

uint64_t sortKeyBucket(const unsigned char *key, uint32_t bytes,
                       SortKeyKind kind, uint32_t buckets) {
  int64_t value;
  if (kind == SortKeyKind::Integer) {
    value = signedKey(key, bytes);
  } else {
    double floating = floatKey(key, bytes);
    if (std::isnan(floating))
      return buckets - 1;
    floating = std::floor(floating);
    // 2^63 is exact in double; anything at or beyond it saturates.
    if (floating >= 9223372036854775808.0)
      value = std::numeric_limits<int64_t>::max();
    else if (floating < -9223372036854775808.0)
      value = std::numeric_limits<int64_t>::min();
    else
      value = int64_t(floating);
  }
  int64_t remainder = value % int64_t(buckets);
  return uint64_t(remainder < 0 ? remainder + int64_t(buckets) : remainder);
}

void sortFramesByCode(std::span<uint32_t> frames, std::span<uint64_t> codes,
                      FrameSortScratch &scratch) {
  size_t count = frames.size();
  if (count < 2)
    return;
  auto [lowest, highest] = std::minmax_element(codes.begin(), codes.end());
  uint64_t low = *lowest;
  uint64_t span = *highest - low;
  if (span == 0)
    return; // one key: already in order
  unsigned passes = (std::bit_width(span) + 7) / 8;
  scratch.frames.resize(count);
  scratch.codes.resize(count);
  scratch.histogram.resize(256);
  for (uint64_t &code : codes)
    code -= low;
  uint32_t *fromFrames = frames.data(), *toFrames = scratch.frames.data();
  uint64_t *fromCodes = codes.data(), *toCodes = scratch.codes.data();
  for (unsigned pass = 0; pass < passes; ++pass) {
    unsigned shift = pass * 8;
    std::fill(scratch.histogram.begin(), scratch.histogram.end(), 0);
    for (size_t i = 0; i < count; ++i)
      ++scratch.histogram[(fromCodes[i] >> shift) & 0xff];
    uint32_t position = 0;
    for (uint32_t &bucket : scratch.histogram)
      position += std::exchange(bucket, position);
    for (size_t i = 0; i < count; ++i) {
      uint32_t slot = scratch.histogram[(fromCodes[i] >> shift) & 0xff]++;
      toFrames[slot] = fromFrames[i];
      toCodes[slot] = fromCodes[i];
    }
    std::swap(fromFrames, toFrames);
    std::swap(fromCodes, toCodes);
  }
  if (fromFrames != frames.data()) {
    std::copy_n(fromFrames, count, frames.data());
    std::copy_n(fromCodes, count, codes.data());
  }
  for (uint64_t &code : codes)
    code += low;
}

void sortFramesInPartitions(std::span<uint32_t> frames,
                            std::span<uint64_t> codes, uint32_t partition,
                            FrameSortScratch &scratch) {
  size_t count = frames.size();
  size_t run = partition == 0 ? count : partition;
  for (size_t begin = 0; begin < count; begin += run) {
    size_t length = std::min(run, count - begin);
    sortFramesByCode(frames.subspan(begin, length),
                     codes.subspan(begin, length), scratch);
  }
}

} // namespace sluice::runtime
