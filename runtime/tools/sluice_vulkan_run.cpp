//===- sluice_vulkan_run.cpp - Run a compiled wave program on Vulkan ------===//
//
// The runtime-only runner: no MLIR, no LLVM. It loads what
//
//   sluice-opt --wave-split --convert-wave-to-gpu --sluice-to-spirv P.mlir |
//     sluice-translate --sluice-to-spirv-bin --sluice-spirv-dir=DIR
//
// wrote (DIR/program.json, DIR/sluice_kernels.spv) and runs it on the Vulkan
// device under the wavefront scheduler, printing what `sluice-run
// --backend=vulkan` prints. It is how a compiled program runs on a machine
// that has a GPU driver but no compiler.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/vulkan.h"
#include "sluice/runtime/vulkan_device.h"
#include "sluice/runtime/wavefront.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace rt = sluice::runtime;

namespace {

//===----------------------------------------------------------------------===//
// The JSON subset sluice-translate prints: objects, arrays, strings without
// escapes beyond \" and \\, integers.
//===----------------------------------------------------------------------===//

struct Json {
  enum Kind { Null, Number, String, Array, Object } kind = Null;
  int64_t number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  const Json *get(const std::string &key) const {
    auto found = fields.find(key);
    return found == fields.end() ? nullptr : &found->second;
  }
};

class JsonParser {
public:
  explicit JsonParser(const std::string &text) : text(text) {}

  bool parse(Json &out, std::string &error) {
    if (!value(out) || (skip(), position != text.size())) {
      error = "malformed JSON at byte " + std::to_string(position);
      return false;
    }
    return true;
  }

private:
  void skip() {
    while (position < text.size() && std::isspace((unsigned char)text[position]))
      ++position;
  }
  bool eat(char c) {
    skip();
    if (position < text.size() && text[position] == c) {
      ++position;
      return true;
    }
    return false;
  }
  bool string(std::string &out) {
    if (!eat('"'))
      return false;
    while (position < text.size() && text[position] != '"') {
      if (text[position] == '\\' && position + 1 < text.size())
        ++position;
      out += text[position++];
    }
    return eat('"');
  }
  bool value(Json &out) {
    skip();
    if (position >= text.size())
      return false;
    char c = text[position];
    if (c == '{') {
      out.kind = Json::Object;
      ++position;
      if (eat('}'))
        return true;
      do {
        std::string key;
        if (!string(key) || !eat(':') || !value(out.fields[key]))
          return false;
      } while (eat(','));
      return eat('}');
    }
    if (c == '[') {
      out.kind = Json::Array;
      ++position;
      if (eat(']'))
        return true;
      do {
        if (!value(out.items.emplace_back()))
          return false;
      } while (eat(','));
      return eat(']');
    }
    if (c == '"') {
      out.kind = Json::String;
      return string(out.text);
    }
    size_t end = position;
    if (end < text.size() && text[end] == '-')
      ++end;
    while (end < text.size() && std::isdigit((unsigned char)text[end]))
      ++end;
    if (end == position)
      return false;
    out.kind = Json::Number;
    out.number = std::stoll(text.substr(position, end - position));
    position = end;
    return true;
  }

  const std::string &text;
  size_t position = 0;
};

//===----------------------------------------------------------------------===//
// program.json -> ProgramDescriptor + VulkanProgram
//===----------------------------------------------------------------------===//

class Loader {
public:
  std::string error;

  bool number(const Json &object, const char *key, uint32_t &out) {
    const Json *value = object.get(key);
    if (!value || value->kind != Json::Number || value->number < 0 ||
        value->number > int64_t(UINT32_MAX))
      return fail(std::string("missing or out-of-range number '") + key + "'");
    out = uint32_t(value->number);
    return true;
  }
  bool string(const Json &object, const char *key, std::string &out) {
    const Json *value = object.get(key);
    if (!value || value->kind != Json::String)
      return fail(std::string("missing string '") + key + "'");
    out = value->text;
    return true;
  }
  const Json *list(const Json &object, const char *key) {
    const Json *value = object.get(key);
    if (!value || value->kind != Json::Array)
      fail(std::string("missing array '") + key + "'");
    return value && value->kind == Json::Array ? value : nullptr;
  }
  // Bytes of one element of a kernel array of MLIR type `type`, as the
  // SPIR-V kernels store it (index is i32, i1 is a byte).
  bool elementBytes(const std::string &type, uint32_t &out) {
    if (type == "index") {
      out = 4;
      return true;
    }
    if (type == "bf16") {
      out = 2;
      return true;
    }
    if (type.size() >= 2 && (type[0] == 'i' || type[0] == 'f')) {
      char *end = nullptr;
      unsigned long bits = std::strtoul(type.c_str() + 1, &end, 10);
      if (*end == '\0' && bits > 0 && bits <= 64) {
        out = 1;
        while (out * 8 < bits)
          out *= 2;
        return true;
      }
    }
    return fail("unsupported element type '" + type + "'");
  }
  bool stages(const Json &list, std::vector<rt::StageDesc> &out,
              std::vector<std::string> &kernels) {
    for (const Json &entry : list.items) {
      rt::StageDesc stage;
      std::string kernel;
      if (!string(entry, "name", stage.name) ||
          !string(entry, "kernel", kernel))
        return false;
      out.push_back(stage);
      kernels.push_back(kernel);
    }
    return true;
  }

  bool load(const Json &root, uint32_t lanes, rt::ProgramDescriptor &program,
            rt::VulkanProgram &vulkan) {
    uint32_t version = 0;
    if (!number(root, "version", version))
      return false;
    if (version != 1)
      return fail("unsupported descriptor version " + std::to_string(version));
    const Json *mainStages = list(root, "main_stages");
    const Json *owners = list(root, "owners");
    const Json *producers = list(root, "producers");
    const Json *inputs = list(root, "inputs");
    const Json *frame = root.get("frame");
    const Json *counters = root.get("counters");
    if (!mainStages || !owners || !producers || !inputs)
      return false;
    if (!frame || !counters)
      return fail("missing 'frame' or 'counters'");
    if (!string(root, "name", program.name) ||
        !number(root, "entry_stage", program.entryStage) ||
        !number(root, "publish_stride", vulkan.layout.publishStride) ||
        !number(*counters, "alloc_base", vulkan.layout.allocBase) ||
        !number(*counters, "size", vulkan.layout.counterCount) ||
        !stages(*mainStages, program.mainStages, vulkan.entryPoints))
      return false;
    for (const Json &entry : owners->items) {
      rt::OwnerDesc owner;
      const Json *ownerStages = list(entry, "stages");
      const Json *payload = list(entry, "payload");
      if (!ownerStages || !payload || !string(entry, "name", owner.name) ||
          !number(entry, "capacity", owner.capacity) ||
          !number(entry, "item_size", owner.itemSize) ||
          !stages(*ownerStages, owner.stages, vulkan.entryPoints))
        return false;
      auto &fields = vulkan.payloadElementBytes.emplace_back();
      for (const Json &type : payload->items)
        if (!elementBytes(type.text, fields.emplace_back()))
          return false;
      vulkan.layout.ownerCapacity.push_back(owner.capacity);
      vulkan.layout.ownerPublishBase.push_back(0);
      program.owners.push_back(std::move(owner));
    }
    for (const Json &entry : producers->items) {
      rt::ProducerDesc producer;
      uint32_t base = 0;
      if (!number(entry, "stage", producer.stage) ||
          !number(entry, "owner", producer.owner) ||
          !number(entry, "bound", producer.bound) ||
          !number(entry, "publish_base", base))
        return false;
      if (producer.owner >= program.owners.size())
        return fail("a producer names owner #" +
                    std::to_string(producer.owner));
      vulkan.layout.ownerPublishBase[producer.owner] = base;
      program.producers.push_back(producer);
    }
    for (const Json &type : inputs->items) {
      uint32_t bytes = 0;
      if (!elementBytes(type.text, bytes))
        return false;
      auto &input = vulkan.inputs.emplace_back(uint64_t(lanes) * bytes, 0);
      for (uint64_t lane = 0; lane < lanes; ++lane)
        std::memcpy(input.data() + lane * bytes, &lane, bytes);
    }
    std::string layout;
    const Json *fields = list(*frame, "fields");
    if (!fields || !string(*frame, "layout", layout))
      return false;
    program.frameLayout.kind = layout == "soa"
                                   ? rt::FrameLayoutKind::StructOfArrays
                                   : rt::FrameLayoutKind::ArrayOfStructs;
    std::vector<uint64_t> offsets;
    for (const Json &entry : fields->items) {
      rt::FrameField field;
      uint32_t size = 0, align = 0, offset = 0;
      if (!string(entry, "name", field.name) || !number(entry, "size", size) ||
          !number(entry, "align", align) ||
          (layout != "soa" && !number(entry, "offset", offset)))
        return false;
      field.size = size;
      field.align = align;
      offsets.push_back(offset);
      program.frameLayout.fields.push_back(field);
    }
    if (layout != "soa") {
      uint32_t stride = 0;
      if (!number(*frame, "stride", stride))
        return false;
      rt::Status status =
          rt::checkCompiledFrameLayout(program.frameLayout, stride, offsets);
      if (!status.ok())
        return fail(status.describe());
    }
    return true;
  }

private:
  bool fail(std::string message) {
    if (error.empty())
      error = std::move(message);
    return false;
  }
};

bool readFile(const std::string &path, std::string &out) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  std::ostringstream buffer;
  buffer << file.rdbuf();
  out = buffer.str();
  return true;
}

int usage() {
  std::fprintf(
      stderr,
      "usage: sluice-vulkan-run DIR [--lanes=N] [--frame-pool=N] [--stats]\n"
      "                         [--no-partial-admission] [--repeat=N]\n"
      "       sluice-vulkan-run --list-devices\n\n"
      "Runs the wave program that `sluice-translate --sluice-to-spirv-bin\n"
      "--sluice-spirv-dir=DIR` wrote (program.json, sluice_kernels.spv) on a\n"
      "Vulkan device with the wavefront scheduler, and prints what\n"
      "`sluice-run --backend=vulkan` prints. Lane i gets i as argument.\n"
      "--repeat=N runs it N times and prints the fastest wall time on stderr.\n"
      "SLUICE_VULKAN_DEVICE=<index|name> picks the device.\n");
  return 2;
}

bool parseCount(const char *text, const char *option, uint32_t &out) {
  size_t length = std::strlen(option);
  if (std::strncmp(text, option, length) != 0)
    return false;
  char *end = nullptr;
  unsigned long value = std::strtoul(text + length, &end, 10);
  if (*end != '\0' || value == 0 || value > (1ul << 24)) {
    std::fprintf(stderr, "sluice-vulkan-run: %s expects N in [1, 16777216]\n",
                 option);
    std::exit(2);
  }
  out = uint32_t(value);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string dir;
  uint32_t lanes = 1, framePool = 256, repeat = 1;
  bool stats = false, partialAdmission = true;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (std::strcmp(arg, "--list-devices") == 0) {
      std::vector<rt::vulkan::DeviceInfo> devices;
      rt::Status status = rt::vulkan::Context::listDevices(devices);
      if (!status.ok()) {
        std::fprintf(stderr, "sluice-vulkan-run: %s\n",
                     status.describe().c_str());
        return 1;
      }
      for (const rt::vulkan::DeviceInfo &device : devices)
        std::printf("#%u %s (%s) %s\n", device.index, device.name.c_str(),
                    device.type.c_str(), device.driver.c_str());
      return 0;
    }
    if (std::strcmp(arg, "--stats") == 0)
      stats = true;
    else if (std::strcmp(arg, "--no-partial-admission") == 0)
      partialAdmission = false;
    else if (parseCount(arg, "--lanes=", lanes) ||
             parseCount(arg, "--frame-pool=", framePool) ||
             parseCount(arg, "--repeat=", repeat))
      continue;
    else if (arg[0] == '-' || !dir.empty())
      return usage();
    else
      dir = arg;
  }
  if (dir.empty())
    return usage();

  std::string json, binary;
  if (!readFile(dir + "/program.json", json) ||
      !readFile(dir + "/sluice_kernels.spv", binary)) {
    std::fprintf(stderr,
                 "sluice-vulkan-run: %s must hold program.json and "
                 "sluice_kernels.spv\n",
                 dir.c_str());
    return 1;
  }
  Json root;
  std::string error;
  if (!JsonParser(json).parse(root, error)) {
    std::fprintf(stderr, "sluice-vulkan-run: %s/program.json: %s\n",
                 dir.c_str(), error.c_str());
    return 1;
  }
  rt::ProgramDescriptor program;
  rt::VulkanProgram vulkan;
  Loader loader;
  if (!loader.load(root, lanes, program, vulkan)) {
    std::fprintf(stderr, "sluice-vulkan-run: %s/program.json: %s\n",
                 dir.c_str(), loader.error.c_str());
    return 1;
  }
  if (binary.size() % 4 != 0) {
    std::fprintf(stderr, "sluice-vulkan-run: sluice_kernels.spv is %zu bytes, "
                         "not whole words\n",
                 binary.size());
    return 1;
  }
  vulkan.spirv.resize(binary.size() / 4);
  std::memcpy(vulkan.spirv.data(), binary.data(), binary.size());

  std::unique_ptr<rt::VulkanDevice> device;
  if (rt::Status status = rt::VulkanDevice::create(std::move(vulkan), device);
      !status.ok()) {
    std::fprintf(stderr, "sluice-vulkan-run: %s\n", status.describe().c_str());
    return 1;
  }
  rt::SchedulerOptions options;
  options.framePool = framePool;
  options.partialAdmission = partialAdmission;
  double best = 0;
  rt::RunResult result;
  for (uint32_t r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    rt::WavefrontScheduler scheduler(program, *device, options);
    result = scheduler.run(lanes);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    if (r == 0 || seconds < best)
      best = seconds;
    if (!result.status.ok()) {
      std::fprintf(stderr, "sluice-vulkan-run: run of @%s failed: %s\n",
                   program.name.c_str(), result.status.describe().c_str());
      return 1;
    }
  }
  rt::printRunSummary(stdout, program, result,
                      {lanes, "wavefront", rt::FrameLayoutKind::StructOfArrays ==
                                                   program.frameLayout.kind
                                               ? "soa"
                                               : "aos",
                       framePool, stats});
  const rt::VulkanDeviceStats &gpu = device->stats();
  std::fprintf(stderr,
               "sluice-vulkan-run: vulkan device '%s': last run %llu "
               "dispatches, %.3f ms of GPU time, %.3f ms in dispatch() of "
               "which %.3f ms record+submit+wait; fastest run %.3f ms wall\n",
               device->deviceName().c_str(),
               (unsigned long long)gpu.dispatches, gpu.gpuNanoseconds * 1e-6,
               gpu.dispatchNanoseconds * 1e-6,
               gpu.submitWaitNanoseconds * 1e-6, best * 1e3);
  return result.lanesFinished == lanes ? 0 : 1;
}
