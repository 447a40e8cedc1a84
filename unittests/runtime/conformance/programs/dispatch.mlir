// Conformance: dispatch without bindings (adapter_conformance_test.cpp,
// Dispatch). Lane p runs "entry", then "a"; a lane with p mod 4 == 0
// suspends once more at "b". The stage it ends in publishes one item
// n = p mod 5 + 1 into @hops, whose "hop" handler moves it back to "hop"
// with n - 1 while n > 1 and releases it at 1: n invocations per item.
pool.owner @hops capacity 32 stages ["hop"] payload [i32] {
  pool.handler "hop" (%item) {
    %n = pool.load %item : i32
    %one = arith.constant 1 : i32
    %more = arith.cmpi ugt, %n, %one : i32
    scf.if %more {
      %m = arith.subi %n, %one : i32
      pool.move %item to "hop" (%m) : i32
    } else {
      pool.release %item
    }
  }
}

pool.emission_bound @dispatch -> @hops max 1

wave.coroutine @dispatch(%lane: i32) {
  wave.suspend "a"
  %four = arith.constant 4 : i32
  %zero = arith.constant 0 : i32
  %r4 = arith.remui %lane, %four : i32
  %again = arith.cmpi eq, %r4, %zero : i32
  scf.if %again {
    wave.suspend "b"
  }
  %five = arith.constant 5 : i32
  %one = arith.constant 1 : i32
  %r5 = arith.remui %lane, %five : i32
  %n = arith.addi %r5, %one : i32
  pool.publish @hops "hop" (%n) : i32
  wave.terminate
}
