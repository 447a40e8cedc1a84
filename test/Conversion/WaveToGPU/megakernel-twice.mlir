// The megakernel is built once: a second run of the pass is an error.
// RUN: %expect-exit 1 sluice-opt %S/megakernel.mlir --wave-split --convert-wave-to-gpu --sluice-build-megakernel --sluice-build-megakernel 2>&1 | FileCheck %s
// CHECK: error: sluice-build-megakernel: @sluice_kernels already has a kernel @emit__megakernel
