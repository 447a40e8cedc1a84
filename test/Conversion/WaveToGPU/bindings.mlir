// Bindings in gpu form: every binding becomes a kernel argument of every stage
// kernel, after the per-lane inputs, in declaration order (a uniform: a
// one-element buffer, loaded where it is used), and the `sluice.program`
// descriptor lists them with the access the kernels make of them. Then what
// convert-wave-to-gpu rejects: a pool handler's wave.binding that the
// coroutine does not bind, or binds with another type, and a handler that
// breaks a binding's declared access.
//
// The RUN checks the diagnostics of every part (-verify-diagnostics) and the
// lowered form of the parts that lower (FileCheck); the bindings do not depend
// on the frame layout, so one layout will do.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics --wave-split --convert-wave-to-gpu | FileCheck %s

// @path binds six values. Their access, from what the stage and handler
// kernels do with them:
//   scene   readonly, loaded in "entry"                        -> read
//   film    writeonly, atomic_rmw in the @shadow handler only  -> write, atomic
//   out     no declared access (readwrite), stored in "shade"  -> write
//   unused  readwrite, never used                              -> nothing
//   spp     a uniform, published in "shade"                    -> read
//   gain    a uniform, multiplied in "entry"                   -> read
// Uniforms are always declared readonly; shapes: [-1] for the dynamic extent,
// [] for a uniform. No binding takes a frame field, although %scene, %gain
// and %spp are all used after the suspension is reached: the frame holds the
// header, the sort key (arg0) and %g (v0).
// CHECK-LABEL: module attributes {gpu.container_module, sluice.program = {
// CHECK-SAME: bindings = [
// CHECK-SAME:   {access = ["read"], declared = "readonly", element = f32, kind = "buffer", name = "scene", shape = [-1]},
// CHECK-SAME:   {access = ["write", "atomic"], declared = "writeonly", element = i32, kind = "buffer", name = "film", shape = [16]},
// CHECK-SAME:   {access = ["write"], declared = "readwrite", element = f64, kind = "buffer", name = "out", shape = [4, 4]},
// CHECK-SAME:   {access = [], declared = "readwrite", element = i64, kind = "buffer", name = "unused", shape = [8]},
// CHECK-SAME:   {access = ["read"], declared = "readonly", element = i32, kind = "uniform", name = "spp", shape = []},
// CHECK-SAME:   {access = ["read"], declared = "readonly", element = f32, kind = "uniform", name = "gain", shape = []}]
// CHECK-SAME: frame = {fields = [{align = 4 : i64, name = "lane", size = 4 : i64, type = i32}, {align = 4 : i64, name = "next", size = 4 : i64, type = i32}, {align = 4 : i64, name = "arg0", size = 4 : i64, type = i32}, {align = 4 : i64, name = "v0", size = 4 : i64, type = f32}], layout = "soa"}
// CHECK-SAME: inputs = [i32]
// CHECK-SAME: version = 2 : i64
//
// The kernel arguments: the 11 of sluice_kernel_arg (KernelABI.h), @shadow's
// free ring and its two payload arrays, the lane input (%pixel), then the six
// bindings. Every kernel, main stage or handler, has the same signature.
// CHECK-LABEL: gpu.func @path__entry(
// CHECK-SAME: %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: memref<?xi32>, %{{[a-z0-9]+}}: memref<?xi32>, %{{[a-z0-9]+}}: memref<?xi8>, %{{[a-z0-9]+}}: memref<?xi64>, %{{[a-z0-9]+}}: memref<?xi32>, %{{[a-z0-9]+}}: memref<?xi32> {sluice.counters}, %{{[a-z0-9]+}}: memref<?xi32>, %{{[a-z0-9]+}}: memref<?xi32>, %{{[a-z0-9]+}}: memref<?xi32>, %{{[a-z0-9]+}}: memref<?xi32>,
// CHECK-SAME: %{{[a-z0-9]+}}: memref<?xi32>, %{{[a-z0-9]+}}: memref<?xi32>, %{{[a-z0-9]+}}: memref<?xi32>,
// CHECK-SAME: %[[PIXELS:[a-z0-9]+]]: memref<?xi32>,
// CHECK-SAME: %[[SCENE:[a-z0-9]+]]: memref<?xf32>, %[[FILM:[a-z0-9]+]]: memref<16xi32>, %[[OUT:[a-z0-9]+]]: memref<4x4xf64>, %[[UNUSED:[a-z0-9]+]]: memref<8xi64>, %[[SPP:[a-z0-9]+]]: memref<1xi32>, %[[GAIN:[a-z0-9]+]]: memref<1xf32>, %{{.*}}: memref<?xi64>) kernel
// The entry stage reads the lane's input, then the uniform (a load of element
// 0 of its buffer) and the buffer itself, with no wave.binding left.
// CHECK:        memref.load %[[PIXELS]][%{{.*}}] : memref<?xi32>
// CHECK:        %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[G:.*]] = memref.load %[[GAIN]][%[[Z]]] : memref<1xf32>
// CHECK-NEXT:   %[[I:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT:   %[[T:.*]] = memref.load %[[SCENE]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:   arith.mulf %[[T]], %[[G]] : f32
// CHECK-NOT:    wave.binding
// CHECK:      gpu.return
//
// CHECK-LABEL: gpu.func @path__shade(
// CHECK-SAME: %[[PIXELS1:[a-z0-9]+]]: memref<?xi32>, %[[SCENE1:[a-z0-9]+]]: memref<?xf32>, %[[FILM1:[a-z0-9]+]]: memref<16xi32>, %[[OUT1:[a-z0-9]+]]: memref<4x4xf64>, %[[UNUSED1:[a-z0-9]+]]: memref<8xi64>, %[[SPP1:[a-z0-9]+]]: memref<1xi32>, %[[GAIN1:[a-z0-9]+]]: memref<1xf32>, %{{.*}}: memref<?xi64>) kernel
// CHECK:        %[[S:.*]] = memref.load %[[SPP1]][%{{.*}}] : memref<1xi32>
// CHECK:        memref.store %{{.*}}, %[[OUT1]][%{{.*}}, %{{.*}}] : memref<4x4xf64>
// The uniform is published as the item's second payload field (the second
// payload array of @shadow).
// CHECK:        memref.store %[[S]], %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK-NOT:    wave.binding
// CHECK:      gpu.return
//
// The handler uses the film argument directly.
// CHECK-LABEL: gpu.func @shadow__shade(
// CHECK-SAME: %[[PIXELS2:[a-z0-9]+]]: memref<?xi32>, %[[SCENE2:[a-z0-9]+]]: memref<?xf32>, %[[FILM2:[a-z0-9]+]]: memref<16xi32>, %[[OUT2:[a-z0-9]+]]: memref<4x4xf64>, %[[UNUSED2:[a-z0-9]+]]: memref<8xi64>, %[[SPP2:[a-z0-9]+]]: memref<1xi32>, %[[GAIN2:[a-z0-9]+]]: memref<1xf32>, %{{.*}}: memref<?xi64>) kernel
// CHECK-NOT:    wave.binding
// CHECK:        memref.atomic_rmw addi %{{.*}}, %[[FILM2]][%{{.*}}] : (i32, memref<16xi32>) -> i32
// CHECK:      gpu.return
pool.owner @shadow capacity 16 stages ["shade"] payload [i32, i32] {
  pool.handler "shade" (%ray) {
    %pixel, %light = pool.load %ray : i32, i32
    %film = wave.binding "film" : memref<16xi32>
    %p = arith.index_cast %pixel : i32 to index
    %old = memref.atomic_rmw addi %light, %film[%p] : (i32, memref<16xi32>) -> i32
    pool.release %ray
  }
}
pool.emission_bound @path -> @shadow max 1
wave.coroutine @path(%pixel: i32)
    bind(%scene: memref<?xf32> readonly, %film: memref<16xi32> writeonly,
         %out: memref<4x4xf64>, %unused: memref<8xi64>, %spp: i32,
         %gain: f32) {
  %i = arith.index_cast %pixel : i32 to index
  %t = memref.load %scene[%i] : memref<?xf32>
  %g = arith.mulf %t, %gain : f32
  wave.suspend "shade" sort_by %pixel : i32
  %d = arith.extf %g : f32 to f64
  %c0 = arith.constant 0 : index
  memref.store %d, %out[%c0, %c0] : memref<4x4xf64>
  pool.publish @shadow "shade" (%pixel, %spp) : i32, i32
  wave.terminate
}

// -----

// A program without bindings has an empty list.
// CHECK-LABEL: module attributes {gpu.container_module, sluice.program = {
// CHECK-SAME: bindings = []
// CHECK-SAME: name = "plain"
wave.coroutine @plain(%pixel: i32) {
  wave.terminate
}

// -----

// A handler names a binding the coroutine lacks.
pool.owner @shadow capacity 16 stages ["shade"] payload [i32] {
  pool.handler "shade" (%ray) {
    %pixel = pool.load %ray : i32
    // expected-error @below {{'wave.binding' op uses binding 'flim', but @path binds no such name}}
    %film = wave.binding "flim" : memref<16xi32>
    %p = arith.index_cast %pixel : i32 to index
    %old = memref.atomic_rmw addi %pixel, %film[%p] : (i32, memref<16xi32>) -> i32
    pool.release %ray
  }
}
pool.emission_bound @path -> @shadow max 1
// expected-note @below {{the coroutine is here}}
wave.coroutine @path(%pixel: i32) bind(%film: memref<16xi32>) {
  pool.publish @shadow "shade" (%pixel) : i32
  wave.terminate
}

// -----

// ... one of a coroutine with no bindings at all.
pool.owner @shadow capacity 16 stages ["shade"] payload [i32] {
  pool.handler "shade" (%ray) {
    %pixel = pool.load %ray : i32
    // expected-error @below {{'wave.binding' op uses binding 'spp', but @path binds no such name}}
    %spp = wave.binding "spp" : i32
    pool.release %ray
  }
}
pool.emission_bound @path -> @shadow max 1
// expected-note @below {{the coroutine is here}}
wave.coroutine @path(%pixel: i32) {
  pool.publish @shadow "shade" (%pixel) : i32
  wave.terminate
}

// -----

// A handler's wave.binding has another type than the coroutine's binding:
// another shape ...
pool.owner @shadow capacity 16 stages ["shade"] payload [i32] {
  pool.handler "shade" (%ray) {
    %pixel = pool.load %ray : i32
    // expected-error @below {{'wave.binding' op binding 'film' of @path has type 'memref<16xi32>', not 'memref<8xi32>'}}
    %film = wave.binding "film" : memref<8xi32>
    pool.release %ray
  }
}
pool.emission_bound @path -> @shadow max 1
wave.coroutine @path(%pixel: i32) bind(%film: memref<16xi32>) {
  pool.publish @shadow "shade" (%pixel) : i32
  wave.terminate
}

// -----

// ... or a buffer for a uniform.
pool.owner @shadow capacity 16 stages ["shade"] payload [i32] {
  pool.handler "shade" (%ray) {
    %pixel = pool.load %ray : i32
    // expected-error @below {{'wave.binding' op binding 'spp' of @path has type 'i32', not 'memref<1xi32>'}}
    %spp = wave.binding "spp" : memref<1xi32>
    pool.release %ray
  }
}
pool.emission_bound @path -> @shadow max 1
wave.coroutine @path(%pixel: i32) bind(%spp: i32) {
  pool.publish @shadow "shade" (%pixel) : i32
  wave.terminate
}

// -----

// A handler writes a readonly binding: the error is at the handler's store,
// the note at the coroutine that declares it readonly.
pool.owner @shadow capacity 16 stages ["shade"] payload [i32] {
  pool.handler "shade" (%ray) {
    %pixel = pool.load %ray : i32
    %film = wave.binding "film" : memref<16xi32>
    %p = arith.index_cast %pixel : i32 to index
    // expected-error @below {{'memref.store' op writes binding 'film', which is declared readonly}}
    memref.store %pixel, %film[%p] : memref<16xi32>
    pool.release %ray
  }
}
pool.emission_bound @path -> @shadow max 1
// expected-note @below {{binding 'film' is declared here}}
wave.coroutine @path(%pixel: i32) bind(%film: memref<16xi32> readonly) {
  %i = arith.index_cast %pixel : i32 to index
  %v = memref.load %film[%i] : memref<16xi32>
  pool.publish @shadow "shade" (%v) : i32
  wave.terminate
}

// -----

// ... an atomic update is a write too ...
pool.owner @shadow capacity 16 stages ["shade"] payload [i32] {
  pool.handler "shade" (%ray) {
    %pixel = pool.load %ray : i32
    %film = wave.binding "film" : memref<16xi32>
    %p = arith.index_cast %pixel : i32 to index
    // expected-error @below {{'memref.atomic_rmw' op writes binding 'film', which is declared readonly}}
    %old = memref.atomic_rmw addi %pixel, %film[%p] : (i32, memref<16xi32>) -> i32
    pool.release %ray
  }
}
pool.emission_bound @path -> @shadow max 1
// expected-note @below {{binding 'film' is declared here}}
wave.coroutine @path(%pixel: i32) bind(%film: memref<16xi32> readonly) {
  pool.publish @shadow "shade" (%pixel) : i32
  wave.terminate
}

// -----

// ... and a handler that reads a writeonly binding breaks its declaration.
pool.owner @shadow capacity 16 stages ["shade"] payload [i32] {
  pool.handler "shade" (%ray) {
    %pixel = pool.load %ray : i32
    %film = wave.binding "film" : memref<16xi32>
    %p = arith.index_cast %pixel : i32 to index
    // expected-error @below {{'memref.load' op reads binding 'film', which is declared writeonly}}
    %v = memref.load %film[%p] : memref<16xi32>
    pool.release %ray
  }
}
pool.emission_bound @path -> @shadow max 1
// expected-note @below {{binding 'film' is declared here}}
wave.coroutine @path(%pixel: i32) bind(%film: memref<16xi32> writeonly) {
  pool.publish @shadow "shade" (%pixel) : i32
  wave.terminate
}
