// gpu.printf through the record buffer (sluice-lower-gpu-printf): the host
// prints each launch's records ordered by block linear id, then thread
// linear id, then each thread's call order, whatever order the lanes ran in
// (fission runs every lane's A before any B; coroutines and GPUs interleave).
// Grid 2 x 1 x 1, blocks 2 x 2 x 1: thread t = tx + 2 ty of block b reads
// v = data[4 b + t] = (4 b + t) / 4 (the host writes i / 4), prints
//   A: "A b=<b> t=<t> v=<v as %5.2f>"            (index, i32, f32)
//   B: only odd t, after a barrier: 255 t in hex, -t as %u (2^32 - t),
//      b * 2^40 + t as %lld, and a literal '%'  (i32, i32, i64)
//   C: (t + 1) / 8 as %g (0.125 0.25 0.375 0.5) (f64)
// then the host prints 42 after the launch.
// b = 1, t = 3: 255 * 3 = 765 = 0x2fd, 2^32 - 3 = 4294967293,
// 2^40 + 3 = 1099511627779.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: env SLUICE_WORKERS=1 sluice-run %s | FileCheck %s
// CHECK:      {{^}}A b=0 t=0 v= 0.00{{$}}
// CHECK-NEXT: {{^}}C 0.125{{$}}
// CHECK-NEXT: {{^}}A b=0 t=1 v= 0.25{{$}}
// CHECK-NEXT: {{^}}B ff 4294967295 1%{{$}}
// CHECK-NEXT: {{^}}C 0.25{{$}}
// CHECK-NEXT: {{^}}A b=0 t=2 v= 0.50{{$}}
// CHECK-NEXT: {{^}}C 0.375{{$}}
// CHECK-NEXT: {{^}}A b=0 t=3 v= 0.75{{$}}
// CHECK-NEXT: {{^}}B 2fd 4294967293 3%{{$}}
// CHECK-NEXT: {{^}}C 0.5{{$}}
// CHECK-NEXT: {{^}}A b=1 t=0 v= 1.00{{$}}
// CHECK-NEXT: {{^}}C 0.125{{$}}
// CHECK-NEXT: {{^}}A b=1 t=1 v= 1.25{{$}}
// CHECK-NEXT: {{^}}B ff 4294967295 1099511627777%{{$}}
// CHECK-NEXT: {{^}}C 0.25{{$}}
// CHECK-NEXT: {{^}}A b=1 t=2 v= 1.50{{$}}
// CHECK-NEXT: {{^}}C 0.375{{$}}
// CHECK-NEXT: {{^}}A b=1 t=3 v= 1.75{{$}}
// CHECK-NEXT: {{^}}B 2fd 4294967293 1099511627779%{{$}}
// CHECK-NEXT: {{^}}C 0.5{{$}}
// CHECK-NEXT: {{^}}42{{$}}
//
// A full buffer drops records and says how many: with no record words all
// 2 * (4 A + 2 B + 4 C) = 20 are dropped.
// A value that is not a count is reported and the default capacity is used:
// every record fits.
// RUN: env SLUICE_PRINTF_WORDS=lots sluice-run %s 2>&1 | FileCheck %s --check-prefix=BADWORDS
// BADWORDS: sluice: SLUICE_PRINTF_WORDS='lots' is not a number from 0 to 1073741824; using {{[0-9]+}}{{$}}
// BADWORDS-NOT: dropped
// RUN: env SLUICE_PRINTF_WORDS=0 sluice-run %s 2>&1 | FileCheck %s --check-prefix=FULL
// FULL-NOT: {{^}}A b=
// FULL: sluice: gpu.printf: 20 records dropped: the buffer's 0 record words were full (SLUICE_PRINTF_WORDS sets them)
// FULL-NEXT: {{^}}42{{$}}
// Room for exactly the records that fit: every A and B record is 9 words, C
// 5; 19 words hold at most 2 records, so at least 18 are dropped.
// RUN: env SLUICE_PRINTF_WORDS=19 sluice-run %s 2>&1 | FileCheck %s --check-prefix=PART
// PART: sluice: gpu.printf: {{18|19}} records dropped: the buffer's 19 record words were full
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @report(%data: memref<?xf32>) kernel {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bid = gpu.block_id x
      %ty2 = arith.muli %ty, %c2 : index
      %t = arith.addi %tx, %ty2 : index
      %b4 = arith.muli %bid, %c4 : index
      %i = arith.addi %b4, %t : index
      %v = memref.load %data[%i] : memref<?xf32>
      %t32 = arith.index_cast %t : index to i32
      gpu.printf "A b=%d t=%d v=%5.2f\n", %bid, %t32, %v : index, i32, f32
      gpu.barrier
      %odd = arith.remui %t, %c2 : index
      %isOdd = arith.cmpi eq, %odd, %c1 : index
      scf.if %isOdd {
        %c255 = arith.constant 255 : i32
        %hex = arith.muli %t32, %c255 : i32
        %zero = arith.constant 0 : i32
        %neg = arith.subi %zero, %t32 : i32
        %b64 = arith.index_cast %bid : index to i64
        %c40 = arith.constant 40 : i64
        %high = arith.shli %b64, %c40 : i64
        %t64 = arith.index_cast %t : index to i64
        %wide = arith.addi %high, %t64 : i64
        gpu.printf "B %x %u %lld%%\n", %hex, %neg, %wide : i32, i32, i64
      }
      %t1 = arith.addi %t, %c1 : index
      %t1i = arith.index_cast %t1 : index to i64
      %t1f = arith.sitofp %t1i : i64 to f64
      %eighth = arith.constant 0.125 : f64
      %w = arith.mulf %t1f, %eighth : f64
      gpu.printf "C %g\n", %w : f64
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %data = memref.alloc(%c8) : memref<?xf32>
    %quarter = arith.constant 0.25 : f32
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %q = arith.mulf %f, %quarter : f32
      memref.store %q, %data[%i] : memref<?xf32>
    }
    gpu.launch_func @kernels::@report blocks in (%c2, %c1, %c1) threads in (%c2, %c2, %c1) args(%data : memref<?xf32>)
    %c42 = arith.constant 42 : i64
    func.call @sluice_print_i64(%c42) : (i64) -> ()
    memref.dealloc %data : memref<?xf32>
    return
  }
}
