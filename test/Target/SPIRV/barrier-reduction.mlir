// The tree reduction of examples/barrier/reduction.mlir: the workgroup
// attribution becomes a Workgroup variable, gpu.barrier a workgroup control
// barrier inside a structured loop, the block size of the host's launch (256)
// the entry point's LocalSize. The host code and the gpu.module stay.
// REQUIRES: spirv-tools
// RUN: sluice-opt --sluice-to-spirv %sluice_src_root/examples/barrier/reduction.mlir | FileCheck %s
// RUN: sluice-opt --sluice-to-spirv %sluice_src_root/examples/barrier/reduction.mlir \
// RUN:   | sluice-translate --sluice-to-spirv-bin -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s --check-prefix=DIS

// CHECK: module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, Int64, Int64Atomics, Float64, AtomicFloat32AddEXT, AtomicFloat64AddEXT, GroupNonUniform, GroupNonUniformShuffle], [SPV_KHR_storage_buffer_storage_class, SPV_EXT_shader_atomic_float_add]>, api=Vulkan
// CHECK-LABEL: spirv.module @__spv__kernels Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Matrix], [SPV_KHR_storage_buffer_storage_class]>
// CHECK-DAG: spirv.GlobalVariable @reduce__workgroup0 : !spirv.ptr<!spirv.struct<(!spirv.array<256 x i32>)>, Workgroup>
// CHECK-DAG: spirv.GlobalVariable @reduce_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @reduce_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
// CHECK-LABEL: spirv.func @reduce() "None" {
// CHECK: %[[SHARED:.*]] = spirv.mlir.addressof @reduce__workgroup0
// CHECK: %[[TID:.*]] = spirv.CompositeExtract %{{.*}}[0 : i32] : vector<3xi32>
// CHECK: %[[SLOT:.*]] = spirv.AccessChain %[[SHARED]][%{{.*}}, %[[TID]]] : {{.*}} -> !spirv.ptr<i32, Workgroup>
// CHECK: spirv.Store "Workgroup" %[[SLOT]], %{{.*}} : i32
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.mlir.loop {
// CHECK: spirv.mlir.selection {
// CHECK: spirv.Load "Workgroup"
// CHECK: spirv.IAdd
// CHECK: spirv.mlir.merge
// CHECK: spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// CHECK: spirv.mlir.merge
// CHECK: spirv.Return
// CHECK: spirv.EntryPoint "GLCompute" @reduce, @__builtin__LocalInvocationId__, @__builtin__WorkgroupId__
// CHECK-NEXT: spirv.ExecutionMode @reduce "LocalSize", 256, 1, 1{{$}}
// CHECK: gpu.module @kernels
// CHECK: func.func @main()

// DIS: OpCapability Shader
// DIS: OpEntryPoint GLCompute %reduce "reduce"
// DIS: OpExecutionMode %reduce LocalSize 256 1 1{{$}}
// DIS: OpDecorate %reduce_arg_0 Binding 0
// DIS: OpDecorate %reduce_arg_0 DescriptorSet 0
// DIS: %reduce__workgroup0 = OpVariable %{{.*}} Workgroup
// DIS: OpControlBarrier %uint_2 %uint_2 %uint_264{{$}}
// DIS: OpLoopMerge
