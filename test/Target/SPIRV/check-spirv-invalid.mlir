// What SPIR-V Shader cannot express is rejected by sluice-check-spirv (the
// first pass of sluice-to-spirv), at the op, with the reason.
// RUN: sluice-opt %s --sluice-check-spirv -split-input-file -verify-diagnostics
// RUN: sluice-opt %s --sluice-to-spirv -split-input-file -verify-diagnostics

// Recursion: a function that calls itself.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @fact(%n: i32) -> i32 {
      %c1 = arith.constant 1 : i32
      %m = arith.subi %n, %c1 : i32
      // expected-error @below {{'func.call' op recursion: @fact is reachable from itself through this call; SPIR-V Shader has no recursion}}
      %r = func.call @fact(%m) : (i32) -> i32
      %p = arith.muli %n, %r : i32
      return %p : i32
    }
    gpu.func @k(%out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c5 = arith.constant 5 : i32
      %v = func.call @fact(%c5) : (i32) -> i32
      memref.store %v, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

// Recursion through two functions: the call that closes the cycle is named.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @even(%n: i32) -> i32 {
      %r = func.call @odd(%n) : (i32) -> i32
      return %r : i32
    }
    func.func @odd(%n: i32) -> i32 {
      // expected-error @below {{'func.call' op recursion: @even is reachable from itself through this call; SPIR-V Shader has no recursion}}
      %r = func.call @even(%n) : (i32) -> i32
      return %r : i32
    }
    gpu.func @k(%out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : i32
      %v = func.call @even(%c1) : (i32) -> i32
      memref.store %v, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

// Irreducible control flow: the cycle ^a <-> ^b can be entered at either block.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      %zero = arith.constant 0 : index
      %odd = arith.cmpi ne, %tid, %zero : index
      cf.cond_br %odd, ^a, ^b
    ^a:
      %v = memref.load %out[%c0] : memref<?xi32>
      %stop = arith.cmpi eq, %v, %v : i32
      cf.cond_br %stop, ^exit, ^b
    ^b:
      // expected-error @below {{'cf.br' op irreducible control flow: this branch closes a cycle whose header does not dominate it (the cycle has more than one entry); SPIR-V Shader needs structured control flow}}
      cf.br ^a
    ^exit:
      gpu.return
    }
  }
}

// -----

// Dynamic allocation: memref.alloc (no heap in a shader).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi32>) kernel {
      // expected-error @below {{'memref.alloc' op dynamic allocation: SPIR-V Shader has no heap; use a workgroup attribution or a buffer argument}}
      %tmp = memref.alloc() : memref<16xi32>
      %c0 = arith.constant 0 : index
      %v = memref.load %tmp[%c0] : memref<16xi32>
      memref.store %v, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

// Dynamic allocation: an alloca whose size is only known at run time.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi32>, %n: index) kernel {
      // expected-error @below {{'memref.alloca' op dynamic allocation: a Function-storage variable needs a static shape in SPIR-V Shader}}
      %tmp = memref.alloca(%n) : memref<?xi32>
      %c0 = arith.constant 0 : index
      %v = memref.load %tmp[%c0] : memref<?xi32>
      memref.store %v, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

// Function pointers: func.constant and the indirect call through it.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @twice(%x: i32) -> i32 {
      %r = arith.addi %x, %x : i32
      return %r : i32
    }
    gpu.func @k(%out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : i32
      // expected-error @below {{'func.constant' op function pointer: SPIR-V Shader has no function pointers or indirect calls}}
      %f = func.constant @twice : (i32) -> i32
      // expected-error @below {{'func.call_indirect' op function pointer: SPIR-V Shader has no function pointers or indirect calls}}
      %v = func.call_indirect %f(%c1) : (i32) -> i32
      memref.store %v, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

// 64-bit transcendentals: GLSL.std.450 has exp, sin, pow, ... for 16- and
// 32-bit floats only (sqrt, floor, fma of f64 are fine).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf64>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %out[%c0] : memref<?xf64>
      %r = math.sqrt %x : f64
      // expected-error @below {{'math.exp' op 64-bit transcendental: SPIR-V's GLSL.std.450 has this function for 16- and 32-bit floats only; compute it in f32 or run on the CPU backend}}
      %e = math.exp %r : f64
      // expected-error @below {{'math.powf' op 64-bit transcendental: SPIR-V's GLSL.std.450 has this function for 16- and 32-bit floats only; compute it in f32 or run on the CPU backend}}
      %p = math.powf %e, %x : f64
      memref.store %p, %out[%c0] : memref<?xf64>
      gpu.return
    }
  }
}

// -----

// bf16 has no SPIR-V type for Vulkan here; upstream's converter would widen
// it to f32 silently (2-byte elements read as 4-byte ones).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{'gpu.func' op bf16 in a kernel: SPIR-V has no bfloat16 type for Vulkan without SPV_KHR_bfloat16, which this backend does not use; hold the values as f32 (or as i16 bits), or run on the CPU backend}}
    gpu.func @k(%in: memref<?xbf16>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %in[%c0] : memref<?xbf16>
      %y = arith.extf %x : bf16 to f32
      memref.store %y, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// f16 inside a kernel without the capabilities of the default environment.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %out[%c0] : memref<?xf32>
      // expected-error @below {{'arith.truncf' op f16 in a kernel needs the Float16 and StorageBuffer16BitAccess capabilities (Vulkan shaderFloat16 and storageBuffer16BitAccess), which the target environment lacks: SPIR-V would hold the value in an f32 and read 2-byte elements as 4-byte ones; compute in f32 or give the module a spirv.target_env with both}}
      %h = arith.truncf %x : f32 to f16
      %y = arith.extf %h : f16 to f32
      memref.store %y, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// An OpenCL target environment: the backend writes Vulkan compute shaders
// (before this check, the first memref.load failed to legalize).
module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.2, [Kernel, Addresses, Int64], []>, api=OpenCL, #spirv.resource_limits<>>} {
  // expected-error @below {{'gpu.module' op spirv.target_env is for OpenCL: the SPIR-V backend writes Vulkan compute shaders (api=Vulkan, the Shader capability)}}
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %out[%c0] : memref<?xf32>
      memref.store %x, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// A Vulkan environment without Shader.
module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [Int64], []>, api=Vulkan, #spirv.resource_limits<>>} {
  // expected-error @below {{'gpu.module' op spirv.target_env lacks the Shader capability: the SPIR-V backend writes Vulkan compute shaders}}
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// 64-bit erf: GLSL.std.450 and upstream's polynomial are 32-bit.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf64>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %out[%c0] : memref<?xf64>
      // expected-error @below {{'math.erf' op 64-bit transcendental: SPIR-V's GLSL.std.450 has this function for 16- and 32-bit floats only; compute it in f32 or run on the CPU backend}}
      %y = math.erf %x : f64
      memref.store %y, %out[%c0] : memref<?xf64>
      gpu.return
    }
  }
}

// -----

// A buffer of 3-vectors: Vulkan's layout aligns a vec3 like a vec4, so the
// array stride of 12 fails spirv-val (found by sluice-fuzz-lowering: a wave
// program whose lane argument is a vector<3xi32>). A buffer of 4-vectors is
// fine.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{'gpu.func' op takes a buffer of vector<3xi32>: Vulkan's storage-buffer layout aligns a 3-vector like a 4-vector, so its array stride is not allowed; use a 4-vector or three scalars}}
    gpu.func @k(%in: memref<?xvector<3xi32>>, %ok: memref<?xvector<4xi32>>) kernel {
      gpu.return
    }
  }
}
