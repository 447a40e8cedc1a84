//===- scripted_program.cpp - Programs whose kernels follow a plan --------===//

#include "scripted_program.h"

namespace sluice::runtime::testing {

void ScriptedProgram::finalize() {
  items_.clear();
  firstItem_.assign(lanes.size(), {});
  for (uint32_t lane = 0; lane < lanes.size(); ++lane) {
    for (const StepSpec &step : lanes[lane]) {
      firstItem_[lane].push_back(uint32_t(items_.size()));
      for (const PublishSpec &publish : step.publishes)
        items_.push_back({publish.owner, &publish.itemPath});
    }
  }
  laneStep_ = std::make_unique<std::atomic<uint32_t>[]>(lanes.size() + 1);
  laneFinishes_ = std::make_unique<std::atomic<uint32_t>[]>(lanes.size() + 1);
  itemPublishes_ = std::make_unique<std::atomic<uint32_t>[]>(items_.size() + 1);
  itemVisits_ = std::make_unique<std::atomic<uint32_t>[]>(items_.size() + 1);
  itemReleases_ = std::make_unique<std::atomic<uint32_t>[]>(items_.size() + 1);
  live_ = std::make_unique<std::atomic<int64_t>[]>(owners.size() + 1);
  maxLive_ = std::make_unique<std::atomic<int64_t>[]>(owners.size() + 1);
  resetLogs();

  descriptor_ = ProgramDescriptor();
  descriptor_.name = name;
  for (const std::string &stage : mainStages)
    descriptor_.mainStages.push_back({stage, &ScriptedProgram::mainKernel});
  descriptor_.entryStage = entryStage;
  for (const ScriptedOwner &owner : owners) {
    OwnerDesc desc;
    desc.name = owner.name;
    desc.capacity = owner.capacity;
    desc.itemSize = sizeof(ItemPayload);
    for (const std::string &stage : owner.stages)
      desc.stages.push_back({stage, &ScriptedProgram::ownerKernel});
    descriptor_.owners.push_back(std::move(desc));
  }
  descriptor_.producers = producers;
  descriptor_.frameLayout.fields = {{"tag", 4, 4}, {"pad", 12, 4}};
  descriptor_.userData = this;
}

void ScriptedProgram::resetLogs() {
  for (uint32_t lane = 0; lane < lanes.size(); ++lane) {
    laneStep_[lane] = 0;
    laneFinishes_[lane] = 0;
  }
  for (uint32_t item = 0; item < items_.size(); ++item) {
    itemPublishes_[item] = 0;
    itemVisits_[item] = 0;
    itemReleases_[item] = 0;
  }
  for (uint32_t owner = 0; owner < owners.size(); ++owner) {
    live_[owner] = 0;
    maxLive_[owner] = 0;
  }
  std::lock_guard<std::mutex> lock(violationMutex_);
  firstViolation_.clear();
}

std::vector<StageStatistics> ScriptedProgram::expectedStatistics() const {
  std::vector<uint32_t> ownerBase;
  uint32_t total = uint32_t(mainStages.size());
  for (const ScriptedOwner &owner : owners) {
    ownerBase.push_back(total);
    total += uint32_t(owner.stages.size());
  }
  std::vector<StageStatistics> stats(total);
  for (const LanePath &lane : lanes) {
    for (const StepSpec &step : lane) {
      ++stats[step.stage].invocations;
      stats[step.stage].itemsPublished += step.publishes.size();
      for (const PublishSpec &publish : step.publishes) {
        for (uint32_t ownerStage : publish.itemPath)
          ++stats[ownerBase[publish.owner] + ownerStage].invocations;
        ++stats[ownerBase[publish.owner] + publish.itemPath.back()]
              .itemsReleased;
      }
    }
  }
  return stats;
}

uint64_t ScriptedProgram::totalVisits() const {
  uint64_t visits = 0;
  for (const LanePath &lane : lanes)
    for (const StepSpec &step : lane) {
      ++visits;
      for (const PublishSpec &publish : step.publishes)
        visits += publish.itemPath.size();
    }
  return visits;
}

void ScriptedProgram::violation(const std::string &message) const {
  std::lock_guard<std::mutex> lock(violationMutex_);
  if (firstViolation_.empty())
    firstViolation_ = message;
}

std::string ScriptedProgram::firstViolation() const {
  std::lock_guard<std::mutex> lock(violationMutex_);
  return firstViolation_;
}

std::string ScriptedProgram::verifyCompleteRun() const {
  if (std::string first = firstViolation(); !first.empty())
    return first;
  for (uint32_t lane = 0; lane < lanes.size(); ++lane) {
    if (laneStep_[lane] != lanes[lane].size())
      return "lane " + std::to_string(lane) + " ran " +
             std::to_string(laneStep_[lane].load()) + " of " +
             std::to_string(lanes[lane].size()) + " steps";
    if (laneFinishes_[lane] != 1)
      return "lane " + std::to_string(lane) + " finished " +
             std::to_string(laneFinishes_[lane].load()) + " times";
  }
  for (uint32_t item = 0; item < items_.size(); ++item) {
    if (itemPublishes_[item] != 1 || itemReleases_[item] != 1 ||
        itemVisits_[item] != items_[item].path->size())
      return "item " + std::to_string(item) + ": published " +
             std::to_string(itemPublishes_[item].load()) + ", visited " +
             std::to_string(itemVisits_[item].load()) + " of " +
             std::to_string(items_[item].path->size()) + " stages, released " +
             std::to_string(itemReleases_[item].load());
  }
  for (uint32_t owner = 0; owner < owners.size(); ++owner)
    if (live_[owner] != 0)
      return "owner " + owners[owner].name + " ends with " +
             std::to_string(live_[owner].load()) + " live items";
  return "";
}

void ScriptedProgram::mainKernel(const sluice_rt_kernel_args *args,
                                 uint32_t begin, uint32_t end) {
  auto &self = *static_cast<ScriptedProgram *>(args->user_data);
  for (uint32_t i = begin; i < end; ++i) {
    uint32_t lane = sluice_rt_lane_of(args, i);
    uint32_t frame = sluice_rt_frame_of(args, i);
    auto *tag = static_cast<uint32_t *>(sluice_rt_frame_field(args, frame, 0));
    uint32_t step = lane < self.lanes.size()
                        ? self.laneStep_[lane].load(std::memory_order_relaxed)
                        : 0;
    if (lane >= self.lanes.size() || step >= self.lanes[lane].size()) {
      self.violation("lane " + std::to_string(lane) + " ran past its plan");
      sluice_rt_finish_frame(args, i);
      continue;
    }
    // The frame keeps its lane from the first step on.
    if (step == 0)
      *tag = lane + 1;
    else if (*tag != lane + 1)
      self.violation("lane " + std::to_string(lane) + " lost its frame");
    const StepSpec &spec = self.lanes[lane][step];
    if (spec.stage != args->stage)
      self.violation("lane " + std::to_string(lane) + " step " +
                     std::to_string(step) + " ran at stage " +
                     std::to_string(args->stage) + ", planned " +
                     std::to_string(spec.stage));
    uint32_t item = self.firstItem_[lane][step];
    for (const PublishSpec &publish : spec.publishes) {
      auto *payload =
          static_cast<ItemPayload *>(sluice_rt_publish(args, i, publish.owner));
      if (!payload) {
        self.violation("publish refused for lane " + std::to_string(lane));
        ++item;
        continue;
      }
      payload->item = item;
      payload->step = 0;
      self.itemPublishes_[item].fetch_add(1);
      int64_t live = self.live_[publish.owner].fetch_add(1) + 1;
      int64_t seen = self.maxLive_[publish.owner].load();
      while (live > seen &&
             !self.maxLive_[publish.owner].compare_exchange_weak(seen, live)) {
      }
      ++item;
    }
    self.laneStep_[lane].store(step + 1, std::memory_order_relaxed);
    if (step + 1 < self.lanes[lane].size()) {
      sluice_rt_move_frame(args, i, self.lanes[lane][step + 1].stage);
    } else {
      self.laneFinishes_[lane].fetch_add(1);
      sluice_rt_finish_frame(args, i);
    }
  }
}

void ScriptedProgram::ownerKernel(const sluice_rt_kernel_args *args,
                                  uint32_t begin, uint32_t end) {
  auto &self = *static_cast<ScriptedProgram *>(args->user_data);
  for (uint32_t i = begin; i < end; ++i) {
    auto *payload = static_cast<ItemPayload *>(sluice_rt_item_payload(args, i));
    if (payload->item >= self.items_.size()) {
      self.violation("unknown item " + std::to_string(payload->item));
      sluice_rt_release_item(args, i);
      continue;
    }
    const ItemPlan &plan = self.items_[payload->item];
    const std::vector<uint32_t> &path = *plan.path;
    if (plan.owner != args->owner || payload->step >= path.size() ||
        path[payload->step] != args->owner_stage)
      self.violation("item " + std::to_string(payload->item) +
                     " visited owner " + std::to_string(args->owner) +
                     " stage " + std::to_string(args->owner_stage) +
                     " at step " + std::to_string(payload->step) +
                     " against its plan");
    self.itemVisits_[payload->item].fetch_add(1);
    uint32_t next = ++payload->step;
    if (next < path.size()) {
      sluice_rt_move_item(args, i, path[next]);
    } else {
      self.itemReleases_[payload->item].fetch_add(1);
      self.live_[plan.owner].fetch_sub(1);
      sluice_rt_release_item(args, i);
    }
  }
}

void RecordingObserver::observed(const Observation &observation) {
  if (!failure.empty())
    return;
  for (uint32_t o = 0; o < program_.owners.size(); ++o) {
    int64_t live = program_.liveItems(o);
    if (live < 0 || live > int64_t(program_.owners[o].capacity) ||
        program_.maxLiveItems(o) > int64_t(program_.owners[o].capacity)) {
      failure = "owner " + program_.owners[o].name + ": " +
                std::to_string(live) + " live items (max " +
                std::to_string(program_.maxLiveItems(o)) + ") with capacity " +
                std::to_string(program_.owners[o].capacity);
      return;
    }
  }
}

} // namespace sluice::runtime::testing
