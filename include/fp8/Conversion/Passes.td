//===- Passes.td - fp8-mlir lowerings ----------------------*- tablegen -*-===//
//
// Part of fp8-mlir. One pass per conversion; each conversion lives in its own
// folder under lib/Conversion.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_CONVERSION_PASSES_TD
#define FP8_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFP8ToLinalg : Pass<"convert-fp8-to-linalg"> {
  let summary = "Lower fp8 ops to linalg, arith and tensor with their reference semantics";
  let description = [{
    Gives every fp8 op its reference meaning (docs/numerics.md) as linalg on
    tensors, target neutral:

    * `fp8.amax`: a linalg reduction per block (floordiv indexing maps, so
      ragged last blocks reduce over their valid elements only), with
      `arith.maxnumf` (NaN policy `ignore`) or `arith.maximumf` (`propagate`).
    * `fp8.compute_scale`: the scale rule elementwise.
    * `fp8.quantize` / `fp8.dequantize`: one f32 multiply by the element's
      multiplier, then `fp8.convert` (encode) or an exact widening (decode).
    * `fp8.dynamic_quantize`: the amax, scale and quantize ops it is defined
      as, plus `linalg.transpose` for a transposed column-wise copy.
    * `fp8.scaled_matmul`: decode both operands to f32, a linalg contraction
      accumulating in f32 in K order, bias, output amax, output conversion.
    * `fp8.update_delayed_scale`: history record, reduction, scale update and
      roll on tensors.

    `fp8.convert` stays: `fp8-expand-float-casts` (CPU) or a GPU lowering
    implements it.

    Example:
    ```mlir
    %q = fp8.quantize %x, %s by <tensor>
        : tensor<4x8xf32>, tensor<1x1xf32> -> tensor<4x8xf8E4M3FN>
    ```
    becomes a `linalg.generic` whose body is `arith.mulf` and `fp8.convert`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // FP8_CONVERSION_PASSES_TD
