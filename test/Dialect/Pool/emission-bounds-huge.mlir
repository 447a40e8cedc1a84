// Huge trip counts: exact up to 2^64 - 1, saturated from 2^64 on, and trip
// counts whose span `ub - lb` overflows the induction variable's type.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics \
// RUN:   --sluice-verify-emission-bounds=print-bounds

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// 2^32 * 2^31 = 2^63 = 9223372036854775808, one more than the largest
// declarable bound 2^63 - 1 = 9223372036854775807.
// expected-note @below {{bound declared here}}
pool.emission_bound @two_pow_63 -> @o max 9223372036854775807
// expected-remark @below {{stage 'entry' of @two_pow_63 publishes at most 9223372036854775808 item(s) into @o}}
// expected-error-re @below {{stage 'entry' of @two_pow_63 may publish 9223372036854775808 item(s) into @o, more than its declared emission bound 9223372036854775807{{$}}}}
wave.coroutine @two_pow_63() {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %two_pow_31 = arith.constant 2147483648 : i64
  %two_pow_32 = arith.constant 4294967296 : i64
  scf.for %i = %c0 to %two_pow_32 step %c1 : i64 {
    scf.for %j = %c0 to %two_pow_31 step %c1 : i64 {
      // expected-note @below {{publish on the worst path}}
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

// 2^40 * 2^40 = 2^80 saturates.
// expected-note @below {{bound declared here}}
pool.emission_bound @two_pow_80 -> @o max 1000
// expected-remark @below {{stage 'entry' of @two_pow_80 publishes at most 2^64 or more item(s) into @o}}
// expected-error-re @below {{stage 'entry' of @two_pow_80 may publish 2^64 or more item(s) into @o, more than its declared emission bound 1000{{$}}}}
wave.coroutine @two_pow_80() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two_pow_40 = arith.constant 1099511627776 : index
  scf.for %i = %c0 to %two_pow_40 step %c1 {
    scf.for %j = %c0 to %two_pow_40 step %c1 {
      // expected-note @below {{publish on the worst path}}
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

// 2 * (2^63 - 1) + 1 = 2^64 - 1 = 18446744073709551615 is still exact.
// expected-note @below {{bound declared here}}
pool.emission_bound @two_pow_64_minus_1 -> @o max 1
// expected-remark @below {{stage 'entry' of @two_pow_64_minus_1 publishes at most 18446744073709551615 item(s) into @o}}
// expected-error-re @below {{stage 'entry' of @two_pow_64_minus_1 may publish 18446744073709551615 item(s) into @o, more than its declared emission bound 1{{$}}}}
wave.coroutine @two_pow_64_minus_1() {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %max = arith.constant 9223372036854775807 : i64
  scf.for %i = %c0 to %max step %c1 : i64 {
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
  }
  scf.for %i = %c0 to %max step %c1 : i64 {
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
  }
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

// An unsigned loop from 0 to 2^64 - 1 runs 2^64 - 1 times; one more publish
// makes 2^64, which saturates.
// expected-note @below {{bound declared here}}
pool.emission_bound @two_pow_64 -> @o max 1
// expected-remark @below {{stage 'entry' of @two_pow_64 publishes at most 2^64 or more item(s) into @o}}
// expected-error-re @below {{stage 'entry' of @two_pow_64 may publish 2^64 or more item(s) into @o, more than its declared emission bound 1{{$}}}}
wave.coroutine @two_pow_64() {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %all_ones = arith.constant -1 : i64
  scf.for unsigned %i = %c0 to %all_ones step %c1 : i64 {
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
  }
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

// An i128 loop of 2^70 trips saturates.
// expected-note @below {{bound declared here}}
pool.emission_bound @wide_induction -> @o max 1
// expected-remark @below {{stage 'entry' of @wide_induction publishes at most 2^64 or more item(s) into @o}}
// expected-error-re @below {{stage 'entry' of @wide_induction may publish 2^64 or more item(s) into @o, more than its declared emission bound 1{{$}}}}
wave.coroutine @wide_induction() {
  %c0 = arith.constant 0 : i128
  %c1 = arith.constant 1 : i128
  %two_pow_70 = arith.constant 1180591620717411303424 : i128
  scf.for %i = %c0 to %two_pow_70 step %c1 : i128 {
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

// Signed spans that overflow their type are still counted exactly:
// -100 to 100 : i8 runs 200 times; -128 to 127 : i8 runs 255 times;
// -2^63 to 2^63 - 1 step 2^62 runs ceil((2^64 - 1) / 2^62) = 4 times.
// Total 200 + 255 + 4 = 459.
pool.emission_bound @overflowing_span -> @o max 459
// expected-remark @below {{stage 'entry' of @overflowing_span publishes at most 459 item(s) into @o}}
wave.coroutine @overflowing_span() {
  %lo8 = arith.constant -100 : i8
  %hi8 = arith.constant 100 : i8
  %min8 = arith.constant -128 : i8
  %max8 = arith.constant 127 : i8
  %one8 = arith.constant 1 : i8
  scf.for %i = %lo8 to %hi8 step %one8 : i8 {
    pool.publish @o "a"
  }
  scf.for %i = %min8 to %max8 step %one8 : i8 {
    pool.publish @o "a"
  }
  %min64 = arith.constant -9223372036854775808 : i64
  %max64 = arith.constant 9223372036854775807 : i64
  %two_pow_62 = arith.constant 4611686018427387904 : i64
  scf.for %i = %min64 to %max64 step %two_pow_62 : i64 {
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

// A declared pool.max_trips of 2^63 - 1 on a loop of 2^40 publishes per trip:
// saturates. The error is reported at "s", whose stage holds the loop.
// expected-note @below {{bound declared here}}
pool.emission_bound @declared_huge -> @o max 1
// expected-remark @below {{stage 'entry' of @declared_huge publishes at most 0 item(s) into @o}}
wave.coroutine @declared_huge(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two_pow_40 = arith.constant 1099511627776 : index
  // expected-remark @below {{stage 's' of @declared_huge publishes at most 2^64 or more item(s) into @o}}
  // expected-error-re @below {{stage 's' of @declared_huge may publish 2^64 or more item(s) into @o, more than its declared emission bound 1{{$}}}}
  wave.suspend "s"
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %two_pow_40 step %c1 {
      // expected-note @below {{publish on the worst path}}
      pool.publish @o "a"
    }
  } {pool.max_trips = 9223372036854775807 : i64}
  wave.terminate
}

// -----

pool.owner @o capacity 64 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}

// Without a declared bound the error suggests one while it fits an i64:
// 2^63 - 1 publishes does.
// expected-remark @below {{stage 'entry' of @largest_declarable publishes at most 9223372036854775807 item(s) into @o}}
// expected-error @below {{'wave.coroutine' op publishes into @o but declares no emission bound; add 'pool.emission_bound @largest_declarable -> @o max 9223372036854775807'}}
wave.coroutine @largest_declarable() {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %max = arith.constant 9223372036854775807 : i64
  scf.for %i = %c0 to %max step %c1 : i64 {
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

// 2^63 publishes in stage 's' do not fit: no bound is suggested.
// expected-remark @below {{stage 'entry' of @beyond_declarable publishes at most 0 item(s) into @o}}
// expected-error @below {{'wave.coroutine' op publishes into @o but declares no emission bound; stage 's' may publish 9223372036854775808 item(s), more than any bound can declare}}
wave.coroutine @beyond_declarable() {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %max = arith.constant 9223372036854775807 : i64
  // expected-remark @below {{stage 's' of @beyond_declarable publishes at most 9223372036854775808 item(s) into @o}}
  wave.suspend "s"
  scf.for %i = %c0 to %max step %c1 : i64 {
    // expected-note @below {{publish on the worst path}}
    pool.publish @o "a"
  }
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

// expected-remark @below {{stage 'entry' of @saturated_undeclared publishes at most 2^64 or more item(s) into @o}}
// expected-error @below {{'wave.coroutine' op publishes into @o but declares no emission bound; stage 'entry' may publish 2^64 or more item(s), more than any bound can declare}}
wave.coroutine @saturated_undeclared() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two_pow_40 = arith.constant 1099511627776 : index
  scf.for %i = %c0 to %two_pow_40 step %c1 {
    scf.for %j = %c0 to %two_pow_40 step %c1 {
      // expected-note @below {{publish on the worst path}}
      pool.publish @o "a"
    }
  }
  wave.terminate
}
