#!/usr/bin/env python3
"""Host placement against device placement of the wavefront scheduler, side
by side in one run (issue 14 §4, DESIGN.md §2.4), from the files
bench/vulkan/aot.sh packs (default .aot):

  the benchmark copy of the shadow pool (bench/inputs/shadow_pool_stats.mlir:
  262,144 lanes, frame pool 1,024) through sluice-run-artifact, and the path
  tracer on the benchmark scene (512 x 512 x 64, frame pool 65,536) through
  sluice-render, on each backend given (default hip vulkan).

Both placements make the same decisions (scripts/check-placements), so they
run the same dispatch sequence; the host placement's device time is the
stage-kernel time of that sequence. The device placement keeps the
per-invocation arrays (invocation lists, lane ids, outcomes, publish
records, admission windows) in device memory, the host placement in memory
the host reads fast, which the kernels reach over the bus; so the stage
kernels' time comes from a third run, the host placement with
SLUICE_KERNEL_ARRAYS=device (its arrays in device memory: the same
kernels on the same memory as the device placement's). Per placement: wall
per iteration, and the overhead per iteration, (wall - stage-kernel time) /
iterations (the host placement's against its own kernels' time, the device
placement's against the third run's); the GPU share of the host
placement's wall; the device placement's speed-up.
Where a backend has no device placement the run says so and falls back to
the host placement (its line shows the reason).

The host placement's stage-kernel time varies from run to run (on the H200
by about 15%), and the overhead with it: --rounds N measures both placements
N times, alternating, and adds each backend's median row.

--vulkan-unfused adds, on Vulkan, the device placement without the fused
loop (SLUICE_VULKAN_FUSED=0) in the same round, as a row of its own.

  python3 bench/placement/compare.py [AOT] [--backends hip,vulkan] [--repeat 5]
                                     [--rounds 3] [--no-pathtracer]
                                     [--vulkan-unfused]
"""
import argparse
import os
import re
import subprocess
import sys


def run(cmd, env):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    return p.returncode, p.stdout.decode(errors="replace")


def number(pattern, text, default=None):
    m = re.search(pattern, text, re.M)
    return float(m.group(1)) if m else default


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("aot", nargs="?", default=".aot")
    ap.add_argument("--backends", default="hip,vulkan")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1,
                    help="host and device placement this many times, alternating; "
                         "each backend's median row too")
    ap.add_argument("--no-pathtracer", action="store_true")
    ap.add_argument("--no-shadow-pool", action="store_true",
                    help="the path tracer only")
    ap.add_argument("--vulkan-unfused", action="store_true",
                    help="on Vulkan, the device placement also without the fused loop "
                         "(SLUICE_VULKAN_FUSED=0), a row of its own")
    ap.add_argument("--pt-frame-pool", type=int, default=65536,
                    help="the path tracer's frame pool (default 65536)")
    ap.add_argument("--pt-texture-octaves", type=int, default=0,
                    help="0: the plain scene; N: the heavy-shading variant")
    opts = ap.parse_args()
    aot = os.path.abspath(opts.aot)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(
        [os.path.join(aot, "lib"), "/usr/local/cuda/lib64", "/usr/local/nvidia/lib64",
         env.get("LD_LIBRARY_PATH", "")])
    rows = []
    shadow_backends = [] if opts.no_shadow_pool else opts.backends.split(",")
    for backend, round_ in [(b, r) for r in range(max(opts.rounds, 1))
                            for b in shadow_backends]:
        results = {}
        # "kernels": the host placement on the device placement's memory;
        # "unfused": the device placement without Vulkan's fused loop
        # (docs/runtime.md "The fused loop").
        placements = ["host", "kernels", "device"]
        if opts.vulkan_unfused and backend == "vulkan":
            placements.append("unfused")
        for placement in placements:
            cmd = [os.path.join(aot, "sluice-run-artifact"), os.path.join(aot, "shadow_pool.sluice"),
                   "--backend=" + backend, "--lanes=262144", "--frame-pool=1024", "--stats",
                   "--repeat=%d" % opts.repeat,
                   "--scheduler-placement=" + {"kernels": "host", "unfused": "device"}.get(
                       placement, placement)]
            rc, out = run(cmd, dict(env, SLUICE_KERNEL_ARRAYS="device") if placement == "kernels"
                          else dict(env, SLUICE_VULKAN_FUSED="0") if placement == "unfused"
                          else env)
            wall = number(r"fastest of \d+ runs: ([0-9.]+) ms wall", out)
            iterations = number(r"^iterations: (\d+)", out)
            gpu = number(r"([0-9.]+) ms of (?:GPU|device) time", out)
            where = (re.findall(r"scheduler placement: (.*)", out) or ["?"])[0]
            results[placement] = (rc, wall, iterations, gpu, where)
            print("shadow pool %s %s (round %d): exit %d, %s ms wall, %s iterations, %s ms device "
                  "time; placement %s" % (backend, placement, round_ + 1, rc, wall, iterations, gpu,
                                          where))
            if rc != 0:
                print("\n".join(out.splitlines()[-8:]))
        (hrc, hwall, hit, hgpu, _), (drc, dwall, dit, dgpu, dwhere) = results["host"], results["device"]
        krc, kwall, kit, kgpu, _ = results["kernels"]
        if (hrc == 0 and drc == 0 and krc == 0 and hwall and dwall and kwall and hit
                and hgpu is not None and kgpu is not None):
            rows.append((backend, hwall, dwall, hit, dit, hgpu, kwall, kgpu, dwhere))
            if "unfused" in results:
                urc, uwall, uit, _, uwhere = results["unfused"]
                if urc == 0 and uwall and uit:
                    rows.append((backend + " SLUICE_VULKAN_FUSED=0", hwall, uwall, hit, uit, hgpu,
                                 kwall, kgpu, uwhere))
    if rows:
        print("\n| backend | iterations | host: µs/iter | host: overhead µs/iter | host: GPU share "
              "| host, arrays in device memory: µs/iter | stage kernels (device memory) µs/iter "
              "| device: µs/iter | device: overhead µs/iter | speed-up | device placement |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")

        def cells(backend, hwall, dwall, hit, dit, hgpu, kwall, kgpu, dwhere):
            return (backend, hit, hwall * 1e3 / hit, (hwall - hgpu) * 1e3 / hit,
                    100.0 * hgpu / hwall, kwall * 1e3 / hit, kgpu * 1e3 / hit,
                    dwall * 1e3 / dit, (dwall - kgpu) * 1e3 / dit, hwall / dwall, dwhere)
        line = "| %s | %d | %.2f | %.2f | %.0f%% | %.2f | %.2f | %.2f | %.2f | %.2fx | %s |"
        for row in rows:
            print(line % cells(*row))
        if opts.rounds > 1:
            for backend in dict.fromkeys(row[0] for row in rows):
                mine = [cells(*row) for row in rows if row[0] == backend]
                if mine:
                    median = [sorted(column)[len(column) // 2] for column in zip(*mine)]
                    median[0] = backend + " (median of %d)" % len(mine)
                    median[10] = mine[0][10]
                    print(line % tuple(median))
    if opts.no_pathtracer:
        return 0
    # Where the device placement's time goes (its trace: "plan" is block 0
    # deciding and routing, a stage event the dispatch with both barriers),
    # and a large dispatch (frame pool 65,536: the grid sorts) against the
    # host placement's iteration log.
    for backend in shadow_backends:
        trace = os.path.join(aot, "placement-%s.json" % backend)
        rc, out = run([os.path.join(aot, "sluice-run-artifact"), os.path.join(aot, "shadow_pool.sluice"),
                       "--backend=" + backend, "--lanes=262144", "--frame-pool=1024",
                       "--scheduler-placement=device", "--trace=" + trace], env)
        if rc == 0 and os.path.exists(trace):
            import json
            with open(trace) as fh:
                events = json.load(fh)
            events = events["traceEvents"] if isinstance(events, dict) else events
            plan = sum(e.get("dur", 0) for e in events if e.get("name") == "plan")
            stages = sum(e.get("dur", 0) for e in events if e.get("cat") == "dispatch")
            n = sum(1 for e in events if e.get("name") == "plan")
            if n:
                print("shadow pool %s device trace: %d iterations, decide+route %.2f µs/iter, "
                      "dispatch %.2f µs/iter" % (backend, n, plan / n, stages / n))
        logs = {}
        for placement in ("host", "device"):
            log = os.path.join(aot, "large-%s-%s.log" % (backend, placement))
            rc, out = run([os.path.join(aot, "sluice-run-artifact"), os.path.join(aot, "shadow_pool.sluice"),
                           "--backend=" + backend, "--lanes=262144", "--frame-pool=65536",
                           "--scheduler-placement=" + placement, "--iteration-log=" + log], env)
            logs[placement] = open(log).read() if rc == 0 and os.path.exists(log) else None
        print("shadow pool %s frame pool 65536: iteration logs %s (%s iterations)" % (
            backend, "equal" if logs["host"] and logs["host"] == logs["device"] else "DIFFER",
            len((logs["host"] or "").splitlines())))
    print()
    for backend in opts.backends.split(","):
        configs = [(["--scheduler-placement", p, "--sort", s,
                     "--film", os.path.join(aot, "film-%s-%s-%s.npy" % (backend, p, s)),
                     "--iteration-log", os.path.join(aot, "pt-%s-%s-%s.log" % (backend, p, s))],
                    "wavefront, %s placement, sort %s" % (p, s))
                   for p in ("host", "device") for s in ("on", "off")]
        # Sorting into one bucket keeps the frame order but does all the
        # sorting work: what the sort costs, apart from what the order does.
        configs.append((["--scheduler-placement", "device", "--sort", "on", "--sort-buckets", "1"],
                        "wavefront, device placement, sort on into 1 bucket"))
        # (Sort partitions against each other and against unsorted:
        # bench/pathtracer/sorting.py.)
        configs.append((["--schedule", "state-machine", "--pass-spp", "64"], "megakernel (state machine)"))
        # Warm-up: the driver compiles the pipelines of both schedules and
        # placements (and the device placement's shaders) once, not inside
        # the first timed render (on the H200 that cost the first Vulkan
        # render, the device placement sorted, about 20%).
        for extra in (["--scheduler-placement", "device", "--sort", "on"],
                      ["--schedule", "state-machine"]):
            run([os.path.join(aot, "sluice-render"), "--artifact", os.path.join(aot, "pathtracer.sluice"),
                 "--scene", os.path.join(aot, "scenes", "cornell-box.json"), "--backend", backend,
                 "--width", "16", "--height", "16", "--spp", "1"] + extra, env)
        for extra, what in configs:
            cmd = [os.path.join(aot, "sluice-render"), "--artifact", os.path.join(aot, "pathtracer.sluice"),
                   "--scene", os.path.join(aot, "scenes", "cornell-box.json"), "--backend", backend,
                   "--width", "512", "--height", "512", "--spp", "64",
                   "--frame-pool", str(opts.pt_frame_pool),
                   "--texture-octaves", str(opts.pt_texture_octaves), "--stats"] + extra
            rc, out = run(cmd, env)
            mrays = number(r"^Mrays/s:\s*([0-9.]+)", out)
            where = (re.findall(r"scheduler placement: (.*)", out) or [""])[0]
            print("path tracer %s %s: exit %d, %s Mrays/s%s" % (
                backend, what, rc, mrays, "; placement " + where if where else ""))
            if rc != 0:
                print("\n".join(out.splitlines()[-8:]))
        # Same decisions, same film: both placements, both sort settings.
        def read(path):
            return open(path, "rb").read() if os.path.exists(path) else None
        for s in ("on", "off"):
            host = read(os.path.join(aot, "pt-%s-host-%s.log" % (backend, s)))
            device = read(os.path.join(aot, "pt-%s-device-%s.log" % (backend, s)))
            print("path tracer %s sort %s: iteration logs (first pass) %s" % (
                backend, s, "equal" if host and host == device else "DIFFER"))
        films = {(p, s): read(os.path.join(aot, "film-%s-%s-%s.npy" % (backend, p, s)))
                 for p in ("host", "device") for s in ("on", "off")}
        first = films[("host", "on")]
        print("path tracer %s films: %s" % (backend, "all %d byte-identical" % len(films) if first and all(
            f == first for f in films.values()) else "DIFFER"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
