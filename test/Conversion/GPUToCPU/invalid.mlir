// RUN: sluice-opt %s --convert-gpu-to-cpu --split-input-file -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @print(%out: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      // expected-error @+1 {{'gpu.printf' op is not supported by the CPU backend (convert-gpu-to-cpu runs thread_id, block_id, block_dim, grid_dim, barrier, shuffle, the subgroup queries, subgroup_reduce and all_reduce)}}
      gpu.printf "lane %d\n", %tid : index
      gpu.return
    }
  }
}

// -----

// A shuffle inside scf.index_switch: neither fission nor lane-group
// coroutines cut its cases, and one coroutine per lane cannot exchange values.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @shuffle_in_switch(%out: memref<?xi32>, %which: index) kernel {
      %tid = gpu.thread_id x
      %v = arith.index_cast %tid : index to i32
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %r = scf.index_switch %which -> i32
      case 1 {
        // expected-error @+1 {{'gpu.shuffle' op cannot run on the CPU: the lanes of a subgroup exchange values between the lane loops of one coroutine, which this kernel cannot be split into (a gpu.shuffle is inside 'scf.index_switch')}}
        %s, %ok = gpu.shuffle xor %v, %c1, %c32 : i32
        scf.yield %s : i32
      }
      default {
        scf.yield %v : i32
      }
      memref.store %r, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @vector_reduce(%out: memref<?xf32>) kernel {
      %tid = gpu.thread_id x
      %v = arith.constant dense<1.0> : vector<2xf32>
      // expected-error @+1 {{'gpu.subgroup_reduce' op of type 'vector<2xf32>' is not supported: gpu.shuffle exchanges scalars on every backend (reduce each element)}}
      %r = gpu.subgroup_reduce add %v : (vector<2xf32>) -> vector<2xf32>
      %e = vector.extract %r[0] : f32 from vector<2xf32>
      memref.store %e, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @bool_all_reduce(%out: memref<?xi8>) kernel {
      %tid = gpu.thread_id x
      %t = arith.constant true
      // expected-error @+1 {{'gpu.all_reduce' op of type 'i1' is not supported: the expansion keeps one element per lane in workgroup memory, which needs an integer or float of 8 to 64 bits}}
      %r = gpu.all_reduce and %t {} : (i1) -> i1
      %e = arith.extui %r : i1 to i8
      memref.store %e, %out[%tid] : memref<?xi8>
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

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @two_block_region(%out: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      %v = arith.index_cast %tid : index to i32
      // expected-error @+1 {{'gpu.all_reduce' op without an operation needs a single-block region}}
      %r = gpu.all_reduce %v {
      ^bb0(%l: i32, %rr: i32):
        cf.br ^bb1
      ^bb1:
        %s = arith.addi %l, %rr : i32
        gpu.yield %s : i32
      } : (i32) -> i32
      memref.store %r, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
}
