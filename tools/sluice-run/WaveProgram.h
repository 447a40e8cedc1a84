//===- WaveProgram.h - Run a wave coroutine program on the runtime -*- C++
//-*-===//
//
// sluice-run's path for `wave.coroutine` programs: wave-split ->
// convert-wave-to-gpu, then per backend
// - cpu: convert-gpu-to-cpu -> LLVM, JIT, then the runtime's wavefront
//   scheduler (or its state-machine schedule) on the CPU device; every stage
//   kernel is the lowered gpu kernel's block function behind one host
//   trampoline with the `sluice_rt_stage_kernel` signature;
// - vulkan: sluice-to-spirv -> spirv::serialize, then the same wavefront
//   scheduler on the Vulkan device (runtime/vulkan_device.h).
// The program descriptor the runtime runs is built from the `sluice.program`
// module attribute; both backends translate the compiled kernels' arguments
// with runtime/gpu_abi.h.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_TOOLS_SLUICE_RUN_WAVEPROGRAM_H
#define SLUICE_TOOLS_SLUICE_RUN_WAVEPROGRAM_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sluice::run {

struct WaveRunOptions {
  bool stats = false;                  // print the per-stage table
  std::string layout = "soa";          // soa | aos
  std::string schedule = "wavefront";  // wavefront | state-machine
  uint32_t lanes = 1;                  // coroutine instances
  uint32_t framePool = 256;            // frames in the pool
  std::vector<std::string> capacities; // NAME=N overrides
  std::string tracePath;               // Chrome trace (wavefront only)
  uint32_t workers = 0;                // 0: one per core
  bool partialAdmission = true;
  unsigned optLevel = 2;
  bool printLowered = false;
  std::string backend = "cpu"; // cpu | vulkan
  // The runtime symbols the JIT-compiled code may call.
  std::function<llvm::orc::SymbolMap(llvm::orc::MangleAndInterner)> symbols;
};

/// Compiles the wave program in `module` (consumed) and runs it. Returns the
/// process exit status: 0 ok, 1 compile or run failure, 2 bad options.
int runWaveProgram(mlir::ModuleOp module, const WaveRunOptions &options);

} // namespace sluice::run

#endif // SLUICE_TOOLS_SLUICE_RUN_WAVEPROGRAM_H
