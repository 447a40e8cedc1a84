// Round trip of every wave op: custom form, and generic form re-parsed.
// RUN: sluice-opt %s | sluice-opt | FileCheck %s
// RUN: sluice-opt %s --mlir-print-op-generic | sluice-opt | FileCheck %s
// RUN: sluice-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: wave.coroutine @empty() {
// CHECK-NEXT:    terminate
// CHECK-NEXT:  }
// GENERIC-LABEL: "wave.coroutine"() <{function_type = () -> (), sym_name = "empty"}> ({
// GENERIC-NEXT:    "wave.terminate"() : () -> ()
// GENERIC-NEXT:  }) : () -> ()
wave.coroutine @empty() {
  wave.terminate
}

// CHECK-LABEL: wave.coroutine @path(
// CHECK-SAME:      %[[PIXEL:.*]]: i32, %[[DEPTH:.*]]: f32) {
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    suspend "intersect"
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[PIXEL]], %[[ONE]] : i32
// CHECK-NEXT:    suspend "shade" sort_by %[[NEXT]] : i32
// CHECK-NEXT:    suspend "sort_by_depth" sort_by %[[DEPTH]] : f32
// CHECK-NEXT:    terminate
// GENERIC-LABEL: "wave.coroutine"() <{function_type = (i32, f32) -> (), sym_name = "path"}> ({
// GENERIC-NEXT:  ^bb0(%[[PIXEL:.*]]: i32, %[[DEPTH:.*]]: f32):
// GENERIC:         "wave.suspend"() <{stage = "intersect"}> : () -> ()
// GENERIC:         "wave.suspend"(%{{.*}}) <{stage = "shade"}> : (i32) -> ()
// GENERIC-NEXT:    "wave.suspend"(%[[DEPTH]]) <{stage = "sort_by_depth"}> : (f32) -> ()
// GENERIC-NEXT:    "wave.terminate"() : () -> ()
wave.coroutine @path(%pixel: i32, %depth: f32) {
  %c1 = arith.constant 1 : i32
  wave.suspend "intersect"
  %next = arith.addi %pixel, %c1 : i32
  wave.suspend "shade" sort_by %next : i32
  wave.suspend "sort_by_depth" sort_by %depth : f32
  wave.terminate
}

// A suspension may sit at any depth of structured control flow, and the sort
// key may be an index.
// CHECK-LABEL: wave.coroutine @nested(
// CHECK-SAME:      %[[COND:.*]]: i1, %[[N:.*]]: index) {
// CHECK:         scf.for %[[IV:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:      scf.if %[[COND]] {
// CHECK-NEXT:        wave.suspend "inner" sort_by %[[IV]] : index
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    terminate
wave.coroutine @nested(%cond: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.if %cond {
      wave.suspend "inner" sort_by %i : index
    }
  }
  wave.terminate
}

// Argument attributes survive the round trip.
// CHECK-LABEL: wave.coroutine @with_arg_attrs(
// CHECK-SAME:      %{{.*}}: i64 {test.lane_id})
wave.coroutine @with_arg_attrs(%lane: i64 {test.lane_id}) {
  wave.terminate
}
