//===- PoolOps.h - Capacity owners ------------------------------*- C++ -*-===//
#ifndef SLUICE_DIALECT_POOL_IR_POOLOPS_H
#define SLUICE_DIALECT_POOL_IR_POOLOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"

#include "sluice/Dialect/Pool/IR/PoolOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "sluice/Dialect/Pool/IR/PoolOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "sluice/Dialect/Pool/IR/PoolOps.h.inc"

#endif // SLUICE_DIALECT_POOL_IR_POOLOPS_H
