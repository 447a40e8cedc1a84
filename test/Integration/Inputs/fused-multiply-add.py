#!/usr/bin/env python3
"""Checks the film of fused-multiply-add.mlir (see its header) against values
computed here: the fused results exactly, with fractions; the unfused one
with NumPy's float32, whose multiply and subtract round once each.

  fused-multiply-add.py OUT.npy --lanes=N
  fused-multiply-add.py - --lanes=N      (the f32 bit patterns, a line each,
                                          on standard input)
"""
import argparse
import sys
from fractions import Fraction

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--lanes", type=int, required=True)
    args = parser.parse_args()
    if args.out == "-":
        out = np.array([int(line) for line in sys.stdin if line.strip()],
                       dtype=np.uint32).view(np.float32)
    else:
        out = np.load(args.out)
    assert out.dtype == np.float32, out.dtype
    differs = 0
    for lane in range(args.lanes):
        e = Fraction(lane + 1, 4096)
        a, c = 1 + e, 1 + 2 * e
        fused = a * a - c  # the exact value, which one rounding keeps: e^2
        assert fused == e * e and float(np.float32(float(fused))) == fused
        af, cf = np.float32(float(a)), np.float32(float(c))
        unfused = np.float32(af * af) - cf
        want = [float(fused), float(fused), -float(fused), float(unfused)]
        got = [float(v) for v in out[4 * lane:4 * lane + 4]]
        if got != want:
            print(f"lane {lane}: got {got}, want {want}")
            return 1
        differs += unfused != np.float32(float(fused))
    # The check would catch a backend that does not fuse.
    print(f"{args.lanes} lanes match; the rounded product differs in {differs}")
    return 0 if differs > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
