// A barrier loop whose trip count every lane loads from the same address
// (trips[block]), on a two-dimensional block (8 x 4), with two loop-carried
// values that the yield swaps: fission (the load is uniform, the loop stays at
// block level, and the segments choose their lane loop order) must agree with
// the coroutine paths and with a serial evaluation by the host.
// RUN: sluice-run %s > %t.fission
// RUN: FileCheck %s < %t.fission
// RUN: sluice-run --gpu-force-coroutines %s > %t.coro
// RUN: diff %t.fission %t.coro
// RUN: sluice-run --gpu-force-coroutines --gpu-coroutine-lanes=1 %s > %t.lane
// RUN: diff %t.fission %t.lane
// RUN: env SLUICE_WORKERS=1 sluice-run %s | FileCheck %s
// RUN: sluice-opt --convert-gpu-to-cpu %s | FileCheck %s --check-prefix=FISSION
//
// Lane l = 8 y + x of block k runs trips[k] = k mod 3 + 1 rounds of
//   publish a; wait; n = a of lane 8 y + (x + 1) mod 8; wait; (a, b) = (b + n, a)
// from (a, b) = (l, 0), and writes 1000 a + b. The host prints the number of
// lanes that differ from its serial evaluation (0), then the sum of all
// results; independently (a Python evaluation of the definition) 5955968.
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}5955968{{$}}
// FISSION-NOT: __sluice_lane_swap
// FISSION-LABEL: func.func private @__sluice_block_swap(
// FISSION-NOT: llvm.intr.coro
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @swap(%trips: memref<?xi32>, %out: memref<?xi64>)
        workgroup(%buf: memref<4x8xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %c1000 = arith.constant 1000 : i64
      %zero = arith.constant 0 : i64
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bid = gpu.block_id x
      %row = arith.muli %ty, %c8 : index
      %lane = arith.addi %row, %tx : index
      %lane64 = arith.index_cast %lane : index to i64
      %x1 = arith.addi %tx, %c1 : index
      %right = arith.remui %x1, %c8 : index
      %t32 = memref.load %trips[%bid] : memref<?xi32>
      %t = arith.index_cast %t32 : i32 to index
      %res:2 = scf.for %r = %c0 to %t step %c1 iter_args(%a = %lane64, %b = %zero) -> (i64, i64) {
        memref.store %a, %buf[%ty, %tx] : memref<4x8xi64, #gpu.address_space<workgroup>>
        gpu.barrier
        %n = memref.load %buf[%ty, %right] : memref<4x8xi64, #gpu.address_space<workgroup>>
        gpu.barrier
        %bn = arith.addi %b, %n : i64
        scf.yield %bn, %a : i64, i64
      }
      %hi = arith.muli %res#0, %c1000 : i64
      %v = arith.addi %hi, %res#1 : i64
      %base = arith.muli %bid, %c32 : index
      %g = arith.addi %base, %lane : index
      memref.store %v, %out[%g] : memref<?xi64>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %blocks = arith.constant 6 : index
    %n = arith.constant 192 : index
    %c1000 = arith.constant 1000 : i64
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %trips = memref.alloc(%blocks) : memref<?xi32>
    %out = memref.alloc(%n) : memref<?xi64>
    scf.for %k = %c0 to %blocks step %c1 {
      %m = arith.remui %k, %c3 : index
      %m1 = arith.addi %m, %c1 : index
      %v = arith.index_cast %m1 : index to i32
      memref.store %v, %trips[%k] : memref<?xi32>
    }
    gpu.launch_func @kernels::@swap blocks in (%blocks, %c1, %c1) threads in (%c8, %c4, %c1)
        args(%trips : memref<?xi32>, %out : memref<?xi64>)
    // Serial evaluation, block by block.
    %a = memref.alloc() : memref<32xi64>
    %b = memref.alloc() : memref<32xi64>
    %nb = memref.alloc() : memref<32xi64>
    %check:2 = scf.for %k = %c0 to %blocks step %c1 iter_args(%bad = %zero, %sum = %zero) -> (i64, i64) {
      scf.for %l = %c0 to %c32 step %c1 {
        %l64 = arith.index_cast %l : index to i64
        memref.store %l64, %a[%l] : memref<32xi64>
        memref.store %zero, %b[%l] : memref<32xi64>
      }
      %t32 = memref.load %trips[%k] : memref<?xi32>
      %t = arith.index_cast %t32 : i32 to index
      scf.for %r = %c0 to %t step %c1 {
        scf.for %l = %c0 to %c32 step %c1 {
          %y = arith.divui %l, %c8 : index
          %x = arith.remui %l, %c8 : index
          %x1 = arith.addi %x, %c1 : index
          %xr = arith.remui %x1, %c8 : index
          %y8 = arith.muli %y, %c8 : index
          %src = arith.addi %y8, %xr : index
          %v = memref.load %a[%src] : memref<32xi64>
          memref.store %v, %nb[%l] : memref<32xi64>
        }
        scf.for %l = %c0 to %c32 step %c1 {
          %av = memref.load %a[%l] : memref<32xi64>
          %bv = memref.load %b[%l] : memref<32xi64>
          %nv = memref.load %nb[%l] : memref<32xi64>
          %s = arith.addi %bv, %nv : i64
          memref.store %s, %a[%l] : memref<32xi64>
          memref.store %av, %b[%l] : memref<32xi64>
        }
      }
      %inner:2 = scf.for %l = %c0 to %c32 step %c1 iter_args(%bad2 = %bad, %sum2 = %sum) -> (i64, i64) {
        %av = memref.load %a[%l] : memref<32xi64>
        %bv = memref.load %b[%l] : memref<32xi64>
        %hi = arith.muli %av, %c1000 : i64
        %want = arith.addi %hi, %bv : i64
        %base = arith.muli %k, %c32 : index
        %g = arith.addi %base, %l : index
        %got = memref.load %out[%g] : memref<?xi64>
        %differs = arith.cmpi ne, %got, %want : i64
        %inc = arith.select %differs, %one, %zero : i64
        %bad3 = arith.addi %bad2, %inc : i64
        %sum3 = arith.addi %sum2, %got : i64
        scf.yield %bad3, %sum3 : i64, i64
      }
      scf.yield %inner#0, %inner#1 : i64, i64
    }
    func.call @sluice_print_i64(%check#0) : (i64) -> ()
    func.call @sluice_print_i64(%check#1) : (i64) -> ()
    memref.dealloc %a : memref<32xi64>
    memref.dealloc %b : memref<32xi64>
    memref.dealloc %nb : memref<32xi64>
    memref.dealloc %trips : memref<?xi32>
    memref.dealloc %out : memref<?xi64>
    return
  }
}
