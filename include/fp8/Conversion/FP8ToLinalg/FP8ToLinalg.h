//===- FP8ToLinalg.h - fp8 ops to linalg ------------------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_CONVERSION_FP8TOLINALG_FP8TOLINALG_H
#define FP8_CONVERSION_FP8TOLINALG_FP8TOLINALG_H

namespace mlir {
class ConversionTarget;
class RewritePatternSet;

namespace fp8 {

/// Patterns lowering every fp8 tensor op except fp8.convert to linalg, arith,
/// math, scf and tensor ops with the reference semantics of numerics.md.
void populateFP8ToLinalgPatterns(RewritePatternSet &patterns);

/// Marks the fp8 dialect illegal except fp8.convert, and the dialects the
/// patterns produce legal.
void configureFP8ToLinalgTarget(ConversionTarget &target);

} // namespace fp8
} // namespace mlir

#endif // FP8_CONVERSION_FP8TOLINALG_FP8TOLINALG_H
