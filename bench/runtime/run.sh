#!/usr/bin/env bash
# Runs the runtime benchmarks and prints each figure next to its target, and
# the arena next to malloc/free from the same run, as ratios.
# usage: bench/runtime/run.sh [build-dir]   (default: build)
set -euo pipefail
build=${1:-build}
bench="$build/bench/runtime/sluice-runtime-bench"
if [ ! -x "$bench" ]; then
  echo "run.sh: $bench not found; build the sluice-runtime-bench target" >&2
  exit 2
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_format=json --benchmark_out="$out" --benchmark_out_format=json \
  >/dev/null
python3 - "$out" <<'PY'
import json, sys
runs = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") == "median":
        runs[b["run_name"]] = b
def ns(name):
    b = runs[name]
    scale = {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
    return b["cpu_time"] * scale
print(f"{'benchmark':34} {'median':>12} {'target':>12} {'ratio':>8}")
def row(label, value, target, ratio):
    print(f"{label:34} {value:>12} {target:>12} {ratio:>8}")
a = ns("BM_AdmissionDecision")
row("admission decision", f"{a:.2f} ns", "< 20 ns", f"{a/20:.3f}x")
r = ns("BM_AdmissionRuleOnly")
row("admission rule only", f"{r:.2f} ns", "< 20 ns", f"{r/20:.3f}x")
s = ns("BM_SchedulerIteration")
row("scheduler iteration (16 st, 4 own)", f"{s:.1f} ns", "< 2000 ns", f"{s/2000:.3f}x")
for touch in (0, 1):
    for size in (256, 4000, 4096, 72 * 1024):
        name = f"{size}/{touch}"
        arena = ns(f"BM_ArenaBlock/{name}")
        peer = ns(f"BM_MallocFreeBlock/{name}")
        allocs = runs[f"BM_ArenaBlock/{name}"]["heap_allocs_per_block"]
        what = "alloc+touch" if touch else "alloc only"
        row(f"arena 64x{size} B ({what})", f"{arena:.1f} ns", ">= 10x",
            f"{peer/arena:.1f}x")
        row("  peer malloc/free", f"{peer:.1f} ns", "", "")
        row("  arena heap allocs per block", f"{allocs:g}", "0", "")
PY
