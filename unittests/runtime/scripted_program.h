//===- scripted_program.h - Programs whose kernels run a plan ---*- C++ -*-===//
//
// A ScriptedProgram describes every lane's path through the main stages and
// every published item's path through its owner's stages up front. Its two
// generic kernels follow the plan, log every visit, and record a violation if
// the runtime ever runs a frame or item at a stage its plan does not name.
// Expected statistics follow from the plan alone (closed forms), so tests
// never compare against numbers copied from a run.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_UNITTESTS_RUNTIME_SCRIPTED_PROGRAM_H
#define SLUICE_UNITTESTS_RUNTIME_SCRIPTED_PROGRAM_H

#include "sluice/runtime/admission/admission.h"
#include "sluice/runtime/wavefront/program.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sluice::runtime::testing {

struct PublishSpec {
  uint32_t owner = 0;
  std::vector<uint32_t> itemPath; // owner stages visited; starts at 0
};

struct StepSpec {
  uint32_t stage = 0; // main stage of this step
  std::vector<PublishSpec> publishes;
};

using LanePath = std::vector<StepSpec>; // first step: the entry stage

struct ScriptedOwner {
  std::string name;
  uint32_t capacity = 1;
  std::vector<std::string> stages;
};

struct ItemPayload {
  uint32_t item;
  uint32_t step;
};

class ScriptedProgram {
public:
  // The descriptor points back at the program (user_data): never copied.
  ScriptedProgram() = default;
  ScriptedProgram(const ScriptedProgram &) = delete;
  ScriptedProgram &operator=(const ScriptedProgram &) = delete;

  std::string name = "scripted";
  std::vector<std::string> mainStages;
  uint32_t entryStage = 0;
  std::vector<ScriptedOwner> owners;
  std::vector<ProducerDesc> producers;
  std::vector<LanePath> lanes;

  // Numbers the items, sizes the logs and builds the descriptor.
  void finalize();
  const ProgramDescriptor &descriptor() const { return descriptor_; }
  uint32_t laneCount() const { return uint32_t(lanes.size()); }
  uint32_t itemCount() const { return uint32_t(items_.size()); }

  // Statistics implied by the plan (dispatch counters are left at zero).
  std::vector<StageStatistics> expectedStatistics() const;
  // Sum of all frame and item visits: no run can take more iterations,
  // since every iteration dispatches at least one invocation.
  uint64_t totalVisits() const;

  void resetLogs();
  // Empty when every lane and item followed its plan exactly once.
  std::string verifyCompleteRun() const;
  std::string firstViolation() const;
  int64_t liveItems(uint32_t owner) const { return live_[owner].load(); }
  int64_t maxLiveItems(uint32_t owner) const { return maxLive_[owner].load(); }

  // Kernels (user_data is the ScriptedProgram).
  static void mainKernel(const sluice_rt_kernel_args *args, uint32_t begin,
                         uint32_t end);
  static void ownerKernel(const sluice_rt_kernel_args *args, uint32_t begin,
                          uint32_t end);

private:
  struct ItemPlan {
    uint32_t owner;
    const std::vector<uint32_t> *path;
  };
  void violation(const std::string &message) const;

  ProgramDescriptor descriptor_;
  std::vector<ItemPlan> items_;
  // firstItem_[lane][step]: id of the step's first published item.
  std::vector<std::vector<uint32_t>> firstItem_;
  std::unique_ptr<std::atomic<uint32_t>[]> laneStep_;
  std::unique_ptr<std::atomic<uint32_t>[]> laneFinishes_;
  std::unique_ptr<std::atomic<uint32_t>[]> itemPublishes_;
  std::unique_ptr<std::atomic<uint32_t>[]> itemVisits_;
  std::unique_ptr<std::atomic<uint32_t>[]> itemReleases_;
  std::unique_ptr<std::atomic<int64_t>[]> live_;
  std::unique_ptr<std::atomic<int64_t>[]> maxLive_;
  mutable std::mutex violationMutex_;
  mutable std::string firstViolation_;
};

// Records every planned iteration and checks live items against capacity at
// every observation, from the script's own counters.
class RecordingObserver final : public IterationObserver {
public:
  RecordingObserver(const ScriptedProgram &program) : program_(program) {}
  void observed(const Observation &observation) override;
  void planned(const IterationRecord &record) override {
    records.push_back(record);
  }
  std::vector<IterationRecord> records;
  std::string failure; // first invariant failure, empty if none

private:
  const ScriptedProgram &program_;
};

// Client of an append allocator that reclaims its storage only when the
// owner is empty: A = C - (items appended since the last reclaim).
class AppendAllocatorClient final : public CapacityOwnerClient {
public:
  void beginRun(const OwnerView &owner) override {
    reclaimedAt_ = 0;
    reclaims = 0;
  }
  void prepareForAdmission(const OwnerView &owner) override {
    if (owner.live == 0 && reclaimedAt_ != owner.published) {
      reclaimedAt_ = owner.published; // storage-only: counts do not change
      ++reclaims;
    }
  }
  uint64_t materializableAvailability(const OwnerView &owner) override {
    return owner.capacity - (owner.published - reclaimedAt_);
  }
  uint64_t reclaims = 0;

private:
  uint64_t reclaimedAt_ = 0;
};

} // namespace sluice::runtime::testing

#endif // SLUICE_UNITTESTS_RUNTIME_SCRIPTED_PROGRAM_H
