// wave-split on scf.index_switch and scf.execute_region, a coroutine without
// suspensions, several coroutines in one module, and the counters of each
// split (print-summary).
// RUN: sluice-opt %s -verify-diagnostics --wave-split=print-summary | FileCheck %s

// Across "zero": %x (arg1). Across "region" and "end": the switch result
// (v0). "region" resumes with v0 already in the frame, so it loads nothing
// and stores nothing; 4 stages, 2 fields, no constants.
// CHECK-LABEL: wave.coroutine @switch
// CHECK:      frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"arg1" : f32, size 4, align 4>, #wave.field<"v0" : f32, size 4, align 4>]
// CHECK:      stage 0 "entry" {
// CHECK-NEXT: ^bb0(%[[F:.*]]: index, %[[K:.*]]: index, %[[X:.*]]: f32):
// CHECK-NEXT:   %[[K32:.*]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT:   cf.switch %[[K32]] : i32, [
// CHECK-NEXT:     default: ^[[DEFAULT:bb[0-9]+]],
// CHECK-NEXT:     0: ^[[ZERO:bb[0-9]+]]
// CHECK-NEXT:   ]
// CHECK-NEXT: ^[[ZERO]]:
// CHECK-NEXT:   wave.frame_store %[[X]], %[[F]] "arg1" : f32
// CHECK-NEXT:   wave.next %[[F]] "zero"
// CHECK-NEXT: ^[[DEFAULT]]:
// CHECK-NEXT:   wave.frame_store %[[X]], %[[F]] "v0" : f32
// CHECK-NEXT:   wave.next %[[F]] "region"
// CHECK-NEXT: }
// CHECK-NEXT: stage 1 "zero" {
// CHECK-NEXT: ^bb0(%[[F1:.*]]: index):
// CHECK-NEXT:   %[[X1:.*]] = wave.frame_load %[[F1]] "arg1" : f32
// CHECK-NEXT:   %[[Y:.*]] = arith.addf %[[X1]], %[[X1]] : f32
// CHECK-NEXT:   wave.frame_store %[[Y]], %[[F1]] "v0" : f32
// CHECK-NEXT:   wave.next %[[F1]] "region"
// CHECK-NEXT: }
// CHECK-NEXT: stage 2 "region" {
// CHECK-NEXT: ^bb0(%[[F2:.*]]: index):
// CHECK-NEXT:   wave.next %[[F2]] "end"
// CHECK-NEXT: }
// CHECK-NEXT: stage 3 "end" sort_by "v0" {
// CHECK:      transition "entry" -> "region" fields ["v0"]
// CHECK-NEXT: transition "entry" -> "zero" fields ["arg1"]
// CHECK-NEXT: transition "zero" -> "region" fields ["v0"]
// CHECK-NEXT: transition "region" -> "end" fields ["v0"]
// CHECK-NEXT: transition "end" -> done
// expected-remark @below {{split into 4 stage(s) over 2 frame field(s); 0 constant(s) rematerialized}}
wave.coroutine @switch(%k: index, %x: f32) {
  %r = scf.index_switch %k -> f32
  case 0 {
    wave.suspend "zero"
    %y = arith.addf %x, %x : f32
    scf.yield %y : f32
  }
  default {
    scf.yield %x : f32
  }
  %e = scf.execute_region -> f32 {
    wave.suspend "region"
    scf.yield %r : f32
  }
  wave.suspend "end" sort_by %e : f32
  wave.terminate
}

// No suspension: one stage, only the header.
// CHECK-LABEL: wave.coroutine @plain
// CHECK-NEXT: frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
// CHECK-NEXT: stage 0 "entry" {
// CHECK-NEXT: ^bb0(%[[F:.*]]: index, %{{.*}}: i32):
// CHECK-NEXT:   wave.next %[[F]] done
// CHECK-NEXT: }
// CHECK-NEXT: transition "entry" -> done
// CHECK-NEXT: terminate
// expected-remark @below {{split into 1 stage(s) over 0 frame field(s); 0 constant(s) rematerialized}}
wave.coroutine @plain(%x: i32) {
  %y = arith.addi %x, %x : i32
  wave.terminate
}

// Two constants used after the suspension are rematerialized, not stored.
// CHECK-LABEL: wave.coroutine @constants
// CHECK-NEXT: frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"arg0" : i32, size 4, align 4>, #wave.field<"v0" : i32, size 4, align 4>]
// CHECK:      stage 1 "s" {
// CHECK-NEXT: ^bb0(%[[F:.*]]: index):
// CHECK-DAG:    %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-DAG:    %[[THREE:.*]] = arith.constant 3 : i32
// CHECK-DAG:    %[[X:.*]] = wave.frame_load %[[F]] "arg0" : i32
// CHECK:        %[[A:.*]] = arith.muli %[[X]], %[[TWO]] : i32
// CHECK-NEXT:   %[[B:.*]] = arith.addi %[[A]], %[[THREE]] : i32
// CHECK-NEXT:   wave.frame_store %[[B]], %[[F]] "v0" : i32
// expected-remark @below {{split into 3 stage(s) over 2 frame field(s); 2 constant(s) rematerialized}}
wave.coroutine @constants(%x: i32) {
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  wave.suspend "s"
  %a = arith.muli %x, %two : i32
  %b = arith.addi %a, %three : i32
  wave.suspend "t" sort_by %b : i32
  wave.terminate
}

// A loop-carried value live across the suspension and used inside a nested
// loop that stays structured: the use reads the frame copy (v1).
// CHECK-LABEL: wave.coroutine @nested_use
// CHECK:      stage 1 "s" {
// CHECK-NEXT: ^bb0(%[[F:.*]]: index):
// CHECK:        %[[ACC:.*]] = wave.frame_load %[[F]] "v1" : i32
// CHECK-NEXT:   %[[M:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[ACC]]) -> (i32) {
// CHECK-NEXT:     %[[T:.*]] = arith.addi %[[B]], %[[ACC]] : i32
// CHECK-NEXT:     scf.yield %[[T]] : i32
// CHECK-NEXT:   }
// CHECK:        wave.frame_store %[[M]], %[[F]] "v1" : i32
// CHECK-NEXT:   wave.next %[[F]] "s"
// CHECK:        wave.frame_store %[[M]], %[[F]] "v1" : i32
// CHECK-NEXT:   wave.next %[[F]] "end"
// expected-remark @below {{split into 3 stage(s) over 3 frame field(s); 2 constant(s) rematerialized}}
wave.coroutine @nested_use(%n: index, %x: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> i32 {
    wave.suspend "s"
    %m = scf.for %j = %c0 to %n step %c1 iter_args(%b = %acc) -> i32 {
      %t = arith.addi %b, %acc : i32
      scf.yield %t : i32
    }
    scf.yield %m : i32
  }
  wave.suspend "end" sort_by %r : i32
  wave.terminate
}
