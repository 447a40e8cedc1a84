//===- CohortOps.h - Gated SPMD launches ------------------------*- C++ -*-===//
#ifndef SLUICE_DIALECT_COHORT_IR_COHORTOPS_H
#define SLUICE_DIALECT_COHORT_IR_COHORTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include "sluice/Dialect/Cohort/IR/CohortOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "sluice/Dialect/Cohort/IR/CohortOps.h.inc"

#endif // SLUICE_DIALECT_COHORT_IR_COHORTOPS_H
