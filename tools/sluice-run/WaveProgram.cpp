//===- WaveProgram.cpp - Run a wave coroutine program on the runtime ------===//
//
// 1. Compile: the verification pipeline (emission bounds, item linearity),
//    pool-capacity overrides, wave-split, convert-wave-to-gpu; the
//    `sluice.program` descriptor is read; convert-gpu-to-cpu turns every
//    kernel into a block function `__sluice_block_<kernel>(record, block)`;
//    then LLVM and the JIT.
// 2. Glue: the runtime's ProgramDescriptor gets one host trampoline,
//    `waveStageKernel`, as the kernel of every stage. Per call it builds the
//    gpu kernel's argument record (docs/compiler.md: count, invocations,
//    lane ids, frames, field offsets, outcomes, counters, publish records,
//    allocation limits, fault, per owner its free ring and payload arrays,
//    per coroutine argument its input array) from `sluice_rt_kernel_args`,
//    runs the block function over ceil(count / 64) blocks, and translates
//    what the kernel wrote back into the runtime's ABI:
//    - the free-ring head: the kernel counts ring positions from 0 in a
//      private counter and reads a window of the runtime's ring (positions
//      [head, head + window)); afterwards the runtime's head advances by the
//      kernel's count, as sluice_rt_publish would have advanced it;
//    - publish records: the kernel's (stride, base) are the descriptor's,
//      copied to the runtime's per-stage (stride, base);
//    - the fault: copied into the runtime's record, invocation rebased.
//    Payloads live in host arrays owned here, one per payload field, indexed
//    by item slot (the runtime's own payload buffer is not used).
// 3. Run the wavefront scheduler or the state-machine schedule on the CPU
//    device and print the result (and, with --stats, the per-stage table).
// With --backend=vulkan, steps 1 and 2 end at sluice-to-spirv and
// spirv::serialize instead, and the wavefront scheduler runs on the Vulkan
// device (runOnVulkan); the printed result is the same text.
//
//===----------------------------------------------------------------------===//

#include "WaveProgram.h"

#include "sluice/Conversion/GPUToSPIRV/SPIRVBackend.h"
#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"
#include "sluice/Dialect/Pool/IR/PoolOps.h"
#include "sluice/Dialect/Wave/IR/WaveOps.h"
#include "sluice/Dialect/Wave/Transforms/Passes.h"
#include "sluice/InitAll.h"
#include "sluice/runtime/c_api.h"
#include "sluice/runtime/cpu_device.h"
#include "sluice/runtime/gpu_abi.h"
#include "sluice/runtime/launch.h"
#include "sluice/runtime/program.h"
#include "sluice/runtime/vulkan_device.h"
#include "sluice/runtime/wavefront.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

using namespace mlir;

namespace sluice::run {
namespace {

namespace rt = sluice::runtime;

/// Lanes per block of the lowered gpu kernels.
constexpr uint64_t kBlockLanes = 64;

using BlockFunction = void (*)(void *record, int64_t block);

//===----------------------------------------------------------------------===//
// The `sluice.program` descriptor
//===----------------------------------------------------------------------===//

struct StageEntry {
  std::string name;
  std::string kernel; // gpu.func name
};

struct OwnerEntry {
  std::string name;
  uint32_t capacity = 0;
  uint32_t itemSize = 0;
  std::vector<Type> payload;
  std::vector<StageEntry> stages;
  uint32_t publishBase = 0; // in the descriptor's publish record
};

struct ProducerEntry {
  uint32_t stage = 0, owner = 0, bound = 0, publishBase = 0;
};

struct FieldEntry {
  std::string name;
  uint64_t size = 0, align = 1, offset = 0;
};

struct Descriptor {
  std::string name;
  uint32_t entryStage = 0;
  std::vector<StageEntry> mainStages;
  std::vector<OwnerEntry> owners;
  std::vector<ProducerEntry> producers;
  uint32_t publishStride = 0;
  bool soa = true;
  uint64_t stride = 0;
  std::vector<FieldEntry> fields;
  uint32_t allocBase = 0, counterCount = 0;
  std::vector<Type> inputs;
};

class DescriptorReader {
public:
  explicit DescriptorReader(ModuleOp module) : module(module) {}

  LogicalResult read(Descriptor &out) {
    auto root =
        module->getAttrOfType<DictionaryAttr>(kProgramDescriptorAttrName);
    if (!root)
      return fail("the lowered module has no '" +
                  kProgramDescriptorAttrName.str() + "' descriptor");
    int64_t version;
    if (failed(integer(root, "version", version)))
      return failure();
    if (version != 1)
      return fail("unsupported descriptor version " + std::to_string(version));
    if (failed(string(root, "name", out.name)) ||
        failed(u32(root, "entry_stage", out.entryStage)) ||
        failed(u32(root, "publish_stride", out.publishStride)))
      return failure();
    ArrayAttr stages, owners, producers, inputs;
    if (failed(array(root, "main_stages", stages)) ||
        failed(array(root, "owners", owners)) ||
        failed(array(root, "producers", producers)) ||
        failed(array(root, "inputs", inputs)))
      return failure();
    if (failed(stageList(stages, out.mainStages)))
      return failure();
    for (Attribute attr : owners) {
      auto dict = dyn_cast<DictionaryAttr>(attr);
      if (!dict)
        return fail("an owner entry is not a dictionary");
      OwnerEntry owner;
      ArrayAttr ownerStages, payload;
      if (failed(string(dict, "name", owner.name)) ||
          failed(u32(dict, "capacity", owner.capacity)) ||
          failed(u32(dict, "item_size", owner.itemSize)) ||
          failed(array(dict, "stages", ownerStages)) ||
          failed(array(dict, "payload", payload)) ||
          failed(stageList(ownerStages, owner.stages)) ||
          failed(types(payload, owner.payload)))
        return failure();
      out.owners.push_back(std::move(owner));
    }
    for (Attribute attr : producers) {
      auto dict = dyn_cast<DictionaryAttr>(attr);
      ProducerEntry producer;
      if (!dict)
        return fail("a producer entry is not a dictionary");
      if (failed(u32(dict, "stage", producer.stage)) ||
          failed(u32(dict, "owner", producer.owner)) ||
          failed(u32(dict, "bound", producer.bound)) ||
          failed(u32(dict, "publish_base", producer.publishBase)))
        return failure();
      if (producer.owner >= out.owners.size() ||
          producer.stage >= out.mainStages.size())
        return fail("a producer names a missing stage or owner");
      out.owners[producer.owner].publishBase = producer.publishBase;
      out.producers.push_back(producer);
    }
    if (failed(types(inputs, out.inputs)))
      return failure();

    auto frame = root.getAs<DictionaryAttr>("frame");
    if (!frame)
      return fail("the descriptor has no 'frame' dictionary");
    std::string layout;
    ArrayAttr fields;
    if (failed(string(frame, "layout", layout)) ||
        failed(array(frame, "fields", fields)))
      return failure();
    out.soa = layout == "soa";
    if (!out.soa) {
      int64_t stride;
      if (failed(integer(frame, "stride", stride)))
        return failure();
      out.stride = uint64_t(stride);
    }
    for (Attribute attr : fields) {
      auto dict = dyn_cast<DictionaryAttr>(attr);
      if (!dict)
        return fail("a frame field is not a dictionary");
      FieldEntry field;
      int64_t size, align, offset = 0;
      if (failed(string(dict, "name", field.name)) ||
          failed(integer(dict, "size", size)) ||
          failed(integer(dict, "align", align)) ||
          (!out.soa && failed(integer(dict, "offset", offset))))
        return failure();
      field.size = uint64_t(size);
      field.align = uint64_t(align);
      field.offset = uint64_t(offset);
      out.fields.push_back(field);
    }
    auto counters = root.getAs<DictionaryAttr>("counters");
    if (!counters)
      return fail("the descriptor has no 'counters' dictionary");
    if (failed(u32(counters, "alloc_base", out.allocBase)) ||
        failed(u32(counters, "size", out.counterCount)))
      return failure();
    return success();
  }

private:
  LogicalResult fail(const std::string &message) {
    return module.emitError("sluice-run: program descriptor: ") << message;
  }
  LogicalResult integer(DictionaryAttr dict, StringRef key, int64_t &out) {
    auto attr = dict.getAs<IntegerAttr>(key);
    if (!attr)
      return fail(("missing integer '" + key + "'").str());
    out = attr.getInt();
    return success();
  }
  LogicalResult u32(DictionaryAttr dict, StringRef key, uint32_t &out) {
    int64_t value;
    if (failed(integer(dict, key, value)))
      return failure();
    if (value < 0 || value > int64_t(UINT32_MAX))
      return fail(("'" + key + "' out of range: ").str() +
                  std::to_string(value));
    out = uint32_t(value);
    return success();
  }
  LogicalResult string(DictionaryAttr dict, StringRef key, std::string &out) {
    auto attr = dict.getAs<StringAttr>(key);
    if (!attr)
      return fail(("missing string '" + key + "'").str());
    out = attr.str();
    return success();
  }
  LogicalResult array(DictionaryAttr dict, StringRef key, ArrayAttr &out) {
    out = dict.getAs<ArrayAttr>(key);
    if (!out)
      return fail(("missing array '" + key + "'").str());
    return success();
  }
  LogicalResult types(ArrayAttr list, std::vector<Type> &out) {
    for (Attribute attr : list) {
      auto type = dyn_cast<TypeAttr>(attr);
      if (!type)
        return fail("a type list holds a non-type");
      out.push_back(type.getValue());
    }
    return success();
  }
  LogicalResult stageList(ArrayAttr list, std::vector<StageEntry> &out) {
    for (Attribute attr : list) {
      auto dict = dyn_cast<DictionaryAttr>(attr);
      if (!dict)
        return fail("a stage entry is not a dictionary");
      StageEntry stage;
      if (failed(string(dict, "name", stage.name)))
        return failure();
      auto kernel = dict.getAs<SymbolRefAttr>("kernel");
      if (!kernel)
        return fail("stage '" + stage.name + "' has no kernel symbol");
      stage.kernel = kernel.getLeafReference().str();
      out.push_back(std::move(stage));
    }
    return success();
  }

  ModuleOp module;
};

/// Bytes of one element of a memref<?xT> the CPU-lowered code indexes: as in
/// SPIR-V kernel memory, except that index is 64-bit on the host.
uint64_t elementBytes(Type type) {
  return type.isIndex() ? 8 : spirvStorageBytes(type);
}

/// The compiled argument convention's constants (runtime/gpu_abi.h).
rt::GpuKernelLayout kernelLayout(const Descriptor &descriptor) {
  rt::GpuKernelLayout layout;
  layout.counterCount = descriptor.counterCount;
  layout.allocBase = descriptor.allocBase;
  layout.publishStride = descriptor.publishStride;
  for (const OwnerEntry &owner : descriptor.owners) {
    layout.ownerPublishBase.push_back(owner.publishBase);
    layout.ownerCapacity.push_back(owner.capacity);
  }
  return layout;
}

//===----------------------------------------------------------------------===//
// Host glue: the trampoline every stage runs
//===----------------------------------------------------------------------===//

struct WaveContext {
  rt::GpuKernelLayout layout;
  std::vector<BlockFunction> blockFunctions; // by global stage
  // Per owner, per payload field: capacity elements indexed by item slot.
  std::vector<std::vector<std::vector<uint64_t>>> payloads;
  // Per coroutine argument: one element per lane, indexed by lane id.
  std::vector<std::vector<uint64_t>> inputs;
  uint32_t launchWorkers = 0;
  std::mutex splitDispatch; // only when a dispatch arrives in pieces
};

/// Per-call scratch; calls on different threads never share it.
struct Scratch {
  std::vector<int32_t> counters;
  std::vector<int32_t> allocLimits;
  std::vector<uint32_t> publishedSlots;
  std::vector<std::vector<uint32_t>> rings;
  int32_t fault[rt::kGpuFaultWords] = {};
  rt::GpuDispatchViews views;
  std::vector<uint64_t> record;
};

/// Appends a rank-1 memref descriptor {allocated, aligned, offset, size,
/// stride} to the argument record.
void pushMemRef(std::vector<uint64_t> &record, const void *data,
                uint64_t size) {
  uint64_t address = reinterpret_cast<uintptr_t>(data);
  record.insert(record.end(), {address, address, 0, size, 1});
}

extern "C" void waveStageKernel(const sluice_rt_kernel_args *args,
                                uint32_t begin, uint32_t end) {
  if (begin >= end)
    return;
  WaveContext &context = *static_cast<WaveContext *>(args->user_data);
  const rt::GpuKernelLayout &layout = context.layout;
  // A dispatch split into several calls shares the free-ring head: the
  // window below must not be read by two calls at once.
  std::unique_lock<std::mutex> lock(context.splitDispatch, std::defer_lock);
  if (begin != 0 || end != args->count)
    lock.lock();

  thread_local Scratch scratch;
  uint32_t count = end - begin;
  uint32_t ownerCount = args->owner_count;
  scratch.counters.resize(std::max<uint32_t>(layout.counterCount, 1));
  scratch.allocLimits.resize(std::max<uint32_t>(ownerCount, 1));
  scratch.publishedSlots.assign(
      std::max<uint64_t>(uint64_t(count) * layout.publishStride, 1), 0);
  scratch.rings.resize(ownerCount);
  rt::GpuDispatchViews &views = scratch.views;
  views.rings.resize(ownerCount);
  for (uint32_t o = 0; o < ownerCount; ++o) {
    scratch.rings[o].resize(std::max<uint32_t>(layout.ownerCapacity[o], 1));
    views.rings[o] = scratch.rings[o].data();
  }
  views.counters = scratch.counters.data();
  views.allocLimits = scratch.allocLimits.data();
  views.publishedSlots = scratch.publishedSlots.data();
  views.fault = scratch.fault;
  rt::prepareGpuDispatch(layout, *args, count, views);

  // The argument record, in the kernel's argument order.
  std::vector<uint64_t> &record = scratch.record;
  record.clear();
  const uint64_t unknown = uint64_t(1) << 40; // sizes the kernel never reads
  record.push_back(count);
  pushMemRef(record, args->invocations + begin, count);
  pushMemRef(record, args->lane_ids, unknown);
  pushMemRef(record, args->frames.base, unknown);
  pushMemRef(record, args->frames.field_offsets, args->frames.field_count);
  pushMemRef(record, args->next_stage + begin, count);
  pushMemRef(record, scratch.counters.data(), scratch.counters.size());
  pushMemRef(record, scratch.publishedSlots.data(),
             scratch.publishedSlots.size());
  pushMemRef(record,
             args->published_counts
                 ? args->published_counts + uint64_t(begin) * ownerCount
                 : nullptr,
             uint64_t(count) * ownerCount);
  pushMemRef(record, scratch.allocLimits.data(), scratch.allocLimits.size());
  pushMemRef(record, scratch.fault, rt::kGpuFaultWords);
  for (uint32_t o = 0; o < ownerCount; ++o) {
    pushMemRef(record, scratch.rings[o].data(), scratch.rings[o].size());
    for (std::vector<uint64_t> &field : context.payloads[o])
      pushMemRef(record, field.data(), layout.ownerCapacity[o]);
  }
  for (std::vector<uint64_t> &input : context.inputs)
    pushMemRef(record, input.data(), unknown);
  uint64_t grid = (count + kBlockLanes - 1) / kBlockLanes;
  record.insert(record.end(), {grid, 1, 1, kBlockLanes, 1, 1});

  BlockFunction function = context.blockFunctions[args->stage];
  if (grid == 1) {
    function(record.data(), 0);
    sluice_rt_coro_arena_reset(); // the block's coroutine frames are dead
  } else {
    sluice_rt_launch_blocks(reinterpret_cast<sluice_rt_block_fn>(function),
                            record.data(), grid, context.launchWorkers);
  }
  rt::finishGpuDispatch(layout, *args, begin, count, views);
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

int fail(const std::string &message, int status = 1) {
  llvm::errs() << "sluice-run: " << message << "\n";
  return status;
}

LogicalResult applyCapacityOverrides(ModuleOp module,
                                     const std::vector<std::string> &overrides,
                                     std::string &error) {
  for (const std::string &text : overrides) {
    size_t equals = text.rfind('=');
    std::string name =
        equals == std::string::npos ? "" : text.substr(0, equals);
    std::string value =
        equals == std::string::npos ? "" : text.substr(equals + 1);
    uint64_t capacity = 0;
    if (name.empty() || value.empty() ||
        StringRef(value).getAsInteger(10, capacity) || capacity == 0 ||
        capacity > UINT32_MAX) {
      error = "--capacity expects NAME=N with N in [1, 4294967295], got '" +
              text + "'";
      return failure();
    }
    auto owner = module.lookupSymbol<pool::OwnerOp>(name);
    if (!owner) {
      error = "--capacity names @" + name + ", but the program has no " +
              "pool.owner of that name";
      return failure();
    }
    owner.setCapacityAttr(
        IntegerAttr::get(IntegerType::get(module.getContext(), 64), capacity));
  }
  return success();
}

/// The trampoline writes the argument record in the order
/// convert-wave-to-gpu gives every kernel (docs/compiler.md); a kernel with
/// other arguments would read garbage, so it is an error here.
LogicalResult checkKernelSignatures(ModuleOp module,
                                    const Descriptor &descriptor) {
  MLIRContext *context = module.getContext();
  auto dynamic = [](Type element) {
    return MemRefType::get({ShapedType::kDynamic}, element);
  };
  Type i32 = IntegerType::get(context, 32);
  SmallVector<Type> expected{IndexType::get(context)};
  expected.append({dynamic(i32), dynamic(i32),
                   dynamic(IntegerType::get(context, 8)),
                   dynamic(IntegerType::get(context, 64))});
  expected.append(6, dynamic(i32));
  for (const OwnerEntry &owner : descriptor.owners) {
    expected.push_back(dynamic(i32));
    for (Type type : owner.payload)
      expected.push_back(dynamic(type));
  }
  for (Type type : descriptor.inputs)
    expected.push_back(dynamic(type));
  WalkResult walk = module.walk([&](gpu::GPUFuncOp kernel) {
    if (!kernel.isKernel())
      return WalkResult::advance();
    if (kernel.getArgumentTypes() == ArrayRef<Type>(expected))
      return WalkResult::advance();
    kernel.emitError("sluice-run: kernel @")
        << kernel.getName() << " takes " << kernel.getArgumentTypes()
        << ", but the wave runner passes "
        << TypeRange(ArrayRef<Type>(expected));
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// convert-wave-to-gpu emits kernels whose bodies are CFGs (one block per
/// branch of the stage); convert-gpu-to-cpu takes multi-block kernels down
/// its coroutine path, one coroutine frame per lane. A kernel without
/// barriers gets its CFG wrapped in one `scf.execute_region`, so loop fission
/// applies: a plain lane loop, no coroutine.
void wrapKernelBodies(ModuleOp module) {
  module.walk([&](gpu::GPUFuncOp kernel) {
    Region &body = kernel.getBody();
    if (body.hasOneBlock() || kernel.getNumWorkgroupAttributions() != 0 ||
        kernel.getNumPrivateAttributions() != 0)
      return;
    if (kernel.walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return;
    Location loc = kernel.getLoc();
    Block *oldEntry = &body.front();
    Block *newEntry = new Block();
    for (BlockArgument argument : oldEntry->getArguments())
      newEntry->addArgument(argument.getType(), argument.getLoc());
    for (auto [from, to] :
         llvm::zip(oldEntry->getArguments(), newEntry->getArguments()))
      from.replaceAllUsesWith(to);
    oldEntry->eraseArguments(0, oldEntry->getNumArguments());
    OpBuilder builder(kernel.getContext());
    builder.setInsertionPointToEnd(newEntry);
    auto wrapper = scf::ExecuteRegionOp::create(builder, loc, TypeRange{});
    gpu::ReturnOp::create(builder, loc);
    Region &inner = wrapper.getRegion();
    inner.getBlocks().splice(inner.end(), body.getBlocks());
    body.push_back(newEntry);
    for (Block &block : inner) {
      auto ret = dyn_cast<gpu::ReturnOp>(block.getTerminator());
      if (!ret)
        continue;
      builder.setInsertionPoint(ret);
      scf::YieldOp::create(builder, ret.getLoc());
      ret.erase();
    }
  });
}

/// The runtime's program descriptor from the compiled one; every stage gets
/// the trampoline as its kernel (the Vulkan device runs SPIR-V instead and
/// never calls it). Checks that the compiled AoS offsets are the runtime's.
LogicalResult buildRuntimeProgram(const Descriptor &descriptor,
                                  rt::ProgramDescriptor &program) {
  program.name = descriptor.name;
  program.entryStage = descriptor.entryStage;
  for (const StageEntry &stage : descriptor.mainStages)
    program.mainStages.push_back({stage.name, waveStageKernel});
  for (const OwnerEntry &owner : descriptor.owners) {
    rt::OwnerDesc desc;
    desc.name = owner.name;
    desc.capacity = owner.capacity;
    desc.itemSize = owner.itemSize;
    for (const StageEntry &stage : owner.stages)
      desc.stages.push_back({stage.name, waveStageKernel});
    program.owners.push_back(std::move(desc));
  }
  for (const ProducerEntry &producer : descriptor.producers)
    program.producers.push_back(
        {producer.stage, producer.owner, producer.bound});
  program.frameLayout.kind = descriptor.soa
                                 ? rt::FrameLayoutKind::StructOfArrays
                                 : rt::FrameLayoutKind::ArrayOfStructs;
  for (const FieldEntry &field : descriptor.fields)
    program.frameLayout.fields.push_back({field.name, field.size, field.align});

  if (descriptor.soa)
    return success();
  std::vector<uint64_t> offsets;
  for (const FieldEntry &field : descriptor.fields)
    offsets.push_back(field.offset);
  rt::Status status = rt::checkCompiledFrameLayout(
      program.frameLayout, descriptor.stride, offsets);
  if (!status.ok())
    return fail(status.describe()), failure();
  return success();
}

/// Stage kernels in global stage order: main stages, then each owner's.
std::vector<const StageEntry *> globalStages(const Descriptor &descriptor) {
  std::vector<const StageEntry *> stages;
  for (const StageEntry &stage : descriptor.mainStages)
    stages.push_back(&stage);
  for (const OwnerEntry &owner : descriptor.owners)
    for (const StageEntry &stage : owner.stages)
      stages.push_back(&stage);
  return stages;
}

/// Lane `lane`'s coroutine argument: the lane id in `bytes` bytes.
void writeLaneId(unsigned char *base, uint64_t lane, uint64_t bytes) {
  std::memcpy(base + lane * bytes, &lane, bytes);
}

int runAndReport(const rt::ProgramDescriptor &program, rt::Device &device,
                 const Descriptor &descriptor, const WaveRunOptions &options,
                 bool stateMachine);

/// The CPU backend: convert-gpu-to-cpu, LLVM, the JIT, the CPU device.
int runOnCPU(ModuleOp module, const Descriptor &descriptor,
             rt::ProgramDescriptor &program, const WaveRunOptions &options,
             bool stateMachine) {
  wrapKernelBodies(module);

  {
    PassManager pm(module.getContext());
    pm.addPass(createConvertGPUToCPU());
    if (failed(pm.run(module)))
      return 1;
    // The block functions are looked up by name in the JIT.
    for (auto function : module.getOps<func::FuncOp>())
      if (function.getName().starts_with("__sluice_block_"))
        function.setPublic();
    PassManager llvmPm(module.getContext());
    llvmPm.addPass(createSCFToControlFlowPass());
    llvmPm.addPass(createConvertToLLVMPass());
    llvmPm.addPass(createReconcileUnrealizedCastsPass());
    if (failed(llvmPm.run(module)))
      return 1;
  }
  if (options.printLowered)
    module->print(llvm::outs());

  auto hostMachineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  std::unique_ptr<llvm::TargetMachine> hostMachine;
  if (hostMachineBuilder) {
    if (auto machine = hostMachineBuilder->createTargetMachine())
      hostMachine = std::move(*machine);
    else
      llvm::consumeError(machine.takeError());
  } else {
    llvm::consumeError(hostMachineBuilder.takeError());
  }
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                hostMachine.get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(options.optLevel);
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return fail("JIT compilation failed: " +
                llvm::toString(engine.takeError()));
  if (options.symbols)
    (*engine)->registerSymbols(options.symbols);

  // The runtime's program descriptor.
  WaveContext context;
  context.layout = kernelLayout(descriptor);
  context.launchWorkers = options.workers;
  auto lookup = [&](const StageEntry &stage) -> BlockFunction {
    auto address = (*engine)->lookup("__sluice_block_" + stage.kernel);
    if (!address) {
      llvm::errs() << "sluice-run: no block function for kernel @"
                   << stage.kernel << ": "
                   << llvm::toString(address.takeError()) << "\n";
      return nullptr;
    }
    return reinterpret_cast<BlockFunction>(*address);
  };
  for (const StageEntry *stage : globalStages(descriptor)) {
    BlockFunction function = lookup(*stage);
    if (!function)
      return 1;
    context.blockFunctions.push_back(function);
  }
  for (const OwnerEntry &owner : descriptor.owners) {
    auto &fields = context.payloads.emplace_back();
    for (Type type : owner.payload) {
      (void)type; // every element fits in 8 bytes
      fields.emplace_back(owner.capacity, 0);
    }
  }
  program.userData = &context;
  for (Type type : descriptor.inputs) {
    auto &input = context.inputs.emplace_back(options.lanes, 0);
    // The lowered code reads elementBytes(type) bytes at lane * that size.
    for (uint32_t lane = 0; lane < options.lanes; ++lane)
      writeLaneId(reinterpret_cast<unsigned char *>(input.data()), lane,
                  elementBytes(type));
  }

  rt::CpuDeviceOptions deviceOptions;
  deviceOptions.workers = options.workers;
  // One trampoline call per dispatch; the trampoline runs the gpu blocks.
  deviceOptions.blockSize = UINT32_MAX;
  rt::CpuDevice device(deviceOptions);
  return runAndReport(program, device, descriptor, options, stateMachine);
}

/// The Vulkan backend: sluice-to-spirv, spirv::serialize, the Vulkan device.
int runOnVulkan(ModuleOp module, const Descriptor &descriptor,
                rt::ProgramDescriptor &program, const WaveRunOptions &options,
                bool stateMachine) {
  if (stateMachine)
    return fail("the state-machine schedule runs on the CPU backend only; "
                "use --schedule=wavefront with --backend=vulkan",
                2);
  rt::VulkanProgram vulkan;
  vulkan.workgroupSize = kBlockLanes;
  {
    PassManager pm(module.getContext());
    SluiceToSPIRVOptions spirvOptions;
    spirvOptions.workgroupSize = kBlockLanes;
    buildSluiceToSPIRVPipeline(pm, spirvOptions);
    if (failed(pm.run(module)))
      return 1;
  }
  spirv::ModuleOp spv = spirvModuleFor(module, "sluice_kernels");
  if (!spv)
    return fail("sluice-to-spirv produced no spirv.module for @sluice_kernels");
  SmallVector<uint32_t> words;
  if (failed(serializeSPIRV(spv, words)))
    return 1;
  if (options.printLowered)
    spv->print(llvm::outs());
  vulkan.spirv.assign(words.begin(), words.end());
  for (const StageEntry *stage : globalStages(descriptor))
    vulkan.entryPoints.push_back(stage->kernel);
  vulkan.layout = kernelLayout(descriptor);
  for (const OwnerEntry &owner : descriptor.owners) {
    auto &fields = vulkan.payloadElementBytes.emplace_back();
    for (Type type : owner.payload)
      fields.push_back(uint32_t(spirvStorageBytes(type)));
  }
  for (Type type : descriptor.inputs) {
    uint64_t bytes = spirvStorageBytes(type);
    auto &input = vulkan.inputs.emplace_back(uint64_t(options.lanes) * bytes);
    for (uint32_t lane = 0; lane < options.lanes; ++lane)
      writeLaneId(input.data(), lane, bytes);
  }

  std::unique_ptr<rt::VulkanDevice> device;
  if (rt::Status status = rt::VulkanDevice::create(std::move(vulkan), device);
      !status.ok())
    return fail("vulkan backend: " + status.describe());
  int exitCode = runAndReport(program, *device, descriptor, options, false);
  const rt::VulkanDeviceStats &stats = device->stats();
  llvm::errs() << llvm::format(
      "sluice-run: vulkan device '%s': %llu dispatches, %.3f ms of GPU time\n",
      device->deviceName().c_str(), (unsigned long long)stats.dispatches,
      stats.gpuNanoseconds * 1e-6);
  return exitCode;
}

} // namespace

int runWaveProgram(ModuleOp module, const WaveRunOptions &options) {
  // Options.
  if (options.layout != "soa" && options.layout != "aos")
    return fail("--layout must be 'soa' or 'aos', got '" + options.layout + "'",
                2);
  bool stateMachine;
  if (options.schedule == "wavefront")
    stateMachine = false;
  else if (options.schedule == "state-machine")
    stateMachine = true;
  else
    return fail("--schedule must be 'wavefront' or 'state-machine', got '" +
                    options.schedule + "'",
                2);
  if (options.framePool == 0 || options.framePool > (1u << 24))
    return fail("--frame-pool must be in [1, 16777216], got " +
                    std::to_string(options.framePool),
                2);
  if (options.workers > 1024)
    return fail("--workers must be in [0, 1024], got " +
                    std::to_string(options.workers),
                2);
  if (stateMachine && !options.tracePath.empty())
    return fail("--trace records wavefront iterations; the state-machine "
                "schedule has none",
                2);

  // Prove the contracts, then apply the capacity overrides the runtime will
  // see (the kernels are compiled for them: ring positions wrap at the
  // capacity).
  {
    PassManager pm(module.getContext());
    sluice::buildVerificationPipeline(pm);
    if (failed(pm.run(module)))
      return 1;
  }
  std::string error;
  if (failed(applyCapacityOverrides(module, options.capacities, error)))
    return fail(error, 2);

  auto coroutine = *module.getOps<wave::CoroutineOp>().begin();
  for (Type type : coroutine.getArgumentTypes())
    if (!isa<IntegerType>(type) || coroutine.getNumArguments() > 1) {
      coroutine.emitError("sluice-run passes each lane its lane id as the "
                          "coroutine's only (integer) argument; @")
          << coroutine.getSymName() << " takes "
          << coroutine.getArgumentTypes();
      return 1;
    }

  {
    PassManager pm(module.getContext());
    wave::WaveSplitOptions split;
    split.layout = options.layout;
    pm.addPass(wave::createWaveSplit(split));
    pm.addPass(createConvertWaveToGPU());
    if (failed(pm.run(module)))
      return 1;
  }
  Descriptor descriptor;
  if (failed(DescriptorReader(module).read(descriptor)))
    return 1;
  module->removeAttr(kProgramDescriptorAttrName);
  if (failed(checkKernelSignatures(module, descriptor)))
    return 1;
  rt::ProgramDescriptor program;
  if (failed(buildRuntimeProgram(descriptor, program)))
    return 1;
  if (options.backend == "vulkan")
    return runOnVulkan(module, descriptor, program, options, stateMachine);
  return runOnCPU(module, descriptor, program, options, stateMachine);
}

namespace {

/// Runs `program` on `device` and prints the result (and, with --stats, the
/// per-stage table). The same text for every backend.
int runAndReport(const rt::ProgramDescriptor &program, rt::Device &device,
                 const Descriptor &descriptor, const WaveRunOptions &options,
                 bool stateMachine) {
  rt::RunResult result;
  if (stateMachine) {
    result =
        rt::runStateMachine(program, device, options.lanes, options.framePool);
  } else {
    rt::SchedulerOptions schedulerOptions;
    schedulerOptions.framePool = options.framePool;
    schedulerOptions.partialAdmission = options.partialAdmission;
    schedulerOptions.tracePath = options.tracePath;
    rt::WavefrontScheduler scheduler(program, device, schedulerOptions);
    result = scheduler.run(options.lanes);
  }
  if (!result.status.ok())
    return fail("run of @" + descriptor.name +
                " failed: " + result.status.describe());

  rt::RunSummary summary{options.lanes, options.schedule.c_str(),
                         options.layout.c_str(), options.framePool,
                         options.stats};
  rt::printRunSummary(stdout, program, result, summary);
  if (result.lanesFinished != options.lanes)
    return fail(std::to_string(result.lanesFinished) + " of " +
                std::to_string(options.lanes) + " lanes finished");
  return 0;
}

} // namespace
} // namespace sluice::run
