//===- sluice_run_artifact.cpp - Run a compiled-program artifact ----------===//
//
// The runtime-only runner: no MLIR, no LLVM. It runs what
//
//   sluice-translate --sluice-to-artifact --sluice-backends=cpu,vulkan P.mlir
//     -o P.sluice
//
// wrote, on any backend the artifact has kernels for, under the wavefront
// scheduler, and prints what `sluice-run` prints for P.mlir. It is how a
// compiled program runs on a machine that has a driver but no compiler.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/device/backend.h"
#include "sluice/runtime/device/hip/hip_driver.h"
#include "sluice/runtime/device/vulkan/vulkan.h"
#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/program/run.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace rt = sluice::runtime;

namespace {

constexpr const char *kTool = "sluice-run-artifact";

void printUsage(std::FILE *out) {
  std::fprintf(
      out,
      "usage: sluice-run-artifact ARTIFACT [options]\n"
      "       sluice-run-artifact --describe ARTIFACT\n"
      "       sluice-run-artifact --list-backends | --list-devices | --help\n"
      "\n"
      "Runs a compiled wave program (the artifact `sluice-translate\n"
      "--sluice-to-artifact` writes, docs/artifact.md) on the runtime's\n"
      "wavefront scheduler and prints what `sluice-run` prints for the same\n"
      "program. Lane i gets i as its argument; buffers and uniforms come in\n"
      "as bindings (a buffer the program never reads may stay unbound: it\n"
      "starts zeroed). Needs no compiler.\n"
      "\n"
      "options:\n"
      "  --backend=NAME          cpu (default), cpu-staged, vulkan or hip\n"
      "                          (--list-backends); the artifact must\n"
      "                          hold kernels for it\n"
      "  --lanes=N               coroutine instances (default 1)\n"
      "  --frame-pool=N          frames in the pool (default 256)\n"
      "  --schedule=S            wavefront (default) | state-machine\n"
      "  --workers=N             CPU workers (cpu; default one per core)\n"
      "  --no-partial-admission  admit a producer only whole\n"
      "  --sort=on|off|STAGES    order the frames of a dispatch of a stage\n"
      "                          with a sort_by key by that key (default on;\n"
      "                          STAGES: only the main stages named, comma-\n"
      "                          separated)\n"
      "  --sort-buckets=N        0 (default): by the key's value; N >= 1: by\n"
      "                          the bucket key mod N\n"
      "  --sort-partition=N      sort every run of N consecutive frames of a\n"
      "                          dispatch on its own (default 1024: frames stay\n"
      "                          close in memory, runs sort in parallel); 0:\n"
      "                          the whole dispatch as one run\n"
      "  --stats                 print the per-stage table\n"
      "  --trace=FILE            Chrome trace of the wavefront iterations\n"
      "  --scheduler-placement=P host (default) | device | auto: where the\n"
      "                          wavefront scheduler decides (device: the\n"
      "                          decision loop runs on the device; host,\n"
      "                          with the reason, where it has none; auto:\n"
      "                          device on hip and a Vulkan GPU, host on\n"
      "                          the cpu backend and a Vulkan CPU device)\n"
      "  --iteration-log=FILE    one line per wavefront iteration: the\n"
      "                          decision and the counts it saw\n"
      "  --repeat=N              run N times; the fastest wall time goes to\n"
      "                          stderr\n"
      "  --bind=NAME=FILE        bind buffer NAME to FILE (.npy, else raw\n"
      "                          little-endian elements)\n"
      "  --set=NAME=VALUE        set uniform NAME\n"
      "  --output=NAME=FILE.npy  write binding NAME after the run\n"
      "  --print=NAME            print binding NAME after the run\n"
      "  --describe              print the artifact's program and sections\n"
      "\n"
      "SLUICE_VULKAN_DEVICE=<index|name> picks the Vulkan device.\n"
      "\n"
      "exit codes: 0 success, 1 the program failed (a protocol fault, a run\n"
      "error), 2 bad usage or bad input (an option, an unreadable or invalid\n"
      "artifact), 3 no device (no driver or no such device).\n");
}

int usageError(const std::string &message) {
  std::fprintf(stderr, "%s: %s\n(run sluice-run-artifact --help for usage)\n",
               kTool, message.c_str());
  return rt::kExitBadInput;
}

/// Parses `--name=N` into `out`; false if `arg` is another option.
bool parseCount(const char *arg, const char *name, uint32_t &out, bool &bad) {
  size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=')
    return false;
  const char *text = arg + length + 1;
  char *end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 10);
  bad = *text == '\0' || *end != '\0' || errno != 0 || value > UINT32_MAX ||
        text[0] == '-';
  out = uint32_t(value);
  return true;
}

bool parseString(const char *arg, const char *name, std::string &out) {
  size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=')
    return false;
  out = arg + length + 1;
  return true;
}

int describe(const rt::Artifact &artifact) {
  const rt::CompiledProgram &program = artifact.program();
  std::printf("program @%s: %zu main stages, %zu owners, %s frames of %zu "
              "fields\n",
              program.name.c_str(), program.mainStages.size(),
              program.owners.size(),
              program.layout == rt::FrameLayoutKind::StructOfArrays ? "soa"
                                                                    : "aos",
              program.fields.size());
  for (const rt::CompiledOwner &owner : program.owners) {
    std::string policy;
    for (size_t h = 0; h < rt::kPolicyHookCount; ++h)
      if (!owner.policyHooks[h].empty())
        policy += std::string(", ") + rt::policyHookName(rt::PolicyHook(h)) +
                  " @" + owner.policyHooks[h];
    if (owner.hasPolicy())
      policy +=
          ", policy storage " + std::to_string(owner.policyStorage) + " words";
    std::printf("owner @%s: capacity %u, %zu stages%s\n", owner.name.c_str(),
                owner.capacity, owner.stages.size(), policy.c_str());
  }
  for (const rt::CompiledBinding &binding : program.bindings) {
    std::string access;
    for (auto [flag, name] : {std::pair{binding.read, "read"},
                              {binding.written, "write"},
                              {binding.atomic, "atomic"}})
      if (flag)
        access += access.empty() ? name : std::string(",") + name;
    std::printf("binding %s: %s\n", rt::describeBinding(binding).c_str(),
                access.empty() ? "unused" : access.c_str());
  }
  for (const auto &[name, backend] : program.backends) {
    // Where the backend's code names a policy hook otherwise (hip: a
    // __device__ function of the source).
    std::string hooks;
    for (const rt::CompiledOwner &owner : program.owners)
      for (const std::string &hook : owner.policyHooks)
        if (auto found = backend.symbols.find("@" + hook);
            !hook.empty() && found != backend.symbols.end())
          hooks += (hooks.empty() ? ", policy hooks @" : ", @") + hook +
                   " as " + found->second;
    std::printf("backend %s: section '%s', %zu bytes%s\n", name.c_str(),
                backend.section.c_str(),
                artifact.section(backend.section).size(), hooks.c_str());
  }
  return rt::kExitSuccess;
}

int listDevices() {
  // The hip backend's device, or why there is none (hip_driver.h).
  rt::hip::Driver *hip = nullptr;
  rt::Status hipStatus = rt::hip::processDriver(hip);
  if (hip)
    std::printf("hip: %s, %d multiprocessors, warp %d (%s, %s)\n",
                hip->describe().c_str(), hip->info().multiprocessors,
                hip->info().warpSize, hip->info().library.c_str(),
                hip->info().compiler.c_str());
  else
    std::fprintf(stderr, "%s: hip: %s\n", kTool, hipStatus.describe().c_str());
  std::vector<rt::vulkan::DeviceInfo> devices;
  rt::Status status = rt::vulkan::Context::listDevices(devices);
  if (!status.ok()) {
    std::fprintf(stderr, "%s: %s\n", kTool, status.describe().c_str());
    return rt::exitCodeFor(status);
  }
  for (const rt::vulkan::DeviceInfo &device : devices) {
    // The shader features the kernels' capabilities may need.
    std::string features;
    for (auto [has, name] :
         {std::pair{device.shaderInt64, "int64"},
          std::pair{device.shaderFloat64, "float64"},
          std::pair{device.shaderBufferFloat32AtomicAdd, "atomic-float32-add"},
          std::pair{device.shaderBufferFloat64AtomicAdd, "atomic-float64-add"},
          std::pair{device.shaderBufferInt64Atomics, "atomic-int64"},
          std::pair{device.shaderInt16, "int16"},
          std::pair{device.shaderInt8, "int8"},
          std::pair{device.shaderFloat16, "float16"},
          std::pair{device.storageBuffer16BitAccess, "storage16"},
          std::pair{device.storageBuffer8BitAccess, "storage8"}})
      if (has)
        features += features.empty() ? name : std::string(" ") + name;
    std::printf("#%u %s (%s) %s [%s]\n", device.index, device.name.c_str(),
                device.type.c_str(), device.driver.c_str(), features.c_str());
  }
  return rt::kExitSuccess;
}

} // namespace

int main(int argc, char **argv) {
  rt::ArtifactRunOptions options;
  options.tool = kTool;
  std::string path;
  bool describeOnly = false;
  // The binding options also take their value as the next argument
  // (`--bind film=x.npy`), as sluice-run does.
  std::vector<std::string> joined;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    bool binding = arg == "--bind" || arg == "--set" || arg == "--output" ||
                   arg == "--print";
    if (binding && i + 1 < argc)
      joined.push_back(std::string(arg) + "=" + argv[++i]);
    else
      joined.push_back(std::string(arg));
  }
  for (const std::string &argument : joined) {
    const char *arg = argument.c_str();
    bool bad = false;
    if (!std::strcmp(arg, "--help") || !std::strcmp(arg, "-h")) {
      printUsage(stdout);
      return rt::kExitSuccess;
    }
    if (!std::strcmp(arg, "--list-devices"))
      return listDevices();
    if (!std::strcmp(arg, "--list-backends")) {
      for (const rt::BackendAdapter &adapter : rt::backendAdapters())
        std::printf("%.*s\t%.*s\n", int(adapter.name.size()),
                    adapter.name.data(), int(adapter.description.size()),
                    adapter.description.data());
      return rt::kExitSuccess;
    }
    if (!std::strcmp(arg, "--stats"))
      options.stats = true;
    else if (!std::strcmp(arg, "--no-partial-admission"))
      options.partialAdmission = false;
    else if (!std::strcmp(arg, "--describe"))
      describeOnly = true;
    else if (parseCount(arg, "--lanes", options.lanes, bad) ||
             parseCount(arg, "--frame-pool", options.framePool, bad) ||
             parseCount(arg, "--repeat", options.repeat, bad) ||
             parseCount(arg, "--workers", options.workers, bad) ||
             parseCount(arg, "--sort-buckets", options.sortBuckets, bad) ||
             parseCount(arg, "--sort-partition", options.sortPartition, bad)) {
      if (bad)
        return usageError(std::string("bad number in '") + arg + "'");
      options.workersGiven |= !std::strncmp(arg, "--workers=", 10);
    } else if (std::string text; parseString(arg, "--bind", text) ||
                                 parseString(arg, "--set", text) ||
                                 parseString(arg, "--output", text)) {
      std::string_view option(arg, std::strchr(arg, '=') - arg);
      rt::BindingRequests::Item item;
      if (rt::Status status = rt::parseBindingRequest(option, text, item);
          !status.ok())
        return usageError(status.message());
      rt::BindingRequests &requests = options.bindings;
      (option == "--bind"  ? requests.files
       : option == "--set" ? requests.uniforms
                           : requests.outputs)
          .push_back(std::move(item));
    } else if (std::string name; parseString(arg, "--print", name)) {
      options.bindings.prints.push_back(std::move(name));
    } else if (parseString(arg, "--backend", options.backend) ||
               parseString(arg, "--schedule", options.schedule) ||
               parseString(arg, "--sort", options.sort) ||
               parseString(arg, "--trace", options.tracePath) ||
               parseString(arg, "--iteration-log", options.iterationLogPath)) {
      continue;
    } else if (parseString(arg, "--scheduler-placement", options.placement)) {
      options.placementGiven = true;
    } else if (arg[0] == '-') {
      return usageError(std::string("unknown option '") + arg + "'");
    } else if (!path.empty()) {
      return usageError("more than one artifact: '" + path + "' and '" + arg +
                        "'");
    } else {
      path = arg;
    }
  }
  if (path.empty())
    return usageError("no artifact given");
  if (!describeOnly) {
    if (int code = rt::checkRunOptions(options); code != rt::kExitSuccess)
      return code;
    const rt::BackendAdapter *adapter = rt::findBackendAdapter(options.backend);
    if (options.workersGiven && !adapter->workers)
      return usageError("--workers chooses how the CPU backend runs kernels; "
                        "it does not apply to --backend=" +
                        options.backend);
  }

  rt::Artifact artifact;
  if (rt::Status status = rt::Artifact::readFile(path, artifact);
      !status.ok()) {
    std::fprintf(stderr, "%s: %s\n", kTool, status.message().c_str());
    return rt::kExitBadInput;
  }
  if (describeOnly)
    return describe(artifact);
  return rt::runArtifact(artifact, options);
}
