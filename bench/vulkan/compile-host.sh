#!/usr/bin/env bash
# Compiles a host program (a module with func.func @main that launches gpu
# kernels) ahead of time into a standalone executable for one backend, the
# way the JIT of sluice-run would run it: the registered pipeline
# sluice-host-to-llvm, LLVM IR, clang -O2 with bench/vulkan/driver.c and the
# runtime's static libraries. Needs neither MLIR nor LLVM at run time.
# Used by bench/vulkan/aot.sh and scripts/differential-cpu-vulkan --export.
#
#   bash bench/vulkan/compile-host.sh BUILD PROGRAM.mlir BACKEND OUT [CLANG-FLAGS...]
set -euo pipefail
build=${1:?usage: compile-host.sh BUILD PROGRAM BACKEND OUT [CLANG-FLAGS...]}
program=${2:?usage: compile-host.sh BUILD PROGRAM BACKEND OUT}
backend=${3:?usage: compile-host.sh BUILD PROGRAM BACKEND OUT}
out=${4:?usage: compile-host.sh BUILD PROGRAM BACKEND OUT}
shift 4
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/bin
libs=("$build/runtime/libSluiceRuntimeBackends.a" "$build/runtime/libSluiceRuntimeVulkan.a"
      "$build/runtime/libSluiceRuntimeHip.a" "$build/runtime/libSluiceLaunchResidency.a"
      "$build/runtime/launch/libSluiceLaunch.a" "$build/runtime/libSluiceRuntime.a")
"$bin/sluice-opt" --sluice-verify --sluice-host-to-llvm=backend="$backend" "$program" |
  "$bin/sluice-translate" --mlir-to-llvmir |
  sed -e 's/@main(/@sluice_program_main(/g' > "$out.ll"
clang++-22 -O2 "$@" -fuse-ld=lld -Wno-override-module \
  "$out.ll" -x c "$root/bench/vulkan/driver.c" -x none "${libs[@]}" \
  -ldl -lpthread -o "$out"
rm "$out.ll"
