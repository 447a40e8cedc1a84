//===- Passes.h - Cohort verification passes --------------------*- C++ -*-===//
#ifndef SLUICE_DIALECT_COHORT_TRANSFORMS_PASSES_H
#define SLUICE_DIALECT_COHORT_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "sluice/Dialect/Cohort/IR/CohortOps.h"

namespace sluice::cohort {

#define GEN_PASS_DECL
#include "sluice/Dialect/Cohort/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sluice/Dialect/Cohort/Transforms/Passes.h.inc"

} // namespace sluice::cohort

#endif // SLUICE_DIALECT_COHORT_TRANSFORMS_PASSES_H
