//===- IsolateGlobalState.cpp - Copies at ml_program loads and stores -----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/Builders.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8ISOLATEGLOBALSTATE
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;

namespace {

/// A fresh tensor holding a copy of `value`.
Value copyOf(OpBuilder &builder, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return bufferization::AllocTensorOp::create(builder, loc, type,
                                              /*dynamicSizes=*/ValueRange(),
                                              /*copy=*/value);
}

struct FP8IsolateGlobalStatePass
    : fp8::impl::FP8IsolateGlobalStateBase<FP8IsolateGlobalStatePass> {
  void runOnOperation() override {
    bool unsupported = false;
    getOperation()->walk([&](Operation *op) {
      if (auto load = dyn_cast<ml_program::GlobalLoadOp>(op)) {
        auto type = dyn_cast<RankedTensorType>(load.getType());
        if (!type || !type.hasStaticShape())
          return;
        OpBuilder builder(load->getContext());
        builder.setInsertionPointAfter(load);
        Value copy = copyOf(builder, load.getLoc(), load.getResult());
        load.getResult().replaceAllUsesExcept(copy, copy.getDefiningOp());
      } else if (auto store = dyn_cast<ml_program::GlobalStoreOp>(op)) {
        auto type = dyn_cast<RankedTensorType>(store.getValue().getType());
        if (!type || !type.hasStaticShape()) {
          store.emitError("fp8-isolate-global-state handles statically "
                          "shaped tensor state only");
          unsupported = true;
          return;
        }
        OpBuilder builder(store);
        store.getValueMutable().assign(
            copyOf(builder, store.getLoc(), store.getValue()));
      }
    });
    if (unsupported)
      signalPassFailure();
  }
};

} // namespace
