// Every diagnostic of --sluice-verify-emission-bounds.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics \
// RUN:   --sluice-verify-emission-bounds
// The verifier matches repeated identical diagnostics with one expectation, so
// count the unmodelled-op errors: one each for @parallel and
// @suspend_in_parallel, although the latter publishes into two owners.
// RUN: %expect-exit 1 sluice-opt %s -split-input-file --sluice-verify-emission-bounds 2>&1 \
// RUN:   | grep -c "error: 'scf.parallel' op contains" | FileCheck %s --check-prefix=ONCE
// ONCE: {{^2$}}

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// The entry stage publishes max(3, 1) = 3 > 2; the notes name the publishes of
// the then-branch only.
// expected-note @below {{bound declared here}}
pool.emission_bound @over_entry -> @o max 2
// expected-error-re @below {{stage 'entry' of @over_entry may publish 3 item(s) into @o, more than its declared emission bound 2{{$}}}}
wave.coroutine @over_entry(%cond: i1) {
  scf.if %cond {
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
  } else {
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

// Stage 's' of a loop of 3 (see emission-bounds.mlir, @across_iterations):
// entry = 2 + 1 = 3 <= 4, but 's' = B + C = 2 + 3 = 5 > 4, reported at the
// suspension with the five publishes of that path.
// expected-note @below {{bound declared here}}
pool.emission_bound @over_stage -> @o max 4
wave.coroutine @over_stage() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  pool.publish @o "a"
  pool.publish @o "a"
  scf.for %i = %c0 to %c3 step %c1 {
    pool.publish @o "a"
    // expected-error-re @below {{stage 's' of @over_stage may publish 5 item(s) into @o, more than its declared emission bound 4{{$}}}}
    wave.suspend "s"
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
  }
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// Every stage over its bound is reported: entry 2 > 1 and 'late' 3 > 1;
// 'fine' publishes 1. (Both errors attach a note at the bound; the verifier
// matches identical diagnostics on one line with a single expectation.)
// expected-note @below {{bound declared here}}
pool.emission_bound @over_twice -> @o max 1
// expected-error-re @below {{stage 'entry' of @over_twice may publish 2 item(s) into @o, more than its declared emission bound 1{{$}}}}
wave.coroutine @over_twice() {
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  wave.suspend "fine"
  pool.publish @o "a"
  // expected-error-re @below {{stage 'late' of @over_twice may publish 3 item(s) into @o, more than its declared emission bound 1{{$}}}}
  wave.suspend "late"
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// No declared bound: the suggested bound is the worst stage, 's' with 4 * 1.
// expected-error @below {{'wave.coroutine' op publishes into @o but declares no emission bound; add 'pool.emission_bound @undeclared -> @o max 4'}}
wave.coroutine @undeclared() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pool.publish @o "a"
  wave.suspend "s"
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-note @below {{publish on the worst path}}
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
pool.owner @p capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A bound for one owner does not cover another.
pool.emission_bound @other_owner -> @o max 1
// expected-error @below {{'wave.coroutine' op publishes into @p but declares no emission bound; add 'pool.emission_bound @other_owner -> @p max 1'}}
wave.coroutine @other_owner() {
  pool.publish @o "a"
  // expected-note @below {{publish on the worst path}}
  pool.publish @p "a"
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

wave.coroutine @twice_declared() {
  pool.publish @o "a"
  wave.terminate
}
// expected-note @below {{first declared here}}
pool.emission_bound @twice_declared -> @o max 1
// expected-error @below {{'pool.emission_bound' op duplicate emission bound for @twice_declared -> @o}}
pool.emission_bound @twice_declared -> @o max 2

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

pool.emission_bound @dynamic_for -> @o max 8
wave.coroutine @dynamic_for(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'scf.for' op publishes into @o inside a loop without a constant trip count; declare a bound with 'pool.max_trips = N : i64'}}
  scf.for %i = %c0 to %n step %c1 {
    // expected-note @below {{publish inside the loop}}
    pool.publish @o "a"
    // expected-note @below {{publish inside the loop}}
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

// A dynamic step is no constant trip count either; the inner loop is reported.
pool.emission_bound @dynamic_step -> @o max 8
wave.coroutine @dynamic_step(%step: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @below {{'scf.for' op publishes into @o inside a loop without a constant trip count; declare a bound with 'pool.max_trips = N : i64'}}
    scf.for %j = %c0 to %c4 step %step {
      // expected-note @below {{publish inside the loop}}
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

pool.emission_bound @unbounded_while -> @o max 8
wave.coroutine @unbounded_while(%cond: i1) {
  // expected-error @below {{'scf.while' op publishes into @o inside a loop without a constant trip count; declare a bound with 'pool.max_trips = N : i64'}}
  scf.while : () -> () {
    scf.condition(%cond)
  } do {
    // expected-note @below {{publish inside the loop}}
    pool.publish @o "a"
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

// A publish in the before region repeats as well.
pool.emission_bound @unbounded_while_before -> @o max 8
wave.coroutine @unbounded_while_before(%cond: i1) {
  // expected-error @below {{'scf.while' op publishes into @o inside a loop without a constant trip count; declare a bound with 'pool.max_trips = N : i64'}}
  scf.while : () -> () {
    // expected-note @below {{publish inside the loop}}
    pool.publish @o "a"
    scf.condition(%cond)
  } do {
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

// With pool.max_trips = 3 the loops are bounded, but over the bound:
// for: 3 * 1 = 3 > 2.
// expected-note @below {{bound declared here}}
pool.emission_bound @declared_for_over -> @o max 2
// expected-error-re @below {{stage 'entry' of @declared_for_over may publish 3 item(s) into @o, more than its declared emission bound 2{{$}}}}
wave.coroutine @declared_for_over(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
  } {pool.max_trips = 3 : i64}
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// while: before runs at most 3 + 1 = 4 times: 4 > 3.
// expected-note @below {{bound declared here}}
pool.emission_bound @declared_while_over -> @o max 3
// expected-error-re @below {{stage 'entry' of @declared_while_over may publish 4 item(s) into @o, more than its declared emission bound 3{{$}}}}
wave.coroutine @declared_while_over(%cond: i1) {
  scf.while : () -> () {
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
    scf.condition(%cond)
  } do {
    scf.yield
  } attributes {pool.max_trips = 3 : i64}
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// scf.parallel is not modelled, with constant bounds or a declared bound.
pool.emission_bound @parallel -> @o max 8
wave.coroutine @parallel() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @below {{'scf.parallel' op contains a publish or suspension, but its control flow is not understood by the emission-bound analysis (use scf.if, scf.for, scf.while, scf.index_switch or scf.execute_region)}}
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    // expected-note @below {{nested here}}
    pool.publish @o "a"
    scf.reduce
  } {pool.max_trips = 4 : i64}
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

pool.emission_bound @forall -> @o max 8
wave.coroutine @forall() {
  // expected-error @below {{'scf.forall' op contains a publish or suspension, but its control flow is not understood by the emission-bound analysis}}
  scf.forall (%i) in (4) {
    // expected-note @below {{nested here}}
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
pool.owner @p capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// A suspension inside an unmodelled op is reported too, once however many
// owners the coroutine publishes into.
pool.emission_bound @suspend_in_parallel -> @o max 1
pool.emission_bound @suspend_in_parallel -> @p max 1
wave.coroutine @suspend_in_parallel() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pool.publish @o "a"
  pool.publish @p "a"
  // expected-error @below {{'scf.parallel' op contains a publish or suspension, but its control flow is not understood by the emission-bound analysis}}
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    // expected-note @below {{nested here}}
    wave.suspend "s"
    scf.reduce
  }
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

pool.emission_bound @multi_block -> @o max 8
wave.coroutine @multi_block() {
  // expected-error @below {{'scf.execute_region' op has a multi-block region with a publish or suspension; emission bounds need structured control flow there}}
  scf.execute_region {
    // expected-note @below {{nested here}}
    pool.publish @o "a"
    cf.br ^next
  ^next:
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

// An iteration that may skip its suspension can publish any number of times
// within one stage: the loop still needs a trip bound.
pool.emission_bound @sometimes_suspending_while -> @o max 8
wave.coroutine @sometimes_suspending_while(%cond: i1) {
  // expected-error @below {{'scf.while' op publishes into @o inside a loop without a constant trip count; declare a bound with 'pool.max_trips = N : i64'}}
  scf.while : () -> () {
    scf.condition(%cond)
  } do {
    scf.if %cond {
      wave.suspend "next"
    }
    // expected-note @below {{publish inside the loop}}
    pool.publish @o "a"
    scf.yield
  }
  wave.terminate
}
