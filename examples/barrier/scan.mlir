// Hillis-Steele inclusive prefix scan per work-group of 256 (8 steps, two
// barriers each: read, then write), N = 16M uints, in[i] = i mod 7. Each lane
// keeps its partial sum across a barrier (a per-lane array on the fission
// path, the coroutine frame on the coroutine path).
//
//   sluice-run examples/barrier/scan.mlir
//
// Prints the number of elements that differ from a serial scan computed by
// the host, then out[255] and out[N-1] (last element of the first and the
// last group).
// SLUICE_BENCH_REPS=n adds n timed launches (the fastest on stderr).
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  func.func private @sluice_rt_now_ns() -> i64
  func.func private @sluice_rt_bench_reps() -> i64
  func.func private @sluice_rt_bench_sequence() -> i64
  func.func private @sluice_rt_report_time(i64, i64, i64)
  func.func private @sluice_rt_synchronize()

  gpu.module @kernels {
    gpu.func @scan(%in: memref<?xi32>, %out: memref<?xi32>)
        workgroup(%buf: memref<256xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %g = arith.addi %base, %tid : index
      %v = memref.load %in[%g] : memref<?xi32>
      memref.store %v, %buf[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %k = %c0 to %c8 step %c1 {
        %offset = arith.shli %c1, %k : index
        %mine = memref.load %buf[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
        %has = arith.cmpi uge, %tid, %offset : index
        %sum = scf.if %has -> (i32) {
          %j = arith.subi %tid, %offset : index
          %other = memref.load %buf[%j] : memref<256xi32, #gpu.address_space<workgroup>>
          %s = arith.addi %mine, %other : i32
          scf.yield %s : i32
        } else {
          scf.yield %mine : i32
        }
        gpu.barrier
        memref.store %sum, %buf[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
        gpu.barrier
      }
      %r = memref.load %buf[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
      memref.store %r, %out[%g] : memref<?xi32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 16777216 : index
    %blocks = arith.constant 65536 : index
    %in = memref.alloc(%n) : memref<?xi32>
    %out = memref.alloc(%n) : memref<?xi32>
    scf.for %i = %c0 to %n step %c1 {
      %m = arith.remui %i, %c7 : index
      %v = arith.index_cast %m : index to i32
      memref.store %v, %in[%i] : memref<?xi32>
    }
    gpu.launch_func @kernels::@scan blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%in : memref<?xi32>, %out : memref<?xi32>)
    %reps = func.call @sluice_rt_bench_reps() : () -> i64
    %repsIndex = arith.index_cast %reps : i64 to index
    %never = arith.constant 9223372036854775807 : i64
    %best = scf.for %r = %c0 to %repsIndex step %c1 iter_args(%fastest = %never) -> (i64) {
      %t0 = func.call @sluice_rt_now_ns() : () -> i64
      gpu.launch_func @kernels::@scan blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
          args(%in : memref<?xi32>, %out : memref<?xi32>)
      func.call @sluice_rt_synchronize() : () -> ()
      %t1 = func.call @sluice_rt_now_ns() : () -> i64
      %took = arith.subi %t1, %t0 : i64
      %faster = arith.minsi %fastest, %took : i64
      scf.yield %faster : i64
    }
    %id = arith.constant 2 : i64
    func.call @sluice_rt_report_time(%id, %best, %reps) : (i64, i64, i64) -> ()

    // Back to back: the host writes the input (so the first launch uploads
    // it again), N launches (SLUICE_BENCH_SEQUENCE, default 256; batched:
    // one wait), the host reads the output (its download). "sluice-time 8"
    // is the fastest such sequence divided by N: the end-to-end cost of one
    // launch, one upload and one download included.
    %nseq = func.call @sluice_rt_bench_sequence() : () -> i64
    %cseq = arith.index_cast %nseq : i64 to index
    %bestSeq = scf.for %r = %c0 to %repsIndex step %c1 iter_args(%fastest = %never) -> (i64) {
      %keep = memref.load %in[%c0] : memref<?xi32>
      memref.store %keep, %in[%c0] : memref<?xi32>
      %t0 = func.call @sluice_rt_now_ns() : () -> i64
      scf.for %k = %c0 to %cseq step %c1 {
        gpu.launch_func @kernels::@scan blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
            args(%in : memref<?xi32>, %out : memref<?xi32>)
      }
      %peek = memref.load %out[%c0] : memref<?xi32>
      memref.store %peek, %out[%c0] : memref<?xi32>
      %t1 = func.call @sluice_rt_now_ns() : () -> i64
      %took = arith.subi %t1, %t0 : i64
      %faster = arith.minsi %fastest, %took : i64
      scf.yield %faster : i64
    }
    %perLaunch = arith.divsi %bestSeq, %nseq : i64
    %idSeq = arith.constant 8 : i64
    func.call @sluice_rt_report_time(%idSeq, %perLaunch, %reps) : (i64, i64, i64) -> ()

    // Serial reference: a running sum restarted at every group boundary.
    %zero = arith.constant 0 : i32
    %zero64 = arith.constant 0 : i64
    %one64 = arith.constant 1 : i64
    %state:2 = scf.for %i = %c0 to %n step %c1 iter_args(%run = %zero, %bad = %zero64) -> (i32, i64) {
      %lane = arith.remui %i, %c256 : index
      %start = arith.cmpi eq, %lane, %c0 : index
      %prev = arith.select %start, %zero, %run : i32
      %x = memref.load %in[%i] : memref<?xi32>
      %expect = arith.addi %prev, %x : i32
      %got = memref.load %out[%i] : memref<?xi32>
      %differs = arith.cmpi ne, %got, %expect : i32
      %inc = arith.select %differs, %one64, %zero64 : i64
      %bad2 = arith.addi %bad, %inc : i64
      scf.yield %expect, %bad2 : i32, i64
    }
    func.call @sluice_print_i64(%state#1) : (i64) -> ()
    %first = memref.load %out[%c255] : memref<?xi32>
    %first64 = arith.extui %first : i32 to i64
    func.call @sluice_print_i64(%first64) : (i64) -> ()
    %lastIndex = arith.subi %n, %c1 : index
    %last = memref.load %out[%lastIndex] : memref<?xi32>
    %last64 = arith.extui %last : i32 to i64
    func.call @sluice_print_i64(%last64) : (i64) -> ()
    memref.dealloc %in : memref<?xi32>
    memref.dealloc %out : memref<?xi32>
    return
  }
}
