//===- FP8Ops.cpp - fp8 dialect operations --------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fp8;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

/// True if `type` is statically shaped with exactly one element (`tensor<f32>`,
/// `tensor<1xf32>`, `tensor<1x1xf32>`, ...).
static bool hasSingleElement(ShapedType type) {
  return llvm::all_of(type.getShape(), [](int64_t dim) { return dim == 1; });
}

static LogicalResult verifySingleElement(Operation *op, StringRef what,
                                         Type type) {
  if (!hasSingleElement(cast<ShapedType>(type)))
    return op->emitOpError()
           << what << " must hold exactly one element (e.g. tensor<1x1xf32>), "
           << "got " << type;
  return success();
}

static LogicalResult verifySameShape(Operation *op, StringRef what,
                                     ShapedType expected, ShapedType actual) {
  if (failed(verifyCompatibleShape(expected.getShape(), actual.getShape())))
    return op->emitOpError()
           << what << " shape " << formatShape(actual.getShape())
           << " must equal " << formatShape(expected.getShape());
  return success();
}

/// Checks that every tensor operand and result of `op` has a size in bits that
/// a 64-bit integer can count; MLIR's tensor type accepts larger shapes.
static LogicalResult verifyShapesFit(Operation *op) {
  auto check = [&](Type type) -> LogicalResult {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped)
      return success();
    int64_t bits = shaped.getElementTypeBitWidth();
    for (int64_t dim : shaped.getShape()) {
      if (ShapedType::isDynamic(dim))
        continue;
      if (llvm::MulOverflow(bits, dim, bits))
        return op->emitOpError()
               << "tensor type " << type
               << " is too large: its size in bits overflows a 64-bit "
                  "integer";
    }
    return success();
  };
  for (Type type : op->getOperandTypes())
    if (failed(check(type)))
      return failure();
  for (Type type : op->getResultTypes())
    if (failed(check(type)))
      return failure();
  return success();
}

/// Checks that the operand (or result) groups of an op with segment sizes
/// hold exactly one value where the op requires one: the generic segment
/// check only compares the sum.
template <typename OpT>
static LogicalResult verifyRequiredGroups(OpT op, ArrayRef<StringRef> operands,
                                          ArrayRef<StringRef> results = {}) {
  for (auto [i, name] : llvm::enumerate(operands))
    if (unsigned size = op.getODSOperandIndexAndLength(i).second; size != 1)
      return op.emitOpError()
             << "requires exactly one `" << name << "` operand, got " << size;
  for (auto [i, name] : llvm::enumerate(results))
    if (unsigned size = op.getODSResultIndexAndLength(i).second; size != 1)
      return op.emitOpError()
             << "requires exactly one `" << name << "` result, got " << size;
  return success();
}

/// Verifies one scaled tensor: the scale shape against the granularity, the
/// scale element type against the data element type, and the global scale.
static LogicalResult verifyScaledTensor(Operation *op, StringRef what,
                                        ShapedType data, ShapedType scale,
                                        Value globalScale,
                                        GranularityAttr granularity) {
  if (failed(granularity.verifyScaleShape([op] { return op->emitOpError(); },
                                          what, data, scale)))
    return failure();
  if (std::optional<std::string> reason = checkScaleTypes(
          data.getElementType(), scale.getElementType(), bool(globalScale)))
    return op->emitOpError() << what << ": " << *reason;
  if (globalScale)
    return verifySingleElement(op, Twine(what, " global scale").str(),
                               globalScale.getType());
  return success();
}

//===----------------------------------------------------------------------===//
// AmaxOp
//===----------------------------------------------------------------------===//

LogicalResult AmaxOp::verify() {
  if (failed(verifyShapesFit(*this)))
    return failure();
  auto inputType = getInput().getType();
  auto amaxType = getAmax().getType();
  return getGranularity().verifyScaleShape([&] { return emitOpError(); },
                                           "input", inputType, amaxType);
}

OpFoldResult AmaxOp::fold(FoldAdaptor adaptor) {
  // The amax of a splat constant is the splat's magnitude in every block.
  auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput());
  auto resultType = getAmax().getType();
  if (!splat || !resultType.hasStaticShape())
    return {};
  APFloat value = splat.getSplatValue<APFloat>();
  bool losesInfo = false;
  value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  assert(!losesInfo && "every float format widens exactly to f32");
  value.clearSign();
  if (value.isNaN() && getNanPolicy() == NanPolicy::Ignore)
    value = APFloat(0.0f);
  if (llvm::is_contained(getInput().getType().getShape(), 0))
    value = APFloat(0.0f); // Every block is empty.
  return DenseElementsAttr::get(resultType, value);
}

//===----------------------------------------------------------------------===//
// ComputeScaleOp
//===----------------------------------------------------------------------===//

LogicalResult ComputeScaleOp::verify() {
  if (failed(verifyShapesFit(*this)))
    return failure();
  ScaleRuleKind kind = getRule().getKind();
  Format format = getFormat();
  if (std::optional<std::string> reason = checkRuleFormat(kind, format))
    return emitOpError() << *reason;

  auto amaxType = getAmax().getType();
  auto scaleType = getScale().getType();
  if (failed(verifySameShape(*this, "scale", amaxType, scaleType)))
    return failure();
  if (getScaleInv() && failed(verifySameShape(*this, "scale_inv", amaxType,
                                              getScaleInv().getType())))
    return failure();

  Type expected = getRuleSignature(getContext(), kind)->blockScaleType;
  if (kind == ScaleRuleKind::NVFP4 && !getGlobalScale())
    expected = Float32Type::get(getContext());
  if (scaleType.getElementType() != expected) {
    InFlightDiagnostic diag = emitOpError()
                              << "rule " << stringifyScaleRuleKind(kind)
                              << " produces " << expected << " scales, not "
                              << scaleType.getElementType();
    if (kind == ScaleRuleKind::NVFP4)
      diag << " (with `global(...)` it computes f8E4M3FN block scales, "
              "without it the f32 global scale)";
    return diag;
  }
  if (getGlobalScale()) {
    if (kind != ScaleRuleKind::NVFP4)
      return emitOpError() << "only the nvfp4 rule takes a global scale "
                              "operand; remove `global(...)`";
    if (failed(verifySingleElement(*this, "global scale",
                                   getGlobalScale().getType())))
      return failure();
  }
  if (getScaleInv() && !isa<Float32Type>(expected))
    return emitOpError() << "scale_inv exists only for f32 scales; " << expected
                         << " scales are already decode scales";
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

LogicalResult QuantizeOp::verify() {
  if (failed(verifyRequiredGroups(*this, {"input", "scale"})))
    return failure();
  if (failed(verifyShapesFit(*this)))
    return failure();
  auto inputType = getInput().getType();
  auto outputType = getOutput().getType();
  if (failed(verifySameShape(*this, "result", inputType, outputType)))
    return failure();
  if (failed(verifyScaledTensor(*this, "input", outputType,
                                getScale().getType(), getGlobalScale(),
                                getGranularity())))
    return failure();
  if (getRounding() == Rounding::RCeil || getRounding() == Rounding::Floor)
    return emitOpError() << "rounding " << stringifyRounding(getRounding())
                         << " applies to f8E8M0FNU scales only; quantize "
                            "with rne or stochastic";
  bool stochastic = getRounding() == Rounding::Stochastic;
  if (stochastic && !getRbits())
    return emitOpError() << "stochastic rounding needs one i32 random word per "
                            "element: add `rbits(%bits : tensor<...xi32>)`";
  if (!stochastic && getRbits())
    return emitOpError() << "`rbits` is only used by stochastic rounding; "
                            "remove it or add `rounding <stochastic>`";
  if (getRbits())
    return verifySameShape(*this, "rbits", inputType, getRbits().getType());
  return success();
}

namespace {
/// The per-element multipliers held by a constant scale operand, widened to
/// f32: the value itself for f32 scales, `2^(e - 127)` (decode) or
/// `2^(127 - e)` (encode) for E8M0 codes. Fails for non-constant scales,
/// other scale types and the E8M0 NaN code.
/// Folding looks at no more scale elements than this.
constexpr int64_t kMaxFoldedScales = 1 << 16;

FailureOr<SmallVector<APFloat>> getConstantMultipliers(Value scale,
                                                       bool encode) {
  DenseElementsAttr attr;
  if (!matchPattern(scale, m_Constant(&attr)))
    return failure();
  Type elementType = attr.getElementType();
  SmallVector<APFloat> result;
  // A splat's one value stands for all elements.
  auto values = attr.isSplat()
                    ? SmallVector<APFloat>{attr.getSplatValue<APFloat>()}
                    : SmallVector<APFloat>();
  if (!attr.isSplat()) {
    if (attr.getNumElements() > kMaxFoldedScales)
      return failure();
    values = llvm::to_vector(attr.getValues<APFloat>());
  }
  for (APFloat value : values) {
    if (isa<Float8E8M0FNUType>(elementType)) {
      if (value.isNaN())
        return failure();
      int exponent = ilogb(value);
      value = scalbn(APFloat(1.0f), encode ? -exponent : exponent,
                     APFloat::rmNearestTiesToEven);
    } else if (!isa<Float32Type>(elementType)) {
      return failure();
    }
    result.push_back(value);
  }
  return result;
}
} // namespace

OpFoldResult QuantizeOp::fold(FoldAdaptor) {
  // quantize(dequantize(q, d), e) == q when every element's encode multiplier
  // is the exact reciprocal of its decode multiplier (so both are powers of
  // two), every decoded value q * d is exact in the intermediate type, and the
  // overflow mode maps every code back to itself. NaN codes too: where a
  // format has several (E5M2's 0x7D..0x7F with either sign), the unfolded
  // conversion re-encodes a NaN as 0x7E | p (docs/numerics.md section 2),
  // which 0x7D is not, so those codes must come from an op that writes only
  // such NaNs.
  auto dequant = getInput().getDefiningOp<DequantizeOp>();
  if (!dequant || dequant.getInput().getType() != getType() ||
      dequant.getGranularity() != getGranularity() ||
      getRounding() != Rounding::RNE || getGlobalScale() ||
      dequant.getGlobalScale() ||
      dequant.getScale().getType() != getScale().getType())
    return {};
  Type narrow = getType().getElementType();
  Format format = *fp8::getFormat(narrow);
  if (getFormatInfo(format).hasInfinity && getOverflow() == Overflow::Saturate)
    return {}; // An infinity would come back as the largest finite value.
  if (getFormatInfo(format).hasInfinity && getFormatInfo(format).hasNaN &&
      !isa_and_present<QuantizeOp, DynamicQuantizeOp, ConvertOp>(
          dequant.getInput().getDefiningOp()))
    return {}; // The codes may hold a NaN that comes back as another one.

  FailureOr<SmallVector<APFloat>> decode =
      getConstantMultipliers(dequant.getScale(), /*encode=*/false);
  FailureOr<SmallVector<APFloat>> encode =
      getConstantMultipliers(getScale(), /*encode=*/true);
  if (failed(decode) || failed(encode))
    return {};
  // Pair elements; a splat side pairs with every element of the other.
  if (decode->size() != encode->size()) {
    if (decode->size() == 1) {
      APFloat value = decode->front();
      decode->resize(encode->size(), value);
    } else if (encode->size() == 1) {
      APFloat value = encode->front();
      encode->resize(decode->size(), value);
    } else {
      return {};
    }
  }

  const llvm::fltSemantics &narrowSem =
      cast<FloatType>(narrow).getFloatSemantics();
  const llvm::fltSemantics &wideSem =
      cast<FloatType>(getInput().getType().getElementType())
          .getFloatSemantics();
  // Exact in the wide type: the largest and the smallest nonzero codes times
  // the decode multiplier; every other code lies on that grid in between.
  auto exactlyScales = [&](APFloat code, const APFloat &d) {
    bool losesInfo = false;
    code.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                 &losesInfo);
    if (code.multiply(d, APFloat::rmNearestTiesToEven) != APFloat::opOK)
      return false;
    return code.convert(wideSem, APFloat::rmNearestTiesToEven, &losesInfo) ==
               APFloat::opOK &&
           !losesInfo;
  };
  APFloat largest = APFloat::getLargest(narrowSem);
  APFloat smallest = APFloat::getSmallest(narrowSem);
  for (auto [d, e] : llvm::zip_equal(*decode, *encode)) {
    APFloat product = d;
    if (product.multiply(e, APFloat::rmNearestTiesToEven) != APFloat::opOK ||
        !product.isExactlyValue(1.0))
      return {};
    if (!exactlyScales(largest, d) || !exactlyScales(smallest, d))
      return {};
  }
  return dequant.getInput();
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::verify() {
  if (failed(verifyShapesFit(*this)))
    return failure();
  auto inputType = getInput().getType();
  if (failed(
          verifySameShape(*this, "result", inputType, getOutput().getType())))
    return failure();
  return verifyScaledTensor(*this, "input", inputType, getScale().getType(),
                            getGlobalScale(), getGranularity());
}

//===----------------------------------------------------------------------===//
// DynamicQuantizeOp
//===----------------------------------------------------------------------===//

/// Checks that scales of `scaleType` (the op's `what`) can be stored in a
/// #fp8.tcgen05_scale_layout: 2-D block scales of the types the block-scaled
/// tcgen05.mma kinds read.
static LogicalResult verifyTcgen05ScaleLayout(Operation *op, StringRef what,
                                              ShapedType scaleType) {
  if ((scaleType.getRank() == 2 || scaleType.getRank() == 3) &&
      isa<Float8E8M0FNUType, Float8E4M3FNType>(scaleType.getElementType()))
    return success();
  return op->emitOpError()
         << "`" << what
         << "` stores e8m0 or e4m3 block scales of matrices (2-D) or batches "
            "of matrices (3-D) in the tcgen05 layout, not "
         << scaleType;
}

LogicalResult DynamicQuantizeOp::verify() {
  if (failed(verifyRequiredGroups(*this, {"input"}, {"data", "scale"})))
    return failure();
  if (failed(verifyShapesFit(*this)))
    return failure();
  ScaleRuleKind kind = getRule().getKind();
  auto inputType = getInput().getType();
  auto dataType = getData().getType();
  Format format = *fp8::getFormat(dataType.getElementType());
  if (std::optional<std::string> reason = checkRuleFormat(kind, format))
    return emitOpError() << *reason;
  ScaleRuleSignature signature = *getRuleSignature(getContext(), kind);

  if (failed(verifySameShape(*this, "data", inputType, dataType)))
    return failure();
  if (getScale().getType().getElementType() != signature.blockScaleType)
    return emitOpError() << "rule " << stringifyScaleRuleKind(kind)
                         << " produces " << signature.blockScaleType
                         << " scales, not "
                         << getScale().getType().getElementType();
  if (failed(getGranularity().verifyScaleShape([&] { return emitOpError(); },
                                               "input", inputType,
                                               getScale().getType())))
    return failure();
  if (signature.hasGlobalScale != bool(getGlobalScale()))
    return emitOpError()
           << (signature.hasGlobalScale
                   ? "the nvfp4 rule also returns the global "
                     "decode scale: add a `global tensor<1x1xf32>` "
                     "result type"
                   : "only the nvfp4 rule returns a global scale");
  if (getGlobalScale() &&
      failed(verifySingleElement(*this, "global scale",
                                 getGlobalScale().getType())))
    return failure();

  if (getScaleLayoutAttr() && failed(verifyTcgen05ScaleLayout(
                                  *this, "scale_layout", getScale().getType())))
    return failure();
  if (getColScaleLayoutAttr() && !getColScale())
    return emitOpError() << "`col_scale_layout` describes the column-wise "
                            "scales: add `colwise <...>`";

  // The column-wise copy.
  bool hasColwise = bool(getColGranularity());
  if (hasColwise != bool(getColData()) || hasColwise != bool(getColScale()))
    return emitOpError() << "a column-wise copy needs all of `colwise <...>`, "
                            "its data result and its scale result";
  if (!hasColwise) {
    if (getTransposed())
      return emitOpError() << "`transposed` applies to the column-wise copy; "
                              "add `colwise <...>`";
    return success();
  }
  auto colDataType = getColData().getType();
  auto colScaleType = getColScale().getType();
  Format colFormat = *fp8::getFormat(colDataType.getElementType());
  if (std::optional<std::string> reason = checkRuleFormat(kind, colFormat))
    return emitOpError() << "column-wise copy: " << *reason;
  if (colScaleType.getElementType() != signature.blockScaleType)
    return emitOpError() << "column-wise copy: rule "
                         << stringifyScaleRuleKind(kind) << " produces "
                         << signature.blockScaleType << " scales, not "
                         << colScaleType.getElementType();
  GranularityAttr colGranularity = *getColGranularity();
  ArrayRef<int64_t> shape = inputType.getShape();
  if (colGranularity.getBlock().size() > shape.size())
    return emitOpError() << "granularity " << colGranularity << " names "
                         << colGranularity.getBlock().size()
                         << " block dimensions but the input has rank "
                         << shape.size();
  SmallVector<int64_t> colShape(shape);
  SmallVector<int64_t> colScaleShape = colGranularity.getScaleShape(shape);
  if (getTransposed()) {
    if (shape.size() < 2)
      return emitOpError() << "a transposed copy needs an input of rank >= 2";
    colShape = getTransposedShape(colShape);
    colScaleShape = getTransposedShape(colScaleShape);
  }
  if (failed(verifyCompatibleShape(colShape, colDataType.getShape())))
    return emitOpError() << "column-wise data shape "
                         << formatShape(colDataType.getShape()) << " must be "
                         << formatShape(colShape)
                         << (getTransposed() ? " (the input transposed)"
                                             : " (the input shape)");
  if (failed(verifyCompatibleShape(colScaleShape, colScaleType.getShape())))
    return emitOpError() << "column-wise scale shape "
                         << formatShape(colScaleType.getShape())
                         << " does not match granularity " << colGranularity
                         << ": expected " << formatShape(colScaleShape)
                         << (getTransposed() ? " (transposed with the data)"
                                             : "");
  if (getColScaleLayoutAttr() &&
      failed(verifyTcgen05ScaleLayout(*this, "col_scale_layout", colScaleType)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertOp::verify() {
  if (failed(verifyShapesFit(*this)))
    return failure();
  Type resultType = getElementTypeOrSelf(getOutput().getType());
  bool toE8M0 = isa<Float8E8M0FNUType>(resultType);
  Rounding rounding = getRounding();
  if (!toE8M0 && (rounding == Rounding::RCeil || rounding == Rounding::Floor))
    return emitOpError() << "rounding " << stringifyRounding(rounding)
                         << " applies to f8E8M0FNU results only; use rne or "
                            "stochastic for "
                         << resultType;
  if (toE8M0 && rounding == Rounding::Stochastic)
    return emitOpError() << "f8E8M0FNU results round with rne, rceil or "
                            "floor, not stochastic";
  bool stochastic = rounding == Rounding::Stochastic;
  if (stochastic != bool(getRbits()))
    return emitOpError() << (stochastic
                                 ? "stochastic rounding needs an i32 random "
                                   "word per element: add `rbits(%r : i32)`"
                                 : "`rbits` is only used by stochastic "
                                   "rounding; remove it");
  return success();
}

//===----------------------------------------------------------------------===//
// ScaledMatmulOp
//===----------------------------------------------------------------------===//

LogicalResult ScaledMatmulOp::verify() {
  if (failed(verifyRequiredGroups(*this,
                                  {"lhs", "rhs", "lhs_scale", "rhs_scale"})))
    return failure();
  if (failed(verifyShapesFit(*this)))
    return failure();
  auto lhsType = getLhs().getType();
  auto rhsType = getRhs().getType();
  auto resultType = getResult().getType();
  int64_t rank = lhsType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError() << "operands must be matrices of rank 2, or rank 3 "
                            "with a leading batch dimension; got rank "
                         << rank;
  if (rhsType.getRank() != rank || resultType.getRank() != rank)
    return emitOpError() << "lhs, rhs and result must have the same rank, got "
                         << rank << ", " << rhsType.getRank() << " and "
                         << resultType.getRank();

  ArrayRef<int64_t> lhs = lhsType.getShape().take_back(2);
  ArrayRef<int64_t> rhs = rhsType.getShape().take_back(2);
  int64_t m = getTransposeLhs() ? lhs[1] : lhs[0];
  int64_t kl = getTransposeLhs() ? lhs[0] : lhs[1];
  int64_t kr = getTransposeRhs() ? rhs[1] : rhs[0];
  int64_t n = getTransposeRhs() ? rhs[0] : rhs[1];
  if (!ShapedType::isDynamic(kl) && !ShapedType::isDynamic(kr) && kl != kr)
    return emitOpError() << "contraction dimensions differ: lhs has K = " << kl
                         << (getTransposeLhs() ? " (stored [K, M])" : "")
                         << ", rhs has K = " << kr
                         << (getTransposeRhs() ? " (stored [N, K])"
                                               : " (stored [K, N])");
  SmallVector<int64_t> expected;
  if (rank == 3) {
    int64_t bl = lhsType.getDimSize(0), br = rhsType.getDimSize(0);
    if (failed(verifyCompatibleShape({bl}, {br})))
      return emitOpError() << "batch dimensions differ: " << bl << " vs " << br;
    expected.push_back(ShapedType::isDynamic(bl) ? br : bl);
  }
  expected.append({m, n});
  if (failed(verifyCompatibleShape(expected, resultType.getShape())))
    return emitOpError() << "result shape "
                         << formatShape(resultType.getShape()) << " must be "
                         << formatShape(expected)
                         << " ([M, N] of the operands)";

  if (failed(verifyScaledTensor(*this, "lhs", lhsType, getLhsScale().getType(),
                                getLhsGlobalScale(), getLhsGranularity())) ||
      failed(verifyScaledTensor(*this, "rhs", rhsType, getRhsScale().getType(),
                                getRhsGlobalScale(), getRhsGranularity())))
    return failure();

  if (Value bias = getBias()) {
    auto biasType = cast<ShapedType>(bias.getType());
    if (biasType.getRank() != 1 ||
        failed(verifyCompatibleShape({n}, biasType.getShape())))
      return emitOpError() << "bias must be a vector of N = "
                           << formatShape({n}) << " elements, got "
                           << bias.getType();
  }
  bool narrowResult = fp8::getFormat(resultType.getElementType()).has_value();
  if (failed(verifyResultQuantization()))
    return failure();
  if (narrowResult && !getOutScale() && !getOutGranularity())
    return emitOpError() << "a " << resultType.getElementType()
                         << " result needs an f32 encode scale: add "
                            "`out_scale(%s : tensor<1x1xf32>)`, or block "
                            "scales: `quantize by <1x128> rule <pow2>`";
  if (!narrowResult && getOutScale())
    return emitOpError() << "`out_scale` encodes narrow results only; a "
                         << resultType.getElementType()
                         << " result takes no output scale";
  if (getOutScale() &&
      failed(verifySingleElement(*this, "out_scale", getOutScale().getType())))
    return failure();
  if (Value amax = getAmax()) {
    // With an epilogue, the amax of each row ([M, 1]) is one too.
    auto amaxType = cast<RankedTensorType>(amax.getType());
    bool perRow = hasEpilogue() && rank == 2 && amaxType.getRank() == 2 &&
                  amaxType.getDimSize(1) == 1 &&
                  amaxType.getDimSize(0) == resultType.getDimSize(0);
    if (!perRow) {
      if (!hasSingleElement(amaxType))
        return emitOpError()
               << "amax result must hold exactly one element (e.g. "
                  "tensor<1x1xf32>)"
               << (hasEpilogue() && rank == 2
                       ? ", or one per row of the result ([M, 1])"
                       : "")
               << ", got " << amaxType;
    }
  }
  if (!hasEpilogue() && (!getEpilogueIns().empty() || getEpilogueMapsAttr()))
    return emitOpError() << "`epilogue_ins` and `epilogue_maps` come with an "
                            "`epilogue` region";
  return success();
}

LogicalResult ScaledMatmulOp::verifyResultQuantization() {
  GranularityAttr granularity = getOutGranularityAttr();
  ScaleRuleAttr rule = getOutRuleAttr();
  Value scale = getResultScale();
  if (!granularity && !scale)
    return success();
  if (!granularity || !rule || !scale)
    return emitOpError() << "a quantized result needs `quantize by <...> "
                            "rule <...>` and a `scale` result type";
  RankedTensorType resultType = getResult().getType();
  std::optional<Format> format = fp8::getFormat(resultType.getElementType());
  if (!format)
    return emitOpError() << "`quantize by` encodes FP8 results, not "
                         << resultType.getElementType();
  ScaleRuleKind kind = rule.getKind();
  if (std::optional<std::string> reason = checkRuleFormat(kind, *format))
    return emitOpError() << *reason;
  std::optional<ScaleRuleSignature> signature =
      getRuleSignature(getContext(), kind);
  if (!signature || signature->hasGlobalScale)
    return emitOpError() << "rule " << stringifyScaleRuleKind(kind)
                         << " cannot quantize a GEMM's result: it "
                         << (signature ? "has a global scale"
                                       : "is never computed");
  auto scaleType = cast<RankedTensorType>(scale.getType());
  if (scaleType.getElementType() != signature->blockScaleType)
    return emitOpError() << "rule " << stringifyScaleRuleKind(kind)
                         << " produces " << signature->blockScaleType
                         << " scales, not " << scaleType.getElementType();
  if (failed(granularity.verifyScaleShape([&] { return emitOpError(); },
                                          "result", resultType, scaleType)))
    return failure();
  if (getOutScale() || getAmax())
    return emitOpError() << "a result quantized by blocks takes no "
                            "`out_scale` and returns no `amax`";
  if (!hasEpilogue())
    return emitOpError() << "`quantize by` encodes what the epilogue yields: "
                            "add an epilogue (`fp8.yield` of its first "
                            "argument, whose type is what the product is "
                            "rounded to)";
  return success();
}

/// f32, bf16 or f16: what an epilogue's product and yield may be.
static bool isWideElement(Type type) {
  return isa<Float32Type, BFloat16Type, Float16Type>(type);
}

FloatType ScaledMatmulOp::getEpilogueInputType() {
  assert(hasEpilogue() && "no epilogue");
  return cast<FloatType>(getEpilogue().front().getArgument(0).getType());
}

llvm::iterator_range<Block::iterator> ScaledMatmulOp::getEpilogueOps() {
  Block &body = getEpilogue().front();
  return llvm::make_range(body.begin(), std::prev(body.end()));
}

Value ScaledMatmulOp::getEpilogueYieldedValue() {
  return cast<YieldOp>(getEpilogue().front().back()).getValues().front();
}

LogicalResult ScaledMatmulOp::verifyRegions() {
  if (!hasEpilogue())
    return success();
  RankedTensorType resultType = getResult().getType();
  Type resultElement = resultType.getElementType();
  // FP8 results encode what the epilogue yields (with out_scale).
  bool narrowResult = !isWideElement(resultElement);
  OperandRange inputs = getEpilogueIns();
  SmallVector<AffineMap> maps;
  if (ArrayAttr attr = getEpilogueMapsAttr())
    maps = llvm::to_vector(attr.getAsValueRange<AffineMapAttr>());
  if (maps.size() != inputs.size())
    return emitOpError() << "`epilogue_maps` needs one map per epilogue "
                            "input: "
                         << inputs.size() << " inputs, " << maps.size()
                         << " maps";
  int64_t rank = resultType.getRank();
  for (auto [i, input, map] : llvm::enumerate(inputs, maps)) {
    auto type = cast<RankedTensorType>(input.getType());
    if (map.getNumDims() != rank || map.getNumSymbols() != 0 ||
        !map.isProjectedPermutation(/*allowZeroInResults=*/false) ||
        map.getNumResults() != type.getRank())
      return emitOpError() << "epilogue map #" << i << " "
                           << AffineMapAttr::get(map) << " must pick "
                           << type.getRank() << " of the result's " << rank
                           << " indices for input " << type;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      int64_t dim = cast<AffineDimExpr>(expr).getPosition();
      if (failed(verifyCompatibleShape({resultType.getDimSize(dim)},
                                       {type.getDimSize(d)})))
        return emitOpError()
               << "epilogue input #" << i << " " << type << " has "
               << type.getDimSize(d) << " elements along dimension " << d
               << ", which " << AffineMapAttr::get(map)
               << " reads as result dimension " << dim << " of "
               << resultType.getDimSize(dim);
    }
  }
  Block &body = getEpilogue().front();
  if (body.getNumArguments() != inputs.size() + 1)
    return emitOpError() << "the epilogue block takes the product and one "
                            "element per epilogue input: "
                         << inputs.size() + 1 << " arguments, got "
                         << body.getNumArguments();
  Type product = body.getArgument(0).getType();
  if (!isWideElement(product))
    return emitOpError() << "the epilogue's first argument (the product, "
                            "rounded to its type) is f32, bf16 or f16, got "
                         << product;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    Type element = cast<RankedTensorType>(input.getType()).getElementType();
    Type arg = body.getArgument(i + 1).getType();
    if (arg != element)
      return emitOpError() << "epilogue argument #" << i + 1 << " is " << arg
                           << ", but epilogue input #" << i << " holds "
                           << element;
  }
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError() << "the epilogue must end in `fp8.yield`";
  if (narrowResult) {
    if (yield.getValues().size() != 1 ||
        !isWideElement(yield.getValues()[0].getType()))
      return yield.emitOpError()
             << "yields one f32, bf16 or f16 element, which "
             << (getOutGranularity() ? "the block scales encode"
                                     : "out_scale encodes")
             << " as " << resultElement;
  } else if (yield.getValues().size() != 1 ||
             yield.getValues()[0].getType() != resultElement) {
    return yield.emitOpError()
           << "yields one element of the result's type " << resultElement;
  }
  return success();
}

LogicalResult YieldOp::verify() {
  if (getOperation() != &getOperation()->getBlock()->back())
    return emitOpError() << "must be the last op of the epilogue";
  return success();
}

//===----------------------------------------------------------------------===//
// UpdateDelayedScaleOp
//===----------------------------------------------------------------------===//

LogicalResult UpdateDelayedScaleOp::verify() {
  if (failed(verifyShapesFit(*this)))
    return failure();
  auto historyType = getHistory().getType();
  if (historyType.getRank() != 1 || !historyType.hasStaticShape() ||
      historyType.getDimSize(0) < 1)
    return emitOpError() << "history must be a static 1-D tensor with at least "
                            "one slot (e.g. tensor<1024xf32>), got "
                         << historyType;
  if (failed(verifySingleElement(*this, "scale", getScale().getType())))
    return failure();
  int32_t margin = getMargin();
  if (margin < 0 || margin > 127)
    return emitOpError()
           << "margin is a power-of-two headroom in [0, 127], got " << margin;
  return success();
}

//===----------------------------------------------------------------------===//
// ExpandQuantizeOp and ExpandDequantizeOp
//===----------------------------------------------------------------------===//

/// Verifies the per-group state of range-expanded data: `amax` has the scale
/// shape of `granularity` on `data`, and `exponent` the shape of `amax`.
static LogicalResult verifyExpansionState(Operation *op, ShapedType data,
                                          ShapedType amax, ShapedType exponent,
                                          GranularityAttr granularity) {
  if (failed(granularity.verifyScaleShape([op] { return op->emitOpError(); },
                                          "data", data, amax)))
    return failure();
  return verifySameShape(op, "exponent", amax, exponent);
}

LogicalResult ExpandQuantizeOp::verify() {
  if (failed(verifyShapesFit(*this)))
    return failure();
  auto inputType = getInput().getType();
  if (failed(verifySameShape(*this, "data", inputType, getData().getType())))
    return failure();
  return verifyExpansionState(*this, inputType, getAmax().getType(),
                              getExponent().getType(), getGranularity());
}

/// The sign of a splat constant of zeros, or nothing for other attributes.
static std::optional<bool> getSplatZeroSign(Attribute attr) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!splat || !isa<FloatType>(splat.getElementType()))
    return std::nullopt;
  APFloat value = splat.getSplatValue<APFloat>();
  if (!value.isZero())
    return std::nullopt;
  return value.isNegative();
}

LogicalResult ExpandQuantizeOp::fold(FoldAdaptor adaptor,
                                     SmallVectorImpl<OpFoldResult> &results) {
  // Zeros (a freshly initialized optimizer state) encode exactly: every
  // group's amax is 0, so its exponent is 0 and every code a signed zero.
  std::optional<bool> negative = getSplatZeroSign(adaptor.getInput());
  if (!negative || !getData().getType().hasStaticShape() ||
      !getAmax().getType().hasStaticShape() ||
      !getExponent().getType().hasStaticShape())
    return failure();
  auto dataType = getData().getType();
  const llvm::fltSemantics &sem =
      cast<FloatType>(dataType.getElementType()).getFloatSemantics();
  results.push_back(
      DenseElementsAttr::get(dataType, APFloat::getZero(sem, *negative)));
  results.push_back(DenseElementsAttr::get(getAmax().getType(), APFloat(0.0f)));
  results.push_back(
      DenseElementsAttr::get(getExponent().getType(), APInt(8, 0)));
  return success();
}

LogicalResult ExpandDequantizeOp::verify() {
  if (failed(verifyShapesFit(*this)))
    return failure();
  auto inputType = getInput().getType();
  if (failed(
          verifySameShape(*this, "result", inputType, getOutput().getType())))
    return failure();
  return verifyExpansionState(*this, inputType, getAmax().getType(),
                              getExponent().getType(), getGranularity());
}

OpFoldResult ExpandDequantizeOp::fold(FoldAdaptor adaptor) {
  // Zero codes decode to zeros of the same sign whatever the exponent, as
  // long as every amax is finite (0 * inf would be NaN).
  std::optional<bool> negative = getSplatZeroSign(adaptor.getInput());
  auto amax = dyn_cast_if_present<DenseElementsAttr>(adaptor.getAmax());
  auto resultType = getOutput().getType();
  if (!negative || !amax || !resultType.hasStaticShape())
    return {};
  if (!amax.isSplat() && amax.getNumElements() > kMaxFoldedScales)
    return {};
  auto isFinite = [](const APFloat &value) { return value.isFinite(); };
  if (amax.isSplat() ? !amax.getSplatValue<APFloat>().isFinite()
                     : !llvm::all_of(amax.getValues<APFloat>(), isFinite))
    return {};
  const llvm::fltSemantics &sem =
      cast<FloatType>(resultType.getElementType()).getFloatSemantics();
  return DenseElementsAttr::get(resultType, APFloat::getZero(sem, *negative));
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// The optional results of fp8.scaled_matmul after its result type:
/// `, amax <type>` and `, scale <type>`, each at most once, in that order.
static ParseResult parseGemmResults(OpAsmParser &parser, Type &amax,
                                    Type &scale) {
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return failure();
    if (keyword == "amax" && !amax && !scale) {
      if (parser.parseType(amax))
        return failure();
      continue;
    }
    if (keyword == "scale" && !scale) {
      if (parser.parseType(scale))
        return failure();
      continue;
    }
    return parser.emitError(loc)
           << "after the result type come `, amax <type>` and then `, scale "
              "<type>`, each at most once; got `"
           << keyword << "`";
  }
  return success();
}

static void printGemmResults(OpAsmPrinter &printer, Operation *, Type amax,
                             Type scale) {
  if (amax)
    printer << ", amax " << amax;
  if (scale)
    printer << ", scale " << scale;
}

#define GET_OP_CLASSES
#include "fp8/Dialect/FP8/IR/FP8Ops.cpp.inc"
