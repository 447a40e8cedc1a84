#!/usr/bin/env bash
# Model-checks cohort.pml with spin. Usage:
#   run_spin.sh check   [CC] [WORKDIR]  3 cores, 3 tasks: exhaustive search
#   run_spin.sh wide    [CC] [WORKDIR]  3 cores, 4 tasks: bitstate search
#   run_spin.sh mutants [CC] [WORKDIR]  each mutant must be caught
# Exits non-zero when spin reports an error (or a mutant goes unnoticed).
set -euo pipefail

mode=${1:-check}
cc=${2:-cc}
work=${3:-$(mktemp -d)}
model_dir=$(cd "$(dirname "$0")" && pwd)

command -v spin >/dev/null || { echo "spin not found"; exit 2; }
mkdir -p "$work"

# verify NAME SPIN_DEFINES CC_DEFINES PAN_FLAGS: runs one search in its own
# directory and leaves its output in $work/NAME/pan.out.
verify() {
  local name=$1 spin_defines=$2 cc_defines=$3 pan_flags=$4
  local dir="$work/$name"
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$model_dir/cohort.pml" "$dir/"
  (cd "$dir" &&
    spin $spin_defines -a cohort.pml >spin.out &&
    "$cc" -O2 -w -DSAFETY $cc_defines -o pan pan.c &&
    { ./pan $pan_flags >pan.out 2>&1 || true; })
}

summary() {
  grep -E "^pan:|errors:|states, stored|hash factor|elapsed time|total actual memory" \
    "$work/$1/pan.out" | sed "s/^/  [$1] /"
}

clean() {
  local out="$work/$1/pan.out"
  grep -q "errors: 0" "$out" && ! grep -q "Search not completed" "$out" &&
    ! grep -q "out of memory" "$out"
}

case "$mode" in
check)
  verify check "" "-DCOLLAPSE -DMEMLIM=4096" "-m1000000"
  summary check
  clean check || { cat "$work/check/pan.out"; exit 1; }
  ;;
wide)
  verify wide "-DQBLOCKS=1" "-DBITSTATE" "-m1000000 -w32 -k3"
  summary wide
  clean wide || { cat "$work/wide/pan.out"; exit 1; }
  ;;
mutants)
  status=0
  for mutant in NO_PUBLICATION_GATE RING_EARLY SPLIT_LATCH READY_IGNORES_OWNER; do
    verify "mutant-$mutant" "-DMUTANT_$mutant" "-DCOLLAPSE" "-m1000000"
    summary "mutant-$mutant"
    if grep -qE "errors: [1-9]" "$work/mutant-$mutant/pan.out"; then
      echo "  mutant $mutant: caught"
    else
      echo "  mutant $mutant: NOT caught"
      status=1
    fi
  done
  exit $status
  ;;
*)
  echo "unknown mode '$mode'" >&2
  exit 2
  ;;
esac
