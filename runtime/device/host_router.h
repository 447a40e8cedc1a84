//===- host_router.h - Host protocol of per-invocation devices --*- C++ -*-===//
//
// Internal to the runtime (not installed). The host-side bookkeeping shared by
// every device adapter whose kernels report their outcomes per invocation
// (next_stage, publish records, the fault record): the free-frame stack, lane
// ids, per-main-stage frame queues, per owner the free-slot ring and stage
// queues, the live/published/released counts, the per-dispatch scratch the
// kernels write, the sluice_rt_kernel_args template, the translation of a
// recorded fault into a Status, and the routing of outcomes after a kernel in
// invocation order.
//
// The device supplies frame and payload memory (HostRouter::Memory) and runs
// the kernels. A dispatch is:
//
//   sluice_rt_kernel_args args;
//   if (router.beginDispatch(stage, count, args)) {
//     ...run router.kernelOf(stage) over [0, args.count) with `args`...
//     router.finishDispatch(args);
//   }
//
// Errors are sticky: the first one becomes pendingError() until reset(), and
// readCounts() returns it. Messages start with the device label given to the
// constructor ("cpu device: ...") where they concern the host side.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_HOST_ROUTER_H
#define SLUICE_RUNTIME_DEVICE_HOST_ROUTER_H

#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/device/device.h"
#include "sluice/runtime/device/frame_order.h"
#include "sluice/runtime/device/kernel_abi.h"
#include "sluice/runtime/wavefront/program.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sluice::runtime {

class WorkerPool;

// FIFO of frame or slot indices with a fixed capacity.
class IndexQueue {
public:
  void init(uint32_t capacity);
  void clear() { head_ = size_ = 0; }
  uint32_t size() const { return size_; }
  // false when full.
  bool push(uint32_t value);
  // Appends values[0, count) in order; false, and nothing appended, when
  // fewer than `count` entries are free. Inline: the router appends an
  // invocation's published slots, mostly one, per invocation.
  bool pushAll(const uint32_t *values, uint32_t count) {
    const uint32_t capacity = uint32_t(entries_.size());
    if (count > capacity - size_)
      return false;
    uint32_t position = head_ + size_;
    if (position >= capacity)
      position -= capacity;
    size_ += count;
    for (uint32_t k = 0; k < count; ++k) {
      entries_[position] = values[k];
      if (++position == capacity)
        position = 0;
    }
    return true;
  }
  // Moves the first `count` entries (count <= size) to `out`.
  void popFront(uint32_t count, uint32_t *out);
  // Appends `count` entries (at most the free ones) whose values the caller
  // writes into ring() afterwards: entry k at (first + k) % capacity(), where
  // `first` is the returned position. For appends from several threads.
  uint32_t extend(uint32_t count) {
    const uint32_t capacity = uint32_t(entries_.size());
    uint32_t first = head_ + size_;
    if (first >= capacity)
      first -= capacity;
    size_ += count;
    return first;
  }
  uint32_t capacity() const { return uint32_t(entries_.size()); }
  uint32_t *ring() { return entries_.data(); }

private:
  std::vector<uint32_t> entries_;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

// A set of frame indices that hands out its lowest members first: the
// canonical order of decision.h (a dispatch takes the waiting frames in
// ascending index, a refill the lowest free frames). One bit per frame.
class FrameSet {
public:
  void init(uint32_t universe);
  void clear();
  void fill(); // every index of the universe
  uint32_t size() const { return size_; }
  void insert(uint32_t index) {
    words_[index / 64] |= uint64_t(1) << (index % 64);
    ++size_;
    firstWord_ = std::min(firstWord_, index / 64);
  }
  // insert() for one of several threads inserting at once: with `shared`,
  // another thread may write the same word, so the bit is set atomically.
  // The members count once every thread is done, through added().
  void insertFrom(uint32_t index, bool shared) {
    uint64_t &word = words_[index / 64];
    const uint64_t bit = uint64_t(1) << (index % 64);
    if (shared)
      std::atomic_ref<uint64_t>(word).fetch_or(bit, std::memory_order_relaxed);
    else
      word |= bit;
  }
  // `count` members were inserted through insertFrom(), the lowest `lowest`.
  void added(uint32_t count, uint32_t lowest) {
    size_ += count;
    if (count)
      firstWord_ = std::min(firstWord_, lowest / 64);
  }
  // Moves the `count` (<= size) lowest members to `out`, ascending; a large
  // `count` in chunks of words on `workers` when given.
  void popLowest(uint32_t count, uint32_t *out, WorkerPool *workers = nullptr);
  bool contains(uint32_t index) const {
    return (words_[index / 64] >> (index % 64)) & 1;
  }

private:
  std::vector<uint64_t> words_;
  uint32_t universe_ = 0;
  uint32_t size_ = 0;
  uint32_t firstWord_ = 0; // no member below word firstWord_
};

// Host-side state of one capacity owner.
struct OwnerStorage {
  uint32_t capacity = 0;
  uint64_t itemStride = 0;          // itemSize rounded up to 16 bytes
  unsigned char *payload = nullptr; // capacity * itemStride, device memory
  // The kernels allocate from the ring (sluice_rt_owner_slots: positions
  // from *alloc_head below alloc_limit); only a producer dispatch's window
  // (below) holds free slots, filled from `freeSlots`.
  std::vector<uint32_t> freeRing;
  uint64_t allocHead = 0; // advanced by kernels through atomic_ref
  // The free slots, handed out lowest first: a producer dispatch's window
  // (ring positions [windowHead, windowHead + window)) holds the `window`
  // lowest, ascending; the positions its kernels did not take go back after
  // it (settleWindows). Keeps a run's payloads in the lowest slots.
  FrameSet freeSlots;
  uint64_t windowHead = 0;
  uint32_t window = 0;
  std::vector<IndexQueue> stageQueues;
  uint32_t live = 0;
  uint64_t published = 0;
  uint64_t released = 0;
};

class HostRouter {
public:
  // Frame and payload memory, supplied by the device during allocate():
  // allocateFrames says why it cannot, allocatePayload returns nullptr when
  // out of memory; a previous allocation may be dropped.
  // The pointers must stay valid until the next allocate().
  class Memory {
  public:
    // The frame buffer of `bytes` bytes into `out`, or why not.
    virtual Status allocateFrames(uint64_t bytes, unsigned char *&out) = 0;
    virtual unsigned char *allocatePayload(uint32_t owner, uint64_t bytes) = 0;
    // Whether allocateFrames() returned host memory that the router may read
    // (a sort key) in place. Discrete memory says false and downloads.
    virtual bool framesInHostMemory() const { return true; }
    // Discrete memory: copies `out.size()` bytes of the frame buffer at byte
    // `offset` to `out`, after every dispatch so far has completed.
    virtual Status downloadFrames(uint64_t offset,
                                  std::span<unsigned char> out);

  protected:
    ~Memory() = default;
  };

  // `deviceLabel` prefixes host-side messages, e.g. "cpu device".
  // `hostKernels`: the stages' kernels are the descriptor's function pointers
  // (allocate() checks that each stage has one); false for devices that run
  // compiled kernels of their own.
  explicit HostRouter(std::string deviceLabel, bool hostKernels = true);
  HostRouter(const HostRouter &) = delete;
  HostRouter &operator=(const HostRouter &) = delete;

  // Checks that every stage has a kernel and the pool is not empty, computes
  // the frame layout, takes frame and payload memory from `memory`, sizes the
  // queues and scratch, builds argsTemplate, then reset()s. Keeps a copy of
  // `shape`; `program` must outlive the router's use of it.
  Status allocate(const ProgramDescriptor &program, const ProgramShape &shape,
                  uint32_t framePool, Memory &memory);
  bool allocated() const { return allocated_; }
  // Allocated for `program` and `framePool`: a run of them may keep this
  // storage (Device::allocate; the shape follows from the program).
  bool holds(const ProgramDescriptor &program, uint32_t framePool) const {
    return allocated_ && this->program == &program &&
           this->framePool == framePool;
  }
  const ComputedFrameLayout &frameLayout() const { return layout; }

  // Frames free, owners empty, counters 0, no pending error. No-op before a
  // successful allocate().
  void reset();
  // A run of a device that changes the frame sets or the free slots itself
  // (not through refill() and beginDispatch()) says so after its reset(),
  // so that the next reset() refills them.
  void markQueuesUsed() { queuesUsed_ = true; }
  // After a main-stage dispatch: the window positions its kernels did not
  // take return to their owners' free slots.
  void settleWindows();
  // The next `lanes` lanes take free frames at the entry stage.
  void refill(uint32_t lanes);

  // How main stages with a sort key order a dispatch's frames (kept across
  // reset() and allocate()).
  void setFrameSorting(const FrameSorting &sorting) { sorting_ = sorting; }
  const FrameSorting &frameSorting() const { return sorting_; }

  // Pops `count` waiting frames (main stage) or items (auxiliary stage) of
  // `stage` into `invocations` (frames: the `count` lowest waiting frame
  // indices, ascending, then for a stage with a sort key and sorting on
  // ordered stably by the key; items: queue order, and an auxiliary
  // dispatch always takes them all),
  // prepares the owner slots, zeroes the publish
  // counts and outcomes, and fills `args` for the kernel. false when there is
  // nothing to run: an error is pending, the request is invalid (it becomes
  // the pending error), or `count` is 0.
  bool beginDispatch(uint32_t stage, uint32_t count,
                     sluice_rt_kernel_args &args);
  // After the kernel of beginDispatch() ran over [0, args.count): converts a
  // recorded fault into the pending error, otherwise routes the outcomes and
  // published items in invocation order.
  void finishDispatch(const sluice_rt_kernel_args &args);
  // The kernel of a global stage.
  sluice_rt_stage_kernel kernelOf(uint32_t stage) const;

  // Queue and owner counts; the pending error first.
  Status readCounts(Observation &out) const;

  // Records `message` as the pending error unless one is pending already.
  void fail(ErrorKind kind, std::string message);
  const Status &pendingError() const { return pendingError_; }
  // Converts the fault record *args.fault into the pending error (bounds are
  // read from args.owners); false if there was a fault.
  bool takeFault(const sluice_rt_kernel_args &args);

  // "stage 'name'" and "owner 'name'" (or "owner #n") for messages.
  std::string stageLabel(uint32_t stage) const;
  std::string ownerLabel(uint32_t owner) const;

  //===--------------------------------------------------------------------===//
  // State, public for devices that schedule on their own (the CPU
  // megakernel). Valid after a successful allocate(); only beginDispatch(),
  // finishDispatch(), refill() and reset() change it otherwise.
  //===--------------------------------------------------------------------===//
  const ProgramDescriptor *program = nullptr;
  ProgramShape shapeCopy; // the router keeps its own tables
  const ProgramShape *shape = &shapeCopy;
  uint32_t framePool = 0;

  ComputedFrameLayout layout;
  unsigned char *frames = nullptr; // layout.totalBytes, device memory
  std::vector<uint32_t> laneOfFrame;
  FrameSet freeFrames;              // refilled lowest first
  std::vector<FrameSet> mainQueues; // dispatched lowest first
  std::vector<OwnerStorage> owners;
  uint64_t lanesStarted = 0;
  uint64_t lanesFinished = 0;
  // Lanes a run may start: compiled kernels read per-lane inputs sized for
  // the lanes their program was loaded for.
  uint64_t laneLimit = UINT64_MAX;

  // The routing and the sorting of a large dispatch run in chunks on these
  // workers (the CPU device's; null: all on the calling thread). The sets,
  // queues and counts after a dispatch are the same either way.
  WorkerPool *parallel = nullptr;

  // Per-dispatch scratch, sized once by allocate(); argsTemplate points at it.
  std::vector<uint32_t> invocations;
  std::vector<uint32_t> nextStage;
  std::vector<uint32_t> publishedCounts;
  std::vector<uint32_t> publishedSlots;
  std::vector<sluice_rt_owner_slots> ownerSlots;
  std::vector<uint32_t> windowScratch; // prepareOwnerSlots' lowest slots
  sluice_rt_kernel_args argsTemplate{};
  sluice_rt_fault fault{};

  // Coherence sorting since reset(): dispatches sorted, key bytes read from
  // frame memory (downloaded, on discrete memory) and host time spent.
  struct SortStatistics {
    uint64_t dispatches = 0;
    uint64_t keyBytes = 0;
    double nanoseconds = 0;
  } sortStats;

  //===--------------------------------------------------------------------===//
  // Pieces of a dispatch, for a device placement that keeps its own queues
  // (ResidentRouter) but shares the kernel arguments, the key order, the
  // fault translation and the outcome messages.
  //===--------------------------------------------------------------------===//
  // Sets every owner's bound, publish base and allocation limit for a
  // dispatch of `count` invocations of a stage with `producers`, and the
  // window of the owners it publishes into (their lowest free slots).
  void prepareOwnerSlots(std::span<const ProducerEdge> producers,
                         uint32_t count);
  // Orders invocations[0, count) of main stage `stage` stably by its sort
  // key, when sorting is on and the stage has one.
  Status sortByKey(uint32_t stage, uint32_t count);
  // The order digest (decision::orderTerm) of invocations[0, count).
  uint32_t orderDigest(uint32_t count) const;
  // The digest of the last beginDispatch() of a main stage (0 otherwise).
  uint32_t lastOrder = 0;
  // A run may start `lanes` lanes in all; otherwise the pending error says
  // what the program was loaded for.
  bool checkLaneLimit(uint64_t lanes);
  // Invocation `invocation` of main stage `stage` ended with `next` for the
  // frame of lane `lane`: true when `next` is FINISHED or a main stage,
  // otherwise the pending error names the fault.
  bool checkFrameOutcome(uint32_t stage, uint32_t invocation, uint32_t lane,
                         uint32_t next);
  // The same for the item in `slot` of auxiliary stage `stage`.
  bool checkItemOutcome(uint32_t stage, uint32_t invocation, uint32_t slot,
                        uint32_t next);

private:
  Status allocateTables(Memory &memory);
  void routeMain(const sluice_rt_kernel_args &args);
  // The pending error of items published beyond the free entries of the
  // first stage queue of `owner`.
  void failQueueOverflow(uint32_t owner);
  // routeMain on `parallel`, in `chunks` chunks of invocations.
  void routeMainInChunks(const sluice_rt_kernel_args &args, uint32_t chunks);
  void routeAuxiliary(const sluice_rt_kernel_args &args);
  // routeAuxiliary on `parallel`, in `chunks` chunks of invocations.
  void routeAuxiliaryInChunks(const sluice_rt_kernel_args &args,
                              uint32_t chunks);
  // How many chunks a dispatch of `count` invocations is routed or sorted
  // in: 1 (on the calling thread) for small dispatches or without `parallel`.
  uint32_t chunksFor(uint64_t count) const;

  std::string deviceLabel_;
  bool hostKernels_ = true;
  bool allocated_ = false;
  // The frame sets or free slots changed since the last reset().
  bool queuesUsed_ = true;
  Status pendingError_; // sticky until reset()
  Memory *memory_ = nullptr;
  FrameSorting sorting_;
  FrameSortScratch sortScratch_;
  std::vector<FrameSortScratch> chunkSortScratch_; // one per chunk
  // The last main-stage dispatch's invocations ascend in runs of this many:
  // 1 unsorted, the partition when sorted in partitions (each partition
  // holds the frames it held before, a range of ascending frames), 0 when
  // sorted as one run. A chunk of whole runs shares frame-set words with
  // other chunks only at its lowest and highest frame.
  uint32_t orderUnit_ = 1;
  // routeMainInChunks' and routeAuxiliaryInChunks' tallies, a row a chunk.
  std::vector<uint32_t> chunkTallies_;
  std::vector<uint64_t> sortCodes_;
  std::vector<unsigned char> keyBytes_; // discrete memory: downloaded keys
  std::vector<uint32_t> refillScratch_; // the frames one refill takes
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_HOST_ROUTER_H
