#!/usr/bin/env bash
# The path tracer on the NVIDIA H200 machine (closing-note figures for issues
# 12 and 14), from the files bench/vulkan/aot.sh packs into $1 (default
# .aot): the Cornell box at 512 x 512 x 64 (../shared/scenes/cornell-box.md
# counts every ray), plain, with the heavy-shading variant (--texture-octaves,
# default 16) and with the divergent-shading variant (the same octaves on
# scenes/cornell-box-divergent.json, whose diffuse materials name four
# texture patterns: docs/pathtracer.md section 9), on each backend given
# (default hip and vulkan): the wavefront schedule on the device placement
# unsorted and sorted (--sorts), the state-machine schedule (the
# megakernel), and the wavefront on the host placement. Every run takes sluice-render's default frame pool
# for its schedule and backend (--pool N sets the wavefront's) and its
# default pass (one pass on a GPU). Prints Mrays/s of each, the device's
# line (device time against the host's time in dispatch()), the ratios
# sorted / unsorted, wavefront / megakernel and device / host placement of
# the same run, and checks that the four films of each scene and backend are
# byte-identical (sorting, the schedule and the placement never change a
# sample; integer film). Then the CPU backend's plain wavefront on the same
# machine, for scale.
#
#   SLUICE_OUT=DIR bash bench/pathtracer/h200.sh [AOT] [--size WxHxSPP]
#       [--backends hip,vulkan] [--octaves N] [--pool N] [--sorts "on intersect shade"]
#
# --sorts: the --sort values of the sorted wavefront runs (default: both
# stages with a key, "intersect" by the ray key alone, "shade" by the
# material alone).
set -uo pipefail
aot=.aot
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then aot=$1; shift; fi
size=512x512x64
backends=hip,vulkan
octaves=16
pool=()
sorts="on intersect shade"
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --backends) backends=$2; shift 2 ;;
    --octaves) octaves=$2; shift 2 ;;
    --pool) pool=(--frame-pool "$2"); shift 2 ;;
    --sorts) sorts=$2; shift 2 ;;
    *) echo "h200.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
IFS=x read -r width height spp <<<"$size"
out=${SLUICE_OUT:-out}
films=$(mktemp -d) # the films only need comparing: not copied back
trap 'rm -rf "$films"' EXIT
mkdir -p "$out"
cd "$aot" || exit 2
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scene=cornell-box
render() { # name backend extra-options...
  local name=$1 backend=$2; shift 2
  ./sluice-render --artifact pathtracer.sluice --scene "scenes/$scene.json" \
    --backend "$backend" --width "$width" --height "$height" --spp "$spp" \
    --stats --film "$films/$name.npy" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  local mrays device
  mrays=$(awk '/^Mrays\/s:/ {print $2}' "$out/$name.log" | tail -1)
  device=$(grep -E "^sluice-render: .* device" "$out/$name.log" | tail -1 | sed 's/^sluice-render: //')
  printf '%-30s %8s Mrays/s (exit %d) %s\n' "$name" "${mrays:-n/a}" "$rc" "${device:0:160}"
  grep -E '^wall time:' "$out/$name.log" | sed 's/^/    /'
  echo "${mrays:-0}" > "$out/$name.mrays"
}
ratio() { awk -v a="$(cat "$out/$1.mrays")" -v b="$(cat "$out/$2.mrays")" -v t="$3" \
  'BEGIN { if (b > 0) printf "  %s: %.2fx\n", t, a / b; else print "  " t ": n/a" }'; }
# Warm-up: the driver compiles the pipelines (the megakernel's takes about
# 0.6 s on Vulkan, NVRTC the hip kernels) into its cache once, not inside the
# first timed render.
for backend in ${backends//,/ }; do
  for schedule in wavefront state-machine; do
    ./sluice-render --artifact pathtracer.sluice --scene scenes/cornell-box.json --backend "$backend" \
      --width 16 --height 16 --spp 1 --schedule $schedule --scheduler-placement device > /dev/null 2>&1
  done
done
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'
for backend in ${backends//,/ }; do
  for variant in plain heavy divergent; do
    case $variant in
      plain) scene=cornell-box o=0 tag=$backend-plain ;;
      heavy) scene=cornell-box o=$octaves tag=$backend-octaves$octaves ;;
      divergent) scene=cornell-box-divergent o=$octaves tag=$backend-divergent$octaves ;;
    esac
    echo "== $scene $size, $tag"
    render "$tag-wavefront" "$backend" --texture-octaves "$o" --sort off --scheduler-placement device "${pool[@]}"
    for sort in $sorts; do
      render "$tag-sorted-$sort" "$backend" --texture-octaves "$o" --sort "$sort" --scheduler-placement device "${pool[@]}"
    done
    render "$tag-megakernel" "$backend" --texture-octaves "$o" --schedule state-machine
    render "$tag-host" "$backend" --texture-octaves "$o" --sort off --scheduler-placement host "${pool[@]}"
    for sort in $sorts; do
      ratio "$tag-sorted-$sort" "$tag-wavefront" "sorted ($sort) / unsorted"
      ratio "$tag-sorted-$sort" "$tag-megakernel" "sorted ($sort) / megakernel"
    done
    ratio "$tag-wavefront" "$tag-megakernel" "wavefront / megakernel"
    ratio "$tag-wavefront" "$tag-host" "device / host placement"
    for other in $(printf 'sorted-%s ' $sorts) megakernel host; do
      if cmp -s "$films/$tag-wavefront.npy" "$films/$tag-$other.npy"; then
        echo "  film $tag-$other == $tag-wavefront (byte-identical)"
      else
        echo "  film $tag-$other != $tag-wavefront"
      fi
    done
  done
done
scene=cornell-box
echo "== cornell box $size, plain, cpu backend ($(nproc) cores)"
render plain-cpu cpu --sort off
