//===- sluice-fuzz-lowering.cpp - libFuzzer: the lowering pipelines -------===//
//
// Inputs that parse, verify and pass `sluice-verify` are lowered the way
// compileWaveProgram lowers them, short of object code: sluice-wave-to-gpu
// (wave-split, convert-wave-to-gpu, the megakernel), the descriptor read back
// through the runtime's reader, then one clone of the gpu hand-off each
// through sluice-wave-to-cpu (to the LLVM dialect; a lane at a time and 8
// lanes at a time in vector registers), sluice-wave-to-spirv
// (serialized, and validated by SPIRV-Tools for Vulkan 1.1 where the build
// found it) and sluice-wave-to-hip (printed). Even inputs lower in the SoA
// layout, odd ones in AoS. Errors are expected and silenced; crashes,
// sanitizer reports, a descriptor that the runtime rejects and a SPIR-V
// module that fails validation are findings (a driver may run an invalid
// module forever: docs/spirv-backend.md, sluice-spirv-split-loop-headers).
//
//===----------------------------------------------------------------------===//

#include "FuzzMLIRInput.h"

#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"
#include "sluice/InitAll.h"
#include "sluice/Pipelines/Compile.h"
#include "sluice/Pipelines/Pipelines.h"
#include "sluice/Target/HIP/HIPSource.h"
#include "sluice/Target/SPIRV/SPIRVBinary.h"
#include "sluice/runtime/program/artifact.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#ifdef SLUICE_FUZZ_SPIRV_VALIDATE
#include <spirv-tools/libspirv.h>
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
namespace rt = sluice::runtime;

static MLIRContext &fuzzContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    sluice::registerWaveCompiler(registry);
    return sluice::fuzz::silentContext(registry);
  }();
  return *context;
}

static bool runPipeline(ModuleOp module,
                        llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  build(pm);
  return succeeded(pm.run(module));
}

// The runtime reads every descriptor the compiler writes (compileWaveProgram
// turns a refusal into an error; here it is a finding).
static void checkDescriptorRoundTrip(ModuleOp module) {
  FailureOr<llvm::json::Object> json = sluice::programDescriptorJSON(module);
  if (failed(json))
    return;
  std::string text =
      llvm::formatv("{0:2}", llvm::json::Value(std::move(*json))).str();
  rt::CompiledProgram program;
  rt::Status status = rt::parseDescriptor(text, "<compiled>", program);
  if (status.ok())
    return;
  std::fprintf(stderr,
               "sluice-fuzz-lowering: the runtime rejects the descriptor that "
               "convert-wave-to-gpu wrote: %s\n%s\n",
               status.describe().c_str(), text.c_str());
  std::abort();
}

// Every module sluice-wave-to-spirv serializes passes SPIRV-Tools'
// validator for Vulkan 1.1 (what `spirv-val --target-env vulkan1.1` checks).
static void validateSPIRV(llvm::ArrayRef<uint32_t> words) {
#ifdef SLUICE_FUZZ_SPIRV_VALIDATE
  spv_context context = spvContextCreate(SPV_ENV_VULKAN_1_1);
  spv_const_binary_t binary{words.data(), words.size()};
  spv_diagnostic diagnostic = nullptr;
  spv_result_t result = spvValidate(context, &binary, &diagnostic);
  if (result != SPV_SUCCESS) {
    std::fprintf(stderr,
                 "sluice-fuzz-lowering: sluice-wave-to-spirv wrote a module "
                 "that fails validation (Vulkan 1.1): %s\n",
                 diagnostic ? diagnostic->error : "no diagnostic");
    std::abort();
  }
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
#else
  (void)words;
#endif
}

static void lowerClones(ModuleOp handOff) {
  // The CPU lowering a lane at a time, and 8 lanes at a time wherever the
  // lane loops can be vectorized (lane-vector-always: the cost model would
  // leave most of a fuzzed program's loops scalar).
  for (unsigned width : {0u, 8u}) {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(handOff->clone()));
    (void)runPipeline(*copy, [&](OpPassManager &pm) {
      sluice::WaveToCPUOptions cpu;
      cpu.laneVectorWidth = width;
      cpu.laneVectorAlways = width != 0;
      sluice::buildWaveToCPUPipeline(pm, cpu);
    });
  }
  {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(handOff->clone()));
    if (runPipeline(*copy, sluice::buildWaveToSPIRVPipeline))
      if (spirv::ModuleOp spv =
              sluice::spirvModuleFor(*copy, "sluice_kernels")) {
        llvm::SmallVector<uint32_t> words;
        if (succeeded(sluice::serializeSPIRV(spv, words)))
          validateSPIRV(words);
      }
  }
  // HIP with index in int64_t (the default) and in int32_t.
  for (unsigned indexBitwidth : {64u, 32u}) {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(handOff->clone()));
    if (runPipeline(*copy, [&](OpPassManager &pm) {
          sluice::buildWaveToHIPPipeline(pm, indexBitwidth);
        })) {
      std::string source;
      llvm::raw_string_ostream os(source);
      (void)sluice::printHIPSource(*copy, os);
    }
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = fuzzContext();
  OwningOpRef<ModuleOp> module =
      sluice::fuzz::parseVerifiedModule(data, size, context);
  if (!module)
    return 0;
  // Only programs that the verifiers accept reach the lowerings.
  {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>((*module)->clone()));
    if (!runPipeline(*copy, sluice::buildVerificationPipeline))
      return 0;
  }
  sluice::WaveToGPUOptions gpu;
  gpu.layout = size % 2 ? "aos" : "soa";
  if (!runPipeline(*module, [&](OpPassManager &pm) {
        sluice::buildWaveToGPUPipeline(pm, gpu);
      }))
    return 0;
  checkDescriptorRoundTrip(*module);
  lowerClones(*module);
  return 0;
}
