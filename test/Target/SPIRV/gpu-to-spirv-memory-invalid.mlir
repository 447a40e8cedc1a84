// Errors of sluice-gpu-to-spirv for memory it cannot place, and for control
// flow it cannot structure.
// RUN: sluice-opt %s --sluice-gpu-to-spirv -split-input-file -verify-diagnostics

// A frame field view used other than by memref.load and memref.store.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%frames: memref<?xi8>, %out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %f = memref.view %frames[%c0][] : memref<?xi8> to memref<2xi32>
      // expected-error @+1 {{'memref.cast' op uses a frame field view; the SPIR-V backend supports only memref.load and memref.store of frame fields}}
      %d = memref.cast %f : memref<2xi32> to memref<?xi32>
      %v = memref.load %d[%c0] : memref<?xi32>
      memref.store %v, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

// A private array above max-private-bytes (16384) moves to scratch memory,
// where only loads and stores are re-indexed: 8192 x 4 bytes = 32768.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi32>) private(%p: memref<8192xi32, #gpu.address_space<private>>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{'memref.subview' op uses a private array of 32768 bytes per invocation, which moves to scratch memory; only memref.load and memref.store can be rewritten there}}
      %s = memref.subview %p[0] [4] [1] : memref<8192xi32, #gpu.address_space<private>> to memref<4xi32, strided<[1]>, #gpu.address_space<private>>
      %v = memref.load %s[%c0] : memref<4xi32, strided<[1]>, #gpu.address_space<private>>
      memref.store %v, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}

// -----

// Private and workgroup attributions need an identity layout.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'gpu.func' op private attribution 0 of type 'memref<4xi32, strided<[2]>, #gpu.address_space<private>>' has no static identity-layout shape}}
    gpu.func @k(%out: memref<?xi32>) private(%p: memref<4xi32, strided<[2]>, #gpu.address_space<private>>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'gpu.func' op workgroup attribution 0 of type 'memref<4xi32, strided<[2]>, #gpu.address_space<workgroup>>' has no static identity-layout shape}}
    gpu.func @k(%out: memref<?xi32>) workgroup(%w: memref<4xi32, strided<[2]>, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}

// -----

// A compare-and-swap whose expected value is computed inside the atomic body.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%buf: memref<?xi32>, %a: i32, %b: i32) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @+2 {{'memref.generic_atomic_rmw' op compare-and-swap operands must be constants or defined outside the atomic body}}
      // expected-error @+1 {{failed to legalize operation 'memref.generic_atomic_rmw'}}
      %old = memref.generic_atomic_rmw %buf[%c0] : memref<?xi32> {
      ^bb0(%x: i32):
        %e = arith.addi %a, %b : i32
        %eq = arith.cmpi eq, %x, %e : i32
        %r = arith.select %eq, %b, %x : i32
        memref.atomic_yield %r : i32
      }
      gpu.return
    }
  }
}

// -----

// Branches that are not cf ops: transformCFGToSCF structures cf.br,
// cf.cond_br and cf.switch only, and is not started on others (it left the
// region half rewritten, and the heap corrupted: valgrind saw a write to a
// freed operation).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'gpu.func' op control flow could not be structured for SPIR-V Shader}}
    gpu.func @k(%out: memref<?xi32>, %n: i32) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %cond = arith.cmpi sgt, %n, %zero : i32
      // expected-error @+1 {{'llvm.cond_br' op is a branch that is not a cf op; only cf.br, cf.cond_br and cf.switch can be structured for SPIR-V}}
      llvm.cond_br %cond, ^bb1, ^bb2
    ^bb1:
      memref.store %n, %out[%c0] : memref<?xi32>
      llvm.br ^bb2
    ^bb2:
      gpu.return
    }
  }
}
