//===- vulkan_internal.h - State shared by the Vulkan layer -----*- C++ -*-===//
//
// Private to runtime/device/vulkan: the entry point table that the loader
// fills (vulkan_loader.cpp), the context state that device selection sets up
// (vulkan_device_selection.cpp), and what buffers and kernels
// (vulkan_context.cpp) and streams (vulkan_stream.cpp) share. The public
// header vulkan.h does not include Vulkan; this one does, without prototypes.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_INTERNAL_H
#define SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_INTERNAL_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "sluice/runtime/device/vulkan/vulkan.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

namespace sluice::runtime::vulkan {
namespace detail {

#define SLUICE_VK_GLOBAL_FNS(X)                                                \
  X(vkCreateInstance)                                                          \
  X(vkEnumerateInstanceVersion)

// vkGetPhysicalDeviceProperties2 and vkGetPhysicalDeviceFeatures2 are core in
// Vulkan 1.1, the version the instance is created for (openLoader refuses an
// older loader); they are called only for devices of 1.1 or later.
#define SLUICE_VK_INSTANCE_FNS(X)                                              \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures)                                               \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

#define SLUICE_VK_DEVICE_FNS(X)                                                \
  X(vkDestroyDevice)                                                           \
  X(vkGetDeviceQueue)                                                          \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkUnmapMemory)                                                             \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkResetCommandBuffer)                                                      \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkResetFences)                                                             \
  X(vkWaitForFences)                                                           \
  X(vkGetFenceStatus)                                                          \
  X(vkQueueSubmit)                                                             \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkResetDescriptorPool)                                                     \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateQueryPool)                                                         \
  X(vkDestroyQueryPool)                                                        \
  X(vkGetQueryPoolResults)                                                     \
  X(vkCmdResetQueryPool)                                                       \
  X(vkCmdWriteTimestamp)                                                       \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdPushConstants)                                                        \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCmdFillBuffer)                                                           \
  X(vkCmdDispatchBase)                                                          \
  X(vkCmdDispatchIndirect)

struct Functions {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define SLUICE_VK_DECLARE(name) PFN_##name name = nullptr;
  SLUICE_VK_GLOBAL_FNS(SLUICE_VK_DECLARE)
  SLUICE_VK_INSTANCE_FNS(SLUICE_VK_DECLARE)
  SLUICE_VK_DEVICE_FNS(SLUICE_VK_DECLARE)
#undef SLUICE_VK_DECLARE
  // Core in 1.2: null on a device without bufferDeviceAddress.
  PFN_vkGetBufferDeviceAddress vkGetBufferDeviceAddress = nullptr;
};

// Non-dispatchable handles are stored as uint64_t in the public header, which
// must not include Vulkan; they are pointers on 64-bit targets and integers on
// 32-bit ones.
template <typename Handle> Handle toHandle(uint64_t value) {
  if constexpr (std::is_pointer_v<Handle>)
    return reinterpret_cast<Handle>(static_cast<uintptr_t>(value));
  else
    return static_cast<Handle>(value);
}
template <typename Handle> uint64_t fromHandle(Handle handle) {
  if constexpr (std::is_pointer_v<Handle>)
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
  else
    return static_cast<uint64_t>(handle);
}

inline Status vkError(const char *call, VkResult result) {
  return Status::error(ErrorKind::DeviceError,
                       std::string(call) + " failed with VkResult " +
                           std::to_string(static_cast<int>(result)));
}

// Everything the context owns, in destruction order from the bottom up. It
// is a plain struct outside Context so the helpers of every file can take it.
struct ContextState {
  void *loader = nullptr;
  Functions fn;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  uint32_t timestampValidBits = 0;
  VkPhysicalDeviceMemoryProperties memory{};
  VkPhysicalDeviceLimits limits{};
  // SLUICE_VULKAN_SPLIT_GROUPS_X: one-dimensional grids split into dispatches
  // of at most this many workgroups (0: maxComputeWorkGroupCount.x), so tests
  // exercise the split on any device.
  uint64_t splitGroupsX = 0;
  // The instance's API version: the loader's, at most 1.3, or lower when
  // SLUICE_VULKAN_API_VERSION asks (to run as an older driver would). The
  // device runs min(this, its own version), which bounds the SPIR-V
  // versions it accepts.
  uint32_t instanceApiVersion = 0;
  DeviceInfo info;
  // vkQueueSubmit needs the queue externally synchronized across streams.
  std::mutex queueMutex;

  // Destroys the device and the instance, then closes the loader.
  ~ContextState();
};

// vulkan_loader.cpp. Opens libvulkan.so.1 and fetches the global entry
// points; fails unless the loader offers Vulkan 1.1.
Status openLoader(ContextState &state);
// The instance's entry points, once state.instance exists.
Status loadInstanceFunctions(ContextState &state);
// The device's entry points, once state.device exists; vkDestroyDevice first.
Status loadDeviceFunctions(ContextState &state);

// Points the storage-buffer bindings `used` of `set` at those buffers of
// `bindings` (the descriptor writes of a Stream's and a Recording's dispatch).
struct DescriptorWrites {
  static void write(const Functions &fn, VkDevice device, VkDescriptorSet set,
                    std::span<Buffer *const> bindings,
                    std::span<const uint32_t> used);
};

// Records a barrier: every access in `srcAccess` of the stages `src` before
// it, every access in `dstAccess` of the stages `dst` after it (a Stream's
// and a Recording's).
inline void memoryBarrier(const Functions &fn, VkCommandBuffer commands,
                          VkPipelineStageFlags src, VkAccessFlags srcAccess,
                          VkPipelineStageFlags dst, VkAccessFlags dstAccess) {
  VkMemoryBarrier memory{};
  memory.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  memory.srcAccessMask = srcAccess;
  memory.dstAccessMask = dstAccess;
  fn.vkCmdPipelineBarrier(commands, src, dst, 0, 1, &memory, 0, nullptr, 0,
                          nullptr);
}

} // namespace detail

struct Context::State : detail::ContextState {};

} // namespace sluice::runtime::vulkan

#endif // SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_INTERNAL_H
