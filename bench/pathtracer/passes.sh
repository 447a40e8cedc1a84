#!/usr/bin/env bash
# What a progressive render pays per pass: the path tracer at 512 x 512 x 64
# in one pass, in 16 passes of 4 samples and in 64 passes of 1 (a renderer
# that shows its film after every pass), on each backend given, each in
# `--rounds` alternating rounds. Prints per configuration the median whole
# render (sluice-render's "with the uploads, set-up and the film's read":
# every pass's uploads, set-up and schedule, and the film's read at the
# end), the schedules' sum and the set-up's, and the ratio of the whole
# render to the one-pass render's. From the files bench/vulkan/aot.sh packs
# (as pathtracer-passes.sh); `--render BIN` times another sluice-render (an
# older build, for a before/after in one call).
#
#   bash pathtracer-passes.sh [AOT] [--backends hip,vulkan] [--rounds 2]
#                             [--render BIN] [--size WxH]
set -uo pipefail
aot=.aot
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then aot=$1; shift; fi
backends=hip,vulkan
rounds=2
render=
size=512x512
while [ $# -gt 0 ]; do
  case "$1" in
    --backends) backends=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --render) render=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    *) echo "passes.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
IFS=x read -r width height <<<"$size"
cd "$aot" || exit 2
render=${render:-./sluice-render}
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
median() { sort -g | awk 'NF { v[++n] = $1 } END { if (n) print v[int((n + 1) / 2)]; else print 0 }'; }
for backend in ${backends//,/ }; do
  "$render" --artifact pathtracer.sluice --scene scenes/cornell-box.json \
    --backend "$backend" --width 16 --height 16 --spp 1 > /dev/null 2>&1 # warm-up
  declare -A whole=() schedules=() setup=()
  for round in $(seq "$rounds"); do
    for pass in 64 4 1; do
      "$render" --artifact pathtracer.sluice --scene scenes/cornell-box.json \
        --backend "$backend" --width "$width" --height "$height" --spp 64 \
        --pass-spp "$pass" > "$log" 2>&1 || { echo "$backend --pass-spp $pass failed:"; tail -3 "$log"; }
      # wall time: S s (the schedules of N passes; W s with the uploads, set-up and the film's read; set-up ... U s)
      read -r s w u < <(awk '/^wall time:/ { print $3, $10, $(NF - 1) }' "$log")
      schedules[$pass]+="$s "; whole[$pass]+="$w "; setup[$pass]+="$u "
    done
  done
  one=$(tr ' ' '\n' <<<"${whole[64]}" | median)
  for pass in 64 4 1; do
    w=$(tr ' ' '\n' <<<"${whole[$pass]}" | median)
    printf '%-7s %2d passes of %2d spp: whole render %8.4f s, schedules %8.4f s, set-up %8.4f s, %.2fx the one-pass render\n' \
      "$backend" $((64 / pass)) "$pass" "$w" \
      "$(tr ' ' '\n' <<<"${schedules[$pass]}" | median)" \
      "$(tr ' ' '\n' <<<"${setup[$pass]}" | median)" \
      "$(awk -v a="$w" -v b="$one" 'BEGIN { print (b > 0 ? a / b : 0) }')"
  done
  unset whole schedules setup
done
