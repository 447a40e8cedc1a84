// Counter adds from every lane of 1,000 blocks of 64 lanes (64,000 lanes),
// on several workers at once. The CPU backend sums a block's adds to a
// `sluice.counters` argument (KernelABI.h: nothing reads it during the
// dispatch; the stage kernels' counters carry it) in a private accumulator
// and adds the sum once per block (lib/Conversion/GPUToCPU/
// AggregateCounters.cpp); the totals must be what every lane's own atomic
// would give. `hist` has no attribute. Per lane t of block b (global id
// g = 64 b + t):
//   counts[0] += 1                       -> 64,000
//   counts[1] += t for odd t             -> 1,000 * (1 + 3 + ... + 63) = 1,024,000
//   counts[2] += b when t == 5           -> 0 + 1 + ... + 999 = 499,500
//   counts[3]: a claim by every lane (the old value is used: an atomic per
//              lane), out[old] = g, and one more add there by odd lanes whose
//              value is unused; the index keeps its atomics, so every claim
//              is unique: counts[3] = 64,000 + 32,000 = 96,000, and out[]
//              (96,000 slots, zero where nothing was claimed) sums to the
//              sum of g: 64,000 * 63,999 / 2 = 2,047,968,000
//   hist[t % 4] += 1 (no attribute: stays atomic) -> 16,000 each
// RUN: sluice-run %s | FileCheck %s
// RUN: env SLUICE_WORKERS=1 sluice-run %s | FileCheck %s
// RUN: env SLUICE_WORKERS=4 sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: sluice-run --cpu-simd=8 --cpu-simd-all %s | FileCheck %s
// RUN: sluice-opt --convert-gpu-to-cpu %s | FileCheck %s --check-prefix=IR
// CHECK: {{^}}64000{{$}}
// CHECK-NEXT: {{^}}1024000{{$}}
// CHECK-NEXT: {{^}}499500{{$}}
// CHECK-NEXT: {{^}}96000{{$}}
// CHECK-NEXT: {{^}}2047968000{{$}}
// CHECK-NEXT: {{^}}16000{{$}}
// CHECK-NEXT: {{^}}16000{{$}}
// CHECK-NEXT: {{^}}16000{{$}}
// CHECK-NEXT: {{^}}16000{{$}}
// The adds at indices 0, 1 and 2 are summed per block: three accumulators
// in the block function's entry, and after the lanes one atomic per index,
// only when its sum is not zero. Inside the lanes only the claims and adds
// at index 3 and the histogram's adds stay atomics.
// IR-LABEL: func.func private @__sluice_block_count(
// IR-COUNT-3: memref.alloca() : memref<i32>
// IR: scf.for
// IR-COUNT-3: memref.atomic_rmw addi
// IR-NOT: memref.atomic_rmw
// IR: scf.if
// IR: memref.atomic_rmw addi
// IR: scf.if
// IR: memref.atomic_rmw addi
// IR: scf.if
// IR: memref.atomic_rmw addi
// IR: return
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @count(%counts: memref<?xi32> {sluice.counters},
                    %out: memref<?xi32>, %hist: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %one = arith.constant 1 : i32
      %t = gpu.thread_id x
      %b = gpu.block_id x
      %dim = gpu.block_dim x
      %base = arith.muli %b, %dim : index
      %g = arith.addi %base, %t : index
      %t32 = arith.index_cast %t : index to i32
      %b32 = arith.index_cast %b : index to i32
      %g32 = arith.index_cast %g : index to i32
      %a0 = memref.atomic_rmw addi %one, %counts[%c0] : (i32, memref<?xi32>) -> i32
      %bit = arith.andi %t32, %one : i32
      %is_odd = arith.cmpi eq, %bit, %one : i32
      scf.if %is_odd {
        %a1 = memref.atomic_rmw addi %t32, %counts[%c1] : (i32, memref<?xi32>) -> i32
      }
      %is5 = arith.cmpi eq, %t, %c5 : index
      scf.if %is5 {
        %a2 = memref.atomic_rmw addi %b32, %counts[%c2] : (i32, memref<?xi32>) -> i32
      }
      %slot = memref.atomic_rmw addi %one, %counts[%c3] : (i32, memref<?xi32>) -> i32
      %at = arith.index_cast %slot : i32 to index
      memref.store %g32, %out[%at] : memref<?xi32>
      scf.if %is_odd {
        %a3 = memref.atomic_rmw addi %one, %counts[%c3] : (i32, memref<?xi32>) -> i32
      }
      %bin = arith.remui %t, %c4 : index
      %h = memref.atomic_rmw addi %one, %hist[%bin] : (i32, memref<?xi32>) -> i32
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c1000 = arith.constant 1000 : index
    %c96000 = arith.constant 96000 : index
    %zero = arith.constant 0 : i32
    %counts = memref.alloc(%c4) : memref<?xi32>
    %out = memref.alloc(%c96000) : memref<?xi32>
    %hist = memref.alloc(%c4) : memref<?xi32>
    scf.for %i = %c0 to %c4 step %c1 {
      memref.store %zero, %counts[%i] : memref<?xi32>
      memref.store %zero, %hist[%i] : memref<?xi32>
    }
    scf.for %i = %c0 to %c96000 step %c1 {
      memref.store %zero, %out[%i] : memref<?xi32>
    }
    gpu.launch_func @kernels::@count blocks in (%c1000, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%counts : memref<?xi32>, %out : memref<?xi32>, %hist : memref<?xi32>)
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %counts[%i] : memref<?xi32>
      %v64 = arith.extsi %v : i32 to i64
      func.call @sluice_print_i64(%v64) : (i64) -> ()
    }
    %zero64 = arith.constant 0 : i64
    %sum = scf.for %i = %c0 to %c96000 step %c1 iter_args(%acc = %zero64) -> (i64) {
      %v = memref.load %out[%i] : memref<?xi32>
      %v64 = arith.extsi %v : i32 to i64
      %n = arith.addi %acc, %v64 : i64
      scf.yield %n : i64
    }
    func.call @sluice_print_i64(%sum) : (i64) -> ()
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %hist[%i] : memref<?xi32>
      %v64 = arith.extsi %v : i32 to i64
      func.call @sluice_print_i64(%v64) : (i64) -> ()
    }
    return
  }
}
