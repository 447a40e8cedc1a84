// Reductions over a block of 128 lanes (3 blocks), lane t of block b holding
// x = (t + 1)(b + 1), on every backend's subgroup size S:
//   a butterfly written with gpu.shuffle xor (log2 S steps, loop-carried),
//   gpu.subgroup_reduce add, add with cluster(size = 4), maxsi,
//   gpu.all_reduce add, maxui and the region form (minsi), and add on f32.
// Subgroup results are summed (or max'ed) over the block with atomics by
// the subgroup's (cluster's) first lane, so every line is independent of S:
// per block b the host prints 7 integers and one float,
//   sum = (b + 1) * 128 * 129 / 2 = 8256 (b + 1)   (butterfly, subgroup_reduce,
//   max = 128 (b + 1), sum, sum, max, min = b + 1,  cluster, all_reduce),
//   and the f32 sum 8256 (b + 1) (exact: integers below 2^24).
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: sluice-opt --convert-gpu-to-cpu %s | FileCheck %s --check-prefix=FISSION
// CHECK: {{^}}8256{{$}}
// CHECK-NEXT: {{^}}8256{{$}}
// CHECK-NEXT: {{^}}128{{$}}
// CHECK-NEXT: {{^}}8256{{$}}
// CHECK-NEXT: {{^}}8256{{$}}
// CHECK-NEXT: {{^}}128{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}8256{{$}}
// CHECK-NEXT: {{^}}16512{{$}}
// CHECK-NEXT: {{^}}16512{{$}}
// CHECK-NEXT: {{^}}256{{$}}
// CHECK-NEXT: {{^}}16512{{$}}
// CHECK-NEXT: {{^}}16512{{$}}
// CHECK-NEXT: {{^}}256{{$}}
// CHECK-NEXT: {{^}}2{{$}}
// CHECK-NEXT: {{^}}16512{{$}}
// CHECK-NEXT: {{^}}24768{{$}}
// CHECK-NEXT: {{^}}24768{{$}}
// CHECK-NEXT: {{^}}384{{$}}
// CHECK-NEXT: {{^}}24768{{$}}
// CHECK-NEXT: {{^}}24768{{$}}
// CHECK-NEXT: {{^}}384{{$}}
// CHECK-NEXT: {{^}}3{{$}}
// CHECK-NEXT: {{^}}24768{{$}}
// The all_reduce trees are barrier loops of uniform trip count: fission.
// FISSION-LABEL: func.func private @__sluice_block_reduce(
// FISSION-NOT: llvm.intr.coro
// FISSION-NOT: gpu.
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  func.func private @sluice_print_f64(f64)
  gpu.module @kernels {
    gpu.func @reduce(%sums: memref<?xi32>, %fsum: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c9 = arith.constant 9 : index
      %one = arith.constant 1 : i32
      %tx = gpu.thread_id x
      %bid = gpu.block_id x
      %lane = gpu.lane_id
      %s = gpu.subgroup_size : index
      %s32 = arith.index_cast %s : index to i32
      %t1 = arith.addi %tx, %c1 : index
      %b1 = arith.addi %bid, %c1 : index
      %xi = arith.muli %t1, %b1 : index
      %x = arith.index_cast %xi : index to i32
      // Butterfly written with shuffles: log2(S) steps of xor 1, 2, 4, ...
      %lz = math.ctlz %s32 : i32
      %c31 = arith.constant 31 : i32
      %steps32 = arith.subi %c31, %lz : i32
      %steps = arith.index_cast %steps32 : i32 to index
      %bfly = scf.for %i = %c0 to %steps step %c1 iter_args(%a = %x) -> (i32) {
        %i32 = arith.index_cast %i : index to i32
        %off = arith.shli %one, %i32 : i32
        %o, %ok = gpu.shuffle xor %a, %off, %s32 : i32
        %n = arith.addi %a, %o : i32
        scf.yield %n : i32
      }
      %sg = gpu.subgroup_reduce add %x : (i32) -> i32
      %cl = gpu.subgroup_reduce add %x cluster(size = 4) : (i32) -> i32
      %mx = gpu.subgroup_reduce maxsi %x : (i32) -> i32
      %all = gpu.all_reduce add %x uniform {} : (i32) -> i32
      %allmax = gpu.all_reduce maxui %x {} : (i32) -> i32
      %allmin = gpu.all_reduce %x {
      ^bb(%l: i32, %r: i32):
        %m = arith.minsi %l, %r : i32
        gpu.yield %m : i32
      } : (i32) -> i32
      %xf = arith.sitofp %x : i32 to f32
      %allf = gpu.all_reduce add %xf {} : (f32) -> f32
      %base = arith.muli %bid, %c9 : index
      %first = arith.cmpi eq, %lane, %c0 : index
      scf.if %first {
        %mxs = arith.index_cast %mx : i32 to index
        %u0 = memref.atomic_rmw addi %bfly, %sums[%base] : (i32, memref<?xi32>) -> i32
        %i1 = arith.addi %base, %c1 : index
        %u1 = memref.atomic_rmw addi %sg, %sums[%i1] : (i32, memref<?xi32>) -> i32
        %c2 = arith.constant 2 : index
        %i2 = arith.addi %base, %c2 : index
        %u2 = memref.atomic_rmw maxs %mx, %sums[%i2] : (i32, memref<?xi32>) -> i32
      }
      %c4 = arith.constant 4 : index
      %q = arith.remui %lane, %c4 : index
      %cfirst = arith.cmpi eq, %q, %c0 : index
      scf.if %cfirst {
        %c3 = arith.constant 3 : index
        %i3 = arith.addi %base, %c3 : index
        %u3 = memref.atomic_rmw addi %cl, %sums[%i3] : (i32, memref<?xi32>) -> i32
      }
      %lead = arith.cmpi eq, %tx, %c0 : index
      scf.if %lead {
        %c4b = arith.constant 4 : index
        %i4 = arith.addi %base, %c4b : index
        memref.store %all, %sums[%i4] : memref<?xi32>
        %c5 = arith.constant 5 : index
        %i5 = arith.addi %base, %c5 : index
        memref.store %allmax, %sums[%i5] : memref<?xi32>
        %c6 = arith.constant 6 : index
        %i6 = arith.addi %base, %c6 : index
        memref.store %allmin, %sums[%i6] : memref<?xi32>
        memref.store %allf, %fsum[%bid] : memref<?xf32>
      }
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c9 = arith.constant 9 : index
    %c27 = arith.constant 27 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %sums = memref.alloc(%c27) : memref<?xi32>
    %fsum = memref.alloc(%c3) : memref<?xf32>
    scf.for %i = %c0 to %c27 step %c1 {
      memref.store %zero, %sums[%i] : memref<?xi32>
    }
    gpu.launch_func @kernels::@reduce blocks in (%c3, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%sums : memref<?xi32>, %fsum : memref<?xf32>)
    scf.for %b = %c0 to %c3 step %c1 {
      %base = arith.muli %b, %c9 : index
      %c7 = arith.constant 7 : index
      scf.for %j = %c0 to %c7 step %c1 {
        %i = arith.addi %base, %j : index
        %v = memref.load %sums[%i] : memref<?xi32>
        %v64 = arith.extsi %v : i32 to i64
        func.call @sluice_print_i64(%v64) : (i64) -> ()
      }
      %f = memref.load %fsum[%b] : memref<?xf32>
      %f64 = arith.extf %f : f32 to f64
      func.call @sluice_print_f64(%f64) : (f64) -> ()
    }
    return
  }
}
