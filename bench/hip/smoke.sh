#!/usr/bin/env bash
# The hip backend on a GPU machine without a compiler (the H200): runs
# sluice-run-artifact --backend=hip on the artifacts bench/vulkan/aot.sh
# prepared (those compiled with hip kernels) and compares every output with
# --backend=cpu on the same machine. Compiles nothing: NVRTC compiles the
# HIP source at load (libnvrtc from /usr/local/cuda/lib64), the CUDA driver
# runs it.
#
#   bash bench/hip/smoke.sh DIR     (DIR: aot.sh's OUT, with sluice-run-artifact)
#
# Exit status: 0 when every hip run printed what the cpu run printed, 1
# otherwise; artifacts without hip kernels are listed as skipped.
set -uo pipefail
dir=${1:?usage: smoke.sh DIR}
run=$dir/sluice-run-artifact
[ -x "$run" ] || { echo "smoke.sh: no $run (run bench/vulkan/aot.sh first)" >&2; exit 2; }
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64:/usr/local/nvidia/lib64
export SLUICE_HIP_CACHE_DIR=${SLUICE_HIP_CACHE_DIR:-$(mktemp -d)}
echo "== devices"
"$run" --list-devices || true
failed=0 compared=0
# name | options (bindings are aot.sh's files)
cases=(
  "shadow_pool.sluice|--lanes=4096 --stats"
  "shadow_pool.sluice|--lanes=4096 --schedule=state-machine --stats"
  "shadow_film.sluice|--lanes=4096 --bind=occluders=$dir/occluders.npy --set=lights=61 --set=shift=5 --print=film"
  "bindings_compute.sluice|--lanes=300 --bind=x=$dir/compute/x.npy --bind=y=$dir/compute/y.npy --bind=d=$dir/compute/d.npy --set=scale=1.5 --print=grid --print=peak --print=hist"
)
for case in "${cases[@]}"; do
  artifact=${case%%|*}
  options=${case#*|}
  [ -f "$dir/$artifact" ] || { echo "-- $artifact: missing, skipped"; continue; }
  if ! "$run" --describe "$dir/$artifact" 2>/dev/null | grep -q '^backend hip:'; then
    echo "-- $artifact: no hip kernels (compiled without the hip lowering), skipped"
    continue
  fi
  # shellcheck disable=SC2086
  cpu=$("$run" "$dir/$artifact" --backend=cpu $options 2>/dev/null)
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  hip=$("$run" "$dir/$artifact" --backend=hip $options 2>"$SLUICE_HIP_CACHE_DIR/stderr")
  status=$?
  end=$(date +%s.%N)
  compared=$((compared + 1))
  # The per-stage table and results; device lines (stderr) differ.
  if [ $status -eq 0 ] && [ "$cpu" == "$hip" ]; then
    printf -- "-- %s %s: hip == cpu (%.2f s)\n" "$artifact" "$options" "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')"
  else
    failed=$((failed + 1))
    echo "-- $artifact $options: MISMATCH (hip exit $status)"
    diff <(echo "$cpu") <(echo "$hip") | head -20
    head -20 "$SLUICE_HIP_CACHE_DIR/stderr"
  fi
  grep -h "hip device" "$SLUICE_HIP_CACHE_DIR/stderr" | head -2
done
echo "== $compared compared, $failed failed"
[ $failed -eq 0 ]
