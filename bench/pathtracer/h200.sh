#!/usr/bin/env bash
# The path tracer on the NVIDIA H200 machine (closing-note figures), from the
# files bench/vulkan/aot.sh packs into $1 (default .aot): the Cornell box at
# 512 x 512 x 64 (../shared/scenes/cornell-box.md counts every ray), plain and
# with the heavy-shading variant (--texture-octaves 8), on Vulkan: the
# wavefront schedule (device placement) unsorted and sorted by material, and
# the state-machine schedule (the megakernel). Prints Mrays/s of each, the
# ratios sorted / unsorted and wavefront / megakernel of the same run, the
# device's line
# (device time against the host's launch+wait and dispatch time), and checks
# that the three images of each scene are byte-identical films (sorting and
# the schedule never change a sample; integer film). Then the CPU backend's
# plain wavefront on the same machine, for scale.
#
#   SLUICE_OUT=DIR bash bench/pathtracer/h200.sh [AOT] [--size WxHxSPP] [--pool N]
set -uo pipefail
aot=.aot
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then aot=$1; shift; fi
size=512x512x64
pool=1048576
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --pool) pool=$2; shift 2 ;;
    *) echo "h200.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
IFS=x read -r width height spp <<<"$size"
out=${SLUICE_OUT:-out}
films=$(mktemp -d) # the films only need comparing: not copied back
mkdir -p "$out"
cd "$aot" || exit 2
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
render() { # name backend extra-options...
  local name=$1 backend=$2; shift 2
  ./sluice-render --artifact pathtracer.sluice --scene scenes/cornell-box.json \
    --backend "$backend" --width "$width" --height "$height" --spp "$spp" \
    --frame-pool "$pool" --stats --film "$films/$name.npy" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  local mrays device
  mrays=$(awk '/^Mrays\/s:/ {print $2}' "$out/$name.log" | tail -1)
  device=$(grep -E "^sluice-render: .* device '" "$out/$name.log" | tail -1 | sed 's/^sluice-render: //')
  printf '%-22s %8s Mrays/s (exit %d) %s\n' "$name" "${mrays:-n/a}" "$rc" "$device"
  grep -E '^(wall time|rays traced):' "$out/$name.log" | sed 's/^/    /'
  echo "${mrays:-0}" > "$out/$name.mrays"
}
ratio() { awk -v a="$(cat "$out/$1.mrays")" -v b="$(cat "$out/$2.mrays")" -v t="$3" \
  'BEGIN { if (b > 0) printf "%s: %.2fx\n", t, a / b; else print t ": n/a" }'; }
# Warm-up: the driver compiles the pipelines (the megakernel's takes about
# 0.6 s) into its shader cache once, not inside the first timed render.
for schedule in wavefront state-machine; do
  ./sluice-render --artifact pathtracer.sluice --scene scenes/cornell-box.json --backend vulkan \
    --width 16 --height 16 --spp 1 --schedule $schedule > /dev/null 2>&1
done
for octaves in 0 8; do
  tag=plain; [ "$octaves" != 0 ] && tag=octaves$octaves
  echo "== cornell box $size, $tag, frame pool $pool, vulkan"
  render "$tag-wavefront" vulkan --texture-octaves "$octaves" --sort off --scheduler-placement device
  render "$tag-sorted" vulkan --texture-octaves "$octaves" --sort on --scheduler-placement device
  render "$tag-megakernel" vulkan --texture-octaves "$octaves" --schedule state-machine
  # All samples in one pass: the per-pass host work (machine words, film)
  # once instead of 16 times.
  render "$tag-megakernel-1pass" vulkan --texture-octaves "$octaves" --schedule state-machine --pass-spp "$spp"
  ratio "$tag-sorted" "$tag-wavefront" "sorted / unsorted"
  ratio "$tag-wavefront" "$tag-megakernel" "wavefront / megakernel"
  ratio "$tag-megakernel-1pass" "$tag-wavefront" "megakernel (one pass) / wavefront"
  for other in sorted megakernel megakernel-1pass; do
    if cmp -s "$films/$tag-wavefront.npy" "$films/$tag-$other.npy"; then
      echo "film $tag-$other == $tag-wavefront (byte-identical)"
    else
      echo "film $tag-$other != $tag-wavefront"
    fi
  done
done
echo "== cornell box $size, plain, cpu backend ($(nproc) cores)"
render plain-cpu cpu --sort off
