#!/usr/bin/env bash
# Where the hip megakernel's time goes, on the NVIDIA machine, from the files
# bench/vulkan/aot.sh packs (as hip-profile.sh): one call answers both
# questions the next optimisation of the path tracer's kernels needs.
#
# 1. How much the NVRTC options that the HIP backend does not use would give
#    (the backend compiles with --fmad=false and precise division, because
#    arith.mulf/addf/divf without fastmath flags must not fuse or round
#    differently, docs/hip-backend.md): the megakernel and the wavefront
#    (device placement) at 512 x 512 x 64, each option set in two rounds,
#    Mrays/s and wall. The films of the option sets differ (by design); the
#    figures bound what per-op contraction (`fastmath<contract>` honoured
#    per multiply) or a reciprocal could buy.
# 2. Which instructions of the megakernel run and stall: Nsight Compute's
#    SourceCounters over one launch of a 256 x 256 x 16 render, compiled with
#    -lineinfo; the CSV (per SASS instruction: executed count and stall
#    samples) and the cubin's disassembly with line info (nvdisasm -g) map
#    it onto the generated HIP source (sluice-translate --sluice-to-hip, or
#    the artifact's `hip` section).
#
#   SLUICE_OUT=DIR bash hip-profile.sh [AOT]      (AOT default: the script's directory)
set -uo pipefail
aot=${1:-$(cd "$(dirname "$0")" && pwd)}
out=${SLUICE_OUT:-out}
mkdir -p "$out/cache"
export LD_LIBRARY_PATH=$aot/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
render=("$aot/sluice-render" --artifact "$aot/pathtracer.sluice"
        --scene "$aot/scenes/cornell-box.json" --backend hip --stats)
full=(--width 512 --height 512 --spp 64)
nvidia-smi -L 2>/dev/null || true

run() { # name nvrtc-options render-options...
  local name=$1 options=$2; shift 2
  for round in 1 2; do
    SLUICE_HIP_NVRTC_OPTIONS="$options" SLUICE_HIP_CACHE_DIR="/tmp/sluice-hip-$name" \
      "${render[@]}" "$@" > "$out/$name.$round.log" 2>&1
    local rc=$?
    printf '%-16s round %d (exit %d): %s\n' "$name" "$round" "$rc" \
      "$(grep -E '^(Mrays/s|wall time):' "$out/$name.$round.log" | cut -c1-40 | tr '\n' ' ')"
  done
}
mega=(--schedule state-machine --frame-pool 131072)
wave=(--sort off --scheduler-placement device --frame-pool 1048576)
echo "== NVRTC options (the backend's own: --fmad=false, precise division)"
run mega-base "" "${full[@]}" "${mega[@]}"
run mega-fmad "--fmad=true" "${full[@]}" "${mega[@]}"
run mega-div "-prec-div=false" "${full[@]}" "${mega[@]}"
run mega-fast "--use_fast_math" "${full[@]}" "${mega[@]}"
run wave-base "" "${full[@]}" "${wave[@]}"
run wave-fast "--use_fast_math" "${full[@]}" "${wave[@]}"
run mega-base-again "" "${full[@]}" "${mega[@]}"

echo "== Nsight Compute: the megakernel's instructions ($out/megakernel-source.csv)"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
SLUICE_HIP_NVRTC_OPTIONS=-lineinfo SLUICE_HIP_CACHE_DIR="$out/cache" timeout 400 "$ncu" \
  -k regex:megakernel -c 1 --section SourceCounters --section LaunchStats \
  --section Occupancy --section SpeedOfLight --page source --print-source sass --csv \
  "${render[@]}" --width 256 --height 256 --spp 16 "${mega[@]}" \
  > "$out/megakernel-source.csv" 2> "$out/ncu.log"
echo "ncu exit $?; $(wc -l < "$out/megakernel-source.csv") lines"
nvdisasm=$(command -v nvdisasm || echo /usr/local/cuda/bin/nvdisasm)
for cubin in "$out"/cache/*; do
  case "$cubin" in *.sass) continue ;; esac
  "$nvdisasm" -g -c "$cubin" > "$cubin.sass" 2>&1 || echo "nvdisasm failed on $cubin"
done
ls -la "$out/cache"
