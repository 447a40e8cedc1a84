//===- adapter_conformance_test.cpp - One suite for every backend adapter -===//
//
// The same test bodies run against every backend adapter of compiled
// programs (device/backend.h), parameterized by adapter name, in the manner
// of IREE's HAL CTS: "cpu" always; "vulkan" skips with the reason when the
// runtime was built without it or the machine has no Vulkan device (Mesa
// lavapipe counts as one). The programs are programs/*.mlir, compiled at
// build time by sluice-translate into artifacts holding kernels for both
// backends (CMakeLists.txt). The CPU kernels call the runtime's sluice_rt_*
// symbols, which this executable exports.
//
// Every expected value is a closed form written here (derived in the comment
// next to it, from the program's header), never a recorded run.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/device/hip/hip_driver.h"
#include "sluice/runtime/program/artifact.h"
#include "sluice/runtime/program/bindings.h"
#include "sluice/runtime/program/host_buffer.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <regex>
#include <string>
#include <vector>

namespace sluice::runtime {
namespace {

std::string artifactPath(const std::string &name) {
  // SLUICE_CONFORMANCE_ARTIFACT_DIR in the environment: the artifacts carried
  // to another machine (the GPU machine runs this binary without a build).
  const char *dir = std::getenv("SLUICE_CONFORMANCE_ARTIFACT_DIR");
  return std::string(dir && *dir ? dir : SLUICE_CONFORMANCE_ARTIFACT_DIR) + "/" +
         name + ".sluice";
}

//===----------------------------------------------------------------------===//
// Host buffers
//===----------------------------------------------------------------------===//

template <typename T>
HostBuffer buffer(ElementType element, const std::vector<T> &values,
                  std::vector<int64_t> shape) {
  HostBuffer out;
  out.element = element;
  out.shape = std::move(shape);
  out.bytes.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(out.bytes.data(), values.data(), out.bytes.size());
  return out;
}

HostBuffer i32s(const std::vector<int32_t> &values) {
  return buffer(ElementType::I32, values, {int64_t(values.size())});
}
HostBuffer i32s(const std::vector<int32_t> &values,
                std::vector<int64_t> shape) {
  return buffer(ElementType::I32, values, std::move(shape));
}
HostBuffer f32s(const std::vector<float> &values) {
  return buffer(ElementType::F32, values, {int64_t(values.size())});
}
HostBuffer i32Uniform(int32_t value) {
  return buffer(ElementType::I32, std::vector<int32_t>{value}, {});
}

template <typename T> std::vector<T> elements(const HostBuffer &value) {
  std::vector<T> out(value.bytes.size() / sizeof(T));
  if (!out.empty())
    std::memcpy(out.data(), value.bytes.data(), out.size() * sizeof(T));
  return out;
}

// The distance in units in the last place between two finite floats: the
// number of floats between them (adjacent floats are 1 apart; +0 and -0 are
// 0 apart).
int64_t ulpDistance(float a, float b) {
  auto ordered = [](float x) {
    int32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return bits >= 0 ? int64_t(bits) : -int64_t(bits & 0x7fffffff);
  };
  return std::abs(ordered(a) - ordered(b));
}

//===----------------------------------------------------------------------===//
// The fixture
//===----------------------------------------------------------------------===//

class AdapterConformance : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    adapter = findBackendAdapter(GetParam());
    if (!adapter && GetParam() != "cpu")
      GTEST_SKIP() << "this runtime was built without the '" << GetParam()
                   << "' adapter; it has: " << backendAdapterNames();
    ASSERT_NE(adapter, nullptr)
        << "no cpu adapter; the runtime has: " << backendAdapterNames();
    if (GetParam() == "hip") {
      // Without a driver every test skips with the reason (its first words:
      // "no CUDA driver (libcuda.so.1 ...").
      hip::Driver *driver = nullptr;
      Status status = hip::processDriver(driver);
      if (!driver)
        GTEST_SKIP() << "no hip device: " << status.message();
      Artifact artifact;
      const CompiledBackend *kernels = nullptr;
      if (Artifact::readFile(artifactPath("dispatch"), artifact).ok() &&
          !artifact.backend("hip", kernels).ok())
        GTEST_SKIP() << "the conformance artifacts hold no hip kernels "
                        "(conformance/CMakeLists.txt compiles them for "
                        "SLUICE_CONFORMANCE_BACKENDS)";
    }
  }

  // Reads artifact `name` and loads it onto the adapter's device.
  // DeviceUnavailable (no Vulkan loader or device) comes back to the caller,
  // which skips through SLUICE_LOAD_OR_SKIP.
  Status load(const std::string &name, uint32_t lanes,
              std::unique_ptr<LoadedProgram> &out) {
    Artifact artifact;
    if (Status status = Artifact::readFile(artifactPath(name), artifact);
        !status.ok())
      return status;
    BackendOptions options;
    options.lanes = lanes;
    options.workers = 2; // several CPU workers: atomics really race
    return adapter->load(artifact, options, out);
  }

  const BackendAdapter *adapter = nullptr;
};

#define SLUICE_LOAD_OR_SKIP(var, name, lanes)                                  \
  std::unique_ptr<LoadedProgram> var;                                          \
  do {                                                                         \
    Status loadStatus = load(name, lanes, var);                                \
    if (loadStatus.kind() == ErrorKind::DeviceUnavailable &&                   \
        GetParam() != "cpu")                                                   \
      GTEST_SKIP() << "no " << GetParam()                                      \
                   << " device: " << loadStatus.describe();                    \
    ASSERT_TRUE(loadStatus.ok()) << loadStatus.describe();                     \
    ASSERT_NE(var, nullptr);                                                   \
  } while (0)

#define SLUICE_ASSERT_OK(expr)                                                 \
  do {                                                                         \
    Status okStatus = (expr);                                                  \
    ASSERT_TRUE(okStatus.ok()) << #expr << ": " << okStatus.describe();        \
  } while (0)

RunResult runWavefront(LoadedProgram &loaded, uint32_t lanes,
                       uint32_t framePool = 256) {
  SchedulerOptions options;
  options.framePool = framePool;
  return WavefrontScheduler(loaded.program(), loaded.device(), options)
      .run(lanes);
}

// The global index of main stage `stage`, or of `stage` of owner `owner`
// (main stages first, then each owner's stages in owner order).
uint32_t stageIndex(const ProgramDescriptor &program, const std::string &owner,
                    const std::string &stage) {
  uint32_t index = 0;
  if (owner.empty()) {
    for (const StageDesc &desc : program.mainStages) {
      if (desc.name == stage)
        return index;
      ++index;
    }
    ADD_FAILURE() << "no main stage '" << stage << "'";
    return 0;
  }
  index = uint32_t(program.mainStages.size());
  for (const OwnerDesc &desc : program.owners)
    for (const StageDesc &s : desc.stages) {
      if (desc.name == owner && s.name == stage)
        return index;
      ++index;
    }
  ADD_FAILURE() << "no stage '" << stage << "' of owner '" << owner << "'";
  return 0;
}

HostBuffer readBack(LoadedProgram &loaded, uint32_t index) {
  HostBuffer out;
  Status status = loaded.readBinding(index, out);
  EXPECT_TRUE(status.ok()) << "readBinding(" << index
                           << "): " << status.describe();
  return out;
}

//===----------------------------------------------------------------------===//
// 1. Dispatch without bindings
//===----------------------------------------------------------------------===//

// programs/dispatch.mlir over N lanes (p = 0..N-1):
//   entry, a: every lane once: N invocations each.
//   b: lanes with p mod 4 == 0: p = 0, 4, ..., 4 floor((N-1)/4), that is
//      ceil(N/4) = (N + 3) / 4 invocations.
//   The item is published from b by those lanes, from a by the others:
//      published(a) = N - (N + 3) / 4, published(b) = (N + 3) / 4.
//   hops.hop: item of lane p runs n = p mod 5 + 1 times. Over N = 5q + r
//      lanes: q full cycles of 1 + 2 + 3 + 4 + 5 = 15, then 1 + ... + r:
//      15 q + r (r + 1) / 2 invocations; N releases.
struct DispatchCounts {
  uint64_t entry, a, b, publishedA, publishedB, hop, hopReleased;
};

DispatchCounts dispatchCounts(uint64_t n) {
  uint64_t b = (n + 3) / 4;
  uint64_t q = n / 5, r = n % 5;
  return {n, n, b, n - b, b, 15 * q + r * (r + 1) / 2, n};
}

void expectDispatchCounts(const ProgramDescriptor &program,
                          const RunResult &result, uint64_t lanes) {
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  EXPECT_EQ(result.lanesFinished, lanes);
  DispatchCounts want = dispatchCounts(lanes);
  uint32_t entry = stageIndex(program, "", "entry");
  uint32_t a = stageIndex(program, "", "a");
  uint32_t b = stageIndex(program, "", "b");
  uint32_t hop = stageIndex(program, "hops", "hop");
  ASSERT_EQ(result.stages.size(), 4u);
  EXPECT_EQ(result.stages[entry].invocations, want.entry);
  EXPECT_EQ(result.stages[a].invocations, want.a);
  EXPECT_EQ(result.stages[b].invocations, want.b);
  EXPECT_EQ(result.stages[a].itemsPublished, want.publishedA);
  EXPECT_EQ(result.stages[b].itemsPublished, want.publishedB);
  EXPECT_EQ(result.stages[entry].itemsPublished, 0u);
  EXPECT_EQ(result.stages[hop].invocations, want.hop);
  EXPECT_EQ(result.stages[hop].itemsReleased, want.hopReleased);
  for (uint32_t s = 0; s < result.stages.size(); ++s)
    EXPECT_GE(result.stages[s].dispatches, 1u) << "stage " << s;
}

TEST_P(AdapterConformance, DispatchRunsEveryLane) {
  // 1003 lanes: not a multiple of the 64-lane blocks, of 4 or of 5.
  constexpr uint32_t kLanes = 1003;
  SLUICE_LOAD_OR_SKIP(loaded, "dispatch", kLanes);
  const ProgramDescriptor &program = loaded->program();
  EXPECT_TRUE(program.bindingNames.empty());
  {
    SCOPED_TRACE("1003 lanes, frame pool 256");
    expectDispatchCounts(program, runWavefront(*loaded, kLanes), kLanes);
  }
  // The same device again: a smaller frame pool (re-allocation, partial
  // admission into the 32-slot owner) and fewer lanes than loaded.
  {
    SCOPED_TRACE("37 lanes, frame pool 5");
    expectDispatchCounts(program, runWavefront(*loaded, 37, 5), 37);
  }
  {
    SCOPED_TRACE("1 lane, frame pool 1");
    expectDispatchCounts(program, runWavefront(*loaded, 1, 1), 1);
  }
}

TEST_P(AdapterConformance, DispatchSchedulerIsReusable) {
  // One scheduler, run after run on the same device: the counts restart.
  constexpr uint32_t kLanes = 200;
  SLUICE_LOAD_OR_SKIP(loaded, "dispatch", kLanes);
  SchedulerOptions options;
  options.framePool = 16;
  WavefrontScheduler scheduler(loaded->program(), loaded->device(), options);
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    expectDispatchCounts(loaded->program(), scheduler.run(kLanes), kLanes);
  }
}

TEST_P(AdapterConformance, DispatchBeyondTheLoadedLanesIsAnError) {
  // The per-lane inputs are sized for the lanes the program was loaded for:
  // a run of more is refused (not read past them), on either schedule.
  constexpr uint32_t kLoaded = 10;
  SLUICE_LOAD_OR_SKIP(loaded, "dispatch", kLoaded);
  RunResult result = runWavefront(*loaded, 5000);
  EXPECT_EQ(result.status.kind(), ErrorKind::InvalidArgument)
      << result.status.describe();
  EXPECT_NE(result.status.message().find(
                "device: a run of more than 10 lanes, but the program was "
                "loaded for 10 (BackendOptions::lanes)"),
            std::string::npos)
      << result.status.message();
  if (findBackendAdapter(GetParam())->stateMachine) {
    RunResult machine =
        runStateMachine(loaded->program(), loaded->device(), 11, 256);
    EXPECT_EQ(machine.status.kind(), ErrorKind::InvalidArgument)
        << machine.status.describe();
    EXPECT_NE(machine.status.message().find(
                  " device: a state-machine run of 11 lanes, but the "
                  "program was loaded for 10 (BackendOptions::lanes)"),
              std::string::npos)
        << machine.status.message();
  }
  // The loaded lane count itself still runs.
  expectDispatchCounts(loaded->program(), runWavefront(*loaded, kLoaded),
                       kLoaded);
}

//===----------------------------------------------------------------------===//
// 2. Bindings: read-only input, uniforms, one writer per element
//===----------------------------------------------------------------------===//

// programs/bindings.mlir: @affine(in, out, cube, f, a, b).
enum AffineBinding : uint32_t { kIn, kOut, kCube, kF, kA, kB, kAffineBindings };

// in[i] = (7919 i) mod 10007: non-negative (sqrt below), below 2^14, and
// not monotone.
int32_t affineInput(uint32_t i) { return int32_t((7919u * i) % 10007u); }

// a and b make a * in[i] + b overflow i32 for most i (|a| in[i] reaches
// 10^10): the kernels wrap modulo 2^32 like the unsigned product here.
constexpr int32_t kAValue = -1000003, kBValue = 123456789;

int32_t affineOut(uint32_t i) {
  return int32_t(uint32_t(kAValue) * uint32_t(affineInput(i)) +
                 uint32_t(kBValue));
}

// cube[i / 12][(i / 4) mod 3][i mod 4] = i * i - a for i < 24. The row-major
// position of that element is 12 (i / 12) + 4 ((i / 4) mod 3) + i mod 4,
// which is i (i = 12 (i / 12) + 4 ((i mod 12) / 4) + i mod 4), so element k
// of the flat cube is k * k - a: every one of the 24 is written once.
int32_t cubeElement(uint32_t k) { return int32_t(k * k - uint32_t(kAValue)); }

// f[i] = sqrt(in[i]) / 2 + exp(-(i mod 16) / 16), in double here.
double affineF(uint32_t i) {
  return std::sqrt(double(affineInput(i))) * 0.5 +
         std::exp(-0.0625 * double(i % 16));
}

// The f32 bound. Vulkan's precision of GLSL.std.450: exp(x) within
// 3 + 2|x| ulp (|x| < 1 here: under 5 ulp); sqrt inherited from
// 1 / inversesqrt (2 ulp, then a 2.5 ulp division: under 5 ulp). in[i] <
// 2^24 converts to float exactly, and so does (i mod 16) * -1/16; the
// product by 0.5 is exact. As relative errors (1 ulp of t is at most
// 2^-23 |t|): each term is off by under 5 * 2^-23 of itself, the two
// non-negative terms by under 5 * 2^-23 of their sum, and the add rounds by
// 2^-24 of it. 1 ulp of the sum is at least 2^-24 of it, so that is under
// 10 + 1 ulp, and the reference rounded to float adds 0.5: 12 ulp.
constexpr int64_t kAffineUlps = 12;

std::vector<HostBuffer> affineValues(uint32_t lanes) {
  std::vector<int32_t> in(lanes);
  for (uint32_t i = 0; i < lanes; ++i)
    in[i] = affineInput(i);
  std::vector<HostBuffer> values(kAffineBindings);
  values[kIn] = i32s(in);
  // The outputs start at a sentinel, so an element no lane wrote shows.
  values[kOut] = i32s(std::vector<int32_t>(lanes, INT32_MIN));
  values[kCube] = i32s(std::vector<int32_t>(24, INT32_MIN), {2, 3, 4});
  values[kF] = f32s(std::vector<float>(lanes, -1.0f));
  values[kA] = i32Uniform(kAValue);
  values[kB] = i32Uniform(kBValue);
  return values;
}

void expectAffineOutputs(LoadedProgram &loaded, uint32_t lanes) {
  HostBuffer out = readBack(loaded, kOut);
  EXPECT_EQ(out.element, ElementType::I32);
  EXPECT_EQ(out.shape, std::vector<int64_t>{lanes});
  std::vector<int32_t> outs = elements<int32_t>(out);
  ASSERT_EQ(outs.size(), lanes);
  for (uint32_t i = 0; i < lanes; ++i)
    ASSERT_EQ(outs[i], affineOut(i)) << "out[" << i << "]";

  HostBuffer cube = readBack(loaded, kCube);
  EXPECT_EQ(cube.shape, (std::vector<int64_t>{2, 3, 4}));
  std::vector<int32_t> cubes = elements<int32_t>(cube);
  ASSERT_EQ(cubes.size(), 24u);
  for (uint32_t k = 0; k < 24; ++k)
    EXPECT_EQ(cubes[k], cubeElement(k))
        << "cube[" << k / 12 << "][" << (k / 4) % 3 << "][" << k % 4 << "]";

  HostBuffer f = readBack(loaded, kF);
  EXPECT_EQ(f.element, ElementType::F32);
  std::vector<float> fs = elements<float>(f);
  ASSERT_EQ(fs.size(), lanes);
  for (uint32_t i = 0; i < lanes; ++i) {
    float want = float(affineF(i));
    ASSERT_TRUE(std::isfinite(fs[i])) << "f[" << i << "] = " << fs[i];
    ASSERT_LE(ulpDistance(fs[i], want), kAffineUlps)
        << "f[" << i << "] = " << fs[i] << ", closed form " << want;
  }
}

TEST_P(AdapterConformance, BindingsAffineStaticCubeAndFloat) {
  // 300 lanes: 5 blocks of 64, the last partial.
  constexpr uint32_t kLanes = 300;
  SLUICE_LOAD_OR_SKIP(loaded, "bindings", kLanes);
  const ProgramDescriptor &program = loaded->program();
  EXPECT_EQ(program.bindingNames,
            (std::vector<std::string>{"in", "out", "cube", "f", "a", "b"}));
  std::vector<HostBuffer> values = affineValues(kLanes);
  SLUICE_ASSERT_OK(loaded->bind(values));
  RunResult result = runWavefront(*loaded, kLanes);
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  EXPECT_EQ(result.lanesFinished, kLanes);
  expectAffineOutputs(*loaded, kLanes);

  // The read-only input and the uniforms read back as bound.
  HostBuffer in = readBack(*loaded, kIn);
  EXPECT_EQ(in.shape, values[kIn].shape);
  EXPECT_EQ(in.bytes, values[kIn].bytes);
  HostBuffer a = readBack(*loaded, kA);
  EXPECT_EQ(a.element, ElementType::I32);
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(elements<int32_t>(a), std::vector<int32_t>{kAValue});
  HostBuffer b = readBack(*loaded, kB);
  EXPECT_EQ(elements<int32_t>(b), std::vector<int32_t>{kBValue});
}

TEST_P(AdapterConformance, BindingsReadBeforeRunGivesTheBoundValues) {
  // Freshly loaded, every binding is zeros (a dynamic one: empty); after
  // bind() and before any run, readBinding gives back exactly the values.
  constexpr uint32_t kLanes = 40;
  SLUICE_LOAD_OR_SKIP(loaded, "bindings", kLanes);
  Artifact artifact;
  SLUICE_ASSERT_OK(Artifact::readFile(artifactPath("bindings"), artifact));
  std::vector<HostBuffer> defaults = defaultBindingValues(artifact.program());
  ASSERT_EQ(defaults.size(), size_t(kAffineBindings));
  for (uint32_t i = 0; i < kAffineBindings; ++i) {
    HostBuffer value = readBack(*loaded, i);
    EXPECT_EQ(value.element, defaults[i].element) << "binding " << i;
    EXPECT_EQ(value.shape, defaults[i].shape) << "binding " << i;
    EXPECT_EQ(value.bytes, defaults[i].bytes) << "binding " << i;
  }
  std::vector<HostBuffer> values = affineValues(kLanes);
  SLUICE_ASSERT_OK(loaded->bind(values));
  for (uint32_t i = 0; i < kAffineBindings; ++i) {
    HostBuffer value = readBack(*loaded, i);
    EXPECT_EQ(value.element, values[i].element) << "binding " << i;
    EXPECT_EQ(value.shape, values[i].shape) << "binding " << i;
    EXPECT_EQ(value.bytes, values[i].bytes) << "binding " << i;
  }
}

//===----------------------------------------------------------------------===//
// 3. Atomics on bindings
//===----------------------------------------------------------------------===//

// programs/film.mlir: @film(occluders, film, peak, lights, shift).
enum FilmBinding : uint32_t {
  kOccluders,
  kFilm,
  kPeak,
  kLights,
  kShift,
  kFilmBindings
};

// occluders[l] = 7 for l mod 3 == 1, else 0 (a nonzero other than 1).
std::vector<int32_t> occluders(uint32_t lights) {
  std::vector<int32_t> out(lights);
  for (uint32_t l = 0; l < lights; ++l)
    out[l] = l % 3 == 1 ? 7 : 0;
  return out;
}

// The film formula of the program's header:
//   film[p] = sum over s = 0, 1 of (occ[light(p, s)] == 0) (light(p, s) + 1),
//   light(p, s) = (7 p + s + shift) mod lights.
int32_t filmPixel(uint32_t p, uint32_t lights, uint32_t shift,
                  const std::vector<int32_t> &occ) {
  int32_t sum = 0;
  for (uint32_t s = 0; s < 2; ++s) {
    uint32_t light = (7 * p + s + shift) % lights;
    if (occ[light] == 0)
      sum += int32_t(light + 1);
  }
  return sum;
}

// peak = max(initial, max over p < N of ((37 p) mod 101) - 50). 37 is
// invertible mod 101 (prime), so for N >= 101 the residues cover 0..100 and
// the maximum is 100 - 50 = 50. An unsigned max would pick a negative value
// (0xFFFFFFxx) instead: some residue below 50 occurs for every N >= 1
// (p = 0 gives -50).
constexpr int32_t kPeakOfManyLanes = 50;

struct FilmSetup {
  uint32_t lights = 61, shift = 5;
  int32_t peak = -1000;
  std::vector<int32_t> film; // the film's initial values (its size)
};

std::vector<HostBuffer> filmValues(const FilmSetup &setup) {
  std::vector<HostBuffer> values(kFilmBindings);
  values[kOccluders] = i32s(occluders(setup.lights));
  values[kFilm] = i32s(setup.film);
  values[kPeak] = i32s(std::vector<int32_t>{setup.peak});
  values[kLights] = i32Uniform(int32_t(setup.lights));
  values[kShift] = i32Uniform(int32_t(setup.shift));
  return values;
}

// The film after `runs` runs of `lanes` lanes from setup.film.
std::vector<int32_t> expectedFilm(const FilmSetup &setup, uint32_t lanes,
                                  int32_t runs) {
  std::vector<int32_t> occ = occluders(setup.lights);
  std::vector<int32_t> want = setup.film;
  for (uint32_t p = 0; p < lanes && p < want.size(); ++p)
    want[p] += runs * filmPixel(p, setup.lights, setup.shift, occ);
  return want;
}

void expectFilm(LoadedProgram &loaded, const std::vector<int32_t> &want) {
  HostBuffer film = readBack(loaded, kFilm);
  EXPECT_EQ(film.shape, std::vector<int64_t>{int64_t(want.size())});
  std::vector<int32_t> got = elements<int32_t>(film);
  ASSERT_EQ(got.size(), want.size());
  for (size_t p = 0; p < want.size(); ++p)
    ASSERT_EQ(got[p], want[p]) << "film[" << p << "]";
}

int32_t readPeak(LoadedProgram &loaded) {
  std::vector<int32_t> peak = elements<int32_t>(readBack(loaded, kPeak));
  EXPECT_EQ(peak.size(), 1u);
  return peak.empty() ? 0 : peak[0];
}

// Items through @shadow: 2 per lane published; a ray reaches "shade" iff its
// light is unoccluded.
uint64_t shadedRays(const FilmSetup &setup, uint32_t lanes) {
  std::vector<int32_t> occ = occluders(setup.lights);
  uint64_t shaded = 0;
  for (uint32_t p = 0; p < lanes; ++p)
    for (uint32_t s = 0; s < 2; ++s)
      shaded += occ[(7 * p + s + setup.shift) % setup.lights] == 0;
  return shaded;
}

TEST_P(AdapterConformance, AtomicAddFromPoolAndMaxInStage) {
  constexpr uint32_t kLanes = 1000;
  SLUICE_LOAD_OR_SKIP(loaded, "film", kLanes);
  FilmSetup setup;
  setup.film.assign(kLanes, 0);
  // A small frame pool (admission pressure on the 256-slot pool) and the
  // default one compute the same film.
  for (uint32_t framePool : {256u, 3u}) {
    SCOPED_TRACE("frame pool " + std::to_string(framePool));
    SLUICE_ASSERT_OK(loaded->bind(filmValues(setup)));
    RunResult result = runWavefront(*loaded, kLanes, framePool);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
    EXPECT_EQ(result.lanesFinished, kLanes);
    expectFilm(*loaded, expectedFilm(setup, kLanes, 1));
    EXPECT_EQ(readPeak(*loaded), kPeakOfManyLanes);
    const ProgramDescriptor &program = loaded->program();
    uint32_t bounce = stageIndex(program, "", "bounce");
    uint32_t intersect = stageIndex(program, "shadow", "intersect");
    uint32_t shade = stageIndex(program, "shadow", "shade");
    uint64_t shaded = shadedRays(setup, kLanes);
    EXPECT_EQ(result.stages[bounce].itemsPublished, 2u * kLanes);
    EXPECT_EQ(result.stages[intersect].invocations, 2u * kLanes);
    EXPECT_EQ(result.stages[intersect].itemsReleased, 2u * kLanes - shaded);
    EXPECT_EQ(result.stages[shade].invocations, shaded);
    EXPECT_EQ(result.stages[shade].itemsReleased, shaded);
  }
}

TEST_P(AdapterConformance, AtomicMaxKeepsALargerInitialValue) {
  // peak starts above every v(p) (at most 50): the signed max leaves it.
  constexpr uint32_t kLanes = 500;
  SLUICE_LOAD_OR_SKIP(loaded, "film", kLanes);
  FilmSetup setup;
  setup.peak = 77;
  setup.film.assign(kLanes, 0);
  SLUICE_ASSERT_OK(loaded->bind(filmValues(setup)));
  RunResult result = runWavefront(*loaded, kLanes);
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  EXPECT_EQ(readPeak(*loaded), 77);
  expectFilm(*loaded, expectedFilm(setup, kLanes, 1));
}

//===----------------------------------------------------------------------===//
// 4. Resident buffers across runs
//===----------------------------------------------------------------------===//

TEST_P(AdapterConformance, ResidentBindingsAccumulateAcrossRuns) {
  constexpr uint32_t kLanes = 1000;
  SLUICE_LOAD_OR_SKIP(loaded, "film", kLanes);
  FilmSetup setup;
  setup.film.assign(kLanes, 0);
  SLUICE_ASSERT_OK(loaded->bind(filmValues(setup)));

  // Two runs of one scheduler, no bind() between them: the film the kernels
  // add to is the one the first run left on the device, so it holds twice
  // one run's film (a copy of the bound zeros per run or per dispatch would
  // give once). The peak is a max: idempotent.
  {
    SchedulerOptions options;
    WavefrontScheduler scheduler(loaded->program(), loaded->device(), options);
    for (int run = 0; run < 2; ++run) {
      RunResult result = scheduler.run(kLanes);
      ASSERT_TRUE(result.status.ok()) << result.status.describe();
      ASSERT_EQ(result.lanesFinished, kLanes);
    }
  }
  expectFilm(*loaded, expectedFilm(setup, kLanes, 2));
  EXPECT_EQ(readPeak(*loaded), kPeakOfManyLanes);

  // A third run by a new scheduler (it allocates the device again, with
  // another frame pool): the bindings survive the re-allocation.
  {
    RunResult result = runWavefront(*loaded, kLanes, 64);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
  }
  expectFilm(*loaded, expectedFilm(setup, kLanes, 3));

  // bind() again resets them.
  SLUICE_ASSERT_OK(loaded->bind(filmValues(setup)));
  expectFilm(*loaded, setup.film);
  EXPECT_EQ(readPeak(*loaded), setup.peak);
  {
    RunResult result = runWavefront(*loaded, kLanes);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
  }
  expectFilm(*loaded, expectedFilm(setup, kLanes, 1));
}

TEST_P(AdapterConformance, ResidentBindingsChangeSizeBetweenRuns) {
  constexpr uint32_t kLanes = 1000;
  SLUICE_LOAD_OR_SKIP(loaded, "film", kLanes);
  FilmSetup setup;
  setup.film.assign(kLanes, 0);
  SLUICE_ASSERT_OK(loaded->bind(filmValues(setup)));
  {
    RunResult result = runWavefront(*loaded, kLanes);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
  }
  expectFilm(*loaded, expectedFilm(setup, kLanes, 1));

  // Larger dynamic buffers: 37 lights (occluders of 37), a film of 1300
  // whose initial values film[p] = -3 p are uploaded too; lanes add to the
  // first 1000 and the rest keeps its initial values.
  FilmSetup larger;
  larger.lights = 37;
  larger.shift = 11;
  larger.peak = -1000;
  for (int32_t p = 0; p < 1300; ++p)
    larger.film.push_back(-3 * p);
  SLUICE_ASSERT_OK(loaded->bind(filmValues(larger)));
  {
    RunResult result = runWavefront(*loaded, kLanes);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
  }
  expectFilm(*loaded, expectedFilm(larger, kLanes, 1));
  EXPECT_EQ(readPeak(*loaded), kPeakOfManyLanes);
  HostBuffer occ = readBack(*loaded, kOccluders);
  EXPECT_EQ(occ.shape, std::vector<int64_t>{37});

  // Smaller ones: a film of 150 and 150 lanes (of the 1000 loaded).
  FilmSetup smaller;
  smaller.lights = 13;
  smaller.shift = 0;
  smaller.peak = 49;
  smaller.film.assign(150, 5);
  SLUICE_ASSERT_OK(loaded->bind(filmValues(smaller)));
  {
    RunResult result = runWavefront(*loaded, 150);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
    EXPECT_EQ(result.lanesFinished, 150u);
  }
  expectFilm(*loaded, expectedFilm(smaller, 150, 1));
  // 150 >= 101 lanes: the maximum 50 is reached and beats the initial 49.
  EXPECT_EQ(readPeak(*loaded), kPeakOfManyLanes);
}

//===----------------------------------------------------------------------===//
// 5. Faults and reset
//===----------------------------------------------------------------------===//

// programs/bounds.mlir (--sluice-check-bounds): @oob(table, out[8]).
// The message: "stage 'lookup' invocation K (lane L) indexed binding 'B' at
// element E, out of its bounds". Lane L accesses element L of both
// bindings, so E == L; several lanes may fault in one dispatch and which
// one reports first is the device's choice.
void expectOutOfBounds(const RunResult &result, uint32_t lanes,
                       const std::string &binding, uint32_t firstBad,
                       uint32_t lastBad) {
  ASSERT_EQ(result.status.kind(), ErrorKind::IndexOutOfBounds)
      << result.status.describe();
  EXPECT_LT(result.lanesFinished, lanes);
  static const std::regex pattern(
      "stage 'lookup' invocation ([0-9]+) \\(lane ([0-9]+)\\) indexed "
      "binding '([a-z]+)' at element ([0-9]+), out of its bounds");
  std::smatch match;
  const std::string &message = result.status.message();
  ASSERT_TRUE(std::regex_match(message, match, pattern)) << message;
  EXPECT_EQ(match[3].str(), binding) << message;
  uint32_t lane = uint32_t(std::stoul(match[2].str()));
  uint32_t element = uint32_t(std::stoul(match[4].str()));
  EXPECT_EQ(element, lane) << message;
  EXPECT_GE(element, firstBad) << message;
  EXPECT_LE(element, lastBad) << message;
  EXPECT_LT(std::stoul(match[1].str()), lanes) << message;
}

std::vector<int32_t> tableOf(uint32_t size) {
  std::vector<int32_t> table(size);
  for (uint32_t i = 0; i < size; ++i)
    table[i] = int32_t(10 * i + 1);
  return table;
}

void expectOutIsTable(LoadedProgram &loaded) {
  std::vector<int32_t> out = elements<int32_t>(readBack(loaded, 1));
  ASSERT_EQ(out.size(), 8u);
  for (uint32_t i = 0; i < 8; ++i)
    EXPECT_EQ(out[i], int32_t(10 * i + 1)) << "out[" << i << "]";
}

TEST_P(AdapterConformance, FaultOutOfBoundsThenReset) {
  constexpr uint32_t kLanes = 12;
  SLUICE_LOAD_OR_SKIP(loaded, "bounds", kLanes);
  HostBuffer out8 = i32s(std::vector<int32_t>(8, 0));

  // A table of 12: every load fits; lanes 8..11 store past out (8).
  SLUICE_ASSERT_OK(
      loaded->bind(std::vector<HostBuffer>{i32s(tableOf(12)), out8}));
  {
    SCOPED_TRACE("12 lanes into out[8]");
    expectOutOfBounds(runWavefront(*loaded, kLanes), kLanes, "out", 8, 11);
  }

  // The same LoadedProgram, the same resident bindings, 8 lanes: the
  // device starts clean (no stale fault) and the run completes.
  {
    RunResult result = runWavefront(*loaded, 8);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
    EXPECT_EQ(result.lanesFinished, 8u);
  }
  expectOutIsTable(*loaded);

  // A table of 4 and 8 lanes: lanes 4..7 load past the table (the load
  // precedes the store, and a faulting load stores its 0 in bounds).
  SLUICE_ASSERT_OK(
      loaded->bind(std::vector<HostBuffer>{i32s(tableOf(4)), out8}));
  {
    SCOPED_TRACE("8 lanes from table[4]");
    expectOutOfBounds(runWavefront(*loaded, 8), 8, "table", 4, 7);
  }

  // Re-bound with valid values, the same device runs again.
  SLUICE_ASSERT_OK(
      loaded->bind(std::vector<HostBuffer>{i32s(tableOf(8)), out8}));
  {
    RunResult result = runWavefront(*loaded, 8);
    ASSERT_TRUE(result.status.ok()) << result.status.describe();
    EXPECT_EQ(result.lanesFinished, 8u);
  }
  expectOutIsTable(*loaded);
}

TEST_P(AdapterConformance, FaultOutOfBoundsOnEmptyDynamicBinding) {
  // Unbound, the dynamic table is empty: lane 0 already reads past it.
  constexpr uint32_t kLanes = 3;
  SLUICE_LOAD_OR_SKIP(loaded, "bounds", kLanes);
  expectOutOfBounds(runWavefront(*loaded, kLanes), kLanes, "table", 0, 2);
}

// programs/emit.mlir: @emit(count[1], trips). "publish" publishes `trips`
// items, its declared bound is 1; each item adds 1 to count[0] in "drain".
std::vector<HostBuffer> emitValues(int32_t trips) {
  return {i32s(std::vector<int32_t>{0}), i32Uniform(trips)};
}

// Records how many invocations each dispatch of one stage had.
class DispatchSizes : public IterationObserver {
public:
  explicit DispatchSizes(uint32_t stage) : stage(stage) {}
  void planned(const IterationRecord &record) override {
    if (record.dispatchedStage == stage)
      sizes.push_back(record.dispatched);
  }
  uint32_t stage;
  std::vector<uint32_t> sizes;
};

// 128 lanes in a pool of 64 frames into the 64-slot owner: every dispatch
// of "publish" (and of "entry" and "drain") has exactly 64 invocations, one
// full workgroup. The kernel's loop of publishes goes wrong on lavapipe
// (Mesa 22.3) when a workgroup has an idle 8-lane chunk:
// EmissionLoopInPartialWorkgroup checks it stays fixed. Full workgroups
// keep this test about the fault and the reset.
constexpr uint32_t kEmitLanes = 128, kEmitFramePool = 64;

RunResult runEmit(LoadedProgram &loaded, std::vector<uint32_t> *sizes) {
  SchedulerOptions options;
  options.framePool = kEmitFramePool;
  WavefrontScheduler scheduler(loaded.program(), loaded.device(), options);
  DispatchSizes observer(stageIndex(loaded.program(), "", "publish"));
  scheduler.setObserver(&observer);
  RunResult result = scheduler.run(kEmitLanes);
  if (sizes)
    *sizes = observer.sizes;
  return result;
}

TEST_P(AdapterConformance, FaultEmissionBoundThenReset) {
  SLUICE_LOAD_OR_SKIP(loaded, "emit", kEmitLanes);
  const ProgramDescriptor &program = loaded->program();
  uint32_t publish = stageIndex(program, "", "publish");
  uint32_t drain = stageIndex(program, "sink", "drain");

  // trips = 2: the second publish of every invocation exceeds the bound;
  // the kernels record the fault instead of publishing the item.
  SLUICE_ASSERT_OK(loaded->bind(emitValues(2)));
  RunResult faulted = runEmit(*loaded, nullptr);
  ASSERT_EQ(faulted.status.kind(), ErrorKind::EmissionBoundExceeded)
      << faulted.status.describe();
  static const std::regex pattern(
      "stage 'publish' invocation ([0-9]+) published item #2 into owner "
      "'sink', but its bound is 1");
  EXPECT_TRUE(std::regex_match(faulted.status.message(), pattern))
      << faulted.status.message();
  EXPECT_LT(faulted.lanesFinished, kEmitLanes);

  // trips = 1 (within the bound) on the same LoadedProgram: one item per
  // lane, count = N.
  SLUICE_ASSERT_OK(loaded->bind(emitValues(1)));
  std::vector<uint32_t> sizes;
  RunResult result = runEmit(*loaded, &sizes);
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  EXPECT_EQ(sizes, (std::vector<uint32_t>{64, 64}));
  EXPECT_EQ(result.lanesFinished, kEmitLanes);
  EXPECT_EQ(result.stages[publish].itemsPublished, kEmitLanes);
  EXPECT_EQ(result.stages[drain].invocations, kEmitLanes);
  EXPECT_EQ(elements<int32_t>(readBack(*loaded, 0)),
            std::vector<int32_t>{int32_t(kEmitLanes)});

  // trips = 0: nothing published, every lane finishes.
  SLUICE_ASSERT_OK(loaded->bind(emitValues(0)));
  result = runEmit(*loaded, nullptr);
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  EXPECT_EQ(result.lanesFinished, kEmitLanes);
  EXPECT_EQ(result.stages[drain].invocations, 0u);
  EXPECT_EQ(elements<int32_t>(readBack(*loaded, 0)), std::vector<int32_t>{0});
}

// 100 lanes, trips = 1: the first "publish" dispatch admits 64 (the owner's
// capacity), the second has 36 invocations, so its workgroup has idle
// 8-lane chunks. lavapipe (Mesa 22.3.6) miscompiles a loop of AcquireRelease
// atomics of dynamic trip count there (the loop ends early and the code
// after it never runs); sluice-gpu-to-spirv emits Relaxed atomics (the
// AcquireRelease it replaces named no storage class, so ordered nothing).
TEST_P(AdapterConformance, EmissionLoopInPartialWorkgroup) {
  constexpr uint32_t kLanes = 100;
  SLUICE_LOAD_OR_SKIP(loaded, "emit", kLanes);
  SLUICE_ASSERT_OK(loaded->bind(emitValues(1)));
  RunResult result = runWavefront(*loaded, kLanes);
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  EXPECT_EQ(result.lanesFinished, kLanes);
  EXPECT_EQ(elements<int32_t>(readBack(*loaded, 0)),
            std::vector<int32_t>{int32_t(kLanes)});
}

//===----------------------------------------------------------------------===//
// 6. API misuse
//===----------------------------------------------------------------------===//

void expectInvalid(const Status &status, const std::string &message) {
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument) << status.describe();
  EXPECT_EQ(status.message(), message);
}

TEST_P(AdapterConformance, BindRejectsWrongValues) {
  constexpr uint32_t kLanes = 64;
  SLUICE_LOAD_OR_SKIP(loaded, "bindings", kLanes);
  std::vector<HostBuffer> good = affineValues(kLanes);
  SLUICE_ASSERT_OK(loaded->bind(good));

  // Too few and too many values.
  {
    std::vector<HostBuffer> values(good.begin(), good.end() - 1);
    expectInvalid(loaded->bind(values),
                  "@affine has 6 bindings, but 5 values were bound");
    values = good;
    values.push_back(i32Uniform(1));
    expectInvalid(loaded->bind(values),
                  "@affine has 6 bindings, but 7 values were bound");
    expectInvalid(loaded->bind({}),
                  "@affine has 6 bindings, but 0 values were bound");
  }
  // The wrong element type, for a buffer and for a uniform.
  {
    std::vector<HostBuffer> values = good;
    values[kIn] = f32s(std::vector<float>(kLanes, 1.0f));
    expectInvalid(loaded->bind(values),
                  "binding 'in' (i32[?], buffer readonly) was bound a buffer "
                  "of f32");
    values = good;
    values[kB] = buffer(ElementType::I64, std::vector<int64_t>{1}, {});
    expectInvalid(loaded->bind(values),
                  "binding 'b' (i32, uniform) was bound a buffer of i64");
  }
  // The wrong static shape, the wrong rank, a uniform given a buffer.
  {
    std::vector<HostBuffer> values = good;
    values[kCube] = i32s(std::vector<int32_t>(24, 0), {3, 2, 4});
    expectInvalid(loaded->bind(values),
                  "binding 'cube' (i32[2x3x4], buffer writeonly) was bound a "
                  "buffer of shape 3x2x4");
    values[kCube] = i32s(std::vector<int32_t>(24, 0), {24});
    expectInvalid(loaded->bind(values),
                  "binding 'cube' (i32[2x3x4], buffer writeonly) was bound a "
                  "buffer of shape 24");
    values = good;
    values[kOut] = i32s(std::vector<int32_t>(kLanes, 0), {8, 8});
    expectInvalid(loaded->bind(values),
                  "binding 'out' (i32[?], buffer writeonly) was bound a "
                  "buffer of shape 8x8");
    values = good;
    values[kA] = i32s(std::vector<int32_t>{3});
    expectInvalid(loaded->bind(values),
                  "binding 'a' (i32, uniform) was bound a buffer of shape 1");
  }
  // Bytes that do not match the shape.
  {
    std::vector<HostBuffer> values = good;
    values[kF].bytes.resize(values[kF].bytes.size() - 2);
    expectInvalid(loaded->bind(values),
                  "binding 'f' (f32[?], buffer writeonly) was bound 254 bytes "
                  "for 64 elements");
  }
  // readBinding out of range.
  {
    HostBuffer out;
    expectInvalid(loaded->readBinding(kAffineBindings, out),
                  "readBinding(6): the program has 6 bindings");
    expectInvalid(loaded->readBinding(UINT32_MAX, out),
                  "readBinding(4294967295): the program has 6 bindings");
  }

  // No failed bind() changed what is resident: a run computes from `good`.
  RunResult result = runWavefront(*loaded, kLanes);
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  expectAffineOutputs(*loaded, kLanes);
}

TEST_P(AdapterConformance, BindRejectsValuesForAProgramWithoutBindings) {
  constexpr uint32_t kLanes = 8;
  SLUICE_LOAD_OR_SKIP(loaded, "dispatch", kLanes);
  SLUICE_ASSERT_OK(loaded->bind({}));
  expectInvalid(loaded->bind(std::vector<HostBuffer>{i32Uniform(1)}),
                "@dispatch has 0 bindings, but 1 values were bound");
  HostBuffer out;
  expectInvalid(loaded->readBinding(0, out),
                "readBinding(0): the program has 0 bindings");
  expectDispatchCounts(loaded->program(), runWavefront(*loaded, kLanes),
                       kLanes);
}

TEST_P(AdapterConformance, DeviceMisuseIsAnError) {
  constexpr uint32_t kLanes = 16;
  SLUICE_LOAD_OR_SKIP(loaded, "dispatch", kLanes);
  Device &device = loaded->device();
  const ProgramDescriptor &program = loaded->program();

  // Before any allocate(): readCounts is out of order.
  Observation observation;
  Status status = device.readCounts(observation);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidState) << status.describe();
  EXPECT_NE(status.message().find("readCounts() before allocate()"),
            std::string::npos)
      << status.message();

  ProgramShape shape;
  SLUICE_ASSERT_OK(ProgramShape::build(program, shape));
  // A frame pool of 0 frames.
  status = device.allocate(program, shape, 0);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument) << status.describe();
  EXPECT_NE(status.message().find("frame pool of 0 frames"), std::string::npos)
      << status.message();

  // A dispatch of a stage that does not exist surfaces at readCounts.
  SLUICE_ASSERT_OK(device.allocate(program, shape, 8));
  device.reset();
  device.dispatch(shape.totalStageCount() + 3, 1);
  status = device.readCounts(observation);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument) << status.describe();
  EXPECT_NE(status.message().find("dispatch of stage 7 out of range"),
            std::string::npos)
      << status.message();

  // A refill beyond the free frames.
  device.reset();
  device.refill(9);
  status = device.readCounts(observation);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument) << status.describe();
  EXPECT_NE(status.message().find("refill of 9 lanes but only 8 frames are "
                                  "free"),
            std::string::npos)
      << status.message();

  // The device recovers: a scheduler run after the misuse is correct.
  expectDispatchCounts(program, runWavefront(*loaded, kLanes), kLanes);
}

//===----------------------------------------------------------------------===//
// 7. The state-machine schedule
//===----------------------------------------------------------------------===//

TEST_P(AdapterConformance, StateMachineMatchesWavefront) {
  // Every adapter runs it: the cpu adapter on its worker pool, the discrete
  // ones (cpu-staged, vulkan) as the compiled megakernel.
  EXPECT_TRUE(adapter->stateMachine) << GetParam();
  constexpr uint32_t kLanes = 1000;
  SLUICE_LOAD_OR_SKIP(loaded, "film", kLanes);
  FilmSetup setup;
  setup.film.assign(kLanes, 0);

  SLUICE_ASSERT_OK(loaded->bind(filmValues(setup)));
  RunResult wavefront = runWavefront(*loaded, kLanes);
  ASSERT_TRUE(wavefront.status.ok()) << wavefront.status.describe();
  HostBuffer wavefrontFilm = readBack(*loaded, kFilm);
  int32_t wavefrontPeak = readPeak(*loaded);

  SLUICE_ASSERT_OK(loaded->bind(filmValues(setup)));
  RunResult machine =
      runStateMachine(loaded->program(), loaded->device(), kLanes, 256);
  ASSERT_TRUE(machine.status.ok()) << machine.status.describe();
  EXPECT_EQ(machine.schedule, Schedule::StateMachine);
  EXPECT_EQ(machine.lanesFinished, kLanes);
  EXPECT_EQ(readBack(*loaded, kFilm).bytes, wavefrontFilm.bytes);
  EXPECT_EQ(readPeak(*loaded), wavefrontPeak);
  // And both are the closed form.
  expectFilm(*loaded, expectedFilm(setup, kLanes, 1));
  EXPECT_EQ(readPeak(*loaded), kPeakOfManyLanes);
  // Same per-stage invocation counts (dispatches differ by design).
  ASSERT_EQ(machine.stages.size(), wavefront.stages.size());
  for (size_t s = 0; s < machine.stages.size(); ++s) {
    EXPECT_EQ(machine.stages[s].invocations, wavefront.stages[s].invocations)
        << "stage " << s;
    EXPECT_EQ(machine.stages[s].itemsPublished,
              wavefront.stages[s].itemsPublished)
        << "stage " << s;
    EXPECT_EQ(machine.stages[s].itemsReleased,
              wavefront.stages[s].itemsReleased)
        << "stage " << s;
  }

  // Without re-binding, a second state-machine run adds to the same film.
  machine = runStateMachine(loaded->program(), loaded->device(), kLanes, 256);
  ASSERT_TRUE(machine.status.ok()) << machine.status.describe();
  expectFilm(*loaded, expectedFilm(setup, kLanes, 2));
}

// The hip adapter runs in its own executable (SluiceRuntimeHipConformanceTests,
// not ci-required: CI has no GPU), built from this file with
// SLUICE_CONFORMANCE_ADAPTERS="hip".
#ifndef SLUICE_CONFORMANCE_ADAPTERS
#define SLUICE_CONFORMANCE_ADAPTERS "cpu", "cpu-staged", "vulkan"
#endif
INSTANTIATE_TEST_SUITE_P(Adapters, AdapterConformance,
                         ::testing::Values(SLUICE_CONFORMANCE_ADAPTERS),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The registry itself: cpu first, names resolve, unknown ones do not.
TEST(AdapterRegistry, CpuFirstAndLookupByName) {
  std::span<const BackendAdapter> adapters = backendAdapters();
  ASSERT_FALSE(adapters.empty());
  EXPECT_EQ(adapters.front().name, "cpu");
  for (const BackendAdapter &adapter : adapters) {
    EXPECT_EQ(findBackendAdapter(adapter.name), &adapter);
    EXPECT_NE(adapter.load, nullptr) << adapter.name;
    EXPECT_NE(backendAdapterNames().find(adapter.name), std::string::npos);
  }
  EXPECT_EQ(findBackendAdapter("tpu"), nullptr);
  EXPECT_EQ(findBackendAdapter(""), nullptr);
}

} // namespace
} // namespace sluice::runtime
