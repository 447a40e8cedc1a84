// NaN and infinite float constants: the C++ printer writes them as NAN and
// INFINITY, which <math.h> defines for hipcc but NVRTC has no <math.h>, so
// the prelude defines both under __CUDACC_RTC__ (bit patterns of a quiet
// NaN and of +inf; -INFINITY is the negation). NVRTC rejected such a kernel
// before ("identifier NAN is undefined"; scripts/differential-lane-vectors
// --hip found it). test/Target/HIP/examples-{nvrtc,hipcc}.test compile it.
// RUN: sluice-translate --sluice-to-hip %s | FileCheck %s
// CHECK: #elif defined(__CUDACC_RTC__)
// CHECK: #define NAN __int_as_float(0x7fc00000)
// CHECK-NEXT: #define INFINITY __int_as_float(0x7f800000)
// CHECK-NEXT: #else
// CHECK-DAG: = NAN;
// CHECK-DAG: = INFINITY;
// CHECK-DAG: = -INFINITY;
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @specials(%out: memref<?xf32>, %wide: memref<?xf64>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %nan = arith.constant 0x7FC00000 : f32
      %inf = arith.constant 0x7F800000 : f32
      %ninf = arith.constant 0xFFF0000000000000 : f64
      memref.store %nan, %out[%c0] : memref<?xf32>
      memref.store %inf, %out[%c1] : memref<?xf32>
      memref.store %ninf, %wide[%c2] : memref<?xf64>
      gpu.return
    }
  }
}
