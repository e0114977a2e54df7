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
    (`fp8.scaled_matmul`), how delayed-scaling state advances from one step
    to the next (`fp8.update_delayed_scale`) and how optimizer state is stored
    in FP8 with per-group dynamic range expansion (`fp8.expand_quantize`,
    `fp8.expand_dequantize`).

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

    **Discardable attributes.** Graph passes read and write these attributes
    on ops of other dialects; the dialect verifies each one's kind and
    values wherever it appears, and rejects any other `fp8.*` attribute.

    | attribute | kind | meaning |
    |---|---|---|
    | `fp8.role` | `#fp8.gemm_role` | which GEMM of a linear layer a contraction is; marks it for `fp8-autocast` |
    | `fp8.grad_operand` | integer 0 or 1 | the gradient operand of a backward contraction: 0 the left, 1 the right |
    | `fp8.name` | non-empty string | names a contraction for `fp8-autocast`'s `exclude` option and its delayed-scaling state |
    | `fp8.autocast` | unit | marks a contraction for `fp8-autocast` |
    | `fp8.unit_op` | string: a `UnitOpKind` keyword | what an op is to `fp8-unit-scale`, such as `"gelu_grad"`; `"none"` leaves it alone |
    | `fp8.unit_dim` | non-negative integer | the softmax dimension of `"softmax_grad"` |
    | `fp8.unit_scale` | finite float | an explicit `fp8-unit-scale` factor for an op's result |
    | `fp8.residual_tau` | positive finite float | the residual weight tau of one add |
    | `fp8.unit_scaled` | unit | set by `fp8-unit-scale` on ops it rewrote, so that a second run skips them |
    | `fp8.plans` | dictionary of dictionaries | on a `builtin.module`: the GPU launch plan of each function `convert-fp8-to-gpu` lowered, by function name |
    | `fp8.prepare_group` | non-empty string | on a function: the functions with the same group read the same weights and share one prepare function, `@<group>_prepare` (`fp8-prepare-weights`) |
    | `fp8.prepare` | flat symbol reference | on a function: the prepare function whose results the arguments marked `fp8.prepared` take, set by `fp8-prepare-weights` |

    A contraction marked for `fp8-autocast` (`fp8.role` or `fp8.autocast`)
    that the pass cannot convert is an error. Which ops `fp8.unit_op`,
    `fp8.unit_scale` and `fp8.unit_dim` fit is checked by `fp8-unit-scale`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let discardableAttrs = (ins
    "::mlir::fp8::GemmRoleAttr":$role,
    "::mlir::IntegerAttr":$grad_operand,
    "::mlir::StringAttr":$name,
    "::mlir::UnitAttr":$autocast,
    "::mlir::StringAttr":$unit_op,
    "::mlir::IntegerAttr":$unit_dim,
    "::mlir::FloatAttr":$unit_scale,
    "::mlir::FloatAttr":$residual_tau,
    "::mlir::UnitAttr":$unit_scaled,
    "::mlir::DictionaryAttr":$plans,
    "::mlir::StringAttr":$prepare_group,
    "::mlir::FlatSymbolRefAttr":$prepare
  );
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class FP8_Op<string mnemonic, list<Trait> traits = []>
    : Op<FP8_Dialect, mnemonic, traits>;

#endif // FP8_DIALECT_FP8_IR_FP8DIALECT_TD
