// gpu.shuffle and gpu.barrier inside scf.while, on the CPU's fission and
// lane-group coroutine paths and on Vulkan, against closed forms the kernels
// compute for whatever subgroup size S the backend has (a power of two, at
// least 4, dividing 64). Two blocks of 64 lanes; lane t of block b holds
// v = 1000 b + t, and k = t mod S is its lane in the subgroup, whose first
// lane holds v0 = v - k.
//
// @butterfly: while (offset > 0) { acc += shuffle xor(acc, offset);
//   offset >>= 1 }, offset from S / 2: every lane ends with its subgroup's
//   sum, S v0 + S (S - 1) / 2. The loop's condition and offset are uniform
//   (the fixed point of the uniformity analysis), so the kernel takes fission.
// @subgroup_trips: n = (t / S) mod 3 + 1 trips of acc += shuffle idx(acc, 0)
//   (the subgroup's lane 0): acc_n = v + (2^n - 1) v0 by induction
//   (acc_{i+1} = acc_i + acc_i(lane 0), and acc_i(lane 0) = 2^i v0). The trip
//   count differs between subgroups, as a GPU allows, so the kernel runs as
//   lane-group coroutines that check that a group's lanes agree.
// @tree: a shared-memory tree reduction, while (stride > 0) { if t < stride:
//   x[t] += x[t + stride]; barrier; stride >>= 1 }, from a stride read from
//   memory (32, uniform): x[0] = sum of v over the block = 64000 b + 2016.
//
// The lanes of @butterfly and @subgroup_trips count their mismatches; the
// host prints their sum (0), then the sum of @butterfly's results over the
// first lane of every subgroup (the subgroup sums add up to the sum of v over
// all lanes, b < 2, t < 64: 2 * 2016 + 64000 = 68032, whatever S is), then
// @tree's two block sums added: 2016 + 66016 = 68032.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: sluice-opt --convert-gpu-to-cpu %s | FileCheck %s --check-prefix=LOWERED
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}68032{{$}}
// CHECK-NEXT: {{^}}68032{{$}}
// Fission for the uniform loops: a block function without coroutines.
// LOWERED-LABEL: func.func private @__sluice_block_butterfly(
// LOWERED-NOT: llvm.intr.coro
// LOWERED-NOT: gpu.shuffle
// LOWERED: return
// LOWERED-LABEL: func.func private @__sluice_lane_subgroup_trips(
// LOWERED-LABEL: func.func private @__sluice_block_tree(
// LOWERED-NOT: llvm.intr.coro
// LOWERED-NOT: gpu.barrier
// LOWERED: return
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @butterfly(%bad: memref<?xi32>, %sum: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant 0 : i32
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
      %half = arith.divui %s32, %two : i32
      %r, %last = scf.while (%acc = %v, %offset = %half) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi ugt, %offset, %zero : i32
        scf.condition(%more) %acc, %offset : i32, i32
      } do {
      ^bb0(%a: i32, %o: i32):
        %x, %ok = gpu.shuffle xor %a, %o, %s32 : i32
        %n = arith.addi %a, %x : i32
        %o2 = arith.shrui %o, %one : i32
        scf.yield %n, %o2 : i32, i32
      }
      // S v0 + S (S - 1) / 2.
      %v0 = arith.subi %v, %k32 : i32
      %sv0 = arith.muli %s32, %v0 : i32
      %sm1 = arith.subi %s32, %one : i32
      %tri = arith.muli %s32, %sm1 : i32
      %tri2 = arith.divui %tri, %two : i32
      %want = arith.addi %sv0, %tri2 : i32
      %m1 = arith.cmpi ne, %r, %want : i32
      %m2 = arith.cmpi ne, %last, %zero : i32
      %g1 = arith.extui %m1 : i1 to i32
      %g2 = arith.extui %m2 : i1 to i32
      %g = arith.addi %g1, %g2 : i32
      %base = arith.muli %bid, %c64 : index
      %gi = arith.addi %base, %tx : index
      memref.store %g, %bad[%gi] : memref<?xi32>
      // One lane per subgroup adds the subgroup's sum.
      %lead = arith.cmpi eq, %k, %c0 : index
      scf.if %lead {
        %old = memref.atomic_rmw addi %r, %sum[%c0] : (i32, memref<?xi32>) -> i32
      }
      gpu.return
    }

    gpu.func @subgroup_trips(%bad: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
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
      %sub = arith.divui %tx, %s : index
      %m = arith.remui %sub, %c3 : index
      %m32 = arith.index_cast %m : index to i32
      %trips = arith.addi %m32, %one : i32
      %r, %done = scf.while (%acc = %v, %i = %zero) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi ult, %i, %trips : i32
        scf.condition(%more) %acc, %i : i32, i32
      } do {
      ^bb0(%a: i32, %j: i32):
        %first, %ok = gpu.shuffle idx %a, %zero, %s32 : i32
        %n = arith.addi %a, %first : i32
        %j1 = arith.addi %j, %one : i32
        scf.yield %n, %j1 : i32, i32
      }
      // v + (2^n - 1) v0.
      %v0 = arith.subi %v, %k32 : i32
      %pow = arith.shli %one, %trips : i32
      %pm1 = arith.subi %pow, %one : i32
      %scaled = arith.muli %pm1, %v0 : i32
      %want = arith.addi %v, %scaled : i32
      %m1 = arith.cmpi ne, %r, %want : i32
      %m2 = arith.cmpi ne, %done, %trips : i32
      %g1 = arith.extui %m1 : i1 to i32
      %g2 = arith.extui %m2 : i1 to i32
      %g = arith.addi %g1, %g2 : i32
      %base = arith.muli %bid, %c64 : index
      %gi = arith.addi %base, %tx : index
      memref.store %g, %bad[%gi] : memref<?xi32>
      gpu.return
    }

    gpu.func @tree(%stride0: memref<?xi32>, %sums: memref<?xi32>)
        workgroup(%x: memref<64xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %c1000 = arith.constant 1000 : i32
      %tx = gpu.thread_id x
      %bid = gpu.block_id x
      %tx32 = arith.index_cast %tx : index to i32
      %b32 = arith.index_cast %bid : index to i32
      %bk = arith.muli %b32, %c1000 : i32
      %v = arith.addi %bk, %tx32 : i32
      memref.store %v, %x[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %first = memref.load %stride0[%c0] : memref<?xi32>
      %end = scf.while (%stride = %first) : (i32) -> i32 {
        %more = arith.cmpi ugt, %stride, %zero : i32
        scf.condition(%more) %stride : i32
      } do {
      ^bb0(%st: i32):
        %st_i = arith.index_cast %st : i32 to index
        %active = arith.cmpi ult, %tx, %st_i : index
        scf.if %active {
          %other = arith.addi %tx, %st_i : index
          %a = memref.load %x[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
          %b = memref.load %x[%other] : memref<64xi32, #gpu.address_space<workgroup>>
          %c = arith.addi %a, %b : i32
          memref.store %c, %x[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %next = arith.shrui %st, %one : i32
        scf.yield %next : i32
      }
      %is0 = arith.cmpi eq, %tx, %c0 : index
      scf.if %is0 {
        %total = memref.load %x[%c0] : memref<64xi32, #gpu.address_space<workgroup>>
        memref.store %total, %sums[%bid] : memref<?xi32>
      }
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
    %c32 = arith.constant 32 : i32
    %bad1 = memref.alloc(%c128) : memref<?xi32>
    %bad2 = memref.alloc(%c128) : memref<?xi32>
    %sum = memref.alloc(%c1) : memref<?xi32>
    %stride = memref.alloc(%c1) : memref<?xi32>
    %sums = memref.alloc(%c2) : memref<?xi32>
    memref.store %zero, %sum[%c0] : memref<?xi32>
    memref.store %c32, %stride[%c0] : memref<?xi32>
    gpu.launch_func @kernels::@butterfly blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%bad1 : memref<?xi32>, %sum : memref<?xi32>)
    gpu.launch_func @kernels::@subgroup_trips blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%bad2 : memref<?xi32>)
    gpu.launch_func @kernels::@tree blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%stride : memref<?xi32>, %sums : memref<?xi32>)
    %total = scf.for %i = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (i32) {
      %b1 = memref.load %bad1[%i] : memref<?xi32>
      %b2 = memref.load %bad2[%i] : memref<?xi32>
      %n1 = arith.addi %acc, %b1 : i32
      %n2 = arith.addi %n1, %b2 : i32
      scf.yield %n2 : i32
    }
    %t64 = arith.extsi %total : i32 to i64
    func.call @sluice_print_i64(%t64) : (i64) -> ()
    %s = memref.load %sum[%c0] : memref<?xi32>
    %s64 = arith.extsi %s : i32 to i64
    func.call @sluice_print_i64(%s64) : (i64) -> ()
    %t0 = memref.load %sums[%c0] : memref<?xi32>
    %t1 = memref.load %sums[%c1] : memref<?xi32>
    %tt = arith.addi %t0, %t1 : i32
    %tt64 = arith.extsi %tt : i32 to i64
    func.call @sluice_print_i64(%tt64) : (i64) -> ()
    return
  }
}
