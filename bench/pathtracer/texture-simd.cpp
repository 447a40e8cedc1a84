//===- texture-simd.cpp - section 9's texture, one lane or eight at a time -===//
//
// What a SIMD lowering of the CPU backend's lane loops could win on the
// heavy variant: docs/pathtracer.md section 9's fbm texture (16 octaves of
// value noise) evaluated for 2^20 points one point at a time, as a stage
// kernel's scalar lane loop runs it, and eight points at a time in 8-wide
// vectors (Clang's vector extensions), as a lane loop vectorized across
// lanes would. Prints ns per point of each and how many results differ (the
// same operations in the same order per lane: none).
//
//   clang++-22 -O2 -march=x86-64-v3 -ffp-contract=off \
//       bench/pathtracer/texture-simd.cpp -o /tmp/texture-simd && /tmp/texture-simd
//
//===----------------------------------------------------------------------===//

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

using f8 = float __attribute__((vector_size(32)));
using i8 = int32_t __attribute__((vector_size(32)));
using u8 = uint32_t __attribute__((vector_size(32)));

static float lattice(int32_t ix, int32_t iy, int32_t iz) {
  uint32_t h = (uint32_t(ix) * 0x8DA6B343u) ^ (uint32_t(iy) * 0xD8163841u) ^
               (uint32_t(iz) * 0xCB1AB31Fu);
  h ^= h >> 13;
  h *= 0x5BD1E995u;
  h ^= h >> 15;
  return float(h >> 8) * 0x1p-24f;
}

static f8 lattice(i8 ix, i8 iy, i8 iz) {
  u8 h = ((u8)ix * 0x8DA6B343u) ^ ((u8)iy * 0xD8163841u) ^
         ((u8)iz * 0xCB1AB31Fu);
  h ^= h >> 13;
  h *= 0x5BD1E995u;
  h ^= h >> 15;
  return __builtin_convertvector(h >> 8, f8) * 0x1p-24f;
}

template <typename T> static T lerp(T a, T b, T t) { return a + t * (b - a); }
template <typename T> static T smooth(T f) { return f * f * (3.0f - 2.0f * f); }

// floor(x) as an integer: truncate, then one less below a negative x.
static int32_t cell(float x) {
  int32_t t = int32_t(x);
  return x < float(t) ? t - 1 : t;
}
static i8 cell(f8 x) {
  i8 t = __builtin_convertvector(x, i8);
  return t + (i8)(x < __builtin_convertvector(t, f8)); // true is -1
}

template <typename F, typename I> static F noise(F x, F y, F z) {
  I i = cell(x), j = cell(y), k = cell(z);
  auto real = [](I v) {
    if constexpr (sizeof(I) == 4)
      return float(v);
    else
      return __builtin_convertvector(v, F);
  };
  F sx = smooth<F>(x - real(i)), sy = smooth<F>(y - real(j)),
    sz = smooth<F>(z - real(k));
  F x00 = lerp<F>(lattice(i, j, k), lattice(i + 1, j, k), sx);
  F x10 = lerp<F>(lattice(i, j + 1, k), lattice(i + 1, j + 1, k), sx);
  F x01 = lerp<F>(lattice(i, j, k + 1), lattice(i + 1, j, k + 1), sx);
  F x11 = lerp<F>(lattice(i, j + 1, k + 1), lattice(i + 1, j + 1, k + 1), sx);
  return lerp<F>(lerp<F>(x00, x10, sy), lerp<F>(x01, x11, sy), sz);
}

template <typename F, typename I> static F texture(F x, F y, F z, int octaves) {
  F sum = F{}, norm = F{};
  float amplitude = 1, frequency = 1.0f / 64;
  for (int o = 0; o < octaves; ++o) {
    sum = sum + amplitude * noise<F, I>(x * frequency, y * frequency,
                                        z * frequency);
    norm = norm + amplitude;
    amplitude *= 0.5f;
    frequency *= 2.0f;
  }
  return 0.25f + 0.75f * (sum / norm);
}

int main() {
  constexpr int kPoints = 1 << 20, kOctaves = 16;
  std::vector<float> x(kPoints), y(kPoints), z(kPoints), one(kPoints),
      eight(kPoints);
  for (int i = 0; i < kPoints; ++i) { // points inside the Cornell box
    x[i] = float(i * 37 % 555) + 0.3f;
    y[i] = float(i * 91 % 555) + 0.7f;
    z[i] = float(i * 13 % 555) + 0.1f;
  }
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  for (int i = 0; i < kPoints; ++i)
    one[i] = texture<float, int32_t>(x[i], y[i], z[i], kOctaves);
  auto t1 = Clock::now();
  for (int i = 0; i < kPoints; i += 8) {
    f8 px, py, pz;
    std::memcpy(&px, &x[i], sizeof px);
    std::memcpy(&py, &y[i], sizeof py);
    std::memcpy(&pz, &z[i], sizeof pz);
    f8 t = texture<f8, i8>(px, py, pz, kOctaves);
    std::memcpy(&eight[i], &t, sizeof t);
  }
  auto t2 = Clock::now();
  int differing = 0;
  for (int i = 0; i < kPoints; ++i)
    differing += one[i] != eight[i];
  auto ns = [](Clock::duration d) {
    return std::chrono::duration<double, std::nano>(d).count() / kPoints;
  };
  std::printf("texture (%d octaves): one lane at a time %.1f ns/point, eight "
              "lanes at a time %.1f ns/point (%.2fx); %d of %d results "
              "differ\n",
              kOctaves, ns(t1 - t0), ns(t2 - t1), ns(t1 - t0) / ns(t2 - t1),
              differing, kPoints);
  return differing != 0;
}
