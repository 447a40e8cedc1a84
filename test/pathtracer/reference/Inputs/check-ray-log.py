#!/usr/bin/env python3
"""Checks pathtracer-reference's --ray-log against its own ray count and the
walk's rule (ray-log.test): check-ray-log.py RAYS.npy STDERR-OF-THE-RUN"""
import re
import sys

import numpy as np

rays = np.load(sys.argv[1])
assert rays.dtype == np.int32 and rays.ndim == 2 and rays.shape[1] == 3, (rays.dtype, rays.shape)
counted = int(re.search(r": (\d+) rays in", open(sys.argv[2]).read()).group(1))
assert len(rays) == counted, (len(rays), counted)
kind, visits, root = rays[:, 0], rays[:, 1], rays[:, 2]
assert set(np.unique(kind)) == {0, 1}, np.unique(kind)
assert set(np.unique(root)) <= {0, 1}, np.unique(root)
# A miss of the root box: at most the root visited. A path ray that meets it
# visits the root at least; a shadow ray may stop before the BVH, on a quad.
assert (visits[root == 0] <= 1).all()
assert (visits[(root == 1) & (kind == 0)] >= 1).all()
assert (visits >= 0).all()
print("rows match the counted rays; every row obeys the walk's rule")
