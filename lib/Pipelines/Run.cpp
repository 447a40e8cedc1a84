//===- Run.cpp - Compile and run a program, as sluice-run does ------------===//

#include "sluice/Pipelines/Run.h"

#include "sluice/Dialect/Pool/Transforms/Passes.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"
#include "sluice/InitAll.h"
#include "sluice/runtime/c_api.h"
#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/cohort/c_api.h"
#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/launch/launch.h"
#include "sluice/runtime/launch/host_launch.h"
#include "sluice/runtime/launch/printf_buffer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <cinttypes>
#include <cstdio>

using namespace mlir;
namespace rt = sluice::runtime;

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

#ifdef SLUICE_HAVE_COMPILER_RT_BUILTINS
// compiler-rt's conversions to bf16 (their real types take and return
// floating-point values; only their addresses are used here).
extern "C" void __truncsfbf2();
extern "C" void __truncdfbf2();
#endif

/// The runtime entry points generated code may call, by unmangled name.
static llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap map;
  auto add = [&](llvm::StringRef name, void *address) {
    map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                           llvm::JITSymbolFlags::Exported};
  };
  add("sluice_print_i64", reinterpret_cast<void *>(&sluice_print_i64));
#ifdef SLUICE_HAVE_COMPILER_RT_BUILTINS
  add("__truncsfbf2", reinterpret_cast<void *>(&__truncsfbf2));
  add("__truncdfbf2", reinterpret_cast<void *>(&__truncdfbf2));
#endif
  add("sluice_print_f64", reinterpret_cast<void *>(&sluice_print_f64));
  add("sluice_cohort_graph_create", reinterpret_cast<void *>(&sluice_cohort_graph_create));
  add("sluice_cohort_graph_destroy", reinterpret_cast<void *>(&sluice_cohort_graph_destroy));
  add("sluice_cohort_add_task", reinterpret_cast<void *>(&sluice_cohort_add_task));
  add("sluice_cohort_add_dependency", reinterpret_cast<void *>(&sluice_cohort_add_dependency));
  add("sluice_cohort_run", reinterpret_cast<void *>(&sluice_cohort_run));
  add("sluice_cohort_last_error", reinterpret_cast<void *>(&sluice_cohort_last_error));
  add(SLUICE_RT_SYM_CORO_ALLOC, reinterpret_cast<void *>(&sluice_rt_coro_alloc));
  add(SLUICE_RT_SYM_CORO_FREE, reinterpret_cast<void *>(&sluice_rt_coro_free));
  add(SLUICE_RT_SYM_BARRIER_DIVERGENCE, reinterpret_cast<void *>(&sluice_rt_barrier_divergence));
  add("sluice_rt_now_ns", reinterpret_cast<void *>(&sluice_rt_now_ns));
  add("sluice_rt_bench_reps", reinterpret_cast<void *>(&sluice_rt_bench_reps));
  add("sluice_rt_bench_sequence",
      reinterpret_cast<void *>(&sluice_rt_bench_sequence));
  add("sluice_rt_report_time", reinterpret_cast<void *>(&sluice_rt_report_time));
  add("sluice_rt_synchronize", reinterpret_cast<void *>(&sluice_rt_synchronize));
  add(SLUICE_RT_SYM_LAUNCH_BEGIN, reinterpret_cast<void *>(&sluice_rt_launch_begin));
  add(SLUICE_RT_SYM_LAUNCH_WORKERS, reinterpret_cast<void *>(&sluice_rt_launch_workers));
  add(SLUICE_RT_SYM_LAUNCH_WORKGROUP_MEMORY,
      reinterpret_cast<void *>(&sluice_rt_launch_workgroup_memory));
  add(SLUICE_RT_SYM_LAUNCH_MEMREF, reinterpret_cast<void *>(&sluice_rt_launch_memref));
  add(SLUICE_RT_SYM_LAUNCH_MEMREF_DIM, reinterpret_cast<void *>(&sluice_rt_launch_memref_dim));
  add(SLUICE_RT_SYM_LAUNCH_SCALAR, reinterpret_cast<void *>(&sluice_rt_launch_scalar));
  add(SLUICE_RT_SYM_LAUNCH_SCRATCH, reinterpret_cast<void *>(&sluice_rt_launch_scratch));
  add(SLUICE_RT_SYM_LAUNCH_END, reinterpret_cast<void *>(&sluice_rt_launch_end));
  add(SLUICE_RT_SYM_HOST_ACCESS, reinterpret_cast<void *>(&sluice_rt_host_access));
  add("sluice_rt_printf_capacity", reinterpret_cast<void *>(&sluice_rt_printf_capacity));
  add("sluice_rt_printf_flush", reinterpret_cast<void *>(&sluice_rt_printf_flush));
  return map;
}

namespace sluice {
namespace {

int fail(const std::string &message, int code) {
  llvm::errs() << "sluice-run: " << message << "\n";
  return code;
}

int runWaveProgram(ModuleOp module, const RunOptions &options) {
  if (int code = rt::checkRunOptions(options.run); code != rt::kExitSuccess)
    return code;
  const WaveCompileOptions &compile = options.compile;
  if (compile.layout != "soa" && compile.layout != "aos")
    return fail("--layout must be 'soa' or 'aos', got '" + compile.layout + "'",
                rt::kExitBadInput);
  // A --capacity that does not parse or names no owner is bad usage.
  {
    PassManager pm(module.getContext());
    pool::PoolSetCapacityOptions capacity;
    capacity.capacities.assign(compile.capacities.begin(),
                               compile.capacities.end());
    pm.addPass(pool::createPoolSetCapacity(capacity));
    if (failed(pm.run(module)))
      return rt::kExitBadInput;
  }
  WaveCompileOptions once = compile;
  once.capacities.clear(); // applied above
  once.backends = {std::string(rt::backendKernels(options.run.backend))};
  std::vector<unsigned char> bytes;
  if (failed(compileWaveProgram(module, once, bytes)))
    return rt::kExitFailure;
  rt::Artifact artifact;
  if (rt::Status status =
          rt::Artifact::read(std::move(bytes), "<compiled>", artifact);
      !status.ok())
    return fail(status.message(), rt::kExitFailure);
  return rt::runArtifact(artifact, options.run);
}

int runHostProgram(ModuleOp module, const RunOptions &options) {
  // The contracts come first: a program that breaks one gets that error, not
  // a complaint about its entry function.
  {
    PassManager pm(module.getContext());
    buildVerificationPipeline(pm);
    if (failed(pm.run(module)))
      return rt::kExitFailure;
  }
  auto entry = module.lookupSymbol<func::FuncOp>(options.entry);
  if (!entry || entry.isExternal()) {
    emitError(module.getLoc())
        << "no function @" << options.entry << " with a body to run";
    return rt::kExitFailure;
  }
  if (entry.getNumArguments() != 0 || entry.getNumResults() != 0) {
    entry.emitError("the entry function must take no arguments and return "
                    "nothing, has type ")
        << entry.getFunctionType();
    return rt::kExitFailure;
  }
  {
    PassManager pm(module.getContext());
    HostToLLVMOptions host;
    host.backend = std::string(rt::backendKernels(options.run.backend));
    host.forceCoroutines = options.compile.forceCoroutines;
    host.coroutineLanes = options.compile.coroutineLanes;
    host.laneVectorWidth = options.compile.laneVectorWidth;
    host.laneVectorAlways = options.compile.laneVectorAlways;
    buildHostToLLVMPipeline(pm, host);
    if (failed(pm.run(module)))
      return rt::kExitFailure;
  }
  if (options.compile.printLowered)
    module->print(*options.compile.printLowered);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
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
  unsigned optLevel = options.compile.optLevel;
  // ExecutionEngineOptions holds a function_ref: keep the transformer alive.
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, hostMachine.get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  engineOptions.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(optLevel);
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return fail("JIT compilation failed: " + llvm::toString(engine.takeError()),
                rt::kExitFailure);
  (*engine)->registerSymbols(runtimeSymbols);
  if (llvm::Error error = (*engine)->invokePacked(options.entry))
    return fail("cannot call @" + options.entry + ": " +
                    llvm::toString(std::move(error)),
                rt::kExitFailure);
  return rt::kExitSuccess;
}

} // namespace

int runProgram(ModuleOp module, const RunOptions &options) {
  if (!module.getOps<wave::CoroutineOp>().empty())
    return runWaveProgram(module, options);
  return runHostProgram(module, options);
}

} // namespace sluice
