//===- Passes.td - fp8 graph passes ------------------------*- tablegen -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_TRANSFORMS_PASSES_TD
#define FP8_DIALECT_FP8_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FP8FuseDynamicQuantize : Pass<"fp8-fuse-dynamic-quantize"> {
  let summary = "Fuse amax + compute_scale + quantize chains into fp8.dynamic_quantize";
  let description = [{
    Current scaling is often written as three ops: measure the input
    (`fp8.amax`), derive the scale (`fp8.compute_scale`) and encode
    (`fp8.quantize`). This pass replaces such a chain with one
    `fp8.dynamic_quantize`, whose results are bit-identical by definition, so
    that a lowering reads the input once. The decode scale of the chain
    (`scale_inv` for f32 rules, the E8M0 scale itself for MX rules) is replaced
    by the fused op's scale result. The amax and encode scale stay where other
    users need them.

    It then merges two `fp8.dynamic_quantize` ops of the same input, rule,
    overflow mode and NaN policy into one op producing both copies (the second
    as the column-wise copy), which is how a linear layer gets its row-wise and
    column-wise operands from a single read.

    NVFP4 chains (two-level scales) are left alone.

    Before:
    ```mlir
    %a = fp8.amax %x by <1x32> : tensor<64x128xbf16> -> tensor<64x4xf32>
    %e = fp8.compute_scale %a rule <e8m0_rceil> for <e4m3>
        : tensor<64x4xf32> -> tensor<64x4xf8E8M0FNU>
    %q = fp8.quantize %x, %e by <1x32>
        : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf8E4M3FN>
    ```
    After:
    ```mlir
    %q, %e = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil>
        : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
    ```
  }];
  let dependentDialects = ["::mlir::fp8::FP8Dialect"];
}

def FP8ExpandFloatCasts : Pass<"fp8-expand-float-casts"> {
  let summary = "Lower conversions to and from small float formats into integer arithmetic";
  let description = [{
    Rewrites every conversion that involves `f8E4M3FN`, `f8E5M2`,
    `f8E8M0FNU`, `f4E2M1FN`, `f6E2M3FN` or `f6E3M2FN` into integer and
    bit-cast arithmetic that any LLVM target (the CPU included) can run:

    * `arith.truncf` and `arith.extf` keep their upstream meaning, that of LLVM
      APFloat: round to nearest even, E4M3FN overflow to NaN, E5M2 overflow to
      infinity. (Two APFloat quirks are kept as well: finite-only formats turn
      infinities and NaN into zero. One is not: `f8E8M0FNU` code 0xFF widens
      to NaN, where APFloat produces the bits of infinity.)
    * `fp8.convert` follows its own rounding (`rne`, `stochastic`, and for
      E8M0 `rceil` and `floor`) and overflow (`saturate`, `nonfinite`)
      attributes.
    * `arith.constant` of these element types becomes an integer constant and
      a bit cast, so constants reach the LLVM dialect as plain integers.

    Scalars, vectors and statically shaped tensors are handled alike, so the
    conversions vectorize. Conversions from f16 and bf16 round once, directly.
    `arith.truncf` with a rounding mode other than to-nearest-even on these
    types is reported as an error. The results match LLVM APFloat bit for bit
    on every f16 and bf16 input, every code, and 10^7 random f32 inputs per
    format (unittests/Dialect/FP8/Utils/SoftFloatTest.cpp).

    Example:
    ```mlir
    %y = arith.truncf %x : f32 to f8E4M3FN
    ```
    becomes integer arithmetic on `arith.bitcast %x : f32 to i32` ending in
    `arith.bitcast %code : i8 to f8E4M3FN`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}

#endif // FP8_DIALECT_FP8_TRANSFORMS_PASSES_TD
