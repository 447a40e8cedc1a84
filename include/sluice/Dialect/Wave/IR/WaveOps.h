//===- WaveOps.h - Coroutine stages -----------------------------*- C++ -*-===//
#ifndef SLUICE_DIALECT_WAVE_IR_WAVEOPS_H
#define SLUICE_DIALECT_WAVE_IR_WAVEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <string>

#include "sluice/Dialect/Wave/IR/WaveOpsDialect.h.inc"

namespace sluice::wave {

/// What a coroutine declares about a buffer binding's access.
enum class BindingAccessDecl { Any, ReadOnly, WriteOnly };

/// A bound argument of a coroutine, for the builder.
struct BindingDecl {
  std::string name;
  mlir::Type type;
  BindingAccessDecl access = BindingAccessDecl::Any;
};

/// How a binding is used, found by following its uses (through view-like
/// ops such as memref.subview and memref.cast, and into the helpers it is
/// passed to: a call's use is the callee's uses of that argument).
struct BindingUses {
  bool read = false;    // by memref.load or an unknown user
  bool written = false; // by memref.store, an atomic or an unknown user
  bool atomic = false;  // by memref.atomic_rmw / generic_atomic_rmw
  mlir::Operation *firstRead = nullptr;
  mlir::Operation *firstWrite = nullptr;
  // The helper arguments already followed (a recursive helper ends here).
  llvm::SmallPtrSet<mlir::Value, 4> followed;
};
/// Adds the uses of `value` (a binding's memref) to `uses`.
void collectBindingUses(mlir::Value value, BindingUses &uses);

/// Fails, with an error at the offending op and a note at `declaration`,
/// when `uses` break the declared access of binding `name`.
mlir::LogicalResult checkDeclaredAccess(llvm::StringRef name,
                                        BindingAccessDecl declared,
                                        const BindingUses &uses,
                                        mlir::Operation *declaration);

/// True for the types a binding may have: a memref of i32/i64/f32/f64 with an
/// identity layout and a static shape, or rank 1 and dynamic (a buffer),
/// or one of those scalars (a uniform).
bool isBindingType(mlir::Type type);

/// Fails, with an error at `op`, unless `name` (a stage's, coroutine's or
/// owner's; `what` says which) is letters, digits and '_' only: it becomes
/// part of kernel names on every backend (HIP C++ functions, SPIR-V entry
/// points and names, the artifact's kernel table).
mlir::LogicalResult verifyKernelNamePart(mlir::Operation *op,
                                         llvm::StringRef what,
                                         llvm::StringRef name);

} // namespace sluice::wave

#define GET_ATTRDEF_CLASSES
#include "sluice/Dialect/Wave/IR/WaveOpsAttributes.h.inc"

#define GET_OP_CLASSES
#include "sluice/Dialect/Wave/IR/WaveOps.h.inc"

#endif // SLUICE_DIALECT_WAVE_IR_WAVEOPS_H
