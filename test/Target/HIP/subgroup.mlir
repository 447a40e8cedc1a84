// Shuffles on HIP read a lane by number through the prelude's SLUICE_SHFL
// (__shfl on AMD, __shfl_sync on NVIDIA); the subgroup is the device's
// warpSize, never a constant 32 or 64. A shuffle xor 1 of width 16 becomes
// the lane's source k ^ 1 when k and k ^ 1 are below min(16, warpSize).
// RUN: sluice-translate --sluice-to-hip %s | FileCheck %s
// RUN: sluice-translate --sluice-to-hip %s | FileCheck %s --check-prefix=PRELUDE
// CHECK: #define SLUICE_SHFL(value, lane) __shfl_sync(0xffffffffu, (value), (int)(lane))
// CHECK: #define SLUICE_SHFL(value, lane) __shfl((value), (int)(lane))
// CHECK-LABEL: void m_xor(
// CHECK: warpSize
// CHECK: SLUICE_LANE_ID()
// CHECK: SLUICE_SHFL(
// A reduction of an i32 over the whole subgroup is one call of the
// prelude's function (a REDUX instruction on NVIDIA from sm_80, else a
// butterfly of __shfl_xor over warpSize); one over a cluster, or of an f32,
// is a butterfly of shuffles of its own.
// CHECK-LABEL: void m_reduce(
// CHECK: sluice_subgroup_maxui(
// CHECK: sluice_subgroup_add(
// CHECK-NOT: sluice_subgroup_
// CHECK: SLUICE_SHFL(
// CHECK-LABEL: void m_ids(
// CHECK: warpSize
// CHECK-NOT: gpu.
// PRELUDE: #if (defined(__CUDACC_RTC__) || defined(__CUDACC__)) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// PRELUDE: return (int32_t)redux(__activemask(), (T)value);
// PRELUDE: #define SLUICE_SHFL_XOR(value, mask) __shfl_xor_sync(__activemask(), (value), (mask))
// PRELUDE: #define SLUICE_SHFL_XOR(value, mask) __shfl_xor((value), (mask))
// PRELUDE: for (int mask = 1; mask < warpSize; mask <<= 1)
// PRELUDE: SLUICE_SUBGROUP_REDUCE(maxui, uint32_t, __reduce_max_sync, (y > x ? y : x))
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @xor(%out: memref<?xf32>) kernel {
      %tid = gpu.thread_id x
      %i = arith.index_cast %tid : index to i32
      %v = arith.sitofp %i : i32 to f32
      %c1 = arith.constant 1 : i32
      %c16 = arith.constant 16 : i32
      %s, %ok = gpu.shuffle xor %v, %c1, %c16 : f32
      %zero = arith.constant 0.0 : f32
      %r = arith.select %ok, %s, %zero : f32
      memref.store %r, %out[%tid] : memref<?xf32>
      gpu.return
    }
    gpu.func @reduce(%out: memref<?xi32>, %fout: memref<?xf32>) kernel {
      %tid = gpu.thread_id x
      %i = arith.index_cast %tid : index to i32
      %m = gpu.subgroup_reduce maxui %i : (i32) -> i32
      %s = gpu.subgroup_reduce add %m : (i32) -> i32
      %c = gpu.subgroup_reduce add %s cluster(size = 4) : (i32) -> i32
      memref.store %c, %out[%tid] : memref<?xi32>
      %f = arith.sitofp %i : i32 to f32
      %fs = gpu.subgroup_reduce add %f : (f32) -> f32
      memref.store %fs, %fout[%tid] : memref<?xf32>
      gpu.return
    }
    gpu.func @ids(%out: memref<?xi64>) kernel {
      %tid = gpu.thread_id x
      %sg = gpu.subgroup_id : index
      %n = gpu.num_subgroups : index
      %sum = arith.addi %sg, %n : index
      %v = arith.index_cast %sum : index to i64
      memref.store %v, %out[%tid] : memref<?xi64>
      gpu.return
    }
  }
}
