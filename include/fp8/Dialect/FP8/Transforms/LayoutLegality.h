//===- LayoutLegality.h - Tensor-core legality of scaled GEMMs --*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_TRANSFORMS_LAYOUTLEGALITY_H
#define FP8_DIALECT_FP8_TRANSFORMS_LAYOUTLEGALITY_H

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Target/Chip.h"

namespace mlir::fp8 {

/// A scaled matmul in the GEMM kernels' terms, C[M, N] = A[M, K] x B[N, K]^T
/// (for each of `batches` matrices of a batched op), with its scale blocks
/// over A and B whatever the operands' storage.
struct ScaledGemmShape {
  int64_t m = 0, n = 0, k = 0;
  /// The leading dimension of a rank-3 op (1 for rank 2).
  int64_t batches = 1;
  /// Operands stored K-major in the op (A as [M, K], B as [N, K]).
  bool aKMajor = true, bKMajor = true;
  /// Rows (of M or N) and elements of K per scale, clamped to the extents.
  int64_t aRows = 1, aK = 1, bRows = 1, bK = 1;
  /// A's block along K as declared (a 1x32 block stays 32 when K is 16).
  int64_t declaredK = 1;
  Type scaleElement;
};

/// The shape of `op`: of each matrix of the batch when it has rank 3.
ScaledGemmShape describeScaledGemm(ScaledMatmulOp op);

/// Checks `op` against the tensor cores of `chip` as fp8-legalize-layout
/// does (formats, scale blocks along K, 16-byte TMA rows, operand
/// majorness), without fixing anything: every violation is an error on `op`
/// that says what to change. GPU lowerings call it before generating code.
LogicalResult verifyTensorCoreLegality(ScaledMatmulOp op, Chip chip);

} // namespace mlir::fp8

#endif // FP8_DIALECT_FP8_TRANSFORMS_LAYOUTLEGALITY_H
