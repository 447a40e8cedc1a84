//===- vulkan.h - Vulkan compute context of the runtime ---------*- C++ -*-===//
//
// The thin Vulkan layer the Vulkan device adapter and the barrier-kernel launch
// ABI stand on. The loader (libvulkan.so.1) is opened with dlopen at run time,
// so nothing links against Vulkan and a machine without it gets a Status, not a
// missing-library error at startup.
//
// Features: shaderInt64 and shaderFloat64 are enabled when the device has
// them; VK_EXT_shader_atomic_float and its buffer float32/float64 atomic-add
// features when the device offers the extension. checkShaderCapabilities says
// which one a module needs and the device lacks.
//
// Device selection: SLUICE_VULKAN_DEVICE picks a physical device by index (all
// digits) or by a case-insensitive substring of its name; otherwise the first
// discrete GPU, then integrated, virtual, CPU (Mesa lavapipe), other. The
// device needs a queue family with compute.
//
// Memory: Placement::Device and Placement::Host buffers are host-visible and
// host-coherent and stay mapped. Placement::Device prefers memory that is also
// device-local (resizable BAR on discrete GPUs; host reads of it are uncached
// and slow), Placement::Host prefers host-cached memory (fast host reads: use
// it for staging). Placement::DeviceOnly prefers device-local memory that is
// not host-visible (VRAM proper), then any device-local memory, then any
// memory; it is mapped only when the type obtained happens to be host-visible
// and host-coherent (integrated GPUs, lavapipe), so data() may be null: move
// its contents with Stream::copy. Placement::DeviceFirst keeps a buffer in
// device-local memory whatever the host can map: device-local host-visible
// memory first (mapped), then device-local memory that is not (unmapped:
// data() null, as DeviceOnly), and host-visible memory only when no
// device-local memory is left; for buffers that kernels use hot and the
// host copies now and then, so that a full device-local host-visible heap
// (a BAR without resizable BAR, or one that other processes hold) costs
// their host copies a staging step rather than every kernel access a trip
// over the bus. Every buffer can be a copy source and destination.
//
// Work is recorded into a Stream (one command buffer) and submitted with a
// fence. Commands (dispatches and copies) run in recording order: each one
// after the first is preceded by a global memory barrier from compute and
// transfer writes to compute and transfer reads and writes; the first is
// preceded by a host-write barrier and the last followed by a barrier making
// compute and transfer writes visible to host reads. Each dispatch call (and
// each copy) is timed with timestamp queries when the queue supports them.
//
// Lifetime: Buffers, Kernels and Streams hold a pointer to their Context and
// must be destroyed before it. A Stream is used by one thread at a time;
// several streams of one Context may submit from different threads.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_H
#define SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_H

#include "sluice/runtime/admission/status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::runtime::vulkan {

struct DeviceInfo {
  uint32_t index = 0; // in the instance's enumeration order
  std::string name;
  std::string type;   // "discrete", "integrated", "virtual", "cpu", "other"
  std::string driver; // driver name and info when the driver reports them
  uint32_t apiVersion = 0;
  // Shader features, each enabled on the device when supported. The two
  // atomic-float bits are those of VK_EXT_shader_atomic_float (false when the
  // device does not offer the extension), which is then enabled too.
  bool shaderInt64 = false;
  bool shaderFloat64 = false;
  bool shaderBufferFloat32AtomicAdd = false;
  bool shaderBufferFloat64AtomicAdd = false;
  // VK_KHR_shader_atomic_int64's buffer bit (false without the extension,
  // which is then enabled too): 64-bit integer atomics on storage buffers.
  bool shaderBufferInt64Atomics = false;
  // VkPhysicalDeviceSubgroupProperties (core in 1.1): compute shaders have
  // the basic, arithmetic, ballot and shuffle subgroup operations.
  bool computeSubgroupOperations = false;
  // Small types: shaderInt16 (core), shaderFloat16 and shaderInt8
  // (VkPhysicalDeviceShaderFloat16Int8Features: core in 1.2, else
  // VK_KHR_shader_float16_int8), the 16-bit storage bits (core in 1.1) and
  // the 8-bit storage bits (core in 1.2, else VK_KHR_8bit_storage).
  bool shaderInt16 = false;
  bool shaderFloat16 = false;
  bool shaderInt8 = false;
  bool storageBuffer16BitAccess = false;
  bool storageBuffer8BitAccess = false;
  // bufferDeviceAddress (core in 1.2; enabled when the device runs 1.2 or
  // later and has it): Buffer::deviceAddress() and shaders that read memory
  // through PhysicalStorageBuffer64 pointers (the device placement's
  // scheduler).
  bool bufferDeviceAddress = false;
  // VK_KHR_shader_clock's shaderSubgroupClock (enabled when offered): the
  // device placement's scheduler profile (SLUICE_VULKAN_PROFILE).
  bool shaderSubgroupClock = false;
  uint32_t maxWorkgroupCount[3] = {0, 0, 0};
  uint32_t maxWorkgroupInvocations = 0;
  uint32_t maxSharedMemoryBytes = 0;  // maxComputeSharedMemorySize
  uint64_t maxStorageBufferRange = 0; // largest storage buffer binding
  double timestampPeriodNs = 0;       // 0: no timestamps on the compute queue
};

// Checks that `device` has the feature behind each capability the SPIR-V
// module `spirv` declares (OpCapability): Int64 -> shaderInt64, Float64 ->
// shaderFloat64, AtomicFloat32AddEXT -> shaderBufferFloat32AtomicAdd,
// AtomicFloat64AddEXT -> shaderBufferFloat64AtomicAdd, Int64Atomics ->
// shaderBufferInt64Atomics, Int16 -> shaderInt16, Float16 -> shaderFloat16,
// Int8 -> shaderInt8, StorageBuffer16BitAccess -> storageBuffer16BitAccess,
// StorageBuffer8BitAccess -> storageBuffer8BitAccess; other capabilities are
// not checked. A missing feature is DeviceUnavailable naming the device, the
// feature, `what` ("the kernels of <what> use ...") and what needs it. A
// module without the SPIR-V header, or with an instruction whose word count
// is 0 or runs past the end, is InvalidArgument.
Status checkShaderCapabilities(std::span<const uint32_t> spirv,
                               const DeviceInfo &device, std::string_view what);

// Whether the SPIR-V module `spirv` has the entry point `entryPoint`.
bool hasEntryPoint(std::span<const uint32_t> spirv,
                   std::string_view entryPoint);

// The bindings (descriptor set 0, below `bindings`) that the functions the
// entry point `entryPoint` reaches mention, ascending; all of 0 .. bindings-1
// when the module cannot be read or has no such entry point. A kernel's
// descriptor set layout holds only these.
std::vector<uint32_t> entryPointBindings(std::span<const uint32_t> spirv,
                                         std::string_view entryPoint,
                                         uint32_t bindings);

// Where a buffer's memory lives; see the header comment. DeviceOnly buffers may
// be unmapped (Buffer::data() null).
enum class Placement : uint8_t { Device, Host, DeviceOnly, DeviceFirst };

class Context;

namespace detail {
struct DescriptorWrites;
} // namespace detail

// A storage buffer; host-visible ones are mapped for their whole life, and
// data() is null for one that is not mapped (Placement::DeviceOnly and
// DeviceFirst may give such a buffer). Sizes are
// rounded up to a multiple of 4 bytes, at least 16.
class Buffer {
public:
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  void *data() const { return mapped_; }
  uint64_t size() const { return size_; }
  bool deviceLocal() const { return deviceLocal_; }
  bool hostVisible() const { return mapped_ != nullptr; }
  // The buffer's device address (vkGetBufferDeviceAddress); 0 when the
  // device has no bufferDeviceAddress.
  uint64_t deviceAddress() const { return address_; }

private:
  friend class Context;
  friend class Stream;
  friend class Recording;
  friend struct detail::DescriptorWrites;
  Buffer() = default;
  Context *context_ = nullptr;
  void *mapped_ = nullptr;
  uint64_t size_ = 0;
  bool deviceLocal_ = false;
  uint64_t buffer_ = 0; // VkBuffer
  uint64_t memory_ = 0; // VkDeviceMemory
  uint64_t address_ = 0; // VkDeviceAddress
};

// One compute pipeline: an entry point of a SPIR-V module whose interface is
// `bindings` storage buffers at set 0, bindings 0..bindings-1, and
// `pushConstantBytes` bytes of push constants (0: none).
class Kernel {
public:
  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  const std::string &entryPoint() const { return entry_; }
  uint32_t bindingCount() const { return bindings_; }
  uint32_t pushConstantBytes() const { return pushBytes_; }

private:
  friend class Context;
  friend class Stream;
  friend class Recording;
  Kernel() = default;
  Context *context_ = nullptr;
  std::string entry_;
  uint32_t bindings_ = 0;                // the arguments a dispatch passes
  std::vector<uint32_t> usedBindings_;   // those the entry point uses
  uint32_t pushBytes_ = 0;
  uint64_t module_ = 0;   // VkShaderModule
  uint64_t setLayout_ = 0; // VkDescriptorSetLayout
  uint64_t layout_ = 0;   // VkPipelineLayout
  uint64_t pipeline_ = 0; // VkPipeline
};

// An in-order batch of dispatches and copies: record, submit (in pieces, if
// the host should keep recording while the device runs), wait; then
// reusable.
class Stream {
public:
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  // Records a dispatch of `groups` workgroups. A one-dimensional grid (y and z
  // 1) beyond the device's maxComputeWorkGroupCount.x is split into several
  // dispatches with base offsets (vkCmdDispatchBase), so WorkgroupId.x is the
  // id in the whole grid. Multi-dimensional grids are never split (generated
  // code linearizes block ids assuming NumWorkgroups is the whole grid): any
  // dimension beyond its limit is then an error naming the kernel, the grid
  // and the limit. Errors (binding count, push constant size, buffer null,
  // grid) are reported by submitAndWait().
  void dispatch(const Kernel &kernel, std::span<Buffer *const> bindings,
                std::span<const std::byte> pushConstants,
                const uint64_t groups[3]);
  // Records a copy (vkCmdCopyBuffer) of `bytes` bytes from `source` at
  // `sourceOffset` to `destination` at `destinationOffset`, ordered with the
  // other recorded commands. Ranges are checked against Buffer::size(); a
  // range out of bounds, overlapping ranges within one buffer, or a buffer of
  // another context is an error reported by submitAndWait(). A copy of 0
  // bytes records nothing.
  void copy(Buffer &source, uint64_t sourceOffset, Buffer &destination,
            uint64_t destinationOffset, uint64_t bytes);
  // Submits what was recorded so far without waiting: the device runs it
  // while the host records more. The next submitAndWait waits for it too
  // (and reports its errors and timings, in recording order).
  Status submit();
  // Submits what was recorded, waits for the fences, and returns per recorded
  // dispatch call its GPU time in nanoseconds in `dispatchNs`, and per
  // recorded (nonempty) copy call its time in `copyNs` (both empty when the
  // queue has no timestamps). A stream with nothing recorded returns at once.
  Status submitAndWait(std::vector<double> *dispatchNs = nullptr,
                       std::vector<double> *copyNs = nullptr);

private:
  friend class Context;
  Stream() = default;
  struct State;
  std::unique_ptr<State> state_;
};

// A command buffer recorded once and submitted any number of times: the
// device placement's batch of scheduler iterations, whose dispatches read
// their grids from buffers the previous dispatch wrote. Nothing is ordered
// implicitly: barrier() orders every command before it (compute writes)
// before every command after it (compute reads and writes, indirect reads);
// directBarrier() does the same without the indirect reads.
// Descriptor sets are written once per kernel and binding list. Errors of
// the recording calls are reported by finish().
class Recording {
public:
  ~Recording();
  Recording(const Recording &) = delete;
  Recording &operator=(const Recording &) = delete;
  void dispatch(const Kernel &kernel, std::span<Buffer *const> bindings,
                std::span<const std::byte> pushConstants, uint32_t groups);
  // The grid is the three u32 at `offset` in `arguments` (VkDispatchIndirect
  // Command), read when the dispatch starts; x = 0 runs nothing.
  void dispatchIndirect(const Kernel &kernel, std::span<Buffer *const> bindings,
                        std::span<const std::byte> pushConstants,
                        const Buffer &arguments, uint64_t offset);
  void barrier();
  // barrier() without the indirect-argument stage in its destination: the
  // commands before it (compute writes, and the indirect dispatches' reads
  // of their arguments) before the compute reads and writes after it. An
  // indirect dispatch after it may read only arguments that an earlier
  // barrier() made visible (one whose writer ran before that barrier): a
  // barrier's second scope holds every later command. On NVIDIA a barrier
  // with the indirect-argument stage costs about 2.5 µs more (an H100).
  void directBarrier();
  // Copies `bytes` from `source` at `sourceOffset` to `destination` at
  // `destinationOffset`, after every command recorded before it and before
  // every command after it (and the host's reads after the submission):
  // what a batch's log wants, read by the host from host-cached memory
  // rather than across the bus from device-local memory.
  void copy(const Buffer &source, uint64_t sourceOffset,
            const Buffer &destination, uint64_t destinationOffset,
            uint64_t bytes);
  // Sets `bytes` (a multiple of 4) of `buffer` at `offset` (4-aligned) to
  // the word `value` (vkCmdFillBuffer), after every command recorded before
  // it and before every command after it, in this recording or a later
  // submission: what resets a batch's log for the batch queued behind it.
  void fill(const Buffer &buffer, uint64_t offset, uint64_t bytes,
            uint32_t value);
  // Records a timestamp query, written once every command recorded before it
  // has completed (at most the `timestamps` createRecording() allowed; none
  // where the queue has no timestamps). wait() returns them.
  void timestamp();
  // Ends the recording; then submit() and wait() any number of times.
  Status finish();
  // Queues the recording once (host writes before it are visible to it). It
  // runs after every submission queued before it on the context's queue, so
  // two recordings may be in flight at once, each submitted again after its
  // wait(); a recording already in flight is an error.
  Status submit();
  // Waits for the submission (its writes are visible to the host after).
  // `gpuNanoseconds`: the time between a timestamp at its start and one at
  // its end (0 when the queue has no timestamps). `timestamps`: those of
  // timestamp(), in nanoseconds of the device clock from its start (empty
  // when the queue has no timestamps). Without a submission in flight, an
  // error.
  Status wait(double *gpuNanoseconds = nullptr,
              std::vector<uint64_t> *timestamps = nullptr);
  // submit(), then wait().
  Status submitAndWait(double *gpuNanoseconds = nullptr,
                       std::vector<uint64_t> *timestamps = nullptr);
  bool inFlight() const;

private:
  friend class Context;
  Recording() = default;
  struct State;
  std::unique_ptr<State> state_;
};

class Context {
public:
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  // Opens the loader, creates an instance (Vulkan 1.1) and a device as the
  // header comment says. Errors name what is missing (the loader, any device,
  // the device SLUICE_VULKAN_DEVICE asked for, with the list of devices).
  static Status create(std::unique_ptr<Context> &out);
  // Every physical device the loader reports (for --list-devices style
  // output); fails like create() when there is no loader.
  static Status listDevices(std::vector<DeviceInfo> &out);

  const DeviceInfo &info() const;

  Status createBuffer(uint64_t bytes, Placement placement,
                      std::unique_ptr<Buffer> &out);
  // `words` is a SPIR-V binary (checked for the magic number).
  Status createKernel(std::span<const uint32_t> words,
                      const std::string &entryPoint, uint32_t bindings,
                      uint32_t pushConstantBytes, std::unique_ptr<Kernel> &out);
  // `timestamps` false: the stream writes no timestamp queries, so its
  // submitAndWait returns no times (what an untimed batch of launches wants:
  // two queries per command cost the device time).
  Status createStream(std::unique_ptr<Stream> &out, bool timestamps = true);
  // `timestamps`: how many Recording::timestamp() calls it may hold.
  Status createRecording(std::unique_ptr<Recording> &out,
                         uint32_t timestamps = 0);

private:
  friend class Buffer;
  friend class Kernel;
  friend class Stream;
  friend class Recording;
  Context();
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace sluice::runtime::vulkan

#endif // SLUICE_RUNTIME_DEVICE_VULKAN_VULKAN_H
