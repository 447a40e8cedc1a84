// Conformance: atomics on bindings (adapter_conformance_test.cpp, Atomic*,
// Resident*, StateMachine). The shadow film of examples/shadow_pool.mlir with
// a dynamic film and an atomic max in a main stage: lane p publishes two rays
// to the lights
//   light(p, s) = (7 p + s + shift) mod lights,   s = 0, 1,
// "intersect" releases a ray whose light is occluded (occluders[light] != 0)
// and moves the others to "shade", which adds light + 1 to film[p]
// (atomically: the two rays of a pixel may be shaded in one dispatch). The
// "bounce" stage also folds v(p) = ((37 p) mod 101) - 50 into peak[0] with a
// signed atomic max.
pool.owner @shadow capacity 256 stages ["intersect", "shade"] payload [i32, i32] {
  pool.handler "intersect" (%ray) {
    %pixel, %light = pool.load %ray : i32, i32
    %occluders = wave.binding "occluders" : memref<?xi32>
    %index = arith.index_cast %light : i32 to index
    %blocked = memref.load %occluders[%index] : memref<?xi32>
    %zero = arith.constant 0 : i32
    %occluded = arith.cmpi ne, %blocked, %zero : i32
    scf.if %occluded {
      pool.release %ray
    } else {
      pool.move %ray to "shade"
    }
  }
  pool.handler "shade" (%ray) {
    %pixel, %light = pool.load %ray : i32, i32
    %film = wave.binding "film" : memref<?xi32>
    %p = arith.index_cast %pixel : i32 to index
    %one = arith.constant 1 : i32
    %radiance = arith.addi %light, %one : i32
    %old = memref.atomic_rmw addi %radiance, %film[%p]
        : (i32, memref<?xi32>) -> i32
    pool.release %ray
  }
}

pool.emission_bound @film -> @shadow max 2

wave.coroutine @film(%pixel: i32)
    bind(%occluders: memref<?xi32> readonly, %film: memref<?xi32>,
         %peak: memref<1xi32>, %lights: i32, %shift: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %samples = arith.constant 2 : index
  %seven = arith.constant 7 : i32
  wave.suspend "bounce" sort_by %pixel : i32
  %c37 = arith.constant 37 : i32
  %c101 = arith.constant 101 : i32
  %c50 = arith.constant 50 : i32
  %m = arith.muli %pixel, %c37 : i32
  %r = arith.remui %m, %c101 : i32
  %v = arith.subi %r, %c50 : i32
  %oldpeak = memref.atomic_rmw maxs %v, %peak[%c0] : (i32, memref<1xi32>) -> i32
  %base = arith.muli %pixel, %seven : i32
  %shifted = arith.addi %base, %shift : i32
  scf.for %s = %c0 to %samples step %c1 {
    %si = arith.index_cast %s : index to i32
    %sum = arith.addi %shifted, %si : i32
    %light = arith.remui %sum, %lights : i32
    pool.publish @shadow "intersect" (%pixel, %light) : i32, i32
  }
  wave.terminate
}
