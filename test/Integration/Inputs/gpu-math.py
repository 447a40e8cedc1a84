#!/usr/bin/env python3
"""The math ops of test/Integration/gpu-math.mlir against Python's math.

`gpu-math.py generate` prints the test program (committed as
gpu-math.mlir); `gpu-math.py check --backend=cpu|vulkan` reads what the
program printed (one value per line: for each op, its results at the 64
inputs x_i = low + width * i / 64, i < 64, exact in binary32) and compares
each with the correctly rounded binary32 value of the function computed in
binary64 by Python (math module), within the op's ulp bound for that backend
(docs/gpu-kernels.md has the table). Exit status 1 on any excess, with the
op, the input and both values.
"""
import math
import struct
import sys

N = 64


def f32(x):
    """x rounded to binary32 (round to nearest even)."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def ulp_distance(a, b):
    """Binary32 ulps between two binary32 values (NaN only equals NaN)."""
    if math.isnan(a) or math.isnan(b):
        return 0 if math.isnan(a) and math.isnan(b) else math.inf
    def ordered(v):
        bits = struct.unpack("<i", struct.pack("<f", v))[0]
        return bits if bits >= 0 else -(bits & 0x7FFFFFFF)
    return abs(ordered(a) - ordered(b))


def round_half_away(x):
    return math.copysign(math.floor(abs(x) + 0.5), x)


def round_half_even(x):
    return float(round(x))


# name, MLIR of %y from %x (f32), low, width, reference, ulp bound on the
# CPU, on Vulkan. The CPU's is glibc's binary32 functions (what LLVM's
# intrinsics and the libm calls reach): 1 ulp, erfc 2. Vulkan's is the
# Vulkan precision table where it gives one (sqrt 3 as 1/inversesqrt, rsqrt
# 2, exp and exp2 3 + 2|x| ulp = 19 on [-8, 8], log 3 ulp, asin, acos, atan
# and atan2 4096 ulp) and otherwise (functions it defines as formulas of
# exp and log, upstream's polynomials for erf, erfc, cbrt) a bound above what
# lavapipe gives with a margin for other conforming devices.
OPS = [
    ("sqrt", "math.sqrt %x", 0.0, 64.0, math.sqrt, 0, 3),
    ("rsqrt", "math.rsqrt %x", 0.25, 64.0, lambda x: 1 / math.sqrt(x), 1, 2),
    ("exp", "math.exp %x", -8.0, 16.0, math.exp, 1, 19),
    ("exp2", "math.exp2 %x", -8.0, 16.0, lambda x: 2.0 ** x, 1, 19),
    ("expm1", "math.expm1 %x", -2.0, 4.0, math.expm1, 1, 64),
    ("log", "math.log %x", 0.125, 64.0, math.log, 1, 4),
    ("log2", "math.log2 %x", 0.125, 64.0, math.log2, 1, 4),
    ("log10", "math.log10 %x", 0.125, 64.0, math.log10, 1, 4),
    ("log1p", "math.log1p %x", -0.5, 8.0, math.log1p, 1, 4),
    ("sin", "math.sin %x", -4.0, 8.0, math.sin, 1, 4),
    ("cos", "math.cos %x", -4.0, 8.0, math.cos, 1, 4),
    ("tan", "math.tan %x", -1.25, 2.5, math.tan, 1, 8),
    ("tanh", "math.tanh %x", -4.0, 8.0, math.tanh, 1, 8),
    ("atan", "math.atan %x", -8.0, 16.0, math.atan, 1, 4096),
    ("asin", "math.asin %x", -0.9375, 1.875, math.asin, 1, 4096),
    ("acos", "math.acos %x", -0.9375, 1.875, math.acos, 1, 4096),
    ("sinh", "math.sinh %x", -4.0, 8.0, math.sinh, 1, 8),
    ("cosh", "math.cosh %x", -4.0, 8.0, math.cosh, 1, 8),
    ("asinh", "math.asinh %x", -8.0, 16.0, math.asinh, 1, 8),
    ("acosh", "math.acosh %x", 1.0, 64.0, math.acosh, 1, 8),
    ("atanh", "math.atanh %x", -0.9375, 1.875, math.atanh, 1, 16),
    ("erf", "math.erf %x", -4.0, 8.0, math.erf, 1, 4),
    ("erfc", "math.erfc %x", -2.0, 6.0, math.erfc, 2, 16),
    ("cbrt", "math.cbrt %x", -64.0, 128.0,
     lambda x: math.copysign(abs(x) ** (1 / 3), x), 1, 16),
    ("floor", "math.floor %x", -8.0, 16.0, math.floor, 0, 0),
    ("ceil", "math.ceil %x", -8.0, 16.0, math.ceil, 0, 0),
    ("trunc", "math.trunc %x", -8.0, 16.0, math.trunc, 0, 0),
    ("round", "math.round %x", -8.0, 16.0, round_half_away, 0, 0),
    ("roundeven", "math.roundeven %x", -8.0, 16.0, round_half_even, 0, 0),
    ("absf", "math.absf %x", -8.0, 16.0, abs, 0, 0),
    ("fma", "math.fma %x, %x, %x", -8.0, 16.0, lambda x: x * x + x, 0, 0),
    ("powf", "math.powf %x, %c1_5", 0.25, 16.0, lambda x: x ** 1.5, 1, 16),
    ("atan2", "math.atan2 %x, %c2", -8.0, 16.0, lambda x: math.atan2(x, 2.0), 1, 4096),
    ("fpowi3", "math.fpowi %x, %i3", -8.0, 16.0, lambda x: f32(f32(x * x) * x), 0, 0),
    ("fpowim2", "math.fpowi %x, %im2", 0.25, 16.0, lambda x: f32(1 / f32(x * x)), 0, 3),
    ("copysign", "math.copysign %c2, %x", -8.0, 16.0, lambda x: math.copysign(2.0, x), 0, 0),
    ("divf", "arith.divf %c2, %x", 0.25, 16.0, lambda x: 2.0 / x, 0, 3),
]

ABSOLUTE = {"sin": 2 ** -11, "cos": 2 ** -11, "log": 2 ** -21, "log2": 2 ** -21,
            "log10": 2 ** -21, "log1p": 2 ** -21}

# Operations whose binary32 result is rounded twice in the reference (the
# expansion's products) are computed by their lambda; every other result is
# the correctly rounded function value.


def inputs(low, width):
    return [f32(low + width * i / N) for i in range(N)]


def generate():
    lines = []
    w = lines.append
    w("// GENERATED by test/Integration/Inputs/gpu-math.py generate; the checks are")
    w("// that script's `check` (Python's math, rounded to binary32, per-op ulp")
    w("// bounds of docs/gpu-kernels.md).")
    w("// One kernel, one lane per input: lane i of op k computes op k at")
    w("// x_i = low_k + width_k * i / 64 (exact in binary32) and stores it at")
    w("// out[64 k + i]; the host prints every element in order.")
    w("// RUN: sluice-run %s | %python %S/Inputs/gpu-math.py check --backend=cpu")
    w("// RUN: sluice-run --gpu-force-coroutines %s | %python %S/Inputs/gpu-math.py check --backend=cpu")
    w("module attributes {gpu.container_module} {")
    w("  func.func private @sluice_print_f64(f64)")
    w("  gpu.module @kernels {")
    w("    gpu.func @math(%out: memref<?xf32>) kernel {")
    w("      %i = gpu.thread_id x")
    w("      %i32 = arith.index_cast %i : index to i32")
    w("      %fi = arith.sitofp %i32 : i32 to f32")
    w("      %inv = arith.constant 0.015625 : f32")
    w("      %u = arith.mulf %fi, %inv : f32")
    w("      %c2 = arith.constant 2.0 : f32")
    w("      %c1_5 = arith.constant 1.5 : f32")
    w("      %i3 = arith.constant 3 : i32")
    w("      %im2 = arith.constant -2 : i32")
    w("      %c64 = arith.constant 64 : index")
    for k, (name, expr, low, width, _, _, _) in enumerate(OPS):
        w("      // %s on [%r, %r)" % (name, low, low + width))
        w("      %%w%d = arith.constant %r : f32" % (k, width))
        w("      %%l%d = arith.constant %r : f32" % (k, low))
        w("      %%s%d = arith.mulf %%u, %%w%d : f32" % (k, k))
        w("      %%x%d = arith.addf %%s%d, %%l%d : f32" % (k, k, k))
        op = expr.replace("%x", "%%x%d" % k)
        tail = " : f32, i32" if "fpowi" in expr else " : f32"
        w("      %%y%d = %s%s" % (k, op, tail))
        w("      %%b%d = arith.constant %d : index" % (k, N * k))
        w("      %%j%d = arith.addi %%b%d, %%i : index" % (k, k))
        w("      memref.store %%y%d, %%out[%%j%d] : memref<?xf32>" % (k, k))
    w("      gpu.return")
    w("    }")
    w("  }")
    w("  func.func @main() {")
    w("    %c0 = arith.constant 0 : index")
    w("    %c1 = arith.constant 1 : index")
    w("    %c64 = arith.constant 64 : index")
    w("    %%n = arith.constant %d : index" % (N * len(OPS)))
    w("    %out = memref.alloc(%n) : memref<?xf32>")
    w("    gpu.launch_func @kernels::@math blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)")
    w("        args(%out : memref<?xf32>)")
    w("    scf.for %j = %c0 to %n step %c1 {")
    w("      %v = memref.load %out[%j] : memref<?xf32>")
    w("      %d = arith.extf %v : f32 to f64")
    w("      func.call @sluice_print_f64(%d) : (f64) -> ()")
    w("    }")
    w("    return")
    w("  }")
    w("}")
    print("\n".join(lines))


def reference(fn, x):
    try:
        return f32(fn(x))
    except (ValueError, OverflowError):
        return math.nan


def check(backend):
    values = [float(t) for t in sys.stdin.read().split()]
    if len(values) != N * len(OPS):
        print("expected %d values, got %d" % (N * len(OPS), len(values)))
        return 1
    failures = 0
    for k, (name, _, low, width, fn, cpu_bound, vulkan_bound) in enumerate(OPS):
        bound = cpu_bound if backend == "cpu" else vulkan_bound
        worst = 0
        for i, x in enumerate(inputs(low, width)):
            got = values[N * k + i]
            want = reference(fn, x)
            d = ulp_distance(got, want)
            # Vulkan bounds sin and cos by an absolute error of 2^-11 on
            # [-pi, pi] and log, log2 by 2^-21 on [0.5, 2]: within those, a
            # result counts as in bound whatever its ulps.
            if d > bound and backend != "cpu" and name in ABSOLUTE and \
                    abs(got - want) <= ABSOLUTE[name]:
                d = 0
            worst = max(worst, d)
            if d > bound:
                failures += 1
                print("%s(%r): got %r, want %r (%s ulp > %d)" % (name, x, got, want, d, bound))
        print("%s: worst %s ulp (bound %d)" % (name, worst, bound))
    print("FAILURES: %d" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate()
    else:
        sys.exit(check(sys.argv[2].split("=")[1]))
