//===- validation_messages_test.cpp - Whole texts of validation errors ----===//
//
// Each error of owner validation, the frame layout and the C program runner,
// asserted as the whole text a user sees (Status::describe(): the kind's
// name, then the message), with its kind. The numbers in each text follow
// from the input the test builds. Descriptor validation's texts are in
// admission_test.cpp, beside its other descriptor tests.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/admission/admission.h"
#include "sluice/runtime/wavefront/c_api_program.h"
#include "sluice/runtime/wavefront/program.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace sluice::runtime;

//===----------------------------------------------------------------------===//
// Owner validation (admission.cpp)
//===----------------------------------------------------------------------===//

TEST(OwnerValidationMessages, TotalDiffersFromTheStageSum) {
  std::vector<uint32_t> counts = {2, 2};
  Status status = validateOwnerCounts("pool", counts, 5, 10);
  EXPECT_EQ(status.kind(), ErrorKind::CountMismatch);
  EXPECT_EQ(status.describe(),
            "count mismatch: owner 'pool': stage counts [2, 2] (sum 4), "
            "observed total 5, capacity 10: total differs from the stage sum");
}

TEST(OwnerValidationMessages, LiveItemsExceedTheCapacity) {
  std::vector<uint32_t> counts = {4, 3};
  Status status = validateOwnerCounts("shadow", counts, 7, 6);
  EXPECT_EQ(status.kind(), ErrorKind::CapacityExceeded);
  EXPECT_EQ(status.describe(),
            "capacity exceeded: owner 'shadow': stage counts [4, 3] (sum 7), "
            "observed total 7, capacity 6: live items exceed the capacity");
}

TEST(OwnerValidationMessages, EmptyOwnerReportsLessThanItsCapacity) {
  Status status = validateAvailability("pool", 0, 10, 9);
  EXPECT_EQ(status.kind(), ErrorKind::EmptyOwnerAvailability);
  EXPECT_EQ(status.describe(),
            "empty owner availability: owner 'pool' is empty but reported "
            "availability 9 instead of its capacity 10 (an empty owner must "
            "report A = C so producers can progress)");
}

TEST(OwnerValidationMessages, EmissionBoundZero) {
  Status status = validateProducerBound("trace", "shadow", 0, 4);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_EQ(status.describe(),
            "invalid program descriptor: producer stage 'trace' declares "
            "emission bound 0 into owner 'shadow'");
}

TEST(OwnerValidationMessages, AdmissionStageOutOfRangeOrEmpty) {
  std::vector<uint32_t> counts = {0, 3};
  Status beyond = validateAdmissionStage("pool", counts, 2);
  EXPECT_EQ(beyond.kind(), ErrorKind::InvalidAdmissionStage);
  EXPECT_EQ(beyond.describe(), "invalid admission stage: owner 'pool' chose "
                               "admission stage 2 but has only 2 stages");
  Status empty = validateAdmissionStage("pool", counts, 0);
  EXPECT_EQ(empty.kind(), ErrorKind::InvalidAdmissionStage);
  EXPECT_EQ(empty.describe(),
            "invalid admission stage: owner 'pool' chose admission stage 0 "
            "which holds no items; stage counts [0, 3]");
}

//===----------------------------------------------------------------------===//
// Frame layout (program.cpp)
//===----------------------------------------------------------------------===//

TEST(FrameLayoutMessages, AlignmentNotAPowerOfTwo) {
  FrameLayout layout{FrameLayoutKind::ArrayOfStructs, {{"depth", 4, 3}}};
  ComputedFrameLayout computed;
  Status status = computeFrameLayout(layout, 1, computed);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_EQ(status.describe(), "invalid program descriptor: frame field "
                               "'depth' has alignment 3, which is not a power "
                               "of two");
}

TEST(FrameLayoutMessages, OffsetsOverflow64Bits) {
  // One SoA array of 2^40 bytes per frame times 2^30 frames is 2^70 bytes.
  FrameLayout layout{FrameLayoutKind::StructOfArrays,
                     {{"a", uint64_t(1) << 40, 8}}};
  ComputedFrameLayout computed;
  Status status = computeFrameLayout(layout, 1u << 30, computed);
  EXPECT_EQ(status.kind(), ErrorKind::ArithmeticOverflow);
  EXPECT_EQ(status.describe(),
            "arithmetic overflow: frame layout of 1 fields for a pool of "
            "1073741824 frames overflows 64-bit byte offsets");
}

TEST(FrameLayoutMessages, CompiledStrideDiffersFromTheRuntimes) {
  // a (1 byte) at 0, b (8 bytes, align 8) at 8: the runtime's stride is 16.
  FrameLayout layout{FrameLayoutKind::ArrayOfStructs,
                     {{"a", 1, 1}, {"b", 8, 8}}};
  std::vector<uint64_t> offsets = {0, 8};
  EXPECT_TRUE(checkCompiledFrameLayout(layout, 16, offsets).ok());
  Status status = checkCompiledFrameLayout(layout, 8, offsets);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_EQ(status.describe(),
            "invalid program descriptor: the compiled AoS frame layout "
            "(stride 8) differs from the runtime's (stride 16)");
}

//===----------------------------------------------------------------------===//
// The C program runner (c_api_program.cpp)
//===----------------------------------------------------------------------===//

namespace {

void finishEveryFrame(const sluice_rt_kernel_args *args, uint32_t begin,
                      uint32_t end) {
  for (uint32_t i = begin; i < end; ++i)
    sluice_rt_finish_frame(args, i);
}

const sluice_rt_stage_desc kOnlyStage[] = {{"only", finishEveryFrame}};

// One main stage that finishes every frame; no owners, no frame fields.
sluice_rt_program_desc oneStageProgram() {
  sluice_rt_program_desc desc = {};
  desc.name = "one-stage";
  desc.main_stage_count = 1;
  desc.main_stages = kOnlyStage;
  desc.frame_layout = SLUICE_RT_FRAME_SOA;
  return desc;
}

sluice_rt_run_options smallRun() {
  sluice_rt_run_options options = {};
  options.lanes = 3;
  options.frame_pool = 2;
  options.workers = 1;
  options.schedule = SLUICE_RT_SCHEDULE_WAVEFRONT;
  options.partial_admission = 1;
  return options;
}

struct CResult {
  int rc;
  std::string error;
};

CResult runC(const sluice_rt_program_desc *desc,
             const sluice_rt_run_options *options,
             sluice_rt_stage_stats *stats = nullptr, size_t statsCount = 0) {
  char error[256] = "unset";
  int rc = sluice_rt_run_program(desc, options, stats, statsCount, nullptr,
                                 error, sizeof(error));
  return {rc, error};
}

} // namespace

TEST(CApiProgramMessages, TheProgramRunsWhenWellFormed) {
  sluice_rt_program_desc desc = oneStageProgram();
  sluice_rt_run_options options = smallRun();
  sluice_rt_stage_stats stats[1] = {};
  CResult result = runC(&desc, &options, stats, 1);
  ASSERT_EQ(result.rc, 0) << result.error;
  EXPECT_EQ(result.error, "");
  EXPECT_EQ(stats[0].invocations, 3u); // one per lane
}

TEST(CApiProgramMessages, NullProgramOrOptions) {
  sluice_rt_program_desc desc = oneStageProgram();
  sluice_rt_run_options options = smallRun();
  for (CResult result : {runC(nullptr, &options), runC(&desc, nullptr)}) {
    EXPECT_EQ(result.rc, int(ErrorKind::InvalidArgument));
    EXPECT_EQ(result.error, "invalid argument: sluice_rt_run_program: "
                            "program and options must not be NULL");
  }
}

TEST(CApiProgramMessages, CountWithoutItsArray) {
  sluice_rt_run_options options = smallRun();
  auto errorOf = [&](const sluice_rt_program_desc &desc) {
    CResult result = runC(&desc, &options);
    EXPECT_EQ(result.rc, int(ErrorKind::InvalidArgument));
    return result.error;
  };
  sluice_rt_program_desc noStages = oneStageProgram();
  noStages.main_stages = nullptr;
  EXPECT_EQ(errorOf(noStages),
            "invalid argument: sluice_rt_run_program: main_stages is NULL");
  sluice_rt_program_desc noOwners = oneStageProgram();
  noOwners.owner_count = 1;
  EXPECT_EQ(errorOf(noOwners),
            "invalid argument: sluice_rt_run_program: owners is NULL");
  sluice_rt_program_desc noProducers = oneStageProgram();
  noProducers.producer_count = 2;
  EXPECT_EQ(errorOf(noProducers),
            "invalid argument: sluice_rt_run_program: producers is NULL");
  sluice_rt_program_desc noFields = oneStageProgram();
  noFields.frame_field_count = 3;
  EXPECT_EQ(errorOf(noFields),
            "invalid argument: sluice_rt_run_program: frame_fields is NULL");
  sluice_rt_owner_desc owners[] = {{"first", 4, 0, 0, nullptr},
                                   {"second", 4, 0, 1, nullptr}};
  sluice_rt_program_desc noOwnerStages = oneStageProgram();
  noOwnerStages.owner_count = 2;
  noOwnerStages.owners = owners;
  EXPECT_EQ(errorOf(noOwnerStages), "invalid argument: sluice_rt_run_program: "
                                    "stages of owner 1 is NULL");
}

TEST(CApiProgramMessages, UnknownFrameLayoutOrSchedule) {
  sluice_rt_run_options options = smallRun();
  sluice_rt_program_desc badLayout = oneStageProgram();
  badLayout.frame_layout = 7;
  CResult layout = runC(&badLayout, &options);
  EXPECT_EQ(layout.rc, int(ErrorKind::InvalidArgument));
  EXPECT_EQ(layout.error,
            "invalid argument: sluice_rt_run_program: unknown frame layout 7");

  sluice_rt_program_desc desc = oneStageProgram();
  options.schedule = 9;
  CResult schedule = runC(&desc, &options);
  EXPECT_EQ(schedule.rc, int(ErrorKind::InvalidArgument));
  EXPECT_EQ(schedule.error,
            "invalid argument: sluice_rt_run_program: unknown schedule 9");
}

TEST(CApiProgramMessages, StatisticsArrayTooShort) {
  sluice_rt_program_desc desc = oneStageProgram();
  sluice_rt_run_options options = smallRun();
  sluice_rt_stage_stats stats[1] = {};
  CResult result = runC(&desc, &options, stats, 0);
  EXPECT_EQ(result.rc, int(ErrorKind::InvalidArgument));
  EXPECT_EQ(result.error, "invalid argument: sluice_rt_run_program: stats "
                          "holds 0 entries, fewer than the program's 1 stages");
}
