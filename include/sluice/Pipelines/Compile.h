//===- Compile.h - Compile a wave program and run it from C++ ---*- C++ -*-===//
//
// The compiler half of embedding Sluice (docs/embedding.md). A front end
// builds or parses a wave program into a ModuleOp, then makes two calls:
//
//   mlir::DialectRegistry registry;
//   sluice::registerWaveCompiler(registry);   // once, for the context
//   ...
//   sluice::runtime::Program program;
//   sluice::runtime::Status status =
//       sluice::compileProgram(module, options, "cpu", program);
//   ... program.bind(...), program.run(...), program.read(...)
//
// compileProgram compiles the module (compileWaveProgram) into an artifact in
// memory and hands it to the runtime's Program (runtime/program/session.h).
// compileArtifact keeps the artifact (to load it on several backends, or to
// look at it), compileArtifactFile writes it where sluice-run-artifact and
// sluice_add_program's consumers read it.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_PIPELINES_COMPILE_H
#define SLUICE_PIPELINES_COMPILE_H

#include "sluice/Pipelines/Pipelines.h"
#include "sluice/runtime/program/artifact.h"
#include "sluice/runtime/program/session.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringRef.h"

#include <string_view>

namespace sluice {

/// Everything compileWaveProgram needs in its context: the upstream dialects
/// and their extensions (the lowerings to LLVM and SPIR-V use them) and
/// Sluice's dialects. What sluice-translate registers.
void registerWaveCompiler(mlir::DialectRegistry &registry);

/// Compiles the wave program in `module` (consumed: it is lowered in place)
/// into an artifact in memory, read back through the runtime's reader.
/// Errors are diagnostics on the module's context.
mlir::LogicalResult compileArtifact(mlir::ModuleOp module,
                                    const WaveCompileOptions &options,
                                    runtime::Artifact &out);

/// Compiles `module` (consumed) and writes the artifact to `path`; a file
/// that cannot be written is an error at the module.
mlir::LogicalResult compileArtifactFile(mlir::ModuleOp module,
                                        const WaveCompileOptions &options,
                                        llvm::StringRef path);

/// Compiles `module` (consumed) for `backend` (added to options.backends if
/// missing) and loads it there. A compile error is an InvalidArgument status
/// whose message is "cannot compile @<coroutine>: " and the first error
/// (with its location); every diagnostic also reaches the context's
/// handlers. A load error is the runtime's (DeviceUnavailable: no device).
runtime::Status compileProgram(mlir::ModuleOp module,
                               const WaveCompileOptions &options,
                               std::string_view backend,
                               runtime::Program &out,
                               const runtime::LoadOptions &load = {});

} // namespace sluice

#endif // SLUICE_PIPELINES_COMPILE_H
