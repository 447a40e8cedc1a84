//===- descriptor.cpp - The JSON program descriptor -----------------------===//
//
// The one parser of the descriptor the compiler writes (docs/artifact.md).
// Every field is checked for presence, kind and range; an error names the
// origin, the field as a JSON path and the value found.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/program/artifact.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <limits>

namespace sluice::runtime {
namespace {

using json = nlohmann::json;

/// A value for an error message: scalars as written, containers by kind
/// (a deeply nested value is never printed whole).
std::string describe(const json &value) {
  if (value.is_array())
    return "an array";
  if (value.is_object())
    return "an object";
  return value.dump();
}

/// Reads typed fields out of JSON objects, remembering the first error.
class FieldReader {
public:
  explicit FieldReader(std::string_view origin) : origin(origin) {}

  bool failed() const { return !error.empty(); }
  Status status() const {
    return failed() ? Status::error(ErrorKind::InvalidDescriptor, error)
                    : Status::success();
  }

  const json *field(const json &object, const std::string &path,
                    const char *key) {
    if (failed())
      return nullptr;
    if (!object.is_object())
      return fail(path, "is not an object"), nullptr;
    auto found = object.find(key);
    if (found == object.end())
      return fail(join(path, key), "is missing"), nullptr;
    return &*found;
  }

  uint64_t unsignedField(const json &object, const std::string &path,
                         const char *key, uint64_t max) {
    const json *value = field(object, path, key);
    if (!value)
      return 0;
    std::string where = join(path, key);
    if (value->is_number_unsigned() || value->is_number_integer()) {
      if (value->is_number_integer() && !value->is_number_unsigned() &&
          value->get<int64_t>() < 0)
        return fail(where, "is " + describe(*value) + ", out of range [0, " +
                               std::to_string(max) + "]"),
               0;
      uint64_t number = value->get<uint64_t>();
      if (number > max)
        return fail(where, "is " + std::to_string(number) +
                               ", out of range [0, " + std::to_string(max) +
                               "]"),
               0;
      return number;
    }
    return fail(where, "must be an unsigned integer, got " + describe(*value)),
           0;
  }
  uint32_t u32(const json &object, const std::string &path, const char *key) {
    return uint32_t(unsignedField(object, path, key, UINT32_MAX));
  }
  std::string string(const json &object, const std::string &path,
                     const char *key) {
    const json *value = field(object, path, key);
    if (!value)
      return {};
    if (!value->is_string())
      return fail(join(path, key), "must be a string, got " + describe(*value)),
             std::string();
    return value->get<std::string>();
  }
  const json *array(const json &object, const std::string &path,
                    const char *key) {
    const json *value = field(object, path, key);
    if (value && !value->is_array())
      return fail(join(path, key), "must be an array, got " + describe(*value)),
             nullptr;
    return value;
  }
  std::vector<std::string> stringList(const json &object,
                                      const std::string &path,
                                      const char *key) {
    std::vector<std::string> out;
    const json *list = array(object, path, key);
    if (!list)
      return out;
    for (size_t i = 0; i < list->size(); ++i) {
      if (!(*list)[i].is_string()) {
        fail(index(join(path, key), i),
             "must be a string, got " + describe((*list)[i]));
        break;
      }
      out.push_back((*list)[i].get<std::string>());
    }
    return out;
  }

  void fail(const std::string &where, const std::string &what) {
    if (error.empty())
      error = std::string(origin) + ": descriptor: '" + where + "' " + what;
  }
  void failRoot(const std::string &what) {
    if (error.empty())
      error = std::string(origin) + ": descriptor: " + what;
  }

  static std::string join(const std::string &path, const char *key) {
    return path.empty() ? std::string(key) : path + "." + key;
  }
  static std::string index(const std::string &path, size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }

private:
  std::string_view origin;
  std::string error;
};

/// `allowSortKey`: main stages may name a sort key ("sort_key").
void readStages(FieldReader &reader, const json &object,
                const std::string &path, const char *key,
                std::vector<CompiledStage> &out, bool allowSortKey = false) {
  const json *list = reader.array(object, path, key);
  if (!list)
    return;
  std::string base = FieldReader::join(path, key);
  for (size_t i = 0; i < list->size(); ++i) {
    std::string where = FieldReader::index(base, i);
    CompiledStage stage;
    stage.name = reader.string((*list)[i], where, "name");
    stage.kernel = reader.string((*list)[i], where, "kernel");
    if (allowSortKey && (*list)[i].is_object() &&
        (*list)[i].contains("sort_key"))
      stage.sortKey = reader.string((*list)[i], where, "sort_key");
    out.push_back(std::move(stage));
  }
}

void readBindings(FieldReader &reader, const json &root,
                  std::vector<CompiledBinding> &out) {
  const json *list = reader.array(root, "", "bindings");
  if (!list)
    return;
  for (size_t i = 0; i < list->size() && !reader.failed(); ++i) {
    std::string where = FieldReader::index("bindings", i);
    const json &entry = (*list)[i];
    CompiledBinding binding;
    binding.name = reader.string(entry, where, "name");
    std::string kind = reader.string(entry, where, "kind");
    binding.element = reader.string(entry, where, "element");
    binding.declared = reader.string(entry, where, "declared");
    std::vector<std::string> access = reader.stringList(entry, where, "access");
    const json *shape = reader.array(entry, where, "shape");
    if (reader.failed())
      return;
    if (kind != "buffer" && kind != "uniform")
      return reader.fail(where + ".kind", "must be \"buffer\" or "
                                          "\"uniform\", got \"" + kind + "\"");
    binding.kind = kind == "buffer" ? BindingKind::Buffer : BindingKind::Uniform;
    if (binding.element != "i32" && binding.element != "i64" &&
        binding.element != "f32" && binding.element != "f64")
      return reader.fail(where + ".element",
                         "must be i32, i64, f32 or f64, got \"" +
                             binding.element + "\"");
    if (binding.declared != "readonly" && binding.declared != "writeonly" &&
        binding.declared != "readwrite")
      return reader.fail(where + ".declared",
                         "must be readonly, writeonly or readwrite, got \"" +
                             binding.declared + "\"");
    for (const std::string &flag : access) {
      if (flag == "read")
        binding.read = true;
      else if (flag == "write")
        binding.written = true;
      else if (flag == "atomic")
        binding.atomic = true;
      else
        return reader.fail(where + ".access",
                           "holds \"" + flag +
                               "\"; the flags are read, write and atomic");
    }
    for (size_t d = 0; d < shape->size(); ++d) {
      const json &extent = (*shape)[d];
      std::string at = FieldReader::index(where + ".shape", d);
      if (!extent.is_number_integer() || extent.get<int64_t>() < -1 ||
          extent.get<int64_t>() > (int64_t(1) << 48))
        return reader.fail(at, "is " + describe(extent) +
                                   ", not an extent (-1 for dynamic)");
      binding.shape.push_back(extent.get<int64_t>());
    }
    bool dynamic = std::count(binding.shape.begin(), binding.shape.end(),
                              int64_t(-1)) > 0;
    if (dynamic && binding.shape.size() != 1)
      return reader.fail(where + ".shape",
                         "has a dynamic extent at rank " +
                             std::to_string(binding.shape.size()) +
                             "; only rank-1 buffers may be dynamic");
    if (binding.kind == BindingKind::Uniform && !binding.shape.empty())
      return reader.fail(where + ".shape", "is not empty, but a uniform is a "
                                           "scalar");
    for (const CompiledBinding &other : out)
      if (other.name == binding.name)
        return reader.fail(where + ".name",
                           "is \"" + binding.name + "\" a second time");
    out.push_back(std::move(binding));
  }
}

/// How the runtime reads a sort key of MLIR type `type`; false for a type
/// it cannot order (i1 and integers wider than 64 bits, small floats).
bool sortKeyKindOf(std::string_view type, SortKeyKind &kind) {
  if (type == "index" || type == "i8" || type == "i16" || type == "i32" ||
      type == "i64") {
    kind = SortKeyKind::Integer;
    return true;
  }
  if (type == "f32" || type == "f64") {
    kind = SortKeyKind::Float;
    return true;
  }
  return false;
}

/// Indices and kinds the compiler guarantees and the runtime relies on.
void checkConsistency(FieldReader &reader, const CompiledProgram &program) {
  if (reader.failed())
    return;
  if (program.mainStages.empty())
    return reader.fail("main_stages", "is empty: a program has an entry stage");
  if (program.entryStage >= program.mainStages.size())
    return reader.fail("entry_stage",
                       "is " + std::to_string(program.entryStage) + ", but " +
                           std::to_string(program.mainStages.size()) +
                           " main stages exist");
  for (size_t i = 0; i < program.producers.size(); ++i) {
    const CompiledProducer &producer = program.producers[i];
    std::string where = "producers[" + std::to_string(i) + "]";
    if (producer.stage >= program.mainStages.size())
      return reader.fail(where + ".stage",
                         "is " + std::to_string(producer.stage) + ", but " +
                             std::to_string(program.mainStages.size()) +
                             " main stages exist");
    if (producer.owner >= program.owners.size())
      return reader.fail(where + ".owner",
                         "is " + std::to_string(producer.owner) + ", but " +
                             std::to_string(program.owners.size()) +
                             " owners exist");
    if (uint64_t(producer.publishBase) + producer.bound >
        program.publishStride)
      return reader.fail(where + ".publish_base",
                         "is " + std::to_string(producer.publishBase) +
                             " with bound " + std::to_string(producer.bound) +
                             ", beyond publish_stride " +
                             std::to_string(program.publishStride));
  }
  if (uint64_t(program.allocBase) + program.owners.size() >
      program.counterCount)
    return reader.fail("counters.alloc_base",
                       "is " + std::to_string(program.allocBase) + " with " +
                           std::to_string(program.owners.size()) +
                           " owners, beyond counters.size " +
                           std::to_string(program.counterCount));
  for (size_t i = 0; i < program.fields.size(); ++i) {
    const CompiledField &field = program.fields[i];
    std::string where = "frame.fields[" + std::to_string(i) + "]";
    if (field.align == 0 || (field.align & (field.align - 1)) != 0)
      return reader.fail(where + ".align",
                         "is " + std::to_string(field.align) +
                             ", not a power of two");
  }
  for (size_t i = 0; i < program.mainStages.size(); ++i) {
    const std::string &key = program.mainStages[i].sortKey;
    if (key.empty())
      continue;
    std::string where = "main_stages[" + std::to_string(i) + "].sort_key";
    auto field = std::find_if(
        program.fields.begin(), program.fields.end(),
        [&](const CompiledField &candidate) { return candidate.name == key; });
    if (field == program.fields.end())
      return reader.fail(where,
                         "is \"" + key + "\", which names no frame field");
    SortKeyKind kind;
    if (!sortKeyKindOf(field->type, kind))
      return reader.fail(where, "names field \"" + key + "\" of type " +
                                    field->type +
                                    "; a sort key is an integer, index, f32 "
                                    "or f64");
  }
}

// `policy`: {"storage": words, "<hook>": "<symbol>", ...}, at least one hook.
void readPolicy(FieldReader &reader, const json &owner, const std::string &path,
                CompiledOwner &out) {
  std::string where = FieldReader::join(path, "policy");
  const json *policy = reader.field(owner, path, "policy");
  if (!policy)
    return;
  if (!policy->is_object())
    return reader.fail(where, "is not an object");
  for (const auto &[key, value] : policy->items()) {
    if (key == "storage") {
      out.policyStorage = reader.u32(*policy, where, "storage");
      continue;
    }
    size_t hook = 0;
    while (hook < kPolicyHookCount && key != policyHookName(PolicyHook(hook)))
      ++hook;
    if (hook == kPolicyHookCount)
      return reader.fail(FieldReader::join(where, key.c_str()),
                         "is not a policy hook (prepare_for_admission, "
                         "availability, admission_stage, prepare_for_producer"
                         ") or storage");
    out.policyHooks[hook] = reader.string(*policy, where, key.c_str());
    if (!reader.failed() && out.policyHooks[hook].empty())
      return reader.fail(FieldReader::join(where, key.c_str()),
                         "is an empty symbol");
  }
  if (!reader.failed() && !out.hasPolicy())
    reader.fail(where, "names no hook");
}

} // namespace

Status parseDescriptor(std::string_view text, std::string_view origin,
                       CompiledProgram &out) {
  FieldReader reader(origin);
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception &error) {
    reader.failRoot(std::string("malformed JSON: ") + error.what());
    return reader.status();
  }
  if (!root.is_object()) {
    reader.failRoot("the descriptor must be a JSON object, got " +
                    std::string(root.type_name()));
    return reader.status();
  }
  uint32_t version = reader.u32(root, "", "version");
  if (!reader.failed() && version != kDescriptorVersion) {
    reader.failRoot("version " + std::to_string(version) +
                    ", but this runtime reads version " +
                    std::to_string(kDescriptorVersion));
    return reader.status();
  }
  CompiledProgram program;
  program.name = reader.string(root, "", "name");
  program.entryStage = reader.u32(root, "", "entry_stage");
  program.publishStride = reader.u32(root, "", "publish_stride");
  readStages(reader, root, "", "main_stages", program.mainStages,
             /*allowSortKey=*/true);

  if (const json *owners = reader.array(root, "", "owners")) {
    for (size_t i = 0; i < owners->size(); ++i) {
      std::string where = FieldReader::index("owners", i);
      const json &entry = (*owners)[i];
      CompiledOwner owner;
      owner.name = reader.string(entry, where, "name");
      owner.capacity = reader.u32(entry, where, "capacity");
      owner.itemSize = reader.u32(entry, where, "item_size");
      owner.payload = reader.stringList(entry, where, "payload");
      readStages(reader, entry, where, "stages", owner.stages);
      if (!reader.failed() && entry.is_object() && entry.contains("policy"))
        readPolicy(reader, entry, where, owner);
      program.owners.push_back(std::move(owner));
    }
  }
  if (const json *producers = reader.array(root, "", "producers")) {
    for (size_t i = 0; i < producers->size(); ++i) {
      std::string where = FieldReader::index("producers", i);
      const json &entry = (*producers)[i];
      CompiledProducer producer;
      producer.stage = reader.u32(entry, where, "stage");
      producer.owner = reader.u32(entry, where, "owner");
      producer.bound = reader.u32(entry, where, "bound");
      producer.publishBase = reader.u32(entry, where, "publish_base");
      program.producers.push_back(producer);
      if (!reader.failed() && producer.owner < program.owners.size())
        program.owners[producer.owner].publishBase = producer.publishBase;
    }
  }

  if (const json *frame = reader.field(root, "", "frame")) {
    std::string layout = reader.string(*frame, "frame", "layout");
    if (!reader.failed() && layout != "soa" && layout != "aos")
      reader.fail("frame.layout",
                  "must be \"soa\" or \"aos\", got \"" + layout + "\"");
    program.layout = layout == "aos" ? FrameLayoutKind::ArrayOfStructs
                                     : FrameLayoutKind::StructOfArrays;
    bool aos = program.layout == FrameLayoutKind::ArrayOfStructs;
    if (aos)
      program.stride = reader.unsignedField(*frame, "frame", "stride",
                                            std::numeric_limits<uint32_t>::max());
    if (const json *fields = reader.array(*frame, "frame", "fields")) {
      for (size_t i = 0; i < fields->size(); ++i) {
        std::string where = FieldReader::index("frame.fields", i);
        const json &entry = (*fields)[i];
        CompiledField field;
        field.name = reader.string(entry, where, "name");
        field.type = reader.string(entry, where, "type");
        field.size = reader.unsignedField(entry, where, "size", UINT32_MAX);
        field.align = reader.unsignedField(entry, where, "align", 4096);
        if (aos)
          field.offset =
              reader.unsignedField(entry, where, "offset", UINT32_MAX);
        program.fields.push_back(std::move(field));
      }
    }
  }
  if (const json *counters = reader.field(root, "", "counters")) {
    program.stageBase = reader.u32(*counters, "counters", "stage_base");
    program.allocBase = reader.u32(*counters, "counters", "alloc_base");
    program.releaseBase = reader.u32(*counters, "counters", "release_base");
    program.counterCount = reader.u32(*counters, "counters", "size");
  }
  program.inputs = reader.stringList(root, "", "inputs");
  readBindings(reader, root, program.bindings);
  if (const json *check = reader.field(root, "", "check_bounds")) {
    if (!check->is_boolean())
      reader.fail("check_bounds", "must be true or false, got " + describe(*check));
    else
      program.checkBounds = check->get<bool>();
  }

  // The megakernel: optional (a descriptor without it has no state-machine
  // schedule on the compiled-kernel device).
  if (!reader.failed() && root.contains("megakernel")) {
    program.megakernel =
        reader.string(root["megakernel"], "megakernel", "kernel");
    program.megakernelUniformWords =
        reader.u32(root["megakernel"], "megakernel", "uniform_words");
    uint32_t words = 0;
    for (const auto &[binding, count] : program.megakernelUniforms())
      words += count;
    if (!reader.failed() && words != program.megakernelUniformWords)
      reader.fail("megakernel.uniform_words",
                  "is " + std::to_string(program.megakernelUniformWords) +
                      ", but the uniform bindings take " +
                      std::to_string(words));
  }

  // Backends: optional in a bare descriptor, present in every artifact.
  if (!reader.failed() && root.contains("backends")) {
    const json &backends = root["backends"];
    if (!backends.is_object())
      reader.fail("backends", "must be an object, got " + describe(backends));
    else
      for (auto &[name, entry] : backends.items()) {
        std::string where = "backends." + name;
        CompiledBackend backend;
        backend.section = reader.string(entry, where, "section");
        backend.blockLanes = reader.u32(entry, where, "block_lanes");
        if (!reader.failed() && backend.blockLanes == 0)
          reader.fail(where + ".block_lanes", "is 0");
        // Optional: the CPU level the kernels need.
        if (!reader.failed() && entry.is_object() && entry.contains("isa")) {
          const json &isa = entry["isa"];
          if (!isa.is_string() ||
              std::find(kCpuLevels.begin(), kCpuLevels.end(),
                        isa.get<std::string>()) == kCpuLevels.end()) {
            std::string known;
            for (std::string_view level : kCpuLevels)
              known += (known.empty() ? "" : ", ") + std::string(level);
            reader.fail(where + ".isa", "must be one of " + known + ", got " +
                                            describe(isa));
          } else {
            backend.isa = isa.get<std::string>();
          }
        }
        // Optional: the width of index inside the kernels (hip: 32 or 64).
        if (!reader.failed() && entry.is_object() &&
            entry.contains("index_bits")) {
          const json &bits = entry["index_bits"];
          if (!bits.is_number_integer() ||
              (bits.get<int64_t>() != 32 && bits.get<int64_t>() != 64))
            reader.fail(where + ".index_bits",
                        "must be 32 or 64, got " + describe(bits));
          else if (name != "hip")
            reader.fail(where + ".index_bits",
                        "is only read for the hip backend");
          else
            backend.indexBits = uint32_t(bits.get<int64_t>());
        }
        // Optional: how the kernels take free-ring positions ("claimed",
        // the default, or "lane": the CPU backend's, whose host compacts).
        if (!reader.failed() && entry.is_object() &&
            entry.contains("publish_positions")) {
          const json &positions = entry["publish_positions"];
          std::string text =
              positions.is_string() ? positions.get<std::string>() : "";
          if (text != "claimed" && text != "lane")
            reader.fail(where + ".publish_positions",
                        "must be \"claimed\" or \"lane\", got " +
                            describe(positions));
          else if (text == "lane" && name != "cpu")
            reader.fail(where + ".publish_positions",
                        "is \"lane\", which only the cpu backend's host "
                        "compacts");
          else
            backend.lanePublishPositions = text == "lane";
        }
        // Optional: kernel name -> the symbol the backend's code exports.
        if (!reader.failed() && entry.is_object() && entry.contains("symbols")) {
          const json &symbols = entry["symbols"];
          if (!symbols.is_object())
            reader.fail(where + ".symbols",
                        "must be an object, got " + describe(symbols));
          else
            for (auto &[kernel, symbol] : symbols.items()) {
              if (!symbol.is_string() || symbol.get<std::string>().empty()) {
                reader.fail(where + ".symbols." + kernel,
                            "must be a non-empty string, got " +
                                describe(symbol));
                break;
              }
              backend.symbols.emplace(kernel, symbol.get<std::string>());
            }
        }
        program.backends.emplace(name, std::move(backend));
      }
  }
  checkConsistency(reader, program);
  if (reader.failed())
    return reader.status();
  // The AoS kernels were compiled with the stride and offsets the runtime's
  // layout rule gives these fields.
  if (program.layout == FrameLayoutKind::ArrayOfStructs) {
    std::vector<uint64_t> offsets;
    for (const CompiledField &field : program.fields)
      offsets.push_back(field.offset);
    if (Status status = checkCompiledFrameLayout(
            program.runtimeDescriptor(nullptr, nullptr).frameLayout,
            program.stride, offsets);
        !status.ok())
      return Status::error(ErrorKind::InvalidDescriptor,
                           std::string(origin) + ": descriptor: " +
                               status.message());
  }
  out = std::move(program);
  return Status::success();
}

Status elementBytes(std::string_view type, uint32_t indexBytes,
                    uint32_t &out) {
  if (type == "index") {
    out = indexBytes;
    return Status::success();
  }
  if (type == "bf16") {
    out = 2;
    return Status::success();
  }
  if (type.size() >= 2 && (type[0] == 'i' || type[0] == 'f')) {
    unsigned bits = 0;
    auto [end, error] =
        std::from_chars(type.data() + 1, type.data() + type.size(), bits);
    if (error == std::errc() && end == type.data() + type.size() && bits > 0 &&
        bits <= 64) {
      out = 1;
      while (out * 8 < bits)
        out *= 2;
      return Status::success();
    }
  }
  return Status::error(ErrorKind::InvalidDescriptor,
                       "unsupported element type '" + std::string(type) +
                           "' (expected an integer, float or index type)");
}

std::vector<const CompiledStage *> CompiledProgram::globalStages() const {
  std::vector<const CompiledStage *> stages;
  for (const CompiledStage &stage : mainStages)
    stages.push_back(&stage);
  for (const CompiledOwner &owner : owners)
    for (const CompiledStage &stage : owner.stages)
      stages.push_back(&stage);
  return stages;
}

std::vector<std::pair<uint32_t, uint32_t>>
CompiledProgram::megakernelUniforms() const {
  std::vector<std::pair<uint32_t, uint32_t>> uniforms;
  for (uint32_t b = 0; b < bindings.size(); ++b)
    if (bindings[b].kind == BindingKind::Uniform)
      uniforms.emplace_back(
          b, bindings[b].element == "i64" || bindings[b].element == "f64" ? 2
                                                                          : 1);
  return uniforms;
}

GpuKernelLayout CompiledProgram::kernelLayout() const {
  GpuKernelLayout kernel;
  kernel.counterCount = counterCount;
  kernel.allocBase = allocBase;
  kernel.publishStride = publishStride;
  for (const CompiledOwner &owner : owners) {
    kernel.ownerPublishBase.push_back(owner.publishBase);
    kernel.ownerCapacity.push_back(owner.capacity);
  }
  return kernel;
}

ProgramDescriptor
CompiledProgram::runtimeDescriptor(sluice_rt_stage_kernel kernel,
                                   void *userData) const {
  ProgramDescriptor program;
  program.name = name;
  program.entryStage = entryStage;
  program.userData = userData;
  for (const CompiledStage &stage : mainStages) {
    StageDesc desc{stage.name, kernel};
    for (size_t f = 0; !stage.sortKey.empty() && f < fields.size(); ++f)
      if (fields[f].name == stage.sortKey &&
          sortKeyKindOf(fields[f].type, desc.sortKeyKind))
        desc.sortKeyField = uint32_t(f);
    program.mainStages.push_back(std::move(desc));
  }
  for (const CompiledOwner &owner : owners) {
    OwnerDesc desc;
    desc.name = owner.name;
    desc.capacity = owner.capacity;
    desc.itemSize = owner.itemSize;
    for (const CompiledStage &stage : owner.stages)
      desc.stages.push_back({stage.name, kernel});
    // The functions are the backend's to resolve (resolvePolicyHooks).
    desc.policy.storageWords = owner.policyStorage;
    desc.policy.symbols = owner.policyHooks;
    program.owners.push_back(std::move(desc));
  }
  for (const CompiledProducer &producer : producers)
    program.producers.push_back(
        {producer.stage, producer.owner, producer.bound});
  program.frameLayout.kind = layout;
  for (const CompiledField &field : fields)
    program.frameLayout.fields.push_back({field.name, field.size, field.align});
  for (const CompiledBinding &binding : bindings)
    program.bindingNames.push_back(binding.name);
  return program;
}

} // namespace sluice::runtime
