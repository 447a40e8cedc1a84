/*===- vulkan_launch.h - The Vulkan wrapper of the launch ABI -----*- C -*-===//
 *
 * Generated host code launches one SPIR-V kernel as: begin, then one arg,
 * scalar or scratch call per kernel binding in order (binding i is the i-th
 * call), then end. A process-wide Vulkan context is created on first use; the
 * launch state is per thread. Each memref argument lives in a device-only
 * buffer (VRAM) with a host-cached staging buffer, kept per host range
 * (pointer, size) in a process-wide residency table whose ranges are
 * disjoint (a launch on a range that overlaps another entry brings that one
 * back to the host and drops it). Without SLUICE_RT_VK_RESIDENT an argument
 * the kernel may read is copied host -> staging -> device before the
 * dispatch, one it may write device -> staging -> host after it (the access
 * flags below). With it, the device copy stays: it is uploaded only when it
 * is stale (first use, or the host wrote since), and nothing comes back
 * until sluice_rt_vk_host_access asks for it. Errors print "sluice: vulkan:
 * <message>" and exit(1): generated code has no error path.
 * SLUICE_VULKAN_TIMING=1 prints one line per launch: "sluice: vulkan: @entry
 * grid GXxGYxGZ block BXxBYxBZ: gpu <us> us, copies in <bytes> bytes
 * <host>+<device> us / out <bytes> bytes <host>+<device> us (host+device)"
 * (<device> is n/a without timestamps), and one per download of resident
 * copies: "sluice: vulkan: <why>: download <bytes> bytes (<n> buffer[s]) in
 * <host>+<device> us (host+device)", <why> being "host read", "host write",
 * "host read+write" or "before @entry".
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_LAUNCH_H
#define SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_LAUNCH_H

#include "sluice/ABI/LaunchABI.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `spirv` must stay valid for the life of the process: kernels are cached by
 * (spirv pointer, entry). */
void sluice_rt_vk_launch_begin(const uint32_t *spirv, uint64_t words,
                               const char *entry);
/* The kernel's workgroup (shared) memory, when it has any: checked against
 * the device's maxComputeSharedMemorySize before the pipeline is created, so
 * a kernel that cannot run there fails with the numbers, not a driver error.
 * Call after begin, at most once per launch. */
void sluice_rt_vk_launch_workgroup_memory(uint64_t bytes);
#define SLUICE_RT_VK_READ SLUICE_LAUNCH_READ   /* the kernel may read the argument */
#define SLUICE_RT_VK_WRITE SLUICE_LAUNCH_WRITE /* the kernel may write it */
/* the caller announces its host accesses (sluice_rt_vk_host_access) */
#define SLUICE_RT_VK_RESIDENT SLUICE_LAUNCH_RESIDENT
/* A memref of `bytes` bytes at `data`. `access` is a mask of the flags above:
 * READ copies it in before the dispatch, WRITE copies it back after (so a
 * WRITE-only argument's device contents are undefined before the kernel runs,
 * and whatever the kernel does not write comes back undefined), 0 binds the
 * buffer only; with RESIDENT, READ uploads only a stale device copy and
 * WRITE leaves the result on the device (the host copy is stale until
 * sluice_rt_vk_host_access). Other bits are an error. */
void sluice_rt_vk_launch_arg(void *data, uint64_t bytes, uint64_t access);
/* A scalar: its low `bytes` bytes (1, 2, 4 or 8) as a one-member buffer. */
void sluice_rt_vk_launch_scalar(uint64_t value, uint64_t bytes);
/* A device-only buffer of bytes_per_invocation * (gx*gy*gz*bx*by*bz) bytes,
 * contents undefined, for the kernel's scratch (private arrays moved out of
 * registers). Sized at end, when the grid is known; cached and grown across
 * launches of the thread. */
void sluice_rt_vk_launch_scratch(uint64_t bytes_per_invocation);
/* Dispatches gx*gy*gz workgroups; (bx, by, bz) must equal the entry point's
 * LocalSize. Returns when the results are back in host memory. */
void sluice_rt_vk_launch_end(uint64_t gx, uint64_t gy, uint64_t gz, uint64_t bx,
                             uint64_t by, uint64_t bz);
/* The host is about to access [data, data + bytes) (SLUICE_HOST_READ,
 * SLUICE_HOST_WRITE or SLUICE_HOST_FREE of LaunchABI.h): every resident copy
 * sharing a byte with the range is downloaded if it is newer than the host's
 * (READ, WRITE) and then marked stale (WRITE), or dropped without a download
 * (FREE). (NULL, UINT64_MAX) is every resident copy. Never creates the
 * Vulkan context: with nothing resident it returns at once. */
void sluice_rt_vk_host_access(void *data, uint64_t bytes, uint64_t access);
/* Transfers of memref arguments since the process started (uploads: host ->
 * device copies; downloads: device -> host, after a launch or for
 * sluice_rt_vk_host_access), and what the residency table holds now. */
struct sluice_rt_vk_transfers {
  uint64_t uploads, upload_bytes;
  uint64_t downloads, download_bytes;
  uint64_t resident_buffers, resident_bytes;
  /* Launches recorded into the batch; the submits of its pieces (the first
   * launch alone, then pieces that double up to 32 launches, queued while
   * the host records the next); and the batch's waits (each one for every
   * launch recorded before it). */
  uint64_t batched_launches, batch_submits, batch_waits;
};
void sluice_rt_vk_transfer_counts(struct sluice_rt_vk_transfers *out);
/* Waits for every launch recorded but not yet submitted: launches whose
 * memrefs all stay resident are batched and submitted together at the next
 * host access to a resident range, the next launch that copies back, a full
 * batch, or this call (registered with atexit). */
void sluice_rt_vk_synchronize(void);
/* The selected device's name, creating the context if needed; null when no
 * Vulkan device is usable. */
const char *sluice_rt_vk_device_name(void);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_LAUNCH_H */
