#!/usr/bin/env python3
"""Writes an icosphere OBJ: an icosahedron subdivided N times (default 3: 642 vertices, 1,280
triangles), every vertex on the unit sphere, faces wound counter-clockwise seen from outside.

The reference's own copy of the benchmark mesh of ../shared/scenes/cornell-box.md, written
independently of examples/pathtracer/scenes/icosphere.py (its vertex order may differ; the
geometry is the same up to the icosahedron's orientation)."""
import math
import sys


def icosphere(levels):
    phi = (1 + math.sqrt(5)) / 2
    raw = [(-1, phi, 0), (1, phi, 0), (-1, -phi, 0), (1, -phi, 0),
           (0, -1, phi), (0, 1, phi), (0, -1, -phi), (0, 1, -phi),
           (phi, 0, -1), (phi, 0, 1), (-phi, 0, -1), (-phi, 0, 1)]
    verts = [tuple(c / math.sqrt(sum(x * x for x in v)) for c in v) for v in raw]
    # The 20 faces: every triple of mutually adjacent vertices (edge length 2 before scaling).
    edge = min(math.dist(verts[0], verts[j]) for j in range(1, 12))
    adj = lambda i, j: abs(math.dist(verts[i], verts[j]) - edge) < 1e-9
    faces = [(i, j, k) for i in range(12) for j in range(i + 1, 12) for k in range(j + 1, 12)
             if adj(i, j) and adj(j, k) and adj(i, k)]
    assert len(faces) == 20
    for _ in range(levels):
        cache = {}

        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in cache:
                m = [(verts[a][c] + verts[b][c]) / 2 for c in range(3)]
                n = math.sqrt(sum(x * x for x in m))
                verts.append(tuple(x / n for x in m))
                cache[key] = len(verts) - 1
            return cache[key]

        new = []
        for a, b, c in faces:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            new += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = new
    oriented = []
    for a, b, c in faces:  # outward: cross(b - a, c - a) . a > 0
        u = [verts[b][i] - verts[a][i] for i in range(3)]
        v = [verts[c][i] - verts[a][i] for i in range(3)]
        n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        oriented.append((a, b, c) if sum(n[i] * verts[a][i] for i in range(3)) > 0 else (a, c, b))
    return verts, oriented


def main():
    levels = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    verts, faces = icosphere(levels)
    out = ["# icosphere: icosahedron subdivided %d times, %d vertices, %d triangles"
           % (levels, len(verts), len(faces))]
    out += ["v %.9f %.9f %.9f" % v for v in verts]
    out += ["f %d %d %d" % (a + 1, b + 1, c + 1) for a, b, c in faces]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
