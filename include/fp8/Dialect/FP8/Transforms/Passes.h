//===- Passes.h - fp8 graph passes ------------------------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_TRANSFORMS_PASSES_H
#define FP8_DIALECT_FP8_TRANSFORMS_PASSES_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Target/Chip.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;

namespace fp8 {

#define GEN_PASS_DECL
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"

/// Patterns that fuse amax + compute_scale + quantize chains into
/// fp8.dynamic_quantize and merge two dynamic quantizations of one input into
/// a row-wise/column-wise pair.
void populateFuseDynamicQuantizePatterns(RewritePatternSet &patterns);

/// Patterns that lower arith.truncf, arith.extf and fp8.convert on small float
/// types to integer arithmetic. (The pass also turns small-float constants
/// into integer constants, after these patterns ran.)
void populateExpandFloatCastsPatterns(RewritePatternSet &patterns);

/// Patterns that rewrite the math functions whose numerics docs/numerics.md
/// specifies (math.erf and math.exp on f32, bf16 and f16) into that
/// arithmetic. `benefit` lets them take precedence over upstream
/// approximations of the same ops.
void populateExpandMathPatterns(RewritePatternSet &patterns,
                                PatternBenefit benefit = 1);

/// Patterns that compute the math functions docs/numerics.md does not
/// specify by an expansion of its own (tanh, log, log2, log1p, expm1, atan,
/// ...) by upstream's polynomial approximations (section 18), which the CPU
/// pipeline (fp8-expand-math) and the GPU kernels both apply, so that both
/// compute the same bits.
void populateUnspecifiedMathPatterns(RewritePatternSet &patterns);

/// Patterns that move fp8.dynamic_quantize, fp8.quantize and fp8.amax above
/// transposes, reshapes and broadcasts where the results are unchanged.
void populatePropagateScalesPatterns(RewritePatternSet &patterns);

/// Patterns that replace fp8.amax, fp8.compute_scale, fp8.quantize (RNE) and
/// fp8.dynamic_quantize of constants with constants, bit-identical to the
/// run-time results, for tensors of at most `maxElements` elements.
void populateQuantizeConstantsPatterns(RewritePatternSet &patterns,
                                       int64_t maxElements);

#define GEN_PASS_REGISTRATION
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"

} // namespace fp8
} // namespace mlir

#endif // FP8_DIALECT_FP8_TRANSFORMS_PASSES_H
