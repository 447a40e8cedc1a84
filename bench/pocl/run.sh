#!/usr/bin/env bash
# Barrier kernels on PoCL and on Sluice's CPU backend, in the same run.
#
#   bench/pocl/run.sh [build-dir] [reps]      (defaults: build, 10)
#
# For each kernel of examples/barrier (same sizes, work-group 256, transpose
# 16 x 16) it prints the best time of `reps` launches on PoCL (OpenCL C in
# barrier_kernels.cl, host program pocl_bench.c), on Sluice's fission path,
# on Sluice's coroutine path (lane groups) and with one coroutine per lane,
# plus a plain C single pass over the same data (one thread). Ratios:
#   pocl/fission, fission/single-pass, per-lane/coroutine; geomeans at the end.
# "fission" is the default lowering: loop fission wherever the barriers allow it
# (data_dependent_loop included: its trip count is loaded from one address per
# block, so it is uniform); a kernel that needs coroutines would show them.
# Not part of ctest. SLUICE_WORKERS and POCL_MAX_PTHREAD_COUNT choose threads.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
reps=${2:-10}
run=$build/bin/sluice-run
[[ -x $run ]] || { echo "run.sh: no sluice-run at $run" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cc=${CC:-clang-22}
$cc -O2 -march=native -Wall -Wextra -Werror -o "$work/pocl_bench" "$here/pocl_bench.c" -lOpenCL
"$work/pocl_bench" "$here/barrier_kernels.cl" "$reps" > "$work/pocl.txt"
if grep -q "mismatches [1-9]" "$work/pocl.txt"; then
  echo "run.sh: PoCL produced wrong results:" >&2; cat "$work/pocl.txt" >&2; exit 1
fi

# sluice_ms <example> <id> [flags...]: best launch time in ms.
sluice_ms() {
  local example=$1 id=$2; shift 2
  SLUICE_BENCH_REPS=$reps "$run" "$@" "$root/examples/barrier/$example.mlir" \
      2> "$work/err" > "$work/out" || { cat "$work/err" >&2; exit 1; }
  awk -v id="$id" '$1 == "sluice-time" && $2 == id { printf "%.3f", $3 / 1e6 }' "$work/err"
}

printf "%-20s %9s %9s %9s %9s %9s %12s %13s %13s\n" kernel pocl_ms fission coroutine per_lane \
  single pocl/fission fission/single per_lane/coro
geo_pf=0; geo_fs=0; geo_cc=0; count=0
id=0
for kernel in reduction scan transpose data_dependent_loop; do
  id=$((id + 1))
  pocl=$(awk -v k="$kernel" '$1 == k { print $3 }' "$work/pocl.txt")
  single=$(awk -v k="$kernel" '$1 == k { print $5 }' "$work/pocl.txt")
  fission=$(sluice_ms "$kernel" "$id")
  coro=$(sluice_ms "$kernel" "$id" --gpu-force-coroutines)
  perlane=$(sluice_ms "$kernel" "$id" --gpu-force-coroutines --gpu-coroutine-lanes=1)
  read -r pf fs cc < <(awk -v p="$pocl" -v f="$fission" -v s="$single" -v c="$coro" -v l="$perlane" \
    'BEGIN { printf "%.2f %.2f %.2f\n", p / f, f / s, l / c }')
  printf "%-20s %9s %9s %9s %9s %9s %12s %13s %13s\n" "$kernel" "$pocl" "$fission" "$coro" \
    "$perlane" "$single" "${pf}x" "${fs}x" "${cc}x"
  geo_pf=$(awk -v g="$geo_pf" -v r="$pf" 'BEGIN { print g + log(r) }')
  geo_fs=$(awk -v g="$geo_fs" -v r="$fs" 'BEGIN { print g + log(r) }')
  geo_cc=$(awk -v g="$geo_cc" -v r="$cc" 'BEGIN { print g + log(r) }')
  count=$((count + 1))
done
awk -v a="$geo_pf" -v b="$geo_fs" -v c="$geo_cc" -v n="$count" 'BEGIN {
  printf "geomean: pocl/fission %.2fx  fission/single-pass %.2fx  per-lane/coroutine %.2fx\n",
    exp(a / n), exp(b / n), exp(c / n) }'
echo "(best of $reps launches each; times in ms; $(nproc) cores;" \
  "workers ${SLUICE_WORKERS:-one per core})"
