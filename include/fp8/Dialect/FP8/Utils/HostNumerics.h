//===- HostNumerics.h - The scaling numerics on host values ----*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// docs/numerics.md evaluated on host floats, for compile-time evaluation
// (constant weights quantized by fp8-quantize-constants). Each function
// computes exactly what the IR of ScaleRules.h and the lowering of the fp8
// ops computes at run time: the same f32 operations in the same order, so
// folded and run-time results are bit-identical (checked by the unit tests
// and by test/Execution/QuantizeConstants).
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_UTILS_HOSTNUMERICS_H
#define FP8_DIALECT_FP8_UTILS_HOSTNUMERICS_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "llvm/ADT/APFloat.h"

#include <cstdint>

namespace mlir::fp8::host {

/// The code of the f32 value `x` in `format` (round to nearest even) under
/// `overflow` (numerics.md section 2).
uint8_t roundToFormat(float x, Format format, Overflow overflow);

/// What fp8.quantize rounds for the element `x` under the encode multiplier
/// `m`: `fl32(x * m)`, a NaN product being the element's NaN (`x` when it is
/// NaN, else the quiet NaN with `x`'s sign; numerics.md section 2).
float encodeProduct(float x, float m);

/// The f32 value of `code` in `format`.
float decodeFormat(uint8_t code, Format format);

/// The E8M0 code of the f32 value `v` rounded up (rceil) and saturated: what
/// `fp8.convert rounding <rceil> overflow <saturate>` gives.
uint8_t roundToE8M0RCeil(float v);

/// One step of an amax reduction: max(acc, |x|), skipping NaN elements
/// (`ignore`) or propagating them (`propagate`).
float amaxStep(float acc, float x, NanPolicy policy);

/// An f32 scale rule (ratio, pow2, pow2_bias) on an amax: the encode scale.
float f32Scale(ScaleRuleKind kind, float amax, Format format, int32_t margin,
               float eps);

/// Whether `v` is a value of E8M0: 2^e for e from -127 to 127.
bool isE8M0Value(float v);

/// Whether every decode scale 1/s that rule pow2 (with `margin` and `eps`)
/// gives for `format`, whatever the amax, is a power of two from 2^-127 to
/// 2^126, which E8M0 holds exactly. s falls as the amax grows, so it is
/// smallest at the largest finite amax; a margin that makes that s subnormal
/// truncates it to 0, whose reciprocal is infinite.
bool pow2DecodeScalesFitE8M0(Format format, int32_t margin, float eps);

/// The largest margin for which pow2DecodeScalesFitE8M0 holds (eps 0), or
/// -1 when none does.
int32_t getMaxE8M0Pow2Margin(Format format);

/// An E8M0 scale rule (e8m0_rceil, e8m0_floor) on an amax: the scale code.
uint8_t e8m0Scale(ScaleRuleKind kind, float amax, Format format);

/// NVFP4's global encode scale S from the tensor's amax.
float nvfp4GlobalScale(float globalAmax);

/// NVFP4's E4M3 block scale code from a block amax and S.
uint8_t nvfp4BlockScale(float blockAmax, float globalScale);

/// The f32 multiplier that encodes with an E8M0 scale code: 2^(127 - e).
float e8m0EncodeMultiplier(uint8_t code);

/// The f32 multiplier that encodes with an NVFP4 block scale code under the
/// global encode scale S: min(1 / (float(sb) * (1/S)), FLT_MAX).
float nvfp4EncodeMultiplier(uint8_t blockScale, float globalScale);

/// 1/x rounded to f32.
float reciprocal(float x);

} // namespace mlir::fp8::host

#endif // FP8_DIALECT_FP8_UTILS_HOSTNUMERICS_H
