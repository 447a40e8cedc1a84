// RUN: sluice-opt --convert-gpu-launch-to-vulkan %s | FileCheck %s

// A launch of a kernel with a read-only memref, a written memref and scalar
// operands of each kind becomes begin / arg / arg / scalar... / end on the
// runtime's launch ABI (runtime/include/sluice/runtime/vulkan_launch.h);
// the SPIR-V binary is an internal constant of i32 words; the gpu.module is
// erased along with the container attribute.
//
// Access: @in is only loaded (read = 1); @out is stored (read | write = 3).
// Sizes: operand bytes = element bytes (f32: 4, i64: 8) * dim 0.
// Scalars: i32 -> 4 bytes (zero-extended), f32 -> 4 bytes (bitcast then
// zero-extended), index -> 4 bytes (index is i32 in the kernel), i64 -> 8.

// CHECK-NOT:  gpu.container_module
// CHECK:      llvm.mlir.global internal constant @__sluice_entry_kernels_k("k\00")
// CHECK:      llvm.mlir.global internal constant @__sluice_spirv_kernels(dense<"0x{{[0-9A-F]+}}"> : tensor<[[WORDS:[0-9]+]]xi32>) {{.*}}: !llvm.array<[[WORDS]] x i32>
// CHECK-NOT:  gpu.module
// CHECK-NOT:  spirv.module
// CHECK-LABEL: func.func @main(
// CHECK-SAME:   %[[IN:[^:]+]]: memref<?xf32>, %[[OUT:[^:]+]]: memref<?xi64>, %[[S32:[^:]+]]: i32, %[[SF:[^:]+]]: f32, %[[SIDX:[^:]+]]: index, %[[S64:[^:]+]]: i64)
// CHECK-DAG:   %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:   %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:   %[[C7:.+]] = arith.constant 7 : index
// CHECK-DAG:   %[[C64:.+]] = arith.constant 64 : index
// CHECK:       %[[WORDSADDR:.+]] = llvm.mlir.addressof @__sluice_spirv_kernels
// CHECK:       %[[ENTRY:.+]] = llvm.mlir.addressof @__sluice_entry_kernels_k
// CHECK:       %[[COUNT:.+]] = arith.constant [[WORDS]] : i64
// CHECK:       call @sluice_rt_vk_launch_begin(%[[WORDSADDR]], %[[COUNT]], %[[ENTRY]])
// Operand #0: in, f32, read only.
// CHECK:       memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK:       %[[FOUR:.+]] = arith.constant 4 : i64
// CHECK:       memref.dim %[[IN]], %{{.+}} : memref<?xf32>
// CHECK:       %[[INBYTES:.+]] = arith.muli %[[FOUR]], %{{.+}} : i64
// CHECK:       %[[INPTR:.+]] = llvm.inttoptr
// CHECK:       %[[READ:.+]] = arith.constant 1 : i64
// CHECK:       call @sluice_rt_vk_launch_arg(%[[INPTR]], %[[INBYTES]], %[[READ]])
// Operand #1: out, i64, written.
// CHECK:       memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:       %[[EIGHT:.+]] = arith.constant 8 : i64
// CHECK:       memref.dim %[[OUT]], %{{.+}} : memref<?xi64>
// CHECK:       %[[OUTBYTES:.+]] = arith.muli %[[EIGHT]], %{{.+}} : i64
// CHECK:       %[[OUTPTR:.+]] = llvm.inttoptr
// CHECK:       %[[RW:.+]] = arith.constant 3 : i64
// CHECK:       call @sluice_rt_vk_launch_arg(%[[OUTPTR]], %[[OUTBYTES]], %[[RW]])
// Operand #2: i32.
// CHECK:       %[[E32:.+]] = arith.extui %[[S32]] : i32 to i64
// CHECK:       %[[B4:.+]] = arith.constant 4 : i64
// CHECK:       call @sluice_rt_vk_launch_scalar(%[[E32]], %[[B4]])
// Operand #3: f32.
// CHECK:       %[[FBITS:.+]] = arith.bitcast %[[SF]] : f32 to i32
// CHECK:       %[[EF:.+]] = arith.extui %[[FBITS]] : i32 to i64
// CHECK:       %[[B4F:.+]] = arith.constant 4 : i64
// CHECK:       call @sluice_rt_vk_launch_scalar(%[[EF]], %[[B4F]])
// Operand #4: index.
// CHECK:       %[[EIDX:.+]] = arith.index_castui %[[SIDX]] : index to i64
// CHECK:       %[[B4I:.+]] = arith.constant 4 : i64
// CHECK:       call @sluice_rt_vk_launch_scalar(%[[EIDX]], %[[B4I]])
// Operand #5: i64, as is.
// CHECK:       %[[B8:.+]] = arith.constant 8 : i64
// CHECK:       call @sluice_rt_vk_launch_scalar(%[[S64]], %[[B8]])
// Grid (7, 1, 1) and block (64, 2, 1).
// CHECK-DAG:   %[[GX:.+]] = arith.index_castui %[[C7]] : index to i64
// CHECK-DAG:   %[[BX:.+]] = arith.index_castui %[[C64]] : index to i64
// CHECK-DAG:   %[[BY:.+]] = arith.index_castui %[[C2]] : index to i64
// CHECK:       call @sluice_rt_vk_launch_end(%[[GX]], %{{.+}}, %{{.+}}, %[[BX]], %[[BY]], %{{.+}})
// CHECK-NOT:   gpu.launch_func
// CHECK:       return
// CHECK-DAG:   func.func private @sluice_rt_vk_launch_begin(!llvm.ptr, i64, !llvm.ptr)
// CHECK-DAG:   func.func private @sluice_rt_vk_launch_arg(!llvm.ptr, i64, i64)
// CHECK-DAG:   func.func private @sluice_rt_vk_launch_scalar(i64, i64)
// CHECK-DAG:   func.func private @sluice_rt_vk_launch_end(i64, i64, i64, i64, i64, i64)
// CHECK-NOT:   gpu.module
// CHECK-NOT:   spirv.module

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%in: memref<?xf32>, %out: memref<?xi64>, %a: i32, %f: f32,
                %n: index, %w: i64) kernel
        attributes {known_block_size = array<i32: 64, 2, 1>} {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<?xf32>
      %g = arith.addf %v, %f : f32
      %gi = arith.fptosi %g : f32 to i64
      %a64 = arith.extsi %a : i32 to i64
      %s = arith.addi %gi, %a64 : i64
      %t = arith.addi %s, %w : i64
      %ok = arith.cmpi ult, %tid, %n : index
      scf.if %ok {
        memref.store %t, %out[%tid] : memref<?xi64>
      }
      gpu.return
    }
  }

  func.func @main(%in: memref<?xf32>, %out: memref<?xi64>, %a: i32, %f: f32,
                  %n: index, %w: i64) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c7 = arith.constant 7 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@k blocks in (%c7, %c1, %c1) threads in (%c64, %c2, %c1)
        args(%in : memref<?xf32>, %out : memref<?xi64>, %a : i32, %f : f32,
             %n : index, %w : i64)
    return
  }
}
