//===- device.cpp - Device interface defaults -----------------------------===//

#include "sluice/runtime/device/device.h"

namespace sluice::runtime {

Device::~Device() = default;

Status Device::runStateMachine(uint32_t lanes, StateMachineReport &report) {
  return Status::error(ErrorKind::Unsupported,
                       std::string("device '") + name() +
                           "' has no state-machine schedule");
}

void Device::setFrameSorting(const FrameSorting &) {}

Status Device::prepare(bool, bool) { return Status::success(); }

Status Device::reserveStateMachine(uint32_t) { return Status::success(); }

std::unique_ptr<CapacityOwnerClient>
Device::policyClient(uint32_t, const OwnerPolicy &policy) {
  return std::make_unique<CompiledPolicyClient>(policy);
}

Status Device::residentSupport() const {
  return Status::error(ErrorKind::Unsupported,
                       std::string("the ") + name() +
                           " device has no device placement of the scheduler "
                           "yet");
}

Status Device::runResident(const ResidentRun &, ResidentLog &) {
  return residentSupport();
}

size_t observationWords(const ProgramShape &shape) {
  return shape.totalStageCount() + 3 * size_t(shape.ownerCount()) + 3;
}

void packCounts(const decision::Tables &t, const decision::Counts &c,
                std::vector<uint64_t> &out) {
  out.insert(out.end(), c.stageCounts, c.stageCounts + t.stageCount);
  out.insert(out.end(), c.ownerLive, c.ownerLive + t.ownerCount);
  out.insert(out.end(), c.ownerPublished, c.ownerPublished + t.ownerCount);
  out.insert(out.end(), c.ownerReleased, c.ownerReleased + t.ownerCount);
  out.push_back(c.freeFrames);
  out.push_back(c.lanesStarted);
  out.push_back(c.lanesFinished);
}

void unpackObservation(const ProgramShape &shape, const uint64_t *words,
                       Observation &out) {
  out.resize(shape);
  for (uint32_t &count : out.stageCounts)
    count = uint32_t(*words++);
  for (uint32_t &live : out.ownerLive)
    live = uint32_t(*words++);
  for (uint64_t &published : out.ownerPublished)
    published = *words++;
  for (uint64_t &released : out.ownerReleased)
    released = *words++;
  out.freeFrames = uint32_t(*words++);
  out.lanesStarted = *words++;
  out.lanesFinished = *words++;
}

OwnerView observedOwner(const ProgramDescriptor &program,
                        const ProgramShape &shape,
                        const Observation &observation, uint32_t owner) {
  OwnerView view;
  view.index = owner;
  view.name = program.owners[owner].name;
  view.capacity = program.owners[owner].capacity;
  view.stageCounts = {observation.stageCounts.data() +
                          shape.ownerStageBase(owner),
                      shape.ownerStageCount(owner)};
  view.live = observation.ownerLive[owner];
  view.published = observation.ownerPublished[owner];
  view.released = observation.ownerReleased[owner];
  return view;
}

void Observation::resize(const ProgramShape &shape) {
  stageCounts.assign(shape.totalStageCount(), 0);
  ownerLive.assign(shape.ownerCount(), 0);
  ownerPublished.assign(shape.ownerCount(), 0);
  ownerReleased.assign(shape.ownerCount(), 0);
  freeFrames = 0;
  lanesStarted = 0;
  lanesFinished = 0;
}

} // namespace sluice::runtime
