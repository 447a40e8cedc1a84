// sluice-sequentialize-async: every async.execute body runs in place, in
// program order; awaits, groups and tokens disappear.
// RUN: sluice-opt --sluice-sequentialize-async %s | FileCheck %s

// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[B:[^:]+]]: memref<2xi32>
// CHECK-NOT:  async.
// CHECK:      %[[X:.+]] = memref.load %[[B]][%[[C0:.+]]] : memref<2xi32>
// CHECK-NEXT: %[[Y:.+]] = arith.addi %[[X]], %[[X]] : i32
// CHECK-NEXT: memref.store %[[Y]], %[[B]][%[[C1:.+]]] : memref<2xi32>
// CHECK-NEXT: %[[R:.+]] = arith.muli %[[Y]], %[[X]] : i32
// CHECK-NEXT: return %[[R]] : i32
func.func @chain(%b: memref<2xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t1, %v1 = async.execute -> !async.value<i32> {
    %x = memref.load %b[%c0] : memref<2xi32>
    async.yield %x : i32
  }
  %t2, %v2 = async.execute [%t1] (%v1 as %x: !async.value<i32>) -> !async.value<i32> {
    %y = arith.addi %x, %x : i32
    memref.store %y, %b[%c1] : memref<2xi32>
    async.yield %y : i32
  }
  %g = async.create_group %c1 : !async.group
  %rank = async.add_to_group %t2, %g : !async.token
  async.await_all %g
  async.await %t1 : !async.token
  %y = async.await %v2 : !async.value<i32>
  %x = async.await %v1 : !async.value<i32>
  %r = arith.muli %y, %x : i32
  return %r : i32
}

// Nested executes run where they are written, the inner one inside the
// outer one's body.
// CHECK-LABEL: func.func @nested(
// CHECK-NOT:  async.
// CHECK:      memref.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<1xi32>
// CHECK-NEXT: memref.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<1xi32>
// CHECK-NEXT: return
func.func @nested(%b: memref<1xi32>, %v: i32, %w: i32) {
  %c0 = arith.constant 0 : index
  %t = async.execute {
    memref.store %v, %b[%c0] : memref<1xi32>
    %inner = async.execute {
      memref.store %w, %b[%c0] : memref<1xi32>
      async.yield
    }
    async.await %inner : !async.token
    async.yield
  }
  async.await %t : !async.token
  return
}
