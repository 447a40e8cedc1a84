// Helpers called from a coroutine and from a pool handler are inlined by
// every Sluice pipeline (sluice-inline-helpers: the upstream inliner, the
// check that no call is left, symbol-dce of the helpers), scalars,
// multiple results and bindings (memrefs) alike; the proofs then hold on the
// inlined code: one publish per stage through a helper-computed condition.
// RUN: sluice-opt %s --sluice-inline-helpers | FileCheck %s
// RUN: sluice-opt %s --sluice-verify --mlir-print-op-on-diagnostic=false -o /dev/null
// RUN: sluice-opt %s --sluice-verify-emission-bounds=print-bounds --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: sluice-opt %s --sluice-wave-to-gpu | FileCheck %s --check-prefix=GPU

func.func private @sum_product(%a: i32, %b: i32) -> (i32, i32) {
  %s = arith.addi %a, %b : i32
  %p = arith.muli %a, %b : i32
  return %s, %p : i32, i32
}

func.func private @load_at(%m: memref<?xi32>, %i: i32) -> i32 {
  %x = arith.index_cast %i : i32 to index
  %v = memref.load %m[%x] : memref<?xi32>
  return %v : i32
}

func.func private @add_to(%m: memref<?xi32>, %i: i32, %v: i32) {
  %x = arith.index_cast %i : i32 to index
  %old = memref.atomic_rmw addi %v, %m[%x] : (i32, memref<?xi32>) -> i32
  return
}

pool.owner @sink capacity 64 stages ["add"] payload [i32, i32] {
  pool.handler "add" (%item) {
    %at, %v = pool.load %item : i32, i32
    %out = wave.binding "out" : memref<?xi32>
    func.call @add_to(%out, %at, %v) : (memref<?xi32>, i32, i32) -> ()
    pool.release %item
  }
}
pool.emission_bound @lanes -> @sink max 1

wave.coroutine @lanes(%lane: i32) bind(%in: memref<?xi32> readonly, %out: memref<?xi32>) {
  %s, %p = func.call @sum_product(%lane, %lane) : (i32, i32) -> (i32, i32)
  %v = func.call @load_at(%in, %lane) : (memref<?xi32>, i32) -> i32
  wave.suspend "publish" sort_by %v : i32
  %zero = arith.constant 0 : i32
  %positive = arith.cmpi sgt, %v, %zero : i32
  scf.if %positive {
    pool.publish @sink "add" (%lane, %s) : i32, i32
  }
  wave.terminate
}

// CHECK-NOT: func.func
// CHECK-LABEL: pool.owner @sink
// CHECK: %[[LOAD:.*]]:2 = pool.load
// CHECK: %[[OUT:.*]] = wave.binding "out"
// CHECK: %[[X:.*]] = arith.index_cast %[[LOAD]]#0
// CHECK: memref.atomic_rmw addi %[[LOAD]]#1, %[[OUT]][%[[X]]]
// CHECK-LABEL: wave.coroutine @lanes
// CHECK: arith.addi
// CHECK: arith.muli
// CHECK: memref.load
// CHECK-NOT: func.call
// CHECK: terminate

// BOUNDS: stage 'entry' of @lanes publishes at most 0 item(s) into @sink
// BOUNDS: stage 'publish' of @lanes publishes at most 1 item(s) into @sink

// GPU: gpu.func @lanes__entry
// GPU-NOT: func.call
