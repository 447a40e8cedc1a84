//===- sluice-fuzz-bindings.cpp - libFuzzer: the runner's input files -----===//
//
// What sluice-run-artifact reads for --bind and --set: the first byte of an
// input picks the binding it is read for (bits 0-1 the element type, bits
// 2-4 the shape, bit 5 a .npy or a raw file, bit 6 also parse the rest as a
// --set value); the rest is the file. A file that reads is checked against
// its binding, printed, and written back as .npy, which must read back to
// the same buffer. Errors are expected; crashes, sanitizer reports and a
// round trip that changes the buffer are findings.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/program/artifact.h"
#include "sluice/runtime/program/bindings.h"
#include "sluice/runtime/program/host_buffer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace rt = sluice::runtime;

namespace {

// Binding shapes as the descriptor spells them (-1: dynamic).
const std::vector<int64_t> kShapes[] = {{},     {-1},       {4}, {-1, 3},
                                        {2, 2}, {2, -1, 2}, {0}, {3, 1, 1, 1}};

// A directory of this process for the input and the round trip, removed at
// exit (the path is never freed: the exit handler reads it).
const std::string &scratchDirectory() {
  static const std::string &directory = *new std::string([] {
    std::string path = (std::filesystem::temp_directory_path() /
                        ("sluice-fuzz-bindings-" + std::to_string(getpid())))
                           .string();
    std::filesystem::create_directories(path);
    return path;
  }());
  static const bool cleanup = [] {
    return std::atexit([] {
             std::error_code error;
             std::filesystem::remove_all(scratchDirectory(), error);
           }) == 0;
  }();
  (void)cleanup;
  return directory;
}

void writeFile(const std::string &path, const uint8_t *data, size_t size) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char *>(data), std::streamsize(size));
  if (!file) {
    std::fprintf(stderr, "sluice-fuzz-bindings: cannot write %s\n",
                 path.c_str());
    std::abort();
  }
}

[[noreturn]] void roundTripFinding(const std::string &what) {
  std::fprintf(stderr, "sluice-fuzz-bindings: the .npy round trip %s\n",
               what.c_str());
  std::abort();
}

void checkRoundTrip(const rt::HostBuffer &buffer) {
  std::string path = scratchDirectory() + "/round-trip.npy";
  if (rt::Status status = rt::writeNpyFile(path, buffer); !status.ok())
    roundTripFinding("cannot write the buffer: " + status.describe());
  rt::HostBuffer back;
  if (rt::Status status = rt::readNpyFile(path, buffer.element, "", back);
      !status.ok())
    roundTripFinding("cannot read what it wrote: " + status.describe());
  if (back.shape != buffer.shape || back.bytes != buffer.bytes)
    roundTripFinding("reads back " + rt::formatHostBuffer("read", back) +
                     " for " + rt::formatHostBuffer("written", buffer));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  uint8_t choice = data[0];
  const uint8_t *file = data + 1;
  size_t fileSize = size - 1;
  rt::CompiledProgram program;
  program.name = "fuzz";
  rt::CompiledBinding &binding = program.bindings.emplace_back();
  binding.name = "b";
  binding.element =
      std::string(rt::elementTypeName(rt::ElementType(choice & 3)));
  binding.shape = kShapes[(choice >> 2) & 7];
  binding.kind = binding.shape.empty() ? rt::BindingKind::Uniform
                                       : rt::BindingKind::Buffer;
  rt::ElementType element = rt::bindingElementType(binding);

  if (choice & 0x40) {
    rt::HostBuffer scalar;
    std::string_view text(reinterpret_cast<const char *>(file), fileSize);
    if (rt::parseScalar(text, element, "uniform 'b'", scalar).ok()) {
      (void)rt::formatHostBuffer("b", scalar);
      rt::BindingRequests::Item item;
      (void)rt::parseBindingRequest("--set", "b=" + std::string(text), item);
    }
  }

  std::string path =
      scratchDirectory() + ((choice & 0x20) ? "/input.npy" : "/input.bin");
  writeFile(path, file, fileSize);
  rt::HostBuffer buffer;
  if (!rt::readBufferFile(path, element, binding.shape, "binding 'b'", buffer)
           .ok())
    return 0;
  std::vector<rt::HostBuffer> values{buffer};
  (void)rt::checkBindingValues(program, values);
  (void)rt::dynamicExtent(binding, buffer);
  (void)rt::kernelShape(binding, buffer);
  (void)rt::formatHostBuffer("b", buffer);
  checkRoundTrip(buffer);
  return 0;
}
