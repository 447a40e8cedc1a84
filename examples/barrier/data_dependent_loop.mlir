// A barrier inside a loop whose trip count is read from memory: group b runs
// trips[b] = b mod 8 + 1 rounds; in each round every lane publishes
// in[g] + round to shared memory, waits, reads its right neighbour's entry
// (cyclic within the group), waits again, and accumulates. The trip count is
// data, so loop fission does not apply: the kernel runs one coroutine per
// lane. 4096 groups of 256 lanes, in[i] = i mod 13.
//
//   sluice-run examples/barrier/data_dependent_loop.mlir
//
// Prints the number of lanes whose result differs from a serial evaluation
// by the host, then the sum of all results and the host's serial sum.
// SLUICE_BENCH_REPS=n adds n timed launches (the fastest on stderr).
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  func.func private @sluice_rt_now_ns() -> i64
  func.func private @sluice_rt_bench_reps() -> i64
  func.func private @sluice_rt_bench_sequence() -> i64
  func.func private @sluice_rt_report_time(i64, i64, i64)
  func.func private @sluice_rt_synchronize()

  gpu.module @kernels {
    gpu.func @rounds(%in: memref<?xi32>, %trips: memref<?xi32>, %out: memref<?xi32>)
        workgroup(%buf: memref<256xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c256 : index
      %g = arith.addi %base, %tid : index
      %mine = memref.load %in[%g] : memref<?xi32>
      %t32 = memref.load %trips[%bid] : memref<?xi32>
      %t = arith.index_cast %t32 : i32 to index
      %next = arith.addi %tid, %c1 : index
      %right = arith.remui %next, %c256 : index
      %acc = scf.for %round = %c0 to %t step %c1 iter_args(%sum = %zero) -> (i32) {
        %r32 = arith.index_cast %round : index to i32
        %v = arith.addi %mine, %r32 : i32
        memref.store %v, %buf[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %w = memref.load %buf[%right] : memref<256xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %s = arith.addi %sum, %w : i32
        scf.yield %s : i32
      }
      memref.store %acc, %out[%g] : memref<?xi32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c13 = arith.constant 13 : index
    %c256 = arith.constant 256 : index
    %blocks = arith.constant 4096 : index
    %n = arith.constant 1048576 : index
    %in = memref.alloc(%n) : memref<?xi32>
    %trips = memref.alloc(%blocks) : memref<?xi32>
    %out = memref.alloc(%n) : memref<?xi32>
    scf.for %i = %c0 to %n step %c1 {
      %m = arith.remui %i, %c13 : index
      %v = arith.index_cast %m : index to i32
      memref.store %v, %in[%i] : memref<?xi32>
    }
    scf.for %b = %c0 to %blocks step %c1 {
      %m = arith.remui %b, %c8 : index
      %m1 = arith.addi %m, %c1 : index
      %v = arith.index_cast %m1 : index to i32
      memref.store %v, %trips[%b] : memref<?xi32>
    }
    gpu.launch_func @kernels::@rounds blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%in : memref<?xi32>, %trips : memref<?xi32>, %out : memref<?xi32>)
    %reps = func.call @sluice_rt_bench_reps() : () -> i64
    %repsIndex = arith.index_cast %reps : i64 to index
    %never = arith.constant 9223372036854775807 : i64
    %best = scf.for %r = %c0 to %repsIndex step %c1 iter_args(%fastest = %never) -> (i64) {
      %t0 = func.call @sluice_rt_now_ns() : () -> i64
      gpu.launch_func @kernels::@rounds blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
          args(%in : memref<?xi32>, %trips : memref<?xi32>, %out : memref<?xi32>)
      func.call @sluice_rt_synchronize() : () -> ()
      %t1 = func.call @sluice_rt_now_ns() : () -> i64
      %took = arith.subi %t1, %t0 : i64
      %faster = arith.minsi %fastest, %took : i64
      scf.yield %faster : i64
    }
    %id = arith.constant 4 : i64
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
        gpu.launch_func @kernels::@rounds blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
            args(%in : memref<?xi32>, %trips : memref<?xi32>, %out : memref<?xi32>)
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

    // Serial reference: lane g of group b adds (in[right] + r) for r < trips[b].
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %check:3 = scf.for %i = %c0 to %n step %c1 iter_args(%bad = %zero, %got = %zero, %want = %zero) -> (i64, i64, i64) {
      %b = arith.divui %i, %c256 : index
      %lane = arith.remui %i, %c256 : index
      %lane1 = arith.addi %lane, %c1 : index
      %rl = arith.remui %lane1, %c256 : index
      %gb = arith.muli %b, %c256 : index
      %ri = arith.addi %gb, %rl : index
      %x = memref.load %in[%ri] : memref<?xi32>
      %x64 = arith.extui %x : i32 to i64
      %t32 = memref.load %trips[%b] : memref<?xi32>
      %t = arith.index_cast %t32 : i32 to index
      %expect = scf.for %r = %c0 to %t step %c1 iter_args(%e = %zero) -> (i64) {
        %r64 = arith.index_cast %r : index to i64
        %term = arith.addi %x64, %r64 : i64
        %e2 = arith.addi %e, %term : i64
        scf.yield %e2 : i64
      }
      %o = memref.load %out[%i] : memref<?xi32>
      %o64 = arith.extui %o : i32 to i64
      %differs = arith.cmpi ne, %o64, %expect : i64
      %inc = arith.select %differs, %one, %zero : i64
      %bad2 = arith.addi %bad, %inc : i64
      %got2 = arith.addi %got, %o64 : i64
      %want2 = arith.addi %want, %expect : i64
      scf.yield %bad2, %got2, %want2 : i64, i64, i64
    }
    func.call @sluice_print_i64(%check#0) : (i64) -> ()
    func.call @sluice_print_i64(%check#1) : (i64) -> ()
    func.call @sluice_print_i64(%check#2) : (i64) -> ()
    memref.dealloc %in : memref<?xi32>
    memref.dealloc %trips : memref<?xi32>
    memref.dealloc %out : memref<?xi32>
    return
  }
}
