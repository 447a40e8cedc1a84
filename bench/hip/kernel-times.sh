#!/usr/bin/env bash
# Kernel time of each barrier example on the NVIDIA H200 machine, hip beside
# vulkan in one run (issue 13's target: hip at most vulkan), from the files
# bench/vulkan/aot.sh packs into $1 (default .aot):
#   hip     Nsight Compute's gpu__time_duration.sum of launches 2..21 (the
#           kernel alone as the GPU clocks it, at the clocks the driver
#           picks as in a normal run: --clock-control none; with the L2
#           cache as the launch before left it, as the Vulkan timestamps see
#           it: --cache-control none, where ncu's default flushes it before
#           every profiled launch; CUDA events add the launch latency, about
#           2 us, to a lone launch)
#   vulkan  the mean of the timestamp queries around each dispatch
#           (SLUICE_VULKAN_TIMING=1, SLUICE_BENCH_REPS=3 runs)
#
#   bash bench/hip/kernel-times.sh [AOT]      (NCU=path overrides ncu)
set -uo pipefail
aot=${1:-.aot}
cd "$aot" || exit 2
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SLUICE_HIP_CACHE_DIR=${SLUICE_HIP_CACHE_DIR:-$(mktemp -d)}
ncu=${NCU:-/usr/local/cuda/bin/ncu}
[ -x "$ncu" ] || { echo "kernel-times.sh: no Nsight Compute at $ncu (set NCU)" >&2; exit 2; }
printf '%-22s %12s %12s %8s\n' example "hip us" "vulkan us" "hip/vk"
for name in reduction scan transpose data_dependent_loop big_state iterate; do
  # --print-units base: nanoseconds; the last CSV field is the value.
  hip=$(SLUICE_BENCH_REPS=3 "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv --print-units base \
          --launch-skip 1 --launch-count 20 ./$name-hip 2>"$name-ncu.err" |
        awk -F'","' '/gpu__time_duration.sum/ {v = $NF; gsub(/[",]/, "", v); sum += v; n++}
                     END {if (n) printf "%.3f", sum / n / 1000}')
  vk=$(SLUICE_BENCH_REPS=3 SLUICE_VULKAN_TIMING=1 ./$name-vulkan 2>&1 >/dev/null |
       awk '/^sluice: vulkan: @.* gpu [0-9.]+ us/ {for (i = 1; i <= NF; ++i) if ($i == "gpu") {sum += $(i + 1); n++}}
            END {if (n) printf "%.3f", sum / n}')
  ratio=$(awk -v a="${hip:-0}" -v b="${vk:-0}" 'BEGIN {if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a"}')
  printf '%-22s %12s %12s %8s\n' "$name" "${hip:-n/a}" "${vk:-n/a}" "$ratio"
  [ -n "$hip" ] || head -5 "$name-ncu.err"
done
