// A path-tracing style coroutine that feeds a two-stage shadow pool.
//
// Main stages of @path: entry (generate a camera ray), "bounce" (shade a hit and
// publish up to one shadow ray per light sample, 2 samples), "finish".
// Pool @shadow: "intersect" either releases an occluded ray directly (bypass of
// "shade") or moves it to "shade"; "shade" may loop to itself (self-loop).
//
//   sluice-opt --sluice-verify-emission-bounds=print-bounds bench/inputs/shadow_pool_stats.mlir

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

// Each invocation of a main stage of @path publishes at most 2 shadow rays.
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
