/*===- LaunchABI.h - The host-launch ABI of generated code ------*- C -*-===//
 *
 * Host code that launches kernels (`gpu.launch_func`) lowers, for every
 * backend, to the same calls (runtime/include/sluice/runtime/launch/
 * host_launch.h): begin, one call per kernel operand in order, end. Only the
 * kernel handle given to begin differs per backend. This header is what the
 * lowering (lib/Conversion/GPULaunchToRuntime) and the runtime's wrappers
 * share: the backend ids, the access flags and the function names.
 *
 *===--------------------------------------------------------------------===*/
#ifndef SLUICE_ABI_LAUNCHABI_H
#define SLUICE_ABI_LAUNCHABI_H

/* The adapter that runs a launch; the kernel handle of begin is
 * - CPU: the block function `void (*)(void *record, int64_t block)` of
 *   convert-gpu-to-cpu, handle bytes 0;
 * - VULKAN: the SPIR-V words of the kernel's module, handle bytes = 4 * words. */
enum sluice_launch_backend {
  SLUICE_LAUNCH_CPU = 1,
  SLUICE_LAUNCH_VULKAN = 2
};

/* Access flags of a memref operand, inferred from the kernel. */
#define SLUICE_LAUNCH_READ 1u  /* the kernel may read the operand */
#define SLUICE_LAUNCH_WRITE 2u /* the kernel may write it */

#define SLUICE_RT_SYM_LAUNCH_BEGIN "sluice_rt_launch_begin"
#define SLUICE_RT_SYM_LAUNCH_WORKERS "sluice_rt_launch_workers"
#define SLUICE_RT_SYM_LAUNCH_WORKGROUP_MEMORY "sluice_rt_launch_workgroup_memory"
#define SLUICE_RT_SYM_LAUNCH_MEMREF "sluice_rt_launch_memref"
#define SLUICE_RT_SYM_LAUNCH_MEMREF_DIM "sluice_rt_launch_memref_dim"
#define SLUICE_RT_SYM_LAUNCH_SCALAR "sluice_rt_launch_scalar"
#define SLUICE_RT_SYM_LAUNCH_SCRATCH "sluice_rt_launch_scratch"
#define SLUICE_RT_SYM_LAUNCH_END "sluice_rt_launch_end"

#endif /* SLUICE_ABI_LAUNCHABI_H */
