#!/usr/bin/env python3
"""Writes icosphere.obj: an icosahedron subdivided three times.

Each subdivision splits every triangle into four at its edge midpoints and
projects the new vertices onto the unit sphere, so the mesh has
20 * 4^3 = 1,280 triangles and 10 * 4^3 + 2 = 642 vertices, all at distance 1
from the origin. Every face is wound counter-clockwise seen from outside
(its normal cross(v1 - v0, v2 - v0) points away from the centre).

usage: icosphere.py [OUTPUT.obj]   (default: icosphere.obj beside this script)
"""
import math
import os
import sys

SUBDIVISIONS = 3


def normalized(v):
    length = math.sqrt(sum(c * c for c in v))
    return tuple(c / length for c in v)


def icosahedron():
    phi = (1.0 + math.sqrt(5.0)) / 2.0
    vertices = [normalized(v) for v in [
        (-1, phi, 0), (1, phi, 0), (-1, -phi, 0), (1, -phi, 0),
        (0, -1, phi), (0, 1, phi), (0, -1, -phi), (0, 1, -phi),
        (phi, 0, -1), (phi, 0, 1), (-phi, 0, -1), (-phi, 0, 1)]]
    faces = [
        (0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11),
        (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6), (7, 1, 8),
        (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
        (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    return vertices, faces


def subdivide(vertices, faces):
    midpoints = {}

    def midpoint(a, b):
        key = (min(a, b), max(a, b))
        if key not in midpoints:
            va, vb = vertices[a], vertices[b]
            vertices.append(normalized(tuple((x + y) / 2 for x, y in zip(va, vb))))
            midpoints[key] = len(vertices) - 1
        return midpoints[key]

    result = []
    for a, b, c in faces:
        ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
        result += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
    return result


def outward(vertices, face):
    v0, v1, v2 = (vertices[i] for i in face)
    e1 = [v1[k] - v0[k] for k in range(3)]
    e2 = [v2[k] - v0[k] for k in range(3)]
    n = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
         e1[0] * e2[1] - e1[1] * e2[0])
    centroid = [v0[k] + v1[k] + v2[k] for k in range(3)]
    return sum(n[k] * centroid[k] for k in range(3)) > 0


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "icosphere.obj")
    vertices, faces = icosahedron()
    for _ in range(SUBDIVISIONS):
        faces = subdivide(vertices, faces)
    assert len(faces) == 1280 and len(vertices) == 642
    assert all(outward(vertices, f) for f in faces)
    with open(output, "w") as out:
        out.write("# icosphere: an icosahedron subdivided %d times, %d vertices on the\n"
                  "# unit sphere, %d triangles wound counter-clockwise seen from outside.\n"
                  "# Written by icosphere.py; do not edit.\n"
                  % (SUBDIVISIONS, len(vertices), len(faces)))
        for v in vertices:
            out.write("v %.9f %.9f %.9f\n" % v)
        for a, b, c in faces:
            out.write("f %d %d %d\n" % (a + 1, b + 1, c + 1))


if __name__ == "__main__":
    main()
