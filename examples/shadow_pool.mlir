// Per-pixel shadow-ray visibility: a coroutine that feeds a two-stage shadow
// pool and accumulates into a film it shares with the pool's handlers.
//
// Each lane (a pixel p) publishes two shadow rays, to the lights
//   light(p, s) = (7 p + s + shift) mod lights,   s = 0, 1.
// Pool @shadow: "intersect" releases a ray whose light is occluded
// (occluders[light] != 0) and moves the others to "shade", which adds
// light + 1 to film[p mod 4096]. So after a run of N lanes,
//   film[q] = sum over p < N with p mod 4096 = q, and s = 0, 1, of
//             (occluders[light(p, s)] == 0) * (light(p, s) + 1)
// (for N <= 4096: one pixel per element, 0 beyond N). The film is integer,
// so the result does not depend
// on the order of the atomic additions (test/Integration/wave-bindings.test
// checks it against that formula on every backend and schedule, with
// examples/shadow_film.py).
//
//   sluice-opt --sluice-verify-emission-bounds=print-bounds examples/shadow_pool.mlir
//   sluice-run examples/shadow_pool.mlir --lanes=4096 \
//       --bind occluders=occluders.npy --set lights=64 --set shift=3 \
//       --output film=film.npy --stats

pool.owner @shadow capacity 1024 stages ["intersect", "shade"] payload [i32, i32] {
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
    %film = wave.binding "film" : memref<4096xi32>
    %size = arith.constant 4096 : i32
    %wrapped = arith.remui %pixel, %size : i32
    %p = arith.index_cast %wrapped : i32 to index
    %one = arith.constant 1 : i32
    %radiance = arith.addi %light, %one : i32
    %old = memref.atomic_rmw addi %radiance, %film[%p]
        : (i32, memref<4096xi32>) -> i32
    pool.release %ray
  }
}

// Each invocation of a main stage of @path publishes at most 2 shadow rays.
pool.emission_bound @path -> @shadow max 2

wave.coroutine @path(%pixel: i32)
    bind(%occluders: memref<?xi32> readonly, %film: memref<4096xi32> writeonly,
         %lights: i32, %shift: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %samples = arith.constant 2 : index
  %seven = arith.constant 7 : i32
  wave.suspend "bounce" sort_by %pixel : i32
  %base = arith.muli %pixel, %seven : i32
  %shifted = arith.addi %base, %shift : i32
  scf.for %s = %c0 to %samples step %c1 {
    %si = arith.index_cast %s : index to i32
    %sum = arith.addi %shifted, %si : i32
    %light = arith.remui %sum, %lights : i32
    pool.publish @shadow "intersect" (%pixel, %light) : i32, i32
  }
  wave.suspend "finish"
  wave.terminate
}
