// A block size chosen at run time that exceeds the device's
// maxComputeWorkGroupInvocations (lavapipe and most GPUs: 1024; the spec's
// minimum is 128) fails before pipeline creation with both numbers. The CPU
// backend has no such limit: one block of 2048 lanes writes t at t, and the
// host adds them up: sum_{t<2048} t = 2096128.
//
// REQUIRES: vulkan
// RUN: sluice-run %s | FileCheck %s --check-prefix=CPU
// CPU: {{^}}2096128{{$}}
// RUN: %expect-exit 1 sluice-run --backend=vulkan %s 2>&1 | FileCheck %s --check-prefix=VULKAN
// VULKAN: sluice: vulkan: kernel @ids is launched with block 2048x1x1 (2048 invocations), but '{{.+}}' allows {{[0-9]+}} (maxComputeWorkGroupInvocations)
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  memref.global "private" constant @lanes : memref<1xi32> = dense<2048>
  gpu.module @k {
    gpu.func @ids(%b: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %v = arith.index_cast %t : index to i32
      memref.store %v, %b[%t] : memref<?xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %lanes = memref.get_global @lanes : memref<1xi32>
    %n32 = memref.load %lanes[%c0] : memref<1xi32>
    %n = arith.index_cast %n32 : i32 to index
    %b = memref.alloc(%n) : memref<?xi32>
    gpu.launch_func @k::@ids blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1) args(%b : memref<?xi32>)
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %v = memref.load %b[%i] : memref<?xi32>
      %vi = arith.index_cast %v : i32 to index
      %a = arith.addi %acc, %vi : index
      scf.yield %a : index
    }
    %s = arith.index_cast %sum : index to i64
    func.call @sluice_print_i64(%s) : (i64) -> ()
    return
  }
}
