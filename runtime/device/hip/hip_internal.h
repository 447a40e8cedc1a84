//===- hip_internal.h - What the HIP driver files share ---------*- C++ -*-===//
#ifndef SLUICE_RUNTIME_DEVICE_HIP_HIP_INTERNAL_H
#define SLUICE_RUNTIME_DEVICE_HIP_HIP_INTERNAL_H

#include "sluice/runtime/device/hip/hip_driver.h"

#include <functional>
#include <string>
#include <vector>

namespace sluice::runtime::hip::detail {

// dlopen of the first candidate that loads; `tried` gets "name (reason)" for
// each one that did not.
void *openFirst(const std::vector<std::string> &candidates, std::string &opened,
                std::string &tried);
// dlsym, trying each name in turn (versioned entry points first).
void *symbol(void *library, std::initializer_list<const char *> names);

// The platform drivers (hip_nvidia.cpp, hip_amd.cpp). DeviceUnavailable
// when the platform's library is missing or reports no device.
Status openNvidiaDriver(const DriverRequest &request,
                        std::unique_ptr<Driver> &out);
Status openAmdDriver(const DriverRequest &request,
                     std::unique_ptr<Driver> &out);

// The code-object cache around one compile (hip_driver.cpp).
using UncachedCompile = std::function<Status(
    const std::vector<std::string> &options, std::vector<char> &image)>;
Status cachedCompile(Platform platform, const std::string &architecture,
                     const std::vector<std::string> &options,
                     const std::string &source, const UncachedCompile &compile,
                     std::vector<char> &image);

class Nvrtc;

} // namespace sluice::runtime::hip::detail

#endif // SLUICE_RUNTIME_DEVICE_HIP_HIP_INTERNAL_H
