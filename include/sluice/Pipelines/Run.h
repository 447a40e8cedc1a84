//===- Run.h - Compile and run a program, as sluice-run does ----*- C++ -*-===//
//
// What sluice-run does, callable from C++ (as mlir-runner is option parsing
// around JitRunnerMain): a wave program is compiled into an artifact
// (compileWaveProgram) and run through the runtime's one reader and run path
// (runtime::runArtifact), exactly as sluice-run-artifact runs a file; any
// other program is proven (sluice-verify), lowered by sluice-host-to-llvm for
// the backend, JIT-compiled with ORC and its entry function called.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_PIPELINES_RUN_H
#define SLUICE_PIPELINES_RUN_H

#include "sluice/Pipelines/Pipelines.h"
#include "sluice/runtime/program/run.h"

namespace sluice {

struct RunOptions {
  runtime::ArtifactRunOptions run; // backend, schedule, lanes, frame pool, ...
  WaveCompileOptions compile;      // layout, capacities, coroutines, -O, ...
  std::string entry = "main";      // host programs: the function to call
};

/// Runs `module` (consumed). Returns an exit code of runtime/exit_codes.h;
/// errors are diagnostics on the module's context or lines on stderr.
int runProgram(mlir::ModuleOp module, const RunOptions &options);

} // namespace sluice

#endif // SLUICE_PIPELINES_RUN_H
