// More than 4 MiB of live per-block state: every lane owns a 32 KiB private
// array (4096 x i64) that stays live across two barriers, so one block of 256
// lanes holds 8 MiB -- more than a worker arena's 4 MiB inline region; the
// rest comes from overflow chunks. Lane g fills p[j] = g * j, publishes
// p[4095] through shared memory, and after the barriers returns
// sum_j p[j] + (its right neighbour's p[4095]). 16 groups of 256 lanes.
//
//   sluice-run examples/barrier/big_state.mlir
//
// Prints the sum of all results, then the same sum by a serial host loop.
//
// SLUICE_BENCH_REPS=n times n more launches: "sluice-time 1 <ns>" is the
// fastest launch with its read of the results (one download), and
// "sluice-time 8 <ns>" the fastest back-to-back sequence of N launches
// (SLUICE_BENCH_SEQUENCE, default 256) and one download, divided by N.
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  func.func private @sluice_rt_now_ns() -> i64
  func.func private @sluice_rt_bench_reps() -> i64
  func.func private @sluice_rt_bench_sequence() -> i64
  func.func private @sluice_rt_report_time(i64, i64, i64)

  gpu.module @kernels {
    gpu.func @state(%out: memref<?xi64>)
        workgroup(%edge: memref<256xi64, #gpu.address_space<workgroup>>)
        private(%p: memref<4096xi64, #gpu.address_space<private>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %c4095 = arith.constant 4095 : index
      %c4096 = arith.constant 4096 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c256 : index
      %g = arith.addi %base, %tid : index
      %g64 = arith.index_cast %g : index to i64
      scf.for %j = %c0 to %c4096 step %c1 {
        %j64 = arith.index_cast %j : index to i64
        %v = arith.muli %g64, %j64 : i64
        memref.store %v, %p[%j] : memref<4096xi64, #gpu.address_space<private>>
      }
      gpu.barrier
      %last = memref.load %p[%c4095] : memref<4096xi64, #gpu.address_space<private>>
      memref.store %last, %edge[%tid] : memref<256xi64, #gpu.address_space<workgroup>>
      gpu.barrier
      %zero = arith.constant 0 : i64
      %sum = scf.for %j = %c0 to %c4096 step %c1 iter_args(%acc = %zero) -> (i64) {
        %v = memref.load %p[%j] : memref<4096xi64, #gpu.address_space<private>>
        %next = arith.addi %acc, %v : i64
        scf.yield %next : i64
      }
      %n1 = arith.addi %tid, %c1 : index
      %right = arith.remui %n1, %c256 : index
      %neighbour = memref.load %edge[%right] : memref<256xi64, #gpu.address_space<workgroup>>
      %result = arith.addi %sum, %neighbour : i64
      memref.store %result, %out[%g] : memref<?xi64>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %c4096 = arith.constant 4096 : index
    %blocks = arith.constant 16 : index
    %n = arith.constant 4096 : index
    %out = memref.alloc(%n) : memref<?xi64>
    gpu.launch_func @kernels::@state blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%out : memref<?xi64>)

    // Timed: one launch and the host's read (its download), then N launches
    // back to back and one read. Every launch writes the same results.
    %reps = func.call @sluice_rt_bench_reps() : () -> i64
    %repsIndex = arith.index_cast %reps : i64 to index
    %never = arith.constant 9223372036854775807 : i64
    %nseq = func.call @sluice_rt_bench_sequence() : () -> i64
    %cseq = arith.index_cast %nseq : i64 to index
    %best:2 = scf.for %r = %c0 to %repsIndex step %c1
        iter_args(%one = %never, %many = %never) -> (i64, i64) {
      %t0 = func.call @sluice_rt_now_ns() : () -> i64
      gpu.launch_func @kernels::@state blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
          args(%out : memref<?xi64>)
      %peek = memref.load %out[%c0] : memref<?xi64>
      memref.store %peek, %out[%c0] : memref<?xi64>
      %t1 = func.call @sluice_rt_now_ns() : () -> i64
      scf.for %k = %c0 to %cseq step %c1 {
        gpu.launch_func @kernels::@state blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
            args(%out : memref<?xi64>)
      }
      %peek2 = memref.load %out[%c0] : memref<?xi64>
      memref.store %peek2, %out[%c0] : memref<?xi64>
      %t2 = func.call @sluice_rt_now_ns() : () -> i64
      %took1 = arith.subi %t1, %t0 : i64
      %tookN = arith.subi %t2, %t1 : i64
      %one2 = arith.minsi %one, %took1 : i64
      %many2 = arith.minsi %many, %tookN : i64
      scf.yield %one2, %many2 : i64, i64
    }
    %idOne = arith.constant 1 : i64
    func.call @sluice_rt_report_time(%idOne, %best#0, %reps) : (i64, i64, i64) -> ()
    %perLaunch = arith.divsi %best#1, %nseq : i64
    %idSeq = arith.constant 8 : i64
    func.call @sluice_rt_report_time(%idSeq, %perLaunch, %reps) : (i64, i64, i64) -> ()

    %zero = arith.constant 0 : i64
    %total = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
      %o = memref.load %out[%i] : memref<?xi64>
      %next = arith.addi %acc, %o : i64
      scf.yield %next : i64
    }
    func.call @sluice_print_i64(%total) : (i64) -> ()
    // Serial: lane g contributes g * sum_{j<4096} j + (right neighbour) * 4095.
    %serial = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
      %b = arith.divui %i, %c256 : index
      %lane = arith.remui %i, %c256 : index
      %lane1 = arith.addi %lane, %c1 : index
      %rl = arith.remui %lane1, %c256 : index
      %gb = arith.muli %b, %c256 : index
      %ri = arith.addi %gb, %rl : index
      %i64 = arith.index_cast %i : index to i64
      %ri64 = arith.index_cast %ri : index to i64
      %own = scf.for %j = %c0 to %c4096 step %c1 iter_args(%s = %zero) -> (i64) {
        %j64 = arith.index_cast %j : index to i64
        %v = arith.muli %i64, %j64 : i64
        %s2 = arith.addi %s, %v : i64
        scf.yield %s2 : i64
      }
      %c4095 = arith.constant 4095 : i64
      %edge = arith.muli %ri64, %c4095 : i64
      %with = arith.addi %own, %edge : i64
      %next = arith.addi %acc, %with : i64
      scf.yield %next : i64
    }
    func.call @sluice_print_i64(%serial) : (i64) -> ()
    memref.dealloc %out : memref<?xi64>
    return
  }
}
