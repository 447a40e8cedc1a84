// RUN: sluice-opt --convert-gpu-launch-to-runtime %s | FileCheck %s

// A launch of a kernel with a read-only memref, a written memref and scalar
// operands of each kind becomes the host-launch ABI
// (runtime/include/sluice/runtime/launch/host_launch.h): begin with the
// Vulkan backend (2) and the SPIR-V words as the handle (4 bytes a word),
// memref + one memref_dim per dimension, scalar..., end. The SPIR-V binary is
// an internal constant of i32 words; the gpu.module is erased along with the
// container attribute.
//
// Access: @in is only loaded (read = 1); @out is stored (read | write = 3);
// both may stay resident on the device (+ 4), so the host calls
// sluice_rt_host_access before its own uses: here only at the return, where
// the caller may use both arguments (read | write = 3, each with its bytes).
// host-access.mlir has the rules.
// Memrefs: offset 0, rank 1, element bytes f32: 4, i64: 8; dim 0 of size
// memref.dim and stride 1 (identity layout).
// Scalars: i32 -> 4 bytes (zero-extended), f32 -> 4 bytes (bitcast then
// zero-extended), index -> 4 bytes (index is i32 in the kernel), i64 -> 8.

// CHECK-NOT:  gpu.container_module
// CHECK:      llvm.mlir.global internal constant @__sluice_kernel_kernels_k("k\00")
// CHECK:      llvm.mlir.global internal constant @__sluice_spirv_kernels(dense<"0x{{[0-9A-F]+}}"> : tensor<[[#WORDS:]]xi32>) {{.*}}: !llvm.array<{{[0-9]+}} x i32>
// CHECK-NOT:  gpu.module
// CHECK-NOT:  spirv.module
// CHECK-LABEL: func.func @main(
// CHECK-SAME:   %[[IN:[^:]+]]: memref<?xf32>, %[[OUT:[^:]+]]: memref<?xi64>, %[[S32:[^:]+]]: i32, %[[SF:[^:]+]]: f32, %[[SIDX:[^:]+]]: index, %[[S64:[^:]+]]: i64)
// CHECK-DAG:   %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:   %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:   %[[C7:.+]] = arith.constant 7 : index
// CHECK-DAG:   %[[C64:.+]] = arith.constant 64 : index
// CHECK:       %[[NAME:.+]] = llvm.mlir.addressof @__sluice_kernel_kernels_k
// CHECK:       %[[VULKAN:.+]] = arith.constant 2 : i32
// CHECK:       %[[WORDSADDR:.+]] = llvm.mlir.addressof @__sluice_spirv_kernels
// CHECK:       %[[BYTES:.+]] = arith.constant [[#WORDS+WORDS+WORDS+WORDS]] : i64
// CHECK:       call @sluice_rt_launch_begin(%[[VULKAN]], %[[WORDSADDR]], %[[BYTES]], %[[NAME]])
//
// CHECK:       %[[OFF0:.+]] = arith.constant 0 : i64
// CHECK:       memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK:       %[[INPTR:.+]] = llvm.inttoptr
// CHECK:       %[[RANK0:.+]] = arith.constant 1 : i64
// CHECK:       %[[FOUR:.+]] = arith.constant 4 : i64
// CHECK:       %[[READ:.+]] = arith.constant 5 : i64
// CHECK:       call @sluice_rt_launch_memref(%[[INPTR]], %[[OFF0]], %[[RANK0]], %[[FOUR]], %[[READ]])
// CHECK:       %[[INDIM:.+]] = memref.dim %[[IN]], %{{.+}} : memref<?xf32>
// CHECK:       %[[INSIZE:.+]] = arith.index_cast %[[INDIM]] : index to i64
// CHECK:       %[[UNIT0:.+]] = arith.constant 1 : i64
// CHECK:       call @sluice_rt_launch_memref_dim(%[[INSIZE]], %[[UNIT0]])
//
// CHECK:       %[[OFF1:.+]] = arith.constant 0 : i64
// CHECK:       memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:       %[[OUTPTR:.+]] = llvm.inttoptr
// CHECK:       %[[RANK1:.+]] = arith.constant 1 : i64
// CHECK:       %[[EIGHT:.+]] = arith.constant 8 : i64
// CHECK:       %[[RW:.+]] = arith.constant 7 : i64
// CHECK:       call @sluice_rt_launch_memref(%[[OUTPTR]], %[[OFF1]], %[[RANK1]], %[[EIGHT]], %[[RW]])
// CHECK:       %[[OUTDIM:.+]] = memref.dim %[[OUT]], %{{.+}} : memref<?xi64>
// CHECK:       %[[OUTSIZE:.+]] = arith.index_cast %[[OUTDIM]] : index to i64
// CHECK:       %[[UNIT1:.+]] = arith.constant 1 : i64
// CHECK:       call @sluice_rt_launch_memref_dim(%[[OUTSIZE]], %[[UNIT1]])
//
// CHECK:       %[[E32:.+]] = arith.extui %[[S32]] : i32 to i64
// CHECK:       %[[B4:.+]] = arith.constant 4 : i64
// CHECK:       call @sluice_rt_launch_scalar(%[[E32]], %[[B4]])
//
// CHECK:       %[[FBITS:.+]] = arith.bitcast %[[SF]] : f32 to i32
// CHECK:       %[[EF:.+]] = arith.extui %[[FBITS]] : i32 to i64
// CHECK:       %[[B4F:.+]] = arith.constant 4 : i64
// CHECK:       call @sluice_rt_launch_scalar(%[[EF]], %[[B4F]])
//
// CHECK:       %[[EIDX:.+]] = arith.index_cast %[[SIDX]] : index to i64
// CHECK:       %[[B4I:.+]] = arith.constant 4 : i64
// CHECK:       call @sluice_rt_launch_scalar(%[[EIDX]], %[[B4I]])
//
// CHECK:       %[[B8:.+]] = arith.constant 8 : i64
// CHECK:       call @sluice_rt_launch_scalar(%[[S64]], %[[B8]])
//
// CHECK-DAG:   %[[GX:.+]] = arith.index_cast %[[C7]] : index to i64
// CHECK-DAG:   %[[BX:.+]] = arith.index_cast %[[C64]] : index to i64
// CHECK-DAG:   %[[BY:.+]] = arith.index_cast %[[C2]] : index to i64
// CHECK:       call @sluice_rt_launch_end(%[[GX]], %{{.+}}, %{{.+}}, %[[BX]], %[[BY]], %{{.+}})
// CHECK-NOT:   gpu.launch_func
// CHECK:       memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK:       memref.dim %[[IN]]
// CHECK:       %[[HRW0:.+]] = arith.constant 3 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%{{.+}}, %{{.+}}, %[[HRW0]])
// CHECK-NEXT:  memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:       memref.dim %[[OUT]]
// CHECK:       %[[HRW1:.+]] = arith.constant 3 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%{{.+}}, %{{.+}}, %[[HRW1]])
// CHECK-NEXT:  return
// CHECK-DAG:   func.func private @sluice_rt_host_access(!llvm.ptr, i64, i64)
// CHECK-DAG:   func.func private @sluice_rt_launch_begin(i32, !llvm.ptr, i64, !llvm.ptr)
// CHECK-DAG:   func.func private @sluice_rt_launch_memref(!llvm.ptr, i64, i64, i64, i64)
// CHECK-DAG:   func.func private @sluice_rt_launch_memref_dim(i64, i64)
// CHECK-DAG:   func.func private @sluice_rt_launch_scalar(i64, i64)
// CHECK-DAG:   func.func private @sluice_rt_launch_end(i64, i64, i64, i64, i64, i64)
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
