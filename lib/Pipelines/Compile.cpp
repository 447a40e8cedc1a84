//===- Compile.cpp - Compile a wave program and run it from C++ -----------===//

#include "sluice/Pipelines/Compile.h"

#include "sluice/Dialect/Wave/IR/WaveOps.h"
#include "sluice/InitAll.h"
#include "sluice/runtime/device/backend.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace rt = sluice::runtime;

namespace sluice {

void registerWaveCompiler(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerSluiceDialects(registry);
}

LogicalResult compileArtifact(ModuleOp module,
                              const WaveCompileOptions &options,
                              rt::Artifact &out) {
  std::vector<unsigned char> bytes;
  if (failed(compileWaveProgram(module, options, bytes)))
    return failure();
  if (rt::Status status = rt::Artifact::read(std::move(bytes), "<compiled>", out);
      !status.ok())
    return module.emitError(status.describe());
  return success();
}

LogicalResult compileArtifactFile(ModuleOp module,
                                  const WaveCompileOptions &options,
                                  llvm::StringRef path) {
  std::vector<unsigned char> bytes;
  if (failed(compileWaveProgram(module, options, bytes)))
    return failure();
  std::error_code error;
  llvm::raw_fd_ostream file(path, error, llvm::sys::fs::OF_None);
  if (!error) {
    file.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    file.close();
    error = file.error();
  }
  if (error)
    return module.emitError("failed to write the artifact to '")
           << path << "': " << error.message();
  return success();
}

rt::Status compileProgram(ModuleOp module, const WaveCompileOptions &options,
                          std::string_view backend, rt::Program &out,
                          const rt::LoadOptions &load) {
  std::string name = "<no coroutine>";
  if (auto coroutines = module.getOps<wave::CoroutineOp>();
      !coroutines.empty())
    name = "@" + (*coroutines.begin()).getSymName().str();
  WaveCompileOptions once = options;
  std::string kernels(rt::backendKernels(backend));
  if (!llvm::is_contained(once.backends, kernels))
    once.backends.push_back(kernels);
  // The first error becomes the status; every diagnostic goes on to the
  // context's own handlers (failure(): not handled here).
  std::string firstError;
  rt::Artifact artifact;
  LogicalResult compiled = failure();
  {
    ScopedDiagnosticHandler handler(module.getContext(),
                                    [&](Diagnostic &diagnostic) {
                                      if (firstError.empty() &&
                                          diagnostic.getSeverity() ==
                                              DiagnosticSeverity::Error) {
                                        llvm::raw_string_ostream os(firstError);
                                        os << diagnostic.getLocation() << ": "
                                           << diagnostic.str();
                                      }
                                      return failure();
                                    });
    compiled = compileArtifact(module, once, artifact);
  }
  if (failed(compiled)) {
    std::string reason =
        firstError.empty() ? std::string("see the diagnostics") : firstError;
    return rt::Status::error(rt::ErrorKind::InvalidArgument,
                             "cannot compile " + name + ": " + reason);
  }
  return rt::Program::load(std::move(artifact), backend, out, load);
}

} // namespace sluice
