//===- hip_device.cpp - HIP device adapter --------------------------------===//
//
// The HIP primitives of the compiled-kernel device (hip_device.h).
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/hip/hip_device.h"

#include "hip_resident.h"
#include "sluice/ABI/KernelABI.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace sluice::runtime {

namespace {

using hip::DevicePointer;
using hip::Driver;

class HipBuffer final : public KernelBuffer {
public:
  HipBuffer(Driver &driver, uint64_t bytes)
      : KernelBuffer(bytes), driver(driver) {}
  ~HipBuffer() override {
    if (mapped)
      driver.releaseMapped(mapped);
    else
      driver.release(device);
  }
  Driver &driver;
  DevicePointer device = 0;
  void *mapped = nullptr; // Transfer: the host side of mapped memory
};

const HipBuffer &hipBuffer(const KernelBuffer &buffer) {
  return static_cast<const HipBuffer &>(buffer);
}

class HipPrimitives;

// The host placement's client of an owner's compiled policy on the hip
// device: every compiled hook call is a launch of sluice_policy_call (one
// thread) on the device's stream, after the dispatches before it; the
// owner's counts go in and come back (the scheduler checks them), and so
// does the hook's value. The storage stays in device memory.
class HipPolicyClient final : public DevicePolicyClient {
public:
  HipPolicyClient(HipPrimitives &primitives, uint32_t owner,
                  const OwnerPolicy &policy)
      : DevicePolicyClient(policy), primitives(primitives), owner(owner) {}
  ~HipPolicyClient() override;

  void beginRun(const OwnerView &view) override;

private:
  int64_t call(PolicyHook hook, const OwnerView &view, int64_t slots) override;

  HipPrimitives &primitives;
  uint32_t owner;
  DevicePointer storage = 0; // storageWords + 1 words
  DevicePointer scratch = 0; // the value (8 bytes), then the counts
  uint64_t scratchBytes = 0;
};

class HipPrimitives final : public KernelPrimitives {
public:
  std::string label() const override { return "hip device"; }
  bool unifiedMemory() const override { return false; }

  Status createBuffer(uint64_t bytes, KernelBufferUse use,
                      std::unique_ptr<KernelBuffer> &out) override {
    // Kernels that compute index in int32_t address at most INT32_MAX
    // bytes of a buffer (the frames are addressed by byte).
    if (indexBits == 32 && bytes > uint64_t(INT32_MAX))
      return Status::error(
          ErrorKind::OutOfMemory,
          "hip device: the kernels compute index in 32 bits (compiled with "
          "--sluice-hip-index-bitwidth=32), so a buffer they address holds at "
          "most 2147483647 bytes; this one needs " +
              std::to_string(bytes) +
              " (a smaller frame pool or binding, or compile with 64)");
    auto buffer = std::make_unique<HipBuffer>(*driver, bytes);
    if (use == KernelBufferUse::Transfer) {
      if (Status status =
              driver->allocateMapped(bytes, buffer->mapped, buffer->device);
          !status.ok())
        return status;
      std::memset(buffer->mapped, 0, bytes);
    } else {
      if (Status status = driver->allocate(bytes, buffer->device);
          !status.ok())
        return status;
      // Defined contents, as on every other backend.
      if (Status status = driver->fill(buffer->device, 0, bytes, stream);
          !status.ok())
        return status;
      if (Status status = driver->synchronize(stream); !status.ok())
        return status;
    }
    out = std::move(buffer);
    return Status::success();
  }

  // Mapped memory is written in place, device memory by a copy that is
  // complete when this returns (the caller's bytes may go away). Launches
  // still in flight finish first: they may read the buffer.
  Status upload(KernelBuffer &buffer,
                std::span<const unsigned char> bytes) override {
    const HipBuffer &target = hipBuffer(buffer);
    if (bytes.size() > target.bytes())
      return sizeError("an upload", bytes.size(), target.bytes());
    if (bytes.empty())
      return Status::success();
    if (Status status = idle(); !status.ok())
      return status;
    if (target.mapped) {
      std::memcpy(target.mapped, bytes.data(), bytes.size());
      return Status::success();
    }
    if (Status status = driver->copyToDevice(target.device, bytes.data(),
                                             bytes.size(), stream);
        !status.ok())
      return status;
    return driver->synchronize(stream);
  }
  Status download(const KernelBuffer &buffer,
                  std::span<unsigned char> out) override {
    return downloadRange(buffer, 0, out);
  }
  Status downloadRange(const KernelBuffer &buffer, uint64_t offset,
                       std::span<unsigned char> out) override {
    const HipBuffer &source = hipBuffer(buffer);
    if (offset > source.bytes() || out.size() > source.bytes() - offset)
      return sizeError("a download", offset + out.size(), source.bytes());
    if (out.empty())
      return Status::success();
    if (Status status = idle(); !status.ok())
      return status;
    if (source.mapped) {
      std::memcpy(out.data(), static_cast<const char *>(source.mapped) + offset,
                  out.size());
      return Status::success();
    }
    if (Status status = driver->copyToHost(out.data(), source.device + offset,
                                           out.size(), stream);
        !status.ok())
      return status;
    return driver->synchronize(stream);
  }

  Status launch(uint32_t stage, std::span<const LaunchArgument> arguments,
                uint32_t count) override {
    if (stage >= functions.size() || !functions[stage]) {
      if (stage != functions.size() || megakernel.empty())
        return Status::error(ErrorKind::InvalidArgument,
                             label() + ": no kernel " + std::to_string(stage));
      // The megakernel's function at its first launch.
      void *function = nullptr;
      if (Status status = driver->function(module, megakernel, function);
          !status.ok())
        return status;
      functions.push_back(function);
      symbols.push_back(megakernel);
      checked.push_back(false);
    }
    const std::vector<KernelArgumentForm> &form =
        stage < stageCount ? stageForms : megakernelForms;
    if (!checked[stage]) {
      // The compiler and this adapter agree on the parameter list.
      int have = driver->parameterCount(functions[stage]);
      size_t want = kernelParameterCount(form);
      if (have >= 0 && size_t(have) != want)
        return Status::error(ErrorKind::InvalidDescriptor,
                             label() + ": kernel '" + symbols[stage] +
                                 "' takes " + std::to_string(have) +
                                 " parameters, but the kernel ABI passes " +
                                 std::to_string(want));
      checked[stage] = true;
    }
    if (count == 0)
      return Status::success();
    if (Status status = packKernelParameters(
            count, arguments, form,
            [](const LaunchArgument &argument) {
              return argument.buffer ? hipBuffer(*argument.buffer).device
                                     : DevicePointer(0);
            },
            parameters);
        !status.ok())
      return Status::error(status.kind(), label() + ": kernel '" +
                                              symbols[stage] +
                                              "': " + status.message());
    if (!pending) {
      if (Status status = driver->record(start, stream); !status.ok())
        return status;
      pending = true;
    }
    uint32_t grid[3] = {uint32_t((uint64_t(count) + blockLanes - 1) /
                                 blockLanes),
                        1, 1};
    uint32_t block[3] = {blockLanes, 1, 1};
    return driver->launch(functions[stage], grid, block, 0, stream,
                          parameters.pointers.data());
  }

  Status wait(double &gpuNanoseconds) override {
    gpuNanoseconds = 0;
    if (!policyFailure.ok())
      return std::exchange(policyFailure, Status::success());
    if (!pending)
      return driver->synchronize(stream);
    pending = false;
    if (Status status = driver->record(end, stream); !status.ok())
      return status;
    if (Status status = driver->synchronize(stream); !status.ok())
      return Status::error(status.kind(),
                           label() + ": a kernel failed: " + status.message());
    float ms = 0;
    if (driver->elapsedMilliseconds(start, end, ms).ok())
      gpuNanoseconds = double(ms) * 1e6;
    return Status::success();
  }

  // A GPU: the device placement saves the host round trip of every
  // iteration (the path tracer: 1,809 against 28 Mrays/s on an H100).
  bool prefersDevicePlacement() const override { return true; }

  // The device placement: a cooperative launch and a body function for
  // every stage kernel.
  Status residentSupport() const override {
    if (Status support = driver->cooperativeSupport(); !support.ok())
      return Status::error(ErrorKind::Unsupported,
                           label() + ": " + support.message());
    for (uint32_t s = 0; s < stageCount; ++s) {
      std::string body;
      if (Status status = hip::stageBodySymbol(source, symbols[s], body);
          !status.ok())
        return Status::error(status.kind(), label() + ": " + status.message());
    }
    return Status::success();
  }

  // The scheduler kernel with the program's stage bodies, compiled and
  // loaded once (NVRTC takes seconds where the cache has no image yet).
  Status prepareResident() {
    std::vector<std::string> stageSymbols(symbols.begin(),
                                          symbols.begin() + stageCount);
    return resident.prepare(*driver, source, stageSymbols,
                            kernelParameterCount(stageForms));
  }
  Status prepare(bool, bool deviceScheduler) override {
    return deviceScheduler ? prepareResident() : Status::success();
  }

  Status prepareResidentState(const ResidentLaunch &launch) override {
    if (Status status = prepareResident(); !status.ok())
      return status;
    return resident.prepareState(*driver, launch);
  }

  Status runResident(const ResidentLaunch &launch,
                     ResidentLaunchResult &out) override {
    if (Status status = idle(); !status.ok())
      return status;
    if (Status status = prepareResident(); !status.ok())
      return status;
    auto address = [](const LaunchArgument &argument) {
      return argument.buffer ? hipBuffer(*argument.buffer).device
                             : DevicePointer(0);
    };
    KernelParameters words;
    if (Status status = packKernelParameters(0, launch.arguments, stageForms,
                                             address, words);
        !status.ok())
      return status;
    return resident.run(
        *driver, stream, start, end, launch, words.values,
        [](const KernelBuffer &buffer) { return hipBuffer(buffer).device; },
        out);
  }

  bool runsOwnerPolicies() const override { return true; }
  std::unique_ptr<CapacityOwnerClient>
  policyClient(uint32_t owner, const OwnerPolicy &policy) override {
    return std::make_unique<HipPolicyClient>(*this, owner, policy);
  }

  // The device is idle when the host touches its memory.
  Status idle() {
    if (!pending)
      return Status::success();
    double ignored = 0;
    return wait(ignored);
  }
  Status sizeError(const char *what, uint64_t bytes, uint64_t size) const {
    return Status::error(ErrorKind::InvalidArgument,
                         label() + ": " + what + " of " +
                             std::to_string(bytes) + " bytes from a buffer of " +
                             std::to_string(size));
  }

  Driver *driver = nullptr;
  void *stream = nullptr, *start = nullptr, *end = nullptr;
  void *module = nullptr;
  std::vector<void *> functions;    // per global stage, then the megakernel
  std::vector<std::string> symbols; // the same order
  std::vector<bool> checked;        // parameter count checked
  std::string megakernel;
  uint32_t stageCount = 0;
  uint32_t indexBits = 64; // HipProgram::indexBits
  std::vector<KernelArgumentForm> stageForms, megakernelForms;
  uint32_t blockLanes = 64;
  bool pending = false; // launches since the last wait
  KernelParameters parameters;
  std::string source; // the program's HIP source
  hip::ResidentScheduler resident;
  void *policyCall = nullptr; // sluice_policy_call, when a policy exists
  // A hook call's driver failure, reported by the next wait().
  Status policyFailure;
};

HipPolicyClient::~HipPolicyClient() {
  if (storage)
    primitives.driver->release(storage);
  if (scratch)
    primitives.driver->release(scratch);
}

void HipPolicyClient::beginRun(const OwnerView &view) {
  Driver &driver = *primitives.driver;
  uint64_t bytes = (uint64_t(policy().storageWords) + 1) * 8;
  Status status = Status::success();
  if (!storage)
    status = driver.allocate(bytes, storage);
  if (status.ok() && !scratch) {
    scratchBytes = 8 + std::max<uint64_t>(view.stageCounts.size(), 1) * 4;
    status = driver.allocate(scratchBytes, scratch);
  }
  if (status.ok())
    status = driver.fill(storage, 0, bytes, primitives.stream);
  if (status.ok())
    status = driver.synchronize(primitives.stream);
  if (!status.ok() && primitives.policyFailure.ok())
    primitives.policyFailure = status;
}

int64_t HipPolicyClient::call(PolicyHook hook, const OwnerView &view,
                              int64_t slots) {
  Driver &driver = *primitives.driver;
  void *stream = primitives.stream;
  // The scheduler's own counts: a hook that writes them is caught after.
  auto *counts = const_cast<uint32_t *>(view.stageCounts.data());
  uint64_t countBytes = view.stageCounts.size() * 4;
  int64_t value = 0;
  Status status = primitives.idle();
  if (status.ok() && (!storage || !primitives.policyCall))
    status = Status::error(ErrorKind::InvalidState,
                           "hip device: owner '" + std::string(view.name) +
                               "': a policy hook call before the run began");
  if (status.ok() && countBytes)
    status = driver.copyToDevice(scratch + 8, counts, countBytes, stream);
  if (status.ok()) {
    uint32_t ownerWord = owner, hookWord = uint32_t(hook);
    uint64_t storageWord = storage, countsWord = scratch + 8,
             valueWord = scratch;
    int64_t capacity = view.capacity, live = view.live;
    void *parameters[] = {&ownerWord, &hookWord, &storageWord, &countsWord,
                          &capacity,  &live,     &slots,       &valueWord};
    uint32_t one[3] = {1, 1, 1};
    status = driver.launch(primitives.policyCall, one, one, 0, stream,
                           parameters);
  }
  if (status.ok())
    status = driver.copyToHost(&value, scratch, 8, stream);
  if (status.ok() && countBytes)
    status = driver.copyToHost(counts, scratch + 8, countBytes, stream);
  if (status.ok())
    status = driver.synchronize(stream);
  if (!status.ok() && primitives.policyFailure.ok())
    primitives.policyFailure = Status::error(
        status.kind(), "hip device: owner '" + std::string(view.name) +
                           "': hook " + policy().describe(hook) + ": " +
                           status.message());
  return value;
}

} // namespace

std::vector<KernelArgumentForm>
kernelArgumentForms(std::span<const std::vector<uint32_t>> payloadElementBytes,
                    size_t inputs,
                    std::span<const std::vector<int64_t>> bindingShapes,
                    bool megakernel) {
  const KernelArgumentForm dynamic = {-1};
  // The fixed arrays after the count: invocations .. fault.
  std::vector<KernelArgumentForm> forms(SLUICE_KARG_FIRST_OWNER - 1, dynamic);
  for (const std::vector<uint32_t> &fields : payloadElementBytes)
    forms.insert(forms.end(), 1 + fields.size(), dynamic);
  forms.insert(forms.end(), inputs, dynamic);
  for (const std::vector<int64_t> &shape : bindingShapes)
    forms.push_back(shape);
  forms.push_back(dynamic); // the binding extents
  if (megakernel)
    forms.push_back(dynamic); // the machine words
  return forms;
}

size_t kernelParameterCount(std::span<const KernelArgumentForm> forms) {
  size_t count = 1;
  for (const KernelArgumentForm &form : forms) {
    count += 1;
    for (int64_t extent : form)
      count += extent < 0;
  }
  return count;
}

Status packKernelParameters(
    uint64_t count, std::span<const LaunchArgument> arguments,
    std::span<const KernelArgumentForm> forms,
    const std::function<hip::DevicePointer(const LaunchArgument &)> &address,
    KernelParameters &out) {
  if (arguments.size() != forms.size())
    return Status::error(ErrorKind::InvalidArgument,
                         std::to_string(arguments.size()) +
                             " launch arguments for a kernel of " +
                             std::to_string(forms.size()));
  out.values.clear();
  out.values.push_back(count);
  for (size_t a = 0; a < arguments.size(); ++a) {
    const LaunchArgument &argument = arguments[a];
    const KernelArgumentForm &form = forms[a];
    out.values.push_back(address(argument));
    for (size_t d = 0; d < form.size(); ++d) {
      if (form[d] >= 0)
        continue;
      if (argument.shape.empty() && form.size() == 1) {
        out.values.push_back(argument.elements);
        continue;
      }
      if (d >= argument.shape.size())
        return Status::error(ErrorKind::InvalidArgument,
                             "argument " + std::to_string(a) + " has rank " +
                                 std::to_string(argument.shape.size()) +
                                 " but its dimension " + std::to_string(d) +
                                 " is dynamic in the kernel");
      out.values.push_back(uint64_t(argument.shape[d]));
    }
  }
  // Pointers last: values no longer moves.
  out.pointers.resize(out.values.size());
  for (size_t i = 0; i < out.values.size(); ++i)
    out.pointers[i] = &out.values[i];
  return Status::success();
}

HipDevice::~HipDevice() = default;

std::string HipDevice::deviceName() const {
  return static_cast<const HipPrimitives &>(primitives()).driver->describe();
}

Status HipDevice::create(HipProgram program, std::unique_ptr<HipDevice> &out) {
  if (program.blockLanes == 0)
    return Status::error(ErrorKind::InvalidArgument,
                         "hip device: block lanes 0");
  auto primitives = std::make_unique<HipPrimitives>();
  HipPrimitives &p = *primitives;
  p.blockLanes = program.blockLanes;
  if (Status status = hip::processDriver(p.driver); !status.ok())
    return status;
  Driver &driver = *p.driver;
  if (int(program.blockLanes) > driver.info().maxThreadsPerBlock &&
      driver.info().maxThreadsPerBlock > 0)
    return Status::error(ErrorKind::Unsupported,
                         "hip device: blocks of " +
                             std::to_string(program.blockLanes) +
                             " threads, but " + driver.describe() +
                             " allows " +
                             std::to_string(driver.info().maxThreadsPerBlock));
  std::string policies;
  if (Status status =
          hip::policyHookSource(program.source, program.policies, policies);
      !status.ok())
    return status;
  program.source += policies;
  p.source = program.source;
  std::vector<char> image;
  if (Status status = driver.compile(program.source, "the program's HIP source",
                                     image);
      !status.ok())
    return status;
  if (Status status = driver.loadModule(image, p.module); !status.ok())
    return status;
  for (const std::string &symbol : program.symbols) {
    void *function = nullptr;
    if (Status status = driver.function(p.module, symbol, function);
        !status.ok())
      return status;
    p.functions.push_back(function);
    p.symbols.push_back(symbol);
    p.checked.push_back(false);
  }
  if (!policies.empty())
    if (Status status =
            driver.function(p.module, hip::kPolicyCallSymbol, p.policyCall);
        !status.ok())
      return status;
  p.stageCount = uint32_t(program.symbols.size());
  p.indexBits = program.indexBits;
  p.megakernel = program.megakernel;
  p.stageForms =
      kernelArgumentForms(program.payloadElementBytes, program.inputs.size(),
                          program.bindingShapes, /*megakernel=*/false);
  p.megakernelForms =
      kernelArgumentForms(program.payloadElementBytes, program.inputs.size(),
                          program.bindingShapes, /*megakernel=*/true);
  if (Status status = driver.createStream(p.stream); !status.ok())
    return status;
  if (Status status = driver.createEvent(p.start); !status.ok())
    return status;
  if (Status status = driver.createEvent(p.end); !status.ok())
    return status;

  CompiledKernelShape shape =
      takeKernelShape(program, uint32_t(program.symbols.size()),
                      uint32_t(program.bindingShapes.size()) + 1);
  std::unique_ptr<HipDevice> device(new HipDevice());
  if (Status status =
          device->initialize(std::move(primitives), std::move(shape));
      !status.ok())
    return status;
  out = std::move(device);
  return Status::success();
}

} // namespace sluice::runtime
