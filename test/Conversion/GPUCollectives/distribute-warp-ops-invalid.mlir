// RUN: sluice-opt --sluice-distribute-warp-ops --split-input-file --verify-diagnostics %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 48, 1, 1>} {
      %tx = gpu.thread_id x
      %c32 = arith.constant 32 : index
      %lane = arith.remui %tx, %c32 : index
      // expected-error @+1 {{'gpu.warp_execute_on_lane_0' op has warp size 32, which does not divide the 48 lanes of the kernel's block: every warp must be whole}}
      gpu.warp_execute_on_lane_0(%lane)[32] {
        %c0 = arith.constant 0 : index
        %one = arith.constant 1.0 : f32
        memref.store %one, %out[%c0] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @helper(%out: memref<?xf32>) {
      %tx = gpu.thread_id x
      %c32 = arith.constant 32 : index
      %lane = arith.remui %tx, %c32 : index
      // expected-error @+1 {{'gpu.warp_execute_on_lane_0' op outside a gpu.func kernel: its buffers are workgroup attributions of the kernel}}
      gpu.warp_execute_on_lane_0(%lane)[32] {
        %c0 = arith.constant 0 : index
        %one = arith.constant 1.0 : f32
        memref.store %one, %out[%c0] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tx = gpu.thread_id x
      %c32 = arith.constant 32 : index
      %lane = arith.remui %tx, %c32 : index
      gpu.warp_execute_on_lane_0(%lane)[32] {
        // expected-error @+1 {{'gpu.warp_execute_on_lane_0' op nested in another gpu.warp_execute_on_lane_0}}
        gpu.warp_execute_on_lane_0(%lane)[32] {
          %c0 = arith.constant 0 : index
          %one = arith.constant 1.0 : f32
          memref.store %one, %out[%c0] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
}
