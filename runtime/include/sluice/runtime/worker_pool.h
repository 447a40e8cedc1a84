//===- worker_pool.h - Forwards to device/worker_pool.h ---------*- C++ -*-===//
//
// The worker pool is sluice/runtime/device/worker_pool.h. This path remains
// for the CPU block launcher (runtime/launch/launch.cpp) until that includes
// the new path; nothing else may include it.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WORKER_POOL_H
#define SLUICE_RUNTIME_WORKER_POOL_H

#include "sluice/runtime/device/worker_pool.h"

#endif // SLUICE_RUNTIME_WORKER_POOL_H
