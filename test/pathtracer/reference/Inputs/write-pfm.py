#!/usr/bin/env python3
"""write-pfm.py OUT.pfm W H R,G,B [X,Y=R,G,B ...] [--big-endian]: a PFM image (top row y = 0),
every pixel R,G,B except the listed ones. For compare-images.test."""
import struct
import sys

args = [a for a in sys.argv[1:] if a != "--big-endian"]
big = "--big-endian" in sys.argv
out, w, h, fill = args[0], int(args[1]), int(args[2]), [float(v) for v in args[3].split(",")]
pixels = {}
for spec in args[4:]:
    at, value = spec.split("=")
    x, y = (int(v) for v in at.split(","))
    pixels[(x, y)] = [float(v) for v in value.split(",")]
with open(out, "wb") as f:
    f.write(b"PF\n%d %d\n%s\n" % (w, h, b"1.0" if big else b"-1.0"))
    for y in range(h - 1, -1, -1):  # bottom row first
        for x in range(w):
            f.write(struct.pack(">3f" if big else "<3f", *pixels.get((x, y), fill)))
