//===- artifact.h - The compiled-program artifact ---------------*- C++ -*-===//
//
// A compiled program is one file (docs/artifact.md): a header with a magic
// number and a format version, a section table, the JSON program descriptor
// and one kernel section per backend. The compiler writes it
// (writeArtifact), the runtime reads it here and nowhere else; sluice-run,
// sluice-run-artifact and embedding front ends all go through readArtifact.
// No MLIR or LLVM: the descriptor is parsed with nlohmann-json.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_PROGRAM_ARTIFACT_H
#define SLUICE_RUNTIME_PROGRAM_ARTIFACT_H

#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/device/gpu_abi.h"
#include "sluice/runtime/wavefront/program.h"

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::runtime {

// The container format (docs/artifact.md).
inline constexpr unsigned char kArtifactMagic[8] = {0x89, 'S', 'L', 'C',
                                                    '\r', '\n', 0x1a, '\n'};
inline constexpr uint32_t kArtifactFormatVersion = 1;
// The descriptor schema this runtime reads (its "version" field).
inline constexpr uint32_t kDescriptorVersion = 2;
inline constexpr uint32_t kArtifactSectionNameBytes = 16;
inline constexpr uint64_t kArtifactSectionAlignment = 16;
// The section that holds the JSON descriptor.
inline constexpr std::string_view kDescriptorSection = "descriptor";

struct ArtifactSection {
  std::string name;                 // at most 15 bytes, unique
  std::vector<unsigned char> bytes; // the payload
};

// The bytes of an artifact holding `descriptorJSON` and `sections` (the
// descriptor is written as the first section). Fails on a bad section name.
Status writeArtifact(std::string_view descriptorJSON,
                     std::span<const ArtifactSection> sections,
                     std::vector<unsigned char> &out);

//===----------------------------------------------------------------------===//
// The descriptor, as the compiler wrote it
//===----------------------------------------------------------------------===//

struct CompiledStage {
  std::string name;
  std::string kernel;  // the stage kernel's name (gpu.func)
  std::string sortKey; // main stages: the sort key's frame field, or ""
};

struct CompiledOwner {
  std::string name;
  uint32_t capacity = 0;
  uint32_t itemSize = 0;
  std::vector<std::string> payload; // element types, MLIR spelling
  std::vector<CompiledStage> stages;
  uint32_t publishBase = 0; // in the compiled publish record
  // The storage policy (docs/artifact.md "Owner policies"): per PolicyHook
  // the function's symbol in the backend's code ("" for the default), and
  // the words of owner-private storage.
  std::array<std::string, kPolicyHookCount> policyHooks;
  uint32_t policyStorage = 0;
  bool hasPolicy() const {
    for (const std::string &hook : policyHooks)
      if (!hook.empty())
        return true;
    return false;
  }
};

struct CompiledProducer {
  uint32_t stage = 0, owner = 0, bound = 0, publishBase = 0;
};

struct CompiledField {
  std::string name;
  std::string type;
  uint64_t size = 0, align = 1, offset = 0; // offset: AoS only
};

// A binding of the program: a buffer or a uniform every lane shares
// (docs/artifact.md). Its kernel argument follows the lane inputs, in
// descriptor order; a uniform is passed as a one-element buffer.
enum class BindingKind : uint8_t { Buffer, Uniform };

struct CompiledBinding {
  std::string name;
  BindingKind kind = BindingKind::Buffer;
  std::string element;        // i32 | i64 | f32 | f64
  std::vector<int64_t> shape; // row-major extents, -1 dynamic; {}: uniform
  std::string declared;       // readonly | writeonly | readwrite
  bool read = false, written = false, atomic = false; // inferred access
};

// The x86-64 microarchitecture levels that CPU kernels may be compiled for
// (`--sluice-cpu`), which an artifact records as `backends.cpu.isa`.
inline constexpr std::array<std::string_view, 3> kCpuLevels = {
    "x86-64-v2", "x86-64-v3", "x86-64-v4"};

// What one backend's kernels need beyond the descriptor.
struct CompiledBackend {
  std::string section;        // the artifact section holding the kernels
  uint32_t blockLanes = SLUICE_KERNEL_BLOCK_LANES; // lanes per block/workgroup
  // The CPU level the kernels need (cpu: one of kCpuLevels), or empty: the
  // architecture's baseline, or this machine's CPU ("native", unrecorded).
  std::string isa;
  // The kernels' pool.publish takes position invocation * bound + k rather
  // than claiming one (backends.cpu.publish_positions "lane"; the CPU
  // backend only): the host compacts each dispatch's window.
  bool lanePublishPositions = false;
  // The width of `index` inside the kernels (backends.hip.index_bits, 64
  // unless the kernels were compiled with 32): a buffer they address holds
  // at most 2^31 - 1 bytes when it is 32.
  uint32_t indexBits = 64;
  // Kernel name (as in the descriptor) -> the symbol the section's code
  // exports, where they differ (hip: the extern "C" names).
  std::map<std::string, std::string, std::less<>> symbols;
  // The symbol of kernel `name`: symbols[name], else `name` itself.
  const std::string &symbolOf(const std::string &name) const {
    auto found = symbols.find(name);
    return found == symbols.end() ? name : found->second;
  }
};

struct CompiledProgram {
  std::string name;
  uint32_t entryStage = 0;
  std::vector<CompiledStage> mainStages;
  std::vector<CompiledOwner> owners;
  std::vector<CompiledProducer> producers;
  uint32_t publishStride = 0;
  FrameLayoutKind layout = FrameLayoutKind::StructOfArrays;
  uint64_t stride = 0; // AoS only
  std::vector<CompiledField> fields;
  uint32_t stageBase = 0, allocBase = 0, releaseBase = 0, counterCount = 0;
  std::vector<std::string> inputs; // per-lane coroutine argument types
  std::vector<CompiledBinding> bindings;
  bool checkBounds = false; // the kernels bounds-check binding accesses
  // The state-machine schedule's kernel (sluice-build-megakernel), or empty:
  // the stage kernels' arguments, then the machine words (KernelABI.h).
  std::string megakernel;
  uint32_t megakernelUniformWords = 0; // the uniforms in its machine words
  std::map<std::string, CompiledBackend, std::less<>> backends;

  // Stage kernels in global stage order: main stages, then each owner's.
  std::vector<const CompiledStage *> globalStages() const;
  // The megakernel's uniforms: per uniform binding, its index and words.
  std::vector<std::pair<uint32_t, uint32_t>> megakernelUniforms() const;
  // The constants the kernels were compiled with (gpu_abi.h).
  GpuKernelLayout kernelLayout() const;
  // The runtime's descriptor; every stage runs `kernel` with `userData`.
  ProgramDescriptor runtimeDescriptor(sluice_rt_stage_kernel kernel,
                                      void *userData) const;
};

// Parses and validates a descriptor. Errors name `origin`, the field (as a
// JSON path such as `owners[0].capacity`) and the value.
Status parseDescriptor(std::string_view json, std::string_view origin,
                       CompiledProgram &out);

// Bytes of one element of MLIR scalar type `type` in a backend's kernel
// memory; `indexBytes` is the width of `index` there (8 on the CPU, 4 in
// SPIR-V). Fails on a type that is not an integer, float or index.
Status elementBytes(std::string_view type, uint32_t indexBytes,
                    uint32_t &out);

//===----------------------------------------------------------------------===//
// The artifact
//===----------------------------------------------------------------------===//

class Artifact {
public:
  // Reads the bytes of an artifact (`origin` names it in errors: a file
  // path, or "<memory>"). Checks the magic number, the format version, the
  // section table's bounds, and the descriptor.
  static Status read(std::vector<unsigned char> bytes, std::string origin,
                     Artifact &out);
  static Status readFile(const std::string &path, Artifact &out);

  const std::string &origin() const { return origin_; }
  const CompiledProgram &program() const { return program_; }
  // The payload of section `name`, or an empty span.
  std::span<const unsigned char> section(std::string_view name) const;
  bool hasSection(std::string_view name) const;
  // The backend's entry, or an error naming the backends the artifact has.
  Status backend(std::string_view name, const CompiledBackend *&out) const;

private:
  std::string origin_;
  std::vector<unsigned char> bytes_;
  struct Range {
    uint64_t offset = 0, size = 0;
  };
  std::map<std::string, Range, std::less<>> sections_;
  CompiledProgram program_;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_PROGRAM_ARTIFACT_H
