#!/usr/bin/env python3
"""Tiny scenes for examples/pathtracer/pathtracer.mlir, flattened into the
bindings of docs/pathtracer.md section 2 with NumPy, and the checks of the
films the renderer writes. Independent of the renderer and of the host
driver: the flattening, the BVH and the expected values are written here from
the specification.

  scenes.py write SCENE DIR [--width W --height H --spp N --seed S]
      writes DIR/<binding>.npy and DIR/args, the sluice-run arguments
      (--lanes, --bind, --set) as a response file: sluice-run PROGRAM @DIR/args
  scenes.py check-quad DIR FILM.npy       the emissive-quad closed form
  scenes.py check-lit DIR FILM.npy        the lit floor: where, and how much
  scenes.py same A.npy B.npy ...          every film bit-identical to the first

Scenes:
  quad-diffuse, quad-mirror, quad-glass
      one emissive quad that fills the view, of the given
      kind, nothing else. Every camera ray meets its front at bounce 0 and
      adds q(emission) (T = 1); nothing else ever adds to the film (diffuse:
      albedo 0; mirror and glass: the next ray leaves and meets nothing). So
      film[pixel, c] = spp * q(emission[c]) exactly.
  lit-floor
      a diffuse floor (albedo 0.5) and, above it, a small emissive quad facing
      down whose own albedo is 0, seen from above so that the light is out of
      view. Only direct light reaches the camera: the film is zero where the
      camera sees nothing, positive on the floor, below the per-sample bound
      of next-event estimation, and its mean matches the direct illumination
      integrated here by quadrature.
  cornell
      a small Cornell-like box (five walls, a light, a glass and a mirror
      sphere, two tall blocks' worth of triangles) with a BVH of several
      levels, for schedule and layout agreement.
"""
import argparse
import math
import os
import sys

import numpy as np

F32 = np.float32


def q(c):
    """Section 6: int64(c * 2^24 + 0.5), product and sum in f32."""
    c = np.asarray(c, dtype=F32)
    return (c * F32(2.0 ** 24) + F32(0.5)).astype(np.int64)


class Scene:
    def __init__(self):
        self.materials = []  # (kind, albedo, emission, ior)
        self.quads = []      # (corner, edge_u, edge_v, material)
        self.triangles = []  # (v0, v1, v2, material)
        self.spheres = []    # (centre, radius, material)
        self.camera = None   # (eye, look_at, up, fov_y_degrees)

    def material(self, kind, albedo=(1, 1, 1), emission=(0, 0, 0), ior=1.5):
        self.materials.append(({"diffuse": 0, "mirror": 1, "glass": 2}[kind],
                               albedo, emission, ior))
        return len(self.materials) - 1

    def quad(self, corner, edge_u, edge_v, material):
        c, u, v = (np.array(x, dtype=np.float64) for x in (corner, edge_u, edge_v))
        # Section 4: tested as the parallelogram c + a u + b v, not in the BVH.
        self.quads.append((c, u, v, material))

    def box(self, lo, hi, material):
        """An axis-aligned box as 12 triangles (no lights)."""
        lo, hi = np.array(lo, float), np.array(hi, float)
        x, y, z = hi - lo
        X, Y, Z = np.array([x, 0, 0]), np.array([0, y, 0]), np.array([0, 0, z])
        for corner, u, v in ((lo, Y, X), (lo + Z, X, Y), (lo, Z, Y),
                             (lo + X, Y, Z), (lo, X, Z), (lo + Y, Z, X)):
            self.triangles.append((corner, corner + u, corner + u + v, material))
            self.triangles.append((corner, corner + u + v, corner + v, material))

    def sphere(self, centre, radius, material):
        self.spheres.append((np.array(centre, float), radius, material))


def build_bvh(triangles):
    """Median split on the longest centroid axis, leaves of at most 4
    triangles; children of an inner node are consecutive (first, first + 1).
    Returns (order, bounds[n][6], links[n][2])."""
    verts = np.array([[t[0], t[1], t[2]] for t in triangles], dtype=np.float64)
    nodes = [None]
    order = []

    def build(slot, ids, depth):
        assert depth < 32, "BVH deeper than the traversal stack"
        pts = verts[ids].reshape(-1, 3)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        if len(ids) <= 4:
            nodes[slot] = (lo, hi, len(order), len(ids))
            order.extend(ids)
            return
        centroids = verts[ids].mean(axis=1)
        axis = int(np.argmax(centroids.max(axis=0) - centroids.min(axis=0)))
        ranked = [ids[i] for i in np.argsort(centroids[:, axis], kind="stable")]
        half = len(ranked) // 2
        first = len(nodes)
        nodes.extend([None, None])
        nodes[slot] = (lo, hi, first, 0)
        build(first, ranked[:half], depth + 1)
        build(first + 1, ranked[half:], depth + 1)

    build(0, list(range(len(triangles))), 0)
    bounds = np.array([np.concatenate([n[0], n[1]]) for n in nodes], dtype=F32)
    links = np.array([[n[2], n[3]] for n in nodes], dtype=np.int32)
    return order, bounds, links


def camera_uniforms(eye, look_at, up, fov_y, width, height):
    eye, look_at, up = (np.array(x, dtype=np.float64) for x in (eye, look_at, up))
    forward = look_at - eye
    forward /= np.linalg.norm(forward)
    right_unit = np.cross(forward, up)
    right_unit /= np.linalg.norm(right_unit)
    t = math.tan(math.radians(fov_y) / 2)
    right = right_unit * t * width / height
    up2 = np.cross(right_unit, forward) * t
    values = {}
    for name, v in (("eye", eye), ("fwd", forward), ("right", right), ("up", up2)):
        for axis, x in zip("xyz", v):
            values["cam_%s_%s" % (name, axis)] = x
    return values


def flatten(scene):
    """Section 2's buffers (NumPy arrays by binding name)."""
    if scene.triangles:
        order, bounds, links = build_bvh(scene.triangles)
    else:  # no BVH: empty bindings
        order = []
        bounds = np.zeros((0, 6), dtype=F32)
        links = np.zeros((0, 2), dtype=np.int32)
    tris = [scene.triangles[i] for i in order]
    b = {}
    b["tri_verts"] = np.array([np.concatenate(t[:3]) for t in tris], dtype=F32).reshape(-1)
    b["tri_mat"] = np.array([t[3] for t in tris], dtype=np.int32)
    b["bvh_bounds"] = bounds.reshape(-1)
    b["bvh_links"] = links.reshape(-1)
    b["spheres"] = np.array([list(s[0]) + [s[1]] for s in scene.spheres],
                            dtype=F32).reshape(-1)
    b["sphere_mat"] = np.array([s[2] for s in scene.spheres], dtype=np.int32)
    b["quads"] = np.array([np.concatenate(q[:3]) for q in scene.quads],
                          dtype=F32).reshape(-1)
    b["quad_mat"] = np.array([q[3] for q in scene.quads], dtype=np.int32)
    b["mat_kind"] = np.array([m[0] for m in scene.materials], dtype=np.int32)
    b["mat_data"] = np.array([list(m[1]) + list(m[2]) + [m[3], 0]
                              for m in scene.materials], dtype=F32).reshape(-1)
    lights = [list(c) + list(u) + list(v) + list(scene.materials[m][2])
              for c, u, v, m in scene.quads if any(scene.materials[m][2])]
    b["lights"] = np.array(lights, dtype=F32).reshape(-1)
    return b


def make_scene(name):
    s = Scene()
    if name.startswith("quad-"):
        kind = name[len("quad-"):]
        # Albedo 0 for the diffuse quad: its bounce carries nothing.
        albedo = (0, 0, 0) if kind == "diffuse" else (0.9, 0.9, 0.9)
        m = s.material(kind, albedo=albedo, emission=(1.5, 0.25, 3.0), ior=1.5)
        # Front (cross(edge_u, edge_v) = -z) faces the camera at the origin.
        s.quad((-1000, -1000, 10), (0, 2000, 0), (2000, 0, 0), m)
        s.camera = ((0, 0, 0), (0, 0, 1), (0, 1, 0), 40)
    elif name == "lit-floor":
        floor = s.material("diffuse", albedo=(0.5, 0.5, 0.5))
        light = s.material("diffuse", albedo=(0, 0, 0), emission=(8, 6, 4))
        # The floor y = 0, x in [-1, 1], z in [-50, 50]; front +y.
        s.quad((-1, 0, -50), (0, 0, 100), (2, 0, 0), floor)
        # The light y = 4, 1 x 1, front -y (cross(u, v) = (0, -1, 0)).
        s.quad((-0.5, 4, -0.5), (1, 0, 0), (0, 0, 1), light)
        s.camera = ((0, 3, 0), (0, 0, 0.0001), (0, 0, 1), 60)
    elif name == "cornell":
        white = s.material("diffuse", albedo=(0.73, 0.73, 0.73))
        red = s.material("diffuse", albedo=(0.65, 0.05, 0.05))
        green = s.material("diffuse", albedo=(0.12, 0.45, 0.15))
        light = s.material("diffuse", albedo=(0.78, 0.78, 0.78), emission=(15, 15, 15))
        glass = s.material("glass", ior=1.5)
        mirror = s.material("mirror", albedo=(0.9, 0.9, 0.9))
        S = 10.0
        s.quad((0, 0, 0), (0, 0, S), (S, 0, 0), white)          # floor, +y
        s.quad((0, S, 0), (S, 0, 0), (0, 0, S), white)          # ceiling, -y
        s.quad((0, 0, S), (0, S, 0), (S, 0, 0), white)          # back, -z
        s.quad((0, 0, 0), (0, S, 0), (0, 0, S), red)            # x = 0, +x
        s.quad((S, 0, 0), (0, 0, S), (0, S, 0), green)          # x = S, -x
        s.quad((3.5, S - 0.01, 3.5), (3, 0, 0), (0, 0, 3), light)  # -y
        s.box((1.5, 0, 5.5), (4.5, 5.5, 8.5), white)
        s.sphere((7, 2, 3), 2, glass)
        s.sphere((6.5, 6, 7), 1.5, mirror)
        s.camera = ((5, 5, -14), (5, 5, 0), (0, 1, 0), 40)
    else:
        raise SystemExit("unknown scene '%s'" % name)
    return s


def write(args):
    scene = make_scene(args.scene)
    os.makedirs(args.dir, exist_ok=True)
    buffers = flatten(scene)
    buffers["film"] = np.zeros(args.width * args.height * 3, dtype=np.int64)
    lines = ["--lanes=%d" % (args.width * args.height * args.spp)]
    for name, array in buffers.items():
        # The film starts at zero; runs write theirs elsewhere (--output).
        stem = "film-zero" if name == "film" else name
        path = os.path.join(args.dir, stem + ".npy")
        np.save(path, array)
        lines.append("--bind=%s=%s" % (name, path))
    uniforms = {"width": args.width, "height": args.height,
                "sample_base": 0, "seed": args.seed, "texture_octaves": 0}
    for k, v in uniforms.items():
        lines.append("--set=%s=%d" % (k, v))
    for k, v in camera_uniforms(*scene.camera, args.width, args.height).items():
        lines.append("--set=%s=%r" % (k, float(F32(v))))
    with open(os.path.join(args.dir, "args"), "w") as out:
        out.write("\n".join(lines) + "\n")
    meta = {"width": args.width, "height": args.height, "spp": args.spp}
    np.save(os.path.join(args.dir, "meta.npy"),
            np.array([meta["width"], meta["height"], meta["spp"]], dtype=np.int64))


def load(dir_, film_path):
    width, height, spp = (int(x) for x in np.load(os.path.join(dir_, "meta.npy")))
    film = np.load(film_path)
    if film.dtype != np.int64 or film.shape != (width * height * 3,):
        raise SystemExit("film: expected int64[%d], got %s[%s]"
                         % (width * height * 3, film.dtype, film.shape))
    return width, height, spp, film.reshape(height, width, 3)


def check_quad(args):
    width, height, spp, film = load(args.dir, args.film)
    mat = np.load(os.path.join(args.dir, "mat_data.npy")).reshape(-1, 8)
    expected = spp * q(mat[0, 3:6])
    bad = np.argwhere(np.any(film != expected, axis=2))
    if len(bad):
        y, x = bad[0]
        raise SystemExit("quad: pixel (%d, %d) is %s, expected %s (and %d more)"
                         % (x, y, film[y, x].tolist(), expected.tolist(), len(bad) - 1))
    print("quad: every pixel is %d * q(emission) = %s" % (spp, expected.tolist()))


def pixel_rays(dir_, width, height, offsets):
    """Directions through points (x + ox, y + oy) of every pixel (section 3)."""
    args = dict(line.strip()[len("--set="):].split("=")
                for line in open(os.path.join(dir_, "args")) if line.startswith("--set="))
    cam = {k: float(v) for k, v in args.items() if k.startswith("cam_")}
    vec = lambda n: np.array([cam["cam_%s_%s" % (n, a)] for a in "xyz"])
    eye, fwd, right, up = vec("eye"), vec("fwd"), vec("right"), vec("up")
    ys, xs = np.mgrid[0:height, 0:width]
    rays = []
    for ox, oy in offsets:
        a = 2 * (xs + ox) / width - 1
        b = 1 - 2 * (ys + oy) / height
        d = fwd + a[..., None] * right + b[..., None] * up
        rays.append(d / np.linalg.norm(d, axis=-1, keepdims=True))
    return eye, rays


def check_lit(args):
    width, height, spp, film = load(args.dir, args.film)
    eye, corners = pixel_rays(args.dir, width, height, [(0, 0), (1, 0), (0, 1), (1, 1)])
    # Where each corner ray meets the floor plane y = 0 (all rays go down).
    hits = [eye + (-eye[1] / d[..., 1:2]) * d for d in corners]
    on_floor = [(np.abs(h[..., 0]) < 1) & (np.abs(h[..., 2]) < 50) for h in hits]
    inside = np.logical_and.reduce(on_floor)
    outside = ~np.logical_or.reduce(on_floor)
    assert inside.sum() > 10 and outside.sum() > 10, "the view shows floor and void"
    total = film.sum(axis=2)
    if np.any(total[outside] != 0):
        y, x = np.argwhere(outside & (total != 0))[0]
        raise SystemExit("lit: pixel (%d, %d) sees nothing but its film is %s"
                         % (x, y, film[y, x].tolist()))
    if np.any(np.any(film[inside] <= 0, axis=-1)):
        raise SystemExit("lit: a pixel on the floor got no light in some channel")
    # Per sample, C = albedo/pi * E * cos_s * cos_l * area * L / dist^2 with
    # both cosines <= 1 and dist >= 4 - (light height) ... the floor is 4 below.
    emission = np.array([8, 6, 4], float)
    bound = 0.5 / math.pi * emission * 1.0 * 1 / 4.0 ** 2
    limit = spp * (bound * 2 ** 24 + 1)
    if np.any(film[inside] > limit):
        raise SystemExit("lit: a pixel exceeds the next-event bound %s" % limit.tolist())
    # The direct illumination at the floor point under each pixel centre, by
    # a 64 x 64 midpoint quadrature over the light (radiance = albedo / pi *
    # integral of E cos_s cos_l / r^2 dA).
    _, (centre,) = pixel_rays(args.dir, width, height, [(0.5, 0.5)])
    points = eye + (-eye[1] / centre[..., 1:2]) * centre
    n = 64
    s = (np.arange(n) + 0.5) / n
    lx, lz = np.meshgrid(-0.5 + s, -0.5 + s)
    light = np.stack([lx.ravel(), np.full(n * n, 4.0), lz.ravel()], axis=-1)
    p = points[inside]
    w = light[None, :, :] - p[:, None, :]
    r2 = (w ** 2).sum(-1)
    cos = w[..., 1] / np.sqrt(r2)  # cos_s (floor normal +y) = cos_l (light -y)
    irradiance = (cos * cos / r2).sum(-1) / (n * n)  # light area 1
    expected = (0.5 / math.pi * irradiance)[:, None] * emission
    measured = film[inside] / (2 ** 24 * spp)
    ratio = measured.mean(axis=0) / expected.mean(axis=0)
    if np.any(np.abs(ratio - 1) > args.tolerance):
        raise SystemExit("lit: mean radiance %s, expected %s (ratio %s)"
                         % (measured.mean(0).tolist(), expected.mean(0).tolist(),
                            ratio.tolist()))
    print("lit: %d floor pixels lit, %d empty pixels dark, mean radiance within %g%%"
          % (inside.sum(), outside.sum(), 100 * args.tolerance))


def same(args):
    first = np.load(args.films[0])
    for path in args.films[1:]:
        other = np.load(path)
        if other.dtype != first.dtype or other.shape != first.shape:
            raise SystemExit("%s: %s%s, %s: %s%s" % (args.films[0], first.dtype,
                             first.shape, path, other.dtype, other.shape))
        diff = np.flatnonzero(first != other)
        if len(diff):
            raise SystemExit("%s and %s differ at %d elements, first at %d: %d != %d"
                             % (args.films[0], path, len(diff), diff[0],
                                first[diff[0]], other[diff[0]]))
    if not first.any():
        raise SystemExit("%s: the film is all zero" % args.films[0])
    print("same: %d films bit-identical" % len(args.films))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("scene")
    w.add_argument("dir")
    w.add_argument("--width", type=int, default=8)
    w.add_argument("--height", type=int, default=6)
    w.add_argument("--spp", type=int, default=2)
    w.add_argument("--seed", type=int, default=7)
    for name in ("check-quad", "check-lit"):
        c = sub.add_parser(name)
        c.add_argument("dir")
        c.add_argument("film")
        c.add_argument("--tolerance", type=float, default=0.05)
    s = sub.add_parser("same")
    s.add_argument("films", nargs="+")
    args = parser.parse_args()
    {"write": write, "check-quad": check_quad, "check-lit": check_lit,
     "same": same}[args.command](args)


if __name__ == "__main__":
    main()
