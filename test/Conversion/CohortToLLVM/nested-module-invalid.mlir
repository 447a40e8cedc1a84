// RUN: sluice-opt %s --convert-cohort-to-llvm -verify-diagnostics

// The launch verifies (its graph is in the nearest symbol table), but the
// lowering resolves graphs and kernels in the top-level module only.
module {
module @inner {
  func.func @k(%b: index, %n: index) {
    return
  }
  cohort.graph @g cores 2 {
    cohort.task @t kernel @k blocks 1
  }
  func.func @main() {
    // expected-error @+1 {{'cohort.launch' op launches graph @g, which is not in the top-level module; the cohort lowering resolves graphs and kernels there only}}
    cohort.launch @g
    return
  }
}
}
