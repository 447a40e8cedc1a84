/*===- c_api.h - C ABI of the cohort executor for generated code ---*- C -*-===
 *
 * Build a task graph, run it, read the per-task results. Everything is checked
 * at run time before anything starts: a cohort larger than the graph's core
 * count, a dependency cycle and an unknown kernel (null function pointer or an
 * unregistered name) make sluice_cohort_run return non-zero with a message in
 * sluice_cohort_last_error, and no kernel runs. See docs/cohort.md.
 *
 * A graph is used from one thread at a time. Kernels run on the graph's
 * executor threads, one call per block.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_COHORT_C_API_H
#define SLUICE_RUNTIME_COHORT_C_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One call per block, block_index in [0, block_count). */
typedef void (*sluice_cohort_kernel_fn)(void *user, int64_t block_index,
                                        int64_t block_count);

typedef struct sluice_cohort_graph sluice_cohort_graph;

/* Task flags. */
#define SLUICE_COHORT_SYNC_START 1          /* all blocks start at once */
#define SLUICE_COHORT_ALLOW_EARLY_RESOLVE 2 /* consumers may pre-stage */

/* Per-task states (sluice_cohort_task_state). */
#define SLUICE_COHORT_TASK_NOT_RUN 0
#define SLUICE_COHORT_TASK_COMPLETED 1
#define SLUICE_COHORT_TASK_FAILED 2
#define SLUICE_COHORT_TASK_CANCELLED 3

/* A graph for an executor of `cores` cores (<= 0: one per hardware thread).
 * Returns null only when out of memory. */
sluice_cohort_graph *sluice_cohort_graph_create(int32_t cores);
void sluice_cohort_graph_destroy(sluice_cohort_graph *graph);

/* Adds a task; returns its id (0, 1, ... in order) or -1 when `graph` is null,
 * `blocks` < 1 or `flags` has unknown bits. `name` may be null ("task<id>").
 * A null `fn` is accepted here and reported by sluice_cohort_run. */
int32_t sluice_cohort_add_task(sluice_cohort_graph *graph, const char *name,
                               sluice_cohort_kernel_fn fn, void *user,
                               int64_t blocks, int32_t flags);

/* Like sluice_cohort_add_task, with the kernel looked up by name in the
 * process-wide registry when the graph runs. */
int32_t sluice_cohort_add_task_named(sluice_cohort_graph *graph,
                                     const char *name, const char *kernel_name,
                                     void *user, int64_t blocks, int32_t flags);

/* `consumer` starts after `producer` completes. 0 on success, -1 when an id
 * is out of range (message in sluice_cohort_last_error). */
int32_t sluice_cohort_add_dependency(sluice_cohort_graph *graph,
                                     int32_t producer, int32_t consumer);

/* Registers `fn` under `kernel_name` for every graph of the process.
 * 0 on success, -1 for a null/empty name or a null fn. */
int32_t sluice_cohort_register_kernel(const char *kernel_name,
                                      sluice_cohort_kernel_fn fn);

/* Submits the graph and waits. 0 on success; non-zero on a validation error
 * (nothing started) or a failed run. The graph can be run again. */
int32_t sluice_cohort_run(sluice_cohort_graph *graph);

/* The last error of `graph` ("" when none); valid until the next call on it.
 * With a null graph: the last error of a call that got a null graph. */
const char *sluice_cohort_last_error(const sluice_cohort_graph *graph);

/* Results of the last run: a SLUICE_COHORT_TASK_* state, the number of blocks
 * that ran, and the task's error ("" when none). */
int32_t sluice_cohort_task_state(const sluice_cohort_graph *graph,
                                 int32_t task);
int64_t sluice_cohort_task_blocks_run(const sluice_cohort_graph *graph,
                                      int32_t task);
const char *sluice_cohort_task_error(const sluice_cohort_graph *graph,
                                     int32_t task);

/* From inside a kernel: fail the current block with `message`. The run stops
 * starting new work and sluice_cohort_run reports the task and block. */
void sluice_cohort_fail_block(const char *message);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_RUNTIME_COHORT_C_API_H */
