"""Checks the HIP prelude's f16/bf16 conversions against clang's own.

Reads HIP source (the output of sluice-translate --sluice-to-hip) on stdin,
takes sluice_half_to_double and sluice_double_to_half out of it and writes a
host C++ program (compiled with host-shim.h for the bit casts) that compares them, bit for bit, with clang's _Float16 and
__bf16 conversions (compiler-rt's __extendhfsf2, __truncdfhf2, __truncdfbf2,
...), an implementation independent of Sluice's:
  - half -> double for every one of the 65,536 bit patterns of each type
    (NaNs compare as NaNs);
  - double -> half for every half value, the doubles one ulp either side of
    it, the midpoints between neighbours and one ulp either side of those
    (the ties and near-ties of round to nearest even), values beyond the
    largest finite and below the smallest subnormal, and 200,000 pseudo-random
    doubles.
The program prints "mismatches N" and the first few mismatches.

  sluice-translate --sluice-to-hip K.mlir | python3 half_conversions.py OUT.cpp
"""
import re
import sys

source = sys.stdin.read()
functions = []
for name in ("sluice_half_to_double", "sluice_double_to_half"):
    match = re.search(r"^__device__ inline [^\n]*\b%s\(.*?^}" % name, source,
                      re.S | re.M)
    if not match:
        sys.exit("half_conversions.py: %s not found in the HIP source" % name)
    functions.append(match.group(0).replace("__device__ ", ""))

program = r"""
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
%s
template <typename H> static uint16_t bitsOf(H h) { uint16_t b; std::memcpy(&b, &h, 2); return b; }
template <typename H> static H fromBits(uint16_t b) { H h; std::memcpy(&h, &b, 2); return h; }
static double nextUp(double d) { return std::nextafter(d, INFINITY); }
static double nextDown(double d) { return std::nextafter(d, -INFINITY); }
static int bad = 0;
template <typename H> static void checkType(const char *type, int e, int m) {
  for (uint32_t b = 0; b < 65536; ++b) {
    double want = (double)fromBits<H>((uint16_t)b);
    double got = sluice_half_to_double(b, e, m);
    bool same = std::isnan(want) ? std::isnan(got)
                                 : __double_as_longlong(want) == __double_as_longlong(got);
    if (!same && bad++ < 8)
      std::printf("%%s bits %%04x: to double %%a, want %%a\n", type, b, got, want);
  }
  auto trunc = [&](double d) {
    uint16_t want = bitsOf<H>((H)d);
    uint16_t got = sluice_double_to_half(d, e, m);
    bool same = std::isnan(d) ? std::isnan((double)fromBits<H>(got)) &&
                                    (got >> 15) == (want >> 15)
                              : got == want;
    if (!same && bad++ < 8)
      std::printf("%%s from double %%a: %%04x, want %%04x\n", type, d, got, want);
  };
  for (uint32_t b = 0; b < 65536; ++b) {
    double v = (double)fromBits<H>((uint16_t)b);
    if (std::isnan(v)) { trunc(v); continue; }
    trunc(v); trunc(nextUp(v)); trunc(nextDown(v));
    double next = (double)fromBits<H>((uint16_t)(b + 1));
    if ((b & 0x7fff) != 0x7fff && !std::isnan(next) && !std::isinf(v)) {
      double mid = (v + next) / 2; // exact in double: 53 > 2 * 11 + 1 bits
      trunc(mid); trunc(nextUp(mid)); trunc(nextDown(mid));
    }
  }
  for (double d : {1e300, -1e300, 1e-300, -1e-300, 5e-324, 0.0, -0.0, 65504.0,
                   65519.99, 65520.0, 3.4e38, 3.39e38, 3.3961e38})
    trunc(d);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 200000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    // Exponents around the type's range: |d| from 2^-160 to 2^160.
    uint64_t bits = (state & 0x800fffffffffffffull) |
                    ((uint64_t)(1023 - 160 + (int)((state >> 52) %% 321)) << 52);
    trunc(__longlong_as_double((long long)bits));
  }
}
int main() {
  checkType<_Float16>("f16", 5, 10);
  checkType<__bf16>("bf16", 8, 7);
  std::printf("mismatches %%d\n", bad);
  return 0;
}
""" % "\n".join(functions)

with open(sys.argv[1], "w") as out:
    out.write(program)
