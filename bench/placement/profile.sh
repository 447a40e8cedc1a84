#!/usr/bin/env bash
# Where an iteration of the device placement goes, on a GPU machine (issue 14
# §4; docs/runtime.md "Where an iteration goes" for hip and "Where the
# scheduler dispatch spends its time" for Vulkan), from the files
# bench/vulkan/aot.sh packs:
#
#   bash bench/placement/profile.sh [AOT] [BACKENDS]    (defaults .aot, "hip vulkan")
#
# Per backend, on the shadow pool's benchmark copy (frame pool 1,024, sorted
# and unsorted) and the path tracer on the benchmark scene (frame pool
# 65,536, sorted and unsorted): the scheduler's profile line
# (SLUICE_HIP_PROFILE=1: block 0's mean cycles per part of an iteration;
# SLUICE_VULKAN_PROFILE=1: the scheduler dispatch's), then, from the device
# placement's trace (--trace), the mean iteration period and its split into
# "plan" (the decision to the stage's arguments) and the stage with its
# routing; and the path tracer's trace split per stage (stages.py).
# SLUICE_PROFILE_LANES (default 262144) and SLUICE_PROFILE_SIZE
# (the path tracer's width and height, default 512) shrink the runs for a
# smoke test on a small device.
set -uo pipefail
aot=${1:-.aot}
backends=${2:-hip vulkan}
lanes=${SLUICE_PROFILE_LANES:-262144}
size=${SLUICE_PROFILE_SIZE:-512}
export LD_LIBRARY_PATH=$aot/lib:/usr/local/cuda/lib64:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SLUICE_HIP_CACHE_DIR=${SLUICE_HIP_CACHE_DIR:-$(mktemp -d)}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The trace's per-iteration means: period (from one "plan" to the next),
# plan, and the stage dispatches with their routing.
split() { # trace label
  python3 - "$1" "$2" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
plans = sorted(e["ts"] for e in events if e.get("ph") == "X" and e.get("name") == "plan")
plan = [e["dur"] for e in events if e.get("ph") == "X" and e.get("name") == "plan"]
stage = [e["dur"] for e in events if e.get("ph") == "X" and e.get("cat") == "dispatch"]
if len(plans) < 2:
    print("%s: no device-placement iterations in the trace" % sys.argv[2])
else:
    print("%s: %d iterations, period %.2f us, plan %.2f us, stage and routing %.2f us"
          % (sys.argv[2], len(plans), (plans[-1] - plans[0]) / (len(plans) - 1),
             sum(plan) / len(plan), sum(stage) / max(len(stage), 1)))
PY
}

for backend in $backends; do
  if [ "$backend" = hip ]; then variable=SLUICE_HIP_PROFILE; else variable=SLUICE_VULKAN_PROFILE; fi
  for sort in on off; do
    label="shadow pool $backend, $lanes lanes, frame pool 1024, sort $sort"
    out=$(env $variable=1 "$aot/sluice-run-artifact" "$aot/shadow_pool.sluice" --backend=$backend \
      --lanes=$lanes --frame-pool=1024 --sort=$sort --stats --scheduler-placement=device 2>&1)
    rc=$?
    echo "$label: exit $rc; $(grep -o -E 'scheduler (dispatch )?profile: .*' <<< "$out" | head -1)"
    [ $rc -eq 0 ] || { tail -3 <<< "$out"; continue; }
    "$aot/sluice-run-artifact" "$aot/shadow_pool.sluice" --backend=$backend --lanes=$lanes \
      --frame-pool=1024 --sort=$sort --scheduler-placement=device --trace="$scratch/trace.json" > /dev/null 2>&1 &&
      split "$scratch/trace.json" "$label, trace"
  done
  for sort in on off; do
    label="path tracer $backend, ${size}x${size}x64, frame pool 65536, sort $sort"
    out=$(env $variable=1 "$aot/sluice-render" --artifact "$aot/pathtracer.sluice" \
      --scene "$aot/scenes/cornell-box.json" --backend $backend --width $size --height $size --spp 64 \
      --frame-pool 65536 --stats --scheduler-placement device --sort $sort 2>&1)
    rc=$?
    echo "$label: exit $rc, $(grep -o -E '^Mrays/s: [0-9.]+' <<< "$out"); $(grep -o -E 'scheduler (dispatch )?profile: .*' <<< "$out" | head -1)"
    [ $rc -eq 0 ] || tail -3 <<< "$out"
  done
  # Where the path tracer's wall goes, stage by stage (unsorted, from a
  # trace: on Vulkan its timestamps slow the run down).
  label="path tracer $backend, ${size}x${size}x64, frame pool 65536, sort off"
  "$aot/sluice-render" --artifact "$aot/pathtracer.sluice" --scene "$aot/scenes/cornell-box.json" \
    --backend $backend --width $size --height $size --spp 64 --frame-pool 65536 \
    --scheduler-placement device --sort off --trace "$scratch/trace.json" > /dev/null 2>&1 &&
    python3 "$(dirname "$0")/stages.py" "$scratch/trace.json" "$label, trace"
done
