#!/usr/bin/env python3
"""Does coherence sorting pay? The path tracer sorted against unsorted, side
by side in one run, on each backend, for the plain scene and the
heavy-shading variant (docs/pathtracer.md section 9).

Runs the files bench/vulkan/aot.sh packs (sluice-render, pathtracer.sluice)
at 512 x 512 x 64 in one pass with the scheduler on the device: unsorted,
sorted in the default partitions of 1,024 frames, sorted as one run per
dispatch, in the partitions of --partitions, and sorted into one bucket (the
sorting work without its order). It alternates the configurations --rounds times
so that drift of the machine falls on each of them alike. Prints the median
Mrays/s of every configuration, each sorted configuration's ratio to the
unsorted one of the same scene, backend and frame pool, and whether the
films are byte-identical (sorting never changes a sample: integer film).

  python3 bench/pathtracer/sorting.py AOT [--backends vulkan,hip]
      [--pools 262144,1048576] [--octaves 0,8] [--partitions 256]
      [--rounds 3] [--size 512x512x64]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys


def render(aot, env, artifact, backend, size, pool, octaves, extra, film):
    width, height, spp = size
    cmd = [os.path.join(aot, "sluice-render"), "--artifact", os.path.join(aot, artifact),
           "--scene", os.path.join(aot, "scenes", "cornell-box.json"), "--backend", backend,
           "--width", str(width), "--height", str(height), "--spp", str(spp),
           "--pass-spp", str(spp), "--frame-pool", str(pool),
           "--texture-octaves", str(octaves), "--scheduler-placement", "device",
           "--film", film] + extra
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    found = re.findall(r"^Mrays/s:\s*([0-9.]+)", proc.stdout, re.M)
    if proc.returncode != 0 or not found:
        print("  failed (exit %d): %s" % (proc.returncode, " ".join(cmd)))
        print("\n".join("    " + line for line in proc.stdout.splitlines()[-6:]))
        return None
    return float(found[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("aot")
    ap.add_argument("--backends", default="vulkan,hip")
    ap.add_argument("--pools", default="262144,1048576")
    ap.add_argument("--octaves", default="0,8")
    ap.add_argument("--partitions", default="256",
                    help="partition sizes besides the default (1024) and 0")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", default="512x512x64")
    opts = ap.parse_args()
    aot = os.path.abspath(opts.aot)
    size = [int(v) for v in opts.size.split("x")]
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(
        [os.path.join(aot, "lib"), "/usr/local/cuda/lib64", "/usr/local/nvidia/lib64",
         env.get("LD_LIBRARY_PATH", "")])
    films = os.path.join(aot, "sorting-films")
    os.makedirs(films, exist_ok=True)
    # (label, artifact, extra options); sorting's default partition is
    # 1,024 frames (FrameSorting, kDefaultSortPartition).
    configs = [("unsorted", "pathtracer.sluice", ["--sort", "off"]),
               ("sorted", "pathtracer.sluice", ["--sort", "on"]),
               ("sorted, one run per dispatch", "pathtracer.sluice",
                ["--sort", "on", "--sort-partition", "0"])]
    for partition in [int(p) for p in opts.partitions.split(",") if p]:
        configs.append(("sorted in partitions of %d" % partition, "pathtracer.sluice",
                        ["--sort", "on", "--sort-partition", str(partition)]))
    # One bucket: the same sorting work, the frame order unchanged (the
    # sort's own cost, apart from what the order does).
    configs.append(("sorted into 1 bucket", "pathtracer.sluice",
                    ["--sort", "on", "--sort-buckets", "1"]))
    print("path tracer %dx%dx%d, one pass, device placement; median of %d rounds (Mrays/s)"
          % (size[0], size[1], size[2], opts.rounds))
    for backend in opts.backends.split(","):
        # Warm-up: pipelines and the hip module compiled before the clock.
        for artifact in sorted({c[1] for c in configs}):
            render(aot, env, artifact, backend, [16, 16, 1], 256, 0, ["--sort", "on"],
                   os.path.join(films, "warm.npy"))
        for octaves in [int(o) for o in opts.octaves.split(",")]:
            for pool in [int(p) for p in opts.pools.split(",")]:
                rates = {label: [] for label, _, _ in configs}
                for _ in range(opts.rounds):
                    for index, (label, artifact, extra) in enumerate(configs):
                        rate = render(aot, env, artifact, backend, size, pool, octaves, extra,
                                      os.path.join(films, "%d.npy" % index))
                        if rate is not None:
                            rates[label].append(rate)
                base = statistics.median(rates["unsorted"]) if rates["unsorted"] else 0
                scene = "plain" if octaves == 0 else "heavy (octaves %d)" % octaves
                print("%s, %s, frame pool %d:" % (backend, scene, pool))
                for label, _, _ in configs:
                    if not rates[label]:
                        print("  %-32s failed" % label)
                        continue
                    median = statistics.median(rates[label])
                    ratio = " %.3fx unsorted" % (median / base) if base and label != "unsorted" else ""
                    print("  %-32s %8.1f  (%s)%s" % (
                        label, median, " ".join("%.1f" % r for r in rates[label]), ratio))
                data = [open(os.path.join(films, "%d.npy" % i), "rb").read()
                        for i in range(len(configs))
                        if os.path.exists(os.path.join(films, "%d.npy" % i))]
                same = len(data) == len(configs) and all(d == data[0] for d in data)
                print("  films: %s" % ("all %d byte-identical" % len(data) if same else "DIFFER"))
                for i in range(len(configs)):
                    path = os.path.join(films, "%d.npy" % i)
                    if os.path.exists(path):
                        os.remove(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
