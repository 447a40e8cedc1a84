//===- CohortOps.cpp - Gated SPMD launches --------------------------------===//

#include "sluice/Dialect/Cohort/IR/CohortOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace sluice::cohort;

#include "sluice/Dialect/Cohort/IR/CohortOpsDialect.cpp.inc"

void CohortDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sluice/Dialect/Cohort/IR/CohortOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

LogicalResult GraphOp::verifyRegions() {
  for (Operation &op : getBody().front())
    if (!isa<TaskOp, DependencyOp>(op))
      return op.emitOpError("is not allowed in the body of 'cohort.graph'; "
                            "only 'cohort.task' and 'cohort.dependency' are");
  return success();
}

//===----------------------------------------------------------------------===//
// TaskOp
//===----------------------------------------------------------------------===//

LogicalResult TaskOp::verify() {
  int64_t blocks = getBlocksAttr().getInt();
  if (blocks < 1)
    return emitOpError("needs at least one block, got ") << blocks;
  if (getSyncStart() && blocks < 2)
    return emitOpError("'sync_start' requires more than one block, got ")
           << blocks;
  return success();
}

LogicalResult TaskOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  // Kernels live beside the graph: resolve in the table that encloses it.
  Operation *graphScope = (*this)->getParentOp()->getParentOp();
  Operation *kernel =
      graphScope ? symbolTable.lookupNearestSymbolFrom(graphScope, getKernel())
                 : nullptr;
  if (!kernel)
    return emitOpError("unknown kernel ") << getKernel();
  if (!isa<FunctionOpInterface>(kernel)) {
    InFlightDiagnostic diag = emitOpError("kernel ")
                              << getKernel() << " is a '"
                              << kernel->getName() << "', not a function";
    diag.attachNote(kernel->getLoc()) << "symbol defined here";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DependencyOp
//===----------------------------------------------------------------------===//

LogicalResult DependencyOp::verify() {
  auto graph = cast<GraphOp>((*this)->getParentOp());
  for (FlatSymbolRefAttr ref : {getProducerAttr(), getConsumerAttr()})
    if (!SymbolTable::lookupSymbolIn(graph, ref.getAttr()))
      return emitOpError("unknown task ")
             << ref << " in graph @" << graph.getSymName();
  if (getProducer() == getConsumer())
    return emitOpError("task @") << getProducer() << " cannot depend on itself";
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<GraphOp>(*this, getGraphAttr()))
    return emitOpError("'") << getGraph()
                            << "' does not reference a 'cohort.graph'";
  return success();
}

#define GET_OP_CLASSES
#include "sluice/Dialect/Cohort/IR/CohortOps.cpp.inc"
