#!/usr/bin/env bash
# Two path-tracer artifacts side by side on one machine (the NVIDIA machine:
# hip and Vulkan), in alternating rounds so that drift hits both alike:
# Mrays/s of the megakernel (state-machine schedule) and of the wavefront
# (device placement, unsorted) at 512 x 512 x 64, plain and heavy (8
# octaves), for an A/B of a compiler change (for example an artifact built
# before it, kept as base.sluice, against the new one). Prints the medians
# and the ratio new / base per configuration.
#
#   SLUICE_OUT=DIR bash ab.sh AOT BASE.sluice NEW.sluice [--rounds N] [--backends "hip vulkan"]
#                             [--configs "megakernel wavefront sorted"] [--octaves "0 8"]
#                             [--size WxHxSPP] [--base-render BIN] [--new-render BIN]
#
# (sorted: the wavefront sorted by its sort_by keys; default: megakernel and
# wavefront.) --base-render / --new-render: the sluice-render each side runs
# (default AOT/sluice-render for both), for an A/B of a runtime change: the
# same artifact as BASE and NEW, two builds of sluice-render.
set -uo pipefail
aot=${1:?usage: ab.sh AOT BASE NEW}
base=${2:?usage: ab.sh AOT BASE NEW}
new=${3:?usage: ab.sh AOT BASE NEW}
shift 3
rounds=3
backends="hip vulkan"
wanted="megakernel wavefront"
octave_list="0 8"
size=512x512x64
base_render=$aot/sluice-render
new_render=$aot/sluice-render
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --backends) backends=$2; shift 2 ;;
    --configs) wanted=$2; shift 2 ;;
    --octaves) octave_list=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --base-render) base_render=$2; shift 2 ;;
    --new-render) new_render=$2; shift 2 ;;
    *) echo "ab.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
out=${SLUICE_OUT:-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$aot/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
IFS=x read -r width height spp <<<"$size"
size=(--width "$width" --height "$height" --spp "$spp")
render() { # sluice-render artifact backend options... -> Mrays/s
  "$1" --artifact "$2" --scene "$aot/scenes/cornell-box.json" --backend "$3" \
    "${size[@]}" "${@:4}" 2>&1 | awk '/^Mrays\/s:/ {print $2}' | tail -1
}
# Warm-up: NVRTC compiles each artifact's kernels once into its cache, the
# Vulkan driver its pipelines, the device placement's shaders included (on
# NVIDIA the first run of a binary whose pipelines are not in the driver's
# shader disk cache rendered the Vulkan wavefront at a third of its rate:
# docs/runtime.md, "The device placement's arrays in device memory").
for side in "$base_render|$base" "$new_render|$new"; do
  renderer=${side%%|*}; artifact=${side#*|}
  for backend in $backends; do
    for schedule in "--schedule wavefront" "--schedule state-machine" \
        "--scheduler-placement device --sort off" "--scheduler-placement device --sort on"; do
      # shellcheck disable=SC2086
      "$renderer" --artifact "$artifact" --scene "$aot/scenes/cornell-box.json" \
        --backend "$backend" --width 64 --height 64 --spp 4 $schedule > /dev/null 2>&1
    done
  done
done
configs=()
for name in $wanted; do
  case "$name" in
    megakernel) configs+=("megakernel|--schedule state-machine") ;; # sluice-render's pool
    wavefront) configs+=("wavefront|--sort off --scheduler-placement device --frame-pool 1048576") ;;
    sorted) configs+=("sorted|--sort on --scheduler-placement device --frame-pool 1048576") ;;
    *) echo "ab.sh: unknown configuration '$name'" >&2; exit 2 ;;
  esac
done
results=$out/ab-$(basename "$new" .sluice).txt
: > "$results"
for round in $(seq "$rounds"); do
  for backend in $backends; do
    for octaves in $octave_list; do
      for config in "${configs[@]}"; do
        name=${config%%|*}; options=${config#*|}
        for which in base new; do
          artifact=$base renderer=$base_render
          [ $which = new ] && artifact=$new renderer=$new_render
          # shellcheck disable=SC2086
          m=$(render "$renderer" "$artifact" "$backend" --texture-octaves $octaves $options)
          echo "$backend octaves$octaves $name $which ${m:-0}" >> "$results"
        done
      done
    done
  done
done
python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    backend, scene, name, which, m = line.split()
    runs[(backend, scene, name, which)].append(float(m))
print(f"{'configuration':36} {'base':>9} {'new':>9} {'new/base':>9}  (Mrays/s, medians)")
for key in sorted({k[:3] for k in runs}):
    b = statistics.median(runs[key + ("base",)])
    n = statistics.median(runs[key + ("new",)])
    print(f"{' '.join(key):36} {b:9.1f} {n:9.1f} {n / b if b else 0:9.3f}  {runs[key + ('new',)]}")
PY
