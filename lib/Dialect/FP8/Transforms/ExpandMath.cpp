//===- ExpandMath.cpp - Specified expansions of math functions ------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// erf and exp as docs/numerics.md (sections 16 and 17) specifies them, and
// the other math functions (tanh, log, ...) by upstream's polynomial
// approximations (section 18), so that the CPU reference and the GPU kernels
// compute the same bits whatever libm the host has.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/bit.h"

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

// exp: (e^r - 1) / r on |r| <= ln2 / 2 as a polynomial of r, highest power
// first; log2(e), ln2 = kLn2High + kLn2Low, and the clamps of x.
constexpr float kExpPoly[] = {
    0x1.6da76p-10f, 0x1.123d92p-7f, 0x1.55547p-5f,
    0x1.55547cp-3f, 0x1p-1f,        0x1p+0f,
};
constexpr float kLog2E = 0x1.715476p+0f;
constexpr float kLn2High = 0x1.62e43p-1f;
constexpr float kLn2Low = -0x1.05c61p-29f;
constexpr float kExpLow = -104.0f;
constexpr float kExpHigh = 89.0f;
// 1.5 * 2^23: a sum with it in [2^23, 2^24) has a last place of 1.
constexpr float kRoundShift = 0x1.8p+23f;

/// Emits a specified f32 expansion for a unary math op on f32, bf16 or f16
/// (bf16 and f16: of the exact f32 value, rounded once), with helpers for
/// its constants.
template <typename MathOp>
struct ExpandUnary : OpRewritePattern<MathOp> {
  using OpRewritePattern<MathOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const final {
    Type original = op.getType();
    if (!hasExpandableShape(original) ||
        !isWideFloat(getElementTypeOrSelf(original)))
      return rewriter.notifyMatchFailure(op, "not on f32, bf16 or f16");
    Location loc = op.getLoc();
    Type type = original;
    Value x = op.getOperand();
    if (!getElementTypeOrSelf(original).isF32()) {
      Type f32 = rewriter.getF32Type();
      auto shaped = dyn_cast<ShapedType>(original);
      type = shaped ? shaped.clone(f32) : f32;
      x = arith::ExtFOp::create(rewriter, loc, type, x);
    }
    Emitter emit{rewriter, loc, type};
    Value y = expand(emit, x);
    if (type != original)
      y = arith::TruncFOp::create(rewriter, loc, original, y);
    rewriter.replaceOp(op, y);
    return success();
  }

protected:
  struct Emitter {
    PatternRewriter &rewriter;
    Location loc;
    Type type;

    /// A scalar or splat constant of `type`'s shape.
    Value constant(Attribute element) const {
      TypedAttr attr = cast<TypedAttr>(element);
      if (auto shaped = dyn_cast<ShapedType>(type))
        attr = SplatElementsAttr::get(shaped.clone(attr.getType()), attr);
      return arith::ConstantOp::create(rewriter, loc, attr);
    }
    Value f32(float value) const {
      return constant(rewriter.getF32FloatAttr(value));
    }
    Value i32(int32_t value) const {
      return constant(rewriter.getI32IntegerAttr(value));
    }
    Type i32Type() const {
      Type i32 = rewriter.getI32Type();
      auto shaped = dyn_cast<ShapedType>(type);
      return shaped ? shaped.clone(i32) : i32;
    }
    Value fma(Value a, Value b, Value c) const {
      return math::FmaOp::create(rewriter, loc, a, b, c);
    }
    /// Horner's rule with one fused multiply-add per coefficient, highest
    /// power first.
    Value horner(ArrayRef<float> coefficients, Value t) const {
      Value p = f32(coefficients.front());
      for (float c : coefficients.drop_front())
        p = fma(p, t, f32(c));
      return p;
    }
    Value select(arith::CmpFPredicate predicate, Value a, Value b, Value ifTrue,
                 Value ifFalse) const {
      Value cond = arith::CmpFOp::create(rewriter, loc, predicate, a, b);
      return arith::SelectOp::create(rewriter, loc, cond, ifTrue, ifFalse);
    }
  };

  /// The f32 result for the f32 operand `x`.
  virtual Value expand(const Emitter &emit, Value x) const = 0;
};

struct ExpandErf : ExpandUnary<math::ErfOp> {
  using ExpandUnary::ExpandUnary;

  Value expand(const Emitter &emit, Value x) const override {
    PatternRewriter &rewriter = emit.rewriter;
    Location loc = emit.loc;
    Value a = math::AbsFOp::create(rewriter, loc, x);
    // |x| < 1: erf(a) = a + a * q(a^2), exact in its leading term.
    Value q =
        emit.horner(kErfSmall, arith::MulFOp::create(rewriter, loc, a, a));
    Value small = emit.fma(a, q, a);
    // 1 <= |x| < 3.925: erf(a) = 1 - erfc(a).
    Value e =
        emit.horner(kErfcLarge, arith::SubFOp::create(rewriter, loc, a,
                                                      emit.f32(kErfcCenter)));
    Value large = arith::SubFOp::create(rewriter, loc, emit.f32(1.0f), e);
    // NaN compares false twice and keeps the large branch's NaN.
    Value r =
        emit.select(arith::CmpFPredicate::OLT, a, emit.f32(1.0f), small, large);
    r = emit.select(arith::CmpFPredicate::OGE, a, emit.f32(kErfOne),
                    emit.f32(1.0f), r);
    return math::CopySignOp::create(rewriter, loc, r, x);
  }
};

struct ExpandExp : ExpandUnary<math::ExpOp> {
  using ExpandUnary::ExpandUnary;

  Value expand(const Emitter &emit, Value x) const override {
    PatternRewriter &rewriter = emit.rewriter;
    Location loc = emit.loc;
    using P = arith::CmpFPredicate;
    // Beyond [-104, 89] the result is 0 or +inf already. NaN fails both
    // compares and goes through; its result is put back at the end, and
    // nothing on the way converts it to an integer.
    Value isNaN = arith::CmpFOp::create(rewriter, loc, P::UNO, x, x);
    Value c = emit.select(P::OLT, x, emit.f32(kExpLow), emit.f32(kExpLow), x);
    c = emit.select(P::OGT, c, emit.f32(kExpHigh), emit.f32(kExpHigh), c);
    // k = roundeven(c log2(e)), as the sum's last place: |c log2(e)| < 2^22,
    // so adding 1.5 * 2^23 rounds it to an integer (RNE), subtracting
    // again is exact, and the sum's bits hold k + 2^22 in the mantissa. No
    // float-to-integer conversion: on the GPU those share a quarter-rate
    // pipe.
    Value shifted = arith::AddFOp::create(
        rewriter, loc,
        arith::MulFOp::create(rewriter, loc, c, emit.f32(kLog2E)),
        emit.f32(kRoundShift));
    Value k =
        arith::SubFOp::create(rewriter, loc, shifted, emit.f32(kRoundShift));
    Value kInt = arith::SubIOp::create(
        rewriter, loc,
        arith::BitcastOp::create(rewriter, loc, emit.i32Type(), shifted),
        emit.i32(llvm::bit_cast<int32_t>(kRoundShift)));
    // x = k ln2 + r, |r| <= ln2 / 2 (and a little), with ln2 in two parts.
    Value r = emit.fma(k, emit.f32(-kLn2High), c);
    r = emit.fma(k, emit.f32(-kLn2Low), r);
    // e^r = 1 + r q(r).
    Value p = emit.fma(r, emit.horner(kExpPoly, r), emit.f32(1.0f));
    // p 2^k as (p 2^k1) 2^k2, k1 = floor(k / 2) (an arithmetic shift): both
    // factors are normal powers of two, the first product is exact, and the
    // second rounds once, overflow and subnormal results included.
    Value k1 = arith::ShRSIOp::create(rewriter, loc, kInt, emit.i32(1));
    Value k2 = arith::SubIOp::create(rewriter, loc, kInt, k1);
    auto pow2 = [&](Value exponent) -> Value {
      Value bits =
          arith::AddIOp::create(rewriter, loc, exponent, emit.i32(127));
      bits = arith::ShLIOp::create(rewriter, loc, bits, emit.i32(23));
      return arith::BitcastOp::create(rewriter, loc, emit.type, bits);
    };
    Value y = arith::MulFOp::create(
        rewriter, loc, arith::MulFOp::create(rewriter, loc, p, pow2(k1)),
        pow2(k2));
    return arith::SelectOp::create(rewriter, loc, isNaN, x, y);
  }
};

struct FP8ExpandMathPass
    : public fp8::impl::FP8ExpandMathBase<FP8ExpandMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateExpandMathPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
    // The functions left, on scalars and vectors (upstream's patterns build
    // their constants for those), as the GPU kernels compute them.
    SmallVector<Operation *> left;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) &&
          llvm::none_of(op->getResultTypes(), llvm::IsaPred<TensorType>))
        left.push_back(op);
    });
    RewritePatternSet approximations(&getContext());
    populateUnspecifiedMathPatterns(approximations);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(
            applyOpPatternsGreedily(left, std::move(approximations), config)))
      signalPassFailure();
  }
};

} // namespace

void mlir::fp8::populateExpandMathPatterns(RewritePatternSet &patterns,
                                           PatternBenefit benefit) {
  patterns.add<ExpandErf, ExpandExp>(patterns.getContext(), benefit);
}

void mlir::fp8::populateUnspecifiedMathPatterns(RewritePatternSet &patterns) {
  auto every = [](StringRef) { return true; };
  // On bf16 and f16: the f32 function of the exact f32 value, rounded once.
  populateMathF32ExpansionPatterns(patterns, every);
  populateMathPolynomialApproximationPatterns(patterns, every);
}
