// Errors of sluice-gpu-to-spirv for vector ops and buffer extents Vulkan
// kernels cannot have (docs/gpu-kernels.md).
// RUN: sluice-opt %s --sluice-gpu-to-spirv -split-input-file -verify-diagnostics

// A vector op that upstream's unrolling does not split (elementwise ops and
// reductions of 8 elements are split into halves).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %out[%c0] : memref<?xf32>
      // expected-error @+1 {{'vector.broadcast' op on 'vector<8xf32>': SPIR-V vectors have 2 to 4 elements and one dimension, and this op on a larger vector is not split (elementwise ops, reductions and transfers are); use vectors of at most 4 elements}}
      %v = vector.broadcast %x : f32 to vector<8xf32>
      %r = vector.reduction <add>, %v : vector<8xf32> into f32
      memref.store %r, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// The extent of a dynamic buffer argument (here what a transfer that is not
// in_bounds checks).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%in: memref<?xf32>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %pad = arith.constant 0.0 : f32
      // expected-error @+1 {{'memref.dim' op of a buffer argument: a Vulkan kernel is not given its storage buffers' lengths; pass the extent as an argument (or mark a vector transfer in_bounds)}}
      %v = vector.transfer_read %in[%c0], %pad : memref<?xf32>, vector<2xf32>
      %r = vector.reduction <add>, %v : vector<2xf32> into f32
      memref.store %r, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}
