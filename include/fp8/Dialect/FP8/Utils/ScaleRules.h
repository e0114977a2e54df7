//===- ScaleRules.h - The scale rules as scalar IR --------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Builders for the scalar arithmetic of docs/numerics.md section 4: each scale
// rule, and the per-element encode and decode multipliers of every scale
// type. They emit arith ops and fp8.convert (which lowers to integer code on
// CPUs and to cvt instructions on GPUs), so the reference lowering and the
// GPU kernels share one definition.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_UTILS_SCALERULES_H
#define FP8_DIALECT_FP8_UTILS_SCALERULES_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::fp8 {

/// `ratio`: s = fmax / max(amax, eps) * 2^-margin in f32, 1 for an amax of 0,
/// infinity or NaN, FLT_MAX where the quotient overflows. `amax` is an f32
/// scalar. With `truncateToPow2` the result's mantissa bits are cleared (the
/// `pow2` rule).
Value emitRatioScale(OpBuilder &b, Location loc, Value amax, float fmax,
                     int32_t margin, const llvm::APFloat &eps,
                     bool truncateToPow2 = false);

/// `pow2_bias`: 2^clamp(floor(log2(fl32(fmax / amax))), -31, 31) from the
/// exponent bits of the quotient; 1 for a NaN amax.
Value emitPow2BiasScale(OpBuilder &b, Location loc, Value amax, float fmax);

/// `e8m0_rceil` and `e8m0_floor` for elements of `format`: an f8E8M0FNU
/// scalar.
Value emitE8M0Scale(OpBuilder &b, Location loc, Value amax, ScaleRuleKind kind,
                    Format format);

/// `nvfp4`, first level: S = min(448 * 6 / amax, FLT_MAX), 1 when amax or S
/// is 0.
Value emitNVFP4GlobalScale(OpBuilder &b, Location loc, Value globalAmax);

/// `nvfp4`, second level: RNE_sat_e4m3(amax * fl32(S * fl32(1/6))), an
/// f8E4M3FN scalar.
Value emitNVFP4BlockScale(OpBuilder &b, Location loc, Value blockAmax,
                          Value globalScale);

/// Applies `rule` to the f32 scalar `amax` for data of `format` and returns
/// the scale with the element type the rule produces (for nvfp4: the global
/// scale without `globalScale`, the block scale with it).
Value emitScaleRule(OpBuilder &b, Location loc, ScaleRuleAttr rule,
                    Format format, Value amax, Value globalScale = {});

/// The f32 multiplier an element is encoded with (`q = RNE(fl32(x * m))`)
/// given the scale of its block: an f32 encode scale itself, 2^(127 - e) for
/// an E8M0 code e, min(1 / (float(sb) * fl32(1 / S)), FLT_MAX) for an E4M3
/// block scale with global encode scale S.
Value emitEncodeMultiplier(OpBuilder &b, Location loc, Value scale,
                           Value globalScale = {});

/// The f32 value fp8.quantize rounds for the element `x` (f32) under the
/// encode multiplier `m`: `fl32(x * m)`, except that a NaN product is the
/// element's NaN: `x` itself when it is NaN, else the quiet NaN with `x`'s
/// sign (docs/numerics.md section 2). A multiply alone may return either
/// operand's NaN, or a canonical one on GPUs.
Value emitEncodeProduct(OpBuilder &b, Location loc, Value x, Value m);

/// The f32 multiplier an element is decoded with (`x = fl32(q * d)`): an f32
/// decode scale itself, 2^(e - 127) for an E8M0 code (NaN for 0xFF), and
/// fl32(float(sb) * G) for an E4M3 block scale with global decode scale G.
Value emitDecodeMultiplier(OpBuilder &b, Location loc, Value scale,
                           Value globalScale = {});

/// fl32(1 / x).
Value emitReciprocal(OpBuilder &b, Location loc, Value x);

//===----------------------------------------------------------------------===//
// Dynamic range expansion (fp8.expand_quantize, numerics.md section 14)
//===----------------------------------------------------------------------===//

/// Exponents of fp8.expand_dequantize count as at most this many steps.
constexpr int64_t kMaxExpansionSteps = 8;

/// How a run-time exponent's steps are emitted: each step computed both ways
/// and selected, straight-line code for any `j` per element (the CPU
/// reference's loops); or a loop of `|j|` squarings or square roots, for a
/// `j` that neighbouring threads share (the lanes of a GPU warp that own a
/// group), which computes only the steps it applies. Both give the same
/// bits.
enum class ExpansionSteps { Selected, Looped };

/// `E_j(y)` (or `E_-j(y)` with `inverse`) for an i8 value `j` clamped to
/// `[-steps, steps]`, its steps emitted as `how` says.
Value emitDynamicExpansion(OpBuilder &b, Location loc, Value y, Value j,
                           int64_t steps, bool inverse,
                           ExpansionSteps how = ExpansionSteps::Selected);
/// emitDynamicExpansion of each of `ys`, values of one group (one `j`): with
/// ExpansionSteps::Looped, one loop steps them all.
SmallVector<Value> emitDynamicExpansion(OpBuilder &b, Location loc,
                                        ValueRange ys, Value j, int64_t steps,
                                        bool inverse, ExpansionSteps how);

/// A group's exponent `j` (i8) from its largest finite magnitude `amax` and
/// smallest finite nonzero one `amin` (f32, +inf when none): the largest `j`
/// in `[-limit, limit]` with `fl32(E_j(amin / amax) * fmax^2 / 2) >= 1`,
/// `-limit` if none, 0 when `amax` is 0. With ExpansionSteps::Looped (for
/// `amax` and `amin` that neighbouring threads share) the square roots
/// of the candidates below 0 are branches, taken only as far as needed: the
/// same bits.
Value emitExpansionExponent(OpBuilder &b, Location loc, Value amax, Value amin,
                            float fmax, int64_t limit,
                            ExpansionSteps how = ExpansionSteps::Selected);

/// The code of the f32 `x` in its group (`amax`, i8 exponent `j`):
/// `RNE_sat(copysign(fl32(E_j(fl32(|x| / amax)) * fmax), x))` of type
/// `narrow`, with `|x| / amax` read as 0 for a zero `x`.
Value emitExpandEncode(OpBuilder &b, Location loc, Value x, Value amax, Value j,
                       Type narrow, int64_t limit,
                       ExpansionSteps how = ExpansionSteps::Selected);
/// What emitExpandEncode rounds to the format, for each f32 of `xs` (values
/// of one group): `copysign(fl32(E_j(fl32(|x| / amax)) * fmax), x)`, NaN
/// exactly where `x` is.
SmallVector<Value> emitExpandScaled(OpBuilder &b, Location loc, ValueRange xs,
                                    Value amax, Value j, float fmax,
                                    int64_t limit, ExpansionSteps how);

/// The f32 value of a code `q` (widened to f32) in its group:
/// `copysign(fl32(E_-j(fl32(|q| / fmax)) * amax), q)`.
Value emitExpandDecode(OpBuilder &b, Location loc, Value q, Value amax, Value j,
                       float fmax,
                       ExpansionSteps how = ExpansionSteps::Selected);

} // namespace mlir::fp8

#endif // FP8_DIALECT_FP8_UTILS_SCALERULES_H
