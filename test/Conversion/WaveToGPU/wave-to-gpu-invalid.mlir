// Everything convert-wave-to-gpu rejects.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics --wave-split --convert-wave-to-gpu

// expected-error @below {{convert-wave-to-gpu: expected exactly one 'wave.coroutine' (the program's main stages), found 0}}
module {
}

// -----

// expected-error-re @below {{convert-wave-to-gpu: expected exactly one 'wave.coroutine' (the program's main stages), found 2{{$}}}}
module {
  wave.coroutine @a() {
    wave.terminate
  }
  wave.coroutine @b() {
    wave.terminate
  }
}

// -----

pool.owner @o capacity 4 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
wave.coroutine @unbounded() {
  // expected-error @below {{'pool.publish' op publishes into @o, but @unbounded declares no emission bound for it}}
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 4 stages ["a", "b"] payload [] {
  pool.handler "a" (%item) {
    pool.move %item to "b"
  }
  pool.handler "b" (%item) {
    pool.release %item
  }
}
pool.emission_bound @second -> @o max 1
wave.coroutine @second() {
  // expected-error @below {{'pool.publish' op publishes into stage 'b' of @o; the runtime queues published items at the owner's first stage only}}
  pool.publish @o "b"
  wave.terminate
}
