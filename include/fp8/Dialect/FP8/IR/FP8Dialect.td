//===- FP8Dialect.td - fp8 dialect definition --------------*- tablegen -*-===//
//
// Part of fp8-mlir. The `fp8` dialect makes low-precision scaling explicit IR.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_IR_FP8DIALECT_TD
#define FP8_DIALECT_FP8_IR_FP8DIALECT_TD

include "mlir/IR/OpBase.td"

def FP8_Dialect : Dialect {
  let name = "fp8";
  let cppNamespace = "::mlir::fp8";
  let summary = "Scaled FP8, MX and NVFP4 arithmetic as explicit, verifiable IR";
  let description = [{
    The `fp8` dialect describes low-precision scaled arithmetic on tensors: how
    a high-precision tensor is measured (`fp8.amax`), how a scale is derived
    from the measurement (`fp8.compute_scale`), how data is encoded and decoded
    with that scale (`fp8.quantize`, `fp8.dequantize`, the fused
    `fp8.dynamic_quantize`), how scaled operands are multiplied
    (`fp8.scaled_matmul`) and how delayed-scaling state advances from one step
    to the next (`fp8.update_delayed_scale`).

    Element formats are MLIR's builtin types `f8E4M3FN`, `f8E5M2`, `f4E2M1FN`,
    `f6E2M3FN` and `f6E3M2FN`; scales are `f32`, `f8E8M0FNU` (MX) or
    `f8E4M3FN` (NVFP4 block scales, always paired with a global `f32` scale).

    Every choice that changes the numbers is an attribute: the scaling
    granularity (`#fp8.granularity`), the scale rule (`#fp8.rule`), rounding,
    overflow and the NaN policy of amax. The exact arithmetic each op performs
    is specified in `docs/numerics.md`.

    **Scale conventions.** A scale tensor has the rank of the data it scales
    and the shape `ceil(shape / block)` per dimension. `f32` scales given to
    `fp8.quantize` are *encode* multipliers `s` (`q = RNE(fl32(x * s))`); `f32`
    scales given to `fp8.dequantize` and `fp8.scaled_matmul` are *decode*
    multipliers (`x ~= q * s_inv`). `f8E8M0FNU` and `f8E4M3FN` scales are
    always the stored decode scale, and quantization derives the element
    multiplier from them exactly.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class FP8_Op<string mnemonic, list<Trait> traits = []>
    : Op<FP8_Dialect, mnemonic, traits>;

#endif // FP8_DIALECT_FP8_IR_FP8DIALECT_TD
