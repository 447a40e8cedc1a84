//===- session.cpp - Load, bind, run and read a compiled program ----------===//

#include "sluice/runtime/program/session.h"

#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/program/bindings.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>

namespace sluice::runtime {
namespace {


Status invalid(std::string message) {
  return Status::error(ErrorKind::InvalidArgument, std::move(message));
}

BindingInfo describe(const CompiledBinding &binding) {
  BindingInfo info;
  info.name = binding.name;
  info.kind = binding.kind;
  info.element = bindingElementType(binding);
  info.shape = binding.shape;
  info.access = binding.kind == BindingKind::Uniform ? BindingAccess::ReadOnly
                : binding.declared == "readonly"     ? BindingAccess::ReadOnly
                : binding.declared == "writeonly"    ? BindingAccess::WriteOnly
                                                     : BindingAccess::ReadWrite;
  info.read = binding.read;
  info.written = binding.written;
  info.atomic = binding.atomic;
  info.required = !mayStartZeroed(binding);
  return info;
}

} // namespace

std::string_view bindingAccessName(BindingAccess access) {
  switch (access) {
  case BindingAccess::ReadOnly:
    return "readonly";
  case BindingAccess::WriteOnly:
    return "writeonly";
  case BindingAccess::ReadWrite:
    return "readwrite";
  }
  return "readwrite";
}

struct Program::Impl {
  Artifact artifact;
  std::string backend;
  const BackendAdapter *adapter = nullptr;
  std::unique_ptr<LoadedProgram> loaded;
  uint32_t loadedLanes = 0, loadedWorkers = 0;
  std::vector<BindingInfo> infos;
  std::vector<HostBuffer> values; // per binding: the bound value (or zeros)
  std::vector<bool> bound;        // bound or set by the caller
  std::vector<bool> fresh;        // bound since the last run
  // The device's copy holds the bound value: uploaded, and the program never
  // writes it (a read-only buffer), so the next run need not upload it.
  std::vector<bool> current;
  std::vector<bool> kept; // keepResult() since the last run
  bool ran = false;       // the device holds a run's results

  // The index of binding `name`, or an error listing the bindings.
  Status find(std::string_view name, size_t &index) const {
    for (size_t i = 0; i < infos.size(); ++i)
      if (infos[i].name == name) {
        index = i;
        return Status::success();
      }
    const CompiledProgram &program = artifact.program();
    std::string message = "'" + std::string(name) + "' is not a binding of @" +
                          program.name + "; ";
    if (infos.empty())
      return invalid(message + "it has no bindings");
    message += "its bindings are:";
    for (const BindingInfo &info : infos)
      message += " " + info.name;
    return invalid(message);
  }
  // The index of buffer `name`; a uniform is an error that says `why` not.
  Status findBuffer(std::string_view name, size_t &index,
                    std::string_view why) const {
    if (Status status = find(name, index); !status.ok())
      return status;
    if (infos[index].kind == BindingKind::Uniform)
      return invalid(what(index) + " is a uniform: " + std::string(why));
    return Status::success();
  }

  std::string what(size_t index) const {
    return "binding " + describeBinding(artifact.program().bindings[index]);
  }
};

Program::Program() = default;
Program::~Program() = default;
Program::Program(Program &&) noexcept = default;
Program &Program::operator=(Program &&) noexcept = default;

Status Program::load(Artifact artifact, std::string_view backend,
                     Program &out, const LoadOptions &options) {
  const BackendAdapter *adapter = findBackendAdapter(backend);
  if (!adapter)
    return invalid("unknown backend '" + std::string(backend) +
                   "'; the backends are: " + backendAdapterNames());
  if (options.lanes == 0 || options.lanes > kMaxRunLanes)
    return invalid("LoadOptions::lanes must be in [1, 16777216], got " +
                   std::to_string(options.lanes));
  if (options.workers != 0 && !adapter->workers)
    return invalid("LoadOptions::workers applies to the CPU backend; backend '" +
                   std::string(backend) + "' takes 0, got " +
                   std::to_string(options.workers));
  if (options.workers > kMaxRunWorkers)
    return invalid("LoadOptions::workers must be in [0, 1024], got " +
                   std::to_string(options.workers));
  auto impl = std::make_unique<Impl>();
  impl->artifact = std::move(artifact);
  impl->backend = std::string(backend);
  impl->adapter = adapter;
  BackendOptions backendOptions;
  backendOptions.lanes = options.lanes;
  backendOptions.workers = options.workers;
  if (Status status =
          adapter->load(impl->artifact, backendOptions, impl->loaded);
      !status.ok())
    return status;
  impl->loadedLanes = options.lanes;
  impl->loadedWorkers = options.workers;
  const CompiledProgram &program = impl->artifact.program();
  for (const CompiledBinding &binding : program.bindings)
    impl->infos.push_back(describe(binding));
  impl->values = defaultBindingValues(program);
  impl->bound.assign(program.bindings.size(), false);
  impl->fresh.assign(program.bindings.size(), false);
  impl->current.assign(program.bindings.size(), false);
  impl->kept.assign(program.bindings.size(), false);
  out.impl_ = std::move(impl);
  return Status::success();
}

Status Program::loadBytes(std::vector<unsigned char> bytes,
                          std::string_view backend, Program &out,
                          const LoadOptions &options, std::string origin) {
  Artifact artifact;
  if (Status status = Artifact::read(std::move(bytes), std::move(origin),
                                     artifact);
      !status.ok())
    return status;
  return load(std::move(artifact), backend, out, options);
}

Status Program::loadFile(const std::string &path, std::string_view backend,
                         Program &out, const LoadOptions &options) {
  Artifact artifact;
  if (Status status = Artifact::readFile(path, artifact); !status.ok())
    return status;
  return load(std::move(artifact), backend, out, options);
}

bool Program::loaded() const { return impl_ != nullptr; }

namespace {
const std::string kEmpty;
const std::vector<BindingInfo> kNoBindings;
const Artifact kNoArtifact;
const ProgramDescriptor kNoDescriptor;
Status notLoaded() {
  return Status::error(ErrorKind::InvalidState,
                       "the program is not loaded (Program::load, loadBytes "
                       "or loadFile first)");
}
} // namespace

const std::string &Program::backend() const {
  return impl_ ? impl_->backend : kEmpty;
}
const Artifact &Program::artifact() const {
  return impl_ ? impl_->artifact : kNoArtifact;
}
const ProgramDescriptor &Program::descriptor() const {
  return impl_ ? impl_->loaded->program() : kNoDescriptor;
}
const std::string &Program::name() const {
  return impl_ ? impl_->artifact.program().name : kEmpty;
}
const std::vector<BindingInfo> &Program::bindings() const {
  return impl_ ? impl_->infos : kNoBindings;
}
const BindingInfo *Program::findBinding(std::string_view name) const {
  if (!impl_)
    return nullptr;
  for (const BindingInfo &info : impl_->infos)
    if (info.name == name)
      return &info;
  return nullptr;
}

std::string Program::deviceSummary() const {
  return impl_ ? impl_->loaded->deviceSummary() : std::string();
}

Status Program::bind(std::string_view name, HostBuffer value) {
  if (!impl_)
    return notLoaded();
  size_t index = 0;
  if (Status status = impl_->find(name, index); !status.ok())
    return status;
  const BindingInfo &info = impl_->infos[index];
  std::string what = impl_->what(index);
  if (value.element != info.element)
    return invalid(what + " holds " +
                   std::string(elementTypeName(info.element)) +
                   ", but was given " +
                   std::string(elementTypeName(value.element)));
  bool fits = value.shape.size() == info.shape.size();
  for (size_t d = 0; fits && d < value.shape.size(); ++d)
    fits = value.shape[d] >= 0 &&
           (info.shape[d] < 0 || info.shape[d] == value.shape[d]);
  if (!fits)
    return invalid(what + " has shape " + shapeText(info.shape) +
                   ", but was given shape " + shapeText(value.shape));
  uint64_t bytes = value.elementCount() * elementTypeBytes(value.element);
  if (value.bytes.size() != bytes)
    return invalid(what + " was given " + std::to_string(value.bytes.size()) +
                   " bytes for " + std::to_string(value.elementCount()) +
                   " elements of shape " + shapeText(value.shape));
  impl_->values[index] = std::move(value);
  impl_->bound[index] = true;
  impl_->fresh[index] = true;
  impl_->current[index] = false;
  impl_->kept[index] = false;
  return Status::success();
}

Status Program::keepResult(std::string_view name) {
  if (!impl_)
    return notLoaded();
  size_t index = 0;
  if (Status status =
          impl_->findBuffer(name, index, "a run leaves nothing in it to keep");
      !status.ok())
    return status;
  if (!impl_->ran || impl_->fresh[index])
    return invalid(impl_->what(index) + " holds no run's result to keep: " +
                   (impl_->ran ? "it was bound after the last run"
                               : "no run since the program was loaded"));
  impl_->kept[index] = true;
  impl_->bound[index] = true;
  return Status::success();
}

Status Program::bindElements(std::string_view name, ElementType element,
                             const void *data, size_t count,
                             std::vector<int64_t> shape) {
  if (!impl_)
    return notLoaded();
  size_t index = 0;
  if (Status status = impl_->findBuffer(name, index, "set it with setUniform");
      !status.ok())
    return status;
  if (shape.empty())
    shape.push_back(int64_t(count));
  HostBuffer value;
  value.element = element;
  value.shape = std::move(shape);
  for (int64_t extent : value.shape)
    if (extent < 0)
      return invalid(impl_->what(index) + " was given a negative extent (" +
                     std::to_string(extent) + ")");
  if (value.elementCount() != count)
    return invalid(impl_->what(index) + " was given shape " +
                   shapeText(value.shape) + ", which holds " +
                   std::to_string(value.elementCount()) + " elements, and " +
                   std::to_string(count) + " elements of data");
  size_t bytes = count * elementTypeBytes(element);
  value.bytes.resize(bytes);
  if (bytes)
    std::memcpy(value.bytes.data(), data, bytes);
  return bind(name, std::move(value));
}

Status Program::bind(std::string_view name, std::span<const int32_t> data,
                     std::vector<int64_t> shape) {
  return bindElements(name, ElementType::I32, data.data(), data.size(),
                      std::move(shape));
}
Status Program::bind(std::string_view name, std::span<const int64_t> data,
                     std::vector<int64_t> shape) {
  return bindElements(name, ElementType::I64, data.data(), data.size(),
                      std::move(shape));
}
Status Program::bind(std::string_view name, std::span<const float> data,
                     std::vector<int64_t> shape) {
  return bindElements(name, ElementType::F32, data.data(), data.size(),
                      std::move(shape));
}
Status Program::bind(std::string_view name, std::span<const double> data,
                     std::vector<int64_t> shape) {
  return bindElements(name, ElementType::F64, data.data(), data.size(),
                      std::move(shape));
}

Status Program::setScalar(std::string_view name, bool integer,
                          int64_t integral, double floating,
                          ElementType given) {
  if (!impl_)
    return notLoaded();
  size_t index = 0;
  if (Status status = impl_->find(name, index); !status.ok())
    return status;
  const BindingInfo &info = impl_->infos[index];
  if (info.kind != BindingKind::Uniform)
    return invalid(impl_->what(index) + " is a buffer: bind it with bind");
  bool wantInteger =
      info.element == ElementType::I32 || info.element == ElementType::I64;
  std::string givenName(elementTypeName(given));
  if (wantInteger != integer)
    return invalid(impl_->what(index) + " is " +
                   std::string(elementTypeName(info.element)) +
                   ", but was set " + (integer ? "an integer (" : "a float (") +
                   givenName + ")");
  HostBuffer value;
  value.element = info.element;
  switch (info.element) {
  case ElementType::I32: {
    if (integral < std::numeric_limits<int32_t>::min() ||
        integral > std::numeric_limits<int32_t>::max())
      return invalid(impl_->what(index) + " cannot hold " +
                     std::to_string(integral) + ", which does not fit in i32");
    int32_t v = int32_t(integral);
    value.bytes.resize(4);
    std::memcpy(value.bytes.data(), &v, 4);
    break;
  }
  case ElementType::I64:
    value.bytes.resize(8);
    std::memcpy(value.bytes.data(), &integral, 8);
    break;
  case ElementType::F32: {
    float v = float(floating);
    value.bytes.resize(4);
    std::memcpy(value.bytes.data(), &v, 4);
    break;
  }
  case ElementType::F64:
    value.bytes.resize(8);
    std::memcpy(value.bytes.data(), &floating, 8);
    break;
  }
  return bind(name, std::move(value));
}

Status Program::setUniform(std::string_view name, int32_t value) {
  return setScalar(name, true, value, 0, ElementType::I32);
}
Status Program::setUniform(std::string_view name, int64_t value) {
  return setScalar(name, true, value, 0, ElementType::I64);
}
Status Program::setUniform(std::string_view name, float value) {
  return setScalar(name, false, 0, value, ElementType::F32);
}
Status Program::setUniform(std::string_view name, double value) {
  return setScalar(name, false, 0, value, ElementType::F64);
}

RunReport Program::run(const RunOptions &options) {
  RunReport report;
  report.lanes = options.lanes;
  report.schedule = options.schedule;
  auto fail = [&](Status status) {
    report.status = std::move(status);
    return report;
  };
  if (!impl_)
    return fail(notLoaded());
  Impl &impl = *impl_;
  const BackendAdapter &adapter = *impl.adapter;
  report.stageNames = globalStageNames(impl.loaded->program());
  bool stateMachine = options.schedule == Schedule::StateMachine;
  if (options.lanes == 0 || options.lanes > kMaxRunLanes)
    return fail(invalid("RunOptions::lanes must be in [1, 16777216], got " +
                        std::to_string(options.lanes)));
  if (options.framePool == 0 || options.framePool > kMaxRunLanes)
    return fail(invalid("RunOptions::framePool must be in [1, 16777216], got " +
                        std::to_string(options.framePool)));
  if (options.workers > kMaxRunWorkers)
    return fail(invalid("RunOptions::workers must be in [0, 1024], got " +
                        std::to_string(options.workers)));
  if (options.workers != 0 && !adapter.workers)
    return fail(invalid("RunOptions::workers applies to the CPU backend; "
                        "backend '" + impl.backend + "' takes 0, got " +
                        std::to_string(options.workers)));
  if (stateMachine && !options.tracePath.empty())
    return fail(invalid("RunOptions::tracePath records wavefront iterations; "
                        "the state-machine schedule has none"));
  if (stateMachine && !options.iterationLogPath.empty())
    return fail(invalid("RunOptions::iterationLogPath records wavefront "
                        "iterations; the state-machine schedule has none"));
  for (size_t i = 0; i < impl.infos.size(); ++i)
    if (impl.infos[i].required && !impl.bound[i])
      return fail(invalid(
          impl.what(i) +
          (impl.infos[i].kind == BindingKind::Uniform
               ? " is not set (setUniform) before the run"
               : " is not bound (bind) before the run: the program reads it")));

  // More lanes than the inputs were sized for, or other CPU workers: load
  // the kernels again (the old ones stay if that fails).
  if (options.lanes > impl.loadedLanes ||
      (adapter.workers && options.workers != impl.loadedWorkers)) {
    BackendOptions backendOptions;
    backendOptions.lanes = std::max(options.lanes, impl.loadedLanes);
    backendOptions.workers = options.workers;
    report.phase = RunPhase::Load;
    // The results kept for this run come off the device that goes.
    for (size_t i = 0; i < impl.kept.size(); ++i)
      if (impl.kept[i]) {
        if (Status status =
                impl.loaded->readBinding(uint32_t(i), impl.values[i]);
            !status.ok())
          return fail(std::move(status));
        impl.kept[i] = false;
      }
    impl.current.assign(impl.current.size(), false);
    std::unique_ptr<LoadedProgram> reloaded;
    if (Status status = adapter.load(impl.artifact, backendOptions, reloaded);
        !status.ok())
      return fail(std::move(status));
    impl.loaded = std::move(reloaded);
    impl.loadedLanes = backendOptions.lanes;
    impl.loadedWorkers = backendOptions.workers;
    impl.ran = false;
  }
  // Every run starts from the bound values.
  report.phase = RunPhase::Upload;
  // What the device holds already is not uploaded again: a kept result, and
  // a read-only buffer bound before and uploaded since.
  auto upload = std::make_unique<bool[]>(impl.values.size());
  for (size_t i = 0; i < impl.values.size(); ++i)
    upload[i] = !impl.kept[i] && (impl.fresh[i] || !impl.current[i]);
  if (Status status = impl.loaded->bind(
          impl.values, std::span<const bool>(upload.get(), impl.values.size()));
      !status.ok()) {
    impl.current.assign(impl.current.size(), false);
    return fail(std::move(status));
  }
  for (size_t i = 0; i < impl.values.size(); ++i) {
    const BindingInfo &info = impl.infos[i];
    // A kept result is not the bound value (values[i] is stale); a buffer
    // the run may write stops being it during the run.
    impl.current[i] = !impl.kept[i] && info.kind == BindingKind::Buffer &&
                      info.access == BindingAccess::ReadOnly && !info.written &&
                      !info.atomic;
  }
  std::fill(impl.kept.begin(), impl.kept.end(), false);
  std::fill(impl.fresh.begin(), impl.fresh.end(), false);
  impl.ran = true;
  report.phase = RunPhase::Schedule;

  const ProgramDescriptor &program = impl.loaded->program();
  // The run's frame sorting first: the device placement's commands, made
  // next, depend on it.
  if (!stateMachine)
    impl.loaded->device().setFrameSorting(options.sorting);
  // Pipelines the run needs are made before its clock starts (Auto: for the
  // placement the scheduler will pick on this device).
  if (Status status = impl.loaded->device().prepare(
          stateMachine,
          !stateMachine && resolveSchedulerPlacement(options.placement,
                                                     impl.loaded->device()) ==
                               SchedulerPlacement::Device);
      !status.ok())
    return fail(std::move(status));
  // So is the storage it needs (frames, item slots, the device's buffers:
  // Device::allocate), as a renderer sets it up once for many runs;
  // report.setupSeconds says how long that took.
  auto setupStart = std::chrono::steady_clock::now();
  Status prepared;
  std::optional<WavefrontScheduler> scheduler;
  if (stateMachine) {
    prepared = prepareStateMachine(program, impl.loaded->device(),
                                   options.lanes, options.framePool);
  } else {
    SchedulerOptions schedulerOptions;
    schedulerOptions.framePool = options.framePool;
    schedulerOptions.partialAdmission = options.partialAdmission;
    schedulerOptions.maxIterations = options.maxIterations;
    schedulerOptions.tracePath = options.tracePath;
    schedulerOptions.iterationLogPath = options.iterationLogPath;
    schedulerOptions.placement = options.placement;
    schedulerOptions.sorting = options.sorting;
    scheduler.emplace(program, impl.loaded->device(),
                      std::move(schedulerOptions));
    // A failure is the run's to report: run() prepares again.
    (void)scheduler->prepare();
  }
  auto start = std::chrono::steady_clock::now();
  report.setupSeconds =
      std::chrono::duration<double>(start - setupStart).count();
  RunResult result;
  if (!stateMachine) {
    result = scheduler->run(options.lanes);
  } else if (prepared.ok()) {
    result = runPreparedStateMachine(impl.loaded->device(), options.lanes);
  } else {
    result.schedule = Schedule::StateMachine;
    result.status = std::move(prepared);
  }
  report.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  static_cast<RunResult &>(report) = std::move(result);
  return report;
}

Status Program::read(std::string_view name, HostBuffer &out) {
  if (!impl_)
    return notLoaded();
  size_t index = 0;
  if (Status status = impl_->find(name, index); !status.ok())
    return status;
  if (!impl_->ran || impl_->fresh[index]) {
    out = impl_->values[index];
    return Status::success();
  }
  return impl_->loaded->readBinding(uint32_t(index), out);
}

Status Program::readElements(std::string_view name, ElementType element,
                             HostBuffer &out) {
  if (!impl_)
    return notLoaded();
  size_t index = 0;
  if (Status status = impl_->find(name, index); !status.ok())
    return status;
  if (impl_->infos[index].element != element)
    return invalid(impl_->what(index) + " holds " +
                   std::string(elementTypeName(impl_->infos[index].element)) +
                   ", but was read as " +
                   std::string(elementTypeName(element)));
  return read(name, out);
}

template <typename T>
Status Program::readVector(std::string_view name, ElementType element,
                           std::vector<T> &out) {
  HostBuffer value;
  if (Status status = readElements(name, element, value); !status.ok())
    return status;
  out.resize(value.bytes.size() / sizeof(T));
  if (!out.empty())
    std::memcpy(out.data(), value.bytes.data(), out.size() * sizeof(T));
  return Status::success();
}

Status Program::read(std::string_view name, std::vector<int32_t> &out) {
  return readVector(name, ElementType::I32, out);
}
Status Program::read(std::string_view name, std::vector<int64_t> &out) {
  return readVector(name, ElementType::I64, out);
}
Status Program::read(std::string_view name, std::vector<float> &out) {
  return readVector(name, ElementType::F32, out);
}
Status Program::read(std::string_view name, std::vector<double> &out) {
  return readVector(name, ElementType::F64, out);
}

} // namespace sluice::runtime
