//===- coro_c_api.cpp - C ABI of the coroutine frame arena ----------------===//

#include "sluice/runtime/arena/arena.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

using namespace sluice::runtime;

namespace {

void defaultFailureHandler(const char *message) {
  std::fprintf(stderr, "sluice runtime: %s\n", message);
  std::fflush(stderr);
  std::abort();
}

std::atomic<sluice_rt_coro_failure_handler> failureHandler{nullptr};

} // namespace

extern "C" {

void *sluice_rt_coro_alloc(size_t size, size_t align) {
  ArenaAllocation allocation = currentArena().allocate(size, align);
  if (allocation.error == ArenaError::None)
    return allocation.pointer;
  std::string message =
      FrameArena::describe(allocation.error, size, align).describe();
  sluice_rt_coro_failure_handler handler = failureHandler.load();
  (handler ? handler : defaultFailureHandler)(message.c_str());
  return nullptr;
}

void sluice_rt_coro_free(void *frame) { FrameArena::free(frame); }

void sluice_rt_coro_arena_reset(void) { currentArena().reset(); }

sluice_rt_coro_arena *sluice_rt_coro_arena_bind(sluice_rt_coro_arena *arena) {
  return toHandle(bindArena(fromHandle(arena)));
}

sluice_rt_coro_arena *sluice_rt_coro_arena_current(void) {
  return toHandle(&currentArena());
}

sluice_rt_coro_arena *sluice_rt_coro_arena_create(size_t inline_bytes) {
  return toHandle(new (std::nothrow) FrameArena(inline_bytes));
}

void sluice_rt_coro_arena_destroy(sluice_rt_coro_arena *arena) {
  FrameArena *doomed = fromHandle(arena);
  // Never leave the calling thread bound to a destroyed arena.
  FrameArena *previous = bindArena(nullptr);
  if (previous != doomed)
    bindArena(previous);
  delete doomed;
}

sluice_rt_coro_failure_handler
sluice_rt_coro_set_failure_handler(sluice_rt_coro_failure_handler handler) {
  return failureHandler.exchange(handler);
}

} // extern "C"
