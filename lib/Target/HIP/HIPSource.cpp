//===- HIPSource.cpp - --sluice-to-hip ------------------------------------===//
//
// The emitc.files of sluice-gpu-to-hip-emitc through emitc::translateToCpp:
// the prelude, then every gpu.module's file, one translation unit. A module
// that has not been lowered yet is lowered first (sluice-gpu-to-hip).
//
//===----------------------------------------------------------------------===//

#include "sluice/Target/HIP/HIPSource.h"
#include "sluice/Conversion/GPUToEmitC/HIPBackend.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"

using namespace mlir;

LogicalResult sluice::printHIPSource(ModuleOp module, llvm::raw_ostream &os,
                                     StringRef gpuModule) {
  emitc::FileOp prelude;
  SmallVector<emitc::FileOp> files;
  std::string prefix = (kHIPPreludeFileId + ".").str();
  for (auto file : module.getOps<emitc::FileOp>()) {
    if (file.getId().getValue() == kHIPPreludeFileId)
      prelude = file;
    else if (file.getId().getValue().starts_with(prefix) &&
             (gpuModule.empty() ||
              file.getId().getValue() == hipFileId(gpuModule)))
      files.push_back(file);
  }
  if (!prelude)
    return module.emitError("no HIP source in the module: it has no "
                            "gpu.module, or sluice-gpu-to-hip has not run");
  if (!gpuModule.empty() && files.empty())
    return module.emitError("no HIP source for gpu.module @") << gpuModule;
  if (failed(emitc::translateToCpp(prelude, os, /*declareVariablesAtTop=*/false,
                                   prelude.getId())))
    return failure();
  for (emitc::FileOp file : files) {
    os << "\n";
    if (failed(emitc::translateToCpp(file, os, /*declareVariablesAtTop=*/false,
                                     file.getId())))
      return failure();
  }
  return success();
}

void sluice::registerHIPSourceTranslation() {
  static llvm::cl::opt<unsigned> blockSize(
      "sluice-hip-block-size",
      llvm::cl::desc("--sluice-to-hip: __launch_bounds__ of kernels without "
                     "a known block size (0: none)"),
      llvm::cl::init(0));
  static TranslateFromMLIRRegistration registration(
      "sluice-to-hip",
      "Print the gpu.modules of a module as one HIP C++ source "
      "(sluice-gpu-to-hip, then emitc::translateToCpp)",
      [](ModuleOp module, llvm::raw_ostream &os) {
        bool lowered = llvm::any_of(
            module.getOps<emitc::FileOp>(), [](emitc::FileOp file) {
              return file.getId().getValue() == kHIPPreludeFileId;
            });
        if (!lowered) {
          PassManager pm(module.getContext());
          buildSluiceGPUToHIPPipeline(pm, blockSize);
          if (failed(pm.run(module)))
            return failure();
        }
        return printHIPSource(module, os);
      },
      [](DialectRegistry &registry) {
        registerAllDialects(registry);
        registerAllExtensions(registry);
      });
}
