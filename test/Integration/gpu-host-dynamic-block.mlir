// Block sizes chosen at run time (read from memory), launched in a loop: on
// Vulkan each size is a pipeline of its own, specialized from one SPIR-V
// module (docs/gpu-host.md).
//
// For each (bx, by) of (16, 1), (8, 4), (32, 2), (64, 1), (1, 1) over 64
// elements (grid 64 / (bx by) blocks):
//   @fill writes bx + 1000 by at the global linear id: sum 64 (bx + 1000 by)
//     = 65024, 256512, 130048, 68096, 64064;
//   @reduce (gpu.all_reduce over the block of L = bx by lanes, values
//     t + 1) writes L (L + 1) / 2 per block: 136, 528, 2080, 2080, 1;
//   @ids (no gpu.block_dim) writes t + 1 at the linear thread id of one
//     block: sum L (L + 1) / 2 as above.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// CHECK: {{^}}65024{{$}}
// CHECK-NEXT: {{^}}136{{$}}
// CHECK-NEXT: {{^}}136{{$}}
// CHECK-NEXT: {{^}}256512{{$}}
// CHECK-NEXT: {{^}}528{{$}}
// CHECK-NEXT: {{^}}528{{$}}
// CHECK-NEXT: {{^}}130048{{$}}
// CHECK-NEXT: {{^}}2080{{$}}
// CHECK-NEXT: {{^}}2080{{$}}
// CHECK-NEXT: {{^}}68096{{$}}
// CHECK-NEXT: {{^}}2080{{$}}
// CHECK-NEXT: {{^}}2080{{$}}
// CHECK-NEXT: {{^}}64064{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NOT: {{.}}
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  memref.global "private" constant @block_sizes : memref<5x2xi32> =
      dense<[[16, 1], [8, 4], [32, 2], [64, 1], [1, 1]]>
  gpu.module @k {
    gpu.func @fill(%b: memref<?xi32>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bdx = gpu.block_dim x
      %bdy = gpu.block_dim y
      %bid = gpu.block_id x
      %lanes = arith.muli %bdx, %bdy : index
      %base = arith.muli %bid, %lanes : index
      %row = arith.muli %ty, %bdx : index
      %lane = arith.addi %row, %tx : index
      %g = arith.addi %base, %lane : index
      %c1000 = arith.constant 1000 : index
      %y = arith.muli %bdy, %c1000 : index
      %v = arith.addi %bdx, %y : index
      %vi = arith.index_cast %v : index to i32
      memref.store %vi, %b[%g] : memref<?xi32>
      gpu.return
    }
    gpu.func @reduce(%b: memref<?xi32>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bdx = gpu.block_dim x
      %row = arith.muli %ty, %bdx : index
      %lane = arith.addi %row, %tx : index
      %c1 = arith.constant 1 : index
      %l1 = arith.addi %lane, %c1 : index
      %x = arith.index_cast %l1 : index to i32
      %sum = gpu.all_reduce add %x uniform {} : (i32) -> i32
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %lane, %c0 : index
      scf.if %first {
        %bid = gpu.block_id x
        memref.store %sum, %b[%bid] : memref<?xi32>
      }
      gpu.return
    }
    gpu.func @ids(%b: memref<?xi32>, %width: index) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %row = arith.muli %ty, %width : index
      %lane = arith.addi %row, %tx : index
      %c1 = arith.constant 1 : index
      %l1 = arith.addi %lane, %c1 : index
      %x = arith.index_cast %l1 : index to i32
      memref.store %x, %b[%lane] : memref<?xi32>
      gpu.return
    }
  }
  func.func @sum(%b: memref<?xi32>, %n: index) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %v = memref.load %b[%i] : memref<?xi32>
      %vi = arith.index_cast %v : i32 to index
      %a = arith.addi %acc, %vi : index
      scf.yield %a : index
    }
    %s = arith.index_cast %sum : index to i64
    return %s : i64
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %sizes = memref.get_global @block_sizes : memref<5x2xi32>
    %out = memref.alloc(%c64) : memref<?xi32>
    scf.for %r = %c0 to %c5 step %c1 {
      %bx32 = memref.load %sizes[%r, %c0] : memref<5x2xi32>
      %by32 = memref.load %sizes[%r, %c1] : memref<5x2xi32>
      %bx = arith.index_cast %bx32 : i32 to index
      %by = arith.index_cast %by32 : i32 to index
      %lanes = arith.muli %bx, %by : index
      %grid = arith.divui %c64, %lanes : index
      gpu.launch_func @k::@fill blocks in (%grid, %c1, %c1) threads in (%bx, %by, %c1) args(%out : memref<?xi32>)
      %s = func.call @sum(%out, %c64) : (memref<?xi32>, index) -> i64
      func.call @sluice_print_i64(%s) : (i64) -> ()
      gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%bx, %by, %c1) args(%out : memref<?xi32>)
      %v = memref.load %out[%c0] : memref<?xi32>
      %v64 = arith.extsi %v : i32 to i64
      func.call @sluice_print_i64(%v64) : (i64) -> ()
      scf.for %i = %c0 to %c64 step %c1 {
        memref.store %zero, %out[%i] : memref<?xi32>
      }
      gpu.launch_func @k::@ids blocks in (%c1, %c1, %c1) threads in (%bx, %by, %c1) args(%out : memref<?xi32>, %bx : index)
      %t = func.call @sum(%out, %c64) : (memref<?xi32>, index) -> i64
      func.call @sluice_print_i64(%t) : (i64) -> ()
    }
    return
  }
}
