// A program error: "publish" may publish 3 items per invocation, but the
// declared emission bound is 2. sluice-run proves the bounds before it
// lowers anything and stops with the verifier's error.
//
// RUN: %expect-exit 1 sluice-run %s --lanes=4 2>&1 | FileCheck %s
// CHECK: error: stage 'publish' of @emit may publish 3 item(s) into @sink, more than its declared emission bound 2{{$}}
// CHECK-NOT: lanes finished

pool.owner @sink capacity 16 stages ["drain"] payload [i32] {
  pool.handler "drain" (%item) {
    pool.release %item
  }
}

pool.emission_bound @emit -> @sink max 2

wave.coroutine @emit(%lane: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  wave.suspend "publish"
  scf.for %i = %c0 to %c3 step %c1 {
    pool.publish @sink "drain" (%lane) : i32
  }
  wave.terminate
}
