/*===- HIPABI.h - The parameter ABI of the HIP kernels ----------*- C -*-===//
 *
 * What the HIP backend (lib/Conversion/GPUToEmitC, docs/hip-backend.md)
 * emits for every gpu.func kernel and what a HIP or CUDA host passes it.
 * Plain C, no includes, shared by lib/ and runtime/device/hip.
 *
 * Kernel symbol: `extern "C" __global__ void <gpu.module>_<gpu.func>(...)`,
 * so equally named kernels of two modules do not clash.
 *
 * Parameters, one or more per gpu.func argument, in argument order:
 * - `index`                  -> int64_t, by value;
 * - integer / float scalar   -> its C type (int8_t .. int64_t, float,
 *                               double; i1 -> bool), by value;
 * - memref<d0 x .. x T>      -> one pointer `T *` to element [0, .., 0]
 *                               (the aligned pointer plus the offset; the
 *                               memory space of a global memref is ignored),
 *                               FOLLOWED BY one int64_t per dynamic dimension,
 *                               in dimension order. Static dimensions are
 *                               constants of the source. Row-major, identity
 *                               layout only. i1 elements are uint8_t, index
 *                               elements int64_t.
 * Workgroup attributions are `__shared__` arrays of the kernel (no dynamic
 * shared memory), private attributions and memref.alloca local arrays.
 *
 * Wave stage kernels (KernelABI.h) take the arguments of sluice_kernel_arg
 * in this form (`count` is an int64_t, every other argument a pointer,
 * followed by its length where it is dynamic) and are launched with
 * SLUICE_KERNEL_BLOCK_LANES threads per block on a 1-D grid. The body of a
 * stage kernel `S` is also `__device__ void S_body(<the same parameters>,
 * int64_t invocation)`, which `S` calls with its global invocation index
 * blockIdx.x * blockDim.x + threadIdx.x.
 *
 *===--------------------------------------------------------------------===*/
#ifndef SLUICE_ABI_HIPABI_H
#define SLUICE_ABI_HIPABI_H

/* Bumped whenever anything above changes. */
#define SLUICE_HIP_ABI_VERSION 1

/* The artifact section of the HIP source (UTF-8 text, one translation unit
 * for every gpu.module) and the suffix of a stage kernel's body function. */
#define SLUICE_HIP_SECTION "hip"
#define SLUICE_HIP_BODY_SUFFIX "_body"

#endif /* SLUICE_ABI_HIPABI_H */
