//===- resident_state.h - A GPU device placement's device state -*- C++ -*-===//
//
// Internal to the runtime. What every GPU adapter of the device placement
// (hip's persistent kernel, Vulkan's recorded batches) builds the same way:
// the one buffer of device state that resident_layout.h's ResidentLayout
// names (the decision tables, the counts, the router's bit sets and free
// rings, the sort scratch, the log), and the reading of a batch's log back
// into the ResidentLog.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_RESIDENT_STATE_H
#define SLUICE_RUNTIME_DEVICE_RESIDENT_STATE_H

#include "resident_launch.h"

#include <functional>
#include <span>
#include <vector>

namespace sluice::runtime {

struct ResidentState {
  // The initial contents (every frame free, every slot in its ring), with
  // the layout at `layoutOffset` once located: the device buffer's first
  // bytes.size() bytes of deviceBytes (work areas follow, which the device
  // writes before it reads them).
  std::vector<unsigned char> bytes;
  uint64_t deviceBytes = 0;
  decision::ResidentLayout layout{};
  // The layout as built, its addresses still offsets into `bytes`
  // (locateResidentState() makes `layout`'s addresses).
  decision::ResidentLayout built{};
  uint64_t records = 0, snapshots = 0, deltas = 0, times = 0, control = 0,
           positions = 0, layoutOffset = 0, // byte offsets into `bytes`
           policyFault = 0, profile = 0;
  uint32_t policyFaultWords = 0;
  uint32_t snapshotWords = 0;
  uint32_t recordCapacity = 0;
  // The sizes of two tables: the emission edges and the sets' words (every
  // global stage's and the free frames').
  uint32_t edgeCount = 0, setWordCount = 0;
};

// The program's limits against resident_layout.h's (an Unsupported error
// naming both when the program exceeds them).
Status checkResidentLimits(const decision::Tables &t);

// The state of `launch`: `gridBlocks` sizes the grid sort's histogram,
// `recordCapacity` the log of one batch. (The hip kernel takes the stage
// kernels' parameter words as a kernel parameter, not from the state.)
void buildResidentState(const ResidentLaunch &launch, uint32_t gridBlocks, uint32_t recordCapacity,
                        ResidentState &out);

// buildResidentState() unless `out` holds the state of a launch that
// differs from `launch` at most in its lane count and iteration limit
// (`builtFor` remembers which launch: empty before the first build), whose
// layout then takes the new ones: the image (5 MB at a frame pool and
// capacity of 1,048,576) is the same for every pass of a renderer.
void buildResidentStateOnce(const ResidentLaunch &launch, uint32_t gridBlocks,
                            uint32_t recordCapacity, ResidentState &out,
                            std::vector<uint64_t> &builtFor);

// Fills the layout's addresses from the state buffer's device address
// `base` and each launch buffer's `address`, and writes the layout into
// `bytes`.
void locateResidentState(
    const ResidentLaunch &launch, uint64_t base,
    const std::function<uint64_t(const KernelBuffer &)> &address,
    ResidentState &state);

// Appends a batch's `n` records (and their snapshots, deltas and times, as
// the device wrote them) to `log`; `firstTime` is the device clock of the
// run's first record (set from it).
void appendResidentBatch(ResidentLog &log, uint32_t n,
                         const decision::Record *records,
                         const uint64_t *snapshots, const uint64_t *deltas,
                         const uint64_t *times, uint32_t snapshotWords,
                         uint64_t &firstTime);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_RESIDENT_STATE_H
