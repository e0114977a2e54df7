//===- SavedActivations.h - FP8 storage of saved activations ----*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// fp8-autocast's `saved-activations` option (COAT's activation memory): the
// forward values that a backward graph's gradient nonlinearities read are
// stored as FP8 codes with per-group scales.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_LIB_DIALECT_FP8_TRANSFORMS_SAVEDACTIVATIONS_H
#define FP8_LIB_DIALECT_FP8_TRANSFORMS_SAVEDACTIVATIONS_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::fp8 {

/// Quantizes, in `function`, every saved activation: an operand of an op
/// marked `fp8.unit_op` (a gradient nonlinearity such as GELU's or
/// softmax's) that is not itself a gradient. Gradients are the values
/// computed from the results of ops marked `fp8.role` or `fp8.unit_op` and
/// from the gradient operands (`fp8.grad_operand`) of the `fp8.role` ones.
/// Each such value is quantized once to `format` by groups of `group`
/// elements along its last dimension (pow2 scales of each group's amax) and
/// dequantized where the nonlinearity reads it. Remarks (category
/// `fp8-autocast`) give the bytes before and after for each value. Returns
/// the bytes saved: high-precision bytes minus codes and scales.
int64_t quantizeSavedActivations(FunctionOpInterface function, int64_t group,
                                 Format format);

} // namespace mlir::fp8

#endif // FP8_LIB_DIALECT_FP8_TRANSFORMS_SAVEDACTIVATIONS_H
