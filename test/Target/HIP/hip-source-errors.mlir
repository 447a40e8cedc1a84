// --sluice-to-hip of a module without kernels.
// RUN: not sluice-translate --sluice-to-hip %s 2>&1 | FileCheck %s
// CHECK: error: no HIP source in the module: it has no gpu.module, or sluice-gpu-to-hip has not run
module {
  func.func @host() {
    return
  }
}
