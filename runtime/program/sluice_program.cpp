//===- sluice_program.cpp - The C API of compiled programs ----------------===//

#include "sluice/runtime/program/sluice_program.h"

#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/program/session.h"

#include <cstring>
#include <new>
#include <string>
#include <vector>

using namespace sluice::runtime;

static_assert(int(SLUICE_INVALID_DESCRIPTOR) == int(ErrorKind::InvalidDescriptor));
static_assert(int(SLUICE_INVALID_ARGUMENT) == int(ErrorKind::InvalidArgument));
static_assert(int(SLUICE_INVALID_STATE) == int(ErrorKind::InvalidState));
static_assert(int(SLUICE_DEVICE_UNAVAILABLE) == int(ErrorKind::DeviceUnavailable));
static_assert(int(SLUICE_INDEX_OUT_OF_BOUNDS) == int(ErrorKind::IndexOutOfBounds));
static_assert(int(SLUICE_ELEMENT_I32) == int(ElementType::I32) &&
              int(SLUICE_ELEMENT_I64) == int(ElementType::I64) &&
              int(SLUICE_ELEMENT_F32) == int(ElementType::F32) &&
              int(SLUICE_ELEMENT_F64) == int(ElementType::F64));

struct sluice_program {
  Program program;
  std::string loadError; // why the handle failed to load; "" once loaded
  std::string lastError;
  std::string name;
  std::vector<std::string> stageNames; // of the last run
  std::vector<StageStatistics> stages;
};

namespace {

sluice_status record(sluice_program *handle, const Status &status,
                     const std::string &context = {}) {
  if (status.ok()) {
    handle->lastError.clear();
    return SLUICE_OK;
  }
  handle->lastError = context + status.describe();
  return sluice_status(status.kind());
}

sluice_status invalidArgument(sluice_program *handle, std::string message) {
  return record(handle,
                Status::error(ErrorKind::InvalidArgument, std::move(message)));
}

/// SLUICE_OK if `handle` is loaded, else the status (and last error) of why
/// not.
sluice_status usable(sluice_program *handle) {
  if (handle->program.loaded())
    return SLUICE_OK;
  return record(handle,
                Status::error(ErrorKind::InvalidState,
                              "this program failed to load: " +
                                  handle->loadError));
}

bool validElement(sluice_element_type element) {
  return unsigned(element) <= unsigned(SLUICE_ELEMENT_F64);
}

sluice_status finishLoad(sluice_program *handle, const Status &status,
                         std::string_view backend) {
  if (!status.ok()) {
    // A load error of a known backend is prefixed with its name, as the
    // runners print it.
    sluice_status code = record(
        handle, status,
        findBackendAdapter(backend) ? std::string(backend) + " backend: " : "");
    handle->loadError = handle->lastError;
    return code;
  }
  handle->name = handle->program.name();
  handle->lastError.clear();
  return SLUICE_OK;
}

/// A new handle in *out: SLUICE_OK, or why not.
sluice_status create(sluice_program **out) {
  if (!out)
    return SLUICE_INVALID_ARGUMENT;
  *out = new (std::nothrow) sluice_program;
  return *out ? SLUICE_OK : SLUICE_OUT_OF_MEMORY;
}

} // namespace

extern "C" {

const char *sluice_status_name(sluice_status status) {
  if (unsigned(status) > unsigned(SLUICE_INDEX_OUT_OF_BOUNDS))
    return "unknown status";
  return errorKindName(ErrorKind(status));
}

size_t sluice_element_size(sluice_element_type element) {
  return validElement(element) ? elementTypeBytes(ElementType(element)) : 0;
}

void sluice_run_options_init(sluice_run_options *options) {
  if (!options)
    return;
  options->schedule = SLUICE_SCHEDULE_WAVEFRONT;
  options->frame_pool = 256;
  options->partial_admission = 1;
  options->workers = 0;
  options->trace_path = nullptr;
  options->max_iterations = 0;
}

const char *sluice_backend_names(void) {
  static const std::string names = backendAdapterNames();
  return names.c_str();
}

sluice_status sluice_program_load_memory(const void *bytes, size_t size,
                                         const char *backend, uint32_t lanes,
                                         sluice_program **out) {
  if (sluice_status code = create(out); code != SLUICE_OK)
    return code;
  sluice_program *handle = *out;
  if (!backend || (!bytes && size)) {
    Status status = Status::error(
        ErrorKind::InvalidArgument,
        !backend ? "sluice_program_load_memory: the backend name is NULL"
                 : "sluice_program_load_memory: bytes is NULL, size is " +
                       std::to_string(size));
    return finishLoad(handle, status, "");
  }
  LoadOptions options;
  options.lanes = lanes ? lanes : 1;
  const auto *begin = static_cast<const unsigned char *>(bytes);
  std::vector<unsigned char> copy(begin, begin + size);
  return finishLoad(handle,
                    Program::loadBytes(std::move(copy), backend,
                                       handle->program, options),
                    backend);
}

sluice_status sluice_program_load_file(const char *path, const char *backend,
                                       uint32_t lanes, sluice_program **out) {
  if (sluice_status code = create(out); code != SLUICE_OK)
    return code;
  sluice_program *handle = *out;
  if (!path || !backend)
    return finishLoad(
        handle,
        Status::error(ErrorKind::InvalidArgument,
                      std::string("sluice_program_load_file: the ") +
                          (!path ? "path" : "backend name") + " is NULL"),
        "");
  LoadOptions options;
  options.lanes = lanes ? lanes : 1;
  return finishLoad(handle,
                    Program::loadFile(path, backend, handle->program, options),
                    backend);
}

void sluice_program_destroy(sluice_program *program) { delete program; }

const char *sluice_program_last_error(const sluice_program *program) {
  if (!program)
    return "no program (the handle is NULL)";
  return program->lastError.c_str();
}

const char *sluice_program_name(const sluice_program *program) {
  return program ? program->name.c_str() : "";
}

uint32_t sluice_program_binding_count(const sluice_program *program) {
  return program ? uint32_t(program->program.bindings().size()) : 0;
}

sluice_status sluice_program_binding(sluice_program *program, uint32_t index,
                                     sluice_binding_info *out) {
  if (!program)
    return SLUICE_INVALID_ARGUMENT;
  if (sluice_status code = usable(program); code != SLUICE_OK)
    return code;
  const std::vector<BindingInfo> &bindings = program->program.bindings();
  if (index >= bindings.size())
    return invalidArgument(program,
                           "binding index " + std::to_string(index) +
                               " is out of range: @" + program->name +
                               " has " + std::to_string(bindings.size()) +
                               " bindings");
  if (!out)
    return invalidArgument(program, "sluice_program_binding: out is NULL");
  const BindingInfo &info = bindings[index];
  out->name = info.name.c_str();
  out->kind = info.kind == BindingKind::Uniform ? SLUICE_BINDING_UNIFORM
                                                : SLUICE_BINDING_BUFFER;
  out->element = sluice_element_type(info.element);
  out->rank = uint32_t(info.shape.size());
  out->shape = info.shape.data();
  out->access = sluice_binding_access(info.access);
  out->read = info.read;
  out->written = info.written;
  out->atomic = info.atomic;
  out->required = info.required;
  return record(program, Status::success());
}

sluice_status sluice_program_bind_buffer(sluice_program *program,
                                         const char *name,
                                         sluice_element_type element,
                                         uint32_t rank, const int64_t *shape,
                                         const void *data, size_t bytes) {
  if (!program)
    return SLUICE_INVALID_ARGUMENT;
  if (sluice_status code = usable(program); code != SLUICE_OK)
    return code;
  if (!name)
    return invalidArgument(program, "sluice_program_bind_buffer: name is NULL");
  if (!validElement(element))
    return invalidArgument(program, "sluice_program_bind_buffer: element " +
                                        std::to_string(int(element)) +
                                        " is not a sluice_element_type");
  if (rank && !shape)
    return invalidArgument(program,
                           "sluice_program_bind_buffer: shape is NULL for "
                           "rank " + std::to_string(rank));
  if (bytes && !data)
    return invalidArgument(program,
                           "sluice_program_bind_buffer: data is NULL for " +
                               std::to_string(bytes) + " bytes");
  const BindingInfo *info = program->program.findBinding(name);
  if (info && info->kind == BindingKind::Uniform)
    return invalidArgument(
        program, "binding '" + std::string(name) +
                     "' is a uniform: set it with sluice_program_set_uniform_*");
  HostBuffer value;
  value.element = ElementType(element);
  value.shape.assign(shape, shape + rank);
  value.bytes.assign(static_cast<const unsigned char *>(data),
                     static_cast<const unsigned char *>(data) + bytes);
  return record(program, program->program.bind(name, std::move(value)));
}

sluice_status sluice_program_keep_result(sluice_program *program,
                                         const char *name) {
  if (!program)
    return SLUICE_INVALID_ARGUMENT;
  if (sluice_status code = usable(program); code != SLUICE_OK)
    return code;
  if (!name)
    return invalidArgument(program, "sluice_program_keep_result: name is NULL");
  return record(program, program->program.keepResult(name));
}

#define SLUICE_SET_UNIFORM(suffix, type)                                       \
  sluice_status sluice_program_set_uniform_##suffix(                           \
      sluice_program *program, const char *name, type value) {                 \
    if (!program)                                                              \
      return SLUICE_INVALID_ARGUMENT;                                          \
    if (sluice_status code = usable(program); code != SLUICE_OK)               \
      return code;                                                             \
    if (!name)                                                                 \
      return invalidArgument(program, "sluice_program_set_uniform_" #suffix   \
                                      ": name is NULL");                       \
    return record(program, program->program.setUniform(name, value));          \
  }
SLUICE_SET_UNIFORM(i32, int32_t)
SLUICE_SET_UNIFORM(i64, int64_t)
SLUICE_SET_UNIFORM(f32, float)
SLUICE_SET_UNIFORM(f64, double)
#undef SLUICE_SET_UNIFORM

sluice_status sluice_program_run(sluice_program *program, uint32_t lanes,
                                 const sluice_run_options *options,
                                 sluice_run_report *report) {
  if (!program)
    return SLUICE_INVALID_ARGUMENT;
  sluice_run_options defaults;
  sluice_run_options_init(&defaults);
  const sluice_run_options &given = options ? *options : defaults;
  RunReport result;
  sluice_status code = usable(program);
  if (code == SLUICE_OK) {
    RunOptions run;
    run.lanes = lanes;
    run.schedule = given.schedule == SLUICE_SCHEDULE_STATE_MACHINE
                       ? Schedule::StateMachine
                       : Schedule::Wavefront;
    run.framePool = given.frame_pool;
    run.partialAdmission = given.partial_admission != 0;
    run.workers = given.workers;
    run.tracePath = given.trace_path ? given.trace_path : "";
    run.maxIterations = given.max_iterations;
    if (given.schedule != SLUICE_SCHEDULE_WAVEFRONT &&
        given.schedule != SLUICE_SCHEDULE_STATE_MACHINE) {
      code = invalidArgument(program,
                             "sluice_run_options.schedule is " +
                                 std::to_string(int(given.schedule)) +
                                 ", not a sluice_schedule");
    } else {
      result = program->program.run(run);
      if (result.phase == RunPhase::Schedule) { // else the last run's stay
        program->stageNames = result.stageNames;
        program->stages = result.stages;
      }
      code = record(program, result.status,
                    result.phase == RunPhase::Schedule
                        ? "run of @" + program->name + " failed: "
                    : result.deviceSetupFailed()
                        ? program->program.backend() + " backend: "
                        : "");
    }
  }
  if (report) {
    report->status = code;
    report->lanes = lanes;
    report->lanes_finished = result.lanesFinished;
    report->iterations = result.iterations;
    report->seconds = result.seconds;
    report->stage_count = uint32_t(program->stages.size());
  }
  return code;
}

sluice_status sluice_program_stage_statistics(sluice_program *program,
                                              uint32_t index,
                                              sluice_stage_statistics *out) {
  if (!program)
    return SLUICE_INVALID_ARGUMENT;
  if (index >= program->stages.size())
    return invalidArgument(program,
                           "stage index " + std::to_string(index) +
                               " is out of range: the last run has " +
                               std::to_string(program->stages.size()) +
                               " stages");
  if (!out)
    return invalidArgument(program,
                           "sluice_program_stage_statistics: out is NULL");
  const StageStatistics &stage = program->stages[index];
  out->name = index < program->stageNames.size()
                  ? program->stageNames[index].c_str()
                  : "";
  out->dispatches = stage.dispatches;
  out->invocations = stage.invocations;
  out->items_published = stage.itemsPublished;
  out->items_released = stage.itemsReleased;
  out->partial_admissions = stage.partialAdmissions;
  out->admission_blocks = stage.admissionBlocks;
  out->drain_dispatches = stage.drainDispatches;
  return record(program, Status::success());
}

sluice_status sluice_program_read_binding(sluice_program *program,
                                          const char *name,
                                          sluice_element_type element,
                                          void *data, size_t capacity,
                                          size_t *size) {
  if (!program)
    return SLUICE_INVALID_ARGUMENT;
  if (sluice_status code = usable(program); code != SLUICE_OK)
    return code;
  if (!name)
    return invalidArgument(program,
                           "sluice_program_read_binding: name is NULL");
  if (!validElement(element))
    return invalidArgument(program, "sluice_program_read_binding: element " +
                                        std::to_string(int(element)) +
                                        " is not a sluice_element_type");
  const BindingInfo *info = program->program.findBinding(name);
  if (info && info->element != ElementType(element))
    return invalidArgument(
        program, "binding '" + std::string(name) + "' holds " +
                     std::string(elementTypeName(info->element)) +
                     ", but was read as " +
                     std::string(elementTypeName(ElementType(element))));
  HostBuffer value;
  if (Status status = program->program.read(name, value); !status.ok())
    return record(program, status);
  if (size)
    *size = value.bytes.size();
  if (!data && capacity == 0)
    return record(program, Status::success());
  if (!data || capacity < value.bytes.size())
    return invalidArgument(
        program, "binding '" + std::string(name) + "' holds " +
                     std::to_string(value.bytes.size()) + " bytes (" +
                     std::to_string(value.elementCount()) + " elements of " +
                     std::string(elementTypeName(value.element)) +
                     "), but the buffer has " + std::to_string(capacity) +
                     (data ? "" : " and is NULL"));
  if (!value.bytes.empty())
    std::memcpy(data, value.bytes.data(), value.bytes.size());
  return record(program, Status::success());
}

} // extern "C"
