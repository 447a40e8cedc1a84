/*===- hip_launch.h - The HIP wrapper of the launch ABI -----------*- C -*-===//
 *
 * sluice_rt_launch_* with SLUICE_LAUNCH_HIP forward here. A kernel is its
 * extern "C" symbol in a HIP C++ source (one gpu.module), compiled once per
 * source on the process's driver (hip_driver.h: NVRTC on NVIDIA, hiprtc on
 * AMD, through the code-object cache) and kept by source address. Each
 * memref operand lives in device memory, kept per host range in the
 * residency table of launch/residency.h, with the Vulkan wrapper's rules:
 * without SLUICE_LAUNCH_RESIDENT a READ operand is copied in before the
 * launch and a WRITE one back after it; with it the device copy stays and
 * sluice_rt_hip_host_access brings it back. The kernel parameters are, in
 * call order, per memref its device pointer and one int64_t per dimension
 * marked SLUICE_LAUNCH_DYNAMIC_DIM, per scalar its value. Launches whose
 * operands all stay resident are not waited for (one stream keeps them in
 * order); sluice_rt_hip_synchronize waits. Errors print "sluice: hip:
 * <message>" and exit(1). SLUICE_HIP_TIMING=1 waits for every launch and
 * prints "sluice: hip: @kernel grid GXxGYxGZ block BXxBYxBZ: gpu <us> us,
 * copies in <bytes> bytes / out <bytes> bytes".
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_DEVICE_HIP_HIP_LAUNCH_H
#define SLUICE_RUNTIME_DEVICE_HIP_HIP_LAUNCH_H

#include "sluice/ABI/LaunchABI.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `source` (NUL-terminated, `bytes` = strlen + 1) must stay valid for the
 * life of the process: modules are cached by its address. */
void sluice_rt_hip_launch_begin(const char *source, uint64_t bytes,
                                const char *kernel);
void sluice_rt_hip_launch_workgroup_memory(uint64_t bytes);
/* A memref of `bytes` bytes at `data` (access: READ, WRITE, RESIDENT and
 * the DYNAMIC_DIM bits), then its sizes: `sizes[d]` for d < rank. */
void sluice_rt_hip_launch_memref(void *data, uint64_t bytes, uint64_t access,
                                 uint64_t rank, const int64_t *sizes);
void sluice_rt_hip_launch_scalar(uint64_t value, uint64_t bytes);
void sluice_rt_hip_launch_end(uint64_t gx, uint64_t gy, uint64_t gz,
                              uint64_t bx, uint64_t by, uint64_t bz);
void sluice_rt_hip_host_access(void *data, uint64_t bytes, uint64_t access);
void sluice_rt_hip_synchronize(void);
/* Transfers of memref operands since the process started, and the table. */
struct sluice_rt_hip_transfers {
  uint64_t uploads, upload_bytes, downloads, download_bytes;
  uint64_t resident_buffers, resident_bytes;
  uint64_t deferred_launches; /* launches not waited for at their end */
};
void sluice_rt_hip_transfer_counts(struct sluice_rt_hip_transfers *out);
/* The device's description ("nvidia 'NVIDIA H200' (sm_90)"), opening the
 * driver if needed; null when there is none. */
const char *sluice_rt_hip_device_name(void);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_RUNTIME_DEVICE_HIP_HIP_LAUNCH_H */
