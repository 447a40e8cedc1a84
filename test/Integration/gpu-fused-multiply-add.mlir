// Kernels of a gpu-dialect program fuse the multiply-adds that
// `fastmath<contract>` allows (sluice-host-to-llvm runs
// sluice-fuse-multiply-add first): thread l of 64 computes what lane l of
// Inputs/fused-multiply-add.mlir does (see there) and prints the four f32
// results' bits; Inputs/fused-multiply-add.py checks them against exact
// values (the three fused ones) and NumPy's twice-rounded one.
// differential: skip: Vulkan lets GL.Fma round twice (lavapipe does), docs/compiler.md
// RUN: sluice-run %s | %python %S/Inputs/fused-multiply-add.py - --lanes=64 | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | %python %S/Inputs/fused-multiply-add.py - --lanes=64 | FileCheck %s
// CHECK: 64 lanes match; the rounded product differs in {{[1-9][0-9]*}}
// The HIP source fuses the same three (NVRTC compiles with --fmad=false, so
// without the pass it would fuse none).
// RUN: sluice-opt --sluice-host-to-llvm="backend=hip" %s | FileCheck %s --check-prefix=HIP
// HIP-COUNT-3: fmaf(
// HIP-NOT: fmaf(
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @fma(%out: memref<256xf32>) kernel {
      %i = gpu.thread_id x
      %lane = arith.index_cast %i : index to i32
      %one = arith.constant 1.0 : f32
      %two = arith.constant 2.0 : f32
      %step = arith.constant 2.44140625e-04 : f32
      %l1 = arith.constant 1 : i32
      %n = arith.addi %lane, %l1 : i32
      %nf = arith.uitofp %n : i32 to f32
      %e = arith.mulf %nf, %step : f32
      %a = arith.addf %one, %e : f32
      %e2 = arith.mulf %e, %two : f32
      %c = arith.addf %one, %e2 : f32
      %nc = arith.negf %c : f32
      %p = arith.mulf %a, %a fastmath<contract> : f32
      %q = arith.mulf %a, %a : f32
      %r0 = arith.addf %p, %nc fastmath<contract> : f32
      %r1 = arith.subf %p, %c fastmath<contract> : f32
      %r2 = arith.subf %c, %p fastmath<contract> : f32
      %r3 = arith.subf %q, %c : f32
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %i0 = arith.muli %i, %c4 : index
      %i1 = arith.addi %i0, %c1 : index
      %i2 = arith.addi %i0, %c2 : index
      %i3 = arith.addi %i0, %c3 : index
      memref.store %r0, %out[%i0] : memref<256xf32>
      memref.store %r1, %out[%i1] : memref<256xf32>
      memref.store %r2, %out[%i2] : memref<256xf32>
      memref.store %r3, %out[%i3] : memref<256xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %out = memref.alloc() : memref<256xf32>
    gpu.launch_func @kernels::@fma blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%out : memref<256xf32>)
    scf.for %j = %c0 to %c256 step %c1 {
      %v = memref.load %out[%j] : memref<256xf32>
      %bits = arith.bitcast %v : f32 to i32
      %wide = arith.extui %bits : i32 to i64
      func.call @sluice_print_i64(%wide) : (i64) -> ()
    }
    return
  }
}
