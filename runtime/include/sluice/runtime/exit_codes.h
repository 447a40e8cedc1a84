//===- exit_codes.h - The exit codes of every Sluice tool -------*- C++ -*-===//
//
// One table for sluice-run, sluice-run-artifact, sluice-wavefront-demo and
// any runner built on the runtime (docs/tools.md):
//
//   0  success
//   1  the program failed: a compile error, a protocol fault, a run error
//   2  bad usage or bad input: an unknown option, a value out of range, an
//      unreadable or malformed file
//   3  no device: the backend's driver or device is not there
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_EXIT_CODES_H
#define SLUICE_RUNTIME_EXIT_CODES_H

#include "sluice/runtime/admission/status.h"

namespace sluice::runtime {

enum ExitCode : int {
  kExitSuccess = 0,
  kExitFailure = 1,
  kExitBadInput = 2,
  kExitNoDevice = 3,
};

// The exit code a tool returns for a failed `status`.
inline int exitCodeFor(const Status &status) {
  switch (status.kind()) {
  case ErrorKind::None:
    return kExitSuccess;
  case ErrorKind::InvalidDescriptor:
  case ErrorKind::InvalidArgument:
    return kExitBadInput;
  case ErrorKind::DeviceUnavailable:
    return kExitNoDevice;
  default:
    return kExitFailure;
  }
}

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_EXIT_CODES_H
