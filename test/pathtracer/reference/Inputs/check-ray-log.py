#!/usr/bin/env python3
"""Checks pathtracer-reference's --ray-log against its own ray count and the
walk's rule (ray-log.test): check-ray-log.py RAYS.npy STDERR-OF-THE-RUN"""
import ast, re, struct, sys
data = open(sys.argv[1], "rb").read()
length = struct.unpack_from("<H", data, 8)[0]
header = ast.literal_eval(data[10:10 + length].decode())
rows = header["shape"][0]
assert header["descr"] == "<i4" and header["shape"][1] == 3, header
counted = int(re.search(r": (\d+) rays in", open(sys.argv[2]).read()).group(1))
assert rows == counted, (rows, counted)
kinds = set()
for i in range(rows):
    kind, visits, root = struct.unpack_from("<3i", data, 10 + length + 12 * i)
    kinds.add(kind)
    assert kind in (0, 1) and root in (0, 1), (i, kind, root)
    # A miss of the root box: at most the root visited. A path ray that
    # meets it visits the root at least; a shadow ray may stop before the
    # BVH, on a quad.
    assert (visits <= 1) if root == 0 else (visits >= 1 or kind == 1), \
        (i, kind, visits, root)
assert kinds == {0, 1}, kinds
print("rows match the counted rays; every row obeys the walk's rule")
