//===- admission_test.cpp - Admission decision functions, no threads ------===//

#include "sluice/runtime/admission/admission.h"
#include "sluice/runtime/wavefront/program.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace sluice::runtime;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(AdmissionRule, ProductIsExactIn64Bits) {
  // 2^16 * 2^16 = 2^32 wraps to 0 in 32 bits; the rule must not admit it.
  EXPECT_FALSE(admissionFits(1u << 16, 1u << 16, 0));
  EXPECT_FALSE(admissionFits(1u << 16, 1u << 16, (uint64_t(1) << 32) - 1));
  EXPECT_TRUE(admissionFits(1u << 16, 1u << 16, uint64_t(1) << 32));
  // (2^32 - 1)^2 = 2^64 - 2^33 + 1.
  uint64_t maxProduct = UINT64_MAX - (uint64_t(1) << 33) + 2;
  EXPECT_TRUE(admissionFits(UINT32_MAX, UINT32_MAX, maxProduct));
  EXPECT_FALSE(admissionFits(UINT32_MAX, UINT32_MAX, maxProduct - 1));
  EXPECT_TRUE(admissionFits(UINT32_MAX, UINT32_MAX, UINT64_MAX));
  // 3 * 0x55555556 = 0x100000002 wraps to 2 in 32 bits.
  EXPECT_FALSE(admissionFits(3, 0x55555556u, 2));
  static_assert(admissionFits(4, 5, 20) && !admissionFits(4, 5, 19));
}

TEST(AdmissionRule, AvailabilityAtItsBounds) {
  // A = 0: nothing with a nonzero bound fits, with or without partial.
  EXPECT_EQ(decideAdmission(1, 1, 0, true).outcome, AdmissionOutcome::Blocked);
  EXPECT_EQ(decideAdmission(1, 1, 0, true).admitted, 0u);
  EXPECT_EQ(decideAdmission(7, 3, 0, false).outcome, AdmissionOutcome::Blocked);
  // A = C exactly fits n * b = C.
  AdmissionDecision exact = decideAdmission(8, 4, 32, false);
  EXPECT_EQ(exact.outcome, AdmissionOutcome::Full);
  EXPECT_EQ(exact.admitted, 8u);
  // A = C - 1 with n * b = C: all-or-nothing blocks, partial takes 7.
  EXPECT_EQ(decideAdmission(8, 4, 31, false).outcome,
            AdmissionOutcome::Blocked);
  AdmissionDecision prefix = decideAdmission(8, 4, 31, true);
  EXPECT_EQ(prefix.outcome, AdmissionOutcome::Partial);
  EXPECT_EQ(prefix.admitted, 31u / 4u);
  // The largest A a 32-bit capacity allows.
  AdmissionDecision largest = decideAdmission(UINT32_MAX, 1, UINT32_MAX, true);
  EXPECT_EQ(largest.outcome, AdmissionOutcome::Full);
  EXPECT_EQ(largest.admitted, UINT32_MAX);
}

TEST(AdmissionRule, PartialAdmissionTakesFloorOfAOverB) {
  for (uint32_t bound = 1; bound <= 9; ++bound) {
    for (uint64_t availability = 0; availability <= 40; ++availability) {
      const uint32_t waiting = 10;
      AdmissionDecision partial =
          decideAdmission(waiting, bound, availability, true);
      AdmissionDecision strict =
          decideAdmission(waiting, bound, availability, false);
      uint64_t fitting = availability / bound;
      SCOPED_TRACE("b=" + std::to_string(bound) +
                   " A=" + std::to_string(availability));
      if (uint64_t(waiting) * bound <= availability) {
        EXPECT_EQ(partial.outcome, AdmissionOutcome::Full);
        EXPECT_EQ(partial.admitted, waiting);
        EXPECT_EQ(strict.outcome, AdmissionOutcome::Full);
      } else if (fitting >= 1) {
        EXPECT_EQ(partial.outcome, AdmissionOutcome::Partial);
        EXPECT_EQ(partial.admitted, fitting);
        EXPECT_EQ(strict.outcome, AdmissionOutcome::Blocked);
      } else {
        EXPECT_EQ(partial.outcome, AdmissionOutcome::Blocked);
        EXPECT_EQ(strict.outcome, AdmissionOutcome::Blocked);
      }
      // Whatever is admitted fits.
      EXPECT_TRUE(admissionFits(partial.admitted, bound, availability));
    }
  }
  // A huge queue against a huge availability: the prefix is exact.
  AdmissionDecision big =
      decideAdmission(UINT32_MAX, 2, uint64_t(UINT32_MAX) + 1, true);
  EXPECT_EQ(big.outcome, AdmissionOutcome::Partial);
  EXPECT_EQ(big.admitted, (uint64_t(UINT32_MAX) + 1) / 2);
}

TEST(AdmissionRule, EmptyQueueAndZeroBoundAlwaysFit) {
  EXPECT_EQ(decideAdmission(0, 5, 0, false).outcome, AdmissionOutcome::Full);
  EXPECT_EQ(decideAdmission(9, 0, 0, false).admitted, 9u);
}

TEST(AdmissionRule, CombineTakesSmallestAdmittedPrefix) {
  AdmissionDecision full{8, AdmissionOutcome::Full};
  AdmissionDecision partial{3, AdmissionOutcome::Partial};
  AdmissionDecision blocked{0, AdmissionOutcome::Blocked};
  EXPECT_EQ(combineAdmission(full, partial).admitted, 3u);
  EXPECT_EQ(combineAdmission(partial, full).outcome, AdmissionOutcome::Partial);
  EXPECT_EQ(combineAdmission(full, full).outcome, AdmissionOutcome::Full);
  EXPECT_EQ(combineAdmission(partial, blocked).outcome,
            AdmissionOutcome::Blocked);
  EXPECT_EQ(combineAdmission(blocked, full).outcome, AdmissionOutcome::Blocked);
}

TEST(GreedyChoice, LargestCountTiesToLowestIndex) {
  std::vector<uint32_t> none = {0, 0, 0};
  EXPECT_EQ(chooseGreedyStage(none), kNoStage);
  EXPECT_EQ(chooseGreedyStage(std::vector<uint32_t>{}), kNoStage);
  std::vector<uint32_t> tie = {0, 5, 3, 5};
  EXPECT_EQ(chooseGreedyStage(tie), 1u);
  std::vector<uint32_t> last = {1, 2, 3, 4};
  EXPECT_EQ(chooseGreedyStage(last), 3u);
  std::vector<uint32_t> huge = {UINT32_MAX, UINT32_MAX};
  EXPECT_EQ(chooseGreedyStage(huge), 0u);
}

TEST(GreedyChoice, DefaultAdmissionStageIsFirstNonEmpty) {
  EXPECT_EQ(firstNonEmptyStage(std::vector<uint32_t>{0, 0, 9, 1}), 2u);
  EXPECT_EQ(firstNonEmptyStage(std::vector<uint32_t>{4}), 0u);
  EXPECT_EQ(firstNonEmptyStage(std::vector<uint32_t>{0, 0}), kNoStage);
  CapacityOwnerClient client;
  std::vector<uint32_t> counts = {0, 7, 2};
  OwnerView view;
  view.name = "pool";
  view.capacity = 10;
  view.stageCounts = counts;
  view.live = 9;
  EXPECT_EQ(client.admissionStage(view), 1u);
  EXPECT_EQ(client.materializableAvailability(view), 1u);
}

TEST(OwnerValidation, CountsWithinCapacityPass) {
  std::vector<uint32_t> counts = {1, 2, 3};
  EXPECT_TRUE(validateOwnerCounts("pool", counts, 6, 6).ok());
  EXPECT_TRUE(validateOwnerCounts("pool", counts, 6, 100).ok());
  std::vector<uint32_t> empty = {0, 0};
  EXPECT_TRUE(validateOwnerCounts("pool", empty, 0, 1).ok());
}

TEST(OwnerValidation, LiveAboveCapacityNamesOwnerCountsAndCapacity) {
  std::vector<uint32_t> counts = {4, 3};
  Status status = validateOwnerCounts("shadow", counts, 7, 6);
  ASSERT_EQ(status.kind(), ErrorKind::CapacityExceeded);
  EXPECT_TRUE(contains(status.message(), "owner 'shadow'"));
  EXPECT_TRUE(contains(status.message(), "[4, 3]"));
  EXPECT_TRUE(contains(status.message(), "observed total 7"));
  EXPECT_TRUE(contains(status.message(), "capacity 6"));
}

TEST(OwnerValidation, TotalMustEqualStageSum) {
  std::vector<uint32_t> counts = {2, 2};
  Status status = validateOwnerCounts("pool", counts, 5, 10);
  ASSERT_EQ(status.kind(), ErrorKind::CountMismatch);
  EXPECT_TRUE(contains(status.message(), "(sum 4)"));
  EXPECT_TRUE(contains(status.message(), "observed total 5"));
  // A stage sum beyond 32 bits does not wrap into agreement.
  std::vector<uint32_t> wide = {UINT32_MAX, 1};
  EXPECT_EQ(validateOwnerCounts("pool", wide, 0, UINT32_MAX).kind(),
            ErrorKind::CountMismatch);
  EXPECT_EQ(
      validateOwnerCounts("pool", wide, uint64_t(1) << 32, UINT32_MAX).kind(),
      ErrorKind::CapacityExceeded);
}

TEST(OwnerValidation, AvailabilityBetweenZeroAndFreeSlots) {
  EXPECT_TRUE(validateAvailability("pool", 3, 10, 7).ok());
  EXPECT_TRUE(validateAvailability("pool", 3, 10, 0).ok());
  EXPECT_TRUE(validateAvailability("pool", 10, 10, 0).ok());
  Status over = validateAvailability("pool", 3, 10, 8);
  ASSERT_EQ(over.kind(), ErrorKind::AvailabilityOutOfRange);
  EXPECT_TRUE(contains(over.message(), "reported availability 8"));
  EXPECT_TRUE(contains(over.message(), "10 - 3 = 7"));
  EXPECT_EQ(validateAvailability("pool", 0, 10, UINT64_MAX).kind(),
            ErrorKind::AvailabilityOutOfRange);
}

TEST(OwnerValidation, EmptyOwnerMustReportFullCapacity) {
  EXPECT_TRUE(validateAvailability("pool", 0, 10, 10).ok());
  Status short_ = validateAvailability("pool", 0, 10, 9);
  ASSERT_EQ(short_.kind(), ErrorKind::EmptyOwnerAvailability);
  EXPECT_TRUE(contains(short_.message(), "'pool' is empty"));
  EXPECT_TRUE(contains(short_.message(), "availability 9"));
  EXPECT_TRUE(contains(short_.message(), "capacity 10"));
  EXPECT_EQ(validateAvailability("pool", 0, 10, 0).kind(),
            ErrorKind::EmptyOwnerAvailability);
}

TEST(OwnerValidation, ProducerBoundAboveCapacityIsAClearError) {
  EXPECT_TRUE(validateProducerBound("trace", "shadow", 4, 4).ok());
  Status tooBig = validateProducerBound("trace", "shadow", 5, 4);
  ASSERT_EQ(tooBig.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_TRUE(contains(tooBig.message(), "'trace' may publish 5 items"));
  EXPECT_TRUE(contains(tooBig.message(), "capacity is only 4"));
  EXPECT_TRUE(contains(tooBig.message(),
                       "not even one invocation could ever be admitted"));
  EXPECT_EQ(validateProducerBound("trace", "shadow", 0, 4).kind(),
            ErrorKind::InvalidDescriptor);
}

TEST(OwnerValidation, AdmissionStageMustHoldItems) {
  std::vector<uint32_t> counts = {0, 3};
  EXPECT_TRUE(validateAdmissionStage("pool", counts, 1).ok());
  EXPECT_EQ(validateAdmissionStage("pool", counts, 0).kind(),
            ErrorKind::InvalidAdmissionStage);
  EXPECT_EQ(validateAdmissionStage("pool", counts, 2).kind(),
            ErrorKind::InvalidAdmissionStage);
  EXPECT_EQ(validateAdmissionStage("pool", counts, kNoStage).kind(),
            ErrorKind::InvalidAdmissionStage);
}

namespace {

void noopKernel(const sluice_rt_kernel_args *, uint32_t, uint32_t) {}

ProgramDescriptor twoOwnerProgram() {
  ProgramDescriptor program;
  program.name = "p";
  program.mainStages = {{"a", noopKernel}, {"b", noopKernel}};
  program.owners = {{"x", 4, 8, {{"x0", noopKernel}}},
                    {"y", 9, 0, {{"y0", noopKernel}, {"y1", noopKernel}}}};
  program.producers = {{1, 1, 3}, {1, 0, 2}, {0, 1, 1}};
  return program;
}

} // namespace

TEST(ProgramShapeTest, GlobalStageNumberingAndProducerTables) {
  ProgramShape shape;
  ASSERT_TRUE(ProgramShape::build(twoOwnerProgram(), shape).ok());
  EXPECT_EQ(shape.mainStageCount(), 2u);
  EXPECT_EQ(shape.totalStageCount(), 2u + 1u + 2u);
  EXPECT_EQ(shape.globalStage(0, 0), 2u);
  EXPECT_EQ(shape.globalStage(1, 1), 4u);
  EXPECT_EQ(shape.stageName(4), "y.y1");
  EXPECT_EQ(shape.stage(3).kind, StageKind::Auxiliary);
  EXPECT_EQ(shape.stage(3).owner, 1u);
  EXPECT_EQ(shape.stage(3).ownerStage, 0u);
  ASSERT_EQ(shape.producersOf(1).size(), 2u);
  // Publish records follow descriptor order: y (3 slots) then x (2 slots).
  EXPECT_EQ(shape.producersOf(1)[0].owner, 1u);
  EXPECT_EQ(shape.producersOf(1)[0].publishBase, 0u);
  EXPECT_EQ(shape.producersOf(1)[1].publishBase, 3u);
  EXPECT_EQ(shape.publishStride(1), 5u);
  EXPECT_EQ(shape.publishStride(0), 1u);
  EXPECT_EQ(shape.maxBoundInto(1), 3u);
  EXPECT_EQ(shape.maxBoundInto(0), 2u);
}

TEST(ProgramShapeTest, RejectsMalformedDescriptors) {
  auto kindOf = [](ProgramDescriptor program) {
    ProgramShape shape;
    return ProgramShape::build(program, shape);
  };
  ProgramDescriptor boundTooBig = twoOwnerProgram();
  boundTooBig.producers.push_back({0, 0, 5}); // x has capacity 4
  Status status = kindOf(boundTooBig);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidDescriptor);
  EXPECT_TRUE(contains(status.message(), "capacity is only 4"));

  ProgramDescriptor duplicate = twoOwnerProgram();
  duplicate.producers.push_back({1, 0, 1});
  EXPECT_TRUE(contains(kindOf(duplicate).message(), "twice"));

  ProgramDescriptor noStages = twoOwnerProgram();
  noStages.owners[0].stages.clear();
  EXPECT_TRUE(contains(kindOf(noStages).message(), "k >= 1"));

  ProgramDescriptor zeroCapacity = twoOwnerProgram();
  zeroCapacity.owners[1].capacity = 0;
  EXPECT_TRUE(contains(kindOf(zeroCapacity).message(), "capacity 0"));

  ProgramDescriptor badEntry = twoOwnerProgram();
  badEntry.entryStage = 2;
  EXPECT_EQ(kindOf(badEntry).kind(), ErrorKind::InvalidDescriptor);

  ProgramDescriptor badOwner = twoOwnerProgram();
  badOwner.producers.push_back({0, 7, 1});
  EXPECT_EQ(kindOf(badOwner).kind(), ErrorKind::InvalidDescriptor);

  ProgramDescriptor empty;
  EXPECT_TRUE(contains(kindOf(empty).message(), "no main stages"));
}

//===----------------------------------------------------------------------===//
// Descriptor validation messages (ProgramShape::build, validateRunShape)
//===----------------------------------------------------------------------===//

namespace {

std::string buildError(const ProgramDescriptor &program) {
  ProgramShape shape;
  Status status = ProgramShape::build(program, shape);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidDescriptor);
  return status.describe();
}

} // namespace

TEST(DescriptorMessages, NoMainStages) {
  ProgramDescriptor program;
  program.name = "empty";
  EXPECT_EQ(buildError(program),
            "invalid program descriptor: program 'empty': has no main stages");
}

TEST(DescriptorMessages, EntryStageBeyondTheMainStages) {
  ProgramDescriptor program = twoOwnerProgram();
  program.entryStage = 2;
  EXPECT_EQ(buildError(program), "invalid program descriptor: program 'p': "
                                 "entry stage 2 is not one of its 2 main "
                                 "stages");
}

TEST(DescriptorMessages, OwnerWithoutCapacityOrStages) {
  ProgramDescriptor zeroCapacity = twoOwnerProgram();
  zeroCapacity.owners[1].capacity = 0;
  EXPECT_EQ(buildError(zeroCapacity),
            "invalid program descriptor: program 'p': owner 'y' has "
            "capacity 0");
  ProgramDescriptor noStages = twoOwnerProgram();
  noStages.owners[0].stages.clear();
  EXPECT_EQ(buildError(noStages), "invalid program descriptor: program 'p': "
                                  "owner 'x' has no stages (k >= 1)");
}

TEST(DescriptorMessages, ProducerNamesAStageOrOwnerThatDoesNotExist) {
  ProgramDescriptor badStage = twoOwnerProgram();
  badStage.producers.push_back({5, 0, 1});
  EXPECT_EQ(buildError(badStage), "invalid program descriptor: program 'p': "
                                  "producer names main stage 5 of 2");
  ProgramDescriptor badOwner = twoOwnerProgram();
  badOwner.producers.push_back({0, 7, 1});
  EXPECT_EQ(buildError(badOwner), "invalid program descriptor: program 'p': "
                                  "producer stage 'a' names owner 7 of 2");
}

TEST(DescriptorMessages, ProducerDeclaresAnOwnerTwice) {
  ProgramDescriptor program = twoOwnerProgram();
  program.producers.push_back({1, 0, 1});
  EXPECT_EQ(buildError(program), "invalid program descriptor: program 'p': "
                                 "producer stage 'b' declares owner 'x' "
                                 "twice");
}

TEST(DescriptorMessages, TotalEmissionBoundAbove32Bits) {
  // (2^32 - 1) + 1 slots per invocation of stage a.
  ProgramDescriptor program;
  program.name = "wide";
  program.mainStages = {{"a", noopKernel}};
  program.owners = {{"x", UINT32_MAX, 0, {{"x0", noopKernel}}},
                    {"y", 1, 0, {{"y0", noopKernel}}}};
  program.producers = {{0, 0, UINT32_MAX}, {0, 1, 1}};
  EXPECT_EQ(buildError(program),
            "invalid program descriptor: program 'wide': main stage 'a' has "
            "a total emission bound above 2^32 - 1");
}

TEST(DescriptorMessages, FramePoolOfZeroFrames) {
  ProgramDescriptor program = twoOwnerProgram();
  ProgramShape shape;
  ASSERT_TRUE(ProgramShape::build(program, shape).ok());
  Status status = validateRunShape(shape, program, 0, true);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(status.describe(), "invalid argument: program 'p': the frame "
                               "pool needs at least one frame");
}

TEST(FrameLayoutTest, ArrayOfStructsOffsets) {
  FrameLayout layout{FrameLayoutKind::ArrayOfStructs,
                     {{"a", 1, 1}, {"b", 8, 8}, {"c", 2, 2}, {"d", 4, 16}}};
  ComputedFrameLayout computed;
  ASSERT_TRUE(computeFrameLayout(layout, 10, computed).ok());
  // a@0, b@8, c@16, d@32 (aligned 16), end 36 -> stride 48.
  EXPECT_EQ(computed.fieldOffsets, (std::vector<uint64_t>{0, 8, 16, 32}));
  EXPECT_EQ(computed.frameStride, 48u);
  EXPECT_EQ(computed.totalBytes, 480u);
}

TEST(FrameLayoutTest, StructOfArraysOffsets) {
  FrameLayout layout{FrameLayoutKind::StructOfArrays,
                     {{"a", 1, 1}, {"b", 8, 8}, {"c", 4, 4}}};
  ComputedFrameLayout computed;
  ASSERT_TRUE(computeFrameLayout(layout, 10, computed).ok());
  // a: [0, 10), b: [16, 96), c: [96, 136).
  EXPECT_EQ(computed.fieldOffsets, (std::vector<uint64_t>{0, 16, 96}));
  EXPECT_EQ(computed.totalBytes, 136u);
}

TEST(FrameLayoutTest, OverflowAndBadAlignmentAreErrors) {
  ComputedFrameLayout computed;
  FrameLayout huge{FrameLayoutKind::StructOfArrays,
                   {{"a", uint64_t(1) << 40, 8}}};
  EXPECT_EQ(computeFrameLayout(huge, 1u << 30, computed).kind(),
            ErrorKind::ArithmeticOverflow);
  FrameLayout hugeAos{FrameLayoutKind::ArrayOfStructs,
                      {{"a", UINT64_MAX - 2, 1}, {"b", 8, 8}}};
  EXPECT_EQ(computeFrameLayout(hugeAos, 1, computed).kind(),
            ErrorKind::ArithmeticOverflow);
  FrameLayout badAlign{FrameLayoutKind::ArrayOfStructs, {{"a", 4, 3}}};
  EXPECT_EQ(computeFrameLayout(badAlign, 1, computed).kind(),
            ErrorKind::InvalidDescriptor);
}

TEST(RunStateTest, TransitionsAndCompletion) {
  static_assert(!canStart(RunState::Unprepared));
  static_assert(canStart(RunState::Ready) && canStart(RunState::Finished) &&
                canStart(RunState::Failed) && canStart(RunState::Running));
  static_assert(canStep(RunState::Running) && !canStep(RunState::Ready));
  Observation observation;
  observation.ownerLive = {0, 0};
  observation.lanesStarted = 5;
  observation.freeFrames = 4;
  EXPECT_TRUE(isRunComplete(observation, 5, 4));
  EXPECT_FALSE(isRunComplete(observation, 6, 4)); // a lane not started
  EXPECT_FALSE(isRunComplete(observation, 5, 5)); // a frame still busy
  observation.ownerLive[1] = 1;
  EXPECT_FALSE(isRunComplete(observation, 5, 4)); // an item still live
}

//===----------------------------------------------------------------------===//
// decision.h: the decision both placements run, against hand derivations.
//===----------------------------------------------------------------------===//

namespace {

// Main stages A (entry, 0) and B (1); owner O (capacity 4, one stage,
// global stage 2); A publishes at most 3 items into O. A pool of 2 frames
// and 3 lanes.
struct TinyProgram {
  uint32_t capacity[1] = {4};
  uint32_t stageBase[1] = {2};
  uint32_t stageCount[1] = {1};
  uint32_t producerBegin[3] = {0, 1, 1};
  uint32_t edgeOwner[1] = {0};
  uint32_t edgeBound[1] = {3};
  uint32_t counts[3] = {0, 0, 0};
  uint32_t live[1] = {0};
  sluice::decision::u64 published[1] = {0};
  sluice::decision::u64 released[1] = {0};
  sluice::decision::Tables t;
  sluice::decision::Counts c;
  TinyProgram() {
    t.stageCount = 3;
    t.mainStageCount = 2;
    t.ownerCount = 1;
    t.entryStage = 0;
    t.framePool = 2;
    t.lanes = 3;
    t.ownerCapacity = capacity;
    t.ownerStageBase = stageBase;
    t.ownerStageCount = stageCount;
    t.producerBegin = producerBegin;
    t.edgeOwner = edgeOwner;
    t.edgeBound = edgeBound;
    c.stageCounts = counts;
    c.ownerLive = live;
    c.ownerPublished = published;
    c.ownerReleased = released;
    c.freeFrames = 2;
  }
};

} // namespace

TEST(Decision, FirstIterationRefillsThenAdmitsAPartialPrefix) {
  namespace d = sluice::decision;
  TinyProgram p;
  d::Record r;
  ASSERT_EQ(d::decide(p.t, p.c, 0, r), d::kContinue);
  // Refill min(2 free, 3 lanes) = 2 at A; A = 4 - 0 = 4; 2 * 3 = 6 > 4, so
  // the prefix floor(4 / 3) = 1 is admitted.
  EXPECT_EQ(r.refilled, 2u);
  EXPECT_EQ(p.counts[0], 2u);
  EXPECT_EQ(p.c.freeFrames, 0u);
  EXPECT_EQ(p.c.lanesStarted, 2u);
  EXPECT_EQ(r.chosenStage, 0u);
  EXPECT_EQ(r.dispatchedStage, 0u);
  EXPECT_EQ(r.waiting, 2u);
  EXPECT_EQ(r.dispatched, 1u);
  EXPECT_EQ(r.availability, 4u);
  EXPECT_EQ(r.action, d::kActionAdmitPartially);
  EXPECT_EQ(r.blockingOwner, d::kNone);
}

TEST(Decision, AuxiliaryStageWinsThenTiesGoToTheLowestStage) {
  namespace d = sluice::decision;
  TinyProgram p;
  // After iteration 0: the admitted frame moved to B and published 3 items.
  p.counts[0] = 1, p.counts[1] = 1, p.counts[2] = 3;
  p.live[0] = 3, p.published[0] = 3;
  p.c.freeFrames = 0, p.c.lanesStarted = 2;
  d::Record r;
  ASSERT_EQ(d::decide(p.t, p.c, 1, r), d::kContinue);
  EXPECT_EQ(r.refilled, 0u); // no frame is free
  EXPECT_EQ(r.chosenStage, 2u);
  EXPECT_EQ(r.dispatched, 3u); // an auxiliary stage runs whole
  EXPECT_EQ(r.action, d::kActionDispatch);
  // The items were released: counts [1, 1, 0]; the tie goes to A, which now
  // fits whole: 1 * 3 <= 4.
  p.counts[2] = 0, p.live[0] = 0, p.released[0] = 3;
  ASSERT_EQ(d::decide(p.t, p.c, 2, r), d::kContinue);
  EXPECT_EQ(r.chosenStage, 0u);
  EXPECT_EQ(r.dispatched, 1u);
  EXPECT_EQ(r.action, d::kActionAdmit);
  EXPECT_EQ(r.availability, 4u);
}

TEST(Decision, BlockedProducerDrainsTheFirstNonEmptyOwnerStage) {
  namespace d = sluice::decision;
  TinyProgram p;
  // A holds 2 frames, O holds 2 live items: A = 4 - 2 = 2 < b = 3, so even
  // one invocation is blocked and O's stage (2 items) is drained instead.
  p.counts[0] = 2, p.counts[2] = 2;
  p.live[0] = 2, p.published[0] = 2;
  p.c.freeFrames = 0, p.c.lanesStarted = 3;
  d::Record r;
  ASSERT_EQ(d::decide(p.t, p.c, 5, r), d::kContinue);
  EXPECT_EQ(r.iteration, 5u);
  EXPECT_EQ(r.chosenStage, 0u);
  EXPECT_EQ(r.action, d::kActionDrain);
  EXPECT_EQ(r.blockingOwner, 0u);
  EXPECT_EQ(r.availability, 2u);
  EXPECT_EQ(r.dispatchedStage, 2u);
  EXPECT_EQ(r.dispatched, 2u);
  // Without partial admission the whole dispatch must fit; validateRunShape
  // guarantees pool * b <= C then, so an empty owner never blocks.
  TinyProgram q;
  q.t.partialAdmission = 0;
  q.capacity[0] = 6;
  q.counts[0] = 2, q.counts[2] = 1, q.live[0] = 1, q.published[0] = 1;
  q.c.freeFrames = 0, q.c.lanesStarted = 2;
  // A = 6 - 1 = 5 < 2 * 3: blocked, so O's one item is drained.
  ASSERT_EQ(d::decide(q.t, q.c, 0, r), d::kContinue);
  EXPECT_EQ(r.action, d::kActionDrain);
  EXPECT_EQ(r.dispatched, 1u);
  EXPECT_EQ(r.availability, 5u);
}

TEST(Decision, VerdictsForFinishedRunsAndBrokenCounts) {
  namespace d = sluice::decision;
  d::Record r;
  TinyProgram done;
  done.c.lanesStarted = 3, done.c.lanesFinished = 3; // every frame free
  EXPECT_EQ(d::decide(done.t, done.c, 9, r), d::kFinished);
  TinyProgram over;
  over.counts[2] = 5, over.live[0] = 5, over.published[0] = 5; // L > C
  EXPECT_EQ(d::decide(over.t, over.c, 0, r), d::kCountFault);
  TinyProgram lost;
  lost.counts[0] = 1, lost.c.lanesStarted = 1; // 1 + 2 free != 2 frames
  EXPECT_EQ(d::decide(lost.t, lost.c, 0, r), d::kCountFault);
  TinyProgram limit;
  limit.t.maxIterations = 4;
  EXPECT_EQ(d::decide(limit.t, limit.c, 4, r), d::kIterationLimit);
}

TEST(Decision, CanonicalRefillAndSelection) {
  namespace d = sluice::decision;
  // Frames 0 and 3 are free among 5; stage words of the others.
  uint32_t stage[5] = {d::kNone, 1, 0, d::kNone, 1};
  uint32_t lane[5] = {9, 9, 9, 9, 9};
  d::refillFrames(stage, lane, 5, 0, 2, 40);
  // The lowest free frames take the next lanes in lane order.
  EXPECT_EQ(stage[0], 0u);
  EXPECT_EQ(lane[0], 40u);
  EXPECT_EQ(stage[3], 0u);
  EXPECT_EQ(lane[3], 41u);
  uint32_t invocations[5] = {};
  // Stage 0 holds frames 0, 2, 3: a dispatch of 2 takes 0 and 2.
  EXPECT_EQ(d::selectAscending(stage, 5, 0, 2, invocations), 2u);
  EXPECT_EQ(invocations[0], 0u);
  EXPECT_EQ(invocations[1], 2u);
  EXPECT_EQ(d::selectAscending(stage, 5, 1, 5, invocations), 2u);
  EXPECT_EQ(invocations[0], 1u);
  EXPECT_EQ(invocations[1], 4u);
}

//===----------------------------------------------------------------------===//
// owner_policy.h: compiled owner policies in the decision, against hand
// derivations. The hooks below have the CPU backend's calling convention of
// a lowered policy function (memref descriptors, then C and L).
//===----------------------------------------------------------------------===//

namespace {

using sluice::runtime::OwnerPolicy;
using sluice::runtime::PolicyHook;
using sluice::runtime::PolicyHooks;

#define POLICY_MEMREFS                                                         \
  int64_t *, int64_t *storage, int64_t, int64_t, int64_t, uint32_t *,          \
      uint32_t *counts, int64_t, int64_t, int64_t

// The append allocator of examples/append_allocator.mlir; storage[0] is the
// extent.
int64_t appendAvailable(POLICY_MEMREFS, int64_t capacity, int64_t live) {
  (void)counts;
  return live == 0 ? capacity : capacity - storage[0];
}
void appendReclaim(POLICY_MEMREFS, int64_t, int64_t live) {
  (void)counts;
  if (live == 0)
    storage[0] = 0;
}
void appendGrow(POLICY_MEMREFS, int64_t, int64_t, int64_t slots) {
  (void)counts;
  storage[0] += slots;
}
void bumpCount(POLICY_MEMREFS, int64_t, int64_t, int64_t) {
  (void)storage;
  ++counts[0];
}
int64_t ignoreLive(POLICY_MEMREFS, int64_t capacity, int64_t) {
  (void)storage, (void)counts;
  return capacity;
}
#undef POLICY_MEMREFS

OwnerPolicy appendPolicy() {
  OwnerPolicy policy;
  policy.storageWords = 1;
  policy.functions[size_t(PolicyHook::Availability)] =
      reinterpret_cast<void *>(&appendAvailable);
  policy.functions[size_t(PolicyHook::PrepareForAdmission)] =
      reinterpret_cast<void *>(&appendReclaim);
  policy.functions[size_t(PolicyHook::PrepareForProducer)] =
      reinterpret_cast<void *>(&appendGrow);
  policy.symbols = {"reclaim", "available", "", "grow"};
  return policy;
}

} // namespace

TEST(OwnerPolicy, AppendAllocatorKeepsItsExtentUntilTheOwnerIsEmpty) {
  namespace d = sluice::decision;
  TinyProgram p;
  OwnerPolicy policy = appendPolicy();
  const OwnerPolicy *policies[] = {&policy};
  std::string names[] = {"O"};
  PolicyHooks hooks(policies, names);
  hooks.beginRun(p.t, p.c);
  d::Record r;
  // Iteration 0: refill 2 at A; L = 0, so the extent is reclaimed (0) and
  // A = C = 4; 2 * 3 = 6 > 4: the prefix floor(4 / 3) = 1, extent 0 + 3.
  ASSERT_EQ(d::decide(p.t, p.c, 0, r, hooks), d::kContinue);
  EXPECT_EQ(r.action, d::kActionAdmitPartially);
  EXPECT_EQ(r.dispatched, 1u);
  EXPECT_EQ(r.availability, 4u);
  // The admitted frame moved to B and published 1 item of its 3 slots.
  p.counts[0] = 1, p.counts[1] = 1, p.counts[2] = 1;
  p.live[0] = 1, p.published[0] = 1;
  // Iteration 1: A (1) ties B (1) and O (1): A. L = 1 keeps the extent:
  // A = C - 3 = 1 (the default would be C - L = 3); 1 * 3 > 1 and
  // floor(1 / 3) = 0: blocked, drain O's only stage (global 2).
  ASSERT_EQ(d::decide(p.t, p.c, 1, r, hooks), d::kContinue);
  EXPECT_EQ(r.action, d::kActionDrain);
  EXPECT_EQ(r.blockingOwner, 0u);
  EXPECT_EQ(r.availability, 1u);
  EXPECT_EQ(r.dispatchedStage, 2u);
  EXPECT_EQ(r.dispatched, 1u);
  EXPECT_TRUE(hooks.fault().ok());
}

TEST(OwnerPolicy, AHookThatChangesACountStopsTheDecision) {
  namespace d = sluice::decision;
  TinyProgram p;
  OwnerPolicy policy;
  policy.functions[size_t(PolicyHook::PrepareForProducer)] =
      reinterpret_cast<void *>(&bumpCount);
  policy.symbols[size_t(PolicyHook::PrepareForProducer)] = "bump";
  const OwnerPolicy *policies[] = {&policy};
  std::string names[] = {"O"};
  PolicyHooks hooks(policies, names);
  hooks.beginRun(p.t, p.c);
  d::Record r;
  // Iteration 0 admits 1 invocation, then the hook bumps O's count 0 -> 1.
  ASSERT_EQ(d::decide(p.t, p.c, 0, r, hooks), d::kPolicyFault);
  EXPECT_EQ(hooks.fault().kind(), sluice::runtime::ErrorKind::CountMismatch);
  EXPECT_EQ(hooks.fault().message(),
            "owner 'O': hook prepare_for_producer (@bump) changed the stage "
            "counts [0] to [1]; owner hooks are storage-only");
}

TEST(OwnerPolicy, AvailabilityAboveTheFreeSlotsStopsTheDecision) {
  namespace d = sluice::decision;
  TinyProgram p;
  OwnerPolicy policy;
  policy.functions[size_t(PolicyHook::Availability)] =
      reinterpret_cast<void *>(&ignoreLive);
  policy.symbols[size_t(PolicyHook::Availability)] = "full";
  const OwnerPolicy *policies[] = {&policy};
  std::string names[] = {"O"};
  PolicyHooks hooks(policies, names);
  hooks.beginRun(p.t, p.c);
  // One item live, A still at its frame: the hook says C = 4 > C - L = 3.
  p.counts[0] = 1, p.counts[1] = 1, p.counts[2] = 1;
  p.live[0] = 1, p.published[0] = 1;
  p.c.freeFrames = 0, p.c.lanesStarted = 2;
  d::Record r;
  ASSERT_EQ(d::decide(p.t, p.c, 1, r, hooks), d::kPolicyFault);
  EXPECT_EQ(hooks.fault().kind(),
            sluice::runtime::ErrorKind::AvailabilityOutOfRange);
  EXPECT_EQ(hooks.fault().message(),
            "owner 'O' reported availability 4 from hook availability "
            "(@full) but only C - L = 4 - 1 = 3 slots are free");
}

TEST(OwnerPolicy, StorageStartsAtZeroEveryRun) {
  OwnerPolicy policy = appendPolicy();
  sluice::runtime::CompiledPolicyClient client(policy);
  uint32_t counts[1] = {0};
  sluice::runtime::OwnerView view;
  view.name = "O";
  view.capacity = 4;
  view.stageCounts = counts;
  client.beginRun(view);
  client.prepareForProducer(view, 3);
  EXPECT_EQ(client.storage()[0], 3);
  client.beginRun(view);
  EXPECT_EQ(client.storage()[0], 0);
}
