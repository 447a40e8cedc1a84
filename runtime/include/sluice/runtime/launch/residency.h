//===- residency.h - Device copies of host memory, backend-neutral -*- C++ -*-===//
//
// What every GPU wrapper of the host-launch ABI (vulkan_launch.cpp,
// hip_launch.cpp) decides the same way about memref operands (LaunchABI.h,
// docs/runtime.md "Residency"): a table of host ranges that have a device
// copy, disjoint, each knowing whether the host copy and the device copy are
// current; how a launch's operands group by host range; which entries must
// come back to the host before a launch (an overlapping entry that is not
// the operand's own, the own entry of an operand without residency); which
// operands upload and which copy back; and what a host access does. The
// backend holds the buffers (it derives from Resident) and does the copies.
//
// Not thread-safe: the wrapper holds its table's mutex around every call.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_LAUNCH_RESIDENCY_H
#define SLUICE_RUNTIME_LAUNCH_RESIDENCY_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sluice::runtime::residency {

// The device copy of the host bytes [host, host + bytes). At least one of
// the two copies is current; both are when they hold the same bytes.
struct Resident {
  virtual ~Resident();
  char *host = nullptr;
  uint64_t bytes = 0;
  bool hostCurrent = true;    // the host bytes are the newest
  bool deviceCurrent = false; // the device bytes are the newest
};
using ResidentPtr = std::shared_ptr<Resident>;

// The end of [begin, begin + bytes), saturated at the top of the address
// space (the range (NULL, UINT64_MAX) is all of it).
uintptr_t rangeEnd(uintptr_t begin, uint64_t bytes);

struct Table {
  // By host start address; the ranges are disjoint.
  std::map<uintptr_t, ResidentPtr> entries;
  // The entries that share a byte with [begin, begin + bytes), in address
  // order.
  std::vector<ResidentPtr> overlapping(uintptr_t begin, uint64_t bytes) const;
  void erase(const Resident &resident);
};

// One memref operand of a launch (access: LaunchABI.h's READ, WRITE,
// RESIDENT bits; others are ignored here).
struct Operand {
  char *host = nullptr;
  uint64_t bytes = 0;
  uint64_t access = 0;
};

// The nonempty operands by host range: an array passed twice is one buffer
// bound twice. A range that partially overlaps another one of the launch is
// transient: a buffer of its own for this launch only, copied in and out
// like an operand without residency.
struct Group {
  char *host = nullptr;
  uint64_t bytes = 0;
  uint64_t access = 0;    // READ | WRITE of every operand in the group
  bool resident = true;   // every operand of the group is RESIDENT
  bool transient = false; // partially overlaps another group
  ResidentPtr entry;
  bool upload = false, copyOut = false; // settle() decides
};

struct LaunchPlan {
  std::vector<Group> groups;
  std::vector<size_t> groupOf; // per operand; SIZE_MAX: empty, no group
  // Entries to bring back to the host first and then drop (ranges stay
  // disjoint; the table is bounded), and entries to bring back and keep
  // (the own entry of a group without residency).
  std::vector<ResidentPtr> drop, sync;
  // Nothing to drop or sync and every group stays resident: the launch
  // need not be waited for (the wrapper may batch it).
  bool deferred = false;
};

// Groups `operands` and finds what must come back first. At most
// `maxEntries` entries are kept: beyond that, entries the launch does not
// use are dropped.
void planLaunch(const Table &table, std::span<const Operand> operands,
                size_t maxEntries, LaunchPlan &plan);

// Of `entries`, those whose host copy is not current (to download).
std::vector<ResidentPtr> staleOnHost(std::span<const ResidentPtr> entries);

// After the wrapper downloaded the stale entries of plan.drop and
// plan.sync and erased plan.drop: gives every group its entry (`make` a new
// one, kept in the table unless transient), decides upload and copyOut, and
// moves every entry to its state after the launch.
void settle(Table &table, LaunchPlan &plan,
            const std::function<ResidentPtr(const Group &)> &make);

// sluice_rt_host_access: "" when `access` is valid, else the message.
std::string checkHostAccess(uint64_t access);
// "host read", "host write", "host read+write" (timing lines).
const char *hostAccessReason(uint64_t access);
// After the wrapper downloaded the stale entries of `touched` (READ,
// WRITE): WRITE marks their device copies stale; FREE drops them.
void finishHostAccess(Table &table, std::span<const ResidentPtr> touched,
                      uint64_t access);

} // namespace sluice::runtime::residency

#endif // SLUICE_RUNTIME_LAUNCH_RESIDENCY_H
