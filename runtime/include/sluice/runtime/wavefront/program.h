//===- program.h - Program descriptor ---------------------------*- C++ -*-===//
//
// What the compiler hands the runtime: main stages (one kernel per resume
// point), capacity owners with their stages, producers with emission bounds,
// and the frame layout. Stages are numbered globally: main stages first, then
// each owner's stages in owner order. The greedy choice breaks ties by this
// global index.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WAVEFRONT_PROGRAM_H
#define SLUICE_RUNTIME_WAVEFRONT_PROGRAM_H

#include "sluice/runtime/admission/owner_policy.h"
#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/device/kernel_abi.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::runtime {

inline constexpr uint32_t kNoSortKey = UINT32_MAX;

// How a sort key's bytes are read: a signed integer of the field's size (1, 2,
// 4 or 8 bytes; `index` included) or an IEEE float (4 or 8 bytes).
enum class SortKeyKind : uint8_t { Integer = 0, Float = 1 };
static_assert(sizeof(SortKeyKind) == 1);

struct StageDesc {
  std::string name;
  sluice_rt_stage_kernel kernel = nullptr;
  // Main stages only: the frame field (an index into frameLayout.fields) that
  // a dispatch of this stage orders its frames by (the `sort_by` hint);
  // kNoSortKey for none.
  uint32_t sortKeyField = kNoSortKey;
  SortKeyKind sortKeyKind = SortKeyKind::Integer;
};

// How a device orders the frames of a dispatch of a main stage with a sort
// key (docs/runtime.md "Coherence sorting"): stably by the key's value
// (buckets == 0) or by the bucket `key mod buckets` (buckets >= 1). Sorting is
// on by default: `sort_by` is the program author's explicit request. With
// partition == 0 the whole dispatch is one sorted run; with partition N >= 1
// the dispatch's frames (ascending) are cut into runs of N consecutive
// entries, the last one shorter, and each run is sorted on its own, so that
// a run's frames stay close in memory and the GPUs sort every run in
// parallel (a workgroup or block each, in shared memory up to 1,024 frames).
// The default is kDefaultSortPartition: on the H100, sorting the path
// tracer's whole dispatches cost it 5 to 52% of its rays per second, runs of
// 1,024 frames at most 7% on Vulkan and nothing on hip (docs/runtime.md
// "Coherence sorting").
inline constexpr uint32_t kDefaultSortPartition = 1024;
// `stages` limits sorting to the main stages it names (empty: every stage
// with a key), so that a program sorts where its order pays: the path
// tracer's "intersect" by the ray key and not "shade" by the material, on a
// GPU (docs/runtime.md "Coherence sorting").
struct FrameSorting {
  bool enabled = true;
  uint32_t buckets = 0;
  uint32_t partition = kDefaultSortPartition;
  std::vector<std::string> stages = {};
  // Whether a dispatch of main stage `stage` is sorted: on, a key, and
  // named by `stages` when it names any.
  bool sorts(const StageDesc &stage) const;
  bool operator==(const FrameSorting &) const = default;
};

// Parses a --sort value: "on", "off", or main stage names separated by
// commas (sorting on for those only). False for an empty name.
bool parseFrameSorting(const std::string &text, FrameSorting &sorting);

struct OwnerDesc {
  std::string name;
  uint32_t capacity = 0;
  uint32_t itemSize = 0; // payload bytes per item
  std::vector<StageDesc> stages;
  // The storage policy compiled from the program (pool.owner ... policy);
  // none: the default owner policy.
  OwnerPolicy policy = {};
};

struct ProducerDesc {
  uint32_t stage = 0; // main stage
  uint32_t owner = 0;
  uint32_t bound = 0; // items per invocation, 1 <= bound <= capacity
};

enum class FrameLayoutKind : uint8_t {
  ArrayOfStructs = SLUICE_RT_FRAME_AOS,
  StructOfArrays = SLUICE_RT_FRAME_SOA,
};
static_assert(sizeof(FrameLayoutKind) == 1);
static_assert(uint32_t(FrameLayoutKind::StructOfArrays) == SLUICE_RT_FRAME_SOA);

struct FrameField {
  std::string name;
  uint64_t size = 0;
  uint64_t align = 1; // power of two
};

struct FrameLayout {
  FrameLayoutKind kind = FrameLayoutKind::ArrayOfStructs;
  std::vector<FrameField> fields;
};

struct ProgramDescriptor {
  std::string name;
  std::vector<StageDesc> mainStages;
  uint32_t entryStage = 0;
  std::vector<OwnerDesc> owners;
  std::vector<ProducerDesc> producers;
  FrameLayout frameLayout;
  // The program's bindings, by kernel fault index (out-of-bounds messages).
  std::vector<std::string> bindingNames;
  void *userData = nullptr; // passed to every kernel
};

// Byte offsets of a frame layout for a pool of `framePool` frames.
struct ComputedFrameLayout {
  FrameLayoutKind kind = FrameLayoutKind::ArrayOfStructs;
  uint64_t frameStride = 0; // AoS only
  uint64_t totalBytes = 0;
  std::vector<uint64_t> fieldOffsets;
  std::vector<uint64_t> fieldSizes;
};

// Overflow-checked; every field and the whole buffer are aligned to at least
// 16 bytes in SoA and to the largest field alignment in AoS.
Status computeFrameLayout(const FrameLayout &layout, uint32_t framePool,
                          ComputedFrameLayout &out);

// The kernels of an AoS program were compiled with a frame stride and field
// offsets; they must be the ones computeFrameLayout() gives `layout`.
Status checkCompiledFrameLayout(const FrameLayout &layout, uint64_t stride,
                                std::span<const uint64_t> offsets);

// Every stage's name in global stage order: the main stages, then each
// owner's as "owner.stage".
std::vector<std::string> globalStageNames(const ProgramDescriptor &program);

enum class StageKind : uint8_t { Main = 0, Auxiliary = 1 };
static_assert(sizeof(StageKind) == 1);

struct StageRef {
  StageKind kind = StageKind::Main;
  uint32_t owner = SLUICE_RT_NO_OWNER; // auxiliary only
  uint32_t ownerStage = 0;             // auxiliary only
};

struct ProducerEdge {
  uint32_t owner = 0;
  uint32_t bound = 0;
  uint32_t publishBase = 0; // offset of this owner in the publish record
};

// A validated program with the derived tables the scheduler and devices use.
class ProgramShape {
public:
  // Validates `program` (names, indices, bounds <= capacity, no duplicate
  // producer edges) and builds the tables.
  static Status build(const ProgramDescriptor &program, ProgramShape &out);

  uint32_t mainStageCount() const { return mainStageCount_; }
  uint32_t ownerCount() const { return uint32_t(ownerStageBase_.size()); }
  uint32_t totalStageCount() const { return totalStageCount_; }
  uint32_t entryStage() const { return entryStage_; }
  uint32_t ownerStageCount(uint32_t owner) const {
    return ownerStageCounts_[owner];
  }
  uint32_t ownerStageBase(uint32_t owner) const {
    return ownerStageBase_[owner];
  }
  uint32_t globalStage(uint32_t owner, uint32_t ownerStage) const {
    return ownerStageBase_[owner] + ownerStage;
  }
  const StageRef &stage(uint32_t globalStage) const {
    return stages_[globalStage];
  }
  std::string_view stageName(uint32_t globalStage) const {
    return stageNames_[globalStage];
  }
  std::span<const ProducerEdge> producersOf(uint32_t mainStage) const {
    return {producerEdges_.data() + producerBegin_[mainStage],
            producerEdges_.data() + producerBegin_[mainStage + 1]};
  }
  bool isProducer(uint32_t mainStage) const {
    return producerBegin_[mainStage] != producerBegin_[mainStage + 1];
  }
  // Largest bound of any producer into `owner` (0 if none).
  uint32_t maxBoundInto(uint32_t owner) const { return maxBoundInto_[owner]; }
  // Sum over owners of the bounds of `mainStage`: its publish record length.
  uint32_t publishStride(uint32_t mainStage) const {
    return publishStride_[mainStage];
  }

private:
  uint32_t mainStageCount_ = 0;
  uint32_t totalStageCount_ = 0;
  uint32_t entryStage_ = 0;
  std::vector<uint32_t> ownerStageBase_;
  std::vector<uint32_t> ownerStageCounts_;
  std::vector<StageRef> stages_;
  std::vector<std::string> stageNames_;
  std::vector<uint32_t> producerBegin_; // mainStageCount + 1 entries
  std::vector<ProducerEdge> producerEdges_;
  std::vector<uint32_t> maxBoundInto_;
  std::vector<uint32_t> publishStride_;
};

// Checks a run's frame pool against the program: with partial admission off,
// a full pool of producers must fit an empty owner (P * b <= C).
Status validateRunShape(const ProgramShape &shape,
                        const ProgramDescriptor &program, uint32_t framePool,
                        bool allowPartialAdmission);

// Checks that every stage `sorting.stages` names is a main stage of the
// program with a sort_by key: `mainStages` are the program's main stage
// names, `keyed` says which have a key.
Status checkFrameSorting(std::string_view program,
                         std::span<const std::string> mainStages,
                         const std::vector<bool> &keyed,
                         const FrameSorting &sorting);
Status checkFrameSorting(const ProgramDescriptor &program,
                         const FrameSorting &sorting);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_WAVEFRONT_PROGRAM_H
