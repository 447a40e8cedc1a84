#!/usr/bin/env python3
"""Compares two .npy arrays: same dtype and shape; integers exactly, floats
within --ulp units in the last place (default 0: bit-exact, NaN == NaN).

  compare-npy.py A.npy B.npy [--ulp N]

Prints one line per array and exits 1 naming the first differing element.
"""
import argparse
import sys

import numpy as np


def ulp_distance(a, b):
    """|a - b| in ulps, through the ordered integer image of the floats."""
    bits = {np.float32: np.int32, np.float64: np.int64}[a.dtype.type]
    def ordered(x):
        i = x.view(bits).astype(np.int64)
        return np.where(i < 0, np.int64(np.iinfo(bits).min) - i, i)
    return np.abs(ordered(a) - ordered(b))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--ulp", type=int, default=0)
    args = parser.parse_args()
    a, b = np.load(args.a), np.load(args.b)
    if a.dtype != b.dtype or a.shape != b.shape:
        print(f"{args.a}: {a.dtype} {a.shape}, {args.b}: {b.dtype} {b.shape}")
        return 1
    if np.issubdtype(a.dtype, np.floating):
        both_nan = np.isnan(a) & np.isnan(b)
        distance = np.where(both_nan, 0, ulp_distance(a, b))
        bad = distance > args.ulp
        worst = int(distance.max()) if distance.size else 0
    else:
        bad = a != b
        worst = 0
    if np.any(bad):
        index = tuple(np.argwhere(bad)[0])
        print(f"{args.b}{list(index)} = {b[index]}, {args.a} has {a[index]} "
              f"({np.count_nonzero(bad)} differ; bound {args.ulp} ulp)")
        return 1
    print(f"equal: {a.dtype} {a.shape}" +
          (f", at most {worst} ulp apart" if np.issubdtype(a.dtype, np.floating) else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
