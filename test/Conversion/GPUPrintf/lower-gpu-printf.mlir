// RUN: sluice-opt --sluice-lower-gpu-printf %s | FileCheck %s
// Every backend's host pipeline runs it first; the GPU backends download the
// buffer (a host access of its bytes) before the flush reads it.
// RUN: sluice-opt --sluice-host-to-llvm=backend=cpu %s | FileCheck %s --check-prefix=HOST-CPU
// RUN: sluice-opt --sluice-host-to-llvm=backend=vulkan %s | FileCheck %s --check-prefix=HOST-GPU
// RUN: sluice-opt --sluice-host-to-llvm=backend=hip %s | FileCheck %s --check-prefix=HOST-GPU
// HOST-CPU: llvm.call @sluice_rt_printf_capacity()
// HOST-CPU: llvm.call @sluice_rt_launch_end(
// HOST-CPU-NOT: llvm.call @sluice_rt_launch_begin(
// HOST-CPU: llvm.call @sluice_rt_printf_flush(
// HOST-CPU: llvm.call @free(
// HOST-GPU: llvm.call @sluice_rt_printf_capacity()
// HOST-GPU: llvm.call @sluice_rt_launch_end(
// HOST-GPU-NEXT: llvm.mlir.addressof @__sluice_printf_formats_kernels
// HOST-GPU: llvm.call @sluice_rt_host_access(
// HOST-GPU-NOT: llvm.call @sluice_rt_launch_begin(
// HOST-GPU: llvm.call @sluice_rt_printf_flush(
// The format table: per printf, one type code per argument (i32 'i', i64 and
// index 'l', f32 'f', f64 'd'), ':', the format, NUL; an empty entry ends it.
// CHECK: llvm.mlir.global internal constant @__sluice_printf_formats_kernels("lf:t=%d v=%f\0A\00d:%e\0A\00\00")

// The kernel takes the record buffer last; each printf reserves 3 + 2 * args
// words with an atomic add on word 0, checks them against the capacity in
// word 2 and writes format index, block id, thread id and the argument words,
// else counts a drop in word 1.
// CHECK-LABEL: gpu.func @print
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %[[BUF:.*]]: memref<?xi32>) kernel
// CHECK-NOT: gpu.printf
// CHECK-DAG: %[[SIZE:.*]] = arith.constant 7 : i32
// CHECK: %[[OLD:.*]] = memref.atomic_rmw addi %[[SIZE]], %[[BUF]][%{{.*}}] : (i32, memref<?xi32>) -> i32
// CHECK: %[[CAP:.*]] = memref.load %[[BUF]][%{{.*}}] : memref<?xi32>
// CHECK: arith.cmpi ule, %[[OLD]], %[[CAP]] : i32
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: } else {
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[BUF]]
// CHECK: arith.cmpi ult, %[[OLD]], %[[CAP]] : i32
// The second printf: 3 + 2 words, its f64 as two words.
// CHECK: arith.constant 5 : i32
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK: gpu.return

// The host allocates capacity + 4 words, zeroes the header but for the
// capacity, launches, prints and frees.
// CHECK-LABEL: func.func @main
// CHECK: %[[WORDS:.*]] = call @sluice_rt_printf_capacity() : () -> i64
// CHECK: %[[HOSTBUF:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: %[[CAPWORD:.*]] = arith.trunci %[[WORDS]] : i64 to i32
// CHECK: memref.store %[[CAPWORD]], %[[HOSTBUF]][%c2{{.*}}]
// CHECK: gpu.launch_func @kernels::@print {{.*}} args(%{{.*}} : memref<?xf32>, %[[HOSTBUF]] : memref<?xi32>)
// CHECK-NEXT: %[[TABLE:.*]] = llvm.mlir.addressof @__sluice_printf_formats_kernels
// CHECK-NEXT: call @sluice_rt_printf_flush(%[[HOSTBUF]], %[[TABLE]]) : (memref<?xi32>, !llvm.ptr) -> ()
// CHECK-NEXT: memref.dealloc %[[HOSTBUF]]
// A kernel without printf is launched as before.
// CHECK: gpu.launch_func @kernels::@quiet {{.*}} args(%{{.*}} : memref<?xf32>)
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @print(%data: memref<?xf32>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %data[%tx] : memref<?xf32>
      gpu.printf "t=%d v=%f\n", %tx, %v : index, f32
      %d = arith.extf %v : f32 to f64
      gpu.printf "%e\n", %d : f64
      gpu.return
    }
    gpu.func @quiet(%data: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @main(%data: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@print blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%data : memref<?xf32>)
    gpu.launch_func @kernels::@quiet blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%data : memref<?xf32>)
    return
  }
}
