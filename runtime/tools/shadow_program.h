/*===- shadow_program.h - Shadow-pool demo program (C kernels) ------*- C -*-===
 *
 * Main coroutine: generate -> trace (-> trace)* -> finish. Each trace
 * invocation publishes at most one shadow item into the two-stage owner
 * `shadow` {intersect, shade}: intersect releases occluded items directly
 * (bypass) or moves them to shade; shade loops on itself up to the item's
 * loop limit, then releases. Every contribution is added to its pixel with
 * an atomic add, so the sums do not depend on the schedule.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_TOOLS_SHADOW_PROGRAM_H
#define SLUICE_TOOLS_SHADOW_PROGRAM_H

#include "sluice/runtime/c_api.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { SHADOW_GENERATE = 0, SHADOW_TRACE = 1, SHADOW_FINISH = 2 };
enum { SHADOW_OWNER = 0 };
enum { SHADOW_INTERSECT = 0, SHADOW_SHADE = 1 };
enum {
  SHADOW_FIELD_PIXEL = 0,
  SHADOW_FIELD_BOUNCE = 1,
  SHADOW_FIELD_RNG = 2,
  SHADOW_FIELD_RADIANCE = 3,
  SHADOW_FIELD_COUNT = 4
};

typedef struct shadow_item {
  uint32_t pixel;
  uint32_t loops;
  uint32_t loop_limit;
  uint32_t reserved;
  uint64_t rng;
  uint64_t contribution;
} shadow_item;

typedef struct shadow_globals {
  uint64_t *pixel_sums;     /* one per lane */
  uint32_t max_bounces;     /* trace runs 1..max_bounces times per lane */
  uint32_t max_shade_loops; /* shade runs 1..max_shade_loops times per item */
} shadow_globals;

/* Pure helpers shared by the kernels and the reference. */
uint64_t shadow_mix(uint64_t value);
uint32_t shadow_bounce_limit(uint32_t pixel, uint32_t max_bounces);
/* Nonzero if this trace step (after advancing rng) casts a shadow ray. */
int shadow_casts(uint64_t rng);
int shadow_occluded(uint64_t item_rng);

void shadow_generate(const sluice_rt_kernel_args *args, uint32_t begin,
                     uint32_t end);
void shadow_trace(const sluice_rt_kernel_args *args, uint32_t begin,
                  uint32_t end);
void shadow_finish(const sluice_rt_kernel_args *args, uint32_t begin,
                   uint32_t end);
void shadow_intersect(const sluice_rt_kernel_args *args, uint32_t begin,
                      uint32_t end);
void shadow_shade(const sluice_rt_kernel_args *args, uint32_t begin,
                  uint32_t end);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_TOOLS_SHADOW_PROGRAM_H */
