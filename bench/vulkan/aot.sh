#!/usr/bin/env bash
# Compiles every examples/barrier/*.mlir (iterate.mlir, the back-to-back
# launches on resident arrays, among them; and two Integration programs) ahead
# of time into two standalone
# executables that need neither MLIR nor LLVM at run time (so they run on a
# machine that has a GPU driver but no compiler, like the H200 machine):
#
#   OUT/<example>-cpu     kernels through convert-gpu-to-cpu (the CPU backend)
#   OUT/<example>-vulkan  kernels as SPIR-V, launched through the Vulkan ABI
#   OUT/<example>-hip     kernels as HIP source, compiled by NVRTC at run time
#
# and, for the wave example, OUT/shadow_pool.sluice (the compiled-program
# artifact with CPU and Vulkan kernels, docs/artifact.md) for
# sluice-run-artifact, OUT/diff: the differential test's wave invocations
# for scripts/check-placements --from, and OUT/random: 40 random wave programs to replay
# against this machine's results (scripts/differential-lane-vectors). The host code is the same MLIR the JIT of sluice-run
# compiles, lowered with the same registered pipeline (sluice-host-to-llvm),
# translated to LLVM IR and compiled with clang -O2 -march=x86-64-v3.
#
#   bash bench/vulkan/aot.sh BUILD OUT
set -euo pipefail
build=${1:?usage: aot.sh BUILD OUT}
out=${2:?usage: aot.sh BUILD OUT}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/bin
mkdir -p "$out"
# The barrier examples, and the Integration programs with floats, scalar
# push constants and scratch memory.
for example in "$root"/examples/barrier/*.mlir "$root"/test/Integration/vulkan-float-kernel.mlir \
               "$root"/test/Integration/vulkan-push-scratch.mlir; do
  name=$(basename "$example" .mlir)
  for backend in cpu vulkan hip; do
    bash "$root/bench/vulkan/compile-host.sh" "$build" "$example" $backend \
      "$out/$name-$backend" -march=x86-64-v3
  done
done
# The artifacts carry hip kernels too (bench/hip/smoke.sh runs them with
# --backend=hip; the runtime compiles the HIP source with NVRTC there, so
# nothing more is carried).
backends=cpu,vulkan,hip
"$bin/sluice-translate" --sluice-to-artifact --sluice-backends=$backends \
  "$root/bench/inputs/shadow_pool_stats.mlir" -o "$out/shadow_pool.sluice"
# Programs with bindings and their inputs (NumPy), for outputs compared with
# this machine's CPU runs afterwards (test/Integration/Inputs/compare-npy.py).
"$bin/sluice-translate" --sluice-to-artifact --sluice-backends=$backends \
  "$root/examples/shadow_pool.mlir" -o "$out/shadow_film.sluice"
"$bin/sluice-translate" --sluice-to-artifact --sluice-backends=$backends \
  "$root/test/Integration/Inputs/bindings-compute.mlir" -o "$out/bindings_compute.sluice"
python=python3
"$python" -c 'import numpy' 2>/dev/null || python=/usr/bin/python3
"$python" "$root/examples/shadow_film.py" occluders "$out/occluders.npy" --lights=61
"$python" "$root/test/Integration/Inputs/bindings-compute.py" inputs "$out/compute" --lanes=300
cp "$bin/sluice-run-artifact" "$out/"
cp "$root/bench/hip/smoke.sh" "$out/hip-smoke.sh"
cp "$root/bench/hip/h200.sh" "$out/hip-h200.sh"
cp "$root/bench/hip/kernel-times.sh" "$out/hip-kernel-times.sh"
cp "$root/bench/vulkan/h200.sh" "$out/vulkan-h200.sh"
cp "$root/bench/pathtracer/h200.sh" "$out/pathtracer-h200.sh"
# The path tracer, runtime-only: sluice-render, its artifact, the scenes, and
# libpng (the device machine may lack it).
cp "$bin/sluice-render" "$build/examples/pathtracer/pathtracer.sluice" "$bin/compare-images" "$out/"
cp -r "$root/examples/pathtracer/scenes" "$out/"
# The path tracer with 64-bit index in its hip kernels (the build's has 32,
# docs/hip-backend.md "Index width"), for the A/B there:
#   bash pathtracer-ab.sh . pathtracer-index64.sluice pathtracer.sluice --backends hip
"$bin/sluice-translate" --sluice-to-artifact --sluice-backends=cpu,vulkan,hip \
  --sluice-layout=soa --sluice-cpu=x86-64-v3 --sluice-hip-index-bitwidth=64 \
  "$root/examples/pathtracer/pathtracer.mlir" -o "$out/pathtracer-index64.sluice"
cp "$root/bench/pathtracer/sorting.py" "$out/pathtracer-sorting.py"
cp "$root/bench/pathtracer/hip-profile.sh" "$out/hip-profile.sh"
cp "$root/bench/pathtracer/ab.sh" "$out/pathtracer-ab.sh"
cp "$root/bench/pathtracer/passes.sh" "$out/pathtracer-passes.sh"
cp "$root/bench/pathtracer/scaling.sh" "$out/pathtracer-scaling.sh"
mkdir -p "$out/lib"
cp -L "$(ldd "$bin/sluice-render" | awk '/libpng/ {print $3}')" "$out/lib/"
# Random wave programs (40, integers, half of them with a capacity owner) as
# artifacts with their bindings and this machine's CPU results, and the
# script that replays them there on hip and Vulkan:
#   python3 OUT/differential-lane-vectors --replay OUT/random --sluice-run-artifact OUT/sluice-run-artifact
# (docs/cpu-backend.md, "On a GPU").
python3 "$root/scripts/differential-lane-vectors" --build "$build" --wave --count 40 \
  --seed 1 --export "$out/random" > /dev/null
cp "$root/scripts/differential-lane-vectors" "$out/"
# Every wave-program invocation of the differential test, compiled ahead of
# time, for placement equality on the GPU backends there
# (scripts/check-placements --from OUT/diff --backend=hip; bench/gpu-table.sh).
python3 "$root/scripts/differential-cpu-vulkan" --build "$build" --sluice-run "$bin/sluice-run" \
  --sluice-run-artifact "$bin/sluice-run-artifact" --export "$out/diff" > /dev/null
ls "$out"
