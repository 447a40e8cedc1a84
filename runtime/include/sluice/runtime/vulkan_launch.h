/*===- vulkan_launch.h - C ABI launching barrier kernels on Vulkan -*- C
 *-*-===//
 *
 * Generated host code launches one SPIR-V kernel as: begin, then one arg or
 * scalar call per kernel argument in order (binding i is the i-th call), then
 * end. A process-wide Vulkan context is created on first use; the launch state
 * is per thread. Memref arguments are copied into device buffers before the
 * launch and back after it (buffers are cached per (pointer, size)). Errors
 * print "sluice: vulkan: <message>" and exit(1): generated code has no error
 * path. SLUICE_VULKAN_TIMING=1 prints one line of GPU and copy time per launch.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_VULKAN_LAUNCH_H
#define SLUICE_RUNTIME_VULKAN_LAUNCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `spirv` must stay valid for the life of the process: kernels are cached by
 * (spirv pointer, entry). */
void sluice_rt_vk_launch_begin(const uint32_t *spirv, uint64_t words,
                               const char *entry);
/* A memref: `bytes` bytes at `data` are copied in before and out after. */
void sluice_rt_vk_launch_arg(void *data, uint64_t bytes);
/* A scalar: its low `bytes` bytes (1, 2, 4 or 8) as a one-member buffer. */
void sluice_rt_vk_launch_scalar(uint64_t value, uint64_t bytes);
/* Dispatches gx*gy*gz workgroups; (bx, by, bz) must equal the entry point's
 * LocalSize. Returns when the results are back in host memory. */
void sluice_rt_vk_launch_end(uint64_t gx, uint64_t gy, uint64_t gz, uint64_t bx,
                             uint64_t by, uint64_t bz);
/* The selected device's name, creating the context if needed; null when no
 * Vulkan device is usable. */
const char *sluice_rt_vk_device_name(void);

#ifdef __cplusplus
}
#endif

#endif /* SLUICE_RUNTIME_VULKAN_LAUNCH_H */
