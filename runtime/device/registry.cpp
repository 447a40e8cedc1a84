//===- registry.cpp - Backend name -> adapter -----------------------------===//

#include "sluice/runtime/device/backend.h"

namespace sluice::runtime {

LoadedProgram::~LoadedProgram() = default;

std::span<const BackendAdapter> backendAdapters() {
  static const BackendAdapter adapters[] = {
      {"cpu", "compiled kernels on the CPU device's worker pool", "cpu",
       /*stateMachine=*/true, /*workers=*/true, loadCpuProgram},
      {"cpu-staged",
       "the same CPU kernels on the compiled-kernel device with discrete "
       "memory (every transfer a copy), as a GPU adapter runs them",
       "cpu",
       /*stateMachine=*/true, /*workers=*/true, loadCpuStagedProgram},
      {"vulkan",
       "SPIR-V kernels on a Vulkan device (SLUICE_VULKAN_DEVICE picks it)",
       "vulkan",
       /*stateMachine=*/true, /*workers=*/false, loadVulkanProgram},
      {"hip",
       "HIP kernels on an AMD GPU (HIP runtime, hiprtc) or an NVIDIA GPU "
       "(NVRTC, CUDA driver); SLUICE_HIP_PLATFORM=amd|nvidia picks one",
       "hip",
       /*stateMachine=*/true, /*workers=*/false, loadHipProgram},
  };
  return adapters;
}

const BackendAdapter *findBackendAdapter(std::string_view name) {
  for (const BackendAdapter &adapter : backendAdapters())
    if (adapter.name == name)
      return &adapter;
  return nullptr;
}

std::string_view backendKernels(std::string_view adapter) {
  const BackendAdapter *found = findBackendAdapter(adapter);
  return found ? found->kernels : adapter;
}

std::string backendAdapterNames() {
  std::string names;
  for (const BackendAdapter &adapter : backendAdapters())
    names += (names.empty() ? "" : ", ") + std::string(adapter.name);
  return names;
}

} // namespace sluice::runtime
