//===- Passes.h - Sluice conversions ----------------------------*- C++ -*-===//
#ifndef SLUICE_CONVERSION_PASSES_H
#define SLUICE_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace sluice {

#define GEN_PASS_DECL
#include "sluice/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sluice/Conversion/Passes.h.inc"

} // namespace sluice

#endif // SLUICE_CONVERSION_PASSES_H
