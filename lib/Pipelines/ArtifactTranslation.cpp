//===- ArtifactTranslation.cpp - --sluice-to-artifact ---------------------===//
//
// sluice-translate --sluice-to-artifact [--sluice-backends=cpu,vulkan] P.mlir
//   -o P.sluice: compiles a wave program (compileWaveProgram) and writes the
// artifact that sluice-run-artifact and the runtime's Artifact::read load.
//
//===----------------------------------------------------------------------===//

#include "sluice/Pipelines/Pipelines.h"

#include "sluice/InitAll.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

void sluice::registerArtifactTranslation() {
  static llvm::cl::OptionCategory category("--sluice-to-artifact options");
  static llvm::cl::list<std::string> backends(
      "sluice-backends",
      llvm::cl::desc("--sluice-to-artifact: the backends to compile kernels "
                     "for (cpu, vulkan, hip; default cpu)"),
      llvm::cl::CommaSeparated, llvm::cl::cat(category));
  static llvm::cl::opt<std::string> layout(
      "sluice-layout",
      llvm::cl::desc("--sluice-to-artifact: frame layout, soa | aos"),
      llvm::cl::init("soa"), llvm::cl::cat(category));
  static llvm::cl::list<std::string> capacities(
      "sluice-capacity",
      llvm::cl::desc("--sluice-to-artifact: NAME=N compiles pool.owner @NAME "
                     "with capacity N"),
      llvm::cl::cat(category));
  static llvm::cl::opt<std::string> cpu(
      "sluice-cpu",
      llvm::cl::desc("--sluice-to-artifact: CPU of the object code, generic "
                     "(runs on any machine of this architecture, the "
                     "default), native (this machine's), or an x86-64 level "
                     "x86-64-v2|v3|v4 (v3: AVX2 and FMA; the runtime refuses "
                     "a CPU without it)"),
      llvm::cl::init("generic"), llvm::cl::cat(category));
  static llvm::cl::opt<unsigned> optLevel(
      "sluice-opt-level",
      llvm::cl::desc("--sluice-to-artifact: LLVM optimization level of the CPU "
                     "kernels (0-3)"),
      llvm::cl::init(2), llvm::cl::cat(category));
  static llvm::cl::opt<unsigned> cpuSimd(
      "sluice-cpu-simd",
      llvm::cl::desc("--sluice-to-artifact: lanes a CPU stage kernel runs at "
                     "a time in vector registers, masked where they diverge "
                     "(docs/cpu-backend.md; 0 or 1: one at a time, the "
                     "default)"),
      llvm::cl::init(0), llvm::cl::cat(category));
  static llvm::cl::opt<bool> cpuSimdAll(
      "sluice-cpu-simd-all",
      llvm::cl::desc("--sluice-to-artifact: with --sluice-cpu-simd, every "
                     "stage kernel that can be vectorized, not only those "
                     "where the cost model expects a gain"),
      llvm::cl::init(false), llvm::cl::cat(category));
  static llvm::cl::opt<bool> checkBounds(
      "sluice-check-bounds",
      llvm::cl::desc("--sluice-to-artifact: bounds-check every access to a "
                     "buffer binding (a fault names the binding, index, lane "
                     "and stage)"),
      llvm::cl::init(false), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> megakernelVote(
      "sluice-megakernel-vote",
      llvm::cl::desc("--sluice-to-artifact: which megakernels run one stage "
                     "per subgroup at a time, the furthest any thread of it "
                     "waits at: hip (the default), gpu (hip and vulkan) or "
                     "none (each thread its own stage)"),
      llvm::cl::init("hip"), llvm::cl::cat(category));
  static llvm::cl::opt<unsigned> hipIndexBitwidth(
      "sluice-hip-index-bitwidth",
      llvm::cl::desc("--sluice-to-artifact: the width of `index` inside the "
                     "HIP kernels, 64 or 32 (as on SPIR-V; kernel parameters "
                     "stay int64_t)"),
      llvm::cl::init(64), llvm::cl::cat(category));
  static TranslateFromMLIRRegistration registration(
      "sluice-to-artifact",
      "Compile a wave program into a compiled-program artifact "
      "(docs/artifact.md)",
      [](ModuleOp module, llvm::raw_ostream &os) {
        WaveCompileOptions options;
        if (!backends.empty())
          options.backends.assign(backends.begin(), backends.end());
        options.layout = layout;
        options.capacities.assign(capacities.begin(), capacities.end());
        options.cpu = cpu;
        options.optLevel = optLevel;
        options.laneVectorWidth = cpuSimd;
        options.laneVectorAlways = cpuSimdAll;
        options.checkBounds = checkBounds;
        options.megakernelVote = megakernelVote;
        options.hipIndexBitwidth = hipIndexBitwidth;
        std::vector<unsigned char> artifact;
        if (failed(compileWaveProgram(module, options, artifact)))
          return failure();
        os.write(reinterpret_cast<const char *>(artifact.data()),
                 artifact.size());
        return success();
      },
      [](DialectRegistry &registry) {
        registerAllDialects(registry);
        registerAllExtensions(registry);
        registerSluiceDialects(registry);
      });
}
