//===- FP8Ops.td - fp8 dialect operations ------------------*- tablegen -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_IR_FP8OPS_TD
#define FP8_DIALECT_FP8_IR_FP8OPS_TD

include "fp8/Dialect/FP8/IR/FP8Attrs.td"
include "fp8/Dialect/FP8/IR/FP8Dialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def FP8_WideFloat : AnyTypeOf<[F32, BF16, F16]>;
def FP8_NarrowFloat
    : AnyTypeOf<[F8E4M3FN, F8E5M2, F4E2M1FN, F6E2M3FN, F6E3M2FN]>;
def FP8_ScaleFloat : AnyTypeOf<[F32, F8E8M0FNU, F8E4M3FN]>;

def FP8_WideTensor : RankedTensorOf<[FP8_WideFloat]>;
def FP8_WideFloatLike
    : TypeOrValueSemanticsContainer<FP8_WideFloat, "f32, bf16 or f16">;
def FP8_CodeFloat : AnyTypeOf<[F8E4M3FN, F8E5M2, F4E2M1FN, F6E2M3FN, F6E3M2FN,
                               F8E8M0FNU]>;
def FP8_CodeFloatLike
    : TypeOrValueSemanticsContainer<FP8_CodeFloat, "low-precision float">;
def FP8_I32Like : TypeOrValueSemanticsContainer<I32, "i32">;
def FP8_NarrowTensor : RankedTensorOf<[FP8_NarrowFloat]>;
def FP8_ScaleTensor : RankedTensorOf<[FP8_ScaleFloat]>;
def FP8_F32Tensor : RankedTensorOf<[F32]>;

//===----------------------------------------------------------------------===//
// AmaxOp
//===----------------------------------------------------------------------===//

def FP8_AmaxOp : FP8_Op<"amax", [Pure]> {
  let summary = "Largest magnitude per scaling block";
  let description = [{
    Computes `max |x|` over every block of `granularity`, in f32. The result
    has the scale shape of the granularity. With `nan <ignore>` (the default)
    NaN elements do not contribute and an all-NaN block gives 0; with
    `nan <propagate>` a NaN element makes its block's amax NaN. The maximum
    is exact, so the result does not depend on reduction order.

    ```mlir
    %a = fp8.amax %x by <1x128> : tensor<256x512xbf16> -> tensor<256x4xf32>
    %t = fp8.amax %x by <tensor> nan <propagate>
        : tensor<256x512xbf16> -> tensor<1x1xf32>
    ```
  }];
  let arguments = (ins
    RankedTensorOf<[AnyFloat]>:$input,
    FP8_GranularityAttr:$granularity,
    DefaultValuedAttr<FP8_NanPolicyAttr, "NanPolicy::Ignore">:$nan_policy);
  let results = (outs FP8_F32Tensor:$amax);
  let assemblyFormat = [{
    $input `by` $granularity (`nan` $nan_policy^)? attr-dict
    `:` type($input) `->` type($amax)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// ComputeScaleOp
//===----------------------------------------------------------------------===//

def FP8_ComputeScaleOp : FP8_Op<"compute_scale", [Pure]> {
  let summary = "Derive scales from amax values by a scale rule";
  let description = [{
    Applies `rule` elementwise to `amax` for data of element format `format`
    (which sets `fmax`). The result element type follows the rule:

    | rule | `scale` | `scale_inv` |
    |---|---|---|
    | `ratio`, `pow2`, `pow2_bias` | f32 encode multiplier `s` | optional f32 `1/s` |
    | `e8m0_rceil`, `e8m0_floor` | `f8E8M0FNU` decode scale | none |
    | `nvfp4`, one operand | f32 global encode scale `S` | optional f32 `1/S` |
    | `nvfp4`, with `global` | `f8E4M3FN` block decode scale | none |

    For `nvfp4` the rule has two levels: given only the global amax it
    computes `S = min(448 * 6 / amax, FLT_MAX)` (1 when amax is 0); given block
    amaxes and `S` (the `global` operand) it computes the E4M3 block scales
    `RNE_sat(amax * fl32(S * fl32(1/6)))`.

    ```mlir
    %s, %s_inv = fp8.compute_scale %amax rule <ratio> for <e4m3>
        : tensor<1x1xf32> -> tensor<1x1xf32>, tensor<1x1xf32>
    %e = fp8.compute_scale %amax rule <e8m0_rceil> for <e4m3>
        : tensor<128x16xf32> -> tensor<128x16xf8E8M0FNU>
    %sb = fp8.compute_scale %bamax global(%S : tensor<1x1xf32>) rule <nvfp4>
        for <e2m1> : tensor<128x4xf32> -> tensor<128x4xf8E4M3FN>
    ```
  }];
  let arguments = (ins
    FP8_F32Tensor:$amax,
    Optional<FP8_F32Tensor>:$global_scale,
    FP8_ScaleRuleAttr:$rule,
    FP8_FormatAttr:$format);
  let results = (outs
    FP8_ScaleTensor:$scale,
    Optional<FP8_F32Tensor>:$scale_inv);
  let assemblyFormat = [{
    $amax (`global` `(` $global_scale^ `:` type($global_scale) `)`)?
    `rule` $rule `for` $format attr-dict
    `:` type($amax) `->` type($scale) (`,` type($scale_inv)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

def FP8_QuantizeOp : FP8_Op<"quantize", [Pure, AttrSizedOperandSegments]> {
  let summary = "Encode a tensor with given scales";
  let description = [{
    Encodes every element `x` of `input` as `q = ROUND_fmt(fl32(x * m))`: one
    f32 multiply, then one rounding to the result element type under
    `rounding` and `overflow` (`saturate` by default). The multiplier `m` of an
    element comes from the scale of its block:

    * `f32` scale `s`: `m = s` (the encode multiplier).
    * `f8E8M0FNU` scale with code `e`: `m = 2^(127 - e)`, exact.
    * `f8E4M3FN` block scale `sb` (NVFP4, `f4E2M1FN` data only) with the
      global encode scale `S` of the `global` operand:
      `m = min(1 / (float(sb) * (1 / S)), FLT_MAX)`.

    A NaN product takes the element's NaN: `x` itself when it is NaN, else
    the quiet NaN with `x`'s sign, as under the E8M0 NaN scale 0xFF (a zero
    of `x`'s sign in finite-only formats).

    Stochastic rounding takes one 32-bit random word per element (`rbits`).

    ```mlir
    %q = fp8.quantize %x, %s by <tensor>
        : tensor<64x128xbf16>, tensor<1x1xf32> -> tensor<64x128xf8E4M3FN>
    %m = fp8.quantize %x, %e by <1x32> overflow <nonfinite>
        : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf8E5M2>
    %n = fp8.quantize %x, %sb by <1x16> global(%S : tensor<1x1xf32>)
        : tensor<64x128xf32>, tensor<64x8xf8E4M3FN> -> tensor<64x128xf4E2M1FN>
    ```
  }];
  let arguments = (ins
    FP8_WideTensor:$input,
    FP8_ScaleTensor:$scale,
    Optional<FP8_F32Tensor>:$global_scale,
    Optional<RankedTensorOf<[I32]>>:$rbits,
    FP8_GranularityAttr:$granularity,
    DefaultValuedAttr<FP8_OverflowAttr, "Overflow::Saturate">:$overflow,
    DefaultValuedAttr<FP8_RoundingAttr, "Rounding::RNE">:$rounding);
  let results = (outs FP8_NarrowTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `by` $granularity
    (`global` `(` $global_scale^ `:` type($global_scale) `)`)?
    (`overflow` $overflow^)?
    (`rounding` $rounding^)?
    (`rbits` `(` $rbits^ `:` type($rbits) `)`)?
    attr-dict `:` type($input) `,` type($scale) `->` type($output)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$resultType, "::mlir::Value":$input,
                   "::mlir::Value":$scale, "GranularityAttr":$granularity), [{
      build($_builder, $_state, resultType, input, scale, /*global_scale=*/{},
            /*rbits=*/{}, granularity);
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

def FP8_DequantizeOp : FP8_Op<"dequantize", [Pure]> {
  let summary = "Decode a tensor with given scales";
  let description = [{
    Decodes every element as `fl32(float(q) * d)`, then rounds to the result
    type (RNE). The decode multiplier `d` of an element comes from its block:

    * `f32` scale: `d` is the scale (the decode multiplier `s_inv`).
    * `f8E8M0FNU` scale with code `e`: `d = 2^(e - 127)`; code 0xFF is NaN.
    * `f8E4M3FN` block scale `sb` with the global decode scale `G` of the
      `global` operand: `d = fl32(float(sb) * G)`.

    ```mlir
    %y = fp8.dequantize %q, %s_inv by <1x*>
        : tensor<64x128xf8E4M3FN>, tensor<64x1xf32> -> tensor<64x128xbf16>
    ```
  }];
  let arguments = (ins
    FP8_NarrowTensor:$input,
    FP8_ScaleTensor:$scale,
    Optional<FP8_F32Tensor>:$global_scale,
    FP8_GranularityAttr:$granularity);
  let results = (outs FP8_WideTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `by` $granularity
    (`global` `(` $global_scale^ `:` type($global_scale) `)`)?
    attr-dict `:` type($input) `,` type($scale) `->` type($output)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// DynamicQuantizeOp
//===----------------------------------------------------------------------===//

def FP8_DynamicQuantizeOp
    : FP8_Op<"dynamic_quantize", [Pure, AttrSizedResultSegments]> {
  let summary = "Fused amax, scale and encode, optionally with a column-wise copy";
  let description = [{
    Quantizes `input` with scales computed from its own amax ("current
    scaling"). Its results are bit-identical to the unfused sequence
    `fp8.amax` (with `nan_policy`), `fp8.compute_scale` (with `rule` and the
    format of `data`) and `fp8.quantize` (with `overflow`), and it returns the
    *decode* scale that `fp8.dequantize` and `fp8.scaled_matmul` take: `1/s`
    for f32 rules, the E8M0 or E4M3 block scale otherwise. With the `nvfp4`
    rule the `global` result holds the global decode scale `1/S`, computed
    from the amax of the whole tensor.

    `colwise` asks for a second copy quantized from the same input with a
    second granularity (for the backward GEMMs of a linear layer, numerics.md
    section 5), written by the same pass over memory. With `transposed` the
    copy and its scales are stored with the last two dimensions swapped, which
    is the K-major layout tensor cores need for that GEMM.

    `scale_layout` and `col_scale_layout` (`#fp8.tcgen05_scale_layout`) say
    that `scale` or `col_scale` is stored in the scale-factor layout of the
    sm_100a block-scaled GEMMs that read it; they need 2-D E8M0 or E4M3
    block scales. `fp8-assign-scale-layouts` sets them.

    ```mlir
    %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil>
        : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
    %q2, %s2, %qc, %sc = fp8.dynamic_quantize %x by <1x128>
        colwise <128x1> transposed rule <pow2>
        : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x4xf32>
          colwise tensor<512x256xf8E4M3FN>, tensor<512x2xf32>
    ```
  }];
  let arguments = (ins
    FP8_WideTensor:$input,
    FP8_GranularityAttr:$granularity,
    OptionalAttr<FP8_GranularityAttr>:$col_granularity,
    UnitAttr:$transposed,
    FP8_ScaleRuleAttr:$rule,
    DefaultValuedAttr<FP8_OverflowAttr, "Overflow::Saturate">:$overflow,
    DefaultValuedAttr<FP8_NanPolicyAttr, "NanPolicy::Ignore">:$nan_policy,
    OptionalAttr<FP8_Tcgen05ScaleLayoutAttr>:$scale_layout,
    OptionalAttr<FP8_Tcgen05ScaleLayoutAttr>:$col_scale_layout);
  let results = (outs
    FP8_NarrowTensor:$data,
    FP8_ScaleTensor:$scale,
    Optional<FP8_F32Tensor>:$global_scale,
    Optional<FP8_NarrowTensor>:$col_data,
    Optional<FP8_ScaleTensor>:$col_scale);
  let assemblyFormat = [{
    $input `by` $granularity
    (`colwise` $col_granularity^ (`transposed` $transposed^)?)?
    `rule` $rule
    (`overflow` $overflow^)?
    (`nan` $nan_policy^)?
    attr-dict `:` type($input) `->` type($data) `,` type($scale)
    (`global` type($global_scale)^)?
    (`colwise` type($col_data)^ `,` type($col_scale))?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

def FP8_ConvertOp : FP8_Op<"convert", [Pure, SameOperandsAndResultShape]
    # ElementwiseMappable.traits> {
  let summary = "Round a value to a low-precision format with explicit modes";
  let description = [{
    The elementwise conversion that the encode step of every fp8 op performs:
    one rounding of `input` (f32, bf16 or f16; scalar, vector or tensor) to
    the result format, with the rounding and overflow behaviour spelled out
    (`arith.truncf` has LLVM APFloat's meaning instead: RNE and `nonfinite`).

    * `rounding`: `rne` (default) or `stochastic` for every format; `rne`,
      `rceil` or `floor` for `f8E8M0FNU`. Stochastic rounding adds the low
      `min(d, 32)` bits of the i32 `rbits` word to the `d` bits of the
      input's significand that the result cannot hold, then truncates: it
      rounds away from zero with probability (discarded fraction), and a
      value more than 32 bits below the result's quantum truncates.
    * `overflow`: `saturate` (default) clamps finite overflow and infinities
      to the largest finite value of the sign; `nonfinite` gives infinity
      (E5M2) or NaN (E4M3FN, E8M0) instead. Finite-only formats (E2M1, E2M3,
      E3M2) always clamp, and a NaN input becomes a zero of the NaN's sign
      there (they have no NaN).
    * `f8E8M0FNU` is unsigned: zero and values below 2^-127 give code 0,
      negative values and NaN give the NaN code 0xFF.

    `fp8-expand-float-casts` lowers it to integer arithmetic for targets
    without native conversions; numerics.md section 2 has the test vectors.

    ```mlir
    %q = fp8.convert %x : f32 to f8E4M3FN
    %e = fp8.convert %v rounding <rceil> : vector<8xf32> to vector<8xf8E8M0FNU>
    %s = fp8.convert %x rounding <stochastic> rbits(%r : i32) overflow <nonfinite>
        : f32 to f8E5M2
    ```
  }];
  let arguments = (ins
    FP8_WideFloatLike:$input,
    Optional<FP8_I32Like>:$rbits,
    DefaultValuedAttr<FP8_RoundingAttr, "Rounding::RNE">:$rounding,
    DefaultValuedAttr<FP8_OverflowAttr, "Overflow::Saturate">:$overflow);
  let results = (outs FP8_CodeFloatLike:$output);
  let assemblyFormat = [{
    $input (`rounding` $rounding^)? (`rbits` `(` $rbits^ `:` type($rbits) `)`)?
    (`overflow` $overflow^)? attr-dict `:` type($input) `to` type($output)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$resultType, "::mlir::Value":$input,
                   "Rounding":$rounding, "Overflow":$overflow), [{
      build($_builder, $_state, resultType, input, /*rbits=*/::mlir::Value(),
            rounding, overflow);
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ScaledMatmulOp
//===----------------------------------------------------------------------===//

def FP8_ScaledMatmulOp
    : FP8_Op<"scaled_matmul", [Pure, AttrSizedOperandSegments,
                               AttrSizedResultSegments, NoTerminator]> {
  let summary = "Matrix product of scaled low-precision operands";
  let description = [{
    Computes `C = deq(A) x deq(B)` with f32 accumulation, where `deq` applies
    each operand's decode scales by its granularity (as `fp8.dequantize` to
    f32 would). `A` is `[M, K]` and `B` is `[K, N]`, or `[N, K]` with
    `transpose_rhs` (the K-major layout of tensor cores); `transpose_lhs`
    likewise stores `A` as `[K, M]`. Granularities and scale shapes refer to
    the operands as stored. A leading batch dimension is allowed on all of
    `A`, `B` and `C`.

    Then, in order: `bias` (`[N]`) is added in f32; `amax` (if requested)
    returns `max |C|` before output conversion, for the next delayed-scaling
    step; the result is rounded to its type. A narrow result type is encoded
    with `out_scale` (an f32 encode multiplier, saturating).

    `promote_interval` is the number of k32 steps a tensor core may accumulate
    at reduced precision before the partial sum is added into an f32
    accumulator (0 = tensor-core accumulation only). It is a performance and
    accuracy contract for GPU lowerings; the reference semantics above always
    accumulate in f32.

    ```mlir
    %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>)
        transpose_rhs promote_interval(4)
        : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>,
          tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xbf16>
    ```

    An optional `epilogue` region computes each element of the result from
    the product: the product is first rounded to the type of the region's
    first argument (f32, bf16 or f16, as an unfused product would be stored),
    then the region runs once per element of the result, its first argument
    that rounded product and one argument per `epilogue_ins` operand, the
    element read through the operand's map in `epilogue_maps` (maps of the
    result's indices: the identity for a tensor of the result's shape,
    `(m, n) -> (n)` for a row vector broadcast down the columns, and so on).
    `fp8.yield` returns the result element. The region holds what a
    `linalg.generic` body would (arith and math ops, constants); it is
    exactly the elementwise ops that followed the product, fused
    (fp8-fuse-epilogue), and computes bit-identically to them. Its `amax` is
    that of the yielded elements (NaN ignored), as `fp8.amax` of them would
    compute it: of all of them (one element), or of each row (`[M, 1]`). An FP8 result encodes the yielded f32, bf16 or f16 element
    with `out_scale` (as `fp8.quantize` by the tensor, saturating, would);
    any other result has the yielded type.

    With `quantize by <granularity> rule <rule>`, the FP8 result and its
    `scale` result are instead the yielded elements quantized by blocks, as
    `fp8.dynamic_quantize ... by <granularity> rule <rule>` of them would
    quantize them (amax per block with NaN ignored, the rule's scale,
    saturating round-to-nearest-even codes, decode scales returned): the
    codes and scales of a block-scaled activation written by the GEMM that
    produces it, without storing the high-precision values. It needs an
    epilogue (whose first argument says what the product is rounded to) and
    takes no `out_scale` or `amax`; the rule must not have a global scale.

    ```mlir
    %q, %s = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<1x128>, <128x128>)
        transpose_rhs quantize by <1x128> rule <pow2>
        : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>,
          tensor<256x4xf32>, tensor<3x4xf32> -> tensor<256x384xf8E4M3FN>,
          scale tensor<256x3xf32>
        epilogue {
        ^bb0(%c: bf16):
          fp8.yield %c : bf16
        }
    ```

    ```mlir
    %y = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>)
        transpose_rhs
        epilogue_ins(%bias : tensor<384xbf16>)
        epilogue_maps([affine_map<(m, n) -> (n)>])
        : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>,
          tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
        epilogue {
        ^bb0(%c: bf16, %b: bf16):
          %s = arith.addf %c, %b : bf16
          %zero = arith.constant 0.0 : bf16
          %r = arith.maximumf %s, %zero : bf16
          fp8.yield %r : bf16
        }
    ```
  }];
  let arguments = (ins
    FP8_NarrowTensor:$lhs,
    FP8_NarrowTensor:$rhs,
    FP8_ScaleTensor:$lhs_scale,
    FP8_ScaleTensor:$rhs_scale,
    Optional<FP8_F32Tensor>:$lhs_global_scale,
    Optional<FP8_F32Tensor>:$rhs_global_scale,
    Optional<FP8_WideTensor>:$bias,
    Optional<FP8_F32Tensor>:$out_scale,
    Variadic<AnyRankedTensor>:$epilogue_ins,
    FP8_GranularityAttr:$lhs_granularity,
    FP8_GranularityAttr:$rhs_granularity,
    UnitAttr:$transpose_lhs,
    UnitAttr:$transpose_rhs,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "4">:$promote_interval,
    OptionalAttr<FP8_RecipeAttr>:$recipe,
    OptionalAttr<FP8_GemmRoleAttr>:$role,
    OptionalAttr<AffineMapArrayAttr>:$epilogue_maps,
    OptionalAttr<FP8_GranularityAttr>:$out_granularity,
    OptionalAttr<FP8_ScaleRuleAttr>:$out_rule);
  let results = (outs
    RankedTensorOf<[FP8_WideFloat, FP8_NarrowFloat]>:$result,
    Optional<FP8_F32Tensor>:$amax,
    Optional<FP8_ScaleTensor>:$result_scale);
  let regions = (region MaxSizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $lhs `,` $rhs `scales` `(` $lhs_scale `,` $rhs_scale `)`
    `by` `(` $lhs_granularity `,` $rhs_granularity `)`
    (`lhs_global` `(` $lhs_global_scale^ `:` type($lhs_global_scale) `)`)?
    (`rhs_global` `(` $rhs_global_scale^ `:` type($rhs_global_scale) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`out_scale` `(` $out_scale^ `:` type($out_scale) `)`)?
    (`quantize` `by` $out_granularity^ `rule` $out_rule)?
    (`transpose_lhs` $transpose_lhs^)?
    (`transpose_rhs` $transpose_rhs^)?
    (`promote_interval` `(` $promote_interval^ `)`)?
    (`epilogue_ins` `(` $epilogue_ins^ `:` type($epilogue_ins) `)`)?
    (`epilogue_maps` `(` $epilogue_maps^ `)`)?
    attr-dict `:` type($lhs) `,` type($rhs) `,` type($lhs_scale) `,`
    type($rhs_scale) `->` type($result)
    `` custom<GemmResults>(type($amax), type($result_scale))
    (`epilogue` $epilogue^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the op applies an epilogue region to its product.
    bool hasEpilogue() { return !getEpilogue().empty(); }
    /// The type the product is rounded to before the epilogue runs.
    FloatType getEpilogueInputType();
    /// The epilogue's ops before its fp8.yield.
    llvm::iterator_range<Block::iterator> getEpilogueOps();
    /// The epilogue's result element.
    Value getEpilogueYieldedValue();
    /// The type of the element the epilogue yields.
    Type getEpilogueResultType() { return getEpilogueYieldedValue().getType(); }
    /// Checks `quantize by ... rule ...` against the results.
    ::llvm::LogicalResult verifyResultQuantization();
  }];
}

// The epilogue region is declared without a terminator and fp8.yield is not
// one: libFP8MLIR-C.so holds a copy of MLIR's TypeID of the Terminator trait
// that differs from libMLIR.so's, so that MLIR's verifier, called through
// the C API, would not see fp8.yield as a terminator. The region verifier
// checks that fp8.yield comes last; it has effects, so that nothing erases
// it as dead.
def FP8_YieldOp : FP8_Op<"yield", [HasParent<"ScaledMatmulOp">]> {
  let summary = "Result element of an fp8.scaled_matmul epilogue";
  let description = [{
    Ends the `epilogue` region of `fp8.scaled_matmul`: its one operand is
    the element of the result, of the result's element type.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// UpdateDelayedScaleOp
//===----------------------------------------------------------------------===//

def FP8_UpdateDelayedScaleOp : FP8_Op<"update_delayed_scale", [
    Pure,
    AllTypesMatch<["history", "new_history"]>,
    AllTypesMatch<["scale", "amax", "new_scale", "new_scale_inv"]>]> {
  let summary = "Advance delayed-scaling state by one step";
  let description = [{
    One step of delayed scaling (numerics.md section 7) for tensors of
    element format `format`. `history` is the amax history (slot 0 is the step
    being recorded), `scale` the encode scale used in this step, `amax` this
    step's amax. The op records `amax` in slot 0, reduces the history by
    `algo` (`max` or `most_recent`) to `a`, sets the new scale to
    `ratio(a)` with `margin` when `0 < a < inf` and keeps the old one
    otherwise, then rotates the history left by one and zeroes slot 0. With
    `zero_amax <skip>` a step whose amax is 0 returns its inputs unchanged.
    `new_scale_inv` is `1 / new_scale`.

    ```mlir
    %h2, %s2, %si2 = fp8.update_delayed_scale %amax into(%h, %s) for <e4m3>
        algo <max> : tensor<1024xf32>, tensor<1xf32>
    ```
  }];
  let arguments = (ins
    FP8_F32Tensor:$history,
    FP8_F32Tensor:$scale,
    FP8_F32Tensor:$amax,
    FP8_FormatAttr:$format,
    DefaultValuedAttr<FP8_AmaxAlgoAttr, "AmaxAlgo::Max">:$algo,
    DefaultValuedAttr<I32Attr, "0">:$margin,
    DefaultValuedAttr<FP8_ZeroAmaxPolicyAttr, "ZeroAmaxPolicy::Roll">:$zero_amax);
  let results = (outs
    FP8_F32Tensor:$new_history,
    FP8_F32Tensor:$new_scale,
    FP8_F32Tensor:$new_scale_inv);
  let assemblyFormat = [{
    $amax `into` `(` $history `,` $scale `)` `for` $format
    (`algo` $algo^)?
    (`margin` `(` $margin^ `)`)?
    (`zero_amax` $zero_amax^)?
    attr-dict `:` type($history) `,` type($scale)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ExpandQuantizeOp and ExpandDequantizeOp
//===----------------------------------------------------------------------===//

def FP8_StateCodeTensor : RankedTensorOf<[F8E4M3FN, F8E5M2]>;
def FP8_ExpansionLimit
    : ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<8>]>;

def FP8_ExpandQuantizeOp : FP8_Op<"expand_quantize", [Pure]> {
  let summary = "Group quantization with dynamic range expansion (COAT)";
  let description = [{
    Quantizes every group (block of `granularity`) of `input` after raising
    its magnitudes to a power `k = 2^j` chosen per group, so that the group's
    dynamic range fills the FP8 format's (numerics.md section 14). Per group
    it returns the largest finite magnitude `amax` (f32) and the exponent `j`
    (i8, in `[-limit, limit]`); `expand_dequantize` inverts the map with them.

    With `a = amax`, `r = fl32(min / a)` over the group's finite nonzero
    magnitudes, `E_j` = `j` f32 squarings (`j > 0`) or `-j` f32 square roots
    (`j < 0`), and `T = fmax^2 / 2`:

    * `j` is the largest integer in `[-limit, limit]` with
      `fl32(E_j(r) * T) >= 1`, `-limit` if there is none, and 0 when `a` is 0;
    * `q = sign(x) * RNE_sat(fl32(E_j(fl32(|x| / a)) * fmax))`, with `|x| / a`
      read as 0 for `x = 0`. NaN stays NaN, infinities saturate.

    Every step is a correctly rounded f32 operation, so the result is the
    same on every target. `limit(0)` switches the expansion off: plain
    per-group amax scaling. The default limit is 5.

    ```mlir
    %q, %a, %j = fp8.expand_quantize %m by <1x128>
        : tensor<64x256xf32> -> tensor<64x256xf8E4M3FN>, tensor<64x2xf32>,
          tensor<64x2xi8>
    ```
  }];
  let arguments = (ins
    FP8_WideTensor:$input,
    FP8_GranularityAttr:$granularity,
    DefaultValuedAttr<FP8_ExpansionLimit, "5">:$limit);
  let results = (outs
    FP8_StateCodeTensor:$data,
    FP8_F32Tensor:$amax,
    RankedTensorOf<[I8]>:$exponent);
  let assemblyFormat = [{
    $input `by` $granularity (`limit` `(` $limit^ `)`)? attr-dict
    `:` type($input) `->` type($data) `,` type($amax) `,` type($exponent)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def FP8_ExpandDequantizeOp : FP8_Op<"expand_dequantize", [Pure]> {
  let summary = "Inverse of fp8.expand_quantize";
  let description = [{
    Decodes codes written by `fp8.expand_quantize` with the group's `amax`
    and exponent `j` (numerics.md section 14):
    `x = sign(q) * fl32(E_-j(fl32(|float(q)| / fmax)) * amax)`, then rounds to
    the result type (RNE). `E_-j` undoes the expansion with `j` f32 square
    roots (`j > 0`) or `-j` f32 squarings (`j < 0`); exponents beyond
    `[-8, 8]` count as `-8` or `8`. A NaN code decodes to NaN, a code of the
    largest magnitude to `+-amax` exactly.

    ```mlir
    %m = fp8.expand_dequantize %q, %a, %j by <1x128>
        : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>, tensor<64x2xi8>
          -> tensor<64x256xf32>
    ```
  }];
  let arguments = (ins
    FP8_StateCodeTensor:$input,
    FP8_F32Tensor:$amax,
    RankedTensorOf<[I8]>:$exponent,
    FP8_GranularityAttr:$granularity);
  let results = (outs FP8_WideTensor:$output);
  let assemblyFormat = [{
    $input `,` $amax `,` $exponent `by` $granularity attr-dict
    `:` type($input) `,` type($amax) `,` type($exponent) `->` type($output)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // FP8_DIALECT_FP8_IR_FP8OPS_TD
