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
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

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

    After `wave-split`, a coroutine is in *split form*: its body holds one
    `wave.frame_layout`, one `wave.stage` per resume point (whose body is the
    stage's kernel for one lane: it accesses the frame with `wave.frame_load`
    / `wave.frame_store` and ends in `wave.next`), and the `wave.transition`s
    of the stage graph. It still ends in `wave.terminate`.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Wave_Op<string mnemonic, list<Trait> traits = []>
    : Op<Wave_Dialect, mnemonic, traits>;

def Wave_CoroutineOp : Wave_Op<"coroutine", [
    FunctionOpInterface, IsolatedFromAbove, Symbol, SingleBlock,
    AutomaticAllocationScope,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "A coroutine kernel: one lane's body with suspension points";
  let description = [{
    Defines a coroutine kernel named by a symbol. It takes two kinds of
    arguments. The *per-lane* arguments in parentheses are the lane's inputs
    (the runtime passes each lane its lane id). The *bound* arguments after
    `bind` are shared by every lane of a run and named by their SSA names:
    buffers (memrefs of i32, i64, f32 or f64, with a static shape or of rank
    1 and dynamic size) and uniforms (scalars of those types). Stage code reads
    and writes buffers with the ordinary memref ops (`memref.load`,
    `memref.store`, `memref.atomic_rmw`). A buffer may be declared `readonly`
    or `writeonly`; an access against the declaration is an error. Pool
    handlers reach the same bindings by name with `wave.binding`.

    The body is a single block of structured control flow that ends in
    `wave.terminate`; `wave.suspend` inside it (at any depth) marks the resume
    points that become stages. A binding is never stored in a frame: each
    stage re-materializes it with `wave.binding`.

    ```mlir
    wave.coroutine @path(%pixel: i32)
        bind(%scene: memref<?xf32> readonly, %film: memref<16xi32>,
             %spp: i32) {
      %i = arith.index_cast %pixel : i32 to index
      %t = memref.load %scene[%i] : memref<?xf32>
      wave.suspend "shade" sort_by %pixel : i32
      memref.atomic_rmw addi %spp, %film[%i] : (i32, memref<16xi32>) -> i32
      wave.terminate
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<StrArrayAttr>:$binding_names,
                       OptionalAttr<StrArrayAttr>:$binding_access);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::TypeRange":$argumentTypes,
                                 CArg<"::llvm::ArrayRef<BindingDecl>", "{}">:$bindings)>];
  let extraClassDeclaration = [{
    /// Number of bound arguments (they follow the per-lane arguments).
    unsigned getNumBindings() {
      return getBindingNames() ? getBindingNames()->size() : 0;
    }
    unsigned getNumLaneArguments() { return getNumArguments() - getNumBindings(); }
    /// The per-lane argument types.
    ::llvm::ArrayRef<::mlir::Type> getLaneArgumentTypes() {
      return getArgumentTypes().take_front(getNumLaneArguments());
    }
    /// Binding `i`: its name, type, declared access and body argument.
    ::llvm::StringRef getBindingName(unsigned i);
    ::mlir::Type getBindingType(unsigned i) {
      return getArgumentTypes()[getNumLaneArguments() + i];
    }
    BindingAccessDecl getBindingAccessDecl(unsigned i);
    ::mlir::BlockArgument getBindingArgument(unsigned i) {
      return getBody().getArgument(getNumLaneArguments() + i);
    }
    /// The index of the binding called `name`, or nullopt.
    std::optional<unsigned> lookupBinding(::llvm::StringRef name);
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
    per coroutine. Stage names (and the coroutine's name) hold letters, digits
    and `_` only: they become part of kernel names on every backend (HIP C++
    functions, SPIR-V entry points). The optional `sort_by` operand is a frame-export hint: a
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

def Wave_BindingOp : Wave_Op<"binding", [Pure]> {
  let summary = "A binding of the program, by name";
  let description = [{
    The value of the coroutine's bound argument `name`: the buffer (a memref)
    or the uniform (a scalar) every lane of the run shares. Pool handlers use
    it to reach a binding (a shadow-ray handler accumulating into the film);
    the wave split re-materializes bindings with it in every stage instead of
    storing them in the frame. It has no operands and no side effects.

    ```mlir
    %film = wave.binding "film" : memref<16xi32>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs AnyType:$value);
  let assemblyFormat = "$name attr-dict `:` type($value)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Split form: frame layout, stage graph, frame access
//===----------------------------------------------------------------------===//

def Wave_FrameFieldAttr : AttrDef<Wave_Dialect, "FrameField"> {
  let mnemonic = "field";
  let summary = "One field of a coroutine frame";
  let description = [{
    A named, typed slot of the frame with its byte size and alignment. In the
    array-of-structs layout `offset` is the byte offset inside one frame; in
    the struct-of-arrays layout each field is its own array (element stride
    `size`) placed by the runtime, and `offset` is absent.

    ```mlir
    #wave.field<"arg0" : i32, size 4, align 4, offset 8>
    ```
  }];
  let parameters = (ins StringRefParameter<"field name">:$name,
                        "::mlir::Type":$type,
                        "int64_t":$size,
                        "int64_t":$align,
                        OptionalParameter<"std::optional<int64_t>">:$offset);
  let assemblyFormat = [{
    `<` $name `:` $type `,` `size` $size `,` `align` $align
        (`,` `offset` $offset^)? `>`
  }];
}

def Wave_FrameLayoutOp : Wave_Op<"frame_layout", [HasParent<"CoroutineOp">]> {
  let summary = "The frame of a split coroutine: header and live-across fields";
  let description = [{
    Lists the fields of every lane's frame. The first two fields are the
    reserved header: `lane` (the lane id) and `next` (the id of the stage the
    lane resumes at, or `0xFFFFFFFF` when it is done). Every other field holds
    one value that is live across at least one suspension; constants are
    rematerialized instead. `layout` is `aos` (one struct per frame, `stride`
    bytes apart) or `soa` (one array per field).

    ```mlir
    wave.frame_layout aos stride 12 [
      #wave.field<"lane" : i32, size 4, align 4, offset 0>,
      #wave.field<"next" : i32, size 4, align 4, offset 4>,
      #wave.field<"arg0" : i32, size 4, align 4, offset 8>]
    ```
  }];
  let arguments = (ins StrAttr:$layout,
                       OptionalAttr<I64Attr>:$stride,
                       TypedArrayAttrBase<Wave_FrameFieldAttr,
                                          "frame fields">:$fields);
  let assemblyFormat = [{
    $layout (`stride` $stride^)? $fields attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Names of the two reserved header fields.
    static constexpr ::llvm::StringLiteral getLaneFieldName() { return "lane"; }
    static constexpr ::llvm::StringLiteral getNextFieldName() { return "next"; }
    /// The field called `name`, or null.
    FrameFieldAttr lookupField(::llvm::StringRef name);
    /// Index of the field called `name` in the field list, or -1.
    int64_t getFieldIndex(::llvm::StringRef name);
    bool isArrayOfStructs() { return getLayout() == "aos"; }
  }];
}

def Wave_StageOp : Wave_Op<"stage", [
    HasParent<"CoroutineOp">, IsolatedFromAbove, AutomaticAllocationScope,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "One stage of a split coroutine, with its kernel body";
  let description = [{
    Stage `id` of the coroutine, resuming at the suspension named `name` (or
    at the entry, named `entry`). The body runs for one lane: its first block
    argument is the lane's frame index, followed (entry stage only) by the
    coroutine's arguments. It loads the frame fields it needs
    (`wave.frame_load`), and every exit stores the fields the next stage needs
    (`wave.frame_store`) and ends in `wave.next`. The body is a CFG; ops that
    contained no suspension stay structured. The optional `sort_by` names the
    frame field a scheduler may sort waiting frames by.

    ```mlir
    wave.stage 1 "bounce" sort_by "arg0" {
    ^bb0(%frame: index):
      %pixel = wave.frame_load %frame "arg0" : i32
      wave.frame_store %pixel, %frame "arg0" : i32
      wave.next %frame "finish"
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$id,
                       StrAttr:$name, OptionalAttr<StrAttr>:$sort_key);
  let regions = (region AnyRegion:$body);
  let assemblyFormat = [{
    $id $name (`sort_by` $sort_key^)? attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The lane's frame index.
    ::mlir::BlockArgument getFrame() { return getBody().getArgument(0); }
  }];
}

def Wave_TransitionOp : Wave_Op<"transition", [HasParent<"CoroutineOp">]> {
  let summary = "An edge of the stage graph and the fields it carries";
  let description = [{
    Stage `from` may end by suspending into stage `to`, handing over the frame
    fields listed in `fields` (exactly the values live across that
    suspension), or may end the lane (`done`).

    ```mlir
    wave.transition "entry" -> "bounce" fields ["arg0"]
    wave.transition "finish" -> done
    ```
  }];
  let arguments = (ins StrAttr:$from, OptionalAttr<StrAttr>:$to,
                       OptionalAttr<StrArrayAttr>:$fields);
  let assemblyFormat = [{
    $from `->` ($to^ `fields` $fields) : (`done`)? attr-dict
  }];
}

class Wave_FrameAccessOp<string mnemonic, list<Trait> traits = []>
    : Wave_Op<mnemonic, traits> {
  let extraClassDeclaration = [{
    /// The frame layout of the split coroutine that encloses this op.
    FrameLayoutOp getLayoutOp();
  }];
}

def Wave_FrameLoadOp : Wave_FrameAccessOp<"frame_load", [MemoryEffects<[MemRead]>]> {
  let summary = "Read a field of the lane's frame";
  let description = [{
    Loads field `field` of frame `frame` (the frame index of the lane that
    the stage function runs for).

    ```mlir
    %pixel = wave.frame_load %frame "arg0" : i32
    ```
  }];
  let arguments = (ins Index:$frame, StrAttr:$field);
  let results = (outs AnyType:$value);
  let assemblyFormat = "$frame $field attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Wave_FrameStoreOp : Wave_FrameAccessOp<"frame_store", [MemoryEffects<[MemWrite]>]> {
  let summary = "Write a field of the lane's frame";
  let description = [{
    ```mlir
    wave.frame_store %pixel, %frame "arg0" : i32
    ```
  }];
  let arguments = (ins AnyType:$value, Index:$frame, StrAttr:$field);
  let assemblyFormat = "$value `,` $frame $field attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Wave_NextOp : Wave_FrameAccessOp<"next", [
    Terminator, HasParent<"StageOp">, MemoryEffects<[MemWrite]>]> {
  let summary = "End the stage: the lane resumes at a stage, or is done";
  let description = [{
    Writes the `next` header field of the frame (the id of stage `stage`, or
    the done marker `0xFFFFFFFF`) and ends the stage for this lane.

    ```mlir
    wave.next %frame "finish"
    wave.next %frame done
    ```
  }];
  let arguments = (ins Index:$frame, OptionalAttr<StrAttr>:$stage);
  let assemblyFormat = "$frame ($stage^) : (`done`)? attr-dict";
  let hasVerifier = 1;
}

#endif // SLUICE_DIALECT_WAVE_IR_WAVEOPS_TD
