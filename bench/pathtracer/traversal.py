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
import ast
import random
import struct
import sys


def read_log(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("not a .npy file")
    major = data[6]
    if major == 1:
        (length,) = struct.unpack_from("<H", data, 8)
        start = 10
    else:
        (length,) = struct.unpack_from("<I", data, 8)
        start = 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    if header["descr"] != "<i4" or header["fortran_order"] or len(header["shape"]) != 2 \
            or header["shape"][1] != 3:
        raise ValueError("expected int32 rows of 3, got %r" % (header,))
    rows = header["shape"][0]
    body = data[start + length:]
    if len(body) != 12 * rows:
        raise ValueError("%d bytes for %d rows" % (len(body), rows))
    return [struct.unpack_from("<3i", body, 12 * i) for i in range(rows)]


def groups(visits, size):
    count = len(visits) // size
    longest = [max(visits[g * size:(g + 1) * size]) for g in range(count)]
    done = sum(visits[:count * size])
    total = sum(longest) * size
    return (done / total if total else 1.0), (sum(longest) / count if count else 0.0)


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
    except (OSError, ValueError, SyntaxError) as error:
        print("traversal.py: cannot read %s: %s" % (args.log, error), file=sys.stderr)
        return 1
    print("%-7s %9s %10s %12s %14s | %-26s | %-26s" % (
        "rays", "count", "root box", "mean visits", "visits | box",
        "mixed: useful, group walk", "sorted: useful, group walk"))
    for kind, name in ((0, "path"), (1, "shadow")):
        mine = [(visits, root) for k, visits, root in rays if k == kind]
        if not mine:
            continue
        box = [v for v, r in mine if r]
        random.Random(args.seed).shuffle(mine)
        mixed = [v for v, _ in mine]
        ordered = []
        for s in range(0, len(mine), args.partition):
            ordered += [v for v, _ in sorted(mine[s:s + args.partition], key=lambda t: t[1])]
        mu, mw = groups(mixed, args.group)
        su, sw = groups(ordered, args.group)
        print("%-7s %9d %9.1f%% %12.2f %14.2f | %9.1f%%, %8.1f visits | %9.1f%%, %8.1f visits" % (
            name, len(mine), 100.0 * len(box) / len(mine), sum(mixed) / len(mine),
            (sum(box) / len(box)) if box else 0.0, 100 * mu, mw, 100 * su, sw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
