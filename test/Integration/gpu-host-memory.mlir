// gpu.alloc (also host_shared), gpu.memset, gpu.memcpy (also from a strided
// subview), gpu.dealloc and gpu.host_register / host_unregister, without
// async tokens (sluice-lower-gpu-host: host memory on every backend).
//
// 1. 64 elements: memset 5, then a kernel adds its thread id: 5 + i;
//    copied to the host: sum 5 * 64 + 63 * 64 / 2 = 2336, last 68.
// 2. host_shared 8 x f32 that the host fills with i, a kernel squares:
//    sum of i^2 for i < 8 = 140.
// 3. A registered host array of 32, a kernel writes 2 i: sum 2 * 496 = 992.
// 4. A 4 x 8 device array memset to 0, then a 2-D kernel writes 10 r + c;
//    column 3 copied out through a strided subview: 3 13 23 33.
// 5. A 2-D f32 memset of 2.5 over 3 x 5, then a kernel doubles it: every
//    element 5, sum 75.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-opt --sluice-lower-gpu-host %s | FileCheck %s --check-prefix=HOST
// CHECK: {{^}}2336{{$}}
// CHECK-NEXT: {{^}}68{{$}}
// CHECK-NEXT: {{^}}140{{$}}
// CHECK-NEXT: {{^}}992{{$}}
// CHECK-NEXT: {{^}}3{{$}}
// CHECK-NEXT: {{^}}13{{$}}
// CHECK-NEXT: {{^}}23{{$}}
// CHECK-NEXT: {{^}}33{{$}}
// CHECK-NEXT: {{^}}75{{$}}
// CHECK-NOT: {{.}}
// HOST-LABEL: func.func @main()
// HOST-NOT: gpu.alloc
// HOST-NOT: gpu.memcpy
// HOST-NOT: gpu.memset
// HOST-NOT: gpu.dealloc
// HOST-NOT: gpu.host_register
// HOST-NOT: gpu.host_unregister
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  func.func private @sluice_print_f64(f64)
  gpu.module @k {
    gpu.func @add_id(%b: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %b[%t] : memref<?xi32>
      %ti = arith.index_cast %t : index to i32
      %w = arith.addi %v, %ti : i32
      memref.store %w, %b[%t] : memref<?xi32>
      gpu.return
    }
    gpu.func @square(%b: memref<8xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %b[%t] : memref<8xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %b[%t] : memref<8xf32>
      gpu.return
    }
    gpu.func @twice_id(%b: memref<32xi32>) kernel {
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %w = arith.addi %ti, %ti : i32
      memref.store %w, %b[%t] : memref<32xi32>
      gpu.return
    }
    gpu.func @grid(%b: memref<4x8xi32>) kernel {
      %c = gpu.thread_id x
      %r = gpu.thread_id y
      %c10 = arith.constant 10 : index
      %r10 = arith.muli %r, %c10 : index
      %v = arith.addi %r10, %c : index
      %vi = arith.index_cast %v : index to i32
      memref.store %vi, %b[%r, %c] : memref<4x8xi32>
      gpu.return
    }
    gpu.func @double(%b: memref<3x5xf32>) kernel {
      %c = gpu.thread_id x
      %r = gpu.thread_id y
      %v = memref.load %b[%r, %c] : memref<3x5xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %b[%r, %c] : memref<3x5xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %five = arith.constant 5 : i32
    %zero = arith.constant 0 : i32

    %d = gpu.alloc (%c64) : memref<?xi32>
    gpu.memset %d, %five : memref<?xi32>, i32
    gpu.launch_func @k::@add_id blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%d : memref<?xi32>)
    %h = memref.alloc(%c64) : memref<?xi32>
    gpu.memcpy %h, %d : memref<?xi32>, memref<?xi32>
    gpu.dealloc %d : memref<?xi32>
    %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %c0) -> (index) {
      %v = memref.load %h[%i] : memref<?xi32>
      %vi = arith.index_cast %v : i32 to index
      %a = arith.addi %acc, %vi : index
      scf.yield %a : index
    }
    %s64 = arith.index_cast %sum : index to i64
    func.call @sluice_print_i64(%s64) : (i64) -> ()
    %last = memref.load %h[%c63] : memref<?xi32>
    %last64 = arith.extsi %last : i32 to i64
    func.call @sluice_print_i64(%last64) : (i64) -> ()

    %s = gpu.alloc host_shared () : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %s[%i] : memref<8xf32>
    }
    gpu.launch_func @k::@square blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%s : memref<8xf32>)
    %fzero = arith.constant 0.0 : f32
    %fsum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %fzero) -> (f32) {
      %v = memref.load %s[%i] : memref<8xf32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    %fsum64 = arith.fptosi %fsum : f32 to i64
    func.call @sluice_print_i64(%fsum64) : (i64) -> ()
    gpu.dealloc %s : memref<8xf32>

    %r = memref.alloc() : memref<32xi32>
    %u = memref.cast %r : memref<32xi32> to memref<*xi32>
    gpu.host_register %u : memref<*xi32>
    gpu.launch_func @k::@twice_id blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%r : memref<32xi32>)
    gpu.host_unregister %u : memref<*xi32>
    %rsum = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %c0) -> (index) {
      %v = memref.load %r[%i] : memref<32xi32>
      %vi = arith.index_cast %v : i32 to index
      %a = arith.addi %acc, %vi : index
      scf.yield %a : index
    }
    %rsum64 = arith.index_cast %rsum : index to i64
    func.call @sluice_print_i64(%rsum64) : (i64) -> ()
    memref.dealloc %r : memref<32xi32>

    %m = gpu.alloc () : memref<4x8xi32>
    gpu.memset %m, %zero : memref<4x8xi32>, i32
    gpu.launch_func @k::@grid blocks in (%c1, %c1, %c1) threads in (%c8, %c4, %c1) args(%m : memref<4x8xi32>)
    %col = memref.alloc() : memref<4xi32>
    %sub = memref.subview %m[0, 3] [4, 1] [1, 1] : memref<4x8xi32> to memref<4xi32, strided<[8], offset: 3>>
    gpu.memcpy %col, %sub : memref<4xi32>, memref<4xi32, strided<[8], offset: 3>>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %col[%i] : memref<4xi32>
      %v64 = arith.extsi %v : i32 to i64
      func.call @sluice_print_i64(%v64) : (i64) -> ()
    }
    gpu.dealloc %m : memref<4x8xi32>

    %g = gpu.alloc () : memref<3x5xf32>
    %half = arith.constant 2.5 : f32
    gpu.memset %g, %half : memref<3x5xf32>, f32
    gpu.launch_func @k::@double blocks in (%c1, %c1, %c1) threads in (%c5, %c3, %c1) args(%g : memref<3x5xf32>)
    %gsum = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %fzero) -> (f32) {
      %row = scf.for %j = %c0 to %c5 step %c1 iter_args(%racc = %acc) -> (f32) {
        %v = memref.load %g[%i, %j] : memref<3x5xf32>
        %a = arith.addf %racc, %v : f32
        scf.yield %a : f32
      }
      scf.yield %row : f32
    }
    %gsum64 = arith.fptosi %gsum : f32 to i64
    func.call @sluice_print_i64(%gsum64) : (i64) -> ()
    gpu.dealloc %g : memref<3x5xf32>
    return
  }
}
