//===- WaveToGPU.cpp - Split coroutines and pools -> gpu kernels ----------===//
//
// Every stage of the split coroutine and every pool stage handler becomes one
// `gpu.func` kernel with the same argument list (see `KernelArgs`): one thread
// per invocation. Frame fields are read and written in the frame byte buffer
// at offsets of the chosen layout; pool ops become loads and stores of item
// payload arrays and `memref.atomic_rmw` on the counters buffer. The program
// descriptor is recorded as the `sluice.program` module attribute.
//
//===----------------------------------------------------------------------===//

#include "WaveToGPUPatterns.h"
#include "sluice/Conversion/Passes.h"
#include "sluice/Conversion/WaveToGPU/ProgramDescriptor.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

namespace sluice {
#define GEN_PASS_DEF_CONVERTWAVETOGPU
#include "sluice/Conversion/Passes.h.inc"
} // namespace sluice

using namespace mlir;
using namespace sluice;
using namespace sluice::wave_to_gpu;

namespace {

/// Version of the `sluice.program` descriptor schema.
constexpr int64_t kDescriptorVersion = 2;
constexpr StringLiteral kKernelModule = "sluice_kernels";

/// Payload bytes of one item: the payload types packed with natural alignment.
static int64_t itemSize(ArrayRef<Type> payload) {
  int64_t offset = 0, maxAlign = 1;
  for (Type type : payload) {
    int64_t bytes = std::max<int64_t>(
        1, llvm::PowerOf2Ceil((type.getIntOrFloatBitWidth() + 7) / 8));
    offset = llvm::alignTo(offset, bytes) + bytes;
    maxAlign = std::max(maxAlign, bytes);
  }
  return llvm::alignTo(offset, maxAlign);
}

/// A producer edge: main stage `stage` may publish `bound` items into owner
/// `owner`; its published slots start at `publishBase` in a publish record.
struct ProducerEdge {
  int64_t stage, owner, bound, publishBase;
};

class WaveToGpuLowering {
public:
  WaveToGpuLowering(ModuleOp module, bool checkBounds,
                    bool lanePublishPositions)
      : module(module), builder(module.getContext()), checkBounds(checkBounds) {
    state.lanePublishPositions = lanePublishPositions;
  }

  LogicalResult run() {
    if (failed(collect()))
      return failure();
    builder.setInsertionPointToEnd(module.getBody());
    kernels = gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModule);
    builder.setInsertionPointToStart(kernels.getBody());
    buildKernelType();

    SmallVector<Attribute> mainStages;
    for (wave::StageOp stage : stages) {
      FailureOr<gpu::GPUFuncOp> kernel = lowerStage(stage);
      if (failed(kernel))
        return failure();
      mainStages.push_back(
          stageEntry(stage.getName(), *kernel, stage.getSortKeyAttr()));
    }
    SmallVector<Attribute> ownerEntries;
    for (auto [index, owner] : llvm::enumerate(owners)) {
      SmallVector<Attribute> ownerStages;
      for (pool::HandlerOp handler :
           owner.getBody().front().getOps<pool::HandlerOp>()) {
        FailureOr<gpu::GPUFuncOp> kernel = lowerHandler(handler, index);
        if (failed(kernel))
          return failure();
        ownerStages.push_back(stageEntry(handler.getStage(), *kernel));
      }
      SmallVector<Type> payload = owner.getPayloadTypes();
      SmallVector<NamedAttribute> entry{
          builder.getNamedAttr("name", owner.getSymNameAttr()),
          builder.getNamedAttr("capacity", owner.getCapacityAttr()),
          builder.getNamedAttr("item_size",
                               builder.getI64IntegerAttr(itemSize(payload))),
          builder.getNamedAttr("payload", owner.getPayload()),
          builder.getNamedAttr("stages", builder.getArrayAttr(ownerStages)),
      };
      if (DictionaryAttr policy = policyEntry(owner))
        entry.push_back(builder.getNamedAttr("policy", policy));
      ownerEntries.push_back(builder.getDictionaryAttr(entry));
    }
    if (failed(lowerBindings()))
      return failure();
    RewritePatternSet patterns(module.getContext());
    populateWaveToGPUPatterns(patterns, state);
    walkAndApplyPatterns(kernels, std::move(patterns));
    if (checkBounds) {
      SmallVector<bool> isBuffer;
      for (unsigned i = 0, e = coroutine.getNumBindings(); i < e; ++i)
        isBuffer.push_back(isa<MemRefType>(coroutine.getBindingType(i)));
      insertBindingBoundsChecks(kernels, state, bindingBase, isBuffer,
                                extentsArgument);
    }
    WalkResult leftover = kernels.walk([](Operation *op) {
      if (!isa<wave::WaveDialect, pool::PoolDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitOpError("could not be lowered to the gpu form");
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      return failure();
    recordDescriptor(mainStages, ownerEntries);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
    coroutine.erase();
    for (pool::OwnerOp owner : owners)
      owner.erase();
    for (auto bound : llvm::make_early_inc_range(
             module.getBody()->getOps<pool::EmissionBoundOp>()))
      bound.erase();
    return success();
  }

private:
  //===--------------------------------------------------------------------===//
  // Program shape
  //===--------------------------------------------------------------------===//

  LogicalResult collect() {
    auto coroutines = llvm::to_vector(module.getOps<wave::CoroutineOp>());
    if (coroutines.size() != 1)
      return module.emitError("convert-wave-to-gpu: expected exactly one "
                              "'wave.coroutine' (the program's main stages), "
                              "found ")
             << coroutines.size();
    coroutine = coroutines.front();
    Block &body = coroutine.getBody().front();
    auto layouts = body.getOps<wave::FrameLayoutOp>();
    if (layouts.empty())
      return coroutine.emitOpError("is not split; run wave-split first");
    layout = *layouts.begin();
    for (auto stage : body.getOps<wave::StageOp>()) {
      if (stage.getId() != stages.size())
        return stage.emitOpError("stage ids must be 0, 1, ... in order");
      stageIds[stage.getName()] = stage.getId();
      stages.push_back(stage);
    }
    owners = llvm::to_vector(module.getOps<pool::OwnerOp>());
    for (auto [index, owner] : llvm::enumerate(owners)) {
      ownerIds[owner.getSymName()] = index;
      ownerStageBase.push_back(stages.size() + totalOwnerStages);
      totalOwnerStages += owner.getStages().size();
    }

    // Producer edges: every main stage that publishes into an owner uses the
    // coroutine's declared bound for it.
    llvm::StringMap<int64_t> &bounds = state.shape.bounds;
    for (auto bound : module.getOps<pool::EmissionBoundOp>()) {
      if (bound.getProducer() != coroutine.getSymName())
        continue;
      // The runtime admits n invocations when n * bound <= availability <=
      // capacity, in 32-bit slot counts.
      auto owner = module.lookupSymbol<pool::OwnerOp>(bound.getOwner());
      if (owner && bound.getBound() > owner.getCapacity())
        return bound.emitOpError("bound ")
               << bound.getBound() << " exceeds the capacity "
               << owner.getCapacity() << " of @" << owner.getSymName()
               << ": one invocation could never be admitted";
      bounds[bound.getOwner()] = bound.getBound();
    }
    int64_t base = 0;
    for (pool::OwnerOp owner : owners) {
      auto it = bounds.find(owner.getSymName());
      if (it == bounds.end())
        continue;
      publishBase[owner.getSymName()] = base;
      base += it->second;
      // One invocation's publish record holds every bound of the coroutine;
      // the runtime indexes it with 32-bit offsets.
      if (base > int64_t(UINT32_MAX))
        return coroutine.emitOpError("declares emission bounds that sum to ")
               << base << " items per invocation (into @"
               << owner.getSymName()
               << " and the owners before it); the publish record of one "
                  "invocation holds at most 4294967295";
    }
    publishStride = base;
    state.shape.allocBase = globalStageCount();
    state.shape.releaseBase = globalStageCount() + owners.size();
    for (wave::StageOp stage : stages) {
      llvm::SmallDenseSet<int64_t> seen;
      WalkResult walk = stage.walk([&](pool::PublishOp publish) {
        // The publish verifier resolved its owner among this module's
        // top-level ops, which are all in ownerIds.
        auto owner = ownerIds.find(publish.getOwner());
        assert(owner != ownerIds.end() && "publish into an unverified owner");
        auto bound = bounds.find(publish.getOwner());
        if (bound == bounds.end()) {
          publish.emitOpError("publishes into @")
              << publish.getOwner() << ", but @" << coroutine.getSymName()
              << " declares no emission bound for it";
          return WalkResult::interrupt();
        }
        if (owners[owner->second].getStageIndex(publish.getStage()) != 0) {
          publish.emitOpError("publishes into stage '")
              << publish.getStage() << "' of @" << publish.getOwner()
              << "; the runtime queues published items at the owner's first "
                 "stage only";
          return WalkResult::interrupt();
        }
        if (seen.insert(owner->second).second)
          producers.push_back({int64_t(stage.getId()), int64_t(owner->second),
                               bound->second,
                               publishBase.lookup(publish.getOwner())});
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
    }
    return success();
  }

  int64_t globalStageCount() { return stages.size() + totalOwnerStages; }

  /// The descriptor's `policy` of an owner: its storage words and, per hook
  /// it names, the function, which stays in the module (public, so that a
  /// backend can export it) to be compiled with the kernels.
  DictionaryAttr policyEntry(pool::OwnerOp owner) {
    if (!owner.getPolicyAttr())
      return nullptr;
    SmallVector<NamedAttribute> entries{builder.getNamedAttr(
        "storage", builder.getI64IntegerAttr(owner.getPolicyStorageWords()))};
    for (StringRef hook : pool::OwnerOp::getPolicyHookNames()) {
      FlatSymbolRefAttr name = owner.getPolicyHook(hook);
      if (!name)
        continue;
      if (auto function = module.lookupSymbol<func::FuncOp>(name))
        function.setPublic();
      entries.push_back(builder.getNamedAttr(hook, name));
    }
    return builder.getDictionaryAttr(entries);
  }
  int64_t allocBase() { return state.shape.allocBase; }
  int64_t releaseBase() { return state.shape.releaseBase; }

  //===--------------------------------------------------------------------===//
  // Kernel signature
  //===--------------------------------------------------------------------===//

  void buildKernelType() {
    MLIRContext *context = module.getContext();
    auto dynamic = [&](Type element) {
      return MemRefType::get({ShapedType::kDynamic}, element);
    };
    Type i32 = builder.getI32Type();
    // In KernelArg order.
    SmallVector<Type> inputs{builder.getIndexType(),        // count
                             dynamic(i32),                  // invocations
                             dynamic(i32),                  // lane_ids
                             dynamic(builder.getI8Type()),  // frames
                             dynamic(builder.getI64Type()), // field_offsets
                             dynamic(i32),                  // next_stage
                             dynamic(i32),                  // counters
                             dynamic(i32),                  // published_slots
                             dynamic(i32),                  // published_counts
                             dynamic(i32),                  // alloc_limits
                             dynamic(i32)};                 // fault
    assert(inputs.size() == kFirstOwnerBuffer && "kernel arguments drifted");
    for (pool::OwnerOp owner : owners) {
      ownerBufferBase.push_back(inputs.size());
      inputs.push_back(dynamic(i32));
      for (Type type : owner.getPayloadTypes())
        inputs.push_back(dynamic(type));
    }
    inputBase = inputs.size();
    for (Type type : coroutine.getLaneArgumentTypes())
      inputs.push_back(dynamic(type));
    // Per binding: the buffer itself, or a uniform as a one-element buffer.
    bindingBase = inputs.size();
    for (unsigned i = 0, e = coroutine.getNumBindings(); i < e; ++i)
      inputs.push_back(bindingKernelType(coroutine.getBindingType(i)));
    // The element count of each binding's dynamic extent (else unused):
    // memref.dim of a binding reads it, on every backend.
    extentsArgument = inputs.size();
    inputs.push_back(dynamic(builder.getI64Type()));
    kernelType = FunctionType::get(context, inputs, {});
  }

  static Type bindingKernelType(Type type) {
    return isa<MemRefType>(type) ? type : MemRefType::get({1}, type);
  }

  //===--------------------------------------------------------------------===//
  // Bindings
  //===--------------------------------------------------------------------===//

  /// Every `wave.binding` in a kernel becomes the kernel's binding argument
  /// (a uniform: a load of it). A handler's binding must be the coroutine's.
  LogicalResult lowerBindings() {
    SmallVector<wave::BindingOp> ops;
    kernels.walk([&](wave::BindingOp op) { ops.push_back(op); });
    for (wave::BindingOp op : ops) {
      std::optional<unsigned> index = coroutine.lookupBinding(op.getName());
      if (!index) {
        InFlightDiagnostic diag = op.emitOpError("uses binding '")
                                  << op.getName() << "', but @"
                                  << coroutine.getSymName()
                                  << " binds no such name";
        diag.attachNote(coroutine.getLoc()) << "the coroutine is here";
        return diag;
      }
      Type type = coroutine.getBindingType(*index);
      if (type != op.getValue().getType())
        return op.emitOpError("binding '")
               << op.getName() << "' of @" << coroutine.getSymName()
               << " has type " << type << ", not " << op.getValue().getType();
      auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
      Value argument = kernel.getArgument(bindingBase + *index);
      Value value = argument;
      if (!isa<MemRefType>(type)) {
        builder.setInsertionPoint(op);
        Value zero = arith::ConstantIndexOp::create(builder, op.getLoc(), 0);
        value = memref::LoadOp::create(builder, op.getLoc(), argument,
                                       ValueRange{zero});
      }
      op.getValue().replaceAllUsesWith(value);
      op.erase();
    }
    // memref.dim of a dynamic binding: its extent from the extents argument.
    SmallVector<memref::DimOp> dims;
    kernels.walk([&](memref::DimOp dim) {
      auto arg = dyn_cast<BlockArgument>(dim.getSource());
      if (arg && isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()) &&
          arg.getArgNumber() >= bindingBase &&
          arg.getArgNumber() < bindingBase + coroutine.getNumBindings())
        dims.push_back(dim);
    });
    for (memref::DimOp dim : dims) {
      auto type = cast<MemRefType>(dim.getSource().getType());
      builder.setInsertionPoint(dim);
      Location loc = dim.getLoc();
      Value extent;
      std::optional<int64_t> axis = dim.getConstantIndex();
      if (axis && *axis < type.getRank() && !type.isDynamicDim(*axis)) {
        extent = arith::ConstantIndexOp::create(builder, loc,
                                                type.getDimSize(*axis));
      } else {
        auto arg = cast<BlockArgument>(dim.getSource());
        auto kernel = dim->getParentOfType<gpu::GPUFuncOp>();
        Value at = arith::ConstantIndexOp::create(
            builder, loc, arg.getArgNumber() - bindingBase);
        Value count = memref::LoadOp::create(
            builder, loc, kernel.getArgument(extentsArgument), ValueRange{at});
        extent = arith::IndexCastOp::create(builder, loc,
                                            builder.getIndexType(), count);
      }
      dim.getResult().replaceAllUsesWith(extent);
      dim.erase();
    }
    // What every kernel does with each binding, against its declaration.
    for (unsigned i = 0, e = coroutine.getNumBindings(); i < e; ++i) {
      wave::BindingUses &uses = bindingUses.emplace_back();
      kernels.walk([&](gpu::GPUFuncOp kernel) {
        wave::collectBindingUses(kernel.getArgument(bindingBase + i), uses);
      });
      if (failed(wave::checkDeclaredAccess(coroutine.getBindingName(i),
                                           coroutine.getBindingAccessDecl(i),
                                           uses, coroutine)))
        return failure();
    }
    return success();
  }

  DictionaryAttr bindingEntry(unsigned i) {
    Type type = coroutine.getBindingType(i);
    auto memref = dyn_cast<MemRefType>(type);
    SmallVector<int64_t> shape;
    if (memref)
      for (int64_t extent : memref.getShape())
        shape.push_back(ShapedType::isDynamic(extent) ? -1 : extent);
    const wave::BindingUses &uses = bindingUses[i];
    SmallVector<StringRef> access;
    if (uses.read)
      access.push_back("read");
    if (uses.written)
      access.push_back("write");
    if (uses.atomic)
      access.push_back("atomic");
    StringRef declared;
    switch (coroutine.getBindingAccessDecl(i)) {
    case wave::BindingAccessDecl::ReadOnly:
      declared = "readonly";
      break;
    case wave::BindingAccessDecl::WriteOnly:
      declared = "writeonly";
      break;
    case wave::BindingAccessDecl::Any:
      declared = memref ? "readwrite" : "readonly";
      break;
    }
    return builder.getDictionaryAttr({
        builder.getNamedAttr("name", builder.getStringAttr(
                                         coroutine.getBindingName(i))),
        builder.getNamedAttr("kind", builder.getStringAttr(
                                         memref ? "buffer" : "uniform")),
        builder.getNamedAttr(
            "element", TypeAttr::get(memref ? memref.getElementType() : type)),
        builder.getNamedAttr("shape", builder.getI64ArrayAttr(shape)),
        builder.getNamedAttr("declared", builder.getStringAttr(declared)),
        builder.getNamedAttr("access", builder.getStrArrayAttr(access)),
    });
  }

  /// A stage of the descriptor; `sortKey` (main stages only) is the frame
  /// field the scheduler orders the stage's waiting frames by.
  DictionaryAttr stageEntry(StringRef name, gpu::GPUFuncOp kernel,
                            StringAttr sortKey = {}) {
    SmallVector<NamedAttribute> entry{
        builder.getNamedAttr("name", builder.getStringAttr(name)),
        builder.getNamedAttr(
            "kernel",
            SymbolRefAttr::get(kernels.getSymNameAttr(),
                               {FlatSymbolRefAttr::get(kernel.getNameAttr())})),
    };
    if (sortKey)
      entry.push_back(builder.getNamedAttr("sort_key", sortKey));
    return builder.getDictionaryAttr(entry);
  }

  /// Creates a kernel whose body so far computes the invocation index and
  /// returns for threads past `count`. Returns the block to continue in.
  std::pair<gpu::GPUFuncOp, Block *> createKernel(Location loc,
                                                  StringRef name) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(kernels.getBody());
    auto kernel = gpu::GPUFuncOp::create(builder, loc, name, kernelType);
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    builder.getUnitAttr());
    // Read by the host after the dispatch, never during it (KernelABI.h).
    kernel.setArgAttr(SLUICE_KARG_COUNTERS, SLUICE_KERNEL_COUNTERS_ATTR,
                      builder.getUnitAttr());
    Block *entry = &kernel.getBody().front();
    Block *body = new Block();
    Block *exit = new Block();
    kernel.getBody().push_back(body);
    kernel.getBody().push_back(exit);
    builder.setInsertionPointToEnd(entry);
    Value block = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
    Value size = gpu::BlockDimOp::create(builder, loc, gpu::Dimension::x);
    Value thread = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
    Value first = arith::MulIOp::create(builder, loc, block, size);
    invocation = arith::AddIOp::create(builder, loc, first, thread);
    Value inRange =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                              invocation, kernel.getArgument(kCount));
    cf::CondBranchOp::create(builder, loc, inRange, body, exit);
    builder.setInsertionPointToEnd(exit);
    gpu::ReturnOp::create(builder, loc);
    exitBlock = exit;
    return {kernel, body};
  }

  Value toIndex(Location loc, Value value) {
    return arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(),
                                        value);
  }

  //===--------------------------------------------------------------------===//
  // Main stages
  //===--------------------------------------------------------------------===//

  FailureOr<gpu::GPUFuncOp> lowerStage(wave::StageOp stage) {
    Location loc = stage.getLoc();
    auto [kernel, body] = createKernel(
        loc, (coroutine.getSymName() + "__" + stage.getName()).str());
    builder.setInsertionPointToEnd(body);
    Value frame =
        toIndex(loc, memref::LoadOp::create(builder, loc,
                                            kernel.getArgument(kInvocations),
                                            ValueRange{invocation}));
    SmallVector<Value> entryArgs{frame};
    if (stage.getId() == 0) {
      // The entry stage records the lane id in the frame header and reads
      // the lane's inputs, indexed by lane id.
      Value laneId = memref::LoadOp::create(
          builder, loc, kernel.getArgument(kLaneIds), ValueRange{frame});
      wave::FrameStoreOp::create(builder, loc, laneId, frame,
                                 wave::FrameLayoutOp::getLaneFieldName());
      Value lane = toIndex(loc, laneId);
      for (unsigned i = 0, e = coroutine.getNumLaneArguments(); i < e; ++i)
        entryArgs.push_back(memref::LoadOp::create(
            builder, loc, kernel.getArgument(inputBase + i), ValueRange{lane}));
    }
    Block *stageEntry = &stage.getBody().front();
    cf::BranchOp::create(builder, loc, stageEntry, entryArgs);
    kernel.getBody().getBlocks().splice(Region::iterator(exitBlock),
                                        stage.getBody().getBlocks());

    state.kernels[kernel.getOperation()] = KernelValues{
        invocation, Value(), exitBlock, 0, static_cast<int64_t>(stage.getId())};
    return kernel;
  }

  //===--------------------------------------------------------------------===//
  // Pool stage handlers
  //===--------------------------------------------------------------------===//

  FailureOr<gpu::GPUFuncOp> lowerHandler(pool::HandlerOp handler,
                                         int64_t owner) {
    Location loc = handler.getLoc();
    pool::OwnerOp ownerOp = owners[owner];
    auto [kernel, body] = createKernel(
        loc, (ownerOp.getSymName() + "__" + handler.getStage()).str());
    builder.setInsertionPointToEnd(body);
    Value slot =
        toIndex(loc, memref::LoadOp::create(builder, loc,
                                            kernel.getArgument(kInvocations),
                                            ValueRange{invocation}));
    IRMapping mapping;
    for (Operation &op : handler.getBody().front())
      builder.clone(op, mapping);
    cf::BranchOp::create(builder, loc, exitBlock);

    state.kernels[kernel.getOperation()] = KernelValues{
        invocation, slot, exitBlock, static_cast<unsigned>(owner),
        ownerStageBase[owner] + ownerOp.getStageIndex(handler.getStage())};
    return kernel;
  }

  //===--------------------------------------------------------------------===//
  // Descriptor
  //===--------------------------------------------------------------------===//

  void recordDescriptor(ArrayRef<Attribute> mainStages,
                        ArrayRef<Attribute> ownerEntries) {
    SmallVector<Attribute> producerEntries;
    for (const ProducerEdge &edge : producers)
      producerEntries.push_back(builder.getDictionaryAttr({
          builder.getNamedAttr("stage", builder.getI64IntegerAttr(edge.stage)),
          builder.getNamedAttr("owner", builder.getI64IntegerAttr(edge.owner)),
          builder.getNamedAttr("bound", builder.getI64IntegerAttr(edge.bound)),
          builder.getNamedAttr("publish_base",
                               builder.getI64IntegerAttr(edge.publishBase)),
      }));
    SmallVector<Attribute> bindings;
    for (unsigned i = 0, e = coroutine.getNumBindings(); i < e; ++i)
      bindings.push_back(bindingEntry(i));
    SmallVector<Attribute> fields;
    for (Attribute attr : layout.getFields()) {
      auto field = cast<wave::FrameFieldAttr>(attr);
      SmallVector<NamedAttribute> entry{
          builder.getNamedAttr("name", builder.getStringAttr(field.getName())),
          builder.getNamedAttr("type", TypeAttr::get(field.getType())),
          builder.getNamedAttr("size",
                               builder.getI64IntegerAttr(field.getSize())),
          builder.getNamedAttr("align",
                               builder.getI64IntegerAttr(field.getAlign()))};
      if (field.getOffset())
        entry.push_back(builder.getNamedAttr(
            "offset", builder.getI64IntegerAttr(*field.getOffset())));
      fields.push_back(builder.getDictionaryAttr(entry));
    }
    SmallVector<NamedAttribute> frame{
        builder.getNamedAttr("layout", layout.getLayoutAttr()),
        builder.getNamedAttr("fields", builder.getArrayAttr(fields))};
    if (layout.getStride())
      frame.push_back(builder.getNamedAttr(
          "stride", builder.getI64IntegerAttr(*layout.getStride())));
    auto counters = builder.getDictionaryAttr({
        builder.getNamedAttr("stage_base", builder.getI64IntegerAttr(0)),
        builder.getNamedAttr("alloc_base",
                             builder.getI64IntegerAttr(allocBase())),
        builder.getNamedAttr("release_base",
                             builder.getI64IntegerAttr(releaseBase())),
        builder.getNamedAttr(
            "size", builder.getI64IntegerAttr(releaseBase() + owners.size())),
    });
    module->setAttr(
        kProgramDescriptorAttrName,
        builder.getDictionaryAttr({
            builder.getNamedAttr("version",
                                 builder.getI64IntegerAttr(kDescriptorVersion)),
            builder.getNamedAttr("name", coroutine.getSymNameAttr()),
            builder.getNamedAttr("entry_stage", builder.getI64IntegerAttr(0)),
            builder.getNamedAttr("main_stages",
                                 builder.getArrayAttr(mainStages)),
            builder.getNamedAttr("owners", builder.getArrayAttr(ownerEntries)),
            builder.getNamedAttr("producers",
                                 builder.getArrayAttr(producerEntries)),
            builder.getNamedAttr("publish_stride",
                                 builder.getI64IntegerAttr(publishStride)),
            builder.getNamedAttr("frame", builder.getDictionaryAttr(frame)),
            builder.getNamedAttr("counters", counters),
            builder.getNamedAttr("inputs",
                                 builder.getTypeArrayAttr(
                                     coroutine.getLaneArgumentTypes())),
            builder.getNamedAttr("bindings", builder.getArrayAttr(bindings)),
            builder.getNamedAttr("check_bounds",
                                 builder.getBoolAttr(checkBounds)),
        }));
  }

  ModuleOp module;
  OpBuilder builder;
  LoweringState state;
  wave::FrameLayoutOp &layout = state.shape.layout;
  llvm::StringMap<int64_t> &stageIds = state.shape.stageIds;
  SmallVector<pool::OwnerOp> &owners = state.shape.owners;
  llvm::StringMap<unsigned> &ownerIds = state.shape.ownerIds;
  SmallVector<int64_t> &ownerStageBase = state.shape.ownerStageBase;
  SmallVector<unsigned> &ownerBufferBase = state.shape.ownerBufferBase;
  llvm::StringMap<int64_t> &publishBase = state.shape.publishBase;
  int64_t &publishStride = state.shape.publishStride;
  wave::CoroutineOp coroutine;
  SmallVector<wave::StageOp> stages;
  int64_t totalOwnerStages = 0;
  SmallVector<ProducerEdge> producers;
  gpu::GPUModuleOp kernels;
  FunctionType kernelType;
  unsigned inputBase = 0;
  unsigned bindingBase = 0;
  unsigned extentsArgument = 0;
  bool checkBounds = false;
  SmallVector<wave::BindingUses> bindingUses; // per binding
  Value invocation;
  Block *exitBlock = nullptr;
};

struct ConvertWaveToGPUPass
    : public sluice::impl::ConvertWaveToGPUBase<ConvertWaveToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(
            WaveToGpuLowering(getOperation(), checkBounds, lanePublishPositions)
                .run()))
      signalPassFailure();
  }
};

} // namespace
