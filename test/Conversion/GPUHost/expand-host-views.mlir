// sluice-expand-host-views: a host subview becomes the reinterpret cast of
// its base that convert-to-llvm lowers; a function without views is left as
// written (its constants are not folded or hoisted).
// RUN: sluice-opt --sluice-expand-host-views %s | FileCheck %s

// CHECK-LABEL: func.func @column(
// CHECK-NOT:  memref.subview
// CHECK-NOT:  affine.
// CHECK:      %[[BASE:.+]], %{{.+}}, %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %{{.+}} : memref<4x8xi32>
// CHECK:      memref.reinterpret_cast %[[BASE]] to offset: [3], sizes: [4], strides: [8]
func.func @column(%m: memref<4x8xi32>) -> i32 {
  %c1 = arith.constant 1 : index
  %col = memref.subview %m[0, 3] [4, 1] [1, 1] : memref<4x8xi32> to memref<4xi32, strided<[8], offset: 3>>
  %v = memref.load %col[%c1] : memref<4xi32, strided<[8], offset: 3>>
  return %v : i32
}

// CHECK-LABEL: func.func @untouched(
// CHECK-NEXT: %{{.+}} = arith.constant 2 : i32
// CHECK-NEXT: %{{.+}} = arith.constant 3 : i32
// CHECK-NEXT: %{{.+}} = arith.addi
func.func @untouched() -> i32 {
  %a = arith.constant 2 : i32
  %b = arith.constant 3 : i32
  %s = arith.addi %a, %b : i32
  return %s : i32
}
