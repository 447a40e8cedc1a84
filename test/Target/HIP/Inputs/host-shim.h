// Just enough of HIP for the generated source of a kernel without barriers,
// shared memory or atomics to compile as host C++ and run as one thread
// (host-run.test). Not a HIP emulator: anything else fails to compile.
#include <stdint.h>
#define __global__
#define __device__
#define __launch_bounds__(...)
struct SluiceHostDim3 {
  unsigned x, y, z;
};
static SluiceHostDim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0};
static SluiceHostDim3 blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
static const int warpSize = 32;
// The bit casts of the prelude's half-float conversions.
static inline long long __double_as_longlong(double d) {
  long long v;
  __builtin_memcpy(&v, &d, sizeof v);
  return v;
}
static inline double __longlong_as_double(long long v) {
  double d;
  __builtin_memcpy(&d, &v, sizeof d);
  return d;
}
// The prelude's subgroup reductions reference __shfl_xor; no kernel this
// test runs calls them (it would need the other lanes of a warp).
static inline int __shfl_xor(int value, int) { return value; }
