//===- HostNumerics.cpp - The scaling numerics on host values -------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Every function mirrors one emitter of ScaleRules.cpp (or SoftFloat.cpp's
// conversion rules); the comments name it. Arithmetic is f32 throughout, one
// IEEE operation per IR op.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Utils/HostNumerics.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace mlir::fp8;
using llvm::APFloat;

namespace {

const llvm::fltSemantics &semanticsOf(Format format) {
  switch (format) {
  case Format::E4M3:
    return APFloat::Float8E4M3FN();
  case Format::E5M2:
    return APFloat::Float8E5M2();
  case Format::E2M1:
    return APFloat::Float4E2M1FN();
  case Format::E2M3:
    return APFloat::Float6E2M3FN();
  case Format::E3M2:
    return APFloat::Float6E3M2FN();
  }
  llvm_unreachable("unknown format");
}

uint32_t bitsOf(float x) { return llvm::bit_cast<uint32_t>(x); }
float fromBits(uint32_t bits) { return llvm::bit_cast<float>(bits); }

/// The biased exponent field of an f32 value.
int32_t exponentField(float x) { return int32_t((bitsOf(x) >> 23) & 0xFF); }

} // namespace

float host::encodeProduct(float x, float m) {
  float product = x * m;
  if (!std::isnan(product))
    return product;
  if (std::isnan(x))
    return x;
  return fromBits((bitsOf(x) & 0x80000000u) | 0x7FC00000u);
}

uint8_t host::roundToFormat(float x, Format format, Overflow overflow) {
  // numerics.md section 2, as SoftFloat's truncation: NaN keeps APFloat's
  // encoding (finite-only formats give a signed zero); beyond the largest
  // finite value, saturate clamps; nonfinite gives infinity or NaN where the
  // format has one and the largest value otherwise.
  const llvm::fltSemantics &sem = semanticsOf(format);
  APFloat value(x);
  bool negative = value.isNegative();
  APFloat largest = APFloat::getLargest(sem, negative);
  bool losesInfo;
  auto bitsIn = [&](const APFloat &v) {
    return uint8_t(v.bitcastToAPInt().getZExtValue());
  };
  const FormatInfo &info = getFormatInfo(format);
  if (!value.isNaN()) {
    bool beyond = value.isInfinity() || std::fabs(x) > info.maxFinite;
    if (beyond &&
        (overflow == Overflow::Saturate || (!info.hasInfinity && !info.hasNaN)))
      return bitsIn(largest);
  }
  value.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
  return bitsIn(value);
}

float host::decodeFormat(uint8_t code, Format format) {
  const llvm::fltSemantics &sem = semanticsOf(format);
  unsigned width = APFloat::getSizeInBits(sem);
  APFloat value(sem, llvm::APInt(width, code));
  bool losesInfo;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToFloat();
}

uint8_t host::roundToE8M0RCeil(float v) {
  // numerics.md section 2: round up when any mantissa bit is set; +inf and
  // values above 2^127 saturate to 254, NaN and negatives are 255, 0 is 0.
  if (std::isnan(v) || (std::signbit(v) && v != 0.0f))
    return 0xFF;
  if (v == 0.0f)
    return 0;
  if (std::isinf(v))
    return 0xFE;
  int exponent;
  double fraction = std::frexp(double(v), &exponent); // [0.5, 1)
  int64_t code = int64_t(exponent - 1) + 127;
  if (fraction != 0.5)
    code += 1;
  return uint8_t(std::clamp<int64_t>(code, 0, 254));
}

float host::amaxStep(float acc, float x, NanPolicy policy) {
  float magnitude = std::fabs(x);
  if (policy == NanPolicy::Propagate) {
    // arith.maximumf
    if (std::isnan(acc) || std::isnan(magnitude))
      return NAN;
    return std::max(acc, magnitude);
  }
  // arith.maxnumf
  return std::fmax(acc, magnitude);
}

float host::f32Scale(ScaleRuleKind kind, float amax, Format format,
                     int32_t margin, float eps) {
  float fmax = getFormatInfo(format).maxFinite;
  if (kind == ScaleRuleKind::Pow2Bias) {
    // emitPow2BiasScale
    float q = fmax / amax;
    int32_t exponent = std::isinf(q) && q > 0
                           ? 31
                           : std::clamp(exponentField(q) - 127, -31, 31);
    float scale = fromBits(uint32_t(exponent + 127) << 23);
    return std::isnan(amax) ? 1.0f : scale;
  }
  assert((kind == ScaleRuleKind::Ratio || kind == ScaleRuleKind::Pow2) &&
         "not an f32 scale rule");
  // emitRatioScale
  float a = amax;
  if (eps != 0.0f && a <= eps)
    a = eps;
  float q = fmax / a;
  if (margin != 0)
    q = q * std::ldexp(1.0f, -margin);
  if (q == INFINITY)
    q = FLT_MAX;
  bool special = a == 0.0f || a == INFINITY || std::isnan(a);
  float scale = special ? 1.0f : q;
  if (kind == ScaleRuleKind::Ratio)
    return scale;
  return fromBits(bitsOf(scale) & 0xFF800000u);
}

bool host::isE8M0Value(float v) {
  // 2^-127 is the one subnormal power of two E8M0 holds.
  uint32_t bits = bitsOf(v);
  int32_t field = exponentField(v);
  return bits == 0x00400000u ||
         ((bits & 0x807FFFFFu) == 0 && field >= 1 && field <= 254);
}

bool host::pow2DecodeScalesFitE8M0(Format format, int32_t margin, float eps) {
  // A zero, infinite or NaN amax gives s = 1; a tiny one the largest s,
  // 2^127, whose reciprocal 2^-127 is E8M0's smallest value.
  float smallest = f32Scale(ScaleRuleKind::Pow2, FLT_MAX, format, margin, eps);
  return smallest >= FLT_MIN;
}

int32_t host::getMaxE8M0Pow2Margin(Format format) {
  // The margin only lowers s, so the valid margins are a prefix.
  int32_t margin = -1;
  while (margin < 127 && pow2DecodeScalesFitE8M0(format, margin + 1, 0.0f))
    ++margin;
  return margin;
}

uint8_t host::e8m0Scale(ScaleRuleKind kind, float amax, Format format) {
  const FormatInfo &info = getFormatInfo(format);
  if (kind == ScaleRuleKind::E8M0RCeil)
    return roundToE8M0RCeil(amax * (1.0f / info.maxFinite));
  assert(kind == ScaleRuleKind::E8M0Floor && "not an E8M0 rule");
  int32_t field = exponentField(amax);
  if (field == 255)
    return 0xFF;
  return uint8_t(std::clamp(field - info.emax, 0, 254));
}

float host::nvfp4GlobalScale(float globalAmax) {
  // emitNVFP4GlobalScale: minnumf ignores a NaN quotient.
  float fmax = getFormatInfo(Format::E4M3).maxFinite *
               getFormatInfo(Format::E2M1).maxFinite;
  float q = std::fmin(fmax / globalAmax, FLT_MAX);
  if (globalAmax == 0.0f || q == 0.0f)
    return 1.0f;
  return q;
}

uint8_t host::nvfp4BlockScale(float blockAmax, float globalScale) {
  float inverseFmax = 1.0f / getFormatInfo(Format::E2M1).maxFinite;
  float v = blockAmax * (globalScale * inverseFmax);
  return roundToFormat(v, Format::E4M3, Overflow::Saturate);
}

float host::e8m0EncodeMultiplier(uint8_t code) {
  if (code == 0xFF)
    return NAN;
  uint32_t exponent = 254u - code;
  return exponent == 0 ? fromBits(0x00400000u) : fromBits(exponent << 23);
}

float host::nvfp4EncodeMultiplier(uint8_t blockScale, float globalScale) {
  float d = decodeFormat(blockScale, Format::E4M3) * reciprocal(globalScale);
  return std::fmin(reciprocal(d), FLT_MAX);
}

float host::reciprocal(float x) { return 1.0f / x; }
