#!/usr/bin/env bash
# The path tracer on the CPU backend, side by side in one run
# (docs/pathtracer.md section 7 counts the rays; sluice-render prints them):
# Mrays/s of the wavefront schedule without and with coherence sorting, of the
# state-machine schedule (the megakernel), and of the reference renderer (the
# plain C++ peer), for the plain Cornell box, the heavy-shading variant
# (section 9: value noise of --octaves octaves on every diffuse hit) and the
# divergent variant (cornell-box-divergent.json: the same octaves, four
# texture patterns, four code paths among the diffuse materials). Prints
# wavefront/megakernel and sorted/unsorted from the same run, the best frame
# pool of each wavefront variant, and where the time of the best wavefront
# run goes (kernels, sorting, the rest of the host's iteration). When the
# build's artifact runs stage kernels several lanes at a time in vector
# registers (docs/cpu-backend.md, "Lanes in vector registers"), the same
# program compiled a lane at a time runs beside it (its best pool), and the
# summary gives the ratio.
#
# usage: bench/pathtracer/run.sh [build-dir] [options]
#   --size WxHxSPP     image and samples (default 256x256x16, about two
#                      minutes on the 2-core development machine; the issue's figure
#                      is 512x512x64)
#   --octaves N        octaves of the heavy variant (default 16, the most)
#   --frame-pools "P…" wavefront frame pools to try (default "16384 65536 131072")
#   --workers N        CPU workers of every renderer (default: one per core)
#   --repeat N         runs of each configuration; the fastest counts (default 2)
#   --one-pass         render in one pass (at most 2^24 lanes a pass) rather
#                      than in sluice-render's default passes (about 2^20
#                      lanes each on the CPU); at the default size both are
#                      one pass
set -euo pipefail
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$1; shift; fi
size=256x256x16
octaves=16
pools="16384 65536 131072"
workers=0
repeat=2
one_pass=0
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --octaves) octaves=$2; shift 2 ;;
    --frame-pools) pools=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --one-pass) one_pass=1; shift ;;
    *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/../.." && pwd)
render=$build/bin/sluice-render
translate=$build/bin/sluice-translate
reference=$build/bin/pathtracer-reference
artifact=$build/examples/pathtracer/pathtracer.sluice
for f in "$render" "$reference" "$artifact" "$translate"; do
  if [ ! -e "$f" ]; then
    echo "run.sh: $f not found; build sluice-render, pathtracer-reference, pathtracer-artifact and sluice-translate" >&2
    exit 2
  fi
done
IFS=x read -r width height spp <<<"$size"
scenes=$root/examples/pathtracer/scenes
threads=$workers
[ "$threads" = 0 ] && threads=$(nproc)
# The same program, every stage kernel a lane at a time, for the CPU level
# the build's artifact records (backends.cpu.isa; none: generic), read with
# the artifact reader of the tests.
scalar=$(mktemp -d)
trap 'rm -rf "$scalar"' EXIT
cpu_level=$(/usr/bin/python3 "$root/test/Target/HIP/Inputs/artifact-section.py" \
  "$artifact" descriptor | /usr/bin/python3 -c \
  'import json, sys; print(json.load(sys.stdin)["backends"]["cpu"].get("isa", "generic"))')
"$translate" --sluice-to-artifact --sluice-backends=cpu --sluice-cpu=$cpu_level \
  --sluice-cpu-simd=0 "$root/examples/pathtracer/pathtracer.mlir" -o "$scalar/scalar.sluice"
export BENCH_SCALAR=$scalar/scalar.sluice
export BENCH_RENDER=$render BENCH_REFERENCE=$reference BENCH_ARTIFACT=$artifact \
  BENCH_SCENES=$scenes BENCH_W=$width BENCH_H=$height BENCH_SPP=$spp \
  BENCH_OCTAVES=$octaves BENCH_POOLS=$pools BENCH_WORKERS=$workers \
  BENCH_THREADS=$threads BENCH_REPEAT=$repeat BENCH_ONE_PASS=$one_pass
/usr/bin/python3 - <<'PY'
import os, re, subprocess, sys, tempfile
env = os.environ
W, H, SPP = int(env["BENCH_W"]), int(env["BENCH_H"]), int(env["BENCH_SPP"])
pools = [int(p) for p in env["BENCH_POOLS"].split()]
repeat = int(env["BENCH_REPEAT"])
lanes = W * H * SPP
# --one-pass: one pass when it fits a run (2^24 lanes), so --stats describes
# all of it. Otherwise sluice-render's own passes, as a user renders (and
# --stats's device line is the last pass's).
one_pass = env["BENCH_ONE_PASS"] == "1"
pass_spp = SPP if lanes <= (1 << 24) else max(1, (1 << 24) // (W * H))
pass_args = ["--pass-spp", str(pass_spp)] if one_pass else []

def scene(name):
    return os.path.join(env["BENCH_SCENES"], name + ".json")

def render(file, octaves, schedule, pool, sort, artifact=None):
    best = None
    for _ in range(repeat):
        cmd = [env["BENCH_RENDER"], "--artifact", artifact or env["BENCH_ARTIFACT"],
               "--scene", file, "--width", str(W),
               "--height", str(H), "--spp", str(SPP), *pass_args,
               "--schedule", schedule, "--frame-pool", str(pool),
               "--texture-octaves", str(octaves), "--sort", sort,
               "--workers", env["BENCH_WORKERS"], "--stats"]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("run.sh: %s failed:\n%s" % (" ".join(cmd), run.stderr))
        rays = int(re.search(r"^rays traced: (\d+)", run.stdout, re.M).group(1))
        wall = float(re.search(r"^wall time: ([0-9.]+) s", run.stdout, re.M).group(1))
        device = re.search(r"cpu device \(last run\): (.*)$", run.stderr, re.M)
        # The last pass's schedule time, which the device line describes.
        passes = re.findall(r"^pass \d+: .*?, ([0-9.]+) s, \d+ rays", run.stdout, re.M)
        result = {"rays": rays, "wall": wall, "mrays": rays / wall / 1e6,
                  "device": device.group(1) if device else "",
                  "last_pass": float(passes[-1]) if passes else wall}
        if best is None or result["wall"] < best["wall"]:
            best = result
    return best

def reference(file, octaves):
    best = None
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeat):
            cmd = [env["BENCH_REFERENCE"], "--scene", file,
                   "--width", str(W), "--height", str(H), "--spp", str(SPP),
                   "--texture-octaves", str(octaves), "--threads",
                   env["BENCH_THREADS"], "--pfm", os.path.join(tmp, "r.pfm")]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit("run.sh: %s failed:\n%s" % (" ".join(cmd), run.stderr))
            m = re.search(r"(\d+) rays in ([0-9.]+) s", run.stderr)
            result = {"rays": int(m.group(1)), "wall": float(m.group(2))}
            result["mrays"] = result["rays"] / result["wall"] / 1e6
            if best is None or result["wall"] < best["wall"]:
                best = result
    return best

print("path tracer, CPU backend: %dx%dx%d (%d lanes, %s), %s workers"
      % (W, H, SPP, lanes, "passes of %d spp" % pass_spp if one_pass
         else "sluice-render's default passes", env["BENCH_THREADS"]))
print("%-12s %-28s %10s %12s %12s" % ("scene", "renderer", "Mrays/s", "wall s", "rays"))
summary = []
octaves_heavy = int(env["BENCH_OCTAVES"])
for name, file, octaves in (("plain", "cornell-box", 0),
                            ("heavy", "cornell-box", octaves_heavy),
                            ("diverg", "cornell-box-divergent", octaves_heavy)):
    file = scene(file)
    label = name if octaves == 0 else "%s(O=%d)" % (name, octaves)
    rows = {}
    for sort in ("off", "on"):
        tried = {pool: render(file, octaves, "wavefront", pool, sort) for pool in pools}
        pool = max(tried, key=lambda p: tried[p]["mrays"])
        rows[sort] = (pool, tried[pool])
        for p in pools:
            r = tried[p]
            print("%-12s %-28s %10.3f %12.3f %12d" % (label,
                  "wavefront sort=%s pool=%d" % (sort, p), r["mrays"], r["wall"], r["rays"]))
    # The same program a lane at a time, at the best pools.
    scalar = {}
    for sort in ("off", "on"):
        scalar[sort] = render(file, octaves, "wavefront", rows[sort][0], sort,
                              env["BENCH_SCALAR"])
        print("%-12s %-28s %10.3f %12.3f %12d" % (label,
              "1 lane: sort=%s pool=%d" % (sort, rows[sort][0]),
              scalar[sort]["mrays"], scalar[sort]["wall"], scalar[sort]["rays"]))
    # The megakernel at sluice-render's default pool for it (8,192 frames:
    # as fast as 1,024, faster than 65,536, whose frames leave the caches).
    machine = render(file, octaves, "state-machine", 8192, "off")
    print("%-12s %-28s %10.3f %12.3f %12d" % (label, "state-machine (megakernel)",
          machine["mrays"], machine["wall"], machine["rays"]))
    peer = reference(file, octaves)
    print("%-12s %-28s %10.3f %12.3f %12d" % (label, "reference (plain C++)",
          peer["mrays"], peer["wall"], peer["rays"]))
    # Both schedules trace the same paths (section 5); the reference's own
    # rounding flips a few of them.
    if machine["rays"] != rows["off"][1]["rays"] or rows["on"][1]["rays"] != machine["rays"]:
        print("%-12s ERROR: the schedules traced different rays (%d, %d, %d)"
              % (label, rows["off"][1]["rays"], rows["on"][1]["rays"], machine["rays"]))
    summary.append((label, rows, machine, peer, octaves, scalar))

print()
print("%-12s %12s %12s %16s %16s %14s %14s" % ("scene", "best unsorted", "best sorted",
      "wavefront/mega", "sorted/unsorted", "ours/reference", "build/1 lane"))
for label, rows, machine, peer, octaves, scalar in summary:
    (pu, u), (ps, s) = rows["off"], rows["on"]
    best = max(u["mrays"], s["mrays"])
    one_lane = max(scalar["off"]["mrays"], scalar["on"]["mrays"])
    print("%-12s %12s %12s %15.3fx %15.3fx %13.3fx %13.3fx" % (label,
          "%.3f@%d" % (u["mrays"], pu), "%.3f@%d" % (s["mrays"], ps),
          best / machine["mrays"], s["mrays"] / u["mrays"], best / peer["mrays"],
          best / one_lane))
    target = "met" if best >= machine["mrays"] else "NOT met"
    if octaves:
        print("%-12s target (wavefront not slower than the megakernel): %s"
              % ("", target))

print()
print("where the time goes (the fastest run of each wavefront variant, its --stats line%s):"
      % ("" if one_pass else ": its last pass"))
for label, rows, machine, peer, octaves, scalar in summary:
    for sort in ("off", "on"):
        pool, r = rows[sort]
        m = re.search(r"(\d+) dispatches, ([0-9.]+) ms in dispatch\(\) of which "
                      r"([0-9.]+) ms in kernels and ([0-9.]+) ms sorting", r["device"])
        if not m:
            print("  %s sort=%s: %s" % (label, sort, r["device"]))
            continue
        dispatches = int(m.group(1))
        dispatch_ms, kernel_ms, sort_ms = (float(m.group(i)) for i in (2, 3, 4))
        wall_ms = r["last_pass"] * 1e3
        host_ms = wall_ms - kernel_ms
        print("  %-12s sort=%-3s pool=%-6d %6d iterations: wall %8.1f ms = kernels %8.1f ms "
              "(%4.1f%%) + host %7.1f ms (%4.1f%%; sorting %6.1f ms, %.1f us/iteration)"
              % (label, sort, pool, dispatches, wall_ms, kernel_ms,
                 100 * kernel_ms / wall_ms, host_ms, 100 * host_ms / wall_ms,
                 sort_ms, 1e3 * host_ms / max(dispatches, 1)))
PY
