// gpu.shuffle inside scf.if with results (and inside a nested one), on the
// CPU's fission and coroutine paths and on Vulkan, against closed forms the
// kernel computes from the shuffle's definition for whatever subgroup size S
// the backend has (at least 4). Block b of 2 (64 lanes) gives lane t the
// value v = 1000 b + t; lane k = t mod S of the subgroup reads
//   even b: xor 1 -> v - k + (k ^ 1), yielded with the lane's id + 1;
//   odd b:  an inner scf.if (b < 100) yields xor 2 -> v - k + (k ^ 2),
//           and the outer one adds 0, with the lane's id + 2.
// Each lane counts its mismatches (shuffle value, validity, the index
// result); the host prints their sum (0), then the sum of the shuffled values
// over all lanes, a permutation within each subgroup of the values:
// sum over b < 2, t < 64 of 1000 b + t = 64000 + 2 * 2016 = 68032.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: sluice-opt --convert-gpu-to-cpu %s | FileCheck %s --check-prefix=FISSION
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}68032{{$}}
// The condition is block-uniform, so the kernel takes fission; the results
// go through private arrays.
// FISSION-LABEL: func.func private @__sluice_block_branch(
// FISSION-NOT: llvm.intr.coro
// FISSION-NOT: gpu.shuffle
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @branch(%bad: memref<?xi32>, %sum: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %c100 = arith.constant 100 : index
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %c1000 = arith.constant 1000 : i32
      %tx = gpu.thread_id x
      %bid = gpu.block_id x
      %s = gpu.subgroup_size : index
      %s32 = arith.index_cast %s : index to i32
      %k = arith.remui %tx, %s : index
      %k32 = arith.index_cast %k : index to i32
      %tx32 = arith.index_cast %tx : index to i32
      %b32 = arith.index_cast %bid : index to i32
      %bk = arith.muli %b32, %c1000 : i32
      %v = arith.addi %bk, %tx32 : i32
      %vbase = arith.subi %v, %k32 : i32
      %parity = arith.remui %bid, %c2 : index
      %even = arith.cmpi eq, %parity, %c0 : index
      %r, %ok, %id = scf.if %even -> (i32, i1, index) {
        %x, %xok = gpu.shuffle xor %v, %one, %s32 : i32
        %t1 = arith.addi %tx, %c1 : index
        scf.yield %x, %xok, %t1 : i32, i1, index
      } else {
        %small = arith.cmpi ult, %bid, %c100 : index
        %y, %yok = scf.if %small -> (i32, i1) {
          %z, %zok = gpu.shuffle xor %v, %two, %s32 : i32
          scf.yield %z, %zok : i32, i1
        } else {
          %false = arith.constant false
          scf.yield %v, %false : i32, i1
        }
        %t2 = arith.addi %tx, %c2 : index
        scf.yield %y, %yok, %t2 : i32, i1, index
      }
      // Expected values.
      %x1 = arith.xori %k32, %one : i32
      %x2 = arith.xori %k32, %two : i32
      %w1 = arith.addi %vbase, %x1 : i32
      %w2 = arith.addi %vbase, %x2 : i32
      %want = arith.select %even, %w1, %w2 : i32
      %tp1 = arith.addi %tx, %c1 : index
      %tp2 = arith.addi %tx, %c2 : index
      %wantid = arith.select %even, %tp1, %tp2 : index
      %m1 = arith.cmpi ne, %r, %want : i32
      %true = arith.constant true
      %m2 = arith.cmpi ne, %ok, %true : i1
      %m3 = arith.cmpi ne, %id, %wantid : index
      %g1 = arith.extui %m1 : i1 to i32
      %g2 = arith.extui %m2 : i1 to i32
      %g3 = arith.extui %m3 : i1 to i32
      %a1 = arith.addi %g1, %g2 : i32
      %a2 = arith.addi %a1, %g3 : i32
      %base = arith.muli %bid, %c64 : index
      %gi = arith.addi %base, %tx : index
      memref.store %a2, %bad[%gi] : memref<?xi32>
      %old = memref.atomic_rmw addi %r, %sum[%c0] : (i32, memref<?xi32>) -> i32
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %bad = memref.alloc(%c128) : memref<?xi32>
    %sum = memref.alloc(%c1) : memref<?xi32>
    memref.store %zero, %sum[%c0] : memref<?xi32>
    gpu.launch_func @kernels::@branch blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%bad : memref<?xi32>, %sum : memref<?xi32>)
    %total = scf.for %i = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (i32) {
      %b = memref.load %bad[%i] : memref<?xi32>
      %n = arith.addi %acc, %b : i32
      scf.yield %n : i32
    }
    %t64 = arith.extsi %total : i32 to i64
    func.call @sluice_print_i64(%t64) : (i64) -> ()
    %s = memref.load %sum[%c0] : memref<?xi32>
    %s64 = arith.extsi %s : i32 to i64
    func.call @sluice_print_i64(%s64) : (i64) -> ()
    return
  }
}
