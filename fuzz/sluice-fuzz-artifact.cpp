//===- sluice-fuzz-artifact.cpp - libFuzzer: the artifact reader ----------===//
//
// An input that starts with the artifact magic number is read as an artifact
// (header, section table, descriptor); any other input is taken as the JSON
// descriptor of an artifact that has a small section for every backend, so
// that mutations of the JSON reach the descriptor's checks. A program that
// reads is then taken as far as a runner takes it before any kernel runs:
// the runtime descriptor, the program shape, the frame layout, the kernel
// layout, the backends' entries and the default binding values. Errors are
// expected; crashes and sanitizer reports are findings.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/program/artifact.h"
#include "sluice/runtime/program/bindings.h"
#include "sluice/runtime/wavefront/program.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace rt = sluice::runtime;

namespace {

// The frame pool a run starts with when --frame-pool is not given.
constexpr uint32_t kDefaultFramePool = 256;

std::vector<unsigned char> artifactBytes(const uint8_t *data, size_t size) {
  if (size >= sizeof(rt::kArtifactMagic) &&
      std::memcmp(data, rt::kArtifactMagic, sizeof(rt::kArtifactMagic)) == 0)
    return {data, data + size};
  std::vector<rt::ArtifactSection> sections;
  for (const char *name : {"cpu.so", "spirv", "hip"})
    sections.push_back({name, {0x7f, 'E', 'L', 'F'}});
  std::vector<unsigned char> bytes;
  std::string_view json(reinterpret_cast<const char *>(data), size);
  if (!rt::writeArtifact(json, sections, bytes).ok())
    return {};
  return bytes;
}

void exerciseProgram(const rt::Artifact &artifact) {
  const rt::CompiledProgram &program = artifact.program();
  rt::ProgramDescriptor descriptor =
      program.runtimeDescriptor(nullptr, nullptr);
  rt::ProgramShape shape;
  if (rt::ProgramShape::build(descriptor, shape).ok()) {
    (void)rt::validateRunShape(shape, descriptor, kDefaultFramePool, false);
    for (uint32_t s = 0; s < shape.totalStageCount(); ++s)
      (void)shape.stageName(s);
  }
  rt::ComputedFrameLayout layout;
  (void)rt::computeFrameLayout(descriptor.frameLayout, kDefaultFramePool,
                               layout);
  (void)rt::globalStageNames(descriptor);
  (void)program.kernelLayout();
  (void)program.megakernelUniforms();
  for (const rt::CompiledStage *stage : program.globalStages())
    for (const auto &[name, backend] : program.backends)
      (void)backend.symbolOf(stage->kernel);
  for (std::string_view name : {"cpu", "vulkan", "hip", "metal"}) {
    const rt::CompiledBackend *backend = nullptr;
    if (artifact.backend(name, backend).ok())
      (void)artifact.section(backend->section);
  }
  for (const std::string &input : program.inputs)
    for (uint32_t indexBytes : {4u, 8u}) {
      uint32_t bytes = 0;
      (void)rt::elementBytes(input, indexBytes, bytes);
    }
  for (const rt::CompiledBinding &binding : program.bindings)
    (void)rt::describeBinding(binding);
  std::vector<rt::HostBuffer> values = rt::defaultBindingValues(program);
  (void)rt::checkBindingValues(program, values);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<unsigned char> bytes = artifactBytes(data, size);
  if (bytes.empty())
    return 0;
  rt::Artifact artifact;
  if (rt::Artifact::read(std::move(bytes), "<fuzz>", artifact).ok())
    exerciseProgram(artifact);
  return 0;
}
