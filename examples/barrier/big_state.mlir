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
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)

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
