// Conformance: an emission-bound fault (adapter_conformance_test.cpp,
// FaultEmissionBound). The "publish" stage publishes `trips` items into
// @sink; the loop declares at most one trip (pool.max_trips), which is what
// the verifier proves the bound of 1 from. Binding trips = 2 breaks that
// promise at run time: the kernels fault instead of publishing the second
// item. Each "drain" adds 1 to count[0].
pool.owner @sink capacity 64 stages ["drain"] payload [i32] {
  pool.handler "drain" (%item) {
    %count = wave.binding "count" : memref<1xi32>
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %old = memref.atomic_rmw addi %one, %count[%c0] : (i32, memref<1xi32>) -> i32
    pool.release %item
  }
}

pool.emission_bound @emit -> @sink max 1

wave.coroutine @emit(%lane: i32) bind(%count: memref<1xi32>, %trips: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  wave.suspend "publish"
  %n = arith.index_cast %trips : i32 to index
  scf.for %k = %c0 to %n step %c1 {
    pool.publish @sink "drain" (%lane) : i32
  } {pool.max_trips = 1 : i64}
  wave.terminate
}
