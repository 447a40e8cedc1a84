//===- bindings.h - A run's bindings: check, resolve, read back -*- C++ -*-===//
//
// The host side of a program's bindings (docs/artifact.md "bindings"): the
// values a run binds, one HostBuffer per descriptor binding in descriptor
// order, checked against the compiled element type and shape before
// anything is loaded; and what a runner's --bind/--set/--output/--print
// options turn into. Adapters upload the values once (they stay resident on
// the device across runs) and read them back on request.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_PROGRAM_BINDINGS_H
#define SLUICE_RUNTIME_PROGRAM_BINDINGS_H

#include "sluice/runtime/program/artifact.h"
#include "sluice/runtime/program/host_buffer.h"

#include <span>
#include <string>
#include <vector>

namespace sluice::runtime {

// The element type of a descriptor binding (the descriptor reader has
// checked that it is one of the four).
ElementType bindingElementType(const CompiledBinding &binding);
// A static buffer the program never reads (declared writeonly, or no plain
// read inferred) may be left unbound: it starts zeroed.
bool mayStartZeroed(const CompiledBinding &binding);
// "16x16", "?" for a dynamic extent, "scalar" for {}: for messages.
std::string shapeText(std::span<const int64_t> shape);
// "film (i32[16x16], buffer, readwrite)": for messages.
std::string describeBinding(const CompiledBinding &binding);
// The extents of the binding's kernel argument for `value`: the buffer's
// shape (dynamic extents resolved), or {1} for a uniform.
std::vector<int64_t> kernelShape(const CompiledBinding &binding,
                                 const HostBuffer &value);

// The entry of the kernels' binding extents for `value`: the element count
// of a dynamic binding, 0 for a static one or a uniform.
int64_t dynamicExtent(const CompiledBinding &binding, const HostBuffer &value);

// Zeros of the binding's shape (a dynamic extent: 0).
HostBuffer zeroValue(const CompiledBinding &binding);
// Zeros for every binding (a dynamic extent: 0 elements), what a loaded
// program holds until it is bound.
std::vector<HostBuffer> defaultBindingValues(const CompiledProgram &program);

// Checks one value per binding, in descriptor order: element type, rank and
// static extents. An error (InvalidArgument) names the binding and both
// shapes.
Status checkBindingValues(const CompiledProgram &program,
                          std::span<const HostBuffer> values);

// What a runner was asked to bind and to give back.
struct BindingRequests {
  struct Item {
    std::string name, text; // binding name; a path or a uniform's value
  };
  std::vector<Item> files;    // --bind name=path (.npy, else raw)
  std::vector<Item> uniforms; // --set name=value
  std::vector<Item> outputs;  // --output name=path.npy
  std::vector<std::string> prints; // --print name
};

// Parses "name=value" (the text of --bind, --set, --output) into `out`.
Status parseBindingRequest(std::string_view option, std::string_view text,
                           BindingRequests::Item &out);

// The values of a run: the bound files and uniforms; a buffer that the
// program never reads (declared writeonly, or inferred so) and that has a
// static shape may be left unbound and starts zero-filled. Unknown names, a
// binding given twice, --bind on a uniform, --set on a buffer, a missing
// binding and every file problem are InvalidArgument errors; outputs and
// prints must name bindings too.
Status resolveBindings(const CompiledProgram &program,
                       const BindingRequests &requests,
                       std::vector<HostBuffer> &values);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_PROGRAM_BINDINGS_H
