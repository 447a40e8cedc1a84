//===- SetCapacity.cpp - Override owner capacities before compiling -------===//

#include "sluice/Dialect/Pool/Transforms/Passes.h"

namespace sluice::pool {
#define GEN_PASS_DEF_POOLSETCAPACITY
#include "sluice/Dialect/Pool/Transforms/Passes.h.inc"
} // namespace sluice::pool

using namespace mlir;
using namespace sluice::pool;

namespace {

struct PoolSetCapacity
    : public sluice::pool::impl::PoolSetCapacityBase<PoolSetCapacity> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (const std::string &text : capacities) {
      StringRef entry(text);
      auto [name, value] = entry.rsplit('=');
      uint64_t capacity = 0;
      if (name.empty() || value.empty() || value.getAsInteger(10, capacity) ||
          capacity == 0 || capacity > UINT32_MAX) {
        module.emitError("a capacity override (--capacity) expects NAME=N "
                         "with N in [1, 4294967295], got '")
            << text << "'";
        return signalPassFailure();
      }
      auto owner = module.lookupSymbol<OwnerOp>(name);
      if (!owner) {
        module.emitError("the capacity override '")
            << text << "' names @" << name
            << ", but the program has no pool.owner of that name";
        return signalPassFailure();
      }
      owner.setCapacityAttr(IntegerAttr::get(
          IntegerType::get(module.getContext(), 64), capacity));
    }
  }
};

} // namespace
