// Only GPU backends have a host half here; the CPU's is convert-gpu-to-cpu,
// which lowers its launches to the same ABI.
// RUN: %expect-exit 1 sluice-opt --convert-gpu-launch-to-runtime=backend=cpu %s 2>&1 | FileCheck %s
// CHECK: error: convert-gpu-launch-to-runtime: backend must be 'vulkan' or 'hip', got 'cpu' (the CPU backend's launches are lowered by convert-gpu-to-cpu){{$}}

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
