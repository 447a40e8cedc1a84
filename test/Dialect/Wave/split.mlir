// wave-split in both frame layouts. Stage bodies do not depend on the layout
// (CHECK); the frame_layout lines do (SOA, AOS). AoS offsets follow natural
// alignment in field order after the 8-byte header (lane, next), and the
// stride rounds the end up to the largest field alignment.
// RUN: sluice-opt %s -split-input-file --wave-split=layout=soa | FileCheck %s --check-prefixes=CHECK,SOA
// RUN: sluice-opt %s -split-input-file --wave-split=layout=aos | FileCheck %s --check-prefixes=CHECK,AOS
// The split form parses back to the same text, and splitting it again
// changes nothing.
// RUN: sluice-opt %s -split-input-file --wave-split | sluice-opt -split-input-file | FileCheck %s --check-prefixes=CHECK,SOA
// RUN: sluice-opt %s -split-input-file --wave-split | sluice-opt -split-input-file --wave-split=layout=aos | FileCheck %s --check-prefixes=CHECK,SOA

// Straight-line suspensions. %x is used only before "s1", %y only by dead
// code, %a only until "s1": each value gets a field only for the suspension
// it is live across (v0 = %a across "s1", v1 = %b across "s2", the sort key).
// The constant is rematerialized in "s1" instead of taking a field.
// CHECK-LABEL: wave.coroutine @straight
// SOA: frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"v0" : i32, size 4, align 4>, #wave.field<"v1" : i32, size 4, align 4>]
// AOS: frame_layout "aos" stride 16 [#wave.field<"lane" : i32, size 4, align 4, offset 0>, #wave.field<"next" : i32, size 4, align 4, offset 4>, #wave.field<"v0" : i32, size 4, align 4, offset 8>, #wave.field<"v1" : i32, size 4, align 4, offset 12>]
// CHECK:      stage 0 "entry" {
// CHECK-NEXT: ^bb0(%[[F:.*]]: index, %[[X:.*]]: i32, %[[Y:.*]]: f32):
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[A:.*]] = arith.addi %[[X]], %[[C1]] : i32
// CHECK-NEXT:   wave.frame_store %[[A]], %[[F]] "v0" : i32
// CHECK-NEXT:   wave.next %[[F]] "s1"
// CHECK-NEXT: }
// CHECK-NEXT: stage 1 "s1" {
// CHECK-NEXT: ^bb0(%[[F1:.*]]: index):
// CHECK-NEXT:   %[[C1B:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[A1:.*]] = wave.frame_load %[[F1]] "v0" : i32
// CHECK-NEXT:   %[[B:.*]] = arith.addi %[[A1]], %[[C1B]] : i32
// CHECK-NEXT:   wave.frame_store %[[B]], %[[F1]] "v1" : i32
// CHECK-NEXT:   wave.next %[[F1]] "s2"
// CHECK-NEXT: }
// CHECK-NEXT: stage 2 "s2" sort_by "v1" {
// CHECK-NEXT: ^bb0(%[[F2:.*]]: index):
// CHECK-NEXT:   wave.next %[[F2]] done
// CHECK-NEXT: }
// CHECK-NEXT: transition "entry" -> "s1" fields ["v0"]
// CHECK-NEXT: transition "s1" -> "s2" fields ["v1"]
// CHECK-NEXT: transition "s2" -> done
// CHECK-NEXT: terminate
wave.coroutine @straight(%x: i32, %y: f32) {
  %c1 = arith.constant 1 : i32
  %a = arith.addi %x, %c1 : i32
  %unused = arith.muli %x, %x : i32
  wave.suspend "s1"
  %b = arith.addi %a, %c1 : i32
  wave.suspend "s2" sort_by %b : i32
  %c = arith.addf %y, %y : f32
  wave.terminate
}

// -----

// A suspension inside scf.if. Across "then": %x (arg0) and %a (v0). Across
// "after": the if result (v1), which both branches produce.
// CHECK-LABEL: wave.coroutine @in_if
// SOA: frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"arg0" : i32, size 4, align 4>, #wave.field<"v0" : i32, size 4, align 4>, #wave.field<"v1" : i32, size 4, align 4>]
// AOS: frame_layout "aos" stride 20 [#wave.field<"lane" : i32, size 4, align 4, offset 0>, #wave.field<"next" : i32, size 4, align 4, offset 4>, #wave.field<"arg0" : i32, size 4, align 4, offset 8>, #wave.field<"v0" : i32, size 4, align 4, offset 12>, #wave.field<"v1" : i32, size 4, align 4, offset 16>]
// CHECK:      stage 0 "entry" {
// CHECK-NEXT: ^bb0(%[[F:.*]]: index, %[[X:.*]]: i32, %[[C:.*]]: i1):
// CHECK-NEXT:   cf.cond_br %[[C]], ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK-NEXT: ^[[THEN]]:
// CHECK-NEXT:   %[[A:.*]] = arith.muli %[[X]], %[[X]] : i32
// CHECK-NEXT:   wave.frame_store %[[X]], %[[F]] "arg0" : i32
// CHECK-NEXT:   wave.frame_store %[[A]], %[[F]] "v0" : i32
// CHECK-NEXT:   wave.next %[[F]] "then"
// CHECK-NEXT: ^[[ELSE]]:
// CHECK-NEXT:   wave.frame_store %[[X]], %[[F]] "v1" : i32
// CHECK-NEXT:   wave.next %[[F]] "after"
// CHECK-NEXT: }
// CHECK-NEXT: stage 1 "then" {
// CHECK-NEXT: ^bb0(%[[F1:.*]]: index):
// CHECK-NEXT:   %[[X1:.*]] = wave.frame_load %[[F1]] "arg0" : i32
// CHECK-NEXT:   %[[A1:.*]] = wave.frame_load %[[F1]] "v0" : i32
// CHECK-NEXT:   %[[B:.*]] = arith.addi %[[A1]], %[[X1]] : i32
// CHECK-NEXT:   wave.frame_store %[[B]], %[[F1]] "v1" : i32
// CHECK-NEXT:   wave.next %[[F1]] "after"
// CHECK-NEXT: }
// CHECK-NEXT: stage 2 "after" sort_by "v1" {
// CHECK:      transition "entry" -> "then" fields ["arg0", "v0"]
// CHECK-NEXT: transition "entry" -> "after" fields ["v1"]
// CHECK-NEXT: transition "then" -> "after" fields ["v1"]
// CHECK-NEXT: transition "after" -> done
wave.coroutine @in_if(%x: i32, %c: i1) {
  %r = scf.if %c -> i32 {
    %a = arith.muli %x, %x : i32
    wave.suspend "then"
    %b = arith.addi %a, %x : i32
    scf.yield %b : i32
  } else {
    scf.yield %x : i32
  }
  wave.suspend "after" sort_by %r : i32
  %s = arith.addi %r, %r : i32
  wave.terminate
}

// -----

// A suspension inside scf.for with a loop-carried value. Across "step": the
// bound %n (arg0, index: 8 bytes), the induction variable (v0), the
// loop-carried %acc (v1) and %d (v2). "step" resumes mid-iteration, finishes
// it, and either suspends again in the next iteration or leaves the loop. It
// does not store the bound back: the field still holds it.
// AoS: arg0 at 8, v0 at 16, v1 at 24, v2 at 28, end 32, stride 32.
// CHECK-LABEL: wave.coroutine @in_for
// SOA: frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"arg0" : index, size 8, align 8>, #wave.field<"v0" : index, size 8, align 8>, #wave.field<"v1" : f32, size 4, align 4>, #wave.field<"v2" : f32, size 4, align 4>]
// AOS: frame_layout "aos" stride 32 [#wave.field<"lane" : i32, size 4, align 4, offset 0>, #wave.field<"next" : i32, size 4, align 4, offset 4>, #wave.field<"arg0" : index, size 8, align 8, offset 8>, #wave.field<"v0" : index, size 8, align 8, offset 16>, #wave.field<"v1" : f32, size 4, align 4, offset 24>, #wave.field<"v2" : f32, size 4, align 4, offset 28>]
// CHECK:      stage 1 "step" {
// CHECK-NEXT: ^bb0(%[[F:.*]]: index):
// CHECK-DAG:    %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:    %[[C1:.*]] = arith.constant 1 : index
// CHECK:        %[[N:.*]] = wave.frame_load %[[F]] "arg0" : index
// CHECK-NEXT:   %[[I:.*]] = wave.frame_load %[[F]] "v0" : index
// CHECK-NEXT:   %[[ACC:.*]] = wave.frame_load %[[F]] "v1" : f32
// CHECK-NEXT:   %[[D:.*]] = wave.frame_load %[[F]] "v2" : f32
// CHECK-NEXT:   %[[E:.*]] = arith.addf %[[D]], %[[ACC]] : f32
// CHECK-NEXT:   %[[NEXTI:.*]] = arith.addi %[[I]], %[[C1]] : index
// CHECK-NEXT:   %[[MORE:.*]] = arith.cmpi slt, %[[NEXTI]], %[[N]] : index
// CHECK-NEXT:   cf.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK-NEXT:   %[[D2:.*]] = arith.mulf %[[E]], %[[TWO]] : f32
// CHECK-NEXT:   wave.frame_store %[[NEXTI]], %[[F]] "v0" : index
// CHECK-NEXT:   wave.frame_store %[[E]], %[[F]] "v1" : f32
// CHECK-NEXT:   wave.frame_store %[[D2]], %[[F]] "v2" : f32
// CHECK-NEXT:   wave.next %[[F]] "step"
// CHECK-NEXT: ^[[EXIT]]:
// CHECK-NEXT:   wave.frame_store %[[E]], %[[F]] "v1" : f32
// CHECK-NEXT:   wave.next %[[F]] "done"
// CHECK-NEXT: }
// CHECK-NEXT: stage 2 "done" sort_by "v1" {
// CHECK:      transition "entry" -> "step" fields ["arg0", "v0", "v1", "v2"]
// CHECK-NEXT: transition "entry" -> "done" fields ["v1"]
// CHECK-NEXT: transition "step" -> "step" fields ["arg0", "v0", "v1", "v2"]
// CHECK-NEXT: transition "step" -> "done" fields ["v1"]
// CHECK-NEXT: transition "done" -> done
wave.coroutine @in_for(%n: index, %init: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> f32 {
    %two = arith.constant 2.0 : f32
    %d = arith.mulf %acc, %two : f32
    wave.suspend "step"
    %e = arith.addf %d, %acc : f32
    scf.yield %e : f32
  }
  wave.suspend "done" sort_by %sum : f32
  wave.terminate
}

// -----

// A suspension inside the body of scf.while. The loop-carried %w, the loop
// result and the "before" argument are one value once the CFG is simplified
// (scf.condition forwards %v unchanged): one field, v0, live across both
// suspensions; the constants are rematerialized.
// CHECK-LABEL: wave.coroutine @in_while
// SOA: frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"v0" : i32, size 4, align 4>]
// AOS: frame_layout "aos" stride 12 [#wave.field<"lane" : i32, size 4, align 4, offset 0>, #wave.field<"next" : i32, size 4, align 4, offset 4>, #wave.field<"v0" : i32, size 4, align 4, offset 8>]
// CHECK:      stage 1 "body" {
// CHECK-NEXT: ^bb0(%[[F:.*]]: index):
// CHECK-DAG:    %[[C1:.*]] = arith.constant 1 : i32
// CHECK-DAG:    %[[C10:.*]] = arith.constant 10 : i32
// CHECK:        %[[W:.*]] = wave.frame_load %[[F]] "v0" : i32
// CHECK-NEXT:   %[[N:.*]] = arith.addi %[[W]], %[[C1]] : i32
// CHECK-NEXT:   %[[GO:.*]] = arith.cmpi slt, %[[N]], %[[C10]] : i32
// CHECK-NEXT:   cf.cond_br %[[GO]], ^[[AGAIN:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT: ^[[AGAIN]]:
// CHECK-NEXT:   wave.frame_store %[[N]], %[[F]] "v0" : i32
// CHECK-NEXT:   wave.next %[[F]] "body"
// CHECK-NEXT: ^[[EXIT]]:
// CHECK-NEXT:   wave.frame_store %[[N]], %[[F]] "v0" : i32
// CHECK-NEXT:   wave.next %[[F]] "tail"
// CHECK-NEXT: }
// CHECK:      transition "entry" -> "body" fields ["v0"]
// CHECK-NEXT: transition "entry" -> "tail" fields ["v0"]
// CHECK-NEXT: transition "body" -> "body" fields ["v0"]
// CHECK-NEXT: transition "body" -> "tail" fields ["v0"]
wave.coroutine @in_while(%start: i32) {
  %c10 = arith.constant 10 : i32
  %r = scf.while (%v = %start) : (i32) -> i32 {
    %go = arith.cmpi slt, %v, %c10 : i32
    scf.condition(%go) %v : i32
  } do {
  ^bb0(%w: i32):
    wave.suspend "body"
    %c1 = arith.constant 1 : i32
    %n = arith.addi %w, %c1 : i32
    scf.yield %n : i32
  }
  wave.suspend "tail" sort_by %r : i32
  wave.terminate
}

// -----

// A suspension in an scf.if nested in an scf.for. Resuming at "inner" enters
// the loop mid-iteration: the loop-carried %acc and the induction variable
// reach the latch both from the resume point (frame copies) and from the next
// iterations, so the stage merges them in block arguments. %local is not live
// across any suspension and gets no field.
// AoS: arg0 (index) at 8, arg1 at 16, v0 (index) at 24, v1 at 32, v2 at 36,
// v3 at 40, end 44, stride rounded up to 8: 48.
// CHECK-LABEL: wave.coroutine @nested
// SOA: frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"arg0" : index, size 8, align 8>, #wave.field<"arg1" : i32, size 4, align 4>, #wave.field<"v0" : index, size 8, align 8>, #wave.field<"v1" : i32, size 4, align 4>, #wave.field<"v2" : i32, size 4, align 4>, #wave.field<"v3" : i32, size 4, align 4>]
// AOS: frame_layout "aos" stride 48 [#wave.field<"lane" : i32, size 4, align 4, offset 0>, #wave.field<"next" : i32, size 4, align 4, offset 4>, #wave.field<"arg0" : index, size 8, align 8, offset 8>, #wave.field<"arg1" : i32, size 4, align 4, offset 16>, #wave.field<"v0" : index, size 8, align 8, offset 24>, #wave.field<"v1" : i32, size 4, align 4, offset 32>, #wave.field<"v2" : i32, size 4, align 4, offset 36>, #wave.field<"v3" : i32, size 4, align 4, offset 40>]
// CHECK:      stage 1 "inner" {
// CHECK-NEXT: ^bb0(%[[F:.*]]: index):
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[N:.*]] = wave.frame_load %[[F]] "arg0" : index
// CHECK-NEXT:   %[[X:.*]] = wave.frame_load %[[F]] "arg1" : i32
// CHECK-NEXT:   %[[I:.*]] = wave.frame_load %[[F]] "v0" : index
// CHECK-NEXT:   %[[ACC:.*]] = wave.frame_load %[[F]] "v1" : i32
// CHECK-NEXT:   %[[II:.*]] = wave.frame_load %[[F]] "v2" : i32
// CHECK-NEXT:   %[[T:.*]] = arith.addi %[[ACC]], %[[II]] : i32
// CHECK-NEXT:   cf.br ^[[LATCH:bb[0-9]+]](%[[T]], %[[I]] : i32, index)
// CHECK-NEXT: ^[[BODY:bb[0-9]+]]:
// CHECK-NEXT:   %[[II2:.*]] = arith.index_cast %[[NEXTI:.*]] : index to i32
// CHECK-NEXT:   %[[ODD:.*]] = arith.trunci %[[II2]] : i32 to i1
// CHECK-NEXT:   cf.cond_br %[[ODD]], ^[[SUSPEND:bb[0-9]+]], ^[[LATCH]](%[[MACC:.*]], %[[NEXTI]] : i32, index)
// CHECK-NEXT: ^[[SUSPEND]]:
// CHECK-NEXT:   wave.frame_store %[[NEXTI]], %[[F]] "v0" : index
// CHECK-NEXT:   wave.frame_store %[[MACC]], %[[F]] "v1" : i32
// CHECK-NEXT:   wave.frame_store %[[II2]], %[[F]] "v2" : i32
// CHECK-NEXT:   wave.next %[[F]] "inner"
// CHECK-NEXT: ^[[LATCH]](%[[MACC]]: i32, %[[MI:.*]]: index):
// CHECK-NEXT:   %[[NEXTI]] = arith.addi %[[MI]], %[[C1]] : index
// CHECK-NEXT:   %[[MORE:.*]] = arith.cmpi slt, %[[NEXTI]], %[[N]] : index
// CHECK-NEXT:   cf.cond_br %[[MORE]], ^[[BODY]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT: ^[[EXIT]]:
// CHECK-NEXT:   %[[SQ:.*]] = arith.muli %[[MACC]], %[[MACC]] : i32
// CHECK-NEXT:   %[[KEEP:.*]] = arith.addi %[[SQ]], %[[X]] : i32
// CHECK-NEXT:   wave.frame_store %[[KEEP]], %[[F]] "v3" : i32
// CHECK-NEXT:   wave.next %[[F]] "last"
// CHECK-NEXT: }
// CHECK:      transition "entry" -> "last" fields ["v3"]
// CHECK-NEXT: transition "entry" -> "inner" fields ["arg0", "arg1", "v0", "v1", "v2"]
// CHECK-NEXT: transition "inner" -> "last" fields ["v3"]
// CHECK-NEXT: transition "inner" -> "inner" fields ["arg0", "arg1", "v0", "v1", "v2"]
// CHECK-NEXT: transition "last" -> done
wave.coroutine @nested(%n: index, %x: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> i32 {
    %ii = arith.index_cast %i : index to i32
    %odd = arith.trunci %ii : i32 to i1
    %next = scf.if %odd -> i32 {
      wave.suspend "inner"
      %t = arith.addi %acc, %ii : i32
      scf.yield %t : i32
    } else {
      scf.yield %acc : i32
    }
    scf.yield %next : i32
  }
  %local = arith.muli %r, %r : i32
  %keep = arith.addi %local, %x : i32
  wave.suspend "last" sort_by %keep : i32
  wave.terminate
}

// -----

// Structured ops without a suspension stay structured; publishes stay.
// CHECK-LABEL: wave.coroutine @publishes
// CHECK:      stage 1 "bounce" sort_by "arg0" {
// CHECK:        %[[P:.*]] = wave.frame_load %{{.*}} "arg0" : i32
// CHECK:        scf.for
// CHECK:          scf.if
// CHECK-NEXT:       pool.publish @shadow "intersect" (%{{.*}}, %{{.*}}) : f32, i32
// CHECK:        wave.next %{{.*}} "finish"
pool.owner @shadow capacity 8 stages ["intersect"] payload [f32, i32] {
  pool.handler "intersect" (%ray) {
    pool.release %ray
  }
}
wave.coroutine @publishes(%pixel: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  wave.suspend "bounce" sort_by %pixel : i32
  scf.for %s = %c0 to %c2 step %c1 {
    %si = arith.index_cast %s : index to i32
    %light = arith.addi %pixel, %si : i32
    %bit = arith.trunci %light : i32 to i1
    scf.if %bit {
      pool.publish @shadow "intersect" (%one, %light) : f32, i32
    }
  }
  wave.suspend "finish"
  wave.terminate
}
