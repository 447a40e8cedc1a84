//===- owner_policy.h - Owner storage policies of the program ---*- C++ -*-===//
//
// DESIGN.md §2.1. A `pool.owner` may name functions of the program as its
// storage policy (docs/runtime.md "Owner policies"): availability,
// prepare_for_admission, prepare_for_producer and the admission stage. The
// CPU backend exports them from its kernels; a CompiledPolicyClient is the
// CapacityOwnerClient that calls them, in the host placement (the wavefront
// scheduler) and in the CPU device's own loop (PolicyHooks). Both check
// every hook the same way, with the same messages: the stage counts are
// equal before and after (storage-only), 0 <= A <= C - L with A == C when
// L == 0, and the admission stage holds items.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_ADMISSION_OWNER_POLICY_H
#define SLUICE_RUNTIME_ADMISSION_OWNER_POLICY_H

#include "sluice/runtime/admission/admission.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::runtime {

// The hooks, in the order the scheduler calls them.
enum class PolicyHook : uint8_t {
  PrepareForAdmission = 0,
  Availability = 1,
  AdmissionStage = 2,
  PrepareForProducer = 3,
};
inline constexpr size_t kPolicyHookCount = 4;
static_assert(sizeof(PolicyHook) == 1);

// The SPIR-V entry point of owner o's policy kernel ("sluice_policy_<o>"):
// one hook call, `(call: i64[5] = {hook, C, L, slots, value}, storage:
// i64[max(N, 1)], counts: i32[max(k, 1)])`, run by invocation 0.
inline constexpr const char *kPolicyKernelPrefix = "sluice_policy_";

// The hook's key in the IR and the descriptor ("availability", ...).
const char *policyHookName(PolicyHook hook);

// The CPU backend's calling convention of a lowered hook: each memref is its
// descriptor {allocated, aligned, offset, size, stride}, storage (i64 words)
// first, then the owner's stage counts (i32), then C and L (i64).
#define SLUICE_POLICY_MEMREFS                                                  \
  int64_t *, int64_t *, int64_t, int64_t, int64_t, uint32_t *, uint32_t *,     \
      int64_t, int64_t, int64_t
using PolicyPrepareFn = void (*)(SLUICE_POLICY_MEMREFS, int64_t, int64_t);
using PolicyAvailabilityFn = int64_t (*)(SLUICE_POLICY_MEMREFS, int64_t,
                                         int64_t);
using PolicyStageFn = int32_t (*)(SLUICE_POLICY_MEMREFS, int64_t, int64_t);
using PolicyProducerFn = void (*)(SLUICE_POLICY_MEMREFS, int64_t, int64_t,
                                  int64_t);
#undef SLUICE_POLICY_MEMREFS

// An owner's compiled policy: per hook its symbol (empty: the default) and,
// where the CPU backend resolved it, its host function; and the words of
// owner-private storage. A GPU device calls the hooks in its own code
// (Device::policyClient, and its device placement).
struct OwnerPolicy {
  uint32_t storageWords = 0;
  std::array<void *, kPolicyHookCount> functions{};
  std::array<std::string, kPolicyHookCount> symbols;

  bool present() const {
    for (const std::string &symbol : symbols)
      if (!symbol.empty())
        return true;
    return false;
  }
  bool has(PolicyHook hook) const { return !symbols[size_t(hook)].empty(); }
  // "availability (@arena_available)", or the key alone for the default.
  std::string describe(PolicyHook hook) const;
};

// Calls the compiled hooks; the defaults where a hook is not named. Its
// storage is zeroed by beginRun. Hooks see the caller's own counts (the
// scheduler checks that they leave them alone).
class CompiledPolicyClient final : public CapacityOwnerClient {
public:
  explicit CompiledPolicyClient(const OwnerPolicy &policy);

  void beginRun(const OwnerView &owner) override;
  void prepareForAdmission(const OwnerView &owner) override;
  uint64_t materializableAvailability(const OwnerView &owner) override;
  uint32_t admissionStage(const OwnerView &owner) override;
  void prepareForProducer(const OwnerView &owner,
                          uint64_t admittedSlots) override;

  std::span<const int64_t> storage() const { return storage_; }

private:
  const OwnerPolicy &policy_;
  std::vector<int64_t> storage_; // one spare word: never a null pointer
};

// A client whose compiled hooks run in a GPU device's own code (the host
// placement's Device::policyClient on hip and Vulkan): each hook the policy
// names is one call() on the device, the others take the defaults.
class DevicePolicyClient : public CapacityOwnerClient {
public:
  explicit DevicePolicyClient(const OwnerPolicy &policy) : policy_(policy) {}

  void prepareForAdmission(const OwnerView &owner) override;
  uint64_t materializableAvailability(const OwnerView &owner) override;
  uint32_t admissionStage(const OwnerView &owner) override;
  void prepareForProducer(const OwnerView &owner,
                          uint64_t admittedSlots) override;

protected:
  // Runs `hook` on the device with the owner's counts, which it copies back
  // into owner.stageCounts (the scheduler's own, which it checks after),
  // and returns the hook's value (0 for the prepare hooks).
  virtual int64_t call(PolicyHook hook, const OwnerView &owner,
                       int64_t slots) = 0;
  const OwnerPolicy &policy() const { return policy_; }

private:
  const OwnerPolicy &policy_;
};

// The checked calls of one owner's hooks, shared by both placements.
// `counts` are the owner's stage counts as the caller keeps them.
Status callPrepareForAdmission(CapacityOwnerClient &client,
                               const OwnerPolicy *policy,
                               const OwnerView &owner,
                               std::span<uint32_t> counts);
Status callAvailability(CapacityOwnerClient &client, const OwnerPolicy *policy,
                        const OwnerView &owner, std::span<uint32_t> counts,
                        uint64_t &availability);
Status callAdmissionStage(CapacityOwnerClient &client,
                          const OwnerPolicy *policy, const OwnerView &owner,
                          std::span<uint32_t> counts, uint32_t &stage);
Status callPrepareForProducer(CapacityOwnerClient &client,
                              const OwnerPolicy *policy, const OwnerView &owner,
                              std::span<uint32_t> counts,
                              uint64_t admittedSlots);

// The message of a hook call that a device placement stopped at
// (decision::kPolicyFault): the checks of the calls above, in their order, on
// what the device recorded: the owner as the hook saw it (`before`: its
// counts and L before the call), its counts after, and the value the hook
// returned (availability, admission stage; 0 for the others).
Status hookFault(const OwnerPolicy &policy, PolicyHook hook,
                 const OwnerView &before, std::span<const uint32_t> after,
                 int64_t value);

// The owner policies of a run as a decision::decide policy (decision.h), for
// a device placement that runs the decision in its own loop on host memory:
// owners with a compiled policy call it, the others take the defaults. The
// first broken contract is kept in fault().
class PolicyHooks {
public:
  // `policies[o]` may be null; `names[o]` is owner o's name.
  PolicyHooks(std::span<const OwnerPolicy *const> policies,
              std::span<const std::string> names);
  // Zeroes every policy's storage (CapacityOwnerClient::beginRun).
  void beginRun(const decision::Tables &t, decision::Counts &c);

  bool prepareForAdmission(const decision::Tables &t, decision::Counts &c,
                           decision::u32 owner);
  bool availability(const decision::Tables &t, decision::Counts &c,
                    decision::u32 owner, decision::u64 &out);
  bool admissionStage(const decision::Tables &t, decision::Counts &c,
                      decision::u32 owner, decision::u32 &out);
  bool prepareForProducer(const decision::Tables &t, decision::Counts &c,
                          decision::u32 owner, decision::u64 admittedSlots);

  const Status &fault() const { return fault_; }

private:
  OwnerView view(const decision::Tables &t, const decision::Counts &c,
                 uint32_t owner) const;
  std::span<uint32_t> counts(const decision::Tables &t, decision::Counts &c,
                             uint32_t owner) const;
  CapacityOwnerClient &client(uint32_t owner);
  bool keep(Status status);

  std::vector<const OwnerPolicy *> policies_;
  std::span<const std::string> names_;
  std::vector<std::unique_ptr<CompiledPolicyClient>> compiled_;
  CapacityOwnerClient default_;
  Status fault_;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_ADMISSION_OWNER_POLICY_H
