#version 460
// The device placement's scheduler dispatch on Vulkan: one workgroup per
// iteration. It ends the previous dispatch (fault check, ring heads), takes
// the snapshot, decides (decision.h's decide() under the default owner
// policy), refills the lowest free frames, selects the lowest waiting frames
// or slots, sorts them by key (or has the sort dispatch sort them), prepares
// the stage kernels' arguments and writes the indirect grids: the chosen
// stage's, zero for every other stage. After a stop it writes zero grids, so the rest of the recorded
// batch runs nothing. The HIP kernel's schedule() is the same algorithm
// (runtime/device/hip/resident_kernel.hip).
#extension GL_GOOGLE_include_directive : require
#include "resident_common.glsl"
#include "resident_chunks.glsl"
#extension GL_KHR_shader_subgroup_ballot : require
#include "resident_sort.glsl"
#ifdef SLUICE_PROFILE
// SLUICE_VULKAN_PROFILE=1 (vulkan_device.cpp): invocation 0 reads the
// subgroup clock at the ends of the dispatch's eight parts and adds each
// part's cycles to push.profile's words 0-7 (word 15 counts the dispatches
// that ran every part).
#extension GL_ARB_shader_clock : require
uint64_t marks_[9];
#define MARK(k)                                                                \
  if (gl_LocalInvocationID.x == 0)                                             \
    marks_[k] = clockARB();
// The grid selection's ranks (gridSelectRanks, inside refill+select): the
// free set's chunk counts and prefix, the stage set's counts, then its
// prefix, into words 8-11, and word 12 counts the dispatches that ran it.
uint64_t gridMarks_[5];
bool gridMarked_ = false;
#define GRID_MARK(k)                                                           \
  if (gl_LocalInvocationID.x == 0) {                                           \
    gridMarks_[k] = clockARB();                                                \
    gridMarked_ = true;                                                        \
  }
// Inside the decision (invocation 0's): decide() itself, then the record's
// stores, into words 13 and 14 (over word 15's dispatches).
uint64_t decideMarks_[3];
#define DECIDE_MARK(k) decideMarks_[k] = clockARB();
void profileEnd() {
  if (gl_LocalInvocationID.x != 0)
    return;
  atomicAdd(U64s(push.profile).v[13], decideMarks_[1] - decideMarks_[0]);
  atomicAdd(U64s(push.profile).v[14], decideMarks_[2] - decideMarks_[1]);
  U64s sums = U64s(push.profile);
  for (uint k = 0; k < 8; ++k)
    atomicAdd(sums.v[k], marks_[k + 1] - marks_[k]);
  atomicAdd(sums.v[15], 1ul);
  if (gridMarked_) {
    for (uint k = 0; k < 4; ++k)
      atomicAdd(sums.v[8 + k], gridMarks_[k + 1] - gridMarks_[k]);
    atomicAdd(sums.v[12], 1ul);
  }
}
#else
#define MARK(k)
#define GRID_MARK(k)
#define DECIDE_MARK(k)
void profileEnd() {}
#endif

layout(local_size_x = BLOCK) in;

shared uint stageCounts_[MAX_STAGES], live_[MAX_OWNERS], ringTaken_[MAX_OWNERS];
shared uint64_t published_[MAX_OWNERS], released_[MAX_OWNERS];
shared uint64_t scalars_[4];
shared uint records_, previousStage_, detail_;
shared int fault_;
shared uint stop_, stage_, count_, refilled_;
shared uint64_t firstLane_;
// The ring positions (head, tail per owner) and each stage's sort key size.
shared uint64_t positions_[2 * MAX_OWNERS];
shared uint sortBytes_[MAX_STAGES];
shared uint stopped_;
// pool_ (resident_sort.glsl) holds the sets' words while they fit
// (cached_): the iteration's refill and selection then work in shared
// memory, and the words go back to device memory once; the sort's 16-bin
// histogram per invocation afterwards.
shared bool cached_;
U32s sets;
// The same words read only, for countChunks: what earlier dispatches wrote
// (the grid's selection counts chunks before this dispatch changes a set),
// so that its eight loads per invocation are in flight together (coherent
// loads are each ordered after the one before).
R32s earlierSets;
// Routing in the scheduler (a small previous dispatch, with the sets
// cached): the previous dispatch, its tallies, the lowest bad outcome.
shared uint routeHere_, routedStage_, routedCount_;
shared uint stageAdds_[MAX_STAGES];
shared int liveAdds_[MAX_OWNERS];
shared uint publishedAdds_[MAX_OWNERS], releasedAdds_[MAX_OWNERS];
shared uint finished_, routedBad_, orderAdds_;
// The sort dispatch's largest grid (Vulkan's guaranteed
// maxComputeWorkGroupCount); its workgroups take every such run in turn.
#define MAX_SORT_GROUPS 65535u
// A dispatch of at most this many invocations is routed by the next
// scheduler dispatch, one workgroup, in shared memory, instead of a routing
// dispatch of its own (one dispatch and one barrier fewer per iteration).
// resident_layout.h's kResidentRouteInSchedulerLimit.
#define ROUTE_IN_SCHEDULER_LIMIT 2048

uint setWord(uint w) { return cached_ ? pool_[w] : sets.v[w]; }
void putSetWord(uint w, uint value) {
  if (cached_)
    pool_[w] = value;
  else
    sets.v[w] = value;
}
void setBit(uint first, uint index) {
  uint w = first + index / 32, bit = 1u << (index % 32);
  if (cached_)
    atomicOr(pool_[w], bit);
  else
    atomicOr(sets.v[w], bit);
}

// Takes the `count` lowest members of the set at the sets' words [first,
// first + wordCount), ascending, out of the set, and returns how many there
// were. A selection writes member k to out_[k]; a refill writes lane
// firstLane + k to out_[member k] (the lane ids) and moves the members into
// the set at `moveTo`. A set of at most a word per invocation: each
// invocation an equal run of its bits (a power of two, at most a word),
// whose members it visits from the rank the scan gives it. A larger one:
// each subgroup takes a contiguous range of 32-word chunks (takeFromWords,
// 32 / size runs each).
uint takeLowest(uint first, uint wordCount, uint count, U32s out_, bool refill,
                uint64_t firstLane, uint moveTo) {
  if (wordCount <= BLOCK) {
    uint span = 1; // bits per invocation
    while (span * BLOCK < 32 * wordCount)
      span <<= 1;
    uint firstBit = gl_LocalInvocationID.x * span;
    uint w = firstBit / 32;
    uint mask = span == 32 ? ~0u : ((1u << span) - 1u) << (firstBit % 32);
    uint bits = w < wordCount ? setWord(first + w) & mask : 0;
    uint total;
    uint rank = blockScan(bitCount(bits), total);
    if (!cached_)
      sync(); // every read of the device memory words is done
    uint taken = 0;
    while (bits != 0 && rank < count) {
      uint bit = findLSB(bits);
      bits &= bits - 1;
      taken |= 1u << bit;
      uint member = w * 32 + bit;
      if (refill)
        out_.v[member] = uint(firstLane + rank);
      else
        out_.v[rank] = member;
      ++rank;
    }
    if (taken != 0) { // invocations of one word: disjoint bits
      if (cached_) {
        atomicAnd(pool_[first + w], ~taken);
        if (refill)
          atomicOr(pool_[moveTo + w], taken);
      } else {
        atomicAnd(sets.v[first + w], ~taken);
        if (refill)
          atomicOr(sets.v[moveTo + w], taken);
      }
    }
    sync();
    return min(total, count);
  }
  uint size = chunkLanes();
  uint lane = gl_SubgroupInvocationID;
  bool taking = lane < size;
  uint slots = 32 / size;
  uint chunks = (wordCount + 31) / 32;
  uint per = (chunks + gl_NumSubgroups - 1) / gl_NumSubgroups;
  uint chunkBegin = min(gl_SubgroupID * per, chunks);
  uint chunkEnd = min(chunkBegin + per, chunks);
  uint mine = 0;
  for (uint c = chunkBegin; c < chunkEnd; ++c)
    for (uint s = 0; s < slots; ++s) {
      uint w = c * 32 + s * size + lane;
      if (taking && w < wordCount)
        mine += bitCount(setWord(first + w));
    }
  // The subgroup's first rank: lane 0's exclusive prefix over the workgroup.
  uint total;
  uint base = subgroupShuffle(blockScan(mine, total), 0);
  for (uint c = chunkBegin; c < chunkEnd && base < count; ++c)
    for (uint s = 0; s < slots; ++s) {
      uint w = c * 32 + s * size + lane;
      uint bits = taking && w < wordCount ? setWord(first + w) : 0;
      uint before = bits;
      base += takeFromWords(bits, c * 32 + s * size, base, count, out_, refill,
                            firstLane);
      if (taking && w < wordCount && bits != before) {
        putSetWord(first + w, bits);
        if (refill)
          putSetWord(moveTo + w, setWord(moveTo + w) | (before & ~bits));
      }
    }
  sync();
  return min(total, count);
}

// The grid's selection (sets too large for pool_, a dispatch not sorted by
// this workgroup): this workgroup counts the members of every 32-word chunk
// and writes each chunk's first rank to chunkRanks (kGridSelectHeader's
// words first); resident_select.comp then takes the chunks, the refill's and
// the selection's, in as many workgroups as they need.

// counts_[c] = the members of chunk c of the set at the sets' words [first,
// first + wordCount) (pool_ holds them: the sets are not cached here).
// A set on a 16-byte boundary (resident_state.cpp pads every set to four
// words) is read as quads of words, eight 16-byte loads in flight per
// invocation, each invocation adding its quads' members to their chunk's
// count in pool_: a set of 262,144 members in one round trip (eight chunks
// a subgroup, a word per lane, took four: 9,065 of the path tracer's 18,143
// cycles of refill and select on an H100). Otherwise eight chunks' loads in
// flight per subgroup.
void countChunks(uint first, uint wordCount) {
  uint size = chunkLanes();
  uint lane = gl_SubgroupInvocationID;
  uint slots = 32 / size;
  uint chunks = (wordCount + 31) / 32;
  uint64_t address = uint64_t(earlierSets) + uint64_t(first) * 4;
  if ((address & 15ul) == 0) {
    uint t = gl_LocalInvocationID.x;
    for (uint c = t; c < chunks; c += BLOCK)
      pool_[c] = 0;
    sync();
    R128s quads = R128s(address);
    uint quadCount = (wordCount + 3) / 4; // the padding is never set
    for (uint q0 = t; q0 < quadCount; q0 += 8 * BLOCK) {
      uvec4 value_[8];
      [[unroll]] for (uint k = 0; k < 8; ++k) {
        uint q = q0 + k * BLOCK;
        value_[k] = q < quadCount ? quads.v[q] : uvec4(0);
      }
      [[unroll]] for (uint k = 0; k < 8; ++k) {
        uvec4 n4 = bitCount(value_[k]);
        uint n = n4.x + n4.y + n4.z + n4.w;
        if (n != 0)
          atomicAdd(pool_[(q0 + k * BLOCK) / 8], n);
      }
    }
    sync();
    return;
  }
  for (uint c0 = gl_SubgroupID; c0 < chunks; c0 += 8 * gl_NumSubgroups) {
    uint n_[8];
    [[unroll]] for (uint k = 0; k < 8; ++k)
      n_[k] = 0;
    for (uint s = 0; s < slots; ++s) {
      uint value_[8];
      [[unroll]] for (uint k = 0; k < 8; ++k) {
        uint c = c0 + k * gl_NumSubgroups, w = c * 32 + s * size + lane;
        value_[k] = c < chunks && lane < size && w < wordCount
                        ? earlierSets.v[first + w]
                        : 0;
      }
      [[unroll]] for (uint k = 0; k < 8; ++k)
        n_[k] += bitCount(value_[k]);
    }
    [[unroll]] for (uint k = 0; k < 8; ++k) {
      uint n = subgroupAdd(n_[k]);
      uint c = c0 + k * gl_NumSubgroups;
      if (subgroupElect() && c < chunks)
        pool_[c] = n;
    }
  }
  sync();
}

// ranks[c] = the members of the chunks before c (ranks[chunks]: all of
// them), which it returns.
uint chunkPrefix(uint chunks, U32s ranks) {
  uint t = gl_LocalInvocationID.x;
  uint per = (chunks + BLOCK - 1) / BLOCK;
  uint begin = min(t * per, chunks), end = min(begin + per, chunks);
  uint mine = 0;
  for (uint c = begin; c < end; ++c)
    mine += pool_[c];
  uint total;
  uint running = blockScan(mine, total);
  for (uint c = begin; c < end; ++c) {
    ranks.v[c] = running;
    running += pool_[c];
  }
  if (t == 0)
    ranks.v[chunks] = total;
  sync();
  return total;
}

// The header and chunk ranks of the grid's selection; returns the members
// the dispatch can take (at most count). The entry stage's chunks count the
// refill's frames too (those of free rank below `refilled`).
uint gridSelectRanks(Layout L, uint stage, uint count, uint refilled,
                     uint64_t firstLane) {
  U32s head = U32s(L.chunkRanks);
  uint freeChunks = (setWords_[L.stageCount] + 31) / 32;
  uint stageChunks = (setWords_[stage] + 31) / 32;
  U32s freeRanks = U32s(L.chunkRanks + GRID_SELECT_HEADER * 4);
  U32s stageRanks = U32s(L.chunkRanks + (GRID_SELECT_HEADER + freeChunks + 1) * 4);
  if (gl_LocalInvocationID.x == 0) {
    head.v[0] = refilled;
    head.v[1] = uint(firstLane);
    head.v[2] = uint(firstLane >> 32);
    head.v[3] = freeChunks;
    head.v[4] = stageChunks;
  }
  GRID_MARK(0)
  if (refilled != 0)
    countChunks(setOffset_[L.stageCount], setWords_[L.stageCount]);
  GRID_MARK(1)
  if (refilled != 0)
    chunkPrefix(freeChunks, freeRanks);
  GRID_MARK(2)
  countChunks(setOffset_[stage], setWords_[stage]);
  GRID_MARK(3)
  if (refilled != 0 && stage == L.entryStage) {
    for (uint c = gl_LocalInvocationID.x; c < stageChunks; c += BLOCK) {
      uint first = freeRanks.v[c], next = freeRanks.v[c + 1];
      if (first < refilled)
        pool_[c] += min(next, refilled) - first;
    }
    sync();
  }
  uint total = chunkPrefix(stageChunks, stageRanks);
  GRID_MARK(4)
  return min(total, count);
}

//===----------------------------------------------------------------------===//
// decision.h, under the default owner policy
//===----------------------------------------------------------------------===//

#define ADMIT_FULL 0u
#define ADMIT_PARTIAL 1u
#define ADMIT_BLOCKED 2u

void admit(uint waiting, uint bound, uint64_t availability, bool partial,
           out uint admitted, out uint outcome) {
  if (uint64_t(waiting) * uint64_t(bound) <= availability) {
    admitted = waiting;
    outcome = ADMIT_FULL;
    return;
  }
  uint64_t prefix = partial ? availability / bound : 0;
  admitted = uint(prefix);
  outcome = prefix == 0 ? ADMIT_BLOCKED : ADMIT_PARTIAL;
}

bool countsConsistent(Layout L) {
  for (uint o = 0; o < L.ownerCount; ++o) {
    uint64_t sum = 0;
    for (uint i = 0; i < ownerStages_[o]; ++i)
      sum += stageCounts_[stageBase_[o] + i];
    if (sum != live_[o] || live_[o] > capacity_[o])
      return false;
    if (published_[o] - released_[o] != live_[o])
      return false;
  }
  uint64_t frames = scalars_[SCALAR_FREE];
  for (uint s = 0; s < L.mainStageCount; ++s)
    frames += stageCounts_[s];
  return frames == L.framePool && scalars_[SCALAR_STARTED] <= L.lanes &&
         scalars_[SCALAR_FINISHED] <= scalars_[SCALAR_STARTED];
}

bool runComplete(Layout L) {
  if (scalars_[SCALAR_STARTED] != L.lanes || scalars_[SCALAR_FREE] != L.framePool)
    return false;
  for (uint o = 0; o < L.ownerCount; ++o)
    if (live_[o] != 0)
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Owner policies: the hooks run in the policy kernels, between phases
//===----------------------------------------------------------------------===//

// A storage policy's hooks are the program's own SPIR-V (sluice_policy_<o>,
// one kernel per owner with a policy), which this shader cannot call. A
// decision that needs a hook call it has no result for pauses instead: it
// writes the call (EXCHANGE_CALL's words: hook, C, L, slots, value) and the
// owner's counts, and the recording's next policy dispatch (that owner's
// kernel, one workgroup) makes it. The next phase of the scheduler takes the
// result and decides again from the same counts, replaying the results it
// has: the calls come in decide()'s order, so call k is the same call every
// time. The host records enough phases for the most calls an iteration can
// make (vulkan_device.cpp's policyCallBound).
#define EXCHANGE_CALL 0    // 5 words: hook, C, L, slots, value
#define EXCHANGE_PENDING 5 // 1: a call waits for its policy kernel
#define EXCHANGE_KNOWN 6   // the calls of this iteration with a result
#define EXCHANGE_OWNER 7   // the waiting call's owner
#define EXCHANGE_HOOKS 8   // per owner: its compiled hooks (bit h: hook h)
#define EXCHANGE_RESULTS (EXCHANGE_HOOKS + MAX_OWNERS) // per call: value, changed
#define HOOK_OK 0u
#define HOOK_FAULT 1u
#define HOOK_PENDING 2u
#define VERDICT_POLICY_FAULT 5u // kPolicyFault
#define VERDICT_PENDING 0xFFu   // not decision.h's: decide() waits for a call
#define STOP_PAUSED 0xFEu       // not resident_layout.h's: this phase waits
// Invocation 0's (it alone decides): this replay's calls so far, the calls
// with a result.
uint hookCalls, hooksKnown;
shared uint policyOwner_; // the waiting call's owner (NONE: none waits)

// The fault record (ResidentLayout::policyFault): owner, hook, value and
// the owner's counts after the call: those the hook left in the counts
// buffer (`wroteCounts`), else the scheduler's, which it did not change.
void policyFail(Layout L, uint owner, uint hook, int64_t value,
                bool wroteCounts) {
  U64s fault = U64s(L.policyFault);
  U32s left = U32s(push.policyCounts);
  fault.v[0] = owner;
  fault.v[1] = hook;
  fault.v[2] = uint64_t(value);
  for (uint i = 0; i < ownerStages_[owner]; ++i)
    fault.v[3 + i] =
        wroteCounts ? left.v[i] : stageCounts_[stageBase_[owner] + i];
}

// Hook `hook` of `owner`: HOOK_OK with `ran` false when the owner has no
// such hook (the default applies), or with its value; HOOK_FAULT when it
// wrote the owner's counts (its fault record is written); HOOK_PENDING when
// the call is written for the policy kernel.
uint hookCall(uint owner, uint hook, uint64_t slots, out int64_t value,
              out bool ran) {
  value = 0;
  ran = false;
  if (push.policyExchange == 0)
    return HOOK_OK;
  U64s exchange = U64s(push.policyExchange);
  if (((uint(exchange.v[EXCHANGE_HOOKS + owner]) >> hook) & 1u) == 0)
    return HOOK_OK;
  ran = true;
  uint k = hookCalls++;
  if (k < hooksKnown) {
    value = int64_t(exchange.v[EXCHANGE_RESULTS + 2 * k]);
    return exchange.v[EXCHANGE_RESULTS + 2 * k + 1] != 0 ? HOOK_FAULT
                                                          : HOOK_OK;
  }
  exchange.v[EXCHANGE_CALL] = hook;
  exchange.v[EXCHANGE_CALL + 1] = capacity_[owner];
  exchange.v[EXCHANGE_CALL + 2] = live_[owner];
  exchange.v[EXCHANGE_CALL + 3] = slots;
  exchange.v[EXCHANGE_CALL + 4] = 0;
  exchange.v[EXCHANGE_OWNER] = owner;
  exchange.v[EXCHANGE_PENDING] = 1;
  U32s counts = U32s(push.policyCounts);
  for (uint i = 0; i < ownerStages_[owner]; ++i)
    counts.v[i] = stageCounts_[stageBase_[owner] + i];
  policyOwner_ = owner;
  return HOOK_PENDING;
}

// The waiting call's result (a resuming phase, before it decides again):
// its value, and whether the hook wrote the owner's counts (then the fault
// record holds the counts it left).
void takeHookResult(Layout L) {
  U64s exchange = U64s(push.policyExchange);
  U32s counts = U32s(push.policyCounts);
  uint k = uint(exchange.v[EXCHANGE_KNOWN]);
  uint owner = uint(exchange.v[EXCHANGE_OWNER]);
  int64_t value = int64_t(exchange.v[EXCHANGE_CALL + 4]);
  bool changed = false;
  for (uint i = 0; i < ownerStages_[owner]; ++i)
    changed = changed || counts.v[i] != stageCounts_[stageBase_[owner] + i];
  exchange.v[EXCHANGE_RESULTS + 2 * k] = uint64_t(value);
  exchange.v[EXCHANGE_RESULTS + 2 * k + 1] = changed ? 1 : 0;
  if (changed)
    policyFail(L, owner, uint(exchange.v[EXCHANGE_CALL]), value, true);
  exchange.v[EXCHANGE_KNOWN] = k + 1;
  exchange.v[EXCHANGE_PENDING] = 0;
}

// decide() of decision.h: the verdict, and on kContinue (0) the record in
// r[] (decision::Record's words) with the refill applied to the counts.
// The owners' hooks are DevicePolicy's of the HIP kernel: each checked as
// the host checks it; VERDICT_PENDING when one waits for its call.
uint decide(Layout L, uint64_t iteration, inout uint r[RECORD_WORDS]) {
  if (!countsConsistent(L))
    return 2; // kCountFault
  if (runComplete(L))
    return 1; // kFinished
  if (L.maxIterations != 0 && iteration >= L.maxIterations)
    return 3; // kIterationLimit
  // Record: iteration (0, 1), availability (2, 3), chosen 4, dispatched
  // stage 5, waiting 6, dispatched 7, refilled 8, blocking owner 9,
  // action 10, reserved 11.
  for (uint i = 0; i < RECORD_WORDS; ++i)
    r[i] = 0;
  r[0] = uint(iteration);
  r[1] = uint(iteration >> 32);
  r[4] = NONE;
  r[5] = NONE;
  r[9] = NONE;
  uint64_t left = L.lanes - scalars_[SCALAR_STARTED];
  uint refill = left < scalars_[SCALAR_FREE] ? uint(left) : uint(scalars_[SCALAR_FREE]);
  stageCounts_[L.entryStage] += refill;
  scalars_[SCALAR_FREE] -= refill;
  scalars_[SCALAR_STARTED] += refill;
  r[8] = refill;

  uint chosen = NONE, best = 0;
  for (uint s = 0; s < L.stageCount; ++s)
    if (stageCounts_[s] > best) {
      best = stageCounts_[s];
      chosen = s;
    }
  if (chosen == NONE)
    return 4; // kNoProgress
  r[4] = chosen;
  r[5] = chosen;
  r[6] = stageCounts_[chosen];
  r[7] = r[6];
  if (chosen >= L.mainStageCount ||
      producerBegin_[chosen] == producerBegin_[chosen + 1])
    return 0;

  uint combinedAdmitted = r[6], combinedOutcome = ADMIT_FULL;
  uint64_t limiting = 0, blockingAvailability = 0;
  bool first = true;
  for (uint e = producerBegin_[chosen]; e < producerBegin_[chosen + 1]; ++e) {
    uint owner = edgeOwner_[e];
    int64_t value;
    bool ran;
    uint hook = hookCall(owner, 0, 0, value, ran); // prepare_for_admission
    if (hook == HOOK_OK)
      hook = hookCall(owner, 1, 0, value, ran); // availability
    if (hook != HOOK_OK)
      return hook == HOOK_PENDING ? VERDICT_PENDING : VERDICT_POLICY_FAULT;
    uint64_t room = uint64_t(capacity_[owner]) - live_[owner];
    uint64_t availability = ran ? uint64_t(value) : room;
    if (value < 0 || availability > room ||
        (live_[owner] == 0 && availability != capacity_[owner])) {
      policyFail(L, owner, 1, value, false);
      return VERDICT_POLICY_FAULT;
    }
    uint a, outcome;
    admit(r[6], edgeBound_[e], availability, L.partialAdmission != 0, a,
          outcome);
    if (outcome == ADMIT_BLOCKED && r[9] == NONE) {
      r[9] = owner;
      blockingAvailability = availability;
    }
    if (first || a < combinedAdmitted)
      limiting = availability;
    // combine()
    if (combinedOutcome != ADMIT_BLOCKED) {
      if (outcome == ADMIT_BLOCKED || a < combinedAdmitted ||
          (a == combinedAdmitted && combinedOutcome != ADMIT_PARTIAL)) {
        combinedAdmitted = a;
        combinedOutcome = outcome;
      }
    }
    first = false;
  }
  if (r[9] != NONE) {
    uint owner = r[9], base = stageBase_[owner];
    int64_t value;
    bool ran;
    uint hook = hookCall(owner, 2, 0, value, ran); // admission_stage
    if (hook != HOOK_OK)
      return hook == HOOK_PENDING ? VERDICT_PENDING : VERDICT_POLICY_FAULT;
    uint drain = NONE;
    if (ran)
      drain = uint(value);
    else
      for (uint i = 0; i < ownerStages_[owner]; ++i)
        if (stageCounts_[base + i] != 0) {
          drain = i;
          break;
        }
    if (drain >= ownerStages_[owner] || stageCounts_[base + drain] == 0) {
      policyFail(L, owner, 2, ran ? value : int64_t(drain), false);
      return VERDICT_POLICY_FAULT;
    }
    r[2] = uint(blockingAvailability);
    r[3] = uint(blockingAvailability >> 32);
    r[10] = 3; // kActionDrain
    r[5] = base + drain;
    r[7] = stageCounts_[base + drain];
    return 0;
  }
  r[10] = combinedOutcome == ADMIT_PARTIAL ? 2 : 1; // admit-partially / admit
  r[7] = combinedAdmitted;
  r[2] = uint(limiting);
  r[3] = uint(limiting >> 32);
  for (uint e = producerBegin_[chosen]; e < producerBegin_[chosen + 1]; ++e) {
    int64_t value;
    bool ran;
    uint hook = hookCall(edgeOwner_[e], 3,
                         uint64_t(combinedAdmitted) * uint64_t(edgeBound_[e]),
                         value, ran); // prepare_for_producer
    if (hook != HOOK_OK)
      return hook == HOOK_PENDING ? VERDICT_PENDING : VERDICT_POLICY_FAULT;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Routing in the scheduler
//===----------------------------------------------------------------------===//

// Routing the previous dispatch here: on the shared copies of the sets
// (cached), with released slots appended to the owner's free ring in device
// memory after the tail that the round of loads read.
void routeBad(Layout L, uint i) { atomicMin(routedBad_, i); }

void routeSetBit(Layout L, uint first, uint index) { setBit(first, index); }

void routeRelease(Layout L, uint owner, uint index) {
  uint k = atomicAdd(releasedAdds_[owner], 1u);
  uint64_t tail = positions_[2 * owner + 1] + k;
  U32s(L.freeRing).v[ringOffset_[owner] + uint(tail % capacity_[owner])] =
      index;
}

#include "resident_route_one.glsl"

// Routes the previous dispatch into the shared counts and writes back what
// nothing later in this dispatch writes: the owners' totals, the ring tails,
// the record's deltas, a bad outcome. The stage counts, the scalars and the
// sets go back once, with the decision's changes (after a stop nothing
// reads them).
void routePrevious(Layout L) {
  uint t = gl_LocalInvocationID.x;
  uint stage = routedStage_, count = routedCount_;
  for (uint s = t; s < L.stageCount; s += BLOCK)
    stageAdds_[s] = 0;
  for (uint o = t; o < L.ownerCount; o += BLOCK) {
    liveAdds_[o] = 0;
    publishedAdds_[o] = 0;
    releasedAdds_[o] = 0;
  }
  if (t == 0) {
    finished_ = 0;
    routedBad_ = NONE;
    orderAdds_ = 0;
  }
  barrier();
  // At most ROUTE_IN_SCHEDULER_LIMIT invocations (main() defers no
  // more): every outcome and frame this invocation routes, loaded at once,
  // then routed in order.
  const uint rounds = ROUTE_IN_SCHEDULER_LIMIT / BLOCK;
  uint next_[rounds], index_[rounds];
  [[unroll]] for (uint k = 0; k < rounds; ++k) {
    uint i = t + k * BLOCK;
    next_[k] = i < count ? R32s(L.nextStage).v[i] : 0;
    index_[k] = i < count ? R32s(L.invocations).v[i] : 0;
  }
  [[unroll]] for (uint k = 0; k < rounds; ++k)
    if (t + k * BLOCK < count)
      routeLoaded(L, stage, t + k * BLOCK, next_[k], index_[k]);
  for (uint i = t + rounds * BLOCK; i < count; i += BLOCK)
    route(L, stage, i);
  sync();
  for (uint s = t; s < L.stageCount; s += BLOCK)
    stageCounts_[s] += stageAdds_[s];
  for (uint o = t; o < L.ownerCount; o += BLOCK) {
    live_[o] = uint(int(live_[o]) + liveAdds_[o]);
    published_[o] += publishedAdds_[o];
    released_[o] += releasedAdds_[o];
    positions_[2 * o + 1] += releasedAdds_[o];
    U32s(L.ownerLive).v[o] = live_[o];
    U64s(L.ownerPublished).v[o] = published_[o];
    U64s(L.ownerReleased).v[o] = released_[o];
    U64s(L.ringPositions).v[2 * o + 1] = positions_[2 * o + 1];
  }
  if (t == 0) {
    scalars_[SCALAR_FREE] += finished_;
    scalars_[SCALAR_FINISHED] += finished_;
    // The previous record's item deltas (its routing's).
    uint published = 0, released = 0;
    for (uint o = 0; o < L.ownerCount; ++o) {
      published += publishedAdds_[o];
      released += releasedAdds_[o];
    }
    U64s deltas = U64s(L.deltas + uint64_t(records_ - 1) * DELTA_WORDS * 8);
    deltas.v[0] = published;
    deltas.v[1] = released;
    deltas.v[2] = orderAdds_;
    detail_ = min(detail_, routedBad_);
    if (routedBad_ != NONE)
      U32s(L.control).v[CONTROL_DETAIL] = detail_;
    U32s(L.control).v[CONTROL_ROUTE_IN_SCHEDULER] = 0;
  }
  barrier();
}

//===----------------------------------------------------------------------===//
// The iteration
//===----------------------------------------------------------------------===//

// Slots 0 .. stageCount-1: the stage kernels' grids; stageCount: the
// routing shader's; stageCount+1: the stage switch's (the chosen stage's);
// stageCount+2: the grid selection's (resident_select.comp); stageCount+3:
// the sort dispatch's (resident_sort.comp); with owner policies,
// stageCount+4+o: owner o's policy kernel's (one workgroup for
// `policyOwner`, whose call waits).
void writeGrids(Layout L, uint stage, uint count, bool deferRouting,
                uint selectGroups, uint sortGroups, uint policyOwner) {
  U32s grids = U32s(push.indirect);
  uint t = gl_LocalInvocationID.x;
  uint slots = L.stageCount + 4 + (push.policyExchange != 0 ? L.ownerCount : 0);
  for (uint s = t; s < slots; s += BLOCK) {
    uint groups = 0;
    if (s >= L.stageCount + 4)
      groups = s - (L.stageCount + 4) == policyOwner ? 1 : 0;
    else if (s == L.stageCount + 3)
      groups = sortGroups;
    else if (s == stage || (s == L.stageCount + 1 && stage != NONE))
      groups = (count + push.stageGroupSize - 1) / push.stageGroupSize;
    else if (s == L.stageCount && stage != NONE && !deferRouting)
      groups = (count + BLOCK - 1) / BLOCK; // the routing shader
    else if (s == L.stageCount + 2)
      groups = selectGroups;
    grids.v[3 * s] = groups;
    grids.v[3 * s + 1] = 1;
    grids.v[3 * s + 2] = 1;
  }
  // A stage switch dispatched over a fixed grid runs nothing: the count it
  // reads is 0 (a running iteration wrote its count before this).
  if (stage == NONE && t == 0)
    U32s(push.countWord).v[0] = 0;
}

// The fused loop's iteration is the scheduler dispatch's main(); it sets
// the stage and the count that the loop then runs (a count of 0: none).
#ifdef SLUICE_FUSED
#define SCHEDULE iterate
shared uint runStage_, runCount_;
#else
#define SCHEDULE main
#endif

void SCHEDULE() {
  // A resuming phase with no call waiting (the iteration decided, or
  // stopped): nothing to do, and the grids stay as they are.
  if (push.phase != 0 &&
      (push.policyExchange == 0 ||
       U64s(push.policyExchange).v[EXCHANGE_PENDING] == 0))
    return;
  Layout L = Layout(push.layoutAddress);
  U32s control = U32s(L.control);
  uint t = gl_LocalInvocationID.x;
  MARK(0)
  sets = U32s(L.sets);
  earlierSets = R32s(L.sets);
  // One round of loads: the tables, the counts, the control words, the
  // ring positions, the sort keys' sizes and (when they fit) the sets. (The
  // fused loop loads the tables, constant for the run, once.)
#ifndef SLUICE_FUSED
  loadTables(L);
#endif
  U32s stageCounts = U32s(L.stageCounts);
  U64s scalars = U64s(L.scalars);
  // At most one stage and one owner per invocation, every load before any
  // store (as loadTables).
  bool stageHere = t < L.stageCount, ownerHere = t < L.ownerCount;
  uint stageCount = stageHere ? R32s(L.stageCounts).v[t] : 0;
  uint sortBytes = stageHere ? R32s(L.sortKeys).v[4 * t] : 0;
  uint live = 0, ringTaken = 0;
  uint64_t published = 0, released = 0, head = 0, tail = 0;
  if (ownerHere) {
    live = R32s(L.ownerLive).v[t];
    published = R64s(L.ownerPublished).v[t];
    released = R64s(L.ownerReleased).v[t];
    ringTaken = R32s(L.counters).v[L.allocBase + t];
    head = R64s(L.ringPositions).v[2 * t];
    tail = R64s(L.ringPositions).v[2 * t + 1];
  }
  uint64_t scalar = t < 4 ? R64s(L.scalars).v[t] : 0;
  uint words_[6];
  int fault = 0;
  if (t == 4) {
    R32s control_ = R32s(L.control);
    words_[0] = control_.v[CONTROL_RECORDS];
    words_[1] = control_.v[CONTROL_PREVIOUS_STAGE];
    words_[2] = control_.v[CONTROL_DETAIL];
    words_[3] = control_.v[CONTROL_STOP];
    words_[4] = control_.v[CONTROL_ROUTE_IN_SCHEDULER];
    words_[5] = control_.v[CONTROL_PREVIOUS_COUNT];
    fault = int(R32s(L.fault).v[0]);
  }
  bool cached = push.setWordCount <= POOL_WORDS;
  uint cache_[POOL_WORDS / BLOCK]; // pool_'s words per invocation
  [[unroll]] for (uint k = 0; k < POOL_WORDS / BLOCK; ++k) {
    uint w = t + k * BLOCK;
    cache_[k] = cached && w < push.setWordCount ? R32s(L.sets).v[w] : 0;
  }
  if (stageHere) {
    stageCounts_[t] = stageCount;
    sortBytes_[t] = sortBytes;
  }
  if (ownerHere) {
    live_[t] = live;
    published_[t] = published;
    released_[t] = released;
    ringTaken_[t] = ringTaken;
    positions_[2 * t] = head;
    positions_[2 * t + 1] = tail;
  }
  if (t < 4)
    scalars_[t] = scalar;
  if (t == 4) {
    records_ = words_[0];
    previousStage_ = words_[1];
    detail_ = words_[2];
    stopped_ = words_[3];
    routeHere_ = words_[4];
    routedStage_ = words_[1];
    routedCount_ = words_[5];
    fault_ = fault;
    cached_ = cached;
  }
  [[unroll]] for (uint k = 0; k < POOL_WORDS / BLOCK; ++k) {
    uint w = t + k * BLOCK;
    if (cached && w < push.setWordCount)
      pool_[w] = cache_[k];
  }
  barrier();
  MARK(1)
  if (stopped_ != 0) {
    writeGrids(L, NONE, 0, false, 0, 0, NONE);
    return;
  }
  if (routeHere_ != 0)
    routePrevious(L);
  MARK(2)
  uint records = records_;
  // The snapshot (packCounts's order) of the counts this iteration decides
  // from.
  {
    U64s snapshot = U64s(L.snapshots + uint64_t(records) * L.snapshotWords * 8);
    uint stages = L.stageCount, owners = L.ownerCount;
    for (uint w = t; w < L.snapshotWords; w += BLOCK) {
      uint64_t value;
      if (w < stages)
        value = stageCounts_[w];
      else if (w < stages + owners)
        value = live_[w - stages];
      else if (w < stages + 2 * owners)
        value = published_[w - stages - owners];
      else if (w < stages + 3 * owners)
        value = released_[w - stages - 2 * owners];
      else
        value = scalars_[w - stages - 3 * owners]; // free, started, finished
      snapshot.v[w] = value;
    }
  }
  barrier(); // the snapshot reads the counts that decide() changes
  MARK(3)
  if (t == 0) {
    uint stop = STOP_RUNNING;
    uint previous = previousStage_;
    if (previous != NONE) {
      control.v[CONTROL_PREVIOUS_STAGE] = NONE;
      if (fault_ != 0)
        stop = STOP_KERNEL_FAULT;
      else if (detail_ != NONE)
        stop = STOP_BAD_OUTCOME;
      else if (previous < L.mainStageCount) {
        U64s positions = U64s(L.ringPositions);
        for (uint e = producerBegin_[previous]; e < producerBegin_[previous + 1];
             ++e) {
          uint owner = edgeOwner_[e];
          positions_[2 * owner] += ringTaken_[owner];
          positions.v[2 * owner] = positions_[2 * owner];
        }
      }
    }
    if (stop == STOP_RUNNING && records == L.recordCapacity)
      stop = STOP_BATCH_FULL;
    if (stop == STOP_RUNNING) {
      uint64_t firstLane = scalars_[SCALAR_STARTED];
      uint r[RECORD_WORDS];
      policyOwner_ = NONE;
      if (push.policyExchange != 0) {
        U64s exchange = U64s(push.policyExchange);
        if (push.phase != 0)
          takeHookResult(L);
        else
          exchange.v[EXCHANGE_KNOWN] = 0;
        hooksKnown = uint(exchange.v[EXCHANGE_KNOWN]);
        hookCalls = 0;
      }
      DECIDE_MARK(0)
      uint verdict = decide(L, scalars_[SCALAR_ITERATION], r);
      DECIDE_MARK(1)
      if (verdict == VERDICT_PENDING) {
        // The counts as this iteration found them (decide() refilled
        // first): the next phase decides again from them.
        stageCounts_[L.entryStage] -= r[8];
        scalars_[SCALAR_FREE] += r[8];
        scalars_[SCALAR_STARTED] -= r[8];
        stop = STOP_PAUSED;
      } else if (verdict != 0) {
        control.v[CONTROL_VERDICT] = verdict;
        stop = STOP_VERDICT;
      } else {
        stageCounts_[r[5]] -= r[7];
        scalars_[SCALAR_ITERATION] += 1;
        U32s record = U32s(L.records + uint64_t(records) * RECORD_WORDS * 4);
        for (uint i = 0; i < RECORD_WORDS; ++i)
          record.v[i] = r[i];
        U64s times = U64s(L.times + uint64_t(records) * TIME_WORDS * 8);
        for (uint i = 0; i < TIME_WORDS; ++i)
          times.v[i] = 0; // the host fills them from timestamp queries
        U64s deltas = U64s(L.deltas + uint64_t(records) * DELTA_WORDS * 8);
        deltas.v[0] = 0;
        deltas.v[1] = 0;
        deltas.v[2] = 0;
        control.v[CONTROL_RECORDS] = records + 1;
        stage_ = r[5];
        count_ = r[7];
        refilled_ = r[8];
        firstLane_ = firstLane;
      }
      DECIDE_MARK(2)
    }
    stop_ = stop;
    if (stop != STOP_PAUSED)
      control.v[CONTROL_STOP_REASON] = stop;
    if (stop != STOP_RUNNING && stop != STOP_BATCH_FULL && stop != STOP_PAUSED)
      control.v[CONTROL_STOP] = 1;
  }
  sync();
  MARK(4)
  if (stop_ == STOP_PAUSED) {
    // The state this phase changed (the routing's counts and sets), for
    // the next phase, and the waiting owner's policy grid.
    for (uint s = t; s < L.stageCount; s += BLOCK)
      stageCounts.v[s] = stageCounts_[s];
    if (t < 4)
      scalars.v[t] = scalars_[t];
    if (cached)
      for (uint w = t; w < push.setWordCount; w += BLOCK)
        sets.v[w] = pool_[w];
    writeGrids(L, NONE, 0, false, 0, 0, policyOwner_);
    return;
  }
  if (stop_ != STOP_RUNNING) {
    writeGrids(L, NONE, 0, false, 0, 0, NONE);
    return;
  }
  uint stage = stage_, count = count_, refilled = refilled_;
  uint64_t firstLane = firstLane_;
  for (uint s = t; s < L.stageCount; s += BLOCK)
    stageCounts.v[s] = stageCounts_[s];
  if (t < 4)
    scalars.v[t] = scalars_[t];
  bool main_ = stage < L.mainStageCount;
  bool sorts =
      main_ && L.sortEnabled != 0 && sortBytes_[stage] != 0 && count >= 2;
  // A dispatch of more than one run of FrameSorting::partition frames is
  // sorted by the sort dispatch (resident_sort.comp, a workgroup per run,
  // recorded whenever the frame pool exceeds a partition); so is one run
  // when the sets exceed pool_, so that the select shader's workgroups
  // select it instead of this one workgroup walking the whole sets (the
  // path tracer's refill and select took 46,700 cycles a dispatch sorted,
  // 17,500 unsorted, on an H100). Another run is sorted here.
  bool sortDispatch = sorts && L.sortPartition != 0 &&
                      L.framePool > L.sortPartition &&
                      (count > L.sortPartition || !cached);
  // Sets too large for pool_: resident_select.comp takes the refill and the
  // selection in many workgroups, from the chunk ranks written here (a
  // dispatch sorted here is selected here too).
  uint freeChunks = (setWords_[L.stageCount] + 31) / 32;
  uint stageChunks = (setWords_[stage] + 31) / 32;
  bool grid = !cached && (!sorts || sortDispatch) &&
              freeChunks <= POOL_WORDS && stageChunks <= POOL_WORDS;
  uint taken;
  if (grid) {
    taken = gridSelectRanks(L, stage, count, refilled, firstLane);
  } else {
    // Refill: the lowest free frames take the next lanes, in lane order,
    // and join the entry stage.
    if (refilled != 0)
      takeLowest(setOffset_[L.stageCount], setWords_[L.stageCount], refilled,
                 U32s(L.laneIds), true, firstLane, setOffset_[L.entryStage]);
    // The dispatch: the lowest waiting frames or slots.
    taken = takeLowest(setOffset_[stage], setWords_[stage], count,
                       U32s(L.invocations), false, 0, 0);
    if (cached) // the sets back to device memory, for the routing
      for (uint w = t; w < push.setWordCount; w += BLOCK)
        sets.v[w] = pool_[w];
  }
  if (taken != count) {
    if (t == 0) {
      control.v[CONTROL_DETAIL] = taken;
      control.v[CONTROL_STOP_REASON] = STOP_SHORT_SELECT;
      control.v[CONTROL_STOP] = 1;
    }
    writeGrids(L, NONE, 0, false, 0, 0, NONE);
    return;
  }
  MARK(5)
  sync(); // pool_ becomes the sort's histogram
  if (sorts && !sortDispatch)
    sortByKey(L, stage, 0, count, count);

  // The kernel arguments, as prepareGpuDispatch sets them (the per
  // invocation ones by the grid's selection when it runs).
  if (!grid)
    resetInvocations(L, stage, count, t, BLOCK);
  for (uint i = t; i < L.counterCount; i += BLOCK)
    I32s(L.counters).v[i] = 0;
  if (t < 5)
    I32s(L.fault).v[t] = 0;
  for (uint o = t; o < L.ownerCount; o += BLOCK)
    I32s(L.allocLimits).v[o] = 0;
  sync();
  MARK(6)
  uint windowTotal = 0;
  if (main_ && producerBegin_[stage] != producerBegin_[stage + 1]) {
    for (uint e = producerBegin_[stage]; e < producerBegin_[stage + 1]; ++e) {
      uint owner = edgeOwner_[e];
      uint cap = capacity_[owner];
      uint64_t head = positions_[2 * owner];
      uint64_t tail = positions_[2 * owner + 1];
      uint64_t window = tail > head ? tail - head : 0;
      window = min(window, uint64_t(count) * edgeBound_[e]);
      window = min(window, uint64_t(cap));
      windowTotal += uint(window);
      if (!grid) // else the select dispatch copies it
        copyWindow(L, owner, uint(head % cap), uint(window), t, BLOCK);
      if (t == 0)
        I32s(L.allocLimits).v[owner] = int(window);
    }
  }
  // The next scheduler dispatch routes this one when it is small, and is in
  // this batch (the host reads the log at the batch's end).
  bool defer = cached && count <= ROUTE_IN_SCHEDULER_LIMIT &&
               records + 1 < L.recordCapacity;
  if (t == 0) {
    control.v[CONTROL_PREVIOUS_STAGE] = stage;
    control.v[CONTROL_PREVIOUS_COUNT] = count;
    control.v[CONTROL_ROUTE_IN_SCHEDULER] = defer ? 1 : 0;
    U32s(push.countWord).v[0] = count;
    U32s(push.countWord).v[1] = stage; // what the stage switch runs
#ifdef SLUICE_FUSED
    runStage_ = stage;
    runCount_ = count;
#endif
  }
  // The grid's selection: a subgroup per chunk, eight window slots and
  // eight invocations' arguments per invocation.
  uint selectGroups = 0;
  if (grid)
    selectGroups = max(
        1u, max((max(refilled != 0 ? freeChunks : 0, stageChunks) +
                 gl_NumSubgroups - 1) / gl_NumSubgroups,
                (max(windowTotal, count) + 8 * BLOCK - 1) / (8 * BLOCK)));
  uint sortGroups = sortDispatch
      ? min((count + L.sortPartition - 1) / L.sortPartition, MAX_SORT_GROUPS)
      : 0;
  MARK(7)
  writeGrids(L, stage, count, defer, selectGroups, sortGroups, NONE);
  MARK(8)
  profileEnd();
}

#ifdef SLUICE_FUSED
//===----------------------------------------------------------------------===//
// The fused loop
//===----------------------------------------------------------------------===//

// The program's stage bodies, linked in at run time (fused_loop.cpp
// declares this function an import of the program module's
// sluice_stage_run, which sluice-spirv-stage-switch adds): invocation
// `invocation` of global stage `stage`'s dispatch over `groups` workgroups.
// This body is only the declaration's placeholder.
void sluice_stage_run(uint stage, uint invocation, uint groups) {}

// One workgroup runs the batch: per iteration the scheduler dispatch's
// work (iterate(): the routing of the previous dispatch, the decision, the
// selection), then the chosen stage's dispatch, its invocations in turn
// over this workgroup's, each time behind a workgroup barrier. The run is
// one whose dispatches the next scheduler dispatch routes and that has no
// select, sort or policy dispatch (vulkan_device.cpp): what separate
// dispatches did with a pipeline barrier between them. The batch's last
// dispatch is routed by the routing dispatch recorded after this one.
void main() {
  Layout L = Layout(push.layoutAddress);
  uint t = gl_LocalInvocationID.x;
  loadTables(L);
  sync();
  for (uint i = 0; i < L.recordCapacity; ++i) {
    if (t == 0)
      runCount_ = 0; // iterate() sets it when it dispatches
    iterate();
    sync();
    uint count = runCount_, stage = runStage_;
    if (count == 0)
      break; // stopped: the rest of the batch would run nothing
    uint size = push.stageGroupSize;
    uint groups = (count + size - 1) / size;
    for (uint v = t; v < groups * size; v += BLOCK)
      sluice_stage_run(stage, v, groups);
    sync();
  }
}
#endif
