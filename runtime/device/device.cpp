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
