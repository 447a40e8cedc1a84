// A wave program with two capacity owners, a main-stage self-loop and
// 64-bit frame fields, run end to end. "tail" publishes only into @b, so its
// runtime publish record (stride 1, @b at 0) differs from the compiled one
// (stride 2, @b at 1): sluice-run translates between them.
//
// Expected values for N = 100 lanes, derived by hand:
// - Lane p runs "step" r + 1 times, r = p mod 3 (the loop suspends at "step"
//   before every iteration), then "tail" once. p mod 3 = 0 for 34 lanes
//   (0, 3, ..., 99), 1 for 33, 2 for 33: step = 34*1 + 33*2 + 33*3 = 199;
//   entry = tail = 100.
// - Every "step" publishes one item v = p + i into @a: 199 published;
//   "first" sees 199 items and moves the odd v to "second". Among
//   p, ..., p + r: r = 0 gives 1 odd iff p odd (odd multiples of 3 up to 99:
//   3, 9, ..., 99, 17 lanes); r = 1 gives 1 (33 lanes); r = 2 gives 2 if p
//   is odd (5, 11, ..., 95: 16 lanes) else 1 (17 lanes): 32 + 17 = 49.
//   Odd v: 17 + 33 + 49 = 99. So "first" releases 199 - 99 = 100 and
//   "second" runs and releases 99.
// - "tail" publishes n = p mod 4 + 1 into @b: 100 published. "countdown"
//   runs n times per item (n -> n-1 while n > 1, release at 1), so
//   sum_p (p mod 4 + 1) = 25 * (1 + 2 + 3 + 4) = 250 invocations, 100
//   releases.
//
// RUN: sluice-run %s --lanes=100 --stats > %t.wf
// RUN: FileCheck %s < %t.wf
// RUN: sluice-run %s --lanes=100 --stats --layout=aos | sed 's/aos frames/soa frames/' | diff %t.wf -
// RUN: sluice-run %s --lanes=100 --stats --schedule=state-machine > %t.sm
// RUN: FileCheck %s < %t.sm
// RUN: awk '/^(entry|step|tail|a\.|b\.)/ {print $1, $3, $4, $5}' %t.wf > %t.wf.counts
// RUN: awk '/^(entry|step|tail|a\.|b\.)/ {print $1, $3, $4, $5}' %t.sm > %t.sm.counts
// RUN: diff %t.wf.counts %t.sm.counts
// Small pools and a small frame pool: same counts, with partial admission.
// RUN: sluice-run %s --lanes=100 --stats --capacity=a=3 --capacity=b=2 --frame-pool=5 --layout=aos > %t.small
// RUN: awk '/^(entry|step|tail|a\.|b\.)/ {print $1, $3, $4, $5}' %t.small | diff %t.wf.counts -
//
// CHECK:      walk: 100 lanes
// CHECK:      {{^}}entry       {{ *}}{{[0-9]+}} {{ *}}100 {{ *}}0 {{ *}}0{{ }}
// CHECK-NEXT: {{^}}step        {{ *}}{{[0-9]+}} {{ *}}199 {{ *}}199 {{ *}}0{{ }}
// CHECK-NEXT: {{^}}tail        {{ *}}{{[0-9]+}} {{ *}}100 {{ *}}100 {{ *}}0{{ }}
// CHECK-NEXT: {{^}}a.first     {{ *}}{{[0-9]+}} {{ *}}199 {{ *}}0 {{ *}}100{{ }}
// CHECK-NEXT: {{^}}a.second    {{ *}}{{[0-9]+}} {{ *}}99 {{ *}}0 {{ *}}99{{ }}
// CHECK-NEXT: {{^}}b.countdown {{ *}}{{[0-9]+}} {{ *}}250 {{ *}}0 {{ *}}100{{ }}
// CHECK:      lanes finished: 100{{$}}
// CHECK-NEXT: owner a: capacity 64, items published 199, released 199{{$}}
// CHECK-NEXT: owner b: capacity 32, items published 100, released 100{{$}}

pool.owner @a capacity 64 stages ["first", "second"] payload [i32] {
  pool.handler "first" (%item) {
    %v = pool.load %item : i32
    %one = arith.constant 1 : i32
    %bit = arith.andi %v, %one : i32
    %zero = arith.constant 0 : i32
    %even = arith.cmpi eq, %bit, %zero : i32
    scf.if %even {
      pool.release %item
    } else {
      pool.move %item to "second"
    }
  }
  pool.handler "second" (%item) {
    pool.release %item
  }
}

pool.owner @b capacity 32 stages ["countdown"] payload [i64, f32] {
  pool.handler "countdown" (%item) {
    %n, %w = pool.load %item : i64, f32
    %one = arith.constant 1 : i64
    %more = arith.cmpi ugt, %n, %one : i64
    scf.if %more {
      %m = arith.subi %n, %one : i64
      pool.move %item to "countdown" (%m, %w) : i64, f32
    } else {
      pool.release %item
    }
  }
}

pool.emission_bound @walk -> @a max 1
pool.emission_bound @walk -> @b max 1

wave.coroutine @walk(%lane: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %three = arith.constant 3 : i32
  %r = arith.remui %lane, %three : i32
  %ri = arith.index_cast %r : i32 to index
  %steps = arith.addi %ri, %c1 : index
  scf.for %i = %c0 to %steps step %c1 {
    wave.suspend "step"
    %ii = arith.index_cast %i : index to i32
    %v = arith.addi %lane, %ii : i32
    pool.publish @a "first" (%v) : i32
  } {pool.max_trips = 3 : i64}
  wave.suspend "tail"
  %four = arith.constant 4 : i32
  %q = arith.remui %lane, %four : i32
  %qe = arith.extui %q : i32 to i64
  %c1_64 = arith.constant 1 : i64
  %n = arith.addi %qe, %c1_64 : i64
  %w = arith.constant 1.0 : f32
  pool.publish @b "countdown" (%n, %w) : i64, f32
  wave.terminate
}
