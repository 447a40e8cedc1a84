//===- CheckSPIRV.cpp - Reject what SPIR-V Shader cannot express ----------===//
//
// sluice-check-spirv: recursion, irreducible control flow, dynamic allocation,
// function pointers, 64-bit transcendentals, element types the target
// environment cannot hold (f16 without Float16, bf16) and target
// environments that are not Vulkan compute, each reported at the op with the
// reason. docs/spirv-backend.md, docs/gpu-kernels.md.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
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
                   math::PowFOp, math::Log10Op, math::AsinhOp, math::AcoshOp,
                   math::AtanhOp, math::ErfOp, math::ErfcOp, math::CbrtOp>(
                   op) &&
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

  /// Vulkan's storage-buffer layout aligns a 3-vector like a 4-vector, so an
  /// array of them (a buffer argument of vector<3xT> elements) has a stride
  /// the layout rules forbid (spirv-val: "array with stride 12 not
  /// satisfying alignment to 16").
  void checkVectorBuffers(gpu::GPUModuleOp module) {
    module.walk([&](gpu::GPUFuncOp func) {
      for (Type type : func.getArgumentTypes()) {
        auto memref = dyn_cast<MemRefType>(type);
        auto vector =
            memref ? dyn_cast<VectorType>(memref.getElementType()) : nullptr;
        if (!vector || vector.getRank() != 1 || vector.getDimSize(0) != 3)
          continue;
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "takes a buffer of " << vector
           << ": Vulkan's storage-buffer layout aligns a 3-vector like a "
              "4-vector, so its array stride is not allowed; use a "
              "4-vector or three scalars";
        reject(func, text);
        return;
      }
    });
  }

  /// The innermost element type of `type` (memref, vector), else `type`.
  static Type elementOf(Type type) {
    while (auto shaped = dyn_cast<ShapedType>(type))
      type = shaped.getElementType();
    return type;
  }

  /// The first float type among `types` that the target cannot hold.
  static Type unsupportedFloat(TypeRange types, bool float16) {
    for (Type type : types) {
      Type element = elementOf(type);
      if (element.isBF16() || (element.isF16() && !float16))
        return element;
    }
    return nullptr;
  }

  void rejectFloat(Operation *op, Type type) {
    if (type.isBF16())
      reject(op, "bf16 in a kernel: SPIR-V has no bfloat16 type for Vulkan "
                 "without SPV_KHR_bfloat16, which this backend does not use; "
                 "hold the values as f32 (or as i16 bits), or run on the CPU "
                 "backend");
    else
      reject(op, "f16 in a kernel needs the Float16 and "
                 "StorageBuffer16BitAccess capabilities (Vulkan shaderFloat16 "
                 "and storageBuffer16BitAccess), which the target environment "
                 "lacks: SPIR-V would hold the value in an f32 and read 2-byte "
                 "elements as 4-byte ones; compute in f32 or give the module a "
                 "spirv.target_env with both");
  }

  /// f16 without the capabilities that hold it natively, and bf16, which
  /// upstream's converter would widen to f32 silently (a buffer of 2-byte
  /// elements read as 4-byte ones).
  void checkFloatTypes(gpu::GPUModuleOp module, spirv::TargetEnvAttr attr) {
    bool float16 = false;
    if (attr) {
      spirv::TargetEnv env(attr);
      float16 = env.allows(spirv::Capability::Float16) &&
                env.allows(spirv::Capability::StorageBuffer16BitAccess);
    }
    // The first use is reported: a signature, else the first op.
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      Type bad;
      if (auto func = dyn_cast<FunctionOpInterface>(op))
        bad = unsupportedFloat(func.getArgumentTypes(), float16);
      else if (!(bad = unsupportedFloat(op->getResultTypes(), float16)))
        bad = unsupportedFloat(op->getOperandTypes(), float16);
      if (!bad)
        return WalkResult::advance();
      rejectFloat(op, bad);
      return WalkResult::interrupt();
    });
  }

  /// The backend writes Vulkan compute shaders: a target environment of
  /// another API (OpenCL kernels have no storage buffers, descriptor sets or
  /// GLSL.std.450) or without Shader is an error, not a failure to
  /// legalize the first memref access.
  LogicalResult checkTargetEnv(gpu::GPUModuleOp module,
                               spirv::TargetEnvAttr attr) {
    spirv::TargetEnv env(attr);
    if (attr.getClientAPI() != spirv::ClientAPI::Vulkan &&
        attr.getClientAPI() != spirv::ClientAPI::Unknown) {
      reject(module, Twine("spirv.target_env is for ") +
                         spirv::stringifyClientAPI(attr.getClientAPI()) +
                         ": the SPIR-V backend writes Vulkan compute shaders "
                         "(api=Vulkan, the Shader capability)");
      return failure();
    }
    if (!env.allows(spirv::Capability::Shader)) {
      reject(module, "spirv.target_env lacks the Shader capability: the "
                     "SPIR-V backend writes Vulkan compute shaders");
      return failure();
    }
    return success();
  }

  void runOnOperation() override {
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      // The environment the module brings, else the backend's default
      // (sluice-gpu-to-spirv), which has neither Float16 nor Int8/Int16.
      spirv::TargetEnvAttr attr = spirv::lookupTargetEnv(module);
      if (attr && failed(checkTargetEnv(module, attr)))
        continue;
      checkFloatTypes(module, attr);
      checkRecursion(module);
      checkOps(module);
      checkVectorBuffers(module);
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
