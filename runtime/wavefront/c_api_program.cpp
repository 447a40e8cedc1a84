//===- c_api_program.cpp - Running a program descriptor from C ------------===//

#include "sluice/runtime/wavefront/c_api_program.h"

#include "sluice/runtime/device/cpu_device.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <cstdio>

using namespace sluice::runtime;

namespace {

int reportError(const Status &status, char *error, size_t errorSize) {
  if (error && errorSize != 0)
    std::snprintf(error, errorSize, "%s", status.describe().c_str());
  return int(status.kind());
}

Status invalid(const std::string &message) {
  return Status::error(ErrorKind::InvalidArgument,
                       "sluice_rt_run_program: " + message);
}

Status convertProgram(const sluice_rt_program_desc &in,
                      ProgramDescriptor &out) {
  if (in.main_stage_count != 0 && !in.main_stages)
    return invalid("main_stages is NULL");
  if (in.owner_count != 0 && !in.owners)
    return invalid("owners is NULL");
  if (in.producer_count != 0 && !in.producers)
    return invalid("producers is NULL");
  if (in.frame_field_count != 0 && !in.frame_fields)
    return invalid("frame_fields is NULL");
  if (in.frame_layout != SLUICE_RT_FRAME_AOS &&
      in.frame_layout != SLUICE_RT_FRAME_SOA)
    return invalid("unknown frame layout " + std::to_string(in.frame_layout));
  auto name = [](const char *text) { return std::string(text ? text : ""); };
  out.name = name(in.name);
  out.entryStage = in.entry_stage;
  out.userData = in.user_data;
  for (uint32_t s = 0; s < in.main_stage_count; ++s)
    out.mainStages.push_back(
        {name(in.main_stages[s].name), in.main_stages[s].kernel});
  for (uint32_t o = 0; o < in.owner_count; ++o) {
    const sluice_rt_owner_desc &owner = in.owners[o];
    if (owner.stage_count != 0 && !owner.stages)
      return invalid("stages of owner " + std::to_string(o) + " is NULL");
    OwnerDesc desc;
    desc.name = name(owner.name);
    desc.capacity = owner.capacity;
    desc.itemSize = owner.item_size;
    for (uint32_t i = 0; i < owner.stage_count; ++i)
      desc.stages.push_back(
          {name(owner.stages[i].name), owner.stages[i].kernel});
    out.owners.push_back(std::move(desc));
  }
  for (uint32_t p = 0; p < in.producer_count; ++p)
    out.producers.push_back(
        {in.producers[p].stage, in.producers[p].owner, in.producers[p].bound});
  out.frameLayout.kind = FrameLayoutKind(in.frame_layout);
  for (uint32_t f = 0; f < in.frame_field_count; ++f)
    out.frameLayout.fields.push_back({"field" + std::to_string(f),
                                      in.frame_fields[f].size,
                                      in.frame_fields[f].align});
  return Status::success();
}

} // namespace

extern "C" int sluice_rt_run_program(const sluice_rt_program_desc *program,
                                     const sluice_rt_run_options *options,
                                     sluice_rt_stage_stats *stats,
                                     size_t stats_count, uint64_t *iterations,
                                     char *error, size_t error_size) {
  if (!program || !options)
    return reportError(invalid("program and options must not be NULL"), error,
                       error_size);
  ProgramDescriptor descriptor;
  if (Status status = convertProgram(*program, descriptor); !status.ok())
    return reportError(status, error, error_size);

  CpuDeviceOptions deviceOptions;
  deviceOptions.workers = options->workers;
  CpuDevice device(deviceOptions);
  RunResult result;
  if (options->schedule == SLUICE_RT_SCHEDULE_STATE_MACHINE) {
    result = runStateMachine(descriptor, device, options->lanes,
                             options->frame_pool);
  } else if (options->schedule == SLUICE_RT_SCHEDULE_WAVEFRONT) {
    SchedulerOptions schedulerOptions;
    schedulerOptions.framePool = options->frame_pool;
    schedulerOptions.partialAdmission = options->partial_admission != 0;
    if (options->trace_path)
      schedulerOptions.tracePath = options->trace_path;
    WavefrontScheduler scheduler(descriptor, device, schedulerOptions);
    result = scheduler.run(options->lanes);
  } else {
    return reportError(
        invalid("unknown schedule " + std::to_string(options->schedule)), error,
        error_size);
  }
  if (!result.status.ok())
    return reportError(result.status, error, error_size);

  if (stats) {
    if (stats_count < result.stages.size())
      return reportError(invalid("stats holds " + std::to_string(stats_count) +
                                 " entries, fewer than the program's " +
                                 std::to_string(result.stages.size()) +
                                 " stages"),
                         error, error_size);
    for (size_t s = 0; s < result.stages.size(); ++s)
      stats[s] = {result.stages[s].dispatches, result.stages[s].invocations,
                  result.stages[s].itemsPublished,
                  result.stages[s].itemsReleased};
  }
  if (iterations)
    *iterations = result.iterations;
  if (error && error_size != 0)
    error[0] = '\0';
  return 0;
}
