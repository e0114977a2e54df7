//===- FormatInfo.h - Facts about low-precision formats ---------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Format constants (numerics.md section 1), the mapping between the Format
// enum and MLIR's builtin float types, the scale-shape arithmetic of
// granularities (section 5) and of transposed operands, and the legality of
// scale rules (section 4). These are plain functions so that verifiers, passes
// and unit tests share one copy.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_IR_FORMATINFO_H
#define FP8_DIALECT_FP8_IR_FORMATINFO_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace mlir::fp8 {

/// Constants of one element format.
struct FormatInfo {
  Format format;
  /// Exponent and explicit mantissa bits; the sign bit is always present.
  unsigned exponentBits;
  unsigned mantissaBits;
  int bias;
  /// Largest finite magnitude (448 for E4M3FN, 57344 for E5M2, 6 for E2M1,
  /// 7.5 for E2M3, 28 for E3M2).
  float maxFinite;
  /// Unbiased exponent of the largest power of two not above maxFinite; the
  /// `emax_elem` of the OCP MX floor rule.
  int emax;
  bool hasInfinity;
  bool hasNaN;

  /// Bits of one element: sign, exponent and mantissa.
  unsigned getBitWidth() const { return 1 + exponentBits + mantissaBits; }
};

/// The constants of `format`.
const FormatInfo &getFormatInfo(Format format);

/// The Format whose builtin type is `type`, if any (f8E4M3FN, f8E5M2,
/// f4E2M1FN, f6E2M3FN, f6E3M2FN).
std::optional<Format> getFormat(Type type);

/// The builtin element type of `format`.
FloatType getFormatType(MLIRContext *ctx, Format format);

/// Shape arithmetic of granularities. A block list names extents of the
/// trailing dimensions; kFullExtent spans a whole dimension; an empty list is
/// the whole-tensor granularity. Dynamic extents (ShapedType::kDynamic) of the
/// data stay dynamic where they matter.
constexpr int64_t kFullExtent = -1;

/// Block extent per dimension of data of `shape` under `block`. Requires
/// `block.size() <= shape.size()`.
llvm::SmallVector<int64_t> getBlockShape(llvm::ArrayRef<int64_t> shape,
                                         llvm::ArrayRef<int64_t> block);

/// The scale shape `ceil(shape / blockShape)` of data of `shape` under `block`.
/// Requires `block.size() <= shape.size()`.
llvm::SmallVector<int64_t> getScaleShape(llvm::ArrayRef<int64_t> shape,
                                         llvm::ArrayRef<int64_t> block);

/// `shape` with its last two extents swapped: the shape of a matrix, or of a
/// batch of matrices, stored transposed. Requires rank >= 2.
llvm::SmallVector<int64_t> getTransposedShape(llvm::ArrayRef<int64_t> shape);

/// Formats a shape as `[2, 3, ?]` for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Formats a granularity as op syntax writes it (`<1x32>`, `<tensor>`) for
/// diagnostics and remarks.
std::string formatGranularity(GranularityAttr granularity);

/// Which scale tensors a scale rule produces. `blockScaleType` is the element
/// type of the per-block scale; NVFP4 also produces a global f32 scale.
struct ScaleRuleSignature {
  Type blockScaleType;
  bool hasGlobalScale;
};

/// Checks that scale rule `kind` may quantize data of `format`. Returns the
/// reason when it may not.
std::optional<std::string> checkRuleFormat(ScaleRuleKind kind, Format format);

/// The scale signature of `kind` for data of `format` (which must be legal
/// per checkRuleFormat). Fails for `static`, which is never computed.
std::optional<ScaleRuleSignature> getRuleSignature(MLIRContext *ctx,
                                                   ScaleRuleKind kind);

/// Checks that data of element type `dataType` may be scaled by scales of
/// element type `scaleType`, with or without a global f32 scale. Returns the
/// reason when not.
std::optional<std::string> checkScaleTypes(Type dataType, Type scaleType,
                                           bool hasGlobalScale);

} // namespace mlir::fp8

#endif // FP8_DIALECT_FP8_IR_FORMATINFO_H
