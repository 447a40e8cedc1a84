// sluice-gpu-to-spirv on hand-written kernels: frame fields of 8, 32 and 64
// bits as words of the frame buffer, the fault claim as a compare-and-swap, a
// private attribution as a Function variable, and the workgroup size from
// known_block_size or the workgroup-size option.
// REQUIRES: spirv-tools
// RUN: sluice-opt %s --sluice-gpu-to-spirv=workgroup-size=128 | FileCheck %s
// RUN: sluice-opt %s --sluice-to-spirv | sluice-translate --sluice-to-spirv-bin -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
// RUN: spirv-dis %t.spv | FileCheck %s --check-prefix=BINARY

// CHECK-LABEL: spirv.module @__spv__kernels
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK-LABEL: spirv.func @frame_fields
    // CHECK-SAME: %[[FRAMES:[^:]*]]: !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}
    // CHECK-SAME: i32 {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1), StorageBuffer>}
    // CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [128, 1, 1]>
    gpu.func @frame_fields(%frames: memref<?xi8>, %base: index) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      // An f32 at byte %base: word %base >> 2, bitcast.
      // CHECK: %[[W:.*]] = spirv.ShiftRightLogical %{{.*}}, %{{.*}} : i32, i32
      // CHECK: %[[P:.*]] = spirv.AccessChain %[[FRAMES]][%{{.*}}, %{{.*}}]
      // CHECK: %[[X:.*]] = spirv.Load "StorageBuffer" %[[P]] : i32
      // CHECK: spirv.Bitcast %[[X]] : i32 to f32
      %fv = memref.view %frames[%base][] : memref<?xi8> to memref<1xf32>
      %f = memref.load %fv[%c0] : memref<1xf32>
      %g = arith.addf %f, %f : f32
      memref.store %g, %fv[%c0] : memref<1xf32>
      // An i64 at byte %base + 8: two words, low first.
      // CHECK: spirv.UConvert %{{.*}} : i32 to i64
      // CHECK: spirv.ShiftLeftLogical
      // CHECK: spirv.BitwiseOr %{{.*}}, %{{.*}} : i64
      // CHECK: %[[LO:.*]] = spirv.SConvert %{{.*}} : i64 to i32
      // CHECK: %[[HI64:.*]] = spirv.ShiftRightLogical %{{.*}}, %{{.*}} : i64, i64
      // CHECK: %[[HI:.*]] = spirv.SConvert %[[HI64]] : i64 to i32
      // CHECK: spirv.Store "StorageBuffer" %{{.*}}, %[[LO]] : i32
      // CHECK: spirv.Store "StorageBuffer" %{{.*}}, %[[HI]] : i32
      %at = arith.addi %base, %c8 : index
      %iv = memref.view %frames[%at][] : memref<?xi8> to memref<1xi64>
      %i = memref.load %iv[%c0] : memref<1xi64>
      %j = arith.addi %i, %i : i64
      memref.store %j, %iv[%c0] : memref<1xi64>
      // An i8 at byte %base + 16: shifted out of its word; stored with an
      // atomic and (clear) and an atomic or (set), the word being shared.
      // CHECK: %[[SHIFT:.*]] = spirv.ShiftLeftLogical %{{.*}}, %{{.*}} : i32, i32
      // CHECK: spirv.ShiftRightLogical %{{.*}}, %[[SHIFT]] : i32, i32
      // CHECK: spirv.AtomicAnd <Device> <None> %{{.*}}, %{{.*}} : !spirv.ptr<i32, StorageBuffer>
      // CHECK: spirv.AtomicOr <Device> <None> %{{.*}}, %{{.*}} : !spirv.ptr<i32, StorageBuffer>
      %c16 = arith.constant 16 : index
      %at8 = arith.addi %base, %c16 : index
      %bv = memref.view %frames[%at8][] : memref<?xi8> to memref<1xi8>
      %b = memref.load %bv[%c0] : memref<1xi8>
      %b1 = arith.addi %b, %b : i8
      memref.store %b1, %bv[%c0] : memref<1xi8>
      gpu.return
    }

    // Float multiplies, adds and subtracts are NoContraction: a driver fuses
    // only what math.fma fused, so a kernel rounds alike however its stages
    // were put together (the megakernel's private frames).
    // CHECK-LABEL: spirv.func @no_contraction
    // CHECK: %[[P:.*]] = spirv.FMul %{{.*}}, %{{.*}} {no_contraction} : f32
    // CHECK: %[[S:.*]] = spirv.FAdd %[[P]], %{{.*}} {no_contraction} : f32
    // CHECK: %[[D:.*]] = spirv.FSub %[[S]], %{{.*}} {no_contraction} : f32
    // CHECK: spirv.GL.Fma %[[D]], %{{.*}}, %{{.*}} : f32
    // CHECK-NOT: no_contraction
    // CHECK: spirv.Return
    // In the binary: these three and @frame_fields' add.
    // BINARY-COUNT-4: OpDecorate %{{.*}} NoContraction
    // BINARY-NOT: NoContraction
    gpu.func @no_contraction(%out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %out[%c0] : memref<?xf32>
      %p = arith.mulf %x, %x : f32
      %s = arith.addf %p, %x : f32
      %d = arith.subf %s, %x : f32
      %f = math.fma %d, %x, %x : f32
      memref.store %f, %out[%c0] : memref<?xf32>
      gpu.return
    }

    // CHECK-LABEL: spirv.func @claim
    // CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 2, 1]>
    // CHECK: %[[C2:.*]] = spirv.Constant 2 : i32
    // CHECK: %[[CODE:.*]] = spirv.AccessChain
    // CHECK: %[[OLD:.*]] = spirv.AtomicCompareExchange <Device> <None> <None> %[[CODE]], %[[C2]], %{{.*}} : !spirv.ptr<i32, StorageBuffer>
    // CHECK: spirv.Store "StorageBuffer" %{{.*}}, %[[OLD]] : i32
    gpu.func @claim(%fault: memref<?xi32>) kernel attributes {known_block_size = array<i32: 32, 2, 1>} {
      %c0 = arith.constant 0 : index
      %old = memref.generic_atomic_rmw %fault[%c0] : memref<?xi32> {
      ^bb0(%x: i32):
        %zero = arith.constant 0 : i32
        %free = arith.cmpi eq, %x, %zero : i32
        %code = arith.constant 2 : i32
        %new = arith.select %free, %code, %x : i32
        memref.atomic_yield %new : i32
      }
      %c1 = arith.constant 1 : index
      memref.store %old, %fault[%c1] : memref<?xi32>
      gpu.return
    }

    // CHECK-LABEL: spirv.func @scratch
    // CHECK: %[[VAR:.*]] = spirv.Variable : !spirv.ptr<!spirv.struct<(!spirv.array<4 x i32{{.*}}>)>, Function>
    // CHECK: spirv.AccessChain %[[VAR]]
    gpu.func @scratch(%out: memref<?xi32>) private(%tmp: memref<4xi32, #gpu.address_space<private>>) kernel {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %v = arith.constant 7 : i32
      memref.store %v, %tmp[%c3] : memref<4xi32, #gpu.address_space<private>>
      %w = memref.load %tmp[%c3] : memref<4xi32, #gpu.address_space<private>>
      memref.store %w, %out[%c0] : memref<?xi32>
      gpu.return
    }
  }
}
