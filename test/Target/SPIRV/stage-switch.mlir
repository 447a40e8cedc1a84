// sluice-spirv-stage-switch: the entry point sluice_stage_switch runs the
// body of global stage s, s being binding 0's second word, in the order of
// the program descriptor (main stages, then each owner's stages), not the
// module's; each stage kernel's body moves into <kernel>_body, which its
// entry point calls.
// RUN: sluice-opt --split-input-file --pass-pipeline='builtin.module(spirv.module(sluice-spirv-stage-switch))' %s | FileCheck %s

// CHECK-LABEL: module attributes {sluice.program
// CHECK: spirv.GlobalVariable @id built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
// CHECK-NEXT: spirv.GlobalVariable @sluice_virtual_id : !spirv.ptr<vector<3xi32>, Private>
// CHECK: spirv.GlobalVariable @sluice_stage_switch_stage bind(0, 0) : !spirv.ptr<!spirv.struct<(i32 [0], i32 [4])>, StorageBuffer>
// CHECK: spirv.func @handler_body() "None" {
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %[[SEVEN:.*]] : i32
// CHECK: spirv.func @handler() "None" {
// CHECK: spirv.FunctionCall @handler_body() : () -> ()
// CHECK-NEXT: spirv.Return
// CHECK: spirv.func @second_body() "None" {
// CHECK: spirv.func @second() "None" {
// CHECK: spirv.FunctionCall @second_body() : () -> ()
// CHECK: spirv.func @first_body() "None" {
// CHECK-NEXT: %[[SHADOW:.*]] = spirv.mlir.addressof @sluice_virtual_id : !spirv.ptr<vector<3xi32>, Private>
// CHECK-NEXT: spirv.Load "Private" %[[SHADOW]] : vector<3xi32>
// CHECK: spirv.func @first() "None" {
// CHECK-NEXT: %[[REAL:.*]] = spirv.mlir.addressof @id : !spirv.ptr<vector<3xi32>, Input>
// CHECK-NEXT: %[[COPY:.*]] = spirv.mlir.addressof @sluice_virtual_id : !spirv.ptr<vector<3xi32>, Private>
// CHECK-NEXT: %[[VALUE:.*]] = spirv.Load "Input" %[[REAL]] : vector<3xi32>
// CHECK-NEXT: spirv.Store "Private" %[[COPY]], %[[VALUE]] : vector<3xi32>
// CHECK-NEXT: spirv.FunctionCall @first_body() : () -> ()
// CHECK: spirv.func @sluice_stage_switch() "None" {
// CHECK: %[[BASE:.*]] = spirv.mlir.addressof @sluice_stage_switch_stage
// CHECK: %[[FIELD:.*]] = spirv.AccessChain %[[BASE]][%{{.*}}] : !spirv.ptr<!spirv.struct<(i32 [0], i32 [4])>, StorageBuffer>, i32 -> !spirv.ptr<i32, StorageBuffer>
// CHECK: %[[S:.*]] = spirv.Load "StorageBuffer" %[[FIELD]] : i32
// CHECK: %[[C0:.*]] = spirv.Constant 0 : i32
// CHECK: spirv.IEqual %[[S]], %[[C0]] : i32
// CHECK: spirv.FunctionCall @first_body()
// CHECK: %[[C1:.*]] = spirv.Constant 1 : i32
// CHECK: spirv.IEqual %[[S]], %[[C1]] : i32
// CHECK: spirv.FunctionCall @second_body()
// CHECK: %[[C2:.*]] = spirv.Constant 2 : i32
// CHECK: spirv.IEqual %[[S]], %[[C2]] : i32
// CHECK: spirv.FunctionCall @handler_body()
// CHECK: spirv.EntryPoint "GLCompute" @sluice_stage_switch, @id
// CHECK: spirv.ExecutionMode @sluice_stage_switch "LocalSize", 64, 1, 1
//
// sluice_stage_run(stage, invocation, groups), each a pointer to a
// Function-class i32 (a GLSL caller's arguments): the built-in the bodies
// read (GlobalInvocationId) is the Private sluice_virtual_id, which every
// entry point fills from the real one first (above: the stage kernels' and
// the switch's entry blocks) and sluice_stage_run sets to (invocation, 0,
// 0) before it calls stage s's body.
// CHECK: spirv.func @sluice_stage_run(%[[STAGE:.*]]: !spirv.ptr<i32, Function>, %[[INV:.*]]: !spirv.ptr<i32, Function>, %[[GROUPS:.*]]: !spirv.ptr<i32, Function>) "None" {
// CHECK: %[[SV:.*]] = spirv.Load "Function" %[[STAGE]] : i32
// CHECK: %[[IV:.*]] = spirv.Load "Function" %[[INV]] : i32
// CHECK: %[[ID:.*]] = spirv.CompositeConstruct %[[IV]], %[[ZERO:.*]], %[[ZERO]] : (i32, i32, i32) -> vector<3xi32>
// CHECK: %[[VADDR:.*]] = spirv.mlir.addressof @sluice_virtual_id : !spirv.ptr<vector<3xi32>, Private>
// CHECK: spirv.Store "Private" %[[VADDR]], %[[ID]] : vector<3xi32>
// CHECK: spirv.IEqual %[[SV]], %{{.*}} : i32
// CHECK: spirv.FunctionCall @first_body()
// CHECK: spirv.FunctionCall @second_body()
// CHECK: spirv.FunctionCall @handler_body()
// CHECK: spirv.Return
module attributes {sluice.program = {
    main_stages = [{kernel = @sluice_kernels::@first, name = "first"},
                   {kernel = @sluice_kernels::@second, name = "second"}],
    owners = [{name = "pool", stages = [{kernel = @sluice_kernels::@handler, name = "h"}]}]}} {
  spirv.module @__spv__sluice_kernels Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]> {
    spirv.GlobalVariable @id built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @handler_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>
    spirv.GlobalVariable @handler_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
    spirv.func @handler() "None" {
      %c0 = spirv.Constant 0 : i32
      %c7 = spirv.Constant 7 : i32
      %buffer = spirv.mlir.addressof @handler_arg_1 : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
      %p = spirv.AccessChain %buffer[%c0, %c0] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
      spirv.Store "StorageBuffer" %p, %c7 : i32
      spirv.Return
    }
    spirv.func @second() "None" {
      spirv.Return
    }
    spirv.func @first() "None" {
      %ids = spirv.mlir.addressof @id : !spirv.ptr<vector<3xi32>, Input>
      %v = spirv.Load "Input" %ids : vector<3xi32>
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @handler
    spirv.EntryPoint "GLCompute" @second
    spirv.EntryPoint "GLCompute" @first, @id
    spirv.ExecutionMode @handler "LocalSize", 64, 1, 1
    spirv.ExecutionMode @second "LocalSize", 64, 1, 1
    spirv.ExecutionMode @first "LocalSize", 64, 1, 1
  }
}

// -----

// Stage kernels of two workgroup sizes: no switch; nor in a module without
// the descriptor.
// CHECK-LABEL: module attributes {sluice.program
// CHECK-NOT: sluice_stage_switch
// CHECK: spirv.func @first() "None" {
// CHECK-NEXT: spirv.Return
// CHECK-LABEL: module {
// CHECK-NOT: sluice_stage_switch
module attributes {sluice.program = {
    main_stages = [{kernel = @sluice_kernels::@first, name = "first"},
                   {kernel = @sluice_kernels::@second, name = "second"}],
    owners = []}} {
  spirv.module @__spv__sluice_kernels Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]> {
    spirv.GlobalVariable @first_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>
    spirv.func @first() "None" {
      spirv.Return
    }
    spirv.func @second() "None" {
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @first
    spirv.EntryPoint "GLCompute" @second
    spirv.ExecutionMode @first "LocalSize", 64, 1, 1
    spirv.ExecutionMode @second "LocalSize", 32, 1, 1
  }
}

// -----

module {
  spirv.module @__spv__kernels Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]> {
    spirv.GlobalVariable @k_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>
    spirv.func @k() "None" {
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @k
    spirv.ExecutionMode @k "LocalSize", 64, 1, 1
  }
}

// -----

// A body that meets at a barrier cannot run as a virtual invocation: the
// switch, but no sluice_stage_run, and the built-ins stay as they are.
// CHECK-LABEL: module attributes {sluice.program
// CHECK-NOT: sluice_virtual
// CHECK: spirv.func @sluice_stage_switch()
// CHECK-NOT: sluice_stage_run
// CHECK-NOT: sluice_virtual
module attributes {sluice.program = {
    main_stages = [{kernel = @sluice_kernels::@first, name = "first"}],
    owners = []}} {
  spirv.module @__spv__sluice_kernels Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]> {
    spirv.GlobalVariable @id built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @first_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>
    spirv.func @first() "None" {
      %ids = spirv.mlir.addressof @id : !spirv.ptr<vector<3xi32>, Input>
      %v = spirv.Load "Input" %ids : vector<3xi32>
      spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @first, @id
    spirv.ExecutionMode @first "LocalSize", 64, 1, 1
  }
}

// -----

// The built-ins a body may read as a virtual invocation get Private copies
// (the local id (invocation % 64, 0, 0), the number of workgroups (groups,
// 1, 1)); another entry point's SubgroupSize keeps its real variable.
// CHECK-LABEL: module attributes {sluice.program
// CHECK-DAG: spirv.GlobalVariable @sluice_virtual_lid : !spirv.ptr<vector<3xi32>, Private>
// CHECK-DAG: spirv.GlobalVariable @sluice_virtual_groups : !spirv.ptr<vector<3xi32>, Private>
// CHECK-NOT: sluice_virtual_width
// CHECK: spirv.func @other() "None" {
// CHECK: spirv.mlir.addressof @width : !spirv.ptr<i32, Input>
// CHECK: spirv.func @sluice_stage_run(
// CHECK: %[[G:.*]] = spirv.Load "Function" %arg2 : i32
// CHECK: %[[C64:.*]] = spirv.Constant 64 : i32
// CHECK: %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK: %[[LOCAL:.*]] = spirv.UMod %{{.*}}, %[[C64]] : i32
// CHECK: spirv.CompositeConstruct %[[LOCAL]], %{{.*}}, %{{.*}} : (i32, i32, i32) -> vector<3xi32>
// CHECK: spirv.CompositeConstruct %[[G]], %[[ONE]], %[[ONE]] : (i32, i32, i32) -> vector<3xi32>
module attributes {sluice.program = {
    main_stages = [{kernel = @sluice_kernels::@first, name = "first"}],
    owners = []}} {
  spirv.module @__spv__sluice_kernels Logical GLSL450 requires #spirv.vce<v1.3, [Shader, GroupNonUniform], [SPV_KHR_storage_buffer_storage_class]> {
    spirv.GlobalVariable @lid built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @groups built_in("NumWorkgroups") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @width built_in("SubgroupSize") : !spirv.ptr<i32, Input>
    spirv.GlobalVariable @first_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>
    spirv.func @first() "None" {
      %ids = spirv.mlir.addressof @lid : !spirv.ptr<vector<3xi32>, Input>
      %v = spirv.Load "Input" %ids : vector<3xi32>
      %gs = spirv.mlir.addressof @groups : !spirv.ptr<vector<3xi32>, Input>
      %g = spirv.Load "Input" %gs : vector<3xi32>
      spirv.Return
    }
    spirv.func @other() "None" {
      %w = spirv.mlir.addressof @width : !spirv.ptr<i32, Input>
      %x = spirv.Load "Input" %w : i32
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @first, @lid, @groups
    spirv.EntryPoint "GLCompute" @other, @width
    spirv.ExecutionMode @first "LocalSize", 64, 1, 1
    spirv.ExecutionMode @other "LocalSize", 64, 1, 1
  }
}
