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

#include "sluice/Dialect/Wave/IR/WaveOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "sluice/Dialect/Wave/IR/WaveOpsAttributes.h.inc"

#define GET_OP_CLASSES
#include "sluice/Dialect/Wave/IR/WaveOps.h.inc"

#endif // SLUICE_DIALECT_WAVE_IR_WAVEOPS_H
