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
