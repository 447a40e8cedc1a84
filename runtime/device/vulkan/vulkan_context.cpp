//===- vulkan_context.cpp - Buffers and kernels of a Vulkan context -------===//
//
// Storage buffers (memory types chosen per Placement, mapped when host
// visible), compute pipelines built from SPIR-V, and the check of a module's
// capabilities against the device's features.
//
//===----------------------------------------------------------------------===//

#include "vulkan_internal.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace sluice::runtime::vulkan {
using namespace detail;
namespace {

// Memory type indices allowed by `typeBits` for `placement`, best first.
// Device and Host need host-visible, host-coherent memory and prefer
// device-local and host-cached memory respectively; DeviceOnly takes any type,
// device-local without host-visible first, then device-local, then the rest;
// DeviceFirst device-local host-visible-coherent first, then device-local,
// then host-visible-coherent.
std::vector<uint32_t> memoryCandidates(const ContextState &state,
                                       uint32_t typeBits, Placement placement) {
  const VkMemoryPropertyFlags hostAccess = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  std::vector<uint32_t> ranked[3];
  for (uint32_t i = 0; i < state.memory.memoryTypeCount; ++i) {
    if (!(typeBits & (1u << i)))
      continue;
    VkMemoryPropertyFlags flags = state.memory.memoryTypes[i].propertyFlags;
    bool deviceLocal = (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
    bool hostVisible = (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
    int rank = 0;
    switch (placement) {
    case Placement::DeviceOnly:
      rank = deviceLocal ? (hostVisible ? 1 : 0) : 2;
      break;
    case Placement::DeviceFirst: {
      bool mappable = (flags & hostAccess) == hostAccess;
      if (!deviceLocal && !mappable)
        continue;
      rank = deviceLocal ? (mappable ? 0 : 1) : 2;
      break;
    }
    case Placement::Device:
    case Placement::Host: {
      if ((flags & hostAccess) != hostAccess)
        continue;
      VkMemoryPropertyFlags preferred =
          placement == Placement::Device ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
                                         : VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      rank = (flags & preferred) == preferred ? 0 : 1;
      break;
    }
    }
    ranked[rank].push_back(i);
  }
  std::vector<uint32_t> out;
  for (const std::vector<uint32_t> &list : ranked)
    out.insert(out.end(), list.begin(), list.end());
  return out;
}

// A SPIR-V capability the runtime checks against the device's features.
struct CheckedCapability {
  uint32_t capability;
  bool DeviceInfo::*feature;
  const char *featureName;
  const char *use; // what in a kernel needs it
};

constexpr CheckedCapability kCheckedCapabilities[] = {
    {11, &DeviceInfo::shaderInt64, "shaderInt64",
     "64-bit integers, such as frame field offsets and i64 bindings"},
    {10, &DeviceInfo::shaderFloat64, "shaderFloat64",
     "64-bit float arithmetic"},
    {6033, &DeviceInfo::shaderBufferFloat32AtomicAdd,
     "shaderBufferFloat32AtomicAdd",
     "atomic f32 adds on storage buffers, VK_EXT_shader_atomic_float"},
    {6034, &DeviceInfo::shaderBufferFloat64AtomicAdd,
     "shaderBufferFloat64AtomicAdd",
     "atomic f64 adds on storage buffers, VK_EXT_shader_atomic_float"},
    {12, &DeviceInfo::shaderBufferInt64Atomics, "shaderBufferInt64Atomics",
     "atomic i64 operations on storage buffers, VK_KHR_shader_atomic_int64"},
    {22, &DeviceInfo::shaderInt16, "shaderInt16", "16-bit integer arithmetic"},
    {9, &DeviceInfo::shaderFloat16, "shaderFloat16", "f16 arithmetic"},
    {39, &DeviceInfo::shaderInt8, "shaderInt8", "8-bit integer arithmetic"},
    {4433, &DeviceInfo::storageBuffer16BitAccess, "storageBuffer16BitAccess",
     "16-bit elements in storage buffers"},
    {4448, &DeviceInfo::storageBuffer8BitAccess, "storageBuffer8BitAccess",
     "8-bit elements in storage buffers"},
};

} // namespace

// Operand `i` of an instruction with `opcode` is a literal number, not an
// id, in the instructions a function body commonly has: a literal that
// happens to equal a storage buffer's id would add its binding (a large
// kernel, such as the megakernel, then exceeds a device's buffer limit).
static bool isLiteralOperand(uint32_t opcode, size_t i) {
  switch (opcode) {
  case 8: // OpLine: file, line, column
    return i >= 1;
  case 12: // OpExtInst: type, result, set, instruction, operands
    return i == 3;
  case 59: // OpVariable: type, result, storage class, initializer
    return i == 2;
  case 61: // OpLoad: type, result, pointer, memory operands
    return i >= 3;
  case 62: // OpStore, OpCopyMemory: target, source, memory operands
  case 63:
    return i >= 2;
  case 79: // OpVectorShuffle: type, result, two vectors, components
    return i >= 4;
  case 81: // OpCompositeExtract: type, result, composite, indices
    return i >= 3;
  case 82: // OpCompositeInsert: type, result, object, composite, indices
    return i >= 4;
  case 246: // OpLoopMerge: merge, continue, control
    return i >= 2;
  case 247: // OpSelectionMerge: merge, control
    return i >= 1;
  case 250: // OpBranchConditional: condition, two labels, weights
    return i >= 3;
  case 251: // OpSwitch: selector, default, (literal, label) pairs
    return i >= 2 && i % 2 == 0;
  default:
    return false;
  }
}

namespace {

// The name of an OpEntryPoint (its operands from the third on).
std::string entryPointName(std::span<const uint32_t> operands) {
  std::string name;
  for (size_t w = 2; w < operands.size(); ++w)
    for (int byte = 0; byte < 4; ++byte) {
      char c = char((operands[w] >> (8 * byte)) & 0xffu);
      if (c == 0)
        return name;
      name.push_back(c);
    }
  return name;
}

} // namespace

bool hasEntryPoint(std::span<const uint32_t> spirv,
                   std::string_view entryPoint) {
  constexpr uint32_t kOpEntryPoint = 15;
  constexpr size_t kHeaderWords = 5;
  for (size_t at = kHeaderWords; at < spirv.size();) {
    uint32_t wordCount = spirv[at] >> 16, opcode = spirv[at] & 0xffffu;
    if (wordCount == 0 || wordCount > spirv.size() - at)
      return false;
    if (opcode == kOpEntryPoint && wordCount >= 4 &&
        entryPointName(spirv.subspan(at + 1, wordCount - 1)) == entryPoint)
      return true;
    at += wordCount;
  }
  return false;
}

std::vector<uint32_t> entryPointBindings(std::span<const uint32_t> spirv,
                                         std::string_view entryPoint,
                                         uint32_t bindings) {
  constexpr uint32_t kOpEntryPoint = 15, kOpFunction = 54,
                     kOpFunctionEnd = 56, kOpDecorate = 71,
                     kDecorationDescriptorSet = 34, kDecorationBinding = 33;
  constexpr size_t kHeaderWords = 5;
  std::vector<uint32_t> all(bindings);
  for (uint32_t i = 0; i < bindings; ++i)
    all[i] = i;
  if (spirv.size() < kHeaderWords)
    return all;
  uint32_t bound = spirv[3];
  // id -> binding of the variables in descriptor set 0; id -> the ids a
  // function's instructions mention (operands and results alike: a literal
  // that happens to equal a variable's id only adds a binding, never drops
  // one); the entry point's function.
  std::vector<int64_t> bindingOf(bound, -1);
  std::vector<bool> inSetZero(bound, true);
  std::vector<std::vector<uint32_t>> mentions(bound);
  uint32_t entryFunction = UINT32_MAX, currentFunction = UINT32_MAX;
  for (size_t at = kHeaderWords; at < spirv.size();) {
    uint32_t wordCount = spirv[at] >> 16, opcode = spirv[at] & 0xffffu;
    if (wordCount == 0 || wordCount > spirv.size() - at)
      return all;
    std::span<const uint32_t> operands = spirv.subspan(at + 1, wordCount - 1);
    if (opcode == kOpEntryPoint && operands.size() >= 3) {
      if (entryPointName(operands) == entryPoint)
        entryFunction = operands[1];
    } else if (opcode == kOpDecorate && operands.size() >= 3 &&
               operands[0] < bound) {
      if (operands[1] == kDecorationBinding)
        bindingOf[operands[0]] = operands[2];
      else if (operands[1] == kDecorationDescriptorSet)
        inSetZero[operands[0]] = operands[2] == 0;
    } else if (opcode == kOpFunction && operands.size() >= 2) {
      currentFunction = operands[1] < bound ? operands[1] : UINT32_MAX;
    } else if (opcode == kOpFunctionEnd) {
      currentFunction = UINT32_MAX;
    } else if (currentFunction != UINT32_MAX) {
      std::vector<uint32_t> &ids = mentions[currentFunction];
      for (size_t i = 0; i < operands.size(); ++i)
        if (!isLiteralOperand(opcode, i))
          ids.push_back(operands[i]);
    }
    at += wordCount;
  }
  if (entryFunction >= bound)
    return all;
  // The functions the entry point reaches (a function id mentioned by a
  // function is followed: calls, and nothing else can name a function).
  std::vector<bool> seen(bound, false), used(bindings, false);
  std::vector<uint32_t> work{entryFunction};
  seen[entryFunction] = true;
  while (!work.empty()) {
    uint32_t function = work.back();
    work.pop_back();
    for (uint32_t id : mentions[function]) {
      if (id >= bound)
        continue;
      if (bindingOf[id] >= 0 && inSetZero[id] && bindingOf[id] < bindings)
        used[size_t(bindingOf[id])] = true;
      if (!mentions[id].empty() && !seen[id]) {
        seen[id] = true;
        work.push_back(id);
      }
    }
  }
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < bindings; ++i)
    if (used[i])
      out.push_back(i);
  return out;
}

Status checkShaderCapabilities(std::span<const uint32_t> spirv,
                               const DeviceInfo &device,
                               std::string_view what) {
  constexpr uint32_t kMagic = 0x07230203u, kOpCapability = 17;
  constexpr size_t kHeaderWords = 5;
  if (spirv.size() < kHeaderWords || spirv[0] != kMagic)
    return Status::error(
        ErrorKind::InvalidArgument,
        "the SPIR-V of " + std::string(what) + " is not a SPIR-V binary (" +
            std::to_string(spirv.size()) +
            " words; expected at least 5 words starting with 0x07230203)");
  bool missing[std::size(kCheckedCapabilities)] = {};
  // The whole module is walked, so a malformed word count anywhere is
  // reported here rather than left to the driver.
  for (size_t at = kHeaderWords; at < spirv.size();) {
    uint32_t wordCount = spirv[at] >> 16, opcode = spirv[at] & 0xffffu;
    if (wordCount == 0 || wordCount > spirv.size() - at ||
        (opcode == kOpCapability && wordCount != 2))
      return Status::error(
          ErrorKind::InvalidArgument,
          "the SPIR-V of " + std::string(what) +
              " has a malformed instruction at word " + std::to_string(at) +
              " (opcode " + std::to_string(opcode) + ", word count " +
              std::to_string(wordCount) + ", " +
              std::to_string(spirv.size() - at) + " words left)");
    if (opcode == kOpCapability)
      for (size_t i = 0; i < std::size(kCheckedCapabilities); ++i)
        if (spirv[at + 1] == kCheckedCapabilities[i].capability &&
            !(device.*kCheckedCapabilities[i].feature))
          missing[i] = true;
    at += wordCount;
  }
  std::string message;
  for (size_t i = 0; i < std::size(kCheckedCapabilities); ++i) {
    if (!missing[i])
      continue;
    message += message.empty() ? "vulkan device '" + device.name + "' lacks "
                               : "; it also lacks ";
    message += std::string(kCheckedCapabilities[i].featureName) +
               ", which the kernels of " + std::string(what) + " use (" +
               kCheckedCapabilities[i].use + ")";
  }
  if (message.empty())
    return Status::success();
  return Status::error(ErrorKind::DeviceUnavailable, message);
}

Status Context::createBuffer(uint64_t bytes, Placement placement,
                             std::unique_ptr<Buffer> &out) {
  out.reset();
  if (bytes > UINT64_MAX - 3)
    return Status::error(ErrorKind::ArithmeticOverflow,
                         "buffer of " + std::to_string(bytes) +
                             " bytes overflows when rounded up to 4");
  uint64_t size = std::max<uint64_t>((bytes + 3) & ~uint64_t(3), 16);
  State &state = *state_;
  const Functions &fn = state.fn;
  std::unique_ptr<Buffer> buffer(new Buffer());
  buffer->context_ = this;
  buffer->size_ = size;

  VkBufferCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  create.size = size;
  create.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                 VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  const bool addressed = state.info.bufferDeviceAddress;
  if (addressed)
    create.usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer handle = VK_NULL_HANDLE;
  VkResult result = fn.vkCreateBuffer(state.device, &create, nullptr, &handle);
  if (result != VK_SUCCESS)
    return vkError("vkCreateBuffer", result);
  buffer->buffer_ = fromHandle(handle);

  VkMemoryRequirements requirements{};
  fn.vkGetBufferMemoryRequirements(state.device, handle, &requirements);
  std::vector<uint32_t> candidates =
      memoryCandidates(state, requirements.memoryTypeBits, placement);
  if (candidates.empty())
    return Status::error(ErrorKind::Unsupported,
                         "Vulkan device " + state.info.name + " has no " +
                             (placement == Placement::DeviceOnly ? ""
                              : placement == Placement::DeviceFirst
                                  ? "device-local or host-visible, "
                                    "host-coherent "
                                  : "host-visible, host-coherent ") +
                             "memory type for a storage buffer");
  // A small device-local host-visible heap (BAR without resizable BAR) runs
  // out first; the next candidate is plain host memory.
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint32_t typeIndex = 0;
  for (uint32_t candidate : candidates) {
    VkMemoryAllocateInfo allocate{};
    allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    allocate.allocationSize = requirements.size;
    allocate.memoryTypeIndex = candidate;
    VkMemoryAllocateFlagsInfo flags{};
    flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    if (addressed)
      allocate.pNext = &flags;
    result = fn.vkAllocateMemory(state.device, &allocate, nullptr, &memory);
    if (result == VK_SUCCESS) {
      typeIndex = candidate;
      break;
    }
    memory = VK_NULL_HANDLE;
    if (result != VK_ERROR_OUT_OF_DEVICE_MEMORY &&
        result != VK_ERROR_OUT_OF_HOST_MEMORY)
      break;
  }
  if (memory == VK_NULL_HANDLE) {
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
        result == VK_ERROR_OUT_OF_HOST_MEMORY)
      return Status::error(ErrorKind::OutOfMemory,
                           "vkAllocateMemory of " + std::to_string(size) +
                               " bytes failed with VkResult " +
                               std::to_string(static_cast<int>(result)));
    return vkError("vkAllocateMemory", result);
  }
  buffer->memory_ = fromHandle(memory);
  buffer->deviceLocal_ = (state.memory.memoryTypes[typeIndex].propertyFlags &
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
  result = fn.vkBindBufferMemory(state.device, handle, memory, 0);
  if (result != VK_SUCCESS)
    return vkError("vkBindBufferMemory", result);
  if (addressed) {
    VkBufferDeviceAddressInfo where{};
    where.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    where.buffer = handle;
    buffer->address_ = fn.vkGetBufferDeviceAddress(state.device, &where);
  }
  // DeviceOnly buffers are mapped only when the memory obtained allows it.
  // SLUICE_VULKAN_UNMAPPED_DEVICE_FIRST=1 leaves DeviceFirst buffers
  // unmapped whatever their memory, as a GPU whose mappable device-local
  // heap is full does (a test of their staged copies on any device).
  const VkMemoryPropertyFlags hostAccess = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  static const bool unmappedDeviceFirst = [] {
    const char *text = std::getenv("SLUICE_VULKAN_UNMAPPED_DEVICE_FIRST");
    return text && std::string_view(text) == "1";
  }();
  bool unmapped = placement == Placement::DeviceFirst && unmappedDeviceFirst;
  if (!unmapped &&
      (state.memory.memoryTypes[typeIndex].propertyFlags & hostAccess) ==
          hostAccess) {
    result = fn.vkMapMemory(state.device, memory, 0, VK_WHOLE_SIZE, 0,
                            &buffer->mapped_);
    if (result != VK_SUCCESS) {
      buffer->mapped_ = nullptr;
      return vkError("vkMapMemory", result);
    }
  }
  out = std::move(buffer);
  return Status::success();
}

Status Context::createKernel(std::span<const uint32_t> words,
                             const std::string &entryPoint, uint32_t bindings,
                             uint32_t pushConstantBytes,
                             std::unique_ptr<Kernel> &out) {
  out.reset();
  State &state = *state_;
  const Functions &fn = state.fn;
  if (words.size() < 5 || words[0] != 0x07230203u)
    return Status::error(
        ErrorKind::InvalidArgument,
        "SPIR-V for entry point '" + entryPoint + "' is not a SPIR-V binary (" +
            std::to_string(words.size()) + " words" +
            (words.empty() ? std::string()
                           : ", magic " + std::to_string(words[0])) +
            "; expected at least 5 words starting with 0x07230203)");
  // Vulkan 1.1 accepts SPIR-V up to 1.3, 1.2 up to 1.5, 1.3 up to 1.6.
  uint32_t api = std::min(state.instanceApiVersion, state.info.apiVersion);
  uint32_t apiMinor = VK_API_VERSION_MINOR(api);
  uint32_t accepted = apiMinor >= 3 ? 6 : apiMinor == 2 ? 5 : 3;
  uint32_t spirvMajor = (words[1] >> 16) & 0xff;
  uint32_t spirvMinor = (words[1] >> 8) & 0xff;
  if (spirvMajor != 1 || spirvMinor > accepted)
    return Status::error(
        ErrorKind::Unsupported,
        "kernel '" + entryPoint + "' is SPIR-V " + std::to_string(spirvMajor) +
            "." + std::to_string(spirvMinor) + "; Vulkan device " +
            state.info.name + " runs Vulkan 1." + std::to_string(apiMinor) +
            " here (the device offers 1." +
            std::to_string(VK_API_VERSION_MINOR(state.info.apiVersion)) +
            ", the instance 1." +
            std::to_string(VK_API_VERSION_MINOR(state.instanceApiVersion)) +
            "), which accepts SPIR-V up to 1." + std::to_string(accepted) +
            "; lower the program's spirv.target_env version or use a newer "
            "driver");
  if (pushConstantBytes % 4 != 0 ||
      pushConstantBytes > state.limits.maxPushConstantsSize)
    return Status::error(ErrorKind::InvalidArgument,
                         "kernel '" + entryPoint + "' asks for " +
                             std::to_string(pushConstantBytes) +
                             " push constant bytes; the size must be a "
                             "multiple of 4 and at most " +
                             std::to_string(state.limits.maxPushConstantsSize));
  // The layout holds only the bindings the entry point uses: every kernel of
  // a program takes every argument of the kernel ABI, most of which one
  // stage never touches, and devices limit the buffers per stage.
  std::vector<uint32_t> used = entryPointBindings(words, entryPoint, bindings);
  if (used.size() > state.limits.maxPerStageDescriptorStorageBuffers)
    return Status::error(
        ErrorKind::Unsupported,
        "kernel '" + entryPoint + "' uses " + std::to_string(used.size()) +
            " storage buffers; the device allows " +
            std::to_string(state.limits.maxPerStageDescriptorStorageBuffers));

  std::unique_ptr<Kernel> kernel(new Kernel());
  kernel->context_ = this;
  kernel->entry_ = entryPoint;
  kernel->bindings_ = bindings;
  kernel->usedBindings_ = used;
  kernel->pushBytes_ = pushConstantBytes;

  VkShaderModuleCreateInfo moduleCreate{};
  moduleCreate.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  moduleCreate.codeSize = words.size() * sizeof(uint32_t);
  moduleCreate.pCode = words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VkResult result =
      fn.vkCreateShaderModule(state.device, &moduleCreate, nullptr, &module);
  if (result != VK_SUCCESS)
    return vkError("vkCreateShaderModule", result);
  kernel->module_ = fromHandle(module);

  std::vector<VkDescriptorSetLayoutBinding> layoutBindings(used.size());
  for (uint32_t i = 0; i < used.size(); ++i) {
    layoutBindings[i].binding = used[i];
    layoutBindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    layoutBindings[i].descriptorCount = 1;
    layoutBindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setCreate{};
  setCreate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setCreate.bindingCount = static_cast<uint32_t>(used.size());
  setCreate.pBindings = layoutBindings.data();
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  result = fn.vkCreateDescriptorSetLayout(state.device, &setCreate, nullptr,
                                          &setLayout);
  if (result != VK_SUCCESS)
    return vkError("vkCreateDescriptorSetLayout", result);
  kernel->setLayout_ = fromHandle(setLayout);

  VkPushConstantRange range{};
  range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  range.offset = 0;
  range.size = pushConstantBytes;
  VkPipelineLayoutCreateInfo layoutCreate{};
  layoutCreate.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutCreate.setLayoutCount = 1;
  layoutCreate.pSetLayouts = &setLayout;
  layoutCreate.pushConstantRangeCount = pushConstantBytes > 0 ? 1 : 0;
  layoutCreate.pPushConstantRanges = &range;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  result =
      fn.vkCreatePipelineLayout(state.device, &layoutCreate, nullptr, &layout);
  if (result != VK_SUCCESS)
    return vkError("vkCreatePipelineLayout", result);
  kernel->layout_ = fromHandle(layout);

  VkComputePipelineCreateInfo pipelineCreate{};
  pipelineCreate.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  // Needed for vkCmdDispatchBase with a nonzero base (grid splitting).
  pipelineCreate.flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;
  pipelineCreate.stage.sType =
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipelineCreate.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineCreate.stage.module = module;
  pipelineCreate.stage.pName = kernel->entry_.c_str();
  pipelineCreate.layout = layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  result = fn.vkCreateComputePipelines(state.device, VK_NULL_HANDLE, 1,
                                       &pipelineCreate, nullptr, &pipeline);
  if (result != VK_SUCCESS)
    return vkError("vkCreateComputePipelines", result);
  kernel->pipeline_ = fromHandle(pipeline);
  out = std::move(kernel);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Buffer, Kernel
//===----------------------------------------------------------------------===//

Buffer::~Buffer() {
  if (!context_)
    return;
  const ContextState &state = *context_->state_;
  if (mapped_)
    state.fn.vkUnmapMemory(state.device, toHandle<VkDeviceMemory>(memory_));
  if (buffer_)
    state.fn.vkDestroyBuffer(state.device, toHandle<VkBuffer>(buffer_),
                             nullptr);
  if (memory_)
    state.fn.vkFreeMemory(state.device, toHandle<VkDeviceMemory>(memory_),
                          nullptr);
}

Kernel::~Kernel() {
  if (!context_)
    return;
  const ContextState &state = *context_->state_;
  if (pipeline_)
    state.fn.vkDestroyPipeline(state.device, toHandle<VkPipeline>(pipeline_),
                               nullptr);
  if (layout_)
    state.fn.vkDestroyPipelineLayout(
        state.device, toHandle<VkPipelineLayout>(layout_), nullptr);
  if (setLayout_)
    state.fn.vkDestroyDescriptorSetLayout(
        state.device, toHandle<VkDescriptorSetLayout>(setLayout_), nullptr);
  if (module_)
    state.fn.vkDestroyShaderModule(state.device,
                                   toHandle<VkShaderModule>(module_), nullptr);
}

} // namespace sluice::runtime::vulkan
