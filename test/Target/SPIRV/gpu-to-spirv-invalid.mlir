// Errors of sluice-gpu-to-spirv for gpu code it cannot lower.
// RUN: sluice-opt %s --sluice-gpu-to-spirv -split-input-file -verify-diagnostics

// A general atomic read-modify-write (only the compare-and-swap form has a
// SPIR-V instruction).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%buf: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{'memref.generic_atomic_rmw' op is not a compare-and-swap (select(cmpi eq(%x, expected), desired, %x)); SPIR-V has no general atomic read-modify-write loop}}
      // expected-error @below {{failed to legalize operation 'memref.generic_atomic_rmw'}}
      %old = memref.generic_atomic_rmw %buf[%c0] : memref<?xi32> {
      ^bb0(%x: i32):
        %y = arith.muli %x, %x : i32
        memref.atomic_yield %y : i32
      }
      gpu.return
    }
  }
}

// -----

// A 16-bit float frame field (frame fields are accessed as 32-bit words;
// narrow integers are shifted and masked, narrow floats are not supported).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%frames: memref<?xi8>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{'memref.view' op frame field of type 'memref<1xf16>': the SPIR-V backend accesses frame fields as 32-bit words and supports integers of up to 64 bits and 32- and 64-bit floats only}}
      %f = memref.view %frames[%c0][] : memref<?xi8> to memref<1xf16>
      %v = memref.load %f[%c0] : memref<1xf16>
      %w = arith.extf %v : f16 to f32
      memref.store %w, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}
