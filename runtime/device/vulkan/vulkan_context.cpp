//===- vulkan_context.cpp - Vulkan compute context of the runtime ---------===//
//
// The loader is opened with dlopen and every entry point is fetched through
// vkGetInstanceProcAddr / vkGetDeviceProcAddr into a table, so the runtime has
// no link-time dependency on Vulkan.
//
//===----------------------------------------------------------------------===//

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "sluice/runtime/device/vulkan/vulkan.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <type_traits>

namespace sluice::runtime::vulkan {
namespace {

#define SLUICE_VK_GLOBAL_FNS(X)                                                \
  X(vkCreateInstance)                                                          \
  X(vkEnumerateInstanceVersion)

#define SLUICE_VK_INSTANCE_FNS(X)                                              \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures)                                               \
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
  X(vkCmdDispatchBase)

struct Functions {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define SLUICE_VK_DECLARE(name) PFN_##name name = nullptr;
  SLUICE_VK_GLOBAL_FNS(SLUICE_VK_DECLARE)
  SLUICE_VK_INSTANCE_FNS(SLUICE_VK_DECLARE)
  SLUICE_VK_DEVICE_FNS(SLUICE_VK_DECLARE)
#undef SLUICE_VK_DECLARE
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

Status vkError(const char *call, VkResult result) {
  return Status::error(ErrorKind::DeviceError,
                       std::string(call) + " failed with VkResult " +
                           std::to_string(static_cast<int>(result)));
}

const char *deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return "discrete";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return "integrated";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return "virtual";
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return "cpu";
  default:
    return "other";
  }
}

// Lower is preferred when SLUICE_VULKAN_DEVICE does not choose.
int deviceTypeRank(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return 3;
  default:
    return 4;
  }
}

std::string lowercase(std::string text) {
  for (char &c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Everything the context owns, in destruction order from the bottom up. It
// is a plain struct outside Context so the helpers below can take it.
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
  DeviceInfo info;
  // vkQueueSubmit needs the queue externally synchronized across streams.
  std::mutex queueMutex;

  ~ContextState() {
    if (device != VK_NULL_HANDLE)
      fn.vkDestroyDevice(device, nullptr);
    if (instance != VK_NULL_HANDLE)
      fn.vkDestroyInstance(instance, nullptr);
    if (loader)
      dlclose(loader);
  }
};

Status openInstance(ContextState &state) {
  dlerror();
  state.loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!state.loader) {
    const char *reason = dlerror();
    return Status::error(
        ErrorKind::DeviceUnavailable,
        std::string("cannot open the Vulkan loader libvulkan.so.1 (") +
            (reason ? reason : "unknown reason") +
            "); install libvulkan1 and a driver such as mesa-vulkan-drivers");
  }
  Functions &fn = state.fn;
  fn.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      dlsym(state.loader, "vkGetInstanceProcAddr"));
  if (!fn.vkGetInstanceProcAddr)
    return Status::error(ErrorKind::DeviceUnavailable,
                         "the Vulkan loader libvulkan.so.1 does not export "
                         "vkGetInstanceProcAddr");
#define SLUICE_VK_LOAD_GLOBAL(name)                                            \
  fn.name = reinterpret_cast<PFN_##name>(                                      \
      fn.vkGetInstanceProcAddr(VK_NULL_HANDLE, #name));
  SLUICE_VK_GLOBAL_FNS(SLUICE_VK_LOAD_GLOBAL)
#undef SLUICE_VK_LOAD_GLOBAL
  if (!fn.vkCreateInstance)
    return Status::error(ErrorKind::DeviceUnavailable,
                         "the Vulkan loader has no vkCreateInstance");
  // vkEnumerateInstanceVersion is absent from 1.0 loaders, which cannot give
  // a 1.1 instance.
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (fn.vkEnumerateInstanceVersion)
    fn.vkEnumerateInstanceVersion(&loaderVersion);
  if (loaderVersion < VK_API_VERSION_1_1)
    return Status::error(
        ErrorKind::DeviceUnavailable,
        "the Vulkan loader supports only Vulkan " +
            std::to_string(VK_API_VERSION_MAJOR(loaderVersion)) + "." +
            std::to_string(VK_API_VERSION_MINOR(loaderVersion)) +
            "; Sluice needs 1.1");

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "sluice";
  app.pEngineName = "sluice-runtime";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  create.pApplicationInfo = &app;
  VkResult result = fn.vkCreateInstance(&create, nullptr, &state.instance);
  if (result != VK_SUCCESS) {
    state.instance = VK_NULL_HANDLE;
    if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
      return Status::error(ErrorKind::DeviceUnavailable,
                           "no Vulkan driver is installed (vkCreateInstance "
                           "returned VK_ERROR_INCOMPATIBLE_DRIVER); install a "
                           "driver such as mesa-vulkan-drivers");
    return vkError("vkCreateInstance", result);
  }
#define SLUICE_VK_LOAD_INSTANCE(name)                                          \
  fn.name = reinterpret_cast<PFN_##name>(                                      \
      fn.vkGetInstanceProcAddr(state.instance, #name));                        \
  if (!fn.name)                                                                \
    return Status::error(ErrorKind::DeviceUnavailable,                         \
                         "the Vulkan loader has no " #name);
  SLUICE_VK_INSTANCE_FNS(SLUICE_VK_LOAD_INSTANCE)
#undef SLUICE_VK_LOAD_INSTANCE
  return Status::success();
}

Status enumerateDevices(ContextState &state,
                        std::vector<VkPhysicalDevice> &out) {
  uint32_t count = 0;
  VkResult result =
      state.fn.vkEnumeratePhysicalDevices(state.instance, &count, nullptr);
  if (result != VK_SUCCESS && result != VK_INCOMPLETE)
    return vkError("vkEnumeratePhysicalDevices", result);
  out.resize(count);
  if (count == 0)
    return Status::success();
  result =
      state.fn.vkEnumeratePhysicalDevices(state.instance, &count, out.data());
  if (result != VK_SUCCESS && result != VK_INCOMPLETE)
    return vkError("vkEnumeratePhysicalDevices", result);
  out.resize(count);
  return Status::success();
}

// The first queue family with compute, or UINT32_MAX.
uint32_t computeQueueFamily(ContextState &state, VkPhysicalDevice physical,
                            uint32_t *timestampBits) {
  uint32_t count = 0;
  state.fn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  state.fn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &count,
                                                    families.data());
  for (uint32_t i = 0; i < count; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      if (timestampBits)
        *timestampBits = families[i].timestampValidBits;
      return i;
    }
  }
  return UINT32_MAX;
}

DeviceInfo describeDevice(ContextState &state, VkPhysicalDevice physical,
                          uint32_t index) {
  VkPhysicalDeviceProperties props{};
  state.fn.vkGetPhysicalDeviceProperties(physical, &props);
  VkPhysicalDeviceFeatures features{};
  state.fn.vkGetPhysicalDeviceFeatures(physical, &features);
  DeviceInfo info;
  info.index = index;
  info.name = props.deviceName;
  info.type = deviceTypeName(props.deviceType);
  info.apiVersion = props.apiVersion;
  info.shaderInt64 = features.shaderInt64 == VK_TRUE;
  for (int d = 0; d < 3; ++d)
    info.maxWorkgroupCount[d] = props.limits.maxComputeWorkGroupCount[d];
  info.maxWorkgroupInvocations = props.limits.maxComputeWorkGroupInvocations;
  info.maxSharedMemoryBytes = props.limits.maxComputeSharedMemorySize;
  info.maxStorageBufferRange = props.limits.maxStorageBufferRange;
  uint32_t timestampBits = 0;
  if (computeQueueFamily(state, physical, &timestampBits) != UINT32_MAX &&
      timestampBits > 0)
    info.timestampPeriodNs = props.limits.timestampPeriod;
  // VkPhysicalDeviceDriverProperties is core in 1.2; a 1.1 device may not
  // know the structure.
  if (props.apiVersion >= VK_API_VERSION_1_2) {
    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    VkPhysicalDeviceProperties2 props2{};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &driver;
    state.fn.vkGetPhysicalDeviceProperties2(physical, &props2);
    info.driver = driver.driverName;
    if (driver.driverInfo[0] != '\0') {
      info.driver += " ";
      info.driver += driver.driverInfo;
    }
  }
  return info;
}

std::string deviceList(const std::vector<DeviceInfo> &devices) {
  std::string text;
  for (const DeviceInfo &info : devices)
    text += "\n  #" + std::to_string(info.index) + " " + info.name + " (" +
            info.type + ")";
  return text;
}

Status selectDevice(ContextState &state,
                    const std::vector<VkPhysicalDevice> &physicals,
                    uint32_t &chosen) {
  std::vector<DeviceInfo> infos;
  std::vector<bool> hasCompute;
  for (uint32_t i = 0; i < physicals.size(); ++i) {
    infos.push_back(describeDevice(state, physicals[i], i));
    hasCompute.push_back(computeQueueFamily(state, physicals[i], nullptr) !=
                         UINT32_MAX);
  }
  const char *request = std::getenv("SLUICE_VULKAN_DEVICE");
  if (request && *request) {
    std::string wanted = request;
    bool isIndex = std::all_of(wanted.begin(), wanted.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    uint32_t match = UINT32_MAX;
    if (isIndex) {
      unsigned long index = std::strtoul(wanted.c_str(), nullptr, 10);
      if (wanted.size() < 10 && index < physicals.size())
        match = static_cast<uint32_t>(index);
    } else {
      std::string needle = lowercase(wanted);
      for (uint32_t i = 0; i < infos.size() && match == UINT32_MAX; ++i)
        if (lowercase(infos[i].name).find(needle) != std::string::npos)
          match = i;
    }
    if (match == UINT32_MAX)
      return Status::error(
          ErrorKind::DeviceUnavailable,
          "SLUICE_VULKAN_DEVICE='" + wanted +
              "' matches no Vulkan device; devices:" + deviceList(infos));
    if (!hasCompute[match])
      return Status::error(ErrorKind::DeviceUnavailable,
                           "Vulkan device #" + std::to_string(match) + " " +
                               infos[match].name +
                               " has no compute queue family");
    chosen = match;
    return Status::success();
  }
  int bestRank = 1000;
  for (uint32_t i = 0; i < physicals.size(); ++i) {
    if (!hasCompute[i])
      continue;
    VkPhysicalDeviceProperties props{};
    state.fn.vkGetPhysicalDeviceProperties(physicals[i], &props);
    int rank = deviceTypeRank(props.deviceType);
    if (rank < bestRank) {
      bestRank = rank;
      chosen = i;
    }
  }
  if (bestRank == 1000)
    return Status::error(ErrorKind::DeviceUnavailable,
                         "no Vulkan device has a compute queue; devices:" +
                             deviceList(infos));
  return Status::success();
}

// Memory type indices allowed by `typeBits` for `placement`, best first.
// Device and Host need host-visible, host-coherent memory and prefer
// device-local and host-cached memory respectively; DeviceOnly takes any type,
// device-local without host-visible first, then device-local, then the rest.
std::vector<uint32_t> memoryCandidates(const ContextState &state,
                                       uint32_t typeBits, Placement placement) {
  const VkMemoryPropertyFlags hostAccess = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  std::vector<uint32_t> ranked[3];
  for (uint32_t i = 0; i < state.memory.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i)))
      continue;
    VkMemoryPropertyFlags flags = state.memory.memoryTypes[i].propertyFlags;
    bool deviceLocal = (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
    bool hostVisible = (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
    int rank = 0;
    switch (placement) {
    case Placement::DeviceOnly:
      rank = deviceLocal ? (hostVisible ? 1 : 0) : 2;
      break;
    case Placement::Device:
    case Placement::Host: {
      if ((flags & hostAccess) != hostAccess)
        continue;
      VkMemoryPropertyFlags preferred =
          placement == Placement::Device ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
                                         : VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      rank = (flags & preferred) == preferred ? 0 : 1;
      break;
    }
    }
    ranked[rank].push_back(i);
  }
  std::vector<uint32_t> out;
  for (const std::vector<uint32_t> &list : ranked)
    out.insert(out.end(), list.begin(), list.end());
  return out;
}

constexpr uint32_t kSetsPerDescriptorPool = 64;
constexpr uint32_t kDescriptorsPerPool = 512;
constexpr uint32_t kDispatchesPerQueryPool = 64;

struct StreamState {
  ContextState *context = nullptr;
  std::vector<uint64_t> ticks; // query results, reused by every submit
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> descriptorPools;
  size_t currentDescriptorPool = 0;
  // Each pool holds two timestamps for kDispatchesPerQueryPool timed commands
  // (dispatch calls and copies); pools are added rather than grown because a
  // recording references them.
  std::vector<VkQueryPool> queryPools;
  bool timestamps = false;
  bool recording = false;
  // Set when a wait failed: the work may still be in flight, so the command
  // buffer can be neither reset nor reused.
  bool broken = false;
  // Timed commands recorded so far; timedIsCopy[i] says whether the i-th is
  // a copy (else a dispatch call).
  uint32_t timedCommands = 0;
  std::vector<bool> timedIsCopy;
  Status error;

  ~StreamState() {
    // Objects that pending work may still use are leaked rather than freed.
    if (!context || broken)
      return;
    const Functions &fn = context->fn;
    VkDevice device = context->device;
    for (VkQueryPool pool : queryPools)
      fn.vkDestroyQueryPool(device, pool, nullptr);
    for (VkDescriptorPool pool : descriptorPools)
      fn.vkDestroyDescriptorPool(device, pool, nullptr);
    if (fence != VK_NULL_HANDLE)
      fn.vkDestroyFence(device, fence, nullptr);
    // Destroying the pool frees its command buffer.
    if (commandPool != VK_NULL_HANDLE)
      fn.vkDestroyCommandPool(device, commandPool, nullptr);
  }

  Status addDescriptorPool(uint32_t descriptors) {
    VkDescriptorPoolSize size{};
    size.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    size.descriptorCount = std::max(descriptors, kDescriptorsPerPool);
    VkDescriptorPoolCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    create.maxSets = kSetsPerDescriptorPool;
    create.poolSizeCount = 1;
    create.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkResult result = context->fn.vkCreateDescriptorPool(
        context->device, &create, nullptr, &pool);
    if (result != VK_SUCCESS)
      return vkError("vkCreateDescriptorPool", result);
    descriptorPools.push_back(pool);
    return Status::success();
  }

  Status allocateSet(VkDescriptorSetLayout layout, uint32_t descriptors,
                     VkDescriptorSet &out) {
    VkDescriptorSetAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &layout;
    // Try the current pool, then the later ones, then a new one sized for
    // this set; failing in a fresh pool is a real error.
    while (true) {
      bool fresh = false;
      if (currentDescriptorPool == descriptorPools.size()) {
        if (Status status = addDescriptorPool(descriptors); !status.ok())
          return status;
        fresh = true;
      }
      allocate.descriptorPool = descriptorPools[currentDescriptorPool];
      VkResult result = context->fn.vkAllocateDescriptorSets(context->device,
                                                             &allocate, &out);
      if (result == VK_SUCCESS)
        return Status::success();
      if (fresh || (result != VK_ERROR_OUT_OF_POOL_MEMORY &&
                    result != VK_ERROR_FRAGMENTED_POOL))
        return vkError("vkAllocateDescriptorSets", result);
      ++currentDescriptorPool;
    }
  }

  Status queryPoolFor(uint32_t call, VkQueryPool &out) {
    uint32_t poolIndex = call / kDispatchesPerQueryPool;
    if (poolIndex == queryPools.size()) {
      VkQueryPoolCreateInfo create{};
      create.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
      create.queryType = VK_QUERY_TYPE_TIMESTAMP;
      create.queryCount = 2 * kDispatchesPerQueryPool;
      VkQueryPool pool = VK_NULL_HANDLE;
      VkResult result = context->fn.vkCreateQueryPool(context->device, &create,
                                                      nullptr, &pool);
      if (result != VK_SUCCESS)
        return vkError("vkCreateQueryPool", result);
      queryPools.push_back(pool);
    }
    out = queryPools[poolIndex];
    // Queries must be reset before their first write in each recording.
    if (call % kDispatchesPerQueryPool == 0)
      context->fn.vkCmdResetQueryPool(commands, out, 0,
                                      2 * kDispatchesPerQueryPool);
    return Status::success();
  }

  void barrier(VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
               VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
    VkMemoryBarrier memoryBarrier{};
    memoryBarrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    memoryBarrier.srcAccessMask = srcAccess;
    memoryBarrier.dstAccessMask = dstAccess;
    context->fn.vkCmdPipelineBarrier(commands, srcStage, dstStage, 0, 1,
                                     &memoryBarrier, 0, nullptr, 0, nullptr);
  }

  // Returns the stream to the idle state: nothing recorded, pools reset.
  void reset() {
    const Functions &fn = context->fn;
    if (recording || timedCommands > 0)
      fn.vkResetCommandBuffer(commands, 0);
    for (VkDescriptorPool pool : descriptorPools)
      fn.vkResetDescriptorPool(context->device, pool, 0);
    currentDescriptorPool = 0;
    recording = false;
    timedCommands = 0;
    timedIsCopy.clear();
    error = Status::success();
  }

  // Starts the command buffer if needed and orders the next command after
  // everything before it: host writes before the first command, compute and
  // transfer writes before every later one, for compute and transfer reads
  // and writes alike (dispatches and copies in any order).
  Status beginCommand() {
    constexpr VkPipelineStageFlags kWork =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    constexpr VkAccessFlags kWrites =
        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    constexpr VkAccessFlags kReadsWrites =
        kWrites | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT;
    if (!recording) {
      VkCommandBufferBeginInfo begin{};
      begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
      begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      VkResult result = context->fn.vkBeginCommandBuffer(commands, &begin);
      if (result != VK_SUCCESS)
        return vkError("vkBeginCommandBuffer", result);
      recording = true;
      barrier(VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_WRITE_BIT, kWork,
              kReadsWrites);
    } else {
      barrier(kWork, kWrites, kWork, kReadsWrites);
    }
    return Status::success();
  }

  // Writes the start timestamp of the next timed command; `pool` and
  // `firstQuery` receive its pair of queries (pool null: not timed).
  Status startTimer(VkPipelineStageFlagBits stage, VkQueryPool &pool,
                    uint32_t &firstQuery) {
    pool = VK_NULL_HANDLE;
    firstQuery = 0;
    if (!timestamps)
      return Status::success();
    if (Status status = queryPoolFor(timedCommands, pool); !status.ok())
      return status;
    firstQuery = 2 * (timedCommands % kDispatchesPerQueryPool);
    context->fn.vkCmdWriteTimestamp(commands, stage, pool, firstQuery);
    return Status::success();
  }
  void stopTimer(bool isCopy, VkPipelineStageFlagBits stage, VkQueryPool pool,
                 uint32_t firstQuery) {
    if (pool != VK_NULL_HANDLE)
      context->fn.vkCmdWriteTimestamp(commands, stage, pool, firstQuery + 1);
    ++timedCommands;
    timedIsCopy.push_back(isCopy);
  }
};

} // namespace

struct Context::State : ContextState {};
struct Stream::State : StreamState {};

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

Context::Context() : state_(std::make_unique<State>()) {}
Context::~Context() = default;

const DeviceInfo &Context::info() const { return state_->info; }

Status Context::listDevices(std::vector<DeviceInfo> &out) {
  out.clear();
  auto state = std::make_unique<ContextState>();
  if (Status status = openInstance(*state); !status.ok())
    return status;
  std::vector<VkPhysicalDevice> physicals;
  if (Status status = enumerateDevices(*state, physicals); !status.ok())
    return status;
  for (uint32_t i = 0; i < physicals.size(); ++i)
    out.push_back(describeDevice(*state, physicals[i], i));
  return Status::success();
}

Status Context::create(std::unique_ptr<Context> &out) {
  out.reset();
  std::unique_ptr<Context> context(new Context());
  State &state = *context->state_;
  if (Status status = openInstance(state); !status.ok())
    return status;
  std::vector<VkPhysicalDevice> physicals;
  if (Status status = enumerateDevices(state, physicals); !status.ok())
    return status;
  if (physicals.empty())
    return Status::error(ErrorKind::DeviceUnavailable,
                         "the Vulkan loader reports no physical device; "
                         "install a driver such as mesa-vulkan-drivers "
                         "(lavapipe runs on the CPU)");
  uint32_t chosen = 0;
  if (Status status = selectDevice(state, physicals, chosen); !status.ok())
    return status;
  state.physical = physicals[chosen];
  state.info = describeDevice(state, state.physical, chosen);
  state.queueFamily =
      computeQueueFamily(state, state.physical, &state.timestampValidBits);
  VkPhysicalDeviceProperties props{};
  state.fn.vkGetPhysicalDeviceProperties(state.physical, &props);
  state.limits = props.limits;
  if (const char *split = std::getenv("SLUICE_VULKAN_SPLIT_GROUPS_X"))
    state.splitGroupsX = std::strtoull(split, nullptr, 10);
  state.fn.vkGetPhysicalDeviceMemoryProperties(state.physical, &state.memory);
  if (props.apiVersion < VK_API_VERSION_1_1)
    return Status::error(ErrorKind::DeviceUnavailable,
                         "Vulkan device " + state.info.name +
                             " supports only Vulkan 1.0; Sluice needs 1.1");

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueCreate{};
  queueCreate.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queueCreate.queueFamilyIndex = state.queueFamily;
  queueCreate.queueCount = 1;
  queueCreate.pQueuePriorities = &priority;
  VkPhysicalDeviceFeatures features{};
  features.shaderInt64 = state.info.shaderInt64 ? VK_TRUE : VK_FALSE;
  VkDeviceCreateInfo deviceCreate{};
  deviceCreate.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  deviceCreate.queueCreateInfoCount = 1;
  deviceCreate.pQueueCreateInfos = &queueCreate;
  deviceCreate.pEnabledFeatures = &features;
  VkResult result = state.fn.vkCreateDevice(state.physical, &deviceCreate,
                                            nullptr, &state.device);
  if (result != VK_SUCCESS) {
    state.device = VK_NULL_HANDLE;
    return vkError("vkCreateDevice", result);
  }
  // vkDestroyDevice comes first so the destructor can release the device even
  // when a later entry point is missing.
  state.fn.vkDestroyDevice = reinterpret_cast<PFN_vkDestroyDevice>(
      state.fn.vkGetDeviceProcAddr(state.device, "vkDestroyDevice"));
  if (!state.fn.vkDestroyDevice) {
    state.device = VK_NULL_HANDLE; // Leaked: there is no way to destroy it.
    return Status::error(ErrorKind::DeviceError,
                         "vkGetDeviceProcAddr returned no vkDestroyDevice");
  }
#define SLUICE_VK_LOAD_DEVICE(name)                                            \
  state.fn.name = reinterpret_cast<PFN_##name>(                                \
      state.fn.vkGetDeviceProcAddr(state.device, #name));                      \
  if (!state.fn.name)                                                          \
    return Status::error(ErrorKind::DeviceError,                               \
                         "vkGetDeviceProcAddr returned no " #name);
  SLUICE_VK_DEVICE_FNS(SLUICE_VK_LOAD_DEVICE)
#undef SLUICE_VK_LOAD_DEVICE
  state.fn.vkGetDeviceQueue(state.device, state.queueFamily, 0, &state.queue);
  out = std::move(context);
  return Status::success();
}

Status Context::createBuffer(uint64_t bytes, Placement placement,
                             std::unique_ptr<Buffer> &out) {
  out.reset();
  if (bytes > UINT64_MAX - 3)
    return Status::error(ErrorKind::ArithmeticOverflow,
                         "buffer of " + std::to_string(bytes) +
                             " bytes overflows when rounded up to 4");
  uint64_t size = std::max<uint64_t>((bytes + 3) & ~uint64_t(3), 16);
  State &state = *state_;
  const Functions &fn = state.fn;
  std::unique_ptr<Buffer> buffer(new Buffer());
  buffer->context_ = this;
  buffer->size_ = size;

  VkBufferCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  create.size = size;
  create.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer handle = VK_NULL_HANDLE;
  VkResult result = fn.vkCreateBuffer(state.device, &create, nullptr, &handle);
  if (result != VK_SUCCESS)
    return vkError("vkCreateBuffer", result);
  buffer->buffer_ = fromHandle(handle);

  VkMemoryRequirements requirements{};
  fn.vkGetBufferMemoryRequirements(state.device, handle, &requirements);
  std::vector<uint32_t> candidates =
      memoryCandidates(state, requirements.memoryTypeBits, placement);
  if (candidates.empty())
    return Status::error(ErrorKind::Unsupported,
                         "Vulkan device " + state.info.name + " has no " +
                             (placement == Placement::DeviceOnly
                                  ? ""
                                  : "host-visible, host-coherent ") +
                             "memory type for a storage buffer");
  // A small device-local host-visible heap (BAR without resizable BAR) runs
  // out first; the next candidate is plain host memory.
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint32_t typeIndex = 0;
  for (uint32_t candidate : candidates) {
    VkMemoryAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = candidate;
    result = fn.vkAllocateMemory(state.device, &allocate, nullptr, &memory);
    if (result == VK_SUCCESS) {
      typeIndex = candidate;
      break;
    }
    memory = VK_NULL_HANDLE;
    if (result != VK_ERROR_OUT_OF_DEVICE_MEMORY &&
        result != VK_ERROR_OUT_OF_HOST_MEMORY)
      break;
  }
  if (memory == VK_NULL_HANDLE) {
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
        result == VK_ERROR_OUT_OF_HOST_MEMORY)
      return Status::error(ErrorKind::OutOfMemory,
                           "vkAllocateMemory of " + std::to_string(size) +
                               " bytes failed with VkResult " +
                               std::to_string(static_cast<int>(result)));
    return vkError("vkAllocateMemory", result);
  }
  buffer->memory_ = fromHandle(memory);
  buffer->deviceLocal_ = (state.memory.memoryTypes[typeIndex].propertyFlags &
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
  result = fn.vkBindBufferMemory(state.device, handle, memory, 0);
  if (result != VK_SUCCESS)
    return vkError("vkBindBufferMemory", result);
  // DeviceOnly buffers are mapped only when the memory obtained allows it.
  const VkMemoryPropertyFlags hostAccess = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if ((state.memory.memoryTypes[typeIndex].propertyFlags & hostAccess) ==
      hostAccess) {
    result = fn.vkMapMemory(state.device, memory, 0, VK_WHOLE_SIZE, 0,
                            &buffer->mapped_);
    if (result != VK_SUCCESS) {
      buffer->mapped_ = nullptr;
      return vkError("vkMapMemory", result);
    }
  }
  out = std::move(buffer);
  return Status::success();
}

Status Context::createKernel(std::span<const uint32_t> words,
                             const std::string &entryPoint, uint32_t bindings,
                             uint32_t pushConstantBytes,
                             std::unique_ptr<Kernel> &out) {
  out.reset();
  State &state = *state_;
  const Functions &fn = state.fn;
  if (words.size() < 5 || words[0] != 0x07230203u)
    return Status::error(
        ErrorKind::InvalidArgument,
        "SPIR-V for entry point '" + entryPoint + "' is not a SPIR-V binary (" +
            std::to_string(words.size()) + " words" +
            (words.empty() ? std::string()
                           : ", magic " + std::to_string(words[0])) +
            "; expected at least 5 words starting with 0x07230203)");
  if (pushConstantBytes % 4 != 0 ||
      pushConstantBytes > state.limits.maxPushConstantsSize)
    return Status::error(ErrorKind::InvalidArgument,
                         "kernel '" + entryPoint + "' asks for " +
                             std::to_string(pushConstantBytes) +
                             " push constant bytes; the size must be a "
                             "multiple of 4 and at most " +
                             std::to_string(state.limits.maxPushConstantsSize));
  if (bindings > state.limits.maxPerStageDescriptorStorageBuffers)
    return Status::error(
        ErrorKind::Unsupported,
        "kernel '" + entryPoint + "' has " + std::to_string(bindings) +
            " storage buffers; the device allows " +
            std::to_string(state.limits.maxPerStageDescriptorStorageBuffers));

  std::unique_ptr<Kernel> kernel(new Kernel());
  kernel->context_ = this;
  kernel->entry_ = entryPoint;
  kernel->bindings_ = bindings;
  kernel->pushBytes_ = pushConstantBytes;

  VkShaderModuleCreateInfo moduleCreate{};
  moduleCreate.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  moduleCreate.codeSize = words.size() * sizeof(uint32_t);
  moduleCreate.pCode = words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VkResult result =
      fn.vkCreateShaderModule(state.device, &moduleCreate, nullptr, &module);
  if (result != VK_SUCCESS)
    return vkError("vkCreateShaderModule", result);
  kernel->module_ = fromHandle(module);

  std::vector<VkDescriptorSetLayoutBinding> layoutBindings(bindings);
  for (uint32_t i = 0; i < bindings; ++i) {
    layoutBindings[i].binding = i;
    layoutBindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    layoutBindings[i].descriptorCount = 1;
    layoutBindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setCreate{};
  setCreate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setCreate.bindingCount = bindings;
  setCreate.pBindings = layoutBindings.data();
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  result = fn.vkCreateDescriptorSetLayout(state.device, &setCreate, nullptr,
                                          &setLayout);
  if (result != VK_SUCCESS)
    return vkError("vkCreateDescriptorSetLayout", result);
  kernel->setLayout_ = fromHandle(setLayout);

  VkPushConstantRange range{};
  range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  range.offset = 0;
  range.size = pushConstantBytes;
  VkPipelineLayoutCreateInfo layoutCreate{};
  layoutCreate.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutCreate.setLayoutCount = 1;
  layoutCreate.pSetLayouts = &setLayout;
  layoutCreate.pushConstantRangeCount = pushConstantBytes > 0 ? 1 : 0;
  layoutCreate.pPushConstantRanges = &range;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  result =
      fn.vkCreatePipelineLayout(state.device, &layoutCreate, nullptr, &layout);
  if (result != VK_SUCCESS)
    return vkError("vkCreatePipelineLayout", result);
  kernel->layout_ = fromHandle(layout);

  VkComputePipelineCreateInfo pipelineCreate{};
  pipelineCreate.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  // Needed for vkCmdDispatchBase with a nonzero base (grid splitting).
  pipelineCreate.flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;
  pipelineCreate.stage.sType =
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineCreate.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineCreate.stage.module = module;
  pipelineCreate.stage.pName = kernel->entry_.c_str();
  pipelineCreate.layout = layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  result = fn.vkCreateComputePipelines(state.device, VK_NULL_HANDLE, 1,
                                       &pipelineCreate, nullptr, &pipeline);
  if (result != VK_SUCCESS)
    return vkError("vkCreateComputePipelines", result);
  kernel->pipeline_ = fromHandle(pipeline);
  out = std::move(kernel);
  return Status::success();
}

Status Context::createStream(std::unique_ptr<Stream> &out) {
  out.reset();
  State &state = *state_;
  const Functions &fn = state.fn;
  std::unique_ptr<Stream> stream(new Stream());
  stream->state_ = std::make_unique<Stream::State>();
  StreamState &s = *stream->state_;
  s.context = &state;
  s.timestamps = state.timestampValidBits > 0;

  VkCommandPoolCreateInfo poolCreate{};
  poolCreate.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolCreate.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolCreate.queueFamilyIndex = state.queueFamily;
  VkResult result = fn.vkCreateCommandPool(state.device, &poolCreate, nullptr,
                                           &s.commandPool);
  if (result != VK_SUCCESS) {
    s.commandPool = VK_NULL_HANDLE;
    return vkError("vkCreateCommandPool", result);
  }
  VkCommandBufferAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate.commandPool = s.commandPool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  result = fn.vkAllocateCommandBuffers(state.device, &allocate, &s.commands);
  if (result != VK_SUCCESS)
    return vkError("vkAllocateCommandBuffers", result);
  VkFenceCreateInfo fenceCreate{};
  fenceCreate.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  result = fn.vkCreateFence(state.device, &fenceCreate, nullptr, &s.fence);
  if (result != VK_SUCCESS) {
    s.fence = VK_NULL_HANDLE;
    return vkError("vkCreateFence", result);
  }
  if (Status status = s.addDescriptorPool(0); !status.ok())
    return status;
  out = std::move(stream);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Buffer, Kernel
//===----------------------------------------------------------------------===//

Buffer::~Buffer() {
  if (!context_)
    return;
  const ContextState &state = *context_->state_;
  if (mapped_)
    state.fn.vkUnmapMemory(state.device, toHandle<VkDeviceMemory>(memory_));
  if (buffer_)
    state.fn.vkDestroyBuffer(state.device, toHandle<VkBuffer>(buffer_),
                             nullptr);
  if (memory_)
    state.fn.vkFreeMemory(state.device, toHandle<VkDeviceMemory>(memory_),
                          nullptr);
}

Kernel::~Kernel() {
  if (!context_)
    return;
  const ContextState &state = *context_->state_;
  if (pipeline_)
    state.fn.vkDestroyPipeline(state.device, toHandle<VkPipeline>(pipeline_),
                               nullptr);
  if (layout_)
    state.fn.vkDestroyPipelineLayout(
        state.device, toHandle<VkPipelineLayout>(layout_), nullptr);
  if (setLayout_)
    state.fn.vkDestroyDescriptorSetLayout(
        state.device, toHandle<VkDescriptorSetLayout>(setLayout_), nullptr);
  if (module_)
    state.fn.vkDestroyShaderModule(state.device,
                                   toHandle<VkShaderModule>(module_), nullptr);
}

//===----------------------------------------------------------------------===//
// Stream
//===----------------------------------------------------------------------===//

Stream::~Stream() = default;

void Stream::dispatch(const Kernel &kernel, std::span<Buffer *const> bindings,
                      std::span<const std::byte> pushConstants,
                      const uint64_t groups[3]) {
  StreamState &s = *state_;
  if (!s.error.ok() || s.broken)
    return; // The first error wins; submitAndWait reports it.
  const std::string &name = kernel.entry_;
  auto fail = [&](Status status) { s.error = std::move(status); };
  if (kernel.context_->state_.get() != s.context)
    return fail(Status::error(ErrorKind::InvalidArgument,
                              "kernel '" + name +
                                  "' belongs to another Vulkan context"));
  if (bindings.size() != kernel.bindings_)
    return fail(Status::error(
        ErrorKind::InvalidArgument,
        "kernel '" + name + "' has " + std::to_string(kernel.bindings_) +
            " bindings but the dispatch passes " +
            std::to_string(bindings.size()) + " buffers"));
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (!bindings[i])
      return fail(Status::error(ErrorKind::InvalidArgument,
                                "kernel '" + name + "' binding " +
                                    std::to_string(i) + " is a null buffer"));
    if (bindings[i]->context_->state_.get() != s.context)
      return fail(Status::error(ErrorKind::InvalidArgument,
                                "kernel '" + name + "' binding " +
                                    std::to_string(i) +
                                    " belongs to another Vulkan context"));
  }
  if (pushConstants.size() != kernel.pushBytes_)
    return fail(Status::error(
        ErrorKind::InvalidArgument,
        "kernel '" + name + "' takes " + std::to_string(kernel.pushBytes_) +
            " push constant bytes but the dispatch passes " +
            std::to_string(pushConstants.size())));
  for (int d = 0; d < 3; ++d)
    if (groups[d] > UINT32_MAX)
      return fail(Status::error(
          ErrorKind::InvalidArgument,
          "kernel '" + name + "' grid dimension " + std::to_string(d) + " is " +
              std::to_string(groups[d]) +
              " workgroups; WorkgroupId is 32-bit, so at most 4294967295"));

  const ContextState &context = *s.context;
  const Functions &fn = context.fn;
  // Only a one-dimensional grid is split (along x): generated code linearizes
  // block ids from NumWorkgroups, which a split would make the chunk's.
  uint64_t limit[3];
  for (int d = 0; d < 3; ++d)
    limit[d] =
        std::max<uint32_t>(context.limits.maxComputeWorkGroupCount[d], 1);
  bool empty = groups[0] == 0 || groups[1] == 0 || groups[2] == 0;
  bool oneDimensional = groups[1] == 1 && groups[2] == 1;
  if (!empty && !oneDimensional &&
      (groups[0] > limit[0] || groups[1] > limit[1] || groups[2] > limit[2])) {
    auto grid = std::to_string(groups[0]) + "x" + std::to_string(groups[1]) +
                "x" + std::to_string(groups[2]);
    auto limits = std::to_string(limit[0]) + "x" + std::to_string(limit[1]) +
                  "x" + std::to_string(limit[2]);
    return fail(Status::error(
        ErrorKind::Unsupported,
        "kernel '" + name + "' grid " + grid +
            " exceeds the device's maxComputeWorkGroupCount " + limits +
            "; only a one-dimensional grid (y = z = 1) is split along x"));
  }

  VkCommandBuffer cmd = s.commands;
  if (Status status = s.beginCommand(); !status.ok())
    return fail(std::move(status));

  VkDescriptorSet set = VK_NULL_HANDLE;
  if (kernel.bindings_ > 0) {
    if (Status status =
            s.allocateSet(toHandle<VkDescriptorSetLayout>(kernel.setLayout_),
                          kernel.bindings_, set);
        !status.ok())
      return fail(std::move(status));
    std::vector<VkDescriptorBufferInfo> infos(bindings.size());
    std::vector<VkWriteDescriptorSet> writes(bindings.size());
    for (size_t i = 0; i < bindings.size(); ++i) {
      infos[i].buffer = toHandle<VkBuffer>(bindings[i]->buffer_);
      infos[i].offset = 0;
      infos[i].range = VK_WHOLE_SIZE;
      writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[i].dstSet = set;
      writes[i].dstBinding = static_cast<uint32_t>(i);
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    fn.vkUpdateDescriptorSets(context.device,
                              static_cast<uint32_t>(writes.size()),
                              writes.data(), 0, nullptr);
  }

  VkQueryPool queries = VK_NULL_HANDLE;
  uint32_t firstQuery = 0;
  if (Status status = s.startTimer(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                   queries, firstQuery);
      !status.ok())
    return fail(std::move(status));
  VkPipelineLayout layout = toHandle<VkPipelineLayout>(kernel.layout_);
  fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                       toHandle<VkPipeline>(kernel.pipeline_));
  if (set != VK_NULL_HANDLE)
    fn.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0,
                               1, &set, 0, nullptr);
  if (!pushConstants.empty())
    fn.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          static_cast<uint32_t>(pushConstants.size()),
                          pushConstants.data());
  // Chunks of at most maxComputeWorkGroupCount.x (only a one-dimensional
  // grid gets here beyond the limit); the base keeps WorkgroupId global.
  uint64_t chunk = limit[0];
  if (oneDimensional && context.splitGroupsX != 0)
    chunk = std::min(chunk, context.splitGroupsX);
  if (!empty) {
    for (uint64_t x = 0; x < groups[0]; x += chunk)
      fn.vkCmdDispatchBase(
          cmd, static_cast<uint32_t>(x), 0, 0,
          static_cast<uint32_t>(std::min(chunk, groups[0] - x)),
          static_cast<uint32_t>(groups[1]), static_cast<uint32_t>(groups[2]));
  }
  s.stopTimer(false, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queries, firstQuery);
}

void Stream::copy(Buffer &source, uint64_t sourceOffset, Buffer &destination,
                  uint64_t destinationOffset, uint64_t bytes) {
  StreamState &s = *state_;
  if (!s.error.ok() || s.broken)
    return; // The first error wins; submitAndWait reports it.
  auto fail = [&](Status status) { s.error = std::move(status); };
  if (source.context_->state_.get() != s.context ||
      destination.context_->state_.get() != s.context)
    return fail(Status::error(ErrorKind::InvalidArgument,
                              std::string("copy ") +
                                  (source.context_->state_.get() != s.context
                                       ? "source"
                                       : "destination") +
                                  " buffer belongs to another Vulkan context"));
  auto outOfBounds = [&](uint64_t offset, uint64_t size) {
    return offset > size || bytes > size - offset;
  };
  auto describe = [&](const char *what, uint64_t offset, uint64_t size) {
    return std::string("copy of ") + std::to_string(bytes) + " bytes at " +
           what + " offset " + std::to_string(offset) + " exceeds the " + what +
           " buffer of " + std::to_string(size) + " bytes";
  };
  if (outOfBounds(sourceOffset, source.size_))
    return fail(Status::error(ErrorKind::InvalidArgument,
                              describe("source", sourceOffset, source.size_)));
  if (outOfBounds(destinationOffset, destination.size_))
    return fail(Status::error(
        ErrorKind::InvalidArgument,
        describe("destination", destinationOffset, destination.size_)));
  if (bytes == 0)
    return;
  if (&source == &destination && sourceOffset < destinationOffset + bytes &&
      destinationOffset < sourceOffset + bytes)
    return fail(Status::error(
        ErrorKind::InvalidArgument,
        "copy of " + std::to_string(bytes) + " bytes within one buffer from " +
            std::to_string(sourceOffset) + " to " +
            std::to_string(destinationOffset) + " overlaps itself"));

  if (Status status = s.beginCommand(); !status.ok())
    return fail(std::move(status));
  VkQueryPool queries = VK_NULL_HANDLE;
  uint32_t firstQuery = 0;
  if (Status status =
          s.startTimer(VK_PIPELINE_STAGE_TRANSFER_BIT, queries, firstQuery);
      !status.ok())
    return fail(std::move(status));
  VkBufferCopy region{};
  region.srcOffset = sourceOffset;
  region.dstOffset = destinationOffset;
  region.size = bytes;
  s.context->fn.vkCmdCopyBuffer(s.commands, toHandle<VkBuffer>(source.buffer_),
                                toHandle<VkBuffer>(destination.buffer_), 1,
                                &region);
  s.stopTimer(true, VK_PIPELINE_STAGE_TRANSFER_BIT, queries, firstQuery);
}

Status Stream::submitAndWait(std::vector<double> *dispatchNs,
                             std::vector<double> *copyNs) {
  StreamState &s = *state_;
  if (dispatchNs)
    dispatchNs->clear();
  if (copyNs)
    copyNs->clear();
  const ContextState &context = *s.context;
  const Functions &fn = context.fn;
  if (s.broken)
    return Status::error(ErrorKind::DeviceError,
                         "the stream is unusable after vkWaitForFences failed");
  if (!s.error.ok() || !s.recording) {
    Status error = std::move(s.error);
    if (s.recording)
      fn.vkEndCommandBuffer(s.commands);
    s.reset();
    return error;
  }
  s.barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  VkResult result = fn.vkEndCommandBuffer(s.commands);
  if (result != VK_SUCCESS) {
    s.reset();
    return vkError("vkEndCommandBuffer", result);
  }
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &s.commands;
  {
    std::lock_guard<std::mutex> lock(s.context->queueMutex);
    result = fn.vkQueueSubmit(context.queue, 1, &submit, s.fence);
  }
  if (result != VK_SUCCESS) {
    s.reset();
    return vkError("vkQueueSubmit", result);
  }
  // The wavefront scheduler waits for every dispatch, so the wake-up latency
  // of a blocking wait is on its critical path: poll the fence (yielding the
  // core) for up to SLUICE_VULKAN_SPIN_US microseconds (default 2000) before
  // sleeping in vkWaitForFences.
  result = VK_NOT_READY;
  static const uint64_t spinMicroseconds = [] {
    const char *text = std::getenv("SLUICE_VULKAN_SPIN_US");
    return text ? std::strtoull(text, nullptr, 10) : uint64_t(2000);
  }();
  if (spinMicroseconds != 0) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::microseconds(spinMicroseconds);
    do {
      result = fn.vkGetFenceStatus(context.device, s.fence);
      if (result != VK_NOT_READY)
        break;
      std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < deadline);
  }
  if (result == VK_NOT_READY)
    result =
        fn.vkWaitForFences(context.device, 1, &s.fence, VK_TRUE, UINT64_MAX);
  if (result != VK_SUCCESS) {
    s.broken = true;
    return vkError("vkWaitForFences", result);
  }
  fn.vkResetFences(context.device, 1, &s.fence);

  Status status;
  if (s.timestamps && (dispatchNs || copyNs)) {
    uint64_t mask = context.timestampValidBits >= 64
                        ? UINT64_MAX
                        : (uint64_t(1) << context.timestampValidBits) - 1;
    std::vector<uint64_t> &ticks = s.ticks;
    ticks.resize(2 * kDispatchesPerQueryPool);
    for (uint32_t call = 0; call < s.timedCommands && status.ok();
         call += kDispatchesPerQueryPool) {
      uint32_t inPool =
          std::min(s.timedCommands - call, kDispatchesPerQueryPool);
      result = fn.vkGetQueryPoolResults(
          context.device, s.queryPools[call / kDispatchesPerQueryPool], 0,
          2 * inPool, ticks.size() * sizeof(uint64_t), ticks.data(),
          sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
      if (result != VK_SUCCESS) {
        status = vkError("vkGetQueryPoolResults", result);
        if (dispatchNs)
          dispatchNs->clear();
        if (copyNs)
          copyNs->clear();
        break;
      }
      for (uint32_t i = 0; i < inPool; ++i) {
        uint64_t elapsed =
            ((ticks[2 * i + 1] & mask) - (ticks[2 * i] & mask)) & mask;
        std::vector<double> *into =
            s.timedIsCopy[call + i] ? copyNs : dispatchNs;
        if (into)
          into->push_back(static_cast<double>(elapsed) *
                          context.info.timestampPeriodNs);
      }
    }
  }
  s.reset();
  return status;
}

} // namespace sluice::runtime::vulkan
