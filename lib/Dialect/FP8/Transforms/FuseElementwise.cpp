//===- FuseElementwise.cpp - Chains of elementwise ops as one generic -----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A chain of elementwise linalg ops (bias add, activation, cast, scaling,
// residual add) becomes one linalg.generic, so that the GPU pipeline builds
// one kernel for it. The fusion itself is upstream's
// (linalg::fuseElementwiseOps); this pass decides which edges fuse, turns
// the named ops of those edges into generics and reports every decision.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8FUSEELEMENTWISE
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// Whether the body of `op` yields one of its inputs unchanged (a broadcast
/// or a copy), so that recomputing it in every consumer is an indexed read.
bool isPureCopy(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || !llvm::hasSingleElement(*body))
    return false;
  return llvm::all_of(body->getTerminator()->getOperands(), [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == body &&
           arg.getArgNumber() < op.getNumDpsInputs();
  });
}

/// Whether the producer of `operand` fuses into its owner, an elementwise
/// op. Otherwise `reason` says why not, or is empty where there is nothing
/// to report (no linalg producer, or a fill that the consumer reads as it
/// is).
bool fusesInto(OpOperand &operand, std::string &reason) {
  reason.clear();
  Operation *consumer = operand.getOwner();
  Operation *producer = operand.get().getDefiningOp();
  if (!isa_and_nonnull<linalg::LinalgOp>(producer) ||
      isa<linalg::FillOp>(producer))
    return false;
  if (!isFusableElementwise(producer, reason)) {
    reason = "the producer " + reason;
    return false;
  }
  if (!cast<linalg::LinalgOp>(consumer).isDpsInput(&operand)) {
    reason = "the consumer reads it as its initial value";
    return false;
  }
  if (isPureCopy(cast<linalg::LinalgOp>(producer)))
    return true;
  for (Value result : producer->getResults())
    for (Operation *user : result.getUsers())
      if (user != consumer) {
        reason =
            ("its result is also read by '" + user->getName().getStringRef() +
             "' (fusing would write the intermediate anyway)")
                .str();
        return false;
      }
  return true;
}

struct FP8FuseElementwisePass
    : fp8::impl::FP8FuseElementwiseBase<FP8FuseElementwisePass> {
  void runOnOperation() override;

  /// Fuses one edge of the chain into `consumer`; returns the fused op, or
  /// null when none of its operands fuses.
  linalg::GenericOp fuseOne(IRRewriter &rewriter, linalg::GenericOp consumer);

  /// A generic equivalent of `op` in its place (the op itself when it is
  /// one).
  linalg::GenericOp generalize(IRRewriter &rewriter, linalg::LinalgOp op);

  void remarkMissed(OpOperand &operand, StringRef reason);

  /// Edges already reported as not fused: the producer's value and the
  /// consumer's location, which its fused successors keep.
  DenseSet<std::pair<Value, Location>> reported;
};

linalg::GenericOp FP8FuseElementwisePass::generalize(IRRewriter &rewriter,
                                                     linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, op);
  return succeeded(generic) ? *generic : linalg::GenericOp();
}

void FP8FuseElementwisePass::remarkMissed(OpOperand &operand,
                                          StringRef reason) {
  if (!reported.insert({operand.get(), operand.getOwner()->getLoc()}).second)
    return;
  remark::missed(
      operand.getOwner()->getLoc(),
      getFP8GPURemarkOpts(operand.getOwner(), "elementwise-not-fused"))
      << remark::add("{0} not fused into {1}: {2}",
                     describeForRemarks(operand.get().getDefiningOp()),
                     describeForRemarks(operand.getOwner()), reason.str());
}

linalg::GenericOp FP8FuseElementwisePass::fuseOne(IRRewriter &rewriter,
                                                  linalg::GenericOp consumer) {
  for (OpOperand *operand : consumer.getDpsInputOperands()) {
    std::string reason;
    if (!fusesInto(*operand, reason)) {
      if (!reason.empty())
        remarkMissed(*operand, reason);
      continue;
    }
    Operation *producer = operand->get().getDefiningOp();
    std::string producerName = describeForRemarks(producer);
    // A broadcast read elsewhere too is recomputed: this consumer gets a
    // copy of its own.
    if (!producer->getResult(0).hasOneUse()) {
      rewriter.setInsertionPoint(producer);
      Operation *copy = rewriter.clone(*producer);
      operand->set(copy->getResult(0));
      producer = copy;
    }
    linalg::GenericOp genericProducer =
        generalize(rewriter, cast<linalg::LinalgOp>(producer));
    if (!genericProducer || !linalg::areElementwiseOpsFusable(operand)) {
      remarkMissed(*operand, "linalg elementwise fusion does not apply");
      continue;
    }
    rewriter.setInsertionPoint(consumer);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, operand);
    if (failed(fused)) {
      remarkMissed(*operand, "linalg elementwise fusion failed");
      continue;
    }
    remark::passed(consumer->getLoc(),
                   getFP8GPURemarkOpts(consumer, "elementwise-fused"))
        << remark::add("{0} fused into {1}", producerName,
                       describeForRemarks(consumer));
    for (auto [original, replacement] : fused->replacements)
      rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
        return use.getOwner() != genericProducer;
      });
    rewriter.eraseOp(consumer);
    if (genericProducer->use_empty())
      rewriter.eraseOp(genericProducer);
    return cast<linalg::GenericOp>(fused->fusedOp);
  }
  return {};
}

void FP8FuseElementwisePass::runOnOperation() {
  IRRewriter rewriter(&getContext());
  reported.clear();
  Operation *root = getOperation();

  // A per-tensor dequantization that only an elementwise op reads is an
  // elementwise producer like any other: its generic form fuses.
  SmallVector<DequantizeOp> dequantizes;
  root->walk([&](DequantizeOp op) {
    std::string reason;
    if (isTensorDequantize(op) && op->hasOneUse() &&
        isFusableElementwise(*op->getUsers().begin(), reason))
      dequantizes.push_back(op);
  });
  for (DequantizeOp op : dequantizes) {
    rewriter.replaceOp(op, createTensorDequantizeGeneric(rewriter, op));
  }

  // Consumers in program order; each absorbs its producers one at a time
  // until none fuses, so a chain ends as one generic at its last op. A
  // consumer may read loop indices (a causal mask): its producers are
  // evaluated at its own position.
  SmallVector<linalg::LinalgOp> consumers;
  root->walk([&](linalg::LinalgOp op) {
    std::string reason;
    if (isFusableElementwise(op, reason, /*indices=*/true))
      consumers.push_back(op);
  });
  for (linalg::LinalgOp op : consumers) {
    // A named consumer becomes a generic only when a producer fuses in.
    bool anyFuses = llvm::any_of(op.getDpsInputOperands(), [](OpOperand *o) {
      std::string reason;
      return fusesInto(*o, reason);
    });
    if (!anyFuses) {
      for (OpOperand *operand : op.getDpsInputOperands()) {
        std::string reason;
        if (!fusesInto(*operand, reason) && !reason.empty())
          remarkMissed(*operand, reason);
      }
      continue;
    }
    linalg::GenericOp consumer = generalize(rewriter, op);
    if (!consumer)
      continue;
    while (linalg::GenericOp fused = fuseOne(rewriter, consumer))
      consumer = fused;
  }
}

} // namespace
