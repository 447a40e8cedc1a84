// RUN: sluice-opt --convert-gpu-launch-to-runtime -split-input-file -verify-diagnostics %s

// Each launch the pass rejects (include/sluice/Conversion/Passes.td): async
// launches, dynamic shared memory, memref operands with a non-identity layout
// or a memory space, memref elements of index or i1 type, and scalar
// operands that are not integers, floats or index (here i1).

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi32>) kernel {
      gpu.return
    }
  }
  func.func @main(%out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    // expected-error @+1 {{the Vulkan backend runs launches synchronously; this launch is async}}
    %done = gpu.launch_func async [%t] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<?xi32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi32>) kernel {
      gpu.return
    }
  }
  func.func @main(%out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %shm = arith.constant 1024 : i32
    // expected-error @+1 {{dynamic shared memory is not supported by the Vulkan backend}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        dynamic_shared_memory_size %shm args(%out : memref<?xi32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<4xi32, strided<[2]>>) kernel {
      gpu.return
    }
  }
  func.func @main(%out: memref<4xi32, strided<[2]>>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #0 of type 'memref<4xi32, strided<[2]>>' needs an identity layout in the default memory space to be copied to a Vulkan buffer}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<4xi32, strided<[2]>>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xindex>) kernel {
      gpu.return
    }
  }
  func.func @main(%out: memref<?xindex>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #0 has element type 'index', whose SPIR-V storage width differs from the host's; use i8/i16/i32/i64 or f16/f32/f64 elements}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<?xindex>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi1>) kernel {
      gpu.return
    }
  }
  func.func @main(%out: memref<?xi1>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #0 has element type 'i1', whose SPIR-V storage width differs from the host's}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<?xi1>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi32>, %flag: i1) kernel {
      gpu.return
    }
  }
  func.func @main(%out: memref<?xi32>, %flag: i1) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #1 of type 'i1' cannot be passed to a Vulkan kernel (scalars: integers, floats and index of 8 to 64 bits)}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<?xi32>, %flag : i1)
    return
  }
}

// -----

// Launches are checked before the kernels are lowered, so a vector operand is
// reported at the launch.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf32>, %v: vector<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @main(%out: memref<?xf32>, %v: vector<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #1 of type 'vector<4xf32>' cannot be passed to a Vulkan kernel (scalars: integers, floats and index of 8 to 64 bits)}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%out : memref<?xf32>, %v : vector<4xf32>)
    return
  }
}

