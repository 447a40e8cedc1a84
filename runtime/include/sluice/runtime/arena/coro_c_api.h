/*===- coro_c_api.h - C ABI of the coroutine frame arena ------------*- C -*-===
 *
 * The coroutine frame arena of the current worker (DESIGN.md §2.2), from
 * which the CPU backend's lane-group coroutines allocate their frames. Plain C.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_ARENA_CORO_C_API_H
#define SLUICE_RUNTIME_ARENA_CORO_C_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sluice_rt_coro_arena sluice_rt_coro_arena;

/* Bump-allocates a coroutine frame from the current worker's arena. Every
 * result is aligned to max(align, 2 * sizeof(intptr_t)); align must be 0 or a
 * power of two. On failure the failure handler runs (default: print the
 * reason and abort); if it returns, NULL is returned. */
void *sluice_rt_coro_alloc(size_t size, size_t align);
/* Frames are reclaimed by reset, so freeing is a no-op. */
void sluice_rt_coro_free(void *frame);
/* Rewinds the current worker's arena at a launch boundary. */
void sluice_rt_coro_arena_reset(void);
/* Binds `arena` to the calling thread and returns the previous binding.
 * NULL binds the thread's own arena, created on first use and released when
 * the thread exits. */
sluice_rt_coro_arena *sluice_rt_coro_arena_bind(sluice_rt_coro_arena *arena);
sluice_rt_coro_arena *sluice_rt_coro_arena_current(void);
sluice_rt_coro_arena *sluice_rt_coro_arena_create(size_t inline_bytes);
void sluice_rt_coro_arena_destroy(sluice_rt_coro_arena *arena);

typedef void (*sluice_rt_coro_failure_handler)(const char *message);
/* Installs the handler for allocation failures; NULL restores the default.
 * Returns the previous handler. */
sluice_rt_coro_failure_handler
sluice_rt_coro_set_failure_handler(sluice_rt_coro_failure_handler handler);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_RUNTIME_ARENA_CORO_C_API_H */
