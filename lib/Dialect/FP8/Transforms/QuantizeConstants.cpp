//===- QuantizeConstants.cpp - Compile-time quantization of constants -----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Evaluates fp8.amax, fp8.compute_scale, fp8.quantize and
// fp8.dynamic_quantize on constant operands with the host numerics of
// HostNumerics.h, which compute what the lowering computes at run time, and
// replaces them with constants. A frozen weight then reaches the GEMM as FP8
// codes and scales, with no quantization left at run time.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Dialect/FP8/Utils/HostNumerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8QUANTIZECONSTANTS
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

//===----------------------------------------------------------------------===//
// Tensors of host values
//===----------------------------------------------------------------------===//

/// A static-shaped tensor of f32 values (data, amaxes, f32 scales).
struct FloatTensor {
  SmallVector<int64_t> shape;
  std::vector<float> values;
};

/// A static-shaped tensor of 8-bit codes (E8M0 or E4M3 scales, narrow data).
struct CodeTensor {
  SmallVector<int64_t> shape;
  std::vector<uint8_t> codes;
};

/// The values of a float constant, widened to f32 (exactly, for f32, bf16 and
/// f16).
std::optional<FloatTensor> readFloats(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr);
  if (!dense || !dense.getType().hasStaticShape())
    return std::nullopt;
  Type element = dense.getElementType();
  if (!element.isF32() && !element.isBF16() && !element.isF16())
    return std::nullopt;
  FloatTensor result{llvm::to_vector(dense.getType().getShape()), {}};
  result.values.reserve(dense.getNumElements());
  if (element.isF32()) {
    llvm::append_range(result.values, dense.getValues<float>());
    return result;
  }
  for (APFloat value : dense.getValues<APFloat>()) {
    bool losesInfo;
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    result.values.push_back(value.convertToFloat());
  }
  return result;
}

/// The codes of an 8-bit (or narrower) float constant.
std::optional<CodeTensor> readCodes(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr);
  if (!dense || !dense.getType().hasStaticShape() ||
      dense.getElementType().getIntOrFloatBitWidth() > 8)
    return std::nullopt;
  CodeTensor result{llvm::to_vector(dense.getType().getShape()), {}};
  for (APFloat value : dense.getValues<APFloat>())
    result.codes.push_back(uint8_t(value.bitcastToAPInt().getZExtValue()));
  return result;
}

DenseElementsAttr toAttr(RankedTensorType type, ArrayRef<float> values) {
  return DenseElementsAttr::get(type, values);
}

DenseElementsAttr toAttr(RankedTensorType type, ArrayRef<uint8_t> codes) {
  // Elements narrower than a byte are stored one per byte.
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(codes.data()),
                           codes.size()));
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// For every element of data of `shape`, the linear index of its scale under
/// `granularity`.
std::vector<int64_t> scaleIndices(ArrayRef<int64_t> shape,
                                  GranularityAttr granularity) {
  SmallVector<int64_t> block = granularity.getBlockShape(shape);
  SmallVector<int64_t> scaleShape = granularity.getScaleShape(shape);
  SmallVector<int64_t> scaleStrides = stridesOf(scaleShape);
  int64_t count = ShapedType::getNumElements(shape);
  std::vector<int64_t> result(count);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t scale = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      scale += index[d] / block[d] * scaleStrides[d];
    result[linear] = scale;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return result;
}

/// The last two dimensions swapped.
template <typename T>
std::vector<T> transposeLastTwo(ArrayRef<int64_t> shape,
                                const std::vector<T> &values) {
  int64_t rank = shape.size();
  int64_t rows = shape[rank - 2], cols = shape[rank - 1];
  int64_t matrices = ShapedType::getNumElements(shape) / (rows * cols);
  std::vector<T> result(values.size());
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        result[m * rows * cols + c * rows + r] =
            values[m * rows * cols + r * cols + c];
  return result;
}

//===----------------------------------------------------------------------===//
// The ops on host values (the lowering of FP8ToLinalg, element by element)
//===----------------------------------------------------------------------===//

FloatTensor evalAmax(const FloatTensor &input, GranularityAttr granularity,
                     NanPolicy policy) {
  FloatTensor result{granularity.getScaleShape(input.shape), {}};
  result.values.assign(ShapedType::getNumElements(result.shape), 0.0f);
  std::vector<int64_t> indices = scaleIndices(input.shape, granularity);
  for (size_t i = 0; i < input.values.size(); ++i) {
    float &acc = result.values[indices[i]];
    acc = host::amaxStep(acc, input.values[i], policy);
  }
  return result;
}

/// An evaluated scale: f32 encode scales with their inverses, or codes.
struct Scales {
  FloatTensor f32, inverse;
  CodeTensor codes;
  bool isF32 = true;
};

/// compute_scale on host amaxes; `global` is NVFP4's encode scale S.
Scales evalComputeScale(const FloatTensor &amax, ScaleRuleAttr rule,
                        Format format, std::optional<float> global) {
  Scales result;
  ScaleRuleKind kind = rule.getKind();
  float eps = rule.getEps().convertToFloat();
  switch (kind) {
  case ScaleRuleKind::Ratio:
  case ScaleRuleKind::Pow2:
  case ScaleRuleKind::Pow2Bias:
  case ScaleRuleKind::NVFP4:
    if (kind != ScaleRuleKind::NVFP4 || !global) {
      result.f32.shape = result.inverse.shape = amax.shape;
      for (float a : amax.values) {
        float s = kind == ScaleRuleKind::NVFP4
                      ? host::nvfp4GlobalScale(a)
                      : host::f32Scale(kind, a, format, rule.getMargin(), eps);
        result.f32.values.push_back(s);
        result.inverse.values.push_back(host::reciprocal(s));
      }
      return result;
    }
    result.isF32 = false;
    result.codes.shape = amax.shape;
    for (float a : amax.values)
      result.codes.codes.push_back(host::nvfp4BlockScale(a, *global));
    return result;
  case ScaleRuleKind::E8M0RCeil:
  case ScaleRuleKind::E8M0Floor:
    result.isF32 = false;
    result.codes.shape = amax.shape;
    for (float a : amax.values)
      result.codes.codes.push_back(host::e8m0Scale(kind, a, format));
    return result;
  case ScaleRuleKind::Static:
    break;
  }
  llvm_unreachable("static scales are never computed");
}

/// quantize with encode scales (f32 scales or codes; `global` is S for E4M3
/// block scales).
CodeTensor evalQuantize(const FloatTensor &input, const Scales &scales,
                        std::optional<float> global,
                        GranularityAttr granularity, Format format,
                        Overflow overflow, Type scaleElement) {
  std::vector<int64_t> indices = scaleIndices(input.shape, granularity);
  CodeTensor result{input.shape, {}};
  result.codes.reserve(input.values.size());
  for (size_t i = 0; i < input.values.size(); ++i) {
    float multiplier;
    if (scales.isF32) {
      multiplier = scales.f32.values[indices[i]];
    } else {
      uint8_t code = scales.codes.codes[indices[i]];
      multiplier = isa<Float8E8M0FNUType>(scaleElement)
                       ? host::e8m0EncodeMultiplier(code)
                       : host::nvfp4EncodeMultiplier(code, *global);
    }
    result.codes.push_back(host::roundToFormat(
        host::encodeProduct(input.values[i], multiplier), format, overflow));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// The static shape of the constant `attr`, or null: what can be checked
/// before its elements are read (a splat of 2^36 elements would be expanded
/// first).
ShapedType getStaticShape(Attribute attr) {
  auto typed = dyn_cast<TypedAttr>(attr);
  auto shaped = typed ? dyn_cast<ShapedType>(typed.getType()) : nullptr;
  return shaped && shaped.hasStaticShape() ? shaped : nullptr;
}

/// Common checks: static result shapes and an element budget.
struct ConstantPattern {
  int64_t maxElements;

  bool withinBudget(ArrayRef<int64_t> shape) const {
    return ShapedType::getNumElements(shape) <= maxElements;
  }
  /// Whether the constant `attr` has a static shape within the budget.
  bool withinBudget(Attribute attr) const {
    ShapedType shaped = getStaticShape(attr);
    return shaped && withinBudget(shaped.getShape());
  }
};

Value constant(PatternRewriter &rewriter, Location loc,
               DenseElementsAttr attr) {
  return arith::ConstantOp::create(rewriter, loc, attr);
}

struct FoldConstantAmax : OpRewritePattern<AmaxOp>, ConstantPattern {
  FoldConstantAmax(MLIRContext *ctx, int64_t maxElements)
      : OpRewritePattern(ctx), ConstantPattern{maxElements} {}

  LogicalResult matchAndRewrite(AmaxOp op,
                                PatternRewriter &rewriter) const override {
    Attribute attr;
    if (!matchPattern(op.getInput(), m_Constant(&attr)))
      return failure();
    if (!withinBudget(attr))
      return failure();
    std::optional<FloatTensor> input = readFloats(attr);
    auto type = cast<RankedTensorType>(op.getType());
    if (!input || !type.hasStaticShape())
      return failure();
    FloatTensor amax = evalAmax(*input, op.getGranularity(), op.getNanPolicy());
    if (amax.shape != type.getShape())
      return failure();
    rewriter.replaceOp(
        op, constant(rewriter, op.getLoc(), toAttr(type, amax.values)));
    return success();
  }
};

/// The single f32 value of a constant single-element tensor.
std::optional<float> readSingle(Value value) {
  Attribute attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  ShapedType shaped = getStaticShape(attr);
  if (!shaped || shaped.getNumElements() != 1)
    return std::nullopt;
  std::optional<FloatTensor> tensor = readFloats(attr);
  if (!tensor || tensor->values.size() != 1)
    return std::nullopt;
  return tensor->values.front();
}

struct FoldConstantComputeScale : OpRewritePattern<ComputeScaleOp>,
                                  ConstantPattern {
  FoldConstantComputeScale(MLIRContext *ctx, int64_t maxElements)
      : OpRewritePattern(ctx), ConstantPattern{maxElements} {}

  LogicalResult matchAndRewrite(ComputeScaleOp op,
                                PatternRewriter &rewriter) const override {
    Attribute attr;
    if (!matchPattern(op.getAmax(), m_Constant(&attr)))
      return failure();
    if (!withinBudget(attr))
      return failure();
    std::optional<FloatTensor> amax = readFloats(attr);
    if (!amax)
      return failure();
    std::optional<float> global;
    if (op.getGlobalScale() && !(global = readSingle(op.getGlobalScale())))
      return failure();
    Scales scales =
        evalComputeScale(*amax, op.getRule(), op.getFormat(), global);
    auto scaleType = cast<RankedTensorType>(op.getScale().getType());
    if (!scaleType.hasStaticShape())
      return failure();
    SmallVector<Value> results;
    Location loc = op.getLoc();
    if (scales.isF32) {
      results.push_back(
          constant(rewriter, loc, toAttr(scaleType, scales.f32.values)));
      if (Value inverse = op.getScaleInv())
        results.push_back(
            constant(rewriter, loc,
                     toAttr(cast<RankedTensorType>(inverse.getType()),
                            scales.inverse.values)));
    } else {
      results.push_back(
          constant(rewriter, loc, toAttr(scaleType, scales.codes.codes)));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct FoldConstantQuantize : OpRewritePattern<QuantizeOp>, ConstantPattern {
  FoldConstantQuantize(MLIRContext *ctx, int64_t maxElements)
      : OpRewritePattern(ctx), ConstantPattern{maxElements} {}

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getRounding() != Rounding::RNE)
      return failure();
    Attribute inputAttr, scaleAttr;
    if (!matchPattern(op.getInput(), m_Constant(&inputAttr)) ||
        !matchPattern(op.getScale(), m_Constant(&scaleAttr)))
      return failure();
    if (!withinBudget(inputAttr) || !withinBudget(scaleAttr))
      return failure();
    std::optional<FloatTensor> input = readFloats(inputAttr);
    if (!input)
      return failure();
    Type scaleElement = op.getScale().getType().getElementType();
    Scales scales;
    if (scaleElement.isF32()) {
      std::optional<FloatTensor> f32 = readFloats(scaleAttr);
      if (!f32)
        return failure();
      scales.f32 = std::move(*f32);
    } else {
      std::optional<CodeTensor> codes = readCodes(scaleAttr);
      if (!codes)
        return failure();
      scales.isF32 = false;
      scales.codes = std::move(*codes);
    }
    std::optional<float> global;
    if (op.getGlobalScale() && !(global = readSingle(op.getGlobalScale())))
      return failure();
    SmallVector<int64_t> scaleShape =
        op.getGranularity().getScaleShape(input->shape);
    if ((scales.isF32 ? scales.f32.shape : scales.codes.shape) !=
        ArrayRef<int64_t>(scaleShape))
      return failure();
    auto type = cast<RankedTensorType>(op.getType());
    Format format = *getFormat(type.getElementType());
    CodeTensor data = evalQuantize(*input, scales, global, op.getGranularity(),
                                   format, op.getOverflow(), scaleElement);
    rewriter.replaceOp(
        op, constant(rewriter, op.getLoc(), toAttr(type, data.codes)));
    return success();
  }
};

struct FoldConstantDynamicQuantize : OpRewritePattern<DynamicQuantizeOp>,
                                     ConstantPattern {
  FoldConstantDynamicQuantize(MLIRContext *ctx, int64_t maxElements)
      : OpRewritePattern(ctx), ConstantPattern{maxElements} {}

  LogicalResult matchAndRewrite(DynamicQuantizeOp op,
                                PatternRewriter &rewriter) const override {
    Attribute attr;
    if (!matchPattern(op.getInput(), m_Constant(&attr)))
      return failure();
    if (!withinBudget(attr))
      return failure();
    std::optional<FloatTensor> input = readFloats(attr);
    if (!input)
      return failure();
    for (Type type : op->getResultTypes())
      if (!cast<RankedTensorType>(type).hasStaticShape())
        return failure();
    Location loc = op.getLoc();
    ScaleRuleAttr rule = op.getRule();
    Type scaleElement = op.getScale().getType().getElementType();

    // NVFP4: the global encode scale S, and its inverse as the result.
    std::optional<float> global;
    SmallVector<Value> results;
    Value globalResult;
    if (Value globalScale = op.getGlobalScale()) {
      FloatTensor all = evalAmax(
          *input, GranularityAttr::getTensor(getContext()), op.getNanPolicy());
      Scales s = evalComputeScale(all, rule, Format::E2M1, std::nullopt);
      global = s.f32.values.front();
      globalResult =
          constant(rewriter, loc,
                   toAttr(cast<RankedTensorType>(globalScale.getType()),
                          ArrayRef<float>(s.inverse.values)));
    }
    auto quantizeCopy = [&](GranularityAttr granularity,
                            RankedTensorType dataType, bool transposed,
                            RankedTensorType scaleType) {
      Format format = *getFormat(dataType.getElementType());
      FloatTensor amax = evalAmax(*input, granularity, op.getNanPolicy());
      Scales scales = evalComputeScale(amax, rule, format, global);
      CodeTensor data = evalQuantize(*input, scales, global, granularity,
                                     format, op.getOverflow(), scaleElement);
      if (!scales.isF32) {
        std::vector<uint8_t> codes = scales.codes.codes;
        if (transposed) {
          data.codes = transposeLastTwo(data.shape, data.codes);
          codes = transposeLastTwo(scales.codes.shape, codes);
        }
        results.push_back(
            constant(rewriter, loc, toAttr(dataType, data.codes)));
        results.push_back(constant(rewriter, loc, toAttr(scaleType, codes)));
        return;
      }
      std::vector<float> inverse = scales.inverse.values;
      if (transposed) {
        data.codes = transposeLastTwo(data.shape, data.codes);
        inverse = transposeLastTwo(scales.inverse.shape, inverse);
      }
      results.push_back(constant(rewriter, loc, toAttr(dataType, data.codes)));
      results.push_back(constant(rewriter, loc, toAttr(scaleType, inverse)));
    };
    quantizeCopy(op.getGranularity(), op.getData().getType(),
                 /*transposed=*/false,
                 cast<RankedTensorType>(op.getScale().getType()));
    if (globalResult)
      results.push_back(globalResult);
    if (GranularityAttr colGranularity = op.getColGranularityAttr())
      quantizeCopy(colGranularity, op.getColData().getType(),
                   op.getTransposed(),
                   cast<RankedTensorType>(op.getColScale().getType()));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Transposed copies of constant codes and scales (fp8-legalize-layout's
/// fix for a frozen weight) become constants too.
struct FoldConstantTranspose : OpRewritePattern<linalg::TransposeOp>,
                               ConstantPattern {
  FoldConstantTranspose(MLIRContext *ctx, int64_t maxElements)
      : OpRewritePattern(ctx), ConstantPattern{maxElements} {}

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    Attribute attr;
    if (!op.hasPureTensorSemantics() ||
        !matchPattern(op.getInput(), m_Constant(&attr)))
      return failure();
    auto type = cast<RankedTensorType>(op.getResult()[0].getType());
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    if (!type.hasStaticShape() || !withinBudget(type.getShape()))
      return failure();
    ArrayRef<int64_t> permutation = op.getPermutation();
    SmallVector<int64_t> inStrides = stridesOf(inputType.getShape());
    // Result element i reads input element source[i].
    int64_t count = type.getNumElements();
    std::vector<int64_t> source(count);
    SmallVector<int64_t> index(type.getRank(), 0);
    for (int64_t i = 0; i < count; ++i) {
      int64_t offset = 0;
      for (int64_t d = 0; d < type.getRank(); ++d)
        offset += index[d] * inStrides[permutation[d]];
      source[i] = offset;
      for (int64_t d = type.getRank() - 1; d >= 0; --d) {
        if (++index[d] < type.getDimSize(d))
          break;
        index[d] = 0;
      }
    }
    DenseElementsAttr result;
    if (std::optional<CodeTensor> codes = readCodes(attr)) {
      std::vector<uint8_t> moved(count);
      for (int64_t i = 0; i < count; ++i)
        moved[i] = codes->codes[source[i]];
      result = toAttr(type, moved);
    } else if (std::optional<FloatTensor> floats = readFloats(attr);
               floats && type.getElementType().isF32()) {
      std::vector<float> moved(count);
      for (int64_t i = 0; i < count; ++i)
        moved[i] = floats->values[source[i]];
      result = toAttr(type, moved);
    } else {
      return failure();
    }
    rewriter.replaceOp(op, constant(rewriter, op.getLoc(), result));
    return success();
  }
};

struct FP8QuantizeConstantsPass
    : fp8::impl::FP8QuantizeConstantsBase<FP8QuantizeConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateQuantizeConstantsPatterns(patterns, maxElements);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::fp8::populateQuantizeConstantsPatterns(RewritePatternSet &patterns,
                                                  int64_t maxElements) {
  patterns.add<FoldConstantAmax, FoldConstantComputeScale, FoldConstantQuantize,
               FoldConstantDynamicQuantize, FoldConstantTranspose>(
      patterns.getContext(), maxElements);
}
