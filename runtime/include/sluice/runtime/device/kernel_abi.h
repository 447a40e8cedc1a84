/*===- kernel_abi.h - C ABI of the stage kernels --------------------*- C -*-===
 *
 * Stage kernels: `sluice_rt_stage_kernel` and its argument block
 * `sluice_rt_kernel_args` (frame buffer, lane ids, item slots, counters,
 * outcome arrays) with publish/move/release helpers. Plain C.
 *
 * A kernel is called once per block with the invocation range [begin, end).
 * Every invocation of a main stage must end in exactly one of
 * sluice_rt_move_frame / sluice_rt_finish_frame; every invocation of an
 * auxiliary stage in exactly one of sluice_rt_move_item /
 * sluice_rt_release_item.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_DEVICE_KERNEL_ABI_H
#define SLUICE_RUNTIME_DEVICE_KERNEL_ABI_H

#include "sluice/ABI/KernelABI.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* next_stage value of a finished frame or a released item. */
#define SLUICE_RT_FINISHED SLUICE_KERNEL_FINISHED
/* next_stage value before the kernel decided (a linearity violation). */
#define SLUICE_RT_UNDECIDED SLUICE_KERNEL_UNDECIDED
#define SLUICE_RT_NO_OWNER SLUICE_KERNEL_NO_OWNER

typedef enum sluice_rt_frame_layout_kind {
  SLUICE_RT_FRAME_AOS = 0, /* frame f, field i at base + f*stride + offset[i] */
  SLUICE_RT_FRAME_SOA = 1 /* frame f, field i at base + offset[i] + f*size[i] */
} sluice_rt_frame_layout_kind;

typedef enum sluice_rt_fault_code {
  SLUICE_RT_FAULT_NONE = 0,
  SLUICE_RT_FAULT_BOUND_EXCEEDED = SLUICE_KERNEL_FAULT_BOUND_EXCEEDED,   /* more than `bound` publishes */
  SLUICE_RT_FAULT_POOL_EXHAUSTED = SLUICE_KERNEL_FAULT_POOL_EXHAUSTED,   /* no admitted slot left */
  SLUICE_RT_FAULT_NOT_A_PRODUCER = 3,   /* stage may not publish into owner */
  SLUICE_RT_FAULT_WRONG_STAGE_KIND = 4, /* item helper in a main stage or
                                           vice versa */
  SLUICE_RT_FAULT_DECIDED_TWICE = 5,    /* a second move/finish/release */
  SLUICE_RT_FAULT_BAD_INVOCATION = 6,   /* invocation index >= count */
  SLUICE_RT_FAULT_OUT_OF_BOUNDS = SLUICE_KERNEL_FAULT_OUT_OF_BOUNDS, /* owner:
                        binding index, value: element index (check-bounds) */
  SLUICE_RT_FAULT_BAD_OUTCOME = SLUICE_KERNEL_FAULT_BAD_OUTCOME /* megakernel:
                        value: an outcome naming no stage */
} sluice_rt_fault_code;

/* The first fault of a dispatch; `code` is claimed by compare-and-swap. */
typedef struct sluice_rt_fault {
  uint32_t code;
  uint32_t stage;
  uint32_t invocation;
  uint32_t owner;
  uint64_t value;
} sluice_rt_fault;

typedef struct sluice_rt_frame_view {
  unsigned char *base;
  uint32_t kind; /* sluice_rt_frame_layout_kind */
  uint32_t field_count;
  uint64_t frame_stride;         /* AoS: bytes per frame */
  const uint64_t *field_offsets; /* AoS: offset in frame; SoA: array offset */
  const uint64_t *field_sizes;   /* bytes per field */
} sluice_rt_frame_view;

/* Item storage and allocation counters of one capacity owner. */
typedef struct sluice_rt_owner_slots {
  unsigned char *payload; /* capacity * item_stride bytes */
  uint64_t item_stride;
  const uint32_t *free_ring; /* ring of free slot indices, `capacity` long */
  uint64_t *alloc_head;      /* atomic: next ring position to allocate */
  uint64_t alloc_limit;      /* ring positions below it hold free slots */
  uint32_t capacity;         /* length of free_ring */
  uint32_t bound; /* this dispatch's emission bound, 0: may not publish */
  uint32_t publish_base; /* offset of the owner in a publish record */
  uint32_t reserved;
} sluice_rt_owner_slots;

typedef struct sluice_rt_kernel_args {
  uint32_t stage; /* global stage index */
  uint32_t owner; /* owner of an auxiliary stage, else SLUICE_RT_NO_OWNER */
  uint32_t owner_stage;        /* stage index within that owner */
  uint32_t count;              /* invocations in this dispatch */
  const uint32_t *invocations; /* frame index (main) or item slot (auxiliary) */
  const uint32_t *lane_ids;    /* lane held by each frame index */
  sluice_rt_frame_view frames;
  uint32_t *next_stage; /* outcome per invocation */
  uint32_t owner_count;
  uint32_t publish_stride;       /* publish record length: sum of bounds */
  sluice_rt_owner_slots *owners; /* indexed by owner */
  uint32_t *published_slots;     /* [invocation * publish_stride + base + k] */
  uint32_t *published_counts;    /* [invocation * owner_count + owner] */
  sluice_rt_fault *fault;
  void *user_data;
} sluice_rt_kernel_args;

typedef void (*sluice_rt_stage_kernel)(const sluice_rt_kernel_args *args,
                                       uint32_t begin, uint32_t end);

static inline uint32_t sluice_rt_frame_of(const sluice_rt_kernel_args *args,
                                          uint32_t invocation) {
  return args->invocations[invocation];
}

static inline uint32_t sluice_rt_lane_of(const sluice_rt_kernel_args *args,
                                         uint32_t invocation) {
  return args->lane_ids[args->invocations[invocation]];
}

static inline void *sluice_rt_frame_field(const sluice_rt_kernel_args *args,
                                          uint32_t frame, uint32_t field) {
  const sluice_rt_frame_view *view = &args->frames;
  if (view->kind == SLUICE_RT_FRAME_AOS)
    return view->base + (uint64_t)frame * view->frame_stride +
           view->field_offsets[field];
  return view->base + view->field_offsets[field] +
         (uint64_t)frame * view->field_sizes[field];
}

/* Payload of the item processed by an auxiliary-stage invocation. */
static inline void *sluice_rt_item_payload(const sluice_rt_kernel_args *args,
                                           uint32_t invocation) {
  const sluice_rt_owner_slots *slots = &args->owners[args->owner];
  return slots->payload +
         (uint64_t)args->invocations[invocation] * slots->item_stride;
}

void sluice_rt_move_frame(const sluice_rt_kernel_args *args,
                          uint32_t invocation, uint32_t main_stage);
void sluice_rt_finish_frame(const sluice_rt_kernel_args *args,
                            uint32_t invocation);
/* Allocates an item slot in `owner` and queues it at the owner's first stage.
 * Returns the payload to fill, or NULL after recording a fault. */
void *sluice_rt_publish(const sluice_rt_kernel_args *args, uint32_t invocation,
                        uint32_t owner);
void sluice_rt_move_item(const sluice_rt_kernel_args *args, uint32_t invocation,
                         uint32_t owner_stage);
void sluice_rt_release_item(const sluice_rt_kernel_args *args,
                            uint32_t invocation);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_RUNTIME_DEVICE_KERNEL_ABI_H */
