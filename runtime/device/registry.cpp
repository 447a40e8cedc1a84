//===- registry.cpp - Backend name -> adapter -----------------------------===//

#include "sluice/runtime/device/backend.h"

namespace sluice::runtime {

LoadedProgram::~LoadedProgram() = default;

std::span<const BackendAdapter> backendAdapters() {
  static const BackendAdapter adapters[] = {
      {"cpu", "compiled kernels on the CPU device's worker pool",
       /*stateMachine=*/true, /*workers=*/true, loadCpuProgram},
      {"vulkan",
       "SPIR-V kernels on a Vulkan device (SLUICE_VULKAN_DEVICE picks it)",
       /*stateMachine=*/false, /*workers=*/false, loadVulkanProgram},
  };
  return adapters;
}

const BackendAdapter *findBackendAdapter(std::string_view name) {
  for (const BackendAdapter &adapter : backendAdapters())
    if (adapter.name == name)
      return &adapter;
  return nullptr;
}

std::string backendAdapterNames() {
  std::string names;
  for (const BackendAdapter &adapter : backendAdapters())
    names += (names.empty() ? "" : ", ") + std::string(adapter.name);
  return names;
}

} // namespace sluice::runtime
