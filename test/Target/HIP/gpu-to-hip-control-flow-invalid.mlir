// RUN: sluice-opt %s --sluice-gpu-to-hip -verify-diagnostics

// Branches that are not cf ops: transformCFGToSCF structures cf.br,
// cf.cond_br and cf.switch only.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'gpu.func' op control flow could not be structured for HIP C++}}
    gpu.func @k(%out: memref<?xi32>, %n: i32) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %cond = arith.cmpi sgt, %n, %zero : i32
      // expected-error @+1 {{'llvm.cond_br' op is a branch that is not a cf op; only cf.br, cf.cond_br and cf.switch can be structured for HIP C++}}
      llvm.cond_br %cond, ^bb1, ^bb2
    ^bb1:
      memref.store %n, %out[%c0] : memref<?xi32>
      llvm.br ^bb2
    ^bb2:
      gpu.return
    }
  }
}
