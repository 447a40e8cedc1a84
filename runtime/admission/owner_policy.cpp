//===- owner_policy.cpp - Compiled owner policies and their checks --------===//

#include "sluice/runtime/admission/owner_policy.h"

#include <algorithm>

namespace sluice::runtime {

const char *policyHookName(PolicyHook hook) {
  switch (hook) {
  case PolicyHook::PrepareForAdmission:
    return "prepare_for_admission";
  case PolicyHook::Availability:
    return "availability";
  case PolicyHook::AdmissionStage:
    return "admission_stage";
  case PolicyHook::PrepareForProducer:
    return "prepare_for_producer";
  }
  return "unknown";
}

std::string OwnerPolicy::describe(PolicyHook hook) const {
  std::string text = policyHookName(hook);
  if (has(hook))
    text += " (@" + symbols[size_t(hook)] + ")";
  return text;
}

//===----------------------------------------------------------------------===//
// CompiledPolicyClient
//===----------------------------------------------------------------------===//

namespace {

// The memref descriptors of a hook call: storage, then the stage counts.
struct HookMemRefs {
  int64_t *storage;
  int64_t storageWords;
  uint32_t *counts;
  int64_t stages;
};

HookMemRefs memRefs(std::vector<int64_t> &storage, uint32_t storageWords,
                    const OwnerView &owner) {
  // The scheduler's own counts: a hook that writes them is caught after.
  auto *counts = const_cast<uint32_t *>(owner.stageCounts.data());
  return {storage.data(), int64_t(storageWords), counts,
          int64_t(owner.stageCounts.size())};
}

#define SLUICE_HOOK_ARGUMENTS(m)                                               \
  m.storage, m.storage, 0, m.storageWords, 1, m.counts, m.counts, 0, m.stages, 1

} // namespace

CompiledPolicyClient::CompiledPolicyClient(const OwnerPolicy &policy)
    : policy_(policy), storage_(size_t(policy.storageWords) + 1, 0) {}

void CompiledPolicyClient::beginRun(const OwnerView &) {
  std::fill(storage_.begin(), storage_.end(), 0);
}

void CompiledPolicyClient::prepareForAdmission(const OwnerView &owner) {
  auto function = reinterpret_cast<PolicyPrepareFn>(
      policy_.functions[size_t(PolicyHook::PrepareForAdmission)]);
  if (!function)
    return;
  HookMemRefs m = memRefs(storage_, policy_.storageWords, owner);
  function(SLUICE_HOOK_ARGUMENTS(m), owner.capacity, owner.live);
}

uint64_t
CompiledPolicyClient::materializableAvailability(const OwnerView &owner) {
  auto function = reinterpret_cast<PolicyAvailabilityFn>(
      policy_.functions[size_t(PolicyHook::Availability)]);
  if (!function)
    return CapacityOwnerClient::materializableAvailability(owner);
  HookMemRefs m = memRefs(storage_, policy_.storageWords, owner);
  // Negative values become > INT64_MAX, which validateAvailability names.
  return uint64_t(
      function(SLUICE_HOOK_ARGUMENTS(m), owner.capacity, owner.live));
}

uint32_t CompiledPolicyClient::admissionStage(const OwnerView &owner) {
  auto function = reinterpret_cast<PolicyStageFn>(
      policy_.functions[size_t(PolicyHook::AdmissionStage)]);
  if (!function)
    return CapacityOwnerClient::admissionStage(owner);
  HookMemRefs m = memRefs(storage_, policy_.storageWords, owner);
  // A negative stage wraps past the stage count: validateAdmissionStage.
  return uint32_t(
      function(SLUICE_HOOK_ARGUMENTS(m), owner.capacity, owner.live));
}

void CompiledPolicyClient::prepareForProducer(const OwnerView &owner,
                                              uint64_t admittedSlots) {
  auto function = reinterpret_cast<PolicyProducerFn>(
      policy_.functions[size_t(PolicyHook::PrepareForProducer)]);
  if (!function)
    return;
  HookMemRefs m = memRefs(storage_, policy_.storageWords, owner);
  function(SLUICE_HOOK_ARGUMENTS(m), owner.capacity, owner.live,
           int64_t(admittedSlots));
}

#undef SLUICE_HOOK_ARGUMENTS

//===----------------------------------------------------------------------===//
// DevicePolicyClient
//===----------------------------------------------------------------------===//

void DevicePolicyClient::prepareForAdmission(const OwnerView &owner) {
  if (policy_.has(PolicyHook::PrepareForAdmission))
    call(PolicyHook::PrepareForAdmission, owner, 0);
}

uint64_t DevicePolicyClient::materializableAvailability(const OwnerView &owner) {
  if (!policy_.has(PolicyHook::Availability))
    return CapacityOwnerClient::materializableAvailability(owner);
  // Negative values become > INT64_MAX, as from the CPU's hooks.
  return uint64_t(call(PolicyHook::Availability, owner, 0));
}

uint32_t DevicePolicyClient::admissionStage(const OwnerView &owner) {
  if (!policy_.has(PolicyHook::AdmissionStage))
    return CapacityOwnerClient::admissionStage(owner);
  return uint32_t(call(PolicyHook::AdmissionStage, owner, 0));
}

void DevicePolicyClient::prepareForProducer(const OwnerView &owner,
                                            uint64_t admittedSlots) {
  if (policy_.has(PolicyHook::PrepareForProducer))
    call(PolicyHook::PrepareForProducer, owner, int64_t(admittedSlots));
}

//===----------------------------------------------------------------------===//
// Checked calls
//===----------------------------------------------------------------------===//

namespace {

std::string hookLabel(const OwnerPolicy *policy, PolicyHook hook) {
  return policy ? policy->describe(hook) : policyHookName(hook);
}

// Runs `call` and checks that the owner's counts did not change.
template <typename Call>
Status storageOnly(const OwnerPolicy *policy, PolicyHook hook,
                   const OwnerView &owner, std::span<uint32_t> counts,
                   Call call) {
  // Owners have few stages: the snapshot stays on the stack.
  constexpr size_t kInline = 16;
  uint32_t inlineBefore[kInline];
  std::vector<uint32_t> heapBefore;
  std::span<uint32_t> before(inlineBefore, std::min(counts.size(), kInline));
  if (counts.size() > kInline) {
    heapBefore.assign(counts.begin(), counts.end());
    before = heapBefore;
  } else {
    std::copy(counts.begin(), counts.end(), before.begin());
  }
  call();
  return validateStorageOnly(owner.name, hookLabel(policy, hook), before,
                             counts);
}

} // namespace

Status callPrepareForAdmission(CapacityOwnerClient &client,
                               const OwnerPolicy *policy,
                               const OwnerView &owner,
                               std::span<uint32_t> counts) {
  return storageOnly(policy, PolicyHook::PrepareForAdmission, owner, counts,
                     [&] { client.prepareForAdmission(owner); });
}

Status callAvailability(CapacityOwnerClient &client, const OwnerPolicy *policy,
                        const OwnerView &owner, std::span<uint32_t> counts,
                        uint64_t &availability) {
  if (Status status = storageOnly(
          policy, PolicyHook::Availability, owner, counts,
          [&] { availability = client.materializableAvailability(owner); });
      !status.ok())
    return status;
  bool compiled = policy && policy->has(PolicyHook::Availability);
  return validateAvailability(
      owner.name, owner.live, owner.capacity, availability,
      compiled ? policy->describe(PolicyHook::Availability) : std::string());
}

Status callAdmissionStage(CapacityOwnerClient &client,
                          const OwnerPolicy *policy, const OwnerView &owner,
                          std::span<uint32_t> counts, uint32_t &stage) {
  if (Status status =
          storageOnly(policy, PolicyHook::AdmissionStage, owner, counts,
                      [&] { stage = client.admissionStage(owner); });
      !status.ok())
    return status;
  return validateAdmissionStage(owner.name, owner.stageCounts, stage);
}

Status callPrepareForProducer(CapacityOwnerClient &client,
                              const OwnerPolicy *policy, const OwnerView &owner,
                              std::span<uint32_t> counts,
                              uint64_t admittedSlots) {
  return storageOnly(policy, PolicyHook::PrepareForProducer, owner, counts,
                     [&] { client.prepareForProducer(owner, admittedSlots); });
}

Status hookFault(const OwnerPolicy &policy, PolicyHook hook,
                 const OwnerView &before, std::span<const uint32_t> after,
                 int64_t value) {
  if (Status status = validateStorageOnly(before.name, policy.describe(hook),
                                          before.stageCounts, after);
      !status.ok())
    return status;
  Status status = Status::success();
  if (hook == PolicyHook::Availability)
    status = validateAvailability(
        before.name, before.live, before.capacity, uint64_t(value),
        policy.has(hook) ? policy.describe(hook) : std::string());
  else if (hook == PolicyHook::AdmissionStage)
    status = validateAdmissionStage(before.name, before.stageCounts,
                                    uint32_t(value));
  if (!status.ok())
    return status;
  return Status::error(ErrorKind::InvalidState,
                       "owner '" + std::string(before.name) +
                           "': the device placement " +
                           "stopped at hook " + policy.describe(hook) +
                           " (value " + std::to_string(value) +
                           "), which the host's checks accept");
}

//===----------------------------------------------------------------------===//
// PolicyHooks
//===----------------------------------------------------------------------===//

PolicyHooks::PolicyHooks(std::span<const OwnerPolicy *const> policies,
                         std::span<const std::string> names)
    : policies_(policies.begin(), policies.end()), names_(names) {
  compiled_.resize(policies_.size());
  for (size_t o = 0; o < policies_.size(); ++o)
    if (policies_[o] && policies_[o]->present())
      compiled_[o] = std::make_unique<CompiledPolicyClient>(*policies_[o]);
    else
      policies_[o] = nullptr;
}

OwnerView PolicyHooks::view(const decision::Tables &t,
                            const decision::Counts &c, uint32_t owner) const {
  OwnerView view;
  view.index = owner;
  view.name = names_[owner];
  view.capacity = t.ownerCapacity[owner];
  view.stageCounts = {c.stageCounts + t.ownerStageBase[owner],
                      t.ownerStageCount[owner]};
  view.live = c.ownerLive[owner];
  view.published = c.ownerPublished[owner];
  view.released = c.ownerReleased[owner];
  return view;
}

std::span<uint32_t> PolicyHooks::counts(const decision::Tables &t,
                                        decision::Counts &c,
                                        uint32_t owner) const {
  return {c.stageCounts + t.ownerStageBase[owner], t.ownerStageCount[owner]};
}

CapacityOwnerClient &PolicyHooks::client(uint32_t owner) {
  return compiled_[owner] ? *compiled_[owner] : default_;
}

bool PolicyHooks::keep(Status status) {
  if (status.ok())
    return true;
  if (fault_.ok())
    fault_ = std::move(status);
  return false;
}

void PolicyHooks::beginRun(const decision::Tables &t, decision::Counts &c) {
  fault_ = Status::success();
  for (uint32_t o = 0; o < compiled_.size(); ++o)
    if (compiled_[o])
      compiled_[o]->beginRun(view(t, c, o));
}

bool PolicyHooks::prepareForAdmission(const decision::Tables &t,
                                      decision::Counts &c,
                                      decision::u32 owner) {
  return keep(callPrepareForAdmission(client(owner), policies_[owner],
                                      view(t, c, owner), counts(t, c, owner)));
}

bool PolicyHooks::availability(const decision::Tables &t, decision::Counts &c,
                               decision::u32 owner, decision::u64 &out) {
  uint64_t availability = 0;
  bool ok =
      keep(callAvailability(client(owner), policies_[owner], view(t, c, owner),
                            counts(t, c, owner), availability));
  out = availability;
  return ok;
}

bool PolicyHooks::admissionStage(const decision::Tables &t, decision::Counts &c,
                                 decision::u32 owner, decision::u32 &out) {
  uint32_t stage = 0;
  bool ok =
      keep(callAdmissionStage(client(owner), policies_[owner],
                              view(t, c, owner), counts(t, c, owner), stage));
  out = stage;
  return ok;
}

bool PolicyHooks::prepareForProducer(const decision::Tables &t,
                                     decision::Counts &c, decision::u32 owner,
                                     decision::u64 admittedSlots) {
  return keep(callPrepareForProducer(client(owner), policies_[owner],
                                     view(t, c, owner), counts(t, c, owner),
                                     admittedSlots));
}

} // namespace sluice::runtime
