//===- sluice-run.cpp - JIT-compile and run a Sluice program -------------===//
//
// Parses a .mlir program, proves its compile-time contracts (sluice-verify),
// lowers cohort graphs to the cohort executor's C ABI and everything else to
// LLVM, JIT-compiles it with ORC and calls the entry function. Generated code
// reaches the runtime through the symbols registered below.
//
//===----------------------------------------------------------------------===//

#include "sluice/Conversion/Passes.h"
#include "sluice/Dialect/Pool/Transforms/Passes.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"
#include "sluice/InitAll.h"
#include "sluice/Pipelines/Pipelines.h"
#include "sluice/runtime/c_api.h"
#include "sluice/runtime/cohort/c_api.h"
#include "sluice/runtime/launch.h"
#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/program/run.h"
#include "sluice/runtime/vulkan_launch.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cinttypes>
#include <cstdio>
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
static cl::opt<std::string> backend(
    "backend",
    cl::desc("Where gpu kernels run: cpu (JIT-compiled, the default) or vulkan "
             "(SPIR-V on a Vulkan device; SLUICE_VULKAN_DEVICE picks it)"),
    cl::init("cpu"), cl::cat(runCategory));
static cl::opt<bool> printLowered("print-lowered",
                                  cl::desc("Print the LLVM-dialect module before running it"),
                                  cl::init(false), cl::cat(runCategory));

// Wave coroutine programs (compiled by lib/Pipelines, run by runtime/program/run.h).
// `--stats` is taken out of argv before parsing: LLVM registers its own -stats.
static bool waveStats = false;
static cl::opt<std::string> waveLayout("layout", cl::desc("Wave programs: frame layout, soa | aos"),
                                       cl::init("soa"), cl::cat(runCategory));
static cl::opt<std::string> waveSchedule(
    "schedule", cl::desc("Wave programs: wavefront | state-machine"), cl::init("wavefront"),
    cl::cat(runCategory));
static cl::opt<unsigned> waveLanes(
    "lanes", cl::desc("Wave programs: lanes (coroutine instances); lane i gets i as argument"),
    cl::init(1), cl::cat(runCategory));
static cl::opt<unsigned> waveFramePool("frame-pool", cl::desc("Wave programs: frames in the pool"),
                                       cl::init(256), cl::cat(runCategory));
static cl::list<std::string> waveCapacities(
    "capacity", cl::desc("Wave programs: NAME=N overrides the capacity of pool.owner @NAME"),
    cl::cat(runCategory));
static cl::opt<std::string> waveTrace(
    "trace", cl::desc("Wave programs: write a Chrome trace of the wavefront iterations"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<unsigned> waveWorkers("workers", cl::desc("Wave programs: CPU workers (0: one per core)"),
                                     cl::init(0), cl::cat(runCategory));
static cl::opt<bool> wavePartialAdmission(
    "partial-admission", cl::desc("Wave programs: admit a prefix of a blocked producer"),
    cl::init(true), cl::cat(runCategory));

/// Printing helper that programs declare as `func.func private @sluice_print_i64(i64)`.
extern "C" void sluice_print_i64(int64_t value) {
  std::printf("%" PRId64 "\n", value);
  std::fflush(stdout);
}

/// `func.func private @sluice_print_f64(f64)`: 17 significant digits, so a
/// printed value identifies its bits.
extern "C" void sluice_print_f64(double value) {
  std::printf("%.17g\n", value);
  std::fflush(stdout);
}

/// The runtime entry points generated code may call, by unmangled name.
static llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap map;
  auto add = [&](llvm::StringRef name, void *address) {
    map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                           llvm::JITSymbolFlags::Exported};
  };
  add("sluice_print_i64", reinterpret_cast<void *>(&sluice_print_i64));
  add("sluice_print_f64", reinterpret_cast<void *>(&sluice_print_f64));
  add("sluice_cohort_graph_create", reinterpret_cast<void *>(&sluice_cohort_graph_create));
  add("sluice_cohort_graph_destroy", reinterpret_cast<void *>(&sluice_cohort_graph_destroy));
  add("sluice_cohort_add_task", reinterpret_cast<void *>(&sluice_cohort_add_task));
  add("sluice_cohort_add_dependency", reinterpret_cast<void *>(&sluice_cohort_add_dependency));
  add("sluice_cohort_run", reinterpret_cast<void *>(&sluice_cohort_run));
  add("sluice_cohort_last_error", reinterpret_cast<void *>(&sluice_cohort_last_error));
  add("sluice_rt_coro_alloc", reinterpret_cast<void *>(&sluice_rt_coro_alloc));
  add("sluice_rt_coro_free", reinterpret_cast<void *>(&sluice_rt_coro_free));
  add("sluice_rt_launch_blocks", reinterpret_cast<void *>(&sluice_rt_launch_blocks));
  add("sluice_rt_barrier_divergence", reinterpret_cast<void *>(&sluice_rt_barrier_divergence));
  add("sluice_rt_now_ns", reinterpret_cast<void *>(&sluice_rt_now_ns));
  add("sluice_rt_bench_reps", reinterpret_cast<void *>(&sluice_rt_bench_reps));
  add("sluice_rt_report_time", reinterpret_cast<void *>(&sluice_rt_report_time));
  add("sluice_rt_vk_launch_begin", reinterpret_cast<void *>(&sluice_rt_vk_launch_begin));
  add("sluice_rt_vk_launch_workgroup_memory",
      reinterpret_cast<void *>(&sluice_rt_vk_launch_workgroup_memory));
  add("sluice_rt_vk_launch_arg", reinterpret_cast<void *>(&sluice_rt_vk_launch_arg));
  add("sluice_rt_vk_launch_scalar", reinterpret_cast<void *>(&sluice_rt_vk_launch_scalar));
  add("sluice_rt_vk_launch_scratch", reinterpret_cast<void *>(&sluice_rt_vk_launch_scratch));
  add("sluice_rt_vk_launch_end", reinterpret_cast<void *>(&sluice_rt_vk_launch_end));
  return map;
}

/// A wave program: compiled into an artifact for the chosen backend
/// (lib/Pipelines), then run through the runtime's one reader and run path,
/// exactly as sluice-run-artifact runs the artifact from a file.
static int runWaveProgram(ModuleOp module) {
  namespace rt = sluice::runtime;
  rt::ArtifactRunOptions run;
  run.backend = backend;
  run.schedule = waveSchedule;
  run.lanes = waveLanes;
  run.framePool = waveFramePool;
  run.workers = waveWorkers;
  run.partialAdmission = wavePartialAdmission;
  run.stats = waveStats;
  run.tracePath = waveTrace;
  if (int code = rt::checkRunOptions(run); code != rt::kExitSuccess)
    return code;

  if (waveLayout != "soa" && waveLayout != "aos") {
    llvm::errs() << "sluice-run: --layout must be 'soa' or 'aos', got '" << waveLayout
                 << "'\n";
    return rt::kExitBadInput;
  }
  // A --capacity that does not parse or names no owner is bad usage.
  {
    PassManager pm(module.getContext());
    sluice::pool::PoolSetCapacityOptions capacity;
    capacity.capacities.assign(waveCapacities.begin(), waveCapacities.end());
    pm.addPass(sluice::pool::createPoolSetCapacity(capacity));
    if (failed(pm.run(module)))
      return rt::kExitBadInput;
  }

  sluice::WaveCompileOptions compile;
  compile.backends = {backend};
  compile.layout = waveLayout;
  compile.forceCoroutines = gpuForceCoroutines;
  compile.coroutineLanes = gpuCoroutineLanes;
  compile.optLevel = optLevel;
  compile.printLowered = printLowered ? &llvm::outs() : nullptr;
  std::vector<unsigned char> bytes;
  if (failed(sluice::compileWaveProgram(module, compile, bytes)))
    return rt::kExitFailure;
  rt::Artifact artifact;
  if (rt::Status status = rt::Artifact::read(std::move(bytes), "<compiled>", artifact);
      !status.ok()) {
    llvm::errs() << "sluice-run: " << status.message() << "\n";
    return rt::kExitFailure;
  }
  return rt::runArtifact(artifact, run);
}

static LogicalResult lowerToLLVM(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(sluice::createConvertCohortToLLVM());
  if (backend == "vulkan") {
    // Kernels become SPIR-V constants; launches call the Vulkan launch ABI.
    pm.addPass(sluice::createConvertGPULaunchToVulkan());
  } else {
    sluice::ConvertGPUToCPUOptions gpuOptions;
    gpuOptions.forceCoroutines = gpuForceCoroutines;
    gpuOptions.coroutineLanes = gpuCoroutineLanes;
    pm.addPass(sluice::createConvertGPUToCPU(gpuOptions));
  }
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  return pm.run(module);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
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
      (gpuForceCoroutines || gpuCoroutineLanes.getNumOccurrences() || waveWorkers.getNumOccurrences())) {
    llvm::errs() << "sluice-run: --gpu-force-coroutines, --gpu-coroutine-lanes and --workers "
                    "choose how the CPU backend runs kernels; they do not apply to "
                    "--backend="
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
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(inputFilename, sourceMgr, &context);
  if (!module)
    return 1;

  if (!module->getOps<sluice::wave::CoroutineOp>().empty())
    return runWaveProgram(*module);
  // The contracts come first: a program that breaks one gets that error, not
  // a complaint about its entry function.
  {
    PassManager pm(&context);
    sluice::buildVerificationPipeline(pm);
    if (failed(pm.run(*module)))
      return sluice::runtime::kExitFailure;
  }
  auto entry = module->lookupSymbol<func::FuncOp>(entryPoint);
  if (!entry || entry.isExternal()) {
    emitError(module->getLoc()) << "no function @" << entryPoint << " with a body to run";
    return 1;
  }
  if (entry.getNumArguments() != 0 || entry.getNumResults() != 0) {
    entry.emitError("the entry function must take no arguments and return nothing, has type ")
        << entry.getFunctionType();
    return 1;
  }

  if (failed(lowerToLLVM(*module)))
    return 1;
  if (printLowered)
    module->print(llvm::outs());

  // Optimize for the host CPU, so the vectorizer sees its vector registers.
  std::unique_ptr<llvm::TargetMachine> hostMachine;
  if (auto hostBuilder = llvm::orc::JITTargetMachineBuilder::detectHost()) {
    if (auto machine = hostBuilder->createTargetMachine())
      hostMachine = std::move(*machine);
    else
      llvm::consumeError(machine.takeError());
  } else {
    llvm::consumeError(hostBuilder.takeError());
  }
  // ExecutionEngineOptions holds a function_ref: keep the transformer alive.
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, hostMachine.get());
  ExecutionEngineOptions options;
  options.transformer = optimize;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(optLevel.getValue());
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine) {
    llvm::errs() << "sluice-run: JIT compilation failed: "
                 << llvm::toString(engine.takeError()) << "\n";
    return 1;
  }
  (*engine)->registerSymbols(runtimeSymbols);
  if (llvm::Error error = (*engine)->invokePacked(entryPoint)) {
    llvm::errs() << "sluice-run: cannot call @" << entryPoint << ": "
                 << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  return 0;
}
