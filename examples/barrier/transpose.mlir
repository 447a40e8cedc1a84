// Tiled transpose of a 4096 x 4096 matrix of uints through shared memory:
// work-groups of 16 x 16 lanes, one 16 x 16 tile each, one barrier between
// the coalesced load and the coalesced store. in[i][j] = i * 4096 + j.
//
//   sluice-run examples/barrier/transpose.mlir
//
// Prints the number of elements with out[i][j] != in[j][i] (checked by the
// host), then out[1][4095] and out[4095][0].
// SLUICE_BENCH_REPS=n adds n timed launches (the fastest on stderr).
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  func.func private @sluice_rt_now_ns() -> i64
  func.func private @sluice_rt_bench_reps() -> i64
  func.func private @sluice_rt_bench_sequence() -> i64
  func.func private @sluice_rt_report_time(i64, i64, i64)
  func.func private @sluice_rt_synchronize()

  gpu.module @kernels {
    gpu.func @transpose(%in: memref<4096x4096xi32>, %out: memref<4096x4096xi32>)
        workgroup(%tile: memref<16x17xi32, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c16 = arith.constant 16 : index
      %col0 = arith.muli %bx, %c16 : index
      %row0 = arith.muli %by, %c16 : index
      %col = arith.addi %col0, %tx : index
      %row = arith.addi %row0, %ty : index
      %v = memref.load %in[%row, %col] : memref<4096x4096xi32>
      memref.store %v, %tile[%ty, %tx] : memref<16x17xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %orow = arith.addi %col0, %ty : index
      %ocol = arith.addi %row0, %tx : index
      %t = memref.load %tile[%tx, %ty] : memref<16x17xi32, #gpu.address_space<workgroup>>
      memref.store %t, %out[%orow, %ocol] : memref<4096x4096xi32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %c4095 = arith.constant 4095 : index
    %n = arith.constant 4096 : index
    %in = memref.alloc() : memref<4096x4096xi32>
    %out = memref.alloc() : memref<4096x4096xi32>
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %row = arith.muli %i, %n : index
        %lin = arith.addi %row, %j : index
        %v = arith.index_cast %lin : index to i32
        memref.store %v, %in[%i, %j] : memref<4096x4096xi32>
      }
    }
    gpu.launch_func @kernels::@transpose blocks in (%c256, %c256, %c1) threads in (%c16, %c16, %c1)
        args(%in : memref<4096x4096xi32>, %out : memref<4096x4096xi32>)
    %reps = func.call @sluice_rt_bench_reps() : () -> i64
    %repsIndex = arith.index_cast %reps : i64 to index
    %never = arith.constant 9223372036854775807 : i64
    %best = scf.for %r = %c0 to %repsIndex step %c1 iter_args(%fastest = %never) -> (i64) {
      %t0 = func.call @sluice_rt_now_ns() : () -> i64
      gpu.launch_func @kernels::@transpose blocks in (%c256, %c256, %c1) threads in (%c16, %c16, %c1)
          args(%in : memref<4096x4096xi32>, %out : memref<4096x4096xi32>)
      func.call @sluice_rt_synchronize() : () -> ()
      %t1 = func.call @sluice_rt_now_ns() : () -> i64
      %took = arith.subi %t1, %t0 : i64
      %faster = arith.minsi %fastest, %took : i64
      scf.yield %faster : i64
    }
    %id = arith.constant 3 : i64
    func.call @sluice_rt_report_time(%id, %best, %reps) : (i64, i64, i64) -> ()

    // Back to back: the host writes the input (so the first launch uploads
    // it again), N launches (SLUICE_BENCH_SEQUENCE, default 256; batched:
    // one wait), the host reads the output (its download). "sluice-time 8"
    // is the fastest such sequence divided by N: the end-to-end cost of one
    // launch, one upload and one download included.
    %nseq = func.call @sluice_rt_bench_sequence() : () -> i64
    %cseq = arith.index_cast %nseq : i64 to index
    %bestSeq = scf.for %r = %c0 to %repsIndex step %c1 iter_args(%fastest = %never) -> (i64) {
      %keep = memref.load %in[%c0, %c0] : memref<4096x4096xi32>
      memref.store %keep, %in[%c0, %c0] : memref<4096x4096xi32>
      %t0 = func.call @sluice_rt_now_ns() : () -> i64
      scf.for %k = %c0 to %cseq step %c1 {
        gpu.launch_func @kernels::@transpose blocks in (%c256, %c256, %c1) threads in (%c16, %c16, %c1)
            args(%in : memref<4096x4096xi32>, %out : memref<4096x4096xi32>)
      }
      %peek = memref.load %out[%c0, %c0] : memref<4096x4096xi32>
      memref.store %peek, %out[%c0, %c0] : memref<4096x4096xi32>
      %t1 = func.call @sluice_rt_now_ns() : () -> i64
      %took = arith.subi %t1, %t0 : i64
      %faster = arith.minsi %fastest, %took : i64
      scf.yield %faster : i64
    }
    %perLaunch = arith.divsi %bestSeq, %nseq : i64
    %idSeq = arith.constant 8 : i64
    func.call @sluice_rt_report_time(%idSeq, %perLaunch, %reps) : (i64, i64, i64) -> ()

    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
      %inner = scf.for %j = %c0 to %n step %c1 iter_args(%acc2 = %acc) -> (i64) {
        %a = memref.load %out[%i, %j] : memref<4096x4096xi32>
        %b = memref.load %in[%j, %i] : memref<4096x4096xi32>
        %differs = arith.cmpi ne, %a, %b : i32
        %inc = arith.select %differs, %one, %zero : i64
        %next = arith.addi %acc2, %inc : i64
        scf.yield %next : i64
      }
      scf.yield %inner : i64
    }
    func.call @sluice_print_i64(%bad) : (i64) -> ()
    %x = memref.load %out[%c1, %c4095] : memref<4096x4096xi32>
    %x64 = arith.extui %x : i32 to i64
    func.call @sluice_print_i64(%x64) : (i64) -> ()
    %y = memref.load %out[%c4095, %c0] : memref<4096x4096xi32>
    %y64 = arith.extui %y : i32 to i64
    func.call @sluice_print_i64(%y64) : (i64) -> ()
    memref.dealloc %in : memref<4096x4096xi32>
    memref.dealloc %out : memref<4096x4096xi32>
    return
  }
}
