//===- SoftFloat.h - Float conversions as integer IR ------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Emits conversions between wide floats (f16, bf16, f32, f64) and the small
// formats (f8E4M3FN, f8E5M2, f8E8M0FNU, f4E2M1FN, f6E2M3FN, f6E3M2FN) as
// integer and bit-cast arithmetic, so that any LLVM target can run them. The
// emitted IR works on scalars, vectors and tensors alike. The rounding and
// special-value rules are those of docs/numerics.md section 2 and are checked
// exhaustively against LLVM APFloat by unittests/.../SoftFloatTest.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_UTILS_SOFTFLOAT_H
#define FP8_DIALECT_FP8_UTILS_SOFTFLOAT_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::fp8 {

/// What a narrowing conversion does with values it cannot represent.
enum class SoftOverflow {
  /// LLVM APFloat, the meaning of `arith.truncf`: after rounding, E4M3FN
  /// overflow becomes NaN and E5M2 overflow infinity; finite-only formats
  /// clamp finite overflow but turn infinities and NaN into a signed zero;
  /// f8E8M0FNU overflow becomes NaN, and a negative value becomes its
  /// magnitude's code with bit 7 set (0 up to 2^-128), as APFloat has it.
  APFloat,
  /// `saturate` of the fp8 ops: finite overflow and infinities clamp to the
  /// largest finite value of the sign; NaN stays NaN (finite-only formats: a
  /// signed zero).
  Saturate,
  /// `nonfinite` of the fp8 ops: as APFloat, except that finite-only formats
  /// clamp infinities to the largest finite value.
  NonFinite,
};

/// The element types that the soft conversions produce or consume as the
/// narrow side: f8E4M3FN, f8E5M2, f8E8M0FNU, f4E2M1FN, f6E2M3FN, f6E3M2FN.
SmallVector<Type> getSoftFloatTypes(MLIRContext *ctx);

/// True for the types of getSoftFloatTypes.
bool isSoftFloatType(Type elementType);

/// Emits IR rounding `input` (element type f16, bf16, f32 or f64) to
/// `resultType`, which has the input's shape and a soft float, f16 or bf16
/// element type. `rounding` is RNE or Stochastic for signed formats (with
/// `rbits`, i32 elements, for Stochastic) and RNE, RCeil or Floor for
/// f8E8M0FNU. Stochastic rounding adds the low bits of the random word to the
/// bits the conversion discards and truncates.
Value emitSoftTruncF(OpBuilder &builder, Location loc, Value input,
                     Type resultType, Rounding rounding, SoftOverflow overflow,
                     Value rbits = {});

/// Emits IR converting `input` (a soft float element type) exactly to
/// `resultType` (same shape, element type f16, bf16, f32 or f64), with
/// APFloat's treatment of NaN payloads. f8E8M0FNU's code 0xFF becomes a quiet
/// NaN (numerics.md section 1).
Value emitSoftExtF(OpBuilder &builder, Location loc, Value input,
                   Type resultType);

} // namespace mlir::fp8

#endif // FP8_DIALECT_FP8_UTILS_SOFTFLOAT_H
