// The device placement of the wavefront scheduler on Vulkan (DESIGN.md §2.4;
// docs/runtime.md "The device placement on a GPU"): what the scheduler and
// the routing shaders share. GLSL cannot include decision.h, so this is the
// second text of its decision (decide(), the default owner policy, the
// canonical refill and select) next to the HIP kernel's C++; the placement
// tests (scripts/check-placements, ctest placements-vulkan) keep the two
// equal decision by decision.
//
// The device state is resident_layout.h's ResidentLayout, read through
// PhysicalStorageBuffer64 pointers (bufferDeviceAddress), exactly as the HIP
// kernel reads it; the push constants add what only Vulkan needs: where the
// indirect dispatch arguments go and the stage kernels' count word.

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require

#define BLOCK 256
#define NONE 0xFFFFFFFFu
#define FINISHED 0xFFFFFFFFu
#define UNDECIDED 0xFFFFFFFEu

// resident_layout.h's limits and words.
#define MAX_STAGES 64
#define MAX_OWNERS 16
#define MAX_EDGES 256
#define STOP_RUNNING 0u
#define STOP_VERDICT 1u
#define STOP_BATCH_FULL 2u
#define STOP_KERNEL_FAULT 3u
#define STOP_BAD_OUTCOME 4u
#define STOP_SHORT_SELECT 5u
#define CONTROL_VERDICT 0
#define CONTROL_RECORDS 1
#define CONTROL_STOP_REASON 2
#define CONTROL_DETAIL 3
#define CONTROL_PREVIOUS_STAGE 6
#define CONTROL_PREVIOUS_COUNT 7
#define CONTROL_STOP 8
#define CONTROL_ROUTE_IN_SCHEDULER 10
#define SCALAR_FREE 0
#define SCALAR_STARTED 1
#define SCALAR_FINISHED 2
#define SCALAR_ITERATION 3
#define TIME_WORDS 3
#define DELTA_WORDS 3
#define RECORD_WORDS 12 // decision::Record, 48 bytes
#define GRID_SELECT_HEADER 8 // kGridSelectHeader

// The views every shader writes through. They are `coherent` where an
// invocation may read what another invocation of the same dispatch wrote
// (the scheduler's one workgroup, the sort's passes). A shader whose
// invocations read only their own writes and what earlier dispatches wrote
// (the select and routing shaders: what they write, later dispatches read
// behind the pipeline barrier, which makes it visible without `coherent`)
// defines SLUICE_NO_SHARED_WRITES before including this file, and its views
// are plain: NVIDIA's compiler orders every coherent access after the one
// before it, a round trip to the device's cache each.
#ifdef SLUICE_NO_SHARED_WRITES
#define SLUICE_VIEW
#else
#define SLUICE_VIEW coherent
#endif
layout(buffer_reference, std430, buffer_reference_align = 4) SLUICE_VIEW buffer U32s {
  uint v[];
};
layout(buffer_reference, std430, buffer_reference_align = 4) SLUICE_VIEW buffer I32s {
  int v[];
};
layout(buffer_reference, std430, buffer_reference_align = 8) SLUICE_VIEW buffer U64s {
  uint64_t v[];
};

// The same memory read only, and only where no invocation of this dispatch
// writes it before the read (what earlier dispatches wrote, which the
// pipeline barrier between them makes visible): loads the compiler may
// issue together, where a coherent load is ordered after the one before it
// (every one of them a round trip to the device's cache). In the fused loop
// (SLUICE_FUSED, resident_schedule.comp) what "earlier dispatches" wrote
// was written by this workgroup's earlier iterations, behind a workgroup
// barrier with buffer memory semantics: its views are plain (not
// `readonly`, whose loads may take a read-only cache's stale copy, and not
// `coherent`, which would order them one after another).
#ifdef SLUICE_FUSED
#define SLUICE_READ_VIEW
#else
#define SLUICE_READ_VIEW readonly
#endif
layout(buffer_reference, std430, buffer_reference_align = 4) SLUICE_READ_VIEW buffer R32s {
  uint v[];
};
layout(buffer_reference, std430, buffer_reference_align = 8) SLUICE_READ_VIEW buffer R64s {
  uint64_t v[];
};
// Quads of words (16-byte loads), read only.
layout(buffer_reference, std430, buffer_reference_align = 16) SLUICE_READ_VIEW buffer R128s {
  uvec4 v[];
};

// resident_layout.h's ResidentLayout, member for member.
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Layout {
  uint64_t ownerCapacity, ownerStageBase, ownerStageCount, producerBegin,
      edgeOwner, edgeBound;
  uint64_t ownerPublishBase;
  uint64_t stageCounts, ownerLive;
  uint64_t ownerPublished, ownerReleased;
  uint64_t scalars;
  uint64_t sets, setOffset, setWords;
  uint64_t freeRing, ringOffset, ringPositions;
  uint64_t invocations, laneIds, nextStage, counters, publishedSlots,
      publishedCounts, allocLimits, fault;
  uint64_t windows;
  uint64_t sortKeys, frames;
  uint64_t scratch;
  uint64_t codes;
  uint64_t sortRange, sortHistogram;
  uint64_t records, snapshots, deltas, times;
  uint64_t control;
  uint64_t lanes, maxIterations;
  uint stageCount, mainStageCount, ownerCount, entryStage, framePool,
      partialAdmission;
  uint counterCount, allocBase, publishStride, recordCapacity, snapshotWords;
  uint sortEnabled, sortBuckets;
  uint sortPartition;
  uint64_t chunkRanks;
  uint64_t policyStorage, policyStorageBase; // hip only
  uint64_t policyFault;
  uint64_t profile; // hip only (Vulkan's: push.profile)
};

// The Vulkan half (ResidentPush in vulkan_device.cpp).
layout(push_constant, std430) uniform Push {
  uint64_t layoutAddress;
  // u32 x 3 per global stage (the stage kernels' grids), then the routing
  // shader's grid, then the stage switch's.
  uint64_t indirect;
  // The stage kernels' binding 0: the count, then the stage the switch runs.
  uint64_t countWord;
  // The owners' policy hook calls (0: the program has no policy): the
  // exchange with the policy kernels (resident_schedule.comp's EXCHANGE_*
  // words) and the counts buffer a hook call reads and may write.
  uint64_t policyExchange, policyCounts;
  // The profiled scheduler's cycle sums (SLUICE_PROFILE; 0 otherwise).
  uint64_t profile;
  uint stageGroupSize; // the stage kernels' workgroup size
  // Sizes of the tables, so that one round of loads fetches them all:
  // producerBegin[mainStageCount] (the edges) and the sets' words in all.
  uint edgeCount, setWordCount;
  // The scheduler dispatch's phase within its iteration: 0 decides; 1
  // resumes a decision that waited for a policy hook call (nothing pending:
  // it returns at once).
  uint phase;
} push;

// The program's tables, loaded by every workgroup (constant for the run).
shared uint capacity_[MAX_OWNERS], stageBase_[MAX_OWNERS],
    ownerStages_[MAX_OWNERS], publishBase_[MAX_OWNERS], ringOffset_[MAX_OWNERS];
shared uint producerBegin_[MAX_STAGES + 1];
shared uint edgeOwner_[MAX_EDGES], edgeBound_[MAX_EDGES];
shared uint setOffset_[MAX_STAGES + 1], setWords_[MAX_STAGES + 1];

// Memory written by one invocation and read by another of the workgroup
// (device or shared), then the workgroup meets: a workgroup-scope barrier
// (memoryBarrierBuffer() would fence at device scope, which waits for every
// write to reach the device's caches; the next dispatch sees this one's
// writes through the pipeline barrier between them).
void sync() {
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                 gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                 gl_SemanticsAcquireRelease);
}

// The stage kernels' per-invocation arguments of a dispatch, as
// prepareGpuDispatch sets them (outcomes undecided, a producer's publish
// counts zero), by the invocations first, first + stride, ...
void resetInvocations(Layout L, uint stage, uint count, uint first,
                      uint stride) {
  for (uint i = first; i < count; i += stride)
    U32s(L.nextStage).v[i] = UNDECIDED;
  if (stage < L.mainStageCount &&
      producerBegin_[stage] != producerBegin_[stage + 1])
    for (uint64_t i = first; i < uint64_t(count) * L.ownerCount; i += stride)
      U32s(L.publishedCounts).v[uint(i)] = 0;
}

// An owner's admission window: its free ring's `window` slots from ring
// position `start`, copied by the invocations first, first + stride, ...,
// each with eight loads in flight before their stores (the tables in
// shared memory: loadTables). `RING` is the ring's view: U32s (coherent
// loads, each ordered after the one before it) in the scheduler, whose own
// routing may have appended to the ring earlier in the same dispatch;
// R32s in the select shader, which reads what earlier dispatches wrote, so
// that the eight loads are in flight together (the windows took 18,350
// cycles a workgroup with coherent loads on an H100).
#define COPY_WINDOW(NAME, RING)                                                \
  void NAME(Layout L, uint owner, uint start, uint window, uint first,        \
            uint stride) {                                                     \
    uint cap = capacity_[owner];                                               \
    RING ring = RING(L.freeRing + uint64_t(ringOffset_[owner]) * 4);           \
    U32s target = U32s(R64s(L.windows).v[owner]);                             \
    for (uint k0 = first; k0 < window; k0 += 8 * stride) {                     \
      uint value[8];                                                           \
      for (uint j = 0; j < 8; ++j) {                                           \
        uint k = k0 + j * stride, at = start + k;                              \
        value[j] = k < window ? ring.v[at >= cap ? at - cap : at] : 0;         \
      }                                                                        \
      for (uint j = 0; j < 8; ++j)                                             \
        if (k0 + j * stride < window)                                          \
          target.v[k0 + j * stride] = value[j];                                \
    }                                                                          \
  }
COPY_WINDOW(copyWindow, U32s)
COPY_WINDOW(copyEarlierWindow, R32s)

// The program's tables into shared memory, in one round of loads (the
// sizes come with the push constants); the caller meets the workgroup
// before reading them. At most one owner, stage and edge per invocation
// (MAX_OWNERS, MAX_STAGES + 1 and MAX_EDGES are at most BLOCK): each
// invocation issues all of its loads before it stores any.
void loadTables(Layout L) {
  uint t = gl_LocalInvocationID.x;
  bool owner = t < L.ownerCount, main = t <= L.mainStageCount,
       stage = t <= L.stageCount, edge = t < push.edgeCount;
  uint capacity = 0, base = 0, stages = 0, publish = 0, ring = 0;
  if (owner) {
    capacity = R32s(L.ownerCapacity).v[t];
    base = R32s(L.ownerStageBase).v[t];
    stages = R32s(L.ownerStageCount).v[t];
    publish = R32s(L.ownerPublishBase).v[t];
    ring = R32s(L.ringOffset).v[t];
  }
  uint begin = main ? R32s(L.producerBegin).v[t] : 0;
  uint offset = stage ? R32s(L.setOffset).v[t] : 0;
  uint words = stage ? R32s(L.setWords).v[t] : 0;
  uint edgeOwner = edge ? R32s(L.edgeOwner).v[t] : 0;
  uint edgeBound = edge ? R32s(L.edgeBound).v[t] : 0;
  if (owner) {
    capacity_[t] = capacity;
    stageBase_[t] = base;
    ownerStages_[t] = stages;
    publishBase_[t] = publish;
    ringOffset_[t] = ring;
  }
  if (main)
    producerBegin_[t] = begin;
  if (stage) {
    setOffset_[t] = offset;
    setWords_[t] = words;
  }
  if (edge) {
    edgeOwner_[t] = edgeOwner;
    edgeBound_[t] = edgeBound;
  }
}
