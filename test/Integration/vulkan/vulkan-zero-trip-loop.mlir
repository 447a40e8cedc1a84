// A loop that runs zero times yields its init operands on Vulkan too:
// upstream's scf.for lowering to SPIR-V keeps results in variables that only
// the body stores, so sluice-gpu-to-spirv puts each such loop under
// scf.if (lb < ub). Lane i stores -1 + (0 + 1 + ... + n-1): -1 for n = 0,
// 2 for n = 3, on both backends.
//
// REQUIRES: vulkan
// RUN: %python -c "import numpy; numpy.save('%t.npy', numpy.zeros(8, numpy.int32))"
// RUN: sluice-run %s --lanes=8 --bind=out=%t.npy --set=n=0 --print=out | FileCheck %s --check-prefix=ZERO
// RUN: sluice-run %s --lanes=8 --bind=out=%t.npy --set=n=0 --print=out --backend=vulkan 2> /dev/null | FileCheck %s --check-prefix=ZERO
// RUN: sluice-run %s --lanes=8 --bind=out=%t.npy --set=n=3 --print=out --backend=vulkan 2> /dev/null | FileCheck %s --check-prefix=THREE
//
// ZERO: out: i32[8] = -1 -1 -1 -1 -1 -1 -1 -1{{$}}
// THREE: out: i32[8] = 2 2 2 2 2 2 2 2{{$}}
wave.coroutine @sum(%lane: i32) bind(%out: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %minus_one = arith.constant -1 : i32
  %zero = arith.constant 0 : i32
  wave.suspend "sum"
  %count = arith.index_cast %n : i32 to index
  %r:2 = scf.for %i = %c0 to %count step %c1
      iter_args(%acc = %minus_one, %last = %zero) -> (i32, i32) {
    %i32 = arith.index_cast %i : index to i32
    %next = arith.addi %acc, %i32 : i32
    scf.yield %next, %i32 : i32, i32
  }
  %l = arith.index_cast %lane : i32 to index
  memref.store %r#0, %out[%l] : memref<?xi32>
  wave.terminate
}
