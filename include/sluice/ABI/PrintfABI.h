//===- PrintfABI.h - The gpu.printf record buffer ---------------*- C++ -*-===//
//
// gpu.printf on every backend (docs/gpu-subgroups.md, "gpu.printf") writes
// records into a buffer of 32-bit words that the host prints after the
// launch. This header is what the compiler (lib/Conversion/GPUPrintf) and
// the runtime (runtime/launch/printf_buffer.cpp) share: the buffer layout,
// the argument type codes and the one parser of format strings. Header only,
// no dependencies beyond the C++ standard library.
//
// Buffer: kHeaderWords words of header, then the record area.
//   word 0: words of the record area reserved so far (an atomic counter);
//   word 1: records dropped because the area was full (atomic);
//   word 2: capacity of the record area in words (the host writes it);
//   word 3: zero.
// Record (3 + 2 * arguments words): the format's index in the module's
// format table, the block's linear id, the thread's linear id in the block,
// then each argument as two words, low first (i32 and f32 in the low word,
// the high word zero; i64 and f64 bits).
//
// The reservation that starts inside the area but does not fit writes
// kEndMarker where it starts; no record follows it.
//
// Format table: for each gpu.printf of a gpu.module, in index order, one type
// code per argument, ':', the format text, NUL; an empty entry ends it.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_ABI_PRINTFABI_H
#define SLUICE_ABI_PRINTFABI_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::printf_abi {

constexpr uint32_t kHeaderWords = 4;
constexpr uint32_t kUsedWord = 0;
constexpr uint32_t kDroppedWord = 1;
constexpr uint32_t kCapacityWord = 2;
constexpr uint32_t kRecordFixedWords = 3;
constexpr uint32_t kWordsPerArgument = 2;
constexpr uint32_t kEndMarker = 0xffffffffu;
/// Record-area words when SLUICE_PRINTF_WORDS is not set.
constexpr uint32_t kDefaultCapacityWords = 65536;

/// Argument type codes of the format table.
enum class ArgType : char { I32 = 'i', I64 = 'l', F32 = 'f', F64 = 'd' };

inline bool isIntegerArg(ArgType type) {
  return type == ArgType::I32 || type == ArgType::I64;
}

/// One piece of a format string: literal text, or a conversion whose C
/// spelling (flags, width, precision, conversion letter; no length modifier)
/// is `text`.
struct FormatPiece {
  bool isConversion = false;
  char conversion = 0; // d u x f e g (conversions only)
  std::string text;
};

/// Splits `format` into pieces. Accepted: `%%`, and `%[flags][width]
/// [.precision][l|ll]C` with flags from "-+ #0", decimal width and precision
/// and C one of d, i, u, x, X, f, F, e, E, g, G (the argument's type decides
/// the width; `l` and `ll` are accepted and ignored). On failure returns
/// false and sets `error` to the reason.
inline bool parseFormat(std::string_view format,
                        std::vector<FormatPiece> &pieces, std::string &error) {
  pieces.clear();
  std::string literal;
  auto flushLiteral = [&] {
    if (literal.empty())
      return;
    pieces.push_back({false, 0, literal});
    literal.clear();
  };
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if (c == '\0') {
      error = "the format contains a NUL character";
      return false;
    }
    if (c != '%') {
      literal += c;
      continue;
    }
    size_t start = i++;
    if (i < format.size() && format[i] == '%') {
      literal += '%';
      continue;
    }
    std::string spec = "%";
    while (i < format.size() &&
           std::string_view("-+ #0").find(format[i]) != std::string_view::npos)
      spec += format[i++];
    while (i < format.size() && format[i] >= '0' && format[i] <= '9')
      spec += format[i++];
    if (i < format.size() && format[i] == '.') {
      spec += format[i++];
      while (i < format.size() && format[i] >= '0' && format[i] <= '9')
        spec += format[i++];
    }
    if (i < format.size() && format[i] == 'l') {
      ++i;
      if (i < format.size() && format[i] == 'l')
        ++i;
    }
    std::string_view written = format.substr(start, i + 1 - start);
    if (i >= format.size()) {
      error = "the conversion '" + std::string(format.substr(start)) +
              "' at the end of the format is incomplete";
      return false;
    }
    char conversion = format[i];
    if (std::string_view("diuxXfFeEgG").find(conversion) ==
        std::string_view::npos) {
      error = "unsupported conversion '" + std::string(written) +
              "' (supported: %d %i %u %x %X %f %F %e %E %g %G with flags, "
              "width, precision and l/ll, and %%)";
      return false;
    }
    flushLiteral();
    spec += conversion;
    char kind = conversion == 'i' ? 'd' : conversion;
    if (kind == 'X')
      kind = 'x';
    if (kind == 'F' || kind == 'E' || kind == 'G')
      kind = char(kind - 'A' + 'a');
    pieces.push_back({true, kind, spec});
  }
  flushLiteral();
  return true;
}

/// Whether conversion `kind` (d u x f e g) takes an argument of `type`.
inline bool conversionTakes(char kind, ArgType type) {
  bool integerConversion = kind == 'd' || kind == 'u' || kind == 'x';
  return integerConversion == isIntegerArg(type);
}

} // namespace sluice::printf_abi

#endif // SLUICE_ABI_PRINTFABI_H
