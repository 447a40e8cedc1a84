// The device placement of the wavefront scheduler on the hip backend
// (DESIGN.md §2.4; docs/runtime.md "The device placement on a GPU").
//
// Not compiled on its own: the runtime appends this text, at load time, to
// the program's HIP source, decision.h, resident_layout.h and a generated
// `sluice_resident_stage(stage, words, count, invocation)` that calls the
// stage's `__device__` body. One persistent kernel, launched cooperatively so
// that every block is resident, runs the whole loop:
//
//   block 0: wait until every other block has routed the previous
//            iteration; finish the previous dispatch (fault check, ring
//            heads), take a snapshot, decision::decide, refill the lowest
//            free frames, select the lowest waiting frames or slots, sort
//            them by key, prepare the stage's kernel arguments; publish
//            the decision (one 64-bit word: round, flags, stage, count)
//   the other blocks: wait for that word
//   every block: the stage's body over the invocations, each thread routing
//            its invocation's outcome into the bit sets at once (per-block
//            tallies, one global atomic per counter and block); every block
//            but 0 then arrives
//
// (two one-sided hand-overs rather than two grid barriers: the blocks never
// wait for each other, only block 0 for the rest and the rest for block 0)
// until a verdict, a fault or a full record buffer; the host then reads the
// log. State stays on the device between launches. Every block keeps the
// layout and the program's tables in shared memory; SLUICE_PROFILE times
// block 0's parts of an iteration (SLUICE_MARK).

#define SLUICE_RESIDENT_BLOCK 256
// The blocks per multiprocessor the compiler plans registers for
// (SLUICE_HIP_NVRTC_OPTIONS can set it; 1: as many registers as the code
// wants). 3: at most 85 registers a thread, 24 warps a multiprocessor, for
// the stage bodies' memory latency (docs/runtime.md, "The device
// placement's arrays in device memory").
#ifndef SLUICE_RESIDENT_MIN_BLOCKS
#define SLUICE_RESIDENT_MIN_BLOCKS 3
#endif

namespace sluice_resident {

using namespace sluice::decision;
typedef long long i64;

// The stage kernels' parameter words (pointers and uniforms), passed by
// value as the kernel's second parameter. A kernel parameter lives in the
// constant bank, so each use in a body is an operand of its instruction;
// loaded from global memory, every pointer a body uses took two registers
// through the whole body (the path tracer's shade: 122 registers, 2 blocks
// per multiprocessor; docs/runtime.md).
#ifndef SLUICE_RESIDENT_WORDS
#error "the runtime defines SLUICE_RESIDENT_WORDS, the stage kernels' words"
#endif
struct Words {
  u64 w[SLUICE_RESIDENT_WORDS];
};

// Converts a parameter word to whatever the body's parameter type is: a
// pointer of any element type, or an integer.
struct Word {
  u64 v;
  template <typename T> __device__ operator T *() const {
    return reinterpret_cast<T *>(v);
  }
  __device__ operator i64() const { return i64(v); }
};

} // namespace sluice_resident

// The generated switch over the stages' bodies (hip_resident.cpp).
__device__ void sluice_resident_stage(unsigned int stage,
                                      const sluice_resident::Words &words,
                                      long long count, long long invocation);

namespace sluice_resident {

__device__ inline u64 clockNanoseconds() {
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  return 0; // no nanosecond clock on this platform (docs/runtime.md)
#endif
}

template <typename T> __device__ inline T *at(u64 address) {
  return reinterpret_cast<T *>(address);
}

#ifdef SLUICE_RESIDENT_POLICIES
// The owners' compiled storage policies (owner_policy.h) as a policy type
// of decide(): block 0's thread 0 calls the generated sluice_policy_hook
// with the owner's storage and its counts as decide() keeps them, and
// checks every call as the host placement does (callPrepareForAdmission,
// ...): the counts are unchanged (storage-only), 0 <= A <= C - L with A == C
// when L == 0, and the admission stage holds items. A broken contract is
// written to L.policyFault (owner, hook, value, the counts after), from
// which the host prints the host placement's message (hookFault).
struct DevicePolicy {
  const ResidentLayout &L;

  __device__ bool fail(const Tables &t, Counts &c, u32 owner, u32 hook,
                       i64 value) {
    u64 *fault = at<u64>(L.policyFault);
    fault[0] = owner;
    fault[1] = hook;
    fault[2] = u64(value);
    const u32 *counts = c.stageCounts + t.ownerStageBase[owner];
    for (u32 i = 0; i < t.ownerStageCount[owner]; ++i)
      fault[kPolicyFaultHeader + i] = counts[i];
    return false;
  }
  // Calls the hook (`ran`: it is compiled; otherwise the default applies)
  // and checks that it left the owner's counts alone.
  __device__ bool call(const Tables &t, Counts &c, u32 owner, u32 hook,
                       i64 slots, i64 &value, bool &ran) {
    u32 *counts = c.stageCounts + t.ownerStageBase[owner];
    u32 stages = t.ownerStageCount[owner];
    u32 before[kResidentMaxStages];
    for (u32 i = 0; i < stages; ++i)
      before[i] = counts[i];
    i64 *storage = at<i64>(L.policyStorage) +
                   at<const u32>(L.policyStorageBase)[owner];
    value = 0;
    ran = sluice_policy_hook(owner, hook, storage, counts,
                             i64(t.ownerCapacity[owner]),
                             i64(c.ownerLive[owner]), slots, &value) != 0;
    for (u32 i = 0; i < stages; ++i)
      if (counts[i] != before[i])
        return fail(t, c, owner, hook, value);
    return true;
  }
  __device__ bool prepareForAdmission(const Tables &t, Counts &c, u32 owner) {
    i64 value;
    bool ran;
    return call(t, c, owner, 0, 0, value, ran);
  }
  __device__ bool availability(const Tables &t, Counts &c, u32 owner,
                               u64 &out) {
    i64 value;
    bool ran;
    if (!call(t, c, owner, 1, 0, value, ran))
      return false;
    u64 capacity = t.ownerCapacity[owner], live = c.ownerLive[owner];
    out = ran ? u64(value) : capacity - live;
    if (value < 0 || out > capacity - live || (live == 0 && out != capacity))
      return fail(t, c, owner, 1, value);
    return true;
  }
  __device__ bool admissionStage(const Tables &t, Counts &c, u32 owner,
                                 u32 &out) {
    i64 value;
    bool ran;
    if (!call(t, c, owner, 2, 0, value, ran))
      return false;
    const u32 *counts = c.stageCounts + t.ownerStageBase[owner];
    u32 stages = t.ownerStageCount[owner];
    out = ran ? u32(value) : firstNonEmpty(counts, stages);
    if (out >= stages || counts[out] == 0)
      return fail(t, c, owner, 2, ran ? value : i64(out));
    return true;
  }
  __device__ bool prepareForProducer(const Tables &t, Counts &c, u32 owner,
                                     u64 slots) {
    i64 value;
    bool ran;
    return call(t, c, owner, 3, i64(slots), value, ran);
  }
};
#endif

// The hand-overs' fences: an acquire-release fence at device scope after a
// relaxed read of the flag (acquire) and before a relaxed write of it
// (release), the block's barrier before it covering the other threads'
// writes. CUDA's __threadfence() is a sequentially consistent fence, more
// than a hand-over needs and slower.
__device__ inline void handOverFence() {
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
  __threadfence();
#endif
}

// Every block of the (cooperatively launched, hence co-resident) grid
// arrives; the last one opens the next generation.
__device__ inline void gridBarrier(u32 *control) {
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile u32 *generation = control + kControlBarrierGeneration;
    u32 seen = *generation;
    __threadfence();
    if (atomicAdd(control + kControlBarrierCount, 1u) == gridDim.x - 1) {
      control[kControlBarrierCount] = 0;
      __threadfence();
      atomicAdd(control + kControlBarrierGeneration, 1u);
    } else {
      while (*generation == seen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

// Block 0's sort in shared memory: dispatches of at most kSortRounds
// elements per thread (sortInShared).
constexpr u32 kSortRounds = 4;
// Block 0's shared copy of the sets (setCache) shares the histogram's words.
static_assert(kResidentSharedSetWords % SLUICE_RESIDENT_BLOCK == 0 &&
                  kResidentSharedSetWords <= 16 * SLUICE_RESIDENT_BLOCK,
              "the set cache's words");

struct Shared {
  // The layout, copied once per block: every field read is a shared load,
  // not a global one that each fence (the hand-overs') sends back to L2.
  ResidentLayout layout;
  // The iteration every block runs: block 0's decision, which the other
  // blocks take from the decision word they spin on (kControlDecision).
  struct {
    u32 stop, stage, count, gridSelect, gridSort;
  } run;
  // The program's tables, loaded once per block (constant for the run).
  u32 capacity[kResidentMaxOwners], stageBase[kResidentMaxOwners],
      ownerStages[kResidentMaxOwners], publishBase[kResidentMaxOwners],
      ringOffset[kResidentMaxOwners];
  u32 producerBegin[kResidentMaxStages + 1];
  u32 edgeOwner[kResidentMaxEdges], edgeBound[kResidentMaxEdges];
  u32 setOffset[kResidentMaxStages + 1], setWords[kResidentMaxStages + 1];
  // Block 0: the counts of this iteration's decision, gathered at once.
  u32 stageCounts[kResidentMaxStages], live[kResidentMaxOwners];
  u64 ownerPublished[kResidentMaxOwners], ownerReleased[kResidentMaxOwners];
  u32 ringTaken[kResidentMaxOwners]; // ring positions the last dispatch took
  u64 scalars[kScalarWords];
  u32 records, previousStage, detail;
  int fault;
  // Coherence sorting: a 16-bin histogram per thread. Before it, in block
  // 0: the sets' words while they fit (cached), so that the refill and the
  // selection work in shared memory and the words go back once.
  union {
    u32 histogram[16 * SLUICE_RESIDENT_BLOCK];
    u32 setCache[kResidentSharedSetWords];
    // sortInShared's elements (codes relative to the lowest, and frames)
    // and its counts, [digit][warp].
    struct {
      u32 code[kSortRounds * SLUICE_RESIDENT_BLOCK];
      u32 frame[kSortRounds * SLUICE_RESIDENT_BLOCK];
      u32 counts[16 * (SLUICE_RESIDENT_BLOCK / 32)];
    } sorted;
  };
  // Block 0: the frames its selection took, for sortInShared (the first
  // kSortRounds * SLUICE_RESIDENT_BLOCK).
  u32 selected[kSortRounds * SLUICE_RESIDENT_BLOCK];
  u64 positions[2 * kResidentMaxOwners]; // each owner's ring head and tail
  u32 sortBytes[kResidentMaxStages];     // each stage's sort key size
  u32 scan[SLUICE_RESIDENT_BLOCK];
  u64 lows[SLUICE_RESIDENT_BLOCK], highs[SLUICE_RESIDENT_BLOCK];
  u32 digitTotal[16], digitBefore[16], digitBase[16], digitStart[16];
  u32 stop;
  u32 taken;
  // The decision of this iteration.
  u32 stage, count, refilled;
  u64 firstLane;
  // Per-block tallies of the routing.
  u32 stageAdds[kResidentMaxStages];
  int ownerLiveAdds[kResidentMaxOwners];
  u32 published[kResidentMaxOwners];
  u32 released[kResidentMaxOwners];
  u32 finished;
  u32 order; // the main stage's order digest (orderTerm)
#ifdef SLUICE_PROFILE
  // Block 0's clock at the ends of the iteration's parts (SLUICE_MARK),
  // the end of the last iteration, and the sums (ResidentLayout::profile).
  u64 marks[10], lastEnd, sums[kProfileWords];
#endif
};

// SLUICE_HIP_PROFILE=1 (the runtime defines SLUICE_PROFILE): block 0's
// thread 0 reads the multiprocessor's clock at the end of each part of an
// iteration, MARK(0) (the other blocks have routed) to MARK(9) (block 0's
// tallies are in); docs/runtime.md names the parts.
#ifdef SLUICE_PROFILE
#define SLUICE_MARK(k)                                                         \
  do {                                                                         \
    if (blockIdx.x == 0 && threadIdx.x == 0)                                   \
      sh.marks[k] = clock64();                                                 \
  } while (0)
#else
#define SLUICE_MARK(k)                                                         \
  do {                                                                         \
  } while (0)
#endif

// Exclusive prefix sum of `value` over the block; `total` gets the sum.
__device__ inline u32 blockScan(u32 value, Shared &sh, u32 &total) {
  u32 t = threadIdx.x;
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  // Warps of 32: a shuffle scan per warp, then one over the warps' totals.
  const u32 warps = SLUICE_RESIDENT_BLOCK / 32;
  u32 lane = t & 31, warp = t >> 5;
  u32 x = value;
  for (u32 offset = 1; offset < 32; offset <<= 1) {
    u32 y = __shfl_up_sync(0xFFFFFFFFu, x, offset);
    if (lane >= offset)
      x += y;
  }
  if (lane == 31)
    sh.scan[warp] = x;
  __syncthreads();
  if (warp == 0) {
    u32 w = lane < warps ? sh.scan[lane] : 0;
    for (u32 offset = 1; offset < 32; offset <<= 1) {
      u32 y = __shfl_up_sync(0xFFFFFFFFu, w, offset);
      if (lane >= offset)
        w += y;
    }
    if (lane < warps)
      sh.scan[lane] = w;
  }
  __syncthreads();
  u32 before = warp ? sh.scan[warp - 1] : 0;
  total = sh.scan[warps - 1];
  __syncthreads();
  return before + x - value;
#endif
  sh.scan[t] = value;
  __syncthreads();
  for (u32 offset = 1; offset < SLUICE_RESIDENT_BLOCK; offset <<= 1) {
    u32 add = t >= offset ? sh.scan[t - offset] : 0;
    __syncthreads();
    sh.scan[t] += add;
    __syncthreads();
  }
  total = sh.scan[SLUICE_RESIDENT_BLOCK - 1];
  u32 inclusive = sh.scan[t];
  __syncthreads();
  return inclusive - value;
}

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
// One warp, one 32-word chunk of a set: lane l holds the chunk's word l,
// `bits`, and `base` is the rank of the chunk's lowest member. Visits the
// members of rank < count, `visit(rank, member)`, a word at a time with its
// bits spread over the lanes (consecutive ranks from consecutive lanes:
// coalesced stores), and returns the lane's word without them; `members`
// gets the chunk's member count.
template <typename Visit>
__device__ inline u32 takeFromChunk(u32 bits, u32 chunk, u32 base, u32 count,
                                    u32 &members, Visit visit) {
  u32 lane = threadIdx.x & 31;
  u32 n = __popc(bits);
  u32 inclusive = n;
  for (u32 offset = 1; offset < 32; offset <<= 1) {
    u32 y = __shfl_up_sync(0xFFFFFFFFu, inclusive, offset);
    if (lane >= offset)
      inclusive += y;
  }
  members = __shfl_sync(0xFFFFFFFFu, inclusive, 31);
  u32 first = base + inclusive - n; // the rank of this word's lowest member
  // No early exit: unrolled, eight words' shuffles are in flight at once.
#pragma unroll 8
  for (u32 j = 0; j < 32; ++j) {
    u32 b = __shfl_sync(0xFFFFFFFFu, bits, j);
    u32 r = __shfl_sync(0xFFFFFFFFu, first, j);
    u32 rank = r + __popc(b & ((1u << lane) - 1u));
    if (((b >> lane) & 1u) && rank < count)
      visit(rank, (chunk * 32 + j) * 32 + lane);
  }
  u32 keep = bits;
  if (first < count)
    for (u32 take = count - first; keep && take; --take)
      keep &= keep - 1; // the lowest members go
  return keep;
}
#endif

// Block 0: visits the `count` lowest members of the set in ascending order,
// `visit(rank, member)`, and removes them from the set; where `moveTo` is
// given, the members taken go into that set (of as many words). Returns how
// many there were (<= count). A set of at most a word per thread: each
// thread an equal run of its bits (a power of two, at most a word), whose
// members it visits from the rank the scan gives it.
template <typename Visit>
__device__ inline u32 takeLowest(u32 *words, u32 wordCount, u32 count,
                                 Shared &sh, Visit visit, u32 *moveTo) {
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  if (wordCount > SLUICE_RESIDENT_BLOCK) {
    // A larger set on CUDA: each warp a contiguous range of 32-word
    // chunks; in a chunk each lane holds one word, and the warp then writes
    // each word's members together, one lane per bit: consecutive ranks from
    // consecutive lanes (coalesced stores, no thread writing a long run of
    // its own).
    const u32 warps = SLUICE_RESIDENT_BLOCK / 32;
    u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    u32 chunks = (wordCount + 31) / 32;
    u32 perWarp = (chunks + warps - 1) / warps;
    u32 chunkBegin = warp * perWarp < chunks ? warp * perWarp : chunks;
    u32 chunkEnd =
        chunkBegin + perWarp < chunks ? chunkBegin + perWarp : chunks;
    u32 mine = 0;
    for (u32 c = chunkBegin; c < chunkEnd; c += 4) { // four loads in flight
      u32 value[4];
#pragma unroll
      for (u32 k = 0; k < 4; ++k) {
        u32 w = (c + k) * 32 + lane;
        value[k] = c + k < chunkEnd && w < wordCount ? words[w] : 0;
      }
#pragma unroll
      for (u32 k = 0; k < 4; ++k)
        mine += __popc(value[k]);
    }
    // The warp's first rank: lane 0's exclusive prefix over the block.
    u32 total = 0;
    u32 base = __shfl_sync(0xFFFFFFFFu, blockScan(mine, sh, total), 0);
    // The next chunk's word is loaded while this chunk is written.
    u32 next = chunkBegin < chunkEnd && chunkBegin * 32 + lane < wordCount
                   ? words[chunkBegin * 32 + lane]
                   : 0;
    for (u32 c = chunkBegin; c < chunkEnd && base < count; ++c) {
      u32 w = c * 32 + lane;
      u32 bits = next;
      u32 ahead = (c + 1) * 32 + lane;
      next = c + 1 < chunkEnd && ahead < wordCount ? words[ahead] : 0;
      u32 members = 0;
      u32 keep = takeFromChunk(bits, c, base, count, members, visit);
      if (w < wordCount && keep != bits) {
        words[w] = keep;
        if (moveTo)
          moveTo[w] |= bits & ~keep;
      }
      base += members;
    }
    __syncthreads();
    return total < count ? total : count;
  }
#endif
  if (wordCount <= SLUICE_RESIDENT_BLOCK) {
    u32 span = 1; // bits per thread
    while (span * SLUICE_RESIDENT_BLOCK < 32 * wordCount)
      span <<= 1;
    u32 first = threadIdx.x * span;
    u32 w = first / 32;
    u32 mask = span == 32 ? ~0u : ((1u << span) - 1u) << (first % 32);
    u32 bits = w < wordCount ? words[w] & mask : 0;
    u32 total = 0;
    u32 rank = blockScan(__popc(bits), sh, total); // every read is done
    u32 taken = 0;
    while (bits && rank < count) {
      u32 bit = u32(__ffs(int(bits)) - 1);
      bits &= bits - 1;
      taken |= 1u << bit;
      visit(rank++, w * 32 + bit);
    }
    if (taken) { // threads of one word: disjoint bits
      atomicAnd(words + w, ~taken);
      if (moveTo)
        atomicOr(moveTo + w, taken);
    }
    __syncthreads();
    return total < count ? total : count;
  }
  u32 per = (wordCount + SLUICE_RESIDENT_BLOCK - 1) / SLUICE_RESIDENT_BLOCK;
  u32 begin = threadIdx.x * per;
  u32 end = begin + per < wordCount ? begin + per : wordCount;
  u32 mine = 0;
  for (u32 w = begin; w < end; ++w)
    mine += __popc(words[w]);
  u32 total = 0;
  u32 rank = blockScan(mine, sh, total);
  for (u32 w = begin; w < end && rank < count; ++w) {
    u32 bits = words[w];
    u32 keep = bits;
    while (bits && rank < count) {
      u32 bit = u32(__ffs(int(bits)) - 1);
      bits &= bits - 1;
      keep &= ~(1u << bit);
      visit(rank++, w * 32 + bit);
    }
    if (moveTo)
      moveTo[w] |= words[w] & ~keep;
    words[w] = keep;
  }
  __syncthreads();
  return total < count ? total : count;
}

// An owner's admission window: its free ring's `window` slots from ring
// position `start`, copied by the threads `first`, `first + stride`, ...,
// each with eight loads in flight before their stores.
__device__ inline void copyWindow(const ResidentLayout &L, Shared &sh,
                                  u32 owner, u32 start, u32 window, u32 first,
                                  u32 stride) {
  u32 capacity = sh.capacity[owner];
  u32 *target = at<u32>(at<u64>(L.windows)[owner]);
  const u32 *source = at<u32>(L.freeRing) + sh.ringOffset[owner];
  constexpr u32 kBatch = 8;
  for (u32 k0 = first; k0 < window; k0 += kBatch * stride) {
    u32 value[kBatch];
#pragma unroll
    for (u32 j = 0; j < kBatch; ++j) {
      u32 k = k0 + j * stride;
      u32 slot = start + k; // < 2 * capacity
      value[j] =
          k < window ? source[slot >= capacity ? slot - capacity : slot] : 0;
    }
#pragma unroll
    for (u32 j = 0; j < kBatch; ++j)
      if (k0 + j * stride < window)
        target[k0 + j * stride] = value[j];
  }
}

// The admission window of producer edge `e` for a dispatch of `count`: the
// free slots from the ring head, at most count * bound and the capacity.
__device__ inline u32 admissionWindow(const Shared &sh, u32 e, u32 count) {
  u32 owner = sh.edgeOwner[e];
  u64 head = sh.positions[2 * owner];
  u64 tail = sh.positions[2 * owner + 1];
  u64 window = tail > head ? tail - head : 0;
  u64 wanted = u64(count) * sh.edgeBound[e];
  if (wanted < window)
    window = wanted;
  if (sh.capacity[owner] < window)
    window = sh.capacity[owner];
  return u32(window);
}

// Block 0: the first kEarlyRounds slots per thread of an admission window
// (copyWindow's first part), loaded right after the decision so that the
// loads are in flight while the block selects and sorts; store() writes
// them with the other kernel arguments.
constexpr u32 kEarlyRounds = 4;
struct EarlyWindow {
  u32 value[kEarlyRounds];
  u32 window = 0;
  u32 *target = nullptr;

  __device__ void load(const ResidentLayout &L, const Shared &sh, u32 owner,
                       u32 start, u32 slots) {
    const u32 capacity = sh.capacity[owner];
    const u32 *source = at<u32>(L.freeRing) + sh.ringOffset[owner];
    window = slots;
    target = at<u32>(at<u64>(L.windows)[owner]);
#pragma unroll
    for (u32 r = 0; r < kEarlyRounds; ++r) {
      u32 k = threadIdx.x + r * SLUICE_RESIDENT_BLOCK;
      u32 slot = start + k; // < 2 * capacity
      value[r] =
          k < window ? source[slot >= capacity ? slot - capacity : slot] : 0;
    }
  }
  __device__ void store() const {
#pragma unroll
    for (u32 r = 0; r < kEarlyRounds; ++r) {
      u32 k = threadIdx.x + r * SLUICE_RESIDENT_BLOCK;
      if (k < window)
        target[k] = value[r];
    }
  }
};

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
// The grid's selection (the decision's grid-select flag), for sets too
// large for block
// 0's shared copy. Block 0 counts the members of every 32-word chunk and
// writes each chunk's first rank; then every warp of the grid takes whole
// chunks (takeFromChunk), the refill's and the selection's, before a grid
// barrier: block 0 no longer walks the whole set alone.

// Block 0: counts[c] = the members of chunk c of the set (in shared memory).
// A set on a 16-byte boundary (resident_state.cpp pads every set to four
// words) is read as quads of words, eight 16-byte loads in flight per
// thread, each thread adding its quads' members to their chunk's count: a
// set of 262,144 members in one round trip. Otherwise eight chunks' loads
// in flight per warp, a word per lane.
__device__ inline void countChunks(const u32 *words, u32 wordCount,
                                   u32 *counts) {
  const u32 warps = SLUICE_RESIDENT_BLOCK / 32;
  u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  u32 chunks = (wordCount + 31) / 32;
  if ((reinterpret_cast<unsigned long long>(words) & 15) == 0) {
    for (u32 c = threadIdx.x; c < chunks; c += SLUICE_RESIDENT_BLOCK)
      counts[c] = 0;
    __syncthreads();
    const uint4 *quads = reinterpret_cast<const uint4 *>(words);
    u32 quadCount = (wordCount + 3) / 4; // the padding is never set
    for (u32 q0 = threadIdx.x; q0 < quadCount;
         q0 += 8 * SLUICE_RESIDENT_BLOCK) {
      uint4 value[8];
#pragma unroll
      for (u32 k = 0; k < 8; ++k) {
        u32 q = q0 + k * SLUICE_RESIDENT_BLOCK;
        value[k] = q < quadCount ? quads[q] : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (u32 k = 0; k < 8; ++k) {
        u32 n = __popc(value[k].x) + __popc(value[k].y) +
                __popc(value[k].z) + __popc(value[k].w);
        if (n != 0)
          atomicAdd(&counts[(q0 + k * SLUICE_RESIDENT_BLOCK) / 8], n);
      }
    }
    __syncthreads();
    return;
  }
  for (u32 c0 = warp; c0 < chunks; c0 += 8 * warps) {
    u32 value[8];
#pragma unroll
    for (u32 k = 0; k < 8; ++k) {
      u32 c = c0 + k * warps, w = c * 32 + lane;
      value[k] = c < chunks && w < wordCount ? words[w] : 0;
    }
#pragma unroll
    for (u32 k = 0; k < 8; ++k) {
      u32 n = __popc(value[k]);
      for (u32 offset = 16; offset != 0; offset >>= 1)
        n += __shfl_xor_sync(0xFFFFFFFFu, n, offset);
      u32 c = c0 + k * warps;
      if (lane == 0 && c < chunks)
        counts[c] = n;
    }
  }
  __syncthreads();
}

// Block 0: bases[c] = the members of the chunks before c (bases[chunks]:
// all of them), which it returns.
__device__ inline u32 chunkPrefix(const u32 *counts, u32 chunks, u32 *bases,
                                  Shared &sh) {
  u32 t = threadIdx.x;
  u32 per = (chunks + SLUICE_RESIDENT_BLOCK - 1) / SLUICE_RESIDENT_BLOCK;
  u32 begin = t * per < chunks ? t * per : chunks;
  u32 end = begin + per < chunks ? begin + per : chunks;
  u32 mine = 0;
  for (u32 c = begin; c < end; ++c)
    mine += counts[c];
  u32 total = 0;
  u32 running = blockScan(mine, sh, total);
  for (u32 c = begin; c < end; ++c) {
    bases[c] = running;
    running += counts[c];
  }
  if (t == 0)
    bases[chunks] = total;
  __syncthreads();
  return total;
}

// Block 0: the grid selection's header and chunk ranks (kGridSelectHeader);
// returns the members the dispatch can take (at most count). When the
// dispatch is the entry stage's, its chunks count the refill's frames too:
// those of free rank below `refilled`.
__device__ inline u32 gridSelectRanks(const ResidentLayout &L, Shared &sh,
                                      u32 stage, u32 count, u32 refilled,
                                      u64 firstLane) {
  const u32 *sets = at<u32>(L.sets);
  u32 *head = at<u32>(L.chunkRanks);
  u32 freeWords = sh.setWords[L.stageCount], stageWords = sh.setWords[stage];
  u32 freeChunks = (freeWords + 31) / 32, stageChunks = (stageWords + 31) / 32;
  u32 *freeBases = head + kGridSelectHeader;
  u32 *stageBases = freeBases + freeChunks + 1;
  u32 *counts = sh.setCache;
  if (threadIdx.x == 0) {
    head[0] = refilled;
    head[1] = u32(firstLane);
    head[2] = u32(firstLane >> 32);
    head[3] = freeChunks;
    head[4] = stageChunks;
  }
  if (refilled != 0) {
    countChunks(sets + sh.setOffset[L.stageCount], freeWords, counts);
    chunkPrefix(counts, freeChunks, freeBases, sh);
  }
  countChunks(sets + sh.setOffset[stage], stageWords, counts);
  if (refilled != 0 && stage == L.entryStage) {
    for (u32 c = threadIdx.x; c < stageChunks; c += SLUICE_RESIDENT_BLOCK) {
      u32 first = freeBases[c], next = freeBases[c + 1];
      if (first < refilled)
        counts[c] += (next < refilled ? next : refilled) - first;
    }
    __syncthreads();
  }
  u32 total = chunkPrefix(counts, stageChunks, stageBases, sh);
  return total < count ? total : count;
}

// Every block: its warps' chunks of the refill and of the selection, and
// its share of the admission windows' copies (their sizes are the
// allocation limits block 0 set).
__device__ inline void gridSelect(const ResidentLayout &L, Shared &sh,
                                  u32 stage, u32 count) {
  const u32 *head = at<u32>(L.chunkRanks);
  u32 refilled = head[0];
  u64 firstLane = u64(head[1]) | (u64(head[2]) << 32);
  u32 freeChunks = head[3], stageChunks = head[4];
  const u32 *freeBases = head + kGridSelectHeader;
  const u32 *stageBases = freeBases + freeChunks + 1;
  u32 *sets = at<u32>(L.sets);
  u32 *freeSet = sets + sh.setOffset[L.stageCount];
  u32 *entry = sets + sh.setOffset[L.entryStage];
  u32 *stageSet = sets + sh.setOffset[stage];
  u32 freeWords = sh.setWords[L.stageCount], stageWords = sh.setWords[stage];
  u32 *laneIds = at<u32>(L.laneIds);
  u32 *invocations = at<u32>(L.invocations);
  const u32 warpsPerBlock = SLUICE_RESIDENT_BLOCK / 32;
  u32 lane = threadIdx.x & 31;
  u32 warp = blockIdx.x * warpsPerBlock + (threadIdx.x >> 5);
  u32 warps = gridDim.x * warpsPerBlock;
  u32 members = 0;
  // A warp takes the same chunks of the free set and of the stage's, so a
  // refilled frame's entry bit is its own lane's write when the stage is
  // the entry stage.
  for (u32 c = warp; refilled != 0 && c < freeChunks; c += warps) {
    u32 base = freeBases[c];
    if (base >= refilled)
      break; // the ranks grow with c: the same in the whole warp
    u32 w = c * 32 + lane;
    u32 bits = w < freeWords ? freeSet[w] : 0;
    u32 keep = takeFromChunk(bits, c, base, refilled, members,
                             [&](u32 rank, u32 frame) {
                               laneIds[frame] = u32(firstLane + rank);
                             });
    if (w < freeWords && keep != bits) {
      freeSet[w] = keep;
      entry[w] |= bits & ~keep;
    }
  }
  for (u32 c = warp; c < stageChunks; c += warps) {
    u32 base = stageBases[c];
    if (base >= count)
      break;
    u32 w = c * 32 + lane;
    u32 bits = w < stageWords ? stageSet[w] : 0;
    u32 keep = takeFromChunk(
        bits, c, base, count, members,
        [&](u32 rank, u32 frame) { invocations[rank] = frame; });
    if (w < stageWords && keep != bits)
      stageSet[w] = keep;
  }
  if (stage < L.mainStageCount)
    for (u32 e = sh.producerBegin[stage]; e < sh.producerBegin[stage + 1];
         ++e) {
      u32 owner = sh.edgeOwner[e];
      copyWindow(L, sh, owner,
                 u32(at<u64>(L.ringPositions)[2 * owner] % sh.capacity[owner]),
                 u32(at<int>(L.allocLimits)[owner]),
                 blockIdx.x * SLUICE_RESIDENT_BLOCK + threadIdx.x,
                 gridDim.x * SLUICE_RESIDENT_BLOCK);
    }
}
#endif

// Block 0 waits until the other blocks have routed `round` iterations
// (each arrives once per iteration): the hand-over from the stage to the
// next decision, without the rest of the grid waiting for each other.
__device__ inline void awaitRouted(u32 *control, u32 round) {
  if (threadIdx.x == 0 && round != 0 && gridDim.x > 1) {
    volatile u32 *arrived = control + kControlArrived;
    const u32 expected = (gridDim.x - 1) * round;
    while (*arrived < expected) {
    }
    handOverFence();
  }
  __syncthreads();
}

// A block other than 0 has routed its part of the iteration.
__device__ inline void arriveRouted(u32 *control) {
  __syncthreads();
  if (threadIdx.x == 0) {
    handOverFence();
    atomicAdd(control + kControlArrived, 1u);
  }
}

// Block 0 has decided iteration `round` (and written the stage's
// arguments): sh.run, one u64 (kControlDecision) after a fence.
__device__ inline void publishDecided(u32 *control, u32 round, Shared &sh) {
  __syncthreads();
  static_assert(kResidentMaxStages <= 128, "the stage's 7 bits");
  if (threadIdx.x == 0) {
    u64 word = u64(round + 1) | u64(sh.run.stop) << 13 |
               u64(sh.run.gridSelect) << 14 | u64(sh.run.gridSort) << 15 |
               u64(sh.run.stage & 127) << 16 | u64(sh.run.count) << 32;
    handOverFence();
    atomicExch(reinterpret_cast<unsigned long long *>(control +
                                                      kControlDecision),
               (unsigned long long)word);
  }
}

// The other blocks wait for the decision of iteration `round` and take it
// from the word they spin on.
__device__ inline void awaitDecided(u32 *control, u32 round, Shared &sh) {
  if (threadIdx.x == 0) {
    volatile u64 *decision =
        reinterpret_cast<volatile u64 *>(control + kControlDecision);
    u64 word = *decision;
    while ((word & kDecisionRoundMask) < round + 1)
      word = *decision;
    handOverFence();
    sh.run.stop = u32(word >> 13) & 1;
    sh.run.gridSelect = u32(word >> 14) & 1;
    sh.run.gridSort = u32(word >> 15) & 1;
    sh.run.stage = u32(word >> 16) & 127;
    sh.run.count = u32(word >> 32);
  }
  __syncthreads();
}

// The order code of a key (frame_order.h's sortKeyCode and sortKeyBucket;
// placements-hip checks that both give the same decisions).
__device__ inline u64 keyCode(const unsigned char *key, u32 bytes, u32 kind,
                              u32 buckets) {
  const u64 sign = u64(1) << 63;
  i64 integer = 0;
  double floating = 0;
  if (kind == 0) {
    if (bytes == 1)
      integer = *reinterpret_cast<const signed char *>(key);
    else if (bytes == 2)
      integer = *reinterpret_cast<const short *>(key);
    else if (bytes == 4)
      integer = *reinterpret_cast<const int *>(key);
    else
      integer = *reinterpret_cast<const i64 *>(key);
    if (buckets == 0)
      return u64(integer) ^ sign;
  } else {
    floating = bytes == 4 ? double(*reinterpret_cast<const float *>(key))
                          : *reinterpret_cast<const double *>(key);
    if (buckets == 0) {
      if (floating != floating)
        return ~u64(0);
      if (floating == 0)
        floating = 0;
      u64 bits = u64(__double_as_longlong(floating));
      return (bits & sign) ? ~bits : bits | sign;
    }
    if (floating != floating)
      return buckets - 1;
    floating = floor(floating);
    if (floating >= 9223372036854775808.0)
      integer = 0x7FFFFFFFFFFFFFFFll;
    else if (floating < -9223372036854775808.0)
      integer = -0x7FFFFFFFFFFFFFFFll - 1;
    else
      integer = i64(floating);
  }
  i64 remainder = integer % i64(buckets);
  return u64(remainder < 0 ? remainder + i64(buckets) : remainder);
}

// The lowest and highest of the block's values (every thread gets them).
__device__ inline void blockRange(u64 &lowest, u64 &highest, Shared &sh) {
  u32 t = threadIdx.x;
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  for (u32 offset = 16; offset != 0; offset >>= 1) {
    u64 low = __shfl_xor_sync(0xFFFFFFFFu, lowest, offset);
    u64 high = __shfl_xor_sync(0xFFFFFFFFu, highest, offset);
    lowest = low < lowest ? low : lowest;
    highest = high > highest ? high : highest;
  }
  if ((t & 31) == 0) {
    sh.lows[t >> 5] = lowest;
    sh.highs[t >> 5] = highest;
  }
  __syncthreads();
  lowest = ~u64(0);
  highest = 0;
  for (u32 w = 0; w < SLUICE_RESIDENT_BLOCK / 32; ++w) {
    lowest = sh.lows[w] < lowest ? sh.lows[w] : lowest;
    highest = sh.highs[w] > highest ? sh.highs[w] : highest;
  }
#else
  sh.lows[t] = lowest;
  sh.highs[t] = highest;
  __syncthreads();
  for (u32 half = SLUICE_RESIDENT_BLOCK / 2; half != 0; half >>= 1) {
    if (t < half) {
      if (sh.lows[t + half] < sh.lows[t])
        sh.lows[t] = sh.lows[t + half];
      if (sh.highs[t + half] > sh.highs[t])
        sh.highs[t] = sh.highs[t + half];
    }
    __syncthreads();
  }
  lowest = sh.lows[0];
  highest = sh.highs[0];
#endif
  __syncthreads(); // lows and highs are free again
}

// The bits that `span` needs.
__device__ inline u32 spanBits(u64 span) {
  u32 bits = 0;
  while (bits < 64 && (span >> bits) != 0)
    ++bits;
  return bits;
}

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
// Block 0, for sortByKey: a dispatch of at most kSortRounds elements per
// thread whose codes span at most 32 bits, sorted in shared memory. Warp w
// holds elements [w * 32 * kSortRounds, ...) in rounds of 32 consecutive
// ones: `code` (relative to the lowest) and `frame` for round r. A pass
// over 4 bits ranks each element within its warp by (digit, round, lane)
// with __match_any_sync; a scan over (digit, warp) gives every warp's base
// per digit; the elements go to their places, in shared memory (each thread
// has read its own before any is written) or, in the last pass, as frames
// straight to `invocations`.
__device__ inline void sortInShared(u32 *invocations, u32 count, u32 bits,
                                    u32 (&code)[kSortRounds],
                                    u32 (&frame)[kSortRounds], Shared &sh) {
  const u32 t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const u32 warps = SLUICE_RESIDENT_BLOCK / 32;
  const u32 below = (1u << lane) - 1u;
  u32 *counts = sh.sorted.counts; // [digit][warp]
  for (u32 shift = 0; shift < bits; shift += 4) {
    const bool last = shift + 4 >= bits;
    if (t < 16 * warps)
      counts[t] = 0;
    u32 digit[kSortRounds];
#pragma unroll
    for (u32 r = 0; r < kSortRounds; ++r) {
      u32 e = (warp * kSortRounds + r) * 32 + lane;
      if (shift != 0 && e < count) {
        code[r] = sh.sorted.code[e];
        frame[r] = sh.sorted.frame[e];
      }
      digit[r] = e < count ? (code[r] >> shift) & 15 : 16; // 16: none
    }
    __syncthreads();
    u32 rank[kSortRounds];
#pragma unroll
    for (u32 r = 0; r < kSortRounds; ++r) {
      u32 peers = __match_any_sync(0xFFFFFFFFu, digit[r]);
      u32 before = digit[r] < 16 ? counts[digit[r] * warps + warp] : 0;
      rank[r] = before + __popc(peers & below);
      __syncwarp();
      if (digit[r] < 16 && (peers & below) == 0) // the group's lowest lane
        counts[digit[r] * warps + warp] = before + __popc(peers);
      __syncwarp();
    }
    __syncthreads();
    u32 total = 0;
    u32 base = blockScan(t < 16 * warps ? counts[t] : 0, sh, total);
    if (t < 16 * warps)
      counts[t] = base; // every count was read before blockScan's barrier
    __syncthreads();
#pragma unroll
    for (u32 r = 0; r < kSortRounds; ++r)
      if (digit[r] < 16) {
        u32 position = counts[digit[r] * warps + warp] + rank[r];
        if (last) {
          invocations[position] = frame[r];
        } else {
          sh.sorted.code[position] = code[r];
          sh.sorted.frame[position] = frame[r];
        }
      }
    __syncthreads();
  }
}
#endif

// Whether a sorted dispatch of `count` holds more than one run of
// FrameSorting::partition frames (each then sorted on its own, a block per
// run, by gridSort).
__device__ inline bool sortsInRuns(const ResidentLayout &L, u32 count) {
  return L.sortPartition != 0 && count > L.sortPartition;
}

// One block: orders invocations[first, first + count) stably by their key
// codes (an LSD radix sort over the bits that max - min spans): in shared
// memory where it fits (sortInShared), else through device memory (codes
// and scratch at the same offsets; `total`: the dispatch's count); 4 bits
// per pass. `selected`: the frames in shared memory (block 0's selection)
// or null (read from invocations).
__device__ inline void sortByKey(const ResidentLayout &L, u32 stage, u32 first,
                                 u32 count, u32 total, const u32 *selected,
                                 Shared &sh) {
  const u32 *key = at<u32>(L.sortKeys) + 4 * stage;
  if (!L.sortEnabled || sh.sortBytes[stage] == 0 || count < 2)
    return;
  const u32 kind = key[1], step = key[2], offset = key[3];
  const u32 bytes = sh.sortBytes[stage];
  u32 *invocations = at<u32>(L.invocations) + first;
  u32 *from = invocations;
  u32 *to = at<u32>(L.scratch) + first;
  u64 *codes = at<u64>(L.codes) + first;
  u64 *codesTo = at<u64>(L.codes) + total + first;
  const unsigned char *frames = at<unsigned char>(L.frames) + offset;
  u32 t = threadIdx.x;
  u64 lowest = ~u64(0), highest = 0;
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  if (count <= kSortRounds * SLUICE_RESIDENT_BLOCK) {
    // Each warp its rounds of 32 consecutive elements (sortInShared).
    const u32 lane = t & 31, warp = t >> 5;
    u32 frame[kSortRounds], code[kSortRounds];
    u64 full[kSortRounds];
#pragma unroll
    for (u32 r = 0; r < kSortRounds; ++r) {
      u32 e = (warp * kSortRounds + r) * 32 + lane;
      frame[r] = e >= count ? 0 : selected ? selected[e] : invocations[e];
    }
#pragma unroll
    for (u32 r = 0; r < kSortRounds; ++r) {
      u32 e = (warp * kSortRounds + r) * 32 + lane;
      full[r] = e < count ? keyCode(frames + u64(frame[r]) * step, bytes,
                                    kind, L.sortBuckets)
                          : 0;
      if (e < count) {
        lowest = full[r] < lowest ? full[r] : lowest;
        highest = full[r] > highest ? full[r] : highest;
      }
    }
    blockRange(lowest, highest, sh);
    u32 bits = spanBits(highest - lowest);
    if (bits <= 32) {
#pragma unroll
      for (u32 r = 0; r < kSortRounds; ++r)
        code[r] = u32(full[r] - lowest);
      sortInShared(from, count, bits, code, frame, sh);
      return;
    }
    // Wider codes: through device memory, as a larger dispatch.
#pragma unroll
    for (u32 r = 0; r < kSortRounds; ++r) {
      u32 e = (warp * kSortRounds + r) * 32 + lane;
      if (e < count)
        codes[e] = full[r];
    }
    __syncthreads();
  } else
#endif
  {
    for (u32 i = t; i < count; i += SLUICE_RESIDENT_BLOCK) {
      u64 code = keyCode(frames + u64(from[i]) * step, bytes, kind,
                         L.sortBuckets);
      codes[i] = code;
      lowest = code < lowest ? code : lowest;
      highest = code > highest ? code : highest;
    }
    blockRange(lowest, highest, sh);
  }
  const u64 low = lowest;
  const u32 bits = spanBits(highest - lowest);
  u32 per = (count + SLUICE_RESIDENT_BLOCK - 1) / SLUICE_RESIDENT_BLOCK;
  u32 begin = t * per;
  u32 end = begin + per < count ? begin + per : count;
  u32 *histogram = sh.histogram; // [digit * BLOCK + thread]
  for (u32 shift = 0; shift < bits; shift += 4) {
    for (u32 d = 0; d < 16; ++d)
      histogram[d * SLUICE_RESIDENT_BLOCK + t] = 0;
    for (u32 i = begin; i < end; ++i)
      ++histogram[(((codes[i] - low) >> shift) & 15) * SLUICE_RESIDENT_BLOCK + t];
    __syncthreads();
    // Positions: digit-major, then thread (chunks ascend): stable.
    u32 sum = 0;
    for (u32 j = 0; j < 16; ++j)
      sum += histogram[t * 16 + j];
    u32 all = 0;
    u32 running = blockScan(sum, sh, all);
    for (u32 j = 0; j < 16; ++j) {
      u32 c = histogram[t * 16 + j];
      histogram[t * 16 + j] = running;
      running += c;
    }
    __syncthreads();
    for (u32 i = begin; i < end; ++i) {
      u32 position =
          histogram[(((codes[i] - low) >> shift) & 15) * SLUICE_RESIDENT_BLOCK +
                    t]++;
      to[position] = from[i];
      codesTo[position] = codes[i];
    }
    __syncthreads();
    u32 *swap = from;
    from = to;
    to = swap;
    u64 *swapCodes = codes;
    codes = codesTo;
    codesTo = swapCodes;
  }
  if (from != invocations) {
    for (u32 i = t; i < count; i += SLUICE_RESIDENT_BLOCK)
      invocations[i] = from[i];
  }
  __syncthreads();
}

__device__ inline void setBit(u32 *words, u32 index) {
  atomicOr(words + index / 32, 1u << (index % 32));
}

// Every block, once: the program's tables into shared memory.
__device__ inline void loadTables(const ResidentLayout &L, Shared &sh) {
  u32 t = threadIdx.x;
  for (u32 o = t; o < L.ownerCount; o += SLUICE_RESIDENT_BLOCK) {
    sh.capacity[o] = at<u32>(L.ownerCapacity)[o];
    sh.stageBase[o] = at<u32>(L.ownerStageBase)[o];
    sh.ownerStages[o] = at<u32>(L.ownerStageCount)[o];
    sh.publishBase[o] = at<u32>(L.ownerPublishBase)[o];
    sh.ringOffset[o] = at<u32>(L.ringOffset)[o];
  }
  for (u32 s = t; s <= L.mainStageCount; s += SLUICE_RESIDENT_BLOCK)
    sh.producerBegin[s] = at<u32>(L.producerBegin)[s];
  for (u32 s = t; s < L.stageCount; s += SLUICE_RESIDENT_BLOCK)
    sh.sortBytes[s] = at<u32>(L.sortKeys)[4 * s];
  for (u32 s = t; s <= L.stageCount; s += SLUICE_RESIDENT_BLOCK) {
    sh.setOffset[s] = at<u32>(L.setOffset)[s];
    sh.setWords[s] = at<u32>(L.setWords)[s];
  }
  __syncthreads();
  u32 edges = sh.producerBegin[L.mainStageCount];
  for (u32 e = t; e < edges; e += SLUICE_RESIDENT_BLOCK) {
    sh.edgeOwner[e] = at<u32>(L.edgeOwner)[e];
    sh.edgeBound[e] = at<u32>(L.edgeBound)[e];
  }
  __syncthreads();
}

// Block 0, between the barriers: the decision and the router's part of the
// dispatch. Sets sh.stop.
__device__ inline void schedule(const ResidentLayout &L, Shared &sh) {
  u32 *control = at<u32>(L.control);
  u64 *scalars = at<u64>(L.scalars);
  u32 *stageCounts = at<u32>(L.stageCounts);
  u32 t = threadIdx.x;
  u32 *sets = at<u32>(L.sets);
  const u32 setWordCount =
      sh.setOffset[L.stageCount] + sh.setWords[L.stageCount];
  const bool cached = setWordCount <= kResidentSharedSetWords;
  static_assert(kResidentMaxStages <= SLUICE_RESIDENT_BLOCK &&
                    kResidentMaxOwners <= SLUICE_RESIDENT_BLOCK &&
                    kScalarWords <= SLUICE_RESIDENT_BLOCK,
                "a thread per stage and per owner");
  u32 *words = cached ? sh.setCache : sets; // the sets, wherever they are now
  // Everything this iteration reads, in one round of loads: each thread
  // issues all of its loads before it stores any of them (at most one
  // stage and one owner per thread: kResidentMaxStages, kResidentMaxOwners
  // <= the block).
  const u32 stages = L.stageCount, owners = L.ownerCount;
  const bool stageThread = t < stages, ownerThread = t < owners;
  u32 stageCount = stageThread ? stageCounts[t] : 0;
  u32 live = 0, ringTaken = 0;
  u64 published = 0, released = 0, head = 0, tail = 0;
  if (ownerThread) {
    live = at<u32>(L.ownerLive)[t];
    published = at<u64>(L.ownerPublished)[t];
    released = at<u64>(L.ownerReleased)[t];
    ringTaken = u32(at<int>(L.counters)[L.allocBase + t]);
    head = at<u64>(L.ringPositions)[2 * t];
    tail = at<u64>(L.ringPositions)[2 * t + 1];
  }
  u64 scalar = t < kScalarWords ? scalars[t] : 0;
  u32 records = 0, previous = 0, detail = 0;
  int fault = 0;
  if (t == 0) {
    records = control[kControlRecords];
    previous = control[kControlPreviousStage];
    detail = control[kControlDetail];
    fault = at<int>(L.fault)[0];
  }
  constexpr u32 kCacheRounds = kResidentSharedSetWords / SLUICE_RESIDENT_BLOCK;
  u32 cache[kCacheRounds];
#pragma unroll
  for (u32 k = 0; k < kCacheRounds; ++k) {
    u32 w = t + k * SLUICE_RESIDENT_BLOCK;
    cache[k] = cached && w < setWordCount ? sets[w] : 0;
  }
  if (stageThread)
    sh.stageCounts[t] = stageCount;
  if (ownerThread) {
    sh.live[t] = live;
    sh.ownerPublished[t] = published;
    sh.ownerReleased[t] = released;
    sh.ringTaken[t] = ringTaken;
    sh.positions[2 * t] = head;
    sh.positions[2 * t + 1] = tail;
  }
  if (t < kScalarWords)
    sh.scalars[t] = scalar;
  if (t == 0) {
    sh.records = records;
    sh.previousStage = previous;
    sh.detail = detail;
    sh.fault = fault;
  }
#pragma unroll
  for (u32 k = 0; k < kCacheRounds; ++k) {
    u32 w = t + k * SLUICE_RESIDENT_BLOCK;
    if (cached && w < setWordCount)
      sh.setCache[w] = cache[k];
  }
  __syncthreads();
  SLUICE_MARK(1);
  records = sh.records;
  // The snapshot (packCounts's order) of the counts this iteration
  // decides from.
  {
    u64 *snapshot = at<u64>(L.snapshots) + u64(records) * L.snapshotWords;
    for (u32 w = t; w < L.snapshotWords; w += SLUICE_RESIDENT_BLOCK) {
      u64 value;
      if (w < stages)
        value = sh.stageCounts[w];
      else if (w < stages + owners)
        value = sh.live[w - stages];
      else if (w < stages + 2 * owners)
        value = sh.ownerPublished[w - stages - owners];
      else if (w < stages + 3 * owners)
        value = sh.ownerReleased[w - stages - 2 * owners];
      else
        value = sh.scalars[w - stages - 3 * owners]; // free, started, finished
      snapshot[w] = value;
    }
  }
  __syncthreads(); // the snapshot reads the counts that decide() changes
  SLUICE_MARK(2);
  if (t == 0) {
    u32 stop = kStopRunning;
    // The dispatch that just ran.
    u32 previous = sh.previousStage;
    if (previous != kNone) {
      control[kControlPreviousStage] = kNone;
      if (records != 0)
        at<u64>(L.times)[(records - 1) * kTimeWords + 2] = clockNanoseconds();
      if (sh.fault != 0)
        stop = kStopKernelFault;
      else if (sh.detail != kNone)
        stop = kStopBadOutcome;
      else if (previous < L.mainStageCount) {
        u64 *positions = at<u64>(L.ringPositions);
        for (u32 e = sh.producerBegin[previous];
             e < sh.producerBegin[previous + 1]; ++e) {
          u32 owner = sh.edgeOwner[e];
          sh.positions[2 * owner] += sh.ringTaken[owner];
          positions[2 * owner] = sh.positions[2 * owner];
        }
      }
    }
    if (stop == kStopRunning && records == L.recordCapacity)
      stop = kStopBatchFull;
    if (stop == kStopRunning) {
      Tables tables;
      tables.stageCount = L.stageCount;
      tables.mainStageCount = L.mainStageCount;
      tables.ownerCount = L.ownerCount;
      tables.entryStage = L.entryStage;
      tables.framePool = L.framePool;
      tables.partialAdmission = L.partialAdmission;
      tables.lanes = L.lanes;
      tables.maxIterations = L.maxIterations;
      tables.ownerCapacity = sh.capacity;
      tables.ownerStageBase = sh.stageBase;
      tables.ownerStageCount = sh.ownerStages;
      tables.producerBegin = sh.producerBegin;
      tables.edgeOwner = sh.edgeOwner;
      tables.edgeBound = sh.edgeBound;
      Counts counts;
      counts.stageCounts = sh.stageCounts;
      counts.ownerLive = sh.live;
      counts.ownerPublished = sh.ownerPublished;
      counts.ownerReleased = sh.ownerReleased;
      counts.freeFrames = u32(sh.scalars[kScalarFreeFrames]);
      counts.lanesStarted = sh.scalars[kScalarLanesStarted];
      counts.lanesFinished = sh.scalars[kScalarLanesFinished];
      u64 begun = clockNanoseconds();
      u64 firstLane = counts.lanesStarted;
      Record r;
#ifdef SLUICE_RESIDENT_POLICIES
      DevicePolicy policy{L};
      Verdict verdict =
          decide(tables, counts, sh.scalars[kScalarIteration], r, policy);
#else
      Verdict verdict =
          decide(tables, counts, sh.scalars[kScalarIteration], r);
#endif
      if (verdict != kContinue) {
        control[kControlVerdict] = verdict;
        stop = kStopVerdict;
      } else {
        // The refill is applied; the dispatched invocations leave their
        // stage (the routing adds their outcomes back).
        sh.stageCounts[r.dispatchedStage] -= r.dispatched;
        sh.scalars[kScalarFreeFrames] = counts.freeFrames;
        sh.scalars[kScalarLanesStarted] = counts.lanesStarted;
        sh.scalars[kScalarIteration] += 1;
        at<Record>(L.records)[records] = r;
        at<u64>(L.times)[records * kTimeWords] = begun;
        at<u64>(L.deltas)[records * kDeltaWords] = 0;
        at<u64>(L.deltas)[records * kDeltaWords + 1] = 0;
        at<u64>(L.deltas)[records * kDeltaWords + 2] = 0;
        control[kControlRecords] = records + 1;
        sh.stage = r.dispatchedStage;
        sh.count = r.dispatched;
        sh.refilled = r.refilled;
        sh.firstLane = firstLane;
      }
    }
    sh.stop = stop;
    control[kControlStopReason] = stop;
  }
  __syncthreads();
  SLUICE_MARK(3);
  if (sh.stop != kStopRunning)
    return;
  u32 stage = sh.stage;
  u32 count = sh.count;
  u32 refilled = sh.refilled;
  u64 firstLane = sh.firstLane;
  // The counts after the decision, back to device memory.
  for (u32 s = t; s < L.stageCount; s += SLUICE_RESIDENT_BLOCK)
    stageCounts[s] = sh.stageCounts[s];
  if (t < kScalarWords)
    scalars[t] = sh.scalars[t];
  u32 taken = 0;
  bool grid = false;
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
  // Sets too large for the shared copy: the grid takes the refill and the
  // selection (gridSelect), from the chunk ranks block 0 writes here.
  {
    u32 freeChunks = (sh.setWords[L.stageCount] + 31) / 32;
    u32 stageChunks = (sh.setWords[stage] + 31) / 32;
    grid = !cached && gridDim.x > 1 &&
           freeChunks <= kResidentSharedSetWords && // counts in setCache
           stageChunks <= kResidentSharedSetWords;
  }
  if (grid)
    taken = gridSelectRanks(L, sh, stage, count, refilled, firstLane);
#endif
  // A producer's first admission window (that of its first edge), early.
  const bool producer = stage < L.mainStageCount &&
                        sh.producerBegin[stage] != sh.producerBegin[stage + 1];
  EarlyWindow early;
  if (producer && !grid) {
    u32 e = sh.producerBegin[stage], owner = sh.edgeOwner[e];
    early.load(L, sh, owner, u32(sh.positions[2 * owner] % sh.capacity[owner]),
               admissionWindow(sh, e, count));
  }
  if (!grid) {
    // Refill: the lowest free frames take the next lanes, in lane order,
    // and join the entry stage.
    if (refilled != 0) {
      u32 *laneIds = at<u32>(L.laneIds);
      takeLowest(
          words + sh.setOffset[L.stageCount], sh.setWords[L.stageCount],
          refilled, sh,
          [&](u32 rank, u32 frame) { laneIds[frame] = u32(firstLane + rank); },
          words + sh.setOffset[L.entryStage]);
    }
    // The dispatch: the lowest waiting frames or slots.
    u32 *invocations = at<u32>(L.invocations);
    taken = takeLowest(
        words + sh.setOffset[stage], sh.setWords[stage], count, sh,
        [&](u32 rank, u32 frame) {
          invocations[rank] = frame;
          if (rank < kSortRounds * SLUICE_RESIDENT_BLOCK)
            sh.selected[rank] = frame; // for sortByKey
        },
        nullptr);
    if (cached) { // the sets back to device memory, for the routing
      for (u32 w = t; w < setWordCount; w += SLUICE_RESIDENT_BLOCK)
        sets[w] = sh.setCache[w];
      __syncthreads(); // setCache becomes the sort's histogram
    }
  }
  SLUICE_MARK(4);
  if (taken != count) {
    if (t == 0) {
      control[kControlDetail] = taken;
      control[kControlStopReason] = kStopShortSelect;
      sh.stop = kStopShortSelect;
    }
    __syncthreads();
    return;
  }
  bool main = stage < L.mainStageCount;
  bool sorts = main && L.sortEnabled && sh.sortBytes[stage] != 0 && count >= 2;
  // The grid sorts a large dispatch, and every dispatch it selects.
  // (and a partitioned one of more than one run: every block its runs).
  bool gridSorts = sorts && (grid || count > kResidentBlockSortLimit ||
                             sortsInRuns(L, count));
  if (sorts && !gridSorts)
    sortByKey(L, stage, 0, count, count, sh.selected, sh);
  SLUICE_MARK(5);
  if (t == 0) {
    sh.run.gridSort = gridSorts ? 1 : 0;
    sh.run.gridSelect = grid ? 1 : 0;
    if (gridSorts) {
      at<u64>(L.sortRange)[0] = ~u64(0);
      at<u64>(L.sortRange)[1] = 0;
    }
  }

  // The kernel arguments, as prepareGpuDispatch sets them (each
  // invocation's outcome and publish counts: by its own thread, runAndRoute).
  int *counters = at<int>(L.counters);
  for (u32 i = t; i < L.counterCount; i += SLUICE_RESIDENT_BLOCK)
    counters[i] = 0;
  if (t < 5)
    at<int>(L.fault)[t] = 0;
  int *allocLimits = at<int>(L.allocLimits);
  for (u32 o = t; o < L.ownerCount; o += SLUICE_RESIDENT_BLOCK)
    allocLimits[o] = 0;
  __syncthreads();
  if (producer) {
    for (u32 e = sh.producerBegin[stage]; e < sh.producerBegin[stage + 1];
         ++e) {
      u32 owner = sh.edgeOwner[e];
      u32 window = admissionWindow(sh, e, count);
      u32 start = u32(sh.positions[2 * owner] % sh.capacity[owner]);
      u32 first = t; // the window's slots this thread copies
      if (grid) // the grid copies it (gridSelect)
        first = window;
      else if (e == sh.producerBegin[stage]) {
        early.store();
        first = t + kEarlyRounds * SLUICE_RESIDENT_BLOCK;
      }
      copyWindow(L, sh, owner, start, window, first, SLUICE_RESIDENT_BLOCK);
      if (t == 0)
        allocLimits[owner] = int(window);
    }
  }
  if (t == 0) {
    control[kControlPreviousStage] = stage;
    sh.run.stage = stage;
    sh.run.count = count;
    at<u64>(L.times)[records * kTimeWords + 1] = clockNanoseconds();
  }
  __syncthreads();
  SLUICE_MARK(6);
}

// Every block: orders invocations[0, count) stably by key code, as
// sortByKey does, for a dispatch too large for one block. Each block takes a
// contiguous tile, each thread a contiguous chunk of it; a pass over 4 bits
// ranks every element by (digit, block, thread, position): stable.
__device__ inline void gridSort(const ResidentLayout &L, Shared &sh, u32 stage,
                                u32 count) {
  const u32 *key = at<u32>(L.sortKeys) + 4 * stage;
  u32 *control = at<u32>(L.control);
  if (sortsInRuns(L, count)) {
    // FrameSorting::partition: block b sorts runs b, b + blocks, ... on its
    // own (no grid barrier between passes), then the grid meets.
    const u32 run = L.sortPartition;
    const u32 runs = (count + run - 1) / run;
    for (u32 r = blockIdx.x; r < runs; r += gridDim.x) {
      u32 first = r * run;
      sortByKey(L, stage, first, count - first < run ? count - first : run,
                count, nullptr, sh);
    }
    gridBarrier(control);
    return;
  }
  u32 t = threadIdx.x, b = blockIdx.x, blocks = gridDim.x;
  u32 tile = (count + blocks - 1) / blocks;
  u32 tileBegin = b * tile < count ? b * tile : count;
  u32 tileEnd = tileBegin + tile < count ? tileBegin + tile : count;
  u32 per = (tile + SLUICE_RESIDENT_BLOCK - 1) / SLUICE_RESIDENT_BLOCK;
  u32 begin = tileBegin + t * per < tileEnd ? tileBegin + t * per : tileEnd;
  u32 end = begin + per < tileEnd ? begin + per : tileEnd;
  u32 *from = at<u32>(L.invocations);
  u32 *to = at<u32>(L.scratch);
  u64 *codes = at<u64>(L.codes);
  u64 *codesTo = codes + count;
  const unsigned char *frames = at<unsigned char>(L.frames) + key[3];
  u64 *range = at<u64>(L.sortRange);
  u64 lowest = ~u64(0), highest = 0;
  for (u32 i = begin; i < end; ++i) {
    u64 code = keyCode(frames + u64(from[i]) * key[2], key[0], key[1],
                       L.sortBuckets);
    codes[i] = code;
    lowest = code < lowest ? code : lowest;
    highest = code > highest ? code : highest;
  }
  blockRange(lowest, highest, sh);
  if (t == 0) {
    atomicMin(range, lowest);
    atomicMax(range + 1, highest);
  }
  gridBarrier(control);
  u64 low = *(volatile u64 *)range;
  u32 bits = spanBits(*(volatile u64 *)(range + 1) - low);
  u32 *histogram = sh.histogram; // [digit * BLOCK + thread]
  u32 *blockHistogram = at<u32>(L.sortHistogram); // [digit * blocks + block]
  for (u32 shift = 0; shift < bits; shift += 4) {
    for (u32 d = 0; d < 16; ++d)
      histogram[d * SLUICE_RESIDENT_BLOCK + t] = 0;
    for (u32 i = begin; i < end; ++i)
      ++histogram[(((codes[i] - low) >> shift) & 15) * SLUICE_RESIDENT_BLOCK +
                  t];
    __syncthreads();
    if (t < 16) {
      u32 sum = 0;
      for (u32 k = 0; k < SLUICE_RESIDENT_BLOCK; ++k)
        sum += histogram[t * SLUICE_RESIDENT_BLOCK + k];
      blockHistogram[t * blocks + b] = sum;
    }
    gridBarrier(control);
    // The base of each digit in this block: every block's elements of the
    // smaller digits, then the earlier blocks' of the same digit.
    if (t < 16) {
      sh.digitTotal[t] = 0;
      sh.digitBefore[t] = 0;
    }
    __syncthreads();
    for (u32 k = t; k < 16 * blocks; k += SLUICE_RESIDENT_BLOCK) {
      u32 value = *(volatile u32 *)(blockHistogram + k);
      u32 digit = k / blocks;
      atomicAdd(&sh.digitTotal[digit], value);
      if (k % blocks < b)
        atomicAdd(&sh.digitBefore[digit], value);
    }
    __syncthreads();
    if (t == 0) {
      u32 running = 0;
      for (u32 d = 0; d < 16; ++d) {
        sh.digitBase[d] = running + sh.digitBefore[d];
        running += sh.digitTotal[d];
      }
    }
    // Within the block: digit-major, then thread.
    u32 sum = 0;
    for (u32 j = 0; j < 16; ++j)
      sum += histogram[t * 16 + j];
    u32 all = 0;
    u32 running = blockScan(sum, sh, all);
    for (u32 j = 0; j < 16; ++j) {
      u32 c = histogram[t * 16 + j];
      histogram[t * 16 + j] = running;
      running += c;
    }
    __syncthreads();
    if (t < 16)
      sh.digitStart[t] = histogram[t * SLUICE_RESIDENT_BLOCK];
    __syncthreads();
    for (u32 i = begin; i < end; ++i) {
      u32 digit = u32(((codes[i] - low) >> shift) & 15);
      u32 position = sh.digitBase[digit] +
                     histogram[digit * SLUICE_RESIDENT_BLOCK + t]++ -
                     sh.digitStart[digit];
      to[position] = from[i];
      codesTo[position] = codes[i];
    }
    gridBarrier(control);
    u32 *swap = from;
    from = to;
    to = swap;
    u64 *swapCodes = codes;
    codes = codesTo;
    codesTo = swapCodes;
  }
  if (from != at<u32>(L.invocations)) {
    u32 *invocations = at<u32>(L.invocations);
    for (u32 i = begin; i < end; ++i)
      invocations[i] = from[i];
    gridBarrier(control);
  }
}

// Every thread: the body of invocation i, then its outcome into the sets.
__device__ inline void runAndRoute(const ResidentLayout &L, Shared &sh,
                                   const Words &words, u32 stage, u32 count,
                                   u32 i) {
  at<u32>(L.nextStage)[i] = 0xFFFFFFFEu; // SLUICE_KERNEL_UNDECIDED
  if (stage < L.mainStageCount)
    for (u32 e = sh.producerBegin[stage]; e < sh.producerBegin[stage + 1]; ++e)
      at<u32>(L.publishedCounts)[u64(i) * L.ownerCount + sh.edgeOwner[e]] = 0;
  u32 index = at<u32>(L.invocations)[i]; // loaded while the body runs
  sluice_resident_stage(stage, words, i64(count), i64(i));
  u32 next = at<u32>(L.nextStage)[i];
  u32 *control = at<u32>(L.control);
  u32 *sets = at<u32>(L.sets);
  if (stage < L.mainStageCount) {
    atomicAdd(&sh.order, orderTerm(i, index));
    if (!(next == 0xFFFFFFFFu || next < L.mainStageCount)) {
      atomicMin(control + kControlDetail, i);
      return;
    }
    if (next == 0xFFFFFFFFu) {
      setBit(sets + sh.setOffset[L.stageCount], index);
      atomicAdd(&sh.finished, 1u);
    } else {
      setBit(sets + sh.setOffset[next], index);
      atomicAdd(&sh.stageAdds[next], 1u);
    }
    const u32 *publishedCounts = at<u32>(L.publishedCounts);
    const u32 *slots = at<u32>(L.publishedSlots);
    for (u32 e = sh.producerBegin[stage]; e < sh.producerBegin[stage + 1];
         ++e) {
      u32 owner = sh.edgeOwner[e];
      u32 published = publishedCounts[u64(i) * L.ownerCount + owner];
      if (published > sh.edgeBound[e])
        published = sh.edgeBound[e]; // the kernel recorded the fault
      u32 base = sh.stageBase[owner];
      u32 *first = sets + sh.setOffset[base];
      for (u32 k = 0; k < published; ++k)
        setBit(first,
               slots[u64(i) * L.publishStride + sh.publishBase[owner] + k]);
      if (published != 0) {
        atomicAdd(&sh.stageAdds[base], published);
        atomicAdd(&sh.ownerLiveAdds[owner], int(published));
        atomicAdd(&sh.published[owner], published);
      }
    }
    return;
  }
  // An item of an owner's stage.
  u32 owner = 0;
  while (owner + 1 < L.ownerCount && sh.stageBase[owner + 1] <= stage)
    ++owner;
  if (!(next == 0xFFFFFFFFu || next < sh.ownerStages[owner])) {
    atomicMin(control + kControlDetail, i);
    return;
  }
  if (next == 0xFFFFFFFFu) {
    u64 *positions = at<u64>(L.ringPositions);
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
    // One atomic per owner and warp: a whole dispatch releasing on one ring
    // tail would otherwise serialize on that address.
    u32 lane = threadIdx.x & 31;
    u32 same = __match_any_sync(__activemask(), owner);
    u32 leader = u32(__ffs(int(same)) - 1);
    u32 n = u32(__popc(same));
    u64 first = 0;
    if (lane == leader) {
      first = atomicAdd(&positions[2 * owner + 1], u64(n));
      atomicAdd(&sh.ownerLiveAdds[owner], -int(n));
      atomicAdd(&sh.released[owner], n);
    }
    u64 tail = __shfl_sync(same, first, int(leader)) +
               u64(__popc(same & ((1u << lane) - 1u)));
#else
    u64 tail = atomicAdd(&positions[2 * owner + 1], 1ull);
    atomicAdd(&sh.ownerLiveAdds[owner], -1);
    atomicAdd(&sh.released[owner], 1u);
#endif
    at<u32>(L.freeRing)[sh.ringOffset[owner] + tail % sh.capacity[owner]] =
        index;
  } else {
    setBit(sets + sh.setOffset[sh.stageBase[owner] + next], index);
    atomicAdd(&sh.stageAdds[sh.stageBase[owner] + next], 1u);
  }
}

} // namespace sluice_resident

extern "C" __global__ __launch_bounds__(SLUICE_RESIDENT_BLOCK,
                                         SLUICE_RESIDENT_MIN_BLOCKS) void
sluice_resident_scheduler(const sluice::decision::ResidentLayout *layout,
                          const sluice_resident::Words words) {
  using namespace sluice_resident;
  __shared__ Shared sh;
  u32 t = threadIdx.x;
  static_assert(sizeof(ResidentLayout) % 8 == 0, "the layout's words");
  for (u32 w = t; w < sizeof(ResidentLayout) / 8; w += SLUICE_RESIDENT_BLOCK)
    reinterpret_cast<u64 *>(&sh.layout)[w] =
        reinterpret_cast<const u64 *>(layout)[w];
  __syncthreads();
  const ResidentLayout &L = sh.layout;
  u32 *control = at<u32>(L.control);
  loadTables(L, sh);
#ifdef SLUICE_PROFILE
  if (t < kProfileWords)
    sh.sums[t] = 0;
#endif
  for (u32 round = 0;; ++round) {
    if (blockIdx.x == 0) {
      awaitRouted(control, round);
      SLUICE_MARK(0);
      schedule(L, sh);
      if (t == 0) {
        sh.run.stop = sh.stop != kStopRunning ? 1 : 0;
        control[kControlCursor] = 0; // every block has left the last stage
      }
      publishDecided(control, round, sh); // its __syncthreads: sh.run
      SLUICE_MARK(7);
    } else {
      awaitDecided(control, round, sh);
    }
    if (sh.run.stop) {
#ifdef SLUICE_PROFILE
      if (blockIdx.x == 0 && t < kProfileWords)
        at<u64>(L.profile)[t] += sh.sums[t]; // every launch adds its own
#endif
      return;
    }
    u32 stage = sh.run.stage;
    u32 count = sh.run.count;
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
    if (sh.run.gridSelect) {
      gridSelect(L, sh, stage, count);
      gridBarrier(control); // every invocation and window slot in place
    }
#endif
    if (sh.run.gridSort)
      gridSort(L, sh, stage, count);
    for (u32 s = t; s < L.stageCount; s += SLUICE_RESIDENT_BLOCK)
      sh.stageAdds[s] = 0;
    for (u32 o = t; o < L.ownerCount; o += SLUICE_RESIDENT_BLOCK) {
      sh.ownerLiveAdds[o] = 0;
      sh.published[o] = 0;
      sh.released[o] = 0;
    }
    if (t == 0) {
      sh.finished = 0;
      sh.order = 0;
    }
    __syncthreads();
    // The stage: thread g runs invocation g; past the grid's threads, each
    // warp takes the dispatch's next 32 invocations from the iteration's
    // cursor until none is left, so that a warp whose lanes finish early (a
    // short BVH traversal) takes more and the grid's last warps do not wait
    // on a fixed share (a grid-stride loop left block 0 waiting 28,000
    // cycles an iteration for the slowest block on the path tracer); a
    // dispatch no larger than the grid takes no atomic. Which thread runs an
    // invocation changes nothing the routing records: each is run once, by
    // its index. (Elsewhere a grid-stride loop: the AMD build has no warp
    // shuffles of 32 lanes.)
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
    const u32 gridThreads = gridDim.x * SLUICE_RESIDENT_BLOCK;
    if (blockIdx.x * SLUICE_RESIDENT_BLOCK + t < count)
      runAndRoute(L, sh, words, stage, count,
                  blockIdx.x * SLUICE_RESIDENT_BLOCK + t);
    while (count > gridThreads) {
      u32 base = 0;
      if ((t & 31) == 0)
        base = atomicAdd(control + kControlCursor, 32u);
      base = gridThreads + __shfl_sync(0xFFFFFFFFu, base, 0);
      if (base >= count)
        break;
      if (base + (t & 31) < count)
        runAndRoute(L, sh, words, stage, count, base + (t & 31));
    }
#else
    for (u32 i = blockIdx.x * SLUICE_RESIDENT_BLOCK + t; i < count;
         i += gridDim.x * SLUICE_RESIDENT_BLOCK)
      runAndRoute(L, sh, words, stage, count, i);
#endif
    __syncthreads();
    SLUICE_MARK(8);
    // The block's tallies.
    u32 *stageCounts = at<u32>(L.stageCounts);
    u64 *scalars = at<u64>(L.scalars);
    for (u32 s = t; s < L.stageCount; s += SLUICE_RESIDENT_BLOCK)
      if (sh.stageAdds[s])
        atomicAdd(stageCounts + s, sh.stageAdds[s]);
    u32 record = round; // block 0 writes one record per round it runs
    u64 *deltas = at<u64>(L.deltas) + u64(record) * kDeltaWords;
    for (u32 o = t; o < L.ownerCount; o += SLUICE_RESIDENT_BLOCK) {
      if (sh.ownerLiveAdds[o])
        atomicAdd(at<u32>(L.ownerLive) + o, u32(sh.ownerLiveAdds[o]));
      if (sh.published[o]) {
        atomicAdd(at<u64>(L.ownerPublished) + o, u64(sh.published[o]));
        atomicAdd(deltas, u64(sh.published[o]));
      }
      if (sh.released[o]) {
        atomicAdd(at<u64>(L.ownerReleased) + o, u64(sh.released[o]));
        atomicAdd(deltas + 1, u64(sh.released[o]));
      }
    }
    if (t == 0 && sh.order)
      atomicAdd(deltas + 2, u64(sh.order)); // the low 32 bits count
    if (t == 0 && sh.finished) {
      atomicAdd(scalars + kScalarFreeFrames, u64(sh.finished));
      atomicAdd(scalars + kScalarLanesFinished, u64(sh.finished));
    }
    if (blockIdx.x != 0)
      arriveRouted(control);
    else
      __syncthreads(); // block 0's tallies before its next decision
    SLUICE_MARK(9);
#ifdef SLUICE_PROFILE
    if (blockIdx.x == 0 && t == 0) {
      for (u32 k = 1; k < 10; ++k)
        sh.sums[k - 1] += sh.marks[k] - sh.marks[k - 1];
      if (round != 0) { // the wait for the other blocks' routing
        sh.sums[9] += sh.marks[0] - sh.lastEnd;
        sh.sums[kProfileWords - 2] += 1;
      }
      sh.sums[kProfileWords - 1] += 1;
      sh.lastEnd = sh.marks[9];
    }
#endif
  }
}
