// A program that brings its own spirv.target_env for SPIR-V 1.4 or later
// gets a module of that version, whose entry points list every global they
// use (the 1.4 rule), and which spirv-val accepts for that environment.
// Before sluice-spirv-interface-version, spirv-update-vce lowered the
// version to 1.0 and spirv-val rejected the storage buffers in the
// interface.
// REQUIRES: spirv-tools
// RUN: sluice-opt --sluice-to-spirv %s | FileCheck %s
// RUN: sluice-opt --sluice-to-spirv %s | sluice-translate --sluice-to-spirv-bin -o %t.spv
// RUN: spirv-val --target-env spv1.4 %t.spv
// RUN: spirv-val --target-env vulkan1.2 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s --check-prefix=DIS
// CHECK: spirv.module @__spv__kernels Logical GLSL450 requires #spirv.vce<v1.4,
// DIS: ; Version: 1.4
// DIS: OpEntryPoint GLCompute %{{.*}} "k" %{{.*}}k_arg_0 %{{.*}}k_arg_1
module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.4, [Shader, Int64], [SPV_KHR_storage_buffer_storage_class]>, api=Vulkan, #spirv.resource_limits<>>} {
  gpu.module @kernels {
    gpu.func @k(%in: memref<?xf32>, %out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
      %t = gpu.thread_id x
      %x = memref.load %in[%t] : memref<?xf32>
      %y = math.sqrt %x : f32
      memref.store %y, %out[%t] : memref<?xf32>
      gpu.return
    }
  }
}
