//===- hip_resident.cpp - The hip backend's device placement --------------===//

#include "hip_resident.h"

#include <algorithm>
#include <cstring>

namespace sluice::runtime::hip {

namespace {

#include "sluice_generated/resident_texts.inc"

using decision::ResidentLayout;
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

// The device state: one buffer, every array 16-byte aligned.
struct StateImage {
  std::vector<unsigned char> bytes;
  uint64_t place(uint64_t size) {
    uint64_t offset = (bytes.size() + 15) & ~uint64_t(15);
    bytes.resize(offset + std::max<uint64_t>(size, 16), 0);
    return offset;
  }
  template <typename T> uint64_t array(std::span<const T> values) {
    uint64_t offset = place(values.size_bytes());
    if (!values.empty())
      std::memcpy(bytes.data() + offset, values.data(), values.size_bytes());
    return offset;
  }
  template <typename T> T *at(uint64_t offset) {
    return reinterpret_cast<T *>(bytes.data() + offset);
  }
};

} // namespace

std::string residentSchedulerSource(const std::string &programSource,
                                    std::span<const std::string> bodies,
                                    size_t parameterCount) {
  std::string text = programSource;
  text += "\n// ---- decision.h ----\n";
  text += withoutSluiceIncludes(kResident_decision);
  text += "\n// ---- resident_layout.h ----\n";
  text += withoutSluiceIncludes(kResident_layout);
  text += "\n__device__ void sluice_resident_stage(unsigned int stage, "
          "const unsigned long long *words, long long count, long long "
          "invocation);\n";
  text += "\n// ---- resident_kernel.hip ----\n";
  text += kResident_kernel;
  text += "\n// The stages' bodies, by global stage.\n"
          "__device__ void sluice_resident_stage(unsigned int stage, "
          "const unsigned long long *words, long long count, long long "
          "invocation) {\n"
          "  using sluice_resident::Word;\n"
          "  switch (stage) {\n";
  for (size_t s = 0; s < bodies.size(); ++s) {
    text += "  case " + std::to_string(s) + ":\n    " + bodies[s] + "(count";
    for (size_t p = 1; p < parameterCount; ++p)
      text += ", Word{words[" + std::to_string(p) + "]}";
    text += ", invocation);\n    return;\n";
  }
  text += "  }\n}\n";
  return text;
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

Status ResidentScheduler::run(
    Driver &driver, void *stream, void *startEvent, void *endEvent,
    const ResidentLaunch &launch, std::span<const uint64_t> parameters,
    const std::function<DevicePointer(const KernelBuffer &)> &address,
    ResidentLaunchResult &out) {
  const decision::Tables &t = *launch.tables;
  const GpuKernelLayout &layout = *launch.layout;
  uint32_t edgeCount = t.producerBegin[t.mainStageCount];
  if (t.stageCount > decision::kResidentMaxStages ||
      t.ownerCount > decision::kResidentMaxOwners ||
      edgeCount > decision::kResidentMaxEdges)
    return Status::error(
        ErrorKind::Unsupported,
        "the device placement holds at most " +
            std::to_string(decision::kResidentMaxStages) + " stages, " +
            std::to_string(decision::kResidentMaxOwners) + " owners and " +
            std::to_string(decision::kResidentMaxEdges) +
            " producer edges; the program has " +
            std::to_string(t.stageCount) + ", " +
            std::to_string(t.ownerCount) + " and " +
            std::to_string(edgeCount));
  out = ResidentLaunchResult();
  const uint32_t stages = t.stageCount;
  const uint32_t owners = t.ownerCount;
  const uint32_t snapshotWords = stages + 3 * owners + 3;
  const uint32_t recordCapacity = 4096;
  const uint64_t maxInvocations = std::max<uint32_t>(launch.maxInvocations, 1);

  // The grid: as many blocks as the device holds at once, at most one per
  // 256 invocations of the largest dispatch.
  uint64_t perGrid = uint64_t(blocksPerMultiprocessor_) *
                     std::max(driver.info().multiprocessors, 1);
  uint64_t wanted = (maxInvocations + kResidentBlockThreads - 1) /
                    kResidentBlockThreads;
  gridBlocks_ = uint32_t(std::max<uint64_t>(1, std::min(perGrid, wanted)));

  StateImage image;
  ResidentLayout L{};
  auto u32s = [&](const u32 *data, size_t count) {
    return image.array(std::span<const u32>(data, count));
  };
  uint64_t edges = t.producerBegin[t.mainStageCount];
  uint64_t oCapacity = u32s(t.ownerCapacity, owners);
  uint64_t oBase = u32s(t.ownerStageBase, owners);
  uint64_t oCount = u32s(t.ownerStageCount, owners);
  uint64_t oProducers = u32s(t.producerBegin, t.mainStageCount + 1);
  uint64_t oEdgeOwner = u32s(t.edgeOwner, edges);
  uint64_t oEdgeBound = u32s(t.edgeBound, edges);
  uint64_t oPublishBase = image.array(
      std::span<const uint32_t>(layout.ownerPublishBase.data(), owners));
  uint64_t oStageCounts = image.place(stages * 4);
  uint64_t oLive = image.place(owners * 4);
  uint64_t oPublished = image.place(owners * 8);
  uint64_t oReleased = image.place(owners * 8);
  uint64_t oScalars = image.place(decision::kScalarWords * 8);
  // The sets: every global stage, then the free frames.
  std::vector<u32> setOffset, setWords;
  u32 words = 0;
  for (u32 s = 0; s <= stages; ++s) {
    u32 universe = t.framePool;
    if (s < stages && s >= t.mainStageCount) {
      u32 o = 0;
      while (o + 1 < owners && t.ownerStageBase[o + 1] <= s)
        ++o;
      universe = t.ownerCapacity[o];
    }
    setOffset.push_back(words);
    setWords.push_back((universe + 31) / 32);
    words += setWords.back();
  }
  uint64_t oSets = image.place(uint64_t(words) * 4);
  uint64_t oSetOffset = image.array(std::span<const u32>(setOffset));
  uint64_t oSetWords = image.array(std::span<const u32>(setWords));
  std::vector<u32> ringOffset, ring;
  for (u32 o = 0; o < owners; ++o) {
    ringOffset.push_back(u32(ring.size()));
    for (u32 slot = 0; slot < t.ownerCapacity[o]; ++slot)
      ring.push_back(slot);
  }
  uint64_t oRing = image.array(std::span<const u32>(ring));
  uint64_t oRingOffset = image.array(std::span<const u32>(ringOffset));
  std::vector<u64> positions;
  for (u32 o = 0; o < owners; ++o) {
    positions.push_back(0);
    positions.push_back(t.ownerCapacity[o]);
  }
  uint64_t oPositions = image.array(std::span<const u64>(positions));
  std::vector<u64> parameterWords(parameters.begin(), parameters.end());
  uint64_t oKernelWords = image.array(std::span<const u64>(parameterWords));
  std::vector<u64> windows;
  for (KernelBuffer *window : launch.windows)
    windows.push_back(address(*window));
  uint64_t oWindows = image.array(std::span<const u64>(windows));
  uint64_t oSortKeys = image.array(std::span<const u32>(launch.sortKeys));
  uint64_t oScratch = image.place(2 * maxInvocations * 4);
  uint64_t oCodes = image.place(2 * maxInvocations * 8);
  uint64_t oSortRange = image.place(2 * 8);
  uint64_t oSortHistogram = image.place(16 * uint64_t(gridBlocks_) * 4);
  uint64_t oRecords = image.place(uint64_t(recordCapacity) *
                                  sizeof(decision::Record));
  uint64_t oSnapshots =
      image.place(uint64_t(recordCapacity + 1) * snapshotWords * 8);
  uint64_t oDeltas =
      image.place(uint64_t(recordCapacity) * decision::kDeltaWords * 8);
  uint64_t oTimes =
      image.place(uint64_t(recordCapacity) * decision::kTimeWords * 8);
  uint64_t oControl = image.place(decision::kControlWords * 4);
  uint64_t oLayout = image.place(sizeof(ResidentLayout));

  // Initial contents: every frame free, every slot in its ring.
  u32 *free = image.at<u32>(oSets) + setOffset[stages];
  for (u32 f = 0; f < t.framePool; ++f)
    free[f / 32] |= 1u << (f % 32);
  u64 *scalars = image.at<u64>(oScalars);
  scalars[decision::kScalarFreeFrames] = t.framePool;
  u32 *control = image.at<u32>(oControl);
  control[decision::kControlDetail] = decision::kNone;
  control[decision::kControlPreviousStage] = decision::kNone;

  if (state_ && stateBytes_ < image.bytes.size()) {
    driver.release(state_);
    state_ = 0;
  }
  if (!state_) {
    if (Status status = driver.allocate(image.bytes.size(), state_);
        !status.ok())
      return status;
    stateBytes_ = image.bytes.size();
  }
  DevicePointer base = state_;
  auto device = [&](uint64_t offset) { return u64(base + offset); };
  L.ownerCapacity = device(oCapacity);
  L.ownerStageBase = device(oBase);
  L.ownerStageCount = device(oCount);
  L.producerBegin = device(oProducers);
  L.edgeOwner = device(oEdgeOwner);
  L.edgeBound = device(oEdgeBound);
  L.ownerPublishBase = device(oPublishBase);
  L.stageCounts = device(oStageCounts);
  L.ownerLive = device(oLive);
  L.ownerPublished = device(oPublished);
  L.ownerReleased = device(oReleased);
  L.scalars = device(oScalars);
  L.sets = device(oSets);
  L.setOffset = device(oSetOffset);
  L.setWords = device(oSetWords);
  L.freeRing = device(oRing);
  L.ringOffset = device(oRingOffset);
  L.ringPositions = device(oPositions);
  L.kernelWords = device(oKernelWords);
  L.invocations = address(*launch.invocations);
  L.laneIds = address(*launch.laneIds);
  L.nextStage = address(*launch.nextStage);
  L.counters = address(*launch.counters);
  L.publishedSlots = address(*launch.publishedSlots);
  L.publishedCounts = address(*launch.publishedCounts);
  L.allocLimits = address(*launch.allocLimits);
  L.fault = address(*launch.fault);
  L.windows = device(oWindows);
  L.sortKeys = device(oSortKeys);
  L.frames = address(*launch.frames);
  L.scratch = device(oScratch);
  L.codes = device(oCodes);
  L.sortRange = device(oSortRange);
  L.sortHistogram = device(oSortHistogram);
  L.records = device(oRecords);
  L.snapshots = device(oSnapshots);
  L.deltas = device(oDeltas);
  L.times = device(oTimes);
  L.control = device(oControl);
  L.lanes = t.lanes;
  L.maxIterations = t.maxIterations;
  L.stageCount = stages;
  L.mainStageCount = t.mainStageCount;
  L.ownerCount = owners;
  L.entryStage = t.entryStage;
  L.framePool = t.framePool;
  L.partialAdmission = t.partialAdmission;
  L.counterCount = layout.counterCount;
  L.allocBase = layout.allocBase;
  L.publishStride = layout.publishStride;
  L.recordCapacity = recordCapacity;
  L.snapshotWords = snapshotWords;
  L.sortEnabled = launch.sorting.enabled ? 1 : 0;
  L.sortBuckets = launch.sorting.buckets;
  L.parameterCount = u32(parameters.size());
  std::memcpy(image.bytes.data() + oLayout, &L, sizeof L);
  if (Status status = driver.copyToDevice(state_, image.bytes.data(),
                                          image.bytes.size(), stream);
      !status.ok())
    return status;

  uint32_t grid[3] = {gridBlocks_, 1, 1};
  uint32_t block[3] = {kResidentBlockThreads, 1, 1};
  u64 layoutAddress = device(oLayout);
  void *kernelParameters[] = {&layoutAddress};

  ResidentLog &log = out.log;
  u64 firstTime = 0;
  std::vector<decision::Record> records(recordCapacity);
  std::vector<u64> snapshots, deltas, times;
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
    if (Status status = driver.copyToHost(words, device(oControl),
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
    Status status = driver.copyToHost(records.data(), device(oRecords),
                                      uint64_t(n) * sizeof(decision::Record),
                                      stream);
    if (status.ok())
      status = driver.copyToHost(snapshots.data(), device(oSnapshots),
                                 snapshots.size() * 8, stream);
    if (status.ok())
      status = driver.copyToHost(deltas.data(), device(oDeltas),
                                 uint64_t(n) * decision::kDeltaWords * 8,
                                 stream);
    if (status.ok())
      status = driver.copyToHost(times.data(), device(oTimes),
                                 uint64_t(n) * decision::kTimeWords * 8,
                                 stream);
    if (status.ok())
      status = driver.synchronize(stream);
    if (!status.ok())
      return status;
    for (u32 r = 0; r < n; ++r) {
      log.records.push_back(records[r]);
      log.snapshots.insert(log.snapshots.end(),
                           snapshots.begin() + uint64_t(r) * snapshotWords,
                           snapshots.begin() + uint64_t(r + 1) * snapshotWords);
      log.itemsPublished.push_back(deltas[r * decision::kDeltaWords]);
      log.itemsReleased.push_back(deltas[r * decision::kDeltaWords + 1]);
      const u64 *time = times.data() + r * decision::kTimeWords;
      if (log.records.size() == 1)
        firstTime = time[0];
      auto us = [&](u64 value) {
        return value >= firstTime ? double(value - firstTime) * 1e-3 : 0.0;
      };
      log.decideUs.push_back(us(time[0]));
      log.dispatchBeginUs.push_back(us(time[1]));
      log.dispatchEndUs.push_back(us(time[2]));
    }
    if (ended) {
      out.stopReason = stop;
      out.detail = words[decision::kControlDetail];
      if (stop == decision::kStopVerdict) {
        log.verdict = decision::Verdict(words[decision::kControlVerdict]);
        log.last.assign(snapshots.begin() + uint64_t(n) * snapshotWords,
                        snapshots.begin() + uint64_t(n + 1) * snapshotWords);
      }
      break;
    }
    // The next batch: the same state, a fresh log and barrier.
    u32 reset[decision::kControlWords];
    std::memcpy(reset, words, sizeof reset);
    reset[decision::kControlRecords] = 0;
    reset[decision::kControlStopReason] = decision::kStopRunning;
    reset[decision::kControlStop] = 0;
    reset[decision::kControlBarrierCount] = 0;
    if (Status status = driver.copyToDevice(device(oControl), reset,
                                            sizeof reset, stream);
        !status.ok())
      return status;
  }
  out.allocHeads.resize(owners);
  for (u32 o = 0; o < owners; ++o) {
    u64 head = 0;
    if (Status status = driver.copyToHost(
            &head, device(oPositions) + uint64_t(o) * 16, 8, stream);
        !status.ok())
      return status;
    out.allocHeads[o] = head;
  }
  return driver.synchronize(stream);
}

} // namespace sluice::runtime::hip
