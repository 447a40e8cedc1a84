// The shadow-pool program (bench/inputs/shadow_pool_stats.mlir) in gpu form.
// RUN: sluice-opt %s --wave-split=layout=soa --convert-wave-to-gpu | FileCheck %s --check-prefixes=CHECK,SOA
// RUN: sluice-opt %s --wave-split=layout=aos --convert-wave-to-gpu | FileCheck %s --check-prefixes=CHECK,AOS
// RUN: sluice-opt %s --wave-split=layout=soa --convert-wave-to-gpu=lane-publish-positions=true | FileCheck %s --check-prefix=LANEPOS

// The descriptor. Global stages: entry 0, bounce 1, finish 2, then the owner's
// intersect 3 and shade 4; so the free-ring head of @shadow is counter 5 and
// its release count counter 6 (7 counters). An item is an f32 and an i32: 8
// bytes. "bounce" is the only stage that publishes: one producer edge with
// the declared bound 2, which is also the publish record length. "bounce"
// waits `sort_by %pixel`, the coroutine argument in frame field arg0: its
// sort_key; the other stages have none.
// CHECK-LABEL: module attributes {gpu.container_module, sluice.program = {
// CHECK-SAME: counters = {alloc_base = 5 : i64, release_base = 6 : i64, size = 7 : i64, stage_base = 0 : i64}
// CHECK-SAME: entry_stage = 0 : i64
// SOA-SAME:   frame = {fields = [{align = 4 : i64, name = "lane", size = 4 : i64, type = i32}, {align = 4 : i64, name = "next", size = 4 : i64, type = i32}, {align = 4 : i64, name = "arg0", size = 4 : i64, type = i32}], layout = "soa"}
// AOS-SAME:   frame = {fields = [{align = 4 : i64, name = "lane", offset = 0 : i64, size = 4 : i64, type = i32}, {align = 4 : i64, name = "next", offset = 4 : i64, size = 4 : i64, type = i32}, {align = 4 : i64, name = "arg0", offset = 8 : i64, size = 4 : i64, type = i32}], layout = "aos", stride = 12 : i64}
// CHECK-SAME: inputs = [i32]
// CHECK-SAME: main_stages = [{kernel = @sluice_kernels::@path__entry, name = "entry"}, {kernel = @sluice_kernels::@path__bounce, name = "bounce", sort_key = "arg0"}, {kernel = @sluice_kernels::@path__finish, name = "finish"}]
// CHECK-SAME: name = "path"
// CHECK-SAME: owners = [{capacity = 1024 : i64, item_size = 8 : i64, name = "shadow", payload = [f32, i32], stages = [{kernel = @sluice_kernels::@shadow__intersect, name = "intersect"}, {kernel = @sluice_kernels::@shadow__shade, name = "shade"}]}]
// CHECK-SAME: producers = [{bound = 2 : i64, owner = 0 : i64, publish_base = 0 : i64, stage = 1 : i64}]
// CHECK-SAME: publish_stride = 2 : i64
// CHECK-SAME: version = 2 : i64
// CHECK: gpu.module @sluice_kernels

// The entry stage: one thread per invocation; it records the lane id in the
// header field "lane" (field #0), reads the lane's input (indexed by lane id),
// stores it in field "arg0" (field #2), and resumes at "bounce" (stage 1):
// frame header, outcome, arrival counter 1.
// CHECK-LABEL: gpu.func @path__entry(
// CHECK-SAME: %[[COUNT:[a-z0-9]+]]: index, %[[INV:[a-z0-9]+]]: memref<?xi32>, %[[LANES:[a-z0-9]+]]: memref<?xi32>, %[[FRAMES:[a-z0-9]+]]: memref<?xi8>, %[[OFFSETS:[a-z0-9]+]]: memref<?xi64>, %[[NEXT:[a-z0-9]+]]: memref<?xi32>, %[[COUNTERS:[a-z0-9]+]]: memref<?xi32> {sluice.counters}, %[[SLOTS:[a-z0-9]+]]: memref<?xi32>, %[[PUBLISHED:[a-z0-9]+]]: memref<?xi32>, %[[LIMITS:[a-z0-9]+]]: memref<?xi32>, %[[FAULT:[a-z0-9]+]]: memref<?xi32>, %[[RING:[a-z0-9]+]]: memref<?xi32>, %[[T:[a-z0-9]+]]: memref<?xf32>, %[[LIGHT:[a-z0-9]+]]: memref<?xi32>, %[[PIXELS:[a-z0-9]+]]: memref<?xi32>, %{{.*}}: memref<?xi64>) kernel
// CHECK:        %[[BID:.*]] = gpu.block_id x
// CHECK:        %[[TID:.*]] = gpu.thread_id x
// CHECK:        %[[I:.*]] = arith.addi %{{.*}}, %[[TID]] : index
// CHECK:        %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[COUNT]] : index
// CHECK:        cf.cond_br %[[IN]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK:      ^[[BODY]]:
// CHECK:        %[[F32:.*]] = memref.load %[[INV]][%[[I]]] : memref<?xi32>
// CHECK:        %[[F:.*]] = arith.index_castui %[[F32]] : i32 to index
// CHECK:        %[[LANE32:.*]] = memref.load %[[LANES]][%[[F]]] : memref<?xi32>
// SOA:          %[[C0F:.*]] = arith.constant 0 : index
// SOA:          memref.load %[[OFFSETS]][%[[C0F]]] : memref<?xi64>
// AOS:          %[[C0F:.*]] = arith.constant 0 : index
// AOS:          arith.addi %{{.*}}, %[[C0F]] : index
// The views carry the field's index for sluice-build-megakernel.
// CHECK:        %[[LANEVIEW:.*]] = memref.view %[[FRAMES]][%{{.*}}][] {sluice.frame_field = 0 : i64} : memref<?xi8> to memref<1xi32>
// CHECK:        memref.store %[[LANE32]], %[[LANEVIEW]][%{{.*}}] : memref<1xi32>
// CHECK:        %[[LANE:.*]] = arith.index_castui %[[LANE32]] : i32 to index
// CHECK:        %[[PIXEL:.*]] = memref.load %[[PIXELS]][%[[LANE]]] : memref<?xi32>
// CHECK:        cf.br ^[[STAGE:bb[0-9]+]](%[[F]], %[[PIXEL]] : index, i32)
// CHECK:      ^[[STAGE]](%[[SF:.*]]: index, %[[SP:.*]]: i32):
// SOA:          %[[C2:.*]] = arith.constant 2 : index
// SOA:          %[[ARRAY:.*]] = memref.load %[[OFFSETS]][%[[C2]]] : memref<?xi64>
// SOA:          %[[C4:.*]] = arith.constant 4 : index
// SOA:          %[[ELEM:.*]] = arith.muli %[[SF]], %[[C4]] : index
// SOA:          %[[BASE:.*]] = arith.index_cast %[[ARRAY]] : i64 to index
// SOA:          %[[AT:.*]] = arith.addi %[[BASE]], %[[ELEM]] : index
// AOS:          %[[C12:.*]] = arith.constant 12 : index
// AOS:          %[[FRAME:.*]] = arith.muli %[[SF]], %[[C12]] : index
// AOS:          %[[C8:.*]] = arith.constant 8 : index
// AOS:          %[[AT:.*]] = arith.addi %[[FRAME]], %[[C8]] : index
// CHECK:        %[[VIEW:.*]] = memref.view %[[FRAMES]][%[[AT]]][] {sluice.frame_field = 2 : i64} : memref<?xi8> to memref<1xi32>
// CHECK:        memref.store %[[SP]], %[[VIEW]][%{{.*}}] : memref<1xi32>
// CHECK:        %[[BOUNCE:.*]] = arith.constant 1 : i32
// CHECK:        memref.view %[[FRAMES]]
// CHECK:        memref.store %[[BOUNCE]], %{{.*}}[%{{.*}}] : memref<1xi32>
// CHECK:        memref.store %[[BOUNCE]], %[[NEXT]][%[[I]]] : memref<?xi32>
// CHECK:        %[[C1:.*]] = arith.constant 1 : index
// CHECK:        memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%[[C1]]] : (i32, memref<?xi32>) -> i32
// CHECK:        cf.br ^[[EXIT]]
// CHECK:      ^[[EXIT]]:
// CHECK-NEXT:   gpu.return

// "bounce" publishes. Within the bound (2 per invocation), the free-ring
// head of @shadow (counter 5) is taken atomically; below the dispatch's
// allocation limit of @shadow (alloc_limits[0]) the slot is read from the ring
// at head mod 1024, the payload is written at the slot, the slot is appended
// to the invocation's publish record (stride 2) and one arrival is counted at
// "intersect" (counter 3). Otherwise the first fault is claimed: code 2
// (POOL_EXHAUSTED) with the head, or code 1 (BOUND_EXCEEDED) with the count.
// CHECK-LABEL: gpu.func @path__bounce(
// CHECK-SAME: %[[COUNTERS:[a-z0-9]+]]: memref<?xi32> {sluice.counters}, %[[SLOTS:[a-z0-9]+]]: memref<?xi32>, %[[PUBLISHED:[a-z0-9]+]]: memref<?xi32>, %[[LIMITS:[a-z0-9]+]]: memref<?xi32>, %[[FAULT:[a-z0-9]+]]: memref<?xi32>, %[[RING:[a-z0-9]+]]: memref<?xi32>, %[[T:[a-z0-9]+]]: memref<?xf32>, %[[LIGHT:[a-z0-9]+]]: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi64>) kernel
// CHECK:        scf.for
// CHECK:          scf.if
// CHECK:            %[[K:.*]] = memref.load %[[PUBLISHED]][%[[KI:.*]]] : memref<?xi32>
// CHECK:            %[[BOUND:.*]] = arith.constant 2 : i32
// CHECK:            %[[FITS:.*]] = arith.cmpi ult, %[[K]], %[[BOUND]] : i32
// CHECK:            scf.if %[[FITS]] {
// CHECK:              %[[C5:.*]] = arith.constant 5 : index
// CHECK:              %[[HEAD:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%[[C5]]] : (i32, memref<?xi32>) -> i32
// CHECK:              %[[C0:.*]] = arith.constant 0 : index
// CHECK:              %[[LIMIT:.*]] = memref.load %[[LIMITS]][%[[C0]]] : memref<?xi32>
// CHECK:              %[[ADMITTED:.*]] = arith.cmpi ult, %[[HEAD]], %[[LIMIT]] : i32
// CHECK:              scf.if %[[ADMITTED]] {
// CHECK:                %[[CAP:.*]] = arith.constant 1024 : i32
// CHECK:                %[[POS:.*]] = arith.remui %[[HEAD]], %[[CAP]] : i32
// CHECK:                %[[POSI:.*]] = arith.index_castui %[[POS]] : i32 to index
// CHECK:                %[[SLOT:.*]] = memref.load %[[RING]][%[[POSI]]] : memref<?xi32>
// CHECK:                %[[SLOTI:.*]] = arith.index_castui %[[SLOT]] : i32 to index
// CHECK:                memref.store %{{.*}}, %[[T]][%[[SLOTI]]] : memref<?xf32>
// CHECK:                memref.store %{{.*}}, %[[LIGHT]][%[[SLOTI]]] : memref<?xi32>
// CHECK:                %[[C2:.*]] = arith.constant 2 : index
// CHECK:                %[[REC:.*]] = arith.muli %{{.*}}, %[[C2]] : index
// CHECK:                memref.store %[[SLOT]], %[[SLOTS]][%{{.*}}] : memref<?xi32>
// CHECK:                %[[K1:.*]] = arith.addi %[[K]], %{{.*}} : i32
// CHECK:                memref.store %[[K1]], %[[PUBLISHED]][%[[KI]]] : memref<?xi32>
// CHECK:                %[[C3:.*]] = arith.constant 3 : index
// CHECK:                memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%[[C3]]] : (i32, memref<?xi32>) -> i32
// CHECK:              } else {
// CHECK:                %[[OLD:.*]] = memref.generic_atomic_rmw %[[FAULT]][%{{.*}}] : memref<?xi32> {
// CHECK:                  %[[EXHAUSTED:.*]] = arith.constant 2 : i32
// CHECK:                  arith.select %{{.*}}, %[[EXHAUSTED]], %{{.*}} : i32
// CHECK:                %[[WON:.*]] = arith.cmpi eq, %[[OLD]], %{{.*}} : i32
// CHECK:                scf.if %[[WON]] {
// CHECK:                  %[[STAGE:.*]] = arith.constant 1 : i32
// CHECK:                  memref.store %[[STAGE]], %[[FAULT]][%{{.*}}] : memref<?xi32>
// CHECK:                  memref.store %[[HEAD]], %[[FAULT]][%{{.*}}] : memref<?xi32>
// CHECK:            } else {
// CHECK:              memref.generic_atomic_rmw %[[FAULT]]
// CHECK:                %[[EXCEEDED:.*]] = arith.constant 1 : i32
// CHECK:                arith.select %{{.*}}, %[[EXCEEDED]], %{{.*}} : i32
// CHECK:        %[[FINISH:.*]] = arith.constant 2 : i32

// With lane-publish-positions (the CPU backend's kernels) the position is not
// claimed: invocation i's k-th publish takes position i * 2 + k (bound 2), and
// counter 5 is never touched; the limit check and the rest are the same.
// LANEPOS-LABEL: gpu.func @path__bounce(
// LANEPOS-SAME: %[[COUNT:[a-z0-9]+]]: index,
// LANEPOS-SAME: %[[COUNTERS:[a-z0-9]+]]: memref<?xi32> {sluice.counters}, %{{[a-z0-9]+}}: memref<?xi32>, %[[PUBLISHED:[a-z0-9]+]]: memref<?xi32>, %[[LIMITS:[a-z0-9]+]]: memref<?xi32>
// LANEPOS:        %[[INV:.*]] = arith.addi %{{.*}}, %thread_id_x : index
// LANEPOS-NEXT:   arith.cmpi ult, %[[INV]], %[[COUNT]] : index
// LANEPOS:        %[[K:.*]] = memref.load %[[PUBLISHED]][%{{.*}}] : memref<?xi32>
// LANEPOS:        scf.if
// LANEPOS-NEXT:     %[[INV32:.*]] = arith.index_castui %[[INV]] : index to i32
// LANEPOS-NEXT:     %[[BOUND:.*]] = arith.constant 2 : i32
// LANEPOS-NEXT:     %[[BASE:.*]] = arith.muli %[[INV32]], %[[BOUND]] : i32
// LANEPOS-NEXT:     %[[HEAD:.*]] = arith.addi %[[BASE]], %[[K]] : i32
// LANEPOS-NEXT:     arith.constant 0 : index
// LANEPOS-NEXT:     %[[LIMIT:.*]] = memref.load %[[LIMITS]][%{{.*}}] : memref<?xi32>
// LANEPOS-NEXT:     arith.cmpi ult, %[[HEAD]], %[[LIMIT]] : i32
// LANEPOS-NOT:    memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%c5
// LANEPOS-LABEL: gpu.func @path__finish(

// "finish" ends the lane: 0xFFFFFFFF in the header and the outcome, no
// arrival.
// CHECK-LABEL: gpu.func @path__finish(
// CHECK:        %[[DONE:.*]] = arith.constant -1 : i32
// CHECK:        memref.store %[[DONE]], %{{.*}}[%{{.*}}] : memref<1xi32>
// CHECK-NEXT:   memref.store %[[DONE]], %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK-NEXT:   cf.br

// A handler reads the payload at its item's slot; release records
// 0xFFFFFFFF and counts a release (counter 6); a move to "shade" records
// owner stage 1 and counts an arrival at global stage 4.
// CHECK-LABEL: gpu.func @shadow__intersect(
// CHECK-SAME: %[[INV:[a-z0-9]+]]: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi8>, %{{.*}}: memref<?xi64>, %[[NEXT:[a-z0-9]+]]: memref<?xi32>, %[[COUNTERS:[a-z0-9]+]]: memref<?xi32> {sluice.counters}, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi32>, %[[T:[a-z0-9]+]]: memref<?xf32>, %[[LIGHT:[a-z0-9]+]]: memref<?xi32>, %{{.*}}: memref<?xi32>, %{{.*}}: memref<?xi64>) kernel
// CHECK:        %[[S32:.*]] = memref.load %[[INV]][%[[I:.*]]] : memref<?xi32>
// CHECK:        %[[S:.*]] = arith.index_castui %[[S32]] : i32 to index
// CHECK:        %[[TV:.*]] = memref.load %[[T]][%[[S]]] : memref<?xf32>
// CHECK:        scf.if
// CHECK:          %[[DONE:.*]] = arith.constant -1 : i32
// CHECK:          memref.store %[[DONE]], %[[NEXT]][%[[I]]] : memref<?xi32>
// CHECK:          %[[C6:.*]] = arith.constant 6 : index
// CHECK:          memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%[[C6]]]
// CHECK:        } else {
// CHECK:          %[[SHADE:.*]] = arith.constant 1 : i32
// CHECK:          memref.store %[[SHADE]], %[[NEXT]][%[[I]]] : memref<?xi32>
// CHECK:          %[[C4:.*]] = arith.constant 4 : index
// CHECK:          memref.atomic_rmw addi %{{.*}}, %[[COUNTERS]][%[[C4]]]

// A move with a payload rewrites it at the slot.
// CHECK-LABEL: gpu.func @shadow__shade(
// CHECK:          memref.store %{{.*}}, %{{.*}}[%[[S:.*]]] : memref<?xf32>
// CHECK-NEXT:     memref.store %{{.*}}, %{{.*}}[%[[S]]] : memref<?xi32>

pool.owner @shadow capacity 1024 stages ["intersect", "shade"] payload [f32, i32] {
  pool.handler "intersect" (%ray) {
    %t, %light = pool.load %ray : f32, i32
    %zero = arith.constant 0.0 : f32
    %occluded = arith.cmpf ole, %t, %zero : f32
    scf.if %occluded {
      pool.release %ray
    } else {
      pool.move %ray to "shade"
    }
  }
  pool.handler "shade" (%ray) {
    %t, %light = pool.load %ray : f32, i32
    %half = arith.constant 0.5 : f32
    %dimmer = arith.mulf %t, %half : f32
    %cutoff = arith.constant 0.125 : f32
    %again = arith.cmpf ogt, %dimmer, %cutoff : f32
    scf.if %again {
      pool.move %ray to "shade" (%dimmer, %light) : f32, i32
    } else {
      pool.release %ray
    }
  }
}

pool.emission_bound @path -> @shadow max 2

wave.coroutine @path(%pixel: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %samples = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  wave.suspend "bounce" sort_by %pixel : i32
  scf.for %s = %c0 to %samples step %c1 {
    %si = arith.index_cast %s : index to i32
    %light = arith.addi %pixel, %si : i32
    %bit = arith.constant 1 : i32
    %odd = arith.andi %light, %bit : i32
    %zero = arith.constant 0 : i32
    %visible = arith.cmpi eq, %odd, %zero : i32
    scf.if %visible {
      pool.publish @shadow "intersect" (%one, %light) : f32, i32
    }
  }
  wave.suspend "finish"
  wave.terminate
}
