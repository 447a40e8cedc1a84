//===- ProgramDescriptor.h - The program descriptor as JSON -----*- C++ -*-===//
//
// convert-wave-to-gpu records the program descriptor (docs/compiler.md) as
// the `sluice.program` module attribute; this prints it as JSON for hosts
// that load kernels and descriptor separately.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_WAVETOGPU_PROGRAMDESCRIPTOR_H
#define SLUICE_CONVERSION_WAVETOGPU_PROGRAMDESCRIPTOR_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice {

/// The module attribute holding the program descriptor.
constexpr llvm::StringLiteral kProgramDescriptorAttrName = "sluice.program";

/// The descriptor of `module` as a JSON object: dictionaries become objects,
/// arrays arrays, integers numbers, strings and types strings, and kernel
/// symbol references the kernel's own name. Fails with an error when the
/// module has no descriptor.
mlir::FailureOr<llvm::json::Object> programDescriptorJSON(mlir::ModuleOp module);

/// Prints the descriptor of `module` as one JSON object: dictionaries become
/// objects, arrays arrays, integers numbers, strings and types strings, and
/// kernel symbol references the kernel's own name. Fails with an error when
/// the module has no descriptor.
mlir::LogicalResult printProgramDescriptorJSON(mlir::ModuleOp module,
                                               llvm::raw_ostream &os);

/// Registers `--sluice-to-descriptor-json` with the translation registry.
void registerProgramDescriptorTranslation();

} // namespace sluice

#endif // SLUICE_CONVERSION_WAVETOGPU_PROGRAMDESCRIPTOR_H
