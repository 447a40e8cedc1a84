// bench/inputs/shadow_pool_stats.mlir through the whole SPIR-V path: wave-split,
// convert-wave-to-gpu, sluice-to-spirv. One spirv.module with an entry point
// per main stage and per pool stage handler; every kernel argument is a
// storage buffer at (set 0, binding = position), the count too: a wave
// program's count stays at binding 0 (KernelABI.h), where the device
// placement's scheduler writes it for an indirect dispatch, and
// sluice-spirv-push-constants leaves it there.
// REQUIRES: spirv-tools
// RUN: sluice-opt --wave-split --convert-wave-to-gpu --sluice-to-spirv %sluice_src_root/bench/inputs/shadow_pool_stats.mlir | FileCheck %s
//
// The one command that writes the .spv files and the program descriptor:
// RUN: rm -rf %t.dir
// RUN: sluice-opt --wave-split --convert-wave-to-gpu --sluice-to-spirv %sluice_src_root/bench/inputs/shadow_pool_stats.mlir \
// RUN:   | sluice-translate --sluice-to-spirv-bin --sluice-spirv-dir=%t.dir | FileCheck %s --check-prefix=MANIFEST
// RUN: spirv-val --target-env vulkan1.1 %t.dir/sluice_kernels.spv
// RUN: FileCheck %s --check-prefix=JSON < %t.dir/program.json
// RUN: spirv-dis %t.dir/sluice_kernels.spv | FileCheck %s --check-prefix=DIS

// MANIFEST: spirv sluice_kernels {{.*}}sluice_kernels.spv entry_points path__entry path__bounce path__finish shadow__intersect shadow__shade sluice_stage_switch
// MANIFEST-NEXT: descriptor {{.*}}program.json
// JSON: "main_stages": [
// JSON: "kernel": "path__entry"

// CHECK-LABEL: spirv.module @__spv__sluice_kernels Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Int64, Matrix], [SPV_KHR_storage_buffer_storage_class]>

// The count, the frame bytes (as 32-bit words) and the SoA field offsets.
// CHECK-NOT: PushConstant
// CHECK-DAG: spirv.GlobalVariable @path__bounce_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @path__bounce_arg_3 bind(0, 3) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @path__bounce_arg_4 bind(0, 4) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i64, stride=8> [0])>, StorageBuffer>

// Stage "bounce": the frame field arg0 at field_offsets[2] + 4 * frame,
// loaded as word (offset >> 2); the publish takes a free-ring position with
// an atomic add on the counters (alloc_base 5) and counts an arrival at the
// owner's first stage (global stage 3); a fault is claimed by compare-and-swap.
// CHECK-LABEL: spirv.func @path__bounce_body() "None" {
// CHECK: %[[COUNTB:.*]] = spirv.mlir.addressof @path__bounce_arg_0
// CHECK: %[[COUNTP:.*]] = spirv.AccessChain %[[COUNTB]][%{{.*}}] : {{.*}} -> !spirv.ptr<i32, StorageBuffer>
// CHECK: spirv.Load "StorageBuffer" %[[COUNTP]] : i32
// CHECK: %[[FRAMES:.*]] = spirv.mlir.addressof @path__bounce_arg_3
// CHECK: %[[OFFSETS:.*]] = spirv.mlir.addressof @path__bounce_arg_4
// CHECK: %[[COUNTERS:.*]] = spirv.mlir.addressof @path__bounce_arg_6
// CHECK: %[[FAULT:.*]] = spirv.mlir.addressof @path__bounce_arg_10
// CHECK: spirv.mlir.selection {
// CHECK: %[[OFFP:.*]] = spirv.AccessChain %[[OFFSETS]][%{{.*}}, %{{.*}}] : {{.*}} -> !spirv.ptr<i64, StorageBuffer>
// CHECK: %[[OFF64:.*]] = spirv.Load "StorageBuffer" %[[OFFP]] : i64
// CHECK: %[[OFF:.*]] = spirv.SConvert %[[OFF64]] : i64 to i32
// CHECK: %[[BYTE:.*]] = spirv.IAdd %[[OFF]], %{{.*}} : i32
// CHECK: %[[WORD:.*]] = spirv.ShiftRightLogical %[[BYTE]], %{{.*}} : i32, i32
// CHECK: %[[FIELDP:.*]] = spirv.AccessChain %[[FRAMES]][%{{.*}}, %[[WORD]]]
// CHECK: spirv.Load "StorageBuffer" %[[FIELDP]] : i32
// CHECK: spirv.mlir.loop {
// CHECK: %[[HEADP:.*]] = spirv.AccessChain %[[COUNTERS]][%{{.*}}, %[[C5:.*]]] : {{.*}} -> !spirv.ptr<i32, StorageBuffer>
// CHECK: %[[POS:.*]] = spirv.AtomicIAdd <Device> <None> %[[HEADP]], %{{.*}} : !spirv.ptr<i32, StorageBuffer>
// CHECK: spirv.UMod %[[POS]], %{{.*}} : i32
// CHECK: %[[ARRIVEP:.*]] = spirv.AccessChain %[[COUNTERS]][%{{.*}}, %[[C3:.*]]]
// CHECK: spirv.AtomicIAdd <Device> <None> %[[ARRIVEP]], %{{.*}} : !spirv.ptr<i32, StorageBuffer>
// CHECK: %[[CODEP:.*]] = spirv.AccessChain %[[FAULT]][%{{.*}}, %{{.*}}]
// CHECK: spirv.AtomicCompareExchange <Device> <None> <None> %[[CODEP]], %{{.*}}, %{{.*}} : !spirv.ptr<i32, StorageBuffer>
// CHECK: spirv.Return
// The entry point only fills the bodies' copies of the built-ins
// (sluice_virtual_*, which sluice_stage_run sets instead) and calls the
// body, which the stage switch calls too.
// CHECK-LABEL: spirv.func @path__bounce() "None" {
// CHECK-NOT: spirv.func
// CHECK: spirv.Store "Private"
// CHECK-NOT: spirv.func
// CHECK: spirv.FunctionCall @path__bounce_body() : () -> ()
// CHECK-NEXT: spirv.Return

// Handler "intersect": the payload at the item's slot, then release (next
// stage 0xFFFFFFFF, release count of the owner, counter 6) or move to "shade"
// (owner-stage index 1, arrival at global stage 4).
// CHECK-LABEL: spirv.func @shadow__intersect_body() "None" {
// CHECK: %[[NEXT:.*]] = spirv.mlir.addressof @shadow__intersect_arg_5
// CHECK: %[[CNT:.*]] = spirv.mlir.addressof @shadow__intersect_arg_6
// CHECK: %[[T:.*]] = spirv.mlir.addressof @shadow__intersect_arg_12
// CHECK-DAG: %[[C6:.*]] = spirv.Constant 6 : i32
// CHECK-DAG: %[[C4:.*]] = spirv.Constant 4 : i32
// CHECK-DAG: %[[DONE:.*]] = spirv.Constant -1 : i32
// CHECK: %[[TP:.*]] = spirv.AccessChain %[[T]][%{{.*}}, %{{.*}}] : {{.*}} -> !spirv.ptr<f32, StorageBuffer>
// CHECK: %[[TV:.*]] = spirv.Load "StorageBuffer" %[[TP]] : f32
// CHECK: %[[OCC:.*]] = spirv.FOrdLessThanEqual %[[TV]], %{{.*}} : f32
// CHECK: spirv.BranchConditional %[[OCC]]
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %[[DONE]] : i32
// CHECK: %[[RELP:.*]] = spirv.AccessChain %[[CNT]][%{{.*}}, %[[C6]]]
// CHECK: spirv.AtomicIAdd <Device> <None> %[[RELP]]
// CHECK: %[[MOVEP:.*]] = spirv.AccessChain %[[CNT]][%{{.*}}, %[[C4]]]
// CHECK: spirv.AtomicIAdd <Device> <None> %[[MOVEP]]
// CHECK: spirv.Return

// CHECK-DAG: spirv.EntryPoint "GLCompute" @path__entry
// CHECK-DAG: spirv.EntryPoint "GLCompute" @path__bounce
// CHECK-DAG: spirv.EntryPoint "GLCompute" @shadow__intersect
// CHECK-DAG: spirv.EntryPoint "GLCompute" @shadow__shade
// CHECK-DAG: spirv.ExecutionMode @shadow__shade "LocalSize", 64, 1, 1{{$}}

// The stage switch: the stage index is the second word at binding 0, and
// global stage s (main stages in order, then the owner's) is the s-th branch.
// CHECK-LABEL: spirv.func @sluice_stage_switch() "None" {
// CHECK: %[[SW:.*]] = spirv.mlir.addressof @sluice_stage_switch_stage : !spirv.ptr<!spirv.struct<(i32 [0], i32 [4])>, StorageBuffer>
// CHECK: %[[STAGEP:.*]] = spirv.AccessChain %[[SW]][%{{.*}}] : {{.*}} -> !spirv.ptr<i32, StorageBuffer>
// CHECK: %[[STAGE:.*]] = spirv.Load "StorageBuffer" %[[STAGEP]] : i32
// CHECK: %[[S0:.*]] = spirv.Constant 0 : i32
// CHECK: spirv.IEqual %[[STAGE]], %[[S0]] : i32
// CHECK: spirv.FunctionCall @path__entry_body()
// CHECK: %[[S1:.*]] = spirv.Constant 1 : i32
// CHECK: spirv.IEqual %[[STAGE]], %[[S1]] : i32
// CHECK: spirv.FunctionCall @path__bounce_body()
// CHECK: %[[S2:.*]] = spirv.Constant 2 : i32
// CHECK: spirv.IEqual %[[STAGE]], %[[S2]] : i32
// CHECK: spirv.FunctionCall @path__finish_body()
// CHECK: %[[S3:.*]] = spirv.Constant 3 : i32
// CHECK: spirv.IEqual %[[STAGE]], %[[S3]] : i32
// CHECK: spirv.FunctionCall @shadow__intersect_body()
// CHECK: %[[S4:.*]] = spirv.Constant 4 : i32
// CHECK: spirv.IEqual %[[STAGE]], %[[S4]] : i32
// CHECK: spirv.FunctionCall @shadow__shade_body()
// CHECK: spirv.Return
// CHECK: spirv.EntryPoint "GLCompute" @sluice_stage_switch, @__builtin__WorkgroupId__, @__builtin__LocalInvocationId__
// CHECK-NEXT: spirv.ExecutionMode @sluice_stage_switch "LocalSize", 64, 1, 1{{$}}
// The gpu.module stays: the descriptor names its kernels.
// CHECK: gpu.module @sluice_kernels

// DIS-DAG: OpCapability Int64
// DIS-DAG: OpEntryPoint GLCompute %path__bounce "path__bounce"
// DIS-DAG: OpEntryPoint GLCompute %shadow__intersect "shadow__intersect"
// DIS-DAG: OpEntryPoint GLCompute %sluice_stage_switch "sluice_stage_switch"
// DIS: OpAtomicIAdd
// DIS: OpAtomicCompareExchange
