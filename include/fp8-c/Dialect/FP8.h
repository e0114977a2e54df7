/*===- fp8-c/Dialect/FP8.h - C API of the fp8 dialect -------------*- C -*-===*\
|*                                                                            *|
|* Part of fp8-mlir.                                                          *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* The fp8 dialect's handle and its attributes for C (and ctypes) clients, in *|
|* the style of mlir-c: value handles, `fp8<Attr>AttrGet` constructors,       *|
|* `fp8AttributeIsA<Attr>` tests and `fp8<Attr>AttrGet<Field>` accessors. *|
|* Constructors verify their parameters: on invalid ones they emit an error   *|
|* diagnostic on the context (at an unknown location) and return a null       *|
|* attribute.                                                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FP8_C_DIALECT_FP8_H
#define FP8_C_DIALECT_FP8_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(FP8, fp8);

/// Low-precision element formats (#fp8.format<...>).
typedef enum Fp8Format {
  Fp8FormatE4M3 = 0,
  Fp8FormatE5M2 = 1,
  Fp8FormatE2M1 = 2,
  Fp8FormatE2M3 = 3,
  Fp8FormatE3M2 = 4,
} Fp8Format;

/// Rules deriving a scale from an amax (#fp8.rule<...>, docs/numerics.md
/// section 4).
typedef enum Fp8ScaleRuleKind {
  Fp8ScaleRuleRatio = 0,
  Fp8ScaleRulePow2 = 1,
  Fp8ScaleRuleE8M0RCeil = 2,
  Fp8ScaleRuleE8M0Floor = 3,
  Fp8ScaleRuleNVFP4 = 4,
  Fp8ScaleRulePow2Bias = 5,
  Fp8ScaleRuleStatic = 6,
} Fp8ScaleRuleKind;

/// Named recipes (#fp8.recipe<...>, docs/numerics.md section 6).
typedef enum Fp8RecipeKind {
  Fp8RecipeTensorDelayed = 0,
  Fp8RecipeTensorCurrent = 1,
  Fp8RecipeRowwise = 2,
  Fp8RecipeDeepSeek = 3,
  Fp8RecipeMXFP8 = 4,
  Fp8RecipeNVFP4 = 5,
  Fp8RecipeGraphcore = 6,
  Fp8RecipeUnit = 7,
} Fp8RecipeKind;

/// Reductions of a delayed-scaling amax history.
typedef enum Fp8AmaxAlgo {
  Fp8AmaxAlgoMax = 0,
  Fp8AmaxAlgoMostRecent = 1,
} Fp8AmaxAlgo;

/// What a delayed-scaling step whose amax is 0 does.
typedef enum Fp8ZeroAmaxPolicy {
  Fp8ZeroAmaxRoll = 0,
  Fp8ZeroAmaxSkip = 1,
} Fp8ZeroAmaxPolicy;

//===----------------------------------------------------------------------===//
// #fp8.granularity
//===----------------------------------------------------------------------===//

/// A block extent that spans a whole dimension (printed `*`).
#define FP8_GRANULARITY_FULL ((int64_t)-1)

/// `#fp8.granularity<B0 x B1 x ...>` for `numDims` block extents (each
/// positive or FP8_GRANULARITY_FULL); `numDims` = 0 gives `<tensor>`.
MLIR_CAPI_EXPORTED MlirAttribute fp8GranularityAttrGet(MlirContext ctx,
                                                       intptr_t numDims,
                                                       const int64_t *block);

MLIR_CAPI_EXPORTED bool fp8AttributeIsAGranularity(MlirAttribute attr);

/// Whether the granularity is `<tensor>` (one scale for the whole tensor).
MLIR_CAPI_EXPORTED bool fp8GranularityAttrIsTensor(MlirAttribute attr);

/// The number of block extents (0 for `<tensor>`) and the extent at `pos`.
MLIR_CAPI_EXPORTED intptr_t fp8GranularityAttrGetNumDims(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t fp8GranularityAttrGetDim(MlirAttribute attr,
                                                    intptr_t pos);

/// Writes into `scaleShape` (of `rank` entries) the shape of the scale
/// tensor of data of `shape` (`rank` entries, at least the number of block
/// extents): ceil(shape / block). Returns false if the rank is too small.
MLIR_CAPI_EXPORTED bool fp8GranularityAttrGetScaleShape(MlirAttribute attr,
                                                        intptr_t rank,
                                                        const int64_t *shape,
                                                        int64_t *scaleShape);

//===----------------------------------------------------------------------===//
// #fp8.format
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED MlirAttribute fp8FormatAttrGet(MlirContext ctx,
                                                  Fp8Format format);
MLIR_CAPI_EXPORTED bool fp8AttributeIsAFormat(MlirAttribute attr);
MLIR_CAPI_EXPORTED Fp8Format fp8FormatAttrGetValue(MlirAttribute attr);

/// The builtin element type of a format (f8E4M3FN, f8E5M2, f4E2M1FN,
/// f6E2M3FN, f6E3M2FN).
MLIR_CAPI_EXPORTED MlirType fp8FormatGetElementType(MlirContext ctx,
                                                    Fp8Format format);

//===----------------------------------------------------------------------===//
// #fp8.rule
//===----------------------------------------------------------------------===//

/// `#fp8.rule<kind, margin = margin, eps = eps>`. `margin` and `eps` apply
/// to `ratio` and `pow2` only and must be 0 for the other rules.
MLIR_CAPI_EXPORTED MlirAttribute fp8ScaleRuleAttrGet(MlirContext ctx,
                                                     Fp8ScaleRuleKind kind,
                                                     int32_t margin, float eps);
MLIR_CAPI_EXPORTED bool fp8AttributeIsAScaleRule(MlirAttribute attr);
MLIR_CAPI_EXPORTED Fp8ScaleRuleKind fp8ScaleRuleAttrGetKind(MlirAttribute attr);
MLIR_CAPI_EXPORTED int32_t fp8ScaleRuleAttrGetMargin(MlirAttribute attr);
MLIR_CAPI_EXPORTED float fp8ScaleRuleAttrGetEps(MlirAttribute attr);

//===----------------------------------------------------------------------===//
// #fp8.recipe
//===----------------------------------------------------------------------===//

/// `#fp8.recipe<kind>` with the recipe's default knobs.
MLIR_CAPI_EXPORTED MlirAttribute fp8RecipeAttrGet(MlirContext ctx,
                                                  Fp8RecipeKind kind);

/// `#fp8.recipe<kind, ...>` with every knob given: the power-of-two margin
/// of ratio scales, the delayed-scaling history length and reduction, the
/// zero-amax policy and the promotion interval (k32 steps, 0 = none).
MLIR_CAPI_EXPORTED MlirAttribute fp8RecipeAttrGetWithKnobs(
    MlirContext ctx, Fp8RecipeKind kind, int32_t margin, int64_t history,
    Fp8AmaxAlgo algo, Fp8ZeroAmaxPolicy zeroAmax, int64_t promote);

MLIR_CAPI_EXPORTED bool fp8AttributeIsARecipe(MlirAttribute attr);
MLIR_CAPI_EXPORTED Fp8RecipeKind fp8RecipeAttrGetKind(MlirAttribute attr);
MLIR_CAPI_EXPORTED int32_t fp8RecipeAttrGetMargin(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t fp8RecipeAttrGetHistory(MlirAttribute attr);
MLIR_CAPI_EXPORTED Fp8AmaxAlgo fp8RecipeAttrGetAlgo(MlirAttribute attr);
MLIR_CAPI_EXPORTED Fp8ZeroAmaxPolicy
fp8RecipeAttrGetZeroAmax(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t fp8RecipeAttrGetPromote(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif // FP8_C_DIALECT_FP8_H
