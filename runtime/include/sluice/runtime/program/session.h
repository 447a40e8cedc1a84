//===- session.h - Load, bind, run and read a compiled program --*- C++ -*-===//
//
// The runtime half of embedding Sluice (docs/embedding.md): a Program is a
// compiled-program artifact loaded on one backend, whose bindings are set and
// read by name, and which runs under the wavefront scheduler (or, on the CPU,
// the state-machine schedule). No MLIR. sluice-run, sluice-run-artifact
// (runtime/program/run.cpp) and the C API (sluice_program.h) all run
// programs through it.
//
//   Program program;
//   Status status = Program::loadFile("shadow.sluice", "cpu", program);
//   status = program.bind("occluders", std::span<const int32_t>(occ));
//   status = program.setUniform("lights", 61);
//   status = program.setUniform("shift", 5);
//   RunOptions options;
//   options.lanes = 4096;
//   RunReport report = program.run(options);
//   std::vector<int32_t> film;
//   status = program.read("film", film);
//
// Values: bind() and setUniform() set a binding's value for every later run;
// each run starts from those values (a run's writes do not carry over to the
// next one), and read() returns what the last run left on the device (or,
// before a run or after binding again, the value bound). A buffer the program
// never reads, of a static shape, may stay unbound: it starts zeroed. Every
// other binding must be bound before run(). keepResult() binds a buffer to
// what the last run left in it without moving it off the device (a
// progressive renderer's film); a read-only buffer bound once is uploaded
// once, not at every run.
//
// A Program is movable, not copyable, and not thread-safe (one thread at a
// time). Errors are Status values whose message names the binding and both
// sides of a mismatch; nothing throws.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_PROGRAM_SESSION_H
#define SLUICE_RUNTIME_PROGRAM_SESSION_H

#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/program/artifact.h"
#include "sluice/runtime/program/host_buffer.h"
#include "sluice/runtime/wavefront/wavefront.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::runtime {

// A binding's declared access (docs/artifact.md "Bindings"); a uniform is
// ReadOnly.
enum class BindingAccess : uint8_t { ReadOnly, WriteOnly, ReadWrite };
std::string_view bindingAccessName(BindingAccess access); // "readonly", ...

// One binding of a loaded program, as the compiler described it.
struct BindingInfo {
  std::string name;
  BindingKind kind = BindingKind::Buffer;
  ElementType element = ElementType::I32;
  std::vector<int64_t> shape; // row-major, -1 dynamic; {} for a uniform
  BindingAccess access = BindingAccess::ReadWrite; // declared
  bool read = false, written = false, atomic = false; // inferred from the kernels
  // Must be bound (or set) before a run; false for a static buffer that the
  // program never reads, which starts zeroed.
  bool required = true;
};

// How a Program is loaded. `lanes` sizes the lane inputs (a later run with
// more lanes reloads the kernels, which on Vulkan rebuilds the pipelines).
struct LoadOptions {
  uint32_t lanes = 1;
  uint32_t workers = 0; // CPU worker threads; 0: one per core
};

// How a Program runs.
// The largest lane count and frame pool of a run, and of CPU workers.
inline constexpr uint32_t kMaxRunLanes = 1u << 24;
inline constexpr uint32_t kMaxRunWorkers = 1024;

struct RunOptions {
  uint32_t lanes = 1;                     // coroutine instances, [1, 2^24]
  Schedule schedule = Schedule::Wavefront;
  uint32_t framePool = 256;               // frames in flight, [1, 2^24]
  bool partialAdmission = true;           // admit a strict prefix of a producer
  // CPU worker threads (0: one per core). A value other than the loaded one
  // reloads the kernels; the Vulkan backend takes only 0.
  uint32_t workers = 0;
  std::string tracePath;      // Chrome trace JSON (wavefront only); "": none
  // Wavefront: where the scheduler decides; Device falls back to Host (and
  // RunReport::placementNote says why) where the device has no placement.
  SchedulerPlacement placement = SchedulerPlacement::Host;
  std::string iterationLogPath; // one text line per iteration; "": none
  // Wavefront: how a dispatch of a stage with a `sort_by` key orders its
  // frames (on by default; the state-machine schedule has no dispatches).
  FrameSorting sorting;
  uint64_t maxIterations = 0; // wavefront: stop with an error after this
                              // many iterations; 0: unbounded
};

// How far a run got: checking the options and bindings, loading the kernels
// again (more lanes, other workers), uploading the bindings, or the schedule
// itself (a run that succeeded, or failed while running).
enum class RunPhase : uint8_t { Check, Load, Upload, Schedule };

// What a run did: RunResult (status, iterations, lanes finished, per-stage
// statistics in global stage order) plus the lanes asked for, the stage
// names and the wall time of the schedule (without uploading the bindings,
// making the pipelines or setting up the storage the schedule needs).
struct RunReport : RunResult {
  uint32_t lanes = 0;
  std::vector<std::string> stageNames; // per global stage: "bounce", "shadow.shade"
  double seconds = 0;
  // The set-up before the schedule's clock started: the frames, item slots
  // and device buffers of the run's frame pool (Device::allocate).
  double setupSeconds = 0;
  // Where the run stopped; a failure before Schedule never ran a kernel.
  RunPhase phase = RunPhase::Check;
  // A failure on the device before the schedule started (loading the
  // kernels again, uploading the bindings), as opposed to bad options.
  bool deviceSetupFailed() const {
    return phase == RunPhase::Load || phase == RunPhase::Upload;
  }
  // The run succeeded and every lane finished.
  bool ok() const { return status.ok() && lanesFinished == lanes; }
};

class Program {
public:
  Program();
  ~Program();
  Program(Program &&) noexcept;
  Program &operator=(Program &&) noexcept;
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  // Loads `artifact` on the backend named `backend` (backendAdapterNames()).
  // Errors: an unknown backend, an artifact without kernels for it, kernels
  // that do not load, no device (DeviceUnavailable).
  static Status load(Artifact artifact, std::string_view backend,
                     Program &out, const LoadOptions &options = {});
  // The bytes of an artifact (`origin` names it in messages).
  static Status loadBytes(std::vector<unsigned char> bytes,
                          std::string_view backend, Program &out,
                          const LoadOptions &options = {},
                          std::string origin = "<memory>");
  static Status loadFile(const std::string &path, std::string_view backend,
                         Program &out, const LoadOptions &options = {});

  bool loaded() const;
  const std::string &backend() const;
  const Artifact &artifact() const;
  // The runtime descriptor the scheduler runs (for printRunSummary).
  const ProgramDescriptor &descriptor() const;
  // The program's name (the coroutine's symbol, without '@').
  const std::string &name() const;

  // The bindings, in descriptor order, and one by name (null if none).
  const std::vector<BindingInfo> &bindings() const;
  const BindingInfo *findBinding(std::string_view name) const;

  // Binds buffer `name`. The element type must be the binding's and `shape`
  // ({} means one dimension of data.size() elements) must match its static
  // extents and hold data.size() elements.
  Status bind(std::string_view name, std::span<const int32_t> data,
              std::vector<int64_t> shape = {});
  Status bind(std::string_view name, std::span<const int64_t> data,
              std::vector<int64_t> shape = {});
  Status bind(std::string_view name, std::span<const float> data,
              std::vector<int64_t> shape = {});
  Status bind(std::string_view name, std::span<const double> data,
              std::vector<int64_t> shape = {});
  // Binds or sets `name` to `value` as it is (a uniform takes a scalar: shape
  // {}). The element type and shape must be the binding's.
  Status bind(std::string_view name, HostBuffer value);

  // Sets uniform `name`. An integer sets an i32 or i64 uniform (it must fit);
  // a float sets an f32 (rounded) or f64 uniform.
  Status setUniform(std::string_view name, int32_t value);
  Status setUniform(std::string_view name, int64_t value);
  Status setUniform(std::string_view name, float value);
  Status setUniform(std::string_view name, double value);

  // Binds buffer `name` to what the last run left in it, where it is (the
  // device's copy: nothing is read back or uploaded), for the next run: the
  // same as read() then bind() of that value. A progressive renderer's film
  // accumulates this way, pass after pass. An error before any run, and for
  // a uniform.
  Status keepResult(std::string_view name);

  // Runs the program; the report's status says whether it succeeded.
  RunReport run(const RunOptions &options);

  // Reads binding `name` (see "Values" above). The typed forms check the
  // element type; `out` receives the elements in row-major order.
  Status read(std::string_view name, HostBuffer &out);
  Status read(std::string_view name, std::vector<int32_t> &out);
  Status read(std::string_view name, std::vector<int64_t> &out);
  Status read(std::string_view name, std::vector<float> &out);
  Status read(std::string_view name, std::vector<double> &out);

  // One line about the device's work since loading (Vulkan: dispatches and
  // GPU time), or "".
  std::string deviceSummary() const;

private:
  struct Impl;
  Status bindElements(std::string_view name, ElementType element,
                      const void *data, size_t count,
                      std::vector<int64_t> shape);
  Status setScalar(std::string_view name, bool integer, int64_t integral,
                   double floating, ElementType given);
  Status readElements(std::string_view name, ElementType element,
                      HostBuffer &out);
  template <typename T>
  Status readVector(std::string_view name, ElementType element,
                    std::vector<T> &out);
  std::unique_ptr<Impl> impl_;
};

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_PROGRAM_SESSION_H
