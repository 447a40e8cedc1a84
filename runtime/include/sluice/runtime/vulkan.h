//===- vulkan.h - Forwards to device/vulkan/vulkan.h ------------*- C++ -*-===//
//
// The Vulkan compute context is sluice/runtime/device/vulkan/vulkan.h. This
// path remains for the launch ABI (runtime/device/vulkan/vulkan_launch.cpp)
// until that includes the new path; nothing else may include it.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_VULKAN_H
#define SLUICE_RUNTIME_VULKAN_H

#include "sluice/runtime/device/vulkan/vulkan.h"

#endif // SLUICE_RUNTIME_VULKAN_H
