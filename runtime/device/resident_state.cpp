//===- resident_state.cpp - A GPU device placement's device state ---------===//

#include "resident_state.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace sluice::runtime {

namespace {

using decision::u32;
using decision::u64;

// Every array 16-byte aligned.
struct Image {
  std::vector<unsigned char> &bytes;
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

Status checkResidentLimits(const decision::Tables &t) {
  uint32_t edgeCount = t.producerBegin[t.mainStageCount];
  if (t.stageCount <= decision::kResidentMaxStages &&
      t.ownerCount <= decision::kResidentMaxOwners &&
      edgeCount <= decision::kResidentMaxEdges)
    return Status::success();
  return Status::error(
      ErrorKind::Unsupported,
      "the device placement holds at most " +
          std::to_string(decision::kResidentMaxStages) + " stages, " +
          std::to_string(decision::kResidentMaxOwners) + " owners and " +
          std::to_string(decision::kResidentMaxEdges) +
          " producer edges; the program has " + std::to_string(t.stageCount) +
          ", " + std::to_string(t.ownerCount) + " and " +
          std::to_string(edgeCount));
}

void buildResidentState(const ResidentLaunch &launch, uint32_t gridBlocks, uint32_t recordCapacity,
                        ResidentState &out) {
  const decision::Tables &t = *launch.tables;
  const GpuKernelLayout &layout = *launch.layout;
  // A state built before keeps its image's memory: at a frame pool and
  // capacity of 1,048,576 the image is 5 MB, whose first touch (page faults,
  // the growth's copies) took 52 ms on the development VM.
  std::vector<unsigned char> reused = std::move(out.bytes);
  reused.clear();
  out = ResidentState();
  out.bytes = std::move(reused);
  Image image{out.bytes};
  decision::ResidentLayout &L = out.layout;
  const u32 stages = t.stageCount;
  const u32 owners = t.ownerCount;
  out.snapshotWords = stages + 3 * owners + 3;
  out.recordCapacity = recordCapacity;
  const uint64_t maxInvocations = std::max<uint32_t>(launch.maxInvocations, 1);
  auto u32s = [&](const u32 *data, size_t count) {
    return image.array(std::span<const u32>(data, count));
  };
  // Offsets first (addresses once located: locateResidentState adds the
  // base).
  uint64_t edges = t.producerBegin[t.mainStageCount];
  L.ownerCapacity = u32s(t.ownerCapacity, owners);
  L.ownerStageBase = u32s(t.ownerStageBase, owners);
  L.ownerStageCount = u32s(t.ownerStageCount, owners);
  L.producerBegin = u32s(t.producerBegin, t.mainStageCount + 1);
  L.edgeOwner = u32s(t.edgeOwner, edges);
  L.edgeBound = u32s(t.edgeBound, edges);
  L.ownerPublishBase = image.array(
      std::span<const uint32_t>(layout.ownerPublishBase.data(), owners));
  L.stageCounts = image.place(stages * 4);
  L.ownerLive = image.place(owners * 4);
  L.ownerPublished = image.place(owners * 8);
  L.ownerReleased = image.place(owners * 8);
  L.scalars = image.place(decision::kScalarWords * 8);
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
    // Each set starts on a 16-byte boundary (its words padded to a
    // multiple of four, the padding never set), so that the GPU
    // placements count its chunks with 16-byte loads.
    setOffset.push_back(words);
    setWords.push_back((universe + 31) / 32);
    words += (setWords.back() + 3) & ~u32(3);
  }
  L.sets = image.place(uint64_t(words) * 4);
  out.edgeCount = u32(edges);
  out.setWordCount = words;
  L.setOffset = image.array(std::span<const u32>(setOffset));
  L.setWords = image.array(std::span<const u32>(setWords));
  // The image's size, so that it grows once: the sets, the rings and the
  // batch's log are nearly all of it.
  uint64_t ringSlots = 0;
  for (u32 o = 0; o < owners; ++o)
    ringSlots += t.ownerCapacity[o];
  out.bytes.reserve(out.bytes.size() + uint64_t(words) * 4 + ringSlots * 4 +
                    uint64_t(recordCapacity + 1) *
                        (sizeof(decision::Record) + out.snapshotWords * 8 +
                         decision::kDeltaWords * 8 + decision::kTimeWords * 8) +
                    (uint64_t(1) << 16));
  // Every slot in its owner's ring, in order.
  std::vector<u32> ringOffset;
  L.freeRing = image.place(ringSlots * 4);
  u32 *ring = image.at<u32>(L.freeRing);
  for (u32 o = 0, at = 0; o < owners; at += t.ownerCapacity[o], ++o) {
    ringOffset.push_back(at);
    std::iota(ring + at, ring + at + t.ownerCapacity[o], u32(0));
  }
  L.ringOffset = image.array(std::span<const u32>(ringOffset));
  std::vector<u64> positions;
  for (u32 o = 0; o < owners; ++o) {
    positions.push_back(0);
    positions.push_back(t.ownerCapacity[o]);
  }
  L.ringPositions = image.array(std::span<const u64>(positions));
  out.positions = L.ringPositions;
  L.windows = image.place(owners * 8); // located later
  L.sortKeys = image.array(std::span<const u32>(launch.sortKeys));
  L.sortRange = image.place(2 * 8);
  L.sortHistogram = image.place(16 * uint64_t(gridBlocks) * 4);
  u32 largestSet = 0;
  for (u32 w : setWords)
    largestSet = std::max(largestSet, w);
  L.chunkRanks = image.place((decision::kGridSelectHeader +
                              2 * ((uint64_t(largestSet) + 31) / 32) + 2) *
                             4);
  L.records = out.records =
      image.place(uint64_t(recordCapacity) * sizeof(decision::Record));
  L.snapshots = out.snapshots =
      image.place(uint64_t(recordCapacity + 1) * out.snapshotWords * 8);
  L.deltas = out.deltas =
      image.place(uint64_t(recordCapacity) * decision::kDeltaWords * 8);
  L.times = out.times =
      image.place(uint64_t(recordCapacity) * decision::kTimeWords * 8);
  L.control = out.control = image.place(decision::kControlWords * 4);
  std::vector<u32> storageBase;
  u32 storageWords = 0, largestOwner = 0;
  for (u32 o = 0; o < owners; ++o) {
    storageBase.push_back(storageWords);
    storageWords += o < launch.policyStorage.size() ? launch.policyStorage[o]
                                                     : 0;
    largestOwner = std::max(largestOwner, t.ownerStageCount[o]);
  }
  L.policyStorage = image.place(uint64_t(storageWords) * 8);
  L.policyStorageBase = image.array(std::span<const u32>(storageBase));
  out.policyFaultWords = decision::kPolicyFaultHeader + largestOwner;
  L.policyFault = out.policyFault =
      image.place(uint64_t(out.policyFaultWords) * 8);
  L.profile = out.profile = image.place(decision::kProfileWords * 8);
  out.layoutOffset = image.place(sizeof(decision::ResidentLayout));
  // The sort's work areas, which every sort writes before it reads them,
  // after the initial contents: the device buffer holds them, the host
  // neither builds nor uploads them (6 MiB of the 8 at a frame pool of
  // 262,144).
  auto align = [](uint64_t offset) { return (offset + 15) & ~uint64_t(15); };
  L.scratch = align(out.bytes.size());
  L.codes = align(L.scratch + 2 * maxInvocations * 4);
  out.deviceBytes = L.codes + 2 * maxInvocations * 8;

  // Initial contents: every frame free, every slot in its ring.
  u32 *free = image.at<u32>(L.sets) + setOffset[stages];
  std::fill(free, free + t.framePool / 32, ~u32(0));
  if (t.framePool % 32)
    free[t.framePool / 32] = (1u << (t.framePool % 32)) - 1;
  image.at<u64>(L.scalars)[decision::kScalarFreeFrames] = t.framePool;
  u32 *control = image.at<u32>(L.control);
  control[decision::kControlDetail] = decision::kNone;
  control[decision::kControlPreviousStage] = decision::kNone;

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
  L.snapshotWords = out.snapshotWords;
  L.sortEnabled = launch.sorting.enabled ? 1 : 0;
  L.sortBuckets = launch.sorting.buckets;
  L.sortPartition = launch.sorting.partition;
}

void buildResidentStateOnce(const ResidentLaunch &launch, uint32_t gridBlocks,
                            uint32_t recordCapacity, ResidentState &out,
                            std::vector<uint64_t> &builtFor) {
  const decision::Tables &t = *launch.tables;
  const GpuKernelLayout &layout = *launch.layout;
  // Everything buildResidentState() reads but t.lanes and t.maxIterations.
  const uint64_t edges = t.producerBegin[t.mainStageCount];
  std::vector<uint64_t> key{gridBlocks,
                            recordCapacity,
                            t.stageCount,
                            t.mainStageCount,
                            t.ownerCount,
                            t.entryStage,
                            t.framePool,
                            t.partialAdmission,
                            launch.maxInvocations,
                            layout.counterCount,
                            layout.allocBase,
                            layout.publishStride,
                            launch.sorting.enabled ? 1u : 0u,
                            launch.sorting.buckets,
                            launch.sorting.partition,
                            launch.sortKeys.size(),
                            launch.policyStorage.size()};
  auto append = [&](const auto *data, uint64_t count) {
    key.insert(key.end(), data, data + count);
  };
  append(t.ownerCapacity, t.ownerCount);
  append(t.ownerStageBase, t.ownerCount);
  append(t.ownerStageCount, t.ownerCount);
  append(t.producerBegin, t.mainStageCount + 1);
  append(t.edgeOwner, edges);
  append(t.edgeBound, edges);
  append(layout.ownerPublishBase.data(), t.ownerCount);
  append(launch.sortKeys.data(), launch.sortKeys.size());
  append(launch.policyStorage.data(), launch.policyStorage.size());
  if (!builtFor.empty() && key == builtFor) {
    out.layout = out.built; // a run located it since
    out.layout.lanes = t.lanes;
    out.layout.maxIterations = t.maxIterations;
    return;
  }
  buildResidentState(launch, gridBlocks, recordCapacity, out);
  out.built = out.layout;
  builtFor = std::move(key);
}

void locateResidentState(
    const ResidentLaunch &launch, uint64_t base,
    const std::function<uint64_t(const KernelBuffer &)> &address,
    ResidentState &state) {
  decision::ResidentLayout &L = state.layout;
  for (u64 *offset :
       {&L.ownerCapacity, &L.ownerStageBase, &L.ownerStageCount,
        &L.producerBegin, &L.edgeOwner, &L.edgeBound, &L.ownerPublishBase,
        &L.stageCounts, &L.ownerLive, &L.ownerPublished, &L.ownerReleased,
        &L.scalars, &L.sets, &L.setOffset, &L.setWords, &L.freeRing,
        &L.ringOffset, &L.ringPositions, &L.windows,
        &L.sortKeys, &L.scratch, &L.codes, &L.sortRange, &L.sortHistogram,
        &L.chunkRanks, &L.records, &L.snapshots, &L.deltas, &L.times,
        &L.control, &L.policyStorage, &L.policyStorageBase, &L.policyFault,
        &L.profile})
    *offset += base;
  L.invocations = address(*launch.invocations);
  L.laneIds = address(*launch.laneIds);
  L.nextStage = address(*launch.nextStage);
  L.counters = address(*launch.counters);
  L.publishedSlots = address(*launch.publishedSlots);
  L.publishedCounts = address(*launch.publishedCounts);
  L.allocLimits = address(*launch.allocLimits);
  L.fault = address(*launch.fault);
  L.frames = address(*launch.frames);
  u64 *windows = reinterpret_cast<u64 *>(state.bytes.data() + L.windows - base);
  for (size_t o = 0; o < launch.windows.size(); ++o)
    windows[o] = address(*launch.windows[o]);
  std::memcpy(state.bytes.data() + state.layoutOffset, &L, sizeof L);
}

void appendResidentBatch(ResidentLog &log, uint32_t n,
                         const decision::Record *records,
                         const uint64_t *snapshots, const uint64_t *deltas,
                         const uint64_t *times, uint32_t snapshotWords,
                         uint64_t &firstTime) {
  for (uint32_t r = 0; r < n; ++r) {
    log.records.push_back(records[r]);
    log.snapshots.insert(log.snapshots.end(),
                         snapshots + uint64_t(r) * snapshotWords,
                         snapshots + uint64_t(r + 1) * snapshotWords);
    log.itemsPublished.push_back(deltas[r * decision::kDeltaWords]);
    log.itemsReleased.push_back(deltas[r * decision::kDeltaWords + 1]);
    log.orders.push_back(u32(deltas[r * decision::kDeltaWords + 2]));
    const uint64_t *time = times + uint64_t(r) * decision::kTimeWords;
    if (log.records.size() == 1)
      firstTime = time[0];
    auto us = [&](uint64_t value) {
      return value >= firstTime ? double(value - firstTime) * 1e-3 : 0.0;
    };
    log.decideUs.push_back(us(time[0]));
    log.dispatchBeginUs.push_back(us(time[1]));
    log.dispatchEndUs.push_back(us(time[2]));
  }
}

} // namespace sluice::runtime
