//===- CheckSPIRV.cpp - Reject what SPIR-V Shader cannot express ----------===//
//
// sluice-check-spirv: recursion, irreducible control flow, dynamic allocation,
// function pointers and 64-bit transcendentals in gpu.module code, each
// reported at the op with the reason. docs/spirv-backend.md.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace sluice {
#define GEN_PASS_DEF_SLUICECHECKSPIRV
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;

namespace {

struct SluiceCheckSPIRVPass
    : public sluice::impl::SluiceCheckSPIRVBase<SluiceCheckSPIRVPass> {
  using Base::Base;

  bool failedAny = false;

  void reject(Operation *op, const Twine &reason) {
    op->emitOpError(reason);
    failedAny = true;
    ++numRejected;
  }

  /// Direct call edges between the functions of `module`; a call that closes
  /// a cycle is reported.
  void checkRecursion(gpu::GPUModuleOp module) {
    SymbolTable symbols(module);
    DenseMap<Operation *, SmallVector<std::pair<CallOpInterface, Operation *>>>
        edges;
    SmallVector<Operation *> functions;
    for (auto fn : module.getOps<FunctionOpInterface>()) {
      functions.push_back(fn);
      fn.walk([&](CallOpInterface call) {
        auto ref =
            dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
        if (!ref)
          return;
        if (Operation *callee = symbols.lookup(ref.getLeafReference()))
          edges[fn].push_back({call, callee});
      });
    }
    // Iterative DFS; colour 1 = on the stack, 2 = done.
    DenseMap<Operation *, int> colour;
    DenseSet<Operation *> reported;
    for (Operation *root : functions) {
      if (colour[root])
        continue;
      SmallVector<std::pair<Operation *, unsigned>> stack{{root, 0}};
      colour[root] = 1;
      while (!stack.empty()) {
        auto &[fn, next] = stack.back();
        auto &out = edges[fn];
        if (next == out.size()) {
          colour[fn] = 2;
          stack.pop_back();
          continue;
        }
        auto [call, callee] = out[next++];
        if (colour[callee] == 1) {
          if (reported.insert(call).second)
            reject(call, "recursion: @" +
                             SymbolTable::getSymbolName(callee).getValue() +
                             " is reachable from itself through this call; "
                             "SPIR-V Shader has no recursion");
          continue;
        }
        if (colour[callee] == 0) {
          colour[callee] = 1;
          stack.push_back({callee, 0});
        }
      }
    }
  }

  /// A CFG is reducible iff every retreating edge of a depth-first search is
  /// a back edge (its target dominates its source).
  void checkReducible(Region &region, DominanceInfo &dominance) {
    if (region.empty() || region.hasOneBlock())
      return;
    DenseMap<Block *, int> colour;
    SmallVector<std::pair<Block *, unsigned>> stack{{&region.front(), 0}};
    colour[&region.front()] = 1;
    while (!stack.empty()) {
      auto &[block, next] = stack.back();
      if (next == block->getNumSuccessors()) {
        colour[block] = 2;
        stack.pop_back();
        continue;
      }
      Block *succ = block->getSuccessor(next++);
      if (colour[succ] == 1) {
        if (!dominance.dominates(succ, block))
          reject(block->getTerminator(),
                 "irreducible control flow: this branch closes a cycle whose "
                 "header does not dominate it (the cycle has more than one "
                 "entry); SPIR-V Shader needs structured control flow");
        continue;
      }
      if (colour[succ] == 0) {
        colour[succ] = 1;
        Block *pushed = succ;
        stack.push_back({pushed, 0});
      }
    }
  }

  void checkOps(gpu::GPUModuleOp module) {
    module.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::ReallocOp>(op))
        reject(op, "dynamic allocation: SPIR-V Shader has no heap; use a "
                   "workgroup attribution or a buffer argument");
      else if (auto alloca = dyn_cast<memref::AllocaOp>(op);
               alloca && !alloca.getType().hasStaticShape())
        reject(op, "dynamic allocation: a Function-storage variable needs a "
                   "static shape in SPIR-V Shader");
      else if (isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
                   math::Log2Op, math::Log1pOp, math::SinOp, math::CosOp,
                   math::TanOp, math::AsinOp, math::AcosOp, math::AtanOp,
                   math::Atan2Op, math::SinhOp, math::CoshOp, math::TanhOp,
                   math::PowFOp>(op) &&
               llvm::any_of(op->getOperandTypes(),
                            [](Type type) { return type.isF64(); }))
        reject(op, "64-bit transcendental: SPIR-V's GLSL.std.450 has this "
                   "function for 16- and 32-bit floats only; compute it in "
                   "f32 or run on the CPU backend");
      else if (op->getName().getStringRef() == "func.call_indirect" ||
               op->getName().getStringRef() == "func.constant")
        reject(op, "function pointer: SPIR-V Shader has no function pointers "
                   "or indirect calls");
    });
  }

  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      checkRecursion(module);
      checkOps(module);
      DominanceInfo dominance(module);
      module.walk([&](Operation *op) {
        for (Region &region : op->getRegions())
          checkReducible(region, dominance);
      });
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
