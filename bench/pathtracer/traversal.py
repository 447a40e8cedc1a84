#!/usr/bin/env python3
"""How long does a group of 32 lanes wait on its longest BVH walk?

  python3 bench/pathtracer/traversal.py RAYS.npy [--group 32] [--partition 1024] [--seed 1]

RAYS.npy is pathtracer-reference's --ray-log (int32, one row per ray: kind 0
path / 1 shadow, BVH nodes visited, 1 when the ray meets the root box). For
each kind it prints the rays, the share meeting the root box, the mean visits
(all rays, and those meeting the box), then a model of lanes that walk in
lockstep: the rays in a seeded random order (a wavefront dispatch mixes
bounces and pixels) cut into groups of --group, and the same order sorted
stably by the root-box key within runs of --partition (what
`--sort intersect` does with the path tracer's ray key, docs/runtime.md
"Coherence sorting"). A group runs as many loop iterations as its longest
walk: "useful" is the visits done over group size x that longest walk. The
model counts the traversal's iterations only; the H100 measured ~1% from the
key on hip (docs/runtime.md), since a GPU's intersect dispatch spends most of
its time elsewhere.

  pathtracer-reference --scene examples/pathtracer/scenes/cornell-box.json \\
      --width 128 --height 128 --spp 4 --pfm /tmp/ref.pfm --ray-log /tmp/rays.npy
  python3 bench/pathtracer/traversal.py /tmp/rays.npy
"""
import argparse
import sys

import numpy as np


def read_log(path):
    rays = np.load(path)
    if rays.dtype != np.int32 or rays.ndim != 2 or rays.shape[1] != 3:
        raise ValueError("expected int32 rows of 3, got %s %s" % (rays.dtype, rays.shape))
    return rays


def groups(visits, size):
    """Useful share and mean longest walk of `visits` cut into groups of `size`."""
    count = len(visits) // size
    if count == 0:
        return 1.0, 0.0
    longest = visits[:count * size].reshape(count, size).max(axis=1)
    return float(visits[:count * size].sum()) / (size * float(longest.sum())), float(longest.mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--group", type=int, default=32)
    ap.add_argument("--partition", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.group < 1 or args.partition < 1:
        print("traversal.py: --group and --partition must be at least 1", file=sys.stderr)
        return 2
    try:
        rays = read_log(args.log)
    except (OSError, ValueError) as error:
        print("traversal.py: cannot read %s: %s" % (args.log, error), file=sys.stderr)
        return 1
    print("%-7s %9s %10s %12s %14s | %-26s | %-26s" % (
        "rays", "count", "root box", "mean visits", "visits | box",
        "mixed: useful, group walk", "sorted: useful, group walk"))
    random = np.random.default_rng(args.seed)
    for kind, name in ((0, "path"), (1, "shadow")):
        mine = rays[rays[:, 0] == kind]
        if len(mine) == 0:
            continue
        mine = mine[random.permutation(len(mine))]
        visits, root = mine[:, 1].astype(np.int64), mine[:, 2]
        ordered = np.concatenate([
            visits[s:s + args.partition][np.argsort(root[s:s + args.partition], kind="stable")]
            for s in range(0, len(mine), args.partition)])
        mu, mw = groups(visits, args.group)
        su, sw = groups(ordered, args.group)
        box = visits[root == 1]
        print("%-7s %9d %9.1f%% %12.2f %14.2f | %9.1f%%, %8.1f visits | %9.1f%%, %8.1f visits" % (
            name, len(mine), 100.0 * len(box) / len(mine), visits.mean(),
            box.mean() if len(box) else 0.0, 100 * mu, mw, 100 * su, sw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
