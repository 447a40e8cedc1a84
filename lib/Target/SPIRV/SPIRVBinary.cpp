//===- SPIRVBinary.cpp - --sluice-to-spirv-bin ----------------------------===//
//
// Serializes the spirv.modules of a module lowered by sluice-to-spirv with
// spirv::serialize. Without --sluice-spirv-dir the single spirv.module is
// written to the output; with it, one <module>.spv per spirv.module (the
// `__spv__` prefix dropped) and, when the module has a program descriptor,
// program.json, and the output lists what was written.
//
//===----------------------------------------------------------------------===//

#include "sluice/Target/SPIRV/SPIRVBinary.h"
#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace {

LogicalResult writeFile(Location loc, StringRef path,
                        llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::error_code ec;
  llvm::ToolOutputFile file(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return emitError(loc, "cannot write the output file ")
           << path << ": " << ec.message();
  write(file.os());
  file.keep();
  return success();
}

LogicalResult translate(ModuleOp module, llvm::raw_ostream &os, StringRef dir) {
  SmallVector<spirv::ModuleOp> spvModules(module.getOps<spirv::ModuleOp>());
  if (spvModules.empty())
    return module.emitError("no spirv.module to serialize; run "
                            "--sluice-to-spirv first");
  if (dir.empty()) {
    if (spvModules.size() != 1)
      return module.emitError() << spvModules.size()
                                << " spirv.modules; give --sluice-spirv-dir to "
                                   "write one file each";
    SmallVector<uint32_t> binary;
    if (failed(sluice::serializeSPIRV(spvModules.front(), binary)))
      return failure();
    os.write(reinterpret_cast<const char *>(binary.data()),
             binary.size() * sizeof(uint32_t));
    return success();
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return module.emitError("cannot create the SPIR-V output directory ")
           << dir << ": " << ec.message();
  for (spirv::ModuleOp spv : spvModules) {
    StringRef name = sluice::gpuModuleNameOf(spv);
    SmallString<128> path(dir);
    llvm::sys::path::append(path, name + ".spv");
    SmallVector<uint32_t> binary;
    if (failed(sluice::serializeSPIRV(spv, binary)) ||
        failed(writeFile(spv.getLoc(), path, [&](llvm::raw_ostream &out) {
          out.write(reinterpret_cast<const char *>(binary.data()),
                    binary.size() * sizeof(uint32_t));
        })))
      return failure();
    os << "spirv " << name << " " << path << " entry_points";
    for (auto entry : spv.getOps<spirv::EntryPointOp>())
      os << " " << entry.getFn();
    os << "\n";
  }
  if (module->hasAttr(sluice::kProgramDescriptorAttrName)) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, "program.json");
    LogicalResult printed = success();
    if (failed(writeFile(module.getLoc(), path,
                         [&](llvm::raw_ostream &out) {
                           printed =
                               sluice::printProgramDescriptorJSON(module, out);
                         })) ||
        failed(printed))
      return failure();
    os << "descriptor " << path << "\n";
  }
  return success();
}

} // namespace

StringRef sluice::gpuModuleNameOf(spirv::ModuleOp module) {
  StringRef name = module.getName().value_or("module");
  name.consume_front("__spv__");
  return name;
}

spirv::ModuleOp sluice::spirvModuleFor(ModuleOp module, StringRef gpuModule) {
  return module.lookupSymbol<spirv::ModuleOp>(("__spv__" + gpuModule).str());
}

LogicalResult sluice::serializeSPIRV(spirv::ModuleOp module,
                                     SmallVectorImpl<uint32_t> &binary) {
  if (failed(spirv::serialize(module, binary)))
    return module.emitError("spirv.module could not be serialized");
  return success();
}

void sluice::registerSPIRVBinaryTranslation() {
  static llvm::cl::opt<std::string> spirvDir(
      "sluice-spirv-dir",
      llvm::cl::desc("--sluice-to-spirv-bin: write one <module>.spv per "
                     "spirv.module and program.json into this directory"),
      llvm::cl::init(""));
  static TranslateFromMLIRRegistration registration(
      "sluice-to-spirv-bin",
      "Serialize the spirv.modules of a module lowered by sluice-to-spirv",
      [](ModuleOp module, llvm::raw_ostream &os) {
        return translate(module, os, spirvDir);
      },
      [](DialectRegistry &registry) { registerAllDialects(registry); });
}
