/*===- launch.h - Block launcher of the CPU backend -------------*- C -*-===
 *
 * Runs the blocks of one GPU-style kernel launch on the CPU. Generated code
 * (convert-gpu-to-cpu) calls sluice_rt_launch_blocks once per gpu.launch_func
 * with a block function that runs every lane of one block. Blocks run on a
 * process-wide worker pool (one worker per core), which claims them in
 * ranges of up to 64 blocks; each worker's coroutine frame arena is bound
 * while it runs blocks and reset at every block boundary, so
 *sluice_rt_coro_alloc inside a block function returns worker-local memory that
 *lives until the block ends.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_LAUNCH_LAUNCH_H
#define SLUICE_RUNTIME_LAUNCH_LAUNCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs one block; `block` is the linear block index in [0, grid_size). */
typedef void (*sluice_rt_block_fn)(void *args, uint64_t block);

/* Runs blocks [0, grid_size) of `block_fn` and returns when all completed.
 * `workers` 0 means the default: the SLUICE_WORKERS environment variable if
 * set, else one worker per core. A pool is kept per worker count and reused
 * by later launches. A grid larger than UINT32_MAX blocks is a clear error
 * (message on stderr, exit status 1). */
void sluice_rt_launch_blocks(sluice_rt_block_fn block_fn, void *args,
                             uint64_t grid_size, uint32_t workers);

/* Called by a lane-group coroutine whose lanes disagree on a loop bound or
 * branch condition around a barrier or a gpu.shuffle (a kernel with shuffles
 * has one group per subgroup): prints the kernel and the group size to
 * stderr and exits with status 1. */
void sluice_rt_barrier_divergence(const char *kernel, uint64_t group_lanes);

/* Workers a launch with `workers` = 0 uses. */
uint32_t sluice_rt_launch_default_workers(void);

/* Benchmark helpers for programs run by sluice-run. */
/* Monotonic clock in nanoseconds. */
int64_t sluice_rt_now_ns(void);
/* Extra timed repetitions a program should run: SLUICE_BENCH_REPS, else 0. */
int64_t sluice_rt_bench_reps(void);
/* Launches of a timed back-to-back sequence (the barrier examples' "sluice-time
 * 8"): SLUICE_BENCH_SEQUENCE, else 256; at least 1. */
int64_t sluice_rt_bench_sequence(void);
/* Prints "sluice-time <id> <nanoseconds>" to stderr (the fastest of `reps`
 * repetitions); nothing when `reps` is 0. */
void sluice_rt_report_time(int64_t id, int64_t best_ns, int64_t reps);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_RUNTIME_LAUNCH_LAUNCH_H */
