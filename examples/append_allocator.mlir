// An owner whose storage is an append allocator: admitted slots are carved
// from the end of an extent, and the extent is reclaimed only when the owner
// is empty (docs/runtime.md "Owner policies"). Its storage policy is written
// in the program and compiled with the kernels:
//   availability           A = C - extent, and A = C when L = 0
//   prepare_for_admission  extent = 0 when L = 0
//   prepare_for_producer   extent += the admitted slots
// storage word 0 holds the extent. Since items are only released, never
// added behind the allocator's back, extent >= L, so A <= C - L holds.
//
// Each lane publishes its lane id into "sort" (bound 1) and finishes; "sort"
// releases odd ids and moves even ids to "keep", which releases them.
//
//   sluice-run examples/append_allocator.mlir --lanes=8 --frame-pool=4 --stats

pool.owner @arena capacity 4 stages ["sort", "keep"] payload [i32]
    policy {availability = @arena_available,
            prepare_for_admission = @arena_reclaim,
            prepare_for_producer = @arena_append, storage = 1 : i64} {
  pool.handler "sort" (%item) {
    %id = pool.load %item : i32
    %one = arith.constant 1 : i32
    %bit = arith.andi %id, %one : i32
    %odd = arith.cmpi eq, %bit, %one : i32
    scf.if %odd {
      pool.release %item
    } else {
      pool.move %item to "keep"
    }
  }
  pool.handler "keep" (%item) {
    pool.release %item
  }
}

pool.emission_bound @allocate -> @arena max 1

wave.coroutine @allocate(%lane: i32) {
  pool.publish @arena "sort" (%lane) : i32
  wave.terminate
}

// A = C when the owner is empty, else C - extent.
func.func @arena_available(%storage: memref<1xi64>, %counts: memref<2xi32>,
                           %capacity: i64, %live: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %extent = memref.load %storage[%c0] : memref<1xi64>
  %free = arith.subi %capacity, %extent : i64
  %empty = arith.cmpi eq, %live, %zero : i64
  %available = arith.select %empty, %capacity, %free : i64
  return %available : i64
}

// The extent is reclaimed only when no item is live.
func.func @arena_reclaim(%storage: memref<1xi64>, %counts: memref<2xi32>,
                         %capacity: i64, %live: i64) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %empty = arith.cmpi eq, %live, %zero : i64
  scf.if %empty {
    memref.store %zero, %storage[%c0] : memref<1xi64>
  }
  return
}

// The admitted slots are appended to the extent.
func.func @arena_append(%storage: memref<1xi64>, %counts: memref<2xi32>,
                        %capacity: i64, %live: i64, %slots: i64) {
  %c0 = arith.constant 0 : index
  %extent = memref.load %storage[%c0] : memref<1xi64>
  %grown = arith.addi %extent, %slots : i64
  memref.store %grown, %storage[%c0] : memref<1xi64>
  return
}
