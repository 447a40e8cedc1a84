// Bindings of wave.coroutine (bind(...), readonly/writeonly) and wave.binding.
//
// Round trip: the printed form parses back to the same text (CHECK), and so
// does the generic form, which keeps the binding names and declared access
// as attributes (GENERIC checks those attributes).
// RUN: sluice-opt %s -split-input-file | sluice-opt -split-input-file | FileCheck %s
// RUN: sluice-opt %s -split-input-file --mlir-print-op-generic | sluice-opt -split-input-file | FileCheck %s
// RUN: sluice-opt %s -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
//
// wave-split: a bound argument becomes a `wave.binding` in every stage that
// uses it, never a frame field, even when it is live across a suspension
// (SPLIT). The split form parses back to the same text, and splitting it
// again changes nothing.
// RUN: sluice-opt %s -split-input-file --wave-split | FileCheck %s --check-prefix=SPLIT
// RUN: sluice-opt %s -split-input-file --wave-split | sluice-opt -split-input-file | FileCheck %s --check-prefix=SPLIT
// RUN: sluice-opt %s -split-input-file --wave-split | sluice-opt -split-input-file --wave-split | FileCheck %s --check-prefix=SPLIT

// Every kind of binding: a readonly dynamic rank-1 buffer, a writeonly static
// 2-D buffer, a static 3-D buffer with no declared access, a rank-1 i64
// buffer, and uniforms of all four element types. Bindings are printed with
// their names (they are the names), the per-lane argument with its own.
// CHECK-LABEL: wave.coroutine @every_kind(
// CHECK-SAME:      %[[LANE:[a-z0-9_]+]]: i32) bind(%scene: memref<?xf32> readonly, %film: memref<4x8xi32> writeonly, %acc: memref<2x3x4xf64>, %counts: memref<16xi64>, %a: i32, %b: i64, %c: f32, %d: f64) {
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[T:.*]] = memref.load %scene[%[[C0]]] : memref<?xf32>
// CHECK-NEXT:    %[[TC:.*]] = arith.addf %[[T]], %c : f32
// CHECK-NEXT:    %[[TD:.*]] = arith.extf %[[TC]] : f32 to f64
// CHECK-NEXT:    %[[TDD:.*]] = arith.addf %[[TD]], %d : f64
// CHECK-NEXT:    memref.store %[[TDD]], %acc[%[[C0]], %[[C0]], %[[C0]]] : memref<2x3x4xf64>
// CHECK-NEXT:    %[[LA:.*]] = arith.addi %[[LANE]], %a : i32
// CHECK-NEXT:    memref.store %[[LA]], %film[%[[C0]], %[[C0]]] : memref<4x8xi32>
// CHECK-NEXT:    memref.store %b, %counts[%[[C0]]] : memref<16xi64>
// CHECK-NEXT:    terminate
// GENERIC-LABEL: "wave.coroutine"() <{binding_access = ["readonly", "writeonly", "", "", "", "", "", ""], binding_names = ["scene", "film", "acc", "counts", "a", "b", "c", "d"], function_type = (i32, memref<?xf32>, memref<4x8xi32>, memref<2x3x4xf64>, memref<16xi64>, i32, i64, f32, f64) -> (), sym_name = "every_kind"}>
wave.coroutine @every_kind(%lane: i32)
    bind(%scene: memref<?xf32> readonly, %film: memref<4x8xi32> writeonly,
         %acc: memref<2x3x4xf64>, %counts: memref<16xi64>,
         %a: i32, %b: i64, %c: f32, %d: f64) {
  %c0 = arith.constant 0 : index
  %t = memref.load %scene[%c0] : memref<?xf32>
  %tc = arith.addf %t, %c : f32
  %td = arith.extf %tc : f32 to f64
  %tdd = arith.addf %td, %d : f64
  memref.store %tdd, %acc[%c0, %c0, %c0] : memref<2x3x4xf64>
  %la = arith.addi %lane, %a : i32
  memref.store %la, %film[%c0, %c0] : memref<4x8xi32>
  memref.store %b, %counts[%c0] : memref<16xi64>
  wave.terminate
}
// wave-split: no suspension, so one stage; it re-creates the bindings it uses
// and the frame holds the header only.
// SPLIT-LABEL: wave.coroutine @every_kind(
// SPLIT:         frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
// SPLIT-NEXT:    stage 0 "entry" {
// SPLIT-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: i32):
// SPLIT-DAG:       wave.binding "scene" : memref<?xf32>
// SPLIT-DAG:       wave.binding "film" : memref<4x8xi32>
// SPLIT-DAG:       wave.binding "acc" : memref<2x3x4xf64>
// SPLIT-DAG:       wave.binding "counts" : memref<16xi64>
// SPLIT-DAG:       wave.binding "a" : i32
// SPLIT-DAG:       wave.binding "b" : i64
// SPLIT-DAG:       wave.binding "c" : f32
// SPLIT-DAG:       wave.binding "d" : f64
// SPLIT:           wave.next %{{.*}} done
// SPLIT-NEXT:    }
// SPLIT-NEXT:    transition "entry" -> done
// SPLIT-NEXT:    terminate

// -----

// Bindings named like the names the printer makes up (%arg0, %c0) keep their
// names; the per-lane argument and the constant are renamed around them.
// CHECK-LABEL: wave.coroutine @printer_names(
// CHECK-SAME:      %{{[a-z0-9_]+}}: i32) bind(%arg0: i32, %c0: memref<4xi32>) {
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[V:.*]] = memref.load %c0[%[[ZERO]]] : memref<4xi32>
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[V]], %arg0 : i32
// CHECK-NEXT:    memref.store %[[W]], %c0[%[[ZERO]]] : memref<4xi32>
// GENERIC-LABEL: "wave.coroutine"() <{binding_access = ["", ""], binding_names = ["arg0", "c0"], function_type = (i32, i32, memref<4xi32>) -> (), sym_name = "printer_names"}>
// SPLIT-LABEL: wave.coroutine @printer_names(
// SPLIT-DAG:       wave.binding "c0" : memref<4xi32>
// SPLIT-DAG:       wave.binding "arg0" : i32
wave.coroutine @printer_names(%lane: i32) bind(%arg0: i32, %c0: memref<4xi32>) {
  %zero = arith.constant 0 : index
  %v = memref.load %c0[%zero] : memref<4xi32>
  %w = arith.addi %v, %arg0 : i32
  memref.store %w, %c0[%zero] : memref<4xi32>
  wave.terminate
}

// -----

// A pool handler reaches the coroutine's bindings by name with wave.binding
// (the name is checked against the coroutine when lowering, not here). A
// wave.binding may also appear in the coroutine body itself.
// CHECK-LABEL: pool.owner @shadow
// CHECK:         pool.handler "shade" (%[[RAY:.*]]) {
// CHECK-NEXT:      %[[P:.*]]:2 = pool.load %[[RAY]] : i32, i32
// CHECK-NEXT:      %[[FILM:.*]] = wave.binding "film" : memref<16xi32>
// CHECK-NEXT:      %[[SPP:.*]] = wave.binding "spp" : i32
// CHECK-NEXT:      %[[I:.*]] = arith.index_cast %[[P]]#0 : i32 to index
// CHECK-NEXT:      %{{.*}} = memref.atomic_rmw addi %[[SPP]], %[[FILM]][%[[I]]] : (i32, memref<16xi32>) -> i32
// CHECK-NEXT:      pool.release %[[RAY]]
// CHECK-NEXT:    }
// CHECK-LABEL: wave.coroutine @with_handler(
// CHECK-SAME:      %[[PIXEL:[a-z0-9_]+]]: i32) bind(%film: memref<16xi32> writeonly, %spp: i32) {
// CHECK-NEXT:    %[[SCALE:.*]] = binding "spp" : i32
// CHECK-NEXT:    %[[L:.*]] = arith.muli %[[PIXEL]], %[[SCALE]] : i32
// CHECK-NEXT:    pool.publish @shadow "shade" (%[[PIXEL]], %[[L]]) : i32, i32
// GENERIC-LABEL: "pool.owner"
// GENERIC:         "wave.binding"() <{name = "film"}> : () -> memref<16xi32>
// GENERIC:         "wave.binding"() <{name = "spp"}> : () -> i32
// GENERIC-LABEL: "wave.coroutine"() <{binding_access = ["writeonly", ""], binding_names = ["film", "spp"], function_type = (i32, memref<16xi32>, i32) -> (), sym_name = "with_handler"}>
// GENERIC:         "wave.binding"() <{name = "spp"}> : () -> i32
pool.owner @shadow capacity 64 stages ["shade"] payload [i32, i32] {
  pool.handler "shade" (%ray) {
    %pixel, %light = pool.load %ray : i32, i32
    %film = wave.binding "film" : memref<16xi32>
    %spp = wave.binding "spp" : i32
    %p = arith.index_cast %pixel : i32 to index
    %old = memref.atomic_rmw addi %spp, %film[%p] : (i32, memref<16xi32>) -> i32
    pool.release %ray
  }
}

pool.emission_bound @with_handler -> @shadow max 1

wave.coroutine @with_handler(%pixel: i32)
    bind(%film: memref<16xi32> writeonly, %spp: i32) {
  %scale = wave.binding "spp" : i32
  %light = arith.muli %pixel, %scale : i32
  pool.publish @shadow "shade" (%pixel, %light) : i32, i32
  wave.terminate
}
// SPLIT-LABEL: wave.coroutine @with_handler(
// SPLIT:         frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
// SPLIT-NEXT:    stage 0 "entry" {
// SPLIT-NEXT:    ^bb0(%{{.*}}: index, %{{.*}}: i32):
// SPLIT-NEXT:      %{{.*}} = wave.binding "spp" : i32

// -----

// Bindings live across suspensions: %scene is read in "entry" and "shade",
// %spp in "shade" and "again", %film written in "shade" and "again". None of
// them takes a frame field: the frame holds the header, the sort key (arg0),
// and the two values computed before "shade" (v0: the index, v1: the texel).
// Each stage re-creates the bindings it uses at its top, and the transitions
// carry no binding.
// SPLIT-LABEL: wave.coroutine @across(
// SPLIT-SAME:      bind(%scene: memref<?xf32> readonly, %film: memref<16xi32> writeonly, %spp: i32) {
// SPLIT-NEXT:    frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"arg0" : i32, size 4, align 4>, #wave.field<"v0" : index, size 8, align 8>, #wave.field<"v1" : f32, size 4, align 4>]
// SPLIT-NEXT:    stage 0 "entry" {
// SPLIT-NEXT:    ^bb0(%[[F0:.*]]: index, %[[PIX:.*]]: i32):
// SPLIT-NEXT:      %[[SCENE0:.*]] = wave.binding "scene" : memref<?xf32>
// SPLIT-NEXT:      %[[I0:.*]] = arith.index_cast %[[PIX]] : i32 to index
// SPLIT-NEXT:      %[[T0:.*]] = memref.load %[[SCENE0]][%[[I0]]] : memref<?xf32>
// SPLIT-NEXT:      wave.frame_store %[[PIX]], %[[F0]] "arg0" : i32
// SPLIT-NEXT:      wave.frame_store %[[I0]], %[[F0]] "v0" : index
// SPLIT-NEXT:      wave.frame_store %[[T0]], %[[F0]] "v1" : f32
// SPLIT-NEXT:      wave.next %[[F0]] "shade"
// SPLIT-NEXT:    }
// SPLIT-NEXT:    stage 1 "shade" sort_by "arg0" {
// SPLIT-NEXT:    ^bb0(%[[F1:.*]]: index):
// SPLIT-DAG:       %[[SCENE1:.*]] = wave.binding "scene" : memref<?xf32>
// SPLIT-DAG:       %[[FILM1:.*]] = wave.binding "film" : memref<16xi32>
// SPLIT-DAG:       %[[SPP1:.*]] = wave.binding "spp" : i32
// SPLIT-DAG:       %[[I1:.*]] = wave.frame_load %[[F1]] "v0" : index
// SPLIT-DAG:       %[[T1:.*]] = wave.frame_load %[[F1]] "v1" : f32
// SPLIT:           memref.load %[[SCENE1]][%[[I1]]] : memref<?xf32>
// SPLIT:           memref.store %{{.*}}, %[[FILM1]][%[[I1]]] : memref<16xi32>
// SPLIT-NEXT:      wave.next %[[F1]] "again"
// SPLIT-NEXT:    }
// SPLIT-NEXT:    stage 2 "again" {
// SPLIT-NEXT:    ^bb0(%[[F2:.*]]: index):
// SPLIT-DAG:       %[[FILM2:.*]] = wave.binding "film" : memref<16xi32>
// SPLIT-DAG:       %[[SPP2:.*]] = wave.binding "spp" : i32
// SPLIT-DAG:       %[[I2:.*]] = wave.frame_load %[[F2]] "v0" : index
// SPLIT:           memref.atomic_rmw addi %[[SPP2]], %[[FILM2]][%[[I2]]] : (i32, memref<16xi32>) -> i32
// SPLIT-NEXT:      wave.next %[[F2]] done
// SPLIT-NEXT:    }
// SPLIT-NEXT:    transition "entry" -> "shade" fields ["arg0", "v0", "v1"]
// SPLIT-NEXT:    transition "shade" -> "again" fields ["v0"]
// SPLIT-NEXT:    transition "again" -> done
// SPLIT-NEXT:    terminate
// CHECK-LABEL: wave.coroutine @across(
// CHECK-SAME:      bind(%scene: memref<?xf32> readonly, %film: memref<16xi32> writeonly, %spp: i32) {
wave.coroutine @across(%pixel: i32)
    bind(%scene: memref<?xf32> readonly, %film: memref<16xi32> writeonly,
         %spp: i32) {
  %i = arith.index_cast %pixel : i32 to index
  %t = memref.load %scene[%i] : memref<?xf32>
  wave.suspend "shade" sort_by %pixel : i32
  %again = memref.load %scene[%i] : memref<?xf32>
  %sum = arith.addf %t, %again : f32
  %u = arith.fptosi %sum : f32 to i32
  %v = arith.addi %u, %spp : i32
  memref.store %v, %film[%i] : memref<16xi32>
  wave.suspend "again"
  %old = memref.atomic_rmw addi %spp, %film[%i] : (i32, memref<16xi32>) -> i32
  wave.terminate
}
