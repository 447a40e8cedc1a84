#!/usr/bin/env bash
# How the CPU backend's schedules scale with workers: the path tracer's
# wavefront (sorted by material, the CPU's default) and its megakernel at
# each worker count of `--workers`, on the plain scene, the heavy-shading
# variant and the divergent one, in `--rounds` alternating rounds. Prints per
# scene and worker count the median Mrays/s of each, wavefront / megakernel,
# and the wavefront's split of its dispatches' time into kernels and the
# host's part (routing, sorting, refill: the `--stats` line). With
# `--base-render BIN` (an older sluice-render) its wavefront runs beside, and
# new / base is printed too. From the files bench/vulkan/aot.sh packs (as
# pathtracer-scaling.sh), or from a build:
#
#   bash pathtracer-scaling.sh [AOT] [--workers "1 2 4 8 16"] [--rounds 2]
#        [--size 512x512x16] [--octaves 16] [--base-render BIN]
#   bash bench/pathtracer/scaling.sh --render build/bin/sluice-render \
#        --artifact build/examples/pathtracer/pathtracer.sluice \
#        --scenes examples/pathtracer/scenes --workers "1 2" --size 256x256x16
set -uo pipefail
aot=.aot
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then aot=$1; shift; fi
workers="1 2 4 8 16"
rounds=2
size=512x512x16
octaves=16
base=
render=
artifact=
scenes=
while [ $# -gt 0 ]; do
  case "$1" in
    --workers) workers=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --octaves) octaves=$2; shift 2 ;;
    --base-render) base=$2; shift 2 ;;
    --render) render=$2; shift 2 ;;
    --artifact) artifact=$2; shift 2 ;;
    --scenes) scenes=$2; shift 2 ;;
    *) echo "scaling.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
IFS=x read -r width height spp <<<"$size"
if [ -z "$render" ]; then
  cd "$aot" || exit 2
  export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
render=${render:-./sluice-render}
artifact=${artifact:-pathtracer.sluice}
scenes=${scenes:-scenes}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
median() { sort -g | awk 'NF { v[++n] = $1 } END { if (n) print v[int((n + 1) / 2)]; else print 0 }'; }
# run BIN SCENE OCTAVES WORKERS [options]: "Mrays kernels_ms dispatch_ms"
run() {
  local bin=$1 scene=$2 oct=$3 w=$4
  shift 4
  "$bin" --artifact "$artifact" --scene "$scenes/$scene.json" --width "$width" \
    --height "$height" --spp "$spp" --texture-octaves "$oct" --workers "$w" \
    --stats "$@" > "$log" 2>&1 || { echo "failed: $bin $scene $*" >&2; tail -3 "$log" >&2; }
  # Mrays/s: R ... cpu device (last run): N dispatches, D ms in dispatch() of which K ms in kernels
  awk '/^Mrays\/s:/ { r = $2 }
       /cpu device \(last run\)/ { for (i = 1; i <= NF; ++i) {
           if ($i == "dispatch()") d = $(i - 3); if ($i == "kernels") k = $(i - 3) } }
       END { print r + 0, k + 0, d + 0 }' "$log"
}
printf '%-24s %7s %10s %10s %9s %9s %8s' scene workers wavefront megakernel wave/mega kernels host
[ -n "$base" ] && printf ' %10s %8s' base new/base
printf '\n'
for entry in "cornell-box 0 plain" "cornell-box $octaves heavy" \
             "cornell-box-divergent $octaves divergent"; do
  read -r scene oct label <<<"$entry"
  for w in $workers; do
    wave=() mega=() kernels=() dispatch=() old=()
    for round in $(seq "$rounds"); do
      read -r r k d < <(run "$render" "$scene" "$oct" "$w")
      wave+=("$r") kernels+=("$k") dispatch+=("$d")
      read -r r _ _ < <(run "$render" "$scene" "$oct" "$w" --schedule state-machine)
      mega+=("$r")
      if [ -n "$base" ]; then
        read -r r _ _ < <(run "$base" "$scene" "$oct" "$w")
        old+=("$r")
      fi
    done
    mw=$(printf '%s\n' "${wave[@]}" | median)
    mm=$(printf '%s\n' "${mega[@]}" | median)
    mk=$(printf '%s\n' "${kernels[@]}" | median)
    md=$(printf '%s\n' "${dispatch[@]}" | median)
    printf '%-24s %7s %10.2f %10.2f %8.3fx %7.1fms %6.1fms' "$label (${oct} oct.)" "$w" \
      "$mw" "$mm" "$(awk -v a="$mw" -v b="$mm" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
      "$mk" "$(awk -v a="$md" -v b="$mk" 'BEGIN { print a - b }')"
    if [ -n "$base" ]; then
      mo=$(printf '%s\n' "${old[@]}" | median)
      printf ' %10.2f %7.3fx' "$mo" "$(awk -v a="$mw" -v b="$mo" 'BEGIN { print (b > 0 ? a / b : 0) }')"
    fi
    printf '\n'
  done
done
