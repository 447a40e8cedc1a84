//===- scheduler_property_test.cpp - Seeded random wavefront programs -----===//
//
// Generates random programs (stage graphs with cycles and self-loops, owners
// with k stages, bounds, capacities, frame pools, publish patterns within the
// bounds, clients with random availability and random admission stages) and
// checks, for each:
//   - L <= C at every observation (from the kernels' own counters);
//   - every lane runs its planned path once and finishes;
//   - every published item visits its planned stage path and is released
//     exactly once;
//   - per-stage invocations/published/released equal the plan's totals;
//   - the run takes at most (total visits) iterations, each dispatching at
//     least one invocation (no livelock).
// Some programs are also run on several workers (same dispatch sequence) and
// under the state-machine schedule (same totals).
//
// SLUICE_SEED=<n> replays one program verbosely; SLUICE_PROPERTY_PROGRAMS
// overrides the count (default 100000, fewer under sanitizers).
//
//===----------------------------------------------------------------------===//

#include "scripted_program.h"

#include "sluice/runtime/device/cpu_device.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>

using namespace sluice::runtime;
using namespace sluice::runtime::testing;

namespace {

class SplitMix {
public:
  explicit SplitMix(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound), bound >= 1.
  uint32_t below(uint64_t bound) { return uint32_t(next() % bound); }
  bool chance(uint32_t numerator, uint32_t denominator) {
    return below(denominator) < numerator;
  }

private:
  uint64_t state_;
};

// Availability anywhere in [0, C - L]; C when empty (the progress rule).
class RandomAvailabilityClient final : public CapacityOwnerClient {
public:
  explicit RandomAvailabilityClient(uint64_t seed) : seed_(seed), rng_(seed) {}
  void beginRun(const OwnerView &) override { rng_ = SplitMix(seed_); }
  uint64_t materializableAvailability(const OwnerView &owner) override {
    if (owner.live == 0)
      return owner.capacity;
    return rng_.below(uint64_t(owner.capacity) - owner.live + 1);
  }

private:
  uint64_t seed_;
  SplitMix rng_;
};

// Drains a random non-empty stage instead of the first one.
class RandomAdmissionStageClient final : public CapacityOwnerClient {
public:
  explicit RandomAdmissionStageClient(uint64_t seed)
      : seed_(seed), rng_(seed) {}
  void beginRun(const OwnerView &) override { rng_ = SplitMix(seed_); }
  uint32_t admissionStage(const OwnerView &owner) override {
    uint32_t nonEmpty = 0;
    for (uint32_t count : owner.stageCounts)
      nonEmpty += count != 0;
    uint32_t pick = rng_.below(nonEmpty);
    for (uint32_t stage = 0; stage < owner.stageCounts.size(); ++stage)
      if (owner.stageCounts[stage] != 0 && pick-- == 0)
        return stage;
    return kNoStage;
  }

private:
  uint64_t seed_;
  SplitMix rng_;
};

struct GeneratedCase {
  ScriptedProgram program;
  uint32_t framePool = 1;
  bool partialAdmission = true;
  std::vector<std::unique_ptr<CapacityOwnerClient>> clients;
  std::string description;
};

void generate(uint64_t seed, GeneratedCase &test) {
  SplitMix rng(seed);
  ScriptedProgram &program = test.program;
  program.name = "random-" + std::to_string(seed);
  uint32_t mainStages = 1 + rng.below(5);
  for (uint32_t s = 0; s < mainStages; ++s)
    program.mainStages.push_back("m" + std::to_string(s));
  program.entryStage = rng.below(mainStages);
  uint32_t owners = rng.below(4);
  for (uint32_t o = 0; o < owners; ++o) {
    ScriptedOwner owner;
    owner.name = "o" + std::to_string(o);
    owner.capacity = 1 + rng.below(12);
    uint32_t stages = 1 + rng.below(3);
    for (uint32_t i = 0; i < stages; ++i)
      owner.stages.push_back("s" + std::to_string(i));
    program.owners.push_back(owner);
  }
  for (uint32_t s = 0; s < mainStages; ++s)
    for (uint32_t o = 0; o < owners; ++o)
      if (rng.chance(2, 5)) {
        uint32_t maxBound = std::min<uint32_t>(3, program.owners[o].capacity);
        program.producers.push_back({s, o, 1 + rng.below(maxBound)});
      }

  test.framePool = 1 + rng.below(8);
  test.partialAdmission = !rng.chance(1, 8);
  if (!test.partialAdmission)
    for (const ProducerDesc &producer : program.producers)
      test.framePool =
          std::min(test.framePool,
                   program.owners[producer.owner].capacity / producer.bound);

  uint32_t lanes = rng.below(25);
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    LanePath path;
    uint32_t steps = 1 + rng.below(6);
    for (uint32_t step = 0; step < steps; ++step) {
      StepSpec spec;
      spec.stage = step == 0 ? program.entryStage : rng.below(mainStages);
      for (const ProducerDesc &producer : program.producers) {
        if (producer.stage != spec.stage)
          continue;
        uint32_t items = rng.below(producer.bound + 1);
        uint32_t ownerStages =
            uint32_t(program.owners[producer.owner].stages.size());
        for (uint32_t item = 0; item < items; ++item) {
          PublishSpec publish;
          publish.owner = producer.owner;
          uint32_t length = 1 + rng.below(4);
          publish.itemPath.push_back(0);
          for (uint32_t k = 1; k < length; ++k)
            publish.itemPath.push_back(rng.below(ownerStages));
          spec.publishes.push_back(publish);
        }
      }
      path.push_back(spec);
    }
    program.lanes.push_back(path);
  }
  program.finalize();

  for (uint32_t o = 0; o < owners; ++o) {
    switch (rng.below(4)) {
    case 0:
      test.clients.push_back(nullptr);
      break;
    case 1:
      test.clients.push_back(std::make_unique<AppendAllocatorClient>());
      break;
    case 2:
      test.clients.push_back(
          std::make_unique<RandomAvailabilityClient>(rng.next()));
      break;
    default:
      test.clients.push_back(
          std::make_unique<RandomAdmissionStageClient>(rng.next()));
    }
  }

  test.description =
      std::to_string(mainStages) + " main stages, " + std::to_string(owners) +
      " owners, " + std::to_string(program.producers.size()) +
      " producer edges, " + std::to_string(lanes) + " lanes, pool " +
      std::to_string(test.framePool) + ", partial admission " +
      (test.partialAdmission ? "on" : "off") + ", " +
      std::to_string(program.itemCount()) + " items";
}

struct CaseRun {
  RunResult result;
  std::vector<IterationRecord> records;
  std::string observerFailure;
};

CaseRun runCase(GeneratedCase &test, uint32_t workers, uint32_t blockSize,
                SchedulerPlacement placement = SchedulerPlacement::Host) {
  CpuDeviceOptions deviceOptions;
  deviceOptions.workers = workers;
  deviceOptions.blockSize = blockSize;
  CpuDevice device(deviceOptions);
  SchedulerOptions options;
  options.framePool = test.framePool;
  options.partialAdmission = test.partialAdmission;
  // One more than the bound so exceeding it shows up as a failure below.
  options.maxIterations = test.program.totalVisits() + 1;
  options.placement = placement;
  WavefrontScheduler scheduler(test.program.descriptor(), device, options);
  for (uint32_t o = 0; o < test.clients.size(); ++o)
    scheduler.setOwnerClient(o, test.clients[o].get());
  RecordingObserver observer(test.program);
  scheduler.setObserver(&observer);
  test.program.resetLogs();
  CaseRun run;
  run.result = scheduler.run(test.program.laneCount());
  run.records = std::move(observer.records);
  run.observerFailure = observer.failure;
  return run;
}

std::string checkTotals(const ScriptedProgram &program,
                        const std::vector<StageStatistics> &stats) {
  std::vector<StageStatistics> plan = program.expectedStatistics();
  if (stats.size() != plan.size())
    return "statistics cover " + std::to_string(stats.size()) +
           " stages, "
           "the program has " +
           std::to_string(plan.size());
  for (size_t s = 0; s < plan.size(); ++s)
    if (stats[s].invocations != plan[s].invocations ||
        stats[s].itemsPublished != plan[s].itemsPublished ||
        stats[s].itemsReleased != plan[s].itemsReleased)
      return "stage " + std::to_string(s) + ": invocations/published/" +
             "released " + std::to_string(stats[s].invocations) + "/" +
             std::to_string(stats[s].itemsPublished) + "/" +
             std::to_string(stats[s].itemsReleased) + ", plan " +
             std::to_string(plan[s].invocations) + "/" +
             std::to_string(plan[s].itemsPublished) + "/" +
             std::to_string(plan[s].itemsReleased);
  return "";
}

bool sameRecord(const IterationRecord &a, const IterationRecord &b) {
  return a.iteration == b.iteration && a.chosenStage == b.chosenStage &&
         a.dispatchedStage == b.dispatchedStage && a.waiting == b.waiting &&
         a.dispatched == b.dispatched && a.refilled == b.refilled &&
         a.blockingOwner == b.blockingOwner &&
         a.availability == b.availability && a.action == b.action;
}

// The device placement (decision.h run by the CPU device's own loop) makes
// the host placement's decision at every iteration, under the default owner
// policy. Empty when it does.
std::string checkPlacements(GeneratedCase &test) {
  ScriptedProgram &program = test.program;
  std::vector<std::unique_ptr<CapacityOwnerClient>> clients =
      std::move(test.clients);
  test.clients.clear();
  CaseRun host = runCase(test, 1, 64, SchedulerPlacement::Host);
  std::string hostError = program.verifyCompleteRun();
  CaseRun device = runCase(test, 1, 64, SchedulerPlacement::Device);
  std::string deviceError = program.verifyCompleteRun();
  test.clients = std::move(clients);
  if (!host.result.status.ok() || !hostError.empty())
    return "default-policy host run failed: " + host.result.status.describe() +
           hostError;
  if (device.result.placement != SchedulerPlacement::Device)
    return "the device placement did not run: " + device.result.placementNote;
  if (!device.result.status.ok() || !deviceError.empty())
    return "device placement failed: " + device.result.status.describe() +
           deviceError;
  if (!device.observerFailure.empty())
    return "device placement: " + device.observerFailure;
  if (host.records.size() != device.records.size())
    return "device placement took " + std::to_string(device.records.size()) +
           " iterations, the host " + std::to_string(host.records.size());
  for (size_t n = 0; n < host.records.size(); ++n)
    if (!sameRecord(host.records[n], device.records[n]))
      return "placements diverge at iteration " + std::to_string(n);
  if (host.result.stages != device.result.stages)
    return "placements' per-stage statistics differ";
  return "";
}

// Empty if the seed's program passes every property.
std::string checkSeed(uint64_t seed) {
  GeneratedCase test;
  generate(seed, test);
  ScriptedProgram &program = test.program;
  CaseRun run = runCase(test, 1, 64);
  auto fail = [&](const std::string &what) {
    return what + " [" + test.description + "]";
  };
  if (!run.result.status.ok())
    return fail("run failed: " + run.result.status.describe());
  if (!run.observerFailure.empty())
    return fail(run.observerFailure);
  if (std::string error = program.verifyCompleteRun(); !error.empty())
    return fail(error);
  if (std::string error = checkTotals(program, run.result.stages);
      !error.empty())
    return fail(error);
  if (run.result.lanesFinished != program.laneCount())
    return fail("finished " + std::to_string(run.result.lanesFinished) +
                " lanes");
  if (run.result.iterations > program.totalVisits())
    return fail("took " + std::to_string(run.result.iterations) +
                " iterations for " + std::to_string(program.totalVisits()) +
                " visits");
  uint64_t dispatches = 0;
  for (const StageStatistics &stats : run.result.stages)
    dispatches += stats.dispatches;
  if (dispatches != run.result.iterations)
    return fail("dispatch count differs from the iteration count");
  for (const IterationRecord &record : run.records)
    if (record.dispatched == 0)
      return fail("iteration " + std::to_string(record.iteration) +
                  " dispatched nothing");

  // Several workers with one invocation per block: same decisions.
  if (seed % 64 == 0) {
    CaseRun parallel = runCase(test, 3, 1);
    if (!parallel.result.status.ok())
      return fail("3-worker run failed: " + parallel.result.status.describe());
    if (std::string error = program.verifyCompleteRun(); !error.empty())
      return fail("3 workers: " + error);
    if (parallel.records.size() != run.records.size())
      return fail("3 workers took a different number of iterations");
    for (size_t n = 0; n < run.records.size(); ++n)
      if (parallel.records[n].dispatchedStage !=
              run.records[n].dispatchedStage ||
          parallel.records[n].dispatched != run.records[n].dispatched)
        return fail("3 workers diverged at iteration " + std::to_string(n));
  }

  // Both placements decide alike (every fourth program; the others keep
  // their random client policies, which only the host placement runs).
  if (seed % 4 == 0)
    if (std::string error = checkPlacements(test); !error.empty())
      return fail(error);

  // The state-machine schedule reaches the same totals.
  if (seed % 16 == 0) {
    CpuDeviceOptions deviceOptions;
    deviceOptions.workers = seed % 32 == 0 ? 2 : 1;
    CpuDevice device(deviceOptions);
    program.resetLogs();
    RunResult machine = runStateMachine(program.descriptor(), device,
                                        program.laneCount(), test.framePool);
    if (!machine.status.ok())
      return fail("state machine failed: " + machine.status.describe());
    if (std::string error = program.verifyCompleteRun(); !error.empty())
      return fail("state machine: " + error);
    if (std::string error = checkTotals(program, machine.stages);
        !error.empty())
      return fail("state machine: " + error);
    for (uint32_t o = 0; o < program.owners.size(); ++o)
      if (program.maxLiveItems(o) > int64_t(program.owners[o].capacity))
        return fail("state machine exceeded the capacity of owner " +
                    program.owners[o].name);
  }
  return "";
}

uint64_t programCount() {
  if (const char *count = std::getenv("SLUICE_PROPERTY_PROGRAMS"))
    return std::strtoull(count, nullptr, 10);
  const char *sanitizer = std::getenv("SLUICE_UNDER_SANITIZER");
  if (sanitizer && std::strcmp(sanitizer, "tsan") == 0)
    return 25000;
  if (sanitizer && *sanitizer)
    return 50000;
  return 100000;
}

constexpr uint64_t kBaseSeed = 0x5111CE0000000000ull;
constexpr uint32_t kShards = 4;

void runShard(uint32_t shard) {
  if (const char *replay = std::getenv("SLUICE_SEED")) {
    if (shard != 0)
      GTEST_SKIP() << "replaying SLUICE_SEED in shard 0";
    uint64_t seed = std::strtoull(replay, nullptr, 0);
    std::string failure = checkSeed(seed);
    EXPECT_EQ(failure, "") << "seed " << seed;
    return;
  }
  uint64_t count = programCount();
  // A shard that checks nothing proves nothing: SLUICE_PROPERTY_PROGRAMS
  // must give every shard at least one program.
  ASSERT_GT(count, shard) << "shard " << shard
                          << " would check no program: " << count
                          << " programs over " << kShards
                          << " shards (SLUICE_PROPERTY_PROGRAMS must be >= "
                          << kShards << ")";
  uint64_t checked = 0;
  for (uint64_t index = shard; index < count; index += kShards) {
    uint64_t seed = kBaseSeed + index;
    std::string failure = checkSeed(seed);
    if (!failure.empty()) {
      ADD_FAILURE() << "program " << index << " failed: " << failure
                    << "\nreplay with SLUICE_SEED=" << seed;
      return;
    }
    ++checked;
  }
  ::testing::Test::RecordProperty("programs", std::to_string(checked));
  std::printf("[ property ] shard %u: %llu random programs passed\n", shard,
              static_cast<unsigned long long>(checked));
}

} // namespace

TEST(WavefrontProperty, RandomProgramsShard0) { runShard(0); }
TEST(WavefrontProperty, RandomProgramsShard1) { runShard(1); }
TEST(WavefrontProperty, RandomProgramsShard2) { runShard(2); }
TEST(WavefrontProperty, RandomProgramsShard3) { runShard(3); }

// The generator itself covers the shapes the properties are about.
TEST(WavefrontProperty, GeneratorCoversInterestingShapes) {
  uint32_t selfLoops = 0, multiStageOwners = 0, partialOff = 0, drains = 0,
           partials = 0;
  for (uint64_t index = 0; index < 2000; ++index) {
    GeneratedCase test;
    generate(kBaseSeed + index, test);
    partialOff += !test.partialAdmission;
    for (const ScriptedOwner &owner : test.program.owners)
      multiStageOwners += owner.stages.size() > 1;
    for (const LanePath &lane : test.program.lanes)
      for (size_t step = 1; step < lane.size(); ++step)
        selfLoops += lane[step].stage == lane[step - 1].stage;
    if (index % 10 == 0) {
      CaseRun run = runCase(test, 1, 64);
      for (const IterationRecord &record : run.records) {
        drains += record.action == IterationAction::DrainForAdmission;
        partials += record.action == IterationAction::AdmitProducerPartially;
      }
    }
  }
  EXPECT_GT(selfLoops, 100u);
  EXPECT_GT(multiStageOwners, 100u);
  EXPECT_GT(partialOff, 50u);
  EXPECT_GT(drains, 20u);
  EXPECT_GT(partials, 20u);
}
