//===- FP8Attrs.cpp - fp8 dialect attributes ------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Error.h"

using namespace mlir;
using namespace mlir::fp8;

#include "fp8/Dialect/FP8/IR/FP8Enums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fp8/Dialect/FP8/IR/FP8Attrs.cpp.inc"

void FP8Dialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fp8/Dialect/FP8/IR/FP8Attrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GranularityAttr
//===----------------------------------------------------------------------===//

Attribute GranularityAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  SmallVector<int64_t> block;
  if (succeeded(parser.parseOptionalKeyword("tensor"))) {
    if (parser.parseGreater())
      return {};
    return GranularityAttr::get(parser.getContext(), block);
  }
  while (true) {
    int64_t extent;
    if (succeeded(parser.parseOptionalStar())) {
      extent = kFull;
    } else {
      llvm::SMLoc loc = parser.getCurrentLocation();
      // `0x8` lexes as a hexadecimal integer; extents are decimal.
      StringRef text(loc.getPointer(), 2);
      if (text.equals_insensitive("0x")) {
        parser.emitError(loc, "block extents are decimal integers or `*`; "
                              "`0x...` reads as hexadecimal");
        return {};
      }
      OptionalParseResult parsed = parser.parseOptionalInteger(extent);
      if (!parsed.has_value()) {
        parser.emitError(loc, "expected `tensor` or a block shape such as "
                              "`1x128` or `1x*`");
        return {};
      }
      if (failed(*parsed))
        return {};
      if (extent <= 0) {
        parser.emitError(loc, "block extents must be positive or `*` (a whole "
                              "dimension), got ")
            << extent;
        return {};
      }
    }
    block.push_back(extent);
    if (succeeded(parser.parseOptionalGreater()))
      break;
    if (parser.parseXInDimensionList())
      return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), block);
}

void GranularityAttr::print(AsmPrinter &printer) const {
  printer << '<';
  if (isTensor())
    printer << "tensor";
  llvm::interleave(
      getBlock(), printer,
      [&](int64_t extent) {
        if (extent == kFull)
          printer << '*';
        else
          printer << extent;
      },
      "x");
  printer << '>';
}

LogicalResult
Tcgen05ScaleLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t kDim, int64_t stageKBlocks) {
  if (kDim != 0 && kDim != 1)
    return emitError() << "k_dim must be 0 or 1 (the scale dimension K runs "
                          "along), got "
                       << kDim;
  if (stageKBlocks <= 0 || stageKBlocks % 4 != 0)
    return emitError() << "stage_k_blocks must be a positive multiple of 4 "
                          "(whole 4-k-block chunks), got "
                       << stageKBlocks;
  return success();
}

LogicalResult
GranularityAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<int64_t> block) {
  for (int64_t extent : block)
    if (extent != kFull && extent <= 0)
      return emitError() << "block extents must be positive or `*` (a whole "
                            "dimension), got "
                         << extent;
  return success();
}

SmallVector<int64_t>
GranularityAttr::getBlockShape(ArrayRef<int64_t> shape) const {
  return fp8::getBlockShape(shape, getBlock());
}

SmallVector<int64_t>
GranularityAttr::getScaleShape(ArrayRef<int64_t> shape) const {
  return fp8::getScaleShape(shape, getBlock());
}

LogicalResult
GranularityAttr::verifyScaleShape(function_ref<InFlightDiagnostic()> emitError,
                                  StringRef what, ShapedType dataType,
                                  ShapedType scaleType) const {
  ArrayRef<int64_t> shape = dataType.getShape();
  if (getBlock().size() > shape.size())
    return emitError() << "granularity " << *this << " names "
                       << getBlock().size() << " block dimensions but the "
                       << what << " has rank " << shape.size()
                       << "; use at most " << shape.size() << " block extents";
  SmallVector<int64_t> expected = getScaleShape(shape);
  ArrayRef<int64_t> actual = scaleType.getShape();
  bool matches = actual.size() == expected.size();
  for (size_t i = 0; matches && i < actual.size(); ++i)
    matches = actual[i] == expected[i] || ShapedType::isDynamic(actual[i]) ||
              ShapedType::isDynamic(expected[i]);
  if (!matches)
    return emitError() << "scale shape " << formatShape(actual) << " of the "
                       << what << " does not match granularity " << *this
                       << " on data of shape " << formatShape(shape)
                       << ": expected " << formatShape(expected)
                       << " (ceil(shape / block))";
  return success();
}

GranularityAttr GranularityAttr::getTransposed(int64_t rank) const {
  if (isTensor() || rank < 2 || static_cast<int64_t>(getBlock().size()) > rank)
    return *this;
  // Name both swapped dimensions explicitly (a leading extent 1 is implied
  // anyway), then swap them.
  SmallVector<int64_t> block(getBlock().size() < 2 ? 2 - getBlock().size() : 0,
                             1);
  llvm::append_range(block, getBlock());
  return get(getContext(), getTransposedShape(block));
}

//===----------------------------------------------------------------------===//
// ScaleRuleAttr
//===----------------------------------------------------------------------===//

namespace {
/// Parses `, key = value` pairs until `>`, calling `parseValue(key)` for each.
ParseResult
parseKnobs(AsmParser &parser,
           llvm::function_ref<ParseResult(StringRef, llvm::SMLoc)> parseValue) {
  llvm::SmallDenseSet<StringRef> seen;
  while (succeeded(parser.parseOptionalComma())) {
    llvm::SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc) << "'" << key << "' is given twice";
    if (parser.parseEqual() || parseValue(key, loc))
      return failure();
  }
  return parser.parseGreater();
}

template <typename EnumT>
ParseResult
parseEnumKeyword(AsmParser &parser, EnumT &value,
                 llvm::function_ref<std::optional<EnumT>(StringRef)> symbolize,
                 StringRef expected) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> parsed = symbolize(keyword);
  if (!parsed)
    return parser.emitError(loc)
           << "unknown value '" << keyword << "'; expected one of " << expected;
  value = *parsed;
  return success();
}
} // namespace

Attribute ScaleRuleAttr::parse(AsmParser &parser, Type) {
  ScaleRuleKind kind;
  if (parser.parseLess() ||
      parseEnumKeyword<ScaleRuleKind>(
          parser, kind,
          [](StringRef str) { return symbolizeScaleRuleKind(str); },
          "ratio, pow2, e8m0_rceil, e8m0_floor, nvfp4, pow2_bias, static"))
    return {};
  int32_t margin = 0;
  APFloat eps(0.0f);
  auto parseValue = [&](StringRef key, llvm::SMLoc loc) -> ParseResult {
    if (key == "margin")
      return parser.parseInteger(margin);
    if (key == "eps")
      return parser.parseFloat(APFloat::IEEEsingle(), eps);
    return parser.emitError(loc) << "unknown scale rule parameter '" << key
                                 << "'; expected margin or eps";
  };
  if (parseKnobs(parser, parseValue))
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), kind, margin, eps);
}

void ScaleRuleAttr::print(AsmPrinter &printer) const {
  printer << '<' << stringifyScaleRuleKind(getKind());
  if (getMargin() != 0)
    printer << ", margin = " << getMargin();
  if (!getEps().isZero()) {
    // The shortest decimal that reads back as the same f32 (9 digits always
    // do).
    SmallString<16> text;
    for (unsigned digits = 1; digits <= 9; ++digits) {
      text.clear();
      getEps().toString(text, digits, /*FormatMaxPadding=*/0,
                        /*TruncateZero=*/false);
      APFloat back(APFloat::IEEEsingle());
      llvm::Expected<APFloat::opStatus> status =
          back.convertFromString(text, APFloat::rmNearestTiesToEven);
      if (!status)
        llvm::consumeError(status.takeError());
      else if (back.bitwiseIsEqual(getEps()))
        break;
    }
    printer << ", eps = " << text;
  }
  printer << '>';
}

LogicalResult
ScaleRuleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      ScaleRuleKind kind, int32_t margin, APFloat eps) {
  if (&eps.getSemantics() != &APFloat::IEEEsingle())
    return emitError() << "eps must be an f32 value";
  bool takesKnobs = kind == ScaleRuleKind::Ratio || kind == ScaleRuleKind::Pow2;
  if (!takesKnobs && (margin != 0 || !eps.isZero()))
    return emitError() << "margin and eps apply only to the ratio and pow2 "
                          "rules, not to "
                       << stringifyScaleRuleKind(kind);
  if (margin < 0 || margin > 127)
    return emitError() << "margin is a power-of-two headroom in [0, 127], got "
                       << margin;
  if (eps.isNegative() || !eps.isFinite())
    return emitError() << "eps must be a finite value >= 0";
  return success();
}

//===----------------------------------------------------------------------===//
// RecipeAttr
//===----------------------------------------------------------------------===//

Attribute RecipeAttr::parse(AsmParser &parser, Type) {
  RecipeKind kind;
  if (parser.parseLess() ||
      parseEnumKeyword<RecipeKind>(
          parser, kind, [](StringRef str) { return symbolizeRecipeKind(str); },
          "tensor_delayed, tensor_current, rowwise, deepseek, mxfp8, nvfp4, "
          "graphcore, unit"))
    return {};
  int32_t margin = 0;
  int64_t history = 1024, promote = 4;
  AmaxAlgo algo = AmaxAlgo::Max;
  ZeroAmaxPolicy zeroAmax = ZeroAmaxPolicy::Roll;
  auto parseValue = [&](StringRef key, llvm::SMLoc loc) -> ParseResult {
    if (key == "margin")
      return parser.parseInteger(margin);
    if (key == "history")
      return parser.parseInteger(history);
    if (key == "promote")
      return parser.parseInteger(promote);
    if (key == "algo")
      return parseEnumKeyword<AmaxAlgo>(
          parser, algo, [](StringRef str) { return symbolizeAmaxAlgo(str); },
          "max, most_recent");
    if (key == "zero_amax")
      return parseEnumKeyword<ZeroAmaxPolicy>(
          parser, zeroAmax,
          [](StringRef str) { return symbolizeZeroAmaxPolicy(str); },
          "roll, skip");
    return parser.emitError(loc)
           << "unknown recipe knob '" << key
           << "'; expected one of margin, history, algo, zero_amax, promote";
  };
  if (parseKnobs(parser, parseValue))
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), kind, margin, history, algo, zeroAmax,
                    promote);
}

void RecipeAttr::print(AsmPrinter &printer) const {
  printer << '<' << stringifyRecipeKind(getKind());
  if (getMargin() != 0)
    printer << ", margin = " << getMargin();
  if (getHistory() != 1024)
    printer << ", history = " << getHistory();
  if (getAlgo() != AmaxAlgo::Max)
    printer << ", algo = " << stringifyAmaxAlgo(getAlgo());
  if (getZeroAmax() != ZeroAmaxPolicy::Roll)
    printer << ", zero_amax = " << stringifyZeroAmaxPolicy(getZeroAmax());
  if (getPromote() != 4)
    printer << ", promote = " << getPromote();
  printer << '>';
}

LogicalResult RecipeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 RecipeKind kind, int32_t margin,
                                 int64_t history, AmaxAlgo algo,
                                 ZeroAmaxPolicy zeroAmax, int64_t promote) {
  if (margin < 0 || margin > 127)
    return emitError() << "margin is a power-of-two headroom in [0, 127], got "
                       << margin;
  if (history < 1)
    return emitError() << "the amax history needs at least 1 entry, got "
                       << history;
  if (promote < 0)
    return emitError() << "promote counts k32 steps and must be >= 0 (0 = no "
                          "promotion), got "
                       << promote;
  return success();
}
