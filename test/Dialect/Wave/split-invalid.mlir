// Everything wave-split rejects.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics --wave-split
// RUN: %expect-exit 1 sluice-opt %s --wave-split=layout=rows 2>&1 | FileCheck %s --check-prefix=LAYOUT

// LAYOUT: error: wave-split: layout must be 'soa' or 'aos', got 'rows'

wave.coroutine @in_parallel(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'scf.parallel' op contains a suspension, but only scf.if, scf.for, scf.while, scf.index_switch and scf.execute_region may enclose one}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    // expected-note @below {{suspension here}}
    wave.suspend "s"
    scf.reduce
  }
  wave.terminate
}

// -----

wave.coroutine @in_affine_for() {
  // expected-error @below {{'affine.for' op contains a suspension}}
  affine.for %i = 0 to 4 {
    // expected-note @below {{suspension here}}
    wave.suspend "s"
  }
  wave.terminate
}

// -----

// expected-error @below {{a value of type 'vector<4xf32>' is live across suspension 's', but only integers, floats and index can be stored in a frame}}
wave.coroutine @vector_live(%v: vector<4xf32>) {
  // expected-note @below {{suspension here}}
  wave.suspend "s"
  %e = vector.extract %v[0] : f32 from vector<4xf32>
  wave.suspend "t" sort_by %e : f32
  wave.terminate
}

// -----

wave.coroutine @reserved_name() {
  // expected-error @below {{'wave.suspend' op stage name 'entry' is reserved for the entry stage}}
  wave.suspend "entry"
  wave.terminate
}
