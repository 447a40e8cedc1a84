//===- fused_loop.cpp - The scheduler shader linked with a program --------===//
//
// SPIR-V's linkage: a function declared with the Import linkage attribute
// is resolved against one with the same name and Export in another module.
// Neither module carries them (Vulkan refuses the Linkage capability), so
// both are marked here, on the words, just before SPIRV-Tools' linker
// (which removes the capability and the attributes from its result):
//
// - the program: its sluice_stage_run exported; its addressing model made
//   PhysicalStorageBuffer64, the scheduler's (the linker wants one model;
//   the program uses no pointer of that class, so nothing else changes);
//   its version raised to the scheduler's (both below 1.4);
// - the scheduler: its placeholder sluice_stage_run's body removed and the
//   declaration imported.
//
//===----------------------------------------------------------------------===//

#include "fused_loop.h"

#include <spirv-tools/libspirv.hpp>
#include <spirv-tools/linker.hpp>

#include <spirv/unified1/spirv.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

namespace sluice::runtime::vulkan {
namespace {

constexpr size_t kHeaderWords = 5;
constexpr uint32_t kVersion14 = 0x00010400;

// A literal string's words (nul-terminated, padded to a word).
std::vector<uint32_t> stringWords(std::string_view text) {
  std::vector<uint32_t> words(text.size() / 4 + 1, 0);
  std::memcpy(words.data(), text.data(), text.size());
  return words;
}

std::string_view literalAt(std::span<const uint32_t> words, size_t at,
                           size_t end) {
  const char *begin = reinterpret_cast<const char *>(words.data() + at);
  size_t bytes = (end - at) * 4;
  return std::string_view(begin, strnlen(begin, bytes));
}

// A module as instructions (offsets of each instruction's first word) over
// its words, with the edits this file makes.
struct Module {
  std::vector<uint32_t> words;
  std::vector<size_t> starts;

  static bool parse(std::span<const uint32_t> in, Module &out,
                    std::string &why) {
    if (in.size() < kHeaderWords || in[0] != spv::MagicNumber) {
      why = "not a SPIR-V module";
      return false;
    }
    out.words.assign(in.begin(), in.end());
    out.index();
    for (size_t i = 0; i < out.starts.size(); ++i)
      if (out.count(i) == 0 || out.starts[i] + out.count(i) > in.size()) {
        why =
            "a truncated instruction at word " + std::to_string(out.starts[i]);
        return false;
      }
    return true;
  }

  void index() {
    starts.clear();
    for (size_t at = kHeaderWords; at < words.size();) {
      starts.push_back(at);
      uint32_t n = words[at] >> 16;
      if (n == 0)
        break;
      at += n;
    }
  }
  spv::Op op(size_t i) const { return spv::Op(words[starts[i]] & 0xffff); }
  uint32_t count(size_t i) const { return words[starts[i]] >> 16; }
  uint32_t operand(size_t i, size_t k) const {
    return words[starts[i] + 1 + k];
  }

  // The id an OpName gives `name` (or whose name starts with `prefix` when
  // `prefix` is true), 0 if none.
  uint32_t named(std::string_view name, bool prefix) const {
    for (size_t i = 0; i < starts.size(); ++i) {
      if (op(i) != spv::OpName)
        continue;
      std::string_view text =
          literalAt(words, starts[i] + 2, starts[i] + count(i));
      if (prefix ? text.starts_with(name) : text == name)
        return operand(i, 0);
    }
    return 0;
  }

  // Inserts `instruction` (its operands) before instruction `i`.
  void insert(size_t i, spv::Op opcode, const std::vector<uint32_t> &operands) {
    size_t at = i < starts.size() ? starts[i] : words.size();
    std::vector<uint32_t> instruction{uint32_t(operands.size() + 1) << 16 |
                                      uint32_t(opcode)};
    instruction.insert(instruction.end(), operands.begin(), operands.end());
    words.insert(words.begin() + at, instruction.begin(), instruction.end());
    index();
  }

  size_t first(spv::Op opcode) const {
    for (size_t i = 0; i < starts.size(); ++i)
      if (op(i) == opcode)
        return i;
    return starts.size();
  }

  // The first instruction past the debug section (names, sources): where
  // annotations go.
  size_t annotations() const {
    for (size_t i = 0; i < starts.size(); ++i)
      switch (op(i)) {
      case spv::OpCapability:
      case spv::OpExtension:
      case spv::OpExtInstImport:
      case spv::OpMemoryModel:
      case spv::OpEntryPoint:
      case spv::OpExecutionMode:
      case spv::OpExecutionModeId:
      case spv::OpString:
      case spv::OpSource:
      case spv::OpSourceContinued:
      case spv::OpSourceExtension:
      case spv::OpName:
      case spv::OpMemberName:
      case spv::OpModuleProcessed:
        continue;
      default:
        return i;
      }
    return starts.size();
  }

  void addCapability(spv::Capability capability) {
    insert(first(spv::OpCapability), spv::OpCapability, {capability});
  }

  void addLinkage(uint32_t id, spv::LinkageType type) {
    std::vector<uint32_t> operands{id, spv::DecorationLinkageAttributes};
    std::vector<uint32_t> name = stringWords(kStageRunName);
    operands.insert(operands.end(), name.begin(), name.end());
    operands.push_back(type);
    insert(annotations(), spv::OpDecorate, operands);
  }

  // Leaves only function `id`'s declaration (OpFunction, its parameters,
  // OpFunctionEnd). False when it has no definition here.
  bool dropBody(uint32_t id) {
    for (size_t i = 0; i < starts.size(); ++i) {
      if (op(i) != spv::OpFunction || operand(i, 1) != id)
        continue;
      size_t body = i + 1;
      while (body < starts.size() && op(body) == spv::OpFunctionParameter)
        ++body;
      size_t end = body;
      while (end < starts.size() && op(end) != spv::OpFunctionEnd)
        ++end;
      if (end == starts.size())
        return false;
      words.erase(words.begin() + starts[body], words.begin() + starts[end]);
      index();
      return true;
    }
    return false;
  }
};

// Why the loop is not available (the run summary shows it as "(no fused
// loop: <why>)").
Status unsupported(std::string why) {
  return Status::error(ErrorKind::Unsupported, std::move(why));
}

} // namespace

Status linkFusedLoop(std::span<const uint32_t> programWords,
                     std::span<const uint32_t> schedulerWords,
                     std::vector<uint32_t> &out) {
  std::string why;
  Module program, scheduler;
  if (!Module::parse(programWords, program, why))
    return unsupported("the program's SPIR-V: " + why);
  if (!Module::parse(schedulerWords, scheduler, why))
    return unsupported("the scheduler's SPIR-V: " + why);
  uint32_t run = program.named(kStageRunName, /*prefix=*/false);
  if (run == 0)
    return unsupported(
        "the program's module has no sluice_stage_run (sluice-spirv-stage-"
        "switch adds it where every stage body can run as a virtual "
        "invocation; rebuild the artifact with this Sluice)");
  if (program.words[1] >= kVersion14)
    return unsupported("the program's SPIR-V is version 1.4 or later");
  uint32_t placeholder =
      scheduler.named(std::string(kStageRunName) + "(", /*prefix=*/true);
  if (placeholder == 0 || !scheduler.dropBody(placeholder))
    return unsupported("the scheduler shader has no sluice_stage_run");

  program.words[1] = std::max(program.words[1], scheduler.words[1]);
  size_t model = program.first(spv::OpMemoryModel);
  if (model == program.starts.size())
    return unsupported("the program's SPIR-V has no memory model");
  program.words[program.starts[model] + 1] =
      spv::AddressingModelPhysicalStorageBuffer64;
  std::vector<uint32_t> extension =
      stringWords("SPV_KHR_physical_storage_buffer");
  program.insert(program.first(spv::OpExtInstImport) < model
                     ? program.first(spv::OpExtInstImport)
                     : model,
                 spv::OpExtension, extension);
  program.addCapability(spv::CapabilityPhysicalStorageBufferAddresses);
  program.addCapability(spv::CapabilityLinkage);
  program.addLinkage(run, spv::LinkageTypeExport);
  scheduler.addCapability(spv::CapabilityLinkage);
  scheduler.addLinkage(placeholder, spv::LinkageTypeImport);

  // The linker's and the validator's messages.
  std::string messages;
  auto collect = [&](spv_message_level_t, const char *, const spv_position_t &,
                     const char *text) {
    if (!messages.empty())
      messages += "; ";
    messages += text;
  };
  spvtools::Context context(SPV_ENV_VULKAN_1_2);
  context.SetMessageConsumer(collect);
  std::vector<std::vector<uint32_t>> binaries{std::move(scheduler.words),
                                              std::move(program.words)};
  std::vector<uint32_t> linked;
  if (spvtools::Link(context, binaries, &linked) != SPV_SUCCESS)
    return unsupported("SPIRV-Tools' linker: " + messages);
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  tools.SetMessageConsumer(collect);
  if (!tools.Validate(linked))
    return unsupported("the linked module is not valid SPIR-V: " + messages);
  out = std::move(linked);
  return Status::success();
}

} // namespace sluice::runtime::vulkan
