//===- runtime_bench.cpp - Admission, scheduler and arena benchmarks ------===//
//
//  BM_AdmissionDecision       one decideAdmission + availability validation
//  BM_SchedulerIteration      host work of one wavefront iteration, 16 stages
//                             (8 main + 4 owners x 2), null device
//  BM_ArenaBlock/<bytes>/<touch>      one 64-lane block: reset + 64 frame
//                                     allocations
//  BM_MallocFreeBlock/<bytes>/<touch> the peer: 64 malloc + 64 free
// touch=1 writes the first byte of every frame (a frame being initialized);
// touch=0 measures allocation alone. The arena benchmark reports heap
// allocations per block after warm-up.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/admission/admission.h"
#include "sluice/runtime/arena/arena.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <vector>

using namespace sluice::runtime;

namespace {

void BM_AdmissionDecision(benchmark::State &state) {
  // Inputs vary per call so nothing is constant-folded.
  struct Input {
    uint32_t waiting, bound, live, capacity;
    uint64_t availability;
  };
  std::vector<Input> inputs;
  uint64_t x = 12345;
  for (int i = 0; i < 1024; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t capacity = 1 + uint32_t(x >> 40) % 100000;
    uint32_t live = uint32_t(x >> 20) % (capacity + 1);
    uint64_t availability =
        live == 0 ? capacity : (x >> 8) % (capacity - live + 1);
    inputs.push_back({1 + uint32_t(x >> 33) % 4096, 1 + uint32_t(x) % 8, live,
                      capacity, availability});
  }
  size_t i = 0;
  for (auto _ : state) {
    const Input &in = inputs[i++ & 1023];
    Status valid =
        validateAvailability("owner", in.live, in.capacity, in.availability);
    AdmissionDecision decision =
        decideAdmission(in.waiting, in.bound, in.availability, true);
    benchmark::DoNotOptimize(valid.ok());
    benchmark::DoNotOptimize(decision);
  }
}
BENCHMARK(BM_AdmissionDecision);

void BM_AdmissionRuleOnly(benchmark::State &state) {
  std::vector<uint32_t> waiting(1024);
  for (uint32_t i = 0; i < 1024; ++i)
    waiting[i] = 1 + (i * 2654435761u) % 8192;
  size_t i = 0;
  for (auto _ : state) {
    AdmissionDecision decision =
        decideAdmission(waiting[i++ & 1023], 3, 4000, true);
    benchmark::DoNotOptimize(decision);
  }
}
BENCHMARK(BM_AdmissionRuleOnly);

//===----------------------------------------------------------------------===//
// Scheduler iteration over a null device
//===----------------------------------------------------------------------===//

void noKernel(const sluice_rt_kernel_args *, uint32_t, uint32_t) {}

// Reports a rotating set of consistent count snapshots and does no kernel
// work, so only the host side of an iteration is measured.
class NullDevice final : public Device {
public:
  const char *name() const override { return "null"; }
  Status allocate(const ProgramDescriptor &, const ProgramShape &shape,
                  uint32_t framePool) override {
    // 8 main stages, 4 owners of 2 stages with capacity 64; pool 256.
    // Snapshot 0: main stage 2 (a producer) leads and fits partially.
    // Snapshot 1: main stage 2 leads but owner 1 is full -> drain.
    // Snapshot 2: an auxiliary stage leads.
    snapshots_.clear();
    const uint32_t mains[3][8] = {{10, 20, 120, 5, 5, 5, 5, 5},
                                  {10, 20, 120, 5, 5, 5, 5, 5},
                                  {10, 20, 30, 5, 5, 5, 5, 5}};
    const uint32_t owners[3][8] = {{10, 20, 30, 20, 5, 5, 0, 0},
                                   {10, 20, 40, 24, 5, 5, 0, 0},
                                   {10, 50, 3, 3, 5, 5, 0, 0}};
    for (int k = 0; k < 3; ++k) {
      Observation o;
      o.resize(shape);
      uint32_t waiting = 0;
      for (uint32_t s = 0; s < 8; ++s)
        waiting += o.stageCounts[s] = mains[k][s];
      for (uint32_t w = 0; w < 4; ++w) {
        o.stageCounts[8 + 2 * w] = owners[k][2 * w];
        o.stageCounts[9 + 2 * w] = owners[k][2 * w + 1];
        o.ownerLive[w] = owners[k][2 * w] + owners[k][2 * w + 1];
        o.ownerPublished[w] = 1000 + o.ownerLive[w];
        o.ownerReleased[w] = 1000;
      }
      o.freeFrames = framePool - waiting;
      o.lanesStarted = 1u << 30; // every lane started; frames never refill
      o.lanesFinished = 1000;
      snapshots_.push_back(o);
    }
    return Status::success();
  }
  void reset() override { next_ = 0; }
  void refill(uint32_t) override {}
  void dispatch(uint32_t stage, uint32_t count) override {
    benchmark::DoNotOptimize(stage + count);
  }
  Status readCounts(Observation &out) override {
    const Observation &in = snapshots_[next_];
    next_ = next_ == 2 ? 0 : next_ + 1;
    std::copy(in.stageCounts.begin(), in.stageCounts.end(),
              out.stageCounts.begin());
    std::copy(in.ownerLive.begin(), in.ownerLive.end(), out.ownerLive.begin());
    std::copy(in.ownerPublished.begin(), in.ownerPublished.end(),
              out.ownerPublished.begin());
    std::copy(in.ownerReleased.begin(), in.ownerReleased.end(),
              out.ownerReleased.begin());
    out.freeFrames = in.freeFrames;
    out.lanesStarted = in.lanesStarted;
    out.lanesFinished = in.lanesFinished;
    return Status::success();
  }

private:
  std::vector<Observation> snapshots_;
  uint32_t next_ = 0;
};

ProgramDescriptor sixteenStageProgram() {
  ProgramDescriptor program;
  program.name = "bench-16";
  for (int s = 0; s < 8; ++s)
    program.mainStages.push_back({"main" + std::to_string(s), noKernel});
  for (int o = 0; o < 4; ++o)
    program.owners.push_back({"owner" + std::to_string(o),
                              64,
                              16,
                              {{"s0", noKernel}, {"s1", noKernel}}});
  // Main stage 2 feeds owners 0 and 1; stage 5 feeds owners 2 and 3.
  program.producers = {{2, 0, 1}, {2, 1, 2}, {5, 2, 1}, {5, 3, 3}};
  return program;
}

void BM_SchedulerIteration(benchmark::State &state) {
  ProgramDescriptor program = sixteenStageProgram();
  NullDevice device;
  SchedulerOptions options;
  options.framePool = 256;
  WavefrontScheduler scheduler(program, device, options);
  if (!scheduler.start(1u << 30).ok()) {
    state.SkipWithError("start failed");
    return;
  }
  for (auto _ : state) {
    if (scheduler.step() != StepResult::Continue) {
      state.SkipWithError(scheduler.status().describe().c_str());
      return;
    }
  }
  state.counters["stages"] = double(scheduler.shape().totalStageCount());
  state.counters["owners"] = double(scheduler.shape().ownerCount());
}
BENCHMARK(BM_SchedulerIteration);

//===----------------------------------------------------------------------===//
// Arena vs malloc/free for 64-lane blocks
//===----------------------------------------------------------------------===//

constexpr int kLanes = 64;

void BM_ArenaBlock(benchmark::State &state) {
  size_t bytes = size_t(state.range(0));
  bool touch = state.range(1) != 0;
  CountingHeapAllocator heap;
  FrameArena arena(FrameArena::kDefaultInlineBytes, heap);
  auto block = [&] {
    arena.reset();
    for (int lane = 0; lane < kLanes; ++lane) {
      auto *frame = static_cast<char *>(arena.allocate(bytes).pointer);
      if (touch)
        frame[0] = char(lane);
      benchmark::DoNotOptimize(frame);
    }
  };
  block(); // warm-up: the inline region and any chunk are allocated here
  uint64_t before = heap.allocations();
  for (auto _ : state)
    block();
  state.counters["heap_allocs_per_block"] = benchmark::Counter(
      double(heap.allocations() - before) / double(state.iterations()));
  state.counters["chunks"] = double(arena.chunkCount());
}

void BM_MallocFreeBlock(benchmark::State &state) {
  size_t bytes = size_t(state.range(0));
  bool touch = state.range(1) != 0;
  void *frames[kLanes];
  for (auto _ : state) {
    for (int lane = 0; lane < kLanes; ++lane) {
      auto *frame = static_cast<char *>(std::malloc(bytes));
      if (touch)
        frame[0] = char(lane);
      benchmark::DoNotOptimize(frame);
      frames[lane] = frame;
    }
    for (int lane = 0; lane < kLanes; ++lane)
      std::free(frames[lane]);
    benchmark::ClobberMemory();
  }
  state.counters["heap_allocs_per_block"] = kLanes;
}

void blockSizes(benchmark::internal::Benchmark *benchmark) {
  for (int64_t touch : {0, 1})
    for (int64_t bytes : {256, 4000, 4096, 72 * 1024})
      benchmark->Args({bytes, touch});
}
BENCHMARK(BM_ArenaBlock)->Apply(blockSizes);
BENCHMARK(BM_MallocFreeBlock)->Apply(blockSizes);

} // namespace

BENCHMARK_MAIN();
