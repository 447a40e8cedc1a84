// A wave program next to a hand-written gpu.module whose kernel a host
// function launches: the kernel does not take the stage-kernel ABI's
// arguments (KernelABI.h), so sluice-run and sluice-translate
// --sluice-to-artifact (every backend by default) stop at it with a located
// error and exit 1, instead of exiting 1 without a message.
//
// RUN: %expect-exit 1 sluice-run %s --lanes=2 2>&1 | FileCheck %s
// RUN: %expect-exit 1 sluice-translate --sluice-to-artifact %s -o %t.sluice 2>&1 | FileCheck %s
// RUN: %expect-exit 1 sluice-translate --sluice-to-artifact --sluice-backends=cpu %s -o %t.sluice 2>&1 | FileCheck %s
// CHECK: wave-foreign-gpu-module-error.mlir:[[@LINE+5]]:5: error: stage kernel @double takes 'memref<?xi32>', but the kernel ABI passes 'index', 'memref<?xi32>', {{.*}}'memref<?xi64>'{{$}}
// CHECK-NOT: error:

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @double(%buf: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %buf[%t] : memref<?xi32>
      %d = arith.addi %v, %v : i32
      memref.store %d, %buf[%t] : memref<?xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %m = memref.alloc(%c4) : memref<?xi32>
    gpu.launch_func @kernels::@double blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%m : memref<?xi32>)
    memref.dealloc %m : memref<?xi32>
    return
  }
  wave.coroutine @emit(%lane: i32) {
    wave.terminate
  }
}
