#!/usr/bin/env python3
"""The film examples/shadow_pool.mlir must write, computed with NumPy.

  shadow-film.py occluders OUT.npy --lights L [--seed S]
      writes a random 0/1 occluder table of L entries (int32)
  shadow-film.py check FILM.npy OCCLUDERS.npy --lanes N --shift S
      compares FILM (int32[4096]) with the closed form of the example:
        light(p, s) = (7 p + s + shift) mod L,  s = 0, 1
        film[q] = sum over p < N with p mod 4096 = q, and s, of
                  (occluders[light] == 0) * (light + 1)
      and exits 1 naming the first differing pixel.
"""
import argparse
import sys

import numpy as np

FILM = 4096


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    occ = sub.add_parser("occluders")
    occ.add_argument("out")
    occ.add_argument("--lights", type=int, required=True)
    occ.add_argument("--seed", type=int, default=1)
    check = sub.add_parser("check")
    check.add_argument("film")
    check.add_argument("occluders")
    check.add_argument("--lanes", type=int, required=True)
    check.add_argument("--shift", type=int, required=True)
    args = parser.parse_args()

    if args.command == "occluders":
        rng = np.random.default_rng(args.seed)
        np.save(args.out, rng.integers(0, 2, args.lights, dtype=np.int32))
        return 0

    occluders = np.load(args.occluders)
    film = np.load(args.film)
    if film.dtype != np.int32 or film.shape != (FILM,):
        print(f"film is {film.dtype} {film.shape}, expected int32 ({FILM},)")
        return 1
    lights = occluders.shape[0]
    expected = np.zeros(FILM, dtype=np.int64)
    pixels = np.arange(args.lanes, dtype=np.int64)
    for s in range(2):
        light = (7 * pixels + s + args.shift) % lights
        np.add.at(expected, pixels % FILM, (occluders[light] == 0) * (light + 1))
    bad = np.nonzero(film != expected)[0]
    if bad.size:
        p = bad[0]
        print(f"film[{p}] = {film[p]}, expected {expected[p]} "
              f"({bad.size} pixels differ)")
        return 1
    print(f"film matches: {args.lanes} pixels, sum {int(expected.sum())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
