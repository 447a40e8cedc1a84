//===- host_buffer.cpp - Host buffers and their files ---------------------===//
//
// .npy files go through xtensor's npy reader and writer (xtensor/xnpy.hpp,
// Debian's libxtensor-dev 0.24). Its reader needs help in three places, so
// the fixed-size preamble is checked here before the library sees the file:
//  - it decodes the header length through signed char, so a length with a
//    byte >= 0x80 (numpy writes 182 for a rank-20 array) is misread;
//  - it reads format 1.0 and 2.0 only (3.0 differs only in allowing UTF-8);
//  - it does not check that the data is all there.
// The library is handed the same header behind a 2.0 preamble whose length
// bytes are all < 0x80 (the header is re-padded with spaces, which its
// parser ignores), followed by the file's data. Every exception the
// library throws becomes a Status.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/program/host_buffer.h"

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <new>
#include <streambuf>
#include <system_error>

namespace sluice::runtime {

static_assert(std::endian::native == std::endian::little,
              "HostBuffer bytes are little-endian and xtensor writes host "
              "order");

namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicBytes = 6;
// Magic, version pair, and the 2-byte (1.0) or 4-byte (2.0/3.0) length.
constexpr size_t kNpyPreambleBytes = kNpyMagicBytes + 2;

std::string forWhat(std::string_view what) {
  return what.empty() ? std::string() : " for " + std::string(what);
}

Status invalidArgument(std::string message) {
  return Status::error(ErrorKind::InvalidArgument, std::move(message));
}

// Per element type, in enum order: its MLIR name and its .npy descr.
struct ElementTypeNames {
  std::string_view name, descr;
};
constexpr ElementTypeNames kElementTypeNames[] = {
    {"i32", "<i4"}, {"i64", "<i8"}, {"f32", "<f4"}, {"f64", "<f8"}};

// "<i4" for ElementType::I32, ...
std::string_view npyDescr(ElementType type) {
  return uint8_t(type) < std::size(kElementTypeNames)
             ? kElementTypeNames[uint8_t(type)].descr
             : "?";
}

bool validElementType(ElementType type) {
  return uint8_t(type) <= uint8_t(ElementType::F64);
}

// Calls fn.template operator()<T>() with the C++ type of `type`.
template <typename Fn>
decltype(auto) withElementType(ElementType type, Fn &&fn) {
  switch (type) {
  case ElementType::I32:
    return fn.template operator()<int32_t>();
  case ElementType::I64:
    return fn.template operator()<int64_t>();
  case ElementType::F32:
    return fn.template operator()<float>();
  case ElementType::F64:
    break;
  }
  return fn.template operator()<double>();
}

// "[16, 16]" (the file's shape, as numpy prints it).
std::string fileShape(std::span<const int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// "i32[16x16]", "i32[?x3]", "i32" (a binding's type, as MLIR spells it).
std::string bindingType(ElementType element, std::span<const int64_t> shape) {
  std::string text(elementTypeName(element));
  if (shape.empty())
    return text;
  text += "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") +
            (shape[i] == -1 ? std::string("?") : std::to_string(shape[i]));
  return text + "]";
}

// out = a * b; true when that overflows.
bool mulOverflows(uint64_t a, uint64_t b, uint64_t &out) {
  return __builtin_mul_overflow(a, b, &out);
}

uint64_t readLE(const unsigned char *data, unsigned bytes) {
  uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i)
    value |= uint64_t(data[i]) << (8 * i);
  return value;
}

// The size of an open file, or -1.
int64_t streamSize(std::ifstream &file) {
  file.seekg(0, std::ios::end);
  std::streamoff size = file.tellg();
  file.seekg(0, std::ios::beg);
  if (!file || size < 0)
    return -1;
  return int64_t(size);
}

Status openForReading(const std::string &path, std::string_view what,
                      std::ifstream &file, uint64_t &size) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    return invalidArgument("cannot read " + path + forWhat(what) +
                           ": it is a directory");
  file.open(path, std::ios::binary);
  if (!file)
    return invalidArgument("cannot open " + path + forWhat(what) + ": " +
                           std::strerror(errno));
  int64_t bytes = streamSize(file);
  if (bytes < 0)
    return invalidArgument("cannot read " + path + forWhat(what) +
                           ": its size is unknown (not a regular file?)");
  size = uint64_t(bytes);
  return Status::success();
}

// Serves `prefix`, then everything `rest` has left: xtensor's reader sees a
// normalized preamble and header followed by the file's own data.
class SpliceBuf final : public std::streambuf {
public:
  SpliceBuf(std::string prefix, std::streambuf &rest)
      : prefix_(std::move(prefix)), rest_(rest) {
    setg(prefix_.data(), prefix_.data(), prefix_.data() + prefix_.size());
  }

protected:
  int_type underflow() override {
    if (gptr() < egptr())
      return traits_type::to_int_type(*gptr());
    std::streamsize got =
        rest_.sgetn(chunk_.data(), std::streamsize(chunk_.size()));
    if (got <= 0)
      return traits_type::eof();
    setg(chunk_.data(), chunk_.data(), chunk_.data() + got);
    return traits_type::to_int_type(*gptr());
  }

private:
  std::string prefix_;
  std::streambuf &rest_;
  std::array<char, 1 << 16> chunk_{};
};

// xtensor's header parser reads past the end of an empty string in two
// places: a header that is empty once its newline and spaces are gone, and a
// 'shape' key with no value. Such headers are refused before it sees them.
bool xtensorCanParse(std::string header) {
  if (header.empty() || header.back() != '\n')
    return false;
  header.pop_back();
  std::erase(header, ' ');
  if (header.size() < 2 || header.front() != '{' || header.back() != '}')
    return false;
  size_t shape = header.find("'shape'");
  if (shape == std::string::npos)
    return true; // refused by the library: "missing 'shape' key"
  std::string rest = header.substr(shape, header.size() - 1 - shape);
  if (!rest.empty() && rest.back() == ',')
    rest.pop_back();
  size_t colon = rest.find(':');
  return colon != std::string::npos && colon + 1 < rest.size();
}

// What the header says, parsed by xtensor.
struct NpyHeader {
  std::string descr; // "<i4"
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  uint64_t dataOffset = 0; // in the file
  std::string text;        // the header itself, newline included
};

Status readNpyHeader(std::ifstream &file, uint64_t size,
                     const std::string &path, std::string_view what,
                     NpyHeader &out) {
  auto invalid = [&](const std::string &message) {
    return invalidArgument(path + ": not a valid .npy file" + forWhat(what) +
                           ": " + message);
  };
  unsigned char preamble[kNpyPreambleBytes + 4] = {};
  size_t have = size_t(std::min<uint64_t>(size, sizeof(preamble)));
  file.read(reinterpret_cast<char *>(preamble), std::streamsize(have));
  if (size_t(file.gcount()) != have)
    return invalidArgument("cannot read " + path + forWhat(what) + ": " +
                           std::strerror(errno));
  if (have < kNpyMagicBytes ||
      std::memcmp(preamble, kNpyMagic, kNpyMagicBytes) != 0)
    return invalid("it does not start with the magic \\x93NUMPY");
  if (have < kNpyPreambleBytes)
    return invalid("truncated: " + std::to_string(size) + " bytes");
  unsigned major = preamble[6], minor = preamble[7];
  if (major < 1 || major > 3 || minor != 0)
    return invalid("format version " + std::to_string(major) + "." +
                   std::to_string(minor) +
                   " (this reader knows 1.0, 2.0 and 3.0)");
  unsigned lengthBytes = major == 1 ? 2 : 4;
  if (have < kNpyPreambleBytes + lengthBytes)
    return invalid("truncated: " + std::to_string(size) + " bytes");
  uint64_t headerBytes = readLE(preamble + kNpyPreambleBytes, lengthBytes);
  out.dataOffset = kNpyPreambleBytes + lengthBytes + headerBytes;
  if (out.dataOffset > size)
    return invalid("truncated: the header says it has " +
                   std::to_string(headerBytes) + " bytes, the file has " +
                   std::to_string(size) + " in all");

  out.text.resize(size_t(headerBytes));
  file.seekg(std::streamoff(kNpyPreambleBytes + lengthBytes));
  file.read(out.text.data(), std::streamsize(headerBytes));
  if (uint64_t(file.gcount()) != headerBytes)
    return invalidArgument("cannot read " + path + forWhat(what) + ": " +
                           std::strerror(errno));
  if (!xtensorCanParse(out.text))
    return invalid("its header is not a '{...}\\n' dictionary with a shape");
  std::vector<std::size_t> shape;
  try {
    xt::detail::parse_header(out.text, out.descr, &out.fortranOrder, shape);
  } catch (const std::exception &error) {
    return invalid(std::string("its header: ") + error.what());
  }
  for (std::size_t extent : shape) {
    if (extent > uint64_t(std::numeric_limits<int64_t>::max()))
      return invalid("its header has the shape extent " +
                     std::to_string(extent));
    out.shape.push_back(int64_t(extent));
  }
  return Status::success();
}

// Reads `bytes` bytes of element data starting at `header.dataOffset`
// through xtensor's npy reader (see the file comment).
Status loadNpyData(std::ifstream &file, const NpyHeader &header,
                   ElementType element, uint64_t bytes, const std::string &path,
                   std::string_view what, std::vector<unsigned char> &out) {
  // The smallest length >= the header's whose four bytes are all < 0x80.
  uint64_t length = header.text.size();
  for (unsigned byte = 0; byte < 4; ++byte)
    if (length & (uint64_t(0x80) << (8 * byte)))
      length = (length | ((uint64_t(1) << (8 * byte + 8)) - 1)) + 1;
  if (length > 0x7f7f7f7f)
    return invalidArgument(
        path + ": its .npy header has " + std::to_string(header.text.size()) +
        " bytes, more than this reader supports" + forWhat(what));
  std::string prefix(kNpyMagic, kNpyMagicBytes);
  prefix += '\x02'; // format 2.0: a 4-byte header length
  prefix += '\x00';
  for (unsigned byte = 0; byte < 4; ++byte)
    prefix += char((length >> (8 * byte)) & 0xff);
  prefix.append(header.text, 0, header.text.size() - 1); // up to the newline
  prefix.append(size_t(length - header.text.size()), ' ');
  prefix += '\n';

  file.clear();
  file.seekg(std::streamoff(header.dataOffset));
  SpliceBuf splice(std::move(prefix), *file.rdbuf());
  std::istream stream(&splice);
  xt::detail::npy_file npy = xt::detail::load_npy_file(stream);
  if (uint64_t(stream.gcount()) != bytes || npy.n_bytes() != bytes)
    return invalidArgument(path + ": not a valid .npy file" + forWhat(what) +
                           ": truncated while reading its data");
  out.resize(size_t(bytes));
  withElementType(element, [&]<typename T>() {
    // The library checks the dtype against T and the order against C order.
    auto data = npy.cast<T, xt::layout_type::row_major>(true);
    if (bytes)
      std::memcpy(out.data(), data.data(), size_t(bytes));
  });
  return Status::success();
}

} // namespace

bool parseElementType(std::string_view text, ElementType &out) {
  for (ElementType type :
       {ElementType::I32, ElementType::I64, ElementType::F32, ElementType::F64})
    if (text == elementTypeName(type)) {
      out = type;
      return true;
    }
  return false;
}

std::string_view elementTypeName(ElementType type) {
  return uint8_t(type) < std::size(kElementTypeNames)
             ? kElementTypeNames[uint8_t(type)].name
             : "?";
}

uint32_t elementTypeBytes(ElementType type) {
  return type == ElementType::I32 || type == ElementType::F32 ? 4 : 8;
}

uint64_t HostBuffer::elementCount() const {
  uint64_t count = 1;
  for (int64_t extent : shape) {
    if (extent < 0)
      return 0;
    count *= uint64_t(extent);
  }
  return count;
}

Status readNpyFile(const std::string &path, ElementType expected,
                   std::string_view what, HostBuffer &out) {
  if (!validElementType(expected))
    return invalidArgument("readNpyFile: invalid element type " +
                           std::to_string(unsigned(expected)));
  try {
    std::ifstream file;
    uint64_t size = 0;
    if (Status status = openForReading(path, what, file, size); !status.ok())
      return status;
    NpyHeader header;
    if (Status status = readNpyHeader(file, size, path, what, header);
        !status.ok())
      return status;

    // "<f8 (f64) [16, 16]": what the file holds.
    std::string holds = header.descr;
    ElementType found = ElementType::I32;
    bool known = false, bigEndian = false;
    for (ElementType type : {ElementType::I32, ElementType::I64,
                             ElementType::F32, ElementType::F64}) {
      std::string_view descr = npyDescr(type);
      if (header.descr == descr) {
        found = type;
        known = true;
      } else if (header.descr.size() == descr.size() &&
                 header.descr[0] == '>' &&
                 header.descr.substr(1) == descr.substr(1)) {
        found = type;
        bigEndian = true;
      }
    }
    if (known || bigEndian)
      holds += std::string(" (") + (bigEndian ? "big-endian " : "") +
               std::string(elementTypeName(found)) + ")";
    holds += " " + fileShape(header.shape);
    std::string binding = what.empty() ? "the binding" : std::string(what);

    if (!known || found != expected)
      return invalidArgument(path + ": holds " + holds + ", but " + binding +
                             " is " + std::string(elementTypeName(expected)) +
                             (bigEndian && found == expected
                                  ? ", stored little-endian (" +
                                        std::string(npyDescr(expected)) + ")"
                                  : std::string()));
    if (header.fortranOrder)
      return invalidArgument(path + ": holds " + holds +
                             " in Fortran order, but " + binding +
                             " needs C order (np.ascontiguousarray)");

    uint64_t count = 1, bytes = 0;
    for (int64_t extent : header.shape)
      if (mulOverflows(count, uint64_t(extent), count))
        return invalidArgument(path + ": holds " + holds +
                               ", more elements than 64 bits count" +
                               forWhat(what));
    uint64_t available = size - header.dataOffset;
    if (mulOverflows(count, elementTypeBytes(found), bytes))
      return invalidArgument(path + ": holds " + holds +
                             ", more bytes than 64 bits count" + forWhat(what));
    if (bytes > available)
      return invalidArgument(
          path + ": truncated: holds " + holds + ", " + std::to_string(bytes) +
          " bytes of data, but only " + std::to_string(available) +
          " follow the header" + forWhat(what));
    if (bytes < available)
      return invalidArgument(path + ": holds " + holds + " (" +
                             std::to_string(bytes) + " bytes of data), but " +
                             std::to_string(available - bytes) +
                             " more bytes follow it" + forWhat(what));

    HostBuffer buffer;
    buffer.element = expected;
    buffer.shape = header.shape;
    if (Status status = loadNpyData(file, header, expected, bytes, path, what,
                                    buffer.bytes);
        !status.ok())
      return status;
    out = std::move(buffer);
    return Status::success();
  } catch (const std::bad_alloc &) {
    return Status::error(ErrorKind::OutOfMemory,
                         "out of memory reading " + path + forWhat(what));
  } catch (const std::exception &error) {
    return invalidArgument(path + ": not a valid .npy file" + forWhat(what) +
                           ": " + error.what());
  }
}

Status writeNpyFile(const std::string &path, const HostBuffer &buffer) {
  if (!validElementType(buffer.element))
    return invalidArgument("writeNpyFile " + path + ": invalid element type " +
                           std::to_string(unsigned(buffer.element)));
  uint64_t count = 1, bytes = 0;
  std::vector<std::size_t> shape;
  for (int64_t extent : buffer.shape) {
    if (extent < 0)
      return invalidArgument("writeNpyFile " + path + ": the shape " +
                             fileShape(buffer.shape) +
                             " has a negative extent");
    if (mulOverflows(count, uint64_t(extent), count))
      return Status::error(ErrorKind::ArithmeticOverflow,
                           "writeNpyFile " + path + ": the shape " +
                               fileShape(buffer.shape) + " overflows");
    shape.push_back(std::size_t(extent));
  }
  if (mulOverflows(count, elementTypeBytes(buffer.element), bytes) ||
      bytes != buffer.bytes.size())
    return invalidArgument(
        "writeNpyFile " + path + ": the buffer holds " +
        std::to_string(buffer.bytes.size()) + " bytes, but " +
        bindingType(buffer.element, buffer.shape) + " has " +
        std::to_string(count) + " elements of " +
        std::to_string(elementTypeBytes(buffer.element)) + " bytes");
  try {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file)
      return invalidArgument("cannot open " + path +
                             " for writing: " + std::strerror(errno));
    withElementType(buffer.element, [&]<typename T>() {
      std::vector<T> values(static_cast<size_t>(count));
      if (bytes)
        std::memcpy(values.data(), buffer.bytes.data(), size_t(bytes));
      auto array =
          xt::adapt(values.data(), values.size(), xt::no_ownership(), shape);
      xt::detail::dump_npy_stream(file, array);
    });
    file.close();
    if (!file)
      return invalidArgument("cannot write " + path + ": " +
                             std::strerror(errno));
    return Status::success();
  } catch (const std::bad_alloc &) {
    return Status::error(ErrorKind::OutOfMemory,
                         "out of memory writing " + path);
  } catch (const std::exception &error) {
    return invalidArgument("cannot write " + path + ": " + error.what());
  }
}

Status readRawFile(const std::string &path, ElementType element,
                   std::span<const int64_t> shape, std::string_view what,
                   HostBuffer &out) {
  if (!validElementType(element))
    return invalidArgument("readRawFile: invalid element type " +
                           std::to_string(unsigned(element)));
  std::string type = bindingType(element, shape);
  std::string binding = what.empty() ? "the binding" : std::string(what);
  int dynamic = -1;
  uint64_t staticCount = 1, unitBytes = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && dynamic < 0) {
      dynamic = int(i);
      continue;
    }
    if (shape[i] < 0)
      return invalidArgument(binding + " has the shape " + type +
                             ": only one extent may be dynamic (-1), and no "
                             "extent negative");
    if (mulOverflows(staticCount, uint64_t(shape[i]), staticCount))
      return Status::error(ErrorKind::ArithmeticOverflow,
                           binding + " has the shape " + type +
                               ", more elements than 64 bits count");
  }
  if (mulOverflows(staticCount, elementTypeBytes(element), unitBytes))
    return Status::error(ErrorKind::ArithmeticOverflow,
                         binding + " has the shape " + type +
                             ", more bytes than 64 bits count");
  try {
    std::ifstream file;
    uint64_t size = 0;
    if (Status status = openForReading(path, what, file, size); !status.ok())
      return status;
    HostBuffer buffer;
    buffer.element = element;
    buffer.shape.assign(shape.begin(), shape.end());
    std::string sizeText = std::to_string(size) + " bytes";
    if (dynamic >= 0) {
      if (unitBytes == 0) {
        if (size != 0)
          return invalidArgument(path + ": " + sizeText + ", but " + binding +
                                 " is " + type + ", which holds no data");
        buffer.shape[size_t(dynamic)] = 0;
      } else if (size % unitBytes != 0) {
        return invalidArgument(
            path + ": " + sizeText + " is not a whole number of " +
            (staticCount == 1
                 ? std::string(elementTypeName(element)) + " elements (" +
                       std::to_string(unitBytes) + " bytes each)"
                 : std::to_string(unitBytes) + "-byte steps of the ? extent") +
            ", for " + binding + " (" + type + ")");
      } else {
        buffer.shape[size_t(dynamic)] = int64_t(size / unitBytes);
      }
    } else if (size != unitBytes) {
      return invalidArgument(path + ": " + sizeText + ", but " + binding +
                             " is " + type + " = " + std::to_string(unitBytes) +
                             " bytes");
    }
    buffer.bytes.resize(size_t(size));
    file.read(reinterpret_cast<char *>(buffer.bytes.data()),
              std::streamsize(size));
    if (uint64_t(file.gcount()) != size)
      return invalidArgument("cannot read " + path + forWhat(what) + ": " +
                             std::strerror(errno));
    out = std::move(buffer);
    return Status::success();
  } catch (const std::bad_alloc &) {
    return Status::error(ErrorKind::OutOfMemory,
                         "out of memory reading " + path + forWhat(what));
  } catch (const std::exception &error) {
    return invalidArgument("cannot read " + path + forWhat(what) + ": " +
                           error.what());
  }
}

Status readBufferFile(const std::string &path, ElementType element,
                      std::span<const int64_t> shape, std::string_view what,
                      HostBuffer &out) {
  std::string_view extension =
      path.size() >= 4 ? std::string_view(path).substr(path.size() - 4) : "";
  bool npy = extension.size() == 4 && extension[0] == '.' &&
             std::equal(extension.begin() + 1, extension.end(), "npy",
                        [](char a, char b) { return (a | 0x20) == b; });
  if (!npy)
    return readRawFile(path, element, shape, what, out);
  HostBuffer buffer;
  if (Status status = readNpyFile(path, element, what, buffer); !status.ok())
    return status;
  bool matches = buffer.shape.size() == shape.size();
  for (size_t i = 0; matches && i < shape.size(); ++i)
    matches = shape[i] == -1 || shape[i] == buffer.shape[i];
  if (!matches)
    return invalidArgument(path + ": holds " + std::string(npyDescr(element)) +
                           " (" + std::string(elementTypeName(element)) + ") " +
                           fileShape(buffer.shape) + ", but " +
                           (what.empty() ? "the binding" : std::string(what)) +
                           " is " + bindingType(element, shape));
  out = std::move(buffer);
  return Status::success();
}

Status parseScalar(std::string_view text, ElementType element,
                   std::string_view what, HostBuffer &out) {
  if (!validElementType(element))
    return invalidArgument("parseScalar: invalid element type " +
                           std::to_string(unsigned(element)));
  std::string type(elementTypeName(element));
  auto fail = [&](const std::string &reason) {
    return invalidArgument(
        (what.empty() ? std::string("the value") : std::string(what)) + " is " +
        type + ": '" + std::string(text) + "' " + reason);
  };
  // from_chars takes no '+'; a sign after it is junk.
  std::string_view body = text;
  if (!body.empty() && body[0] == '+')
    body.remove_prefix(1);
  if (body.empty() || (text[0] == '+' && (body[0] == '-' || body[0] == '+')))
    return fail("is not a number");
  const char *end = body.data() + body.size();

  HostBuffer buffer;
  buffer.element = element;
  buffer.bytes.resize(elementTypeBytes(element));
  if (element == ElementType::F32 || element == ElementType::F64) {
    Status status = withElementType(element, [&]<typename T>() -> Status {
      T value{};
      auto [ptr, ec] = std::from_chars(body.data(), end, value);
      if (ec == std::errc::invalid_argument)
        return fail("is not a number");
      if (ec == std::errc::result_out_of_range)
        return fail("is out of range for " + type);
      if (ptr != end)
        return fail("has junk after the number: '" +
                    std::string(ptr, size_t(end - ptr)) + "'");
      std::memcpy(buffer.bytes.data(), &value, sizeof(T));
      return Status::success();
    });
    if (!status.ok())
      return status;
    out = std::move(buffer);
    return Status::success();
  }

  // An integer: [-]digits or [-]0x hex digits.
  bool negative = body[0] == '-';
  std::string_view digits = body.substr(negative ? 1 : 0);
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] | 0x20) == 'x') {
    base = 16;
    digits.remove_prefix(2);
  }
  uint64_t magnitude = 0;
  std::from_chars_result parsed{digits.data(), std::errc::invalid_argument};
  if (!digits.empty() && digits[0] != '-' && digits[0] != '+')
    parsed = std::from_chars(digits.data(), end, magnitude, base);
  bool whole = parsed.ptr == end;
  if (whole && parsed.ec == std::errc::result_out_of_range)
    magnitude = std::numeric_limits<uint64_t>::max();
  if (whole && parsed.ec != std::errc::invalid_argument) {
    bool i32 = element == ElementType::I32;
    int64_t min = i32 ? std::numeric_limits<int32_t>::min()
                      : std::numeric_limits<int64_t>::min();
    int64_t max = i32 ? std::numeric_limits<int32_t>::max()
                      : std::numeric_limits<int64_t>::max();
    if (magnitude > uint64_t(max) + (negative ? 1 : 0))
      return fail("does not fit in " + type + " (" + std::to_string(min) +
                  " to " + std::to_string(max) + ")");
    uint64_t bits = negative ? 0 - magnitude : magnitude;
    if (i32) {
      int32_t value = int32_t(uint32_t(bits));
      std::memcpy(buffer.bytes.data(), &value, sizeof(value));
    } else {
      int64_t value = int64_t(bits);
      std::memcpy(buffer.bytes.data(), &value, sizeof(value));
    }
    out = std::move(buffer);
    return Status::success();
  }
  // Not an integer: a float ("1.5", "1e3", "inf") or junk.
  if (base == 10) {
    double real = 0;
    auto [ptr, ec] = std::from_chars(body.data(), end, real);
    if (ptr == end && ec != std::errc::invalid_argument)
      return fail("is not an integer");
  }
  if (parsed.ec != std::errc::invalid_argument)
    return fail("has junk after the number: '" +
                std::string(parsed.ptr, size_t(end - parsed.ptr)) + "'");
  return fail("is not a number");
}

std::string formatHostBuffer(std::string_view name, const HostBuffer &buffer) {
  std::string line = std::string(name) + ": " +
                     bindingType(buffer.element, buffer.shape) + " =";
  if (!validElementType(buffer.element))
    return line + " <invalid element type>";
  uint64_t elementBytes = elementTypeBytes(buffer.element);
  uint64_t count = std::min<uint64_t>(buffer.elementCount(),
                                      buffer.bytes.size() / elementBytes);
  withElementType(buffer.element, [&]<typename T>() {
    char text[64];
    for (uint64_t i = 0; i < count; ++i) {
      T value;
      std::memcpy(&value, buffer.bytes.data() + i * elementBytes, sizeof(T));
      auto [ptr, ec] = std::to_chars(text, text + sizeof(text), value);
      line += ' ';
      line.append(text, ec == std::errc() ? size_t(ptr - text) : 0);
    }
  });
  if (count != buffer.elementCount())
    line += " <" + std::to_string(buffer.bytes.size()) + " bytes for " +
            std::to_string(buffer.elementCount()) + " elements>";
  return line;
}

} // namespace sluice::runtime
