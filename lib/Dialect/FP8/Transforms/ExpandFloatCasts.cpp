//===- ExpandFloatCasts.cpp - Small-float conversions as integer IR -------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Dialect/FP8/Utils/SoftFloat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8EXPANDFLOATCASTS
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// The floats a small float converts from or to directly (GraphUtils'
/// isWideFloat and f64).
bool isConvertibleFloat(Type element) {
  return element.isF16() || element.isBF16() || element.isF32() ||
         element.isF64();
}

/// Brings a soft-float value exactly to f32 so that it can be rounded again.
Value widenIfSoft(OpBuilder &builder, Location loc, Value value) {
  Type element = getElementTypeOrSelf(value);
  if (!isSoftFloatType(element))
    return value;
  Type f32 = builder.getF32Type();
  auto shaped = dyn_cast<ShapedType>(value.getType());
  return emitSoftExtF(builder, loc, value, shaped ? shaped.clone(f32) : f32);
}

struct ExpandTruncF : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type dst = getElementTypeOrSelf(op.getType());
    Type src = getElementTypeOrSelf(op.getIn());
    if (!isSoftFloatType(dst) || !hasExpandableShape(op.getType()) ||
        !(isConvertibleFloat(src) || isSoftFloatType(src)))
      return rewriter.notifyMatchFailure(op, "not a small-float truncation");
    if (std::optional<arith::RoundingMode> mode = op.getRoundingmode();
        mode && *mode != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "non-default rounding mode");
    Value input = widenIfSoft(rewriter, op.getLoc(), op.getIn());
    rewriter.replaceOp(op, emitSoftTruncF(rewriter, op.getLoc(), input,
                                          op.getType(), Rounding::RNE,
                                          SoftOverflow::APFloat));
    return success();
  }
};

struct ExpandExtF : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type dst = getElementTypeOrSelf(op.getType());
    Type src = getElementTypeOrSelf(op.getIn());
    if (!isSoftFloatType(src) || !hasExpandableShape(op.getType()))
      return rewriter.notifyMatchFailure(op, "not a small-float extension");
    if (isSoftFloatType(dst)) {
      // A wider small format: exact through f32.
      Value wide = widenIfSoft(rewriter, op.getLoc(), op.getIn());
      rewriter.replaceOp(op, emitSoftTruncF(rewriter, op.getLoc(), wide,
                                            op.getType(), Rounding::RNE,
                                            SoftOverflow::APFloat));
      return success();
    }
    if (!isConvertibleFloat(dst))
      return rewriter.notifyMatchFailure(op, "unsupported result type");
    rewriter.replaceOp(
        op, emitSoftExtF(rewriter, op.getLoc(), op.getIn(), op.getType()));
    return success();
  }
};

struct ExpandConvert : OpRewritePattern<ConvertOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasExpandableShape(op.getType()))
      return rewriter.notifyMatchFailure(op, "dynamically shaped");
    SoftOverflow overflow = op.getOverflow() == Overflow::Saturate
                                ? SoftOverflow::Saturate
                                : SoftOverflow::NonFinite;
    rewriter.replaceOp(op, emitSoftTruncF(rewriter, op.getLoc(), op.getInput(),
                                          op.getType(), op.getRounding(),
                                          overflow, op.getRbits()));
    return success();
  }
};

/// Rewrites a small-float constant into an integer constant of the same bits
/// and a bit cast. Run after pattern application: the bit cast of a constant
/// folds back into a small-float constant.
void expandConstant(arith::ConstantOp op) {
  Type type = op.getType();
  Type element = getElementTypeOrSelf(type);
  if (!isSoftFloatType(element))
    return;
  OpBuilder builder(op);
  Type intElement = builder.getIntegerType(element.getIntOrFloatBitWidth());
  TypedAttr intValue;
  if (auto floatAttr = dyn_cast<FloatAttr>(op.getValue()))
    intValue = builder.getIntegerAttr(intElement,
                                      floatAttr.getValue().bitcastToAPInt());
  else if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue()))
    intValue = dense.bitcast(intElement);
  else
    return;
  Value bits = arith::ConstantOp::create(builder, op.getLoc(), intValue);
  Value cast = arith::BitcastOp::create(builder, op.getLoc(), type, bits);
  op.replaceAllUsesWith(cast);
  op.erase();
}

struct FP8ExpandFloatCastsPass
    : fp8::impl::FP8ExpandFloatCastsBase<FP8ExpandFloatCastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandFloatCastsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk(expandConstant);

    // Whatever is left cannot run on a target without native conversions.
    WalkResult result = getOperation()->walk([](Operation *op) {
      auto isSoftConversion = [](Type from, Type to) {
        return isSoftFloatType(getElementTypeOrSelf(from)) ||
               isSoftFloatType(getElementTypeOrSelf(to));
      };
      if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
        if (isSoftConversion(trunc.getIn().getType(), trunc.getType())) {
          trunc.emitError("cannot expand this conversion: only "
                          "round-to-nearest-even on scalars, vectors and "
                          "static tensors of f16, bf16, f32, f64 and the "
                          "small float types is supported");
          return WalkResult::interrupt();
        }
      } else if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        if (isSoftConversion(ext.getIn().getType(), ext.getType())) {
          ext.emitError("cannot expand this conversion: only scalars, "
                        "vectors and static tensors are supported");
          return WalkResult::interrupt();
        }
      } else if (auto convert = dyn_cast<ConvertOp>(op)) {
        convert.emitError("cannot expand fp8.convert on a dynamically shaped "
                          "tensor; convert it to linalg first "
                          "(-convert-elementwise-to-linalg)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void mlir::fp8::populateExpandFloatCastsPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandTruncF, ExpandExtF, ExpandConvert>(patterns.getContext());
}
