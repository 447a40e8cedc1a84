// Computed emission bounds of accepted programs. Every expected value is
// derived by hand in the comment above its case. The entry stage's remark is
// reported at the coroutine, every other stage's at the suspension it resumes.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics \
// RUN:   --sluice-verify-emission-bounds=print-bounds | FileCheck %s

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// Three publishes in a row: 3. A bound equal to the worst stage is accepted.
pool.emission_bound @straight -> @o max 3
// expected-remark @below {{stage 'entry' of @straight publishes at most 3 item(s) into @o}}
wave.coroutine @straight() {
  pool.publish @o "a"
  pool.publish @o "a"
  pool.publish @o "a"
  wave.terminate
}

// The pass changes nothing.
// CHECK-LABEL: wave.coroutine @straight()
// CHECK-COUNT-3: pool.publish @o "a"

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// Constant trip counts multiply: 4 outer * 3 inner = 12.
pool.emission_bound @nested_loops -> @o max 12
// expected-remark @below {{stage 'entry' of @nested_loops publishes at most 12 item(s) into @o}}
wave.coroutine @nested_loops() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      pool.publish @o "a"
    }
  }
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// Trip counts are ceil((ub - lb) / step): 2..11 step 3 runs 3 times
// (2, 5, 8), 7..7 and 9..2 run 0 times; so 3 * 2 = 6.
pool.emission_bound @strided -> @o max 6
// expected-remark @below {{stage 'entry' of @strided publishes at most 6 item(s) into @o}}
wave.coroutine @strided() {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c7 = arith.constant 7 : i32
  %c9 = arith.constant 9 : i32
  %c11 = arith.constant 11 : i32
  scf.for %i = %c2 to %c11 step %c3 : i32 {
    pool.publish @o "a"
    pool.publish @o "a"
  }
  scf.for %i = %c7 to %c7 step %c3 : i32 {
    pool.publish @o "a"
  }
  scf.for %i = %c9 to %c2 step %c3 : i32 {
    pool.publish @o "a"
  }
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// if/else takes the larger branch: max(2, 5) = 5; an if without else takes
// max(2, 0) = 2; total 5 + 2 = 7.
pool.emission_bound @branches -> @o max 7
// expected-remark @below {{stage 'entry' of @branches publishes at most 7 item(s) into @o}}
wave.coroutine @branches(%cond: i1) {
  scf.if %cond {
    pool.publish @o "a"
    pool.publish @o "a"
  } else {
    pool.publish @o "a"
    pool.publish @o "a"
    pool.publish @o "a"
    pool.publish @o "a"
    pool.publish @o "a"
  }
  scf.if %cond {
    pool.publish @o "a"
    pool.publish @o "a"
  }
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// index_switch takes the largest case: max(case 0: 1, case 1: 3, default: 2) = 3.
pool.emission_bound @switch -> @o max 3
// expected-remark @below {{stage 'entry' of @switch publishes at most 3 item(s) into @o}}
wave.coroutine @switch(%which: index) {
  scf.index_switch %which
  case 0 {
    pool.publish @o "a"
    scf.yield
  }
  case 1 {
    pool.publish @o "a"
    pool.publish @o "a"
    pool.publish @o "a"
    scf.yield
  }
  default {
    pool.publish @o "a"
    pool.publish @o "a"
  }
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// An if inside a loop: 4 * max(2, 1) = 8. A loop inside an if: max(3 * 1, 1)
// = 3. An execute_region runs once: 2. Total 8 + 3 + 2 = 13.
pool.emission_bound @mixed -> @o max 13
// expected-remark @below {{stage 'entry' of @mixed publishes at most 13 item(s) into @o}}
wave.coroutine @mixed(%cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %cond {
      pool.publish @o "a"
      pool.publish @o "a"
    } else {
      pool.publish @o "a"
    }
  }
  scf.if %cond {
    scf.for %i = %c0 to %c3 step %c1 {
      pool.publish @o "a"
    }
  } else {
    pool.publish @o "a"
  }
  scf.execute_region {
    pool.publish @o "a"
    pool.publish @o "a"
    scf.yield
  }
  wave.terminate
}

// -----

pool.owner @shadow capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
pool.owner @queue capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
pool.owner @unused capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// Owners are counted separately. entry: @shadow 2, @queue 1. Stage 's':
// @shadow 0, @queue 3 (a loop of 3). A declared bound into an owner that is
// never published into is reported too, at 0 everywhere.
pool.emission_bound @two_owners -> @shadow max 2
pool.emission_bound @two_owners -> @queue max 3
pool.emission_bound @two_owners -> @unused max 1
// expected-remark @below {{stage 'entry' of @two_owners publishes at most 2 item(s) into @shadow}}
// expected-remark @below {{stage 'entry' of @two_owners publishes at most 1 item(s) into @queue}}
// expected-remark @below {{stage 'entry' of @two_owners publishes at most 0 item(s) into @unused}}
wave.coroutine @two_owners() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  pool.publish @shadow "a"
  pool.publish @queue "a"
  pool.publish @shadow "a"
  // expected-remark @below {{stage 's' of @two_owners publishes at most 0 item(s) into @shadow}}
  // expected-remark @below {{stage 's' of @two_owners publishes at most 3 item(s) into @queue}}
  // expected-remark @below {{stage 's' of @two_owners publishes at most 0 item(s) into @unused}}
  wave.suspend "s"
  scf.for %i = %c0 to %c3 step %c1 {
    pool.publish @queue "a"
  }
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A stage spans loop iterations. Write P0 = 2 publishes before the loop,
// A = 1 before the suspension and B = 2 after it in the body, C = 3 after the
// loop.
//   entry: P0 + A (iteration 0, up to "s")                  = 2 + 1 = 3
//   's', resumed in iteration i < 2: B + A of iteration i+1 = 2 + 1 = 3
//   's', resumed in iteration 2:     B + C                  = 2 + 3 = 5
// so 's' publishes at most 5.
pool.emission_bound @across_iterations -> @o max 5
// expected-remark @below {{stage 'entry' of @across_iterations publishes at most 3 item(s) into @o}}
wave.coroutine @across_iterations() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  pool.publish @o "a"
  pool.publish @o "a"
  scf.for %i = %c0 to %c3 step %c1 {
    pool.publish @o "a"
    // expected-remark @below {{stage 's' of @across_iterations publishes at most 5 item(s) into @o}}
    wave.suspend "s"
    pool.publish @o "a"
    pool.publish @o "a"
  }
  pool.publish @o "a"
  pool.publish @o "a"
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// Two suspensions in a loop of 4, body = 1 | "a" | 2 | "b" | 3, then 1 after
// the loop.
//   entry: 1 (iteration 0 up to "a")
//   'a':   2 (up to "b" of the same iteration)
//   'b':   3 + 1 (the next iteration's first publish, or the one after the
//          loop; both are 1) = 4
pool.emission_bound @two_in_loop -> @o max 4
// expected-remark @below {{stage 'entry' of @two_in_loop publishes at most 1 item(s) into @o}}
wave.coroutine @two_in_loop() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    pool.publish @o "a"
    // expected-remark @below {{stage 'a' of @two_in_loop publishes at most 2 item(s) into @o}}
    wave.suspend "a"
    pool.publish @o "a"
    pool.publish @o "a"
    // expected-remark @below {{stage 'b' of @two_in_loop publishes at most 4 item(s) into @o}}
    wave.suspend "b"
    pool.publish @o "a"
    pool.publish @o "a"
    pool.publish @o "a"
  }
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A suspension inside one branch. Then-branch: 1 | "a"; else-branch: 2; then
// 1 | "b" | 2.
//   entry: max(then: 1 up to "a", else: 2 + 1 up to "b") = 3
//   'a':   1 (up to "b")
//   'b':   2
pool.emission_bound @suspend_in_branch -> @o max 3
// expected-remark @below {{stage 'entry' of @suspend_in_branch publishes at most 3 item(s) into @o}}
wave.coroutine @suspend_in_branch(%cond: i1) {
  scf.if %cond {
    pool.publish @o "a"
    // expected-remark @below {{stage 'a' of @suspend_in_branch publishes at most 1 item(s) into @o}}
    wave.suspend "a"
  } else {
    pool.publish @o "a"
    pool.publish @o "a"
  }
  pool.publish @o "a"
  // expected-remark @below {{stage 'b' of @suspend_in_branch publishes at most 2 item(s) into @o}}
  wave.suspend "b"
  pool.publish @o "a"
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A loop of 5 that only suspends: entry = 1 (up to "s" in iteration 0);
// 's' = 0 (up to the next "s") or 2 (after the last iteration) = 2. A loop of
// 0 trips never reaches "never" and adds nothing: 0.
pool.emission_bound @suspend_only_loop -> @o max 2
// expected-remark @below {{stage 'entry' of @suspend_only_loop publishes at most 1 item(s) into @o}}
wave.coroutine @suspend_only_loop() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  pool.publish @o "a"
  scf.for %i = %c0 to %c5 step %c1 {
    // expected-remark @below {{stage 's' of @suspend_only_loop publishes at most 2 item(s) into @o}}
    wave.suspend "s"
  }
  pool.publish @o "a"
  pool.publish @o "a"
  scf.for %i = %c0 to %c0 step %c1 {
    pool.publish @o "a"
    // expected-remark @below {{stage 'never' of @suspend_only_loop publishes at most 0 item(s) into @o}}
    wave.suspend "never"
  }
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A loop without a constant trip count needs no bound when it does not publish:
// entry = 0 + 1 = 1 whether it runs or not; 's' = 1.
pool.emission_bound @dynamic_no_publish -> @o max 1
// expected-remark @below {{stage 'entry' of @dynamic_no_publish publishes at most 1 item(s) into @o}}
wave.coroutine @dynamic_no_publish(%n: index, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-remark @below {{stage 's' of @dynamic_no_publish publishes at most 1 item(s) into @o}}
    wave.suspend "s"
  }
  scf.while : () -> () {
    scf.condition(%cond)
  } do {
    scf.yield
  }
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A dynamic scf.for declared to run at most 7 times, 2 publishes each: 14.
pool.emission_bound @declared_for -> @o max 14
// expected-remark @below {{stage 'entry' of @declared_for publishes at most 14 item(s) into @o}}
wave.coroutine @declared_for(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    pool.publish @o "a"
    pool.publish @o "a"
  } {pool.max_trips = 7 : i64}
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A dynamic loop of at most 5 trips, body 1 | "s" | 2, 1 before and 3 after.
// It may run zero times:
//   entry: max(0 trips: 1 + 3 = 4, >= 1 trip: 1 + 1 = 2)        = 4
//   's':   max(next iteration: 2 + 1 = 3, last: 2 + 3 = 5)      = 5
pool.emission_bound @declared_for_stages -> @o max 5
// expected-remark @below {{stage 'entry' of @declared_for_stages publishes at most 4 item(s) into @o}}
wave.coroutine @declared_for_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pool.publish @o "a"
  scf.for %i = %c0 to %n step %c1 {
    pool.publish @o "a"
    // expected-remark @below {{stage 's' of @declared_for_stages publishes at most 5 item(s) into @o}}
    wave.suspend "s"
    pool.publish @o "a"
    pool.publish @o "a"
  } {pool.max_trips = 5 : i64}
  pool.publish @o "a"
  pool.publish @o "a"
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// scf.while runs `before (after before)^k` with k <= pool.max_trips. Before
// publishes 1, after publishes 2, k <= 3: 4 * 1 + 3 * 2 = 10. With k <= 0 the
// second loop runs its before region once: 1. Total 11.
pool.emission_bound @declared_while -> @o max 11
// expected-remark @below {{stage 'entry' of @declared_while publishes at most 11 item(s) into @o}}
wave.coroutine @declared_while(%cond: i1) {
  scf.while : () -> () {
    pool.publish @o "a"
    scf.condition(%cond)
  } do {
    pool.publish @o "a"
    pool.publish @o "a"
    scf.yield
  } attributes {pool.max_trips = 3 : i64}
  scf.while : () -> () {
    pool.publish @o "a"
    scf.condition(%cond)
  } do {
    pool.publish @o "a"
    scf.yield
  } attributes {pool.max_trips = 0 : i64}
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A suspension in the after region of a while of at most 2 trips. before = 1,
// after = 2 | "s" | 1, then 4 after the loop.
//   entry: max(0 trips: 1 + 4 = 5, >= 1 trip: 1 + 2 = 3)            = 5
//   's':   1 + before 1, then the next after's 2 up to "s" = 4; or
//          1 + before 1 and exit + 4 = 6                           = 6
pool.emission_bound @while_stages -> @o max 6
// expected-remark @below {{stage 'entry' of @while_stages publishes at most 5 item(s) into @o}}
wave.coroutine @while_stages(%cond: i1) {
  scf.while : () -> () {
    pool.publish @o "a"
    scf.condition(%cond)
  } do {
    pool.publish @o "a"
    pool.publish @o "a"
    // expected-remark @below {{stage 's' of @while_stages publishes at most 6 item(s) into @o}}
    wave.suspend "s"
    pool.publish @o "a"
    scf.yield
  } attributes {pool.max_trips = 2 : i64}
  pool.publish @o "a"
  pool.publish @o "a"
  pool.publish @o "a"
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A coroutine that declares a bound but never publishes: 0.
pool.emission_bound @silent -> @o max 1
// expected-remark @below {{stage 'entry' of @silent publishes at most 0 item(s) into @o}}
wave.coroutine @silent() {
  // expected-remark @below {{stage 'only' of @silent publishes at most 0 item(s) into @o}}
  wave.suspend "only"
  wave.terminate
}

// A coroutine that neither publishes nor declares a bound is not reported.
wave.coroutine @unrelated() {
  wave.suspend "only"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A loop without a trip bound whose every iteration suspends (a path
// tracer's bounce loop): no stage spans more than the end of one iteration
// and the start of the next, so no pool.max_trips is needed. Stage 'next'
// runs the publish, then the condition, then suspends again or ends: 1;
// the entry stage reaches the first suspension without publishing: 0.
pool.emission_bound @suspending_while -> @o max 1
// expected-remark @below {{stage 'entry' of @suspending_while publishes at most 0 item(s) into @o}}
wave.coroutine @suspending_while(%cond: i1) {
  scf.while : () -> () {
    scf.condition(%cond)
  } do {
    // expected-remark @below {{stage 'next' of @suspending_while publishes at most 1 item(s) into @o}}
    wave.suspend "next"
    scf.if %cond {
      pool.publish @o "a"
    }
    scf.yield
  }
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A multi-block region with neither a publish nor a suspension emits nothing
// on any of its paths, so the two publishes around it give 2.
pool.emission_bound @cfg_between -> @o max 2
// expected-remark @below {{stage 'entry' of @cfg_between publishes at most 2 item(s) into @o}}
wave.coroutine @cfg_between(%lane: i32) {
  pool.publish @o "a"
  %zero = arith.constant 0 : i32
  %odd = arith.cmpi ne, %lane, %zero : i32
  scf.execute_region {
    cf.cond_br %odd, ^left, ^right
  ^left:
    cf.br ^right
  ^right:
    scf.yield
  }
  pool.publish @o "a"
  wave.terminate
}
