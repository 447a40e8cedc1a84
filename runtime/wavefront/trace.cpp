//===- trace.cpp - Chrome trace of wavefront iterations -------------------===//

#include "sluice/runtime/wavefront/trace.h"

#include <cstdio>
#include <fstream>

namespace sluice::runtime {

std::string jsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", unsigned(c));
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  return out;
}

std::string formatIterationLine(const ProgramShape &shape,
                                const ProgramDescriptor &program,
                                const IterationRecord &record,
                                const Observation &observation) {
  std::string line = "iteration " + std::to_string(record.iteration) + ": " +
                     iterationActionName(record.action) +
                     " chosen=" + std::string(shape.stageName(record.chosenStage)) +
                     " dispatched=" +
                     std::string(shape.stageName(record.dispatchedStage)) +
                     " waiting=" + std::to_string(record.waiting) +
                     " dispatched=" + std::to_string(record.dispatched) +
                     " refilled=" + std::to_string(record.refilled) +
                     " blocking=" +
                     (record.blockingOwner == kNoOwner
                          ? std::string("-")
                          : program.owners[record.blockingOwner].name) +
                     " availability=" + std::to_string(record.availability) +
                     " counts=";
  for (size_t s = 0; s < observation.stageCounts.size(); ++s)
    line += (s ? "," : "") + std::to_string(observation.stageCounts[s]);
  line += " live=";
  for (size_t o = 0; o < observation.ownerLive.size(); ++o)
    line += (o ? "," : "") + std::to_string(observation.ownerLive[o]);
  line += " free=" + std::to_string(observation.freeFrames) +
          " finished=" + std::to_string(observation.lanesFinished);
  line += " order=" +
          (record.dispatchedStage < shape.mainStageCount()
               ? std::to_string(record.order)
               : std::string("-"));
  return line;
}

ChromeTraceRecorder::ChromeTraceRecorder(const ProgramDescriptor &program,
                                         const ProgramShape &shape)
    : program_(program), shape_(shape) {}

void ChromeTraceRecorder::recordIteration(const IterationRecord &record,
                                          const Observation &observation,
                                          const Timing &timing) {
  iterations_.push_back({record, timing});
  snapshots_.insert(snapshots_.end(), observation.stageCounts.begin(),
                    observation.stageCounts.end());
  snapshots_.insert(snapshots_.end(), observation.ownerLive.begin(),
                    observation.ownerLive.end());
}

void ChromeTraceRecorder::recordEnd(double timeUs, const Status &status) {
  endUs_ = timeUs;
  endStatus_ = status.ok() ? "finished" : status.describe();
}

namespace {

std::string microseconds(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", value);
  return buffer;
}

constexpr int kProcess = 1;
constexpr int kHostThread = 1;

} // namespace

std::string ChromeTraceRecorder::json() const {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  auto event = [&](const std::string &body) {
    out += body;
    out += ",\n";
  };
  event("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{"
        "\"name\":\"sluice wavefront: " +
        jsonEscape(program_.name) + "\"}}");
  event("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
        "\"args\":{\"name\":\"host scheduler\"}}");

  size_t snapshotSize = shape_.totalStageCount() + shape_.ownerCount();
  for (size_t n = 0; n < iterations_.size(); ++n) {
    const Entry &entry = iterations_[n];
    const IterationRecord &r = entry.record;
    const Timing &t = entry.timing;
    const uint32_t *snapshot = snapshots_.data() + n * snapshotSize;
    auto slice = [&](const std::string &name, const char *category,
                     double begin, double end, const std::string &args) {
      event("{\"name\":\"" + jsonEscape(name) + "\",\"cat\":\"" + category +
            "\",\"ph\":\"X\",\"pid\":" + std::to_string(kProcess) +
            ",\"tid\":" + std::to_string(kHostThread) +
            ",\"ts\":" + microseconds(begin) +
            ",\"dur\":" + microseconds(end > begin ? end - begin : 0) +
            ",\"args\":{" + args + "}}");
    };
    std::string iteration = "\"iteration\":" + std::to_string(r.iteration);
    slice("readback", "host", t.readbackBegin, t.planBegin, iteration);
    slice("plan", "host", t.planBegin, t.dispatchBegin, iteration);

    std::string args =
        iteration + ",\"action\":\"" + iterationActionName(r.action) +
        "\",\"chosen_stage\":\"" + jsonEscape(shape_.stageName(r.chosenStage)) +
        "\",\"waiting\":" + std::to_string(r.waiting) +
        ",\"dispatched\":" + std::to_string(r.dispatched) +
        ",\"refilled\":" + std::to_string(r.refilled);
    if (r.blockingOwner != kNoOwner)
      args += ",\"blocking_owner\":\"" +
              jsonEscape(program_.owners[r.blockingOwner].name) + "\"";
    if (r.action != IterationAction::DispatchStage)
      args += ",\"availability\":" + std::to_string(r.availability);
    slice(std::string(shape_.stageName(r.dispatchedStage)), "dispatch",
          t.dispatchBegin, t.dispatchEnd, args);

    std::string waiting;
    for (uint32_t s = 0; s < shape_.mainStageCount(); ++s) {
      if (s)
        waiting += ",";
      waiting += "\"" + jsonEscape(shape_.stageName(s)) +
                 "\":" + std::to_string(snapshot[s]);
    }
    event("{\"name\":\"frames waiting\",\"ph\":\"C\",\"pid\":1,\"ts\":" +
          microseconds(t.planBegin) + ",\"args\":{" + waiting + "}}");
    for (uint32_t o = 0; o < shape_.ownerCount(); ++o) {
      std::string stages;
      for (uint32_t i = 0; i < shape_.ownerStageCount(o); ++i) {
        uint32_t global = shape_.globalStage(o, i);
        stages += ",\"" + jsonEscape(program_.owners[o].stages[i].name) +
                  "\":" + std::to_string(snapshot[global]);
      }
      event("{\"name\":\"" + jsonEscape(program_.owners[o].name) +
            " items\",\"ph\":\"C\",\"pid\":1,\"ts\":" +
            microseconds(t.planBegin) + ",\"args\":{\"capacity free\":" +
            std::to_string(program_.owners[o].capacity -
                           snapshot[shape_.totalStageCount() + o]) +
            stages + "}}");
    }
  }
  out += "{\"name\":\"run end\",\"ph\":\"i\",\"s\":\"p\",\"pid\":1,\"tid\":1,"
         "\"ts\":" +
         microseconds(endUs_) + ",\"args\":{\"status\":\"" +
         jsonEscape(endStatus_) +
         "\",\"iterations\":" + std::to_string(iterations_.size()) + "}}\n]}\n";
  return out;
}

Status ChromeTraceRecorder::writeFile(const std::string &path) const {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file)
    return Status::error(ErrorKind::InvalidArgument,
                         "cannot open trace file '" + path + "' for writing");
  std::string text = json();
  file.write(text.data(), std::streamsize(text.size()));
  file.close();
  if (!file)
    return Status::error(ErrorKind::InvalidArgument,
                         "cannot write trace file '" + path + "'");
  return Status::success();
}

} // namespace sluice::runtime
