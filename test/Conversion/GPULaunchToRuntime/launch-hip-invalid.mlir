// RUN: sluice-opt --convert-gpu-launch-to-runtime=backend=hip -split-input-file -verify-diagnostics %s

// What a HIP kernel cannot take (HIPABI.h): memref operands outside the
// default memory space, memref elements and scalars without a C type.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<4xi32, 1>) kernel {
      gpu.return
    }
  }
  func.func @main(%out: memref<4xi32, 1>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #0 of type 'memref<4xi32, 1>' needs an identity layout in the default memory space to be passed to a HIP kernel as a pointer}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<4xi32, 1>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<4xcomplex<f32>>) kernel {
      gpu.return
    }
  }
  func.func @main(%out: memref<4xcomplex<f32>>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #0 has element type 'complex<f32>', which a HIP kernel does not take (integers of 1 to 64 bits, f32, f64, index)}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<4xcomplex<f32>>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%h: f16) kernel {
      gpu.return
    }
  }
  func.func @main(%h: f16) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #0 of type 'f16' cannot be passed to a HIP kernel (scalars: integers, f32, f64 and index)}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%h : f16)
    return
  }
}
