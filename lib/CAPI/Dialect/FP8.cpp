//===- FP8.cpp - C API of the fp8 dialect ---------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8-c/Dialect/FP8.h"

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace mlir::fp8;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(FP8, fp8, FP8Dialect)

// The C enums are the C++ enums' values; keep them in step.
static_assert(Fp8FormatE3M2 == static_cast<int>(Format::E3M2));
static_assert(Fp8ScaleRuleStatic == static_cast<int>(ScaleRuleKind::Static));
static_assert(Fp8RecipeUnit == static_cast<int>(RecipeKind::Unit));
static_assert(Fp8AmaxAlgoMostRecent == static_cast<int>(AmaxAlgo::MostRecent));
static_assert(Fp8ZeroAmaxSkip == static_cast<int>(ZeroAmaxPolicy::Skip));
static_assert(FP8_GRANULARITY_FULL == GranularityAttr::kFull);

/// Reports invalid parameters as an error on the context, so that C clients
/// get a diagnostic and a null attribute rather than an abort.
static auto emitErrorOn(MlirContext ctx) {
  return [loc = UnknownLoc::get(unwrap(ctx))]() { return emitError(loc); };
}

//===----------------------------------------------------------------------===//
// GranularityAttr
//===----------------------------------------------------------------------===//

MlirAttribute fp8GranularityAttrGet(MlirContext ctx, intptr_t numDims,
                                    const int64_t *block) {
  return wrap(GranularityAttr::getChecked(
      emitErrorOn(ctx), unwrap(ctx),
      llvm::ArrayRef<int64_t>(block, static_cast<size_t>(numDims))));
}

bool fp8AttributeIsAGranularity(MlirAttribute attr) {
  return isa<GranularityAttr>(unwrap(attr));
}

bool fp8GranularityAttrIsTensor(MlirAttribute attr) {
  return cast<GranularityAttr>(unwrap(attr)).isTensor();
}

intptr_t fp8GranularityAttrGetNumDims(MlirAttribute attr) {
  return cast<GranularityAttr>(unwrap(attr)).getBlock().size();
}

int64_t fp8GranularityAttrGetDim(MlirAttribute attr, intptr_t pos) {
  return cast<GranularityAttr>(unwrap(attr)).getBlock()[pos];
}

bool fp8GranularityAttrGetScaleShape(MlirAttribute attr, intptr_t rank,
                                     const int64_t *shape,
                                     int64_t *scaleShape) {
  auto granularity = cast<GranularityAttr>(unwrap(attr));
  if (rank < static_cast<intptr_t>(granularity.getBlock().size()))
    return false;
  llvm::SmallVector<int64_t> result = granularity.getScaleShape(
      llvm::ArrayRef<int64_t>(shape, static_cast<size_t>(rank)));
  llvm::copy(result, scaleShape);
  return true;
}

//===----------------------------------------------------------------------===//
// FormatAttr
//===----------------------------------------------------------------------===//

MlirAttribute fp8FormatAttrGet(MlirContext ctx, Fp8Format format) {
  return wrap(FormatAttr::get(unwrap(ctx), static_cast<Format>(format)));
}

bool fp8AttributeIsAFormat(MlirAttribute attr) {
  return isa<FormatAttr>(unwrap(attr));
}

Fp8Format fp8FormatAttrGetValue(MlirAttribute attr) {
  return static_cast<Fp8Format>(cast<FormatAttr>(unwrap(attr)).getValue());
}

MlirType fp8FormatGetElementType(MlirContext ctx, Fp8Format format) {
  return wrap(getFormatType(unwrap(ctx), static_cast<Format>(format)));
}

//===----------------------------------------------------------------------===//
// ScaleRuleAttr
//===----------------------------------------------------------------------===//

MlirAttribute fp8ScaleRuleAttrGet(MlirContext ctx, Fp8ScaleRuleKind kind,
                                  int32_t margin, float eps) {
  return wrap(ScaleRuleAttr::getChecked(emitErrorOn(ctx), unwrap(ctx),
                                        static_cast<ScaleRuleKind>(kind),
                                        margin, llvm::APFloat(eps)));
}

bool fp8AttributeIsAScaleRule(MlirAttribute attr) {
  return isa<ScaleRuleAttr>(unwrap(attr));
}

Fp8ScaleRuleKind fp8ScaleRuleAttrGetKind(MlirAttribute attr) {
  return static_cast<Fp8ScaleRuleKind>(
      cast<ScaleRuleAttr>(unwrap(attr)).getKind());
}

int32_t fp8ScaleRuleAttrGetMargin(MlirAttribute attr) {
  return cast<ScaleRuleAttr>(unwrap(attr)).getMargin();
}

float fp8ScaleRuleAttrGetEps(MlirAttribute attr) {
  return cast<ScaleRuleAttr>(unwrap(attr)).getEps().convertToFloat();
}

//===----------------------------------------------------------------------===//
// RecipeAttr
//===----------------------------------------------------------------------===//

MlirAttribute fp8RecipeAttrGet(MlirContext ctx, Fp8RecipeKind kind) {
  return wrap(RecipeAttr::get(unwrap(ctx), static_cast<RecipeKind>(kind)));
}

MlirAttribute fp8RecipeAttrGetWithKnobs(MlirContext ctx, Fp8RecipeKind kind,
                                        int32_t margin, int64_t history,
                                        Fp8AmaxAlgo algo,
                                        Fp8ZeroAmaxPolicy zeroAmax,
                                        int64_t promote) {
  return wrap(RecipeAttr::getChecked(
      emitErrorOn(ctx), unwrap(ctx), static_cast<RecipeKind>(kind), margin,
      history, static_cast<AmaxAlgo>(algo),
      static_cast<ZeroAmaxPolicy>(zeroAmax), promote));
}

bool fp8AttributeIsARecipe(MlirAttribute attr) {
  return isa<RecipeAttr>(unwrap(attr));
}

Fp8RecipeKind fp8RecipeAttrGetKind(MlirAttribute attr) {
  return static_cast<Fp8RecipeKind>(cast<RecipeAttr>(unwrap(attr)).getKind());
}

int32_t fp8RecipeAttrGetMargin(MlirAttribute attr) {
  return cast<RecipeAttr>(unwrap(attr)).getMargin();
}

int64_t fp8RecipeAttrGetHistory(MlirAttribute attr) {
  return cast<RecipeAttr>(unwrap(attr)).getHistory();
}

Fp8AmaxAlgo fp8RecipeAttrGetAlgo(MlirAttribute attr) {
  return static_cast<Fp8AmaxAlgo>(cast<RecipeAttr>(unwrap(attr)).getAlgo());
}

Fp8ZeroAmaxPolicy fp8RecipeAttrGetZeroAmax(MlirAttribute attr) {
  return static_cast<Fp8ZeroAmaxPolicy>(
      cast<RecipeAttr>(unwrap(attr)).getZeroAmax());
}

int64_t fp8RecipeAttrGetPromote(MlirAttribute attr) {
  return cast<RecipeAttr>(unwrap(attr)).getPromote();
}
