// A program that brings a spirv.target_env for SPIR-V 1.4 runs on a device
// that runs Vulkan 1.2 or later (lavapipe offers 1.3, and the runtime's
// instance asks for up to 1.3), and prints the sum of sqrt(i^2) = i over
// i < 4: 6. Run as a Vulkan 1.1 driver would (SLUICE_VULKAN_API_VERSION=1.1), the same module
// is refused with the versions named, instead of reaching vkCreateShaderModule
// with a module the device need not accept. A malformed version is an invalid
// argument (exit status 2).
// REQUIRES: vulkan
// RUN: sluice-run --backend=vulkan %s 2> /dev/null | FileCheck %s
// RUN: env SLUICE_VULKAN_API_VERSION=1.2 sluice-run --backend=vulkan %s 2> /dev/null | FileCheck %s
// RUN: env SLUICE_VULKAN_API_VERSION=1.1 %expect-exit 1 sluice-run --backend=vulkan %s 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: env SLUICE_VULKAN_API_VERSION=2.0 %expect-exit 2 sluice-run --backend=vulkan %s 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: {{^}}6{{$}}
// OLD: kernel 'k' is SPIR-V 1.4; Vulkan device {{.*}} runs Vulkan 1.1 here (the device offers 1.{{[0-9]+}}, the instance 1.1), which accepts SPIR-V up to 1.3; lower the program's spirv.target_env version or use a newer driver
// BAD: SLUICE_VULKAN_API_VERSION='2.0' is not a Vulkan version of 1.1 or later such as 1.1, 1.2 or 1.3
module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.4, [Shader, Int64], [SPV_KHR_storage_buffer_storage_class]>, api=Vulkan, #spirv.resource_limits<>>} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @k(%in: memref<?xf32>, %out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
      %t = gpu.thread_id x
      %x = memref.load %in[%t] : memref<?xf32>
      %y = math.sqrt %x : f32
      memref.store %y, %out[%t] : memref<?xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %in = memref.alloc(%c4) : memref<?xf32>
    %out = memref.alloc(%c4) : memref<?xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %i32 = arith.index_cast %i : index to i32
      %f = arith.sitofp %i32 : i32 to f32
      %sq = arith.mulf %f, %f : f32
      memref.store %sq, %in[%i] : memref<?xf32>
    }
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1)
        args(%in : memref<?xf32>, %out : memref<?xf32>)
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %out[%i] : memref<?xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    // Rounded: Vulkan's sqrt is within 3 ulp.
    %half = arith.constant 0.5 : f32
    %rounded = arith.addf %sum, %half : f32
    %s = arith.fptosi %rounded : f32 to i64
    func.call @sluice_print_i64(%s) : (i64) -> ()
    return
  }
}
