// The barrier examples take the path their barriers allow: fission where all
// barriers are in block-uniform control flow -- including a loop whose trip
// count every lane loads from the same address (data_dependent_loop: one load
// per block, a block-level loop).
// RUN: sluice-opt %sluice_src_root/examples/barrier/reduction.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=FISSION
// RUN: sluice-opt %sluice_src_root/examples/barrier/scan.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=FISSION
// RUN: sluice-opt %sluice_src_root/examples/barrier/transpose.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=FISSION
// RUN: sluice-opt %sluice_src_root/examples/barrier/big_state.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=FISSION
// RUN: sluice-opt %sluice_src_root/examples/barrier/iterate.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=FISSION
// RUN: sluice-opt %sluice_src_root/examples/barrier/data_dependent_loop.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefixes=FISSION,UNIFORM

// FISSION-NOT: func.func private @__sluice_lane_
// FISSION-LABEL: func.func private @__sluice_block_
// FISSION-NOT: llvm.intr.coro

// UNIFORM: %[[TRIPS:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// UNIFORM-NEXT: %[[T:.*]] = arith.index_cast %[[TRIPS]] : i32 to index
// UNIFORM-NOT: func.func
// UNIFORM: scf.for %{{.*}} = %{{.*}} to %[[T]] step
