//===- PropagateScales.cpp - Quantize before data movement ----------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Quantization commutes with ops that only move or copy elements, as long as
// every element keeps its scaling block: a per-tensor amax is the same before
// and after a transpose, reshape or broadcast, and a block of a transposed
// matrix is the transposed block. These patterns move fp8.dynamic_quantize,
// fp8.quantize and fp8.amax above such ops, so that the movement carries
// 1-byte codes instead of wide values and two quantizations of one source
// (say, a tensor and its transpose) become one after CSE.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8PROPAGATESCALES
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// A data-movement op producing the quantized value, and how a granularity
/// of its result maps to its source.
struct Movement {
  Operation *op = nullptr;
  Value source;
  /// The granularity on the source giving every element the scaling block
  /// it has in the result.
  GranularityAttr sourceGranularity;
  /// The movement swaps the last two dimensions (block scales move along).
  bool swapsLastTwo = false;
};

/// The movement feeding `value` if a quantization under `granularity`
/// commutes with it: any transpose, reshape or broadcast for per-tensor
/// scales, a swap of the last two dimensions for block scales.
std::optional<Movement> matchMovement(Value value,
                                      GranularityAttr granularity) {
  Operation *def = value.getDefiningOp();
  if (!def || !cast<ShapedType>(value.getType()).hasStaticShape())
    return std::nullopt;
  Movement movement;
  movement.op = def;
  if (auto transpose = dyn_cast<linalg::TransposeOp>(def)) {
    movement.source = transpose.getInput();
    movement.swapsLastTwo = isLastTwoSwap(transpose.getPermutation());
    if (!granularity.isTensor() && !movement.swapsLastTwo)
      return std::nullopt;
    int64_t rank = transpose.getPermutation().size();
    movement.sourceGranularity = granularity.getTransposed(rank);
  } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    movement.source = expand.getSrc();
  } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
    movement.source = collapse.getSrc();
  } else if (auto broadcast = dyn_cast<linalg::BroadcastOp>(def)) {
    movement.source = broadcast.getInput();
  } else {
    return std::nullopt;
  }
  if (!movement.sourceGranularity) {
    if (!granularity.isTensor())
      return std::nullopt;
    movement.sourceGranularity = granularity;
  }
  if (!cast<ShapedType>(movement.source.getType()).hasStaticShape())
    return std::nullopt;
  return movement;
}

/// Whether `value` is read in its wide form by something other than
/// `quantization`: an op that is not a per-tensor quantization with
/// nearest rounding (those move above the movement too), looking through
/// reshapes, which are views.
bool hasWideReader(Value value, Operation *quantization) {
  for (Operation *user : value.getUsers()) {
    if (user == quantization)
      continue;
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user)) {
      if (hasWideReader(user->getResult(0), quantization))
        return true;
      continue;
    }
    auto granularity = [&]() -> GranularityAttr {
      if (auto q = dyn_cast<DynamicQuantizeOp>(user))
        return q.getColGranularityAttr() ? nullptr : q.getGranularity();
      if (auto q = dyn_cast<QuantizeOp>(user))
        return q.getRbits() ? nullptr : q.getGranularity();
      if (auto amax = dyn_cast<AmaxOp>(user))
        return amax.getGranularity();
      return nullptr;
    }();
    if (!granularity || !granularity.isTensor())
      return true;
  }
  return false;
}

/// Whether `transpose` merges the [H, M, D] results of a batch of GEMMs
/// back into rows ([M, H, D]), read from the contraction or from a one-input
/// elementwise op of its result (an epilogue), neither read by anything
/// else: a GEMM stores its result so itself.
bool mergesGemmResults(linalg::TransposeOp transpose) {
  if (transpose.getPermutation() != ArrayRef<int64_t>{1, 0, 2})
    return false;
  Value value = transpose.getInput();
  auto producer = value.getDefiningOp<linalg::LinalgOp>();
  std::string reason;
  if (producer && value.hasOneUse() &&
      !linalg::isaContractionOpInterface(producer) &&
      producer.getNumDpsInputs() == 1 &&
      isFusableElementwise(producer, reason)) {
    value = producer.getDpsInputOperand(0)->get();
    producer = value.getDefiningOp<linalg::LinalgOp>();
  }
  return producer && value.hasOneUse() &&
         linalg::isaContractionOpInterface(producer);
}

/// Whether `quantization` should stay below `movement`: the first
/// transpose above it (looking through reshapes) produces wide values that
/// another op reads, so that they are stored anyway. Moving above it would
/// only add a transpose of the codes (and the quantization would read a
/// layout that what reads the codes does not want, keeping a transposed
/// copy of a pair from folding). So does a transpose merging the heads of
/// a batch of GEMMs (mergesGemmResults), which the GEMMs store merged
/// (convert-fp8-to-gpu's sm90-head-major-results). A broadcast is different:
/// quantizing its smaller source and broadcasting the codes reads less than
/// quantizing the stored broadcast.
bool staysBelow(Operation *movement, Operation *quantization) {
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(movement)) {
    Operation *def = movement->getOperand(0).getDefiningOp();
    return isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                           linalg::TransposeOp>(def) &&
           staysBelow(def, quantization);
  }
  auto transpose = dyn_cast<linalg::TransposeOp>(movement);
  return transpose && (hasWideReader(transpose.getResult()[0], quantization) ||
                       mergesGemmResults(transpose));
}

/// Whether codes of `codesType` (the quantization's result) must be written
/// by the quantization itself, below `movement`: a reshape whose result's
/// rows are not whole 16-byte units. A quantization kernel pads the rows it
/// writes to 16 bytes, so that a GEMM can read them along K with TMA
/// (fp8-legalize-layout); rows made by reshaping codes have no such pitch.
bool needsPaddedRows(const Movement &movement, RankedTensorType codesType) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(movement.op) &&
         !hasWhole16ByteRows(codesType);
}

/// Applies `movement` to `value` (of the movement source's shape, any
/// element type).
Value move(OpBuilder &b, const Movement &movement, Value value) {
  Location loc = movement.op->getLoc();
  Type element = cast<RankedTensorType>(value.getType()).getElementType();
  auto resultType = cast<RankedTensorType>(movement.op->getResult(0).getType())
                        .clone(element);
  if (auto transpose = dyn_cast<linalg::TransposeOp>(movement.op)) {
    Value init =
        tensor::EmptyOp::create(b, loc, resultType.getShape(), element);
    return linalg::TransposeOp::create(b, loc, value, init,
                                       transpose.getPermutation())
        .getResult()[0];
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(movement.op))
    return tensor::ExpandShapeOp::create(b, loc, resultType, value,
                                         expand.getReassociationIndices());
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(movement.op))
    return tensor::CollapseShapeOp::create(b, loc, resultType, value,
                                           collapse.getReassociationIndices());
  auto broadcast = cast<linalg::BroadcastOp>(movement.op);
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(), element);
  return linalg::BroadcastOp::create(b, loc, value, init,
                                     broadcast.getDimensions())
      .getResult()[0];
}

/// A scale of the source's scale shape, moved to the result's: reshaped for
/// per-tensor scales, transposed for block scales.
Value moveScale(OpBuilder &b, const Movement &movement, Value scale,
                RankedTensorType resultScaleType) {
  if (!movement.swapsLastTwo ||
      llvm::all_of(resultScaleType.getShape(),
                   [](int64_t extent) { return extent == 1; }))
    return reshapeSingle(b, movement.op->getLoc(), scale, resultScaleType);
  auto transpose = cast<linalg::TransposeOp>(movement.op);
  Value init = tensor::EmptyOp::create(b, movement.op->getLoc(),
                                       resultScaleType.getShape(),
                                       resultScaleType.getElementType());
  return linalg::TransposeOp::create(b, movement.op->getLoc(), scale, init,
                                     transpose.getPermutation())
      .getResult()[0];
}

RankedTensorType onesLike(Value value, Type element) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  return RankedTensorType::get(SmallVector<int64_t>(rank, 1), element);
}

struct DynamicQuantizeThroughMovement : OpRewritePattern<DynamicQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DynamicQuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getColGranularityAttr())
      return rewriter.notifyMatchFailure(op, "a row/column pair");
    std::optional<Movement> movement =
        matchMovement(op.getInput(), op.getGranularity());
    if (!movement || staysBelow(movement->op, op) ||
        needsPaddedRows(*movement, op.getData().getType()))
      return failure();
    auto sourceType = cast<RankedTensorType>(movement->source.getType());
    auto dataType = sourceType.clone(op.getData().getType().getElementType());
    auto scaleType = RankedTensorType::get(
        movement->sourceGranularity.getScaleShape(sourceType.getShape()),
        op.getScale().getType().getElementType());
    Type globalType;
    if (Value global = op.getGlobalScale())
      globalType = global.getType();
    auto moved = DynamicQuantizeOp::create(
        rewriter, op.getLoc(), dataType, scaleType, globalType, Type(), Type(),
        movement->source, movement->sourceGranularity, nullptr, false,
        op.getRule(), op.getOverflow(), op.getNanPolicy(),
        /*scale_layout=*/nullptr, /*col_scale_layout=*/nullptr);
    SmallVector<Value> results{move(rewriter, *movement, moved.getData()),
                               moveScale(rewriter, *movement, moved.getScale(),
                                         op.getScale().getType())};
    if (op.getGlobalScale())
      results.push_back(moved.getGlobalScale());
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct QuantizeThroughMovement : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    // Per-tensor scales only: moving a block scale would need its transpose.
    if (!op.getGranularity().isTensor() || op.getRbits())
      return failure();
    std::optional<Movement> movement =
        matchMovement(op.getInput(), op.getGranularity());
    if (!movement || staysBelow(movement->op, op) ||
        needsPaddedRows(*movement, op.getType()))
      return failure();
    auto sourceType = cast<RankedTensorType>(movement->source.getType());
    Type scaleElement = op.getScale().getType().getElementType();
    Value scale = reshapeSingle(rewriter, op.getLoc(), op.getScale(),
                                onesLike(movement->source, scaleElement));
    Value global = op.getGlobalScale();
    auto moved = QuantizeOp::create(
        rewriter, op.getLoc(), sourceType.clone(op.getType().getElementType()),
        movement->source, scale, global, Value(), op.getGranularity(),
        op.getOverflow(), op.getRounding());
    rewriter.replaceOp(op, move(rewriter, *movement, moved.getResult()));
    return success();
  }
};

struct AmaxThroughMovement : OpRewritePattern<AmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getGranularity().isTensor())
      return failure();
    std::optional<Movement> movement =
        matchMovement(op.getInput(), op.getGranularity());
    if (!movement || staysBelow(movement->op, op))
      return failure();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value amax = AmaxOp::create(
        rewriter, op.getLoc(),
        onesLike(movement->source, resultType.getElementType()),
        movement->source, op.getGranularity(), op.getNanPolicy());
    rewriter.replaceOp(op,
                       reshapeSingle(rewriter, op.getLoc(), amax, resultType));
    return success();
  }
};

struct FP8PropagateScalesPass
    : fp8::impl::FP8PropagateScalesBase<FP8PropagateScalesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePropagateScalesPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::fp8::populatePropagateScalesPatterns(RewritePatternSet &patterns) {
  patterns.add<DynamicQuantizeThroughMovement, QuantizeThroughMovement,
               AmaxThroughMovement>(patterns.getContext());
}
