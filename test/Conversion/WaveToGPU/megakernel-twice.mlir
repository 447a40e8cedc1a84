// A second run of the pass rebuilds the megakernel it built (a GPU backend's
// copy gets the voting form so): still one kernel and one descriptor entry.
// RUN: sluice-opt %S/megakernel.mlir --wave-split --convert-wave-to-gpu --sluice-build-megakernel --sluice-build-megakernel=warp-vote | FileCheck %s
// CHECK:     megakernel = {kernel = @sluice_kernels::@emit__megakernel, uniform_words = 3 : i64}
// CHECK-NOT: megakernel =
// CHECK:     gpu.func @emit__megakernel(
// CHECK:       gpu.subgroup_reduce maxui
// CHECK-NOT: gpu.func @emit__megakernel(
