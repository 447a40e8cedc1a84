// A kernel whose launches choose the block size at run time (one launch of
// a size read from memory, and a kernel launched with two constant sizes):
// gpu.block_dim reads spec constants @<kernel>__block_dim_{x,y,z}, the entry
// point has LocalSize 1 1 1, and the Vulkan runtime sets both per size. A
// kernel of one constant size keeps its LocalSize and has no spec constants.
// REQUIRES: spirv-tools
// RUN: sluice-opt --sluice-to-spirv %s | FileCheck %s
// RUN: sluice-opt --sluice-to-spirv %s | FileCheck %s --check-prefix=NOBUILTIN
// RUN: sluice-opt --sluice-to-spirv %s | sluice-translate --sluice-to-spirv-bin -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s --check-prefix=DIS

// CHECK-LABEL: spirv.module @__spv__m
// CHECK-DAG: spirv.SpecConstant @runtime__block_dim_x = 1 : i32
// CHECK-DAG: spirv.SpecConstant @runtime__block_dim_y = 1 : i32
// CHECK-DAG: spirv.SpecConstant @runtime__block_dim_z = 1 : i32
// CHECK-DAG: spirv.SpecConstant @two_sizes__block_dim_x = 1 : i32
// CHECK-DAG: spirv.mlir.referenceof @runtime__block_dim_x : i32
// CHECK-DAG: spirv.mlir.referenceof @runtime__block_dim_y : i32
// CHECK-DAG: spirv.mlir.referenceof @two_sizes__block_dim_x : i32
// CHECK-DAG: spirv.ExecutionMode @runtime "LocalSize", 1, 1, 1
// CHECK-DAG: spirv.ExecutionMode @two_sizes "LocalSize", 1, 1, 1
// CHECK-DAG: spirv.ExecutionMode @fixed "LocalSize", 32, 1, 1

// Vulkan allows the WorkgroupSize builtin only on a constant.
// NOBUILTIN-NOT: WorkgroupSize
// NOBUILTIN-NOT: @fixed__block_dim

// DIS-DAG: OpExecutionMode %runtime LocalSize 1 1 1
// DIS-DAG: OpExecutionMode %fixed LocalSize 32 1 1
// DIS-DAG: OpName %runtime__block_dim_x "runtime__block_dim_x"
// DIS-DAG: %runtime__block_dim_x = OpSpecConstant %uint 1
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @runtime(%b: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %x = gpu.block_dim x
      %y = gpu.block_dim y
      %s = arith.muli %x, %y : index
      %v = arith.index_cast %s : index to i32
      memref.store %v, %b[%t] : memref<?xi32>
      gpu.return
    }
    gpu.func @two_sizes(%b: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %x = gpu.block_dim x
      %v = arith.index_cast %x : index to i32
      memref.store %v, %b[%t] : memref<?xi32>
      gpu.return
    }
    gpu.func @fixed(%b: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %x = gpu.block_dim x
      %v = arith.index_cast %x : index to i32
      memref.store %v, %b[%t] : memref<?xi32>
      gpu.return
    }
  }
  func.func @host(%b: memref<?xi32>, %sizes: memref<1xindex>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %n = memref.load %sizes[%c0] : memref<1xindex>
    gpu.launch_func @m::@runtime blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1) args(%b : memref<?xi32>)
    gpu.launch_func @m::@two_sizes blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%b : memref<?xi32>)
    gpu.launch_func @m::@two_sizes blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%b : memref<?xi32>)
    gpu.launch_func @m::@fixed blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%b : memref<?xi32>)
    return
  }
}
