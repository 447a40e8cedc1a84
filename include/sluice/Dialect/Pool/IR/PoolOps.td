//===- PoolOps.td - Capacity owners -------------------------*- tablegen -*-===//
//
// The `pool` dialect describes capacity owners: bounded auxiliary pipelines of
// `C` slots shared by `k >= 1` stages, fed by publishes from main stages.
// Items are linear: a stage handler moves or releases its item exactly once.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_DIALECT_POOL_IR_POOLOPS_TD
#define SLUICE_DIALECT_POOL_IR_POOLOPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/CallInterfaces.td"

def Pool_Dialect : Dialect {
  let name = "pool";
  let cppNamespace = "::sluice::pool";
  let summary = "Capacity owners: bounded auxiliary pipelines fed by main stages";
  let description = [{
    A capacity owner (`pool.owner`) holds at most `capacity` items spread over
    its ordered stages. Main stages of a `wave.coroutine` publish items into an
    owner's stage (`pool.publish`); each stage has one handler (`pool.handler`)
    that receives exactly one item and must move it to a stage of the same
    owner or release it, exactly once on every path.

    A producer declares how many items one invocation of any of its main
    stages may publish into an owner (`pool.emission_bound`); the verification
    passes prove the bound, and the runtime's admission rule relies on it.

    Loops without a constant trip count that publish must declare a bound with
    the discardable attribute `pool.max_trips = N : i64` (N >= 0).

    Handlers may call `func.func` helpers; the compile pipelines inline them
    (a handler is a callable region for the upstream inliner).
  }];
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The argument types of every handler: one `!pool.item`.
    ::llvm::ArrayRef<::mlir::Type> getHandlerArgumentTypes() const {
      return handlerArgumentTypes;
    }
    /// Name of the loop attribute that bounds a loop's trip count.
    static constexpr ::llvm::StringLiteral getMaxTripsAttrName() {
      return ::llvm::StringLiteral("pool.max_trips");
    }

  private:
    ::mlir::Type handlerArgumentTypes; // !pool.item, set by initialize()

  public:
  }];
}

class Pool_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pool_Dialect, mnemonic, traits>;

def Pool_ItemType : TypeDef<Pool_Dialect, "Item"> {
  let mnemonic = "item";
  let summary = "A linear handle to one item held by a capacity owner";
  let description = [{
    The argument of a stage handler. It may only be read (`pool.load`) and
    consumed exactly once (`pool.move` or `pool.release`).
  }];
}

def Pool_OwnerOp : Pool_Op<"owner", [
    Symbol, SingleBlock, NoTerminator, NoRegionArguments, IsolatedFromAbove,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A capacity owner with ordered stages and one handler per stage";
  let description = [{
    Declares a bounded pool of `capacity` slots shared by the ordered `stages`.
    Every item carries a payload of the listed types. The owner's name and its
    stage names hold letters, digits and `_` only (they name the handler
    kernels on every backend). The body holds exactly
    one `pool.handler` per stage.

    ```mlir
    pool.owner @shadow capacity 256 stages ["intersect", "shade"] payload [f32, i32] {
      pool.handler "intersect" (%item) {
        pool.move %item to "shade"
      }
      pool.handler "shade" (%item) {
        pool.release %item
      }
    }
    ```

    An owner may name functions of the program as its **storage policy**
    (DESIGN.md §2.1): the hooks the runtime calls around admission, compiled
    like the handlers. Every hook receives the owner's private storage
    (`storage` 64-bit words, zero when a run starts), its stage counts
    `q[0..k)`, its capacity `C` and its live total `L`:

    | key | signature (`N` = storage, `k` = stages) | default |
    |---|---|---|
    | `availability` | `(memref<Nxi64>, memref<kxi32>, i64 C, i64 L) -> i64` | `C - L` |
    | `prepare_for_admission` | `(memref<Nxi64>, memref<kxi32>, i64 C, i64 L) -> ()` | nothing |
    | `prepare_for_producer` | `(memref<Nxi64>, memref<kxi32>, i64 C, i64 L, i64 slots) -> ()` | nothing |
    | `admission_stage` | `(memref<Nxi64>, memref<kxi32>, i64 C, i64 L) -> i32` | first non-empty stage |

    Hooks are storage-only: they may change the storage, never a count (the
    runtime compares the counts before and after every hook and stops the
    run with a protocol error naming the owner and the hook). The
    availability must satisfy `0 <= A <= C - L`, and `A == C` when `L == 0`.

    ```mlir
    pool.owner @arena capacity 64 stages ["use"] payload [i32]
        policy {availability = @arena_available,
                prepare_for_producer = @arena_grow, storage = 1} {
      pool.handler "use" (%item) {
        pool.release %item
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       ConfinedAttr<I64Attr, [IntPositive]>:$capacity,
                       StrArrayAttr:$stages,
                       TypeArrayAttr:$payload,
                       OptionalAttr<DictionaryAttr>:$policy);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `capacity` $capacity `stages` $stages `payload` $payload
    (`policy` $policy^)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let builders = [
    // An owner without a policy (the default owner policy).
    OpBuilder<(ins "::llvm::StringRef":$sym_name, "int64_t":$capacity,
                   "::mlir::ArrayAttr":$stages, "::mlir::ArrayAttr":$payload),
    [{
      build($_builder, $_state, sym_name, capacity, stages, payload,
            /*policy=*/nullptr);
    }]>];
  let extraClassDeclaration = [{
    /// Index of `stage` in the stage list, or -1.
    int64_t getStageIndex(::llvm::StringRef stage);
    /// The payload element types.
    ::llvm::SmallVector<::mlir::Type> getPayloadTypes();
    /// The function the policy names for `hook` (a key of the policy
    /// dictionary, e.g. "availability"), or null.
    ::mlir::FlatSymbolRefAttr getPolicyHook(::llvm::StringRef hook);
    /// The policy's storage words (0 without a policy).
    int64_t getPolicyStorageWords();
    /// The signature the policy hook `hook` must have for this owner.
    ::mlir::FunctionType getPolicyHookType(::llvm::StringRef hook);
    /// The hooks a policy may name, in the order the runtime calls them.
    static ::llvm::ArrayRef<::llvm::StringRef> getPolicyHookNames();
  }];
}

def Pool_HandlerOp : Pool_Op<"handler", [
    HasParent<"OwnerOp">, SingleBlock, NoTerminator, AutomaticAllocationScope,
    CallableOpInterface]> {
  let summary = "The handler of one owner stage; receives exactly one item";
  let description = [{
    The kernel body of an owner stage. It receives one `!pool.item` and must
    move it (`pool.move`) or release it (`pool.release`) exactly once along
    every control path (checked by `sluice-verify-item-linearity`). Its body
    may call `func.func` helpers, which the pipelines inline, and may hold
    private arrays (`memref.alloca`).
  }];
  let arguments = (ins StrAttr:$stage);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$stage)>];
  let extraClassDeclaration = [{
    ::mlir::BlockArgument getItem() { return getBody().front().getArgument(0); }
    OwnerOp getOwner();
    /// CallableOpInterface: a handler is a callable region (so that the
    /// inliner inlines the helpers it calls) that nothing calls; it takes
    /// its item and returns nothing.
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return ::llvm::cast<PoolDialect>((*this)->getDialect())
          ->getHandlerArgumentTypes();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return {}; }
    ::mlir::ArrayAttr getArgAttrsAttr() { return nullptr; }
    ::mlir::ArrayAttr getResAttrsAttr() { return nullptr; }
    void setArgAttrsAttr(::mlir::ArrayAttr) {}
    void setResAttrsAttr(::mlir::ArrayAttr) {}
    ::mlir::Attribute removeArgAttrsAttr() { return nullptr; }
    ::mlir::Attribute removeResAttrsAttr() { return nullptr; }
  }];
}

def Pool_PublishOp : Pool_Op<"publish",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Publish one item into a stage of a capacity owner";
  let description = [{
    Appends one item carrying `payload` to `stage` of the owner. Only main
    stages (code inside a `wave.coroutine`) publish; the payload types must
    match the owner's.

    ```mlir
    pool.publish @shadow "intersect" (%t, %id) : f32, i32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$owner, StrAttr:$stage,
                       Variadic<AnyType>:$payload);
  let assemblyFormat = [{
    $owner $stage (` ` `(` $payload^ `)` `:` type($payload))? attr-dict
  }];
  let hasVerifier = 1;
}

def Pool_LoadOp : Pool_Op<"load"> {
  let summary = "Read an item's payload";
  let description = [{
    Returns the payload values of the handler's item; the result types are the
    owner's payload types.

    ```mlir
    %t, %id = pool.load %item : f32, i32
    ```
  }];
  let arguments = (ins Pool_ItemType:$item);
  let results = (outs Variadic<AnyType>:$values);
  let assemblyFormat = "$item attr-dict (`:` type($values)^)?";
  let hasVerifier = 1;
}

def Pool_MoveOp : Pool_Op<"move"> {
  let summary = "Move the item to a stage of the same owner (consumes it)";
  let description = [{
    Hands the item to `stage` (which may be the handler's own stage: a
    self-loop). Optionally replaces its payload.

    ```mlir
    pool.move %item to "shade"
    pool.move %item to "shade" (%t2, %id) : f32, i32
    ```
  }];
  let arguments = (ins Pool_ItemType:$item, StrAttr:$stage,
                       Variadic<AnyType>:$payload);
  let assemblyFormat = [{
    $item `to` $stage (` ` `(` $payload^ `)` `:` type($payload))? attr-dict
  }];
  let hasVerifier = 1;
}

def Pool_ReleaseOp : Pool_Op<"release"> {
  let summary = "Release the item's slot (consumes it)";
  let arguments = (ins Pool_ItemType:$item);
  let assemblyFormat = "$item attr-dict";
  let hasVerifier = 1;
}

def Pool_EmissionBoundOp : Pool_Op<"emission_bound",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A producer's declared per-invocation emission bound";
  let description = [{
    Declares that one invocation of any main stage of the coroutine `producer`
    publishes at most `bound` items into `owner`. The runtime admits a
    producer dispatch of `n` invocations only when `n * bound` slots are
    available; `sluice-verify-emission-bounds` proves the bound.

    ```mlir
    pool.emission_bound @path -> @shadow max 2
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$producer, FlatSymbolRefAttr:$owner,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$bound);
  let assemblyFormat = "$producer `->` $owner `max` $bound attr-dict";
}

#endif // SLUICE_DIALECT_POOL_IR_POOLOPS_TD
