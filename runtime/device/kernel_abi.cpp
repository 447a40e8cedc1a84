//===- kernel_abi.cpp - Publish/move/release helpers of the kernel ABI ----===//
//
// Every helper validates its arguments and records the first fault of a
// dispatch instead of writing out of bounds; the host turns the fault into a
// protocol error after the dispatch completes.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/kernel_abi.h"

#include <atomic>
#include <cstddef>

// GPU adapters and generated code fill these structs field by field; their
// layout is part of the ABI.
static_assert(sizeof(sluice_rt_fault) == 24);
static_assert(sizeof(sluice_rt_frame_view) == 40);
static_assert(sizeof(sluice_rt_owner_slots) == 56);
static_assert(offsetof(sluice_rt_owner_slots, alloc_head) == 24);
static_assert(sizeof(sluice_rt_kernel_args) == 128);
static_assert(offsetof(sluice_rt_kernel_args, invocations) == 16);
static_assert(offsetof(sluice_rt_kernel_args, next_stage) == 72);
static_assert(offsetof(sluice_rt_kernel_args, owners) == 88);
static_assert(offsetof(sluice_rt_kernel_args, user_data) == 120);

namespace {

void recordFault(const sluice_rt_kernel_args *args, uint32_t code,
                 uint32_t invocation, uint32_t owner, uint64_t value) {
  sluice_rt_fault *fault = args->fault;
  uint32_t expected = SLUICE_RT_FAULT_NONE;
  // Only the first fault is kept; the host reads it after completion.
  if (!std::atomic_ref<uint32_t>(fault->code)
           .compare_exchange_strong(expected, code, std::memory_order_relaxed))
    return;
  fault->stage = args->stage;
  fault->invocation = invocation;
  fault->owner = owner;
  fault->value = value;
}

// Records an outcome exactly once per invocation.
void decide(const sluice_rt_kernel_args *args, uint32_t invocation,
            uint32_t outcome) {
  if (invocation >= args->count) {
    recordFault(args, SLUICE_RT_FAULT_BAD_INVOCATION, invocation,
                SLUICE_RT_NO_OWNER, args->count);
    return;
  }
  uint32_t &slot = args->next_stage[invocation];
  if (slot != SLUICE_RT_UNDECIDED) {
    recordFault(args, SLUICE_RT_FAULT_DECIDED_TWICE, invocation, args->owner,
                outcome);
    return;
  }
  slot = outcome;
}

bool inMainStage(const sluice_rt_kernel_args *args, uint32_t invocation,
                 uint32_t helper) {
  if (args->owner == SLUICE_RT_NO_OWNER)
    return true;
  recordFault(args, SLUICE_RT_FAULT_WRONG_STAGE_KIND, invocation, args->owner,
              helper);
  return false;
}

bool inAuxiliaryStage(const sluice_rt_kernel_args *args, uint32_t invocation,
                      uint32_t helper) {
  if (args->owner != SLUICE_RT_NO_OWNER)
    return true;
  recordFault(args, SLUICE_RT_FAULT_WRONG_STAGE_KIND, invocation,
              SLUICE_RT_NO_OWNER, helper);
  return false;
}

} // namespace

extern "C" {

void sluice_rt_move_frame(const sluice_rt_kernel_args *args,
                          uint32_t invocation, uint32_t main_stage) {
  if (inMainStage(args, invocation, 0))
    decide(args, invocation, main_stage);
}

void sluice_rt_finish_frame(const sluice_rt_kernel_args *args,
                            uint32_t invocation) {
  if (inMainStage(args, invocation, 1))
    decide(args, invocation, SLUICE_RT_FINISHED);
}

void *sluice_rt_publish(const sluice_rt_kernel_args *args, uint32_t invocation,
                        uint32_t owner) {
  if (!inMainStage(args, invocation, 2))
    return nullptr;
  if (invocation >= args->count) {
    recordFault(args, SLUICE_RT_FAULT_BAD_INVOCATION, invocation, owner,
                args->count);
    return nullptr;
  }
  if (owner >= args->owner_count || args->owners[owner].bound == 0) {
    recordFault(args, SLUICE_RT_FAULT_NOT_A_PRODUCER, invocation, owner, 0);
    return nullptr;
  }
  sluice_rt_owner_slots &slots = args->owners[owner];
  uint32_t &published =
      args->published_counts[uint64_t(invocation) * args->owner_count + owner];
  if (published >= slots.bound) {
    recordFault(args, SLUICE_RT_FAULT_BOUND_EXCEEDED, invocation, owner,
                uint64_t(published) + 1);
    return nullptr;
  }
  uint64_t position = std::atomic_ref<uint64_t>(*slots.alloc_head)
                          .fetch_add(1, std::memory_order_relaxed);
  if (position >= slots.alloc_limit) {
    recordFault(args, SLUICE_RT_FAULT_POOL_EXHAUSTED, invocation, owner,
                position);
    return nullptr;
  }
  uint32_t slot = slots.free_ring[position % slots.capacity];
  args->published_slots[uint64_t(invocation) * args->publish_stride +
                        slots.publish_base + published] = slot;
  ++published;
  return slots.payload + uint64_t(slot) * slots.item_stride;
}

void sluice_rt_move_item(const sluice_rt_kernel_args *args, uint32_t invocation,
                         uint32_t owner_stage) {
  if (inAuxiliaryStage(args, invocation, 3))
    decide(args, invocation, owner_stage);
}

void sluice_rt_release_item(const sluice_rt_kernel_args *args,
                            uint32_t invocation) {
  if (inAuxiliaryStage(args, invocation, 4))
    decide(args, invocation, SLUICE_RT_FINISHED);
}

} // extern "C"
