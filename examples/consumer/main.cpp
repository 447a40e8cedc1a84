// A front end that embeds Sluice (docs/embedding.md), built against an
// installed tree with find_package(Sluice).
//
//   sluice-consumer             builds a wave program with a capacity pool
//                               through the C++ builder API, verifies it,
//                               compiles it (sluice/Pipelines/Compile.h), runs
//                               it with its own buffers on the CPU and on
//                               Vulkan (skipped, saying so, without a device),
//                               and checks its outputs; then runs the artifact
//                               that sluice_add_program compiled at build time
//                               (examples/shadow_pool.mlir) and checks its film.
//   sluice-consumer FILE.mlir   parses FILE and runs the verification pipeline.
//
// Exit status: 0 when every output matches, 1 otherwise (or when a program
// fails to verify, compile or run), 2 on bad usage.
#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"
#include "sluice/InitAll.h"
#include "sluice/Pipelines/Compile.h"
#include "sluice/runtime/program/session.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

using namespace mlir;
namespace rt = sluice::runtime;

namespace {

/// The first line of a status, for a one-line report.
std::string firstLine(const rt::Status &status) {
  std::string text = status.describe();
  return text.substr(0, text.find('\n'));
}

constexpr uint32_t kLanes = 1000;
constexpr int32_t kScale = 3;
constexpr int kBins = 8;

/// Builds, with OpBuilder, the program that in MLIR's syntax reads:
///
///   pool.owner @items capacity 64 stages ["classify", "record"]
///       payload [i32, i32] {
///     pool.handler "classify" (%item) {       // hist[x mod 8] += 1, then
///       %lane, %x = pool.load %item : i32, i32 // odd x: dropped,
///       %hist = wave.binding "hist" : memref<8xi32>   // even x: recorded
///       ... memref.atomic_rmw addi %one, %hist[%bin] ...
///       scf.if %odd { pool.release %item } else { pool.move %item to "record" }
///     }
///     pool.handler "record" (%item) {          // out[lane] = x
///       %lane, %x = pool.load %item : i32, i32
///       %out = wave.binding "out" : memref<?xi32>
///       memref.store %x, %out[%lane] : memref<?xi32>
///       pool.release %item
///     }
///   }
///   pool.emission_bound @scatter -> @items max 1
///   wave.coroutine @scatter(%lane: i32)
///       bind(%input: memref<?xi32> readonly, %hist: memref<8xi32>,
///            %out: memref<?xi32> writeonly, %scale: i32) {
///     %v = memref.load %input[%lane] : memref<?xi32>
///     wave.suspend "scale"                     // %v lives in the frame
///     %x = arith.muli %v, %scale : i32
///     pool.publish @items "classify" (%lane, %x) : i32, i32
///     wave.terminate
///   }
OwningOpRef<ModuleOp> buildScatter(MLIRContext &context) {
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  Type i32 = b.getI32Type();
  auto hist = MemRefType::get({kBins}, i32);
  auto dynamic = MemRefType::get({ShapedType::kDynamic}, i32);

  // The capacity owner and its two stage handlers.
  auto owner = sluice::pool::OwnerOp::create(
      b, loc, "items", /*capacity=*/64, b.getStrArrayAttr({"classify", "record"}),
      b.getTypeArrayAttr({i32, i32}));
  b.setInsertionPointToEnd(&owner.getBody().emplaceBlock());
  auto classify = sluice::pool::HandlerOp::create(b, loc, "classify");
  auto record = sluice::pool::HandlerOp::create(b, loc, "record");

  b.setInsertionPointToEnd(&classify.getBody().front());
  Value item = classify.getItem();
  auto payload = sluice::pool::LoadOp::create(b, loc, TypeRange{i32, i32}, item);
  Value x = payload.getValues()[1];
  Value histogram = sluice::wave::BindingOp::create(b, loc, hist, "hist");
  Value eight = arith::ConstantIntOp::create(b, loc, kBins, 32);
  Value bin = arith::RemUIOp::create(b, loc, x, eight);
  Value binIndex = arith::IndexCastOp::create(b, loc, b.getIndexType(), bin);
  Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
  memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, one,
                              histogram, ValueRange{binIndex});
  Value low = arith::AndIOp::create(b, loc, x, one);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
  Value odd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, low, zero);
  auto branch = scf::IfOp::create(b, loc, odd, /*withElseRegion=*/true);
  b.setInsertionPointToStart(branch.thenBlock());
  sluice::pool::ReleaseOp::create(b, loc, item);
  b.setInsertionPointToStart(branch.elseBlock());
  sluice::pool::MoveOp::create(b, loc, item, "record", ValueRange());

  b.setInsertionPointToEnd(&record.getBody().front());
  item = record.getItem();
  payload = sluice::pool::LoadOp::create(b, loc, TypeRange{i32, i32}, item);
  Value out = sluice::wave::BindingOp::create(b, loc, dynamic, "out");
  Value lane = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                          payload.getValues()[0]);
  memref::StoreOp::create(b, loc, payload.getValues()[1], out, ValueRange{lane});
  sluice::pool::ReleaseOp::create(b, loc, item);

  // The producer's emission bound and the coroutine with its bindings.
  b.setInsertionPointToEnd(module->getBody());
  sluice::pool::EmissionBoundOp::create(b, loc, "scatter", "items", 1);
  using sluice::wave::BindingAccessDecl;
  std::vector<sluice::wave::BindingDecl> bindings = {
      {"input", dynamic, BindingAccessDecl::ReadOnly},
      {"hist", hist, BindingAccessDecl::Any},
      {"out", dynamic, BindingAccessDecl::WriteOnly},
      {"scale", i32, BindingAccessDecl::Any},
  };
  auto coroutine = sluice::wave::CoroutineOp::create(b, loc, "scatter",
                                                     TypeRange{i32}, bindings);
  b.setInsertionPointToEnd(&coroutine.getBody().front());
  Value laneId = coroutine.getBody().front().getArgument(0);
  Value input = coroutine.getBindingArgument(0);
  Value scale = coroutine.getBindingArgument(3);
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), laneId);
  Value v = memref::LoadOp::create(b, loc, input, ValueRange{index});
  sluice::wave::SuspendOp::create(b, loc, "scale", Value());
  Value scaled = arith::MulIOp::create(b, loc, v, scale);
  sluice::pool::PublishOp::create(b, loc, "items", "classify",
                                  ValueRange{laneId, scaled});
  sluice::wave::TerminateOp::create(b, loc);
  return module;
}

/// The IR verifier, then Sluice's proofs (emission bounds, item linearity).
bool verifyProgram(MLIRContext &context, ModuleOp module) {
  if (failed(verify(module)))
    return false;
  PassManager pm(&context);
  sluice::buildVerificationPipeline(pm);
  return succeeded(pm.run(module));
}

std::vector<int32_t> scatterInput() {
  std::vector<int32_t> input(kLanes);
  for (uint32_t l = 0; l < kLanes; ++l)
    input[l] = int32_t((l * 37 + 11) % 1000);
  return input;
}

/// Runs @scatter on `program` with this front end's buffers and checks them
/// against what the program must compute, worked out here in plain C++:
///   x(l)    = input[l] * scale
///   hist[b] = #{l : x(l) mod 8 == b}
///   out[l]  = x(l) if x(l) is even, else the -1 it was bound with.
bool runScatter(rt::Program &program, const char *backend) {
  std::vector<int32_t> input = scatterInput();
  std::vector<int32_t> hist(kBins, 0), out(kLanes, -1);
  std::vector<int32_t> wantHist(kBins, 0), wantOut(kLanes, -1);
  for (uint32_t l = 0; l < kLanes; ++l) {
    int32_t x = input[l] * kScale;
    ++wantHist[x % kBins];
    if (x % 2 == 0)
      wantOut[l] = x;
  }
  for (rt::Status status :
       {program.bind("input", std::span<const int32_t>(input)),
        program.bind("hist", std::span<const int32_t>(hist)),
        program.bind("out", std::span<const int32_t>(out)),
        program.setUniform("scale", kScale)})
    if (!status.ok()) {
      std::fprintf(stderr, "%s: %s\n", backend, status.describe().c_str());
      return false;
    }
  rt::RunOptions options;
  options.lanes = kLanes;
  options.framePool = 128;
  rt::RunReport report = program.run(options);
  if (!report.ok()) {
    std::fprintf(stderr, "%s: run of @scatter failed: %s\n", backend,
                 report.status.describe().c_str());
    return false;
  }
  if (program.read("hist", hist).ok() && program.read("out", out).ok() &&
      hist == wantHist && out == wantOut) {
    std::printf("%s: @scatter, %u lanes, %llu items recorded: hist and out "
                "match\n",
                backend, kLanes,
                (unsigned long long)report.stages.back().invocations);
    return true;
  }
  std::fprintf(stderr, "%s: @scatter's outputs differ from the expected ones\n",
               backend);
  return false;
}

/// The artifact sluice_add_program compiled at build time: the shadow film
/// against the closed form in examples/shadow_pool.mlir's header, computed
/// here.
bool runShadow(const char *backend) {
  rt::Program program;
  rt::Status status = rt::Program::loadFile(SHADOW_ARTIFACT, backend, program);
  if (status.kind() == rt::ErrorKind::DeviceUnavailable) {
    std::printf("%s: no device (%s), skipped\n", backend,
                firstLine(status).c_str());
    return true;
  }
  if (!status.ok()) {
    std::fprintf(stderr, "%s: %s\n", backend, status.describe().c_str());
    return false;
  }
  const uint32_t lanes = 4096, lights = 61, shift = 5;
  std::vector<int32_t> occluders(lights);
  for (uint32_t l = 0; l < lights; ++l)
    occluders[l] = l % 3 == 2;
  std::vector<int32_t> want(4096, 0), film;
  for (uint32_t p = 0; p < lanes; ++p)
    for (uint32_t s = 0; s < 2; ++s) {
      uint32_t light = (7 * p + s + shift) % lights;
      if (occluders[light] == 0)
        want[p % 4096] += int32_t(light + 1);
    }
  if (!program.bind("occluders", std::span<const int32_t>(occluders)).ok() ||
      !program.setUniform("lights", int32_t(lights)).ok() ||
      !program.setUniform("shift", int32_t(shift)).ok())
    return false;
  rt::RunOptions options;
  options.lanes = lanes;
  rt::RunReport report = program.run(options);
  if (!report.ok()) {
    std::fprintf(stderr, "%s: run of @path failed: %s\n", backend,
                 report.status.describe().c_str());
    return false;
  }
  if (!program.read("film", film).ok() || film != want) {
    std::fprintf(stderr, "%s: the shadow film differs from its closed form\n",
                 backend);
    return false;
  }
  std::printf("%s: shadow artifact (sluice_add_program), %u lanes: film "
              "matches\n",
              backend, lanes);
  return true;
}

int verifyFile(const char *path) {
  DialectRegistry registry;
  sluice::registerWaveCompiler(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(path, sourceMgr, &context);
  if (!module)
    return 1;
  PassManager pm(&context);
  sluice::buildVerificationPipeline(pm);
  if (failed(pm.run(*module)))
    return 1;
  llvm::outs() << sluice::getVersionString() << ": verified " << path << "\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2)
    return verifyFile(argv[1]);
  if (argc != 1) {
    llvm::errs() << "usage: sluice-consumer [FILE.mlir]\n";
    return 2;
  }
  DialectRegistry registry;
  sluice::registerWaveCompiler(registry);
  MLIRContext context(registry);
  context.loadDialect<arith::ArithDialect, memref::MemRefDialect,
                      scf::SCFDialect, sluice::wave::WaveDialect,
                      sluice::pool::PoolDialect>();

  OwningOpRef<ModuleOp> module = buildScatter(context);
  if (!verifyProgram(context, *module))
    return 1;
  std::printf("built and verified @scatter: pool @items (classify, record), "
              "bindings input hist out scale\n");

  bool ok = true;
  for (const char *backend : {"cpu", "vulkan"}) {
    // A fresh module per backend: compiling consumes it.
    OwningOpRef<ModuleOp> copy = buildScatter(context);
    sluice::WaveCompileOptions options;
    options.backends = {backend};
    rt::Program program;
    rt::Status status =
        sluice::compileProgram(*copy, options, backend, program,
                               rt::LoadOptions{kLanes, 0});
    if (status.kind() == rt::ErrorKind::DeviceUnavailable) {
      std::printf("%s: no device (%s), skipped\n", backend,
                  firstLine(status).c_str());
      continue;
    }
    if (!status.ok()) {
      std::fprintf(stderr, "%s: %s\n", backend, status.describe().c_str());
      ok = false;
      continue;
    }
    ok &= runScatter(program, backend);
  }
  for (const char *backend : {"cpu", "vulkan"})
    ok &= runShadow(backend);
  std::printf("%s\n", ok ? "all outputs match" : "some outputs differ");
  return ok ? 0 : 1;
}
