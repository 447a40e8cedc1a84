//===- WaveOps.td - Coroutine stages ------------------------*- tablegen -*-===//
//
// The `wave` dialect describes coroutine kernels: one logical lane per work
// item whose body suspends at named stages. The wave split pass turns every
// resume point into a stage and the values live across suspensions into a frame.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_DIALECT_WAVE_IR_WAVEOPS_TD
#define SLUICE_DIALECT_WAVE_IR_WAVEOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

def Wave_Dialect : Dialect {
  let name = "wave";
  let cppNamespace = "::sluice::wave";
  let summary = "Coroutine kernels that suspend at named stages";
  let description = [{
    A `wave.coroutine` is the body of one logical lane (a path, a pixel). It may
    suspend at named stages with `wave.suspend`; the scheduler resumes lanes
    stage by stage, launching one kernel per stage over all frames waiting
    there. Control flow inside a coroutine is structured (`scf`), and a
    suspension may sit anywhere inside it.
  }];
}

class Wave_Op<string mnemonic, list<Trait> traits = []>
    : Op<Wave_Dialect, mnemonic, traits>;

def Wave_CoroutineOp : Wave_Op<"coroutine", [
    FunctionOpInterface, IsolatedFromAbove, Symbol,
    SingleBlock, OpAsmOpInterface]> {
  let summary = "A coroutine kernel: one lane's body with suspension points";
  let description = [{
    Defines a coroutine kernel named by a symbol. Its typed arguments are the
    lane's inputs. The body is a single block of structured control flow that
    ends in `wave.terminate`; `wave.suspend` inside it (at any depth) marks the
    resume points that become stages.

    ```mlir
    wave.coroutine @path(%pixel: i32) {
      %c1 = arith.constant 1 : i32
      wave.suspend "intersect"
      %next = arith.addi %pixel, %c1 : i32
      wave.suspend "shade" sort_by %next : i32
      wave.terminate
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::TypeRange":$argumentTypes)>];
  let extraClassDeclaration = [{
    /// FunctionOpInterface: a coroutine never returns values.
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// The stage names of every suspension, in program order.
    ::llvm::SmallVector<::llvm::StringRef> getSuspendStages();
    static ::llvm::StringRef getDefaultDialect() { return "wave"; }
  }];
}

def Wave_SuspendOp : Wave_Op<"suspend"> {
  let summary = "Suspend the lane; it resumes at the named stage";
  let description = [{
    Ends the current stage of the lane. The lane resumes after this operation
    when the scheduler dispatches the named stage. Each stage name appears once
    per coroutine. The optional `sort_by` operand is a frame-export hint: a
    value stored in the frame that the scheduler may sort waiting frames by
    (e.g. a material id for coherence).

    ```mlir
    wave.suspend "shade" sort_by %material : i32
    ```
  }];
  let arguments = (ins StrAttr:$stage,
                       Optional<AnyTypeOf<[AnySignlessInteger, AnyFloat, Index]>>:$sort_key);
  let assemblyFormat = [{
    $stage (`sort_by` $sort_key^ `:` type($sort_key))? attr-dict
  }];
  let hasVerifier = 1;
}

def Wave_TerminateOp : Wave_Op<"terminate", [Terminator, HasParent<"CoroutineOp">]> {
  let summary = "End of the lane";
  let description = [{
    Terminates the coroutine body: the lane finishes and its frame is freed.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // SLUICE_DIALECT_WAVE_IR_WAVEOPS_TD
