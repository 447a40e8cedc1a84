// gpu.warp_execute_on_lane_0 yielding a vector<16xi32> over warps of 8
// lanes: each lane gets 2 elements (vector<2xi32>, a vector type the CPU and
// SPIR-V keep; HIP kernels have none and refuse it). Warp w of the 16-lane
// block doubles in[16 w .. 16 w + 15] and lane l stores its elements 2 l and
// 2 l + 1 back at 16 w + 2 l: out[i] = 2 in[i] = 2 i, whose sum over i < 32
// is 2 * 496 = 992.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// CHECK: {{^}}992{{$}}
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @warps(%in: memref<?xi32>, %out: memref<?xi32>) kernel {
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c2 = arith.constant 2 : index
      %tx = gpu.thread_id x
      %lane = arith.remui %tx, %c8 : index
      %w = arith.divui %tx, %c8 : index
      %base = arith.muli %w, %c16 : index
      %pad = arith.constant 0 : i32
      %r = gpu.warp_execute_on_lane_0(%lane)[8] -> (vector<2xi32>) {
        %v = vector.transfer_read %in[%base], %pad {in_bounds = [true]} : memref<?xi32>, vector<16xi32>
        %two = arith.constant dense<2> : vector<16xi32>
        %v2 = arith.muli %v, %two : vector<16xi32>
        gpu.yield %v2 : vector<16xi32>
      }
      %l2 = arith.muli %lane, %c2 : index
      %at = arith.addi %base, %l2 : index
      vector.store %r, %out[%at] : memref<?xi32>, vector<2xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %in = memref.alloc(%c32) : memref<?xi32>
    %out = memref.alloc(%c32) : memref<?xi32>
    scf.for %i = %c0 to %c32 step %c1 {
      %ii = arith.index_cast %i : index to i32
      memref.store %ii, %in[%i] : memref<?xi32>
    }
    gpu.launch_func @kernels::@warps blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%in : memref<?xi32>, %out : memref<?xi32>)
    %z = arith.constant 0 : i64
    %s = scf.for %i = %c0 to %c32 step %c1 iter_args(%a = %z) -> (i64) {
      %v = memref.load %out[%i] : memref<?xi32>
      %v64 = arith.extsi %v : i32 to i64
      %n = arith.addi %a, %v64 : i64
      scf.yield %n : i64
    }
    func.call @sluice_print_i64(%s) : (i64) -> ()
    return
  }
}
