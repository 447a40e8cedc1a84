// Round trip of an owner storage policy (pool.owner ... policy {...}): the
// custom form and the generic form re-parsed.
// RUN: sluice-opt %s | sluice-opt | FileCheck %s
// RUN: sluice-opt %s --mlir-print-op-generic | sluice-opt | FileCheck %s

// CHECK-LABEL: pool.owner @arena capacity 8 stages ["use", "done"] payload [i32] policy {admission_stage = @arena_drain, availability = @arena_available, prepare_for_admission = @arena_reclaim, prepare_for_producer = @arena_grow, storage = 1 : i64} {
pool.owner @arena capacity 8 stages ["use", "done"] payload [i32]
    policy {availability = @arena_available, prepare_for_admission = @arena_reclaim,
            prepare_for_producer = @arena_grow, admission_stage = @arena_drain,
            storage = 1 : i64} {
  pool.handler "use" (%item) {
    pool.move %item to "done"
  }
  pool.handler "done" (%item) {
    pool.release %item
  }
}

// A policy without storage gets memref<0xi64>.
// CHECK-LABEL: pool.owner @plain capacity 4 stages ["a"] payload [] policy {availability = @plain_available} {
pool.owner @plain capacity 4 stages ["a"] payload [] policy {availability = @plain_available} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

func.func @arena_available(%storage: memref<1xi64>, %counts: memref<2xi32>,
                           %capacity: i64, %live: i64) -> i64 {
  return %capacity : i64
}
func.func @arena_reclaim(%storage: memref<1xi64>, %counts: memref<2xi32>,
                         %capacity: i64, %live: i64) {
  return
}
func.func @arena_grow(%storage: memref<1xi64>, %counts: memref<2xi32>,
                      %capacity: i64, %live: i64, %slots: i64) {
  return
}
func.func @arena_drain(%storage: memref<1xi64>, %counts: memref<2xi32>,
                       %capacity: i64, %live: i64) -> i32 {
  %c1 = arith.constant 1 : i32
  return %c1 : i32
}
func.func @plain_available(%storage: memref<0xi64>, %counts: memref<1xi32>,
                           %capacity: i64, %live: i64) -> i64 {
  %d = arith.subi %capacity, %live : i64
  return %d : i64
}
