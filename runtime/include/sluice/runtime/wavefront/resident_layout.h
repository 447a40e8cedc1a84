//===- resident_layout.h - Device state of a GPU scheduler placement -----===//
//
// DESIGN.md §2.4. The memory a GPU device placement of the wavefront
// scheduler keeps on the device, as one table of device addresses and
// scalars that the host fills and the persistent scheduler kernel reads
// (runtime/device/hip/resident_kernel.hip). Like decision.h it uses no
// standard library, so the same text compiles on the host and into the
// kernel's source.
//
// The router's device form: one bit set per global stage (main stages over
// the frame pool, auxiliary stages over their owner's slots) and the free
// frame set; the canonical order of decision.h is "lowest set bit first".
// Every array is in device memory; the kernel arguments of the stage kernels
// are the same buffers as a host-placement dispatch uses.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WAVEFRONT_RESIDENT_LAYOUT_H
#define SLUICE_RUNTIME_WAVEFRONT_RESIDENT_LAYOUT_H

#include "sluice/runtime/wavefront/decision.h"

namespace sluice::decision {

// Why a launch of the scheduler kernel returned (control word kStopReason).
inline constexpr u32 kStopRunning = 0;
inline constexpr u32 kStopVerdict = 1;     // decide() gave a verdict
inline constexpr u32 kStopBatchFull = 2;   // the record buffer is full
inline constexpr u32 kStopKernelFault = 3; // the stage's fault words are set
inline constexpr u32 kStopBadOutcome = 4;  // an outcome names no stage
inline constexpr u32 kStopShortSelect = 5; // a set held fewer than counted

// Control words (u32).
enum ControlWord : u32 {
  kControlVerdict = 0,
  kControlRecords = 1,    // records written by this launch
  kControlStopReason = 2,
  kControlDetail = 3,     // kStopShortSelect: the members found
  kControlBarrierCount = 4,
  kControlBarrierGeneration = 5,
  kControlPreviousStage = 6, // the dispatch awaiting its end (kNone: none)
  kControlPreviousCount = 7, // Vulkan
  kControlStop = 8,          // Vulkan: the batch's later dispatches do nothing
  // Vulkan: 1 when the next scheduler dispatch routes the previous stage
  // dispatch's outcomes itself (its routing dispatch ran no workgroups).
  kControlRouteInScheduler = 10,
  // hip: the blocks other than block 0 that have routed (a running count
  // over the launch's iterations); with kControlDecision, the two halves of
  // an iteration's hand-over, cheaper than two grid barriers.
  kControlArrived = 11,
  // hip: the next invocation of the iteration's dispatch that a warp takes
  // (block 0 sets it to 0 before it publishes the decision).
  kControlCursor = 12,
  // hip: the decision block 0 published last, one u64 (words 14 and 15)
  // that the other blocks spin on and then have whole: the launch's round
  // + 1 (kDecisionRoundMask), the stop flag (bit 13), the grid-select flag
  // (bit 14: every block takes the refill and the selection of this
  // dispatch for its share of the sets' 32-word chunks, sets too large for
  // block 0's shared copy, from the ranks block 0 writes in chunkRanks), the
  // grid-sort flag (bit 15: the whole grid sorts this dispatch), the stage
  // (bits 16-22) and the count (bits 32-63).
  kControlDecision = 14,
  kControlWords = 16
};
inline constexpr u32 kDecisionRoundMask = 0x1FFF; // rounds per launch < it

// 64-bit scalars.
enum ScalarWord : u32 {
  kScalarFreeFrames = 0,
  kScalarLanesStarted = 1,
  kScalarLanesFinished = 2,
  kScalarIteration = 3,
  kScalarWords = 4
};

// Per record: the decision began, the dispatch began, the dispatch ended
// (device nanoseconds; 0 where the device has no clock).
inline constexpr u32 kTimeWords = 3;
// Per record: items published, items released, the dispatch's order digest
// (orderDigest; the low 32 bits count).
inline constexpr u32 kDeltaWords = 3;

// The digest of a dispatch's order: the sum over its invocations i of
// (i + 1) * frame_i, modulo 2^32. The canonical order (ascending frames,
// stably by key when sorting) gives both placements the same digest; a sum,
// so that a device adds its invocations' terms in any order.
SLUICE_DECISION_FN u32 orderTerm(u32 invocation, u32 frame) {
  return (invocation + 1u) * frame;
}

// At most this many global stages and owners (the kernel's per-block
// tallies live in shared memory).
inline constexpr u32 kResidentMaxStages = 64;
inline constexpr u32 kResidentMaxOwners = 16;
inline constexpr u32 kResidentMaxEdges = 256;
// The sets' words the schedulers keep in shared memory for an iteration
// when all the sets fit (16 per thread of a 256-thread block); larger sets
// are refilled and selected by the grid (hip: the decision's grid-select
// flag, kControlDecision).
inline constexpr u32 kResidentSharedSetWords = 4096;
// Dispatches of more invocations than this are sorted by the whole grid.
inline constexpr u32 kResidentBlockSortLimit = 4096;
// Vulkan: a dispatch of at most this many invocations, with the sets in the
// scheduler's shared copy, is routed by the next scheduler dispatch
// (resident_schedule.comp's ROUTE_IN_SCHEDULER_LIMIT). When every dispatch
// a run can make is that small, the recording leaves out the routing
// dispatch of every iteration but a batch's last.
inline constexpr u32 kResidentRouteInSchedulerLimit = 2048;
// The grid's selection (sets too large for the scheduler's shared copy):
// chunkRanks starts with these words: refilled, the first lane (low, high),
// the free set's and the stage's chunk counts (32 words each); then the
// free chunks' first ranks (one more: the total), then the stage's.
inline constexpr u32 kGridSelectHeader = 8;

// The table the kernel takes (one pointer to it). Addresses are device
// addresses; u32 arrays unless noted.
struct ResidentLayout {
  // decision::Tables' arrays.
  u64 ownerCapacity, ownerStageBase, ownerStageCount, producerBegin, edgeOwner,
      edgeBound;
  u64 ownerPublishBase; // per owner: the compiled publish base
  // decision::Counts.
  u64 stageCounts, ownerLive;
  u64 ownerPublished, ownerReleased; // u64 arrays
  u64 scalars;                       // u64[kScalarWords]
  // The router: bit sets, word offset and word count per global stage; the
  // free frame set at index stageCount.
  u64 sets, setOffset, setWords;
  // Per owner: its free ring (ringOffset[o] into freeRing, capacity
  // entries) and its positions, u64 [allocHead, freeTail] per owner.
  u64 freeRing, ringOffset, ringPositions;
  // The kernel argument buffers the scheduler fills or reads.
  u64 invocations, laneIds, nextStage, counters, publishedSlots,
      publishedCounts, allocLimits, fault;
  u64 windows; // u64 per owner: the address of its admission window
  // Coherence sorting, per main stage (u32 x 4): key bytes (0: no key),
  // kind (SortKeyKind), step between frames, byte offset of the column in
  // the frame buffer (u32; the frame buffer is below 4 GiB).
  u64 sortKeys, frames;
  u64 scratch; // u32[2 * max(framePool, largest capacity)] + u64 codes
  u64 codes;   // u64[2 * max(framePool, largest capacity)]
  // The grid's sort of a large dispatch: u64 [lowest, highest] code and a
  // u32 [16 digits][grid blocks] histogram.
  u64 sortRange, sortHistogram;
  // The log: records, snapshots (packCounts's words, one more than
  // records), deltas and times.
  u64 records, snapshots, deltas, times;
  u64 control; // u32[kControlWords]
  u64 lanes, maxIterations;
  u32 stageCount, mainStageCount, ownerCount, entryStage, framePool,
      partialAdmission;
  u32 counterCount, allocBase, publishStride, recordCapacity, snapshotWords;
  u32 sortEnabled, sortBuckets; // buckets 0: full key codes
  u32 sortPartition;            // FrameSorting::partition (0: one run)
  u64 chunkRanks; // u32[kGridSelectHeader + free chunks + largest set's + 2]
  // Owner policies (hip): i64 storage words, per owner from
  // policyStorageBase[o] (u32), zero when a run starts; and the hook call a
  // run stopped at (kPolicyFaultHeader u64 words, then the owner's counts
  // after it, one u64 per stage).
  u64 policyStorage, policyStorageBase, policyFault;
  // The profiled scheduler's sums (hip, SLUICE_HIP_PROFILE): u64
  // [kProfileWords], zero when a run starts.
  u64 profile;
};

// The profile's words: a cycle sum per part of an iteration, then (at
// kProfileWords - 2) the waits counted and (at kProfileWords - 1) the
// iterations that ran every part.
inline constexpr u32 kProfileWords = 16;

// The policy fault's header words: owner, hook (PolicyHook), the value the
// hook returned (availability, admission stage; 0 otherwise).
inline constexpr u32 kPolicyFaultHeader = 3;

} // namespace sluice::decision

#endif // SLUICE_RUNTIME_WAVEFRONT_RESIDENT_LAYOUT_H
