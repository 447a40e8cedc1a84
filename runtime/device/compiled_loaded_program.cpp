//===- compiled_loaded_program.cpp - What compiled-kernel adapters share --===//

#include "compiled_loaded_program.h"

#include "sluice/runtime/program/bindings.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>

namespace sluice::runtime {

Status CompiledLoadedProgram::initialize(const CompiledProgram &compiled,
                                         ProgramDescriptor program) {
  compiled_ = compiled;
  program_ = std::move(program);
  shapes_.assign(compiled.bindings.size(), {});
  return bind(defaultBindingValues(compiled));
}

Status CompiledLoadedProgram::bind(std::span<const HostBuffer> values,
                                   std::span<const bool> upload) {
  if (Status status = checkBindingValues(compiled_, values); !status.ok())
    return status;
  std::vector<int64_t> extents(std::max<size_t>(values.size(), 1), 0);
  for (uint32_t b = 0; b < values.size(); ++b) {
    const CompiledBinding &binding = compiled_.bindings[b];
    std::vector<int64_t> shape = kernelShape(binding, values[b]);
    // Where the device's copy holds the value already (Program::run says
    // so), only its shape and extent are noted.
    bool held = b < upload.size() && !upload[b];
    if (!held)
      if (Status status = storeBinding(b, values[b].bytes, shape); !status.ok())
        return status;
    shapes_[b] = values[b].shape;
    extents[b] = dynamicExtent(binding, values[b]);
  }
  return storeExtents(extents);
}

Status CompiledLoadedProgram::readBinding(uint32_t index, HostBuffer &out) {
  if (index >= shapes_.size())
    return Status::error(ErrorKind::InvalidArgument,
                         "readBinding(" + std::to_string(index) +
                             "): the program has " +
                             std::to_string(shapes_.size()) + " bindings");
  out.element = bindingElementType(compiled_.bindings[index]);
  out.shape = shapes_[index];
  out.bytes.resize(out.elementCount() * elementTypeBytes(out.element));
  return fetchBinding(index, out.bytes);
}

Status laneInputArrays(const CompiledProgram &program, uint32_t lanes,
                       uint32_t indexBytes,
                       std::vector<std::vector<unsigned char>> &out) {
  out.clear();
  for (const std::string &type : program.inputs) {
    uint32_t bytes = 0;
    if (Status status = elementBytes(type, indexBytes, bytes); !status.ok())
      return status;
    try {
      // Little-endian: the low `bytes` bytes of the lane id.
      std::vector<unsigned char> &input =
          out.emplace_back(uint64_t(lanes) * bytes, 0);
      for (uint64_t lane = 0; lane < lanes; ++lane)
        std::memcpy(input.data() + lane * bytes, &lane,
                    std::min<uint32_t>(bytes, sizeof lane));
    } catch (const std::bad_alloc &) {
      return Status::error(ErrorKind::OutOfMemory,
                           "cannot allocate the input array of " +
                               std::to_string(lanes) + " lanes");
    }
  }
  return Status::success();
}

std::string gpuDeviceSummary(const std::string &device,
                             const CompiledKernelStats &stats,
                             const char *hostSteps, const char *launches) {
  char line[512];
  std::snprintf(line, sizeof line,
                "%s: %" PRIu64 " dispatches, %.3f ms of GPU time, %.3f ms in "
                "dispatch() of which %.3f ms %s; %.3f ms sorting %" PRIu64
                " of them (%" PRIu64 " key bytes downloaded)",
                device.c_str(), stats.dispatches, stats.gpuNanoseconds * 1e-6,
                stats.dispatchNanoseconds * 1e-6,
                stats.submitWaitNanoseconds * 1e-6, hostSteps,
                stats.sortNanoseconds * 1e-6, stats.sortedDispatches,
                stats.sortKeyBytes);
  std::string summary = line;
  if (!stats.residentForm.empty())
    summary += "; device placement: " + stats.residentForm + ", " +
               std::to_string(stats.residentSubmissions) + " " + launches;
  // SLUICE_HIP_PROFILE, SLUICE_VULKAN_PROFILE
  if (!stats.residentProfile.empty())
    summary += "; " + stats.residentProfile;
  return summary;
}

} // namespace sluice::runtime
