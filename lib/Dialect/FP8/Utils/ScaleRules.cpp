//===- ScaleRules.cpp - The scale rules as scalar IR ----------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Utils/ScaleRules.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// A few f32/i32 scalar builders.
struct Scalar {
  OpBuilder &b;
  Location loc;

  Value f32(float value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  Value i32(int32_t value) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  }
  Value bits(Value x) {
    return arith::BitcastOp::create(b, loc, b.getI32Type(), x);
  }
  Value fromBits(Value x) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), x);
  }
  Value cmpf(arith::CmpFPredicate pred, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, pred, x, y);
  }
  Value cmpi(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value divf(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value subi(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value shli(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shrui(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value clamp(Value x, int32_t lo, int32_t hi) {
    return arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, x, i32(lo)), i32(hi));
  }
  /// The biased exponent field of an f32 value.
  Value exponentField(Value x) {
    return andI(shrui(bits(x), i32(23)), i32(0xFF));
  }
  Value extf(Value x) {
    return arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  }
};

} // namespace

Value mlir::fp8::emitReciprocal(OpBuilder &b, Location loc, Value x) {
  Scalar s{b, loc};
  return s.divf(s.f32(1.0f), x);
}

Value mlir::fp8::emitRatioScale(OpBuilder &b, Location loc, Value amax,
                                float fmax, int32_t margin,
                                const llvm::APFloat &eps, bool truncateToPow2) {
  Scalar s{b, loc};
  using P = arith::CmpFPredicate;
  Value a = amax;
  if (!eps.isZero()) {
    // amax <= eps is false for NaN, which then still gives s = 1 below.
    Value epsValue = s.f32(eps.convertToFloat());
    a = s.select(s.cmpf(P::OLE, a, epsValue), epsValue, a);
  }
  Value inf = s.f32(INFINITY);
  Value q = s.divf(s.f32(fmax), a);
  if (margin != 0)
    q = s.mulf(q, s.f32(std::ldexp(1.0f, -margin)));
  q = s.select(s.cmpf(P::OEQ, q, inf), s.f32(FLT_MAX), q);
  Value special =
      s.orI(s.orI(s.cmpf(P::OEQ, a, s.f32(0.0f)), s.cmpf(P::OEQ, a, inf)),
            s.cmpf(P::UNO, a, a));
  Value scale = s.select(special, s.f32(1.0f), q);
  if (!truncateToPow2)
    return scale;
  // Truncate the mantissa: a float log2 would round 7.9999995 up to 8.
  return s.fromBits(s.andI(s.bits(scale), s.i32(int32_t(0xFF800000u))));
}

Value mlir::fp8::emitPow2BiasScale(OpBuilder &b, Location loc, Value amax,
                                   float fmax) {
  Scalar s{b, loc};
  Value q = s.divf(s.f32(fmax), amax);
  // floor(log2(q)) from the exponent bits; an infinite q (amax 0) clamps to
  // 31, a zero or subnormal q to -31.
  Value exponent = s.subi(s.exponentField(q), s.i32(127));
  Value isInf = s.cmpf(arith::CmpFPredicate::OEQ, q, s.f32(INFINITY));
  exponent = s.select(isInf, s.i32(31), s.clamp(exponent, -31, 31));
  Value scale = s.fromBits(s.shli(s.addi(exponent, s.i32(127)), s.i32(23)));
  return s.select(s.cmpf(arith::CmpFPredicate::UNO, amax, amax), s.f32(1.0f),
                  scale);
}

Value mlir::fp8::emitE8M0Scale(OpBuilder &b, Location loc, Value amax,
                               ScaleRuleKind kind, Format format) {
  Scalar s{b, loc};
  const FormatInfo &info = getFormatInfo(format);
  Type e8m0 = Float8E8M0FNUType::get(b.getContext());
  if (kind == ScaleRuleKind::E8M0RCeil) {
    // v = fl32(amax * fl32(1 / fmax)), rounded up to a power of two; the
    // saturating conversion maps +inf to 254 and NaN to 255.
    Value v = s.mulf(amax, s.f32(1.0f / info.maxFinite));
    return ConvertOp::create(b, loc, e8m0, v, Rounding::RCeil,
                             Overflow::Saturate);
  }
  assert(kind == ScaleRuleKind::E8M0Floor && "not an E8M0 rule");
  // e = floor(log2(amax)) - emax + 127 = exponent field - emax, clamped to
  // [0, 254]; a non-finite amax gives 255.
  Value field = s.exponentField(amax);
  Value code = s.clamp(s.subi(field, s.i32(info.emax)), 0, 254);
  code = s.select(s.cmpi(arith::CmpIPredicate::eq, field, s.i32(255)),
                  s.i32(255), code);
  Value byte = arith::TruncIOp::create(b, loc, b.getI8Type(), code);
  return arith::BitcastOp::create(b, loc, e8m0, byte);
}

Value mlir::fp8::emitNVFP4GlobalScale(OpBuilder &b, Location loc,
                                      Value globalAmax) {
  Scalar s{b, loc};
  using P = arith::CmpFPredicate;
  float fmax = getFormatInfo(Format::E4M3).maxFinite *
               getFormatInfo(Format::E2M1).maxFinite;
  Value q = arith::MinNumFOp::create(b, loc, s.divf(s.f32(fmax), globalAmax),
                                     s.f32(FLT_MAX));
  Value zero = s.f32(0.0f);
  Value degenerate =
      s.orI(s.cmpf(P::OEQ, globalAmax, zero), s.cmpf(P::OEQ, q, zero));
  return s.select(degenerate, s.f32(1.0f), q);
}

Value mlir::fp8::emitNVFP4BlockScale(OpBuilder &b, Location loc,
                                     Value blockAmax, Value globalScale) {
  Scalar s{b, loc};
  float inverseFmax = 1.0f / getFormatInfo(Format::E2M1).maxFinite;
  Value v = s.mulf(blockAmax, s.mulf(globalScale, s.f32(inverseFmax)));
  return ConvertOp::create(b, loc, Float8E4M3FNType::get(b.getContext()), v,
                           Rounding::RNE, Overflow::Saturate);
}

Value mlir::fp8::emitScaleRule(OpBuilder &b, Location loc, ScaleRuleAttr rule,
                               Format format, Value amax, Value globalScale) {
  float fmax = getFormatInfo(format).maxFinite;
  switch (rule.getKind()) {
  case ScaleRuleKind::Ratio:
  case ScaleRuleKind::Pow2:
    return emitRatioScale(b, loc, amax, fmax, rule.getMargin(), rule.getEps(),
                          rule.getKind() == ScaleRuleKind::Pow2);
  case ScaleRuleKind::Pow2Bias:
    return emitPow2BiasScale(b, loc, amax, fmax);
  case ScaleRuleKind::E8M0RCeil:
  case ScaleRuleKind::E8M0Floor:
    return emitE8M0Scale(b, loc, amax, rule.getKind(), format);
  case ScaleRuleKind::NVFP4:
    return globalScale ? emitNVFP4BlockScale(b, loc, amax, globalScale)
                       : emitNVFP4GlobalScale(b, loc, amax);
  case ScaleRuleKind::Static:
    break;
  }
  llvm_unreachable("static scales are never computed");
}

/// The f32 multiplier 2^(e - 127) (decode) or 2^(127 - e) (encode) of an
/// E8M0 scale with code e; NaN for the NaN code 0xFF. 2^-127 is the f32
/// subnormal 0x00400000.
static Value e8m0Multiplier(Scalar &s, Value scale, bool encode) {
  using P = arith::CmpIPredicate;
  Value byte = arith::BitcastOp::create(s.b, s.loc, s.b.getI8Type(), scale);
  Value code = arith::ExtUIOp::create(s.b, s.loc, s.b.getI32Type(), byte);
  Value exponent = encode ? s.subi(s.i32(254), code) : code; // biased
  Value normal = s.fromBits(s.shli(exponent, s.i32(23)));
  Value tiny = s.fromBits(s.i32(0x00400000));
  Value m = s.select(s.cmpi(P::eq, exponent, s.i32(0)), tiny, normal);
  return s.select(s.cmpi(P::eq, code, s.i32(255)), s.f32(NAN), m);
}

Value mlir::fp8::emitEncodeMultiplier(OpBuilder &b, Location loc, Value scale,
                                      Value globalScale) {
  Scalar s{b, loc};
  Type type = scale.getType();
  if (type.isF32())
    return scale;
  if (isa<Float8E8M0FNUType>(type))
    return e8m0Multiplier(s, scale, /*encode=*/true);
  assert(isa<Float8E4M3FNType>(type) && globalScale &&
         "E4M3 block scales come with a global scale");
  Value d = s.mulf(s.extf(scale), emitReciprocal(b, loc, globalScale));
  return arith::MinNumFOp::create(b, loc, emitReciprocal(b, loc, d),
                                  s.f32(FLT_MAX));
}

Value mlir::fp8::emitEncodeProduct(OpBuilder &b, Location loc, Value x,
                                   Value m) {
  using P = arith::CmpFPredicate;
  Scalar s{b, loc};
  Value product = s.mulf(x, m);
  Value signedNaN = math::CopySignOp::create(b, loc, s.f32(NAN), x);
  Value elementNaN = s.select(s.cmpf(P::UNO, x, x), x, signedNaN);
  return s.select(s.cmpf(P::UNO, product, product), elementNaN, product);
}

Value mlir::fp8::emitDecodeMultiplier(OpBuilder &b, Location loc, Value scale,
                                      Value globalScale) {
  Scalar s{b, loc};
  Type type = scale.getType();
  if (type.isF32())
    return scale;
  if (isa<Float8E8M0FNUType>(type))
    return e8m0Multiplier(s, scale, /*encode=*/false);
  assert(isa<Float8E4M3FNType>(type) && globalScale &&
         "E4M3 block scales come with a global scale");
  return s.mulf(s.extf(scale), globalScale);
}

//===----------------------------------------------------------------------===//
// Dynamic range expansion
//===----------------------------------------------------------------------===//

/// emitDynamicExpansion's loop: min(|j|, steps) squarings of each of `ys`
/// where j > 0 (or j < 0 with `inverse`), else as many square roots.
static SmallVector<Value> emitExpansionLoop(OpBuilder &b, Location loc,
                                            ValueRange ys, Value j,
                                            int64_t steps, bool inverse) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  Value wide = arith::ExtSIOp::create(b, loc, i32, j);
  Value magnitude = arith::MaxSIOp::create(
      b, loc, wide, arith::SubIOp::create(b, loc, constant(0), wide));
  Value count = arith::MinSIOp::create(b, loc, magnitude, constant(steps));
  Value square = arith::CmpIOp::create(
      b, loc, inverse ? arith::CmpIPredicate::slt : arith::CmpIPredicate::sgt,
      wide, constant(0));
  auto repeat = [&](bool squaring) {
    return [&, squaring](OpBuilder &nb, Location nloc) {
      auto loop = scf::ForOp::create(
          nb, nloc, constant(0), count, constant(1), ys,
          [&](OpBuilder &lb, Location lloc, Value, ValueRange carried) {
            SmallVector<Value> next;
            for (Value v : carried)
              next.push_back(squaring
                                 ? Value(arith::MulFOp::create(lb, lloc, v, v))
                                 : Value(math::SqrtOp::create(lb, lloc, v)));
            scf::YieldOp::create(lb, lloc, next);
          });
      scf::YieldOp::create(nb, nloc, loop.getResults());
    };
  };
  return scf::IfOp::create(b, loc, square, repeat(true), repeat(false))
      .getResults();
}

SmallVector<Value> mlir::fp8::emitDynamicExpansion(OpBuilder &b, Location loc,
                                                   ValueRange ys, Value j,
                                                   int64_t steps, bool inverse,
                                                   ExpansionSteps how) {
  if (how == ExpansionSteps::Looped)
    return emitExpansionLoop(b, loc, ys, j, steps, inverse);
  SmallVector<Value> results(ys);
  for (int64_t i = 1; i <= steps; ++i) {
    Value up = arith::ConstantIntOp::create(b, loc, b.getI8Type(), i);
    Value down = arith::ConstantIntOp::create(b, loc, b.getI8Type(), -i);
    Value positive =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, up);
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, j, down);
    for (Value &y : results) {
      Value square = arith::MulFOp::create(b, loc, y, y);
      Value root = math::SqrtOp::create(b, loc, y);
      y = arith::SelectOp::create(b, loc, positive, inverse ? root : square, y);
      y = arith::SelectOp::create(b, loc, negative, inverse ? square : root, y);
    }
  }
  return results;
}

Value mlir::fp8::emitDynamicExpansion(OpBuilder &b, Location loc, Value y,
                                      Value j, int64_t steps, bool inverse,
                                      ExpansionSteps how) {
  return emitDynamicExpansion(b, loc, ValueRange{y}, j, steps, inverse, how)
      .front();
}

/// Whether a candidate exponent whose expansion of the group's ratio is
/// `expanded` passes: fl32(expanded * target) >= 1.
static Value emitPasses(Scalar &s, Value expanded, Value target) {
  return s.cmpf(arith::CmpFPredicate::OGE, s.mulf(expanded, target),
                s.f32(1.0f));
}

/// emitExpansionExponent's candidates from `c` < 0 down by branches: `c` if
/// E_c(ratio), the square root of `y` = E_(c+1)(ratio), passes, else the
/// next below; -limit, which is not tried, if none passes.
static Value emitRootCandidates(Scalar &s, Value y, Value target, int64_t c,
                                int64_t limit) {
  Type i8 = s.b.getI8Type();
  if (c == -limit)
    return arith::ConstantIntOp::create(s.b, s.loc, i8, c);
  Value root = math::SqrtOp::create(s.b, s.loc, y);
  auto op = scf::IfOp::create(
      s.b, s.loc, emitPasses(s, root, target),
      [&](OpBuilder &nb, Location nloc) {
        scf::YieldOp::create(
            nb, nloc,
            ValueRange{arith::ConstantIntOp::create(nb, nloc, i8, c)});
      },
      [&](OpBuilder &nb, Location nloc) {
        Scalar inner{nb, nloc};
        scf::YieldOp::create(
            nb, nloc,
            ValueRange{emitRootCandidates(inner, root, target, c - 1, limit)});
      });
  return op.getResult(0);
}

/// The exponent of a group with `ratio` = amin / amax > 0, every candidate's
/// expansion computed (c f32 squarings, or -c square roots, each from its
/// neighbour nearer 0 by one step more) and the last passing one selected.
static Value emitSelectedExponent(Scalar &s, Value ratio, Value target,
                                  int64_t limit) {
  Type i8 = s.b.getI8Type();
  SmallVector<Value> expanded(2 * limit + 1);
  expanded[limit] = ratio;
  for (int64_t c = 1; c <= limit; ++c) {
    Value up = expanded[limit + c - 1];
    expanded[limit + c] = s.mulf(up, up);
    expanded[limit - c] =
        math::SqrtOp::create(s.b, s.loc, expanded[limit - c + 1]);
  }
  Value j = arith::ConstantIntOp::create(s.b, s.loc, i8, -limit);
  for (int64_t candidate = -limit + 1; candidate <= limit; ++candidate)
    j = s.select(emitPasses(s, expanded[limit + candidate], target),
                 arith::ConstantIntOp::create(s.b, s.loc, i8, candidate), j);
  return j;
}

/// emitSelectedExponent's result with the squarings (cheap) in line and the
/// square roots only when 0 fails, each candidate's only when the one above
/// it failed (limit > 0). When 0 passes, the last passing candidate is at
/// least 0; below 0 the first passing one from above is the largest.
static Value emitBranchedExponent(Scalar &s, Value ratio, Value target,
                                  int64_t limit) {
  Type i8 = s.b.getI8Type();
  Value j = arith::ConstantIntOp::create(s.b, s.loc, i8, 0);
  Value up = ratio;
  for (int64_t candidate = 1; candidate <= limit; ++candidate) {
    up = s.mulf(up, up);
    j = s.select(emitPasses(s, up, target),
                 arith::ConstantIntOp::create(s.b, s.loc, i8, candidate), j);
  }
  auto below = scf::IfOp::create(
      s.b, s.loc, emitPasses(s, ratio, target),
      [&](OpBuilder &nb, Location nloc) {
        scf::YieldOp::create(nb, nloc, ValueRange{j});
      },
      [&](OpBuilder &nb, Location nloc) {
        Scalar inner{nb, nloc};
        scf::YieldOp::create(
            nb, nloc,
            ValueRange{emitRootCandidates(inner, ratio, target, -1, limit)});
      });
  return below.getResult(0);
}

Value mlir::fp8::emitExpansionExponent(OpBuilder &b, Location loc, Value amax,
                                       Value amin, float fmax, int64_t limit,
                                       ExpansionSteps how) {
  // Expansion is monotone in j (a squaring of a value at most 1 is at most
  // it, a square root at least it, and so are their roundings), so the
  // candidates that pass are those up to the exponent: the last passing
  // candidate in ascending order.
  Scalar s{b, loc};
  Value ratio = s.divf(amin, amax);
  Value target = s.f32(fmax * fmax / 2);
  Value j = how == ExpansionSteps::Looped && limit > 0
                ? emitBranchedExponent(s, ratio, target, limit)
                : emitSelectedExponent(s, ratio, target, limit);
  Value empty = s.cmpf(arith::CmpFPredicate::OEQ, amax, s.f32(0.0f));
  return s.select(empty, arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0),
                  j);
}

SmallVector<Value> mlir::fp8::emitExpandScaled(OpBuilder &b, Location loc,
                                               ValueRange xs, Value amax,
                                               Value j, float fmax,
                                               int64_t limit,
                                               ExpansionSteps how) {
  Scalar s{b, loc};
  Value zero = s.f32(0.0f);
  SmallVector<Value> ys;
  for (Value x : xs) {
    Value magnitude = math::AbsFOp::create(b, loc, x);
    // 0 / 0 in a group of zeros would be NaN; a zero encodes as zero.
    Value isZero = s.cmpf(arith::CmpFPredicate::OEQ, magnitude, zero);
    ys.push_back(s.select(isZero, zero, s.divf(magnitude, amax)));
  }
  SmallVector<Value> scaled =
      emitDynamicExpansion(b, loc, ys, j, limit, /*inverse=*/false, how);
  for (auto [value, x] : llvm::zip_equal(scaled, xs))
    value = math::CopySignOp::create(b, loc, s.mulf(value, s.f32(fmax)), x);
  return scaled;
}

Value mlir::fp8::emitExpandEncode(OpBuilder &b, Location loc, Value x,
                                  Value amax, Value j, Type narrow,
                                  int64_t limit, ExpansionSteps how) {
  float fmax = getFormatInfo(*getFormat(narrow)).maxFinite;
  Value scaled =
      emitExpandScaled(b, loc, ValueRange{x}, amax, j, fmax, limit, how)
          .front();
  return ConvertOp::create(b, loc, narrow, scaled, Rounding::RNE,
                           Overflow::Saturate);
}

Value mlir::fp8::emitExpandDecode(OpBuilder &b, Location loc, Value q,
                                  Value amax, Value j, float fmax,
                                  ExpansionSteps how) {
  Scalar s{b, loc};
  Value magnitude = math::AbsFOp::create(b, loc, q);
  Value y = s.divf(magnitude, s.f32(fmax));
  Value restored = emitDynamicExpansion(b, loc, y, j, kMaxExpansionSteps,
                                        /*inverse=*/true, how);
  return math::CopySignOp::create(b, loc, s.mulf(restored, amax), q);
}
