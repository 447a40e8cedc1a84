// Tree reduction, work-group 256: each block sums 256 uints through shared
// memory with 9 barriers (one after the load, one per halving step), and the
// host adds the 65536 block sums. Input: in[i] = i mod 1000, N = 16M.
//
//   sluice-run examples/barrier/reduction.mlir
//   sluice-run --gpu-force-coroutines examples/barrier/reduction.mlir
//
// Prints the sum of the block sums, then the same sum computed serially by
// the host. SLUICE_BENCH_REPS=n adds n timed launches (the fastest on stderr).
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  func.func private @sluice_rt_now_ns() -> i64
  func.func private @sluice_rt_bench_reps() -> i64
  func.func private @sluice_rt_bench_sequence() -> i64
  func.func private @sluice_rt_report_time(i64, i64, i64)
  func.func private @sluice_rt_synchronize()

  gpu.module @kernels {
    gpu.func @reduce(%in: memref<?xi32>, %out: memref<?xi32>)
        workgroup(%partial: memref<256xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %g = arith.addi %base, %tid : index
      %v = memref.load %in[%g] : memref<?xi32>
      memref.store %v, %partial[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %k = %c0 to %c8 step %c1 {
        %stride = arith.shrui %c128, %k : index
        %active = arith.cmpi ult, %tid, %stride : index
        scf.if %active {
          %other = arith.addi %tid, %stride : index
          %a = memref.load %partial[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
          %b = memref.load %partial[%other] : memref<256xi32, #gpu.address_space<workgroup>>
          %s = arith.addi %a, %b : i32
          memref.store %s, %partial[%tid] : memref<256xi32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      }
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %r = memref.load %partial[%c0] : memref<256xi32, #gpu.address_space<workgroup>>
        memref.store %r, %out[%bid] : memref<?xi32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 16777216 : index
    %blocks = arith.constant 65536 : index
    %c1000 = arith.constant 1000 : index
    %in = memref.alloc(%n) : memref<?xi32>
    %out = memref.alloc(%blocks) : memref<?xi32>
    scf.for %i = %c0 to %n step %c1 {
      %m = arith.remui %i, %c1000 : index
      %v = arith.index_cast %m : index to i32
      memref.store %v, %in[%i] : memref<?xi32>
    }
    gpu.launch_func @kernels::@reduce blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%in : memref<?xi32>, %out : memref<?xi32>)
    %reps = func.call @sluice_rt_bench_reps() : () -> i64
    %repsIndex = arith.index_cast %reps : i64 to index
    %never = arith.constant 9223372036854775807 : i64
    %best = scf.for %r = %c0 to %repsIndex step %c1 iter_args(%fastest = %never) -> (i64) {
      %t0 = func.call @sluice_rt_now_ns() : () -> i64
      gpu.launch_func @kernels::@reduce blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
          args(%in : memref<?xi32>, %out : memref<?xi32>)
      func.call @sluice_rt_synchronize() : () -> ()
      %t1 = func.call @sluice_rt_now_ns() : () -> i64
      %took = arith.subi %t1, %t0 : i64
      %faster = arith.minsi %fastest, %took : i64
      scf.yield %faster : i64
    }
    %id = arith.constant 1 : i64
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
        gpu.launch_func @kernels::@reduce blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
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

    %zero = arith.constant 0 : i64
    %total = scf.for %b = %c0 to %blocks step %c1 iter_args(%acc = %zero) -> (i64) {
      %p = memref.load %out[%b] : memref<?xi32>
      %p64 = arith.extui %p : i32 to i64
      %next = arith.addi %acc, %p64 : i64
      scf.yield %next : i64
    }
    func.call @sluice_print_i64(%total) : (i64) -> ()
    %serial = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
      %x = memref.load %in[%i] : memref<?xi32>
      %x64 = arith.extui %x : i32 to i64
      %next = arith.addi %acc, %x64 : i64
      scf.yield %next : i64
    }
    func.call @sluice_print_i64(%serial) : (i64) -> ()
    memref.dealloc %in : memref<?xi32>
    memref.dealloc %out : memref<?xi32>
    return
  }
}
