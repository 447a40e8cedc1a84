//===- run.h - Run a compiled program and report it -------------*- C++ -*-===//
//
// What sluice-run (after compiling) and sluice-run-artifact (after reading a
// file) both do with an artifact: load it on a backend from the registry,
// run the wavefront scheduler (or the state-machine schedule), print the run
// summary on stdout and the device's line on stderr. One function, so both
// tools print identical reports for every program.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_PROGRAM_RUN_H
#define SLUICE_RUNTIME_PROGRAM_RUN_H

#include "sluice/runtime/program/artifact.h"
#include "sluice/runtime/program/bindings.h"

#include <cstdint>
#include <string>

namespace sluice::runtime {

struct ArtifactRunOptions {
  std::string backend = "cpu";
  std::string schedule = "wavefront"; // wavefront | state-machine
  uint32_t lanes = 1;
  uint32_t framePool = 256;
  uint32_t workers = 0; // CPU only; 0: one per core
  bool workersGiven = false;
  bool partialAdmission = true;
  // on | off | STAGE[,STAGE...]: coherence sorting (RunOptions::sorting,
  // parseFrameSorting)
  std::string sort = "on";
  uint32_t sortBuckets = 0; // 0: by key value; N >= 1: by key mod N
  uint32_t sortPartition = kDefaultSortPartition; // 0: one run per dispatch
  bool stats = false;
  uint32_t repeat = 1; // runs; the fastest wall time goes to stderr
  std::string tracePath;
  // host | device: where the wavefront scheduler decides (DESIGN.md §2.4).
  std::string placement = "host";
  bool placementGiven = false;
  // One text line per wavefront iteration: the decision and the counts it
  // saw, the same for both placements.
  std::string iterationLogPath;
  BindingRequests bindings; // --bind, --set, --output, --print
  std::string tool = "sluice-run"; // the prefix of every message
};

// Checks the options against the backend before anything is loaded. Returns
// kExitSuccess, or prints the problem and returns kExitBadInput.
int checkRunOptions(const ArtifactRunOptions &options);

// Parses --sort into `sorting` and checks the stages it names against the
// artifact's main stages (checkFrameSorting).
Status frameSortingFor(const Artifact &artifact, const std::string &sort,
                       FrameSorting &sorting);

// Resolves the bindings (before anything is loaded), loads `artifact` on the
// backend, binds, runs it and reports; then writes the --output files and
// prints the --print bindings on stdout. Every --repeat run starts from the
// bound values. Returns an exit code of exit_codes.h.
int runArtifact(const Artifact &artifact, const ArtifactRunOptions &options);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_PROGRAM_RUN_H
