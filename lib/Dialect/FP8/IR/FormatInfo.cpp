//===- FormatInfo.cpp - Facts about low-precision formats -----------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FormatInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fp8;

const FormatInfo &mlir::fp8::getFormatInfo(Format format) {
  // Values from numerics.md section 1; emax is floor(log2(maxFinite)).
  static const FormatInfo infos[] = {
      {Format::E4M3, 4, 3, 7, 448.0f, 8, /*inf=*/false, /*nan=*/true},
      {Format::E5M2, 5, 2, 15, 57344.0f, 15, /*inf=*/true, /*nan=*/true},
      {Format::E2M1, 2, 1, 1, 6.0f, 2, /*inf=*/false, /*nan=*/false},
      {Format::E2M3, 2, 3, 1, 7.5f, 2, /*inf=*/false, /*nan=*/false},
      {Format::E3M2, 3, 2, 3, 28.0f, 4, /*inf=*/false, /*nan=*/false},
  };
  const FormatInfo &info = infos[static_cast<unsigned>(format)];
  assert(info.format == format && "format table out of order");
  return info;
}

std::optional<Format> mlir::fp8::getFormat(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Format::E4M3;
  if (isa<Float8E5M2Type>(type))
    return Format::E5M2;
  if (isa<Float4E2M1FNType>(type))
    return Format::E2M1;
  if (isa<Float6E2M3FNType>(type))
    return Format::E2M3;
  if (isa<Float6E3M2FNType>(type))
    return Format::E3M2;
  return std::nullopt;
}

FloatType mlir::fp8::getFormatType(MLIRContext *ctx, Format format) {
  switch (format) {
  case Format::E4M3:
    return Float8E4M3FNType::get(ctx);
  case Format::E5M2:
    return Float8E5M2Type::get(ctx);
  case Format::E2M1:
    return Float4E2M1FNType::get(ctx);
  case Format::E2M3:
    return Float6E2M3FNType::get(ctx);
  case Format::E3M2:
    return Float6E3M2FNType::get(ctx);
  }
  llvm_unreachable("unknown format");
}

SmallVector<int64_t> mlir::fp8::getBlockShape(ArrayRef<int64_t> shape,
                                              ArrayRef<int64_t> block) {
  assert(block.size() <= shape.size() && "granularity does not fit the rank");
  if (block.empty())
    return SmallVector<int64_t>(shape);
  SmallVector<int64_t> result(shape.size(), 1);
  size_t lead = shape.size() - block.size();
  for (auto [i, extent] : llvm::enumerate(block))
    result[lead + i] = extent == kFullExtent ? shape[lead + i] : extent;
  return result;
}

SmallVector<int64_t> mlir::fp8::getScaleShape(ArrayRef<int64_t> shape,
                                              ArrayRef<int64_t> block) {
  assert(block.size() <= shape.size() && "granularity does not fit the rank");
  SmallVector<int64_t> result(shape.size(), 1);
  if (block.empty())
    return result;
  size_t lead = shape.size() - block.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t extent = i < lead ? 1 : block[i - lead];
    if (extent == kFullExtent)
      continue;
    result[i] = ShapedType::isDynamic(shape[i])
                    ? ShapedType::kDynamic
                    : llvm::divideCeil(shape[i], extent);
  }
  return result;
}

SmallVector<int64_t> mlir::fp8::getTransposedShape(ArrayRef<int64_t> shape) {
  assert(shape.size() >= 2 && "a transpose needs two dimensions");
  SmallVector<int64_t> result(shape);
  std::swap(result[result.size() - 1], result[result.size() - 2]);
  return result;
}

std::string mlir::fp8::formatShape(ArrayRef<int64_t> shape) {
  std::string str;
  llvm::raw_string_ostream os(str);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t dim) {
    if (ShapedType::isDynamic(dim))
      os << '?';
    else
      os << dim;
  });
  os << ']';
  return str;
}

std::optional<std::string> mlir::fp8::checkRuleFormat(ScaleRuleKind kind,
                                                      Format format) {
  switch (kind) {
  case ScaleRuleKind::NVFP4:
    if (format != Format::E2M1)
      return std::string("the nvfp4 rule quantizes e2m1 (f4E2M1FN) data only, "
                         "not ") +
             stringifyFormat(format).str();
    return std::nullopt;
  case ScaleRuleKind::Static:
    return std::string("the static rule is a compile-time constant scale; "
                       "materialize it with arith.constant instead of "
                       "computing it");
  case ScaleRuleKind::Ratio:
  case ScaleRuleKind::Pow2:
  case ScaleRuleKind::E8M0RCeil:
  case ScaleRuleKind::E8M0Floor:
  case ScaleRuleKind::Pow2Bias:
    return std::nullopt;
  }
  llvm_unreachable("unknown scale rule");
}

std::optional<ScaleRuleSignature>
mlir::fp8::getRuleSignature(MLIRContext *ctx, ScaleRuleKind kind) {
  switch (kind) {
  case ScaleRuleKind::Ratio:
  case ScaleRuleKind::Pow2:
  case ScaleRuleKind::Pow2Bias:
    return ScaleRuleSignature{Float32Type::get(ctx), false};
  case ScaleRuleKind::E8M0RCeil:
  case ScaleRuleKind::E8M0Floor:
    return ScaleRuleSignature{Float8E8M0FNUType::get(ctx), false};
  case ScaleRuleKind::NVFP4:
    return ScaleRuleSignature{Float8E4M3FNType::get(ctx), true};
  case ScaleRuleKind::Static:
    return std::nullopt;
  }
  llvm_unreachable("unknown scale rule");
}

std::optional<std::string>
mlir::fp8::checkScaleTypes(Type dataType, Type scaleType, bool hasGlobalScale) {
  if (isa<Float8E4M3FNType>(scaleType)) {
    if (!isa<Float4E2M1FNType>(dataType))
      return std::string("f8E4M3FN block scales (NVFP4) scale f4E2M1FN data "
                         "only; use f32 or f8E8M0FNU scales for this format");
    if (!hasGlobalScale)
      return std::string("f8E4M3FN block scales (NVFP4) need the global f32 "
                         "scale operand `global(...)`");
    return std::nullopt;
  }
  if (hasGlobalScale)
    return std::string("a global scale is only used with f8E4M3FN block "
                       "scales (NVFP4); remove it or use f8E4M3FN scales");
  if (isa<Float32Type, Float8E8M0FNUType>(scaleType))
    return std::nullopt;
  return std::string("scales must be f32, f8E8M0FNU or f8E4M3FN");
}

std::string mlir::fp8::formatGranularity(GranularityAttr granularity) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << granularity;
  StringRef view = text;
  view.consume_front("#fp8.granularity");
  return view.str();
}
