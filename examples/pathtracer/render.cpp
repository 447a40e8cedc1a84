//===- render.cpp - sluice-render: the path tracer's host driver ----------===//
//
// Loads a scene (docs/pathtracer.md section 1), flattens it into the bindings
// of @path (section 2), runs a compiled path tracer artifact in passes
// (section 3) on a runtime backend, and writes the film, the PFM and the PNG
// (section 6). Runtime only: no MLIR, no LLVM; it runs an artifact compiled
// elsewhere.
//
// Every run of a Program starts from the bound values, so after each pass the
// film is read back and bound again: the next pass adds to it.
//
//===----------------------------------------------------------------------===//

#include "image.h"
#include "scene.h"

#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/program/run.h"
#include "sluice/runtime/program/session.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace rt = sluice::runtime;
namespace pt = sluice::pathtracer;

namespace {

constexpr const char *kTool = "sluice-render";
// Samples per pixel: the sample index is 24 bits of the generator's counter
// (section 5), so every index 0 .. spp - 1 must be below 2^24.
constexpr uint32_t kMaxSpp = (1u << 24) - 1;
// A pass of the default --pass-spp runs at least this many lanes on the CPU
// backend (a progress line every few seconds on 2 cores); on a GPU backend
// as many as a run takes (rt::kMaxRunLanes), since every run still has a
// fixed cost, smaller since a pass keeps the last one's storage, recordings
// and film (64 passes of 512 x 512 x 1 took 3.9x one pass of 512 x 512 x 64
// on hip, 4.2x on Vulkan, an H100; docs/runtime.md "Passes"), which a
// smaller pass pays more often.
constexpr uint64_t kDefaultCpuPassLanes = 1u << 20;
// The frame pool without --frame-pool: on the CPU backend, the state
// machine's 8,192 (a few dispatches' worth of blocks for every worker, and
// frames that stay in the caches) and the wavefront a quarter of a pass's
// lanes within [8,192, 262,144]: each dispatch costs the host a fixed part
// and leaves a worker idle at its tail, so fewer, larger dispatches pay
// (256 x 256 x 16 in one pass on 2 cores, 2026-12-06: heavy O=16 5.3-5.4
// Mrays/s at 8,192, 5.6-5.7 at 32,768, 5.8-5.9 at 65,536, 5.8-6.0 at
// 131,072 and 5.8-5.9 at 262,144; plain 6.8-7.0 -> 7.9 at 131,072), and
// more so with more workers (512 x 512 x 16 on 16 cores, 2026-12-07: plain
// 40.8 Mrays/s at 131,072, 44.8 at 262,144, 48.1 at 524,288; heavy 38.3,
// 44.4, 42.8); on a
// GPU backend, enough lanes in flight to fill the
// device, the fastest pools measured on an H100 (512 x 512 x 64,
// docs/runtime.md): the wavefront a quarter of a pass's lanes, within
// [262,144, 1,048,576] (1,048,576 is the shadow rays' capacity: 1,456
// Mrays/s on hip against 1,413 at 655,360; 262,144 frames with the capacity
// of 262,144 of before: 1,123; a small pass, like the demo's 1,048,576 lanes
// on lavapipe, keeps 262,144: all of them in flight took 12% longer there
// and 225 MB more); the megakernel, since it keeps
// each thread's frame in registers (more registers a thread, fewer threads
// at once; 2026-12-06), 65,536 on Vulkan (2,094 Mrays/s against 1,693 at
// 32,768, 2,099 at 81,920 and 1,974 at 131,072) and 98,304 on hip (1,444
// against 1,406 at 131,072 and 1,339 at 65,536). The runtime's default of
// 256 keeps a GPU almost idle (5 Mrays/s on hip).
constexpr uint32_t kDefaultCpuFramePool = 8192;
constexpr uint32_t kMaxCpuWavefrontFramePool = 262144;
constexpr uint32_t kDefaultVulkanMegakernelFramePool = 65536;
constexpr uint32_t kDefaultHipMegakernelFramePool = 98304;
constexpr uint32_t kMinGpuWavefrontFramePool = 262144;
constexpr uint32_t kMaxGpuWavefrontFramePool = 1048576;
// The stages whose invocations are rays (section 7).
constexpr const char *kPathRayStage = "intersect";
constexpr const char *kShadowRayStage = "shadow.intersect";

void printUsage(std::FILE *out) {
  std::fprintf(
      out,
      "usage: sluice-render --artifact FILE.sluice --scene FILE.json "
      "[options]\n"
      "       sluice-render --scene FILE.json --write-bindings DIR [options]\n"
      "\n"
      "Renders a scene (docs/pathtracer.md) with a compiled path tracer\n"
      "artifact on the runtime's scheduler, in passes: a pass of K samples\n"
      "runs width * height * K lanes and adds to the film. Needs no "
      "compiler.\n"
      "\n"
      "options (each takes --name=VALUE or --name VALUE):\n"
      "  --artifact FILE      the compiled path tracer (pathtracer.sluice)\n"
      "  --scene FILE         the scene (JSON)\n"
      "  --backend NAME       cpu (default), vulkan or hip\n"
      "  --width N            image width in pixels (default 256)\n"
      "  --height N           image height in pixels (default 256)\n"
      "  --spp N              samples per pixel (default 16, at most "
      "16777215)\n"
      "  --pass-spp K         samples per pixel of one pass (default: enough\n"
      "                       for about 2^20 lanes on cpu, 2^24 on vulkan\n"
      "                       and hip; at most --spp)\n"
      "  --seed N             the generator key (default 0)\n"
      "  --schedule S         wavefront (default) | state-machine\n"
      "  --workers N          CPU workers (cpu; default one per core)\n"
      "  --frame-pool N       frames in the pool (default for the state\n"
      "                       machine 8192 on cpu, 65536 on vulkan, 98304 on\n"
      "                       hip; for the wavefront a quarter of a pass's\n"
      "                       lanes, from 8192 to 262144 on cpu, from\n"
      "                       262144 to 1048576 on vulkan and hip)\n"
      "  --no-partial-admission  admit a producer only whole\n"
      "  --scheduler-placement host|device|auto  where the wavefront\n"
      "                       scheduler decides (device: on the GPU where the\n"
      "                       backend can, docs/runtime.md; default auto:\n"
      "                       device on hip and a Vulkan GPU, host on cpu and\n"
      "                       a Vulkan CPU device such as lavapipe)\n"
      "  --sort on|off|STAGES order the frames of a dispatch of a stage with\n"
      "                       a sort_by key (\"intersect\": whether the ray\n"
      "                       meets the mesh's box; \"shade\": the material)\n"
      "                       by that key; STAGES: only those named, comma-\n"
      "                       separated (wavefront only; default: on for cpu\n"
      "                       and cpu-staged, whose shading then runs 8 lanes\n"
      "                       at a time in vector registers on an x86-64-v3\n"
      "                       build; intersect on hip; off on Vulkan, where\n"
      "                       the sort costs more than it saves for these\n"
      "                       scenes)\n"
      "  --sort-buckets N     0 (default): by the key's value; N >= 1: by the\n"
      "                       bucket key mod N\n"
      "  --sort-partition N   sort every run of N consecutive frames of a\n"
      "                       dispatch on its own (default 1024); 0: the\n"
      "                       whole dispatch as one run\n"
      "  --texture-octaves N  octaves of the procedural texture on diffuse\n"
      "                       surfaces, each material's pattern as its scene\n"
      "                       names it (\"texture\": fbm, turbulence, ridged\n"
      "                       or blocks; docs/pathtracer.md section 9;\n"
      "                       default 0: the plain scene)\n"
      "  --trace FILE         Chrome trace of the first pass's iterations\n"
      "  --iteration-log FILE one line per wavefront iteration of the first\n"
      "                       pass: the decision and the counts it saw (the\n"
      "                       same for both scheduler placements)\n"
      "  --pfm FILE           write the linear image (PFM)\n"
      "  --png FILE           write the sRGB image (8-bit PNG)\n"
      "  --film FILE.npy      write the fixed-point film (i64, 3 per pixel)\n"
      "  --write-bindings DIR write every binding as DIR/NAME.npy and the\n"
      "                       runner arguments DIR/args.txt; without\n"
      "                       --artifact, nothing else is done\n"
      "  --stats              also print one line per pass and the device's\n"
      "                       line\n"
      "\n"
      "At the end it prints the per-stage table summed over the passes, the\n"
      "rays traced (invocations of stage 'intersect' plus those of\n"
      "'shadow.intersect'), the schedules' wall time and Mrays/s. While\n"
      "stderr is a terminal, one line per pass shows the progress.\n"
      "\n"
      "exit codes: 0 success, 1 the render failed, 2 bad usage or bad input\n"
      "(an option, the scene, the artifact), 3 no device.\n");
}

int fail(const std::string &message, int code = rt::kExitBadInput) {
  std::fprintf(stderr, "%s: %s\n", kTool, message.c_str());
  return code;
}

int usageError(const std::string &message) {
  std::fprintf(stderr, "%s: %s\n(run sluice-render --help for usage)\n", kTool,
               message.c_str());
  return rt::kExitBadInput;
}

struct Options {
  std::string artifact, scene, pfm, png, film, bindingsDir;
  rt::ArtifactRunOptions run; // backend, schedule, frame pool, workers, trace
  uint32_t width = 256, height = 256, spp = 16, passSpp = 0, seed = 0;
  uint32_t textureOctaves = 0;
  bool framePoolGiven = false;
  bool sortGiven = false;
};

bool parseNumber(std::string_view text, uint32_t &out) {
  if (text.empty() || text[0] < '0' || text[0] > '9')
    return false;
  std::string copy(text);
  char *end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(copy.c_str(), &end, 10);
  if (*end != '\0' || errno != 0 || value > UINT32_MAX)
    return false;
  out = uint32_t(value);
  return true;
}

// The renderer's sorting where --sort is not given (parseArguments says
// why): every keyed stage on the CPU, "intersect" on hip where the artifact
// has that key, none elsewhere.
std::string defaultSorting(const std::string &backend,
                           const rt::Artifact &artifact) {
  if (backend == "cpu" || backend == "cpu-staged")
    return "on";
  const std::vector<rt::CompiledStage> &stages = artifact.program().mainStages;
  if (backend == "hip" && std::any_of(stages.begin(), stages.end(),
                                      [](const rt::CompiledStage &stage) {
                                        return stage.name == "intersect" &&
                                               !stage.sortKey.empty();
                                      }))
    return "intersect";
  return "off";
}

// Parses argv into `options`; returns -1 to go on, else an exit code.
int parseArguments(int argc, char **argv, Options &options) {
  // A renderer's defaults, where sluice-run-artifact's differ: the
  // scheduler where it runs faster, and coherence sorting where it pays
  // (set once the backend and the artifact are known): every keyed stage on
  // the CPU, whose vectorized "shade" runs a vector of one material's lanes
  // (1.03x on the plain and heavy scenes, 1.27x on the divergent one,
  // bench/pathtracer/README.md); on hip "intersect" by the ray key alone,
  // where the artifact has that key (1.004-1.01x on the three scenes, where
  // the material's order costs 2-4% on two of them); none on Vulkan, where
  // the sort dispatch costs more than either order saves (docs/runtime.md,
  // "Coherence sorting").
  options.run.placement = "auto";
  options.run.sort.clear();
  struct Valued {
    const char *name;
    std::string *text = nullptr;
    uint32_t *number = nullptr;
  };
  const Valued valued[] = {
      {"--artifact", &options.artifact},
      {"--scene", &options.scene},
      {"--backend", &options.run.backend},
      {"--schedule", &options.run.schedule},
      {"--sort", &options.run.sort},
      {"--scheduler-placement", &options.run.placement},
      {"--trace", &options.run.tracePath},
      {"--iteration-log", &options.run.iterationLogPath},
      {"--pfm", &options.pfm},
      {"--png", &options.png},
      {"--film", &options.film},
      {"--write-bindings", &options.bindingsDir},
      {"--width", nullptr, &options.width},
      {"--height", nullptr, &options.height},
      {"--spp", nullptr, &options.spp},
      {"--pass-spp", nullptr, &options.passSpp},
      {"--seed", nullptr, &options.seed},
      {"--workers", nullptr, &options.run.workers},
      {"--frame-pool", nullptr, &options.run.framePool},
      {"--sort-buckets", nullptr, &options.run.sortBuckets},
      {"--sort-partition", nullptr, &options.run.sortPartition},
      {"--texture-octaves", nullptr, &options.textureOctaves},
  };
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printUsage(stdout);
      return rt::kExitSuccess;
    }
    if (arg == "--stats") {
      options.run.stats = true;
      continue;
    }
    if (arg == "--no-partial-admission") {
      options.run.partialAdmission = false;
      continue;
    }
    std::string_view name = arg.substr(0, arg.find('='));
    const Valued *option = nullptr;
    for (const Valued &v : valued)
      if (name == v.name)
        option = &v;
    if (!option)
      return usageError(arg.starts_with("-")
                            ? "unknown option '" + std::string(arg) + "'"
                            : "unexpected argument '" + std::string(arg) + "'");
    std::string_view value;
    if (name.size() < arg.size())
      value = arg.substr(name.size() + 1);
    else if (i + 1 < argc)
      value = argv[++i];
    else
      return usageError(std::string(name) + " needs a value");
    if (option->text) {
      *option->text = std::string(value);
      if (option->text == &options.run.placement)
        options.run.placementGiven = true;
    } else if (!parseNumber(value, *option->number)) {
      return usageError(std::string(name) +
                        " expects a non-negative integer, got '" +
                        std::string(value) + "'");
    }
    if (name == "--workers")
      options.run.workersGiven = true;
    if (name == "--frame-pool")
      options.framePoolGiven = true;
  }
  return -1;
}

// The problem with `path` as an output file, or "".
std::string outputProblem(const char *option, const std::string &path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    return std::string(option) + " " + path + ": the directory '" +
           parent.string() + "' does not exist";
  if (std::filesystem::is_directory(path, ec))
    return std::string(option) + " " + path + ": is a directory";
  return "";
}

// Checks the options that need neither the scene nor the artifact.
int checkOptions(Options &options) {
  if (options.scene.empty())
    return usageError("no scene given (--scene FILE.json)");
  if (options.artifact.empty() && options.bindingsDir.empty())
    return usageError("no artifact given (--artifact FILE.sluice)");
  if (options.width == 0 || options.height == 0)
    return usageError("the image must be at least 1 x 1 pixels, got --width " +
                      std::to_string(options.width) + " --height " +
                      std::to_string(options.height));
  if (options.spp == 0 || options.spp > kMaxSpp)
    return usageError(
        "--spp must be in [1, 16777215]: sample indices are 24 bits of the "
        "generator's counter (docs/pathtracer.md section 5), got " +
        std::to_string(options.spp));
  uint64_t pixels = uint64_t(options.width) * options.height;
  const bool onCpu = options.run.backend.rfind("cpu", 0) == 0;
  const uint64_t passLanes = onCpu
                                 ? kDefaultCpuPassLanes
                                 : rt::kMaxRunLanes;
  if (options.passSpp == 0)
    options.passSpp = uint32_t(std::clamp<uint64_t>(
        (passLanes + pixels - 1) / pixels, 1,
        std::min<uint64_t>(options.spp,
                           std::max<uint64_t>(1, rt::kMaxRunLanes / pixels))));
  if (options.passSpp > options.spp)
    return usageError("--pass-spp " + std::to_string(options.passSpp) +
                      " is more than --spp " + std::to_string(options.spp));
  uint64_t lanes = pixels * options.passSpp;
  if (!options.framePoolGiven)
    options.run.framePool =
        onCpu ? options.run.schedule == "state-machine"
                    ? kDefaultCpuFramePool
                    : uint32_t(std::clamp<uint64_t>(lanes / 4,
                                                    kDefaultCpuFramePool,
                                                    kMaxCpuWavefrontFramePool))
        : options.run.schedule != "state-machine"
            ? uint32_t(std::clamp<uint64_t>(lanes / 4,
                                            kMinGpuWavefrontFramePool,
                                            kMaxGpuWavefrontFramePool))
        : options.run.backend == "hip" ? kDefaultHipMegakernelFramePool
                                       : kDefaultVulkanMegakernelFramePool;
  std::string pass = std::to_string(options.width) + " x " +
                     std::to_string(options.height) + " pixels x " +
                     std::to_string(options.passSpp) + " samples";
  if (lanes > uint64_t(std::numeric_limits<int32_t>::max()))
    return usageError("a pass of " + pass + " is " + std::to_string(lanes) +
                      " lanes, which overflows the i32 lane index");
  if (lanes > rt::kMaxRunLanes)
    return usageError("a pass of " + pass + " is " + std::to_string(lanes) +
                      " lanes; a run takes at most 16777216 (lower "
                      "--pass-spp or the resolution)");
  options.run.tool = kTool;
  options.run.lanes = uint32_t(lanes);
  options.sortGiven = !options.run.sort.empty();
  // Checked here as "off"; defaultSorting chooses once the artifact is read.
  if (!options.sortGiven)
    options.run.sort = "off";
  if (int code = rt::checkRunOptions(options.run); code != rt::kExitSuccess)
    return code;
  const rt::BackendAdapter *adapter =
      rt::findBackendAdapter(options.run.backend);
  if (options.run.workersGiven && !adapter->workers)
    return usageError("--workers chooses how the CPU backend runs kernels; it "
                      "does not apply to --backend=" +
                      options.run.backend);
  for (auto [option, path] :
       {std::pair{"--pfm", &options.pfm}, std::pair{"--png", &options.png},
        std::pair{"--film", &options.film},
        std::pair{"--trace", &options.run.tracePath}})
    if (!path->empty())
      if (std::string problem = outputProblem(option, *path); !problem.empty())
        return usageError(problem);
  return -1;
}

void addStatistics(std::vector<rt::StageStatistics> &sum,
                   const std::vector<rt::StageStatistics> &pass) {
  sum.resize(std::max(sum.size(), pass.size()));
  for (size_t s = 0; s < pass.size(); ++s) {
    rt::StageStatistics &a = sum[s];
    const rt::StageStatistics &b = pass[s];
    a.dispatches += b.dispatches;
    a.invocations += b.invocations;
    a.itemsPublished += b.itemsPublished;
    a.itemsReleased += b.itemsReleased;
    a.partialAdmissions += b.partialAdmissions;
    a.admissionBlocks += b.admissionBlocks;
    a.drainDispatches += b.drainDispatches;
  }
}

// Invocations of stage `name` (0 when the program has none).
uint64_t invocationsOf(const std::vector<std::string> &names,
                       const std::vector<rt::StageStatistics> &stages,
                       const char *name) {
  for (size_t s = 0; s < names.size() && s < stages.size(); ++s)
    if (names[s] == name)
      return stages[s].invocations;
  return 0;
}

bool hasStage(const std::vector<std::string> &names, const char *name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string formatSeconds(double seconds) {
  char text[32];
  if (seconds >= 3600)
    std::snprintf(text, sizeof text, "%dh%02dm", int(seconds / 3600),
                  int(seconds / 60) % 60);
  else if (seconds >= 60)
    std::snprintf(text, sizeof text, "%dm%02ds", int(seconds / 60),
                  int(seconds) % 60);
  else
    std::snprintf(text, sizeof text, "%.1fs", seconds);
  return text;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (int code = parseArguments(argc, argv, options); code >= 0)
    return code;
  if (int code = checkOptions(options); code >= 0)
    return code;

  // The scene, its BVH and the bindings, before anything is loaded.
  pt::Scene scene;
  if (rt::Status status = pt::loadScene(options.scene, scene); !status.ok())
    return fail(status.message());
  pt::Bvh bvh;
  if (rt::Status status = pt::buildBvh(scene.triangles, bvh); !status.ok())
    return fail(options.scene + ": " + status.message());
  std::vector<pt::NamedBuffer> bindings;
  if (rt::Status status = pt::flattenScene(
          scene, bvh,
          {options.width, options.height, options.seed, options.textureOctaves},
          bindings);
      !status.ok())
    return fail(status.message());
  if (!options.bindingsDir.empty()) {
    if (rt::Status status = pt::writeBindings(options.bindingsDir, bindings);
        !status.ok())
      return fail("--write-bindings: " + status.message());
    if (options.artifact.empty())
      return rt::kExitSuccess;
  }

  rt::Artifact artifact;
  if (rt::Status status = rt::Artifact::readFile(options.artifact, artifact);
      !status.ok())
    return fail(status.message());
  if (!options.sortGiven)
    options.run.sort = defaultSorting(options.run.backend, artifact);
  rt::FrameSorting sorting;
  if (rt::Status status =
          rt::frameSortingFor(artifact, options.run.sort, sorting);
      !status.ok())
    return fail(options.artifact + ": " + status.message());
  // Which stages sort, when the renderer chose it (it differs by backend):
  // said before the backend loads, so the choice shows even where the
  // backend's device is missing.
  if (options.run.schedule != "state-machine" && !options.sortGiven)
    std::fprintf(stderr, "sluice-render: sorting: %s (the default on %s)\n",
                 options.run.sort.c_str(), options.run.backend.c_str());
  const rt::BackendAdapter &adapter =
      *rt::findBackendAdapter(options.run.backend);
  rt::LoadOptions load;
  load.lanes = options.run.lanes;
  load.workers = adapter.workers ? options.run.workers : 0;
  rt::Program program;
  if (rt::Status status =
          rt::Program::load(std::move(artifact), adapter.name, program, load);
      !status.ok())
    return fail(std::string(adapter.name) + " backend: " + status.describe(),
                rt::exitCodeFor(status));
  if (rt::Status status = pt::checkPathBindings(program.bindings());
      !status.ok())
    return fail(options.artifact + ": " + status.message());
  if (rt::Status status = pt::bindAll(program, bindings); !status.ok())
    return fail(options.artifact + ": " + status.message());
  bindings.clear();

  rt::RunOptions run;
  run.schedule = options.run.schedule == "state-machine"
                     ? rt::Schedule::StateMachine
                     : rt::Schedule::Wavefront;
  run.framePool = options.run.framePool;
  run.partialAdmission = options.run.partialAdmission;
  run.workers = load.workers;
  run.sorting = sorting;
  run.sorting.buckets = options.run.sortBuckets;
  run.sorting.partition = options.run.sortPartition;
  // checkRunOptions accepted the text.
  rt::parseSchedulerPlacement(options.run.placement, run.placement);

  const uint64_t pixels = uint64_t(options.width) * options.height;
  const uint32_t passes = (options.spp + options.passSpp - 1) / options.passSpp;
  const bool progress = isatty(STDERR_FILENO);
  std::vector<std::string> stageNames;
  std::vector<rt::StageStatistics> stages;
  uint64_t iterations = 0, pathRays = 0, shadowRays = 0;
  double scheduleSeconds = 0, setupSeconds = 0;
  rt::HostBuffer film;
  auto renderStart = std::chrono::steady_clock::now();
  for (uint32_t pass = 0, done = 0; done < options.spp; ++pass) {
    uint32_t samples = std::min(options.passSpp, options.spp - done);
    run.lanes = uint32_t(pixels * samples);
    run.tracePath = pass == 0 ? options.run.tracePath : std::string();
    run.iterationLogPath =
        pass == 0 ? options.run.iterationLogPath : std::string();
    if (rt::Status status = program.setUniform("sample_base", int32_t(done));
        !status.ok())
      return fail(status.message());
    rt::RunReport report = program.run(run);
    // Which placement ran: when asked, and whenever the scheduler ran on
    // the device (the default picks it on a GPU).
    if (pass == 0 && run.schedule == rt::Schedule::Wavefront &&
        (options.run.placementGiven ||
         report.placement == rt::SchedulerPlacement::Device))
      std::fprintf(stderr, "sluice-render: scheduler placement: %s\n",
                   rt::describeSchedulerPlacement(
                       run.placement, report.placement, report.placementNote)
                       .c_str());
    if (report.deviceSetupFailed())
      return fail(std::string(adapter.name) +
                      " backend: " + report.status.describe(),
                  rt::exitCodeFor(report.status));
    if (!report.status.ok() && report.phase != rt::RunPhase::Schedule)
      return fail(report.status.message(), rt::exitCodeFor(report.status));
    if (!report.status.ok())
      return fail("pass " + std::to_string(pass) + " (samples " +
                      std::to_string(done) + " .. " +
                      std::to_string(done + samples - 1) + "): run of @" +
                      program.name() + " failed: " + report.status.describe(),
                  rt::exitCodeFor(report.status));
    if (report.lanesFinished != run.lanes)
      return fail("pass " + std::to_string(pass) + ": " +
                      std::to_string(report.lanesFinished) + " of " +
                      std::to_string(run.lanes) + " lanes finished",
                  rt::kExitFailure);
    stageNames = report.stageNames;
    addStatistics(stages, report.stages);
    iterations += report.iterations;
    scheduleSeconds += report.seconds;
    setupSeconds += report.setupSeconds;
    uint64_t passPath = invocationsOf(stageNames, report.stages, kPathRayStage);
    uint64_t passShadow =
        invocationsOf(stageNames, report.stages, kShadowRayStage);
    pathRays += passPath;
    shadowRays += passShadow;
    done += samples;

    // The next pass starts from this one's film, where it is (on a GPU: it
    // stays on the device, pass after pass); the last pass's is read.
    if (rt::Status status = done < options.spp ? program.keepResult("film")
                                               : program.read("film", film);
        !status.ok())
      return fail(status.message(), rt::exitCodeFor(status));

    if (options.run.stats)
      std::printf("pass %u: samples %u .. %u, %u lanes, %" PRIu64
                  " iterations, %.3f s, %" PRIu64 " rays\n",
                  pass, done - samples, done - 1, run.lanes, report.iterations,
                  report.seconds, passPath + passShadow);
    if (progress) {
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - renderStart)
                           .count();
      double left = elapsed / done * (options.spp - done);
      std::fprintf(stderr,
                   "\r%s: pass %u/%u, %u/%u spp, %.2f Mrays/s, %s left\033[K",
                   kTool, pass + 1, passes, done, options.spp,
                   scheduleSeconds > 0
                       ? double(pathRays + shadowRays) / scheduleSeconds / 1e6
                       : 0.0,
                   formatSeconds(left).c_str());
      std::fflush(stderr);
    }
  }
  double renderSeconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - renderStart)
                             .count();
  if (progress)
    std::fprintf(stderr, "\n");

  std::printf("%s: %s, %u x %u, %u spp in %u passes of %u, %s backend, %s "
              "schedule, frame pool %u\n",
              kTool, options.scene.c_str(), options.width, options.height,
              options.spp, passes, options.passSpp, options.run.backend.c_str(),
              options.run.schedule.c_str(), options.run.framePool);
  rt::printStageTable(stdout, stageNames, stages);
  std::printf("iterations: %" PRIu64 "\n", iterations);
  for (const char *stage : {kPathRayStage, kShadowRayStage})
    if (!hasStage(stageNames, stage))
      std::fprintf(stderr,
                   "%s: warning: the program has no stage '%s'; its rays "
                   "are not counted\n",
                   kTool, stage);
  uint64_t rays = pathRays + shadowRays;
  std::printf("rays traced: %" PRIu64 " (%" PRIu64 " camera and bounce rays, "
              "%" PRIu64 " shadow rays)\n",
              rays, pathRays, shadowRays);
  std::printf("wall time: %.6f s (the schedules of %u passes; %.6f s with "
              "the uploads, set-up and the film's read; set-up of the frame "
              "storage before the schedules' clocks %.6f s)\n",
              scheduleSeconds, passes, renderSeconds, setupSeconds);
  std::printf("Mrays/s: %.2f\n",
              scheduleSeconds > 0 ? double(rays) / scheduleSeconds / 1e6 : 0.0);
  std::fflush(stdout);
  if (options.run.stats)
    if (std::string device = program.deviceSummary(); !device.empty())
      std::fprintf(stderr, "%s: %s\n", kTool, device.c_str());

  std::vector<int64_t> values(film.bytes.size() / sizeof(int64_t));
  if (!values.empty())
    std::memcpy(values.data(), film.bytes.data(), film.bytes.size());
  if (!options.film.empty())
    if (rt::Status status = rt::writeNpyFile(options.film, film); !status.ok())
      return fail(status.message(), rt::exitCodeFor(status));
  if (options.pfm.empty() && options.png.empty())
    return rt::kExitSuccess;
  pt::Image image;
  if (rt::Status status = pt::filmToImage(values, options.width, options.height,
                                          options.spp, image);
      !status.ok())
    return fail(status.message(), rt::kExitFailure);
  if (!options.pfm.empty())
    if (rt::Status status = pt::writePfm(options.pfm, image); !status.ok())
      return fail(status.message(), rt::exitCodeFor(status));
  if (!options.png.empty())
    if (rt::Status status = pt::writePng(options.png, image); !status.ok())
      return fail(status.message(), rt::exitCodeFor(status));
  return rt::kExitSuccess;
}
