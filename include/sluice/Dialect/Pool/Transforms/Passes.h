//===- Passes.h - Pool verification passes ----------------------*- C++ -*-===//
#ifndef SLUICE_DIALECT_POOL_TRANSFORMS_PASSES_H
#define SLUICE_DIALECT_POOL_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"

namespace sluice::pool {

#define GEN_PASS_DECL
#include "sluice/Dialect/Pool/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sluice/Dialect/Pool/Transforms/Passes.h.inc"

} // namespace sluice::pool

#endif // SLUICE_DIALECT_POOL_TRANSFORMS_PASSES_H
