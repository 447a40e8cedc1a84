// The barrier examples take the path their barriers allow: fission where all
// barriers are in block-uniform control flow, coroutines where a trip count
// comes from memory.
// RUN: sluice-opt %sluice_src_root/examples/barrier/reduction.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=FISSION
// RUN: sluice-opt %sluice_src_root/examples/barrier/scan.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=FISSION
// RUN: sluice-opt %sluice_src_root/examples/barrier/transpose.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=FISSION
// RUN: sluice-opt %sluice_src_root/examples/barrier/big_state.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=FISSION
// RUN: sluice-opt %sluice_src_root/examples/barrier/data_dependent_loop.mlir --convert-gpu-to-cpu | FileCheck %s --check-prefix=CORO

// FISSION-NOT: func.func private @__sluice_lane_
// FISSION-LABEL: func.func private @__sluice_block_
// FISSION-NOT: llvm.intr.coro

// CORO-LABEL: func.func private @__sluice_lane_rounds(
// CORO: llvm.intr.coro.suspend
// CORO: llvm.intr.coro.suspend
// CORO-LABEL: func.func private @__sluice_block_rounds(
