//===- fused_loop_test.cpp - The fused loop's linking ---------------------===//
//
// runtime/device/vulkan/fused_loop.cpp links the fused scheduler shader
// (built with SLUICE_FUSED) with a program's module through its
// sluice_stage_run. These tests take the real scheduler and a reduced
// program (vulkan/stage_run.spvasm) and check the result by SPIR-V's own
// rules: the linked module has the loop's entry point and the program's,
// carries no linkage (which Vulkan refuses), and the validator accepts it;
// and each refusal names its reason.
//
//===----------------------------------------------------------------------===//

#include "../../runtime/device/vulkan/fused_loop.h"

#include "sluice/runtime/device/vulkan/vulkan.h"
#include "sluice_generated/resident_schedule_fused.spv.h"

#include "vulkan_test_shaders.h"

#include <gtest/gtest.h>

#include <spirv-tools/libspirv.hpp>

#include <iterator>
#include <string>
#include <vector>

namespace {

using sluice::runtime::ErrorKind;
using sluice::runtime::Status;
namespace vk = sluice::runtime::vulkan;

std::vector<uint32_t> scheduler() {
  return std::vector<uint32_t>(std::begin(k_resident_schedule_fused),
                               std::end(k_resident_schedule_fused));
}

// Whether `words` hold an instruction `OpCapability capability`.
bool declaresCapability(const std::vector<uint32_t> &words,
                        uint32_t capability) {
  for (size_t at = 5; at < words.size() && (words[at] >> 16) != 0;
       at += words[at] >> 16)
    if ((words[at] & 0xffff) == 17 /*OpCapability*/ &&
        words[at + 1] == capability)
      return true;
  return false;
}

TEST(FusedLoop, LinksTheSchedulerWithTheProgram) {
  std::vector<uint32_t> program = loadShader("stage_run");
  std::vector<uint32_t> linked;
  Status status = vk::linkFusedLoop(program, scheduler(), linked);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(vk::hasEntryPoint(linked, vk::kFusedLoopEntry));
  EXPECT_TRUE(vk::hasEntryPoint(linked, "stage"));
  EXPECT_FALSE(declaresCapability(linked, 5 /*Linkage*/));
  // Independently of the validation linkFusedLoop does itself.
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  EXPECT_TRUE(tools.Validate(linked));
  // The inputs were not changed in place.
  EXPECT_FALSE(declaresCapability(program, 5));
}

TEST(FusedLoop, RefusesAProgramWithoutStageRun) {
  std::vector<uint32_t> linked;
  Status status =
      vk::linkFusedLoop(loadShader("triple_plus_one"), scheduler(), linked);
  EXPECT_EQ(status.kind(), ErrorKind::Unsupported);
  EXPECT_NE(status.message().find("has no sluice_stage_run"), std::string::npos)
      << status.message();
  EXPECT_TRUE(linked.empty());
}

TEST(FusedLoop, RefusesSpirv14) {
  std::vector<uint32_t> program = loadShader("stage_run");
  program[1] = 0x00010400;
  std::vector<uint32_t> linked;
  Status status = vk::linkFusedLoop(program, scheduler(), linked);
  EXPECT_EQ(status.kind(), ErrorKind::Unsupported);
  EXPECT_NE(status.message().find("version 1.4 or later"), std::string::npos)
      << status.message();
}

TEST(FusedLoop, RefusesASchedulerWithoutThePlaceholder) {
  std::vector<uint32_t> program = loadShader("stage_run");
  std::vector<uint32_t> linked;
  Status status = vk::linkFusedLoop(program, program, linked);
  EXPECT_EQ(status.kind(), ErrorKind::Unsupported);
  EXPECT_NE(status.message().find("scheduler shader has no sluice_stage_run"),
            std::string::npos)
      << status.message();
}

TEST(FusedLoop, RefusesWordsThatAreNotSpirv) {
  std::vector<uint32_t> linked;
  std::vector<uint32_t> garbage{1, 2, 3, 4, 5, 6};
  Status status = vk::linkFusedLoop(garbage, scheduler(), linked);
  EXPECT_EQ(status.kind(), ErrorKind::Unsupported);
  EXPECT_NE(status.message().find("the program's SPIR-V: not a SPIR-V module"),
            std::string::npos)
      << status.message();
  // A truncated instruction: the first one claims more words than remain.
  std::vector<uint32_t> truncated = loadShader("stage_run");
  truncated.resize(6);
  truncated[5] = 40u << 16 | 17u;
  status = vk::linkFusedLoop(truncated, scheduler(), linked);
  EXPECT_NE(status.message().find("a truncated instruction at word 5"),
            std::string::npos)
      << status.message();
}

} // namespace
