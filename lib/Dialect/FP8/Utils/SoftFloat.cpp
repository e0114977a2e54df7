//===- SoftFloat.cpp - Float conversions as integer IR --------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Utils/SoftFloat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// How a format encodes its special values.
enum class Kind {
  IEEE,       // all-ones exponent: infinity (mantissa 0) or NaN (f16, E5M2)
  FN,         // only the all-ones magnitude is NaN, no infinity (E4M3FN)
  FiniteOnly, // no NaN, no infinity (E2M1, E2M3, E3M2)
  E8M0,       // unsigned power of two, 0xFF is NaN
};

/// The bit layout of a float format.
struct BitLayout {
  unsigned width;
  unsigned expBits;
  unsigned mantBits;
  int64_t bias;
  Kind kind;

  uint64_t magMask() const { return (uint64_t(1) << (width - 1)) - 1; }
  uint64_t mantMask() const { return (uint64_t(1) << mantBits) - 1; }
  uint64_t expAllOnes() const { return (uint64_t(1) << expBits) - 1; }
  uint64_t infBits() const { return expAllOnes() << mantBits; }
  /// The magnitude code of the largest finite value.
  uint64_t maxCode() const {
    switch (kind) {
    case Kind::IEEE:
      return infBits() - 1;
    case Kind::FN:
      return magMask() - 1;
    case Kind::FiniteOnly:
      return magMask();
    case Kind::E8M0:
      return 254;
    }
    llvm_unreachable("unknown kind");
  }
};

BitLayout describe(Type type) {
  auto floatType = cast<FloatType>(type);
  if (isa<Float8E8M0FNUType>(type))
    return {8, 8, 0, 127, Kind::E8M0};
  const llvm::fltSemantics &sem = floatType.getFloatSemantics();
  BitLayout format;
  format.width = floatType.getWidth();
  format.mantBits = llvm::APFloat::semanticsPrecision(sem) - 1;
  format.expBits = format.width - 1 - format.mantBits;
  format.bias = 1 - llvm::APFloat::semanticsMinExponent(sem);
  if (isa<Float8E4M3FNType>(type))
    format.kind = Kind::FN;
  else if (isa<Float4E2M1FNType, Float6E2M3FNType, Float6E3M2FNType>(type))
    format.kind = Kind::FiniteOnly;
  else
    format.kind = Kind::IEEE;
  return format;
}

/// Builds elementwise integer arithmetic over values shaped like a template
/// type (a scalar, vector or statically shaped tensor).
class Emitter {
public:
  Emitter(OpBuilder &builder, Location loc, Type shapeLike)
      : b(builder), loc(loc), shaped(dyn_cast<ShapedType>(shapeLike)) {}

  Type like(Type element) { return shaped ? shaped.clone(element) : element; }
  Type intType(unsigned width) { return like(b.getIntegerType(width)); }

  Value constant(unsigned width, uint64_t value) {
    Type type = intType(width);
    APInt bits(width, value);
    TypedAttr attr;
    if (shaped)
      attr = DenseElementsAttr::get(cast<ShapedType>(type), bits);
    else
      attr = b.getIntegerAttr(type, bits);
    return arith::ConstantOp::create(b, loc, attr);
  }
  /// A constant of the integer type of `like`.
  Value constantLike(Value like, uint64_t value) {
    return constant(getElementTypeOrSelf(like).getIntOrFloatBitWidth(), value);
  }

  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value bitAnd(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bitOr(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value lshr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value smax(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value smin(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value umax(Value x, Value y) { return arith::MaxUIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value orCond(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value zext(Value x, unsigned width) {
    return arith::ExtUIOp::create(b, loc, intType(width), x);
  }
  Value trunc(Value x, unsigned width) {
    return arith::TruncIOp::create(b, loc, intType(width), x);
  }
  /// Resizes an integer value to `width` bits (zero-extending or truncating).
  Value resize(Value x, unsigned width) {
    unsigned from = getElementTypeOrSelf(x).getIntOrFloatBitWidth();
    if (from == width)
      return x;
    return from < width ? zext(x, width) : trunc(x, width);
  }
  Value bitcast(Value x, Type element) {
    return arith::BitcastOp::create(b, loc, like(element), x);
  }
  Value ctlz(Value x) { return math::CountLeadingZerosOp::create(b, loc, x); }

  OpBuilder &b;
  Location loc;
  ShapedType shaped;
};

using Pred = arith::CmpIPredicate;

/// The bit pattern of `value` in the IEEE format `sem`, or 0 when it is not
/// exactly representable there.
uint64_t exactBits(const llvm::fltSemantics &sem, double value) {
  llvm::APFloat converted(value);
  bool losesInfo = false;
  llvm::APFloat::opStatus status =
      converted.convert(sem, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  if (status != llvm::APFloat::opOK || losesInfo)
    return 0;
  return converted.bitcastToAPInt().getZExtValue();
}

/// Rounds the IEEE value `input` to the signed format `dst`.
Value truncSigned(Emitter &e, Value input, const BitLayout &src,
                  const BitLayout &dst, Rounding rounding,
                  SoftOverflow overflow, Value rbits) {
  unsigned w = src.width;
  Value u = e.bitcast(input, e.b.getIntegerType(w));
  Value sign = e.lshr(u, e.constant(w, w - 1));
  Value a = e.bitAnd(u, e.constant(w, src.magMask()));
  Value isNaN = e.cmp(Pred::ugt, a, e.constant(w, src.infBits()));
  Value isInf = e.cmp(Pred::eq, a, e.constant(w, src.infBits()));
  Value one = e.constant(w, 1);
  Value random =
      rounding == Rounding::Stochastic ? e.resize(rbits, w) : Value();

  // Values from the smallest normal of `dst` up: round the mantissa, then
  // move the exponent from the source bias to the destination bias.
  unsigned shift = src.mantBits - dst.mantBits;
  Value shiftAmount = e.constant(w, shift);
  Value incNormal;
  if (random) {
    incNormal = e.bitAnd(random, e.constant(w, (uint64_t(1) << shift) - 1));
  } else {
    Value lsb = e.bitAnd(e.lshr(a, shiftAmount), one);
    incNormal = e.add(e.constant(w, (uint64_t(1) << (shift - 1)) - 1), lsb);
  }
  Value codeNormal =
      e.sub(e.lshr(e.add(a, incNormal), shiftAmount),
            e.constant(w, uint64_t(src.bias - dst.bias) << dst.mantBits));

  // Below it: denormalize the source significand by the exponent difference
  // and round. A carry into bit `mantBits` is the smallest normal code.
  Value srcExp = e.lshr(a, e.constant(w, src.mantBits));
  Value isSrcNormal = e.cmp(Pred::ne, srcExp, e.constant(w, 0));
  Value hidden =
      e.select(isSrcNormal, e.constant(w, uint64_t(1) << src.mantBits),
               e.constant(w, 0));
  Value mant = e.bitOr(e.bitAnd(a, e.constant(w, src.mantMask())), hidden);
  Value effExp = e.umax(srcExp, one);
  int64_t k = src.bias + src.mantBits + 1 - dst.bias - dst.mantBits;
  Value s = e.sub(e.constant(w, uint64_t(k)), effExp);
  s = e.smin(e.smax(s, one), e.constant(w, src.mantBits + 2));
  Value codeSub;
  if (random) {
    // Far below the smallest subnormal many bits are discarded: add the low
    // min(s, 32) bits of the random word to them (in 64 bits, so that s up to
    // 33 fits; from 33 on nothing can carry into the result).
    assert(w <= 32 && "stochastic rounding takes f32, f16 or bf16 inputs");
    Value sRaw = e.sub(e.constant(w, uint64_t(k)), effExp);
    Value s64 = e.zext(e.smin(e.smax(sRaw, one), e.constant(w, 33)), 64);
    Value one64 = e.constant(64, 1);
    Value inc = e.bitAnd(e.zext(rbits, 64), e.sub(e.shl(one64, s64), one64));
    codeSub = e.trunc(e.lshr(e.add(e.zext(mant, 64), inc), s64), w);
  } else {
    Value half = e.lshr(e.shl(one, s), one);
    Value lsb = e.bitAnd(e.lshr(mant, s), one);
    codeSub = e.lshr(e.add(mant, e.add(e.sub(half, one), lsb)), s);
  }

  uint64_t minNormal = uint64_t(src.bias + 1 - dst.bias) << src.mantBits;
  Value code = e.select(e.cmp(Pred::uge, a, e.constant(w, minNormal)),
                        codeNormal, codeSub);

  // Special values.
  uint64_t maxCode = dst.maxCode();
  uint64_t overflowCode = maxCode;
  if (overflow != SoftOverflow::Saturate) {
    if (dst.kind == Kind::IEEE)
      overflowCode = dst.infBits();
    else if (dst.kind == Kind::FN)
      overflowCode = dst.magMask();
  }
  uint64_t infCode = overflowCode;
  if (overflow == SoftOverflow::APFloat && dst.kind == Kind::FiniteOnly)
    infCode = 0; // APFloat turns infinities into zero for these formats.
  Value nanCode;
  switch (dst.kind) {
  case Kind::IEEE: {
    // APFloat keeps the top payload bits and sets the quiet bit.
    Value payload =
        e.bitAnd(e.lshr(a, shiftAmount), e.constant(w, dst.mantMask()));
    nanCode = e.bitOr(
        payload,
        e.constant(w, dst.infBits() | (uint64_t(1) << (dst.mantBits - 1))));
    break;
  }
  case Kind::FN:
    nanCode = e.constant(w, dst.magMask());
    break;
  case Kind::FiniteOnly:
    nanCode = e.constant(w, 0);
    break;
  case Kind::E8M0:
    llvm_unreachable("E8M0 is handled by truncE8M0");
  }
  Value mag = e.select(e.cmp(Pred::ugt, code, e.constant(w, maxCode)),
                       e.constant(w, overflowCode), code);
  mag = e.select(isInf, e.constant(w, infCode), mag);
  mag = e.select(isNaN, nanCode, mag);
  Value result = e.bitOr(e.shl(sign, e.constant(w, dst.width - 1)), mag);
  return e.trunc(result, dst.width);
}

/// Rounds the IEEE value `input` (f32 or f64) to f8E8M0FNU.
Value truncE8M0(Emitter &e, Value input, const BitLayout &src,
                const llvm::fltSemantics &srcSem, Rounding rounding,
                SoftOverflow overflow) {
  unsigned w = src.width;
  Value u = e.bitcast(input, e.b.getIntegerType(w));
  Value a = e.bitAnd(u, e.constant(w, src.magMask()));
  Value zero = e.constant(w, 0);
  Value isNegative =
      e.bitAnd(e.cmp(Pred::ne, e.lshr(u, e.constant(w, w - 1)), zero),
               e.cmp(Pred::ne, a, zero));
  Value isNaN = e.cmp(Pred::ugt, a, e.constant(w, src.infBits()));
  Value isInf = e.cmp(Pred::eq, a, e.constant(w, src.infBits()));
  Value isZero = e.cmp(Pred::eq, a, zero);

  // Values below 2^-126 map to code 0 (2^-127) or 1 (2^-126).
  uint64_t twoPowM126 = exactBits(srcSem, std::ldexp(1.0, -126));
  Value low = e.cmp(Pred::ult, a, e.constant(w, twoPowM126));
  Value lowCode;
  switch (rounding) {
  case Rounding::RCeil:
    lowCode =
        e.zext(e.cmp(Pred::ugt, a,
                     e.constant(w, exactBits(srcSem, std::ldexp(1.0, -127)))),
               w);
    break;
  case Rounding::RNE:
    lowCode = e.zext(
        e.cmp(Pred::uge, a,
              e.constant(w, exactBits(srcSem, 1.5 * std::ldexp(1.0, -127)))),
        w);
    break;
  default:
    lowCode = zero;
    break;
  }

  // From 2^-126 up the code is the unbiased exponent plus 127, rounded by the
  // discarded mantissa.
  Value expField = e.lshr(a, e.constant(w, src.mantBits));
  Value mant = e.bitAnd(a, e.constant(w, src.mantMask()));
  Value base = e.add(expField, e.constant(w, uint64_t(127 - src.bias)));
  Value inc = zero;
  if (rounding == Rounding::RNE)
    inc = e.bitAnd(e.lshr(mant, e.constant(w, src.mantBits - 1)),
                   e.constant(w, 1));
  else if (rounding == Rounding::RCeil)
    inc = e.zext(e.cmp(Pred::ne, mant, zero), w);
  Value code = e.add(base, inc);

  uint64_t overflowCode = overflow == SoftOverflow::Saturate ? 254 : 255;
  Value isOverflow =
      e.orCond(isInf, e.cmp(Pred::ugt, code, e.constant(w, 254)));
  Value result = e.select(isOverflow, e.constant(w, overflowCode), code);
  result = e.select(low, lowCode, result);
  result = e.select(isZero, zero, result);
  if (overflow == SoftOverflow::APFloat) {
    // APFloat encodes a negative value as its magnitude's code with bit 7
    // set, and magnitudes up to 2^-128 as 0 (bits kept for arith.truncf's
    // constant folding to agree with run time).
    uint64_t twoPowM128 = exactBits(srcSem, std::ldexp(1.0, -128));
    Value tiny = e.cmp(Pred::ule, a, e.constant(w, twoPowM128));
    Value negative = e.select(tiny, zero, e.bitOr(result, e.constant(w, 0x80)));
    result = e.select(isNegative, negative, result);
    result = e.select(isNaN, e.constant(w, 255), result);
  } else {
    result = e.select(e.orCond(isNaN, isNegative), e.constant(w, 255), result);
  }
  return e.trunc(result, 8);
}

/// Decodes a soft format, f16 or bf16 value exactly into f32 bits (i32).
Value decodeToF32Bits(Emitter &e, Value input, const BitLayout &src) {
  Value code = e.zext(e.bitcast(input, e.b.getIntegerType(src.width)), 32);
  auto c32 = [&](uint64_t value) { return e.constant(32, value); };
  if (src.kind == Kind::E8M0) {
    Value normal = e.shl(code, c32(23));
    Value result =
        e.select(e.cmp(Pred::eq, code, c32(0)), c32(0x00400000), normal);
    return e.select(e.cmp(Pred::eq, code, c32(255)), c32(0x7FC00000), result);
  }
  Value sign = e.lshr(code, c32(src.width - 1));
  Value mag = e.bitAnd(code, c32(src.magMask()));
  Value expField = e.lshr(mag, c32(src.mantBits));
  Value mant = e.bitAnd(mag, c32(src.mantMask()));
  unsigned mantShift = 23 - src.mantBits;

  Value normal =
      e.bitOr(e.shl(e.add(expField, c32(uint64_t(127 - src.bias))), c32(23)),
              e.shl(mant, c32(mantShift)));

  // Subnormals: either normal in f32 (normalize with the leading one) or
  // still subnormal there (bf16: a plain shift).
  Value subnormal;
  int64_t minSubExp = 1 - src.bias - int64_t(src.mantBits);
  if (minSubExp >= -126) {
    // Leading one at bit p of `mant`: value = 2^(p + 1 - bias - mantBits) *
    // 1.xxx, the remaining bits shifted to the top of the f32 mantissa.
    Value p = e.sub(c32(31), e.ctlz(mant));
    Value exp32 =
        e.add(p, c32(uint64_t(1 - src.bias - int64_t(src.mantBits) + 127)));
    Value frac = e.bitAnd(e.shl(mant, e.sub(c32(23), p)), c32(0x7FFFFF));
    subnormal = e.bitOr(e.shl(exp32, c32(23)), frac);
  } else {
    subnormal =
        e.shl(mant, c32(uint64_t(150 - src.bias - int64_t(src.mantBits))));
  }
  Value isSub = e.cmp(Pred::eq, expField, c32(0));
  Value bits = e.select(isSub, subnormal, normal);
  bits = e.select(e.cmp(Pred::eq, mag, c32(0)), c32(0), bits);

  // NaN keeps its payload at the top of the f32 mantissa and is quiet.
  Value nan = e.bitOr(e.shl(mant, c32(mantShift)), c32(0x7FC00000));
  if (src.kind == Kind::IEEE) {
    Value allOnes = e.cmp(Pred::eq, expField, c32(src.expAllOnes()));
    Value isInf = e.bitAnd(allOnes, e.cmp(Pred::eq, mant, c32(0)));
    bits = e.select(allOnes, e.select(isInf, c32(0x7F800000), nan), bits);
  } else if (src.kind == Kind::FN) {
    bits = e.select(e.cmp(Pred::eq, mag, c32(src.magMask())), nan, bits);
  }
  return e.bitOr(e.shl(sign, c32(31)), bits);
}

} // namespace

SmallVector<Type> mlir::fp8::getSoftFloatTypes(MLIRContext *ctx) {
  return {Float8E4M3FNType::get(ctx),  Float8E5M2Type::get(ctx),
          Float8E8M0FNUType::get(ctx), Float4E2M1FNType::get(ctx),
          Float6E2M3FNType::get(ctx),  Float6E3M2FNType::get(ctx)};
}

bool mlir::fp8::isSoftFloatType(Type elementType) {
  return llvm::is_contained(getSoftFloatTypes(elementType.getContext()),
                            elementType);
}

Value mlir::fp8::emitSoftTruncF(OpBuilder &builder, Location loc, Value input,
                                Type resultType, Rounding rounding,
                                SoftOverflow overflow, Value rbits) {
  Emitter e(builder, loc, input.getType());
  Type srcElement = getElementTypeOrSelf(input);
  Type dstElement = getElementTypeOrSelf(resultType);
  BitLayout dst = describe(dstElement);
  Value bits;
  if (dst.kind == Kind::E8M0) {
    // f16 and bf16 first widen exactly to f32; their subnormals then have
    // normal exponents.
    Type f32 = builder.getF32Type();
    Value wide = input;
    if (srcElement.getIntOrFloatBitWidth() == 16)
      wide = e.bitcast(decodeToF32Bits(e, input, describe(srcElement)), f32);
    Type wideElement = getElementTypeOrSelf(wide);
    bits = truncE8M0(e, wide, describe(wideElement),
                     cast<FloatType>(wideElement).getFloatSemantics(), rounding,
                     overflow);
  } else {
    bits = truncSigned(e, input, describe(srcElement), dst, rounding, overflow,
                       rbits);
  }
  return e.bitcast(bits, dstElement);
}

Value mlir::fp8::emitSoftExtF(OpBuilder &builder, Location loc, Value input,
                              Type resultType) {
  Emitter e(builder, loc, input.getType());
  Type dstElement = getElementTypeOrSelf(resultType);
  Type f32 = builder.getF32Type();
  Value wide = e.bitcast(
      decodeToF32Bits(e, input, describe(getElementTypeOrSelf(input))), f32);
  if (dstElement.isF32())
    return wide;
  if (dstElement.isF64())
    return arith::ExtFOp::create(builder, loc, e.like(dstElement), wide);
  // f16 and bf16 hold every soft value except large and small E8M0 scales,
  // which round as APFloat rounds them.
  Value bits = truncSigned(e, wide, describe(f32), describe(dstElement),
                           Rounding::RNE, SoftOverflow::APFloat, Value());
  return e.bitcast(bits, dstElement);
}
