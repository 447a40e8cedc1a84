//===- bindings.cpp - A run's bindings: check, resolve, read back ---------===//

#include "sluice/runtime/program/bindings.h"

#include <algorithm>

namespace sluice::runtime {
namespace {

Status invalid(std::string message) {
  return Status::error(ErrorKind::InvalidArgument, std::move(message));
}

std::string bindingNames(const CompiledProgram &program) {
  if (program.bindings.empty())
    return "@" + program.name + " has no bindings";
  std::string text = "the bindings of @" + program.name + " are:";
  for (const CompiledBinding &binding : program.bindings)
    text += " " + binding.name;
  return text;
}

const CompiledBinding *find(const CompiledProgram &program,
                            std::string_view name, size_t &index) {
  for (size_t i = 0; i < program.bindings.size(); ++i)
    if (program.bindings[i].name == name) {
      index = i;
      return &program.bindings[i];
    }
  return nullptr;
}

Status unknown(const CompiledProgram &program, std::string_view option,
               std::string_view name) {
  return invalid(std::string(option) + " names '" + std::string(name) +
                 "', which is not a binding; " + bindingNames(program));
}

} // namespace

std::string shapeText(std::span<const int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + (shape[i] < 0 ? std::string("?")
                                            : std::to_string(shape[i]));
  return text;
}

bool mayStartZeroed(const CompiledBinding &binding) {
  bool dynamic = std::count(binding.shape.begin(), binding.shape.end(),
                            int64_t(-1)) > 0;
  return binding.kind == BindingKind::Buffer && !dynamic &&
         (binding.declared == "writeonly" || !binding.read);
}

ElementType bindingElementType(const CompiledBinding &binding) {
  ElementType type = ElementType::I32;
  (void)parseElementType(binding.element, type);
  return type;
}

std::string describeBinding(const CompiledBinding &binding) {
  bool uniform = binding.kind == BindingKind::Uniform;
  return "'" + binding.name + "' (" + binding.element +
         (uniform ? "" : "[" + shapeText(binding.shape) + "]") + ", " +
         (uniform ? "uniform" : "buffer " + binding.declared) + ")";
}

std::vector<int64_t> kernelShape(const CompiledBinding &binding,
                                 const HostBuffer &value) {
  if (binding.kind == BindingKind::Uniform)
    return {1};
  return value.shape;
}

int64_t dynamicExtent(const CompiledBinding &binding,
                      const HostBuffer &value) {
  for (size_t d = 0; d < binding.shape.size() && d < value.shape.size(); ++d)
    if (binding.shape[d] < 0)
      return value.shape[d];
  return 0;
}

HostBuffer zeroValue(const CompiledBinding &binding) {
  HostBuffer value;
  value.element = bindingElementType(binding);
  for (int64_t extent : binding.shape)
    value.shape.push_back(std::max<int64_t>(extent, 0));
  value.bytes.assign(value.elementCount() * elementTypeBytes(value.element),
                     0);
  return value;
}

std::vector<HostBuffer> defaultBindingValues(const CompiledProgram &program) {
  std::vector<HostBuffer> values;
  for (const CompiledBinding &binding : program.bindings)
    values.push_back(zeroValue(binding));
  return values;
}

Status checkBindingValues(const CompiledProgram &program,
                          std::span<const HostBuffer> values) {
  if (values.size() != program.bindings.size())
    return invalid("@" + program.name + " has " +
                   std::to_string(program.bindings.size()) +
                   " bindings, but " + std::to_string(values.size()) +
                   " values were bound");
  for (size_t i = 0; i < values.size(); ++i) {
    const CompiledBinding &binding = program.bindings[i];
    const HostBuffer &value = values[i];
    std::string what = "binding " + describeBinding(binding);
    if (value.element != bindingElementType(binding))
      return invalid(what + " was bound a buffer of " +
                     std::string(elementTypeName(value.element)));
    bool fits = value.shape.size() == binding.shape.size();
    for (size_t d = 0; fits && d < value.shape.size(); ++d)
      fits = value.shape[d] >= 0 &&
             (binding.shape[d] < 0 || binding.shape[d] == value.shape[d]);
    if (!fits)
      return invalid(what + " was bound a buffer of shape " +
                     shapeText(value.shape));
    if (value.bytes.size() !=
        value.elementCount() * elementTypeBytes(value.element))
      return invalid(what + " was bound " + std::to_string(value.bytes.size()) +
                     " bytes for " + std::to_string(value.elementCount()) +
                     " elements");
  }
  return Status::success();
}

Status parseBindingRequest(std::string_view option, std::string_view text,
                           BindingRequests::Item &out) {
  size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0 ||
      equals + 1 == text.size())
    return invalid(std::string(option) + " takes NAME=" +
                   (option == "--set" ? "VALUE" : "PATH") + ", got '" +
                   std::string(text) + "'");
  out.name = std::string(text.substr(0, equals));
  out.text = std::string(text.substr(equals + 1));
  return Status::success();
}

Status resolveBindings(const CompiledProgram &program,
                       const BindingRequests &requests,
                       std::vector<HostBuffer> &values) {
  std::vector<HostBuffer> resolved(program.bindings.size());
  std::vector<bool> bound(program.bindings.size(), false);
  auto claim = [&](std::string_view option, const std::string &name,
                   size_t &index) -> Status {
    const CompiledBinding *binding = find(program, name, index);
    if (!binding)
      return unknown(program, option, name);
    if (bound[index])
      return invalid("binding '" + name + "' is bound twice");
    bound[index] = true;
    return Status::success();
  };
  for (const BindingRequests::Item &item : requests.files) {
    size_t index = 0;
    if (Status status = claim("--bind", item.name, index); !status.ok())
      return status;
    const CompiledBinding &binding = program.bindings[index];
    if (binding.kind == BindingKind::Uniform)
      return invalid("binding " + describeBinding(binding) +
                     " is a uniform: set it with --set " + binding.name +
                     "=VALUE");
    if (Status status = readBufferFile(item.text, bindingElementType(binding),
                                       binding.shape,
                                       "binding '" + binding.name + "'",
                                       resolved[index]);
        !status.ok())
      return status;
  }
  for (const BindingRequests::Item &item : requests.uniforms) {
    size_t index = 0;
    if (Status status = claim("--set", item.name, index); !status.ok())
      return status;
    const CompiledBinding &binding = program.bindings[index];
    if (binding.kind != BindingKind::Uniform)
      return invalid("binding " + describeBinding(binding) +
                     " is a buffer: bind it with --bind " + binding.name +
                     "=FILE");
    if (Status status =
            parseScalar(item.text, bindingElementType(binding),
                        "uniform '" + binding.name + "'", resolved[index]);
        !status.ok())
      return status;
  }
  for (size_t i = 0; i < program.bindings.size(); ++i) {
    if (bound[i])
      continue;
    const CompiledBinding &binding = program.bindings[i];
    if (!mayStartZeroed(binding))
      return invalid(
          "binding " + describeBinding(binding) + " is not bound: pass " +
          (binding.kind == BindingKind::Uniform ? "--set " + binding.name +
                                                      "=VALUE"
                                                : "--bind " + binding.name +
                                                      "=FILE (.npy or raw)"));
    resolved[i] = zeroValue(binding);
  }
  size_t index = 0;
  for (const BindingRequests::Item &item : requests.outputs)
    if (!find(program, item.name, index))
      return unknown(program, "--output", item.name);
  for (const std::string &name : requests.prints)
    if (!find(program, name, index))
      return unknown(program, "--print", name);
  if (Status status = checkBindingValues(program, resolved); !status.ok())
    return status;
  values = std::move(resolved);
  return Status::success();
}

} // namespace sluice::runtime
