// A program whose spirv.target_env has the small-type capabilities (Float16,
// Int8, Int16 and 8/16-bit storage) computes in f16 and i8 on Vulkan: the
// runtime enables shaderFloat16, shaderInt8, shaderInt16 and the storage
// bits it offers (lavapipe offers all). Lane i < 64 stores
//   h[i] = f16(i) * 0.5 + 1.0       (exact in f16: halves up to 32.5)
//   b[i] = i8(i) * 3                (wrapping: 3i - 256 for i > 42)
// and the host prints the sums, in closed form:
//   sum h = 0.5 * 2016 + 64 = 1072
//   sum b = 3 * 903 + (3 * 1113 - 21 * 256) = 2709 - 2037 = 672
// (903 = sum of i <= 42, 1113 = sum of 43 <= i < 64). The CPU backend runs
// the same program (the target environment is Vulkan's only).
// REQUIRES: vulkan
// RUN: sluice-run --backend=vulkan %s 2> /dev/null | FileCheck %s
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-opt --sluice-to-spirv %s | FileCheck %s --check-prefix=SPIRV
// CHECK: {{^}}1072{{$}}
// CHECK-NEXT: {{^}}672{{$}}
// SPIRV: spirv.FMul %{{.*}} : f16
// SPIRV: spirv.IMul %{{.*}} : i8
module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Shader, Int64, Int16, Int8, Float16, StorageBuffer16BitAccess, StorageBuffer8BitAccess], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_16bit_storage, SPV_KHR_8bit_storage]>, api=Vulkan, #spirv.resource_limits<>>} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @small(%h: memref<?xf16>, %b: memref<?xi8>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %i = gpu.thread_id x
      %i32 = arith.index_cast %i : index to i32
      %fi = arith.sitofp %i32 : i32 to f16
      %half = arith.constant 0.5 : f16
      %one = arith.constant 1.0 : f16
      %m = arith.mulf %fi, %half : f16
      %v = arith.addf %m, %one : f16
      memref.store %v, %h[%i] : memref<?xf16>
      %i8 = arith.trunci %i32 : i32 to i8
      %three = arith.constant 3 : i8
      %p = arith.muli %i8, %three : i8
      memref.store %p, %b[%i] : memref<?xi8>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %h = memref.alloc(%c64) : memref<?xf16>
    %b = memref.alloc(%c64) : memref<?xi8>
    gpu.launch_func @kernels::@small blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%h : memref<?xf16>, %b : memref<?xi8>)
    %zero = arith.constant 0.0 : f32
    %z64 = arith.constant 0 : i64
    %sh, %sb = scf.for %i = %c0 to %c64 step %c1 iter_args(%ah = %zero, %ab = %z64) -> (f32, i64) {
      %x = memref.load %h[%i] : memref<?xf16>
      %xf = arith.extf %x : f16 to f32
      %nh = arith.addf %ah, %xf : f32
      %y = memref.load %b[%i] : memref<?xi8>
      %y64 = arith.extsi %y : i8 to i64
      %nb = arith.addi %ab, %y64 : i64
      scf.yield %nh, %nb : f32, i64
    }
    %s = arith.fptosi %sh : f32 to i64
    func.call @sluice_print_i64(%s) : (i64) -> ()
    func.call @sluice_print_i64(%sb) : (i64) -> ()
    return
  }
}
