//===- ExpandMath.cpp - Specified expansions of math functions ------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// erf as docs/numerics.md ("erf") specifies it, so that the CPU
// reference and the GPU kernels compute the same bits whatever libm the host
// has.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8EXPANDMATH
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

// erf(x) / x - 1 on [0, 1) as a polynomial of x^2, highest power first.
constexpr float kErfSmall[] = {
    0x1.4ae774p-14f, -0x1.a486fep-11f, 0x1.541a2p-8f,  -0x1.b7fbbap-6f,
    0x1.ce2d2p-4f,   -0x1.81273ep-2f,  0x1.06eba8p-3f,
};
// erfc(x) on [1, 3.925) as a polynomial of x - 2.5, highest power first.
constexpr float kErfcLarge[] = {
    0x1.322cfp-17f,   -0x1.610112p-16f, -0x1.03943ap-14f, 0x1.2472b4p-12f,
    -0x1.2c6bdap-12f, -0x1.2b09aap-11f, 0x1.716226p-9f,   -0x1.8ffb82p-8f,
    0x1.1a4e8ap-7f,   -0x1.11b804p-7f,  0x1.64f3aap-8f,   -0x1.1d7c4p-9f,
    0x1.aab2ep-12f,
};
// The polynomial of x - kErfcCenter holds below kErfOne; from there on erf
// rounds to 1 in f32.
constexpr float kErfcCenter = 2.5f;
constexpr float kErfOne = 3.925f;

/// Scalars, vectors and statically shaped tensors of f32, bf16 or f16.
bool isExpandable(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (shaped &&
      (!shaped.hasStaticShape() || !isa<VectorType, RankedTensorType>(shaped)))
    return false;
  Type element = getElementTypeOrSelf(type);
  return element.isF32() || element.isBF16() || element.isF16();
}

struct ExpandErf : OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    Type original = op.getType();
    if (!isExpandable(original))
      return rewriter.notifyMatchFailure(op, "not erf on f32, bf16 or f16");
    Location loc = op.getLoc();
    // bf16 and f16: erf of the exact f32 value, rounded once.
    Type type = original;
    Value x = op.getOperand();
    if (!getElementTypeOrSelf(original).isF32()) {
      Type f32 = rewriter.getF32Type();
      auto shaped = dyn_cast<ShapedType>(original);
      type = shaped ? shaped.clone(f32) : f32;
      x = arith::ExtFOp::create(rewriter, loc, type, x);
    }
    auto constant = [&](float value) -> Value {
      TypedAttr attr = rewriter.getF32FloatAttr(value);
      if (auto shaped = dyn_cast<ShapedType>(type))
        attr = SplatElementsAttr::get(shaped, attr);
      return arith::ConstantOp::create(rewriter, loc, attr);
    };
    // Horner's rule with one fused multiply-add per coefficient.
    auto horner = [&](ArrayRef<float> coefficients, Value t) {
      Value p = constant(coefficients.front());
      for (float c : coefficients.drop_front())
        p = math::FmaOp::create(rewriter, loc, p, t, constant(c));
      return p;
    };
    Value a = math::AbsFOp::create(rewriter, loc, x);
    // |x| < 1: erf(a) = a + a * q(a^2), exact in its leading term.
    Value q = horner(kErfSmall, arith::MulFOp::create(rewriter, loc, a, a));
    Value small = math::FmaOp::create(rewriter, loc, a, q, a);
    // 1 <= |x| < 3.925: erf(a) = 1 - erfc(a).
    Value e = horner(kErfcLarge, arith::SubFOp::create(rewriter, loc, a,
                                                       constant(kErfcCenter)));
    Value large = arith::SubFOp::create(rewriter, loc, constant(1.0f), e);
    // NaN compares false twice and keeps the large branch's NaN.
    Value isSmall = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OLT, a, constant(1.0f));
    Value r = arith::SelectOp::create(rewriter, loc, isSmall, small, large);
    Value isOne = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OGE, a, constant(kErfOne));
    r = arith::SelectOp::create(rewriter, loc, isOne, constant(1.0f), r);
    Value y = math::CopySignOp::create(rewriter, loc, r, x);
    if (type != original)
      y = arith::TruncFOp::create(rewriter, loc, original, y);
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct FP8ExpandMathPass
    : public fp8::impl::FP8ExpandMathBase<FP8ExpandMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandMathPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::fp8::populateExpandMathPatterns(RewritePatternSet &patterns,
                                           PatternBenefit benefit) {
  patterns.add<ExpandErf>(patterns.getContext(), benefit);
}
