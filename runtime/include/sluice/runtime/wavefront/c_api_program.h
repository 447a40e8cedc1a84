/*===- c_api_program.h - Running a program descriptor from C --------*- C -*-===
 *
 * `sluice_rt_run_program`: a program descriptor (stage kernels, capacity
 * owners, producers, frame layout) run on the CPU device. Plain C.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_WAVEFRONT_C_API_PROGRAM_H
#define SLUICE_RUNTIME_WAVEFRONT_C_API_PROGRAM_H

#include "sluice/runtime/device/kernel_abi.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sluice_rt_stage_desc {
  const char *name;
  sluice_rt_stage_kernel kernel;
} sluice_rt_stage_desc;

typedef struct sluice_rt_owner_desc {
  const char *name;
  uint32_t capacity;
  uint32_t item_size;
  uint32_t stage_count;
  const sluice_rt_stage_desc *stages;
} sluice_rt_owner_desc;

typedef struct sluice_rt_producer_desc {
  uint32_t stage; /* main stage */
  uint32_t owner;
  uint32_t bound; /* items per invocation, 1 <= bound <= capacity */
} sluice_rt_producer_desc;

typedef struct sluice_rt_frame_field_desc {
  uint32_t size;
  uint32_t align;
} sluice_rt_frame_field_desc;

typedef struct sluice_rt_program_desc {
  const char *name;
  uint32_t main_stage_count;
  const sluice_rt_stage_desc *main_stages;
  uint32_t entry_stage;
  uint32_t owner_count;
  const sluice_rt_owner_desc *owners;
  uint32_t producer_count;
  const sluice_rt_producer_desc *producers;
  uint32_t frame_layout; /* sluice_rt_frame_layout_kind */
  uint32_t frame_field_count;
  const sluice_rt_frame_field_desc *frame_fields;
  void *user_data;
} sluice_rt_program_desc;

typedef enum sluice_rt_schedule {
  SLUICE_RT_SCHEDULE_WAVEFRONT = 0,
  SLUICE_RT_SCHEDULE_STATE_MACHINE = 1
} sluice_rt_schedule;

typedef struct sluice_rt_run_options {
  uint32_t lanes;
  uint32_t frame_pool;
  uint32_t workers;           /* 0: one per core */
  uint32_t schedule;          /* sluice_rt_schedule */
  uint32_t partial_admission; /* nonzero: on (the default) */
  const char *trace_path;     /* Chrome trace JSON, NULL: off */
} sluice_rt_run_options;

typedef struct sluice_rt_stage_stats {
  uint64_t dispatches;
  uint64_t invocations;
  uint64_t items_published;
  uint64_t items_released;
} sluice_rt_stage_stats;

/* Runs `program` on the CPU device. `stats` (may be NULL) receives one entry
 * per stage: main stages first, then each owner's stages in order. Returns 0
 * on success, otherwise a nonzero error kind with a message in `error`. */
int sluice_rt_run_program(const sluice_rt_program_desc *program,
                          const sluice_rt_run_options *options,
                          sluice_rt_stage_stats *stats, size_t stats_count,
                          uint64_t *iterations, char *error, size_t error_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_RUNTIME_WAVEFRONT_C_API_PROGRAM_H */
