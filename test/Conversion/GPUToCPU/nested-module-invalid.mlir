// RUN: sluice-opt %s --convert-gpu-to-cpu -verify-diagnostics

// A launch in a nested module verifies (its gpu.module is in the nearest
// symbol table), but the pass lowers the kernels of top-level gpu.modules.
module {
  module @inner attributes {gpu.container_module} {
    gpu.module @kernels {
      gpu.func @k(%out: memref<?xi32>) kernel {
        gpu.return
      }
    }
    func.func @main(%out: memref<?xi32>) {
      %c1 = arith.constant 1 : index
      // expected-error @+1 {{'gpu.launch_func' op launches @kernels::@k, which is not a kernel of a top-level gpu.module; convert-gpu-to-cpu lowers those only}}
      gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%out : memref<?xi32>)
      return
    }
  }
}
