// A kernel with every kind of divergence that vectorized lane loops handle
// (lib/Conversion/GPUToCPU/VectorizeLanes.cpp): an scf.while whose trip
// count differs by lane (Collatz steps), an scf.if with results on a lane
// condition, an scf.for whose bounds differ by lane, a per-lane private array
// indexed by a lane value, integer division by a lane value (lane 0 divides
// by zero only where it is inactive), an atomic add whose old value each lane
// keeps, and one whose sum only the host reads. Blocks of 100 lanes: the last
// vector of 8 of each block has 4 lanes outside it. The checker recomputes
// every value in Python (a second implementation), and the scalar lane loops
// and the coroutine path print the same. The tickets depend on the order in
// which the workers run the blocks, so the host prints their sum and sum of
// squares, which a permutation of 0..299 fixes.
// RUN: sluice-run %s | %python %S/Inputs/gpu-lane-vectors.py
// RUN: sluice-run --cpu-simd=8 --cpu-simd-all %s | %python %S/Inputs/gpu-lane-vectors.py
// RUN: sluice-run --cpu-simd=4 --cpu-simd-all %s | %python %S/Inputs/gpu-lane-vectors.py
// RUN: sluice-run --cpu-simd=8 --cpu-simd-all %s > %t.simd
// RUN: sluice-run --gpu-force-coroutines %s > %t.coro
// RUN: diff %t.simd %t.coro
//
// The lane loop is vectorized (the cost model would not: the Collatz loop
// diverges), and without --cpu-simd-all it is not.
// RUN: sluice-opt --convert-gpu-to-cpu="lane-vector-width=8 lane-vector-always lane-vector-remarks" %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALWAYS
// ALWAYS: remark: lane loop vectorized, 8 lanes at a time ({{[0-9]+}} vector operations, {{[0-9]+}} gathers and scatters, {{[0-9]+}} operations per lane, 2 divergent loops;
// RUN: sluice-opt --convert-gpu-to-cpu="lane-vector-width=8 lane-vector-remarks" %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
// MODEL: remark: lane loop left scalar: 8 lanes at a time would not pay ({{.*}} 2 divergent loops;
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @lanes(%out: memref<?xi64>, %tally: memref<?xi64>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %n = arith.constant 300 : index
      %b = gpu.block_id x
      %bd = gpu.block_dim x
      %t = gpu.thread_id x
      %base = arith.muli %b, %bd : index
      %gid = arith.addi %base, %t : index
      %g = arith.index_cast %gid : index to i64
      %one = arith.constant 1 : i64
      %two = arith.constant 2 : i64
      %three = arith.constant 3 : i64
      %seven = arith.constant 7 : i64
      %zero = arith.constant 0 : i64
      // Collatz steps of g + 1.
      %start = arith.addi %g, %one : i64
      %steps:2 = scf.while (%x = %start, %s = %zero) : (i64, i64) -> (i64, i64) {
        %more = arith.cmpi ne, %x, %one : i64
        scf.condition(%more) %x, %s : i64, i64
      } do {
      ^bb0(%x: i64, %s: i64):
        %r = arith.remui %x, %two : i64
        %odd = arith.cmpi ne, %r, %zero : i64
        %next = scf.if %odd -> i64 {
          %m = arith.muli %x, %three : i64
          %p = arith.addi %m, %one : i64
          scf.yield %p : i64
        } else {
          %h = arith.divui %x, %two : i64
          scf.yield %h : i64
        }
        %s1 = arith.addi %s, %one : i64
        scf.yield %next, %s1 : i64, i64
      }
      // g % 3 == 0: the sum of k * k for k < g % 7; else 2 g.
      %r3 = arith.remui %g, %three : i64
      %third = arith.cmpi eq, %r3, %zero : i64
      %branch = scf.if %third -> i64 {
        %r7 = arith.remui %g, %seven : i64
        %ub = arith.index_cast %r7 : i64 to index
        %sum = scf.for %k = %c0 to %ub step %c1 iter_args(%acc = %zero) -> i64 {
          %k64 = arith.index_cast %k : index to i64
          %kk = arith.muli %k64, %k64 : i64
          %a = arith.addi %acc, %kk : i64
          scf.yield %a : i64
        }
        scf.yield %sum : i64
      } else {
        %d = arith.muli %g, %two : i64
        scf.yield %d : i64
      }
      // A private array: a[i] = g * 10 + i, then a[g % 4].
      %a = memref.alloca() : memref<4xi64>
      scf.for %i = %c0 to %c4 step %c1 {
        %i64 = arith.index_cast %i : index to i64
        %ten = arith.constant 10 : i64
        %g10 = arith.muli %g, %ten : i64
        %v = arith.addi %g10, %i64 : i64
        memref.store %v, %a[%i] : memref<4xi64>
      }
      %r4 = arith.remui %gid, %c4 : index
      %picked = memref.load %a[%r4] : memref<4xi64>
      // 1000 / g where g > 0 (lane 0: -1).
      %positive = arith.cmpi ugt, %g, %zero : i64
      %quotient = scf.if %positive -> i64 {
        %k1000 = arith.constant 1000 : i64
        %q = arith.divui %k1000, %g : i64
        scf.yield %q : i64
      } else {
        %m1 = arith.constant -1 : i64
        scf.yield %m1 : i64
      }
      // Tickets (the old value of an add) and a sum only the host reads.
      %ticket = memref.atomic_rmw addi %one, %tally[%c0] : (i64, memref<?xi64>) -> i64
      %unused = memref.atomic_rmw addi %g, %tally[%c1] : (i64, memref<?xi64>) -> i64
      %row = arith.muli %gid, %c4 : index
      memref.store %steps#1, %out[%row] : memref<?xi64>
      %row1 = arith.addi %row, %c1 : index
      memref.store %branch, %out[%row1] : memref<?xi64>
      %c2 = arith.constant 2 : index
      %row2 = arith.addi %row, %c2 : index
      memref.store %picked, %out[%row2] : memref<?xi64>
      %c3 = arith.constant 3 : index
      %row3 = arith.addi %row, %c3 : index
      memref.store %quotient, %out[%row3] : memref<?xi64>
      %tickets = arith.constant 1200 : index
      %at = arith.addi %tickets, %gid : index
      memref.store %ticket, %out[%at] : memref<?xi64>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c100 = arith.constant 100 : index
    %n = arith.constant 1500 : index
    %zero = arith.constant 0 : i64
    %out = memref.alloc(%n) : memref<?xi64>
    %tally = memref.alloc(%c2) : memref<?xi64>
    memref.store %zero, %tally[%c0] : memref<?xi64>
    memref.store %zero, %tally[%c1] : memref<?xi64>
    gpu.launch_func @kernels::@lanes blocks in (%c3, %c1, %c1) threads in (%c100, %c1, %c1)
        args(%out : memref<?xi64>, %tally : memref<?xi64>)
    // The lanes' values, then the tickets' sum and sum of squares (the
    // tickets themselves depend on the order in which the blocks run).
    %c1200 = arith.constant 1200 : index
    scf.for %j = %c0 to %c1200 step %c1 {
      %v = memref.load %out[%j] : memref<?xi64>
      func.call @sluice_print_i64(%v) : (i64) -> ()
    }
    %sums:2 = scf.for %j = %c1200 to %n step %c1
        iter_args(%s = %zero, %q = %zero) -> (i64, i64) {
      %v = memref.load %out[%j] : memref<?xi64>
      %s1 = arith.addi %s, %v : i64
      %vv = arith.muli %v, %v : i64
      %q1 = arith.addi %q, %vv : i64
      scf.yield %s1, %q1 : i64, i64
    }
    func.call @sluice_print_i64(%sums#0) : (i64) -> ()
    func.call @sluice_print_i64(%sums#1) : (i64) -> ()
    %t0 = memref.load %tally[%c0] : memref<?xi64>
    func.call @sluice_print_i64(%t0) : (i64) -> ()
    %t1 = memref.load %tally[%c1] : memref<?xi64>
    func.call @sluice_print_i64(%t1) : (i64) -> ()
    return
  }
}
