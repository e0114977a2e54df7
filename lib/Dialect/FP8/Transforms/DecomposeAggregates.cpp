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
      // Upstream's decomposition of softmax builds float identities (-inf)
      // and exp: on integers it crashes.
      if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op.getOperation());
          softmax &&
          !isa<FloatType>(softmax.getInputOperandType().getElementType())) {
        op->emitError("fp8-decompose-aggregates: linalg.softmax of ")
            << softmax.getInputOperandType().getElementType()
            << " elements; softmax is defined on floats";
        return signalPassFailure();
      }
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
