// RUN: sluice-opt %s --convert-gpu-to-cpu -verify-diagnostics

// A barrier inside an scf.forall with tensor results: the lane coroutine
// needs a CFG around its suspend point, and SCF-to-CF lowers an scf.forall
// only once it has no results.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{cannot lower the structured control flow of kernel k for its lane coroutine}}
    gpu.func @k(%out: memref<?xi32>) kernel {
      %t = tensor.empty() : tensor<4xi32>
      // expected-error @+1 {{failed to legalize operation 'scf.forall' that was explicitly marked illegal}}
      %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<4xi32>) {
        gpu.barrier
        scf.forall.in_parallel {
        }
      }
      gpu.return
    }
  }
}
