//===- FuseDynamicQuantize.cpp - Fuse current-scaling chains --------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8FUSEDYNAMICQUANTIZE
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// amax(x) -> compute_scale -> quantize(x)  ==>  dynamic_quantize(x).
struct FuseQuantizeChain : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getRounding() != Rounding::RNE || op.getGlobalScale())
      return rewriter.notifyMatchFailure(op,
                                         "not an RNE single-level quantize");
    auto computeScale = op.getScale().getDefiningOp<ComputeScaleOp>();
    if (!computeScale || computeScale.getGlobalScale())
      return rewriter.notifyMatchFailure(op, "scale is not a one-level rule");
    ScaleRuleKind kind = computeScale.getRule().getKind();
    if (kind == ScaleRuleKind::NVFP4)
      return rewriter.notifyMatchFailure(op, "nvfp4 chains are not fused");
    auto amax = computeScale.getAmax().getDefiningOp<AmaxOp>();
    if (!amax || amax.getInput() != op.getInput() ||
        amax.getGranularity() != op.getGranularity())
      return rewriter.notifyMatchFailure(op, "amax of another tensor/block");
    if (computeScale.getFormat() != *getFormat(op.getType().getElementType()))
      return rewriter.notifyMatchFailure(op,
                                         "scale computed for another format");

    // The decode scale has the type of the computed scale: f32 (1/s) or the
    // E8M0 codes themselves.
    Value decodeScale =
        isa<Float32Type>(computeScale.getScale().getType().getElementType())
            ? computeScale.getScaleInv()
            : computeScale.getScale();

    // The fused op returns the decode scale with the type of `scale`.
    if (decodeScale &&
        decodeScale.getType() != computeScale.getScale().getType())
      return rewriter.notifyMatchFailure(op, "scale_inv has another type");

    // Right after compute_scale, the fused op dominates every user of the
    // values it replaces.
    rewriter.setInsertionPointAfter(computeScale);
    auto fused = DynamicQuantizeOp::create(
        rewriter, op.getLoc(), op.getType(), computeScale.getScale().getType(),
        /*global_scale=*/Type(), /*col_data=*/Type(), /*col_scale=*/Type(),
        op.getInput(), op.getGranularity(), /*col_granularity=*/nullptr,
        /*transposed=*/false, computeScale.getRule(), op.getOverflow(),
        amax.getNanPolicy(),
        /*scale_layout=*/nullptr, /*col_scale_layout=*/nullptr);
    rewriter.replaceOp(op, fused.getData());
    if (decodeScale)
      rewriter.replaceAllUsesWith(decodeScale, fused.getScale());
    return success();
  }
};

/// Two dynamic_quantize ops of one input with the same rule  ==>  one op with
/// a column-wise copy.
struct MergeDynamicQuantizePair : OpRewritePattern<DynamicQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool isMergeable(DynamicQuantizeOp op) {
    return !op.getColGranularity() && !op.getGlobalScale();
  }

  LogicalResult matchAndRewrite(DynamicQuantizeOp first,
                                PatternRewriter &rewriter) const override {
    if (!isMergeable(first))
      return rewriter.notifyMatchFailure(first, "already paired or nvfp4");
    DynamicQuantizeOp second;
    for (Operation *user : first.getInput().getUsers()) {
      auto other = dyn_cast<DynamicQuantizeOp>(user);
      if (!other || other == first || !isMergeable(other) ||
          other->getBlock() != first->getBlock() ||
          !first->isBeforeInBlock(other) ||
          other.getInput() != first.getInput() ||
          other.getRule() != first.getRule() ||
          other.getOverflow() != first.getOverflow() ||
          other.getNanPolicy() != first.getNanPolicy())
        continue;
      if (!second || other->isBeforeInBlock(second))
        second = other;
    }
    if (!second)
      return rewriter.notifyMatchFailure(first, "no partner quantization");

    rewriter.setInsertionPoint(first);
    auto merged = DynamicQuantizeOp::create(
        rewriter, first.getLoc(), first.getData().getType(),
        first.getScale().getType(), /*global_scale=*/Type(),
        second.getData().getType(), second.getScale().getType(),
        first.getInput(), first.getGranularity(), second.getGranularity(),
        /*transposed=*/false, first.getRule(), first.getOverflow(),
        first.getNanPolicy(),
        /*scale_layout=*/nullptr, /*col_scale_layout=*/nullptr);
    rewriter.replaceOp(first, {merged.getData(), merged.getScale()});
    rewriter.replaceOp(second, {merged.getColData(), merged.getColScale()});
    return success();
  }
};

/// The transposes reading `value` when every user is a swap of the last two
/// dimensions, all producing one type.
std::optional<SmallVector<linalg::TransposeOp>> onlyTransposed(Value value) {
  SmallVector<linalg::TransposeOp> transposes;
  for (Operation *user : value.getUsers()) {
    auto transpose = dyn_cast<linalg::TransposeOp>(user);
    if (!transpose || transpose.getInput() != value)
      return std::nullopt;
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    int64_t rank = permutation.size();
    for (int64_t i = 0; i < rank; ++i)
      if (permutation[i] !=
          (i < rank - 2 ? i : (i == rank - 2 ? rank - 1 : rank - 2)))
        return std::nullopt;
    transposes.push_back(transpose);
  }
  if (transposes.empty())
    return std::nullopt;
  return transposes;
}

/// A pair whose copy is read only through transposes of its codes and
/// scales  ==>  the pair with that copy stored transposed (`transposed`): the
/// quantize kernel writes the K-major layout a GEMM needs (fp8-legalize-layout
/// asks for it on Hopper) from the same read, as a fused cast+transpose.
struct FoldTransposeIntoPair : OpRewritePattern<DynamicQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DynamicQuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getColGranularityAttr() || op.getTransposed())
      return rewriter.notifyMatchFailure(op, "not an untransposed pair");
    // Which copy is read transposed: its codes through transposes, its scale
    // through transposes or (a single scale per matrix) directly.
    auto readTransposed = [&](Value data, Value scale) {
      if (!onlyTransposed(data))
        return false;
      if (onlyTransposed(scale))
        return true;
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(scale.getType()).getShape();
      return shape[shape.size() - 1] == 1 && shape[shape.size() - 2] == 1;
    };
    bool colTransposed = readTransposed(op.getColData(), op.getColScale());
    bool rowTransposed = readTransposed(op.getData(), op.getScale());
    if (colTransposed == rowTransposed)
      return rewriter.notifyMatchFailure(op, "no single transposed copy");
    // The copy read transposed becomes the column-wise one.
    Value plainData = colTransposed ? op.getData() : op.getColData();
    Value plainScale = colTransposed ? op.getScale() : op.getColScale();
    Value movedData = colTransposed ? op.getColData() : op.getData();
    Value movedScale = colTransposed ? op.getColScale() : op.getScale();
    GranularityAttr plainGranularity =
        colTransposed ? op.getGranularity() : *op.getColGranularity();
    GranularityAttr movedGranularity =
        colTransposed ? *op.getColGranularity() : op.getGranularity();
    auto transposedType = [](Value value) {
      auto type = cast<RankedTensorType>(value.getType());
      return type.clone(getTransposedShape(type.getShape()));
    };
    auto fused = DynamicQuantizeOp::create(
        rewriter, op.getLoc(), plainData.getType(), plainScale.getType(),
        /*global_scale=*/Type(), transposedType(movedData),
        transposedType(movedScale), op.getInput(), plainGranularity,
        movedGranularity, /*transposed=*/true, op.getRule(), op.getOverflow(),
        op.getNanPolicy(),
        /*scale_layout=*/nullptr, /*col_scale_layout=*/nullptr);
    // (Named: a range-for over `*optional` would outlive the temporary.)
    std::optional<SmallVector<linalg::TransposeOp>> dataTransposes =
        onlyTransposed(movedData);
    for (linalg::TransposeOp transpose : *dataTransposes)
      rewriter.replaceOp(transpose, fused.getColData());
    if (auto transposes = onlyTransposed(movedScale))
      for (linalg::TransposeOp transpose : *transposes)
        rewriter.replaceOp(transpose, fused.getColScale());
    // A single scale per matrix (last two extents 1) is its own transpose.
    rewriter.replaceAllUsesWith(movedScale, fused.getColScale());
    rewriter.replaceAllUsesWith(plainData, fused.getData());
    rewriter.replaceAllUsesWith(plainScale, fused.getScale());
    rewriter.eraseOp(op);
    return success();
  }
};

struct FP8FuseDynamicQuantizePass
    : fp8::impl::FP8FuseDynamicQuantizeBase<FP8FuseDynamicQuantizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseDynamicQuantizePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::fp8::populateFuseDynamicQuantizePatterns(
    RewritePatternSet &patterns) {
  // Fuse chains first so that the pairs they form can merge.
  patterns.add<FuseQuantizeChain>(patterns.getContext(), /*benefit=*/2);
  patterns.add<MergeDynamicQuantizePair, FoldTransposeIntoPair>(
      patterns.getContext(), /*benefit=*/1);
}
