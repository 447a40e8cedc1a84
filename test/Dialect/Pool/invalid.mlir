// Every verifier diagnostic of the pool dialect, its type and its attribute.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'pool.owner' op attribute 'capacity' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
pool.owner @zero_capacity capacity 0 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// The runtime counts slots in 32 bits.
// expected-error @below {{'pool.owner' op capacity 4294967296 does not fit the runtime's 32-bit slot counters (at most 4294967295)}}
pool.owner @too_big capacity 4294967296 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{attribute 'capacity' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
pool.owner @negative_capacity capacity -4 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op needs at least one stage}}
pool.owner @no_stages capacity 1 stages [] payload [] {
}

// -----

// expected-error @below {{'pool.owner' op stage 'a' appears more than once}}
pool.owner @duplicate_stage capacity 1 stages ["a", "b", "a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
  pool.handler "b" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op stage name must not be empty}}
pool.owner @empty_stage capacity 1 stages ["a", ""] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op stage name "a-b" may hold letters, digits and '_' only: it becomes part of kernel names on every backend}}
pool.owner @dashed_stage capacity 1 stages ["a-b"] payload [] {
  pool.handler "a-b" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op name "o-p" may hold letters, digits and '_' only}}
pool.owner @"o-p" capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op stage 'b' has no handler}}
pool.owner @missing_handler capacity 1 stages ["a", "b"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

pool.owner @duplicate_handler capacity 1 stages ["a"] payload [] {
  // expected-note @below {{previous handler here}}
  pool.handler "a" (%item) {
    pool.release %item
  }
  // expected-error @below {{'pool.handler' op stage 'a' already has a handler}}
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

pool.owner @unknown_handler_stage capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
  // expected-error @below {{'pool.handler' op handles unknown stage 'z' of @unknown_handler_stage}}
  pool.handler "z" (%item) {
    pool.release %item
  }
}

// -----

pool.owner @non_handler_in_body capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
  // expected-error @below {{'arith.constant' op is not allowed in the body of 'pool.owner'; only 'pool.handler' is}}
  %c = arith.constant 1 : i32
}

// -----

"pool.owner"() <{capacity = 1 : i64, payload = [], stages = ["a"], sym_name = "handler_arg_type"}> ({
  // expected-error @below {{'pool.handler' op body must take exactly one '!pool.item' argument}}
  "pool.handler"() <{stage = "a"}> ({
  ^bb0(%x: i32):
  }) : () -> ()
}) : () -> ()

// -----

"pool.owner"() <{capacity = 1 : i64, payload = [], stages = ["a"], sym_name = "handler_no_arg"}> ({
  // expected-error @below {{'pool.handler' op body must take exactly one '!pool.item' argument}}
  "pool.handler"() <{stage = "a"}> ({
  ^bb0:
  }) : () -> ()
}) : () -> ()

// -----

"pool.owner"() <{capacity = 1 : i64, payload = [], stages = ["a"], sym_name = "handler_two_args"}> ({
  // expected-error @below {{'pool.handler' op body must take exactly one '!pool.item' argument}}
  "pool.handler"() <{stage = "a"}> ({
  ^bb0(%a: !pool.item, %b: !pool.item):
  }) : () -> ()
}) : () -> ()

// -----

func.func @handler_outside_owner() {
  // expected-error @below {{'pool.handler' op expects parent op 'pool.owner'}}
  pool.handler "a" (%item) {
    pool.release %item
  }
  return
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    // expected-error @below {{'pool.publish' op only main stages publish: must be nested inside a 'wave.coroutine'}}
    pool.publish @o "a"
    pool.release %item
  }
}

// -----

func.func @publish_in_func() {
  // expected-error @below {{'pool.publish' op only main stages publish: must be nested inside a 'wave.coroutine'}}
  pool.publish @o "a"
  return
}

// -----

wave.coroutine @publish_unknown_owner() {
  // expected-error @below {{'pool.publish' op 'missing' does not reference a 'pool.owner'}}
  pool.publish @missing "a"
  wave.terminate
}

// -----

func.func @not_an_owner() {
  return
}
wave.coroutine @publish_to_function() {
  // expected-error @below {{'pool.publish' op 'not_an_owner' does not reference a 'pool.owner'}}
  pool.publish @not_an_owner "a"
  wave.terminate
}

// -----

// expected-note @below {{owner declared here}}
pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
wave.coroutine @publish_unknown_stage() {
  // expected-error @below {{'pool.publish' op @o has no stage 'b'}}
  pool.publish @o "b"
  wave.terminate
}

// -----

// expected-note @below {{owner declared here}}
pool.owner @o capacity 1 stages ["a"] payload [f32, i32] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
wave.coroutine @publish_wrong_payload(%x: i32, %y: f32) {
  // expected-error @below {{'pool.publish' op payload types ('i32', 'f32') do not match the payload ('f32', 'i32') of @o}}
  pool.publish @o "a" (%x, %y) : i32, f32
  wave.terminate
}

// -----

// expected-note @below {{owner declared here}}
pool.owner @o capacity 1 stages ["a"] payload [f32] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
wave.coroutine @publish_missing_payload() {
  // expected-error @below {{'pool.publish' op payload types () do not match the payload ('f32') of @o}}
  pool.publish @o "a"
  wave.terminate
}

// -----

func.func @load_outside_handler(%item: !pool.item) {
  // expected-error @below {{'pool.load' op must be nested inside a 'pool.handler'}}
  pool.load %item
  return
}

// -----

// expected-note @below {{owner declared here}}
pool.owner @o capacity 1 stages ["a"] payload [f32, i32] {
  pool.handler "a" (%item) {
    // expected-error @below {{'pool.load' op result types ('f32') do not match the payload ('f32', 'i32') of @o}}
    %t = pool.load %item : f32
    pool.release %item
  }
}

// -----

// expected-note @below {{prior use here}}
func.func @load_non_item(%x: i32) {
  // expected-error @below {{use of value '%x' expects different type than prior uses: '!pool.item' vs 'i32'}}
  pool.load %x
  return
}

// -----

func.func @move_outside_handler(%item: !pool.item) {
  // expected-error @below {{'pool.move' op must be nested inside a 'pool.handler'}}
  pool.move %item to "a"
  return
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    // expected-error @below {{'pool.move' op target stage 'z' is not a stage of @o}}
    pool.move %item to "z"
  }
}

// -----

// expected-note @below {{owner declared here}}
pool.owner @o capacity 1 stages ["a", "b"] payload [f32] {
  pool.handler "a" (%item) {
    %c = arith.constant 1 : i32
    // expected-error @below {{'pool.move' op payload types ('i32') do not match the payload ('f32') of @o}}
    pool.move %item to "b" (%c) : i32
  }
  pool.handler "b" (%item) {
    pool.release %item
  }
}

// -----

func.func @release_outside_handler(%item: !pool.item) {
  // expected-error @below {{'pool.release' op must be nested inside a 'pool.handler'}}
  pool.release %item
  return
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
// expected-error @below {{'pool.emission_bound' op producer 'missing' does not reference a 'wave.coroutine'}}
pool.emission_bound @missing -> @o max 1

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
// expected-error @below {{'pool.emission_bound' op producer 'o' does not reference a 'wave.coroutine'}}
pool.emission_bound @o -> @o max 1

// -----

wave.coroutine @producer() {
  wave.terminate
}
// expected-error @below {{'pool.emission_bound' op owner 'missing' does not reference a 'pool.owner'}}
pool.emission_bound @producer -> @missing max 1

// -----

wave.coroutine @producer() {
  wave.terminate
}
// expected-error @below {{'pool.emission_bound' op owner 'producer' does not reference a 'pool.owner'}}
pool.emission_bound @producer -> @producer max 1

// -----

// expected-error-re @below {{'pool.emission_bound' op attribute 'bound' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1{{$}}}}
pool.emission_bound @producer -> @o max 0

// -----

// expected-error-re @below {{attribute 'bound' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1{{$}}}}
pool.emission_bound @producer -> @o max -1

// -----

func.func @max_trips_on_non_loop() {
  // expected-error @below {{'pool.max_trips' is only meaningful on a loop}}
  %c = arith.constant {pool.max_trips = 1 : i64} 1 : i32
  return
}

// -----

func.func @max_trips_negative(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error-re @below {{'pool.max_trips' must be non-negative, got -1{{$}}}}
  scf.for %i = %c0 to %n step %c1 {
  } {pool.max_trips = -1 : i64}
  return
}

// -----

func.func @max_trips_i32(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'pool.max_trips' must be an i64 integer attribute}}
  scf.for %i = %c0 to %n step %c1 {
  } {pool.max_trips = 4 : i32}
  return
}

// -----

func.func @max_trips_string(%cond: i1) {
  // expected-error @below {{'pool.max_trips' must be an i64 integer attribute}}
  scf.while : () -> () {
    scf.condition(%cond)
  } do {
    scf.yield
  } attributes {pool.max_trips = "four"}
  return
}

// -----

func.func @unknown_pool_attribute(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{unknown pool dialect attribute 'pool.max_trip'}}
  scf.for %i = %c0 to %n step %c1 {
  } {pool.max_trip = 4 : i64}
  return
}

// -----

// expected-error @below {{unknown pool dialect attribute 'pool.capacity'}}
func.func @unknown_pool_attribute_on_func() attributes {pool.capacity = 4 : i64} {
  return
}

// -----

// expected-error @below {{unknown  type `slot` in dialect `pool`}}
func.func @unknown_type(%x: !pool.slot) {
  return
}
