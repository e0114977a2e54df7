//===- DecomposeAggregates.cpp - Aggregated linalg ops to generics --------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8DECOMPOSEAGGREGATES
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;

namespace {

struct FP8DecomposeAggregatesPass
    : fp8::impl::FP8DecomposeAggregatesBase<FP8DecomposeAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    for (linalg::AggregatedOpInterface op : aggregates) {
      OpBuilder builder(op);
      FailureOr<SmallVector<Value>> results = op.decomposeOperation(builder);
      if (failed(results)) {
        op->emitError("fp8-decompose-aggregates: the op could not be "
                      "decomposed into linalg.generic ops");
        return signalPassFailure();
      }
      op->replaceAllUsesWith(*results);
      op->erase();
    }
  }
};

} // namespace
