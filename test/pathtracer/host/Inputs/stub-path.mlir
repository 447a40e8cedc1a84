// A stand-in for the path tracer with exactly the bindings of
// docs/pathtracer.md section 2 and its stages ("intersect", "shade", and an
// owner @shadow with "intersect" and "shade"), whose film has a closed form:
// lane l renders pixel l mod (width * height) at sample
// s = sample_base + l / (width * height), and adds
//   red   += s + 1            (in stage "shade")
//   green += 1                (by its one shadow ray, in @shadow "shade")
//   blue  += (pixel + 1) 2^24 (pixel + 1 units of radiance, in "shade")
// so after spp samples every pixel holds
// (spp (spp + 1) / 2, spp, spp (pixel + 1) 2^24)
// exactly when every sample 0 .. spp-1 ran once; and the ray count of
// section 7 (intersect + shadow.intersect invocations) is 2 * pixels * spp.
pool.owner @shadow capacity 256 stages ["intersect", "shade"] payload [i32] {
  pool.handler "intersect" (%ray) {
    %pixel = pool.load %ray : i32
    pool.move %ray to "shade"
  }
  pool.handler "shade" (%ray) {
    %pixel = pool.load %ray : i32
    %film = wave.binding "film" : memref<?xi64>
    %three = arith.constant 3 : i32
    %one = arith.constant 1 : i32
    %one64 = arith.constant 1 : i64
    %base = arith.muli %pixel, %three : i32
    %g = arith.addi %base, %one : i32
    %gi = arith.index_cast %g : i32 to index
    %old = memref.atomic_rmw addi %one64, %film[%gi] : (i64, memref<?xi64>) -> i64
    pool.release %ray
  }
}
pool.emission_bound @path -> @shadow max 1

wave.coroutine @path(%lane: i32)
    bind(%tri_verts: memref<?xf32> readonly, %tri_mat: memref<?xi32> readonly,
         %bvh_bounds: memref<?xf32> readonly, %bvh_links: memref<?xi32> readonly,
         %spheres: memref<?xf32> readonly, %sphere_mat: memref<?xi32> readonly,
         %quads: memref<?xf32> readonly, %quad_mat: memref<?xi32> readonly,
         %mat_kind: memref<?xi32> readonly, %mat_data: memref<?xf32> readonly,
         %lights: memref<?xf32> readonly, %film: memref<?xi64>,
         %width: i32, %height: i32, %sample_base: i32, %seed: i32,
         %cam_eye_x: f32, %cam_eye_y: f32, %cam_eye_z: f32,
         %cam_fwd_x: f32, %cam_fwd_y: f32, %cam_fwd_z: f32,
         %cam_right_x: f32, %cam_right_y: f32, %cam_right_z: f32,
         %cam_up_x: f32, %cam_up_y: f32, %cam_up_z: f32,
         %texture_octaves: i32) {
  %pixels = arith.muli %width, %height : i32
  %pixel = arith.remui %lane, %pixels : i32
  %offset = arith.divui %lane, %pixels : i32
  %sample = arith.addi %sample_base, %offset : i32
  wave.suspend "intersect"
  wave.suspend "shade" sort_by %pixel : i32
  %three = arith.constant 3 : i32
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %base = arith.muli %pixel, %three : i32
  %ri = arith.index_cast %base : i32 to index
  %b = arith.addi %base, %two : i32
  %bi = arith.index_cast %b : i32 to index
  %s1 = arith.addi %sample, %one : i32
  %s64 = arith.extui %s1 : i32 to i64
  %old_r = memref.atomic_rmw addi %s64, %film[%ri] : (i64, memref<?xi64>) -> i64
  %unit = arith.constant 16777216 : i64
  %p1 = arith.addi %pixel, %one : i32
  %p64 = arith.extui %p1 : i32 to i64
  %units = arith.muli %p64, %unit : i64
  %old_b = memref.atomic_rmw addi %units, %film[%bi] : (i64, memref<?xi64>) -> i64
  pool.publish @shadow "intersect" (%pixel) : i32
  wave.terminate
}
