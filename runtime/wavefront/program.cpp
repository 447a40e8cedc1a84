//===- program.cpp - Program descriptor validation and tables -------------===//

#include "sluice/runtime/wavefront/program.h"

#include "sluice/runtime/admission/admission.h"

#include <algorithm>
#include <string>

namespace sluice::runtime {

namespace {

bool isPowerOfTwo(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

// Rounds `value` up to `align` (a power of two); false on overflow.
bool alignUpChecked(uint64_t value, uint64_t align, uint64_t &out) {
  uint64_t bumped;
  if (__builtin_add_overflow(value, align - 1, &bumped))
    return false;
  out = bumped & ~(align - 1);
  return true;
}

Status layoutOverflow(const FrameLayout &layout, uint32_t framePool) {
  return Status::error(
      ErrorKind::ArithmeticOverflow,
      "frame layout of " + std::to_string(layout.fields.size()) +
          " fields for a pool of " + std::to_string(framePool) +
          " frames overflows 64-bit byte offsets");
}

} // namespace

Status computeFrameLayout(const FrameLayout &layout, uint32_t framePool,
                          ComputedFrameLayout &out) {
  out = ComputedFrameLayout();
  out.kind = layout.kind;
  for (const FrameField &field : layout.fields)
    if (!isPowerOfTwo(field.align))
      return Status::error(ErrorKind::InvalidDescriptor,
                           "frame field '" + field.name + "' has alignment " +
                               std::to_string(field.align) +
                               ", which is not a power of two");

  if (layout.kind == FrameLayoutKind::ArrayOfStructs) {
    uint64_t offset = 0, maxAlign = 1;
    for (const FrameField &field : layout.fields) {
      if (!alignUpChecked(offset, field.align, offset))
        return layoutOverflow(layout, framePool);
      out.fieldOffsets.push_back(offset);
      out.fieldSizes.push_back(field.size);
      if (__builtin_add_overflow(offset, field.size, &offset))
        return layoutOverflow(layout, framePool);
      maxAlign = std::max(maxAlign, field.align);
    }
    if (!alignUpChecked(offset, maxAlign, out.frameStride) ||
        __builtin_mul_overflow(out.frameStride, uint64_t(framePool),
                               &out.totalBytes))
      return layoutOverflow(layout, framePool);
    return Status::success();
  }

  // Struct of arrays: one array per field, each 16-byte aligned.
  uint64_t offset = 0;
  for (const FrameField &field : layout.fields) {
    uint64_t arrayBytes;
    if (!alignUpChecked(offset, std::max<uint64_t>(field.align, 16), offset) ||
        __builtin_mul_overflow(field.size, uint64_t(framePool), &arrayBytes))
      return layoutOverflow(layout, framePool);
    out.fieldOffsets.push_back(offset);
    out.fieldSizes.push_back(field.size);
    if (__builtin_add_overflow(offset, arrayBytes, &offset))
      return layoutOverflow(layout, framePool);
  }
  out.totalBytes = offset;
  return Status::success();
}

Status checkCompiledFrameLayout(const FrameLayout &layout, uint64_t stride,
                                std::span<const uint64_t> offsets) {
  ComputedFrameLayout computed;
  if (Status status = computeFrameLayout(layout, 1, computed); !status.ok())
    return status;
  bool same = computed.frameStride == stride &&
              offsets.size() == computed.fieldOffsets.size();
  for (size_t i = 0; same && i < offsets.size(); ++i)
    same = computed.fieldOffsets[i] == offsets[i];
  if (same)
    return Status::success();
  return Status::error(ErrorKind::InvalidDescriptor,
                       "the compiled AoS frame layout (stride " +
                           std::to_string(stride) +
                           ") differs from the runtime's (stride " +
                           std::to_string(computed.frameStride) + ")");
}

namespace {

/// A main stage's sort key names a frame field whose size its kind can read.
Status checkSortKey(const ProgramDescriptor &program, const StageDesc &stage) {
  if (stage.sortKeyField == kNoSortKey)
    return Status::success();
  const std::vector<FrameField> &fields = program.frameLayout.fields;
  std::string what = "main stage '" + stage.name + "' sorts by frame field ";
  if (stage.sortKeyField >= fields.size())
    return Status::error(ErrorKind::InvalidDescriptor,
                         what + "#" + std::to_string(stage.sortKeyField) +
                             ", but the frame has " +
                             std::to_string(fields.size()) + " fields");
  uint64_t size = fields[stage.sortKeyField].size;
  bool integer = stage.sortKeyKind == SortKeyKind::Integer;
  bool readable = integer ? (size == 1 || size == 2 || size == 4 || size == 8)
                          : (size == 4 || size == 8);
  if (!readable)
    return Status::error(ErrorKind::InvalidDescriptor,
                         what + "'" + fields[stage.sortKeyField].name +
                             "' of " + std::to_string(size) +
                             " bytes; an integer key has 1, 2, 4 or 8 " +
                             "bytes, a float key 4 or 8");
  return Status::success();
}

} // namespace

Status ProgramShape::build(const ProgramDescriptor &program,
                           ProgramShape &out) {
  out = ProgramShape();
  auto invalid = [&](std::string message) {
    return Status::error(ErrorKind::InvalidDescriptor,
                         "program '" + program.name + "': " + message);
  };
  if (program.mainStages.empty())
    return invalid("has no main stages");
  if (program.entryStage >= program.mainStages.size())
    return invalid("entry stage " + std::to_string(program.entryStage) +
                   " is not one of its " +
                   std::to_string(program.mainStages.size()) + " main stages");

  // Stage indices must stay below the outcome sentinels.
  constexpr uint64_t kMaxStages = SLUICE_RT_UNDECIDED - 1;
  uint64_t totalStages = program.mainStages.size();
  for (const OwnerDesc &owner : program.owners)
    totalStages += owner.stages.size();
  if (totalStages > kMaxStages)
    return invalid("has " + std::to_string(totalStages) + " stages");

  out.mainStageCount_ = uint32_t(program.mainStages.size());
  out.entryStage_ = program.entryStage;
  for (uint32_t s = 0; s < out.mainStageCount_; ++s) {
    if (program.mainStages[s].name.empty())
      return invalid("main stage " + std::to_string(s) + " has no name");
    out.stages_.push_back({StageKind::Main, SLUICE_RT_NO_OWNER, 0});
    out.stageNames_.push_back(program.mainStages[s].name);
    if (Status status = checkSortKey(program, program.mainStages[s]);
        !status.ok())
      return invalid(status.message());
  }

  uint32_t next = out.mainStageCount_;
  for (uint32_t o = 0; o < program.owners.size(); ++o) {
    const OwnerDesc &owner = program.owners[o];
    if (owner.name.empty())
      return invalid("owner " + std::to_string(o) + " has no name");
    if (owner.capacity == 0)
      return invalid("owner '" + owner.name + "' has capacity 0");
    if (owner.stages.empty())
      return invalid("owner '" + owner.name + "' has no stages (k >= 1)");
    out.ownerStageBase_.push_back(next);
    out.ownerStageCounts_.push_back(uint32_t(owner.stages.size()));
    for (uint32_t i = 0; i < owner.stages.size(); ++i) {
      if (owner.stages[i].name.empty())
        return invalid("stage " + std::to_string(i) + " of owner '" +
                       owner.name + "' has no name");
      if (owner.stages[i].sortKeyField != kNoSortKey)
        return invalid("stage '" + owner.stages[i].name + "' of owner '" +
                       owner.name +
                       "' has a sort key; only main stages sort their frames");
      out.stages_.push_back({StageKind::Auxiliary, o, i});
      out.stageNames_.push_back(owner.name + "." + owner.stages[i].name);
    }
    next += uint32_t(owner.stages.size());
  }
  out.totalStageCount_ = next;

  // Producer edges grouped by main stage, in descriptor order within a stage.
  std::vector<std::vector<ProducerEdge>> edges(out.mainStageCount_);
  out.maxBoundInto_.assign(program.owners.size(), 0);
  for (const ProducerDesc &producer : program.producers) {
    if (producer.stage >= out.mainStageCount_)
      return invalid("producer names main stage " +
                     std::to_string(producer.stage) + " of " +
                     std::to_string(out.mainStageCount_));
    if (producer.owner >= program.owners.size())
      return invalid("producer stage '" +
                     program.mainStages[producer.stage].name +
                     "' names owner " + std::to_string(producer.owner) +
                     " of " + std::to_string(program.owners.size()));
    const OwnerDesc &owner = program.owners[producer.owner];
    const std::string &stageName = program.mainStages[producer.stage].name;
    if (Status status = validateProducerBound(stageName, owner.name,
                                              producer.bound, owner.capacity);
        !status.ok())
      return invalid(status.message());
    for (const ProducerEdge &edge : edges[producer.stage])
      if (edge.owner == producer.owner)
        return invalid("producer stage '" + stageName + "' declares owner '" +
                       owner.name + "' twice");
    edges[producer.stage].push_back({producer.owner, producer.bound, 0});
    out.maxBoundInto_[producer.owner] =
        std::max(out.maxBoundInto_[producer.owner], producer.bound);
  }

  out.producerBegin_.push_back(0);
  for (uint32_t s = 0; s < out.mainStageCount_; ++s) {
    uint64_t stride = 0;
    for (ProducerEdge edge : edges[s]) {
      edge.publishBase = uint32_t(stride);
      stride += edge.bound;
      if (stride > UINT32_MAX)
        return invalid("main stage '" + program.mainStages[s].name +
                       "' has a total emission bound above 2^32 - 1");
      out.producerEdges_.push_back(edge);
    }
    out.publishStride_.push_back(uint32_t(stride));
    out.producerBegin_.push_back(uint32_t(out.producerEdges_.size()));
  }
  return Status::success();
}

Status validateRunShape(const ProgramShape &shape,
                        const ProgramDescriptor &program, uint32_t framePool,
                        bool allowPartialAdmission) {
  if (framePool == 0)
    return Status::error(ErrorKind::InvalidArgument,
                         "program '" + program.name +
                             "': the frame pool needs at least one frame");
  if (allowPartialAdmission)
    return Status::success();
  for (uint32_t s = 0; s < shape.mainStageCount(); ++s) {
    for (const ProducerEdge &edge : shape.producersOf(s)) {
      const OwnerDesc &owner = program.owners[edge.owner];
      // Without partial admission a full queue must fit an empty owner.
      if (!admissionFits(framePool, edge.bound, owner.capacity))
        return Status::error(
            ErrorKind::InvalidArgument,
            "program '" + program.name +
                "': partial admission is off, so a full pool of " +
                std::to_string(framePool) + " invocations of stage '" +
                program.mainStages[s].name + "' needs " +
                std::to_string(uint64_t(framePool) * edge.bound) +
                " slots, but owner '" + owner.name + "' has capacity " +
                std::to_string(owner.capacity));
    }
  }
  return Status::success();
}

bool FrameSorting::sorts(const StageDesc &stage) const {
  return enabled && stage.sortKeyField != kNoSortKey &&
         (stages.empty() ||
          std::find(stages.begin(), stages.end(), stage.name) != stages.end());
}

bool parseFrameSorting(const std::string &text, FrameSorting &sorting) {
  sorting.stages.clear();
  sorting.enabled = text != "off";
  if (text == "on" || text == "off")
    return true;
  for (size_t begin = 0; begin <= text.size();) {
    size_t end = std::min(text.find(',', begin), text.size());
    if (end == begin)
      return false;
    sorting.stages.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return true;
}

Status checkFrameSorting(std::string_view program,
                         std::span<const std::string> mainStages,
                         const std::vector<bool> &keyed,
                         const FrameSorting &sorting) {
  std::string withKey;
  for (size_t s = 0; s < mainStages.size(); ++s)
    if (keyed[s])
      withKey += (withKey.empty() ? "'" : ", '") + mainStages[s] + "'";
  for (const std::string &name : sorting.stages) {
    size_t s = std::find(mainStages.begin(), mainStages.end(), name) -
               mainStages.begin();
    if (s == mainStages.size() || !keyed[s])
      return Status::error(ErrorKind::InvalidArgument,
                           "program '" + std::string(program) +
                               "': sorting names stage '" + name + "', which " +
                               (s == mainStages.size() ? "is not a main stage"
                                                       : "has no sort_by key") +
                               " (the stages with a key: " +
                               (withKey.empty() ? "none" : withKey) + ")");
  }
  return Status::success();
}

Status checkFrameSorting(const ProgramDescriptor &program,
                         const FrameSorting &sorting) {
  std::vector<std::string> names;
  std::vector<bool> keyed;
  for (const StageDesc &stage : program.mainStages) {
    names.push_back(stage.name);
    keyed.push_back(stage.sortKeyField != kNoSortKey);
  }
  return checkFrameSorting(program.name, names, keyed, sorting);
}

std::vector<std::string> globalStageNames(const ProgramDescriptor &program) {
  std::vector<std::string> names;
  for (const StageDesc &stage : program.mainStages)
    names.push_back(stage.name);
  for (const OwnerDesc &owner : program.owners)
    for (const StageDesc &stage : owner.stages)
      names.push_back(owner.name + "." + stage.name);
  return names;
}

} // namespace sluice::runtime
