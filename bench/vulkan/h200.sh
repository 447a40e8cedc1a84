#!/usr/bin/env bash
# The H200 run of the Vulkan and hip backends (closing-note figures). Expects the
# executables of bench/vulkan/aot.sh in $1 (default .aot) and the Vulkan
# loader unpacked (.gl, see /work/.library/device/README.md). For each barrier
# example: the printed values of the CPU and the Vulkan executable, then
# SLUICE_BENCH_REPS timed launches of each (fastest, "sluice-time <reps> <ns>",
# host wall time; the timed launches after the first keep their arrays
# resident, so they copy nothing) and the per-launch GPU time from timestamp
# queries. Then iterate (back-to-back launches: one upload, 64 kernels, one
# download, per launch next to the kernel time) and the shadow pool artifact
# under sluice-run-artifact.
set -uo pipefail
aot=${1:-.aot}
reps=${SLUICE_BENCH_REPS:-5}
cd "$aot"
echo "== devices"; ./sluice-run-artifact --list-devices
nproc
# End to end without the timing instrumentation (no timestamp queries, no
# per-launch events), for sequences of N = 256 and 1024 back-to-back launches
# (SLUICE_BENCH_SEQUENCE): "sluice-time 8" is a sequence (one upload, N
# launches, one download) / N, against the mean GPU time of the launches of
# a timed run (launch lines only, not the batch lines, which sum their
# launches). The hip executables compile their kernels with NVRTC (CUDA's
# libraries on LD_LIBRARY_PATH).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SLUICE_HIP_CACHE_DIR=${SLUICE_HIP_CACHE_DIR:-$(mktemp -d)}
back_to_back() { # name backend
  local name=$1 backend=$2 timing=SLUICE_VULKAN_TIMING
  [ "$backend" = hip ] && timing=SLUICE_HIP_TIMING
  env SLUICE_BENCH_REPS=$reps $timing=1 ./$name-$backend > /dev/null 2> $name-$backend.timing
  echo "$backend timing: $(grep sluice-time $name-$backend.timing | tr '\n' ' ')"
  for n in 256 1024; do
    SLUICE_BENCH_SEQUENCE=$n SLUICE_BENCH_REPS=$reps ./$name-$backend > /dev/null 2> $name-$backend.untimed
    awk -v n=$n -v b=$backend 'FILENAME ~ /untimed$/ && /sluice-time 8/ {e2e = $3 / 1000}
         $0 ~ "^sluice: " b ": @.* gpu [0-9.]+ us" {for (i = 1; i <= NF; ++i) if ($i == "gpu") {sum += $(i + 1); k++}}
         END {if (k && e2e) printf "%s back to back, N = %d: %.3f us per launch end to end, kernel %.3f us (mean of %d), ratio %.2f\n", b, n, e2e, sum / k, k, e2e / (sum / k)}' \
      $name-$backend.untimed $name-$backend.timing
  done
}
for name in reduction scan transpose data_dependent_loop big_state iterate; do
  echo "== $name"
  cpu=$(env -u SLUICE_BENCH_REPS ./$name-cpu | tr '\n' ' ')
  echo "cpu:    $cpu"
  for backend in vulkan hip; do
    out=$(env -u SLUICE_BENCH_REPS ./$name-$backend | tr '\n' ' ')
    verdict=DIFFERS; [ "$out" = "$cpu" ] && verdict="equal to cpu"
    echo "$backend: $out($verdict)"
  done
  echo "cpu timing:    $(SLUICE_BENCH_REPS=$reps ./$name-cpu 2>&1 | grep sluice-time | tr '\n' ' ')"
  for backend in vulkan hip; do back_to_back $name $backend; done
  grep "batch of 256 launches" $name-vulkan.timing | tail -1
done
# Residency: 64 back-to-back launches on one 4 MiB array (examples/barrier/
# iterate.mlir). Each timed sequence is one upload, 64 kernels and one
# download; "sluice-time 6" is the fastest sequence divided by 64 (ns per
# launch, end to end), "sluice-time 7" the whole sequence. From the timing
# lines: how many launches uploaded and how many downloads there were (one
# of each per sequence), and the mean kernel time per launch.
echo "== iterate (64 launches, one upload, one download per sequence)"
echo "cpu:    $(./iterate-cpu | tr '\n' ' ')"
echo "vulkan: $(./iterate-vulkan | tr '\n' ' ')"
echo "cpu timing:    $(SLUICE_BENCH_REPS=$reps ./iterate-cpu 2>&1 >/dev/null | grep sluice-time | tr '\n' ' ')"
SLUICE_BENCH_REPS=$reps SLUICE_VULKAN_TIMING=1 ./iterate-vulkan 2> iterate-vulkan.timing >/dev/null
echo "vulkan timing: $(grep sluice-time iterate-vulkan.timing | tr '\n' ' ')"
awk '/@rotate grid/ {
       launches++
       for (i = 1; i <= NF; i++) {
         if ($i == "gpu" && launches > 64) { gpu += $(i + 1); timed++ } # timed sequences only
         if ($i == "in" && $(i + 2) == "bytes" && $(i + 1) > 0) { uploads++; upBytes += $(i + 1) }
       }
     }
     /host read: download/ { downloads++ }
     /sluice-time 6 / { perLaunch = $3 / 1000 }
     END {
       printf "vulkan: %d launches, %d uploaded (%d bytes), %d downloads; per launch: %.3f us end to end (1 upload + 64 kernels + 1 download, / 64), kernel %.3f us (mean GPU timestamp of the timed sequences)\n",
              launches, uploads, upBytes, downloads, perLaunch, timed ? gpu / timed : 0
     }' iterate-vulkan.timing
grep -E "@rotate .*copies in [1-9]|host read" iterate-vulkan.timing | head -4
for name in vulkan-float-kernel vulkan-push-scratch; do
  echo "== $name"
  echo "cpu:    $(./$name-cpu | tr '\n' ' ')"
  echo "vulkan: $(./$name-vulkan | tr '\n' ' ')"
done
for args in "--lanes=4096 --frame-pool=1024" "--lanes=262144 --frame-pool=1024" "--lanes=262144 --frame-pool=16384"; do
  for backend in vulkan hip; do
    echo "== shadow_pool $args, $backend"
    ./sluice-run-artifact shadow_pool.sluice --backend=$backend $args --stats --repeat=10
  done
done
# Bindings on the GPU: outputs go to ${SLUICE_OUT:-out} for comparison with the
# CPU's (compare-npy.py on the build machine).
results=${SLUICE_OUT:-out}
mkdir -p "$results"
film=(--bind=occluders=occluders.npy --set=lights=61 --set=shift=5)
for lanes in 4096 262144; do
  echo "== shadow film, $lanes lanes (resident bindings, integer atomics)"
  ./sluice-run-artifact shadow_film.sluice --backend=vulkan --lanes=$lanes --frame-pool=16384 \
    "${film[@]}" --output=film="$results/film-$lanes.npy" --repeat=10
done
echo "== bindings-compute (f32 transcendentals, f64, float atomics, private arrays)"
./sluice-run-artifact bindings_compute.sluice --backend=vulkan --lanes=300 --bind=x=compute/x.npy \
  --bind=y=compute/y.npy --bind=d=compute/d.npy --set=scale=1.5 --print=peak --print=hist \
  --output=y="$results/y.npy" --output=d="$results/d.npy" --output=grid="$results/grid.npy"
echo "== path tracer (sluice-render, docs/pathtracer.md), cornell box 512x512 64 spp"
export LD_LIBRARY_PATH=$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for pool in 65536 262144; do
  ./sluice-render --artifact pathtracer.sluice --scene scenes/cornell-box.json --backend vulkan \
    --width 512 --height 512 --spp 64 --frame-pool $pool --stats --png "$results/pathtracer-vulkan-$pool.png" \
    --pfm "$results/pathtracer-vulkan-$pool.pfm" 2>&1 | tail -9
done
./sluice-render --artifact pathtracer.sluice --scene scenes/cornell-box.json --backend cpu \
  --width 512 --height 512 --spp 64 --frame-pool 65536 --pfm "$results/pathtracer-cpu.pfm" 2>&1 | tail -3
echo "== shadow_pool artifact on the CPU backend (the same file)"
./sluice-run-artifact shadow_pool.sluice --backend=cpu --lanes=262144 --frame-pool=1024 --stats --repeat=3
