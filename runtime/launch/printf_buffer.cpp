//===- printf_buffer.cpp - Printing the gpu.printf records of a launch ---===//

#include "sluice/runtime/launch/printf_buffer.h"

#include "sluice/ABI/PrintfABI.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace pa = sluice::printf_abi;

namespace {

struct FormatEntry {
  std::vector<pa::ArgType> types;
  std::vector<pa::FormatPiece> pieces;
};

bool readFormatTable(const char *formats, std::vector<FormatEntry> &table,
                     std::string &error) {
  for (const char *entry = formats; entry && *entry;
       entry += std::strlen(entry) + 1) {
    const char *colon = std::strchr(entry, ':');
    if (!colon) {
      error =
          "format table entry " + std::to_string(table.size()) + " has no ':'";
      return false;
    }
    FormatEntry parsed;
    for (const char *code = entry; code != colon; ++code)
      parsed.types.push_back(static_cast<pa::ArgType>(*code));
    if (!pa::parseFormat(colon + 1, parsed.pieces, error))
      return false;
    table.push_back(std::move(parsed));
  }
  return true;
}

std::string formatOne(const pa::FormatPiece &piece, pa::ArgType type,
                      uint64_t bits) {
  // The conversion letter is the spec's last character; the argument's type
  // picks the C length modifier.
  std::string spec = piece.text;
  char letter = spec.back();
  spec.pop_back();
  char buffer[512];
  int32_t low = static_cast<int32_t>(static_cast<uint32_t>(bits));
  switch (type) {
  case pa::ArgType::I32:
    if (piece.conversion == 'd')
      std::snprintf(buffer, sizeof buffer, (spec + letter).c_str(), low);
    else
      std::snprintf(buffer, sizeof buffer, (spec + letter).c_str(),
                    static_cast<uint32_t>(low));
    break;
  case pa::ArgType::I64:
    if (piece.conversion == 'd')
      std::snprintf(buffer, sizeof buffer, (spec + "ll" + letter).c_str(),
                    static_cast<long long>(bits));
    else
      std::snprintf(buffer, sizeof buffer, (spec + "ll" + letter).c_str(),
                    static_cast<unsigned long long>(bits));
    break;
  case pa::ArgType::F32: {
    float value;
    uint32_t word = static_cast<uint32_t>(bits);
    std::memcpy(&value, &word, sizeof value);
    std::snprintf(buffer, sizeof buffer, (spec + letter).c_str(),
                  static_cast<double>(value));
    break;
  }
  case pa::ArgType::F64: {
    double value;
    std::memcpy(&value, &bits, sizeof value);
    std::snprintf(buffer, sizeof buffer, (spec + letter).c_str(), value);
    break;
  }
  }
  return buffer;
}

struct RecordRef {
  uint32_t block, thread;
  int64_t offset;
};

} // namespace

namespace sluice::runtime {

bool formatPrintfRecords(const int32_t *words, int64_t totalWords,
                         const char *formats, std::string &text,
                         uint64_t &dropped, std::string &error) {
  if (totalWords < pa::kHeaderWords) {
    error = "the buffer has " + std::to_string(totalWords) + " words, fewer " +
            "than the header's " + std::to_string(pa::kHeaderWords);
    return false;
  }
  std::vector<FormatEntry> table;
  if (!readFormatTable(formats, table, error))
    return false;
  auto word = [&](int64_t i) { return static_cast<uint32_t>(words[i]); };
  dropped = word(pa::kDroppedWord);
  int64_t capacity =
      std::min<int64_t>(word(pa::kCapacityWord), totalWords - pa::kHeaderWords);
  int64_t used = std::min<int64_t>(word(pa::kUsedWord), capacity);
  // Records that fit are a prefix of the area (reservations are contiguous),
  // ended by the used words or the end marker.
  std::vector<RecordRef> records;
  for (int64_t at = 0; at < used;) {
    int64_t base = pa::kHeaderWords + at;
    uint32_t index = word(base);
    if (index == pa::kEndMarker)
      break;
    if (index >= table.size()) {
      error = "record at word " + std::to_string(at) + " names format " +
              std::to_string(index) + " of " + std::to_string(table.size());
      return false;
    }
    int64_t size = pa::kRecordFixedWords +
                   pa::kWordsPerArgument * int64_t(table[index].types.size());
    if (at + size > used) {
      error = "record at word " + std::to_string(at) + " of " +
              std::to_string(size) + " words ends past the " +
              std::to_string(used) + " used words";
      return false;
    }
    records.push_back({word(base + 1), word(base + 2), base});
    at += size;
  }
  // The offset breaks ties: a thread's records in its reservation order.
  std::sort(records.begin(), records.end(),
            [](const RecordRef &a, const RecordRef &b) {
              if (a.block != b.block)
                return a.block < b.block;
              if (a.thread != b.thread)
                return a.thread < b.thread;
              return a.offset < b.offset;
            });
  for (const RecordRef &record : records) {
    const FormatEntry &entry = table[word(record.offset)];
    size_t argument = 0;
    for (const pa::FormatPiece &piece : entry.pieces) {
      if (!piece.isConversion) {
        text += piece.text;
        continue;
      }
      int64_t at = record.offset + pa::kRecordFixedWords +
                   pa::kWordsPerArgument * int64_t(argument);
      uint64_t bits = uint64_t(word(at)) | (uint64_t(word(at + 1)) << 32);
      text += formatOne(piece, entry.types[argument], bits);
      ++argument;
    }
  }
  return true;
}

} // namespace sluice::runtime

extern "C" int64_t sluice_rt_printf_capacity(void) {
  const char *text = std::getenv("SLUICE_PRINTF_WORDS");
  if (!text || !*text)
    return pa::kDefaultCapacityWords;
  char *end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < 0 || value > (1ll << 30)) {
    std::fprintf(stderr,
                 "sluice: SLUICE_PRINTF_WORDS='%s' is not a number from 0 to "
                 "%lld; using %u\n",
                 text, 1ll << 30, pa::kDefaultCapacityWords);
    return pa::kDefaultCapacityWords;
  }
  return value;
}

extern "C" void sluice_rt_printf_flush(int32_t *allocated, int32_t *aligned,
                                       int64_t offset, int64_t size,
                                       int64_t stride, const char *formats) {
  (void)allocated;
  (void)stride;
  std::string text, error;
  uint64_t dropped = 0;
  if (!sluice::runtime::formatPrintfRecords(aligned + offset, size, formats,
                                            text, dropped, error)) {
    std::fflush(stdout);
    std::fprintf(stderr, "sluice: gpu.printf buffer: %s\n", error.c_str());
    std::exit(1);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (dropped)
    std::fprintf(stderr,
                 "sluice: gpu.printf: %" PRIu64
                 " records dropped: the buffer's %" PRId64
                 " record words were full (SLUICE_PRINTF_WORDS sets them)\n",
                 dropped, size - int64_t(pa::kHeaderWords));
}
