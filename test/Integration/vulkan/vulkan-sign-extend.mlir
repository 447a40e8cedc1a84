// Signed compares of values sign-extended to i64 with constants. Mesa
// 22.3's lavapipe evaluates `OpSLessThan (OpSConvert x to i64), 0` as false
// for negative x (and `0 < x` as true), from i32 and i8 alike, and an
// arith.index_cast of an index (32 bits in a Vulkan kernel) is the same
// OpSConvert; scripts/differential-lane-vectors --vulkan found it. So
// sluice-gpu-to-spirv writes every sign extension to i64 as a zero extension
// and two shifts (sign-extend-with-shifts, the default), which the driver
// gets right. Lane t of 4 reads x = [-5, 5, -100, 100][t] and prints
// x < 0, 0 < x, |x| (math.absi of the extended value), i8(x) < 0 and
// 255 > i64(t): by hand
//   t = 0: 1 0 5   1 1
//   t = 1: 0 1 5   0 1
//   t = 2: 1 0 100 1 1
//   t = 3: 0 1 100 0 1
// REQUIRES: vulkan
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --backend=vulkan %s | FileCheck %s
// RUN: sluice-opt --sluice-gpu-to-spirv %s | FileCheck %s --check-prefix=SHIFTS
// SHIFTS-NOT: spirv.SConvert {{.*}} to i64
// SHIFTS: spirv.UConvert {{.*}} : i32 to i64
// SHIFTS: spirv.ShiftLeftLogical
// SHIFTS: spirv.ShiftRightArithmetic
// RUN: sluice-opt --sluice-gpu-to-spirv=sign-extend-with-shifts=false %s | FileCheck %s --check-prefix=SCONVERT
// SCONVERT: spirv.SConvert {{.*}} : i32 to i64
// CHECK: {{^}}1{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}5{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}5{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}100{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}100{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}1{{$}}
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @k(%in: memref<?xi32>, %out: memref<?xi64>) kernel {
      %tx = gpu.thread_id x
      %x = memref.load %in[%tx] : memref<?xi32>
      %w = arith.extsi %x : i32 to i64
      %zero = arith.constant 0 : i64
      %neg = arith.cmpi slt, %w, %zero : i64
      %pos = arith.cmpi slt, %zero, %w : i64
      %abs = math.absi %w : i64
      %b = arith.trunci %x : i32 to i8
      %w8 = arith.extsi %b : i8 to i64
      %neg8 = arith.cmpi slt, %w8, %zero : i64
      %t = arith.index_cast %tx : index to i64
      %c255 = arith.constant 255 : i64
      %small = arith.cmpi sgt, %c255, %t : i64
      %r0 = arith.extui %neg : i1 to i64
      %r1 = arith.extui %pos : i1 to i64
      %r3 = arith.extui %neg8 : i1 to i64
      %r4 = arith.extui %small : i1 to i64
      %c5 = arith.constant 5 : index
      %row = arith.muli %tx, %c5 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %i1 = arith.addi %row, %c1 : index
      %i2 = arith.addi %row, %c2 : index
      %i3 = arith.addi %row, %c3 : index
      %i4 = arith.addi %row, %c4 : index
      memref.store %r0, %out[%row] : memref<?xi64>
      memref.store %r1, %out[%i1] : memref<?xi64>
      memref.store %abs, %out[%i2] : memref<?xi64>
      memref.store %r3, %out[%i3] : memref<?xi64>
      memref.store %r4, %out[%i4] : memref<?xi64>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c20 = arith.constant 20 : index
    %in = memref.alloc(%c4) : memref<?xi32>
    %x0 = arith.constant -5 : i32
    %x1 = arith.constant 5 : i32
    %x2 = arith.constant -100 : i32
    %x3 = arith.constant 100 : i32
    memref.store %x0, %in[%c0] : memref<?xi32>
    memref.store %x1, %in[%c1] : memref<?xi32>
    memref.store %x2, %in[%c2] : memref<?xi32>
    memref.store %x3, %in[%c3] : memref<?xi32>
    %out = memref.alloc(%c20) : memref<?xi64>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%in : memref<?xi32>, %out : memref<?xi64>)
    scf.for %j = %c0 to %c20 step %c1 {
      %v = memref.load %out[%j] : memref<?xi64>
      func.call @sluice_print_i64(%v) : (i64) -> ()
    }
    return
  }
}
