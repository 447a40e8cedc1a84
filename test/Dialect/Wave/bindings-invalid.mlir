// Every verifier diagnostic of coroutine bindings (bind(...), readonly and
// writeonly, wave.binding), and the parser's diagnostic for a binding that
// has no name.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// A binding is named by its SSA name; a numbered value has none.
wave.coroutine @numbered(%lane: i32)
    // expected-error @below {{a binding is named by its SSA name, which must start with a letter or '_' (write %film, not %0)}}
    bind(%0: memref<4xi32>) {
  wave.terminate
}

// -----

// Buffer element types: i32, i64, f32, f64 only.
// expected-error @below {{'wave.coroutine' op binding 'bytes' has type 'memref<16xi8>', but a binding is a memref of i32, i64, f32 or f64 (static shape, or rank 1 and dynamic, identity layout) or one of those scalars}}
wave.coroutine @bad_element(%lane: i32) bind(%bytes: memref<16xi8>) {
  wave.terminate
}

// -----

// Dynamic extents only in a rank-1 buffer.
// expected-error @below {{'wave.coroutine' op binding 'image' has type 'memref<?x4xf32>', but a binding is a memref of}}
wave.coroutine @dynamic_2d(%lane: i32) bind(%image: memref<?x4xf32>) {
  wave.terminate
}

// -----

// An identity layout only.
// expected-error @below {{'wave.coroutine' op binding 'strided' has type 'memref<8xf32, strided<[2]>>', but a binding is a memref of}}
wave.coroutine @strided(%lane: i32) bind(%strided: memref<8xf32, strided<[2]>>) {
  wave.terminate
}

// -----

// No memory space.
// expected-error @below {{'wave.coroutine' op binding 'shared' has type 'memref<8xf32, 3>', but a binding is a memref of}}
wave.coroutine @memory_space(%lane: i32) bind(%shared: memref<8xf32, 3>) {
  wave.terminate
}

// -----

// Uniforms: the same four scalars; index is not one of them.
// expected-error @below {{'wave.coroutine' op binding 'count' has type 'index', but a binding is a memref of}}
wave.coroutine @index_uniform(%lane: i32) bind(%count: index) {
  wave.terminate
}

// -----

// expected-error @below {{'wave.coroutine' op binding 'v' has type 'vector<4xf32>', but a binding is a memref of}}
wave.coroutine @vector_uniform(%lane: i32) bind(%v: vector<4xf32>) {
  wave.terminate
}

// -----

// readonly and writeonly are for buffers; a uniform is always read-only.
// expected-error @below {{'wave.coroutine' op uniform 'spp' is read-only; only buffers take 'readonly' or 'writeonly'}}
wave.coroutine @uniform_readonly(%lane: i32) bind(%spp: i32 readonly) {
  wave.terminate
}

// -----

// expected-error @below {{'wave.coroutine' op uniform 'scale' is read-only; only buffers take 'readonly' or 'writeonly'}}
wave.coroutine @uniform_writeonly(%lane: i32) bind(%scale: f64 writeonly) {
  wave.terminate
}

// -----

// Writing a readonly buffer: memref.store. The error is at the store, the
// note at the coroutine that declares the binding.
// expected-note @below {{binding 'scene' is declared here}}
wave.coroutine @store_readonly(%lane: i32) bind(%scene: memref<?xf32> readonly) {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  // expected-error @below {{'memref.store' op writes binding 'scene', which is declared readonly}}
  memref.store %x, %scene[%c0] : memref<?xf32>
  wave.terminate
}

// -----

// An atomic read-modify-write writes.
// expected-note @below {{binding 'counts' is declared here}}
wave.coroutine @atomic_readonly(%lane: i32) bind(%counts: memref<16xi32> readonly) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'memref.atomic_rmw' op writes binding 'counts', which is declared readonly}}
  %old = memref.atomic_rmw addi %lane, %counts[%c0] : (i32, memref<16xi32>) -> i32
  wave.terminate
}

// -----

// An op Sluice does not know (here a call) may write, so it counts as a write.
func.func private @touch(memref<16xi32>)
// expected-note @below {{binding 'table' is declared here}}
wave.coroutine @call_readonly(%lane: i32) bind(%table: memref<16xi32> readonly) {
  // expected-error @below {{'func.call' op writes binding 'table', which is declared readonly}}
  func.call @touch(%table) : (memref<16xi32>) -> ()
  wave.terminate
}

// -----

// Uses are followed through view-like ops: a store into a cast of the
// binding writes the binding.
// expected-note @below {{binding 'scene' is declared here}}
wave.coroutine @store_through_cast(%lane: i32) bind(%scene: memref<8xi32> readonly) {
  %c0 = arith.constant 0 : index
  %view = memref.cast %scene : memref<8xi32> to memref<?xi32>
  // expected-error @below {{'memref.store' op writes binding 'scene', which is declared readonly}}
  memref.store %lane, %view[%c0] : memref<?xi32>
  wave.terminate
}

// -----

// ... and through wave.binding, which names the same buffer.
// expected-note @below {{binding 'scene' is declared here}}
wave.coroutine @store_through_binding(%lane: i32) bind(%scene: memref<8xi32> readonly) {
  %c0 = arith.constant 0 : index
  %again = wave.binding "scene" : memref<8xi32>
  // expected-error @below {{'memref.store' op writes binding 'scene', which is declared readonly}}
  memref.store %lane, %again[%c0] : memref<8xi32>
  wave.terminate
}

// -----

// Reading a writeonly buffer: memref.load.
// expected-note @below {{binding 'film' is declared here}}
wave.coroutine @load_writeonly(%lane: i32) bind(%film: memref<16xi32> writeonly) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'memref.load' op reads binding 'film', which is declared writeonly}}
  %v = memref.load %film[%c0] : memref<16xi32>
  wave.terminate
}

// -----

// An unknown op may read too.
func.func private @peek(memref<16xi32>)
// expected-note @below {{binding 'film' is declared here}}
wave.coroutine @call_writeonly(%lane: i32) bind(%film: memref<16xi32> writeonly) {
  // expected-error @below {{'func.call' op reads binding 'film', which is declared writeonly}}
  func.call @peek(%film) : (memref<16xi32>) -> ()
  wave.terminate
}

// -----

// A writeonly buffer may be stored and atomically updated, and memref.dim
// reads its shape, not its data; a readonly one may be loaded.
wave.coroutine @allowed(%lane: i32)
    bind(%film: memref<?xi32> writeonly, %scene: memref<?xf32> readonly) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %film, %c0 : memref<?xi32>
  memref.store %lane, %film[%c0] : memref<?xi32>
  %old = memref.atomic_rmw addi %lane, %film[%c0] : (i32, memref<?xi32>) -> i32
  %t = memref.load %scene[%n] : memref<?xf32>
  wave.terminate
}

// -----

// The split form: a stage's wave.binding is checked against the declaration.
// expected-note @below {{binding 'scene' is declared here}}
wave.coroutine @split_store_readonly(%lane: i32) bind(%scene: memref<8xi32> readonly) {
  frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
  stage 0 "entry" {
  ^bb0(%frame: index, %x: i32):
    %c0 = arith.constant 0 : index
    %b = wave.binding "scene" : memref<8xi32>
    // expected-error @below {{'memref.store' op writes binding 'scene', which is declared readonly}}
    memref.store %x, %b[%c0] : memref<8xi32>
    wave.next %frame done
  }
  transition "entry" -> done
  terminate
}

// -----

// wave.binding inside a coroutine names one of its bindings ...
wave.coroutine @unknown_binding(%lane: i32) bind(%film: memref<16xi32>) {
  // expected-error @below {{'wave.binding' op @unknown_binding has no binding 'flim'}}
  %f = wave.binding "flim" : memref<16xi32>
  wave.terminate
}

// -----

wave.coroutine @no_bindings(%lane: i32) {
  // expected-error @below {{'wave.binding' op @no_bindings has no binding 'film'}}
  %f = wave.binding "film" : memref<16xi32>
  wave.terminate
}

// -----

// ... with its type.
wave.coroutine @wrong_binding_type(%lane: i32) bind(%film: memref<16xi32>) {
  // expected-error @below {{'wave.binding' op binding 'film' has type 'memref<16xi32>', not 'memref<8xi32>'}}
  %f = wave.binding "film" : memref<8xi32>
  wave.terminate
}

// -----

wave.coroutine @wrong_uniform_type(%lane: i32) bind(%spp: i32) {
  // expected-error @below {{'wave.binding' op binding 'spp' has type 'i32', not 'i64'}}
  %s = wave.binding "spp" : i64
  wave.terminate
}

// -----

// The custom form cannot write the following, the generic form can: a name
// given twice, more names than arguments, access for a different number of
// bindings.
// expected-error @below {{'wave.coroutine' op binds 'a' twice}}
"wave.coroutine"() <{binding_access = ["", ""], binding_names = ["a", "a"], function_type = (i32, i32, i32) -> (), sym_name = "twice"}> ({
^bb0(%lane: i32, %x: i32, %y: i32):
  "wave.terminate"() : () -> ()
}) : () -> ()

// -----

// expected-error @below {{'wave.coroutine' op declares 3 binding names but takes 2 arguments}}
"wave.coroutine"() <{binding_names = ["a", "b", "c"], function_type = (i32, i32) -> (), sym_name = "too_many_names"}> ({
^bb0(%lane: i32, %x: i32):
  "wave.terminate"() : () -> ()
}) : () -> ()

// -----

// expected-error @below {{'wave.coroutine' op declares the access of 1 bindings but has 2}}
"wave.coroutine"() <{binding_access = ["readonly"], binding_names = ["a", "b"], function_type = (i32, memref<4xi32>, memref<4xi32>) -> (), sym_name = "short_access"}> ({
^bb0(%lane: i32, %x: memref<4xi32>, %y: memref<4xi32>):
  "wave.terminate"() : () -> ()
}) : () -> ()

// -----

// The access of a binding follows it into the helpers it is passed to: a
// store in a helper is a write of the coroutine's readonly binding.
func.func private @clear(%m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @below {{'memref.store' op writes binding 'scene', which is declared readonly}}
  memref.store %zero, %m[%c0] : memref<?xf32>
  return
}
// expected-note @below {{binding 'scene' is declared here}}
wave.coroutine @helper_writes(%lane: i32) bind(%scene: memref<?xf32> readonly) {
  func.call @clear(%scene) : (memref<?xf32>) -> ()
  wave.terminate
}
