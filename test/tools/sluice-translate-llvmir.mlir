// sluice-translate lowers the LLVM dialect to LLVM IR.
// RUN: sluice-translate --mlir-to-llvmir %s | FileCheck %s

// CHECK-LABEL: define i32 @add_one(i32 %{{.*}})
// CHECK-NEXT:    %[[SUM:.*]] = add i32 %{{.*}}, 1{{$}}
// CHECK-NEXT:    ret i32 %[[SUM]]
llvm.func @add_one(%x: i32) -> i32 {
  %one = llvm.mlir.constant(1 : i32) : i32
  %sum = llvm.add %x, %one : i32
  llvm.return %sum : i32
}
