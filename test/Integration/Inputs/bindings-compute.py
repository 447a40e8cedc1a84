#!/usr/bin/env python3
"""Inputs and expected outputs of Inputs/bindings-compute.mlir, with NumPy.

  bindings-compute.py inputs DIR --lanes N
      writes DIR/x.npy (f32, N values in [0.25, 4]), DIR/y.npy (f32 zeros)
      and DIR/d.npy (f64 zeros)
  bindings-compute.py check DIR --lanes N --scale S [--rtol R]
      compares DIR/{y,d,grid,peak,hist}.out.npy with the closed forms:
        y[i]    = (floor(x^S) + log(exp(sqrt x))) * (cos^2 x + sin^2 x)   f32
        d[i]    = sqrt(i)^2 + floor(|i - 2.5|)                            f64
        grid[r, c] = sum_{k<4} (8r + c + k)^2 for 8r + c < N, else 0     i64
        peak[0] = max_i (7 i mod 100)                                     i32
        hist[b] = #{i < N : i mod 8 == b}                                 f32
      Integers and the float counts must match exactly; y within a relative
      R (default 1e-4: the Vulkan spec allows exp/pow errors of many ulp),
      d within 1e-12.
"""
import argparse
import os
import sys

import numpy as np


def expected(x, lanes, scale):
    f = np.float32
    sq = np.sqrt(x)
    e = np.exp(sq)
    y = (np.floor(x ** f(scale)) + np.log(e)) * (np.cos(x) ** 2 + np.sin(x) ** 2)
    w = np.arange(lanes, dtype=np.float64)
    d = np.sqrt(w) * np.sqrt(w) + np.floor(np.abs(w - 2.5))
    grid = np.zeros((4, 8), dtype=np.int64)
    for lane in range(min(lanes, 32)):
        grid[lane // 8, lane % 8] = sum((lane + k) ** 2 for k in range(4))
    peak = np.array([max((7 * i) % 100 for i in range(lanes))], dtype=np.int32)
    hist = np.bincount(np.arange(lanes) % 8, minlength=8).astype(np.float32)
    return {"y": y.astype(np.float32), "d": d, "grid": grid, "peak": peak,
            "hist": hist}


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    inputs = sub.add_parser("inputs")
    inputs.add_argument("dir")
    inputs.add_argument("--lanes", type=int, required=True)
    check = sub.add_parser("check")
    check.add_argument("dir")
    check.add_argument("--lanes", type=int, required=True)
    check.add_argument("--scale", type=float, required=True)
    check.add_argument("--rtol", type=float, default=1e-4)
    args = parser.parse_args()
    if args.command == "inputs":
        os.makedirs(args.dir, exist_ok=True)
        x = np.linspace(0.25, 4.0, args.lanes, dtype=np.float32)
        np.save(os.path.join(args.dir, "x.npy"), x)
        np.save(os.path.join(args.dir, "y.npy"), np.zeros(args.lanes, np.float32))
        np.save(os.path.join(args.dir, "d.npy"), np.zeros(args.lanes, np.float64))
        return 0

    x = np.load(os.path.join(args.dir, "x.npy"))
    want = expected(x, args.lanes, args.scale)
    failed = False
    for name, value in want.items():
        got = np.load(os.path.join(args.dir, name + ".out.npy"))
        if got.dtype != value.dtype or got.shape != value.shape:
            print(f"{name}: {got.dtype} {got.shape}, expected "
                  f"{value.dtype} {value.shape}")
            failed = True
            continue
        if name == "y":
            ok = np.isclose(got, value, rtol=args.rtol, atol=1e-6)
        elif name == "d":
            ok = np.isclose(got, value, rtol=1e-12, atol=0)
        else:
            ok = got == value
        if not np.all(ok):
            index = np.argwhere(~ok)[0]
            print(f"{name}{list(index)} = {got[tuple(index)]}, expected "
                  f"{value[tuple(index)]} ({np.count_nonzero(~ok)} differ)")
            failed = True
        else:
            print(f"{name}: matches")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
