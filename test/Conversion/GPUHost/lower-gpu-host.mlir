// sluice-lower-gpu-host: gpu host ops become host memory ops, async tokens
// disappear (program order), registration is erased.
// RUN: sluice-opt --sluice-lower-gpu-host --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @memory(
// CHECK-SAME: %[[N:[^:]+]]: index
// CHECK:      %[[A:.+]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK:      %[[S:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NOT:  gpu.
// CHECK:      memref.copy %[[S]], %[[H:[^ ]+]] : memref<4xf32> to memref<4xf32>
// CHECK:      scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step
// CHECK-NEXT:   memref.store %{{.+}}, %[[A]][%[[I]]] : memref<?xf32>
// CHECK:      memref.dealloc %[[A]] : memref<?xf32>
// CHECK:      memref.dealloc %[[S]] : memref<4xf32>
// CHECK-NEXT: return
func.func @memory(%n: index, %h: memref<4xf32>, %x: f32) {
  %a = gpu.alloc (%n) : memref<?xf32>
  %s = gpu.alloc host_shared () : memref<4xf32>
  %u = memref.cast %h : memref<4xf32> to memref<*xf32>
  gpu.host_register %u : memref<*xf32>
  gpu.memcpy %h, %s : memref<4xf32>, memref<4xf32>
  gpu.memset %a, %x : memref<?xf32>, f32
  gpu.host_unregister %u : memref<*xf32>
  gpu.dealloc %a : memref<?xf32>
  gpu.dealloc %s : memref<4xf32>
  return
}

// -----

// A copy from a strided view is a loop nest of loads and stores.
// CHECK-LABEL: func.func @strided(
// CHECK-SAME: %[[DST:[^:]+]]: memref<4xi32>, %[[SRC:[^:]+]]: memref<4xi32, strided<[8], offset: 3>>
// CHECK-NOT:  memref.copy
// CHECK:      scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step
// CHECK-NEXT:   %[[V:.+]] = memref.load %[[SRC]][%[[I]]]
// CHECK-NEXT:   memref.store %[[V]], %[[DST]][%[[I]]]
func.func @strided(%dst: memref<4xi32>, %src: memref<4xi32, strided<[8], offset: 3>>) {
  gpu.memcpy %dst, %src : memref<4xi32>, memref<4xi32, strided<[8], offset: 3>>
  return
}

// -----

// Tokens: dependencies are dropped, loop-carried and scf.if tokens fold away,
// a synchronous gpu.wait is erased.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%b: memref<?xi32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @tokens(
  // CHECK-NOT:  !gpu.async.token
  // CHECK-NOT:  gpu.wait
  // CHECK:      memref.alloc
  // CHECK:      scf.for
  // CHECK-NEXT:   gpu.launch_func  @m::@k blocks
  // CHECK-NEXT: }
  // CHECK:      scf.if
  // CHECK-NEXT:   gpu.launch_func  @m::@k blocks
  // CHECK-NEXT: }
  // CHECK:      memref.dealloc
  // CHECK-NEXT: return
  func.func @tokens(%n: index, %c: i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %a, %t1 = gpu.alloc async [%t0] (%n) : memref<?xi32>
    %t2 = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t1) -> (!gpu.async.token) {
      %l = gpu.launch_func async [%t] @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xi32>)
      scf.yield %l : !gpu.async.token
    }
    %t3 = scf.if %c -> (!gpu.async.token) {
      %l = gpu.launch_func async [%t2] @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xi32>)
      scf.yield %l : !gpu.async.token
    } else {
      scf.yield %t2 : !gpu.async.token
    }
    %t4 = gpu.wait async [%t3, %t0]
    %t5 = gpu.dealloc async [%t4] %a : memref<?xi32>
    gpu.wait [%t5]
    return
  }
}

// -----

// Kernel code is not host code: a gpu.module is left alone.
// CHECK-LABEL: gpu.module @untouched
// CHECK: gpu.barrier
module attributes {gpu.container_module} {
  gpu.module @untouched {
    gpu.func @k() kernel {
      gpu.barrier
      gpu.return
    }
  }
}
