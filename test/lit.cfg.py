# -*- Python -*-
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "Sluice"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sluice_obj_root, "test")

config.substitutions.append(("%sluice_src_root", config.sluice_src_root))
config.substitutions.append(("%sluice_obj_root", config.sluice_obj_root))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
# `%expect-exit CODE tool ...` passes iff the tool exits with exactly CODE, so
# that neither a crash nor another error status can pass for the documented
# error (`not` accepts any non-zero status).
config.substitutions.append(
    ("%expect-exit",
     "%s %s" % (sys.executable,
                os.path.join(config.test_source_root, "lit-tools", "expect-exit"))))

llvm_config.with_system_environment(["HOME", "PATH", "TMPDIR", "CCACHE_DIR"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.sluice_tools_dir, append_path=True)

tools = ["sluice-opt", "sluice-translate", "sluice-run", "sluice-run-artifact"]
llvm_config.add_tool_substitutions(tools, [config.sluice_tools_dir])

# The ASan+UBSan build of sluice-run-artifact (SLUICE_ENABLE_SANITIZER_TESTS).
if os.path.exists(os.path.join(config.sluice_tools_dir, "sluice-run-artifact-asan")):
    config.available_features.add("sluice-run-artifact-asan")
    llvm_config.add_tool_substitutions(["sluice-run-artifact-asan"], [config.sluice_tools_dir])
    # Leak detection on; only the Vulkan driver's own leaks are suppressed.
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1"
    config.environment["LSAN_OPTIONS"] = "suppressions=%s:print_suppressions=0" % (
        os.path.join(config.sluice_src_root, "cmake", "lsan-vulkan-driver.supp"))

# SPIR-V validator and disassembler (SPIRV-Tools, from PATH), for test/Target/SPIRV.
spirv_tools = ["spirv-val", "spirv-dis"]
llvm_config.add_tool_substitutions(spirv_tools,
                                   config.environment["PATH"].split(os.pathsep))

# Features for REQUIRES: lines; a test whose feature is missing is reported as
# UNSUPPORTED (scripts/ctest-summary lists it with the reason written below).
#   spirv-tools: spirv-val and spirv-dis are on PATH;
#   vulkan:      sluice-run-artifact --list-devices finds a Vulkan device.
# With CI=true a missing one is fatal: CI must run those tests.
import shutil
import subprocess

missing_features = {}
absent = [t for t in spirv_tools if not shutil.which(t, path=config.environment["PATH"])]
if absent:
    missing_features["spirv-tools"] = "%s not found (package spirv-tools)" % ", ".join(absent)
else:
    config.available_features.add("spirv-tools")

def vulkan_device_problem():
    lister = os.path.join(config.sluice_tools_dir, "sluice-run-artifact")
    if not os.path.exists(lister):
        return "sluice-run-artifact is not built"
    try:
        probe = subprocess.run([lister, "--list-devices"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return "sluice-run-artifact --list-devices: %s" % error
    text = probe.stdout.decode("utf-8", "replace").strip()
    if probe.returncode != 0:
        return "no Vulkan device: %s" % text
    if not text:
        return "no Vulkan device: sluice-run-artifact --list-devices lists none"
    return None

vulkan_problem = vulkan_device_problem()
if vulkan_problem:
    missing_features["vulkan"] = vulkan_problem
else:
    config.available_features.add("vulkan")

# x86-64-v3 (AVX2, FMA, BMI2, LZCNT, ...): CPU kernels compiled with
# --sluice-cpu=x86-64-v3 run here (CMake's SLUICE_BUILD_CPU_HAS_X86_64_V3;
# /proc/cpuinfo is no witness: some hypervisors leave LZCNT's `abm` out).
if config.sluice_cpu_x86_64_v3:
    config.available_features.add("x86-64-v3")
else:
    missing_features["x86-64-v3"] = "this CPU is not x86-64-v3 (__builtin_cpu_supports)"

# The HIP backend's compile checks (test/Target/HIP):
#   hipcc: hipcc compiles a kernel offline for gfx90a (scripts/install-deps
#          installs it, so CI must have it);
#   nvrtc: libnvrtc loads (CUDA; optional: its tests are UNSUPPORTED without
#          it, also in CI).
config.substitutions.append(
    ("%hip-compile",
     "%s %s" % (sys.executable,
                os.path.join(config.test_source_root, "lit-tools", "hip-compile"))))

def hipcc_problem():
    hipcc = shutil.which("hipcc", path=config.environment["PATH"])
    if not hipcc:
        return "hipcc not found (package hipcc)"
    probe_dir = os.path.join(config.sluice_obj_root, "test", "hipcc-probe")
    os.makedirs(probe_dir, exist_ok=True)
    source = os.path.join(probe_dir, "probe.hip")
    with open(source, "w") as out:
        out.write('#include <hip/hip_runtime.h>\nextern "C" __global__ void probe(int *p) { p[threadIdx.x] = 1; }\n')
    try:
        probe = subprocess.run([hipcc, "--genco", "--offload-arch=gfx90a", source, "-o",
                                os.path.join(probe_dir, "probe.co")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                               env=dict(os.environ, HCC_AMDGPU_TARGET="gfx90a"))
    except (OSError, subprocess.TimeoutExpired) as error:
        return "hipcc --genco: %s" % error
    if probe.returncode != 0:
        return "hipcc --genco --offload-arch=gfx90a fails: %s" % probe.stdout.decode("utf-8", "replace").strip()[-300:]
    return None

hipcc_reason = hipcc_problem()
if hipcc_reason:
    missing_features["hipcc"] = hipcc_reason
else:
    config.available_features.add("hipcc")

optional_missing = {}
nvrtc_check = os.path.join(config.sluice_tools_dir, "sluice-nvrtc-check")
if not os.path.exists(nvrtc_check):
    optional_missing["nvrtc"] = "sluice-nvrtc-check is not built"
else:
    probe = subprocess.run([nvrtc_check, "--probe"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    if probe.returncode != 0:
        optional_missing["nvrtc"] = probe.stdout.decode("utf-8", "replace").strip()
    else:
        config.available_features.add("nvrtc")
        llvm_config.add_tool_substitutions(["sluice-nvrtc-check"], [config.sluice_tools_dir])

with open(os.path.join(config.sluice_obj_root, "test", "lit-missing-features.txt"), "w") as out:
    for feature, reason in sorted(optional_missing.items()):
        out.write("%s: %s\n" % (feature, reason))
    for feature, reason in sorted(missing_features.items()):
        out.write("%s: %s\n" % (feature, reason))
for feature, reason in sorted(list(missing_features.items()) + list(optional_missing.items())):
    lit_config.note("feature '%s' is missing (%s): tests that require it are UNSUPPORTED"
                    % (feature, reason))
if missing_features and os.environ.get("CI", "").lower() in ("true", "1", "yes"):
    lit_config.fatal("CI=true and the lit features CI must have are missing: %s"
                     % "; ".join("%s (%s)" % kv for kv in sorted(missing_features.items())))
