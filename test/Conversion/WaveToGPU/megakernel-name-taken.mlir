// A stage named "megakernel" already owns the kernel name the megakernel
// would take (stage kernels are @<coroutine>__<stage>): a located error,
// not a silent replacement of the stage's kernel.
// RUN: %expect-exit 1 sluice-opt %s --wave-split --convert-wave-to-gpu --sluice-build-megakernel 2>&1 | FileCheck %s
// CHECK: error: sluice-build-megakernel: @sluice_kernels already has a kernel @emit__megakernel that is not the descriptor's megakernel

wave.coroutine @emit(%lane: i32) {
  wave.suspend "megakernel"
  wave.terminate
}
