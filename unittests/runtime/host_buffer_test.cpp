//===- host_buffer_test.cpp - Host buffers and their files ----------------===//
//
// The .npy reader against files built byte by byte from the documented
// layout (magic, version, header length, dict, padding to 64 bytes), the
// writer against a header written out by hand, raw files, uniforms, the
// printed form, every refusal, and (where numpy is installed) numpy itself.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/program/host_buffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

namespace rt = sluice::runtime;
namespace fs = std::filesystem;
using rt::ElementType;
using rt::ErrorKind;

namespace {

// The little-endian bytes of `values`.
template <typename T> std::string bytesOf(std::initializer_list<T> values) {
  std::string out;
  for (T value : values) {
    unsigned char raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    out.append(reinterpret_cast<const char *>(raw), sizeof(T));
  }
  return out;
}

std::vector<unsigned char> vec(const std::string &bytes) {
  return {bytes.begin(), bytes.end()};
}

// A .npy file as the format documents it: "\x93NUMPY", major, minor, the
// header length (2 bytes LE for 1.0, 4 for 2.0 and 3.0), the dict, spaces and
// '\n' so that magic + version + length + header is a multiple of 64
// (`minHeader` asks for a longer header), then the data.
std::string npy(const std::string &dict, const std::string &data,
                unsigned major = 1, size_t minHeader = 0) {
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t fixed = 6 + 2 + lengthBytes;
  size_t header = dict.size() + 1;
  while ((fixed + header) % 64 != 0 || header < minHeader)
    ++header;
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(0);
  for (size_t i = 0; i < lengthBytes; ++i)
    out += char((header >> (8 * i)) & 0xff);
  out += dict;
  out += std::string(header - dict.size() - 1, ' ');
  out += '\n';
  return out + data;
}

std::string dict(const std::string &descr, const std::string &shape,
                 bool fortran = false) {
  return "{'descr': '" + descr +
         "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

std::string readAll(const fs::path &path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// True when `text` contains every one of `parts`.
::testing::AssertionResult mentions(const std::string &text,
                                    std::initializer_list<std::string> parts) {
  for (const std::string &part : parts)
    if (text.find(part) == std::string::npos)
      return ::testing::AssertionFailure()
             << "'" << text << "' does not mention '" << part << "'";
  return ::testing::AssertionSuccess();
}

class HostBufferFiles : public ::testing::Test {
protected:
  void SetUp() override {
    const ::testing::TestInfo *info =
        ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("sluice-host-buffer-" + std::to_string(::getpid()) + "-" +
            info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string &name, const std::string &bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    return path;
  }
  std::string path(const std::string &name) { return (dir_ / name).string(); }

  fs::path dir_;
};

//===----------------------------------------------------------------------===//
// Element types and buffers
//===----------------------------------------------------------------------===//

TEST(HostBuffer, ElementTypesUseTheMLIRSpellings) {
  struct Case {
    const char *text;
    ElementType type;
    uint32_t bytes;
  } cases[] = {{"i32", ElementType::I32, 4},
               {"i64", ElementType::I64, 8},
               {"f32", ElementType::F32, 4},
               {"f64", ElementType::F64, 8}};
  for (const Case &c : cases) {
    ElementType parsed = ElementType::I32;
    ASSERT_TRUE(rt::parseElementType(c.text, parsed)) << c.text;
    EXPECT_EQ(parsed, c.type);
    EXPECT_EQ(rt::elementTypeName(c.type), c.text);
    EXPECT_EQ(rt::elementTypeBytes(c.type), c.bytes);
  }
  ElementType untouched = ElementType::F64;
  for (const char *bad : {"", "I32", "i16", "f16", "i32 ", "index", "<i4"})
    EXPECT_FALSE(rt::parseElementType(bad, untouched)) << bad;
  EXPECT_EQ(untouched, ElementType::F64);
}

TEST(HostBuffer, ElementCountIsTheProductOfTheShape) {
  rt::HostBuffer buffer;
  EXPECT_EQ(buffer.elementCount(), 1u); // {} is a scalar
  buffer.shape = {7};
  EXPECT_EQ(buffer.elementCount(), 7u);
  buffer.shape = {2, 3, 4};
  EXPECT_EQ(buffer.elementCount(), 24u);
  buffer.shape = {5, 0};
  EXPECT_EQ(buffer.elementCount(), 0u);
}

//===----------------------------------------------------------------------===//
// Reading .npy files built by hand
//===----------------------------------------------------------------------===//

TEST_F(HostBufferFiles, ReadsAHandBuiltNpyFile) {
  std::string data = bytesOf<int32_t>({1, 2, 3, 4, 5, -6});
  std::string bytes = npy(dict("<i4", "(2, 3)"), data);
  ASSERT_EQ(bytes.size(), 128u + 24u); // the header pads to 128
  std::string film = file("film.npy", bytes);
  rt::HostBuffer buffer;
  rt::Status status =
      rt::readNpyFile(film, ElementType::I32, "binding 'film'", buffer);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(buffer.element, ElementType::I32);
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(buffer.bytes, vec(data));
}

TEST_F(HostBufferFiles, ReadsEveryElementTypeAndRank) {
  struct Case {
    const char *descr;
    ElementType type;
    const char *shapeText;
    std::vector<int64_t> shape;
    std::string data;
  } cases[] = {
      {"<i8",
       ElementType::I64,
       "()",
       {},
       bytesOf<int64_t>({-(int64_t(1) << 40)})},
      {"<f4",
       ElementType::F32,
       "(3,)",
       {3},
       bytesOf<float>({0.5f, -1.25f, 3e38f})},
      {"<f8",
       ElementType::F64,
       "(2, 1, 2)",
       {2, 1, 2},
       bytesOf<double>(
           {0.1, -0.0, 1e300, std::numeric_limits<double>::infinity()})},
      {"<i4", ElementType::I32, "(0,)", {0}, ""},
      {"<i4", ElementType::I32, "(4, 0)", {4, 0}, ""},
  };
  for (const Case &c : cases) {
    std::string path = file("a.npy", npy(dict(c.descr, c.shapeText), c.data));
    rt::HostBuffer buffer;
    rt::Status status = rt::readNpyFile(path, c.type, "binding 'a'", buffer);
    ASSERT_TRUE(status.ok())
        << c.descr << " " << c.shapeText << ": " << status.describe();
    EXPECT_EQ(buffer.element, c.type);
    EXPECT_EQ(buffer.shape, c.shape) << c.shapeText;
    EXPECT_EQ(buffer.bytes, vec(c.data)) << c.shapeText;
  }
}

TEST_F(HostBufferFiles, ReadsFormatVersions2And3) {
  std::string data = bytesOf<double>({1.5, 2.5});
  for (unsigned major : {2u, 3u}) {
    std::string bytes = npy(dict("<f8", "(2,)"), data, major);
    EXPECT_EQ(bytes[6], char(major));
    EXPECT_EQ(bytes.size() % 64, 16u); // 64-aligned header, 16 bytes of data
    std::string path = file("v.npy", bytes);
    rt::HostBuffer buffer;
    rt::Status status = rt::readNpyFile(path, ElementType::F64, "x", buffer);
    ASSERT_TRUE(status.ok()) << major << ": " << status.describe();
    EXPECT_EQ(buffer.shape, (std::vector<int64_t>{2}));
    EXPECT_EQ(buffer.bytes, vec(data));
  }
}

// xtensor 0.24 decodes the header length through signed char: numpy (which
// since 1.23 leaves 21 digits of room for the first extent) writes a 182-byte
// (0xb6) header for a rank-20 array, and such files must still read.
TEST_F(HostBufferFiles, ReadsHeaderLengthsWithHighBitBytes) {
  std::string shape = "(";
  for (int i = 0; i < 20; ++i)
    shape += i ? ", 1" : "1";
  shape += ")";
  std::string data = bytesOf<int32_t>({42});
  std::string bytes =
      npy(dict("<i4", shape) + std::string(20, ' '), data, 1, 182);
  ASSERT_EQ(uint8_t(bytes[8]), 0xb6);
  ASSERT_EQ(uint8_t(bytes[9]), 0x00);
  std::string path = file("rank20.npy", bytes);
  rt::HostBuffer buffer;
  rt::Status status = rt::readNpyFile(path, ElementType::I32, "x", buffer);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(buffer.shape, std::vector<int64_t>(20, 1));
  EXPECT_EQ(buffer.bytes, vec(data));

  // A 2.0 header of 0x80b4 bytes: both low bytes have the high bit set.
  std::string big = npy(dict("<f4", "(2,)"), bytesOf<float>({1, 2}), 2, 0x80b4);
  ASSERT_EQ(uint8_t(big[8]), 0xb4);
  ASSERT_EQ(uint8_t(big[9]), 0x80);
  path = file("big.npy", big);
  status = rt::readNpyFile(path, ElementType::F32, "x", buffer);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(buffer.bytes, vec(bytesOf<float>({1, 2})));
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

TEST_F(HostBufferFiles, WritesTheNumpyHeaderByteForByte) {
  rt::HostBuffer buffer;
  buffer.element = ElementType::I32;
  buffer.shape = {2, 3};
  buffer.bytes = vec(bytesOf<int32_t>({1, 2, 3, 4, 5, 6}));
  std::string out = path("out.npy");
  ASSERT_TRUE(rt::writeNpyFile(out, buffer).ok());
  // What numpy.save writes for np.arange(1, 7, dtype='<i4').reshape(2, 3):
  // 10 bytes of preamble, a 118-byte header (0x76), so the data is at 128.
  std::string header = "{'descr': '<i4', 'fortran_order': False, "
                       "'shape': (2, 3), }";
  std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + header +
                         std::string(117 - header.size(), ' ') + "\n" +
                         bytesOf<int32_t>({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(readAll(out), expected);

  // A scalar is "()", a vector "(n,)".
  buffer.element = ElementType::F64;
  buffer.shape = {};
  buffer.bytes = vec(bytesOf<double>({0.25}));
  ASSERT_TRUE(rt::writeNpyFile(out, buffer).ok());
  header = "{'descr': '<f8', 'fortran_order': False, 'shape': (), }";
  EXPECT_EQ(readAll(out), std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                              header + std::string(117 - header.size(), ' ') +
                              "\n" + bytesOf<double>({0.25}));
  buffer.element = ElementType::I64;
  buffer.shape = {2};
  buffer.bytes = vec(bytesOf<int64_t>({-1, 7}));
  ASSERT_TRUE(rt::writeNpyFile(out, buffer).ok());
  header = "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(readAll(out), std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                              header + std::string(117 - header.size(), ' ') +
                              "\n" + bytesOf<int64_t>({-1, 7}));
}

TEST_F(HostBufferFiles, RoundTripsEveryTypeAndShape) {
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    ElementType type;
    std::vector<int64_t> shape;
    std::string data;
  } cases[] = {
      {ElementType::I32,
       {},
       bytesOf<int32_t>({std::numeric_limits<int32_t>::min()})},
      {ElementType::I64,
       {3},
       bytesOf<int64_t>({std::numeric_limits<int64_t>::max(), 0, -5})},
      {ElementType::F32,
       {2, 2},
       bytesOf<float>({-0.0f, float(inf), 1e-45f, 0.1f})},
      {ElementType::F64,
       {1, 2, 3},
       bytesOf<double>({std::nan(""), -inf, 5e-324, 1.0 / 3, 2, 3})},
      {ElementType::F64, {0}, ""},
      {ElementType::I32, {2, 0, 3}, ""},
  };
  for (const Case &c : cases) {
    rt::HostBuffer buffer;
    buffer.element = c.type;
    buffer.shape = c.shape;
    buffer.bytes = vec(c.data);
    std::string out = path("round.npy");
    rt::Status status = rt::writeNpyFile(out, buffer);
    ASSERT_TRUE(status.ok()) << status.describe();
    EXPECT_EQ(readAll(out).size() % 64, c.data.size() % 64);
    rt::HostBuffer back;
    status = rt::readNpyFile(out, c.type, "x", back);
    ASSERT_TRUE(status.ok()) << status.describe();
    EXPECT_EQ(back.element, c.type);
    EXPECT_EQ(back.shape, c.shape);
    EXPECT_EQ(back.bytes, buffer.bytes); // NaN and -0 bit for bit
  }
}

TEST_F(HostBufferFiles, WriteRefusesInconsistentBuffersAndBadPaths) {
  rt::HostBuffer buffer;
  buffer.element = ElementType::F32;
  buffer.shape = {2, 3};
  buffer.bytes.resize(20); // 6 floats need 24
  rt::Status status = rt::writeNpyFile(path("short.npy"), buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(
      mentions(status.message(), {"short.npy", "20 bytes", "f32[2x3]"}));
  EXPECT_FALSE(fs::exists(path("short.npy")));

  buffer.shape = {-2, 3};
  status = rt::writeNpyFile(path("negative.npy"), buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);

  buffer.shape = {5};
  status = rt::writeNpyFile(path("no-such-dir/out.npy"), buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(
      mentions(status.message(), {"no-such-dir/out.npy", "cannot open"}));
}

//===----------------------------------------------------------------------===//
// .npy refusals
//===----------------------------------------------------------------------===//

TEST_F(HostBufferFiles, DtypeMismatchNamesBothTypesAndThePath) {
  std::string data(16 * 16 * 8, '\0');
  std::string film = file("film.npy", npy(dict("<f8", "(16, 16)"), data));
  rt::HostBuffer buffer;
  buffer.shape = {99};
  rt::Status status =
      rt::readNpyFile(film, ElementType::I32, "binding 'film'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(),
            film + ": holds <f8 (f64) [16, 16], but binding 'film' is i32");
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{99})); // untouched

  // i32 against i64: same kind, other width.
  std::string wide =
      file("wide.npy", npy(dict("<i8", "(2,)"), std::string(16, '\0')));
  status = rt::readNpyFile(wide, ElementType::I32, "binding 'w'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(),
            wide + ": holds <i8 (i64) [2], but binding 'w' is i32");

  // A dtype no binding has.
  std::string bytes = file("u8.npy", npy(dict("|u1", "(4,)"), "abcd"));
  status = rt::readNpyFile(bytes, ElementType::I32, "binding 'b'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(),
            bytes + ": holds |u1 [4], but binding 'b' is i32");
}

TEST_F(HostBufferFiles, RefusesBigEndianData) {
  std::string path =
      file("be.npy", npy(dict(">i4", "(2,)"), std::string(8, '\0')));
  rt::HostBuffer buffer;
  rt::Status status =
      rt::readNpyFile(path, ElementType::I32, "binding 'be'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(mentions(status.message(),
                       {path, ">i4", "big-endian", "binding 'be'", "<i4"}));
}

TEST_F(HostBufferFiles, RefusesFortranOrder) {
  std::string path = file("f.npy", npy(dict("<i4", "(2, 3)", /*fortran=*/true),
                                       std::string(24, '\0')));
  rt::HostBuffer buffer;
  rt::Status status =
      rt::readNpyFile(path, ElementType::I32, "binding 'f'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(mentions(status.message(), {path, "Fortran", "binding 'f'"}));
}

TEST_F(HostBufferFiles, RefusesTruncatedAndOverlongFiles) {
  std::string whole =
      npy(dict("<i4", "(2, 3)"), bytesOf<int32_t>({1, 2, 3, 4, 5, 6}));
  rt::HostBuffer buffer;
  // Cut in the data, in the header, in the preamble, and an empty file.
  for (size_t cut : {whole.size() - 1, size_t(128), size_t(100), size_t(9),
                     size_t(7), size_t(3), size_t(0)}) {
    std::string path = file("cut.npy", whole.substr(0, cut));
    rt::Status status =
        rt::readNpyFile(path, ElementType::I32, "binding 'cut'", buffer);
    EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument) << cut;
    EXPECT_TRUE(mentions(status.message(), {path, "binding 'cut'"})) << cut;
    if (cut >= 8)
      EXPECT_TRUE(mentions(status.message(), {"truncated"})) << cut;
  }
  std::string path = file("cut.npy", whole.substr(0, whole.size() - 1));
  rt::Status status =
      rt::readNpyFile(path, ElementType::I32, "binding 'cut'", buffer);
  EXPECT_TRUE(mentions(status.message(), {"24 bytes", "only 23"}));

  path = file("long.npy", whole + "xyz");
  status = rt::readNpyFile(path, ElementType::I32, "binding 'long'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(
      mentions(status.message(), {path, "3 more bytes", "binding 'long'"}));
}

TEST_F(HostBufferFiles, RefusesMissingAndForeignFiles) {
  rt::HostBuffer buffer;
  std::string missing = path("missing.npy");
  rt::Status status =
      rt::readNpyFile(missing, ElementType::I32, "binding 'm'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(
      mentions(status.message(), {missing, "binding 'm'", "No such file"}));

  std::string text = file("text.npy", "hello, this is not an array\n");
  status = rt::readNpyFile(text, ElementType::I32, "binding 't'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(mentions(status.message(), {text, "magic", "binding 't'"}));

  std::string v4 = npy(dict("<i4", "(1,)"), bytesOf<int32_t>({1}));
  v4[6] = 4;
  std::string future = file("v4.npy", v4);
  status = rt::readNpyFile(future, ElementType::I32, "binding 'v'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(mentions(status.message(), {future, "version 4.0"}));

  std::string dir = path("");
  status = rt::readNpyFile(dir, ElementType::I32, "binding 'd'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
}

// Malformed headers are refused, never misread (the sanitizer builds run this
// through xtensor's header parser).
TEST_F(HostBufferFiles, RefusesMalformedHeaders) {
  const char *headers[] = {
      "",
      "{}",
      "{'descr': '<i4', 'fortran_order': False, 'shape': }",
      "{'descr': '<i4', 'fortran_order': False, 'shape':, }",
      "{'descr': '<i4', 'fortran_order': False, 'shape' }",
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3 }",
      "{'descr': '<i4', 'fortran_order': False, 'shape': (,), }",
      "{'descr': '<i4', 'fortran_order': Maybe, 'shape': (1,), }",
      "{'descr': 'i4', 'fortran_order': False, 'shape': (1,), }",
      "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }",
      "{'shape': (1,), 'fortran_order': False, 'descr': '<i4', }",
      "{'fortran_order': False, 'shape': (1,), }",
      "{'descr': '<i4', 'fortran_order': False, 'shape': (-1,), }",
      "'descr': '<i4', 'fortran_order': False, 'shape': (1,), ",
  };
  rt::HostBuffer buffer;
  for (const char *header : headers) {
    std::string path = file("bad.npy", npy(header, bytesOf<int32_t>({1})));
    rt::Status status =
        rt::readNpyFile(path, ElementType::I32, "binding 'h'", buffer);
    EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument) << header;
    EXPECT_TRUE(mentions(status.message(), {path})) << header;
  }
  // No newline at the end of the header.
  std::string bytes = npy(dict("<i4", "(1,)"), bytesOf<int32_t>({1}));
  bytes[127] = ' ';
  std::string path = file("nonl.npy", bytes);
  EXPECT_EQ(rt::readNpyFile(path, ElementType::I32, "h", buffer).kind(),
            ErrorKind::InvalidArgument);
  // A shape whose byte size overflows 64 bits.
  path = file("huge.npy", npy(dict("<i4", "(4294967296, 4294967296)"), ""));
  rt::Status status = rt::readNpyFile(path, ElementType::I32, "h", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(mentions(status.message(), {path, "[4294967296, 4294967296]"}));
}

//===----------------------------------------------------------------------===//
// Raw files and reading by extension
//===----------------------------------------------------------------------===//

TEST_F(HostBufferFiles, ReadsRawFiles) {
  std::string data = bytesOf<int32_t>({1, 2, 3, 4, 5, 6});
  std::string raw = file("a.bin", data);
  rt::HostBuffer buffer;
  const int64_t staticShape[] = {2, 3};
  rt::Status status = rt::readRawFile(raw, ElementType::I32, staticShape,
                                      "binding 'a'", buffer);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(buffer.element, ElementType::I32);
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(buffer.bytes, vec(data));

  const int64_t dynamic[] = {-1};
  ASSERT_TRUE(
      rt::readRawFile(raw, ElementType::F32, dynamic, "x", buffer).ok());
  EXPECT_EQ(buffer.element, ElementType::F32);
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{6}));
  const int64_t rows[] = {-1, 3};
  ASSERT_TRUE(rt::readRawFile(raw, ElementType::I32, rows, "x", buffer).ok());
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{2, 3}));
  const int64_t middle[] = {1, -1, 1};
  ASSERT_TRUE(rt::readRawFile(raw, ElementType::I64, middle, "x", buffer).ok());
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(buffer.bytes, vec(data));

  std::string scalar = file("s.bin", bytesOf<double>({2.5}));
  ASSERT_TRUE(rt::readRawFile(scalar, ElementType::F64, {}, "x", buffer).ok());
  EXPECT_TRUE(buffer.shape.empty());
  EXPECT_EQ(buffer.bytes, vec(bytesOf<double>({2.5})));

  std::string empty = file("e.bin", "");
  ASSERT_TRUE(
      rt::readRawFile(empty, ElementType::F64, dynamic, "x", buffer).ok());
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{0}));
  EXPECT_TRUE(buffer.bytes.empty());
}

TEST_F(HostBufferFiles, RawSizeMismatchNamesTheSizes) {
  std::string raw = file("a.bin", std::string(20, '\0'));
  rt::HostBuffer buffer;
  const int64_t staticShape[] = {2, 3};
  rt::Status status = rt::readRawFile(raw, ElementType::I32, staticShape,
                                      "binding 'a'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(),
            raw + ": 20 bytes, but binding 'a' is i32[2x3] = 24 bytes");

  std::string odd = file("odd.bin", std::string(10, '\0'));
  const int64_t dynamic[] = {-1};
  status =
      rt::readRawFile(odd, ElementType::I32, dynamic, "binding 'o'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(mentions(status.message(), {odd, "10 bytes", "i32",
                                          "4 bytes each", "binding 'o'"}));
  const int64_t rows[] = {-1, 3};
  status = rt::readRawFile(raw, ElementType::I32, rows, "binding 'r'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(
      mentions(status.message(), {raw, "20 bytes", "12-byte", "i32[?x3]"}));

  const int64_t none[] = {-1, 0};
  status = rt::readRawFile(raw, ElementType::I32, none, "binding 'n'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(mentions(status.message(), {raw, "20 bytes", "i32[?x0]"}));

  const int64_t twoDynamic[] = {-1, -1};
  status =
      rt::readRawFile(raw, ElementType::I32, twoDynamic, "binding 't'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(mentions(status.message(), {"binding 't'", "i32[?x?]"}));

  std::string missing = path("missing.bin");
  status = rt::readRawFile(missing, ElementType::I32, dynamic, "binding 'm'",
                           buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_TRUE(mentions(status.message(), {missing, "binding 'm'"}));
}

TEST_F(HostBufferFiles, ReadBufferFileDispatchesOnTheExtension) {
  std::string data = bytesOf<int32_t>({1, 2, 3, 4, 5, 6});
  std::string npyPath = file("a.npy", npy(dict("<i4", "(2, 3)"), data));
  std::string upper = file("A.NPY", npy(dict("<i4", "(2, 3)"), data));
  std::string rawPath = file("a.npy.bin", data);
  rt::HostBuffer buffer;
  const int64_t any[] = {-1, 3};
  for (const std::string &path : {npyPath, upper, rawPath}) {
    rt::Status status =
        rt::readBufferFile(path, ElementType::I32, any, "binding 'a'", buffer);
    ASSERT_TRUE(status.ok()) << path << ": " << status.describe();
    EXPECT_EQ(buffer.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(buffer.bytes, vec(data));
  }
  // The .npy file is read as .npy: its header does not count as data.
  const int64_t flat[] = {-1};
  ASSERT_FALSE(
      rt::readBufferFile(npyPath, ElementType::I32, flat, "x", buffer).ok());
  ASSERT_TRUE(
      rt::readBufferFile(rawPath, ElementType::I32, flat, "x", buffer).ok());
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{6}));

  const int64_t other[] = {4, 3};
  rt::Status status = rt::readBufferFile(npyPath, ElementType::I32, other,
                                         "binding 'a'", buffer);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(),
            npyPath + ": holds <i4 (i32) [2, 3], but binding 'a' is i32[4x3]");
  status = rt::readBufferFile(npyPath, ElementType::I32, flat, "binding 'a'",
                              buffer);
  EXPECT_EQ(status.message(),
            npyPath + ": holds <i4 (i32) [2, 3], but binding 'a' is i32[?]");
  status =
      rt::readBufferFile(npyPath, ElementType::F32, any, "binding 'a'", buffer);
  EXPECT_EQ(status.message(),
            npyPath + ": holds <i4 (i32) [2, 3], but binding 'a' is f32");
}

//===----------------------------------------------------------------------===//
// Uniforms and printing
//===----------------------------------------------------------------------===//

template <typename T> T scalarValue(const rt::HostBuffer &buffer) {
  EXPECT_TRUE(buffer.shape.empty());
  EXPECT_EQ(buffer.bytes.size(), sizeof(T));
  T value{};
  std::memcpy(&value, buffer.bytes.data(), sizeof(T));
  return value;
}

TEST(HostBuffer, ParsesScalars) {
  rt::HostBuffer buffer;
  auto parse = [&](const char *text, ElementType type) {
    rt::Status status = rt::parseScalar(text, type, "uniform 'u'", buffer);
    EXPECT_TRUE(status.ok()) << text << ": " << status.describe();
    EXPECT_EQ(buffer.element, type);
  };
  parse("3", ElementType::I32);
  EXPECT_EQ(scalarValue<int32_t>(buffer), 3);
  parse("-7", ElementType::I32);
  EXPECT_EQ(scalarValue<int32_t>(buffer), -7);
  parse("+12", ElementType::I32);
  EXPECT_EQ(scalarValue<int32_t>(buffer), 12);
  parse("0x10", ElementType::I32);
  EXPECT_EQ(scalarValue<int32_t>(buffer), 16);
  parse("-0X7fffffff", ElementType::I32);
  EXPECT_EQ(scalarValue<int32_t>(buffer), -2147483647);
  parse("2147483647", ElementType::I32);
  EXPECT_EQ(scalarValue<int32_t>(buffer), 2147483647);
  parse("-2147483648", ElementType::I32);
  EXPECT_EQ(scalarValue<int32_t>(buffer), -2147483647 - 1);
  parse("010", ElementType::I32); // decimal, not octal
  EXPECT_EQ(scalarValue<int32_t>(buffer), 10);
  parse("3000000000", ElementType::I64);
  EXPECT_EQ(scalarValue<int64_t>(buffer), 3000000000);
  parse("9223372036854775807", ElementType::I64);
  EXPECT_EQ(scalarValue<int64_t>(buffer), std::numeric_limits<int64_t>::max());
  parse("-9223372036854775808", ElementType::I64);
  EXPECT_EQ(scalarValue<int64_t>(buffer), std::numeric_limits<int64_t>::min());
  parse("0xffffffffff", ElementType::I64);
  EXPECT_EQ(scalarValue<int64_t>(buffer), 0xffffffffffLL);

  parse("2.5", ElementType::F32);
  EXPECT_EQ(scalarValue<float>(buffer), 2.5f);
  parse("0.1", ElementType::F32); // rounded once, to float
  EXPECT_EQ(scalarValue<float>(buffer), 0.1f);
  parse("1e-3", ElementType::F64);
  EXPECT_EQ(scalarValue<double>(buffer), 0.001);
  parse("-4", ElementType::F64);
  EXPECT_EQ(scalarValue<double>(buffer), -4.0);
  parse("+0.5", ElementType::F64);
  EXPECT_EQ(scalarValue<double>(buffer), 0.5);
  parse("inf", ElementType::F32);
  EXPECT_EQ(scalarValue<float>(buffer), std::numeric_limits<float>::infinity());
  parse("-inf", ElementType::F64);
  EXPECT_EQ(scalarValue<double>(buffer),
            -std::numeric_limits<double>::infinity());
  parse("nan", ElementType::F64);
  EXPECT_TRUE(std::isnan(scalarValue<double>(buffer)));
  parse("1.7976931348623157e308", ElementType::F64);
  EXPECT_EQ(scalarValue<double>(buffer), std::numeric_limits<double>::max());
}

TEST(HostBuffer, RefusesBadScalars) {
  struct Case {
    const char *text;
    ElementType type;
    const char *reason;
  } cases[] = {
      {"12x", ElementType::I32, "junk"},
      {"3000000000", ElementType::I32, "does not fit in i32"},
      {"-2147483649", ElementType::I32, "does not fit in i32"},
      {"0x80000000", ElementType::I32, "does not fit in i32"},
      {"9223372036854775808", ElementType::I64, "does not fit in i64"},
      {"99999999999999999999999", ElementType::I64, "does not fit in i64"},
      {"1.5", ElementType::I32, "not an integer"},
      {"1e3", ElementType::I64, "not an integer"},
      {"inf", ElementType::I32, "not an integer"},
      {"", ElementType::I32, "not a number"},
      {"abc", ElementType::I64, "not a number"},
      {" 3", ElementType::I32, "not a number"},
      {"3 ", ElementType::I32, "junk"},
      {"--1", ElementType::I32, "not a number"},
      {"+-1", ElementType::F32, "not a number"},
      {"-", ElementType::I32, "not a number"},
      {"0x", ElementType::I32, "junk"},
      {"0xg", ElementType::I32, "not a number"},
      {"1e39", ElementType::F32, "out of range for f32"},
      {"-1e39", ElementType::F32, "out of range for f32"},
      {"1e400", ElementType::F64, "out of range for f64"},
      {"2.5f", ElementType::F32, "junk"},
      {"0x10", ElementType::F64, "junk"},
      {"one", ElementType::F64, "not a number"},
  };
  for (const Case &c : cases) {
    rt::HostBuffer buffer;
    buffer.shape = {3};
    rt::Status status =
        rt::parseScalar(c.text, c.type, "uniform 'spp'", buffer);
    EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument)
        << "'" << c.text << "'";
    EXPECT_TRUE(mentions(status.message(),
                         {"uniform 'spp'", "'" + std::string(c.text) + "'",
                          std::string(rt::elementTypeName(c.type)), c.reason}))
        << "'" << c.text << "'";
    EXPECT_EQ(buffer.shape, (std::vector<int64_t>{3})); // untouched
  }
}

TEST(HostBuffer, FormatsOneLine) {
  rt::HostBuffer film;
  film.element = ElementType::I32;
  film.shape = {2, 3};
  film.bytes = vec(bytesOf<int32_t>({1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(rt::formatHostBuffer("film", film), "film: i32[2x3] = 1 2 3 4 5 6");

  rt::HostBuffer spp;
  spp.element = ElementType::I32;
  spp.bytes = vec(bytesOf<int32_t>({4}));
  EXPECT_EQ(rt::formatHostBuffer("spp", spp), "spp: i32 = 4");

  rt::HostBuffer wide;
  wide.element = ElementType::I64;
  wide.shape = {2};
  wide.bytes = vec(bytesOf<int64_t>({std::numeric_limits<int64_t>::min(), -1}));
  EXPECT_EQ(rt::formatHostBuffer("w", wide),
            "w: i64[2] = -9223372036854775808 -1");

  // Shortest round-trip digits: 0.1f is "0.1", not 0.100000001.
  rt::HostBuffer floats;
  floats.element = ElementType::F32;
  floats.shape = {5};
  floats.bytes = vec(bytesOf<float>(
      {0.1f, -0.0f, 1.5f, 3e38f, std::numeric_limits<float>::infinity()}));
  EXPECT_EQ(rt::formatHostBuffer("f", floats),
            "f: f32[5] = 0.1 -0 1.5 3e+38 inf");

  rt::HostBuffer doubles;
  doubles.element = ElementType::F64;
  doubles.shape = {1, 4};
  doubles.bytes = vec(bytesOf<double>({0.1, 1.0 / 3, 1e-300, 2}));
  EXPECT_EQ(rt::formatHostBuffer("d", doubles),
            "d: f64[1x4] = 0.1 0.3333333333333333 1e-300 2");

  rt::HostBuffer empty;
  empty.element = ElementType::F64;
  empty.shape = {0};
  EXPECT_EQ(rt::formatHostBuffer("e", empty), "e: f64[0] =");
}

//===----------------------------------------------------------------------===//
// numpy itself
//===----------------------------------------------------------------------===//

// A Python 3 with numpy: python3 on PATH, else Debian's (python3-numpy
// installs for /usr/bin/python3, which a PATH python may not be).
std::string pythonWithNumpy() {
  for (const char *python : {"python3", "/usr/bin/python3"}) {
    std::string probe =
        std::string(python) + " -c 'import numpy' >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0)
      return python;
  }
  return "";
}

TEST_F(HostBufferFiles, ReadsAndWritesWhatNumpyDoes) {
  std::string python = pythonWithNumpy();
  if (python.empty())
    GTEST_SKIP() << "no python3 with numpy (package python3-numpy)";
  std::string made = path("numpy.npy"), rank20 = path("rank20.npy"),
              v3 = path("v3.npy");
  std::string script =
      python +
      " -c '"
      "import sys, numpy as np\n"
      "np.save(sys.argv[1], np.arange(6, dtype=\"<f8\").reshape(2, 3))\n"
      "np.save(sys.argv[2], np.full([1] * 20, 7, dtype=\"<i8\"))\n"
      "from numpy.lib import format\n"
      "with open(sys.argv[3], \"wb\") as f:\n"
      "    format.write_array(f, np.array([1.5, -2], \"<f4\"), version=(3, "
      "0))\n"
      "' " +
      made + " " + rank20 + " " + v3;
  ASSERT_EQ(std::system(script.c_str()), 0) << script;

  rt::HostBuffer buffer;
  rt::Status status =
      rt::readNpyFile(made, ElementType::F64, "binding 'n'", buffer);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(buffer.bytes, vec(bytesOf<double>({0, 1, 2, 3, 4, 5})));
  status = rt::readNpyFile(made, ElementType::I32, "binding 'n'", buffer);
  EXPECT_EQ(status.message(),
            made + ": holds <f8 (f64) [2, 3], but binding 'n' is i32");

  status = rt::readNpyFile(rank20, ElementType::I64, "binding 'r'", buffer);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(buffer.shape, std::vector<int64_t>(20, 1));
  EXPECT_EQ(buffer.bytes, vec(bytesOf<int64_t>({7})));

  status = rt::readNpyFile(v3, ElementType::F32, "binding 'v'", buffer);
  ASSERT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(buffer.bytes, vec(bytesOf<float>({1.5f, -2.0f})));

  // What writeNpyFile writes is byte for byte what numpy.save writes.
  std::string saved = path("saved.npy"), ours = path("ours.npy");
  std::string save =
      python +
      " -c '"
      "import sys, numpy as np\n"
      "np.save(sys.argv[1], np.arange(1, 7, dtype=\"<i4\").reshape(2, 3))\n"
      "' " +
      saved;
  ASSERT_EQ(std::system(save.c_str()), 0) << save;
  rt::HostBuffer same;
  same.element = ElementType::I32;
  same.shape = {2, 3};
  same.bytes = vec(bytesOf<int32_t>({1, 2, 3, 4, 5, 6}));
  ASSERT_TRUE(rt::writeNpyFile(ours, same).ok());
  EXPECT_EQ(readAll(ours), readAll(saved));

  // numpy reads what writeNpyFile writes.
  rt::HostBuffer out;
  out.element = ElementType::I32;
  out.shape = {3, 2};
  out.bytes = vec(bytesOf<int32_t>({1, -2, 3, -4, 5, 2147483647}));
  std::string written = path("written.npy");
  ASSERT_TRUE(rt::writeNpyFile(written, out).ok());
  std::string check =
      python +
      " -c '"
      "import sys, numpy as np\n"
      "a = np.load(sys.argv[1])\n"
      "assert a.dtype == np.dtype(\"<i4\"), a.dtype\n"
      "assert a.shape == (3, 2), a.shape\n"
      "assert a.flags.c_contiguous\n"
      "assert a.tolist() == [[1, -2], [3, -4], [5, 2147483647]], a\n"
      "' " +
      written;
  EXPECT_EQ(std::system(check.c_str()), 0) << check;
}

} // namespace
