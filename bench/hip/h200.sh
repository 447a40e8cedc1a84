#!/usr/bin/env bash
# The hip backend on the NVIDIA H200 machine (closing-note figures), from the
# files bench/vulkan/aot.sh packs into $1 (default .aot): every barrier
# example's hip executable against its cpu one (printed values, then the
# fastest single launch "sluice-time <id>" and the back-to-back sequence
# "sluice-time 8" beside vulkan's), the wave artifacts through
# bench/hip/smoke.sh (outputs equal to the cpu backend's), and the path
# tracer at 512 x 512 x 64 on hip (wavefront, megakernel in one pass) with
# its film compared byte for byte with vulkan's.
set -uo pipefail
aot=${1:-.aot}
reps=${SLUICE_BENCH_REPS:-3}
cd "$aot" || exit 2
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SLUICE_HIP_CACHE_DIR=${SLUICE_HIP_CACHE_DIR:-$(mktemp -d)}
for name in reduction scan transpose data_dependent_loop big_state iterate vulkan-float-kernel vulkan-push-scratch; do
  cpu=$(env -u SLUICE_BENCH_REPS ./$name-cpu 2>&1 | tr '\n' ' ')
  hip=$(env -u SLUICE_BENCH_REPS ./$name-hip 2>&1 | tr '\n' ' ')
  verdict=DIFFERS; [ "$cpu" = "$hip" ] && verdict=equal
  echo "== $name: hip $verdict to cpu: $hip"
  for backend in hip vulkan; do
    echo "  $backend: $(SLUICE_BENCH_REPS=$reps ./$name-$backend 2>&1 >/dev/null | grep sluice-time | tr '\n' ' ')"
  done
done
echo "== wave artifacts (bench/hip/smoke.sh)"
bash ./hip-smoke.sh . 2>&1 | tail -12
films=$(mktemp -d)
echo "== path tracer 512x512x64"
for config in "hip wavefront" "hip state-machine --pass-spp 64" "vulkan wavefront" "vulkan state-machine --pass-spp 64"; do
  set -- $config
  backend=$1 schedule=$2; shift 2
  tag=$backend-$schedule
  ./sluice-render --artifact pathtracer.sluice --scene scenes/cornell-box.json --backend $backend \
    --width 512 --height 512 --spp 64 --frame-pool 262144 --schedule $schedule --stats "$@" \
    --film "$films/$tag.npy" --pfm "$films/$tag.pfm" > "$films/$tag.log" 2>&1
  echo "$tag (exit $?): $(awk '/^Mrays\/s:/ {print $2}' "$films/$tag.log") Mrays/s; $(grep -E "device '|device \(|hip device" "$films/$tag.log" | tail -1)"
  grep -E "^(error|sluice-render:.*(error|failed|unavailable))" "$films/$tag.log" | head -3
done
# One backend, two schedules: byte-identical films (integer film, the same
# paths). Two backends: the bounds test/pathtracer states for CPU against
# Vulkan (paths may diverge where the backends' sin, cos or sqrt differ).
for backend in hip vulkan; do
  if cmp -s "$films/$backend-wavefront.npy" "$films/$backend-state-machine.npy"; then
    echo "film $backend state-machine == $backend wavefront (byte-identical)"
  else
    echo "film $backend state-machine != $backend wavefront"
  fi
done
if cmp -s "$films/hip-wavefront.npy" "$films/vulkan-wavefront.npy"; then
  echo "film hip wavefront == vulkan wavefront (byte-identical)"
else
  echo "film hip wavefront vs vulkan wavefront: $(./compare-images "$films/hip-wavefront.pfm" "$films/vulkan-wavefront.pfm" --epsilon 0.01 --max-differing-percent 3 --max-mae 2e-3 2>&1 | tr '\n' ' ') (exit $?)"
fi
