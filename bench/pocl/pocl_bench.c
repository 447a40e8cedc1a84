/* Runs bench/pocl/barrier_kernels.cl on the first OpenCL CPU device (PoCL)
 * with the inputs and sizes of the examples in examples/barrier, checks each
 * result against a serial C evaluation, and prints one line per kernel:
 *   <kernel> pocl_ms <best of reps> single_pass_ms <best plain C single pass>
 * Usage: pocl_bench <kernels.cl> <reps> */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cl_int status_ = (call);                                                   \
    if (status_ != CL_SUCCESS) {                                               \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call,     \
              status_);                                                        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static double nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static cl_context context;
static cl_command_queue queue;
static cl_program program;
static int reps;

static char *readFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc(size + 1);
  if (fread(text, 1, size, f) != (size_t)size)
    exit(1);
  text[size] = 0;
  fclose(f);
  return text;
}

static cl_mem buffer(size_t bytes, void *host) {
  cl_int status;
  cl_mem mem = clCreateBuffer(
      context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
      host, &status);
  CHECK(status);
  return mem;
}

/* Best time of `reps` launches after one warm-up launch. */
static double timeKernel(cl_kernel kernel, cl_uint dims, const size_t *global,
                         const size_t *local) {
  double best = 1e30;
  for (int r = 0; r <= reps; ++r) {
    double t0 = nowMs();
    CHECK(clEnqueueNDRangeKernel(queue, kernel, dims, NULL, global, local, 0,
                                 NULL, NULL));
    CHECK(clFinish(queue));
    double t = nowMs() - t0;
    if (r > 0 && t < best)
      best = t;
  }
  return best;
}

static void report(const char *name, double pocl, double single, int bad) {
  printf("%s pocl_ms %.3f single_pass_ms %.3f mismatches %d\n", name, pocl,
         single, bad);
  fflush(stdout);
}

static volatile uint64_t sink;

static void benchReduce(void) {
  const size_t n = 16777216, groups = n / 256;
  uint32_t *in = malloc(n * 4), *out = malloc(groups * 4);
  for (size_t i = 0; i < n; ++i)
    in[i] = i % 1000;
  cl_mem dIn = buffer(n * 4, in), dOut = buffer(groups * 4, NULL);
  cl_int status;
  cl_kernel k = clCreateKernel(program, "reduce", &status);
  CHECK(status);
  CHECK(clSetKernelArg(k, 0, sizeof dIn, &dIn));
  CHECK(clSetKernelArg(k, 1, sizeof dOut, &dOut));
  size_t global = n, local = 256;
  double t = timeKernel(k, 1, &global, &local);
  CHECK(clEnqueueReadBuffer(queue, dOut, CL_TRUE, 0, groups * 4, out, 0, NULL,
                            NULL));
  uint64_t total = 0;
  for (size_t b = 0; b < groups; ++b)
    total += out[b];
  double single = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = nowMs();
    uint64_t s = 0;
    for (size_t i = 0; i < n; ++i)
      s += in[i];
    sink = s;
    double dt = nowMs() - t0;
    if (dt < single)
      single = dt;
  }
  report("reduction", t, single, total != 8380134720ull);
  clReleaseMemObject(dIn);
  clReleaseMemObject(dOut);
  clReleaseKernel(k);
  free(in);
  free(out);
}

static void benchScan(void) {
  const size_t n = 16777216;
  uint32_t *in = malloc(n * 4), *out = malloc(n * 4), *ref = malloc(n * 4);
  for (size_t i = 0; i < n; ++i)
    in[i] = i % 7;
  cl_mem dIn = buffer(n * 4, in), dOut = buffer(n * 4, NULL);
  cl_int status;
  cl_kernel k = clCreateKernel(program, "scan", &status);
  CHECK(status);
  CHECK(clSetKernelArg(k, 0, sizeof dIn, &dIn));
  CHECK(clSetKernelArg(k, 1, sizeof dOut, &dOut));
  size_t global = n, local = 256;
  double t = timeKernel(k, 1, &global, &local);
  CHECK(
      clEnqueueReadBuffer(queue, dOut, CL_TRUE, 0, n * 4, out, 0, NULL, NULL));
  double single = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = nowMs();
    for (size_t b = 0; b < n; b += 256) {
      uint32_t run = 0;
      for (size_t i = b; i < b + 256; ++i)
        ref[i] = run += in[i];
    }
    double dt = nowMs() - t0;
    if (dt < single)
      single = dt;
  }
  int bad = memcmp(out, ref, n * 4) != 0;
  report("scan", t, single, bad);
  clReleaseMemObject(dIn);
  clReleaseMemObject(dOut);
  clReleaseKernel(k);
  free(in);
  free(out);
  free(ref);
}

static void benchTranspose(void) {
  const size_t n = 4096;
  uint32_t *in = malloc(n * n * 4), *out = malloc(n * n * 4),
           *ref = malloc(n * n * 4);
  for (size_t i = 0; i < n * n; ++i)
    in[i] = (uint32_t)i;
  cl_mem dIn = buffer(n * n * 4, in), dOut = buffer(n * n * 4, NULL);
  cl_int status;
  cl_kernel k = clCreateKernel(program, "transpose", &status);
  CHECK(status);
  CHECK(clSetKernelArg(k, 0, sizeof dIn, &dIn));
  CHECK(clSetKernelArg(k, 1, sizeof dOut, &dOut));
  size_t global[2] = {n, n}, local[2] = {16, 16};
  double t = timeKernel(k, 2, global, local);
  CHECK(clEnqueueReadBuffer(queue, dOut, CL_TRUE, 0, n * n * 4, out, 0, NULL,
                            NULL));
  double single = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = nowMs();
    for (size_t bi = 0; bi < n; bi += 16)
      for (size_t bj = 0; bj < n; bj += 16)
        for (size_t i = bi; i < bi + 16; ++i)
          for (size_t j = bj; j < bj + 16; ++j)
            ref[j * n + i] = in[i * n + j];
    double dt = nowMs() - t0;
    if (dt < single)
      single = dt;
  }
  int bad = memcmp(out, ref, n * n * 4) != 0;
  report("transpose", t, single, bad);
  clReleaseMemObject(dIn);
  clReleaseMemObject(dOut);
  clReleaseKernel(k);
  free(in);
  free(out);
  free(ref);
}

static void benchRounds(void) {
  const size_t n = 1048576, groups = n / 256;
  uint32_t *in = malloc(n * 4), *trips = malloc(groups * 4),
           *out = malloc(n * 4), *ref = malloc(n * 4);
  for (size_t i = 0; i < n; ++i)
    in[i] = i % 13;
  for (size_t b = 0; b < groups; ++b)
    trips[b] = b % 8 + 1;
  cl_mem dIn = buffer(n * 4, in), dTrips = buffer(groups * 4, trips),
         dOut = buffer(n * 4, NULL);
  cl_int status;
  cl_kernel k = clCreateKernel(program, "rounds", &status);
  CHECK(status);
  CHECK(clSetKernelArg(k, 0, sizeof dIn, &dIn));
  CHECK(clSetKernelArg(k, 1, sizeof dTrips, &dTrips));
  CHECK(clSetKernelArg(k, 2, sizeof dOut, &dOut));
  size_t global = n, local = 256;
  double t = timeKernel(k, 1, &global, &local);
  CHECK(
      clEnqueueReadBuffer(queue, dOut, CL_TRUE, 0, n * 4, out, 0, NULL, NULL));
  double single = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = nowMs();
    for (size_t i = 0; i < n; ++i) {
      size_t b = i / 256, right = b * 256 + (i % 256 + 1) % 256;
      uint32_t acc = 0;
      for (uint32_t round = 0; round < trips[b]; ++round)
        acc += in[right] + round;
      ref[i] = acc;
    }
    double dt = nowMs() - t0;
    if (dt < single)
      single = dt;
  }
  int bad = memcmp(out, ref, n * 4) != 0;
  report("data_dependent_loop", t, single, bad);
  clReleaseMemObject(dIn);
  clReleaseMemObject(dTrips);
  clReleaseMemObject(dOut);
  clReleaseKernel(k);
  free(in);
  free(trips);
  free(out);
  free(ref);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <kernels.cl> <reps>\n", argv[0]);
    return 2;
  }
  reps = atoi(argv[2]);
  if (reps < 1)
    reps = 1;
  cl_platform_id platforms[8];
  cl_uint platformCount = 0;
  CHECK(clGetPlatformIDs(8, platforms, &platformCount));
  cl_device_id device = NULL;
  for (cl_uint p = 0; p < platformCount && !device; ++p)
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_CPU, 1, &device, NULL) !=
        CL_SUCCESS)
      device = NULL;
  if (!device) {
    fprintf(stderr, "no OpenCL CPU device (is pocl-opencl-icd installed?)\n");
    return 1;
  }
  char name[256];
  CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL));
  cl_uint units = 0;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units,
                        &units, NULL));
  fprintf(stderr, "OpenCL device: %s, %u compute units\n", name, units);
  cl_int status;
  context = clCreateContext(NULL, 1, &device, NULL, NULL, &status);
  CHECK(status);
  queue = clCreateCommandQueue(context, device, 0, &status);
  CHECK(status);
  char *source = readFile(argv[1]);
  program = clCreateProgramWithSource(context, 1, (const char **)&source, NULL,
                                      &status);
  CHECK(status);
  if (clBuildProgram(program, 1, &device, "-cl-std=CL1.2", NULL, NULL) !=
      CL_SUCCESS) {
    char log[16384];
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log,
                          log, NULL);
    fprintf(stderr, "build failed:\n%s\n", log);
    return 1;
  }
  benchReduce();
  benchScan();
  benchTranspose();
  benchRounds();
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  free(source);
  return 0;
}
