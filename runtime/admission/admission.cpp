//===- admission.cpp - Capacity owner validation and stage choice ---------===//

#include "sluice/runtime/admission/admission.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace sluice::runtime {

CapacityOwnerClient::~CapacityOwnerClient() = default;

uint32_t chooseGreedyStage(std::span<const uint32_t> counts) {
  return decision::greedyStage(counts.data(), uint32_t(counts.size()));
}

uint32_t firstNonEmptyStage(std::span<const uint32_t> stageCounts) {
  return decision::firstNonEmpty(stageCounts.data(),
                                 uint32_t(stageCounts.size()));
}

static std::string describeCounts(std::span<const uint32_t> stageCounts) {
  std::string text = "[";
  for (size_t i = 0; i < stageCounts.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(stageCounts[i]);
  }
  text += "]";
  return text;
}

Status validateOwnerCounts(std::string_view owner,
                           std::span<const uint32_t> stageCounts,
                           uint64_t observedTotal, uint32_t capacity) {
  uint64_t sum = 0;
  for (uint32_t count : stageCounts)
    sum += count;
  if (sum == observedTotal && observedTotal <= capacity)
    return Status::success();
  // Only the failure path builds a message.
  std::string subject = "owner '" + std::string(owner) + "': stage counts " +
                        describeCounts(stageCounts) + " (sum " +
                        std::to_string(sum) + "), observed total " +
                        std::to_string(observedTotal) + ", capacity " +
                        std::to_string(capacity);
  if (sum != observedTotal)
    return Status::error(ErrorKind::CountMismatch,
                         subject + ": total differs from the stage sum");
  return Status::error(ErrorKind::CapacityExceeded,
                       subject + ": live items exceed the capacity");
}

Status validateStorageOnly(std::string_view owner, std::string_view hook,
                           std::span<const uint32_t> before,
                           std::span<const uint32_t> after) {
  if (std::equal(before.begin(), before.end(), after.begin(), after.end()))
    return Status::success();
  return Status::error(
      ErrorKind::CountMismatch,
      "owner '" + std::string(owner) + "': hook " + std::string(hook) +
          " changed the stage counts " + describeCounts(before) + " to " +
          describeCounts(after) + "; owner hooks are storage-only");
}

Status validateAvailability(std::string_view owner, uint32_t live,
                            uint32_t capacity, uint64_t availability,
                            std::string_view hook) {
  // Callers validate live <= capacity first.
  uint64_t freeSlots = uint64_t(capacity) - live;
  std::string from = hook.empty() ? "" : " from hook " + std::string(hook);
  if (availability > INT64_MAX && !hook.empty())
    return Status::error(ErrorKind::AvailabilityOutOfRange,
                         "owner '" + std::string(owner) +
                             "' reported availability " +
                             std::to_string(int64_t(availability)) + from +
                             "; an availability is at least 0");
  if (availability > freeSlots)
    return Status::error(ErrorKind::AvailabilityOutOfRange,
                         "owner '" + std::string(owner) +
                             "' reported availability " +
                             std::to_string(availability) + from +
                             " but only C - L = " + std::to_string(capacity) +
                             " - " + std::to_string(live) + " = " +
                             std::to_string(freeSlots) + " slots are free");
  if (live == 0 && availability != capacity)
    return Status::error(
        ErrorKind::EmptyOwnerAvailability,
        "owner '" + std::string(owner) +
            "' is empty but reported availability " +
            std::to_string(availability) + from + " instead of its capacity " +
            std::to_string(capacity) +
            " (an empty owner must report A = C so producers can progress)");
  return Status::success();
}

Status validateProducerBound(std::string_view stage, std::string_view owner,
                             uint32_t bound, uint32_t capacity) {
  if (bound == 0)
    return Status::error(ErrorKind::InvalidDescriptor,
                         "producer stage '" + std::string(stage) +
                             "' declares emission bound 0 into owner '" +
                             std::string(owner) + "'");
  if (bound > capacity)
    return Status::error(
        ErrorKind::InvalidDescriptor,
        "producer stage '" + std::string(stage) + "' may publish " +
            std::to_string(bound) + " items per invocation into owner '" +
            std::string(owner) + "' whose capacity is only " +
            std::to_string(capacity) +
            ": not even one invocation could ever be admitted");
  return Status::success();
}

Status validateAdmissionStage(std::string_view owner,
                              std::span<const uint32_t> stageCounts,
                              uint32_t chosenStage) {
  if (chosenStage >= stageCounts.size())
    return Status::error(ErrorKind::InvalidAdmissionStage,
                         "owner '" + std::string(owner) +
                             "' chose admission stage " +
                             std::to_string(chosenStage) + " but has only " +
                             std::to_string(stageCounts.size()) + " stages");
  if (stageCounts[chosenStage] == 0)
    return Status::error(ErrorKind::InvalidAdmissionStage,
                         "owner '" + std::string(owner) +
                             "' chose admission stage " +
                             std::to_string(chosenStage) +
                             " which holds no items; stage counts " +
                             describeCounts(stageCounts));
  return Status::success();
}

} // namespace sluice::runtime
