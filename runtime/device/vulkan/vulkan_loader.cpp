//===- vulkan_loader.cpp - The Vulkan loader and its entry points ---------===//
//
// The loader is opened with dlopen and every entry point is fetched through
// vkGetInstanceProcAddr / vkGetDeviceProcAddr into a table, so the runtime has
// no link-time dependency on Vulkan.
//
//===----------------------------------------------------------------------===//

#include "vulkan_internal.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

#include <string>

namespace sluice::runtime::vulkan::detail {

ContextState::~ContextState() {
  if (device != VK_NULL_HANDLE)
    fn.vkDestroyDevice(device, nullptr);
  if (instance != VK_NULL_HANDLE)
    fn.vkDestroyInstance(instance, nullptr);
  if (loader)
    dlclose(loader);
}

Status openLoader(ContextState &state) {
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
  state.instanceApiVersion = std::min(loaderVersion, VK_API_VERSION_1_3);
  if (const char *cap = std::getenv("SLUICE_VULKAN_API_VERSION")) {
    unsigned major = 0, minor = 0;
    if (std::sscanf(cap, "%u.%u", &major, &minor) != 2 || major != 1 ||
        minor < 1)
      return Status::error(ErrorKind::InvalidArgument,
                           std::string("SLUICE_VULKAN_API_VERSION='") + cap +
                               "' is not a Vulkan version of 1.1 or later "
                               "such as 1.1, 1.2 or 1.3");
    state.instanceApiVersion =
        std::min(state.instanceApiVersion, VK_MAKE_API_VERSION(0, 1, minor, 0));
  }
  return Status::success();
}

Status loadInstanceFunctions(ContextState &state) {
  Functions &fn = state.fn;
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

Status loadDeviceFunctions(ContextState &state) {
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
  if (state.info.bufferDeviceAddress)
    state.fn.vkGetBufferDeviceAddress =
        reinterpret_cast<PFN_vkGetBufferDeviceAddress>(
            state.fn.vkGetDeviceProcAddr(state.device,
                                         "vkGetBufferDeviceAddress"));
  if (state.info.bufferDeviceAddress && !state.fn.vkGetBufferDeviceAddress)
    state.info.bufferDeviceAddress = false;
  return Status::success();
}

} // namespace sluice::runtime::vulkan::detail
