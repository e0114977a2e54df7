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

/// Checks `op` against the tensor cores of `chip` as fp8-legalize-layout
/// does (formats, scale blocks along K, 16-byte TMA rows, operand
/// majorness), without fixing anything: every violation is an error on `op`
/// that says what to change. GPU lowerings call it before generating code.
LogicalResult verifyTensorCoreLegality(ScaledMatmulOp op, Chip chip);

} // namespace mlir::fp8

#endif // FP8_DIALECT_FP8_TRANSFORMS_LAYOUTLEGALITY_H
