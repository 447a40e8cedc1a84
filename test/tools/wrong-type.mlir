// Values of the wrong type: the driver reports file:line:col and exits with
// status 1.
// RUN: %expect-exit 1 sluice-opt %s -split-input-file --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// A sort key must be a scalar.
wave.coroutine @c(%v: vector<2xf32>) {
  // CHECK: wrong-type.mlir:[[@LINE+1]]:3: error: 'wave.suspend' op operand #0 must be signless integer or floating-point or index, but got 'vector<2xf32>'
  wave.suspend "s" sort_by %v : vector<2xf32>
  wave.terminate
}

// -----

// Only a !pool.item can be released.
func.func @f(%x: i32) {
  // CHECK: wrong-type.mlir:[[@LINE+2]]:16: error: use of value '%x' expects different type than prior uses: '!pool.item' vs 'i32'
  // CHECK: wrong-type.mlir:[[@LINE-2]]:14: note: prior use here
  pool.release %x
  return
}

// -----

// The payload of a publish must match its owner's.
pool.owner @o capacity 4 stages ["a"] payload [i64] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
wave.coroutine @c(%x: f64) {
  // CHECK: wrong-type.mlir:[[@LINE+1]]:3: error: 'pool.publish' op payload types ('f64') do not match the payload ('i64') of @o
  pool.publish @o "a" (%x) : f64
  wave.terminate
}
