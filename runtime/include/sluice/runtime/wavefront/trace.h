//===- trace.h - Chrome trace of wavefront iterations -----------*- C++ -*-===//
//
// Records every scheduler iteration and writes Chrome trace JSON (the
// "traceEvents" format) that Perfetto and chrome://tracing open. Per
// iteration: a "readback" slice, a "plan" slice (validation, refill, choice,
// admission) and a dispatch slice named after the dispatched stage, whose
// args carry the decision; counter tracks show the frames waiting at each
// main stage and each owner's live items against its capacity.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_WAVEFRONT_TRACE_H
#define SLUICE_RUNTIME_WAVEFRONT_TRACE_H

#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/device/device.h"
#include "sluice/runtime/wavefront/program.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <string>
#include <vector>

namespace sluice::runtime {

class ChromeTraceRecorder {
public:
  ChromeTraceRecorder(const ProgramDescriptor &program,
                      const ProgramShape &shape);

  // Times are microseconds since the run started.
  struct Timing {
    double readbackBegin = 0;
    double planBegin = 0;
    double dispatchBegin = 0;
    double dispatchEnd = 0;
  };
  // `observation` is the state the decision saw (after the refill).
  void recordIteration(const IterationRecord &record,
                       const Observation &observation, const Timing &timing);
  void recordEnd(double timeUs, const Status &status);

  size_t iterationCount() const { return iterations_.size(); }
  std::string json() const;
  Status writeFile(const std::string &path) const;

private:
  struct Entry {
    IterationRecord record;
    Timing timing;
  };
  const ProgramDescriptor &program_;
  const ProgramShape &shape_;
  std::vector<Entry> iterations_;
  // Per iteration: every stage count, then every owner's live total.
  std::vector<uint32_t> snapshots_;
  double endUs_ = 0;
  std::string endStatus_ = "running";
};

// Escapes `text` as the contents of a JSON string.
std::string jsonEscape(std::string_view text);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_WAVEFRONT_TRACE_H
