//===- host_buffer.h - Host buffers and their files -------------*- C++ -*-===//
//
// A program's bindings (buffers and uniforms) as host memory, and the files a
// runner reads them from and writes them to. Every element is little-endian.
//  - .npy (NumPy; read via xtensor's npy reader): the magic "\x93NUMPY", a
//    version byte pair (1.0, 2.0 and 3.0 are read, 1.0 is written), a header
//    length (2 bytes LE in 1.0, 4 in 2.0/3.0), then a Python dict literal
//    {'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), } padded with
//    spaces and a '\n' so the data starts at a multiple of 64, then the data.
//    Only <i4/<i8/<f4/<f8 in C order are accepted, and only the binding's.
//  - Any other extension: raw elements, no header; the size gives the count.
//  - Uniforms: decimal or 0x-hex integers, decimal floats, inf and nan.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_PROGRAM_HOST_BUFFER_H
#define SLUICE_RUNTIME_PROGRAM_HOST_BUFFER_H

#include "sluice/runtime/admission/status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::runtime {

enum class ElementType : uint8_t { I32, I64, F32, F64 };

// "i32" | "i64" | "f32" | "f64" (the MLIR spellings the descriptor uses).
bool parseElementType(std::string_view text, ElementType &out);
std::string_view elementTypeName(ElementType type); // "i32", ...
uint32_t elementTypeBytes(ElementType type);        // 4 or 8

struct HostBuffer {
  ElementType element = ElementType::I32;
  std::vector<int64_t> shape; // row-major; {} is a scalar (1 element)
  // Little-endian, elementCount() * elementTypeBytes(element).
  std::vector<unsigned char> bytes;
  // The product of shape (1 for {}); 0 when an extent is negative.
  uint64_t elementCount() const;
};

// Reads a NumPy .npy file (format 1.0/2.0/3.0). `expected` is the element type
// the binding needs; a file of another dtype, big-endian data, Fortran order,
// or a truncated/invalid file is an InvalidArgument error naming the path and
// what was found, e.g.
//   "film.npy: holds <f8 (f64) [16, 16], but binding 'film' is i32".
// `what` is the text used for the binding in messages ("binding 'film'").
Status readNpyFile(const std::string &path, ElementType expected,
                   std::string_view what, HostBuffer &out);

// Writes `buffer` as a .npy file (C order, little-endian dtype
// <i4/<i8/<f4/<f8).
Status writeNpyFile(const std::string &path, const HostBuffer &buffer);

// Reads raw little-endian elements. `shape` may hold at most one -1 (dynamic
// extent), resolved from the file size; a size that does not match (not a
// whole number of elements, or not the static element count) is an error
// naming the path, its byte size and what was expected.
Status readRawFile(const std::string &path, ElementType element,
                   std::span<const int64_t> shape, std::string_view what,
                   HostBuffer &out);

// Reads by extension: ".npy" -> readNpyFile (then checks the shape against
// `shape`, where -1 matches any extent and the rank must agree), anything
// else -> readRawFile.
Status readBufferFile(const std::string &path, ElementType element,
                      std::span<const int64_t> shape, std::string_view what,
                      HostBuffer &out);

// Parses a uniform's value from the command line ("3", "-7", "0x10", "2.5",
// "1e-3", "inf"); an integer that does not fit, trailing junk, or a float for
// an integer type is an error. The result is a scalar (shape {}).
Status parseScalar(std::string_view text, ElementType element,
                   std::string_view what, HostBuffer &out);

// One line: "film: i32[2x3] = 1 2 3 4 5 6" ("spp: i32 = 4" for a scalar).
// Floats print with enough digits to round-trip (std::to_chars shortest).
std::string formatHostBuffer(std::string_view name, const HostBuffer &buffer);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_PROGRAM_HOST_BUFFER_H
