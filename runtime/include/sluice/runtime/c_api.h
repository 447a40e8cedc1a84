/*===- c_api.h - C ABI of the Sluice runtime for generated code -----*- C -*-===
 *
 * Three parts, all plain C:
 *  1. Stage kernels (sluice/runtime/device/kernel_abi.h).
 *  2. The coroutine frame arena of the current worker
 *     (sluice/runtime/arena/coro_c_api.h).
 *  3. Running a program descriptor on the CPU device
 *     (sluice/runtime/wavefront/c_api_program.h).
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_C_API_H
#define SLUICE_RUNTIME_C_API_H

#include "sluice/runtime/arena/coro_c_api.h"
#include "sluice/runtime/device/kernel_abi.h"
#include "sluice/runtime/wavefront/c_api_program.h"

#endif /* SLUICE_RUNTIME_C_API_H */
