// References to symbols that do not exist: the driver reports file:line:col
// and exits with status 1.
// RUN: %expect-exit 1 sluice-opt %s -split-input-file --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

func.func @main() {
  // CHECK: unknown-symbol.mlir:[[@LINE+1]]:3: error: 'cohort.launch' op 'nowhere' does not reference a 'cohort.graph'
  cohort.launch @nowhere
  return
}

// -----

wave.coroutine @producer() {
  // CHECK: unknown-symbol.mlir:[[@LINE+1]]:3: error: 'pool.publish' op 'nowhere' does not reference a 'pool.owner'
  pool.publish @nowhere "a"
  wave.terminate
}

// -----

cohort.graph @g cores 4 {
  // CHECK: unknown-symbol.mlir:[[@LINE+1]]:3: error: 'cohort.task' op unknown kernel @nowhere
  cohort.task @t kernel @nowhere blocks 2
}
