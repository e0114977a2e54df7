//===- Recipes.h - What each FP8 training recipe does to a GEMM -*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The recipes of docs/numerics.md section 6 as data: for one GEMM
// C = A x B (A the left/activation operand, B the right/weight operand,
// contracting over K), in a given role (fprop, dgrad, wgrad), which format,
// granularity and scale rule each operand gets. fp8-autocast applies these
// plans; other compilers can ask for them directly.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_TRANSFORMS_RECIPES_H
#define FP8_DIALECT_FP8_TRANSFORMS_RECIPES_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::fp8 {

/// A recipe with the knobs users may set.
struct RecipeOptions {
  RecipeKind kind = RecipeKind::TensorCurrent;
  /// Formats of forward operands and of gradient operands; unset means the
  /// recipe's default (numerics.md section 6).
  std::optional<Format> forwardFormat;
  std::optional<Format> gradientFormat;
  int32_t margin = 0;
  int64_t history = 1024;
  AmaxAlgo amaxAlgo = AmaxAlgo::Max;
  ZeroAmaxPolicy zeroAmax = ZeroAmaxPolicy::Roll;
  /// e8m0_rceil (default) or e8m0_floor for mxfp8.
  ScaleRuleKind e8m0Rule = ScaleRuleKind::E8M0RCeil;
  int64_t promoteInterval = 4;
};

/// How one operand is quantized.
struct OperandPlan {
  Format format;
  /// Relative to the operand as stored (A: [M, K] or, transposed, [K, M];
  /// B: [K, N] or, transposed, [N, K]); blocks run along K.
  GranularityAttr granularity;
  /// Stochastic rounding (NVFP4 gradients).
  bool stochastic = false;
};

/// How one GEMM is converted.
struct GemmPlan {
  OperandPlan lhs, rhs;
  /// The scale rule; `static` for unit scaling (scale 1, no amax).
  ScaleRuleAttr rule;
  /// Scales come from delayed-scaling state (tensor-delayed).
  bool delayed = false;
};

/// The recipe names of the fp8-autocast option, in documentation order.
llvm::ArrayRef<llvm::StringRef> getRecipeNames();

/// Parses a recipe name (`tensor-delayed` or `tensor_delayed`).
std::optional<RecipeKind> parseRecipeName(llvm::StringRef name);

/// The plan for a GEMM of `role` under `options`. `gradientOperand` (0 = A,
/// 1 = B) names the gradient in dgrad and wgrad; `transposeLhs` and
/// `transposeRhs` say how A and B are stored.
GemmPlan planGemm(MLIRContext *ctx, const RecipeOptions &options, GemmRole role,
                  unsigned gradientOperand, bool transposeLhs,
                  bool transposeRhs);

} // namespace mlir::fp8

#endif // FP8_DIALECT_FP8_TRANSFORMS_RECIPES_H
