// Inline gpu.launch, outlined by sluice-host-to-llvm (gpu-kernel-outlining),
// and two gpu.modules whose kernels share a name.
//
// 1. A launch of grid 3x2 and blocks 4x2 writes, at its linear global id
//    g = ((by * 3 + bx) * 8 + ty * 4 + tx), the value bx + 10 by + 100 tx +
//    1000 ty. Over the 48 threads each bx appears 16 times, by = 1 24 times,
//    each tx 12 times, ty = 1 24 times:
//      sum = 16 * 3 + 10 * 24 + 100 * 12 * 6 + 1000 * 24 = 31488;
//    g = 13 is block (1, 0), thread (1, 1): 1101; g = 47 is block (2, 1),
//    thread (3, 1): 1312.
// 2. A second inline launch in the same function maps every element to
//    2 x + k with k = 7 computed by the host: sum 2 * 31488 + 48 * 7 = 63312.
// 3. A launch in a helper function (outlined there) adds 1 to each of 16
//    elements x_i = i, @first::@step adds 1 more and @second::@step (the
//    same kernel name in another gpu.module) triples them: (i + 2) * 3,
//    sum 3 * (120 + 32) = 456, elements 0 and 15: 6 and 51.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: sluice-run --cpu-simd=8 --cpu-simd-all %s | FileCheck %s
// RUN: sluice-opt --sluice-host-to-llvm %s | FileCheck %s --check-prefix=LOWERED
// CHECK: {{^}}31488{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}1101{{$}}
// CHECK-NEXT: {{^}}1312{{$}}
// CHECK-NEXT: {{^}}63312{{$}}
// CHECK-NEXT: {{^}}456{{$}}
// CHECK-NEXT: {{^}}6{{$}}
// CHECK-NEXT: {{^}}51{{$}}
// CHECK-NOT: {{.}}
// The two kernels named step have block functions of their own.
// LOWERED-DAG: llvm.func @__sluice_block_step(
// LOWERED-DAG: llvm.func @__sluice_block_step_0(
// LOWERED-DAG: llvm.func @__sluice_block_main_kernel(
// LOWERED-DAG: llvm.func @__sluice_block_main_kernel_{{[0-9]+}}(
// LOWERED-DAG: llvm.func @__sluice_block_increment_kernel(
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @first {
    gpu.func @step(%b: memref<16xi32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %b[%t] : memref<16xi32>
      %one = arith.constant 1 : i32
      %w = arith.addi %v, %one : i32
      memref.store %w, %b[%t] : memref<16xi32>
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @step(%b: memref<16xi32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %b[%t] : memref<16xi32>
      %three = arith.constant 3 : i32
      %w = arith.muli %v, %three : i32
      memref.store %w, %b[%t] : memref<16xi32>
      gpu.return
    }
  }
  func.func @print_sum(%b: memref<?xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %b, %c0 : memref<?xi32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %v = memref.load %b[%i] : memref<?xi32>
      %vi = arith.index_cast %v : i32 to index
      %a = arith.addi %acc, %vi : index
      scf.yield %a : index
    }
    %s = arith.index_cast %sum : index to i64
    func.call @sluice_print_i64(%s) : (i64) -> ()
    return
  }
  func.func @print_at(%b: memref<?xi32>, %i: index) {
    %v = memref.load %b[%i] : memref<?xi32>
    %w = arith.extsi %v : i32 to i64
    func.call @sluice_print_i64(%w) : (i64) -> ()
    return
  }
  func.func @increment(%b: memref<16xi32>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
      %v = memref.load %b[%tx] : memref<16xi32>
      %one = arith.constant 1 : i32
      %w = arith.addi %v, %one : i32
      memref.store %w, %b[%tx] : memref<16xi32>
      gpu.terminator
    }
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c13 = arith.constant 13 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %c47 = arith.constant 47 : index
    %c48 = arith.constant 48 : index
    %out = memref.alloc(%c48) : memref<?xi32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c2, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c2, %sz = %c1) {
      %row = arith.muli %by, %gx : index
      %block = arith.addi %row, %bx : index
      %lanes = arith.muli %sx, %sy : index
      %base = arith.muli %block, %lanes : index
      %trow = arith.muli %ty, %sx : index
      %lane = arith.addi %trow, %tx : index
      %g = arith.addi %base, %lane : index
      %c10 = arith.constant 10 : index
      %c100 = arith.constant 100 : index
      %c1000 = arith.constant 1000 : index
      %a = arith.muli %by, %c10 : index
      %b = arith.muli %tx, %c100 : index
      %c = arith.muli %ty, %c1000 : index
      %s0 = arith.addi %bx, %a : index
      %s1 = arith.addi %s0, %b : index
      %s2 = arith.addi %s1, %c : index
      %v = arith.index_cast %s2 : index to i32
      memref.store %v, %out[%g] : memref<?xi32>
      gpu.terminator
    }
    func.call @print_sum(%out) : (memref<?xi32>) -> ()
    func.call @print_at(%out, %c0) : (memref<?xi32>, index) -> ()
    func.call @print_at(%out, %c13) : (memref<?xi32>, index) -> ()
    func.call @print_at(%out, %c47) : (memref<?xi32>, index) -> ()
    %k = arith.addi %c3, %c4 : index
    %k32 = arith.index_cast %k : index to i32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c48, %sy = %c1, %sz = %c1) {
      %v = memref.load %out[%tx] : memref<?xi32>
      %two = arith.constant 2 : i32
      %d = arith.muli %v, %two : i32
      %w = arith.addi %d, %k32 : i32
      memref.store %w, %out[%tx] : memref<?xi32>
      gpu.terminator
    }
    func.call @print_sum(%out) : (memref<?xi32>) -> ()
    %x = memref.alloc() : memref<16xi32>
    scf.for %i = %c0 to %c16 step %c1 {
      %v = arith.index_cast %i : index to i32
      memref.store %v, %x[%i] : memref<16xi32>
    }
    func.call @increment(%x) : (memref<16xi32>) -> ()
    gpu.launch_func @first::@step blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%x : memref<16xi32>)
    gpu.launch_func @second::@step blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%x : memref<16xi32>)
    %xd = memref.cast %x : memref<16xi32> to memref<?xi32>
    func.call @print_sum(%xd) : (memref<?xi32>) -> ()
    func.call @print_at(%xd, %c0) : (memref<?xi32>, index) -> ()
    func.call @print_at(%xd, %c15) : (memref<?xi32>, index) -> ()
    return
  }
}
