//===- compiled_kernel_device.h - One device for compiled kernels -*- C++ -*-===//
//
// Everything a backend that runs the artifact's compiled stage kernels shares
// with every other such backend, written once:
//
//   KernelPrimitives     what a backend supplies: buffers, upload, download,
//                        launch, wait (the time comes with the wait)
//   CompiledKernels      the per-dispatch half: the kernel ABI's argument
//                        table (KernelABI.h), the resident buffers (payload
//                        fields, lane inputs, bindings), the scratch a
//                        dispatch sizes, the copies in and out around a
//                        launch, prepareGpuDispatch / finishGpuDispatch
//   CompiledKernelDevice a wavefront Device over CompiledKernels: the host
//                        router, shape checks, statistics
//
// The Vulkan adapter (and the next one) is a KernelPrimitives plus a
// CompiledKernelDevice. The CPU adapter keeps the CPU device (its worker pool
// and its state-machine schedule run host kernels) and calls CompiledKernels
// from its one host kernel; its primitives have unified memory, so arguments
// are host pointers and nothing is copied around a launch.
//
// Discrete memory (unifiedMemory() false): a dispatch uploads what it reads
// (invocations, outcomes and publish counts as the router initialised them,
// counters, admission windows, fault record; lane ids only after they
// changed) and downloads what the kernel wrote. Payload fields, lane inputs
// and bindings stay resident and are never copied by a dispatch.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_COMPILED_KERNEL_DEVICE_H
#define SLUICE_RUNTIME_DEVICE_COMPILED_KERNEL_DEVICE_H

#include "sluice/runtime/device/device.h"
#include "sluice/runtime/device/gpu_abi.h"

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace sluice::runtime {

class WorkerPool;

class HostRouter;

// Memory a backend's kernels read and write, created by its primitives.
class KernelBuffer {
public:
  virtual ~KernelBuffer();
  uint64_t bytes() const { return bytes_; }

protected:
  explicit KernelBuffer(uint64_t bytes) : bytes_(bytes) {}

private:
  uint64_t bytes_;
};

// One kernel argument of a launch, in the kernel ABI's order (after the
// invocation count, which launch() takes separately).
struct LaunchArgument {
  KernelBuffer *buffer = nullptr; // discrete memory: the device buffer
  void *host = nullptr;           // unified memory: what the kernel accesses
  uint64_t elements = 0;          // a rank-1 argument's extent
  std::span<const int64_t> shape; // a binding's kernel shape (else empty)
};

// What a buffer is for: where a discrete backend should put it.
enum class KernelBufferUse : uint8_t {
  // Read and written by kernels for a whole run or longer (frames, payload
  // fields, inputs, bindings, and in the device placement the
  // per-invocation arrays: CompiledKernels::placeArrays), or hot in every
  // invocation while the host copies only a few words of it (field
  // offsets, counters, allocation limits, the megakernel's machine words:
  // atomics and repeated reads): device-local memory. A backend stages
  // large downloads of it.
  Resident,
  // The host placement's per-invocation arrays, which a dispatch uploads or
  // downloads whole (invocations, lane ids, outcomes, publish records, the
  // fault, the admission windows): memory the host reads fast
  // (host-cached), which kernels reach over the bus.
  Transfer,
};

struct ResidentLaunch;       // runtime/device/resident_launch.h
struct ResidentLaunchResult;

class KernelPrimitives {
public:
  virtual ~KernelPrimitives();
  // Prefixes messages: "vulkan device".
  virtual std::string label() const = 0;
  // Kernels access host memory in place: arguments are LaunchArgument::host
  // and no dispatch uploads or downloads anything.
  virtual bool unifiedMemory() const = 0;
  // A buffer of at least `bytes` bytes (a zero-byte one is still valid).
  virtual Status createBuffer(uint64_t bytes, KernelBufferUse use,
                              std::unique_ptr<KernelBuffer> &out) = 0;
  // Unified memory only: the host address of `buffer`.
  virtual void *hostAddress(KernelBuffer &buffer);
  // Host -> buffer at byte 0; device -> host. Ordered with launches: an
  // upload happens before the launches enqueued after it, a download after
  // wait().
  virtual Status upload(KernelBuffer &buffer,
                        std::span<const unsigned char> bytes) = 0;
  virtual Status download(const KernelBuffer &buffer,
                          std::span<unsigned char> out) = 0;
  // Device -> host from byte `offset` of `buffer` (offset + out.size() must
  // not exceed it), after wait(): how the router reads a sort key column.
  virtual Status downloadRange(const KernelBuffer &buffer, uint64_t offset,
                               std::span<unsigned char> out) = 0;
  // Makes whatever a later download of up to `bytes` bytes needs (a staging
  // buffer), so that the download does not make it. Nothing by default.
  virtual Status reserveDownload(uint64_t bytes) {
    (void)bytes;
    return Status::success();
  }
  // Enqueues global stage `stage`'s kernel over `count` invocations.
  virtual Status launch(uint32_t stage,
                        std::span<const LaunchArgument> arguments,
                        uint32_t count) = 0;
  // Waits for every enqueued launch; `gpuNanoseconds` gets their device
  // time (0 when the backend cannot measure it).
  virtual Status wait(double &gpuNanoseconds) = 0;
  // Workers for the host's part of a large dispatch (copying its publish
  // records); null (the default): the calling thread does it.
  virtual WorkerPool *hostWorkers() { return nullptr; }
  // Device::prepare: the pipelines of the megakernel (`stateMachine`) and
  // of the device placement (`resident`), made now rather than at their
  // first launch. The default makes nothing.
  virtual Status prepare(bool stateMachine, bool resident);
  // The lanes one megakernel thread may claim per launch: a device that
  // bounds a kernel's loop iterations (Mesa lavapipe) needs short launches.
  virtual uint32_t megakernelLanesPerThread() const;
  // The device placement of the scheduler (DESIGN.md §2.4): success when
  // runResident() can run the whole loop on this device, otherwise why not.
  virtual Status residentSupport() const;
  // Runs every iteration on the device (resident_launch.h, internal).
  virtual Status runResident(const ResidentLaunch &launch,
                             ResidentLaunchResult &out);
  // Sets up, before a run's clock, what runResident() of a launch of this
  // shape builds and allocates (its state's image and buffer), so that the
  // run finds them made and only writes its initial contents (the default:
  // nothing to set up).
  virtual Status prepareResidentState(const ResidentLaunch &launch);
  // Device::prefersDevicePlacement (the default: no).
  virtual bool prefersDevicePlacement() const { return false; }
  // Device::runsOwnerPolicies and Device::policyClient (the defaults: the
  // device placement does not, the host placement calls host functions).
  virtual bool runsOwnerPolicies() const { return false; }
  virtual std::unique_ptr<CapacityOwnerClient>
  policyClient(uint32_t owner, const OwnerPolicy &policy);
};

struct DispatchTimes {
  double gpuNanoseconds = 0;        // the launch's device time
  double launchWaitNanoseconds = 0; // host: launch() and wait()
};

// What an adapter knows of the compiled program's kernels.
struct CompiledKernelShape {
  uint32_t stages = 0; // kernels, one per global stage
  GpuKernelLayout layout;
  // Per owner, per payload field: bytes of one element in the kernels.
  std::vector<std::vector<uint32_t>> payloadElementBytes;
  // Per coroutine argument: the input array (indexed by lane id).
  std::vector<std::vector<unsigned char>> inputs;
  // Resident buffers after the inputs (the program's bindings, then their
  // extents).
  uint32_t residentBuffers = 0;
  // Lanes a run may start: the inputs are sized for them.
  uint64_t lanes = UINT64_MAX;
  // The kernels include the megakernel (KernelABI.h), launched as kernel
  // `stages`: the state-machine schedule runs.
  bool megakernel = false;
  // Its uniforms, packed into the machine words: per uniform binding, its
  // resident buffer and its words (CompiledProgram::megakernelUniforms).
  std::vector<std::pair<uint32_t, uint32_t>> megakernelUniforms;
};

// The shape of a GPU backend's loaded program (HipProgram, VulkanProgram:
// the fields every one of them has), moved out of it: `stages` kernels,
// `residentBuffers` buffers after the inputs.
template <typename GpuProgram>
CompiledKernelShape takeKernelShape(GpuProgram &program, uint32_t stages,
                                    uint32_t residentBuffers) {
  CompiledKernelShape shape;
  shape.stages = stages;
  shape.layout = std::move(program.layout);
  shape.payloadElementBytes = std::move(program.payloadElementBytes);
  shape.inputs = std::move(program.inputs);
  shape.residentBuffers = residentBuffers;
  shape.lanes = program.lanes;
  shape.megakernel = !program.megakernel.empty();
  shape.megakernelUniforms = std::move(program.megakernelUniforms);
  return shape;
}

// One state-machine run of the megakernel, in launches of at most
// `lanesPerThread` lanes per thread.
struct MegakernelRun {
  uint32_t threads = 0;
  uint32_t lanes = 0;
  uint32_t lanesPerThread = 0;
};

// What the megakernel's launches counted; a fault stops the run.
struct MegakernelResult {
  std::vector<StageStatistics> stages; // per global stage
  uint64_t lanesFinished = 0;
  uint32_t launches = 0;
  int32_t fault[kGpuFaultWords] = {};
  uint32_t faultLane = 0; // the lane the faulting thread claimed last
  DispatchTimes times;    // summed over the launches
};

// Per-dispatch host scratch. A dispatch resizes it; with unified memory,
// concurrent dispatches with distinct scratches are allowed.
struct DispatchScratch {
  std::vector<int32_t> counters;
  std::vector<int32_t> allocLimits;
  std::vector<uint32_t> publishedSlots;
  std::vector<uint32_t> zeros;
  std::vector<std::vector<uint32_t>> rings;
  int32_t fault[kGpuFaultWords] = {};
  GpuDispatchViews views;
  std::vector<LaunchArgument> arguments;
};


class CompiledKernels {
public:
  // Creates the payload-field and input buffers (inputs uploaded).
  Status initialize(KernelPrimitives &primitives, CompiledKernelShape shape);
  const CompiledKernelShape &shape() const { return shape_; }
  KernelPrimitives &primitives() const { return *primitives_; }

  // The program's shape agrees with the compiled kernels (stages, owners),
  // and every resident buffer was set: a run may allocate.
  Status checkProgramShape(const ProgramShape &shape) const;

  // Resident buffer `index` becomes `bytes` (a new buffer when its size
  // changes); `kernelShape` is the argument's shape (a binding's extents).
  Status setResident(uint32_t index, std::span<const unsigned char> bytes,
                     std::span<const int64_t> kernelShape);
  // Copies resident buffer `index` into `out` (no larger than the buffer).
  Status getResident(uint32_t index, std::span<unsigned char> out) const;

  // Discrete memory: sizes the per-dispatch device buffers for `router` and
  // uploads its field offsets; `frames` is the frame buffer it was given.
  // The per-invocation arrays are made with the use placeArrays() last set.
  Status allocate(const HostRouter &router, KernelBuffer *frames);

  // Where the per-invocation arrays live (the invocation list, the lane
  // ids, the outcomes, the publish records, the fault words and the
  // admission windows): Transfer memory for the host placement, which fills
  // and reads them around every dispatch; device memory (Resident) for the
  // device placement, where only kernels touch them between the run's start
  // and its end, and where Transfer memory would make each invocation's
  // frame index, outcome and window slot a round trip over the bus. Makes
  // them again, at their sizes for `router` when it is allocated, if they
  // were made with the other use; their contents do not survive that
  // (the lane ids are uploaded again: the caller marks them changed).
  Status placeArrays(const HostRouter &router, KernelBufferUse use);
  KernelBufferUse arrayUse() const { return arrayUse_; }

  // Runs `count` invocations of `args` (HostRouter::beginDispatch) and
  // leaves the outcomes where the router reads them (finishGpuDispatch
  // included). `laneIdsChanged`: the router's lane ids changed since the
  // last dispatch (discrete memory uploads them).
  Status dispatch(const sluice_rt_kernel_args &args, uint32_t count,
                  bool laneIdsChanged, DispatchScratch &scratch,
                  DispatchTimes &times);

  // The state-machine schedule: launches the megakernel over `router`'s
  // frames (`frames`, thread g on frame g) until every lane ran, summing
  // what each launch counted. Stops at the first launch that faulted
  // (`out.fault`).
  Status runMegakernel(const HostRouter &router, KernelBuffer &frames,
                       const MegakernelRun &run, MegakernelResult &out);
  // Sizes the megakernel's buffers and host words for `threads` threads
  // (kept when large enough): runMegakernel(), and before a run's clock
  // CompiledKernelDevice::reserveStateMachine().
  Status sizeMegakernel(const HostRouter &router, uint32_t threads);

  // The device placement: the argument table and buffers of `router`'s
  // dispatches at their allocated sizes (discrete memory only).
  Status residentLaunch(const HostRouter &router, ResidentLaunch &out);

private:
  struct Resident {
    std::unique_ptr<KernelBuffer> buffer;
    uint64_t size = 0; // the bytes `buffer` was made for (it may round up)
    std::vector<int64_t> shape;
    uint64_t elements = 0;
    std::vector<unsigned char> small; // a copy of a value of <= 8 bytes
  };
  Status create(uint64_t bytes, KernelBufferUse use,
                std::unique_ptr<KernelBuffer> &out) const;
  LaunchArgument resident(const Resident &buffer) const;
  // The tail of every kernel's argument table: the inputs, then the
  // resident buffers (bindings and their extents).
  void appendInputsAndBindings(std::vector<LaunchArgument> &arguments) const;

  KernelPrimitives *primitives_ = nullptr;
  CompiledKernelShape shape_;
  bool unified_ = true;
  std::vector<std::vector<Resident>> payloads_; // per owner, per field
  std::vector<Resident> inputs_;
  std::vector<Resident> residents_;
  // Discrete memory: the per-dispatch buffers (allocate()).
  struct PerDispatch {
    std::unique_ptr<KernelBuffer> invocations, laneIds, fieldOffsets,
        nextStage, counters, publishedSlots, publishedCounts, allocLimits,
        fault;
    std::vector<std::unique_ptr<KernelBuffer>> rings;
    KernelBuffer *frames = nullptr;
    uint64_t laneIdCount = 0, fieldOffsetCount = 0;
    // The use the per-invocation arrays above were made with.
    KernelBufferUse arrays = KernelBufferUse::Transfer;
  } device_;
  KernelBufferUse arrayUse_ = KernelBufferUse::Transfer; // placeArrays()
  // The megakernel's machine words for `threads` threads: the header and
  // the uniforms (`threadBase` words), then `threadWords` per thread.
  struct MachineWords {
    uint64_t threadWords = 0, threadBase = 0, total = 0;
  };
  MachineWords machineWords(uint32_t threads) const;
  // The megakernel's buffers (runMegakernel), kept between runs.
  struct Megakernel {
    std::unique_ptr<KernelBuffer> placeholder, fieldOffsets, fault, machine;
    std::vector<uint32_t> words; // the machine words, host side
  } megakernel_;
  std::vector<LaunchArgument> residentArguments_; // residentLaunch()
};

struct CompiledKernelStats {
  uint64_t dispatches = 0;
  uint64_t sortedDispatches = 0;    // ordered by a sort key
  uint64_t sortKeyBytes = 0;        // key bytes downloaded for them
  double sortNanoseconds = 0;       // host: downloading and sorting keys
  double gpuNanoseconds = 0;        // the launches' device time
  double submitWaitNanoseconds = 0; // host: launch and wait
  double dispatchNanoseconds = 0;   // host: all of dispatch(), routing included
  // The device placement's last run: its submissions and how it ran an
  // iteration (ResidentLaunchResult::form); 0 and empty otherwise.
  uint64_t residentSubmissions = 0;
  std::string residentForm;
  // SLUICE_VULKAN_PROFILE: the scheduler dispatches' mean cycles per part;
  // SLUICE_HIP_PROFILE: the scheduler kernel's block 0's, per iteration.
  std::string residentProfile;
};

// "<label> (last run): N dispatches, ... ms launch+wait, ... ms in
// dispatch(), ... ms sorting S of them (B key bytes downloaded)".
std::string compiledKernelSummary(const std::string &label,
                                  const CompiledKernelStats &stats);

// The state-machine schedule of a run of `lanes` lanes of `router` as the
// compiled megakernel (`kernels.shape().megakernel`), over `frames`, the
// router's frame memory, which exists once the router is allocated: the
// caller checks that. Thread g owns frame g and `bound` item slots of each
// owner it feeds. The launches' statistics go to `report` (and their counts
// and times to `result`), a kernel fault becomes the router's pending error;
// `label` names the device in messages. CompiledKernelDevice runs it, and
// the CPU device for an artifact's kernels on unified memory.
Status runCompiledStateMachine(CompiledKernels &kernels, HostRouter &router,
                               KernelBuffer &frames, const std::string &label,
                               uint32_t lanes, StateMachineReport &report,
                               MegakernelResult &result);

// A wavefront-schedule Device whose stages are compiled kernels run by
// `primitives`.
class CompiledKernelDevice : public Device {
public:
  ~CompiledKernelDevice() override;

  const CompiledKernelStats &stats() const;
  // Resident buffer `index` (a binding, or the extents after them): see
  // CompiledKernels::setResident. It stays resident: no dispatch copies it.
  Status setBinding(uint32_t index, std::span<const unsigned char> bytes,
                    std::span<const int64_t> kernelShape = {});
  Status getBinding(uint32_t index, std::span<unsigned char> out) const;

  Status allocate(const ProgramDescriptor &program, const ProgramShape &shape,
                  uint32_t framePool) override;
  void reset() override;
  void refill(uint32_t lanes) override;
  void setFrameSorting(const FrameSorting &sorting) override;
  void dispatch(uint32_t stage, uint32_t count) override;
  uint32_t lastDispatchOrder() const override;
  Status readCounts(Observation &out) override;
  // The megakernel, when the compiled kernels have one (else Unsupported).
  Status runStateMachine(uint32_t lanes, StateMachineReport &report) override;
  Status reserveStateMachine(uint32_t lanes) override;
  Status prepare(bool stateMachine, bool resident) override;
  // The device placement, where the primitives have one.
  Status residentSupport() const override;
  bool runsOwnerPolicies() const override;
  bool prefersDevicePlacement() const override;
  std::unique_ptr<CapacityOwnerClient>
  policyClient(uint32_t owner, const OwnerPolicy &policy) override;
  Status runResident(const ResidentRun &run, ResidentLog &log) override;

protected:
  CompiledKernelDevice();
  Status initialize(std::unique_ptr<KernelPrimitives> primitives,
                    CompiledKernelShape shape);
  KernelPrimitives &primitives() const;

private:
  // The per-invocation arrays with `use` (CompiledKernels::placeArrays);
  // the lane ids go up again at the next dispatch.
  Status placeArrays(KernelBufferUse use);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_DEVICE_COMPILED_KERNEL_DEVICE_H
