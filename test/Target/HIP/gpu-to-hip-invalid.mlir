// What the HIP lowering does not express is an error at the op, naming it
// and the reason (docs/hip-backend.md, "Unsupported").
// RUN: sluice-opt --sluice-gpu-to-hip-emitc -split-input-file -verify-diagnostics %s

gpu.module @m {
  gpu.func @k(%a: memref<4xf32>, %x: f32) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'memref.atomic_rmw' op 'mulf' on 'f32' has no HIP atomic (atomicAdd/Max/Min/And/Or/Xor/Exch on 32- and 64-bit integers, atomicAdd on f32/f64, atomicExch on f32)}}
    %0 = memref.atomic_rmw mulf %x, %a[%c0] : (f32, memref<4xf32>) -> f32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<4xi32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'memref.generic_atomic_rmw' op is lowered to HIP only in compare-and-swap form on 32- or 64-bit integers (yield select(cmpi eq(%old, expected), desired, %old))}}
    %0 = memref.generic_atomic_rmw %a[%c0] : memref<4xi32> {
    ^bb0(%old: i32):
      %sum = arith.addi %old, %old : i32
      memref.atomic_yield %sum : i32
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%n: index) kernel {
    // expected-error @+1 {{'memref.alloca' op with a dynamic shape is not lowered to HIP (local and __shared__ arrays have constant sizes)}}
    %a = memref.alloca(%n) : memref<?xf32>
    %x = arith.constant 1.0 : f32
    memref.store %x, %a[%n] : memref<?xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'gpu.func' op argument #0 of type 'f8E5M2' has no HIP parameter type (index, integers of 1 to 64 bits, f16, bf16, f32, f64 and memrefs of them)}}
  gpu.func @k(%h: f8E5M2) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<?xf32>, %d: index) kernel {
    // expected-error @+1 {{'memref.dim' op with a non-constant dimension is not lowered to HIP}}
    %n = memref.dim %a, %d : memref<?xf32>
    %x = arith.constant 1.0 : f32
    memref.store %x, %a[%n] : memref<?xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<?xf32>, %b: memref<?xf32>, %c: i1) kernel {
    %m = arith.select %c, %a, %b : memref<?xf32>
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'memref.dim' op of a memref that is not a kernel argument, a memref.view or a memref.alloca is not lowered to HIP: the C pointer has no extents}}
    %n = memref.dim %m, %c0 : memref<?xf32>
    %x = arith.constant 1.0 : f32
    memref.store %x, %a[%n] : memref<?xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<8x8xf32>) kernel {
    // expected-error @+1 {{'memref.subview' op of type 'memref<4xf32, strided<[2]>>' is not a contiguous row-major view; the HIP lowering passes memrefs as row-major pointers}}
    %s = memref.subview %a[0, 0] [1, 4] [1, 2] : memref<8x8xf32> to memref<4xf32, strided<[2]>>
    %c0 = arith.constant 0 : index
    %x = memref.load %s[%c0] : memref<4xf32, strided<[2]>>
    memref.store %x, %a[%c0, %c0] : memref<8x8xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'gpu.func' op argument #0 of type 'memref<4xf32, strided<[2]>>' is not contiguous and row-major; the HIP lowering passes memrefs as row-major pointers}}
  gpu.func @k(%a: memref<4xf32, strided<[2]>>) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<8xf32>) kernel {
    // expected-error @+1 {{'memref.reinterpret_cast' op result of type 'memref<4xf32, strided<[2]>>' is not contiguous and row-major; the HIP lowering passes memrefs as row-major pointers}}
    %r = memref.reinterpret_cast %a to offset: [0], sizes: [4], strides: [2] : memref<8xf32> to memref<4xf32, strided<[2]>>
    %c0 = arith.constant 0 : index
    %x = memref.load %r[%c0] : memref<4xf32, strided<[2]>>
    memref.store %x, %a[%c0] : memref<8xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<4xi8>, %b: memref<4xi1>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<4xi8>
    // expected-error @+1 {{'arith.bitcast' op from 'i8' to 'f8E5M2' is not lowered to HIP (f32 <-> i32, f64 <-> i64, f16 and bf16 <-> i16)}}
    %y = arith.bitcast %x : i8 to f8E5M2
    %z = arith.cmpf oeq, %y, %y : f8E5M2
    memref.store %z, %b[%c0] : memref<4xi1>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<4xf32>) kernel {
    // expected-error @+1 {{'ub.poison' op of type 'memref<4xf32>' is not lowered to HIP}}
    %p = ub.poison : memref<4xf32>
    %c0 = arith.constant 0 : index
    %x = memref.load %p[%c0] : memref<4xf32>
    memref.store %x, %a[%c0] : memref<4xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  memref.global "private" constant @table : memref<4xi32> = dense<[1, 2, 3, 4]>
  gpu.func @k(%out: memref<4xi32>) kernel {
    // expected-error @+1 {{'memref.get_global' op of @table is not lowered to HIP (only uninitialized globals in workgroup memory, as __shared__ arrays)}}
    %t = memref.get_global @table : memref<4xi32>
    %c0 = arith.constant 0 : index
    %v = memref.load %t[%c0] : memref<4xi32>
    memref.store %v, %out[%c0] : memref<4xi32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %v = arith.constant dense<1.0> : vector<2xf32>
    // expected-error @+1 {{'gpu.shuffle' op of type 'vector<2xf32>' is not supported by the HIP backend: __shfl exchanges 32- and 64-bit integers and floats}}
    %s, %ok = gpu.shuffle xor %v, %c1, %c32 : vector<2xf32>
    %e = vector.extract %s[0] : f32 from vector<2xf32>
    memref.store %e, %a[%c0] : memref<4xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%out: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    // expected-error @+1 {{'memref.alloc' op in a kernel is not lowered to HIP (no device heap): use memref.alloca for a private array, a workgroup attribution for shared memory, or a buffer argument}}
    %a = memref.alloc(%c4) : memref<?xf32>
    %v = memref.load %a[%c0] : memref<?xf32>
    memref.store %v, %out[%c0] : memref<?xf32>
    gpu.return
  }
}

// -----

// A vector op: the emitted C++ has only scalars.
gpu.module @m {
  gpu.func @k(%a: memref<8xf32>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<8xf32>
    // expected-error @+1 {{'vector.broadcast' op on 'vector<4xf32>': the HIP backend writes scalar C++ and has no vector types; compute each element as a scalar}}
    %v = vector.broadcast %x : f32 to vector<4xf32>
    %r = vector.reduction <add>, %v : vector<4xf32> into f32
    memref.store %r, %a[%c0] : memref<8xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<4xf32>, %b: memref<4xf16>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<4xf32>
    // expected-error @+1 {{'arith.truncf' op with a rounding mode is not lowered to HIP (half floats round to nearest even)}}
    %y = arith.truncf %x to_nearest_away : f32 to f16
    memref.store %y, %b[%c0] : memref<4xf16>
    gpu.return
  }
}
