// Each pass of the --sluice-verify pipeline reports its own errors.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics --sluice-verify

pool.owner @o capacity 4 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
// expected-note @below {{bound declared here}}
pool.emission_bound @producer -> @o max 1
// expected-error-re @below {{stage 'entry' of @producer may publish 2 item(s) into @o, more than its declared emission bound 1{{$}}}}
wave.coroutine @producer() {
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  // expected-note @below {{publish on the worst path}}
  pool.publish @o "a"
  wave.terminate
}

// -----

pool.owner @o capacity 4 stages ["a"] payload [] {
  // expected-error @below {{'pool.handler' op handler of stage 'a' neither moves nor releases its item; every path must do exactly one}}
  pool.handler "a" (%item) {
  }
}

// -----

func.func @k() {
  return
}
cohort.graph @g cores 2 {
  // expected-error @below {{'cohort.task' op cohort @t has 3 blocks but graph @g has 2 cores: its blocks can never be co-resident}}
  cohort.task @t kernel @k blocks 3 sync_start
}
