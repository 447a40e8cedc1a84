//===- Pipelines.h - Sluice's registered pipelines --------------*- C++ -*-===//
//
// Every pipeline a tool runs, callable from C++ so that a front end gets
// exactly what the tools do (DESIGN.md §3):
//
//   sluice-inline-helpers the upstream inliner, then wave-verify-helpers-inlined
//                         (no call left in a coroutine or a pool handler);
//                         sluice-verify and sluice-wave-to-gpu start with it
//   sluice-wave-to-gpu    pool-set-capacity, the three proofs, wave-split,
//                         convert-wave-to-gpu (the gpu hand-off + descriptor)
//   sluice-wave-to-cpu    sluice-structure-stage-kernels, convert-gpu-to-cpu,
//                         scf-to-cf, convert-to-llvm (stage kernels as block
//                         functions in the LLVM dialect)
//   sluice-wave-to-spirv  sluice-to-spirv with the stage kernels' workgroup
//   sluice-wave-to-hip    sluice-gpu-to-hip with the stage kernels' block size
//   sluice-host-to-llvm   a host program with gpu.launch_func and cohort
//                         graphs to the LLVM dialect, for a backend
//
// and compileWaveProgram, which runs them and writes the compiled-program
// artifact (docs/artifact.md) for one or more backends.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_PIPELINES_PIPELINES_H
#define SLUICE_PIPELINES_PIPELINES_H

#include "sluice/ABI/KernelABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace sluice {

struct WaveToGPUOptions : public mlir::PassPipelineOptions<WaveToGPUOptions> {
  Option<std::string> layout{*this, "layout",
                             llvm::cl::desc("Frame layout: soa | aos"),
                             llvm::cl::init("soa")};
  ListOption<std::string> capacities{
      *this, "capacities",
      llvm::cl::desc("NAME=N: compile pool.owner @NAME with capacity N")};
  Option<bool> checkBounds{
      *this, "check-bounds",
      llvm::cl::desc("Bounds-check every access to a buffer binding"),
      llvm::cl::init(false)};
  Option<bool> lanePublishPositions{
      *this, "lane-publish-positions",
      llvm::cl::desc("pool.publish at free-ring position invocation * bound "
                     "+ k, no atomic claim (the CPU backend's kernels)"),
      llvm::cl::init(false)};
};

/// The upstream inliner (no simplification pipeline) and
/// wave-verify-helpers-inlined: every func.func helper called from a
/// coroutine or a pool handler is inlined, or it is an error at the call.
void buildInlineHelpersPipeline(mlir::OpPassManager &pm);

/// pool-set-capacity, sluice-verify (helpers inlined, emission bounds, item
/// linearity, cohort fit), wave-split and convert-wave-to-gpu.
void buildWaveToGPUPipeline(mlir::OpPassManager &pm,
                            const WaveToGPUOptions &options);

struct WaveToCPUOptions : public mlir::PassPipelineOptions<WaveToCPUOptions> {
  Option<bool> forceCoroutines{
      *this, "force-coroutines",
      llvm::cl::desc("Lower every kernel on the coroutine path"),
      llvm::cl::init(false)};
  Option<unsigned> coroutineLanes{
      *this, "coroutine-lanes",
      llvm::cl::desc("Lanes per coroutine on the coroutine path"),
      llvm::cl::init(128)};
  Option<unsigned> laneVectorWidth{
      *this, "lane-vector-width",
      llvm::cl::desc("Lanes a fission lane loop runs at a time in vector "
                     "registers (0 or 1: one at a time)"),
      llvm::cl::init(0)};
  Option<bool> laneVectorAlways{
      *this, "lane-vector-always",
      llvm::cl::desc("With lane-vector-width: every lane loop that can be, "
                     "not only where the cost model expects it to pay"),
      llvm::cl::init(false)};
};

/// The gpu hand-off's stage kernels to block functions in the LLVM dialect.
void buildWaveToCPUPipeline(mlir::OpPassManager &pm,
                            const WaveToCPUOptions &options);

/// sluice-to-spirv with workgroups of SLUICE_KERNEL_BLOCK_LANES lanes.
void buildWaveToSPIRVPipeline(mlir::OpPassManager &pm);

/// sluice-gpu-to-hip with __launch_bounds__(SLUICE_KERNEL_BLOCK_LANES).
void buildWaveToHIPPipeline(mlir::OpPassManager &pm,
                            unsigned indexBitwidth = 64);

struct HostToLLVMOptions : public mlir::PassPipelineOptions<HostToLLVMOptions> {
  Option<std::string> backend{
      *this, "backend",
      llvm::cl::desc(
          "Where the kernels of gpu.launch_func run: cpu | vulkan | hip"),
      llvm::cl::init("cpu")};
  Option<bool> forceCoroutines{
      *this, "force-coroutines",
      llvm::cl::desc("cpu: lower every kernel on the coroutine path"),
      llvm::cl::init(false)};
  Option<unsigned> coroutineLanes{
      *this, "coroutine-lanes",
      llvm::cl::desc("cpu: lanes per coroutine on the coroutine path"),
      llvm::cl::init(128)};
  Option<unsigned> laneVectorWidth{
      *this, "lane-vector-width",
      llvm::cl::desc("cpu: lanes a fission lane loop runs at a time in "
                     "vector registers (0 or 1: one at a time)"),
      llvm::cl::init(0)};
  Option<bool> laneVectorAlways{
      *this, "lane-vector-always",
      llvm::cl::desc("With lane-vector-width: every lane loop that can be, "
                     "not only where the cost model expects it to pay"),
      llvm::cl::init(false)};
};

/// A host program (func.func @main with gpu.launch_func, cohort graphs) to
/// the LLVM dialect: convert-cohort-to-llvm, then the kernels for the backend
/// and the launches on the host-launch ABI (convert-gpu-to-cpu, or
/// convert-gpu-launch-to-runtime), scf-to-cf, convert-to-llvm. Run the
/// proofs (sluice-verify) first.
void buildHostToLLVMPipeline(mlir::OpPassManager &pm,
                             const HostToLLVMOptions &options);

/// Registers the pipelines above with the pass registry.
void registerSluicePipelines();

/// What compileWaveProgram compiles, and for which backends.
struct WaveCompileOptions {
  std::string layout = "soa";          // soa | aos
  std::vector<std::string> capacities; // NAME=N overrides
  std::vector<std::string> backends{"cpu"}; // cpu, vulkan, hip
  // Bounds-check every access to a buffer binding: an index outside it
  // stops the run with an error naming the binding, index, lane and stage.
  bool checkBounds = false;
  bool forceCoroutines = false;        // CPU backend only
  unsigned coroutineLanes = 128;       // CPU backend only
  // CPU backend only: lanes a fission lane loop runs at a time in vector
  // registers, masked where they diverge (docs/cpu-backend.md, "Lanes in
  // vector registers"); 0 or 1: one at a time.
  unsigned laneVectorWidth = 0;
  bool laneVectorAlways = false;       // every lane loop that can be, not only
                                       // where the cost model expects a gain
  unsigned optLevel = 2;               // CPU object code, 0..3
  // The CPU the object code targets: "native" (this machine's CPU and
  // features), "generic" (the baseline of the host's architecture, so an
  // artifact runs on another machine of that architecture) or an x86-64
  // microarchitecture level, "x86-64-v2", "x86-64-v3" (AVX2 and FMA: a fused
  // math.fma is one instruction, not a call to libm's fmaf) or "x86-64-v4"
  // (AVX-512), which the artifact records (backends.cpu.isa) and the runtime
  // checks before it loads the kernels.
  std::string cpu = "native";
  // Which backends' megakernel votes per subgroup on the stage to run
  // (sluice-build-megakernel's warp-vote): "hip", "gpu" (hip and vulkan) or
  // "none" (each thread runs its own stage).
  std::string megakernelVote = "hip";
  // The width of `index` inside the HIP kernels: 64, or 32 as on SPIR-V
  // (kernel parameters stay int64_t, the ABI's).
  unsigned hipIndexBitwidth = 64;
  // Where the lowered forms are printed (LLVM dialect, spirv.module), or null.
  llvm::raw_ostream *printLowered = nullptr;
};

/// The backends compileWaveProgram can target.
llvm::ArrayRef<llvm::StringRef> waveBackends();

/// Compiles the wave program in `module` (consumed: it is lowered in place)
/// into the bytes of a compiled-program artifact. Errors are diagnostics on
/// the module's context; a bad option is an error at the module.
mlir::LogicalResult compileWaveProgram(mlir::ModuleOp module,
                                       const WaveCompileOptions &options,
                                       std::vector<unsigned char> &artifact);

/// Registers `--sluice-to-artifact` (and its options) with the translation
/// registry: a wave program to the artifact file.
void registerArtifactTranslation();

} // namespace sluice

#endif // SLUICE_PIPELINES_PIPELINES_H
