#!/usr/bin/env python3
"""The GPU targets of issues 12 (path tracer) and 14 (device-resident
scheduling) against one run's figures, as a table: target, backend,
measured, met or not.

  python3 bench/targets.py PT_DIR [--placement COMPARE.txt] [--sorts "intersect on"]

PT_DIR is the SLUICE_OUT folder of bench/pathtracer/h200.sh (its NAME.mrays
files: <backend>-plain / -octaves16 / -divergent16, each -wavefront,
-sorted-<sort>, -megakernel and -host); COMPARE.txt the output of
`bench/placement/compare.py --no-pathtracer` (its shadow-pool table: the
median row of each backend when it ran several rounds, else the backend's
last row). Every figure is one run's; the rows say which. A figure that is
missing (a backend not run, a failed render: 0 Mrays/s) is "n/a", never met.

The targets (the issues' words):
  12  the wavefront beats the hand-written queue wavefront (0.74 Grays/s on
      the H200), plain scene, device placement, best of unsorted and sorted
  12  the best schedule within 0.8x of the hand-written megakernel (2.40
      Grays/s): at least 1,920 Mrays/s (per backend, and on any backend)
  12  sorting pays (more Mrays/s than unsorted) on both scenes: plain and
      heavy (16 octaves), the best sorted variant
  14  the device placement at least 1.5x the host placement's Mrays/s
  14  the wavefront within 1.25x of the megakernel's time: wavefront /
      megakernel Mrays/s at least 0.8 (plain scene, best wavefront)
  14  on the divergent variant, the wavefront faster than the megakernel
  14  overhead per iteration (shadow pool) at most 4 us on hip, 10 us on
      Vulkan
  14  the shadow pool at least 5x faster end to end than the host placement
      on Vulkan
"""
import argparse
import os
import sys

HANDWRITTEN_WAVEFRONT = 740.0  # Mrays/s, issue 12
HANDWRITTEN_MEGAKERNEL = 2400.0
OVERHEAD_LIMIT = {"hip": 4.0, "vulkan": 10.0}


def read_mrays(folder, name):
    """The Mrays/s of render NAME, or None when missing or failed (0)."""
    try:
        with open(os.path.join(folder, name + ".mrays")) as f:
            value = float(f.read().strip() or 0)
    except (OSError, ValueError):
        return None
    return value if value > 0 else None


def read_placement(path):
    """backend -> (device overhead us/iter, speed-up) from compare.py's table."""
    rows = {}
    medians = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 11 or not line.startswith("| "):
                continue
            backend = cells[0]
            try:
                overhead = float(cells[8])
                speedup = float(cells[9].rstrip("x"))
            except ValueError:
                continue  # the header
            if "(median" in backend:
                medians[backend.split()[0]] = (overhead, speedup)
            else:
                rows[backend] = (overhead, speedup)
    rows.update(medians)
    return rows


def fmt(value, suffix=""):
    return "n/a" if value is None else "%.2f%s" % (value, suffix)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pt_dir", help="bench/pathtracer/h200.sh's SLUICE_OUT folder")
    ap.add_argument("--placement", help="bench/placement/compare.py's output")
    ap.add_argument("--sorts", default="on intersect shade",
                    help="the --sort values h200.sh ran (its --sorts)")
    ap.add_argument("--backends", default="hip,vulkan")
    opts = ap.parse_args()
    if not os.path.isdir(opts.pt_dir):
        print("targets.py: no folder %s" % opts.pt_dir, file=sys.stderr)
        return 2
    placement = {}
    if opts.placement:
        try:
            placement = read_placement(opts.placement)
        except OSError as error:
            print("targets.py: cannot read %s: %s" % (opts.placement, error), file=sys.stderr)
            return 2
    sorts = opts.sorts.split()
    rows = []

    def add(issue, target, backend, measured, met):
        rows.append((issue, target, backend, measured,
                     "n/a" if met is None else ("yes" if met else "**no**")))

    overall = None  # Sluice's best schedule on any backend: (Mrays/s, backend)
    for backend in opts.backends.split(","):
        def get(scene, run):
            return read_mrays(opts.pt_dir, "%s-%s-%s" % (backend, scene, run))

        def best_sorted(scene):
            values = [(get(scene, "sorted-" + s), s) for s in sorts]
            values = [v for v in values if v[0] is not None]
            return max(values) if values else (None, None)

        def ratio(a, b):
            return None if a is None or b is None else a / b

        plain = get("plain", "wavefront")
        plain_sorted, plain_sort = best_sorted("plain")
        best_wave = max([v for v in (plain, plain_sorted) if v is not None], default=None)
        mega = get("plain", "megakernel")
        add(12, "wavefront > 740 Mrays/s (hand-written queue wavefront)", backend,
            fmt(best_wave, " Mrays/s"), None if best_wave is None else best_wave > HANDWRITTEN_WAVEFRONT)
        best = max([v for v in (best_wave, mega) if v is not None], default=None)
        if best is not None and (overall is None or best > overall[0]):
            overall = (best, backend)
        add(12, "best schedule >= 0.8 x 2,400 Mrays/s", backend, fmt(best, " Mrays/s"),
            None if best is None else best >= 0.8 * HANDWRITTEN_MEGAKERNEL)
        for scene, label in (("plain", "plain"), ("octaves16", "heavy, 16 octaves")):
            unsorted = get(scene, "wavefront")
            value, sort = best_sorted(scene)
            r = ratio(value, unsorted)
            add(12, "sorting pays, %s scene (best sorted / unsorted > 1)" % label, backend,
                fmt(r, "x") + ("" if sort is None else " (--sort %s)" % sort),
                None if r is None else r > 1.0)
        r = ratio(plain, get("plain", "host"))
        add(14, "device placement >= 1.5 x host placement (plain)", backend, fmt(r, "x"),
            None if r is None else r >= 1.5)
        r = ratio(best_wave, mega)
        add(14, "wavefront within 1.25x of the megakernel's time (rate >= 0.8x)", backend,
            fmt(r, "x"), None if r is None else r >= 0.8)
        divergent = max([v for v in (get("divergent16", "wavefront"),
                                     best_sorted("divergent16")[0]) if v is not None],
                        default=None)
        r = ratio(divergent, get("divergent16", "megakernel"))
        add(14, "divergent variant: wavefront faster than the megakernel", backend,
            fmt(r, "x"), None if r is None else r > 1.0)
        if backend in placement:
            overhead, speedup = placement[backend]
            add(14, "shadow pool overhead <= %g us/iteration" % OVERHEAD_LIMIT.get(backend, 0),
                backend, fmt(overhead, " us"), overhead <= OVERHEAD_LIMIT.get(backend, 0))
            if backend == "vulkan":
                add(14, "shadow pool >= 5x the host placement", backend, fmt(speedup, "x"),
                    speedup >= 5.0)
        elif opts.placement:
            add(14, "shadow pool (compare.py)", backend, "n/a", None)
    # The issue asks it of Sluice's best schedule, whichever backend runs it.
    add(12, "best schedule >= 0.8 x 2,400 Mrays/s", "any",
        "n/a" if overall is None else "%.2f Mrays/s (%s)" % overall,
        None if overall is None else overall[0] >= 0.8 * HANDWRITTEN_MEGAKERNEL)
    print("| issue | target | backend | measured | met |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %s | %s | %s |" % row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
