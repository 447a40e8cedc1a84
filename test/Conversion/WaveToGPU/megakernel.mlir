// sluice-build-megakernel: the state-machine schedule's kernel. Global
// stages: entry 0, publish 1, the owner's drain 2; counters: 3 arrivals,
// the free-ring head (alloc_base 3) and the release count: 5. A thread's
// machine words: 3 per stage and 2 (lanes finished, last lane) = 11, after
// the 4 header words and the 3 uniform words (f32 scale: 1, i64 big: 2).
// RUN: sluice-opt %s --wave-split --convert-wave-to-gpu --sluice-build-megakernel | FileCheck %s
// RUN: sluice-opt %s --sluice-wave-to-gpu | FileCheck %s --check-prefix=PIPELINE
// RUN: sluice-opt %s --wave-split --convert-wave-to-gpu --sluice-build-megakernel | FileCheck %s --check-prefix=PRIVATE
// RUN: sluice-opt %s --wave-split --convert-wave-to-gpu --sluice-build-megakernel=private-state=false > %t.shared
// RUN: FileCheck %s --check-prefix=SHARED < %t.shared
// RUN: FileCheck %s --check-prefix=VIEWS < %t.shared

pool.owner @sink capacity 8 stages ["drain"] payload [f32] {
  pool.handler "drain" (%item) {
    %v = pool.load %item : f32
    %out = wave.binding "out" : memref<4xf32>
    %c0 = arith.constant 0 : index
    %old = memref.atomic_rmw addf %v, %out[%c0] : (f32, memref<4xf32>) -> f32
    pool.release %item
  }
}

pool.emission_bound @emit -> @sink max 2

wave.coroutine @emit(%lane: i32) bind(%out: memref<4xf32>, %scale: f32, %big: i64) {
  wave.suspend "publish"
  %x = arith.sitofp %lane : i32 to f32
  %y = arith.mulf %x, %scale : f32
  pool.publish @sink "drain" (%y) : f32
  pool.publish @sink "drain" (%scale) : f32
  wave.terminate
}

// CHECK: megakernel = {kernel = @sluice_kernels::@emit__megakernel, uniform_words = 3 : i64}
// PIPELINE: megakernel = {kernel = @sluice_kernels::@emit__megakernel, uniform_words = 3 : i64}

// The stage kernels' arguments (count .. fault, the ring and payload of
// @sink, the lane input, out, scale, big, the extents), then the machine
// words.
// CHECK-LABEL: gpu.func @emit__megakernel(
// CHECK-SAME: %[[COUNT:[a-z0-9]+]]: index, {{.*}}, %[[FAULT:[a-z0-9]+]]: memref<?xi32>, %[[RING:[a-z0-9]+]]: memref<?xi32>, %[[PAYLOAD:[a-z0-9]+]]: memref<?xf32>, %{{.*}}: memref<?xi32>, %[[OUT:[a-z0-9]+]]: memref<4xf32>, %{{.*}}: memref<1xf32>, %{{.*}}: memref<1xi64>, %{{.*}}: memref<?xi64>, %[[MACHINE:[a-z0-9]+]]: memref<?xi32>) kernel {
// Private: invocation, lane, outcome, claims, counters, publish record
// (bound 2), publish counts, admission limits, statistics, the uniforms,
// the free ring (bound 2).
// CHECK:      %[[INV:.*]] = memref.alloca() : memref<1xi32>
// CHECK-NEXT: %[[LANE:.*]] = memref.alloca() : memref<1xi32>
// CHECK-NEXT: %[[OUTCOME:.*]] = memref.alloca() : memref<1xi32>
// CHECK-NEXT: %[[CLAIMED:.*]] = memref.alloca() : memref<1xi32>
// CHECK-NEXT: %[[COUNTERS:.*]] = memref.alloca() : memref<5xi32>
// CHECK-NEXT: %[[SLOTS:.*]] = memref.alloca() : memref<2xi32>
// CHECK-NEXT: %[[PUBLISHED:.*]] = memref.alloca() : memref<1xi32>
// CHECK-NEXT: %[[LIMITS:.*]] = memref.alloca() : memref<1xi32>
// CHECK-NEXT: %[[STATS:.*]] = memref.alloca() : memref<10xi32>
// CHECK-NEXT: %[[SCALE:.*]] = memref.alloca() : memref<1xf32>
// CHECK-NEXT: %[[BIG:.*]] = memref.alloca() : memref<1xi64>
// CHECK-NEXT: %[[FREE:.*]] = memref.alloca() : memref<2xi32>
// CHECK-NEXT: %[[ITEMS:.*]] = memref.alloca() : memref<2xf32>
// CHECK:      %[[THREAD:.*]] = arith.addi
// The frame (layout: lane 0, next 1, arg0 2) and the item slots are the
// thread's own: the payload field is an array of the bound's 2 private
// elements (slot g * 2 + k is element k), and each frame field the bodies
// use a private variable, in the order the bodies first use them (the entry
// stores lane and arg0, then next). The megakernel views no frame field and
// touches no payload buffer (%arg12; it is the module's last kernel).
// PRIVATE-LABEL: gpu.func @emit__megakernel(
// PRIVATE:      memref.alloca() : memref<1xi64>
// PRIVATE-NEXT: memref.alloca() : memref<2xi32>
// PRIVATE-NEXT: %[[ITEMS:.*]] = memref.alloca() : memref<2xf32>
// PRIVATE-NEXT: %[[LANEF:.*]] = memref.alloca() : memref<1xi32>
// PRIVATE-NEXT: %[[ARGF:.*]] = memref.alloca() : memref<1xi32>
// PRIVATE-NEXT: %[[NEXTF:.*]] = memref.alloca() : memref<1xi32>
// PRIVATE-NEXT: %[[BLOCK:.*]] = gpu.block_id x
// PRIVATE-NEXT: %[[DIM:.*]] = gpu.block_dim x
// PRIVATE-NEXT: %[[TID:.*]] = gpu.thread_id x
// PRIVATE-NEXT: %[[MUL:.*]] = arith.muli %[[BLOCK]], %[[DIM]]
// PRIVATE-NEXT: %[[G:.*]] = arith.addi %[[MUL]], %[[TID]]
// PRIVATE-NOT:  memref.view
// The entry stores the lane id, then the argument `publish` reads back...
// PRIVATE:      memref.store %{{.*}}, %[[LANEF]][
// PRIVATE-NOT:  memref.view
// PRIVATE:      memref.store %[[ARG:.*]], %[[ARGF]][
// PRIVATE-NOT:  memref.view
// PRIVATE:      memref.store %c1_i32{{.*}}, %[[NEXTF]][
// PRIVATE-NOT:  memref.view
// PRIVATE:      memref.load %[[ARGF]][
// ... and `publish` writes its two items at slot - g * 2 of the array, the
// handler reads its item there.
// PRIVATE:      %[[BASE1:.*]] = arith.muli %[[G]], %c2
// PRIVATE-NEXT: %[[AT1:.*]] = arith.subi %{{.*}}, %[[BASE1]] : index
// PRIVATE-NEXT: memref.store %{{.*}}, %[[ITEMS]][%[[AT1]]] : memref<2xf32>
// PRIVATE:      %[[BASE2:.*]] = arith.muli %[[G]], %c2
// PRIVATE-NEXT: %[[AT2:.*]] = arith.subi %{{.*}}, %[[BASE2]] : index
// PRIVATE-NEXT: memref.store %{{.*}}, %[[ITEMS]][%[[AT2]]] : memref<2xf32>
// PRIVATE:      %[[BASE3:.*]] = arith.muli %[[G]], %c2
// PRIVATE-NEXT: %[[AT3:.*]] = arith.subi %{{.*}}, %[[BASE3]] : index
// PRIVATE-NEXT: memref.load %[[ITEMS]][%[[AT3]]] : memref<2xf32>
// PRIVATE-NOT:  memref.view
// PRIVATE-NOT:  %arg12[
// With private-state=false the bodies view the frame buffer (5 views:
// entry 3, publish 2) and use the payload buffer (two stores, a load).
// VIEWS-LABEL: gpu.func @emit__megakernel(
// VIEWS-COUNT-5: memref.view %arg3[
// VIEWS-NOT:   memref.view
// SHARED-LABEL: gpu.func @emit__megakernel(
// SHARED:       memref.store %{{.*}}, %arg12[
// SHARED:       memref.store %{{.*}}, %arg12[
// SHARED:       memref.load %arg12[
// CHECK:      arith.cmpi ult, %[[THREAD]], %[[COUNT]] : index
// The thread's item slots are g * 2 + k; its admission limit is the bound.
// CHECK:      %[[FIRST:.*]] = arith.muli %[[THREAD]], %c2{{.*}} : index
// CHECK:      scf.for %[[K:.*]] =
// CHECK:        arith.addi %[[FIRST]], %[[K]] : index
// CHECK:        memref.store %{{.*}}, %[[FREE]][%[[K]]]
// CHECK:      memref.store %c2_i32, %[[LIMITS]]
// The uniforms come from machine words 4 and 5, 6 (low, high).
// CHECK:      %[[SCALEBITS:.*]] = memref.load %[[MACHINE]][%c4{{.*}}]
// CHECK-NEXT: %[[SCALEVALUE:.*]] = arith.bitcast %[[SCALEBITS]] : i32 to f32
// CHECK-NEXT: memref.store %[[SCALEVALUE]], %[[SCALE]]
// CHECK:      arith.shli
// CHECK:      memref.store %{{.*}}, %[[BIG]]
// Claim: while the thread has claims left this launch (machine word 2)...
// CHECK:      memref.load %[[CLAIMED]]
// CHECK:      memref.load %[[MACHINE]][%c2{{.*}}]
// Flush: 10 statistics words and the last lane from 4 + 3 + g * 11.
// CHECK:      %[[TW:.*]] = arith.muli %[[THREAD]], %c11
// CHECK:      arith.addi %[[TW]], %c7
// CHECK:      scf.for
// CHECK:        memref.store %{{.*}}, %[[MACHINE]]
// CHECK:      memref.load %[[LANE]]
// CHECK:      memref.store %{{.*}}, %[[MACHINE]]
// ... and lanes remain (word 0 below word 1).
// CHECK:      %[[CLAIM:.*]] = memref.atomic_rmw addi %c1_i32{{.*}}, %[[MACHINE]][%c0{{.*}}]
// CHECK:      %[[END:.*]] = memref.load %[[MACHINE]][%c1{{.*}}]
// CHECK:      arith.cmpi ult, %[[CLAIM]], %[[END]] : i32
// CHECK:      memref.store %[[CLAIM]], %[[LANE]]
// Dispatch on the frame's next stage: 0 (entry) else publish.
// CHECK:      ^{{bb[0-9]+}}(%[[STAGE:.*]]: i32):
// CHECK:      memref.store %c-2_i32, %[[OUTCOME]]
// CHECK:      arith.cmpi eq, %[[STAGE]], %c0_i32
// The copied stage bodies see invocation 0; the counters are private (no
// atomic on them), the payload is the thread's private array.
// CHECK-NOT:  memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]]
// CHECK:      memref.load %[[INV]][%c0]
// CHECK:      memref.load %[[LANE]][%c0]
// CHECK:      memref.load %[[FREE]]
// CHECK:      memref.store %{{.*}}, %[[ITEMS]]
// CHECK:      memref.store %{{.*}}, %[[SLOTS]]
// The handler body, then a released item is counted at global stage 2 + 0.
// CHECK:      memref.load %[[ITEMS]]
// CHECK:      memref.atomic_rmw addf %{{.*}}, %[[OUT]]
// A bad outcome records fault 8 and the thread.
// CHECK:      memref.generic_atomic_rmw %[[FAULT]][%c0
// CHECK:        arith.select %{{.*}}, %c8_i32
