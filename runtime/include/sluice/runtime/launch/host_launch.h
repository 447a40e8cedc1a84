/*===- host_launch.h - The one host-launch ABI ------------------*- C -*-===//
 *
 * Generated host code launches a kernel on any backend as
 *
 *   sluice_rt_launch_begin(backend, handle, handle_bytes, "kernel");
 *   [sluice_rt_launch_workers(n);]            CPU: workers of this launch
 *   [sluice_rt_launch_workgroup_memory(b);]   the kernel's shared memory
 *   per kernel operand, in order: sluice_rt_launch_memref followed by one
 *   sluice_rt_launch_memref_dim per dimension, or sluice_rt_launch_scalar;
 *   [sluice_rt_launch_scratch(b);]            Vulkan: per-invocation scratch
 *   sluice_rt_launch_end(gx, gy, gz, bx, by, bz);
 *
 * (include/sluice/ABI/LaunchABI.h has the backend ids and access flags.) The
 * calls of one thread build one launch; end runs it and returns when its
 * results are in host memory, or, for operands marked
 * SLUICE_LAUNCH_RESIDENT, in the device copy that
 *
 *   sluice_rt_host_access(data, bytes, SLUICE_HOST_READ/WRITE/FREE);
 *
 * brings back when the host code is about to use those bytes (residency,
 * docs/spirv-backend.md). Each backend has one wrapper behind these
 * calls: runtime/launch/host_launch.cpp (the block function over the worker
 * pool) and runtime/device/vulkan/vulkan_launch.cpp (the SPIR-V kernel on the
 * Vulkan device). Misuse (a call outside begin/end, a backend the runtime was
 * built without) prints "sluice: launch: <message>" and exits 2: generated
 * code has no error path.
 *
 *===--------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_LAUNCH_HOST_LAUNCH_H
#define SLUICE_RUNTIME_LAUNCH_HOST_LAUNCH_H

#include "sluice/ABI/LaunchABI.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void sluice_rt_launch_begin(uint32_t backend, const void *handle,
                            uint64_t handle_bytes, const char *kernel);
/* CPU: worker threads for this launch (0: SLUICE_WORKERS or one per core). */
void sluice_rt_launch_workers(uint32_t workers);
void sluice_rt_launch_workgroup_memory(uint64_t bytes);
/* A memref operand: its aligned pointer, offset (elements), rank, element
 * bytes and the SLUICE_LAUNCH_READ/WRITE access flags the kernel needs; then
 * `rank` calls of sluice_rt_launch_memref_dim, outermost dimension first,
 * with each dimension's size and stride (elements). */
void sluice_rt_launch_memref(void *aligned, int64_t offset, uint64_t rank,
                             uint64_t element_bytes, uint64_t access);
void sluice_rt_launch_memref_dim(int64_t size, int64_t stride);
/* A scalar operand: the low `bytes` bytes (1, 2, 4 or 8) of `value`. */
void sluice_rt_launch_scalar(uint64_t value, uint64_t bytes);
void sluice_rt_launch_scratch(uint64_t bytes_per_invocation);
void sluice_rt_launch_end(uint64_t gx, uint64_t gy, uint64_t gz, uint64_t bx,
                          uint64_t by, uint64_t bz);
/* The host is about to read / write / free the bytes [data, data + bytes)
 * (LaunchABI.h: SLUICE_HOST_READ, SLUICE_HOST_WRITE, or SLUICE_HOST_FREE
 * alone). Brings resident device copies that overlap the range up to date in
 * host memory first; (NULL, UINT64_MAX) is every resident copy. A no-op
 * where nothing is resident (the CPU backend, a range no launch used). Not
 * to be called between begin and end of the same thread. */
void sluice_rt_host_access(void *data, uint64_t bytes, uint64_t access);
/* Waits until every launch so far has finished on its device (Vulkan batches
 * launches whose operands stay resident). Host code needs it only to time
 * launches; sluice_rt_host_access synchronizes what it touches by itself. */
void sluice_rt_synchronize(void);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_RUNTIME_LAUNCH_HOST_LAUNCH_H */
