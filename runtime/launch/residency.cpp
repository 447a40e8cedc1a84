//===- residency.cpp - Device copies of host memory, backend-neutral ------===//

#include "sluice/runtime/launch/residency.h"

#include "sluice/ABI/LaunchABI.h"

#include <algorithm>
#include <iterator>

namespace sluice::runtime::residency {

Resident::~Resident() = default;

uintptr_t rangeEnd(uintptr_t begin, uint64_t bytes) {
  uintptr_t end = 0;
  return __builtin_add_overflow(begin, bytes, &end) ? UINTPTR_MAX : end;
}

std::vector<ResidentPtr> Table::overlapping(uintptr_t begin,
                                            uint64_t bytes) const {
  std::vector<ResidentPtr> found;
  if (bytes == 0 || entries.empty())
    return found;
  uintptr_t end = rangeEnd(begin, bytes);
  auto it = entries.upper_bound(begin);
  if (it != entries.begin()) {
    auto previous = std::prev(it);
    if (rangeEnd(previous->first, previous->second->bytes) > begin)
      found.push_back(previous->second);
  }
  for (; it != entries.end() && it->first < end; ++it)
    found.push_back(it->second);
  return found;
}

void Table::erase(const Resident &resident) {
  entries.erase(reinterpret_cast<uintptr_t>(resident.host));
}

namespace {

void addOnce(std::vector<ResidentPtr> &list, const ResidentPtr &resident) {
  if (std::find(list.begin(), list.end(), resident) == list.end())
    list.push_back(resident);
}

} // namespace

void planLaunch(const Table &table, std::span<const Operand> operands,
                size_t maxEntries, LaunchPlan &plan) {
  plan = LaunchPlan{};
  std::vector<Group> &groups = plan.groups;
  plan.groupOf.assign(operands.size(), SIZE_MAX);
  for (size_t i = 0; i < operands.size(); ++i) {
    const Operand &operand = operands[i];
    if (operand.bytes == 0)
      continue;
    size_t g = 0;
    while (g < groups.size() &&
           (groups[g].host != operand.host || groups[g].bytes != operand.bytes))
      ++g;
    if (g == groups.size()) {
      groups.emplace_back();
      groups.back().host = operand.host;
      groups.back().bytes = operand.bytes;
    }
    groups[g].access |= operand.access & (SLUICE_LAUNCH_READ | SLUICE_LAUNCH_WRITE);
    groups[g].resident &= (operand.access & SLUICE_LAUNCH_RESIDENT) != 0;
    plan.groupOf[i] = g;
  }
  for (size_t a = 0; a < groups.size(); ++a)
    for (size_t b = a + 1; b < groups.size(); ++b) {
      uintptr_t beginA = reinterpret_cast<uintptr_t>(groups[a].host),
                beginB = reinterpret_cast<uintptr_t>(groups[b].host);
      if (beginA < rangeEnd(beginB, groups[b].bytes) &&
          beginB < rangeEnd(beginA, groups[a].bytes))
        groups[a].transient = groups[b].transient = true;
    }
  // Entries that overlap a group's range without being its own come back
  // and are dropped; so is the own entry of a transient group. A group
  // without residency needs the host bytes current before it copies them.
  size_t fresh = 0;
  for (Group &g : groups) {
    for (const ResidentPtr &resident :
         table.overlapping(reinterpret_cast<uintptr_t>(g.host), g.bytes)) {
      if (g.transient || resident->host != g.host ||
          resident->bytes != g.bytes) {
        addOnce(plan.drop, resident);
      } else {
        g.entry = resident;
        if (!g.resident)
          addOnce(plan.sync, resident);
      }
    }
    fresh += !g.transient && !g.entry;
  }
  // Bounded: programs that allocate fresh arrays per launch without freeing
  // them do not grow the table forever. This launch's entries stay.
  if (table.entries.size() + fresh > maxEntries)
    for (const auto &[start, resident] : table.entries)
      if (std::none_of(groups.begin(), groups.end(),
                       [&](const Group &g) { return g.entry == resident; }))
        addOnce(plan.drop, resident);
  plan.deferred = plan.drop.empty() && plan.sync.empty() &&
                  std::all_of(groups.begin(), groups.end(), [](const Group &g) {
                    return g.resident && !g.transient;
                  });
}

std::vector<ResidentPtr> staleOnHost(std::span<const ResidentPtr> entries) {
  std::vector<ResidentPtr> stale;
  for (const ResidentPtr &resident : entries)
    if (!resident->hostCurrent)
      stale.push_back(resident);
  return stale;
}

void settle(Table &table, LaunchPlan &plan,
            const std::function<ResidentPtr(const Group &)> &make) {
  for (Group &g : plan.groups) {
    if (!g.entry) {
      g.entry = make(g);
      g.entry->host = g.host;
      g.entry->bytes = g.bytes;
      if (!g.transient)
        table.entries.emplace(reinterpret_cast<uintptr_t>(g.host), g.entry);
    }
    Resident &resident = *g.entry;
    bool in = g.access & SLUICE_LAUNCH_READ;
    bool out = g.access & SLUICE_LAUNCH_WRITE;
    bool stays = g.resident && !g.transient;
    g.upload = in && (!stays || !resident.deviceCurrent);
    g.copyOut = out && !stays;
    if (stays) {
      if (in)
        resident.deviceCurrent = true;
      if (out) {
        resident.deviceCurrent = true;
        resident.hostCurrent = false;
      }
    } else {
      // Copied out now, and the host may change it unannounced.
      resident.hostCurrent = true;
      resident.deviceCurrent = false;
    }
  }
}

std::string checkHostAccess(uint64_t access) {
  if (access & ~uint64_t(SLUICE_HOST_READ | SLUICE_HOST_WRITE |
                         SLUICE_HOST_FREE) ||
      access == 0 ||
      ((access & SLUICE_HOST_FREE) && access != SLUICE_HOST_FREE))
    return "access " + std::to_string(access) +
           "; expected SLUICE_HOST_READ (1), SLUICE_HOST_WRITE (2), both, or "
           "SLUICE_HOST_FREE (4) alone";
  return "";
}

const char *hostAccessReason(uint64_t access) {
  return access == SLUICE_HOST_READ    ? "host read"
         : access == SLUICE_HOST_WRITE ? "host write"
                                       : "host read+write";
}

void finishHostAccess(Table &table, std::span<const ResidentPtr> touched,
                      uint64_t access) {
  for (const ResidentPtr &resident : touched) {
    if (access == SLUICE_HOST_FREE)
      table.erase(*resident);
    else if (access & SLUICE_HOST_WRITE)
      resident->deviceCurrent = false;
  }
}

} // namespace sluice::runtime::residency
