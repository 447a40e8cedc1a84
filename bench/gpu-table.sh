#!/usr/bin/env bash
# Everything the closing notes of issues 12 and 14 ask of a GPU machine, in
# one call, from the files bench/vulkan/aot.sh packs into AOT (default
# .aot), run from the repository root there:
#
#   1. the path tracer's table (bench/pathtracer/h200.sh: plain, 16-octave
#      and divergent scenes on hip and Vulkan; megakernel, wavefront
#      unsorted and with each --sorts value, host placement; films compared)
#      and the shadow pool's placements (bench/placement/compare.py);
#   2. bench/targets.py on both: every target of the two issues, measured,
#      met or not;
#   3. placement equality on each GPU backend (scripts/check-placements
#      --from AOT/diff, the differential export aot.sh packs);
#   4. unsorted against each --sorts value in --rounds alternating rounds
#      (plain and 16 octaves, device placement);
#   5. the traces of the plain scene, unsorted and sorted, split per stage
#      (bench/placement/stages.py): where sorting's time goes.
#
# Outputs under $OUT (default out): pt/ (h200.sh's logs and NAME.mrays),
# compare.txt, placements-<backend>.txt, traces/. On the device machine, bring
# the Vulkan loader first (the device's README): for example
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
#   export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
#   bash bench/gpu-table.sh .aot --sorts intersect
#
#   bash bench/gpu-table.sh [AOT] [--sorts "intersect on"] [--rounds 3]
#       [--backends hip,vulkan] [--placement-limit SECONDS] [--size 512x512x64]
#
# (--size other than the benchmark's 512x512x64, with --backends cpu, is for
# trying the script on a machine without a GPU: the figures then mean
# nothing against the issues' targets.)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
aot=.aot
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then aot=$1; shift; fi
sorts="intersect on"
rounds=3
backends=hip,vulkan
limit=300
size=512x512x64
while [ $# -gt 0 ]; do
  case "$1" in
    --sorts) sorts=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --backends) backends=$2; shift 2 ;;
    --placement-limit) limit=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    *) echo "gpu-table.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
IFS=x read -r width height spp <<<"$size"
[ -x "$aot/sluice-render" ] || { echo "gpu-table.sh: no $aot/sluice-render (bench/vulkan/aot.sh makes it)" >&2; exit 2; }
aot=$(cd "$aot" && pwd)
out=${OUT:-out}
mkdir -p "$out/traces"
out=$(cd "$out" && pwd)
export LD_LIBRARY_PATH=$aot/lib:/usr/local/cuda/lib64:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/GPU: /'

echo "== 1. the table"
SLUICE_OUT=$out/pt bash "$aot/pathtracer-h200.sh" "$aot" --backends "$backends" --sorts "$sorts" \
  --size "$size" 2>&1 |
  grep -v -E '^ +(wall time|film .* \(byte-identical\))'
python3 "$root/bench/placement/compare.py" "$aot" --backends "$backends" --rounds 2 --no-pathtracer \
  > "$out/compare.txt" 2>&1
grep -E '^\| ' "$out/compare.txt"

echo "== 2. the targets"
python3 "$root/bench/targets.py" "$out/pt" --placement "$out/compare.txt" --sorts "$sorts" --backends "$backends"

echo "== 3. placement equality"
for b in ${backends//,/ }; do
  start=$(date +%s)
  timeout "$limit" python3 "$root/scripts/check-placements" --from "$aot/diff" --backend="$b" \
    > "$out/placements-$b.txt" 2>&1
  echo "$b: exit $? after $(( $(date +%s) - start )) s: $(tail -1 "$out/placements-$b.txt")"
done

cd "$aot" || exit 2
render() { # backend octaves sort extra...
  local b=$1 o=$2 s=$3; shift 3
  ./sluice-render --artifact pathtracer.sluice --scene scenes/cornell-box.json --backend "$b" \
    --width "$width" --height "$height" --spp "$spp" --texture-octaves "$o" --sort "$s" \
    --scheduler-placement device --film "$out/traces/film.npy" "$@" 2>&1 | awk '/^Mrays/ {print $2}'
}
echo "== 4. sorted against unsorted, $rounds alternating rounds (Mrays/s)"
for b in ${backends//,/ }; do
  for o in 0 16; do
    for s in off $sorts; do
      line="$b octaves=$o sort=$s:"
      for r in $(seq "$rounds"); do line="$line $(render "$b" "$o" "$s")"; done
      echo "$line"
    done
  done
done
echo "== 5. where the time goes (traced; timestamps slow Vulkan a little)"
for b in ${backends//,/ }; do
  for s in off $sorts; do
    render "$b" 0 "$s" --trace "$out/traces/$b-$s.json" > /dev/null
    python3 "$root/bench/placement/stages.py" "$out/traces/$b-$s.json" "$b, --sort $s" | head -8
  done
done
rm -f "$out/traces/film.npy"
