// Round trip of every pool op, the !pool.item type and the pool.max_trips
// loop attribute: custom form, and generic form re-parsed.
// RUN: sluice-opt %s | sluice-opt | FileCheck %s
// RUN: sluice-opt %s --mlir-print-op-generic | sluice-opt | FileCheck %s
// RUN: sluice-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: pool.owner @shadow capacity 256 stages ["intersect", "shade"] payload [f32, i32] {
// CHECK-NEXT:    pool.handler "intersect" (%[[ITEM:.*]]) {
// CHECK-NEXT:      %[[VALUES:.*]]:2 = pool.load %[[ITEM]] : f32, i32
// CHECK-NEXT:      pool.move %[[ITEM]] to "shade" (%[[VALUES]]#0, %[[VALUES]]#1) : f32, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    pool.handler "shade" (%[[ITEM2:.*]]) {
// CHECK-NEXT:      pool.release %[[ITEM2]]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// GENERIC-LABEL: "pool.owner"() <{capacity = 256 : i64, payload = [f32, i32], stages = ["intersect", "shade"], sym_name = "shadow"}> ({
// GENERIC-NEXT:    "pool.handler"() <{stage = "intersect"}> ({
// GENERIC-NEXT:    ^bb0(%[[ITEM:.*]]: !pool.item):
// GENERIC-NEXT:      %[[VALUES:.*]]:2 = "pool.load"(%[[ITEM]]) : (!pool.item) -> (f32, i32)
// GENERIC-NEXT:      "pool.move"(%[[ITEM]], %[[VALUES]]#0, %[[VALUES]]#1) <{stage = "shade"}> : (!pool.item, f32, i32) -> ()
// GENERIC:         "pool.handler"() <{stage = "shade"}> ({
// GENERIC-NEXT:    ^bb0(%[[ITEM2:.*]]: !pool.item):
// GENERIC-NEXT:      "pool.release"(%[[ITEM2]]) : (!pool.item) -> ()
pool.owner @shadow capacity 256 stages ["intersect", "shade"] payload [f32, i32] {
  pool.handler "intersect" (%item) {
    %t, %id = pool.load %item : f32, i32
    pool.move %item to "shade" (%t, %id) : f32, i32
  }
  pool.handler "shade" (%item) {
    pool.release %item
  }
}

// An owner without payload; a handler that moves the item to its own stage
// (a self-loop) without replacing the payload, and a handler with attributes.
// CHECK-LABEL: pool.owner @queue capacity 1 stages ["spin", "drain"] payload [] {
// CHECK-NEXT:    pool.handler "spin" (%[[ITEM:.*]]) {
// CHECK-NEXT:      pool.move %[[ITEM]] to "spin"{{$}}
// CHECK-NEXT:    }
// CHECK-NEXT:    pool.handler "drain" (%[[ITEM2:.*]]) attributes {test.hint = 3 : i64} {
// CHECK-NEXT:      pool.load %[[ITEM2]]{{$}}
// CHECK-NEXT:      pool.release %[[ITEM2]]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
pool.owner @queue capacity 1 stages ["spin", "drain"] payload [] {
  pool.handler "spin" (%item) {
    pool.move %item to "spin"
  }
  pool.handler "drain" (%item) attributes {test.hint = 3 : i64} {
    pool.load %item
    pool.release %item
  }
}

// CHECK-LABEL: pool.emission_bound @path -> @shadow max 2{{$}}
// GENERIC-LABEL: "pool.emission_bound"() <{bound = 2 : i64, owner = @shadow, producer = @path}> : () -> ()
pool.emission_bound @path -> @shadow max 2
// CHECK-LABEL: pool.emission_bound @path -> @queue max 9223372036854775807{{$}}
pool.emission_bound @path -> @queue max 9223372036854775807

// CHECK-LABEL: wave.coroutine @path(
// CHECK-SAME:      %[[T:.*]]: f32, %[[ID:.*]]: i32, %[[N:.*]]: index, %[[COND:.*]]: i1) {
// CHECK:         pool.publish @shadow "intersect" (%[[T]], %[[ID]]) : f32, i32
// CHECK-NEXT:    suspend "intersect"
// CHECK-NEXT:    pool.publish @queue "spin"{{$}}
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:      pool.publish @shadow "shade" (%[[T]], %[[ID]]) : f32, i32
// CHECK-NEXT:    } {pool.max_trips = 2 : i64}
// CHECK-NEXT:    scf.while : () -> () {
// CHECK-NEXT:      scf.condition(%[[COND]])
// CHECK-NEXT:    } do {
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } attributes {pool.max_trips = 0 : i64}
// CHECK-NEXT:    terminate
// GENERIC-LABEL: "wave.coroutine"() <{function_type = (f32, i32, index, i1) -> (), sym_name = "path"}> ({
// GENERIC:         "pool.publish"(%{{.*}}, %{{.*}}) <{owner = @shadow, stage = "intersect"}> : (f32, i32) -> ()
// GENERIC:         "pool.publish"() <{owner = @queue, stage = "spin"}> : () -> ()
// GENERIC:         }) {pool.max_trips = 2 : i64} : (index, index, index) -> ()
// GENERIC:         }) {pool.max_trips = 0 : i64} : () -> ()
wave.coroutine @path(%t: f32, %id: i32, %n: index, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pool.publish @shadow "intersect" (%t, %id) : f32, i32
  wave.suspend "intersect"
  pool.publish @queue "spin"
  scf.for %i = %c0 to %n step %c1 {
    pool.publish @shadow "shade" (%t, %id) : f32, i32
  } {pool.max_trips = 2 : i64}
  scf.while : () -> () {
    scf.condition(%cond)
  } do {
    scf.yield
  } attributes {pool.max_trips = 0 : i64}
  wave.terminate
}

// !pool.item is an ordinary type outside handlers too.
// CHECK-LABEL: func.func @item_type(
// CHECK-SAME:      %[[ITEM:.*]]: !pool.item) -> !pool.item {
// CHECK-NEXT:    return %[[ITEM]] : !pool.item
func.func @item_type(%item: !pool.item) -> !pool.item {
  return %item : !pool.item
}
