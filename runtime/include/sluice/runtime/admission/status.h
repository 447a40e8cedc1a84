//===- status.h - Runtime error reporting -----------------------*- C++ -*-===//
//
// Every runtime failure (protocol violation, bad descriptor, allocation
// failure) is reported as a Status carrying a kind and a message that names the
// owner/stage and the numbers involved. Nothing in the runtime relies on
// undefined behaviour or exceptions to fail.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_ADMISSION_STATUS_H
#define SLUICE_RUNTIME_ADMISSION_STATUS_H

#include <cstdint>
#include <string>
#include <utility>

namespace sluice::runtime {

enum class ErrorKind : uint8_t {
  None = 0,
  InvalidDescriptor = 1,      // The program descriptor is malformed.
  InvalidArgument = 2,        // A run option or API argument is out of range.
  CapacityExceeded = 3,       // An owner observed L > C.
  CountMismatch = 4,          // Owner total != sum of its stage counts.
  AvailabilityOutOfRange = 5, // Client reported A > C - L.
  EmptyOwnerAvailability = 6, // Empty owner reported A != C.
  InvalidAdmissionStage = 7,  // Client chose an empty or out-of-range stage.
  EmissionBoundExceeded = 8,  // An invocation published more than its bound.
  LinearityViolation = 9,     // A frame or item was neither moved nor released.
  InvalidTransition = 10,     // A move named a stage that does not exist.
  NoProgress = 11,            // Work is live but no stage can be dispatched.
  IterationLimit = 12,        // The run exceeded its iteration bound.
  OutOfMemory = 13,           // An allocation failed.
  ArithmeticOverflow = 14,    // A size or alignment computation overflowed.
  Unsupported = 15,           // The device does not implement the request.
  InvalidState = 16,          // The API was used out of order.
  DeviceUnavailable = 17,     // No Vulkan loader, no device, or not the one asked for.
  DeviceError = 18,           // A device API call failed (names the call and result).
  IndexOutOfBounds = 19,      // A checked kernel indexed a binding out of bounds.
};
static_assert(sizeof(ErrorKind) == 1, "ErrorKind is stored in hot structs");

const char *errorKindName(ErrorKind kind);

class [[nodiscard]] Status {
public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(ErrorKind kind, std::string message) {
    Status status;
    status.kind_ = kind;
    status.message_ = std::move(message);
    return status;
  }

  bool ok() const { return kind_ == ErrorKind::None; }
  ErrorKind kind() const { return kind_; }
  const std::string &message() const { return message_; }
  // "<kind>: <message>" for printing.
  std::string describe() const;

private:
  ErrorKind kind_ = ErrorKind::None;
  std::string message_;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_ADMISSION_STATUS_H
