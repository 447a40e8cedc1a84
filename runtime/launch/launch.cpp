//===- launch.cpp - Block launcher of the CPU backend ---------------------===//

#include "sluice/runtime/launch/launch.h"
#include "sluice/runtime/device/worker_pool.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

using namespace sluice::runtime;

namespace {

struct BlockLaunch {
  sluice_rt_block_fn blockFn;
  void *args;
  uint64_t gridSize;
  uint64_t blocksPerClaim;
};

// The pool claims ranges of blocks, so workers do not contend on its claim
// counter once per (often sub-microsecond) block.
uint64_t blocksPerClaim(uint64_t gridSize, uint32_t workers) {
  constexpr uint64_t kClaimsPerWorker = 16; // load balance
  constexpr uint64_t kMaxBlocksPerClaim = 64;
  uint64_t perClaim = gridSize / (uint64_t(workers) * kClaimsPerWorker);
  return std::max<uint64_t>(1, std::min(perClaim, kMaxBlocksPerClaim));
}

void runClaim(void *context, uint32_t claim, uint32_t /*worker*/) {
  auto *launch = static_cast<BlockLaunch *>(context);
  uint64_t first = uint64_t(claim) * launch->blocksPerClaim;
  uint64_t end = std::min(first + launch->blocksPerClaim, launch->gridSize);
  for (uint64_t block = first; block < end; ++block) {
    // Block boundary: the pool reset the arena before the first block.
    if (block != first)
      currentArena().reset();
    launch->blockFn(launch->args, block);
  }
}

uint32_t workersFromEnvironment() {
  const char *text = std::getenv("SLUICE_WORKERS");
  if (!text || !*text)
    return defaultWorkerCount(0);
  char *end = nullptr;
  unsigned long value = std::strtoul(text, &end, 10);
  if (*end != '\0' || value == 0 || value > 1024) {
    std::fprintf(stderr,
                 "sluice runtime: SLUICE_WORKERS must be 1..1024, got '%s'\n",
                 text);
    std::exit(1);
  }
  return uint32_t(value);
}

} // namespace

extern "C" {

uint32_t sluice_rt_launch_default_workers(void) {
  static const uint32_t workers = workersFromEnvironment();
  return workers;
}

void sluice_rt_launch_blocks(sluice_rt_block_fn block_fn, void *args,
                             uint64_t grid_size, uint32_t workers) {
  if (grid_size > UINT32_MAX) {
    std::fprintf(stderr,
                 "sluice runtime: a launch of %llu blocks exceeds the "
                 "launcher's limit of %u blocks\n",
                 static_cast<unsigned long long>(grid_size), UINT32_MAX);
    std::exit(1);
  }
  if (workers == 0)
    workers = sluice_rt_launch_default_workers();
  uint64_t perClaim = blocksPerClaim(grid_size, workers);
  BlockLaunch launch{block_fn, args, grid_size, perClaim};
  uint64_t claims = (grid_size + perClaim - 1) / perClaim;
  sharedWorkerPool(workers).run(uint32_t(claims), runClaim, &launch);
}

void sluice_rt_barrier_divergence(const char *kernel, uint64_t group_lanes) {
  std::fprintf(
      stderr,
      "sluice runtime: the lanes of a %llu-lane coroutine of kernel %s "
      "disagree on a loop bound or branch condition around a barrier or a "
      "gpu.shuffle; without shuffles, run it with one coroutine per lane "
      "(convert-gpu-to-cpu coroutine-lanes=1, sluice-run "
      "--gpu-coroutine-lanes=1); with shuffles, the lanes of a subgroup "
      "must agree, as on a GPU\n",
      static_cast<unsigned long long>(group_lanes), kernel);
  std::exit(1);
}

int64_t sluice_rt_now_ns(void) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t sluice_rt_bench_reps(void) {
  const char *text = std::getenv("SLUICE_BENCH_REPS");
  if (!text || !*text)
    return 0;
  return std::strtoll(text, nullptr, 10);
}

int64_t sluice_rt_bench_sequence(void) {
  const char *text = std::getenv("SLUICE_BENCH_SEQUENCE");
  long long launches = text && *text ? std::strtoll(text, nullptr, 10) : 256;
  return launches < 1 ? 1 : launches;
}

void sluice_rt_report_time(int64_t id, int64_t best_ns, int64_t reps) {
  if (reps <= 0)
    return;
  std::fprintf(stderr, "sluice-time %" PRId64 " %" PRId64 "\n", id, best_ns);
  std::fflush(stderr);
}

} // extern "C"
