// The path tracer of docs/pathtracer.md (sections 2 to 8) as one wave program.
//
// One lane is one sample of one pixel: lane l renders pixel l mod (w h) at
// sample sample_base + l / (w h). The coroutine @path generates the camera
// ray (jittered by u0, u1) and then loops over bounces, each bounce two stages:
//
//   "intersect"  (sort_by the ray key: 1 when the ray meets the BVH's root
//                box, else 0, so that the rays that walk the mesh's nodes run
//                together and the others, a test of each sphere and quad,
//                do not wait for them) traverses the BVH of the triangles
//                (node 0 the root, a 32-entry private stack, memref.alloca)
//                and tests every sphere; it finds the nearest hit with
//                0.01 < t < 1e30, its point, geometric normal and material.
//                A miss ends the lane.
//   "shade"      (sort_by the material, so that invocations of one material
//                kind run together) adds the emission seen by a camera or
//                specular ray, picks one light for next-event estimation and
//                publishes at most one shadow ray into @shadow, samples the
//                next direction (diffuse: cosine hemisphere in the basis of
//                Duff et al.; mirror; glass with the exact Fresnel term), and
//                ends the path at depth 8 or by Russian roulette (bounce >= 3).
//                With texture_octaves > 0 a diffuse albedo is modulated by
//                fractal value noise of the hit point (section 9): the
//                heavy-shading variant of the benchmark; its four patterns
//                are four code paths, divergent shading when the materials
//                of one dispatch name different ones.
//
// pool.owner @shadow takes the shadow rays (payload: pixel, contribution C
// rgb, origin, direction, t_max). Its "intersect" handler runs the same
// traversal as an any-hit query and releases an occluded ray; "shade" adds C
// to the film. pool.emission_bound @path -> @shadow max 1 is proven by
// sluice-verify-emission-bounds: every path through one main stage publishes
// at most one ray. Capacity 1048576 holds one shadow ray of every frame for
// frame pools up to 1048576 (the runtime needs P * 1 <= C without partial
// admission; with it, the default, any capacity runs, admitting fewer shade
// invocations at a time). A GPU wants large pools: on the H200, capacity
// 8192 admitted ~570 shade invocations per dispatch and took 98,000
// scheduler iterations for 512 x 512 x 64; 262144 takes 1,527 (2.5x the
// rays per second). On an H100 (2026-12-06, the device placement, unsorted)
// 1048576 with a frame pool of as many frames traces 1.30x (hip) and 1.41x
// (Vulkan) the rays per second of 262144 with 262144 frames: with C = P
// every shade dispatch that meets live shadow rays is admitted only in
// part; 2097152 is slower again (docs/runtime.md, "The shadow rays'
// capacity"). sluice-translate --sluice-capacity=shadow=N overrides it.
//
// Every random number u_K is Philox-2x32-10 of counter (pixel, sample * 256 +
// bounce * 16 + K) and key seed (@philox, @uniform), so the image does not
// depend on the schedule. Every contribution c is added to the film, three
// i64 per pixel, as q(c) = int64(c * 2^24 + 0.5) with memref.atomic_rmw addi
// (@film_add): integer addition commutes, so the wavefront and the
// state-machine schedules write bit-identical films.
//
// The reusable code is in func.func private helpers (vector math, Philox, the
// ray-primitive tests, the traversal, the film); every Sluice pipeline inlines
// them into the stages and handlers before the proofs and wave-split run
// (sluice-inline-helpers), so the kernels contain no call.
//
// Bindings (docs/pathtracer.md section 2; their order here is free, their
// names and types are not):
//   tri_verts f32[9 n], tri_mat i32[n], bvh_bounds f32[6 m], bvh_links i32[2 m],
//   quads f32[9 q], quad_mat i32[q],
//   spheres f32[4 s], sphere_mat i32[s], mat_kind i32[k], mat_data f32[8 k],
//   lights f32[12 L], film i64[3 w h];
//   uniforms width, height, sample_base, seed, texture_octaves (i32),
//   cam_eye_x/y/z, cam_fwd_x/y/z, cam_right_x/y/z, cam_up_x/y/z (f32).
//
//   sluice-run examples/pathtracer/pathtracer.mlir --lanes=<w h spp> \
//     --bind=tri_verts=tri_verts.npy ... --set=width=W --set=height=H \
//     --set=sample_base=0 --set=seed=S --set=cam_eye_x=... \
//     --output=film=film.npy [--backend=vulkan] [--schedule=state-machine]
//
// test/pathtracer/wave/scenes.py writes the bindings of small scenes and
// checks the films against closed forms.

pool.owner @shadow capacity 1048576 stages ["intersect", "shade"]
    payload [i32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32] {
  pool.handler "intersect" (%ray) {
    %pixel, %cr, %cg, %cb, %ox, %oy, %oz, %dx, %dy, %dz, %tmax = pool.load %ray
        : i32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
    %tri_verts = wave.binding "tri_verts" : memref<?xf32>
    %bvh_bounds = wave.binding "bvh_bounds" : memref<?xf32>
    %bvh_links = wave.binding "bvh_links" : memref<?xi32>
    %spheres = wave.binding "spheres" : memref<?xf32>
    %quads = wave.binding "quads" : memref<?xf32>
    %any = arith.constant true
    %kind, %index, %t = func.call @trace(%ox, %oy, %oz, %dx, %dy, %dz, %tmax,
        %any, %tri_verts, %bvh_bounds, %bvh_links, %spheres, %quads)
        : (f32, f32, f32, f32, f32, f32, f32, i1, memref<?xf32>, memref<?xf32>,
           memref<?xi32>, memref<?xf32>, memref<?xf32>) -> (i32, i32, f32)
    %none = arith.constant 0 : i32
    %occluded = arith.cmpi ne, %kind, %none : i32
    scf.if %occluded {
      pool.release %ray
    } else {
      pool.move %ray to "shade"
    }
  }
  pool.handler "shade" (%ray) {
    %pixel, %cr, %cg, %cb, %ox, %oy, %oz, %dx, %dy, %dz, %tmax = pool.load %ray
        : i32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
    %film = wave.binding "film" : memref<?xi64>
    func.call @film_add(%film, %pixel, %cr, %cg, %cb)
        : (memref<?xi64>, i32, f32, f32, f32) -> ()
    pool.release %ray
  }
}

// One shadow ray per shading invocation.
pool.emission_bound @path -> @shadow max 1

wave.coroutine @path(%lane: i32)
    bind(%tri_verts: memref<?xf32> readonly, %tri_mat: memref<?xi32> readonly,
         %bvh_bounds: memref<?xf32> readonly, %bvh_links: memref<?xi32> readonly,
         %spheres: memref<?xf32> readonly, %sphere_mat: memref<?xi32> readonly,
         %quads: memref<?xf32> readonly, %quad_mat: memref<?xi32> readonly,
         %mat_kind: memref<?xi32> readonly, %mat_data: memref<?xf32> readonly,
         %lights: memref<?xf32> readonly, %film: memref<?xi64> writeonly,
         %width: i32, %height: i32, %sample_base: i32, %seed: i32,
         %cam_eye_x: f32, %cam_eye_y: f32, %cam_eye_z: f32,
         %cam_fwd_x: f32, %cam_fwd_y: f32, %cam_fwd_z: f32,
         %cam_right_x: f32, %cam_right_y: f32, %cam_right_z: f32,
         %cam_up_x: f32, %cam_up_y: f32, %cam_up_z: f32,
         %texture_octaves: i32) {
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i3 = arith.constant 3 : i32
  %i8 = arith.constant 8 : i32
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %f2 = arith.constant 2.0 : f32
  %true = arith.constant true
  %false = arith.constant false

  // Section 3: the lane's pixel and sample, the camera ray.
  %pixels = arith.muli %width, %height : i32
  %pixel = arith.remui %lane, %pixels : i32
  %pass_sample = arith.divui %lane, %pixels : i32
  %sample = arith.addi %sample_base, %pass_sample : i32
  %px = arith.remui %pixel, %width : i32
  %py = arith.divui %pixel, %width : i32
  %u0 = func.call @uniform(%seed, %pixel, %sample, %i0, %i0)
      : (i32, i32, i32, i32, i32) -> f32
  %u1 = func.call @uniform(%seed, %pixel, %sample, %i0, %i1)
      : (i32, i32, i32, i32, i32) -> f32
  %fx = arith.uitofp %px : i32 to f32
  %fy = arith.uitofp %py : i32 to f32
  %fw = arith.uitofp %width : i32 to f32
  %fh = arith.uitofp %height : i32 to f32
  %jx = arith.addf %fx, %u0 fastmath<contract> : f32
  %jx2 = arith.mulf %f2, %jx fastmath<contract> : f32
  %jxw = arith.divf %jx2, %fw : f32
  %a = arith.subf %jxw, %f1 fastmath<contract> : f32
  %jy = arith.addf %fy, %u1 fastmath<contract> : f32
  %jy2 = arith.mulf %f2, %jy fastmath<contract> : f32
  %jyh = arith.divf %jy2, %fh : f32
  %b = arith.subf %f1, %jyh fastmath<contract> : f32
  %rx = func.call @camera_axis(%cam_fwd_x, %cam_right_x, %cam_up_x, %a, %b)
      : (f32, f32, f32, f32, f32) -> f32
  %ry = func.call @camera_axis(%cam_fwd_y, %cam_right_y, %cam_up_y, %a, %b)
      : (f32, f32, f32, f32, f32) -> f32
  %rz = func.call @camera_axis(%cam_fwd_z, %cam_right_z, %cam_up_z, %a, %b)
      : (f32, f32, f32, f32, f32) -> f32
  %dx0, %dy0, %dz0 = func.call @normalize(%rx, %ry, %rz)
      : (f32, f32, f32) -> (f32, f32, f32)

  // Section 4: the path state is the ray, the throughput T, the bounce and
  // the specular flag (i32: 1 true).
  %end:12 = scf.while (%ox = %cam_eye_x, %oy = %cam_eye_y, %oz = %cam_eye_z,
                       %dx = %dx0, %dy = %dy0, %dz = %dz0,
                       %tr = %f1, %tg = %f1, %tb = %f1,
                       %bounce = %i0, %specular = %i1, %alive = %true)
      : (f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i1)
     -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i1) {
    scf.condition(%alive) %ox, %oy, %oz, %dx, %dy, %dz, %tr, %tg, %tb,
        %bounce, %specular, %alive
        : f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i1
  } do {
  ^bb0(%ox: f32, %oy: f32, %oz: f32, %dx: f32, %dy: f32, %dz: f32,
       %tr: f32, %tg: f32, %tb: f32, %bounce: i32, %specular: i32, %alive: i1):
    %tmax = arith.constant 1.0e30 : f32
    %ray_key = func.call @ray_key(%ox, %oy, %oz, %dx, %dy, %dz, %bvh_bounds,
        %bvh_links) : (f32, f32, f32, f32, f32, f32, memref<?xf32>,
        memref<?xi32>) -> i32
    wave.suspend "intersect" sort_by %ray_key : i32
    %kind, %index, %t = func.call @trace(%ox, %oy, %oz, %dx, %dy, %dz, %tmax,
        %false, %tri_verts, %bvh_bounds, %bvh_links, %spheres, %quads)
        : (f32, f32, f32, f32, f32, f32, f32, i1, memref<?xf32>, memref<?xf32>,
           memref<?xi32>, memref<?xf32>, memref<?xf32>) -> (i32, i32, f32)
    %hit = arith.cmpi ne, %kind, %i0 : i32
    %next:12 = scf.if %hit
        -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i1) {
      %hx, %hy, %hz, %nx, %ny, %nz, %material = func.call @hit_point(
          %ox, %oy, %oz, %dx, %dy, %dz, %kind, %index, %t,
          %tri_verts, %tri_mat, %spheres, %sphere_mat, %quads, %quad_mat)
          : (f32, f32, f32, f32, f32, f32, i32, i32, f32, memref<?xf32>,
             memref<?xi32>, memref<?xf32>, memref<?xi32>, memref<?xf32>,
             memref<?xi32>)
          -> (f32, f32, f32, f32, f32, f32, i32)
      wave.suspend "shade" sort_by %material : i32
      %s:15 = func.call @shade(%hx, %hy, %hz, %nx, %ny, %nz, %material,
          %dx, %dy, %dz, %tr, %tg, %tb, %bounce, %specular, %pixel, %sample,
          %seed, %texture_octaves, %mat_kind, %mat_data, %lights, %film)
          : (f32, f32, f32, f32, f32, f32, i32, f32, f32, f32, f32, f32, f32,
             i32, i32, i32, i32, i32, i32, memref<?xi32>, memref<?xf32>,
             memref<?xf32>, memref<?xi64>)
          -> (f32, f32, f32, f32, f32, f32, i32,
              i1, f32, f32, f32, f32, f32, f32, f32)
      // Step 3, NEE: the shadow ray (pixel, C, origin p, direction, t_max).
      scf.if %s#7 {
        pool.publish @shadow "intersect" (%pixel, %s#8, %s#9, %s#10, %hx, %hy,
            %hz, %s#11, %s#12, %s#13, %s#14)
            : i32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
      }
      // Step 7: at most 8 path rays; Russian roulette from bounce 3 on.
      %next_bounce = arith.addi %bounce, %i1 : i32
      %continue = arith.cmpi ne, %next_bounce, %i8 : i32
      %late = arith.cmpi uge, %next_bounce, %i3 : i32
      %roulette = arith.andi %continue, %late : i1
      %after:4 = scf.if %roulette -> (f32, f32, f32, i1) {
        %u8 = func.call @uniform(%seed, %pixel, %sample, %bounce, %i8)
            : (i32, i32, i32, i32, i32) -> f32
        %m1 = arith.maximumf %s#3, %s#4 : f32
        %m = arith.maximumf %m1, %s#5 : f32
        %lo = arith.constant 0.05 : f32
        %hi = arith.constant 0.95 : f32
        %m_lo = arith.maximumf %m, %lo : f32
        %q = arith.minimumf %m_lo, %hi : f32
        %survive = arith.cmpf olt, %u8, %q : f32
        %qr = arith.divf %s#3, %q : f32
        %qg = arith.divf %s#4, %q : f32
        %qb = arith.divf %s#5, %q : f32
        scf.yield %qr, %qg, %qb, %survive : f32, f32, f32, i1
      } else {
        scf.yield %s#3, %s#4, %s#5, %continue : f32, f32, f32, i1
      }
      scf.yield %hx, %hy, %hz, %s#0, %s#1, %s#2, %after#0, %after#1, %after#2,
          %next_bounce, %s#6, %after#3
          : f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i1
    } else {
      scf.yield %ox, %oy, %oz, %dx, %dy, %dz, %tr, %tg, %tb, %bounce,
          %specular, %false
          : f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i1
    }
    scf.yield %next#0, %next#1, %next#2, %next#3, %next#4, %next#5, %next#6,
        %next#7, %next#8, %next#9, %next#10, %next#11
        : f32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i1
  }
  wave.terminate
}

//===----------------------------------------------------------------------===//
// Shading (section 4, steps 1 to 6)
//===----------------------------------------------------------------------===//

// Shades the hit at p with geometric normal ng and material m for the ray of
// direction d and throughput T at `bounce`: adds the emission (step 1) and
// returns the next direction (normalised), the throughput before roulette,
// the new specular flag (i32: 1 true), then the NEE shadow ray of a diffuse
// hit for the caller to publish: (publish?, C rgb, direction, t_max). With
// `octaves` > 0 a diffuse albedo is modulated by the texture (section 9).
func.func private @shade(%hx: f32, %hy: f32, %hz: f32, %gx: f32, %gy: f32,
                         %gz: f32, %material: i32, %dx: f32, %dy: f32,
                         %dz: f32, %tr: f32, %tg: f32, %tb: f32, %bounce: i32,
                         %specular: i32, %pixel: i32, %sample: i32, %seed: i32,
                         %octaves: i32, %mat_kind: memref<?xi32>, %mat_data: memref<?xf32>,
                         %lights: memref<?xf32>, %film: memref<?xi64>)
    -> (f32, f32, f32, f32, f32, f32, i32,
        i1, f32, f32, f32, f32, f32, f32, f32) {
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i5 = arith.constant 5 : i32
  %i6 = arith.constant 6 : i32
  %i7 = arith.constant 7 : i32
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %f2 = arith.constant 2.0 : f32
  %m = arith.index_cast %material : i32 to index
  %kind = memref.load %mat_kind[%m] : memref<?xi32>
  %c8 = arith.constant 8 : index
  %base = arith.muli %m, %c8 : index
  %ar, %ag, %ab = func.call @load3(%mat_data, %base)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %c3 = arith.constant 3 : index
  %ebase = arith.addi %base, %c3 : index
  %er, %eg, %eb = func.call @load3(%mat_data, %ebase)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %c6 = arith.constant 6 : index
  %ibase = arith.addi %base, %c6 : index
  %ior = memref.load %mat_data[%ibase] : memref<?xf32>
  %c7 = arith.constant 7 : index
  %pbase = arith.addi %base, %c7 : index
  %pattern_f = memref.load %mat_data[%pbase] : memref<?xf32>
  %pattern = arith.fptosi %pattern_f : f32 to i32

  // Step 1: emission, seen from the front by a camera or specular ray.
  %dg = func.call @dot(%dx, %dy, %dz, %gx, %gy, %gz)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %front = arith.cmpf olt, %dg, %f0 : f32
  %camera = arith.cmpi eq, %bounce, %i0 : i32
  %was_specular = arith.cmpi ne, %specular, %i0 : i32
  %direct = arith.ori %camera, %was_specular : i1
  %emits = arith.andi %front, %direct : i1
  scf.if %emits {
    %cr = arith.mulf %tr, %er fastmath<contract> : f32
    %cg = arith.mulf %tg, %eg fastmath<contract> : f32
    %cb = arith.mulf %tb, %eb fastmath<contract> : f32
    func.call @film_add(%film, %pixel, %cr, %cg, %cb)
        : (memref<?xi64>, i32, f32, f32, f32) -> ()
  }

  // Step 2: the shading normal faces the incoming ray.
  %mgx = arith.negf %gx : f32
  %mgy = arith.negf %gy : f32
  %mgz = arith.negf %gz : f32
  %nx = arith.select %front, %gx, %mgx : f32
  %ny = arith.select %front, %gy, %mgy : f32
  %nz = arith.select %front, %gz, %mgz : f32

  %is_diffuse = arith.cmpi eq, %kind, %i0 : i32
  %is_mirror = arith.cmpi eq, %kind, %i1 : i32
  %out:15 = scf.if %is_diffuse -> (f32, f32, f32, f32, f32, f32, i32,
                                    i1, f32, f32, f32, f32, f32, f32, f32) {
    // Section 9: the textured albedo; octaves 0 keeps the material's own.
    %textured = arith.cmpi sgt, %octaves, %i0 : i32
    %albedo:3 = scf.if %textured -> (f32, f32, f32) {
      %tex = func.call @texture(%hx, %hy, %hz, %octaves, %pattern)
          : (f32, f32, f32, i32, i32) -> f32
      %xr = arith.mulf %ar, %tex fastmath<contract> : f32
      %xg = arith.mulf %ag, %tex fastmath<contract> : f32
      %xb = arith.mulf %ab, %tex fastmath<contract> : f32
      scf.yield %xr, %xg, %xb : f32, f32, f32
    } else {
      scf.yield %ar, %ag, %ab : f32, f32, f32
    }
    // Step 3: next-event estimation, then the cosine-weighted bounce.
    %nee:8 = func.call @next_event(%hx, %hy, %hz, %nx, %ny, %nz, %tr, %tg,
        %tb, %albedo#0, %albedo#1, %albedo#2, %bounce, %pixel, %sample, %seed,
        %lights)
        : (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, i32,
           i32, i32, i32, memref<?xf32>)
        -> (i1, f32, f32, f32, f32, f32, f32, f32)
    %u5 = func.call @uniform(%seed, %pixel, %sample, %bounce, %i5)
        : (i32, i32, i32, i32, i32) -> f32
    %u6 = func.call @uniform(%seed, %pixel, %sample, %bounce, %i6)
        : (i32, i32, i32, i32, i32) -> f32
    %wx, %wy, %wz = func.call @cosine_direction(%nx, %ny, %nz, %u5, %u6)
        : (f32, f32, f32, f32, f32) -> (f32, f32, f32)
    %r = arith.mulf %tr, %albedo#0 fastmath<contract> : f32
    %g = arith.mulf %tg, %albedo#1 fastmath<contract> : f32
    %b = arith.mulf %tb, %albedo#2 fastmath<contract> : f32
    scf.yield %wx, %wy, %wz, %r, %g, %b, %i0, %nee#0, %nee#1, %nee#2, %nee#3,
        %nee#4, %nee#5, %nee#6, %nee#7
        : f32, f32, f32, f32, f32, f32, i32, i1, f32, f32, f32, f32, f32, f32,
          f32
  } else {
    %specular_out:7 = scf.if %is_mirror -> (f32, f32, f32, f32, f32, f32, i32) {
      // Step 4: mirror.
      %wx, %wy, %wz = func.call @reflect(%dx, %dy, %dz, %nx, %ny, %nz)
          : (f32, f32, f32, f32, f32, f32) -> (f32, f32, f32)
      %r = arith.mulf %tr, %ar fastmath<contract> : f32
      %g = arith.mulf %tg, %ag fastmath<contract> : f32
      %b = arith.mulf %tb, %ab fastmath<contract> : f32
      scf.yield %wx, %wy, %wz, %r, %g, %b, %i1
          : f32, f32, f32, f32, f32, f32, i32
    } else {
      // Step 5: glass, reflected with probability F (exact Fresnel).
      %inv_ior = arith.divf %f1, %ior : f32
      %eta = arith.select %front, %inv_ior, %ior : f32
      %dn = func.call @dot(%dx, %dy, %dz, %nx, %ny, %nz)
          : (f32, f32, f32, f32, f32, f32) -> f32
      %c = arith.negf %dn : f32
      %eta2 = arith.mulf %eta, %eta fastmath<contract> : f32
      %c2 = arith.mulf %c, %c fastmath<contract> : f32
      %sin2 = arith.subf %f1, %c2 fastmath<contract> : f32
      %e2s = arith.mulf %eta2, %sin2 fastmath<contract> : f32
      %k = arith.subf %f1, %e2s fastmath<contract> : f32
      %tir = arith.cmpf olt, %k, %f0 : f32
      %k0 = arith.maximumf %k, %f0 : f32
      %ct = math.sqrt %k0 : f32
      %etac = arith.mulf %eta, %c fastmath<contract> : f32
      %rs_n = arith.subf %etac, %ct fastmath<contract> : f32
      %rs_d = arith.addf %etac, %ct fastmath<contract> : f32
      %rs = arith.divf %rs_n, %rs_d : f32
      %etact = arith.mulf %eta, %ct fastmath<contract> : f32
      %rp_n = arith.subf %c, %etact fastmath<contract> : f32
      %rp_d = arith.addf %c, %etact fastmath<contract> : f32
      %rp = arith.divf %rp_n, %rp_d : f32
      %rs2 = arith.mulf %rs, %rs fastmath<contract> : f32
      %rp2 = arith.mulf %rp, %rp fastmath<contract> : f32
      %sum = arith.addf %rs2, %rp2 fastmath<contract> : f32
      %fresnel = arith.divf %sum, %f2 : f32
      %F = arith.select %tir, %f1, %fresnel : f32
      %u7 = func.call @uniform(%seed, %pixel, %sample, %bounce, %i7)
          : (i32, i32, i32, i32, i32) -> f32
      %reflects = arith.cmpf olt, %u7, %F : f32
      %w:3 = scf.if %reflects -> (f32, f32, f32) {
        %wx, %wy, %wz = func.call @reflect(%dx, %dy, %dz, %nx, %ny, %nz)
            : (f32, f32, f32, f32, f32, f32) -> (f32, f32, f32)
        scf.yield %wx, %wy, %wz : f32, f32, f32
      } else {
        %s = arith.subf %etac, %ct fastmath<contract> : f32
        %wx = func.call @refract_axis(%eta, %dx, %s, %nx) : (f32, f32, f32, f32) -> f32
        %wy = func.call @refract_axis(%eta, %dy, %s, %ny) : (f32, f32, f32, f32) -> f32
        %wz = func.call @refract_axis(%eta, %dz, %s, %nz) : (f32, f32, f32, f32) -> f32
        scf.yield %wx, %wy, %wz : f32, f32, f32
      }
      scf.yield %w#0, %w#1, %w#2, %tr, %tg, %tb, %i1
          : f32, f32, f32, f32, f32, f32, i32
    }
    %no_shadow = arith.constant false
    scf.yield %specular_out#0, %specular_out#1, %specular_out#2,
        %specular_out#3, %specular_out#4, %specular_out#5, %specular_out#6,
        %no_shadow, %f0, %f0, %f0, %f0, %f0, %f0, %f0
        : f32, f32, f32, f32, f32, f32, i32, i1, f32, f32, f32, f32, f32, f32,
          f32
  }
  // Step 6: the new direction, normalised.
  %wx, %wy, %wz = func.call @normalize(%out#0, %out#1, %out#2)
      : (f32, f32, f32) -> (f32, f32, f32)
  return %wx, %wy, %wz, %out#3, %out#4, %out#5, %out#6, %out#7, %out#8,
      %out#9, %out#10, %out#11, %out#12, %out#13, %out#14
      : f32, f32, f32, f32, f32, f32, i32, i1, f32, f32, f32, f32, f32, f32, f32
}

// Step 3, next-event estimation at p (shading normal n) for throughput T and
// albedo A: light i = min(floor(u2 L), L - 1), the point q = corner +
// u3 edge_u + u4 edge_v on it. Returns (publish?, C rgb, wi, dist - 0.01)
// with C = T A / pi * radiance * cos_s * cos_l * area * L / dist^2, published
// only when both cosines are positive.
func.func private @next_event(%px: f32, %py: f32, %pz: f32, %nx: f32,
                              %ny: f32, %nz: f32, %tr: f32, %tg: f32,
                              %tb: f32, %ar: f32, %ag: f32, %ab: f32,
                              %bounce: i32, %pixel: i32, %sample: i32,
                              %seed: i32, %lights: memref<?xf32>)
    -> (i1, f32, f32, f32, f32, f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  %c12 = arith.constant 12 : index
  %i1 = arith.constant 1 : i32
  %i2 = arith.constant 2 : i32
  %i3 = arith.constant 3 : i32
  %i4 = arith.constant 4 : i32
  %f0 = arith.constant 0.0 : f32
  %pi = arith.constant 3.14159265 : f32
  %offset = arith.constant 0.01 : f32
  %false = arith.constant false
  %size = memref.dim %lights, %c0 : memref<?xf32>
  %count = arith.divui %size, %c12 : index
  %any = arith.cmpi ugt, %count, %c0 : index
  %r:8 = scf.if %any -> (i1, f32, f32, f32, f32, f32, f32, f32) {
    %count32 = arith.index_cast %count : index to i32
    %u2 = func.call @uniform(%seed, %pixel, %sample, %bounce, %i2)
        : (i32, i32, i32, i32, i32) -> f32
    %u3 = func.call @uniform(%seed, %pixel, %sample, %bounce, %i3)
        : (i32, i32, i32, i32, i32) -> f32
    %u4 = func.call @uniform(%seed, %pixel, %sample, %bounce, %i4)
        : (i32, i32, i32, i32, i32) -> f32
    %fcount = arith.uitofp %count32 : i32 to f32
    %scaled = arith.mulf %u2, %fcount fastmath<contract> : f32
    %pick = arith.fptoui %scaled : f32 to i32
    %last = arith.subi %count32, %i1 : i32
    %light = arith.minui %pick, %last : i32
    %l = arith.index_cast %light : i32 to index
    %base = arith.muli %l, %c12 : index
    %cx, %cy, %cz = func.call @load3(%lights, %base)
        : (memref<?xf32>, index) -> (f32, f32, f32)
    %ub = arith.addi %base, %c3 : index
    %ux, %uy, %uz = func.call @load3(%lights, %ub)
        : (memref<?xf32>, index) -> (f32, f32, f32)
    %vb = arith.addi %base, %c6 : index
    %vx, %vy, %vz = func.call @load3(%lights, %vb)
        : (memref<?xf32>, index) -> (f32, f32, f32)
    %rb = arith.addi %base, %c9 : index
    %lr, %lg, %lb = func.call @load3(%lights, %rb)
        : (memref<?xf32>, index) -> (f32, f32, f32)
    %qx = func.call @camera_axis(%cx, %ux, %vx, %u3, %u4)
        : (f32, f32, f32, f32, f32) -> f32
    %qy = func.call @camera_axis(%cy, %uy, %vy, %u3, %u4)
        : (f32, f32, f32, f32, f32) -> f32
    %qz = func.call @camera_axis(%cz, %uz, %vz, %u3, %u4)
        : (f32, f32, f32, f32, f32) -> f32
    %wx = arith.subf %qx, %px fastmath<contract> : f32
    %wy = arith.subf %qy, %py fastmath<contract> : f32
    %wz = arith.subf %qz, %pz fastmath<contract> : f32
    %ww = func.call @dot(%wx, %wy, %wz, %wx, %wy, %wz)
        : (f32, f32, f32, f32, f32, f32) -> f32
    %dist = math.sqrt %ww : f32
    %ix = arith.divf %wx, %dist : f32
    %iy = arith.divf %wy, %dist : f32
    %iz = arith.divf %wz, %dist : f32
    %kx, %ky, %kz = func.call @cross(%ux, %uy, %uz, %vx, %vy, %vz)
        : (f32, f32, f32, f32, f32, f32) -> (f32, f32, f32)
    %kk = func.call @dot(%kx, %ky, %kz, %kx, %ky, %kz)
        : (f32, f32, f32, f32, f32, f32) -> f32
    %area = math.sqrt %kk : f32
    %lx = arith.divf %kx, %area : f32
    %ly = arith.divf %ky, %area : f32
    %lz = arith.divf %kz, %area : f32
    %cos_s = func.call @dot(%nx, %ny, %nz, %ix, %iy, %iz)
        : (f32, f32, f32, f32, f32, f32) -> f32
    %nl_wi = func.call @dot(%lx, %ly, %lz, %ix, %iy, %iz)
        : (f32, f32, f32, f32, f32, f32) -> f32
    %cos_l = arith.negf %nl_wi : f32
    %lit_s = arith.cmpf ogt, %cos_s, %f0 : f32
    %lit_l = arith.cmpf ogt, %cos_l, %f0 : f32
    %lit = arith.andi %lit_s, %lit_l : i1
    %dist2 = arith.mulf %dist, %dist fastmath<contract> : f32
    %Cr = func.call @nee_channel(%tr, %ar, %pi, %lr, %cos_s, %cos_l, %area,
        %fcount, %dist2) : (f32, f32, f32, f32, f32, f32, f32, f32, f32) -> f32
    %Cg = func.call @nee_channel(%tg, %ag, %pi, %lg, %cos_s, %cos_l, %area,
        %fcount, %dist2) : (f32, f32, f32, f32, f32, f32, f32, f32, f32) -> f32
    %Cb = func.call @nee_channel(%tb, %ab, %pi, %lb, %cos_s, %cos_l, %area,
        %fcount, %dist2) : (f32, f32, f32, f32, f32, f32, f32, f32, f32) -> f32
    %tmax = arith.subf %dist, %offset fastmath<contract> : f32
    scf.yield %lit, %Cr, %Cg, %Cb, %ix, %iy, %iz, %tmax
        : i1, f32, f32, f32, f32, f32, f32, f32
  } else {
    scf.yield %false, %f0, %f0, %f0, %f0, %f0, %f0, %f0
        : i1, f32, f32, f32, f32, f32, f32, f32
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7
      : i1, f32, f32, f32, f32, f32, f32, f32
}

// One channel of the NEE contribution, left to right as section 4 writes it:
// T * albedo / pi * radiance * cos_s * cos_l * area * L / dist^2.
func.func private @nee_channel(%t: f32, %albedo: f32, %pi: f32, %radiance: f32,
                               %cos_s: f32, %cos_l: f32, %area: f32,
                               %lights: f32, %dist2: f32) -> f32 {
  %a = arith.mulf %t, %albedo fastmath<contract> : f32
  %b = arith.divf %a, %pi : f32
  %c = arith.mulf %b, %radiance fastmath<contract> : f32
  %d = arith.mulf %c, %cos_s fastmath<contract> : f32
  %e = arith.mulf %d, %cos_l fastmath<contract> : f32
  %f = arith.mulf %e, %area fastmath<contract> : f32
  %g = arith.mulf %f, %lights fastmath<contract> : f32
  %h = arith.divf %g, %dist2 : f32
  return %h : f32
}

// Step 3, the bounce: r = sqrt(u5), phi = 2 pi u6, the local direction
// (r cos phi, r sin phi, sqrt(max(0, 1 - u5))) in the orthonormal basis of
// Duff et al. 2017 around n.
func.func private @cosine_direction(%nx: f32, %ny: f32, %nz: f32, %u5: f32,
                                    %u6: f32) -> (f32, f32, f32) {
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %two_pi = arith.constant 6.28318530718 : f32
  %r = math.sqrt %u5 : f32
  %phi = arith.mulf %two_pi, %u6 fastmath<contract> : f32
  %cos = math.cos %phi fastmath<afn> : f32
  %sin = math.sin %phi fastmath<afn> : f32
  %x = arith.mulf %r, %cos fastmath<contract> : f32
  %y = arith.mulf %r, %sin fastmath<contract> : f32
  %one_minus = arith.subf %f1, %u5 fastmath<contract> : f32
  %clamped = arith.maximumf %f0, %one_minus : f32
  %z = math.sqrt %clamped : f32
  %sign = math.copysign %f1, %nz : f32
  %sz = arith.addf %sign, %nz fastmath<contract> : f32
  %minus_one = arith.constant -1.0 : f32
  %a = arith.divf %minus_one, %sz : f32
  %nxy = arith.mulf %nx, %ny fastmath<contract> : f32
  %b = arith.mulf %nxy, %a fastmath<contract> : f32
  %nx2 = arith.mulf %nx, %nx fastmath<contract> : f32
  %snx2 = arith.mulf %sign, %nx2 fastmath<contract> : f32
  %snx2a = arith.mulf %snx2, %a fastmath<contract> : f32
  %b1x = arith.addf %f1, %snx2a fastmath<contract> : f32
  %b1y = arith.mulf %sign, %b fastmath<contract> : f32
  %snx = arith.mulf %sign, %nx fastmath<contract> : f32
  %b1z = arith.negf %snx : f32
  %ny2 = arith.mulf %ny, %ny fastmath<contract> : f32
  %ny2a = arith.mulf %ny2, %a fastmath<contract> : f32
  %b2y = arith.addf %sign, %ny2a fastmath<contract> : f32
  %b2z = arith.negf %ny : f32
  %dx = func.call @basis_axis(%x, %b1x, %y, %b, %z, %nx)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %dy = func.call @basis_axis(%x, %b1y, %y, %b2y, %z, %ny)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %dz = func.call @basis_axis(%x, %b1z, %y, %b2z, %z, %nz)
      : (f32, f32, f32, f32, f32, f32) -> f32
  return %dx, %dy, %dz : f32, f32, f32
}

// x b1 + y b2 + z n, one axis.
func.func private @basis_axis(%x: f32, %b1: f32, %y: f32, %b2: f32, %z: f32,
                              %n: f32) -> f32 {
  %xb1 = arith.mulf %x, %b1 fastmath<contract> : f32
  %yb2 = arith.mulf %y, %b2 fastmath<contract> : f32
  %zn = arith.mulf %z, %n fastmath<contract> : f32
  %s = arith.addf %xb1, %yb2 fastmath<contract> : f32
  %r = arith.addf %s, %zn fastmath<contract> : f32
  return %r : f32
}

// d - 2 dot(d, n) n.
func.func private @reflect(%dx: f32, %dy: f32, %dz: f32, %nx: f32, %ny: f32,
                           %nz: f32) -> (f32, f32, f32) {
  %f2 = arith.constant 2.0 : f32
  %dn = func.call @dot(%dx, %dy, %dz, %nx, %ny, %nz)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %k = arith.mulf %f2, %dn fastmath<contract> : f32
  %kx = arith.mulf %k, %nx fastmath<contract> : f32
  %ky = arith.mulf %k, %ny fastmath<contract> : f32
  %kz = arith.mulf %k, %nz fastmath<contract> : f32
  %rx = arith.subf %dx, %kx fastmath<contract> : f32
  %ry = arith.subf %dy, %ky fastmath<contract> : f32
  %rz = arith.subf %dz, %kz fastmath<contract> : f32
  return %rx, %ry, %rz : f32, f32, f32
}

// eta d + s n (s = eta c - ct), one axis.
func.func private @refract_axis(%eta: f32, %d: f32, %s: f32, %n: f32) -> f32 {
  %ed = arith.mulf %eta, %d fastmath<contract> : f32
  %sn = arith.mulf %s, %n fastmath<contract> : f32
  %r = arith.addf %ed, %sn fastmath<contract> : f32
  return %r : f32
}

// f + a r + b u, one axis (the camera ray; also a point on a light).
func.func private @camera_axis(%f: f32, %r: f32, %u: f32, %a: f32, %b: f32)
    -> f32 {
  %ar = arith.mulf %a, %r fastmath<contract> : f32
  %bu = arith.mulf %b, %u fastmath<contract> : f32
  %s = arith.addf %f, %ar fastmath<contract> : f32
  %t = arith.addf %s, %bu fastmath<contract> : f32
  return %t : f32
}

//===----------------------------------------------------------------------===//
// Ray queries (section 4, "Intersection")
//===----------------------------------------------------------------------===//

// The nearest hit (any = false) or any hit (any = true) of the ray o + t d,
// 0.01 < t < tmax, among the spheres, the quads and the BVH's triangles.
// Returns (kind, index, t): kind 0 no hit, 1 triangle, 2 sphere, 3 quad. The
// spheres and quads are tested one by one, then the BVH is walked
// depth first from node 0 with a private stack of 32 node indices: at an
// inner node the walk descends into `first` and pushes `first + 1`.
func.func private @trace(%ox: f32, %oy: f32, %oz: f32, %dx: f32, %dy: f32,
                         %dz: f32, %tmax: f32, %any: i1,
                         %tri_verts: memref<?xf32>, %bvh_bounds: memref<?xf32>,
                         %bvh_links: memref<?xi32>, %spheres: memref<?xf32>,
                         %quads: memref<?xf32>)
    -> (i32, i32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 9 : index
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i2 = arith.constant 2 : i32
  %i3 = arith.constant 3 : i32
  %i32 = arith.constant 32 : i32
  %none = arith.constant -1 : i32
  %f1 = arith.constant 1.0 : f32
  %true = arith.constant true
  %false = arith.constant false

  %sphere_floats = memref.dim %spheres, %c0 : memref<?xf32>
  %sphere_count = arith.divui %sphere_floats, %c4 : index
  %s:3 = scf.for %i = %c0 to %sphere_count step %c1
      iter_args(%t = %tmax, %kind = %i0, %index = %none) -> (f32, i32, i32) {
    %hit, %th = func.call @ray_sphere(%ox, %oy, %oz, %dx, %dy, %dz, %spheres,
        %i, %t) : (f32, f32, f32, f32, f32, f32, memref<?xf32>, index, f32)
        -> (i1, f32)
    %i32v = arith.index_cast %i : index to i32
    %t2 = arith.select %hit, %th, %t : f32
    %kind2 = arith.select %hit, %i2, %kind : i32
    %index2 = arith.select %hit, %i32v, %index : i32
    scf.yield %t2, %kind2, %index2 : f32, i32, i32
  }
  %quad_floats = memref.dim %quads, %c0 : memref<?xf32>
  %quad_count = arith.divui %quad_floats, %c9 : index
  %q:3 = scf.for %i = %c0 to %quad_count step %c1
      iter_args(%t = %s#0, %kind = %s#1, %index = %s#2) -> (f32, i32, i32) {
    %hit, %th = func.call @ray_quad(%ox, %oy, %oz, %dx, %dy, %dz, %quads,
        %i, %t) : (f32, f32, f32, f32, f32, f32, memref<?xf32>, index, f32)
        -> (i1, f32)
    %i32v = arith.index_cast %i : index to i32
    %t2 = arith.select %hit, %th, %t : f32
    %kind2 = arith.select %hit, %i3, %kind : i32
    %index2 = arith.select %hit, %i32v, %index : i32
    scf.yield %t2, %kind2, %index2 : f32, i32, i32
  }

  %link_ints = memref.dim %bvh_links, %c0 : memref<?xi32>
  %node_count = arith.divui %link_ints, %c2 : index
  %have_nodes = arith.cmpi ugt, %node_count, %c0 : index
  %sphere_hit = arith.cmpi ne, %q#1, %i0 : i32
  %done_early = arith.andi %any, %sphere_hit : i1
  %not_done = arith.xori %done_early, %true : i1
  %start = arith.andi %have_nodes, %not_done : i1
  // The slabs' reciprocal direction, finite: a component below 1e-30 in
  // magnitude counts as 1e-30 of its sign, so that (bound - origin) * inverse
  // is never 0 * inf, and no t of the box test is NaN (its min and max say
  // nnan, which the CPU backend compiles to one minss/maxss; @ray_box).
  %ix = func.call @inverse(%dx) : (f32) -> f32
  %iy = func.call @inverse(%dy) : (f32) -> f32
  %iz = func.call @inverse(%dz) : (f32) -> f32
  %stack = memref.alloca() : memref<32xi32>
  %w:6 = scf.while (%node = %i0, %sp = %i0, %t = %q#0, %kind = %q#1,
                    %index = %q#2, %go = %start)
      : (i32, i32, f32, i32, i32, i1) -> (i32, i32, f32, i32, i32, i1) {
    scf.condition(%go) %node, %sp, %t, %kind, %index, %go
        : i32, i32, f32, i32, i32, i1
  } do {
  ^bb0(%node: i32, %sp: i32, %t: f32, %kind: i32, %index: i32, %go: i1):
    %n = arith.index_cast %node : i32 to index
    %box = func.call @ray_box(%ox, %oy, %oz, %ix, %iy, %iz, %bvh_bounds, %n,
        %t) : (f32, f32, f32, f32, f32, f32, memref<?xf32>, index, f32) -> i1
    // (node, sp, t, kind, index, descended)
    %v:6 = scf.if %box -> (i32, i32, f32, i32, i32, i1) {
      %link = arith.muli %n, %c2 : index
      %first = memref.load %bvh_links[%link] : memref<?xi32>
      %count_at = arith.addi %link, %c1 : index
      %count = memref.load %bvh_links[%count_at] : memref<?xi32>
      %inner = arith.cmpi eq, %count, %i0 : i32
      %r:6 = scf.if %inner -> (i32, i32, f32, i32, i32, i1) {
        %second = arith.addi %first, %i1 : i32
        %room = arith.cmpi ult, %sp, %i32 : i32
        scf.if %room {
          %top = arith.index_cast %sp : i32 to index
          memref.store %second, %stack[%top] : memref<32xi32>
        }
        %pushed = arith.addi %sp, %i1 : i32
        %sp2 = arith.select %room, %pushed, %sp : i32
        scf.yield %first, %sp2, %t, %kind, %index, %true
            : i32, i32, f32, i32, i32, i1
      } else {
        %begin = arith.index_cast %first : i32 to index
        %n_tris = arith.index_cast %count : i32 to index
        %end = arith.addi %begin, %n_tris : index
        %l:3 = scf.for %j = %begin to %end step %c1
            iter_args(%tl = %t, %kl = %kind, %il = %index) -> (f32, i32, i32) {
          %hit, %th = func.call @ray_triangle(%ox, %oy, %oz, %dx, %dy, %dz,
              %tri_verts, %j, %tl)
              : (f32, f32, f32, f32, f32, f32, memref<?xf32>, index, f32)
              -> (i1, f32)
          %j32 = arith.index_cast %j : index to i32
          %t2 = arith.select %hit, %th, %tl : f32
          %k2 = arith.select %hit, %i1, %kl : i32
          %i2v = arith.select %hit, %j32, %il : i32
          scf.yield %t2, %k2, %i2v : f32, i32, i32
        }
        scf.yield %node, %sp, %l#0, %l#1, %l#2, %false
            : i32, i32, f32, i32, i32, i1
      }
      scf.yield %r#0, %r#1, %r#2, %r#3, %r#4, %r#5
          : i32, i32, f32, i32, i32, i1
    } else {
      scf.yield %node, %sp, %t, %kind, %index, %false
          : i32, i32, f32, i32, i32, i1
    }
    // Unless it descended, the walk pops the next node; it ends when the
    // stack is empty, or at the first hit of an any-hit query.
    %pop = arith.xori %v#5, %true : i1
    %empty = arith.cmpi eq, %v#1, %i0 : i32
    %has_top = arith.xori %empty, %true : i1
    %pops = arith.andi %pop, %has_top : i1
    %exhausted = arith.andi %pop, %empty : i1
    %found = arith.cmpi ne, %v#3, %i0 : i32
    %any_found = arith.andi %any, %found : i1
    %stop = arith.ori %exhausted, %any_found : i1
    %go2 = arith.xori %stop, %true : i1
    %next:2 = scf.if %pops -> (i32, i32) {
      %below = arith.subi %v#1, %i1 : i32
      %top = arith.index_cast %below : i32 to index
      %popped = memref.load %stack[%top] : memref<32xi32>
      scf.yield %popped, %below : i32, i32
    } else {
      scf.yield %v#0, %v#1 : i32, i32
    }
    scf.yield %next#0, %next#1, %v#2, %v#3, %v#4, %go2
        : i32, i32, f32, i32, i32, i1
  }
  return %w#3, %w#4, %w#2 : i32, i32, f32
}

// The intersect stage's sort key: 1 when the ray meets the root box of the
// BVH (its traversal visits the mesh's nodes), else 0.
func.func private @ray_key(%ox: f32, %oy: f32, %oz: f32, %dx: f32, %dy: f32,
                           %dz: f32, %bvh_bounds: memref<?xf32>,
                           %bvh_links: memref<?xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %i0 = arith.constant 0 : i32
  %far = arith.constant 1.0e30 : f32
  %links = memref.dim %bvh_links, %c0 : memref<?xi32>
  %have = arith.cmpi ugt, %links, %c0 : index
  %key = scf.if %have -> (i32) {
    %ix = func.call @inverse(%dx) : (f32) -> f32
    %iy = func.call @inverse(%dy) : (f32) -> f32
    %iz = func.call @inverse(%dz) : (f32) -> f32
    %box = func.call @ray_box(%ox, %oy, %oz, %ix, %iy, %iz, %bvh_bounds, %c0,
        %far) : (f32, f32, f32, f32, f32, f32, memref<?xf32>, index, f32) -> i1
    %k = arith.extui %box : i1 to i32
    scf.yield %k : i32
  } else {
    scf.yield %i0 : i32
  }
  return %key : i32
}

// 1 / d with |d| raised to at least 1e-30 (keeping its sign): finite, so the
// slabs never multiply 0 by infinity. A ray with a zero component and its
// origin on a box's plane then gets the interval [0, huge] from that slab, an
// unconstrained slab, as maxnum's dropping of the NaN gave before.
func.func private @inverse(%d: f32) -> f32 {
  %f1 = arith.constant 1.0 : f32
  %tiny = arith.constant 1.0e-30 : f32
  %ad = math.absf %d : f32
  %small = arith.cmpf olt, %ad, %tiny : f32
  %signed = math.copysign %tiny, %d : f32
  %safe = arith.select %small, %signed, %d : f32
  %inv = arith.divf %f1, %safe : f32
  return %inv : f32
}

// Whether the ray meets node `node`'s box within [0.01, tbest] (slabs with the
// reciprocal direction; the far end is widened by 4 ulp so that a box as flat
// as its triangles is never missed by rounding). Every t here is finite or
// infinite but never NaN (@inverse; the bounds, the origin and tbest are
// finite), so the min and max are `nnan`: on the CPU one minss or maxss each
// instead of maxnum's NaN-handling sequence of five instructions, 45% of the
// path tracer's CPU time (both schedules, 2026-12-05); on a GPU fmaxf is one
// instruction either way.
func.func private @ray_box(%ox: f32, %oy: f32, %oz: f32, %ix: f32, %iy: f32,
                           %iz: f32, %bounds: memref<?xf32>, %node: index,
                           %tbest: f32) -> i1 {
  %c6 = arith.constant 6 : index
  %c3 = arith.constant 3 : index
  %tmin = arith.constant 0.01 : f32
  %widen = arith.constant 1.0000004 : f32
  %base = arith.muli %node, %c6 : index
  %lx, %ly, %lz = func.call @load3(%bounds, %base)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %hb = arith.addi %base, %c3 : index
  %hx, %hy, %hz = func.call @load3(%bounds, %hb)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %nx, %fx = func.call @slab(%lx, %hx, %ox, %ix) : (f32, f32, f32, f32) -> (f32, f32)
  %ny, %fy = func.call @slab(%ly, %hy, %oy, %iy) : (f32, f32, f32, f32) -> (f32, f32)
  %nz, %fz = func.call @slab(%lz, %hz, %oz, %iz) : (f32, f32, f32, f32) -> (f32, f32)
  %n1 = arith.maxnumf %nx, %ny fastmath<nnan> : f32
  %n2 = arith.maxnumf %n1, %nz fastmath<nnan> : f32
  %near = arith.maxnumf %n2, %tmin fastmath<nnan> : f32
  %f1 = arith.minnumf %fx, %fy fastmath<nnan> : f32
  %f2 = arith.minnumf %f1, %fz fastmath<nnan> : f32
  %far = arith.minnumf %f2, %tbest fastmath<nnan> : f32
  %wide = arith.mulf %far, %widen fastmath<contract> : f32
  %hit = arith.cmpf ole, %near, %wide : f32
  return %hit : i1
}

// The entry and exit t of one slab.
func.func private @slab(%lo: f32, %hi: f32, %o: f32, %inv: f32) -> (f32, f32) {
  %a = arith.subf %lo, %o fastmath<contract> : f32
  %b = arith.subf %hi, %o fastmath<contract> : f32
  %ta = arith.mulf %a, %inv fastmath<contract> : f32
  %tb = arith.mulf %b, %inv fastmath<contract> : f32
  %near = arith.minnumf %ta, %tb fastmath<nnan> : f32
  %far = arith.maxnumf %ta, %tb fastmath<nnan> : f32
  return %near, %far : f32, f32
}

// Möller–Trumbore for triangle `tri`: (hit with 0.01 < t < tbest, t).
func.func private @ray_triangle(%ox: f32, %oy: f32, %oz: f32, %dx: f32,
                                %dy: f32, %dz: f32, %verts: memref<?xf32>,
                                %tri: index, %tbest: f32) -> (i1, f32) {
  %c9 = arith.constant 9 : index
  %f1 = arith.constant 1.0 : f32
  %base = arith.muli %tri, %c9 : index
  %e1x, %e1y, %e1z, %e2x, %e2y, %e2z, %ax, %ay, %az = func.call @edges(%verts,
      %base) : (memref<?xf32>, index)
      -> (f32, f32, f32, f32, f32, f32, f32, f32, f32)
  %ok, %u, %v, %t = func.call @moller_trumbore(%ox, %oy, %oz, %dx, %dy, %dz,
      %ax, %ay, %az, %e1x, %e1y, %e1z, %e2x, %e2y, %e2z, %tbest)
      : (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32,
         f32, f32) -> (i1, f32, f32, f32)
  %uv = arith.addf %u, %v fastmath<contract> : f32
  %ok_uv = arith.cmpf ole, %uv, %f1 : f32
  %hit = arith.andi %ok, %ok_uv : i1
  return %hit, %t : i1, f32
}

// Quad `index` (corner a, edges eu, ev: the parallelogram a + u eu + v ev,
// 0 <= u, v <= 1): Möller–Trumbore with e1 = eu, e2 = ev and no u + v bound.
func.func private @ray_quad(%ox: f32, %oy: f32, %oz: f32, %dx: f32,
                            %dy: f32, %dz: f32, %quads: memref<?xf32>,
                            %index: index, %tbest: f32) -> (i1, f32) {
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  %f1 = arith.constant 1.0 : f32
  %base = arith.muli %index, %c9 : index
  %ax, %ay, %az = func.call @load3(%quads, %base)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %ub = arith.addi %base, %c3 : index
  %ux, %uy, %uz = func.call @load3(%quads, %ub)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %vb = arith.addi %base, %c6 : index
  %vx, %vy, %vz = func.call @load3(%quads, %vb)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %ok, %u, %v, %t = func.call @moller_trumbore(%ox, %oy, %oz, %dx, %dy, %dz,
      %ax, %ay, %az, %ux, %uy, %uz, %vx, %vy, %vz, %tbest)
      : (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32,
         f32, f32) -> (i1, f32, f32, f32)
  %ok_u = arith.cmpf ole, %u, %f1 : f32
  %ok_v = arith.cmpf ole, %v, %f1 : f32
  %h = arith.andi %ok, %ok_u : i1
  %hit = arith.andi %h, %ok_v : i1
  return %hit, %t : i1, f32
}

// The shared part of the triangle and quad tests for the ray o + t d and
// the plane a + u e1 + v e2 (docs/pathtracer.md section 4): whether
// |det| >= 1e-9, u in [0, 1], v >= 0 and 0.01 < t < tbest, and (u, v, t).
func.func private @moller_trumbore(%ox: f32, %oy: f32, %oz: f32, %dx: f32,
    %dy: f32, %dz: f32, %ax: f32, %ay: f32, %az: f32, %e1x: f32, %e1y: f32,
    %e1z: f32, %e2x: f32, %e2y: f32, %e2z: f32, %tbest: f32)
    -> (i1, f32, f32, f32) {
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-9 : f32
  %tmin = arith.constant 0.01 : f32
  %px, %py, %pz = func.call @cross(%dx, %dy, %dz, %e2x, %e2y, %e2z)
      : (f32, f32, f32, f32, f32, f32) -> (f32, f32, f32)
  %det = func.call @dot(%e1x, %e1y, %e1z, %px, %py, %pz)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %sx = arith.subf %ox, %ax fastmath<contract> : f32
  %sy = arith.subf %oy, %ay fastmath<contract> : f32
  %sz = arith.subf %oz, %az fastmath<contract> : f32
  %sp = func.call @dot(%sx, %sy, %sz, %px, %py, %pz)
      : (f32, f32, f32, f32, f32, f32) -> f32
  // One division: u, v and t are products with 1 / det. `afn`: the
  // hardware's approximate division where a backend has one (hip's
  // __fdividef, 2 ulp; this test runs for every triangle a ray's walk
  // reaches); a |det| below 1e-9, where it would matter, is no hit anyway.
  %inv_det = arith.divf %f1, %det fastmath<afn> : f32
  %u = arith.mulf %sp, %inv_det : f32
  %qx, %qy, %qz = func.call @cross(%sx, %sy, %sz, %e1x, %e1y, %e1z)
      : (f32, f32, f32, f32, f32, f32) -> (f32, f32, f32)
  %dq = func.call @dot(%dx, %dy, %dz, %qx, %qy, %qz)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %v = arith.mulf %dq, %inv_det : f32
  %eq = func.call @dot(%e2x, %e2y, %e2z, %qx, %qy, %qz)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %t = arith.mulf %eq, %inv_det : f32
  %adet = math.absf %det : f32
  %ok_det = arith.cmpf oge, %adet, %eps : f32
  %ok_u0 = arith.cmpf oge, %u, %f0 : f32
  %ok_u1 = arith.cmpf ole, %u, %f1 : f32
  %ok_v = arith.cmpf oge, %v, %f0 : f32
  %ok_t0 = arith.cmpf ogt, %t, %tmin : f32
  %ok_t1 = arith.cmpf olt, %t, %tbest : f32
  %h1 = arith.andi %ok_det, %ok_u0 : i1
  %h2 = arith.andi %h1, %ok_u1 : i1
  %h3 = arith.andi %h2, %ok_v : i1
  %h4 = arith.andi %h3, %ok_t0 : i1
  %ok = arith.andi %h4, %ok_t1 : i1
  return %ok, %u, %v, %t : i1, f32, f32, f32
}

// e1 = v1 - v0, e2 = v2 - v0 and v0 of the triangle whose floats start at
// `base`.
func.func private @edges(%verts: memref<?xf32>, %base: index)
    -> (f32, f32, f32, f32, f32, f32, f32, f32, f32) {
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %ax, %ay, %az = func.call @load3(%verts, %base)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %b1 = arith.addi %base, %c3 : index
  %bx, %by, %bz = func.call @load3(%verts, %b1)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %b2 = arith.addi %base, %c6 : index
  %cx, %cy, %cz = func.call @load3(%verts, %b2)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %e1x = arith.subf %bx, %ax fastmath<contract> : f32
  %e1y = arith.subf %by, %ay fastmath<contract> : f32
  %e1z = arith.subf %bz, %az fastmath<contract> : f32
  %e2x = arith.subf %cx, %ax fastmath<contract> : f32
  %e2y = arith.subf %cy, %ay fastmath<contract> : f32
  %e2z = arith.subf %cz, %az fastmath<contract> : f32
  return %e1x, %e1y, %e1z, %e2x, %e2y, %e2z, %ax, %ay, %az
      : f32, f32, f32, f32, f32, f32, f32, f32, f32
}

// Sphere `index`: (hit, t) for the smaller root above 0.01, else the larger,
// below tbest.
func.func private @ray_sphere(%ox: f32, %oy: f32, %oz: f32, %dx: f32,
                              %dy: f32, %dz: f32, %spheres: memref<?xf32>,
                              %index: index, %tbest: f32) -> (i1, f32) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f32
  %tmin = arith.constant 0.01 : f32
  %base = arith.muli %index, %c4 : index
  %cx, %cy, %cz = func.call @load3(%spheres, %base)
      : (memref<?xf32>, index) -> (f32, f32, f32)
  %rb = arith.addi %base, %c3 : index
  %r = memref.load %spheres[%rb] : memref<?xf32>
  %lx = arith.subf %ox, %cx fastmath<contract> : f32
  %ly = arith.subf %oy, %cy fastmath<contract> : f32
  %lz = arith.subf %oz, %cz fastmath<contract> : f32
  %b = func.call @dot(%lx, %ly, %lz, %dx, %dy, %dz)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %ll = func.call @dot(%lx, %ly, %lz, %lx, %ly, %lz)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %rr = arith.mulf %r, %r fastmath<contract> : f32
  %c = arith.subf %ll, %rr fastmath<contract> : f32
  %bb = arith.mulf %b, %b fastmath<contract> : f32
  %disc = arith.subf %bb, %c fastmath<contract> : f32
  %real = arith.cmpf oge, %disc, %f0 : f32
  %disc0 = arith.maximumf %disc, %f0 : f32
  %root = math.sqrt %disc0 : f32
  %mb = arith.negf %b : f32
  %t0 = arith.subf %mb, %root fastmath<contract> : f32
  %t1 = arith.addf %mb, %root fastmath<contract> : f32
  %near_ok = arith.cmpf ogt, %t0, %tmin : f32
  %t = arith.select %near_ok, %t0, %t1 : f32
  %above = arith.cmpf ogt, %t, %tmin : f32
  %below = arith.cmpf olt, %t, %tbest : f32
  %h1 = arith.andi %real, %above : i1
  %hit = arith.andi %h1, %below : i1
  return %hit, %t : i1, f32
}

// The hit point p = o + t d, the geometric normal (triangles: the normalised
// cross(e1, e2); quads: the normalised cross(eu, ev); spheres: (p - c) / r,
// outward) and the material.
func.func private @hit_point(%ox: f32, %oy: f32, %oz: f32, %dx: f32, %dy: f32,
                             %dz: f32, %kind: i32, %index: i32, %t: f32,
                             %tri_verts: memref<?xf32>, %tri_mat: memref<?xi32>,
                             %spheres: memref<?xf32>, %sphere_mat: memref<?xi32>,
                             %quads: memref<?xf32>, %quad_mat: memref<?xi32>)
    -> (f32, f32, f32, f32, f32, f32, i32) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  %i1 = arith.constant 1 : i32
  %i3 = arith.constant 3 : i32
  %tdx = arith.mulf %t, %dx fastmath<contract> : f32
  %tdy = arith.mulf %t, %dy fastmath<contract> : f32
  %tdz = arith.mulf %t, %dz fastmath<contract> : f32
  %px = arith.addf %ox, %tdx fastmath<contract> : f32
  %py = arith.addf %oy, %tdy fastmath<contract> : f32
  %pz = arith.addf %oz, %tdz fastmath<contract> : f32
  %i = arith.index_cast %index : i32 to index
  %triangle = arith.cmpi eq, %kind, %i1 : i32
  %quad = arith.cmpi eq, %kind, %i3 : i32
  %r:4 = scf.if %quad -> (f32, f32, f32, i32) {
    %base = arith.muli %i, %c9 : index
    %ub = arith.addi %base, %c3 : index
    %ux, %uy, %uz = func.call @load3(%quads, %ub)
        : (memref<?xf32>, index) -> (f32, f32, f32)
    %vb = arith.addi %base, %c6 : index
    %vx, %vy, %vz = func.call @load3(%quads, %vb)
        : (memref<?xf32>, index) -> (f32, f32, f32)
    %cx, %cy, %cz = func.call @cross(%ux, %uy, %uz, %vx, %vy, %vz)
        : (f32, f32, f32, f32, f32, f32) -> (f32, f32, f32)
    %nx, %ny, %nz = func.call @normalize(%cx, %cy, %cz)
        : (f32, f32, f32) -> (f32, f32, f32)
    %m = memref.load %quad_mat[%i] : memref<?xi32>
    scf.yield %nx, %ny, %nz, %m : f32, f32, f32, i32
  } else {
    %o:4 = scf.if %triangle -> (f32, f32, f32, i32) {
      %base = arith.muli %i, %c9 : index
      %e1x, %e1y, %e1z, %e2x, %e2y, %e2z, %ax, %ay, %az = func.call @edges(
          %tri_verts, %base) : (memref<?xf32>, index)
          -> (f32, f32, f32, f32, f32, f32, f32, f32, f32)
      %cx, %cy, %cz = func.call @cross(%e1x, %e1y, %e1z, %e2x, %e2y, %e2z)
          : (f32, f32, f32, f32, f32, f32) -> (f32, f32, f32)
      %nx, %ny, %nz = func.call @normalize(%cx, %cy, %cz)
          : (f32, f32, f32) -> (f32, f32, f32)
      %m = memref.load %tri_mat[%i] : memref<?xi32>
      scf.yield %nx, %ny, %nz, %m : f32, f32, f32, i32
    } else {
      %base = arith.muli %i, %c4 : index
      %cx, %cy, %cz = func.call @load3(%spheres, %base)
          : (memref<?xf32>, index) -> (f32, f32, f32)
      %rb = arith.addi %base, %c3 : index
      %radius = memref.load %spheres[%rb] : memref<?xf32>
      %qx = arith.subf %px, %cx fastmath<contract> : f32
      %qy = arith.subf %py, %cy fastmath<contract> : f32
      %qz = arith.subf %pz, %cz fastmath<contract> : f32
      %nx = arith.divf %qx, %radius : f32
      %ny = arith.divf %qy, %radius : f32
      %nz = arith.divf %qz, %radius : f32
      %m = memref.load %sphere_mat[%i] : memref<?xi32>
      scf.yield %nx, %ny, %nz, %m : f32, f32, f32, i32
    }
    scf.yield %o#0, %o#1, %o#2, %o#3 : f32, f32, f32, i32
  }
  return %px, %py, %pz, %r#0, %r#1, %r#2, %r#3
      : f32, f32, f32, f32, f32, f32, i32
}

//===----------------------------------------------------------------------===//
// The procedural texture (section 9)
//===----------------------------------------------------------------------===//

// tex(p) = 0.25 + 0.75 * (sum of 0.5^o v_o / sum of 0.5^o), octaves o = 0 ..
// octaves - 1, where v_o is the pattern's value at p 2^o / 64: 0 fbm, 1
// turbulence, 2 ridged, 3 blocks. Each pattern is its own loop over the
// octaves (section 9: four code paths, not one loop that selects a value).
func.func private @texture(%x: f32, %y: f32, %z: f32, %octaves: i32,
                           %pattern: i32) -> f32 {
  %i1 = arith.constant 1 : i32
  %i2 = arith.constant 2 : i32
  %n = arith.index_cast %octaves : i32 to index
  %is_fbm = arith.cmpi slt, %pattern, %i1 : i32
  %is_turbulence = arith.cmpi eq, %pattern, %i1 : i32
  %is_ridged = arith.cmpi eq, %pattern, %i2 : i32
  %r:2 = scf.if %is_fbm -> (f32, f32) {
    %s, %w = func.call @octaves_fbm(%x, %y, %z, %n)
        : (f32, f32, f32, index) -> (f32, f32)
    scf.yield %s, %w : f32, f32
  } else {
    %o:2 = scf.if %is_turbulence -> (f32, f32) {
      %s, %w = func.call @octaves_turbulence(%x, %y, %z, %n)
          : (f32, f32, f32, index) -> (f32, f32)
      scf.yield %s, %w : f32, f32
    } else {
      %q:2 = scf.if %is_ridged -> (f32, f32) {
        %s, %w = func.call @octaves_ridged(%x, %y, %z, %n)
            : (f32, f32, f32, index) -> (f32, f32)
        scf.yield %s, %w : f32, f32
      } else {
        %s, %w = func.call @octaves_blocks(%x, %y, %z, %n)
            : (f32, f32, f32, index) -> (f32, f32)
        scf.yield %s, %w : f32, f32
      }
      scf.yield %q#0, %q#1 : f32, f32
    }
    scf.yield %o#0, %o#1 : f32, f32
  }
  %mean = arith.divf %r#0, %r#1 : f32
  %quarter = arith.constant 0.25 : f32
  %three_quarters = arith.constant 0.75 : f32
  %scaled = arith.mulf %three_quarters, %mean fastmath<contract> : f32
  %t = arith.addf %quarter, %scaled fastmath<contract> : f32
  return %t : f32
}

// The octave loops return (sum, norm). Each octave: the point scaled by the
// frequency (octave_point), then the sums and the next amplitude and
// frequency (octave_step).
func.func private @octave_point(%x: f32, %y: f32, %z: f32, %freq: f32)
    -> (f32, f32, f32) {
  %sx = arith.mulf %x, %freq fastmath<contract> : f32
  %sy = arith.mulf %y, %freq fastmath<contract> : f32
  %sz = arith.mulf %z, %freq fastmath<contract> : f32
  return %sx, %sy, %sz : f32, f32, f32
}

func.func private @octave_step(%sum: f32, %norm: f32, %amp: f32, %freq: f32,
                               %v: f32) -> (f32, f32, f32, f32) {
  %half = arith.constant 0.5 : f32
  %two = arith.constant 2.0 : f32
  %av = arith.mulf %amp, %v fastmath<contract> : f32
  %sum2 = arith.addf %sum, %av fastmath<contract> : f32
  %norm2 = arith.addf %norm, %amp fastmath<contract> : f32
  %amp2 = arith.mulf %amp, %half fastmath<contract> : f32
  %freq2 = arith.mulf %freq, %two fastmath<contract> : f32
  return %sum2, %norm2, %amp2, %freq2 : f32, f32, f32, f32
}

// |2 n - 1| of a noise value n, as |(2 * n) - 1|.
func.func private @fold(%v: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %d = arith.mulf %two, %v fastmath<contract> : f32
  %c = arith.subf %d, %one fastmath<contract> : f32
  %a = math.absf %c : f32
  return %a : f32
}

func.func private @octaves_fbm(%x: f32, %y: f32, %z: f32, %n: index)
    -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %base = arith.constant 0.015625 : f32
  %r:4 = scf.for %o = %c0 to %n step %c1
      iter_args(%sum = %f0, %norm = %f0, %amp = %f1, %freq = %base)
      -> (f32, f32, f32, f32) {
    %sx, %sy, %sz = func.call @octave_point(%x, %y, %z, %freq)
        : (f32, f32, f32, f32) -> (f32, f32, f32)
    %v = func.call @value_noise(%sx, %sy, %sz) : (f32, f32, f32) -> f32
    %s:4 = func.call @octave_step(%sum, %norm, %amp, %freq, %v)
        : (f32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
    scf.yield %s#0, %s#1, %s#2, %s#3 : f32, f32, f32, f32
  }
  return %r#0, %r#1 : f32, f32
}

func.func private @octaves_turbulence(%x: f32, %y: f32, %z: f32, %n: index)
    -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %base = arith.constant 0.015625 : f32
  %r:4 = scf.for %o = %c0 to %n step %c1
      iter_args(%sum = %f0, %norm = %f0, %amp = %f1, %freq = %base)
      -> (f32, f32, f32, f32) {
    %sx, %sy, %sz = func.call @octave_point(%x, %y, %z, %freq)
        : (f32, f32, f32, f32) -> (f32, f32, f32)
    %noise = func.call @value_noise(%sx, %sy, %sz) : (f32, f32, f32) -> f32
    %v = func.call @fold(%noise) : (f32) -> f32
    %s:4 = func.call @octave_step(%sum, %norm, %amp, %freq, %v)
        : (f32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
    scf.yield %s#0, %s#1, %s#2, %s#3 : f32, f32, f32, f32
  }
  return %r#0, %r#1 : f32, f32
}

func.func private @octaves_ridged(%x: f32, %y: f32, %z: f32, %n: index)
    -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %base = arith.constant 0.015625 : f32
  %r:4 = scf.for %o = %c0 to %n step %c1
      iter_args(%sum = %f0, %norm = %f0, %amp = %f1, %freq = %base)
      -> (f32, f32, f32, f32) {
    %sx, %sy, %sz = func.call @octave_point(%x, %y, %z, %freq)
        : (f32, f32, f32, f32) -> (f32, f32, f32)
    %noise = func.call @value_noise(%sx, %sy, %sz) : (f32, f32, f32) -> f32
    %folded = func.call @fold(%noise) : (f32) -> f32
    %ridge = arith.subf %f1, %folded fastmath<contract> : f32
    %v = arith.mulf %ridge, %ridge fastmath<contract> : f32
    %s:4 = func.call @octave_step(%sum, %norm, %amp, %freq, %v)
        : (f32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
    scf.yield %s#0, %s#1, %s#2, %s#3 : f32, f32, f32, f32
  }
  return %r#0, %r#1 : f32, f32
}

// blocks(x, y, z): the lattice value of the cell, not interpolated.
func.func private @octaves_blocks(%x: f32, %y: f32, %z: f32, %n: index)
    -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %base = arith.constant 0.015625 : f32
  %r:4 = scf.for %o = %c0 to %n step %c1
      iter_args(%sum = %f0, %norm = %f0, %amp = %f1, %freq = %base)
      -> (f32, f32, f32, f32) {
    %sx, %sy, %sz = func.call @octave_point(%x, %y, %z, %freq)
        : (f32, f32, f32, f32) -> (f32, f32, f32)
    %i, %fx = func.call @lattice_floor(%sx) : (f32) -> (i32, f32)
    %j, %fy = func.call @lattice_floor(%sy) : (f32) -> (i32, f32)
    %k, %fz = func.call @lattice_floor(%sz) : (f32) -> (i32, f32)
    %v = func.call @lattice(%i, %j, %k) : (i32, i32, i32) -> f32
    %s:4 = func.call @octave_step(%sum, %norm, %amp, %freq, %v)
        : (f32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
    scf.yield %s#0, %s#1, %s#2, %s#3 : f32, f32, f32, f32
  }
  return %r#0, %r#1 : f32, f32
}

// Trilinear interpolation, smoothstep-weighted, of the lattice values at the
// eight corners of the unit cell around (x, y, z).
func.func private @value_noise(%x: f32, %y: f32, %z: f32) -> f32 {
  %one = arith.constant 1 : i32
  %i, %fx = func.call @lattice_floor(%x) : (f32) -> (i32, f32)
  %j, %fy = func.call @lattice_floor(%y) : (f32) -> (i32, f32)
  %k, %fz = func.call @lattice_floor(%z) : (f32) -> (i32, f32)
  %sx = func.call @smoothstep(%fx) : (f32) -> f32
  %sy = func.call @smoothstep(%fy) : (f32) -> f32
  %sz = func.call @smoothstep(%fz) : (f32) -> f32
  %i1 = arith.addi %i, %one : i32
  %j1 = arith.addi %j, %one : i32
  %k1 = arith.addi %k, %one : i32
  %c000 = func.call @lattice(%i, %j, %k) : (i32, i32, i32) -> f32
  %c100 = func.call @lattice(%i1, %j, %k) : (i32, i32, i32) -> f32
  %c010 = func.call @lattice(%i, %j1, %k) : (i32, i32, i32) -> f32
  %c110 = func.call @lattice(%i1, %j1, %k) : (i32, i32, i32) -> f32
  %c001 = func.call @lattice(%i, %j, %k1) : (i32, i32, i32) -> f32
  %c101 = func.call @lattice(%i1, %j, %k1) : (i32, i32, i32) -> f32
  %c011 = func.call @lattice(%i, %j1, %k1) : (i32, i32, i32) -> f32
  %c111 = func.call @lattice(%i1, %j1, %k1) : (i32, i32, i32) -> f32
  %x00 = func.call @lerp(%c000, %c100, %sx) : (f32, f32, f32) -> f32
  %x10 = func.call @lerp(%c010, %c110, %sx) : (f32, f32, f32) -> f32
  %x01 = func.call @lerp(%c001, %c101, %sx) : (f32, f32, f32) -> f32
  %x11 = func.call @lerp(%c011, %c111, %sx) : (f32, f32, f32) -> f32
  %y0 = func.call @lerp(%x00, %x10, %sy) : (f32, f32, f32) -> f32
  %y1 = func.call @lerp(%x01, %x11, %sy) : (f32, f32, f32) -> f32
  %v = func.call @lerp(%y0, %y1, %sz) : (f32, f32, f32) -> f32
  return %v : f32
}

// (floor(x) as i32, x - floor(x)).
func.func private @lattice_floor(%x: f32) -> (i32, f32) {
  %one = arith.constant 1 : i32
  %t = arith.fptosi %x : f32 to i32
  %ft = arith.sitofp %t : i32 to f32
  %below = arith.cmpf olt, %x, %ft : f32
  %tm = arith.subi %t, %one : i32
  %i = arith.select %below, %tm, %t : i32
  %fi = arith.sitofp %i : i32 to f32
  %f = arith.subf %x, %fi fastmath<contract> : f32
  return %i, %f : i32, f32
}

// f * f * (3 - 2 f).
func.func private @smoothstep(%f: f32) -> f32 {
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %ff = arith.mulf %f, %f fastmath<contract> : f32
  %tf = arith.mulf %two, %f fastmath<contract> : f32
  %d = arith.subf %three, %tf fastmath<contract> : f32
  %s = arith.mulf %ff, %d fastmath<contract> : f32
  return %s : f32
}

// a + t (b - a).
func.func private @lerp(%a: f32, %b: f32, %t: f32) -> f32 {
  %d = arith.subf %b, %a fastmath<contract> : f32
  %td = arith.mulf %t, %d fastmath<contract> : f32
  %v = arith.addf %a, %td fastmath<contract> : f32
  return %v : f32
}

// float(hash(i, j, k) >> 8) 2^-24, in [0, 1).
func.func private @lattice(%i: i32, %j: i32, %k: i32) -> f32 {
  %pi = arith.constant 0x8DA6B343 : i32
  %pj = arith.constant 0xD8163841 : i32
  %pk = arith.constant 0xCB1AB31F : i32
  %mix = arith.constant 0x5BD1E995 : i32
  %s8 = arith.constant 8 : i32
  %s13 = arith.constant 13 : i32
  %s15 = arith.constant 15 : i32
  %a = arith.muli %i, %pi : i32
  %b = arith.muli %j, %pj : i32
  %c = arith.muli %k, %pk : i32
  %ab = arith.xori %a, %b : i32
  %h0 = arith.xori %ab, %c : i32
  %r13 = arith.shrui %h0, %s13 : i32
  %h1 = arith.xori %h0, %r13 : i32
  %h2 = arith.muli %h1, %mix : i32
  %r15 = arith.shrui %h2, %s15 : i32
  %h3 = arith.xori %h2, %r15 : i32
  %top = arith.shrui %h3, %s8 : i32
  %f = arith.uitofp %top : i32 to f32
  %ulp = arith.constant 5.9604644775390625e-08 : f32
  %u = arith.mulf %f, %ulp fastmath<contract> : f32
  return %u : f32
}

//===----------------------------------------------------------------------===//
// Film (section 6) and random numbers (section 5)
//===----------------------------------------------------------------------===//

// Adds the contribution (r, g, b) (each >= 0) to pixel `pixel`: channel k of
// the film gets q(c) = int64(c * 2^24 + 0.5) (product and sum in f32).
func.func private @film_add(%film: memref<?xi64>, %pixel: i32, %r: f32,
                            %g: f32, %b: f32) {
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = arith.index_cast %pixel : i32 to index
  %base = arith.muli %p, %c3 : index
  func.call @film_add_channel(%film, %base, %r) : (memref<?xi64>, index, f32) -> ()
  %gi = arith.addi %base, %c1 : index
  func.call @film_add_channel(%film, %gi, %g) : (memref<?xi64>, index, f32) -> ()
  %bi = arith.addi %base, %c2 : index
  func.call @film_add_channel(%film, %bi, %b) : (memref<?xi64>, index, f32) -> ()
  return
}

// Adds nothing when q(c) = 0, and nothing for a contribution that is not a
// number or does not fit (fptosi of those has no defined value).
func.func private @film_add_channel(%film: memref<?xi64>, %at: index, %c: f32) {
  %scale = arith.constant 16777216.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %huge = arith.constant 4.0e18 : f32
  %scaled = arith.mulf %c, %scale fastmath<contract> : f32
  %rounded = arith.addf %scaled, %half fastmath<contract> : f32
  %positive = arith.cmpf oge, %rounded, %one : f32
  %fits = arith.cmpf olt, %rounded, %huge : f32
  %adds = arith.andi %positive, %fits : i1
  scf.if %adds {
    %q = arith.fptosi %rounded : f32 to i64
    %old = memref.atomic_rmw addi %q, %film[%at] : (i64, memref<?xi64>) -> i64
  }
  return
}

// u = float(philox(seed; pixel, sample * 256 + bounce * 16 + dim) >> 8) 2^-24.
func.func private @uniform(%seed: i32, %pixel: i32, %sample: i32, %bounce: i32,
                           %dim: i32) -> f32 {
  %i8 = arith.constant 8 : i32
  %i4 = arith.constant 4 : i32
  %s = arith.shli %sample, %i8 : i32
  %bo = arith.shli %bounce, %i4 : i32
  %sb = arith.addi %s, %bo : i32
  %c1 = arith.addi %sb, %dim : i32
  %word = func.call @philox(%seed, %pixel, %c1) : (i32, i32, i32) -> i32
  %top = arith.shrui %word, %i8 : i32
  %f = arith.uitofp %top : i32 to f32
  %ulp = arith.constant 5.9604644775390625e-08 : f32
  %u = arith.mulf %f, %ulp fastmath<contract> : f32
  return %u : f32
}

// Philox-2x32-10 (Salmon et al. 2011): the first output word for counter
// (c0, c1) and key k. Round r uses k + r W (mod 2^32); each round is
// (c0, c1) = (hi(M c0) ^ k ^ c1, lo(M c0)) with the 64-bit product.
func.func private @philox(%key: i32, %c0: i32, %c1: i32) -> i32 {
  %multiplier = arith.constant 0xD256D193 : i32
  %weyl = arith.constant 0x9E3779B9 : i32
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  %rounds = arith.constant 10 : index
  %r:3 = scf.for %round = %zero to %rounds step %one
      iter_args(%k = %key, %x = %c0, %y = %c1) -> (i32, i32, i32) {
    %lo, %hi = arith.mului_extended %multiplier, %x : i32
    %hk = arith.xori %hi, %k : i32
    %x2 = arith.xori %hk, %y : i32
    %k2 = arith.addi %k, %weyl : i32
    scf.yield %k2, %x2, %lo : i32, i32, i32
  }
  return %r#1 : i32
}

//===----------------------------------------------------------------------===//
// Vectors (three f32 results for a vector)
//===----------------------------------------------------------------------===//

func.func private @dot(%ax: f32, %ay: f32, %az: f32, %bx: f32, %by: f32,
                       %bz: f32) -> f32 {
  %x = arith.mulf %ax, %bx fastmath<contract> : f32
  %y = arith.mulf %ay, %by fastmath<contract> : f32
  %z = arith.mulf %az, %bz fastmath<contract> : f32
  %xy = arith.addf %x, %y fastmath<contract> : f32
  %s = arith.addf %xy, %z fastmath<contract> : f32
  return %s : f32
}

func.func private @cross(%ax: f32, %ay: f32, %az: f32, %bx: f32, %by: f32,
                         %bz: f32) -> (f32, f32, f32) {
  %p1 = arith.mulf %ay, %bz fastmath<contract> : f32
  %p2 = arith.mulf %az, %by fastmath<contract> : f32
  %x = arith.subf %p1, %p2 fastmath<contract> : f32
  %p3 = arith.mulf %az, %bx fastmath<contract> : f32
  %p4 = arith.mulf %ax, %bz fastmath<contract> : f32
  %y = arith.subf %p3, %p4 fastmath<contract> : f32
  %p5 = arith.mulf %ax, %by fastmath<contract> : f32
  %p6 = arith.mulf %ay, %bx fastmath<contract> : f32
  %z = arith.subf %p5, %p6 fastmath<contract> : f32
  return %x, %y, %z : f32, f32, f32
}

// v / |v|.
func.func private @normalize(%x: f32, %y: f32, %z: f32) -> (f32, f32, f32) {
  %vv = func.call @dot(%x, %y, %z, %x, %y, %z)
      : (f32, f32, f32, f32, f32, f32) -> f32
  %length = math.sqrt %vv : f32
  %nx = arith.divf %x, %length : f32
  %ny = arith.divf %y, %length : f32
  %nz = arith.divf %z, %length : f32
  return %nx, %ny, %nz : f32, f32, f32
}

// Three consecutive floats from `base`.
func.func private @load3(%buffer: memref<?xf32>, %base: index)
    -> (f32, f32, f32) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %i1 = arith.addi %base, %c1 : index
  %i2 = arith.addi %base, %c2 : index
  %x = memref.load %buffer[%base] : memref<?xf32>
  %y = memref.load %buffer[%i1] : memref<?xf32>
  %z = memref.load %buffer[%i2] : memref<?xf32>
  return %x, %y, %z : f32, f32, f32
}
