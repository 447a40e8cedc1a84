// A kernel whose workgroup memory (1 MiB: 262144 x i32) exceeds any Vulkan
// device's maxComputeSharedMemorySize (the spec's minimum is 16 KiB; GPUs
// offer 32 to 228 KiB) fails before pipeline creation with the numbers, not
// with a driver error. The CPU backend has no such limit: each of the 2
// blocks of 256 lanes writes w[t * 1024] = t, and lane 0 adds them up after
// the barrier: sum_{t<256} t = 32640 per block, printed for block 1.
//
// REQUIRES: vulkan
// RUN: sluice-run %s | FileCheck %s --check-prefix=CPU
// CPU: {{^}}32640{{$}}
// RUN: %expect-exit 1 sluice-run --backend=vulkan %s 2>&1 | FileCheck %s --check-prefix=VULKAN
// VULKAN: sluice: vulkan: kernel @big uses 1048576 bytes of workgroup memory, but '{{.+}}' allows {{[0-9]+}} (maxComputeSharedMemorySize)
//
// The lowering passes the size once per launch.
// RUN: sluice-opt --convert-gpu-launch-to-runtime %s | FileCheck %s --check-prefix=HOST
// HOST: call @sluice_rt_launch_begin
// HOST-NEXT: %[[BYTES:.*]] = arith.constant 1048576 : i64
// HOST-NEXT: call @sluice_rt_launch_workgroup_memory(%[[BYTES]])

module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)

  gpu.module @kernels {
    gpu.func @big(%out: memref<?xi64>)
        workgroup(%w: memref<262144xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %c1024 = arith.constant 1024 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %slot = arith.muli %tid, %c1024 : index
      %t32 = arith.index_cast %tid : index to i32
      memref.store %t32, %w[%slot] : memref<262144xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %zero = arith.constant 0 : i64
        %sum = scf.for %t = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (i64) {
          %at = arith.muli %t, %c1024 : index
          %v = memref.load %w[%at] : memref<262144xi32, #gpu.address_space<workgroup>>
          %v64 = arith.extui %v : i32 to i64
          %next = arith.addi %acc, %v64 : i64
          scf.yield %next : i64
        }
        memref.store %sum, %out[%bid] : memref<?xi64>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc(%c2) : memref<?xi64>
    gpu.launch_func @kernels::@big blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%out : memref<?xi64>)
    %r = memref.load %out[%c1] : memref<?xi64>
    func.call @sluice_print_i64(%r) : (i64) -> ()
    memref.dealloc %out : memref<?xi64>
    return
  }
}
