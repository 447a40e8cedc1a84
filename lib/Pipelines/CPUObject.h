//===- CPUObject.h - LLVM-dialect kernels to a shared object ----*- C++ -*-===//
#ifndef SLUICE_LIB_PIPELINES_CPUOBJECT_H
#define SLUICE_LIB_PIPELINES_CPUOBJECT_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace sluice {

struct CPUObjectOptions {
  unsigned optLevel = 2;
  // "native" (this machine's CPU and features), "generic" (the baseline of
  // the architecture) or an x86-64 microarchitecture level ("x86-64-v2",
  // "x86-64-v3", "x86-64-v4": LLVM's CPUs of those names).
  std::string cpu = "native";
  // Tune for hardware gathers on an x86-64 level (LLVM's x86-64-v3 and v4
  // assume Haswell's slow ones and expand every masked gather into a branch
  // per lane): for vectorized lane loops (docs/cpu-backend.md, "Lanes in
  // vector registers"), whose frame and buffer reads are gathers.
  bool fastGather = false;
  std::string exportPrefix; // functions with this prefix stay exported
  std::vector<std::string> exportNames; // and these (owner policy hooks)
};

/// Translates `module` (LLVM dialect) to LLVM IR, optimizes it, emits
/// position-independent object code for the host's architecture and links it
/// with lld into a shared object whose only exports are the functions named
/// with `exportPrefix` and those in `exportNames`. Its undefined symbols (the
/// runtime's sluice_rt_*, libm) are resolved from the process that loads it.
mlir::LogicalResult buildSharedObject(mlir::ModuleOp module,
                                      const CPUObjectOptions &options,
                                      std::vector<unsigned char> &out);

} // namespace sluice

#endif // SLUICE_LIB_PIPELINES_CPUOBJECT_H
