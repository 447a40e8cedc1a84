// --sluice-to-spirv-bin needs spirv.modules, and a directory when there are
// several.
// REQUIRES: spirv-tools
// RUN: %expect-exit 1 sluice-translate --sluice-to-spirv-bin %s 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: sluice-opt --sluice-to-spirv %s | %expect-exit 1 sluice-translate --sluice-to-spirv-bin 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: rm -rf %t.dir
// RUN: sluice-opt --sluice-to-spirv %s | sluice-translate --sluice-to-spirv-bin --sluice-spirv-dir=%t.dir | FileCheck %s --check-prefix=DIR
// RUN: spirv-val --target-env vulkan1.1 %t.dir/a.spv
// RUN: spirv-val --target-env vulkan1.1 %t.dir/b.spv

// NONE: error: no spirv.module to serialize; run --sluice-to-spirv first
// TWO: error: 2 spirv.modules; give --sluice-spirv-dir to write one file each
// DIR: spirv a {{.*}}a.spv entry_points ka
// DIR-NEXT: spirv b {{.*}}b.spv entry_points kb
// DIR-NOT: descriptor

module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @ka(%out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @kb(%out: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      %v = arith.index_cast %tid : index to i32
      memref.store %v, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
}
