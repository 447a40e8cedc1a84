//===- vulkan_device_selection.cpp - Instance and device choice -----------===//
//
// A Vulkan 1.1 instance, the physical devices it reports (their features and
// limits as DeviceInfo), the choice among them (SLUICE_VULKAN_DEVICE, else by
// device type), and the logical device with one compute queue and the shader
// features (shaderInt64, shaderFloat64, VK_EXT_shader_atomic_float's buffer
// float adds) the device supports.
//
//===----------------------------------------------------------------------===//

#include "vulkan_internal.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLUICE_VULKAN_PIN_DRIVERS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SLUICE_VULKAN_PIN_DRIVERS 1
#endif
#ifdef SLUICE_VULKAN_PIN_DRIVERS
#include <dlfcn.h>
#include <link.h>
#endif

namespace sluice::runtime::vulkan {
using namespace detail;
namespace {

#ifdef SLUICE_VULKAN_PIN_DRIVERS
// Sanitizer builds: the drivers and layers the loader opened stay mapped
// until the process ends. The loader closes them when the instance goes, and
// LeakSanitizer's report at exit then finds their allocations in code that
// is no longer mapped ("<unknown module>"), which cmake/lsan-vulkan-driver.supp
// cannot name; mapped, it suppresses them by library.
void pinVulkanDrivers() {
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *) {
        const char *name = info->dlpi_name;
        if (name && (std::strstr(name, "/libvulkan_") ||
                     std::strstr(name, "/libVkLayer_")))
          dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        return 0;
      },
      nullptr);
}
#endif

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

// The loader, then an instance of state.instanceApiVersion (1.1 or later)
// and its entry points.
Status openInstance(ContextState &state) {
  if (Status status = openLoader(state); !status.ok())
    return status;
  Functions &fn = state.fn;

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "sluice";
  app.pEngineName = "sluice-runtime";
  app.apiVersion = state.instanceApiVersion;
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
#ifdef SLUICE_VULKAN_PIN_DRIVERS
  pinVulkanDrivers();
#endif
  return loadInstanceFunctions(state);
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

// Whether `physical` lists the device extension `name`.
bool hasDeviceExtension(ContextState &state, VkPhysicalDevice physical,
                        const char *name) {
  uint32_t count = 0;
  VkResult result = state.fn.vkEnumerateDeviceExtensionProperties(
      physical, nullptr, &count, nullptr);
  if (result != VK_SUCCESS && result != VK_INCOMPLETE)
    return false;
  std::vector<VkExtensionProperties> extensions(count);
  result = state.fn.vkEnumerateDeviceExtensionProperties(
      physical, nullptr, &count, extensions.data());
  if (result != VK_SUCCESS && result != VK_INCOMPLETE)
    return false;
  extensions.resize(count);
  return std::any_of(extensions.begin(), extensions.end(),
                     [name](const VkExtensionProperties &extension) {
                       return std::strcmp(extension.extensionName, name) == 0;
                     });
}

// The small-type feature structures, chained where the device knows them
// (storage16 is core in 1.1; the others are core in 1.2, the version the
// device runs here being the lower of the instance's and its own, or come
// with their extension, which `extensions` then lists). Filled in place: the
// chain points into the structure.
struct SmallTypeFeatures {
  VkPhysicalDeviceShaderFloat16Int8Features float16Int8{};
  VkPhysicalDevice16BitStorageFeatures storage16{};
  VkPhysicalDevice8BitStorageFeatures storage8{};
  void *chain = nullptr; // the first structure of the chain
  std::vector<const char *> extensions;

  SmallTypeFeatures(ContextState &state, VkPhysicalDevice physical,
                    uint32_t deviceApi) {
    float16Int8.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    storage8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
    bool core12 = std::min(state.instanceApiVersion, deviceApi) >=
                  VK_API_VERSION_1_2;
    chain = &storage16;
    for (auto [structure, name] :
         {std::pair<VkBaseOutStructure *, const char *>{
              reinterpret_cast<VkBaseOutStructure *>(&storage8),
              VK_KHR_8BIT_STORAGE_EXTENSION_NAME},
          {reinterpret_cast<VkBaseOutStructure *>(&float16Int8),
           VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME}}) {
      if (!core12 && !hasDeviceExtension(state, physical, name))
        continue;
      if (!core12)
        extensions.push_back(name);
      structure->pNext = static_cast<VkBaseOutStructure *>(chain);
      chain = structure;
    }
  }
  SmallTypeFeatures(const SmallTypeFeatures &) = delete;
  SmallTypeFeatures &operator=(const SmallTypeFeatures &) = delete;
};

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
  info.shaderFloat64 = features.shaderFloat64 == VK_TRUE;
  // The structure of VK_EXT_shader_atomic_float may be chained only when the
  // device offers the extension, through vkGetPhysicalDeviceFeatures2 (1.1).
  if (props.apiVersion >= VK_API_VERSION_1_1 &&
      hasDeviceExtension(state, physical,
                         VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{};
    atomicFloat.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
    VkPhysicalDeviceFeatures2 features2{};
    features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features2.pNext = &atomicFloat;
    state.fn.vkGetPhysicalDeviceFeatures2(physical, &features2);
    info.shaderBufferFloat32AtomicAdd =
        atomicFloat.shaderBufferFloat32AtomicAdd == VK_TRUE;
    info.shaderBufferFloat64AtomicAdd =
        atomicFloat.shaderBufferFloat64AtomicAdd == VK_TRUE;
  }
  if (props.apiVersion >= VK_API_VERSION_1_1 &&
      hasDeviceExtension(state, physical,
                         VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME)) {
    VkPhysicalDeviceShaderAtomicInt64Features atomicInt64{};
    atomicInt64.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES;
    VkPhysicalDeviceFeatures2 features2{};
    features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    features2.pNext = &atomicInt64;
    state.fn.vkGetPhysicalDeviceFeatures2(physical, &features2);
    info.shaderBufferInt64Atomics =
        atomicInt64.shaderBufferInt64Atomics == VK_TRUE;
  }
  info.shaderInt16 = features.shaderInt16 == VK_TRUE;
  SmallTypeFeatures small(state, physical, props.apiVersion);
  VkPhysicalDeviceFeatures2 smallQuery{};
  smallQuery.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  smallQuery.pNext = small.chain;
  state.fn.vkGetPhysicalDeviceFeatures2(physical, &smallQuery);
  info.shaderFloat16 = small.float16Int8.shaderFloat16 == VK_TRUE;
  info.shaderInt8 = small.float16Int8.shaderInt8 == VK_TRUE;
  info.storageBuffer16BitAccess =
      small.storage16.storageBuffer16BitAccess == VK_TRUE;
  info.storageBuffer8BitAccess =
      small.storage8.storageBuffer8BitAccess == VK_TRUE;
  for (int d = 0; d < 3; ++d)
    info.maxWorkgroupCount[d] = props.limits.maxComputeWorkGroupCount[d];
  info.maxWorkgroupInvocations = props.limits.maxComputeWorkGroupInvocations;
  info.maxSharedMemoryBytes = props.limits.maxComputeSharedMemorySize;
  info.maxStorageBufferRange = props.limits.maxStorageBufferRange;
  uint32_t timestampBits = 0;
  if (computeQueueFamily(state, physical, &timestampBits) != UINT32_MAX &&
      timestampBits > 0)
    info.timestampPeriodNs = props.limits.timestampPeriod;
  // VkPhysicalDeviceSubgroupProperties is core in 1.1, and
  // VkPhysicalDeviceDriverProperties in 1.2 (a 1.1 device may not know it).
  if (props.apiVersion >= VK_API_VERSION_1_1) {
    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    VkPhysicalDeviceSubgroupProperties subgroup{};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    const bool driverKnown = props.apiVersion >= VK_API_VERSION_1_2;
    subgroup.pNext = driverKnown ? &driver : nullptr;
    VkPhysicalDeviceProperties2 props2{};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &subgroup;
    state.fn.vkGetPhysicalDeviceProperties2(physical, &props2);
    const VkSubgroupFeatureFlags needed = VK_SUBGROUP_FEATURE_BASIC_BIT |
                                          VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
                                          VK_SUBGROUP_FEATURE_BALLOT_BIT |
                                          VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    info.computeSubgroupOperations =
        (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
        (subgroup.supportedOperations & needed) == needed;
    if (driverKnown) {
      info.driver = driver.driverName;
      if (driver.driverInfo[0] != '\0') {
        info.driver += " ";
        info.driver += driver.driverInfo;
      }
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

} // namespace

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
  // Every supported feature the kernels may need (checkShaderCapabilities
  // says which a module needs), through VkPhysicalDeviceFeatures2 so the
  // atomic-float structure can follow it; the device is 1.1 or later here.
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.features.shaderInt64 = state.info.shaderInt64 ? VK_TRUE : VK_FALSE;
  features.features.shaderFloat64 =
      state.info.shaderFloat64 ? VK_TRUE : VK_FALSE;
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{};
  atomicFloat.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
  std::vector<const char *> extensions;
  if (hasDeviceExtension(state, state.physical,
                         VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    atomicFloat.shaderBufferFloat32AtomicAdd =
        state.info.shaderBufferFloat32AtomicAdd ? VK_TRUE : VK_FALSE;
    atomicFloat.shaderBufferFloat64AtomicAdd =
        state.info.shaderBufferFloat64AtomicAdd ? VK_TRUE : VK_FALSE;
    features.pNext = &atomicFloat;
  }
  VkPhysicalDeviceShaderAtomicInt64Features atomicInt64{};
  atomicInt64.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES;
  if (hasDeviceExtension(state, state.physical,
                         VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME);
    atomicInt64.shaderBufferInt64Atomics =
        state.info.shaderBufferInt64Atomics ? VK_TRUE : VK_FALSE;
    atomicInt64.pNext = features.pNext;
    features.pNext = &atomicInt64;
  }
  features.features.shaderInt16 = state.info.shaderInt16 ? VK_TRUE : VK_FALSE;
  // The small-type bits the device offers, each enabled (what it lacks stays
  // VK_FALSE): chained behind the others.
  SmallTypeFeatures small(state, state.physical, state.info.apiVersion);
  small.float16Int8.shaderFloat16 =
      state.info.shaderFloat16 ? VK_TRUE : VK_FALSE;
  small.float16Int8.shaderInt8 = state.info.shaderInt8 ? VK_TRUE : VK_FALSE;
  small.storage16.storageBuffer16BitAccess =
      state.info.storageBuffer16BitAccess ? VK_TRUE : VK_FALSE;
  small.storage8.storageBuffer8BitAccess =
      state.info.storageBuffer8BitAccess ? VK_TRUE : VK_FALSE;
  small.storage16.pNext = features.pNext;
  features.pNext = small.chain;
  extensions.insert(extensions.end(), small.extensions.begin(),
                    small.extensions.end());
  // bufferDeviceAddress (core in 1.2) for the device placement's scheduler.
  VkPhysicalDeviceBufferDeviceAddressFeatures addresses{};
  addresses.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES;
  if (std::min(state.instanceApiVersion, state.info.apiVersion) >=
      VK_API_VERSION_1_2) {
    VkPhysicalDeviceFeatures2 query{};
    query.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    query.pNext = &addresses;
    state.fn.vkGetPhysicalDeviceFeatures2(state.physical, &query);
    addresses.bufferDeviceAddressCaptureReplay = VK_FALSE;
    addresses.bufferDeviceAddressMultiDevice = VK_FALSE;
    addresses.pNext = nullptr;
    state.info.bufferDeviceAddress = addresses.bufferDeviceAddress == VK_TRUE;
    if (state.info.bufferDeviceAddress) {
      addresses.pNext = features.pNext;
      features.pNext = &addresses;
    }
  }
  // The subgroup clock, for the scheduler's profile (SLUICE_VULKAN_PROFILE).
  VkPhysicalDeviceShaderClockFeaturesKHR clock{};
  clock.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR;
  if (hasDeviceExtension(state, state.physical,
                         VK_KHR_SHADER_CLOCK_EXTENSION_NAME)) {
    VkPhysicalDeviceFeatures2 query{};
    query.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    query.pNext = &clock;
    state.fn.vkGetPhysicalDeviceFeatures2(state.physical, &query);
    state.info.shaderSubgroupClock = clock.shaderSubgroupClock == VK_TRUE;
    clock.shaderDeviceClock = VK_FALSE;
    clock.pNext = nullptr;
    if (state.info.shaderSubgroupClock) {
      extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
      clock.pNext = features.pNext;
      features.pNext = &clock;
    }
  }
  VkDeviceCreateInfo deviceCreate{};
  deviceCreate.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  deviceCreate.pNext = &features;
  deviceCreate.queueCreateInfoCount = 1;
  deviceCreate.pQueueCreateInfos = &queueCreate;
  deviceCreate.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  deviceCreate.ppEnabledExtensionNames =
      extensions.empty() ? nullptr : extensions.data();
  deviceCreate.pEnabledFeatures = nullptr; // in features (pNext)
  VkResult result = state.fn.vkCreateDevice(state.physical, &deviceCreate,
                                            nullptr, &state.device);
  if (result != VK_SUCCESS) {
    state.device = VK_NULL_HANDLE;
    return vkError("vkCreateDevice", result);
  }
  if (Status status = loadDeviceFunctions(state); !status.ok())
    return status;
  state.fn.vkGetDeviceQueue(state.device, state.queueFamily, 0, &state.queue);
  out = std::move(context);
  return Status::success();
}

} // namespace sluice::runtime::vulkan
