// A front end parses (or builds) Sluice IR and runs the verification pipeline.
// Usage: sluice-consumer FILE.mlir   -> prints the computed emission bounds.
#include "sluice/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: sluice-consumer FILE.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  sluice::registerSluiceDialects(registry);
  registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::scf::SCFDialect>();
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], sourceMgr, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  sluice::buildVerificationPipeline(pm);
  if (mlir::failed(pm.run(*module)))
    return 1;
  llvm::outs() << sluice::getVersionString() << ": verified " << argv[1] << "\n";
  return 0;
}
