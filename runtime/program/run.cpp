//===- run.cpp - Run a compiled program and report it ---------------------===//

#include "sluice/runtime/program/run.h"

#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/program/session.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <cstdio>

namespace sluice::runtime {
namespace {

int fail(const ArtifactRunOptions &options, const std::string &message,
         int code) {
  std::fprintf(stderr, "%s: %s\n", options.tool.c_str(), message.c_str());
  return code;
}

const char *layoutName(FrameLayoutKind kind) {
  return kind == FrameLayoutKind::StructOfArrays ? "soa" : "aos";
}

/// The --output files and the --print lines, read back from the device.
int writeOutputs(Program &program, const ArtifactRunOptions &options) {
  HostBuffer value;
  for (const std::string &name : options.bindings.prints) {
    if (Status status = program.read(name, value); !status.ok())
      return fail(options, status.describe(), exitCodeFor(status));
    std::printf("%s\n", formatHostBuffer(name, value).c_str());
  }
  std::fflush(stdout);
  for (const BindingRequests::Item &item : options.bindings.outputs) {
    if (Status status = program.read(item.name, value); !status.ok())
      return fail(options, status.describe(), exitCodeFor(status));
    if (Status status = writeNpyFile(item.text, value); !status.ok())
      return fail(options, status.message(), exitCodeFor(status));
  }
  return kExitSuccess;
}

} // namespace

static bool stateMachineRun(const ArtifactRunOptions &options) {
  return options.schedule == "state-machine";
}

int checkRunOptions(const ArtifactRunOptions &options) {
  const BackendAdapter *adapter = findBackendAdapter(options.backend);
  if (!adapter)
    return fail(options,
                "--backend must be one of: " + backendAdapterNames() +
                    "; got '" + options.backend + "'",
                kExitBadInput);
  if (options.schedule != "wavefront" && options.schedule != "state-machine")
    return fail(options,
                "--schedule must be 'wavefront' or 'state-machine', got '" +
                    options.schedule + "'",
                kExitBadInput);
  bool stateMachine = options.schedule == "state-machine";
  if (options.lanes == 0 || options.lanes > kMaxRunLanes)
    return fail(options,
                "--lanes must be in [1, 16777216], got " +
                    std::to_string(options.lanes),
                kExitBadInput);
  if (options.framePool == 0 || options.framePool > kMaxRunLanes)
    return fail(options,
                "--frame-pool must be in [1, 16777216], got " +
                    std::to_string(options.framePool),
                kExitBadInput);
  if (options.workers > kMaxRunWorkers)
    return fail(options,
                "--workers must be in [0, 1024], got " +
                    std::to_string(options.workers),
                kExitBadInput);
  if (FrameSorting sorting; !parseFrameSorting(options.sort, sorting))
    return fail(options,
                "--sort must be 'on', 'off' or main stage names separated "
                "by commas, got '" +
                    options.sort + "'",
                kExitBadInput);
  if (SchedulerPlacement placement;
      !parseSchedulerPlacement(options.placement, placement))
    return fail(options,
                "--scheduler-placement must be 'host', 'device' or 'auto', "
                "got '" +
                    options.placement + "'",
                kExitBadInput);
  if (stateMachine && options.placementGiven)
    return fail(options,
                "--scheduler-placement places the wavefront scheduler; the "
                "state-machine schedule has none",
                kExitBadInput);
  if (stateMachine && !options.iterationLogPath.empty())
    return fail(options,
                "--iteration-log records wavefront iterations; the "
                "state-machine schedule has none",
                kExitBadInput);
  if (options.repeat == 0)
    return fail(options, "--repeat must be at least 1", kExitBadInput);
  if (stateMachine && !options.tracePath.empty())
    return fail(options,
                "--trace records wavefront iterations; the state-machine "
                "schedule has none",
                kExitBadInput);
  return kExitSuccess;
}

Status frameSortingFor(const Artifact &artifact, const std::string &sort,
                       FrameSorting &sorting) {
  if (!parseFrameSorting(sort, sorting))
    return Status::error(ErrorKind::InvalidArgument,
                         "bad --sort '" + sort + "'");
  std::vector<std::string> names;
  std::vector<bool> keyed;
  for (const CompiledStage &stage : artifact.program().mainStages) {
    names.push_back(stage.name);
    keyed.push_back(!stage.sortKey.empty());
  }
  return checkFrameSorting(artifact.program().name, names, keyed, sorting);
}

int runArtifact(const Artifact &artifact, const ArtifactRunOptions &options) {
  if (int code = checkRunOptions(options); code != kExitSuccess)
    return code;
  FrameSorting sorting;
  if (Status status = frameSortingFor(artifact, options.sort, sorting);
      !status.ok())
    return fail(options, status.message(), kExitBadInput);
  std::vector<HostBuffer> values;
  if (Status status = resolveBindings(artifact.program(), options.bindings,
                                      values);
      !status.ok())
    return fail(options, status.message(), exitCodeFor(status));
  const BackendAdapter &adapter = *findBackendAdapter(options.backend);
  LoadOptions load;
  load.lanes = options.lanes;
  load.workers = adapter.workers ? options.workers : 0;
  Program program;
  if (Status status = Program::load(artifact, adapter.name, program, load);
      !status.ok())
    return fail(options,
                std::string(adapter.name) + " backend: " + status.describe(),
                exitCodeFor(status));
  const std::vector<CompiledBinding> &bindings = artifact.program().bindings;
  for (size_t i = 0; i < bindings.size(); ++i)
    if (Status status = program.bind(bindings[i].name, std::move(values[i]));
        !status.ok())
      return fail(options, status.message(), exitCodeFor(status));

  RunOptions run;
  run.lanes = options.lanes;
  run.schedule = options.schedule == "state-machine" ? Schedule::StateMachine
                                                      : Schedule::Wavefront;
  run.framePool = options.framePool;
  run.partialAdmission = options.partialAdmission;
  run.workers = load.workers;
  run.tracePath = options.tracePath;
  run.iterationLogPath = options.iterationLogPath;
  parseSchedulerPlacement(options.placement, run.placement); // checked
  run.sorting = sorting;
  run.sorting.buckets = options.sortBuckets;
  run.sorting.partition = options.sortPartition;
  RunReport report;
  double best = 0;
  // Every run starts from the bound values.
  for (uint32_t r = 0; r < options.repeat; ++r) {
    report = program.run(run);
    if (report.deviceSetupFailed())
      return fail(options,
                  std::string(adapter.name) +
                      " backend: " + report.status.describe(),
                  exitCodeFor(report.status));
    if (r == 0 || report.seconds < best)
      best = report.seconds;
    if (!report.status.ok() && report.phase != RunPhase::Schedule)
      return fail(options, report.status.message(),
                  exitCodeFor(report.status));
    if (!report.status.ok())
      return fail(options,
                  "run of @" + program.descriptor().name +
                      " failed: " + report.status.describe(),
                  exitCodeFor(report.status));
  }

  RunSummary summary{options.lanes, options.schedule.c_str(),
                     layoutName(artifact.program().layout), options.framePool,
                     options.stats};
  printRunSummary(stdout, program.descriptor(), report, summary);
  std::fflush(stdout);
  if (options.placementGiven && !stateMachineRun(options))
    std::fprintf(stderr, "%s: scheduler placement: %s\n", options.tool.c_str(),
                 describeSchedulerPlacement(run.placement, report.placement,
                                            report.placementNote)
                     .c_str());
  std::string device = program.deviceSummary();
  if (!device.empty())
    std::fprintf(stderr, "%s: %s\n", options.tool.c_str(), device.c_str());
  if (options.repeat > 1)
    std::fprintf(stderr, "%s: fastest of %u runs: %.3f ms wall\n",
                 options.tool.c_str(), options.repeat, best * 1e3);
  if (int code = writeOutputs(program, options); code != kExitSuccess)
    return code;
  if (report.lanesFinished != options.lanes)
    return fail(options,
                std::to_string(report.lanesFinished) + " of " +
                    std::to_string(options.lanes) + " lanes finished",
                kExitFailure);
  return kExitSuccess;
}

} // namespace sluice::runtime
