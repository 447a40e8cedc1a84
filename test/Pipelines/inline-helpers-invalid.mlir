// A call that the inliner cannot remove from stage code is an error at the
// call, with the reason and a note at the helper.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics --sluice-inline-helpers

// expected-note @below {{the helper is here}}
func.func private @countdown(%n: i32) -> i32 {
  %one = arith.constant 1 : i32
  %m = arith.subi %n, %one : i32
  %r = func.call @countdown(%m) : (i32) -> i32
  return %r : i32
}
wave.coroutine @self_recursive(%lane: i32) {
  // expected-error @below {{call in wave.coroutine @self_recursive was not inlined: the helper is recursive (@countdown -> @countdown); write the recursion as a loop with an explicit stack}}
  %r = func.call @countdown(%lane) : (i32) -> i32
  wave.terminate
}

// -----

// The inliner inlines @ping and @pong once each; the call left is @pong's
// call of @ping, now in the handler.
// expected-note @below {{the helper is here}}
func.func private @ping(%n: i32) -> i32 {
  %r = func.call @pong(%n) : (i32) -> i32
  return %r : i32
}
func.func private @pong(%n: i32) -> i32 {
  // expected-error @below {{call in pool.owner @o was not inlined: the helper is recursive (@ping -> @pong -> @ping)}}
  %r = func.call @ping(%n) : (i32) -> i32
  return %r : i32
}
pool.owner @o capacity 8 stages ["s"] payload [i32] {
  pool.handler "s" (%item) {
    %v = pool.load %item : i32
    %r = func.call @ping(%v) : (i32) -> i32
    pool.release %item
  }
}

// -----

// expected-note @below {{the helper is here}}
func.func private @external(%n: i32) -> i32
wave.coroutine @declaration(%lane: i32) {
  // expected-error @below {{call in wave.coroutine @declaration was not inlined: the helper has no body (a declaration)}}
  %r = func.call @external(%lane) : (i32) -> i32
  wave.terminate
}

// -----

// expected-note @below {{the helper is here}}
func.func private @branchy(%n: i32) -> i32 {
  cf.br ^next
^next:
  return %n : i32
}
wave.coroutine @unstructured(%lane: i32) {
  // expected-error @below {{call in wave.coroutine @unstructured was not inlined: the helper's body has 2 blocks; write its control flow with scf ops}}
  %r = func.call @branchy(%lane) : (i32) -> i32
  wave.terminate
}
