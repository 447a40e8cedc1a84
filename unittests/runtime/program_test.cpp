//===- program_test.cpp - sluice::runtime::Program ------------------------===//
//
// The Program API (program/session.h) on artifacts compiled at build time by
// sluice_add_program: examples/shadow_pool.mlir (an i32 film from a pool,
// checked against the closed form in the example's header, computed here)
// and test/Integration/Inputs/bindings-compute.mlir (f32, f64, a 2-D i64
// buffer, atomics, an f32 uniform; the closed forms of bindings-compute.py,
// computed here). Every error names the binding and both sides.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/program/session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace sluice::runtime;

namespace {

constexpr int kFilm = 4096;

// A 0/1 occluder table of `lights` entries, fixed by a formula.
std::vector<int32_t> occluderTable(int lights) {
  std::vector<int32_t> table(lights);
  for (int l = 0; l < lights; ++l)
    table[l] = (l * 5 + 1) % 3 == 0;
  return table;
}

// examples/shadow_pool.mlir's film after `lanes` lanes:
//   light(p, s) = (7 p + s + shift) mod lights, s = 0, 1
//   film[p mod 4096] += (occluders[light] == 0) * (light + 1)
std::vector<int32_t> expectedFilm(const std::vector<int32_t> &occluders,
                                  uint32_t lanes, uint32_t shift) {
  std::vector<int32_t> film(kFilm, 0);
  uint32_t lights = uint32_t(occluders.size());
  for (uint32_t p = 0; p < lanes; ++p)
    for (uint32_t s = 0; s < 2; ++s) {
      uint32_t light = (7 * p + s + shift) % lights;
      if (occluders[light] == 0)
        film[p % kFilm] += int32_t(light + 1);
    }
  return film;
}

// Shadow rays that reach "shade": those whose light is not occluded.
uint64_t unoccludedRays(const std::vector<int32_t> &occluders, uint32_t lanes,
                        uint32_t shift) {
  uint64_t count = 0;
  for (uint32_t p = 0; p < lanes; ++p)
    for (uint32_t s = 0; s < 2; ++s)
      count += occluders[(7 * p + s + shift) % occluders.size()] == 0;
  return count;
}

class ShadowProgramTest : public ::testing::Test {
protected:
  // Loads the shadow artifact on `backend`; skips when there is no device.
  void load(std::string_view backend, LoadOptions options = {}) {
    Status status =
        Program::loadFile(SLUICE_TEST_SHADOW_ARTIFACT, backend, program, options);
    if (status.kind() == ErrorKind::DeviceUnavailable)
      GTEST_SKIP() << status.describe();
    ASSERT_TRUE(status.ok()) << status.describe();
  }

  void bindInputs(int lights, int shift) {
    occluders = occluderTable(lights);
    ASSERT_TRUE(program.bind("occluders", std::span<const int32_t>(occluders))
                    .ok());
    ASSERT_TRUE(program.setUniform("lights", lights).ok());
    ASSERT_TRUE(program.setUniform("shift", shift).ok());
  }

  void expectFilm(uint32_t lanes, uint32_t shift) {
    std::vector<int32_t> film;
    Status status = program.read("film", film);
    ASSERT_TRUE(status.ok()) << status.describe();
    std::vector<int32_t> want = expectedFilm(occluders, lanes, shift);
    ASSERT_EQ(film.size(), want.size());
    for (int q = 0; q < kFilm; ++q)
      ASSERT_EQ(film[q], want[q]) << "film[" << q << "] after " << lanes
                                  << " lanes";
  }

  // Runs `lanes` lanes and checks the film and the pool's statistics.
  void runAndCheck(RunOptions options, uint32_t shift) {
    RunReport report = program.run(options);
    ASSERT_TRUE(report.ok()) << report.status.describe();
    EXPECT_EQ(report.phase, RunPhase::Schedule);
    EXPECT_EQ(report.lanes, options.lanes);
    EXPECT_EQ(report.lanesFinished, options.lanes);
    EXPECT_GE(report.seconds, 0.0);
    std::vector<std::string> names{"entry", "bounce", "finish",
                                   "shadow.intersect", "shadow.shade"};
    EXPECT_EQ(report.stageNames, names);
    ASSERT_EQ(report.stages.size(), names.size());
    EXPECT_EQ(report.stages[1].itemsPublished, 2u * options.lanes);
    EXPECT_EQ(report.stages[3].invocations, 2u * options.lanes);
    uint64_t shaded = unoccludedRays(occluders, options.lanes, shift);
    EXPECT_EQ(report.stages[4].invocations, shaded);
    EXPECT_EQ(report.stages[3].itemsReleased + report.stages[4].itemsReleased,
              2u * options.lanes);
    expectFilm(options.lanes, shift);
  }

public:
  const std::vector<int32_t> &occludersOf() const { return occluders; }

protected:
  Program program;
  std::vector<int32_t> occluders;
};

TEST_F(ShadowProgramTest, ListsItsBindings) {
  load("cpu");
  EXPECT_TRUE(program.loaded());
  EXPECT_EQ(program.name(), "path");
  EXPECT_EQ(program.backend(), "cpu");
  const std::vector<BindingInfo> &bindings = program.bindings();
  ASSERT_EQ(bindings.size(), 4u);
  EXPECT_EQ(bindings[0].name, "occluders");
  EXPECT_EQ(bindings[0].kind, BindingKind::Buffer);
  EXPECT_EQ(bindings[0].element, ElementType::I32);
  EXPECT_EQ(bindings[0].shape, std::vector<int64_t>{-1});
  EXPECT_EQ(bindings[0].access, BindingAccess::ReadOnly);
  EXPECT_TRUE(bindings[0].read);
  EXPECT_FALSE(bindings[0].written);
  EXPECT_TRUE(bindings[0].required);
  EXPECT_EQ(bindings[1].name, "film");
  EXPECT_EQ(bindings[1].shape, std::vector<int64_t>{kFilm});
  EXPECT_EQ(bindings[1].access, BindingAccess::WriteOnly);
  EXPECT_TRUE(bindings[1].atomic);
  EXPECT_FALSE(bindings[1].required); // never read: starts zeroed
  EXPECT_EQ(bindings[2].name, "lights");
  EXPECT_EQ(bindings[2].kind, BindingKind::Uniform);
  EXPECT_TRUE(bindings[2].shape.empty());
  EXPECT_EQ(bindings[2].access, BindingAccess::ReadOnly);
  EXPECT_TRUE(bindings[2].required);
  EXPECT_EQ(bindings[3].name, "shift");
  EXPECT_EQ(program.findBinding("shift"), &bindings[3]);
  EXPECT_EQ(program.findBinding("nosuch"), nullptr);
  EXPECT_EQ(bindingAccessName(BindingAccess::WriteOnly), "writeonly");
}

TEST_F(ShadowProgramTest, FilmMatchesItsClosedFormOnTheCpu) {
  load("cpu", LoadOptions{4096, 0});
  bindInputs(61, 5);
  RunOptions options;
  options.lanes = 4096;
  runAndCheck(options, 5);
}

TEST_F(ShadowProgramTest, EveryRunStartsFromTheBoundValues) {
  load("cpu");
  bindInputs(61, 3);
  RunOptions options;
  options.lanes = 300;
  options.framePool = 64;
  // Before a run, read() is the bound value (the film: zeros).
  std::vector<int32_t> film;
  ASSERT_TRUE(program.read("film", film).ok());
  EXPECT_EQ(film, std::vector<int32_t>(kFilm, 0));
  std::vector<int32_t> bound;
  ASSERT_TRUE(program.read("occluders", bound).ok());
  EXPECT_EQ(bound, occluders);
  // More lanes than loaded: the kernels are loaded again.
  runAndCheck(options, 3);
  // A second run does not add to the first one's film.
  runAndCheck(options, 3);
  // Other uniforms, other lanes, the state-machine schedule, two workers.
  ASSERT_TRUE(program.setUniform("shift", int64_t(11)).ok());
  options.lanes = 5000; // wraps onto the film
  options.schedule = Schedule::StateMachine;
  options.workers = 2;
  runAndCheck(options, 11);
  // Binding the film again: read() gives the new value until the next run.
  std::vector<int32_t> ones(kFilm, 1);
  ASSERT_TRUE(program.bind("film", std::span<const int32_t>(ones)).ok());
  ASSERT_TRUE(program.read("film", film).ok());
  EXPECT_EQ(film, ones);
  options.schedule = Schedule::Wavefront;
  options.partialAdmission = false;
  options.framePool = 16;
  options.lanes = 64;
  RunReport report = program.run(options);
  ASSERT_TRUE(report.ok()) << report.status.describe();
  std::vector<int32_t> want = expectedFilm(occluders, 64, 11);
  ASSERT_TRUE(program.read("film", film).ok());
  for (int q = 0; q < kFilm; ++q)
    ASSERT_EQ(film[q], want[q] + 1) << "film[" << q << "]";
}

// keepResult(): the next run starts the film from what the last run left in
// it, where it is, so two runs add up (the closed form twice, or once with
// one shift and once with another); a read-only buffer bound once is not
// uploaded again, and binding it again still takes effect. More lanes than
// loaded reload the kernels: the kept film comes off the old device first.
void checkKeptResults(ShadowProgramTest &test, Program &program,
                      uint32_t loadedLanes) {
  RunOptions options;
  options.lanes = 300;
  options.framePool = 64;
  // Nothing to keep before a run, nor in a uniform.
  EXPECT_EQ(program.keepResult("film").message(),
            "binding 'film' (i32[4096], buffer writeonly) holds no run's "
            "result to keep: no run since the program was loaded");
  ASSERT_TRUE(program.run(options).ok());
  EXPECT_EQ(program.keepResult("lights").message(),
            "binding 'lights' (i32, uniform) is a uniform: a run leaves "
            "nothing in it to keep");
  EXPECT_EQ(program.keepResult("flim").kind(), ErrorKind::InvalidArgument);
  ASSERT_TRUE(program.keepResult("film").ok());
  ASSERT_TRUE(program.setUniform("shift", int64_t(7)).ok());
  ASSERT_TRUE(program.run(options).ok());
  const std::vector<int32_t> &occluders = test.occludersOf();
  std::vector<int32_t> film, first = expectedFilm(occluders, 300, 3),
                             second = expectedFilm(occluders, 300, 7);
  ASSERT_TRUE(program.read("film", film).ok());
  for (int q = 0; q < kFilm; ++q)
    ASSERT_EQ(film[q], first[q] + second[q]) << "film[" << q << "]";
  // Bound after the run: the bound value wins, and keepResult() refuses.
  std::vector<int32_t> ones(kFilm, 1);
  ASSERT_TRUE(program.bind("film", std::span<const int32_t>(ones)).ok());
  EXPECT_EQ(program.keepResult("film").message(),
            "binding 'film' (i32[4096], buffer writeonly) holds no run's "
            "result to keep: it was bound after the last run");
  // Other occluders (every light free): the uploaded table changes.
  std::vector<int32_t> free(61, 0);
  ASSERT_TRUE(program.bind("occluders", std::span<const int32_t>(free)).ok());
  ASSERT_TRUE(program.run(options).ok());
  std::vector<int32_t> none = expectedFilm(free, 300, 7);
  ASSERT_TRUE(program.read("film", film).ok());
  for (int q = 0; q < kFilm; ++q)
    ASSERT_EQ(film[q], none[q] + 1) << "film[" << q << "]";
  // The next run keeps that table without uploading it, and its film from
  // a run of more lanes than loaded (a reload) carries the kept film over.
  ASSERT_TRUE(program.keepResult("film").ok());
  options.lanes = loadedLanes + 100;
  ASSERT_TRUE(program.run(options).ok());
  std::vector<int32_t> more = expectedFilm(free, options.lanes, 7);
  ASSERT_TRUE(program.read("film", film).ok());
  for (int q = 0; q < kFilm; ++q)
    ASSERT_EQ(film[q], none[q] + 1 + more[q]) << "film[" << q << "]";
}

TEST_F(ShadowProgramTest, KeptResultsCarryIntoTheNextRunOnTheCpu) {
  load("cpu", LoadOptions{300, 0});
  bindInputs(61, 3);
  checkKeptResults(*this, program, 300);
}

TEST_F(ShadowProgramTest, KeptResultsCarryIntoTheNextRunOnVulkan) {
  load("vulkan", LoadOptions{300, 0});
  bindInputs(61, 3);
  checkKeptResults(*this, program, 300);
}

// The storage a run's frame pool needs is set up before the schedule's
// clock starts (RunReport::setupSeconds), as the pipelines are: a pool of
// four million frames for 16 lanes takes far longer to set up (the frame
// buffer, the frame sets, the publish records) than the 16 lanes take to
// run, in both schedules. Were the set-up inside the clock, seconds would
// exceed setupSeconds. (Each schedule on a program of its own: a second run
// of the same pool keeps the first one's storage.)
TEST_F(ShadowProgramTest, FrameStorageIsSetUpBeforeTheClock) {
  for (Schedule schedule : {Schedule::Wavefront, Schedule::StateMachine}) {
    load("cpu");
    bindInputs(61, 3);
    RunOptions options;
    options.lanes = 16;
    options.framePool = 4u << 20;
    options.schedule = schedule;
    RunReport report = program.run(options);
    ASSERT_TRUE(report.ok()) << report.status.describe();
    EXPECT_GT(report.setupSeconds, 4 * report.seconds)
        << "schedule " << int(schedule) << ": set-up " << report.setupSeconds
        << " s, schedule " << report.seconds << " s";
    expectFilm(16, 3);
  }
}

TEST_F(ShadowProgramTest, FilmMatchesItsClosedFormOnVulkan) {
  load("vulkan", LoadOptions{4096, 0});
  bindInputs(61, 5);
  RunOptions options;
  options.lanes = 4096;
  runAndCheck(options, 5);
  // Fewer lanes reuse the loaded kernels.
  options.lanes = 1000;
  runAndCheck(options, 5);
  EXPECT_NE(program.deviceSummary().find("vulkan device"), std::string::npos)
      << program.deviceSummary();
}

TEST_F(ShadowProgramTest, VulkanRefusesCpuOnlyOptions) {
  load("vulkan");
  bindInputs(7, 0);
  RunOptions options;
  options.workers = 2;
  EXPECT_EQ(program.run(options).status.message(),
            "RunOptions::workers applies to the CPU backend; backend 'vulkan' "
            "takes 0, got 2");
}

TEST_F(ShadowProgramTest, BindingErrorsNameTheBindingAndBothSides) {
  load("cpu");
  std::vector<float> floats(10, 0.f);
  std::vector<int32_t> ints(100, 0);
  auto message = [](const Status &status) {
    EXPECT_EQ(status.kind(), ErrorKind::InvalidArgument);
    return status.message();
  };
  EXPECT_EQ(message(program.bind("flim", std::span<const int32_t>(ints))),
            "'flim' is not a binding of @path; its bindings are: occluders "
            "film lights shift");
  EXPECT_EQ(message(program.bind("occluders", std::span<const float>(floats))),
            "binding 'occluders' (i32[?], buffer readonly) holds i32, but was "
            "given f32");
  EXPECT_EQ(message(program.bind("film", std::span<const int32_t>(ints))),
            "binding 'film' (i32[4096], buffer writeonly) has shape 4096, but "
            "was given shape 100");
  EXPECT_EQ(message(program.bind("film", std::span<const int32_t>(ints),
                                 {64, 64})),
            "binding 'film' (i32[4096], buffer writeonly) was given shape "
            "64x64, which holds 4096 elements, and 100 elements of data");
  EXPECT_EQ(message(program.bind("film", std::span<const int32_t>(ints),
                                 {-100})),
            "binding 'film' (i32[4096], buffer writeonly) was given a negative "
            "extent (-100)");
  HostBuffer truncated;
  truncated.shape = {kFilm};
  truncated.bytes.resize(12);
  EXPECT_EQ(message(program.bind("film", truncated)),
            "binding 'film' (i32[4096], buffer writeonly) was given 12 bytes "
            "for 4096 elements of shape 4096");
  EXPECT_EQ(message(program.bind("lights", std::span<const int32_t>(ints))),
            "binding 'lights' (i32, uniform) is a uniform: set it with "
            "setUniform");
  EXPECT_EQ(message(program.setUniform("film", 3)),
            "binding 'film' (i32[4096], buffer writeonly) is a buffer: bind it "
            "with bind");
  EXPECT_EQ(message(program.setUniform("lights", 2.5)),
            "binding 'lights' (i32, uniform) is i32, but was set a float (f64)");
  EXPECT_EQ(message(program.setUniform("lights", int64_t(5000000000))),
            "binding 'lights' (i32, uniform) cannot hold 5000000000, which "
            "does not fit in i32");
  EXPECT_EQ(message(program.setUniform("nosuch", 1)),
            "'nosuch' is not a binding of @path; its bindings are: occluders "
            "film lights shift");
  std::vector<float> film;
  EXPECT_EQ(message(program.read("film", film)),
            "binding 'film' (i32[4096], buffer writeonly) holds i32, but was "
            "read as f32");
  HostBuffer value;
  EXPECT_EQ(message(program.read("nosuch", value)),
            "'nosuch' is not a binding of @path; its bindings are: occluders "
            "film lights shift");

  // What a run needs.
  RunOptions options;
  EXPECT_EQ(message(program.run(options).status),
            "binding 'occluders' (i32[?], buffer readonly) is not bound (bind) "
            "before the run: the program reads it");
  std::vector<int32_t> table = occluderTable(7);
  ASSERT_TRUE(program.bind("occluders", std::span<const int32_t>(table)).ok());
  ASSERT_TRUE(program.setUniform("lights", 7).ok());
  RunReport report = program.run(options);
  EXPECT_EQ(report.phase, RunPhase::Check);
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(message(report.status),
            "binding 'shift' (i32, uniform) is not set (setUniform) before the "
            "run");
}

TEST_F(ShadowProgramTest, RunOptionsAreChecked) {
  load("cpu");
  bindInputs(7, 1);
  auto message = [&](const RunOptions &options) {
    RunReport report = program.run(options);
    EXPECT_EQ(report.status.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(report.phase, RunPhase::Check);
    EXPECT_FALSE(report.deviceSetupFailed());
    return report.status.message();
  };
  RunOptions options;
  options.lanes = 0;
  EXPECT_EQ(message(options), "RunOptions::lanes must be in [1, 16777216], got 0");
  options = {};
  options.framePool = 0;
  EXPECT_EQ(message(options),
            "RunOptions::framePool must be in [1, 16777216], got 0");
  options = {};
  options.workers = 2000;
  EXPECT_EQ(message(options), "RunOptions::workers must be in [0, 1024], got 2000");
  options = {};
  options.schedule = Schedule::StateMachine;
  options.tracePath = "trace.json";
  EXPECT_EQ(message(options),
            "RunOptions::tracePath records wavefront iterations; the "
            "state-machine schedule has none");
  options = {};
  options.schedule = Schedule::StateMachine;
  options.iterationLogPath = "iterations.txt";
  EXPECT_EQ(message(options),
            "RunOptions::iterationLogPath records wavefront iterations; the "
            "state-machine schedule has none");
  // A protocol fault is the run's status: a frame pool larger than the owner
  // admits with partial admission off.
  options = {};
  options.lanes = 4096;
  options.framePool = 1024;
  options.partialAdmission = false;
  RunReport report = program.run(options);
  EXPECT_EQ(report.phase, RunPhase::Schedule);
  EXPECT_FALSE(report.ok());
  EXPECT_NE(report.status.message().find("partial admission is off"),
            std::string::npos)
      << report.status.describe();
  // An iteration limit.
  options = {};
  options.lanes = 1000;
  options.maxIterations = 3;
  report = program.run(options);
  EXPECT_EQ(report.status.kind(), ErrorKind::IterationLimit)
      << report.status.describe();
}

TEST(ProgramLoadTest, LoadErrors) {
  Program program;
  EXPECT_FALSE(program.loaded());
  HostBuffer value;
  Status status = program.read("film", value);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidState);
  EXPECT_EQ(status.message(),
            "the program is not loaded (Program::load, loadBytes or loadFile "
            "first)");
  EXPECT_EQ(program.run({}).status.kind(), ErrorKind::InvalidState);
  EXPECT_TRUE(program.bindings().empty());

  status = Program::loadFile(SLUICE_TEST_SHADOW_ARTIFACT, "metal", program);
  EXPECT_EQ(status.message(),
            "unknown backend 'metal'; the backends are: cpu, cpu-staged, vulkan, hip");
  status = Program::loadFile(SLUICE_TEST_SHADOW_ARTIFACT, "cpu", program,
                             LoadOptions{0, 0});
  EXPECT_EQ(status.message(),
            "LoadOptions::lanes must be in [1, 16777216], got 0");
  status = Program::loadFile(SLUICE_TEST_SHADOW_ARTIFACT, "vulkan", program,
                             LoadOptions{1, 4});
  EXPECT_EQ(status.message(),
            "LoadOptions::workers applies to the CPU backend; backend 'vulkan' "
            "takes 0, got 4");
  status = Program::loadFile(SLUICE_TEST_SHADOW_ARTIFACT, "cpu", program,
                             LoadOptions{1, 5000});
  EXPECT_EQ(status.message(), "LoadOptions::workers must be in [0, 1024], got 5000");
  status = Program::loadBytes({1, 2, 3}, "cpu", program);
  EXPECT_EQ(status.kind(), ErrorKind::InvalidDescriptor) << status.describe();
  EXPECT_FALSE(program.loaded());
  status = Program::loadFile("/nonexistent/shadow.sluice", "cpu", program);
  EXPECT_FALSE(status.ok());
  EXPECT_FALSE(program.loaded());
}

//===----------------------------------------------------------------------===//
// bindings-compute.mlir: every element type, a 2-D buffer, an f32 uniform
//===----------------------------------------------------------------------===//

class ComputeProgramTest : public ::testing::TestWithParam<const char *> {};

TEST_P(ComputeProgramTest, OutputsMatchTheirClosedForms) {
  Program program;
  Status status =
      Program::loadFile(SLUICE_TEST_COMPUTE_ARTIFACT, GetParam(), program);
  if (status.kind() == ErrorKind::DeviceUnavailable)
    GTEST_SKIP() << status.describe();
  ASSERT_TRUE(status.ok()) << status.describe();
  const uint32_t lanes = 300;
  const float scale = 1.5f;
  std::vector<float> x(lanes), zeros(lanes, 0.f);
  for (uint32_t i = 0; i < lanes; ++i)
    x[i] = 0.25f + 3.75f * float(i) / float(lanes - 1);
  std::vector<double> d0(lanes, 0.0);
  ASSERT_TRUE(program.bind("x", std::span<const float>(x)).ok());
  ASSERT_TRUE(program.bind("y", std::span<const float>(zeros)).ok());
  ASSERT_TRUE(program.bind("d", std::span<const double>(d0)).ok());
  ASSERT_TRUE(program.setUniform("scale", double(scale)).ok());
  // grid, peak and hist are never read by a plain load (only stores and
  // atomics touch them): they may stay unbound and start zeroed. peak is
  // bound anyway.
  EXPECT_FALSE(program.findBinding("hist")->required);
  std::vector<int32_t> peak0{0};
  ASSERT_TRUE(program.bind("peak", std::span<const int32_t>(peak0)).ok());
  std::vector<int64_t> wrong(32, 0);
  EXPECT_EQ(program.bind("grid", std::span<const int64_t>(wrong), {8, 4})
                .message(),
            "binding 'grid' (i64[4x8], buffer writeonly) has shape 4x8, but "
            "was given shape 8x4");
  EXPECT_EQ(program.setUniform("scale", 2).message(),
            "binding 'scale' (f32, uniform) is f32, but was set an integer "
            "(i32)");

  RunOptions options;
  options.lanes = lanes;
  RunReport report = program.run(options);
  ASSERT_TRUE(report.ok()) << report.status.describe();

  // The closed forms of test/Integration/Inputs/bindings-compute.py.
  std::vector<float> y;
  ASSERT_TRUE(program.read("y", y).ok());
  ASSERT_EQ(y.size(), lanes);
  for (uint32_t i = 0; i < lanes; ++i) {
    float v = x[i];
    float power = std::pow(v, scale);
    float l = std::log(std::exp(std::sqrt(v)));
    float one = std::cos(v) * std::cos(v) + std::sin(v) * std::sin(v);
    float floored = std::floor(power);
    // x^S within rounding of an integer n may floor to n or n - 1 on a device.
    if (std::fabs(power - std::round(power)) < 1e-4f &&
        std::fabs(y[i] - (floored + l) * one) > 0.5f)
      floored = floored == std::round(power) ? floored - 1 : std::round(power);
    float want = (floored + l) * one;
    EXPECT_NEAR(y[i], want, 1e-4 * std::fabs(want) + 1e-6) << "y[" << i << "]";
  }
  std::vector<double> d;
  ASSERT_TRUE(program.read("d", d).ok());
  ASSERT_EQ(d.size(), lanes);
  for (uint32_t i = 0; i < lanes; ++i) {
    double w = i;
    double want = std::sqrt(w) * std::sqrt(w) + std::floor(std::fabs(w - 2.5));
    EXPECT_NEAR(d[i], want, 1e-12 * std::fabs(want)) << "d[" << i << "]";
  }
  HostBuffer grid;
  ASSERT_TRUE(program.read("grid", grid).ok());
  EXPECT_EQ(grid.shape, (std::vector<int64_t>{4, 8}));
  std::vector<int64_t> cells;
  ASSERT_TRUE(program.read("grid", cells).ok());
  ASSERT_EQ(cells.size(), 32u);
  for (int64_t lane = 0; lane < 32; ++lane) {
    int64_t want = 0;
    for (int64_t k = 0; k < 4; ++k)
      want += (lane + k) * (lane + k);
    EXPECT_EQ(cells[lane], want) << "grid[" << lane / 8 << ", " << lane % 8 << "]";
  }
  std::vector<int32_t> peak;
  ASSERT_TRUE(program.read("peak", peak).ok());
  int32_t maxPeak = 0;
  for (uint32_t i = 0; i < lanes; ++i)
    maxPeak = std::max<int32_t>(maxPeak, int32_t(7 * i % 100));
  EXPECT_EQ(peak, std::vector<int32_t>{maxPeak});
  std::vector<float> hist;
  ASSERT_TRUE(program.read("hist", hist).ok());
  ASSERT_EQ(hist.size(), 8u);
  for (uint32_t b = 0; b < 8; ++b)
    EXPECT_EQ(hist[b], float((lanes - b + 7) / 8)) << "hist[" << b << "]";
}

INSTANTIATE_TEST_SUITE_P(Backends, ComputeProgramTest,
                         ::testing::Values("cpu", "vulkan"));

} // namespace
