// RUN: sluice-opt %s --convert-gpu-to-cpu --split-input-file -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @shuffle(%out: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      %v = arith.index_cast %tid : index to i32
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      // expected-error @+1 {{'gpu.shuffle' op is not supported by the CPU backend (convert-gpu-to-cpu runs thread_id, block_id, block_dim, grid_dim and barrier; lanes run one at a time, so subgroup operations have no lowering)}}
      %s, %ok = gpu.shuffle xor %v, %c1, %c32 : i32
      memref.store %s, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @reduce(%out: memref<?xf32>) kernel {
      %tid = gpu.thread_id x
      %v = arith.constant 1.0 : f32
      // expected-error @+1 {{'gpu.subgroup_reduce' op is not supported by the CPU backend}}
      %r = gpu.subgroup_reduce add %v : (f32) -> f32
      memref.store %r, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @lane(%out: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      // expected-error @+1 {{'gpu.lane_id' op is not supported by the CPU backend}}
      %lane = gpu.lane_id
      %v = arith.index_cast %lane : index to i32
      memref.store %v, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{'gpu.func' op is not a kernel; convert-gpu-to-cpu lowers only kernels (inline device functions first)}}
    gpu.func @helper(%x: i32) {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{'func.func' op in a gpu.module is not supported by the CPU backend; only gpu.func kernels are}}
    func.func @helper() {
      return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{'gpu.func' op memory attribution of type 'memref<4x?xf32, #gpu.address_space<workgroup>>' is not supported on the CPU: it needs a static shape, an identity layout and an integer, float or vector element type}}
    gpu.func @dynamic(%out: memref<?xf32>)
        workgroup(%buf: memref<4x?xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    // expected-error @+1 {{the CPU backend runs launches synchronously; this launch is async}}
    %t1 = gpu.launch_func async [%t0] @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 64 : i32
    // expected-error @+1 {{dynamic shared memory is not supported by the CPU backend; use a workgroup attribution}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %bytes
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  gpu.module @b {
    // expected-error @+1 {{'gpu.func' op two kernels named k cannot both be lowered: block functions are named by kernel}}
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{cluster launches are not supported by the CPU backend}}
    gpu.launch_func @m::@k clusters in (%c1, %c1, %c1) blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// A memref whose layout is not strided has no descriptor the block function
// could read.
#transposed = affine_map<(d0, d1) -> (d1 * 4 + d0 floordiv 2)>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<4x4xf32, #transposed>) kernel {
      gpu.return
    }
  }
  func.func @host(%a: memref<4x4xf32, #transposed>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #0 of type 'memref<4x4xf32, affine_map<(d0, d1) -> (d1 * 4 + d0 floordiv 2)>>' has a layout the CPU backend cannot pass: a strided layout is needed}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4x4xf32, #transposed>)
    return
  }
}

// -----

// A vector scalar has no place in the argument record.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%v: vector<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @host(%v: vector<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{operand #0 of type 'vector<4xf32>' cannot be passed to a CPU kernel (scalars: integers, floats and index of 1 to 64 bits)}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%v : vector<4xf32>)
    return
  }
}
