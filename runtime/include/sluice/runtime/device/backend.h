//===- backend.h - Backends that run compiled programs ----------*- C++ -*-===//
//
// The registry that maps a backend name (`cpu`, `vulkan`) to its adapter: how
// the kernels of a compiled-program artifact are loaded onto a device. Tools
// and front ends look backends up here; nothing compares backend strings.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_BACKEND_H
#define SLUICE_RUNTIME_DEVICE_BACKEND_H

#include "sluice/runtime/device/device.h"
#include "sluice/runtime/program/artifact.h"
#include "sluice/runtime/program/host_buffer.h"

#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace sluice::runtime {

struct BackendOptions {
  uint32_t lanes = 1;   // the run's lanes: the size of the input arrays
  uint32_t workers = 0; // CPU workers (0: one per core); CPU only
};

// A compiled program loaded onto one backend's device.
class LoadedProgram {
public:
  virtual ~LoadedProgram();
  virtual Device &device() = 0;
  // The runtime descriptor whose stages run the loaded kernels.
  virtual const ProgramDescriptor &program() const = 0;
  // One line about the device's work since loading (for stderr), or "".
  virtual std::string deviceSummary() const { return {}; }
  // Uploads one value per binding of the program, in descriptor order
  // (checked with checkBindingValues). They stay resident on the device for
  // every later run, which reads and updates them in place, until bound
  // again. A program with bindings must be bound before it runs. Where
  // `upload` (one flag per binding, or empty: all) says false, the device's
  // copy holds the value already and is not uploaded again (its shape is the
  // one bound before).
  virtual Status bind(std::span<const HostBuffer> values,
                      std::span<const bool> upload = {}) = 0;
  // Reads binding `index` back (after a run: what the kernels left there).
  virtual Status readBinding(uint32_t index, HostBuffer &out) = 0;
};

struct BackendAdapter {
  std::string_view name;
  std::string_view description;
  // The artifact backend whose kernels it runs ("cpu" for "cpu-staged").
  std::string_view kernels;
  bool stateMachine = false; // runs the state-machine schedule
  bool workers = false;      // takes BackendOptions::workers
  Status (*load)(const Artifact &artifact, const BackendOptions &options,
                 std::unique_ptr<LoadedProgram> &out) = nullptr;
};

// Every adapter this runtime was built with, in a fixed order (cpu first).
std::span<const BackendAdapter> backendAdapters();
// The adapter named `name`, or null.
const BackendAdapter *findBackendAdapter(std::string_view name);
// "cpu, cpu-staged, vulkan, hip": for messages.
std::string backendAdapterNames();
// The artifact backend adapter `adapter` runs (itself when unknown).
std::string_view backendKernels(std::string_view adapter);

// The adapters (runtime/device/cpu, runtime/device/vulkan, runtime/device/hip).
Status loadCpuProgram(const Artifact &artifact, const BackendOptions &options,
                      std::unique_ptr<LoadedProgram> &out);
Status loadCpuStagedProgram(const Artifact &artifact,
                            const BackendOptions &options,
                            std::unique_ptr<LoadedProgram> &out);
Status loadVulkanProgram(const Artifact &artifact,
                         const BackendOptions &options,
                         std::unique_ptr<LoadedProgram> &out);
Status loadHipProgram(const Artifact &artifact, const BackendOptions &options,
                      std::unique_ptr<LoadedProgram> &out);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_BACKEND_H
