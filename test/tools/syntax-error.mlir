// Malformed input: the driver reports file:line:col and exits with status 1.
// RUN: %expect-exit 1 sluice-opt %s -split-input-file 2>&1 | FileCheck %s

// A handler's item argument without its closing parenthesis.
pool.owner @o capacity 4 stages ["a"] payload [] {
  // CHECK: syntax-error.mlir:[[@LINE+1]]:26: error: expected ')'
  pool.handler "a" (%item {
    pool.release %item
  }
}

// -----

// An op the dialect does not define.
wave.coroutine @c() {
  // CHECK: syntax-error.mlir:[[@LINE+1]]:3: error: custom op 'wave.bogus' is unknown
  wave.bogus
  wave.terminate
}

// -----

// A task without its block count.
func.func @k() {
  return
}
cohort.graph @g cores 4 {
  // CHECK: syntax-error.mlir:[[@LINE+1]]:28: error: custom op 'cohort.task' expected 'blocks'
  cohort.task @t kernel @k sync_start
}

// -----

// An unterminated string attribute.
pool.owner @o capacity 4 stages ["a] payload [] {
// CHECK: syntax-error.mlir:[[@LINE-1]]:50: error: expected '"' in string literal
}
