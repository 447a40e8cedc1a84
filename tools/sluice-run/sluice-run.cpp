//===- sluice-run.cpp - JIT-compile and run a Sluice program -------------===//
//
// Option parsing around sluice::runProgram (include/sluice/Pipelines/Run.h):
// a wave program is compiled into an artifact and run by the runtime; any
// other program is proven, lowered for the backend, JIT-compiled and its
// entry function called.
//
//===----------------------------------------------------------------------===//

#include "sluice/InitAll.h"
#include "sluice/Pipelines/Run.h"
#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/wavefront/program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <tuple>
#include <vector>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory runCategory("sluice-run options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input .mlir>"),
                                          cl::Required, cl::cat(runCategory));
static cl::opt<std::string> entryPoint("entry",
                                       cl::desc("Function to call (no arguments, no results)"),
                                       cl::init("main"), cl::cat(runCategory));
static cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level of the JIT (0-3)"),
                                  cl::init(2), cl::cat(runCategory));
static cl::opt<bool> gpuForceCoroutines(
    "gpu-force-coroutines",
    cl::desc("Run every gpu.func kernel on the coroutine path (no loop fission)"),
    cl::init(false), cl::cat(runCategory));
static cl::opt<unsigned> gpuCoroutineLanes(
    "gpu-coroutine-lanes",
    cl::desc("Lanes per coroutine on the coroutine path (1: one coroutine per lane)"),
    cl::init(128), cl::cat(runCategory));
static cl::opt<unsigned> cpuSimd(
    "cpu-simd",
    cl::desc(
        "Lanes a CPU kernel's lane loop runs at a time in vector registers, "
        "masked where they diverge, where the cost model expects a gain "
        "(docs/cpu-backend.md; 0 or 1: one at a time, the default)"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<bool> cpuSimdAll(
    "cpu-simd-all",
    cl::desc(
        "With --cpu-simd: every lane loop that can be vectorized, not only "
        "where the cost model expects a gain"),
    cl::init(false), cl::cat(runCategory));
static cl::opt<std::string> backend(
    "backend",
    cl::desc("Where gpu kernels run: cpu (JIT-compiled, the default), "
             "cpu-staged, vulkan (SPIR-V on a Vulkan device; "
             "SLUICE_VULKAN_DEVICE picks it) or hip (HIP C++ through NVRTC "
             "on NVIDIA or hiprtc on AMD; SLUICE_HIP_PLATFORM picks it)"),
    cl::init("cpu"), cl::cat(runCategory));
static cl::opt<bool> printLowered("print-lowered",
                                  cl::desc("Print the LLVM-dialect module before running it"),
                                  cl::init(false), cl::cat(runCategory));

// Wave coroutine programs (compiled by lib/Pipelines, run by runtime/program/run.h).
// `--stats` is taken out of argv before parsing: LLVM registers its own -stats.
static bool waveStats = false;
static cl::opt<std::string> waveLayout("layout", cl::desc("Wave programs: frame layout, soa | aos"),
                                       cl::init("soa"), cl::cat(runCategory));
static cl::opt<std::string> waveMegakernelVote(
    "megakernel-vote",
    cl::desc("Wave programs: which backends' state-machine megakernel runs one stage per subgroup "
             "at a time, the furthest any thread of it waits at: hip (default) | gpu (hip and "
             "vulkan) | none"),
    cl::init("hip"), cl::cat(runCategory));
static cl::opt<std::string> waveSchedule(
    "schedule", cl::desc("Wave programs: wavefront | state-machine"), cl::init("wavefront"),
    cl::cat(runCategory));
static cl::opt<unsigned> waveLanes(
    "lanes", cl::desc("Wave programs: lanes (coroutine instances); lane i gets i as argument"),
    cl::init(1), cl::cat(runCategory));
static cl::opt<unsigned> waveFramePool("frame-pool", cl::desc("Wave programs: frames in the pool"),
                                       cl::init(256), cl::cat(runCategory));
static cl::opt<std::string> waveSort(
    "sort",
    cl::desc("Wave programs: on (default) | off | STAGE[,STAGE...]: order the frames of a "
             "dispatch of a stage with a sort_by key by that key (a list: only the main stages "
             "named)"),
    cl::init("on"), cl::cat(runCategory));
static cl::opt<unsigned> waveSortBuckets(
    "sort-buckets",
    cl::desc("Wave programs: 0 (default) sorts by the key's value; N >= 1 by the bucket key mod N"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<unsigned> waveSortPartition(
    "sort-partition",
    cl::desc("Wave programs: N >= 1 sorts every run of N consecutive frames (ascending) of a "
             "dispatch on its own, so they stay close in memory and sort in parallel (default "
             "1024); 0 sorts the whole dispatch as one run"),
    cl::init(sluice::runtime::kDefaultSortPartition), cl::cat(runCategory));
static cl::list<std::string> waveCapacities(
    "capacity", cl::desc("Wave programs: NAME=N overrides the capacity of pool.owner @NAME"),
    cl::cat(runCategory));
static cl::opt<std::string> waveTrace(
    "trace", cl::desc("Wave programs: write a Chrome trace of the wavefront iterations"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> wavePlacement(
    "scheduler-placement",
    cl::desc("Wave programs: host (default) | device | auto: where the wavefront scheduler decides; "
             "device runs the decision loop on the device (cpu, Vulkan and hip backends) and "
             "falls back to host, saying why, where the device has no placement; auto is device on "
             "hip and a Vulkan GPU, host on the cpu backend and a Vulkan CPU device (lavapipe)"),
    cl::init("host"), cl::cat(runCategory));
static cl::opt<std::string> waveIterationLog(
    "iteration-log",
    cl::desc("Wave programs: write one line per wavefront iteration (the decision and the counts "
             "it saw); both placements write the same text"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<unsigned> waveWorkers("workers", cl::desc("Wave programs: CPU workers (0: one per core)"),
                                     cl::init(0), cl::cat(runCategory));
static cl::list<std::string> waveBind(
    "bind", cl::desc("Wave programs: NAME=FILE binds buffer NAME (.npy, else raw little-endian)"),
    cl::cat(runCategory));
static cl::list<std::string> waveSet("set", cl::desc("Wave programs: NAME=VALUE sets uniform NAME"),
                                     cl::cat(runCategory));
static cl::list<std::string> waveOutput(
    "output", cl::desc("Wave programs: NAME=FILE.npy writes binding NAME after the run"),
    cl::cat(runCategory));
static cl::list<std::string> wavePrint("print",
                                       cl::desc("Wave programs: print binding NAME after the run"),
                                       cl::cat(runCategory));
static cl::opt<bool> waveCheckBounds(
    "check-bounds",
    cl::desc("Wave programs: bounds-check every access to a buffer binding (a fault names "
             "the binding, index, lane and stage)"),
    cl::init(false), cl::cat(runCategory));
static cl::opt<bool> wavePartialAdmission(
    "partial-admission", cl::desc("Wave programs: admit a prefix of a blocked producer"),
    cl::init(true), cl::cat(runCategory));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(runCategory);
  cl::AddExtraVersionPrinter(sluice::printVersion);
  std::vector<char *> arguments;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && (llvm::StringRef(argv[i]) == "--stats" || llvm::StringRef(argv[i]) == "-stats"))
      waveStats = true;
    else
      arguments.push_back(argv[i]);
  }
  cl::ParseCommandLineOptions(
      int(arguments.size()), arguments.data(),
      "sluice-run: JIT-compile a Sluice program and run it (CPU or Vulkan backend).\n\n"
      "The program's compile-time contracts are proven first (sluice-verify);\n"
      "cohort graphs run on the cohort executor (one thread per core).\n"
      "Programs print values with `func.func private @sluice_print_i64(i64)`\n"
      "and `@sluice_print_f64(f64)` (17 significant digits).\n"
      "wave.coroutine programs run on the runtime's wavefront scheduler and CPU\n"
      "device; --stats prints their per-stage table.\n\n"
      "--backend=vulkan compiles the gpu kernels to SPIR-V (sluice-to-spirv) and\n"
      "runs them on a Vulkan device: wave programs on the same wavefront\n"
      "scheduler through the Vulkan device adapter, host-launched kernels through\n"
      "the Vulkan launch ABI. Host code and cohort graphs stay on the CPU.\n"
      "SLUICE_VULKAN_DEVICE=<index|name> picks the device; SLUICE_VULKAN_TIMING=1\n"
      "prints the GPU time of every launch.\n\n"
      "A wave program is compiled into the same artifact `sluice-translate\n"
      "--sluice-to-artifact` writes and run as sluice-run-artifact runs it.\n\n"
      "exit codes: 0 success, 1 the program failed (a compile error, a protocol\n"
      "fault, a run error), 2 bad usage or bad input, 3 no device (docs/tools.md).\n");
  const sluice::runtime::BackendAdapter *adapter =
      sluice::runtime::findBackendAdapter(backend);
  if (!adapter) {
    llvm::errs() << "sluice-run: --backend must be one of: "
                 << sluice::runtime::backendAdapterNames() << "; got '" << backend << "'\n";
    return sluice::runtime::kExitBadInput;
  }
  if (!adapter->workers &&
      (gpuForceCoroutines || gpuCoroutineLanes.getNumOccurrences() ||
       waveWorkers.getNumOccurrences() || cpuSimd.getNumOccurrences() ||
       cpuSimdAll)) {
    llvm::errs()
        << "sluice-run: --gpu-force-coroutines, --gpu-coroutine-lanes, "
           "--cpu-simd, --cpu-simd-all and --workers choose how the CPU "
           "backend runs kernels; they do not apply to --backend="
        << backend << "\n";
    return sluice::runtime::kExitBadInput;
  }
  if (optLevel > 3) {
    llvm::errs() << "sluice-run: -O must be 0..3, got " << optLevel << "\n";
    return sluice::runtime::kExitBadInput;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  sluice::registerSluiceDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(inputFilename, sourceMgr, &context);
  if (!module)
    return sluice::runtime::kExitFailure;

  sluice::RunOptions options;
  options.entry = entryPoint;
  options.run.backend = backend;
  options.run.schedule = waveSchedule;
  options.run.lanes = waveLanes;
  options.run.framePool = waveFramePool;
  options.run.workers = waveWorkers;
  options.run.partialAdmission = wavePartialAdmission;
  options.run.stats = waveStats;
  options.run.tracePath = waveTrace;
  options.run.placement = wavePlacement;
  options.run.placementGiven = wavePlacement.getNumOccurrences() != 0;
  options.run.iterationLogPath = waveIterationLog;
  options.run.sort = waveSort;
  options.run.sortBuckets = waveSortBuckets;
  options.run.sortPartition = waveSortPartition;
  for (auto [option, list, into] :
       {std::tuple{"--bind", &waveBind, &options.run.bindings.files},
        std::tuple{"--set", &waveSet, &options.run.bindings.uniforms},
        std::tuple{"--output", &waveOutput, &options.run.bindings.outputs}})
    for (const std::string &text : *list) {
      sluice::runtime::BindingRequests::Item item;
      if (sluice::runtime::Status status = sluice::runtime::parseBindingRequest(option, text, item);
          !status.ok()) {
        llvm::errs() << "sluice-run: " << status.message() << "\n";
        return sluice::runtime::kExitBadInput;
      }
      into->push_back(std::move(item));
    }
  options.run.bindings.prints.assign(wavePrint.begin(), wavePrint.end());
  options.compile.layout = waveLayout;
  options.compile.checkBounds = waveCheckBounds;
  options.compile.megakernelVote = waveMegakernelVote;
  options.compile.capacities.assign(waveCapacities.begin(), waveCapacities.end());
  options.compile.forceCoroutines = gpuForceCoroutines;
  options.compile.coroutineLanes = gpuCoroutineLanes;
  options.compile.laneVectorWidth = cpuSimd;
  options.compile.laneVectorAlways = cpuSimdAll;
  options.compile.optLevel = optLevel;
  options.compile.printLowered = printLowered ? &llvm::outs() : nullptr;
  return sluice::runProgram(*module, options);
}
