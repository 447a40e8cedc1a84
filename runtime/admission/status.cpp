//===- status.cpp - Runtime error reporting -------------------------------===//

#include "sluice/runtime/admission/status.h"

namespace sluice::runtime {

const char *errorKindName(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::None:
    return "ok";
  case ErrorKind::InvalidDescriptor:
    return "invalid program descriptor";
  case ErrorKind::InvalidArgument:
    return "invalid argument";
  case ErrorKind::CapacityExceeded:
    return "capacity exceeded";
  case ErrorKind::CountMismatch:
    return "count mismatch";
  case ErrorKind::AvailabilityOutOfRange:
    return "availability out of range";
  case ErrorKind::EmptyOwnerAvailability:
    return "empty owner availability";
  case ErrorKind::InvalidAdmissionStage:
    return "invalid admission stage";
  case ErrorKind::EmissionBoundExceeded:
    return "emission bound exceeded";
  case ErrorKind::LinearityViolation:
    return "linearity violation";
  case ErrorKind::InvalidTransition:
    return "invalid transition";
  case ErrorKind::NoProgress:
    return "no progress";
  case ErrorKind::IterationLimit:
    return "iteration limit";
  case ErrorKind::OutOfMemory:
    return "out of memory";
  case ErrorKind::ArithmeticOverflow:
    return "arithmetic overflow";
  case ErrorKind::Unsupported:
    return "unsupported";
  case ErrorKind::InvalidState:
    return "invalid state";
  case ErrorKind::DeviceUnavailable:
    return "device unavailable";
  case ErrorKind::DeviceError:
    return "device error";
  case ErrorKind::IndexOutOfBounds:
    return "index out of bounds";
  }
  return "unknown error";
}

std::string Status::describe() const {
  if (ok())
    return "ok";
  std::string text = errorKindName(kind_);
  text += ": ";
  text += message_;
  return text;
}

} // namespace sluice::runtime
