// Every verifier diagnostic of an owner storage policy (pool.owner ... policy).
// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'pool.owner' op policy has unknown key 'availabilty'; it takes prepare_for_admission, availability, admission_stage, prepare_for_producer and storage}}
pool.owner @typo capacity 4 stages ["a"] payload [] policy {availabilty = @f} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op policy hook 'availability' must name a 'func.func' (@symbol), got "f"}}
pool.owner @string_hook capacity 4 stages ["a"] payload [] policy {availability = "f"} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op policy 'storage' must be an i64 word count in [0, 4294967295], got -1 : i64}}
pool.owner @negative_storage capacity 4 stages ["a"] payload [] policy {availability = @f, storage = -1 : i64} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op policy 'storage' must be an i64 word count in [0, 4294967295], got 2 : i32}}
pool.owner @i32_storage capacity 4 stages ["a"] payload [] policy {availability = @f, storage = 2 : i32} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op policy names no hook; it takes prepare_for_admission, availability, admission_stage, prepare_for_producer}}
pool.owner @no_hook capacity 4 stages ["a"] payload [] policy {storage = 1 : i64} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op policy hook 'availability' names @missing, which is not a 'func.func'}}
pool.owner @missing capacity 4 stages ["a"] payload [] policy {availability = @missing} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// -----

// expected-error @below {{'pool.owner' op policy hook 'prepare_for_admission' names @external, which has no body; a policy is compiled from the program's own functions}}
pool.owner @declared capacity 4 stages ["a"] payload [] policy {prepare_for_admission = @external} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
// expected-note @below {{declared here}}
func.func private @external(memref<0xi64>, memref<1xi32>, i64, i64)

// -----

// The availability is a 64-bit count: an i32 result is refused.
// expected-error @below {{'pool.owner' op policy hook 'availability' @narrow has type '(memref<0xi64>, memref<1xi32>, i64, i64) -> i32', but @narrow_owner's hook takes '(memref<0xi64>, memref<1xi32>, i64, i64) -> i64' (storage, stage counts, capacity, live)}}
pool.owner @narrow_owner capacity 4 stages ["a"] payload [] policy {availability = @narrow} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
// expected-note @below {{function declared here}}
func.func @narrow(%s: memref<0xi64>, %q: memref<1xi32>, %c: i64, %l: i64) -> i32 {
  %z = arith.constant 0 : i32
  return %z : i32
}

// -----

// The counts memref has one element per stage of the owner (here 2).
// expected-error @below {{'pool.owner' op policy hook 'prepare_for_producer' @grow has type '(memref<1xi64>, memref<1xi32>, i64, i64, i64) -> ()', but @two_stages's hook takes '(memref<1xi64>, memref<2xi32>, i64, i64, i64) -> ()' (storage, stage counts, capacity, live, admitted slots)}}
pool.owner @two_stages capacity 4 stages ["a", "b"] payload [] policy {prepare_for_producer = @grow, storage = 1 : i64} {
  pool.handler "a" (%item) {
    pool.release %item
  }
  pool.handler "b" (%item) {
    pool.release %item
  }
}
// expected-note @below {{function declared here}}
func.func @grow(%s: memref<1xi64>, %q: memref<1xi32>, %c: i64, %l: i64, %n: i64) {
  return
}

// -----

// The storage memref has the declared number of words.
// expected-error @below {{'pool.owner' op policy hook 'admission_stage' @drain has type '(memref<1xi64>, memref<1xi32>, i64, i64) -> i32', but @stored's hook takes '(memref<2xi64>, memref<1xi32>, i64, i64) -> i32' (storage, stage counts, capacity, live)}}
pool.owner @stored capacity 4 stages ["a"] payload [] policy {admission_stage = @drain, storage = 2 : i64} {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
// expected-note @below {{function declared here}}
func.func @drain(%s: memref<1xi64>, %q: memref<1xi32>, %c: i64, %l: i64) -> i32 {
  %z = arith.constant 0 : i32
  return %z : i32
}
