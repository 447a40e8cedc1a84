//===- CPUObject.cpp - LLVM-dialect kernels to a shared object ------------===//
//
// The CPU backend's artifact section: LLVM IR -> the JIT's optimization
// pipeline -> PIC object code -> `ld.lld -shared`. lld runs as a process
// (SLUICE_LLD, else ld.lld-22 / ld.lld on PATH, else the configured LLVM's).
//
//===----------------------------------------------------------------------===//

#include "CPUObject.h"

#include "sluice/Config.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>

using namespace mlir;

namespace sluice {
namespace {

/// Removes the file when it goes out of scope.
struct TemporaryFile {
  llvm::SmallString<128> path;
  ~TemporaryFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

FailureOr<std::string> findLld(Location loc) {
  if (const char *forced = std::getenv("SLUICE_LLD"); forced && *forced)
    return std::string(forced);
  for (const char *name : {"ld.lld-22", "ld.lld"})
    if (auto found = llvm::sys::findProgramByName(name))
      return *found;
  if (llvm::sys::fs::can_execute(SLUICE_LLD_PATH))
    return std::string(SLUICE_LLD_PATH);
  return emitError(loc, "the CPU backend links its kernels with lld, which "
                        "was not found (set SLUICE_LLD, or install lld-22)");
}

std::unique_ptr<llvm::TargetMachine> hostMachine(const CPUObjectOptions &options,
                                                 Location loc) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    emitError(loc, "no LLVM target for ") << triple.str() << ": " << error;
    return nullptr;
  }
  std::string cpu = "generic", features;
  if (options.cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures host;
    for (const auto &entry : llvm::sys::getHostCPUFeatures())
      host.AddFeature(entry.getKey(), entry.getValue());
    features = host.getString();
  } else if (triple.getArch() == llvm::Triple::x86_64) {
    cpu = options.cpu == "generic" ? "x86-64" : options.cpu;
    if (options.fastGather &&
        (options.cpu == "x86-64-v3" || options.cpu == "x86-64-v4"))
      features = "+fast-gather";
  }
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, targetOptions, llvm::Reloc::PIC_, std::nullopt,
      static_cast<llvm::CodeGenOptLevel>(options.optLevel)));
  if (!machine)
    emitError(loc, "cannot create an LLVM target machine for ") << triple.str();
  return machine;
}

} // namespace

LogicalResult buildSharedObject(ModuleOp module, const CPUObjectOptions &options,
                                std::vector<unsigned char> &out) {
  Location loc = module.getLoc();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context, "sluice_kernels");
  if (!llvmModule)
    return emitError(loc, "the CPU kernels do not translate to LLVM IR");
  std::unique_ptr<llvm::TargetMachine> machine = hostMachine(options, loc);
  if (!machine)
    return failure();
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  // Only the block functions are the artifact's interface.
  for (llvm::Function &function : *llvmModule)
    if (llvm::is_contained(options.exportNames, function.getName()))
      function.setLinkage(llvm::GlobalValue::ExternalLinkage);
    else if (!function.isDeclaration() &&
             !function.getName().starts_with(options.exportPrefix))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);

  auto optimize =
      makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0, machine.get());
  if (llvm::Error error = optimize(llvmModule.get()))
    return emitError(loc, "optimizing the CPU kernels failed: ")
           << llvm::toString(std::move(error));

  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return emitError(loc, "LLVM cannot emit object code for ")
             << machine->getTargetTriple().str();
    codegen.run(*llvmModule);
  }

  FailureOr<std::string> lld = findLld(loc);
  if (failed(lld))
    return failure();
  TemporaryFile objectFile, sharedFile, log;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "sluice-kernels", "o", fd, objectFile.path))
    return emitError(loc, "cannot create a temporary file: ") << ec.message();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
    if (os.has_error()) {
      os.clear_error();
      return emitError(loc, "cannot write the CPU kernels' object file ")
             << objectFile.path;
    }
  }
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "sluice-kernels", "so", sharedFile.path))
    return emitError(loc, "cannot create a temporary file: ") << ec.message();
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sluice-lld", "log", log.path))
    return emitError(loc, "cannot create a temporary file: ") << ec.message();
  llvm::SmallVector<llvm::StringRef> arguments{
      *lld, "-shared", "--no-undefined-version", "-o", sharedFile.path,
      objectFile.path};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.path.str(),
                                                log.path.str()};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*lld, arguments, std::nullopt,
                                         redirects, 0, 0, &message);
  if (status != 0) {
    auto text = llvm::MemoryBuffer::getFile(log.path);
    return emitError(loc, "linking the CPU kernels with ")
           << *lld << " failed"
           << (message.empty() ? "" : ": " + message) << "\n"
           << (text ? (*text)->getBuffer() : "");
  }
  auto shared = llvm::MemoryBuffer::getFile(sharedFile.path, false, false);
  if (!shared)
    return emitError(loc, "cannot read ")
           << sharedFile.path << ": " << shared.getError().message();
  out.assign((*shared)->getBufferStart(), (*shared)->getBufferEnd());
  return success();
}

} // namespace sluice
