// Private arrays (memref.alloca) of i16, i8 and i1 in a kernel. Upstream's
// MemRefToSPIRV emulates narrow elements in storage buffers and workgroup
// memory but not in Function variables, so the Vulkan backend failed to
// legalize their stores; sluice-gpu-to-spirv now holds each element in an
// i32 (widenNarrowPrivateArrays; scripts/differential-lane-vectors --vulkan
// found it). Lane t of 4 writes a[i] = i16(-3 t + i), b[i] = i8(100 t + i)
// and c[i] = (i + t) odd for i < 4, then reads a[t], b[3 - t] and c[t]:
// a[t] = -2 t; b[3 - t] = i8(99 t + 3) = 3, 102, 201 - 256 = -55,
// 300 - 256 = 44; c[t] = (2 t) odd = 0. By hand, per lane a, b, c:
//   0 3 0 / -2 102 0 / -4 -55 0 / -6 44 0
// REQUIRES: vulkan
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --backend=vulkan %s | FileCheck %s
// RUN: sluice-opt --sluice-gpu-to-spirv %s | FileCheck %s --check-prefix=SPIRV
// SPIRV-COUNT-3: spirv.Variable : !spirv.ptr<!spirv.struct<(!spirv.array<4 x i32>)>, Function>
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}3{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}-2{{$}}
// CHECK-NEXT: {{^}}102{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}-4{{$}}
// CHECK-NEXT: {{^}}-55{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}-6{{$}}
// CHECK-NEXT: {{^}}44{{$}}
// CHECK-NEXT: {{^}}0{{$}}
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi64>) kernel {
      %tx = gpu.thread_id x
      %t = arith.index_cast %tx : index to i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %m3 = arith.constant -3 : i32
      %k100 = arith.constant 100 : i32
      %one = arith.constant 1 : i32
      %a = memref.alloca() : memref<4xi16>
      %b = memref.alloca() : memref<4xi8>
      %c = memref.alloca() : memref<4xi1>
      scf.for %i = %c0 to %c4 step %c1 {
        %i32 = arith.index_cast %i : index to i32
        %x = arith.muli %t, %m3 : i32
        %xa = arith.addi %x, %i32 : i32
        %va = arith.trunci %xa : i32 to i16
        memref.store %va, %a[%i] : memref<4xi16>
        %y = arith.muli %t, %k100 : i32
        %yb = arith.addi %y, %i32 : i32
        %vb = arith.trunci %yb : i32 to i8
        memref.store %vb, %b[%i] : memref<4xi8>
        %s = arith.addi %i32, %t : i32
        %odd = arith.andi %s, %one : i32
        %vc = arith.trunci %odd : i32 to i1
        memref.store %vc, %c[%i] : memref<4xi1>
      }
      %ra = memref.load %a[%tx] : memref<4xi16>
      %back = arith.subi %c3, %tx : index
      %rb = memref.load %b[%back] : memref<4xi8>
      %rc = memref.load %c[%tx] : memref<4xi1>
      %ea = arith.extsi %ra : i16 to i64
      %eb = arith.extsi %rb : i8 to i64
      %ec = arith.extui %rc : i1 to i64
      %row = arith.muli %tx, %c3 : index
      %r1 = arith.addi %row, %c1 : index
      %c2 = arith.constant 2 : index
      %r2 = arith.addi %row, %c2 : index
      memref.store %ea, %out[%row] : memref<?xi64>
      memref.store %eb, %out[%r1] : memref<?xi64>
      memref.store %ec, %out[%r2] : memref<?xi64>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c12 = arith.constant 12 : index
    %out = memref.alloc(%c12) : memref<?xi64>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%out : memref<?xi64>)
    scf.for %j = %c0 to %c12 step %c1 {
      %v = memref.load %out[%j] : memref<?xi64>
      func.call @sluice_print_i64(%v) : (i64) -> ()
    }
    return
  }
}
