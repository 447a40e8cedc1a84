// Two owners with storage policies fed by one stage (wave-two-policies.test):
// every lane publishes its id into @a "x" and into @b "p" and finishes.
//   @a (capacity 2, stage "x" releases): an append allocator, as in
//      examples/append_allocator.mlir: A = C - extent, and A = C when
//      L = 0; the extent is reclaimed when L = 0 and grows by the admitted
//      slots.
//   @b (capacity 3, "p" moves odd ids to "q" and releases even ones, "q"
//      releases): storage word 0 counts the slots admitted so far; A = C
//      when L = 0, else C - L less one while that count is odd (at least 0);
//      the admission stage is the last non-empty one ("q" before "p").
// An admission of the entry stage calls, in decide()'s order, @a's
// prepare_for_admission and availability, @b's availability, then either
// @b's admission_stage (@b blocks) or both prepare_for_producer hooks: at
// most 5 calls.

pool.owner @a capacity 2 stages ["x"] payload [i32]
    policy {availability = @a_available, prepare_for_admission = @a_reclaim,
            prepare_for_producer = @a_append, storage = 1 : i64} {
  pool.handler "x" (%item) {
    pool.release %item
  }
}

pool.owner @b capacity 3 stages ["p", "q"] payload [i32]
    policy {availability = @b_available, admission_stage = @b_last,
            prepare_for_producer = @b_count, storage = 1 : i64} {
  pool.handler "p" (%item) {
    %id = pool.load %item : i32
    %one = arith.constant 1 : i32
    %bit = arith.andi %id, %one : i32
    %odd = arith.cmpi eq, %bit, %one : i32
    scf.if %odd {
      pool.move %item to "q"
    } else {
      pool.release %item
    }
  }
  pool.handler "q" (%item) {
    pool.release %item
  }
}

pool.emission_bound @two -> @a max 1
pool.emission_bound @two -> @b max 1

wave.coroutine @two(%lane: i32) {
  pool.publish @a "x" (%lane) : i32
  pool.publish @b "p" (%lane) : i32
  wave.terminate
}

func.func @a_available(%storage: memref<1xi64>, %counts: memref<1xi32>,
                       %capacity: i64, %live: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %extent = memref.load %storage[%c0] : memref<1xi64>
  %free = arith.subi %capacity, %extent : i64
  %empty = arith.cmpi eq, %live, %zero : i64
  %available = arith.select %empty, %capacity, %free : i64
  return %available : i64
}

func.func @a_reclaim(%storage: memref<1xi64>, %counts: memref<1xi32>,
                     %capacity: i64, %live: i64) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %empty = arith.cmpi eq, %live, %zero : i64
  scf.if %empty {
    memref.store %zero, %storage[%c0] : memref<1xi64>
  }
  return
}

func.func @a_append(%storage: memref<1xi64>, %counts: memref<1xi32>,
                    %capacity: i64, %live: i64, %slots: i64) {
  %c0 = arith.constant 0 : index
  %extent = memref.load %storage[%c0] : memref<1xi64>
  %grown = arith.addi %extent, %slots : i64
  memref.store %grown, %storage[%c0] : memref<1xi64>
  return
}

func.func @b_available(%storage: memref<1xi64>, %counts: memref<2xi32>,
                       %capacity: i64, %live: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %admitted = memref.load %storage[%c0] : memref<1xi64>
  %odd = arith.andi %admitted, %one : i64
  %room = arith.subi %capacity, %live : i64
  %less = arith.subi %room, %odd : i64
  %clamped = arith.maxsi %less, %zero : i64
  %empty = arith.cmpi eq, %live, %zero : i64
  %available = arith.select %empty, %capacity, %clamped : i64
  return %available : i64
}

func.func @b_last(%storage: memref<1xi64>, %counts: memref<2xi32>,
                  %capacity: i64, %live: i64) -> i32 {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %q = memref.load %counts[%c1] : memref<2xi32>
  %busy = arith.cmpi ne, %q, %zero : i32
  %last = arith.extui %busy : i1 to i32
  return %last : i32
}

func.func @b_count(%storage: memref<1xi64>, %counts: memref<2xi32>,
                   %capacity: i64, %live: i64, %slots: i64) {
  %c0 = arith.constant 0 : index
  %admitted = memref.load %storage[%c0] : memref<1xi64>
  %more = arith.addi %admitted, %slots : i64
  memref.store %more, %storage[%c0] : memref<1xi64>
  return
}
