//===- Passes.td - Sluice conversions -----------------------*- tablegen -*-===//
#ifndef SLUICE_CONVERSION_PASSES_TD
#define SLUICE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertCohortToLLVM : Pass<"convert-cohort-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower cohort graphs and launches to calls of the cohort runtime's C ABI";
  let description = [{
    Every `cohort.launch @g` becomes a sequence of calls into the cohort
    executor's C ABI (`runtime/include/sluice/runtime/cohort/c_api.h`):
    `sluice_cohort_graph_create(cores)`, one `sluice_cohort_add_task` per task
    (flags `SYNC_START = 1`, `ALLOW_EARLY_RESOLVE = 2`), one
    `sluice_cohort_add_dependency` per edge, `sluice_cohort_run`, and
    `sluice_cohort_graph_destroy`. A failed run prints
    `sluice: cohort graph @g failed: <runtime message>` to stderr and exits
    the process with status 1.

    Kernels must be `func.func @k(%block: index, %blocks: index)`; each gets
    an entry wrapper `@__sluice_cohort_entry_k(!llvm.ptr, i64, i64)` with the
    ABI's kernel signature. Graph ops are erased. The result still contains
    `func`, `arith` and `scf` ops; lower it further with `convert-to-llvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def ConvertGPUToCPU : Pass<"convert-gpu-to-cpu", "::mlir::ModuleOp"> {
  let summary = "Lower gpu.module kernels with barriers and shared memory to CPU block functions";
  let description = [{
    Every `gpu.func` kernel becomes `@__sluice_block_<kernel>(!llvm.ptr, i64)`,
    which runs all lanes of one block, and every `gpu.launch_func` becomes the
    host-launch ABI of every backend (runtime/include/sluice/runtime/launch/
    host_launch.h; see convert-gpu-launch-to-runtime) with the block function
    as the kernel handle; its CPU wrapper runs the grid's blocks on a worker
    pool. The `!llvm.ptr` of the block function points to an argument record
    that the wrapper lays out: the kernel operands (in their LLVM types, each
    at its natural alignment), then the grid and block sizes (i64). Workgroup attributions (shared memory) come from the
    worker's frame arena, which is reset at every block boundary.

    A kernel whose barriers are all in block-uniform control flow (the top
    level, or `scf.for` / `scf.if` without results whose bounds and conditions
    are computed from arguments, constants and block queries only) is lowered
    by loop fission: each barrier-free run of operations becomes a lane loop
    nest (x innermost), uniform pure operations are computed once per block,
    and values live across a barrier go to per-lane arrays in the arena. A
    kernel without barriers is one lane loop nest.

    Any other kernel (or every kernel, with `force-coroutines`) runs LLVM
    switch-resumed coroutines, `@__sluice_lane_<kernel>`, each for a group of
    `coroutine-lanes` lanes: the body between barriers is lane loops over the
    group (as in fission, values crossing a barrier in per-group arrays), a
    barrier is `llvm.coro.suspend`, frames come from `sluice_rt_coro_alloc`,
    and the block function resumes unfinished coroutines round-robin until all
    are done (CoroSplit in LLVM's pipeline splits them). A barrier-containing
    loop or branch whose bounds are lane values takes the group's first lane's
    values; the lanes of a group must agree (checked at run time: a mismatch
    calls `sluice_rt_barrier_divergence`, which reports the kernel and exits).
    With `coroutine-lanes=1`, or where grouping does not apply (e.g. a barrier
    in an scf.while), each lane is its own coroutine running a copy of the
    kernel body, which allows any control flow as long as every lane of a
    block executes the same number of barriers.

    Subgroups are real: a subgroup is `subgroup-size` consecutive linear
    thread ids. `gpu.all_reduce`, `gpu.subgroup_reduce` and the subgroup
    queries are first expanded (sluice-expand-gpu-collectives with that
    size); a `gpu.shuffle` then cuts the lanes' code like a barrier cuts the
    block's: each lane publishes its value to a per-lane array at the end of
    one lane loop and reads its source lane's entry in the next. On the
    coroutine path a kernel with shuffles runs one coroutine per subgroup
    (`coroutine-lanes` does not apply), so control flow around a shuffle
    must be the same for the lanes of a subgroup (checked at run time). An
    `scf.if` with results around a shuffle first passes its results through
    one-element private attributions, so it is cut like one without.

    Math: fpowi and ipowi become square-and-multiply (the same products as
    on every backend), and erf, erfc, cbrt, acosh, asinh, atanh, expm1 and
    log1p calls of the host's libm (f16/bf16 computed in f32).

    Rejected with an error: gpu ops other than thread_id, block_id, block_dim,
    grid_dim, barrier, shuffle, return and the collectives above (printf, ...),
    non-kernel functions in a gpu.module, memory attributions without a static
    identity-layout shape, and asynchronous, cluster or dynamic-shared-memory
    launches. The result contains `func`, `arith`, `scf`, `memref` and `llvm`
    ops; lower it further with `convert-to-llvm`.
  }];
  let options = [
    Option<"forceCoroutines", "force-coroutines", "bool", /*default=*/"false",
           "Lower every kernel with one coroutine per lane, even where loop fission applies">,
    Option<"workers", "workers", "unsigned", /*default=*/"0",
           "Worker threads per launch (0: SLUICE_WORKERS or one per core)">,
    Option<"coroutineLanes", "coroutine-lanes", "unsigned", /*default=*/"128",
           "Lanes per coroutine on the coroutine path (1: one coroutine per lane)">,
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"32",
           "Lanes of a subgroup (a power of two from 1 to 128): gpu.subgroup_size, "
           "and the lanes gpu.shuffle exchanges among">,
    Option<"laneVectorWidth", "lane-vector-width", "unsigned", /*default=*/"0",
           "Lanes a fission lane loop runs at a time in vector registers, with "
           "masks where they diverge (0 or 1: one at a time)">,
    Option<"laneVectorAlways", "lane-vector-always", "bool", /*default=*/"false",
           "With lane-vector-width: vectorize every lane loop that can be, "
           "not only those where the cost model expects it to pay">,
    Option<"laneVectorRemarks", "lane-vector-remarks", "bool", /*default=*/"false",
           "With lane-vector-width: a remark at each kernel for each of its "
           "lane loops, vectorized or why not (the cost model's figures)">
  ];
  let statistics = [
    Statistic<"numFissionKernels", "fission-kernels", "Kernels lowered by loop fission">,
    Statistic<"numCoroutineKernels", "coroutine-kernels", "Kernels lowered to coroutines">,
    Statistic<"numLaneLoops", "lane-loops", "Lane loop nests emitted by fission">,
    Statistic<"numPerLaneArrays", "per-lane-arrays",
              "Per-lane arrays for values live across barriers">,
    Statistic<"numSuspendPoints", "suspend-points", "Barriers lowered to suspend points">,
    Statistic<"numAggregatedAdds", "aggregated-adds",
              "Counter adds summed per block and added once (fission kernels)">,
    Statistic<"numVectorLaneLoops", "vector-lane-loops",
              "Lane loops run lane-vector-width lanes at a time">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::cf::ControlFlowDialect",
                           "::mlir::vector::VectorDialect"];
}

def ExpandGPUCollectives : Pass<"sluice-expand-gpu-collectives", "::mlir::ModuleOp"> {
  let summary = "Rewrite gpu.all_reduce, gpu.subgroup_reduce and subgroup queries in terms of shuffles, barriers and workgroup memory";
  let description = [{
    What every backend runs first (convert-gpu-to-cpu, sluice-gpu-to-spirv,
    sluice-gpu-to-hip-emitc call the same function), registered on its own
    for tests. In every gpu.func of every gpu.module:

    - `gpu.all_reduce` (every built-in operation and the region form)
      becomes a tree reduction in a new workgroup attribution with one
      element per lane (the kernel's known block size, else the constant
      block size of all its launches, else 1024): every lane stores its
      value, then at strides 2^(k-1) .. 1 a lane `t < s` with `t + s` below
      the block's lane count folds element `t + s` into `t`, with a barrier
      after each step; every lane reads element 0; a last barrier. The
      combination order is the same on every backend.
    - `gpu.subgroup_reduce` (with `expand-subgroup-reduce`) becomes a
      butterfly of `gpu.shuffle xor` at offsets stride, 2 stride, ... below
      stride * cluster size (the subgroup size without a cluster; a loop of
      at most 7 steps over `gpu.subgroup_size` when that is not a constant).
    - With `subgroup-size=N` (a backend whose subgroup size is a constant),
      `gpu.subgroup_size` is N, `gpu.lane_id` the linear thread id modulo N,
      `gpu.subgroup_id` the linear thread id divided by N and
      `gpu.num_subgroups` the block's lanes divided by N, rounded up; with
      `expand-subgroup-queries` the last two are that arithmetic over
      `gpu.subgroup_size`.
  }];
  let options = [
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"0",
           "The backend's subgroup size if it is a constant (0: read it at run time)">,
    Option<"expandSubgroupQueries", "expand-subgroup-queries", "bool", /*default=*/"false",
           "Rewrite gpu.subgroup_id and gpu.num_subgroups over gpu.subgroup_size">,
    Option<"expandSubgroupReduce", "expand-subgroup-reduce", "bool", /*default=*/"true",
           "Rewrite gpu.subgroup_reduce as a butterfly of gpu.shuffle xor">,
    Option<"shufflesAsIndexed", "shuffles-as-indexed", "bool", /*default=*/"false",
           "Rewrite every gpu.shuffle as idx from a computed source lane, over the whole subgroup">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LowerGPUPrintf : Pass<"sluice-lower-gpu-printf", "::mlir::ModuleOp"> {
  let summary = "gpu.printf to records in a buffer that the host prints after each launch";
  let description = [{
    Runs first in sluice-host-to-llvm on every backend, so a program prints
    the same text on the CPU, on Vulkan and on HIP. Every kernel with a
    `gpu.printf` gets a trailing `memref<?xi32>` argument, the record buffer
    of include/sluice/ABI/PrintfABI.h; each `gpu.printf` reserves its record
    with an atomic add on the buffer's first word and writes it (format
    index, block and thread linear ids, the arguments) if it fits, else adds
    one to the dropped count. Every `gpu.launch_func` of such a kernel
    allocates the buffer (`sluice_rt_printf_capacity()` record words),
    passes it and then calls `sluice_rt_printf_flush`, which prints the
    records ordered by (block linear id, thread linear id), each thread's in
    call order, and says on stderr how many were dropped.

    Formats: `%%` and `%[flags][width][.precision][l|ll]` with `d i u x X`
    (i32, i64, index) or `f F e E g G` (f32, f64); anything else, an argument
    of another type, a count of conversions that differs from the arguments,
    a printf outside a kernel and a kernel that prints but no
    `gpu.launch_func` launches are errors at the op.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numPrintfs", "printfs", "gpu.printf ops lowered to records">,
    Statistic<"numLaunches", "launches", "launches given a record buffer">
  ];
}

def EraseUnreachableBlocks : Pass<"sluice-erase-unreachable-blocks", "::mlir::ModuleOp"> {
  let summary = "Erase the blocks that no path from their region's entry reaches";
  let description = [{
    Runs first in sluice-host-to-llvm and sluice-wave-to-gpu. MLIR's dialect
    conversion visits a region's blocks in dominance order, which leaves out
    the blocks no path reaches (`scf.execute_region { cf.br ^bb2 ^bb1: ...
    ^bb2: ... }`, as a front end's code generator may write): their
    operations stayed unconverted, and the program failed in LLVM
    translation ("builtin.unrealized_conversion_cast") or in verification,
    far from the cause. Such a block never runs, so erasing it (in every
    region, nested ones included) changes no result.
  }];
}

def DistributeWarpOps : Pass<"sluice-distribute-warp-ops", "::mlir::ModuleOp"> {
  let summary = "Distribute and lower gpu.warp_execute_on_lane_0 with upstream's vector distribution patterns";
  let description = [{
    What every backend runs first, inside sluice-expand-gpu-collectives
    (convert-gpu-to-cpu with its constant subgroup size, sluice-gpu-to-spirv
    and sluice-gpu-to-hip-emitc with none); registered on its own for tests.
    Vectors yielded by the op distribute along their innermost dimension
    (transfer_write distribution, propagation, reductions); a value read from
    another lane is a `gpu.shuffle idx` and a reduction over the warp a
    `gpu.subgroup_reduce` when the op's warp size is `subgroup-size`, else
    both go through a workgroup array (one element per lane) with barriers.
    What is left of the op is `scf.if (laneid == 0)`, its operands and
    results passing through workgroup arrays with one row per warp (warp =
    linear thread id / warp size) and a barrier on each side. The laneid
    operand must be the linear thread id modulo the warp size (gpu.lane_id
    when the warp is the subgroup), the warp size must divide the block, and
    every lane of the block must reach the op (it contains barriers).
  }];
  let options = [
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"0",
           "The backend's subgroup size if it is a constant (0: none)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect"];
}

def StructureStageKernels : Pass<"sluice-structure-stage-kernels", "::mlir::ModuleOp"> {
  let summary = "Wrap the CFG of barrier-free stage kernels in one scf.execute_region";
  let description = [{
    `convert-wave-to-gpu` emits stage kernels whose bodies are CFGs (one block
    per branch of the stage); `convert-gpu-to-cpu` takes multi-block kernels
    down its coroutine path, one coroutine frame per lane. This pass wraps
    the CFG of every kernel without barriers, workgroup or private
    attributions in one `scf.execute_region`, so that loop fission applies: a
    plain lane loop, no coroutine. Other kernels are left as they are. It is
    part of the `sluice-wave-to-cpu` pipeline.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def ConvertWaveToGPU : Pass<"convert-wave-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower a split coroutine and its capacity owners to gpu kernels and a program descriptor";
  let description = [{
    Input: a module with exactly one split `wave.coroutine` (run `wave-split`
    first), its `pool.owner`s and `pool.emission_bound`s. Output: a
    `gpu.module @sluice_kernels` with one `gpu.func` kernel per main stage
    (`@<coroutine>__<stage>`) and per owner stage handler
    (`@<owner>__<stage>`), and the `sluice.program` module attribute, the
    program descriptor (docs/compiler.md gives its schema). The coroutine,
    owners and bounds are erased.

    Every kernel has the same arguments, one thread per invocation
    (`block_id.x * block_dim.x + thread_id.x < count`): `count: index`,
    `invocations` (frame index of a main stage, item slot of a handler),
    `lane_ids` (per frame), `frames` (frame bytes), `field_offsets` (SoA:
    byte offset of each field's array; unused by AoS), `next_stage` (outcome
    per invocation: stage id, or 0xFFFFFFFF when finished / released),
    `counters`, `published_slots`, `published_counts` (zeroed by the host),
    `alloc_limits` (per owner: free-ring positions below it hold slots
    admitted for this dispatch), `fault` (code, stage, invocation, owner,
    value: the first fault, claimed by compare-and-swap of the code from 0),
    then per owner its free ring and one array per payload field (indexed by
    slot), then one input array per coroutine argument (indexed by lane id,
    read by the entry stage), then one argument per binding (the buffer as
    declared; a uniform as a `memref<1xT>`), then `binding_extents` (i64
    per binding: the element count of a dynamic binding, which `memref.dim`
    of it becomes). `counters` holds, from
    `counters.stage_base`,
    one arrival count per global stage (main stages, then each owner's
    stages), from `counters.alloc_base` one free-ring head per owner and from
    `counters.release_base` one release count per owner; all are updated with
    `memref.atomic_rmw addi`.

    `wave.next` writes the frame's `next` field and `next_stage`, and counts
    an arrival at the target stage. `pool.publish` takes the next free-ring
    position atomically (with `lane-publish-positions`: position
    `invocation * bound + k` for the invocation's k-th publish, no atomic, so
    the positions a dispatch takes have holes that the host compacts;
    docs/cpu-backend.md, "Publish positions without a claim"), writes the
    payload at the slot, appends the slot to the invocation's publish record
    and counts an arrival at the owner's first stage. A publish beyond the emission bound (fault 1,
    BOUND_EXCEEDED) or beyond `alloc_limits` (fault 2, POOL_EXHAUSTED) writes
    nothing and records the fault instead. `pool.move` optionally rewrites the payload, records the
    owner-stage index in `next_stage` and counts an arrival; `pool.release`
    records 0xFFFFFFFF and counts a release.

    With `check-bounds`, every `memref.load`, `memref.store` and
    `memref.atomic_rmw` of a buffer binding is guarded: an index outside the
    buffer's extents skips the access (a load yields 0) and records fault 7
    (OUT_OF_BOUNDS) with the binding's index as the owner word and the
    row-major element index as the value.

    Rejected with an error: more or fewer than one coroutine, an unsplit
    coroutine, a publish without a declared emission bound, a publish into
    any stage but the owner's first, a handler's `wave.binding` the
    coroutine does not bind, a write to a `readonly` binding, a read of a
    `writeonly` one.
  }];
  let options = [
    Option<"checkBounds", "check-bounds", "bool", /*default=*/"false",
           "Guard every access to a buffer binding with a bounds check that "
           "records an OUT_OF_BOUNDS fault">,
    Option<"lanePublishPositions", "lane-publish-positions", "bool",
           /*default=*/"false",
           "pool.publish takes free-ring position invocation * bound + k "
           "(its k-th publish) instead of claiming the next one with an "
           "atomic add; the host compacts the window after the dispatch "
           "(the CPU backend)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect"];
}

def BuildMegakernel : Pass<"sluice-build-megakernel", "::mlir::ModuleOp"> {
  let summary = "Add the state-machine schedule's megakernel to the kernels of convert-wave-to-gpu";
  let description = [{
    Input: the output of `convert-wave-to-gpu` (the `gpu.module` of stage
    kernels and the `sluice.program` descriptor). Adds one more kernel,
    `@<coroutine>__megakernel`, and records it in the descriptor as
    `megakernel = {kernel = @sluice_kernels::@<coroutine>__megakernel}`.

    It takes the stage kernels' arguments and then `machine` (i32 words,
    include/sluice/ABI/KernelABI.h): `count` threads, each of which claims
    lanes with an atomic add on `machine[0]` while they are below
    `machine[1]`, at most `machine[2]` per launch, and runs each lane to
    completion: a loop over the main stages' bodies (a copy of each stage
    kernel's body, selected by the frame's next stage) in which the items an
    invocation published are handled right after it, depth-first, by the
    owner's handler bodies until each is released. Thread `g` owns frame
    `g` and, per owner, the `bound` item slots `g * bound + k` (`bound`:
    the coroutine's emission bound into the owner). Its per-invocation
    arguments (invocation, lane id, outcome, counters, publish record,
    admission limits, the owners' free rings) and the uniform bindings,
    read once from `machine`, live in private memory, so the frames, the
    payload arrays, the fault record, the inputs, the buffer bindings and
    `machine` are its only buffers (a device bounds the buffers of one
    kernel: 32 on lavapipe). Each thread counts, per global stage,
    invocations, items published and items released, and the lanes it
    finished, and writes them and the lane it claimed last to its words of
    `machine` when it stops. An outcome that names no stage records fault 8
    (BAD_OUTCOME); after any fault every thread stops at its next
    invocation boundary.

    With `warp-vote` the loop is instead one state machine per thread: its
    state is the global stage it runs next (a main stage, or an owner's
    stage for the item it handles), "needs a lane" or "stopped", and each
    turn of the loop the threads of a subgroup pick the furthest state any of them
    waits at (a `gpu.subgroup_reduce maxui`) and only the threads at that
    stage run its body: a subgroup runs one stage body at a time, as a
    hand-written kernel that runs one path per thread does, instead of
    every body some thread needs in turn. Threads past `count` take part in
    the votes, idle. The results are the same; compileWaveProgram builds
    the voting form for the hip backend and keeps the plain one for the
    CPU (a subgroup operation in a loop makes the CPU's lanes coroutines)
    and for SPIR-V (slower there on the NVIDIA driver). Run on a module
    whose megakernel it built, the pass rebuilds it.

    With `private-state` (the default) thread `g`'s frame and item slots
    are private to it as well: no other thread and nothing after the kernel
    reads frame `g` or slots `g * bound + k`, so every frame field the
    copied bodies load or store (the views that convert-wave-to-gpu marks
    `sluice.frame_field`) becomes a one-element private variable of the
    thread, and every payload field an array of `bound` private elements
    (slot `g * bound + k` is element `k`; element 0 when the bound is 1).
    A backend keeps them in registers: a lane's stages and its items'
    handlers pass their values on without a store and a load of the frame
    or payload buffers. Those buffers stay arguments (the ABI is the stage
    kernels') but the megakernel no longer reads or writes them. Rounding
    does not change: a value is the same bits in a register and in memory,
    and no backend contracts across what were separate stages
    (wave-fuse-multiply-add fuses explicitly; NVRTC runs with
    `--fmad=false`, LLVM contracts nothing unflagged, and sluice-gpu-to-spirv
    decorates float multiplies, adds and subtracts `NoContraction`).
  }];
  let options = [
    Option<"warpVote", "warp-vote", "bool", /*default=*/"false",
           "Each subgroup runs one stage at a time: the furthest one a "
           "thread of it waits at (gpu.subgroup_reduce)">,
    Option<"privateState", "private-state", "bool", /*default=*/"true",
           "Keep the thread's frame and item payloads in private variables "
           "(registers) instead of the frame and payload buffers">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect"];
}

def SluiceCheckSPIRV : Pass<"sluice-check-spirv", "::mlir::ModuleOp"> {
  let summary = "Reject what SPIR-V Shader cannot express in gpu.module kernels";
  let description = [{
    Checks every `gpu.module` before `sluice-gpu-to-spirv` and reports, at the
    offending op, with its name and the reason: recursion (a cycle in the
    call graph of the functions of a gpu.module), irreducible control flow (a
    cycle in a region's CFG that is entered other than through a block that
    dominates it), dynamic allocation (`memref.alloc`, `memref.realloc`, and
    `memref.alloca` with dynamic sizes), function pointers
    (`func.constant`, `func.call_indirect`), 64-bit transcendentals, bf16
    anywhere in a kernel, f16 unless the target environment has Float16 and
    StorageBuffer16BitAccess, a buffer argument of 3-vectors (whose array
    stride Vulkan's layout rules forbid), and a `spirv.target_env` that is not
    for Vulkan or lacks Shader. Everything else is left to the conversion.
    docs/spirv-backend.md, docs/gpu-kernels.md.
  }];
  let statistics = [
    Statistic<"numRejected", "rejected-ops", "Ops rejected">
  ];
}

def ConvertSluiceGPUToSPIRV : Pass<"sluice-gpu-to-spirv", "::mlir::ModuleOp"> {
  let summary = "Lower Sluice's gpu hand-off (stage, handler and barrier kernels) to spirv.module";
  let description = [{
    Converts every `gpu.module` into a `spirv.module` (Logical GLSL450) for
    Vulkan, with the upstream GPU, Arith, Math, Index, CF, SCF, MemRef, Func
    and UB to SPIR-V patterns, and keeps the gpu.module (the program
    descriptor and host launches refer to it). The module gets the
    `spirv.target_env` given by the options unless it already has one.
    Before the conversion, per kernel:

    - control flow: the CFG of every multi-block region is lifted to `scf`
      (SPIR-V Shader needs structured control flow);
    - frame field access: a `memref<?xi8>` kernel argument read and written
      only through `memref.view`s (the frame buffer of convert-wave-to-gpu)
      becomes a `memref<?xi32>` word array; 32-bit fields are one word,
      64-bit fields two (little-endian, 8-byte aligned), narrower integers
      are shifted out of their word and stored with `memref.atomic_rmw`
      andi/ori (the word is shared with other frames' fields);
    - workgroup attributions become `Workgroup` `spirv.GlobalVariable`s;
      private attributions `Function` variables, except those larger than
      `max-private-bytes` per invocation, which become trailing
      storage-buffer arguments (scratch memory, one slice per invocation of
      the grid, indexed by the invocation's global linear id);
    - memory spaces map to storage classes (none: StorageBuffer, workgroup:
      Workgroup, private: Function);
    - `spirv.entry_point_abi`: the workgroup size is the kernel's
      `known_block_size`, else the constant block size of every
      `gpu.launch_func` of it in the module, else (a launch of a size
      computed at run time, or two constants) a size chosen at run time:
      `gpu.block_dim` reads spec constants `@<kernel>__block_dim_{x,y,z}`
      and LocalSize is 1 1 1, both set per launch size by the Vulkan
      runtime; a kernel without launches gets the `workgroup-size` option;
      every argument gets a
      `spirv.interface_var_abi` (descriptor set 0, binding = position).

    Kernel math and types (docs/gpu-kernels.md): math ops without a
    GLSL.std.450 instruction are rewritten first (trunc, fpowi, ipowi, cttz,
    bit counts of i8/i16/i64 exactly; erf, erfc, cbrt and atan2 as upstream's
    polynomials), `math.exp2` and `math.ctpop` get patterns, i8/i16
    arithmetic without Int8/Int16 is computed in i32 with the narrow value
    kept sign-extended, 1-D vector transfers become guarded scalar accesses,
    and vectors of more than 4 elements are unrolled where upstream can (an
    op it cannot split is an error at the op). With `sign-extend-with-shifts`
    (the default) every sign extension to i64 (`arith.extsi`, and
    `arith.index_cast` of an index, which is 32 bits here) becomes
    `(zext x << k) >>s k`: Mesa 22.3's lavapipe evaluates a signed compare
    of `OpSConvert` to i64 with a constant wrongly.

    Sluice patterns: `memref.generic_atomic_rmw` in the compare-and-swap form
    convert-wave-to-gpu emits for faults becomes `spirv.AtomicCompareExchange`.
    Counters and slot allocation (`memref.atomic_rmw addi`) use the upstream
    `spirv.AtomicIAdd` pattern. Run `spirv-lower-abi-attrs` and
    `spirv-update-vce` afterwards (the `sluice-to-spirv` pipeline does).
  }];
  let options = [
    Option<"workgroupSize", "workgroup-size", "unsigned", /*default=*/"64",
           "Workgroup size x of kernels without a known block size">,
    Option<"spirvVersion", "spirv-version", "std::string", /*default=*/"\"1.3\"",
           "SPIR-V version of the target environment (1.0 .. 1.3)">,
    Option<"int64", "int64", "bool", /*default=*/"true",
           "Allow the Int64 capability (frame offsets are i64)">,
    Option<"maxPrivateBytes", "max-private-bytes", "unsigned", /*default=*/"16384",
           "Private arrays larger than this (bytes per invocation) move to a "
           "trailing scratch storage-buffer argument">,
    Option<"signExtendWithShifts", "sign-extend-with-shifts", "bool", /*default=*/"true",
           "Write every sign extension to i64 as a zero extension and two "
           "shifts (Mesa lavapipe gets signed compares of OpSConvert to i64 "
           "with a constant wrong; docs/gpu-kernels.md)">
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels converted">,
    Statistic<"numFrameAccesses", "frame-accesses", "Frame field loads and stores rewritten">
  ];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect", "::mlir::scf::SCFDialect",
                           "::mlir::ub::UBDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def SluiceSPIRVInt64Atomics : Pass<"sluice-spirv-int64-atomics", "::mlir::spirv::ModuleOp"> {
  let summary = "Declare Int64Atomics for the 64-bit atomics of a module";
  let description = [{
    Runs after `spirv-update-vce` (the `sluice-to-spirv` pipeline does), whose
    capability requirements of the atomic ops do not depend on their type: a
    module with an atomic on a 64-bit integer (an i64 film or counter) needs
    the `Int64Atomics` capability, which this pass adds to the module's
    version-capability-extension triple. The Vulkan runtime checks it against
    the device's `shaderBufferInt64Atomics`.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def SluiceSPIRVSplitLoopHeaders : Pass<"sluice-spirv-split-loop-headers", "::mlir::spirv::ModuleOp"> {
  let summary = "Give a loop header that holds nested control flow a block of its own";
  let description = [{
    Runs last in the `sluice-to-spirv` pipeline, before serialization. MLIR's
    SPIR-V serializer emits a loop header's `OpLoopMerge` before the header's
    first nested `spirv.mlir.selection` or `spirv.mlir.loop` and starts a new
    block there, but the `OpPhi` of a loop nested in that header still names
    the header as its incoming block: the module fails `spirv-val` ("OpPhi's
    incoming basic block is not a predecessor") and lavapipe runs the kernel
    forever. A kernel whose loops are lifted from a CFG (a stage kernel that
    resumes inside nested loops) has such headers. This pass moves the ops of
    every such header into a new block the header branches to.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def SluiceSPIRVInterfaceVersion : Pass<"sluice-spirv-interface-version", "::mlir::spirv::ModuleOp"> {
  let summary = "Keep a module for SPIR-V 1.4 or later at its target environment's version";
  let description = [{
    Runs after `spirv-update-vce` (the `sluice-to-spirv` pipeline does). For a
    `spirv.target_env` of SPIR-V 1.4 or later, `spirv-lower-abi-attrs` lists
    every global an entry point uses in its interface, as 1.4 requires, but
    `spirv-update-vce` lowers the module's version to what its ops need
    (1.0), which allows only Input and Output variables there. This pass sets
    the module's version back to the target environment's, so the module
    passes `spirv-val` for that environment. Modules for 1.0 to 1.3 are left
    as they are.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def SluiceSPIRVPushConstants : Pass<"sluice-spirv-push-constants", "::mlir::spirv::ModuleOp"> {
  let summary = "Move scalar kernel arguments into each entry point's push-constant block";
  let description = [{
    Runs after `spirv-lower-abi-attrs` (the `sluice-to-spirv` pipeline does).
    A scalar kernel argument is then a one-member StorageBuffer block
    (`!spirv.struct<(T [0])>` at its binding); this pass gathers the scalar
    blocks each entry point reads into one `PushConstant` block named
    `@<entry>_push_constants`, members in binding order at their natural
    alignment (offset rounded up to the scalar's size), and rewrites the
    access chains that read them. The other arguments keep their bindings;
    the binding of a moved scalar is unused. The host pushes the scalars
    (vkCmdPushConstants) in that layout: for a launch the scalar operands in
    order. A wave program's kernels (the enclosing module carries the
    `sluice.program` descriptor) keep their one scalar, the invocation count
    at binding 0, in its storage buffer (KernelABI.h): the device placement
    of the scheduler writes it on the device for an indirect dispatch.
  }];
  let statistics = [
    Statistic<"numBlocks", "push-constant-blocks", "Push-constant blocks created">,
    Statistic<"numMoved", "scalars-moved", "Scalar argument blocks moved">
  ];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def SluiceSPIRVStageSwitch : Pass<"sluice-spirv-stage-switch", "::mlir::spirv::ModuleOp"> {
  let summary = "Add the entry point sluice_stage_switch that runs any stage kernel of a wave program";
  let description = [{
    Runs after `sluice-spirv-push-constants` (the `sluice-to-spirv` pipeline
    does), on the spirv.module of a wave program's stage kernels (the
    enclosing module carries the `sluice.program` descriptor; other modules
    are left alone). Each stage kernel's body moves into a plain function
    `<kernel>_body`, which the entry point calls (SPIR-V forbids calling an
    entry point). The new entry point `sluice_stage_switch` reads a 32-bit
    stage index s from the second word of binding 0 (the first is the
    invocation count the stage kernels read there, KernelABI.h) and calls
    the body of global stage s (the main stages in descriptor order, then
    each owner's stages), or nothing when s is no stage. It binds what the
    stage kernels bind.

    The Vulkan device placement dispatches it once per iteration
    (indirectly, with the grid the scheduler shader computed for the chosen
    stage) instead of one indirect dispatch per stage kernel, every grid but
    one empty (docs/runtime.md "The device placement on Vulkan"). Stage
    kernels of different workgroup sizes get no switch (the runtime then
    keeps one dispatch per stage).

    Where every stage body can run as a virtual invocation (no barrier, no
    workgroup memory, no group operation, and no built-in variable but the
    workgroup and invocation ids and the number of workgroups), it also adds
    the plain function `sluice_stage_run(stage, invocation, groups)`, each
    argument a pointer to a Function-class i32 (as a GLSL caller passes
    them): it runs invocation `invocation` of stage `stage` as if its kernel
    had been launched over `groups` workgroups. The built-ins the module
    reads become Private variables (`sluice_virtual_<name>`) that every
    entry point fills from the real ones first and `sluice_stage_run` fills
    from its arguments. The Vulkan runtime links the module with its
    scheduler shader through it: one workgroup then runs a batch of
    iterations, the decision and the stage, in one dispatch (docs/runtime.md
    "The fused loop").
  }];
  let statistics = [
    Statistic<"numSwitches", "stage-switches", "Stage switches added">,
    Statistic<"numRuns", "stage-runs",
              "sluice_stage_run functions added (the fused loop's)">
  ];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def ConvertSluiceGPUToHIPEmitC : Pass<"sluice-gpu-to-hip-emitc", "::mlir::ModuleOp"> {
  let summary = "Lower Sluice's gpu hand-off (stage, handler and barrier kernels) to EmitC for HIP C++";
  let description = [{
    Converts a copy of every `gpu.module` into an `emitc.file
    "sluice.hip.<module>"` of HIP C++ (the gpu.module, the host code and the
    program descriptor stay) and adds the prelude file `"sluice.hip"`
    (`#include <hip/hip_runtime.h>` under hipcc, fixed-width integer typedefs
    under NVRTC, `<stdint.h>` otherwise). `--sluice-to-hip` prints the
    prelude and every module file as one translation unit.

    Every kernel becomes `extern "C" __global__ void <module>_<kernel>(...)`
    on the parameter ABI of include/sluice/ABI/HIPABI.h (index: int64_t;
    memref: a pointer followed by one int64_t per dynamic dimension), with
    `__launch_bounds__` of its `known_block_size`, else of the constant block
    size of its launches, else of `block-size` (0: none), and a comment naming
    its parameters. The body of a wave stage kernel is also a `__device__`
    function `<symbol>_body(..., int64_t invocation)` that the kernel calls.

    Upstream patterns: Arith, SCF, Func and Math (C99) to EmitC, after
    `arith-expand` and with multi-block regions lifted to `scf`. Sluice
    patterns: gpu.func, thread/block/grid ids, barriers, memref loads and
    stores on linearized indices, `memref.view`, `memref.alloca` (local
    arrays; `__shared__` in workgroup memory, as workgroup attributions),
    `memref.atomic_rmw` (atomicAdd, atomicMax, ...), the compare-and-swap form
    of `memref.generic_atomic_rmw` (atomicCAS), the math functions C99 EmitC
    lacks, `arith.bitcast`, `arith.remf` and `arith.mului_extended`.
    What HIP cannot express or what is not lowered is an error at the op
    (docs/hip-backend.md).
  }];
  let options = [
    Option<"blockSize", "block-size", "unsigned", /*default=*/"0",
           "__launch_bounds__ of kernels without a known block size (0: none)">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "the width of `index` inside kernels, 64 or 32 (kernel parameters "
           "stay int64_t)">
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels converted">
  ];
  let dependentDialects = ["::mlir::emitc::EmitCDialect", "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::ub::UBDialect"];
}

def ConvertGPULaunchToRuntime : Pass<"convert-gpu-launch-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Compile gpu.modules for a GPU backend and turn gpu.launch_func into the host-launch ABI";
  let description = [{
    The host side of the GPU backends for programs that launch kernels
    themselves (barrier kernels, examples/barrier). With `backend=hip` it
    runs `sluice-gpu-to-hip` and embeds each gpu.module's HIP C++ source (the
    prelude and the module's kernels, NUL-terminated) as the kernel handle,
    with the kernel's extern "C" symbol `<module>_<kernel>` as the kernel
    name of begin (include/sluice/ABI/HIPABI.h); `index` operands are 8
    bytes, there are no workgroup-memory or scratch calls (shared memory is
    static in the source, private arrays are local). With `backend=vulkan`
    it runs the `sluice-to-spirv` pipeline on the
    module, serializes every `spirv.module` into an `llvm.mlir.global`
    constant of 32-bit words, and rewrites each `gpu.launch_func` into the
    one host-launch ABI of every backend
    (runtime/include/sluice/runtime/launch/host_launch.h,
    include/sluice/ABI/LaunchABI.h):

    ```
    sluice_rt_launch_begin(backend, handle, handle_bytes, "kernel")
    sluice_rt_launch_workgroup_memory(bytes)          // if it has any
    sluice_rt_launch_memref(aligned, offset, rank,    // per memref operand
                            sizes_and_strides, element_bytes, access)
    sluice_rt_launch_scalar(value, bytes)             // per scalar operand
    sluice_rt_launch_scratch(bytes)                   // per scratch argument
    sluice_rt_launch_end(gx, gy, gz, bx, by, bz)
    ```

    The handle is the SPIR-V words of the kernel's module. `access` says
    whether the kernel may read (1) and write (2) the memref, and, with
    `resident` (the default), that the device copy may stay resident (4):
    the pass then inserts, in every function that launches,

    ```
    sluice_rt_host_access(ptr, bytes, access)   // 1 read, 2 write, 4 free
    ```

    before each host operation that may touch memory a launch used (loads:
    read; stores, copies, calls taking the memref: read and write;
    memref.dealloc: free), hoisted out of loops that do not launch on it;
    before unknown calls when such memory may have escaped the function
    (the range (null, -1): everything); and at the function's returns for
    memory its caller can see. The runtime uploads a memref only when the
    host wrote it since the last launch and downloads it only when the host
    is about to read it (docs/spirv-backend.md, "Residency"). With
    `resident=false` every used argument is copied in and written ones are
    copied back at every launch. A private array
    larger than `max-private-bytes` becomes a scratch argument (see
    sluice-gpu-to-spirv); the runtime allocates its bytes per invocation for
    every invocation of the grid. `convert-gpu-to-cpu` lowers the CPU
    backend's launches to the same calls, with its block function as the
    handle.

    Operand *i* is the storage buffer at set 0, binding *i*, as
    `sluice-gpu-to-spirv` assigns them. The gpu and spirv modules are erased;
    what remains is host code for `convert-to-llvm`.

    Rejected with an error at the launch: async launches, dynamic shared
    memory, memref operands with a non-identity layout or a memory space,
    memref elements of `index` or `i1` type (their SPIR-V width differs from
    the host's) and scalar operands that are not integers, floats or index.
  }];
  let options = [
    Option<"backend", "backend", "std::string", /*default=*/"\"vulkan\"",
           "The GPU backend whose kernels the launches run: vulkan | hip">,
    Option<"workgroupSize", "workgroup-size", "unsigned", /*default=*/"64",
           "Workgroup size x of kernels without a known block size">,
    Option<"maxPrivateBytes", "max-private-bytes", "unsigned", /*default=*/"16384",
           "Private arrays larger than this (bytes per invocation) move to "
           "scratch buffers">,
    Option<"resident", "resident", "bool", /*default=*/"true",
           "Keep memref operands resident on the device between launches, "
           "with host-access calls in the host code">
  ];
  let statistics = [
    Statistic<"numLaunches", "launches", "gpu.launch_func ops rewritten">,
    Statistic<"numHostAccessCalls", "host-access-calls",
              "sluice_rt_host_access calls inserted">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect"];
}

def SequentializeAsync : Pass<"sluice-sequentialize-async", "::mlir::ModuleOp"> {
  let summary = "Run every async.execute body in place, in program order";
  let description = [{
    Host programs may wrap work (launches, copies) in `async.execute`
    regions. Running each body where it is written, before the op that
    follows it, is a schedule the async dialect allows: a body starts after
    its dependencies (which dominate it) and `async.await` returns once it
    has finished. The pass moves every body in front of its
    `async.execute`, replaces the body's arguments by the values the
    producing executes yielded, `async.await` of a value by that value, and
    erases `async.await` of tokens, `async.create_group`,
    `async.add_to_group` (its rank becomes 0) and `async.await_all`.

    Errors at the op: an `!async.value` operand that no `async.execute` of
    the module produced (a function argument, a call result), and a token,
    value or group that is used by anything but the ops above (returned,
    passed to a call, stored).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numExecutes", "executes", "async.execute bodies run in place">
  ];
}

def LowerGPUHost : Pass<"sluice-lower-gpu-host", "::mlir::ModuleOp"> {
  let summary = "gpu dialect host ops to host memory ops; async tokens to program order";
  let description = [{
    Every backend runs a program's gpu work in program order on one stream
    (the CPU synchronously; Vulkan and HIP in one in-order stream that the
    host waits for before it reads memory a launch wrote), and passes host
    memory to kernels (directly, or through the residency table of
    docs/spirv-backend.md). So, in host code:

    - `gpu.alloc` (also `host_shared`) is `memref.alloc` with the same
      sizes and symbols, `gpu.dealloc` is `memref.dealloc`;
    - `gpu.memcpy %dst, %src` is `memref.copy %src, %dst` (a loop nest of
      loads and stores when a layout is not the identity), `gpu.memset` a
      loop nest of stores;
    - `gpu.host_register` and `gpu.host_unregister` are erased: host memory
      is what kernels receive on every backend;
    - async forms drop their dependencies and their token: a dependency is
      always earlier in program order, so in-order execution respects it.
      `gpu.wait` is erased (the host's reads wait for the launches through
      the host-access calls); `gpu.wait async` and every token result become
      one ready token per function, and `scf` loop-carried and `scf.if`
      tokens are folded away with the `scf` canonicalizations.

    Errors at the op: `gpu.alloc` of a memref in a memory space other than
    the default one, and a token still used after the folding (passed to a
    call, returned, carried by a `cf` branch).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numHostOps", "host-ops", "gpu host ops lowered or erased">,
    Statistic<"numTokens", "tokens", "async tokens removed">
  ];
}

def ExpandHostViews : Pass<"sluice-expand-host-views", "::mlir::ModuleOp"> {
  let summary = "Host memref views to reinterpret casts that convert-to-llvm lowers";
  let description = [{
    MemRefToLLVM lowers `memref.subview`, `memref.expand_shape` and
    `memref.collapse_shape` only in their expanded form (upstream's
    `expand-strided-metadata` then `lower-affine`). sluice-host-to-llvm runs
    this after the backend's passes, on the functions that have such a view
    (a `gpu.memcpy` from a column of a 2-D array), with upstream's patterns
    and without folding, so other host code stays as written.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // SLUICE_CONVERSION_PASSES_TD
