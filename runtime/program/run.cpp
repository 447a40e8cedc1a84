//===- run.cpp - Run a compiled program and report it ---------------------===//

#include "sluice/runtime/program/run.h"

#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <chrono>
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

size_t bindingIndex(const CompiledProgram &program, std::string_view name) {
  for (size_t i = 0; i < program.bindings.size(); ++i)
    if (program.bindings[i].name == name)
      return i;
  return program.bindings.size(); // resolveBindings checked every name
}

/// The --output files and the --print lines, read back from the device.
int writeOutputs(const CompiledProgram &program, LoadedProgram &loaded,
                 const ArtifactRunOptions &options) {
  HostBuffer value;
  for (const std::string &name : options.bindings.prints) {
    if (Status status = loaded.readBinding(
            uint32_t(bindingIndex(program, name)), value);
        !status.ok())
      return fail(options, status.describe(), exitCodeFor(status));
    std::printf("%s\n", formatHostBuffer(name, value).c_str());
  }
  std::fflush(stdout);
  for (const BindingRequests::Item &item : options.bindings.outputs) {
    if (Status status = loaded.readBinding(
            uint32_t(bindingIndex(program, item.name)), value);
        !status.ok())
      return fail(options, status.describe(), exitCodeFor(status));
    if (Status status = writeNpyFile(item.text, value); !status.ok())
      return fail(options, status.message(), exitCodeFor(status));
  }
  return kExitSuccess;
}

} // namespace

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
  if (stateMachine && !adapter->stateMachine)
    return fail(options,
                "the state-machine schedule runs on the CPU backend only; use "
                "--schedule=wavefront with --backend=" +
                    options.backend,
                kExitBadInput);
  if (options.lanes == 0 || options.lanes > (1u << 24))
    return fail(options,
                "--lanes must be in [1, 16777216], got " +
                    std::to_string(options.lanes),
                kExitBadInput);
  if (options.framePool == 0 || options.framePool > (1u << 24))
    return fail(options,
                "--frame-pool must be in [1, 16777216], got " +
                    std::to_string(options.framePool),
                kExitBadInput);
  if (options.workers > 1024)
    return fail(options,
                "--workers must be in [0, 1024], got " +
                    std::to_string(options.workers),
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

int runArtifact(const Artifact &artifact, const ArtifactRunOptions &options) {
  if (int code = checkRunOptions(options); code != kExitSuccess)
    return code;
  std::vector<HostBuffer> values;
  if (Status status = resolveBindings(artifact.program(), options.bindings,
                                      values);
      !status.ok())
    return fail(options, status.message(), exitCodeFor(status));
  const BackendAdapter &adapter = *findBackendAdapter(options.backend);
  BackendOptions backendOptions;
  backendOptions.lanes = options.lanes;
  backendOptions.workers = options.workers;
  std::unique_ptr<LoadedProgram> loaded;
  if (Status status = adapter.load(artifact, backendOptions, loaded);
      !status.ok())
    return fail(options,
                std::string(adapter.name) + " backend: " + status.describe(),
                exitCodeFor(status));
  const ProgramDescriptor &program = loaded->program();
  bool stateMachine = options.schedule == "state-machine";

  RunResult result;
  double best = 0;
  for (uint32_t r = 0; r < options.repeat; ++r) {
    if (Status status = loaded->bind(values); !status.ok())
      return fail(options,
                  std::string(adapter.name) + " backend: " + status.describe(),
                  exitCodeFor(status));
    auto start = std::chrono::steady_clock::now();
    if (stateMachine) {
      result = runStateMachine(program, loaded->device(), options.lanes,
                               options.framePool);
    } else {
      SchedulerOptions scheduler;
      scheduler.framePool = options.framePool;
      scheduler.partialAdmission = options.partialAdmission;
      scheduler.tracePath = options.tracePath;
      result = WavefrontScheduler(program, loaded->device(), scheduler)
                   .run(options.lanes);
    }
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    if (r == 0 || seconds < best)
      best = seconds;
    if (!result.status.ok())
      return fail(options,
                  "run of @" + program.name +
                      " failed: " + result.status.describe(),
                  exitCodeFor(result.status));
  }

  RunSummary summary{options.lanes, options.schedule.c_str(),
                     layoutName(artifact.program().layout), options.framePool,
                     options.stats};
  printRunSummary(stdout, program, result, summary);
  std::fflush(stdout);
  std::string device = loaded->deviceSummary();
  if (!device.empty())
    std::fprintf(stderr, "%s: %s\n", options.tool.c_str(), device.c_str());
  if (options.repeat > 1)
    std::fprintf(stderr, "%s: fastest of %u runs: %.3f ms wall\n",
                 options.tool.c_str(), options.repeat, best * 1e3);
  if (int code = writeOutputs(artifact.program(), *loaded, options);
      code != kExitSuccess)
    return code;
  if (result.lanesFinished != options.lanes)
    return fail(options,
                std::to_string(result.lanesFinished) + " of " +
                    std::to_string(options.lanes) + " lanes finished",
                kExitFailure);
  return kExitSuccess;
}

} // namespace sluice::runtime
