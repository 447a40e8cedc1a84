//===- hip_resident.cpp - The hip backend's device placement --------------===//

#include "hip_resident.h"

#include "../resident_state.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string_view>

namespace sluice::runtime::hip {

namespace {

#include "sluice_generated/resident_texts.inc"

using decision::u32;
using decision::u64;

// A header's text without its includes of the other embedded headers.
std::string withoutSluiceIncludes(const char *text) {
  std::string out;
  const char *line = text;
  while (*line) {
    const char *end = std::strchr(line, '\n');
    size_t length = end ? size_t(end - line) + 1 : std::strlen(line);
    std::string_view view(line, length);
    if (view.rfind("#include \"sluice/", 0) != 0)
      out.append(view);
    line += length;
  }
  return out;
}

// SLUICE_HIP_PROFILE=1: the scheduler kernel is built with SLUICE_PROFILE,
// and a run prints block 0's mean cycles per part of an iteration
// (docs/runtime.md).
bool profileRequested() {
  const char *setting = std::getenv("SLUICE_HIP_PROFILE");
  return setting && std::string_view(setting) == "1";
}

} // namespace

std::string residentProfileLine(const uint64_t *sums) {
  static constexpr const char *kParts[] = {
      "loads",     "snapshot", "decision",
      "refill+select", "sort", "arguments",
      "publish",   "stage (block 0's share)", "tallies"};
  uint64_t complete = sums[decision::kProfileWords - 1];
  uint64_t waits = sums[decision::kProfileWords - 2];
  std::string line = "scheduler profile: " + std::to_string(complete) +
                     " iterations ran every part; block 0's mean clock "
                     "cycles:";
  for (size_t k = 0; k < std::size(kParts); ++k)
    line += std::string(k ? ", " : " ") + kParts[k] + " " +
            std::to_string(complete ? sums[k] / complete : 0);
  line += ", waiting for the other blocks " +
          std::to_string(waits ? sums[std::size(kParts)] / waits : 0);
  return line;
}

std::string residentSchedulerSource(const std::string &programSource,
                                    std::span<const std::string> bodies,
                                    size_t parameterCount) {
  std::string text = programSource;
  text += "\n// ---- decision.h ----\n";
  text += withoutSluiceIncludes(kResident_decision);
  text += "\n// ---- resident_layout.h ----\n";
  text += withoutSluiceIncludes(kResident_layout);
  text += "\n#define SLUICE_RESIDENT_WORDS " +
          std::to_string(std::max<size_t>(parameterCount, 1)) + "\n";
  text += "\n// ---- resident_kernel.hip ----\n";
  text += kResident_kernel;
  text += "\n// The stages' bodies, by global stage.\n"
          "__device__ __forceinline__ void sluice_resident_stage(unsigned int "
          "stage, const sluice_resident::Words &words, long long count, long "
          "long invocation) {\n"
          "  using sluice_resident::Word;\n"
          "  switch (stage) {\n";
  for (size_t s = 0; s < bodies.size(); ++s) {
    text += "  case " + std::to_string(s) + ":\n    " + bodies[s] + "(count";
    for (size_t p = 1; p < parameterCount; ++p)
      text += ", Word{words.w[" + std::to_string(p) + "]}";
    text += ", invocation);\n    return;\n";
  }
  text += "  }\n}\n";
  return text;
}

Status checkResidentParameterWords(size_t parameterCount) {
  if (parameterCount <= kResidentMaxParameterWords)
    return Status::success();
  return Status::error(
      ErrorKind::Unsupported,
      "the device placement passes the stage kernels' " +
          std::to_string(parameterCount) +
          " parameter words to its kernel by value, and at most " +
          std::to_string(kResidentMaxParameterWords) +
          " fit in a kernel's 4,096 bytes of parameters (run with "
          "--scheduler-placement=host)");
}

Status stageBodySymbol(const std::string &programSource,
                       const std::string &symbol, std::string &body) {
  body = symbol + "_body";
  if (programSource.find("__device__ void " + body + "(") == std::string::npos)
    return Status::error(ErrorKind::Unsupported,
                         "the program's HIP source has no body function '" +
                             body + "' for stage kernel '" + symbol +
                             "' (compile it again with this Sluice)");
  return Status::success();
}

Status policyHookSource(const std::string &programSource,
                        std::span<const std::array<std::string, 4>> hooks,
                        std::string &out) {
  out.clear();
  std::string cases;
  for (size_t o = 0; o < hooks.size(); ++o)
    for (size_t h = 0; h < hooks[o].size(); ++h) {
      const std::string &function = hooks[o][h];
      if (function.empty())
        continue;
      if (programSource.find(" " + function + "(") == std::string::npos)
        return Status::error(
            ErrorKind::Unsupported,
            "the program's HIP source has no __device__ function '" +
                function + "' for the " + policyHookName(PolicyHook(h)) +
                " hook of owner " + std::to_string(o) +
                " (compile it again with this Sluice)");
      // The lowered hook: (int64_t *storage, int32_t *counts, int64_t C,
      // int64_t L[, int64_t slots]) returning int64_t, int32_t or void.
      std::string call = function +
                         "((int64_t *)storage, (int32_t *)counts, capacity, "
                         "live" +
                         (PolicyHook(h) == PolicyHook::PrepareForProducer
                              ? ", slots)"
                              : ")");
      bool returns = PolicyHook(h) == PolicyHook::Availability ||
                     PolicyHook(h) == PolicyHook::AdmissionStage;
      cases += "  case " + std::to_string(o * kPolicyHookCount + h) + "u:\n    " +
               (returns ? "*value = (long long)" + call : call) +
               ";\n    return 1;\n";
    }
  if (cases.empty())
    return Status::success();
  out = "\n// ---- the owners' policy hooks (owner_policy.h) ----\n"
        "#define SLUICE_RESIDENT_POLICIES 1\n"
        "__device__ int sluice_policy_hook(unsigned int owner, unsigned int "
        "hook, long long *storage, unsigned int *counts, long long capacity, "
        "long long live, long long slots, long long *value) {\n"
        "  switch (owner * " +
        std::to_string(kPolicyHookCount) + "u + hook) {\n" +
        cases +
        "  default:\n    return 0;\n  }\n}\n"
        "extern \"C\" __global__ void " +
        std::string(kPolicyCallSymbol) +
        "(unsigned int owner, unsigned int hook, long long *storage, "
        "unsigned int *counts, long long capacity, long long live, long long "
        "slots, long long *value) {\n"
        "  if (!sluice_policy_hook(owner, hook, storage, counts, capacity, "
        "live, slots, value))\n    *value = 0;\n}\n";
  return Status::success();
}

ResidentScheduler::~ResidentScheduler() {
  if (driver_ && state_)
    driver_->release(state_);
}

Status ResidentScheduler::prepare(Driver &driver,
                                  const std::string &programSource,
                                  std::span<const std::string> symbols,
                                  size_t parameterCount) {
  if (prepared_)
    return prepareStatus_;
  prepared_ = true;
  driver_ = &driver;
  auto fail = [&](Status status) {
    prepareStatus_ = std::move(status);
    return prepareStatus_;
  };
  if (Status support = driver.cooperativeSupport(); !support.ok())
    return fail(support);
  if (Status fits = checkResidentParameterWords(parameterCount); !fits.ok())
    return fail(fits);
  parameterCount_ = std::max<size_t>(parameterCount, 1);
  std::vector<std::string> bodies;
  for (const std::string &symbol : symbols) {
    std::string body;
    if (Status status = stageBodySymbol(programSource, symbol, body);
        !status.ok())
      return fail(status);
    bodies.push_back(body);
  }
  std::string source =
      residentSchedulerSource(programSource, bodies, parameterCount);
  profiled_ = profileRequested();
  if (profiled_)
    source = "#define SLUICE_PROFILE 1\n" + source;
  std::vector<char> image;
  if (Status status =
          driver.compile(source, "the device placement's scheduler", image);
      !status.ok())
    return fail(status);
  if (Status status = driver.loadModule(image, module_); !status.ok())
    return fail(status);
  if (Status status =
          driver.function(module_, "sluice_resident_scheduler", function_);
      !status.ok())
    return fail(status);
  if (Status status = driver.occupancy(function_, kResidentBlockThreads,
                                       blocksPerMultiprocessor_);
      !status.ok())
    return fail(status);
  if (blocksPerMultiprocessor_ <= 0)
    return fail(Status::error(
        ErrorKind::Unsupported,
        "the scheduler kernel with the program's stage bodies does not fit "
        "one block of " +
            std::to_string(kResidentBlockThreads) +
            " threads on a multiprocessor of " + driver.describe() +
            " (too many registers or too much shared memory)"));
  prepareStatus_ = Status::success();
  return prepareStatus_;
}

namespace {
constexpr uint32_t kRecordCapacity = 4096; // a launch's rounds: one record each
static_assert(kRecordCapacity + 1 < decision::kDecisionRoundMask);
} // namespace

Status ResidentScheduler::buildState(Driver &driver,
                                     const ResidentLaunch &launch) {
  // The grid: as many blocks as the device holds at once, at most one per
  // 256 invocations of the largest dispatch.
  const uint64_t maxInvocations = std::max<uint32_t>(launch.maxInvocations, 1);
  uint64_t perGrid = uint64_t(blocksPerMultiprocessor_) *
                     std::max(driver.info().multiprocessors, 1);
  uint64_t wanted = (maxInvocations + kResidentBlockThreads - 1) /
                    kResidentBlockThreads;
  gridBlocks_ = uint32_t(std::max<uint64_t>(1, std::min(perGrid, wanted)));
  ResidentState &state = stateImage_;
  buildResidentStateOnce(launch, gridBlocks_, kRecordCapacity, state,
                         stateImageKey_);
  if (state_ && stateBytes_ < state.deviceBytes) {
    driver.release(state_);
    state_ = 0;
  }
  if (!state_) {
    if (Status status = driver.allocate(state.deviceBytes, state_);
        !status.ok())
      return status;
    stateBytes_ = state.deviceBytes;
  }
  return Status::success();
}

Status ResidentScheduler::prepareState(Driver &driver,
                                       const ResidentLaunch &launch) {
  if (Status status = checkResidentLimits(*launch.tables); !status.ok())
    return status;
  return buildState(driver, launch);
}

Status ResidentScheduler::run(
    Driver &driver, void *stream, void *startEvent, void *endEvent,
    const ResidentLaunch &launch, std::span<const uint64_t> parameters,
    const std::function<DevicePointer(const KernelBuffer &)> &address,
    ResidentLaunchResult &out) {
  const decision::Tables &t = *launch.tables;
  if (Status status = checkResidentLimits(t); !status.ok())
    return status;
  out = ResidentLaunchResult();
  const uint32_t owners = t.ownerCount;
  if (Status status = buildState(driver, launch); !status.ok())
    return status;
  ResidentState &state = stateImage_;
  DevicePointer base = state_;
  locateResidentState(
      launch, u64(base),
      [&](const KernelBuffer &buffer) { return u64(address(buffer)); }, state);
  if (Status status = driver.copyToDevice(state_, state.bytes.data(),
                                          state.bytes.size(), stream);
      !status.ok())
    return status;
  auto device = [&](uint64_t offset) { return u64(base + offset); };
  const uint32_t snapshotWords = state.snapshotWords;

  uint32_t grid[3] = {gridBlocks_, 1, 1};
  uint32_t block[3] = {kResidentBlockThreads, 1, 1};
  out.form = "one cooperative kernel of " + std::to_string(gridBlocks_) +
             " blocks of " + std::to_string(kResidentBlockThreads) +
             " threads (" + std::to_string(blocksPerMultiprocessor_) +
             " per multiprocessor fit at once)";
  u64 layoutAddress = device(state.layoutOffset);
  if (parameters.size() > parameterCount_)
    return Status::error(ErrorKind::InvalidState,
                         "the device placement's kernel was built for " +
                             std::to_string(parameterCount_) +
                             " parameter words, and the run has " +
                             std::to_string(parameters.size()));
  std::vector<u64> words(parameterCount_, 0);
  std::copy(parameters.begin(), parameters.end(), words.begin());
  void *kernelParameters[] = {&layoutAddress, words.data()};

  ResidentLog &log = out.log;
  uint64_t firstTime = 0;
  std::vector<decision::Record> records(kRecordCapacity);
  std::vector<uint64_t> snapshots, deltas, times;
  for (;;) {
    if (Status status = driver.record(startEvent, stream); !status.ok())
      return status;
    if (Status status = driver.launchCooperative(
            function_, grid, block, 0, stream, kernelParameters);
        !status.ok())
      return status;
    if (Status status = driver.record(endEvent, stream); !status.ok())
      return status;
    ++out.launches;
    u32 words[decision::kControlWords];
    if (Status status = driver.copyToHost(words, device(state.control),
                                          sizeof words, stream);
        !status.ok())
      return status;
    if (Status status = driver.synchronize(stream); !status.ok())
      return Status::error(status.kind(),
                           "the scheduler kernel failed: " + status.message());
    float ms = 0;
    if (driver.elapsedMilliseconds(startEvent, endEvent, ms).ok())
      out.gpuNanoseconds += double(ms) * 1e6;
    u32 n = words[decision::kControlRecords];
    u32 stop = words[decision::kControlStopReason];
    bool ended = stop != decision::kStopBatchFull;
    // This launch's log (the snapshot after the last record too when the
    // run ended: the counts it stopped at).
    snapshots.resize(uint64_t(n + 1) * snapshotWords);
    deltas.resize(uint64_t(n) * decision::kDeltaWords + 1);
    times.resize(uint64_t(n) * decision::kTimeWords + 1);
    Status status = driver.copyToHost(records.data(), device(state.records),
                                      uint64_t(n) * sizeof(decision::Record),
                                      stream);
    if (status.ok())
      status = driver.copyToHost(snapshots.data(), device(state.snapshots),
                                 snapshots.size() * 8, stream);
    if (status.ok())
      status = driver.copyToHost(deltas.data(), device(state.deltas),
                                 uint64_t(n) * decision::kDeltaWords * 8,
                                 stream);
    if (status.ok())
      status = driver.copyToHost(times.data(), device(state.times),
                                 uint64_t(n) * decision::kTimeWords * 8,
                                 stream);
    if (status.ok())
      status = driver.synchronize(stream);
    if (!status.ok())
      return status;
    appendResidentBatch(log, n, records.data(), snapshots.data(),
                        deltas.data(), times.data(), snapshotWords, firstTime);
    if (ended) {
      out.stopReason = stop;
      out.detail = words[decision::kControlDetail];
      if (stop == decision::kStopVerdict) {
        log.verdict = decision::Verdict(words[decision::kControlVerdict]);
        log.last.assign(snapshots.begin() + uint64_t(n) * snapshotWords,
                        snapshots.begin() + uint64_t(n + 1) * snapshotWords);
        if (log.verdict == decision::kPolicyFault) {
          out.policyFault.resize(state.policyFaultWords);
          if (Status status = driver.copyToHost(
                  out.policyFault.data(), device(state.policyFault),
                  out.policyFault.size() * 8, stream);
              !status.ok())
            return status;
        }
      }
      break;
    }
    // The next batch: the same state, a fresh log and barrier.
    u32 reset[decision::kControlWords];
    std::memcpy(reset, words, sizeof reset);
    reset[decision::kControlRecords] = 0;
    reset[decision::kControlStopReason] = decision::kStopRunning;
    reset[decision::kControlBarrierCount] = 0;
    reset[decision::kControlArrived] = 0;
    reset[decision::kControlDecision] = 0;
    reset[decision::kControlDecision + 1] = 0;
    if (Status status = driver.copyToDevice(device(state.control), reset,
                                            sizeof reset, stream);
        !status.ok())
      return status;
  }
  out.allocHeads.resize(owners);
  for (u32 o = 0; o < owners; ++o) {
    u64 head = 0;
    if (Status status = driver.copyToHost(
            &head, device(state.positions) + uint64_t(o) * 16, 8, stream);
        !status.ok())
      return status;
    out.allocHeads[o] = head;
  }
  uint64_t sums[decision::kProfileWords] = {};
  if (profiled_)
    if (Status status = driver.copyToHost(sums, device(state.profile),
                                          sizeof sums, stream);
        !status.ok())
      return status;
  if (Status status = driver.synchronize(stream); !status.ok())
    return status;
  if (profiled_)
    out.profile = residentProfileLine(sums);
  return Status::success();
}

} // namespace sluice::runtime::hip
