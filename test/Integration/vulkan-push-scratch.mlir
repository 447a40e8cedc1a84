// Scalar kernel arguments of two widths (push constants on Vulkan) and a
// 32 KiB private array per invocation (scratch memory on Vulkan: more than
// sluice-gpu-to-spirv's max-private-bytes of 16384), run on both backends.
//
// Invocation g (g = block * 64 + thread, 4 blocks of 64) stores p[j] = j + g
// for j < 8192, sums p back and writes sum + n + m, with n = 7 : i32 and
// m = 2^33 + 5 : i64 (so the high word of m matters):
//   sum_j (j + g) = 8191 * 8192 / 2 + 8192 g = 33550336 + 8192 g
//   out[g] = 33550336 + 8192 g + 7 + 8589934597
//   out[255] = 8625573900
//   sum_g out[g] = 256 * (33550336 + 7 + 8589934597) + 8192 * (255 * 256 / 2)
//                = 2207879531520
//
// REQUIRES: vulkan, spirv-tools
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --backend=vulkan %s | FileCheck %s
// CHECK: {{^}}8625573900{{$}}
// CHECK-NEXT: {{^}}2207879531520{{$}}
//
// The SPIR-V form: the push-constant block holds n at offset 0 and m at 8
// (natural alignment), the memref keeps binding 1, the scratch buffer is the
// trailing binding 3, and no Function-storage array is left.
// RUN: sluice-opt --sluice-to-spirv %s | FileCheck %s --check-prefix=SPIRV
// SPIRV: spirv.GlobalVariable @fill_push_constants : !spirv.ptr<!spirv.struct<(i32 [0], i64 [8])>, PushConstant>
// SPIRV-DAG: spirv.GlobalVariable @fill_arg_1 bind(0, 1)
// SPIRV-DAG: spirv.GlobalVariable @fill_arg_3 bind(0, 3) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
// SPIRV-NOT: Function>
// SPIRV-LABEL: spirv.func @fill
// RUN: sluice-opt --sluice-to-spirv %s | sluice-translate --sluice-to-spirv-bin -o %t.spv
// RUN: spirv-val --target-env vulkan1.1 %t.spv
//
// The host side: the scalars travel as sluice_rt_launch_scalar (4 and 8
// bytes), the output is read and written and may stay resident (access
// 3 + 4, docs/spirv-backend.md "Residency"), and the scratch call asks for
// 32768 bytes per invocation.
// RUN: sluice-opt --convert-gpu-launch-to-runtime %s | FileCheck %s --check-prefix=HOST
// HOST: %[[FOUR:.*]] = arith.constant 4 : i64
// HOST: call @sluice_rt_launch_scalar(%{{.*}}, %[[FOUR]])
// HOST: %[[SEVEN:.*]] = arith.constant 7 : i64
// HOST: call @sluice_rt_launch_memref(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SEVEN]])
// HOST: %[[EIGHT:.*]] = arith.constant 8 : i64
// HOST: call @sluice_rt_launch_scalar(%{{.*}}, %[[EIGHT]])
// HOST: %[[SCRATCH:.*]] = arith.constant 32768 : i64
// HOST: call @sluice_rt_launch_scratch(%[[SCRATCH]])
// HOST: call @sluice_rt_launch_end
// HOST-NOT: gpu.module

module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)

  gpu.module @kernels {
    gpu.func @fill(%n: i32, %out: memref<?xi64>, %m: i64)
        private(%p: memref<8192xi32, #gpu.address_space<private>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8192 = arith.constant 8192 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %g = arith.addi %base, %tid : index
      scf.for %j = %c0 to %c8192 step %c1 {
        %v = arith.addi %j, %g : index
        %v32 = arith.index_cast %v : index to i32
        memref.store %v32, %p[%j] : memref<8192xi32, #gpu.address_space<private>>
      }
      %zero = arith.constant 0 : i32
      %sum = scf.for %j = %c0 to %c8192 step %c1 iter_args(%acc = %zero) -> (i32) {
        %v = memref.load %p[%j] : memref<8192xi32, #gpu.address_space<private>>
        %next = arith.addi %acc, %v : i32
        scf.yield %next : i32
      }
      %total = arith.addi %sum, %n : i32
      %wide = arith.extsi %total : i32 to i64
      %result = arith.addi %wide, %m : i64
      memref.store %result, %out[%g] : memref<?xi64>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 7 : i32
    %m = arith.constant 8589934597 : i64
    %out = memref.alloc(%c256) : memref<?xi64>
    gpu.launch_func @kernels::@fill blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%n : i32, %out : memref<?xi64>, %m : i64)
    %last = memref.load %out[%c255] : memref<?xi64>
    func.call @sluice_print_i64(%last) : (i64) -> ()
    %zero = arith.constant 0 : i64
    %total = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (i64) {
      %o = memref.load %out[%i] : memref<?xi64>
      %next = arith.addi %acc, %o : i64
      scf.yield %next : i64
    }
    func.call @sluice_print_i64(%total) : (i64) -> ()
    memref.dealloc %out : memref<?xi64>
    return
  }
}
