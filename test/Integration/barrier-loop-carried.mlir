// A loop-carried value of a barrier-containing loop with a uniform trip count
// (fission keeps it in a per-lane array; coroutines in a per-group array or
// the frame). Each of 64 lanes of 4 blocks runs 10 rounds: publish
// acc + lane, wait, add the left neighbour's entry, wait.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines --gpu-coroutine-lanes=16 %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines --gpu-coroutine-lanes=1 %s | FileCheck %s
// RUN: sluice-opt --convert-gpu-to-cpu %s | FileCheck %s --check-prefix=FISSION
//
// The recurrence is a_{r+1}[l] = a_r[l] + a_r[left] + left, left = (l + 63)
// mod 64, a_0 = 0. The host program evaluates it serially and prints the number
// of lanes that differ (0), then lane 5's value; independently (a Python
// evaluation of the recurrence) a_10[5] = 24699.
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}24699{{$}}
// FISSION-NOT: __sluice_lane_carry
// FISSION-LABEL: func.func private @__sluice_block_carry(
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @carry(%out: memref<?xi64>)
        workgroup(%buf: memref<64xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c10 = arith.constant 10 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant 0 : i64
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %t64 = arith.index_cast %tid : index to i64
      %shifted = arith.addi %tid, %c63 : index
      %left = arith.remui %shifted, %c64 : index
      %acc = scf.for %r = %c0 to %c10 step %c1 iter_args(%a = %zero) -> (i64) {
        %mine = arith.addi %a, %t64 : i64
        memref.store %mine, %buf[%tid] : memref<64xi64, #gpu.address_space<workgroup>>
        gpu.barrier
        %l = memref.load %buf[%left] : memref<64xi64, #gpu.address_space<workgroup>>
        gpu.barrier
        %next = arith.addi %a, %l : i64
        scf.yield %next : i64
      }
      %base = arith.muli %bid, %c64 : index
      %g = arith.addi %base, %tid : index
      memref.store %acc, %out[%g] : memref<?xi64>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c10 = arith.constant 10 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %out = memref.alloc(%c256) : memref<?xi64>
    gpu.launch_func @kernels::@carry blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%out : memref<?xi64>)
    // Serial reference: a[l] <- a[l] + (a[left(l)] + left(l)), all lanes at once.
    %a = memref.alloc() : memref<64xi64>
    %b = memref.alloc() : memref<64xi64>
    scf.for %l = %c0 to %c64 step %c1 {
      memref.store %zero, %a[%l] : memref<64xi64>
    }
    scf.for %r = %c0 to %c10 step %c1 {
      scf.for %l = %c0 to %c64 step %c1 {
        %s = arith.addi %l, %c63 : index
        %left = arith.remui %s, %c64 : index
        %al = memref.load %a[%left] : memref<64xi64>
        %left64 = arith.index_cast %left : index to i64
        %pub = arith.addi %al, %left64 : i64
        %own = memref.load %a[%l] : memref<64xi64>
        %n = arith.addi %own, %pub : i64
        memref.store %n, %b[%l] : memref<64xi64>
      }
      scf.for %l = %c0 to %c64 step %c1 {
        %v = memref.load %b[%l] : memref<64xi64>
        memref.store %v, %a[%l] : memref<64xi64>
      }
    }
    %bad = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (i64) {
      %l = arith.remui %i, %c64 : index
      %want = memref.load %a[%l] : memref<64xi64>
      %got = memref.load %out[%i] : memref<?xi64>
      %differs = arith.cmpi ne, %got, %want : i64
      %inc = arith.select %differs, %one, %zero : i64
      %next = arith.addi %acc, %inc : i64
      scf.yield %next : i64
    }
    func.call @sluice_print_i64(%bad) : (i64) -> ()
    %five = memref.load %out[%c5] : memref<?xi64>
    func.call @sluice_print_i64(%five) : (i64) -> ()
    return
  }
}
