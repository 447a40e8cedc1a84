/*===- KernelABI.h - The compiled kernels' argument ABI ---------*- C -*-===//
 *
 * The one definition of what convert-wave-to-gpu compiles into every stage
 * kernel and what the runtime passes it, shared by lib/ (the lowering) and
 * runtime/ (the adapters that run compiled kernels). Plain C, no includes:
 * the compiler, the runtime and generated host code all read it.
 *
 * Every stage kernel takes, in order, the arguments of sluice_kernel_arg,
 * then per owner its free ring followed by one array per payload field, then
 * per per-lane coroutine argument its input array, then per binding its
 * buffer (a uniform: a one-element buffer) in descriptor order, then the
 * binding extents: an i64 array holding, per binding, the element count of
 * its dynamic extent (what memref.dim and check-bounds read; unused for a
 * static binding) (docs/compiler.md). How the HIP backend passes these
 * (a pointer plus one int64_t per dynamic dimension) is HIPABI.h.
 * On Vulkan every argument is a storage buffer at (set 0, binding =
 * position), the count too: a 32-bit word at binding 0, which the host
 * placement fills before a dispatch and the device placement's scheduler
 * writes for an indirect dispatch (docs/spirv-backend.md). The module's
 * extra entry point sluice_stage_switch (sluice-spirv-stage-switch) takes
 * the same bindings and runs global stage s, s being the second 32-bit word
 * of binding 0; the device placement dispatches it instead of the stage
 * kernels.
 *
 *===--------------------------------------------------------------------===*/
#ifndef SLUICE_ABI_KERNELABI_H
#define SLUICE_ABI_KERNELABI_H

/* Bumped whenever anything below changes; the artifact records it. */
#define SLUICE_KERNEL_ABI_VERSION 3

/* Positions of the arguments every stage kernel takes. */
enum sluice_kernel_arg {
  SLUICE_KARG_COUNT = 0,         /* index: invocations in this dispatch */
  SLUICE_KARG_INVOCATIONS = 1,   /* i32[]: frame index (main) / item slot (aux) */
  SLUICE_KARG_LANE_IDS = 2,      /* i32[]: lane of each frame */
  SLUICE_KARG_FRAMES = 3,        /* i8[]: frame storage */
  SLUICE_KARG_FIELD_OFFSETS = 4, /* i64[]: SoA byte offset of each field's array */
  SLUICE_KARG_NEXT_STAGE = 5,    /* i32[]: outcome of each invocation */
  SLUICE_KARG_COUNTERS = 6,      /* i32[]: stage arrivals, alloc heads, releases */
  SLUICE_KARG_PUBLISHED_SLOTS = 7,  /* i32[]: [invocation * stride + base + k] */
  SLUICE_KARG_PUBLISHED_COUNTS = 8, /* i32[]: [invocation * owners + owner] */
  SLUICE_KARG_ALLOC_LIMITS = 9,  /* i32[]: per owner, ring end of this dispatch */
  SLUICE_KARG_FAULT = 10,        /* i32[SLUICE_KERNEL_FAULT_WORDS] */
  SLUICE_KARG_FIRST_OWNER = 11   /* per owner: free ring, then payload arrays */
};

/* The unit attribute convert-wave-to-gpu sets on the counters argument: a
 * buffer that aliases no other argument and that nothing reads during a
 * dispatch (the host reads it after), so a backend may combine the adds of
 * many invocations (the CPU backend sums a block's: docs/cpu-backend.md). */
#define SLUICE_KERNEL_COUNTERS_ATTR "sluice.counters"
/* The fault argument: the dispatch's first fault, claimed by its code word. */
enum sluice_kernel_fault_word {
  SLUICE_FAULT_WORD_CODE = 0,
  SLUICE_FAULT_WORD_STAGE = 1,
  SLUICE_FAULT_WORD_INVOCATION = 2,
  SLUICE_FAULT_WORD_OWNER = 3,
  SLUICE_FAULT_WORD_VALUE = 4
};
#define SLUICE_KERNEL_FAULT_WORDS 5

/* Fault codes a compiled kernel records (a subset of sluice_rt_fault_code). */
#define SLUICE_KERNEL_FAULT_BOUND_EXCEEDED 1
#define SLUICE_KERNEL_FAULT_POOL_EXHAUSTED 2
/* check-bounds: owner word = binding index, value = element index. */
#define SLUICE_KERNEL_FAULT_OUT_OF_BOUNDS 7
/* The megakernel: an invocation left an outcome that names no stage of its
 * kind (value = the outcome; owner word = the owner, or
 * SLUICE_KERNEL_NO_OWNER for a main stage). */
#define SLUICE_KERNEL_FAULT_BAD_OUTCOME 8
#define SLUICE_KERNEL_NO_OWNER 0xFFFFFFFFu

/* next_stage value of a finished frame or a released item, and of an
 * invocation that decided nothing. */
#define SLUICE_KERNEL_FINISHED 0xFFFFFFFFu
#define SLUICE_KERNEL_UNDECIDED 0xFFFFFFFEu

/* The megakernel (sluice-build-megakernel; the state-machine schedule): one
 * more kernel, named by the descriptor's "megakernel" entry, taking every
 * argument above and then one more, the machine words (i32[]). `count` is
 * the number of threads; thread g owns frame g and item slots
 * [g * bound, (g + 1) * bound) of each owner; the other per-invocation
 * arguments are private to it (the host binds anything there). The machine
 * words: */
enum sluice_megakernel_word {
  SLUICE_MEGAKERNEL_NEXT_LANE = 0,        /* claimed with an atomic add */
  SLUICE_MEGAKERNEL_LANE_END = 1,         /* lanes [next, end) remain */
  SLUICE_MEGAKERNEL_LANES_PER_THREAD = 2, /* claims per thread and launch */
  SLUICE_MEGAKERNEL_HEADER_WORDS = 4
};
/* Then the uniform bindings in binding order, each one word (32-bit) or two
 * (64-bit, low word first): `uniform_words` of the descriptor's megakernel
 * entry. Then per thread g, from HEADER_WORDS + uniform_words +
 * g * (3 * stages + 2), written when
 * it stops: per global stage s its invocations (3s), items published
 * (3s + 1) and items released (3s + 2) in this launch, the lanes it finished
 * (3 * stages) and the lane it claimed last (3 * stages + 1). */
#define SLUICE_MEGAKERNEL_STAGE_WORDS 3
#define SLUICE_MEGAKERNEL_THREAD_WORDS(stages) (3 * (stages) + 2)

/* Lanes per block (workgroup) of the compiled stage kernels. */
#define SLUICE_KERNEL_BLOCK_LANES 64

/* The CPU backend: each stage kernel `k` becomes the block function
 * `void __sluice_block_<k>(void *argument_record, int64_t block)`, exported
 * from the artifact's shared object. */
#define SLUICE_CPU_BLOCK_PREFIX "__sluice_block_"

/* Runtime C functions that compiled code calls, by name. */
#define SLUICE_RT_SYM_BARRIER_DIVERGENCE "sluice_rt_barrier_divergence"
#define SLUICE_RT_SYM_CORO_ALLOC "sluice_rt_coro_alloc"
#define SLUICE_RT_SYM_CORO_FREE "sluice_rt_coro_free"

#endif /* SLUICE_ABI_KERNELABI_H */
