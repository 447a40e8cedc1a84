// RUN: sluice-opt %s --convert-gpu-to-cpu --split-input-file | FileCheck %s
// RUN: sluice-opt %s --convert-gpu-to-cpu=force-coroutines=true --split-input-file \
// RUN:   | FileCheck %s --check-prefix=CORO

// Counter adds to a `sluice.counters` argument are summed per block only
// where nothing in the kernel reads the counter
// (test/Integration/gpu-counter-adds.mlir runs the case that is summed).
// Here the kernel also loads the buffer: every add stays an atomic of its
// lane, and no accumulator is made.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @read_back(%counts: memref<?xi32> {sluice.counters},
                        %seen: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %t = gpu.thread_id x
      %a = memref.atomic_rmw addi %one, %counts[%c0] : (i32, memref<?xi32>) -> i32
      %v = memref.load %counts[%c0] : memref<?xi32>
      memref.store %v, %seen[%t] : memref<?xi32>
      gpu.return
    }
  }
  func.func @host(%counts: memref<?xi32>, %seen: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@read_back blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%counts : memref<?xi32>, %seen : memref<?xi32>)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_block_read_back(
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK: memref.atomic_rmw addi
// CHECK: memref.load
// CHECK-NOT: memref.atomic_rmw
// CHECK: return

// -----

// On the coroutine path the lanes' code is not inline in the block
// function: the adds stay atomics there.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @count(%counts: memref<?xi32> {sluice.counters}) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %a = memref.atomic_rmw addi %one, %counts[%c0] : (i32, memref<?xi32>) -> i32
      gpu.return
    }
  }
  func.func @host(%counts: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@count blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%counts : memref<?xi32>)
    return
  }
}
// The fission path sums it.
// CHECK-LABEL: func.func private @__sluice_block_count(
// CHECK: %[[SUM:.*]] = memref.alloca() : memref<i32>
// CHECK: scf.for
// CHECK: memref.load %[[SUM]][]
// CHECK: arith.addi
// CHECK: memref.store %{{.*}}, %[[SUM]][]
// CHECK: %[[TOTAL:.*]] = memref.load %[[SUM]][]
// CHECK: scf.if
// CHECK: memref.atomic_rmw addi %[[TOTAL]]
// CORO-LABEL: func.func private @__sluice_lanes_count_0(
// CORO: memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}] : (i32, memref<?xi32>) -> i32
// CORO-LABEL: func.func private @__sluice_block_count(
// CORO-NOT: memref.alloca() : memref<i32>
// CORO: return

// -----

// Without the attribute nothing is summed: another argument might alias the
// buffer, or something might read it during the dispatch.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @plain(%counts: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %a = memref.atomic_rmw addi %one, %counts[%c0] : (i32, memref<?xi32>) -> i32
      gpu.return
    }
  }
  func.func @host(%counts: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@plain blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%counts : memref<?xi32>)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_block_plain(
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK: memref.atomic_rmw addi
// CHECK-NOT: memref.atomic_rmw
// CHECK: return
