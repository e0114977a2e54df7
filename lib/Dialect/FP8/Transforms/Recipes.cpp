//===- Recipes.cpp - What each FP8 training recipe does to a GEMM ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Transforms/Recipes.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::fp8;

static constexpr llvm::StringRef kRecipeNames[] = {
    "tensor-delayed", "tensor-current", "rowwise",   "deepseek",
    "mxfp8",          "nvfp4",          "graphcore", "unit"};

ArrayRef<StringRef> mlir::fp8::getRecipeNames() { return kRecipeNames; }

std::optional<RecipeKind> mlir::fp8::parseRecipeName(StringRef name) {
  std::string keyword = name.str();
  llvm::replace(keyword, '-', '_');
  return symbolizeRecipeKind(keyword);
}

namespace {

/// The formats of numerics.md section 6: (forward, gradient).
std::pair<Format, Format> defaultFormats(RecipeKind kind) {
  switch (kind) {
  case RecipeKind::TensorDelayed:
  case RecipeKind::TensorCurrent:
  case RecipeKind::Graphcore:
  case RecipeKind::Unit:
    return {Format::E4M3, Format::E5M2};
  case RecipeKind::Rowwise:
  case RecipeKind::DeepSeek:
  case RecipeKind::MXFP8:
    return {Format::E4M3, Format::E4M3};
  case RecipeKind::NVFP4:
    return {Format::E2M1, Format::E2M1};
  }
  llvm_unreachable("unknown recipe");
}

/// Builds granularities of the operand as stored; `alongRows` says that K
/// runs along the stored rows (A [M, K], B [N, K]).
struct GranularityBuilder {
  MLIRContext *ctx;

  GranularityAttr tensor() { return GranularityAttr::getTensor(ctx); }
  /// One scale per row (or column) of K values.
  GranularityAttr axis(bool alongRows) {
    int64_t full = GranularityAttr::kFull;
    return GranularityAttr::get(ctx, alongRows ? ArrayRef<int64_t>{1, full}
                                               : ArrayRef<int64_t>{full, 1});
  }
  /// Blocks of `size` values along K.
  GranularityAttr line(bool alongRows, int64_t size) {
    return GranularityAttr::get(ctx, alongRows ? ArrayRef<int64_t>{1, size}
                                               : ArrayRef<int64_t>{size, 1});
  }
  GranularityAttr square(int64_t size) {
    return GranularityAttr::get(ctx, {size, size});
  }
};

} // namespace

GemmPlan mlir::fp8::planGemm(MLIRContext *ctx, const RecipeOptions &options,
                             GemmRole role, unsigned gradientOperand,
                             bool transposeLhs, bool transposeRhs) {
  auto [forward, gradient] = defaultFormats(options.kind);
  forward = options.forwardFormat.value_or(forward);
  gradient = options.gradientFormat.value_or(gradient);
  bool backward = role != GemmRole::FProp;
  // K runs along the rows of A [M, K] and of B stored [N, K].
  bool lhsAlongRows = !transposeLhs;
  bool rhsAlongRows = transposeRhs;
  // B is a weight in fprop and dgrad; in wgrad both operands are
  // activations or gradients.
  bool rhsIsWeight = role != GemmRole::WGrad;

  GemmPlan plan;
  plan.lhs.format = backward && gradientOperand == 0 ? gradient : forward;
  plan.rhs.format = backward && gradientOperand == 1 ? gradient : forward;

  GranularityBuilder g{ctx};
  ScaleRuleKind rule = ScaleRuleKind::Ratio;
  switch (options.kind) {
  case RecipeKind::TensorDelayed:
    plan.delayed = true;
    [[fallthrough]];
  case RecipeKind::TensorCurrent:
    plan.lhs.granularity = plan.rhs.granularity = g.tensor();
    break;
  case RecipeKind::Graphcore:
    rule = ScaleRuleKind::Pow2Bias;
    plan.lhs.granularity = plan.rhs.granularity = g.tensor();
    break;
  case RecipeKind::Unit:
    rule = ScaleRuleKind::Static;
    plan.lhs.granularity = plan.rhs.granularity = g.tensor();
    break;
  case RecipeKind::Rowwise:
    rule = ScaleRuleKind::Pow2;
    plan.lhs.granularity = g.axis(lhsAlongRows);
    plan.rhs.granularity = g.axis(rhsAlongRows);
    break;
  case RecipeKind::DeepSeek:
    rule = ScaleRuleKind::Pow2;
    plan.lhs.granularity = g.line(lhsAlongRows, 128);
    plan.rhs.granularity =
        rhsIsWeight ? g.square(128) : g.line(rhsAlongRows, 128);
    break;
  case RecipeKind::MXFP8:
    rule = options.e8m0Rule;
    plan.lhs.granularity = g.line(lhsAlongRows, 32);
    plan.rhs.granularity = g.line(rhsAlongRows, 32);
    break;
  case RecipeKind::NVFP4:
    rule = ScaleRuleKind::NVFP4;
    plan.lhs.granularity = g.line(lhsAlongRows, 16);
    plan.rhs.granularity =
        rhsIsWeight ? g.square(16) : g.line(rhsAlongRows, 16);
    // Stochastic rounding on gradients.
    plan.lhs.stochastic = backward && gradientOperand == 0;
    plan.rhs.stochastic = backward && gradientOperand == 1;
    break;
  }
  int32_t margin = (rule == ScaleRuleKind::Ratio || rule == ScaleRuleKind::Pow2)
                       ? options.margin
                       : 0;
  plan.rule = ScaleRuleAttr::get(ctx, rule, margin, llvm::APFloat(0.0f));
  return plan;
}
