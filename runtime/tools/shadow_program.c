/*===- shadow_program.c - Shadow-pool demo kernels ------------------------===*/

#include "shadow_program.h"

#include <stddef.h>

uint64_t shadow_mix(uint64_t value) {
  /* A bijective 64-bit finalizer (xor-shift-multiply). */
  value += 0x9e3779b97f4a7c15ull;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ull;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebull;
  return value ^ (value >> 31);
}

uint32_t shadow_bounce_limit(uint32_t pixel, uint32_t max_bounces) {
  return 1u + (uint32_t)(shadow_mix(pixel ^ 0xb0u) % max_bounces);
}

int shadow_casts(uint64_t rng) { return ((rng >> 8) & 3u) != 0; }

int shadow_occluded(uint64_t item_rng) { return item_rng % 3u == 0; }

#define FIELD(args, frame, index, type)                                        \
  ((type *)sluice_rt_frame_field((args), (frame), (index)))

void shadow_generate(const sluice_rt_kernel_args *args, uint32_t begin,
                     uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) {
    uint32_t frame = sluice_rt_frame_of(args, i);
    uint32_t pixel = sluice_rt_lane_of(args, i);
    *FIELD(args, frame, SHADOW_FIELD_PIXEL, uint32_t) = pixel;
    *FIELD(args, frame, SHADOW_FIELD_BOUNCE, uint32_t) = 0;
    *FIELD(args, frame, SHADOW_FIELD_RNG, uint64_t) = shadow_mix(pixel);
    *FIELD(args, frame, SHADOW_FIELD_RADIANCE, uint64_t) = 0;
    sluice_rt_move_frame(args, i, SHADOW_TRACE);
  }
}

void shadow_trace(const sluice_rt_kernel_args *args, uint32_t begin,
                  uint32_t end) {
  const shadow_globals *globals = (const shadow_globals *)args->user_data;
  for (uint32_t i = begin; i < end; ++i) {
    uint32_t frame = sluice_rt_frame_of(args, i);
    uint32_t pixel = *FIELD(args, frame, SHADOW_FIELD_PIXEL, uint32_t);
    uint32_t *bounce = FIELD(args, frame, SHADOW_FIELD_BOUNCE, uint32_t);
    uint64_t *rng = FIELD(args, frame, SHADOW_FIELD_RNG, uint64_t);
    uint64_t *radiance = FIELD(args, frame, SHADOW_FIELD_RADIANCE, uint64_t);
    *rng = shadow_mix(*rng);
    *bounce += 1;
    *radiance += *rng & 0xffu;
    if (shadow_casts(*rng)) {
      shadow_item *item =
          (shadow_item *)sluice_rt_publish(args, i, SHADOW_OWNER);
      if (item) {
        uint64_t seed = shadow_mix(*rng ^ 0x5eedu);
        item->pixel = pixel;
        item->loops = 0;
        item->loop_limit = 1u + (uint32_t)(seed % globals->max_shade_loops);
        item->reserved = 0;
        item->rng = seed;
        item->contribution = (*rng >> 16) & 0xfffu;
      }
    }
    if (*bounce < shadow_bounce_limit(pixel, globals->max_bounces))
      sluice_rt_move_frame(args, i, SHADOW_TRACE);
    else
      sluice_rt_move_frame(args, i, SHADOW_FINISH);
  }
}

void shadow_finish(const sluice_rt_kernel_args *args, uint32_t begin,
                   uint32_t end) {
  const shadow_globals *globals = (const shadow_globals *)args->user_data;
  for (uint32_t i = begin; i < end; ++i) {
    uint32_t frame = sluice_rt_frame_of(args, i);
    uint32_t pixel = *FIELD(args, frame, SHADOW_FIELD_PIXEL, uint32_t);
    uint64_t radiance = *FIELD(args, frame, SHADOW_FIELD_RADIANCE, uint64_t);
    __atomic_fetch_add(&globals->pixel_sums[pixel], radiance, __ATOMIC_RELAXED);
    sluice_rt_finish_frame(args, i);
  }
}

void shadow_intersect(const sluice_rt_kernel_args *args, uint32_t begin,
                      uint32_t end) {
  for (uint32_t i = begin; i < end; ++i) {
    const shadow_item *item =
        (const shadow_item *)sluice_rt_item_payload(args, i);
    if (shadow_occluded(item->rng))
      sluice_rt_release_item(args, i); /* bypass: shade never sees it */
    else
      sluice_rt_move_item(args, i, SHADOW_SHADE);
  }
}

void shadow_shade(const sluice_rt_kernel_args *args, uint32_t begin,
                  uint32_t end) {
  const shadow_globals *globals = (const shadow_globals *)args->user_data;
  for (uint32_t i = begin; i < end; ++i) {
    shadow_item *item = (shadow_item *)sluice_rt_item_payload(args, i);
    item->loops += 1;
    __atomic_fetch_add(&globals->pixel_sums[item->pixel],
                       item->contribution * item->loops, __ATOMIC_RELAXED);
    if (item->loops < item->loop_limit)
      sluice_rt_move_item(args, i, SHADOW_SHADE); /* self-loop */
    else
      sluice_rt_release_item(args, i);
  }
}
