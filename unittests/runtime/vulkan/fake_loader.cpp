//===- fake_loader.cpp - A libvulkan.so.1 that injects driver faults ------===//
//
// Built as libvulkan.so.1 in a directory of its own; a test executable whose
// runpath names that directory gets it from the runtime's
// dlopen("libvulkan.so.1"). It forwards every call to the real loader
// (SLUICE_REAL_VULKAN_LOADER) except what SLUICE_FAKE_VULKAN asks it to
// change, read at each call, so one process can run several scenarios.
// SLUICE_FAKE_VULKAN is a comma-separated list of
//   hide:NAME        vkGetInstanceProcAddr / vkGetDeviceProcAddr return null
//   fail:NAME=RESULT the call returns the VkResult RESULT (after the real
//                    call for vkWaitForFences, so no work is left in flight)
//   devices:0        vkEnumeratePhysicalDevices reports no device
//   no-compute       no queue family offers compute
//   api:1.0          every device reports Vulkan 1.0
//   no-memory-types  no memory type can back a buffer
//   max-storage-buffers:N, max-storage-range:N   device limits reported as N
// fail: applies to vkCreateBuffer, vkAllocateMemory, vkCreateShaderModule,
// vkCreateCommandPool and vkWaitForFences; while vkWaitForFences fails,
// vkGetFenceStatus reports VK_NOT_READY (a device that hangs, then is lost).
//
//===----------------------------------------------------------------------===//

#include <vulkan/vulkan.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace {

void *realLoader() {
  static void *handle = [] {
    void *h = dlopen(SLUICE_REAL_VULKAN_LOADER, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      std::fprintf(stderr, "fake Vulkan loader: cannot open %s: %s\n",
                   SLUICE_REAL_VULKAN_LOADER, dlerror());
      std::abort();
    }
    return h;
  }();
  return handle;
}

template <typename Fn> Fn real(const char *name) {
  return reinterpret_cast<Fn>(dlsym(realLoader(), name));
}

// The value of directive `key` ("hide:vkFoo" -> "", "fail:vkFoo" -> "-4"),
// or none when SLUICE_FAKE_VULKAN does not hold it.
std::optional<std::string> directive(const std::string &key) {
  const char *text = std::getenv("SLUICE_FAKE_VULKAN");
  if (!text)
    return std::nullopt;
  std::string list = text;
  size_t at = 0;
  while (at <= list.size()) {
    size_t end = list.find(',', at);
    if (end == std::string::npos)
      end = list.size();
    std::string item = list.substr(at, end - at);
    if (item == key)
      return std::string();
    if (item.compare(0, key.size(), key) == 0 && item.size() > key.size() &&
        (item[key.size()] == '=' || item[key.size()] == ':'))
      return item.substr(key.size() + 1);
    at = end + 1;
  }
  return std::nullopt;
}

std::optional<VkResult> injectedFailure(const char *call) {
  std::optional<std::string> value = directive(std::string("fail:") + call);
  if (!value)
    return std::nullopt;
  return static_cast<VkResult>(std::atoi(value->c_str()));
}

bool hidden(const char *name) {
  return directive(std::string("hide:") + name).has_value();
}

VKAPI_ATTR VkResult VKAPI_CALL fakeEnumeratePhysicalDevices(
    VkInstance instance, uint32_t *count, VkPhysicalDevice *devices) {
  if (directive("devices:0")) {
    *count = 0;
    return VK_SUCCESS;
  }
  return real<PFN_vkEnumeratePhysicalDevices>("vkEnumeratePhysicalDevices")(
      instance, count, devices);
}

VKAPI_ATTR void VKAPI_CALL fakeGetPhysicalDeviceProperties(
    VkPhysicalDevice physical, VkPhysicalDeviceProperties *properties) {
  real<PFN_vkGetPhysicalDeviceProperties>("vkGetPhysicalDeviceProperties")(
      physical, properties);
  if (directive("api:1.0"))
    properties->apiVersion = VK_API_VERSION_1_0;
  if (auto n = directive("max-storage-buffers"))
    properties->limits.maxPerStageDescriptorStorageBuffers =
        static_cast<uint32_t>(std::strtoul(n->c_str(), nullptr, 10));
  if (auto n = directive("max-storage-range"))
    properties->limits.maxStorageBufferRange =
        static_cast<uint32_t>(std::strtoul(n->c_str(), nullptr, 10));
}

VKAPI_ATTR void VKAPI_CALL fakeGetPhysicalDeviceQueueFamilyProperties(
    VkPhysicalDevice physical, uint32_t *count,
    VkQueueFamilyProperties *families) {
  real<PFN_vkGetPhysicalDeviceQueueFamilyProperties>(
      "vkGetPhysicalDeviceQueueFamilyProperties")(physical, count, families);
  if (families && directive("no-compute"))
    for (uint32_t i = 0; i < *count; ++i)
      families[i].queueFlags &= ~VkQueueFlags(VK_QUEUE_COMPUTE_BIT);
}

VKAPI_ATTR VkResult VKAPI_CALL
fakeCreateBuffer(VkDevice device, const VkBufferCreateInfo *info,
                 const VkAllocationCallbacks *allocator, VkBuffer *buffer) {
  if (auto result = injectedFailure("vkCreateBuffer"))
    return *result;
  return real<PFN_vkCreateBuffer>("vkCreateBuffer")(device, info, allocator,
                                                    buffer);
}

VKAPI_ATTR void VKAPI_CALL
fakeGetBufferMemoryRequirements(VkDevice device, VkBuffer buffer,
                                VkMemoryRequirements *requirements) {
  real<PFN_vkGetBufferMemoryRequirements>("vkGetBufferMemoryRequirements")(
      device, buffer, requirements);
  if (directive("no-memory-types"))
    requirements->memoryTypeBits = 0;
}

VKAPI_ATTR VkResult VKAPI_CALL
fakeAllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
                   const VkAllocationCallbacks *allocator,
                   VkDeviceMemory *memory) {
  if (auto result = injectedFailure("vkAllocateMemory"))
    return *result;
  return real<PFN_vkAllocateMemory>("vkAllocateMemory")(device, info,
                                                        allocator, memory);
}

VKAPI_ATTR VkResult VKAPI_CALL
fakeCreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo *info,
                       const VkAllocationCallbacks *allocator,
                       VkShaderModule *module) {
  if (auto result = injectedFailure("vkCreateShaderModule"))
    return *result;
  return real<PFN_vkCreateShaderModule>("vkCreateShaderModule")(
      device, info, allocator, module);
}

VKAPI_ATTR VkResult VKAPI_CALL
fakeCreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
                      const VkAllocationCallbacks *allocator,
                      VkCommandPool *pool) {
  if (auto result = injectedFailure("vkCreateCommandPool"))
    return *result;
  return real<PFN_vkCreateCommandPool>("vkCreateCommandPool")(device, info,
                                                              allocator, pool);
}

VKAPI_ATTR VkResult VKAPI_CALL fakeGetFenceStatus(VkDevice device,
                                                  VkFence fence) {
  if (injectedFailure("vkWaitForFences"))
    return VK_NOT_READY;
  return real<PFN_vkGetFenceStatus>("vkGetFenceStatus")(device, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL fakeWaitForFences(VkDevice device,
                                                 uint32_t count,
                                                 const VkFence *fences,
                                                 VkBool32 all,
                                                 uint64_t timeout) {
  VkResult result = real<PFN_vkWaitForFences>("vkWaitForFences")(
      device, count, fences, all, timeout);
  if (auto injected = injectedFailure("vkWaitForFences"))
    return *injected;
  return result;
}

PFN_vkVoidFunction intercepted(const char *name) {
  struct Entry {
    const char *name;
    PFN_vkVoidFunction function;
  };
#define SLUICE_FAKE_ENTRY(call, fake)                                          \
  Entry{#call, reinterpret_cast<PFN_vkVoidFunction>(&fake)}
  static const Entry entries[] = {
      SLUICE_FAKE_ENTRY(vkEnumeratePhysicalDevices,
                        fakeEnumeratePhysicalDevices),
      SLUICE_FAKE_ENTRY(vkGetPhysicalDeviceProperties,
                        fakeGetPhysicalDeviceProperties),
      SLUICE_FAKE_ENTRY(vkGetPhysicalDeviceQueueFamilyProperties,
                        fakeGetPhysicalDeviceQueueFamilyProperties),
      SLUICE_FAKE_ENTRY(vkCreateBuffer, fakeCreateBuffer),
      SLUICE_FAKE_ENTRY(vkGetBufferMemoryRequirements,
                        fakeGetBufferMemoryRequirements),
      SLUICE_FAKE_ENTRY(vkAllocateMemory, fakeAllocateMemory),
      SLUICE_FAKE_ENTRY(vkCreateShaderModule, fakeCreateShaderModule),
      SLUICE_FAKE_ENTRY(vkCreateCommandPool, fakeCreateCommandPool),
      SLUICE_FAKE_ENTRY(vkGetFenceStatus, fakeGetFenceStatus),
      SLUICE_FAKE_ENTRY(vkWaitForFences, fakeWaitForFences),
  };
#undef SLUICE_FAKE_ENTRY
  for (const Entry &entry : entries)
    if (std::strcmp(entry.name, name) == 0)
      return entry.function;
  return nullptr;
}

} // namespace

extern "C" {

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device,
                                                             const char *name);

// Exported like the real loader's; the runtime fetches everything else
// through it.
__attribute__((visibility("default"))) VKAPI_ATTR PFN_vkVoidFunction
    VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
  if (hidden(name))
    return nullptr;
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0)
    return reinterpret_cast<PFN_vkVoidFunction>(&vkGetDeviceProcAddr);
  if (instance != VK_NULL_HANDLE)
    if (PFN_vkVoidFunction fake = intercepted(name))
      return fake;
  return real<PFN_vkGetInstanceProcAddr>("vkGetInstanceProcAddr")(instance,
                                                                  name);
}

__attribute__((visibility("default"))) VKAPI_ATTR PFN_vkVoidFunction
    VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name) {
  if (hidden(name))
    return nullptr;
  if (PFN_vkVoidFunction fake = intercepted(name))
    return fake;
  return real<PFN_vkGetDeviceProcAddr>("vkGetDeviceProcAddr")(device, name);
}

} // extern "C"
