// A gpu.shuffle inside an scf.while whose trip count differs between the
// lanes of one subgroup (lane t runs while a < 33, a from t, step 32: lane 0
// runs twice, the others of its subgroup once) breaks the rule a GPU has too: the lanes a
// shuffle reads from must all reach it. The CPU's lane-group coroutine checks
// that a subgroup's lanes agree on the condition and stops the run with the
// kernel's name instead of computing garbage.
// RUN: %expect-exit 1 sluice-run %s 2>&1 | FileCheck %s
// RUN: %expect-exit 1 sluice-run --gpu-force-coroutines %s 2>&1 | FileCheck %s
// CHECK: sluice runtime: the lanes of a {{[0-9]+}}-lane coroutine of kernel shuffle_in_while disagree on a loop bound or branch condition around a barrier or a gpu.shuffle;
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @shuffle_in_while(%out: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      %v = arith.index_cast %tid : index to i32
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %c33 = arith.constant 33 : i32
      %s = gpu.subgroup_size : index
      %s32 = arith.index_cast %s : index to i32
      %r = scf.while (%a = %v) : (i32) -> i32 {
        %more = arith.cmpi slt, %a, %c33 : i32
        scf.condition(%more) %a : i32
      } do {
      ^bb0(%a: i32):
        %x, %ok = gpu.shuffle xor %a, %c1, %s32 : i32
        %n = arith.addi %a, %c32 : i32
        scf.yield %n : i32
      }
      memref.store %r, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %out = memref.alloc(%c32) : memref<?xi32>
    gpu.launch_func @m::@shuffle_in_while blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%out : memref<?xi32>)
    return
  }
}
