//===- wavefront_demo.cpp - Shadow-pool program on the CPU device ---------===//
//
// Runs the shadow-pool program (shadow_program.h) with the wavefront or the
// state-machine schedule, prints per-stage statistics and checks the pixel
// checksum and per-stage invocation counts against a sequential reference
// that evaluates every lane directly, without any scheduler.
//
//===----------------------------------------------------------------------===//

#include "shadow_program.h"

#include "sluice/runtime/device/cpu_device.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace sluice::runtime;

namespace {

struct DemoOptions {
  uint32_t lanes = 4096;
  uint32_t capacity = 64;
  uint32_t framePool = 256;
  uint32_t workers = 0;
  Schedule schedule = Schedule::Wavefront;
  bool partialAdmission = true;
  FrameLayoutKind layout = FrameLayoutKind::ArrayOfStructs;
  std::string tracePath;
};

constexpr uint32_t kMaxBounces = 4;
constexpr uint32_t kMaxShadeLoops = 3;

void printUsage(FILE *out) {
  std::fprintf(
      out,
      "usage: sluice-wavefront-demo [options]\n"
      "Runs the shadow-pool program (generate -> trace -> finish; trace\n"
      "publishes into the owner shadow {intersect, shade}) on the CPU device.\n"
      "\n"
      "  --lanes N              lanes (pixels) to run            [4096]\n"
      "  --capacity C           shadow owner capacity, >= 1      [64]\n"
      "  --frame-pool P         frames in the pool, >= 1          [256]\n"
      "  --schedule S           wavefront | state-machine         [wavefront]\n"
      "  --workers W            CPU workers, 0 = one per core     [0]\n"
      "  --layout L             aos | soa frame layout            [aos]\n"
      "  --no-partial-admission admit producers all-or-nothing\n"
      "  --trace FILE           write a Chrome trace (Perfetto) of every\n"
      "                         wavefront iteration to FILE\n"
      "  --help                 show this text\n");
}

bool parseCount(const char *text, uint64_t minimum, uint64_t maximum,
                uint32_t &out) {
  if (!text || !*text || *text == '-' || *text == '+')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < minimum || value > maximum)
    return false;
  out = uint32_t(value);
  return true;
}

// Returns 0 to run, 1 after --help, 2 on a bad command line.
int parseOptions(int argc, char **argv, DemoOptions &options) {
  auto bad = [](const std::string &message) {
    std::fprintf(stderr, "sluice-wavefront-demo: %s\n", message.c_str());
    std::fprintf(stderr, "run 'sluice-wavefront-demo --help' for usage\n");
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    std::string option = argv[i];
    if (option == "--help" || option == "-h") {
      printUsage(stdout);
      return 1;
    }
    if (option == "--no-partial-admission") {
      options.partialAdmission = false;
      continue;
    }
    bool takesValue = option == "--lanes" || option == "--capacity" ||
                      option == "--frame-pool" || option == "--schedule" ||
                      option == "--workers" || option == "--trace" ||
                      option == "--layout";
    if (!takesValue)
      return bad("unknown option '" + option + "'");
    if (i + 1 >= argc)
      return bad("option '" + option + "' needs a value");
    const char *value = argv[++i];
    if (option == "--lanes") {
      if (!parseCount(value, 0, UINT32_MAX, options.lanes))
        return bad("--lanes expects an integer in [0, 4294967295], got '" +
                   std::string(value) + "'");
    } else if (option == "--capacity") {
      if (!parseCount(value, 1, UINT32_MAX, options.capacity))
        return bad("--capacity expects an integer >= 1, got '" +
                   std::string(value) + "'");
    } else if (option == "--frame-pool") {
      if (!parseCount(value, 1, 1u << 24, options.framePool))
        return bad("--frame-pool expects an integer in [1, 16777216], got '" +
                   std::string(value) + "'");
    } else if (option == "--workers") {
      if (!parseCount(value, 0, 1024, options.workers))
        return bad("--workers expects an integer in [0, 1024], got '" +
                   std::string(value) + "'");
    } else if (option == "--schedule") {
      if (std::strcmp(value, "wavefront") == 0)
        options.schedule = Schedule::Wavefront;
      else if (std::strcmp(value, "state-machine") == 0)
        options.schedule = Schedule::StateMachine;
      else
        return bad("--schedule expects 'wavefront' or 'state-machine', got '" +
                   std::string(value) + "'");
    } else if (option == "--layout") {
      if (std::strcmp(value, "aos") == 0)
        options.layout = FrameLayoutKind::ArrayOfStructs;
      else if (std::strcmp(value, "soa") == 0)
        options.layout = FrameLayoutKind::StructOfArrays;
      else
        return bad("--layout expects 'aos' or 'soa', got '" +
                   std::string(value) + "'");
    } else {
      if (!*value)
        return bad("--trace expects a file name");
      options.tracePath = value;
    }
  }
  if (options.schedule == Schedule::StateMachine && !options.tracePath.empty())
    return bad("--trace records wavefront iterations; the state-machine "
               "schedule has none");
  return 0;
}

// Expected per-stage invocations and the checksum, lane by lane.
struct Reference {
  uint64_t checksum = 0;
  uint64_t generate = 0, trace = 0, finish = 0, intersect = 0, shade = 0;
};

Reference computeReference(uint32_t lanes) {
  Reference ref;
  for (uint32_t pixel = 0; pixel < lanes; ++pixel) {
    uint64_t rng = shadow_mix(pixel), radiance = 0, shaded = 0;
    uint32_t bounces = shadow_bounce_limit(pixel, kMaxBounces);
    for (uint32_t bounce = 0; bounce < bounces; ++bounce) {
      rng = shadow_mix(rng);
      radiance += rng & 0xffu;
      if (!shadow_casts(rng))
        continue;
      ++ref.intersect;
      uint64_t seed = shadow_mix(rng ^ 0x5eedu);
      if (shadow_occluded(seed))
        continue;
      uint64_t loops = 1 + seed % kMaxShadeLoops;
      uint64_t contribution = (rng >> 16) & 0xfffu;
      // Shade adds contribution * l for l = 1..loops.
      shaded += contribution * (loops * (loops + 1) / 2);
      ref.shade += loops;
    }
    ref.generate += 1;
    ref.trace += bounces;
    ref.finish += 1;
    ref.checksum += (radiance + shaded) * (2 * uint64_t(pixel) + 1);
  }
  return ref;
}

ProgramDescriptor buildProgram(const DemoOptions &options,
                               shadow_globals &globals) {
  ProgramDescriptor program;
  program.name = "shadow-pool";
  program.mainStages = {{"generate", shadow_generate},
                        {"trace", shadow_trace},
                        {"finish", shadow_finish}};
  program.entryStage = SHADOW_GENERATE;
  program.owners = {
      {"shadow",
       options.capacity,
       uint32_t(sizeof(shadow_item)),
       {{"intersect", shadow_intersect}, {"shade", shadow_shade}}}};
  program.producers = {{SHADOW_TRACE, SHADOW_OWNER, 1}};
  program.frameLayout.kind = options.layout;
  program.frameLayout.fields = {
      {"pixel", 4, 4}, {"bounce", 4, 4}, {"rng", 8, 8}, {"radiance", 8, 8}};
  program.userData = &globals;
  return program;
}

} // namespace

int main(int argc, char **argv) {
  DemoOptions options;
  if (int parsed = parseOptions(argc, argv, options))
    return parsed == 1 ? 0 : 2;

  std::vector<uint64_t> pixelSums(options.lanes, 0);
  shadow_globals globals{pixelSums.data(), kMaxBounces, kMaxShadeLoops};
  ProgramDescriptor program = buildProgram(options, globals);

  CpuDeviceOptions deviceOptions;
  deviceOptions.workers = options.workers;
  CpuDevice device(deviceOptions);

  auto begin = std::chrono::steady_clock::now();
  RunResult result;
  if (options.schedule == Schedule::Wavefront) {
    SchedulerOptions schedulerOptions;
    schedulerOptions.framePool = options.framePool;
    schedulerOptions.partialAdmission = options.partialAdmission;
    schedulerOptions.tracePath = options.tracePath;
    WavefrontScheduler scheduler(program, device, schedulerOptions);
    result = scheduler.run(options.lanes);
  } else {
    result = runStateMachine(program, device, options.lanes, options.framePool);
  }
  double millis = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - begin)
                      .count();
  if (!result.status.ok()) {
    std::fprintf(stderr, "sluice-wavefront-demo: run failed: %s\n",
                 result.status.describe().c_str());
    return 1;
  }

  std::printf("shadow-pool: %u lanes, frame pool %u, shadow capacity %u, "
              "%s schedule, %u workers, partial admission %s\n",
              options.lanes, options.framePool, options.capacity,
              options.schedule == Schedule::Wavefront ? "wavefront"
                                                      : "state-machine",
              device.workerCount(), options.partialAdmission ? "on" : "off");
  const std::vector<std::string> names = {"generate", "trace", "finish",
                                         "shadow.intersect", "shadow.shade"};
  printStageTable(stdout, names, result.stages);
  std::printf("iterations: %" PRIu64 ", lanes finished: %" PRIu64
              ", wall time: %.2f ms\n",
              result.iterations, result.lanesFinished, millis);

  uint64_t checksum = 0;
  for (uint32_t pixel = 0; pixel < options.lanes; ++pixel)
    checksum += pixelSums[pixel] * (2 * uint64_t(pixel) + 1);
  Reference reference = computeReference(options.lanes);
  uint64_t expected[] = {reference.generate, reference.trace, reference.finish,
                         reference.intersect, reference.shade};
  bool countsMatch = true;
  for (size_t s = 0; s < 5; ++s) {
    if (result.stages[s].invocations != expected[s]) {
      std::fprintf(stderr,
                   "sluice-wavefront-demo: stage %s ran %" PRIu64
                   " invocations, the reference expects %" PRIu64 "\n",
                   names[s].c_str(), result.stages[s].invocations,
                   expected[s]);
      countsMatch = false;
    }
  }
  bool checksumMatches = checksum == reference.checksum;
  std::printf("checksum: 0x%016" PRIx64 " (reference 0x%016" PRIx64 ") %s\n",
              checksum, reference.checksum,
              checksumMatches ? "match" : "MISMATCH");
  if (!options.tracePath.empty())
    std::printf("trace: %s (open in https://ui.perfetto.dev)\n",
                options.tracePath.c_str());
  if (!checksumMatches || !countsMatch) {
    std::fprintf(stderr,
                 "sluice-wavefront-demo: result differs from the reference\n");
    return 1;
  }
  return 0;
}
