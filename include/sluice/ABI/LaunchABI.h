/*===- LaunchABI.h - The host-launch ABI of generated code ------*- C -*-===//
 *
 * Host code that launches kernels (`gpu.launch_func`) lowers, for every
 * backend, to the same calls (runtime/include/sluice/runtime/launch/
 * host_launch.h): begin, one call per kernel operand in order, end. Only the
 * kernel handle given to begin differs per backend. This header is what the
 * lowering (lib/Conversion/GPULaunchToRuntime) and the runtime's wrappers
 * share: the backend ids, the access flags and the function names.
 *
 * Residency (docs/spirv-backend.md, "Running on Vulkan"): a GPU backend may
 * keep a memref operand's device copy between launches when the launch marks
 * it SLUICE_LAUNCH_RESIDENT. The host code then promises to call
 * sluice_rt_host_access before it touches any byte of the operand's memory
 * (to read, to write, or to free it) after a launch, so that the runtime
 * downloads the device copy only when the host reads it and uploads only
 * what the host wrote since the last launch.
 *
 *===--------------------------------------------------------------------===*/
#ifndef SLUICE_ABI_LAUNCHABI_H
#define SLUICE_ABI_LAUNCHABI_H

/* The adapter that runs a launch; the kernel handle of begin is
 * - CPU: the block function `void (*)(void *record, int64_t block)` of
 *   convert-gpu-to-cpu, handle bytes 0;
 * - VULKAN: the SPIR-V words of the kernel's module, handle bytes = 4 * words;
 * - HIP: the NUL-terminated HIP C++ source of the kernel's gpu.module (the
 *   prelude and every kernel of the module, --sluice-to-hip's text), handle
 *   bytes = strlen + 1; the kernel name of begin is then the kernel's
 *   extern "C" symbol `<gpu.module>_<gpu.func>` (HIPABI.h). A memref
 *   operand is passed to the kernel as the pointer aligned + offset *
 *   element_bytes followed by the sizes (int64_t) of the dimensions its
 *   access flags mark SLUICE_LAUNCH_DYNAMIC_DIM, a scalar by value (index
 *   as int64_t); workgroup memory is static in the source (no
 *   workgroup_memory call), private arrays are local (no scratch calls). */
enum sluice_launch_backend {
  SLUICE_LAUNCH_CPU = 1,
  SLUICE_LAUNCH_VULKAN = 2,
  SLUICE_LAUNCH_HIP = 3
};

/* Access flags of a memref operand, inferred from the kernel. */
#define SLUICE_LAUNCH_READ 1u  /* the kernel may read the operand */
#define SLUICE_LAUNCH_WRITE 2u /* the kernel may write it */
/* The host code brackets its own uses of the operand's memory with
 * sluice_rt_host_access, so the device copy may stay resident: it is
 * uploaded only when stale and downloaded only when the host asks. Without
 * it, READ copies in before and WRITE copies out after every launch. */
#define SLUICE_LAUNCH_RESIDENT 4u
/* Dimension d (outermost 0, d < 32) of the memref operand is dynamic in the
 * kernel's type. A HIP kernel takes a memref as its pointer followed by one
 * int64_t per dynamic dimension (static ones are compiled in), so the HIP
 * wrapper passes exactly the sizes of the dimensions marked here; the CPU
 * and Vulkan wrappers ignore these bits. */
#define SLUICE_LAUNCH_DYNAMIC_DIM_SHIFT 8
#define SLUICE_LAUNCH_DYNAMIC_DIM(d) (1ull << (SLUICE_LAUNCH_DYNAMIC_DIM_SHIFT + (d)))
#define SLUICE_LAUNCH_ACCESS_MASK 7u /* READ | WRITE | RESIDENT */

/* The access flags of sluice_rt_host_access(data, bytes, access), what the
 * host is about to do with the bytes [data, data + bytes):
 * - READ: device copies newer than the host's are downloaded first;
 * - WRITE: the same, and the device copies become stale (the next launch
 *   that reads them uploads them again); a partial write keeps the other
 *   bytes, hence the download;
 * - FREE: the memory is freed; its device copies are dropped, not
 *   downloaded. Not combined with READ or WRITE.
 * The range (NULL, UINT64_MAX) is every resident copy (what an unknown
 * callee may touch). On the CPU backend there is nothing to do. */
#define SLUICE_HOST_READ 1u
#define SLUICE_HOST_WRITE 2u
#define SLUICE_HOST_FREE 4u

#define SLUICE_RT_SYM_LAUNCH_BEGIN "sluice_rt_launch_begin"
#define SLUICE_RT_SYM_LAUNCH_WORKERS "sluice_rt_launch_workers"
#define SLUICE_RT_SYM_LAUNCH_WORKGROUP_MEMORY "sluice_rt_launch_workgroup_memory"
#define SLUICE_RT_SYM_LAUNCH_MEMREF "sluice_rt_launch_memref"
#define SLUICE_RT_SYM_LAUNCH_MEMREF_DIM "sluice_rt_launch_memref_dim"
#define SLUICE_RT_SYM_LAUNCH_SCALAR "sluice_rt_launch_scalar"
#define SLUICE_RT_SYM_LAUNCH_SCRATCH "sluice_rt_launch_scratch"
#define SLUICE_RT_SYM_LAUNCH_END "sluice_rt_launch_end"
#define SLUICE_RT_SYM_HOST_ACCESS "sluice_rt_host_access"

#endif /* SLUICE_ABI_LAUNCHABI_H */
