/*===- c_abi_smoke.c - The cohort C ABI used from C ----------------------===*/
#include "sluice/runtime/cohort/c_api.h"

#include <stdatomic.h>

static atomic_llong producedSum;
static atomic_llong cohortArrived;
static atomic_llong cohortBlocks;

static void produce(void *user, int64_t block, int64_t count) {
  (void)user;
  (void)count;
  atomic_fetch_add(&producedSum, block + 1);
}

static void cohort(void *user, int64_t block, int64_t count) {
  (void)user;
  (void)block;
  /* Cross-block barrier: returns only when every block is running. */
  atomic_fetch_add(&cohortArrived, 1);
  while (atomic_load(&cohortArrived) < count) {
  }
  atomic_fetch_add(&cohortBlocks, 1);
}

/* Runs producer(6 blocks) -> cohort(2 blocks, sync_start) on 2 cores from C.
 * Returns 0 when the sums match the closed forms. */
int sluiceCohortCSmoke(void) {
  atomic_store(&producedSum, 0);
  atomic_store(&cohortArrived, 0);
  atomic_store(&cohortBlocks, 0);
  sluice_cohort_graph *graph = sluice_cohort_graph_create(2);
  if (!graph)
    return 1;
  int32_t p = sluice_cohort_add_task(graph, "produce", produce, 0, 6,
                                     SLUICE_COHORT_ALLOW_EARLY_RESOLVE);
  int32_t c = sluice_cohort_add_task(graph, "cohort", cohort, 0, 2,
                                     SLUICE_COHORT_SYNC_START);
  int status = 0;
  if (p != 0 || c != 1 || sluice_cohort_add_dependency(graph, p, c) != 0)
    status = 2;
  else if (sluice_cohort_run(graph) != 0)
    status = 3;
  else if (atomic_load(&producedSum) != 21 || atomic_load(&cohortBlocks) != 2)
    status = 4;
  else if (sluice_cohort_task_state(graph, c) != SLUICE_COHORT_TASK_COMPLETED)
    status = 5;
  sluice_cohort_graph_destroy(graph);
  return status;
}
