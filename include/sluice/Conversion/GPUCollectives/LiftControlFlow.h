//===- LiftControlFlow.h - kernel CFGs as structured control flow -*- C++ -*-===//
//
// SPIR-V Shader and HIP C++ (through EmitC) take structured control flow
// only: a kernel body of several blocks, and an `scf.execute_region` whose
// region holds a CFG (as a front end writes an early exit), are lifted to
// scf with upstream's transformCFGToSCF before either backend converts the
// kernel (docs/gpu-kernels.md, "Control flow").
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_CONVERSION_GPUCOLLECTIVES_LIFTCONTROLFLOW_H
#define SLUICE_CONVERSION_GPUCOLLECTIVES_LIFTCONTROLFLOW_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringRef.h"

namespace sluice {

/// Lifts the CFG of every `scf.execute_region` of several blocks in `func`
/// and of `func`'s body to scf (innermost first), and inlines every
/// `scf.execute_region`, of one block too, where it stood: neither backend
/// has the op. Blocks no path reaches
/// are erased first (transformCFGToSCF refuses them). A branch other than
/// cf.br, cf.cond_br and cf.switch is an error at the branch and at the
/// region's owner, naming `target` ("SPIR-V Shader", "HIP C++"), before
/// anything is rewritten. The lifted form may hold `scf.index_switch`
/// (a region with several exits).
mlir::LogicalResult liftKernelControlFlow(mlir::FunctionOpInterface func,
                                          llvm::StringRef target);

} // namespace sluice

#endif // SLUICE_CONVERSION_GPUCOLLECTIVES_LIFTCONTROLFLOW_H
