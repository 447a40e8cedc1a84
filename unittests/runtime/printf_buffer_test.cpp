//===- printf_buffer_test.cpp - Printing gpu.printf records --------------===//
//
// Buffers written by hand in the layout of include/sluice/ABI/PrintfABI.h:
// the host's text is ordered by (block, thread, reservation), formats each
// argument type, stops at the end marker and the used words, and reports
// malformed buffers; the format parser accepts and refuses what the
// compiler's diagnostics promise.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/launch/printf_buffer.h"

#include "sluice/ABI/PrintfABI.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace pa = sluice::printf_abi;

namespace {

/// A buffer with `capacity` record words and the records appended in order.
struct Buffer {
  explicit Buffer(uint32_t capacity) : words(pa::kHeaderWords + capacity, 0) {
    words[pa::kCapacityWord] = int32_t(capacity);
  }
  void record(uint32_t format, uint32_t block, uint32_t thread,
              std::vector<uint64_t> args) {
    uint32_t used = uint32_t(words[pa::kUsedWord]);
    size_t at = pa::kHeaderWords + used;
    words[at] = int32_t(format);
    words[at + 1] = int32_t(block);
    words[at + 2] = int32_t(thread);
    for (size_t i = 0; i < args.size(); ++i) {
      words[at + 3 + 2 * i] = int32_t(uint32_t(args[i]));
      words[at + 4 + 2 * i] = int32_t(uint32_t(args[i] >> 32));
    }
    words[pa::kUsedWord] = int32_t(used + 3 + 2 * args.size());
  }
  std::vector<int32_t> words;
};

uint64_t bitsOf(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

uint64_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::string table(std::vector<std::string> entries) {
  std::string text;
  for (const std::string &entry : entries)
    text += entry + '\0';
  return text + '\0';
}

TEST(PrintfBuffer, OrdersByBlockThenThreadThenReservation) {
  std::string formats = table({"i:b%d\n", "i:c%d\n"});
  Buffer buffer(64);
  // Reserved in the order the lanes happened to run.
  buffer.record(0, 1, 0, {10});
  buffer.record(0, 0, 1, {1});
  buffer.record(1, 0, 1, {2});
  buffer.record(0, 0, 0, {0});
  buffer.record(1, 0, 0, {3});
  std::string text, error;
  uint64_t dropped = 7;
  ASSERT_TRUE(sluice::runtime::formatPrintfRecords(
      buffer.words.data(), int64_t(buffer.words.size()), formats.c_str(), text,
      dropped, error))
      << error;
  EXPECT_EQ(text, "b0\nc3\nb1\nc2\nb10\n");
  EXPECT_EQ(dropped, 0u);
}

TEST(PrintfBuffer, FormatsEveryArgumentType) {
  std::string formats =
      table({"iiii:%d %u %x %X|", "ll:%lld %llu|", "fd:%5.2f %e|", ":100%%|"});
  Buffer buffer(64);
  buffer.record(0, 0, 0, {uint32_t(-3), uint32_t(-3), 255, 255});
  buffer.record(1, 0, 0, {uint64_t(-2), uint64_t(1) << 40});
  buffer.record(2, 0, 0, {bitsOf(1.5f), bitsOf(-0.125)});
  buffer.record(3, 0, 0, {});
  std::string text, error;
  uint64_t dropped = 0;
  ASSERT_TRUE(sluice::runtime::formatPrintfRecords(
      buffer.words.data(), int64_t(buffer.words.size()), formats.c_str(), text,
      dropped, error))
      << error;
  // -3 as %u is 2^32 - 3 = 4294967293; 2^40 = 1099511627776.
  EXPECT_EQ(text, "-3 4294967293 ff FF|-2 1099511627776| 1.50 -1.250000e-01|"
                  "100%|");
}

TEST(PrintfBuffer, StopsAtTheEndMarkerAndCountsDrops) {
  std::string formats = table({"i:%d\n"});
  Buffer buffer(12); // room for two 5-word records
  buffer.record(0, 0, 1, {1});
  buffer.record(0, 0, 0, {0});
  // A third reservation at word 10 did not fit: it marked its start, and
  // the counter ran past the capacity.
  buffer.words[pa::kHeaderWords + 10] = int32_t(pa::kEndMarker);
  buffer.words[pa::kUsedWord] = 20;
  buffer.words[pa::kDroppedWord] = 2;
  std::string text, error;
  uint64_t dropped = 0;
  ASSERT_TRUE(sluice::runtime::formatPrintfRecords(
      buffer.words.data(), int64_t(buffer.words.size()), formats.c_str(), text,
      dropped, error))
      << error;
  EXPECT_EQ(text, "0\n1\n");
  EXPECT_EQ(dropped, 2u);
}

TEST(PrintfBuffer, ReportsMalformedBuffers) {
  std::string formats = table({"i:%d\n"});
  Buffer buffer(16);
  buffer.record(3, 0, 0, {1});
  std::string text, error;
  uint64_t dropped = 0;
  EXPECT_FALSE(sluice::runtime::formatPrintfRecords(
      buffer.words.data(), int64_t(buffer.words.size()), formats.c_str(), text,
      dropped, error));
  EXPECT_EQ(error, "record at word 0 names format 3 of 1");
  Buffer cut(16);
  cut.record(0, 0, 0, {1});
  cut.words[pa::kUsedWord] = 4; // the 5-word record ends past it
  EXPECT_FALSE(sluice::runtime::formatPrintfRecords(
      cut.words.data(), int64_t(cut.words.size()), formats.c_str(), text,
      dropped, error));
  EXPECT_EQ(error, "record at word 0 of 5 words ends past the 4 used words");
}

TEST(PrintfBuffer, ReportsAShortBufferAndABadFormatTable) {
  std::string text, error;
  uint64_t dropped = 0;
  int32_t words[1] = {0};
  EXPECT_FALSE(sluice::runtime::formatPrintfRecords(words, 1, "i:%d\n", text,
                                                    dropped, error));
  EXPECT_EQ(error, "the buffer has 1 words, fewer than the header's " +
                       std::to_string(pa::kHeaderWords));
  Buffer buffer(16);
  buffer.record(0, 0, 0, {1});
  // A table entry without its "types:" prefix.
  std::string formats = std::string("%d") + '\0';
  EXPECT_FALSE(sluice::runtime::formatPrintfRecords(
      buffer.words.data(), int64_t(buffer.words.size()), formats.c_str(), text,
      dropped, error));
  EXPECT_EQ(error, "format table entry 0 has no ':'");
}

TEST(PrintfFormat, AcceptsAndRefuses) {
  std::vector<pa::FormatPiece> pieces;
  std::string error;
  ASSERT_TRUE(pa::parseFormat("a%-08.3lfb%%c%ldd", pieces, error)) << error;
  ASSERT_EQ(pieces.size(), 5u);
  EXPECT_EQ(pieces[0].text, "a");
  EXPECT_EQ(pieces[1].text, "%-08.3f");
  EXPECT_EQ(pieces[1].conversion, 'f');
  EXPECT_EQ(pieces[2].text, "b%c");
  EXPECT_EQ(pieces[3].text, "%d");
  EXPECT_EQ(pieces[4].text, "d");
  EXPECT_FALSE(pa::parseFormat("%s", pieces, error));
  EXPECT_NE(error.find("unsupported conversion '%s'"), std::string::npos);
  EXPECT_FALSE(pa::parseFormat("%5", pieces, error));
  EXPECT_NE(error.find("incomplete"), std::string::npos);
  EXPECT_TRUE(pa::conversionTakes('x', pa::ArgType::I64));
  EXPECT_FALSE(pa::conversionTakes('g', pa::ArgType::I32));
}

} // namespace
