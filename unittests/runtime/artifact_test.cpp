//===- artifact_test.cpp - The artifact container and descriptor reader ---===//
//
// The writer and the reader against each other and against the layout of
// docs/artifact.md written out by hand; the writer's refusals.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/program/artifact.h"

#include <gtest/gtest.h>

#include <cstring>

namespace rt = sluice::runtime;

namespace {

// A minimal descriptor: one main stage, no owners, SoA frames of the header.
constexpr const char *kDescriptor = R"({
  "version": 2, "name": "p", "entry_stage": 0, "publish_stride": 0,
  "main_stages": [{"name": "entry", "kernel": "k_entry"}],
  "owners": [], "producers": [],
  "frame": {"layout": "soa", "fields": [
    {"name": "lane", "type": "i32", "size": 4, "align": 4},
    {"name": "next", "type": "i32", "size": 4, "align": 4}]},
  "counters": {"stage_base": 0, "alloc_base": 1, "release_base": 1, "size": 1},
  "inputs": ["i32"], "bindings": [], "check_bounds": false,
  "backends": {"vulkan": {"section": "spirv", "block_lanes": 32}}
})";

uint64_t le(const std::vector<unsigned char> &bytes, size_t offset,
            unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i)
    value |= uint64_t(bytes[offset + i]) << (8 * i);
  return value;
}

TEST(Artifact, WritesTheDocumentedLayout) {
  std::vector<rt::ArtifactSection> sections{{"spirv", {1, 2, 3, 4, 5, 6, 7, 8}}};
  std::vector<unsigned char> bytes;
  ASSERT_TRUE(rt::writeArtifact(kDescriptor, sections, bytes).ok());
  const unsigned char magic[8] = {0x89, 'S', 'L', 'C', '\r', '\n', 0x1a, '\n'};
  ASSERT_EQ(std::memcmp(bytes.data(), magic, 8), 0);
  EXPECT_EQ(le(bytes, 8, 4), 1u);  // format version
  EXPECT_EQ(le(bytes, 12, 4), 2u); // descriptor + spirv
  EXPECT_EQ(le(bytes, 16, 4), uint64_t(SLUICE_KERNEL_ABI_VERSION));
  // Table at 32, 32 bytes an entry; payloads from 32 + 2 * 32 = 96.
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(&bytes[32])),
            "descriptor");
  EXPECT_EQ(le(bytes, 48, 8), 96u);
  EXPECT_EQ(le(bytes, 56, 8), std::strlen(kDescriptor));
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(&bytes[64])), "spirv");
  uint64_t spirvOffset = le(bytes, 80, 8);
  EXPECT_EQ(spirvOffset, (96 + std::strlen(kDescriptor) + 15) / 16 * 16);
  EXPECT_EQ(le(bytes, 88, 8), 8u);
  EXPECT_EQ(bytes[spirvOffset + 7], 8);
}

TEST(Artifact, RoundTripsThroughTheReader) {
  std::vector<rt::ArtifactSection> sections{{"spirv", {1, 2, 3, 4}}};
  std::vector<unsigned char> bytes;
  ASSERT_TRUE(rt::writeArtifact(kDescriptor, sections, bytes).ok());
  rt::Artifact artifact;
  rt::Status status = rt::Artifact::read(bytes, "<test>", artifact);
  ASSERT_TRUE(status.ok()) << status.describe();
  const rt::CompiledProgram &program = artifact.program();
  EXPECT_EQ(program.name, "p");
  ASSERT_EQ(program.mainStages.size(), 1u);
  EXPECT_EQ(program.mainStages[0].kernel, "k_entry");
  EXPECT_EQ(program.inputs, std::vector<std::string>{"i32"});
  const rt::CompiledBackend *backend = nullptr;
  ASSERT_TRUE(artifact.backend("vulkan", backend).ok());
  EXPECT_EQ(backend->blockLanes, 32u);
  std::span<const unsigned char> words = artifact.section("spirv");
  ASSERT_EQ(words.size(), 4u);
  EXPECT_EQ(words[3], 4);
  rt::Status missing = artifact.backend("cpu", backend);
  EXPECT_EQ(missing.kind(), rt::ErrorKind::InvalidArgument);
  EXPECT_EQ(missing.message(),
            "<test> holds no kernels for backend 'cpu' (it has: vulkan)");
}

TEST(Artifact, WriterRefusesBadSectionNames) {
  std::vector<unsigned char> bytes;
  std::vector<rt::ArtifactSection> longName{{"sixteen_bytes_xx", {}}};
  rt::Status status = rt::writeArtifact(kDescriptor, longName, bytes);
  EXPECT_EQ(status.kind(), rt::ErrorKind::InvalidArgument);
  EXPECT_EQ(status.message(),
            "artifact section name 'sixteen_bytes_xx' must have 1 to 15 bytes");
  std::vector<rt::ArtifactSection> twice{{"spirv", {}}, {"spirv", {}}};
  status = rt::writeArtifact(kDescriptor, twice, bytes);
  EXPECT_EQ(status.message(), "artifact section 'spirv' appears twice");
  std::vector<rt::ArtifactSection> descriptor{{"descriptor", {}}};
  status = rt::writeArtifact(kDescriptor, descriptor, bytes);
  EXPECT_EQ(status.message(), "artifact section 'descriptor' appears twice");
}

TEST(Artifact, ElementBytesFollowTheBackend) {
  uint32_t bytes = 0;
  ASSERT_TRUE(rt::elementBytes("index", 8, bytes).ok());
  EXPECT_EQ(bytes, 8u);
  ASSERT_TRUE(rt::elementBytes("index", 4, bytes).ok());
  EXPECT_EQ(bytes, 4u);
  ASSERT_TRUE(rt::elementBytes("i1", 4, bytes).ok());
  EXPECT_EQ(bytes, 1u);
  ASSERT_TRUE(rt::elementBytes("i24", 4, bytes).ok());
  EXPECT_EQ(bytes, 4u);
  ASSERT_TRUE(rt::elementBytes("f64", 4, bytes).ok());
  EXPECT_EQ(bytes, 8u);
  ASSERT_TRUE(rt::elementBytes("bf16", 4, bytes).ok());
  EXPECT_EQ(bytes, 2u);
  EXPECT_FALSE(rt::elementBytes("i128", 4, bytes).ok());
  EXPECT_FALSE(rt::elementBytes("memref<4xi32>", 4, bytes).ok());
}

// A main stage's "sort_key" names a frame field; the runtime descriptor
// points at that field and reads it as the field's type says.
std::string keyedDescriptor(const std::string &sortKey,
                            const std::string &keyType) {
  return R"({
  "version": 2, "name": "p", "entry_stage": 0, "publish_stride": 0,
  "main_stages": [{"name": "entry", "kernel": "k_entry"},
                  {"name": "shade", "kernel": "k_shade", "sort_key": ")" +
         sortKey + R"("}],
  "owners": [], "producers": [],
  "frame": {"layout": "soa", "fields": [
    {"name": "lane", "type": "i32", "size": 4, "align": 4},
    {"name": "next", "type": "i32", "size": 4, "align": 4},
    {"name": "v3", "type": ")" +
         keyType + R"(", "size": 8, "align": 8}]},
  "counters": {"stage_base": 0, "alloc_base": 2, "release_base": 2, "size": 2},
  "inputs": [], "bindings": [], "check_bounds": false
})";
}

TEST(Artifact, ReadsTheSortKeyOfAMainStage) {
  rt::CompiledProgram program;
  for (auto [type, kind] : {std::pair{"f64", rt::SortKeyKind::Float},
                            std::pair{"index", rt::SortKeyKind::Integer},
                            std::pair{"i64", rt::SortKeyKind::Integer}}) {
    rt::Status status =
        rt::parseDescriptor(keyedDescriptor("v3", type), "<test>", program);
    ASSERT_TRUE(status.ok()) << status.describe();
    EXPECT_EQ(program.mainStages[0].sortKey, "");
    EXPECT_EQ(program.mainStages[1].sortKey, "v3");
    rt::ProgramDescriptor runtime = program.runtimeDescriptor(nullptr, nullptr);
    EXPECT_EQ(runtime.mainStages[0].sortKeyField, rt::kNoSortKey);
    EXPECT_EQ(runtime.mainStages[1].sortKeyField, 2u) << "v3 is field 2";
    EXPECT_EQ(runtime.mainStages[1].sortKeyKind, kind) << type;
  }
}

TEST(Artifact, RefusesASortKeyThatIsNoOrderableField) {
  rt::CompiledProgram program;
  EXPECT_EQ(
      rt::parseDescriptor(keyedDescriptor("v9", "i64"), "<test>", program)
          .message(),
      "<test>: descriptor: 'main_stages[1].sort_key' is \"v9\", which names no "
      "frame field");
  EXPECT_EQ(
      rt::parseDescriptor(keyedDescriptor("v3", "vector<2xf32>"), "<test>",
                          program)
          .message(),
      "<test>: descriptor: 'main_stages[1].sort_key' names field \"v3\" of "
      "type vector<2xf32>; a sort key is an integer, index, f32 or f64");
}

// An owner with a storage policy; `policy` is its JSON.
std::string policyDescriptor(const std::string &policy) {
  return R"({
  "version": 2, "name": "p", "entry_stage": 0, "publish_stride": 1,
  "main_stages": [{"name": "entry", "kernel": "k_entry"}],
  "owners": [{"name": "arena", "capacity": 4, "item_size": 4,
              "payload": ["i32"], "stages": [{"name": "a", "kernel": "k_a"}],
              "policy": )" +
         policy + R"(}],
  "producers": [{"stage": 0, "owner": 0, "bound": 1, "publish_base": 0}],
  "frame": {"layout": "soa", "fields": [
    {"name": "lane", "type": "i32", "size": 4, "align": 4}]},
  "counters": {"stage_base": 0, "alloc_base": 2, "release_base": 3, "size": 4},
  "inputs": [], "bindings": [], "check_bounds": false
})";
}

TEST(Artifact, ReadsAnOwnerPolicy) {
  rt::CompiledProgram program;
  rt::Status status = rt::parseDescriptor(
      policyDescriptor(
          R"({"storage": 2, "availability": "f", "prepare_for_producer": "g"})"),
      "<test>", program);
  ASSERT_TRUE(status.ok()) << status.describe();
  const rt::CompiledOwner &owner = program.owners[0];
  EXPECT_EQ(owner.policyStorage, 2u);
  EXPECT_EQ(owner.policyHooks[size_t(rt::PolicyHook::Availability)], "f");
  EXPECT_EQ(owner.policyHooks[size_t(rt::PolicyHook::PrepareForProducer)], "g");
  EXPECT_EQ(owner.policyHooks[size_t(rt::PolicyHook::AdmissionStage)], "");
  // The runtime descriptor names the symbols: the policy is present and
  // names two hooks; the CPU backend resolves their functions, a GPU
  // device calls them in its own code (Device::policyClient).
  rt::ProgramDescriptor runtime = program.runtimeDescriptor(nullptr, nullptr);
  const rt::OwnerPolicy &policy = runtime.owners[0].policy;
  EXPECT_EQ(policy.storageWords, 2u);
  EXPECT_EQ(policy.symbols[1], "f");
  EXPECT_TRUE(policy.present());
  EXPECT_TRUE(policy.has(rt::PolicyHook::Availability));
  EXPECT_TRUE(policy.has(rt::PolicyHook::PrepareForProducer));
  EXPECT_FALSE(policy.has(rt::PolicyHook::AdmissionStage));
  EXPECT_EQ(policy.functions[size_t(rt::PolicyHook::Availability)], nullptr);
}

TEST(Artifact, RefusesAMalformedOwnerPolicy) {
  rt::CompiledProgram program;
  auto message = [&](const std::string &policy) {
    return rt::parseDescriptor(policyDescriptor(policy), "<test>", program)
        .message();
  };
  EXPECT_EQ(message(R"({"availabilty": "f"})"),
            "<test>: descriptor: 'owners[0].policy.availabilty' is not a "
            "policy hook (prepare_for_admission, availability, "
            "admission_stage, prepare_for_producer) or storage");
  EXPECT_EQ(message(R"({"availability": ""})"),
            "<test>: descriptor: 'owners[0].policy.availability' is an empty "
            "symbol");
  EXPECT_EQ(message(R"({"storage": 1})"),
            "<test>: descriptor: 'owners[0].policy' names no hook");
  EXPECT_EQ(message(R"([1])"),
            "<test>: descriptor: 'owners[0].policy' is not an object");
}

} // namespace
