// Run-time errors of the block launcher stop the program with the values
// involved.
// RUN: split-file %s %t
// RUN: env SLUICE_WORKERS=zero %expect-exit 1 sluice-run %t/tiny.mlir 2>&1 | FileCheck %s --check-prefix=WORKERS
// RUN: %expect-exit 1 sluice-run %t/huge-grid.mlir 2>&1 | FileCheck %s --check-prefix=GRID

// WORKERS: sluice runtime: SLUICE_WORKERS must be 1..1024, got 'zero'
// GRID: sluice runtime: a launch of 4294967296 blocks exceeds the launcher's limit of 4294967295 blocks

//--- tiny.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @nothing() kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@nothing blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

//--- huge-grid.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @nothing() kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c65536 = arith.constant 65536 : index
    gpu.launch_func @kernels::@nothing blocks in (%c65536, %c65536, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
