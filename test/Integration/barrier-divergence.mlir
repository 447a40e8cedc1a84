// Lanes of one lane-group coroutine that disagree on the trip count of a loop
// containing a barrier break the barrier rule: the run stops with the kernel's
// name instead of computing garbage.
// RUN: %expect-exit 1 sluice-run %s 2>&1 | FileCheck %s
// CHECK: sluice runtime: the lanes of a 128-lane coroutine of kernel odd_trips disagree on a loop bound or branch condition around a barrier or a gpu.shuffle; without shuffles, run it with one coroutine per lane (convert-gpu-to-cpu coroutine-lanes=1, sluice-run --gpu-coroutine-lanes=1); with shuffles, the lanes of a subgroup must agree, as on a GPU
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @odd_trips(%trips: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %tid = gpu.thread_id x
      %t32 = memref.load %trips[%tid] : memref<?xi32>
      %t = arith.index_cast %t32 : i32 to index
      scf.for %i = %c0 to %t step %c1 {
        gpu.barrier
      }
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c2 = arith.constant 2 : index
    %trips = memref.alloc(%c64) : memref<?xi32>
    scf.for %i = %c0 to %c64 step %c1 {
      %m = arith.remui %i, %c2 : index
      %v = arith.index_cast %m : index to i32
      memref.store %v, %trips[%i] : memref<?xi32>
    }
    gpu.launch_func @kernels::@odd_trips blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%trips : memref<?xi32>)
    memref.dealloc %trips : memref<?xi32>
    return
  }
}
