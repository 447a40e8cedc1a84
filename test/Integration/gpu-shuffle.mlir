// gpu.shuffle in every mode and the subgroup queries, against closed forms
// the kernel computes from the definitions with plain arithmetic, for
// whatever subgroup size S the backend has (CPU 32; lavapipe 8; HIP
// warpSize). Block b (of 2, 64 lanes) gives lane t the value v = 1000 b + t;
// lane k = t mod S of subgroup t / S must read
//   xor 1, width S:   v - k + (k ^ 1), always valid;
//   down 1, width S:  v + 1, valid iff k + 1 < S;
//   up 2, width S:    v - 2, valid iff k >= 2;
//   idx 5, width S:   v - k + 5, valid iff 5 < S;
//   xor 2, width 4:   v - k + (k ^ 2), valid iff k < 4;
// and lane_id = t mod S, subgroup_id = t / S, num_subgroups = ceil(64 / S).
// Each lane counts its mismatches; the host prints their sum (0), then the
// sum of the xor-1 results over all lanes, a permutation of the values:
// sum over b < 2, t < 64 of 1000 b + t = 64000 + 2 * 2016 = 68032.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: env SLUICE_WORKERS=1 sluice-run %s | FileCheck %s
// RUN: sluice-opt --convert-gpu-to-cpu %s | FileCheck %s --check-prefix=FISSION
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}68032{{$}}
// Fission: no coroutine; each shuffle reads another lane's entry of the
// array its value was published to.
// FISSION-LABEL: func.func private @__sluice_block_exchange(
// FISSION-NOT: llvm.intr.coro
// FISSION-NOT: gpu.shuffle
// FISSION: arith.xori
// FISSION: memref.load
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @exchange(%bad: memref<?xi32>, %sum: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %two = arith.constant 2 : i32
      %four = arith.constant 4 : i32
      %five = arith.constant 5 : i32
      %zero = arith.constant 0 : i32
      %c1000 = arith.constant 1000 : i32
      %c64 = arith.constant 64 : index
      %tx = gpu.thread_id x
      %bid = gpu.block_id x
      %s = gpu.subgroup_size : index
      %s32 = arith.index_cast %s : index to i32
      %lane = gpu.lane_id
      %sg = gpu.subgroup_id : index
      %nsg = gpu.num_subgroups : index
      %k = arith.remui %tx, %s : index
      %q = arith.divui %tx, %s : index
      %c63 = arith.constant 63 : index
      %s63 = arith.addi %s, %c63 : index
      %nq = arith.divui %s63, %s : index
      %e0 = arith.cmpi ne, %lane, %k : index
      %e1 = arith.cmpi ne, %sg, %q : index
      %e2 = arith.cmpi ne, %nsg, %nq : index
      %k32 = arith.index_cast %k : index to i32
      %tx32 = arith.index_cast %tx : index to i32
      %b32 = arith.index_cast %bid : index to i32
      %bk = arith.muli %b32, %c1000 : i32
      %v = arith.addi %bk, %tx32 : i32
      // first lane of the subgroup's value
      %vbase = arith.subi %v, %k32 : i32
      %true = arith.constant true
      // xor 1, width S: always valid, value of lane k ^ 1
      %r1, %ok1 = gpu.shuffle xor %v, %one, %s32 : i32
      %x1 = arith.xori %k32, %one : i32
      %w1 = arith.addi %vbase, %x1 : i32
      // down 1, width S: valid iff k + 1 < S
      %r2, %ok2 = gpu.shuffle down %v, %one, %s32 : i32
      %k1 = arith.addi %k32, %one : i32
      %v2 = arith.cmpi ult, %k1, %s32 : i32
      %w2 = arith.addi %v, %one : i32
      // up 2, width S: valid iff k >= 2
      %r3, %ok3 = gpu.shuffle up %v, %two, %s32 : i32
      %v3 = arith.cmpi uge, %k32, %two : i32
      %w3 = arith.subi %v, %two : i32
      // idx 5, width S: valid iff 5 < S
      %r4, %ok4 = gpu.shuffle idx %v, %five, %s32 : i32
      %v4 = arith.cmpi ult, %five, %s32 : i32
      %w4 = arith.addi %vbase, %five : i32
      // xor 2, width 4: valid iff k < 4
      %r5, %ok5 = gpu.shuffle xor %v, %two, %four : i32
      %v5 = arith.cmpi ult, %k32, %four : i32
      %x5 = arith.xori %k32, %two : i32
      %w5 = arith.addi %vbase, %x5 : i32
      %m1 = arith.cmpi ne, %r1, %w1 : i32
      %n1 = arith.cmpi ne, %ok1, %true : i1
      %m2a = arith.cmpi ne, %r2, %w2 : i32
      %m2 = arith.andi %m2a, %v2 : i1
      %n2 = arith.cmpi ne, %ok2, %v2 : i1
      %m3a = arith.cmpi ne, %r3, %w3 : i32
      %m3 = arith.andi %m3a, %v3 : i1
      %n3 = arith.cmpi ne, %ok3, %v3 : i1
      %m4a = arith.cmpi ne, %r4, %w4 : i32
      %m4 = arith.andi %m4a, %v4 : i1
      %n4 = arith.cmpi ne, %ok4, %v4 : i1
      %m5a = arith.cmpi ne, %r5, %w5 : i32
      %m5 = arith.andi %m5a, %v5 : i1
      %n5 = arith.cmpi ne, %ok5, %v5 : i1
      %f0 = arith.extui %e0 : i1 to i32
      %f1 = arith.extui %e1 : i1 to i32
      %f2 = arith.extui %e2 : i1 to i32
      %g1 = arith.extui %m1 : i1 to i32
      %g2 = arith.extui %n1 : i1 to i32
      %g3 = arith.extui %m2 : i1 to i32
      %g4 = arith.extui %n2 : i1 to i32
      %g5 = arith.extui %m3 : i1 to i32
      %g6 = arith.extui %n3 : i1 to i32
      %g7 = arith.extui %m4 : i1 to i32
      %g8 = arith.extui %n4 : i1 to i32
      %g9 = arith.extui %m5 : i1 to i32
      %g10 = arith.extui %n5 : i1 to i32
      %a0 = arith.addi %f0, %f1 : i32
      %a1 = arith.addi %a0, %f2 : i32
      %a2 = arith.addi %a1, %g1 : i32
      %a3 = arith.addi %a2, %g2 : i32
      %a4 = arith.addi %a3, %g3 : i32
      %a5 = arith.addi %a4, %g4 : i32
      %a6 = arith.addi %a5, %g5 : i32
      %a7 = arith.addi %a6, %g6 : i32
      %a8 = arith.addi %a7, %g7 : i32
      %a9 = arith.addi %a8, %g8 : i32
      %a10 = arith.addi %a9, %g9 : i32
      %a11 = arith.addi %a10, %g10 : i32
      %base = arith.muli %bid, %c64 : index
      %gi = arith.addi %base, %tx : index
      memref.store %a11, %bad[%gi] : memref<?xi32>
      %old = memref.atomic_rmw addi %r1, %sum[%c0] : (i32, memref<?xi32>) -> i32
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
    gpu.launch_func @kernels::@exchange blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
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
