// RUN: sluice-opt --convert-gpu-launch-to-runtime -verify-diagnostics %s

// A launch in a nested module verifies (its gpu.module is in the nearest
// symbol table), but the pass lowers the top-level gpu.modules only, so no
// SPIR-V exists for it.
module {
  module @inner attributes {gpu.container_module} {
    gpu.module @kernels {
      gpu.func @k(%out: memref<?xi32>) kernel {
        gpu.return
      }
    }
    func.func @main(%out: memref<?xi32>) {
      %c1 = arith.constant 1 : index
      // expected-error @+1 {{no SPIR-V module was produced for @kernels: only the gpu.modules of the top-level module are converted}}
      gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%out : memref<?xi32>)
      return
    }
  }
}
