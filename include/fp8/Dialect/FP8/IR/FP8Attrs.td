//===- FP8Attrs.td - fp8 dialect attributes ----------------*- tablegen -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_IR_FP8ATTRS_TD
#define FP8_DIALECT_FP8_IR_FP8ATTRS_TD

include "fp8/Dialect/FP8/IR/FP8Dialect.td"
include "fp8/Dialect/FP8/IR/FP8Enums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class FP8_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<FP8_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Enum attributes
//===----------------------------------------------------------------------===//

def FP8_FormatAttr : EnumAttr<FP8_Dialect, FP8_Format, "format"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "A low-precision element format";
  let description = [{
    Names an element format where no tensor of that type is at hand (the
    target of a scale rule, the formats of a recipe). The formats map to
    MLIR's builtin types: `e4m3` = `f8E4M3FN`, `e5m2` = `f8E5M2`,
    `e2m1` = `f4E2M1FN`, `e2m3` = `f6E2M3FN`, `e3m2` = `f6E3M2FN`.

    ```mlir
    #fp8.format<e4m3>
    ```
  }];
}

def FP8_RoundingAttr : EnumAttr<FP8_Dialect, FP8_Rounding, "rounding"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Rounding of the encode step";
  let description = [{
    `rne` rounds to nearest, ties to even (the default). `stochastic` adds
    caller-provided random bits to the bits that the conversion discards and
    then truncates (the operation then takes an `rbits` operand), as PTX
    `cvt.rs` does. `rceil` and `floor` exist for conversions to `f8E8M0FNU`
    only: `rceil` rounds up whenever a discarded bit is set (Transformer
    Engine, cuBLAS, PTX `cvt.rp`), `floor` keeps the exponent (OCP MX).

    ```mlir
    #fp8.rounding<stochastic>
    ```
  }];
}

def FP8_OverflowAttr : EnumAttr<FP8_Dialect, FP8_Overflow, "overflow"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Treatment of values beyond the largest finite code";
  let description = [{
    `saturate` (the default for fp8 operations, as PTX `cvt.rn.satfinite`):
    finite overflow and infinities clamp to the largest finite value of the
    sign, NaN stays NaN. `nonfinite` (LLVM APFloat, `arith.truncf`): after
    rounding, E4M3FN overflow becomes NaN, E5M2 overflow becomes infinity, and
    finite-only formats (E2M1, E2M3, E3M2) clamp.

    ```mlir
    #fp8.overflow<nonfinite>
    ```
  }];
}

def FP8_NanPolicyAttr : EnumAttr<FP8_Dialect, FP8_NanPolicy, "nan_policy"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "How amax treats NaN elements";
  let description = [{
    `ignore` (the default, fmax semantics): NaN elements do not contribute; a
    block of only NaNs has amax 0. `propagate`: any NaN element makes the
    block's amax NaN.

    ```mlir
    #fp8.nan_policy<propagate>
    ```
  }];
}

def FP8_AmaxAlgoAttr : EnumAttr<FP8_Dialect, FP8_AmaxAlgo, "amax_algo"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Reduction of a delayed-scaling amax history";
  let description = [{
    `max` takes the largest amax of the history window, `most_recent` the amax
    recorded in the current step.

    ```mlir
    #fp8.amax_algo<most_recent>
    ```
  }];
}

def FP8_ZeroAmaxPolicyAttr
    : EnumAttr<FP8_Dialect, FP8_ZeroAmaxPolicy, "zero_amax_policy"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "What a delayed-scaling step whose amax is 0 does";
  let description = [{
    `roll` (the default): the step rolls the history like any other. `skip`:
    the step leaves history and scale untouched.

    ```mlir
    #fp8.zero_amax_policy<skip>
    ```
  }];
}

def FP8_GemmRoleAttr : EnumAttr<FP8_Dialect, FP8_GemmRole, "gemm_role"> {
  let assemblyFormat = "`<` $value `>`";
  let summary = "Which GEMM of a linear layer a contraction is";
  let description = [{
    For `y = x W^T`: `fprop` computes y, `dgrad` the input gradient
    `dx = dY W`, `wgrad` the weight gradient `dW = dY^T x`. Recipes pick
    formats and granularities per role.

    ```mlir
    #fp8.gemm_role<dgrad>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// GranularityAttr
//===----------------------------------------------------------------------===//

def FP8_GranularityAttr : FP8_Attr<"Granularity", "granularity"> {
  let summary = "Which elements share one scale";
  let description = [{
    A granularity partitions a tensor into blocks that share one scale.

    * `<tensor>`: one block covering the whole tensor.
    * `<B0 x B1 x ...>`: a block shape for the *trailing* dimensions of the
      tensor; leading dimensions not named get block extent 1. An extent `*`
      spans the whole dimension.

    The scale tensor has the data's rank and, per dimension, the shape
    `ceil(dim / block)` (1 for a `*` extent or for `<tensor>`). The last block
    along a dimension may be partial; its amax covers only the valid elements.

    | granularity | on an `[M, K]` operand |
    |---|---|
    | `<tensor>` | one scale, shape `[1, 1]` |
    | `<1 x *>` | one scale per row (axiswise), shape `[M, 1]` |
    | `<* x 1>` | one scale per column, shape `[1, K]` |
    | `<1x128>` | DeepSeek activations, shape `[M, ceil(K/128)]` |
    | `<128x128>` | DeepSeek weights |
    | `<1x32>`, `<32x1>` | MX blocks along K for A and for a `[K, N]` B |
    | `<1x16>`, `<16x16>` | NVFP4 blocks |

    ```mlir
    #fp8.granularity<tensor>
    #fp8.granularity<1x*>
    #fp8.granularity<1x128>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "block extents">:$block);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Extent that spans a whole dimension (printed `*`).
    static constexpr int64_t kFull = -1;

    /// The `<tensor>` granularity.
    static GranularityAttr getTensor(::mlir::MLIRContext *ctx) {
      return get(ctx, {});
    }
    bool isTensor() const { return getBlock().empty(); }

    /// The block extent per dimension of a tensor with `shape` (dynamic
    /// extents stay dynamic). Requires `shape.size() >= getBlock().size()`.
    ::llvm::SmallVector<int64_t> getBlockShape(::llvm::ArrayRef<int64_t> shape) const;

    /// The scale-tensor shape `ceil(shape / block)` for data of `shape`.
    /// Requires `shape.size() >= getBlock().size()`.
    ::llvm::SmallVector<int64_t> getScaleShape(::llvm::ArrayRef<int64_t> shape) const;

    /// Emits an error through `emitError` unless this granularity fits data of
    /// type `dataType` and `scaleType` has the matching scale shape. `what`
    /// names the operand in messages.
    ::llvm::LogicalResult verifyScaleShape(
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
        ::llvm::StringRef what, ::mlir::ShapedType dataType,
        ::mlir::ShapedType scaleType) const;

    /// The granularity of the transposed tensor (last two dims swapped); a
    /// one-entry block list is first padded with a leading 1. Returns
    /// this granularity unchanged for `<tensor>`, rank < 2, or a block list
    /// longer than `rank`.
    GranularityAttr getTransposed(int64_t rank) const;
  }];
}

//===----------------------------------------------------------------------===//
// Tcgen05ScaleLayoutAttr
//===----------------------------------------------------------------------===//

def FP8_Tcgen05ScaleLayoutAttr
    : FP8_Attr<"Tcgen05ScaleLayout", "tcgen05_scale_layout"> {
  let summary = "Block scales stored as an sm_100a block-scaled GEMM reads them";
  let description = [{
    How a quantization stores block scales that only sm_100a block-scaled
    GEMMs (`tcgen05.mma ... block_scale`) read: in their scale-factor layout
    instead of the row-major `ceil(shape / block)` tensor of the scale type,
    so that the GEMM copies them stage by stage with no staging kernel. The
    values are the same; only the bytes' order differs, so the CPU pipeline
    ignores it. `fp8-assign-scale-layouts{chip=sm_100a}` records it.

    The layout is built of 512-byte chunks of 128 rows x 4 k-blocks (byte
    `16 * (r % 32) + 4 * (r / 32 % 4) + j % 4` for row `r`, k-block `j`);
    the chunks of one 128-row band follow each other along K, and each band
    holds the k-blocks rounded up to whole GEMM stages of `stage_k_blocks`;
    padding is zero (docs/gpu.md).

    * `k_dim`: the dimension of the scale tensor that K runs along (1: the
      scales are `[rows, k-blocks]`; 0: `[k-blocks, rows]`, as the scales of
      an operand the GEMM reads transposed). The scales of a batch of
      matrices (rank 3, a batched GEMM's operand) are stored one matrix's
      layout after the other, and `k_dim` counts in the matrix.
    * `stage_k_blocks`: scale blocks per GEMM pipeline stage, a positive
      multiple of 4 (4 for MXFP8, 16 for NVFP4).

    ```mlir
    %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil>
        {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
        : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
    ```
  }];
  let parameters = (ins "int64_t":$kDim, "int64_t":$stageKBlocks);
  let assemblyFormat =
      "`<` `k_dim` `=` $kDim `,` `stage_k_blocks` `=` $stageKBlocks `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// ScaleRuleAttr
//===----------------------------------------------------------------------===//

def FP8_ScaleRuleAttr : FP8_Attr<"ScaleRule", "rule"> {
  let summary = "How a scale is derived from an amax";
  let description = [{
    Names a rule of `docs/numerics.md` section 4, with its parameters:

    * `ratio`: `s = fmax / max(amax, eps) * 2^-margin` in f32; a zero,
      infinite or NaN amax gives `s = 1`; an infinite `s` becomes FLT_MAX.
    * `pow2`: `ratio`, then the mantissa bits of `s` truncated to a power of
      two (never through log2).
    * `e8m0_rceil`: an E8M0 block scale rounded up (MXFP8 default, as
      Transformer Engine and cuBLAS).
    * `e8m0_floor`: the OCP MX v1.0 rule, from the exponent bits of amax.
    * `nvfp4`: the two-level NVFP4 rule (a global f32 scale and E4M3 block
      scales).
    * `pow2_bias`: Graphcore's integer scaling bias,
      `2^clamp(floor(log2(fmax / amax)), -31, 31)`.
    * `static`: a compile-time constant (unit scaling); never computed.

    `margin` and `eps` apply to `ratio` and `pow2` only.

    ```mlir
    #fp8.rule<ratio>
    #fp8.rule<pow2, margin = 1, eps = 1.0e-12>
    #fp8.rule<e8m0_rceil>
    ```
  }];
  let parameters = (ins
    EnumParameter<FP8_ScaleRuleKind>:$kind,
    DefaultValuedParameter<"int32_t", "0">:$margin,
    DefaultValuedParameter<"::llvm::APFloat", "::llvm::APFloat(0.0f)">:$eps);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "ScaleRuleKind":$kind), [{
      return $_get($_ctxt, kind, 0, ::llvm::APFloat(0.0f));
    }]>
  ];
}

//===----------------------------------------------------------------------===//
// RecipeAttr
//===----------------------------------------------------------------------===//

def FP8_RecipeAttr : FP8_Attr<"Recipe", "recipe"> {
  let summary = "A named FP8 training recipe with its knobs";
  let description = [{
    Records which recipe of `docs/numerics.md` section 6 produced (or should
    produce) a scaled computation, with the knobs a user may change. Unset
    knobs print nothing and take the recipe's defaults.

    | knob | meaning | default |
    |---|---|---|
    | `margin` | power-of-two headroom of `ratio` scales | 0 |
    | `history` | delayed-scaling amax history length | 1024 |
    | `algo` | amax history reduction | `max` |
    | `zero_amax` | zero-amax policy of the delayed update | `roll` |
    | `promote` | k32 steps between f32 promotions (0 = none) | 4 |

    ```mlir
    #fp8.recipe<mxfp8>
    #fp8.recipe<tensor_delayed, margin = 1, history = 16, algo = most_recent>
    ```
  }];
  let parameters = (ins
    EnumParameter<FP8_RecipeKind>:$kind,
    DefaultValuedParameter<"int32_t", "0">:$margin,
    DefaultValuedParameter<"int64_t", "1024">:$history,
    DefaultValuedParameter<"AmaxAlgo", "AmaxAlgo::Max">:$algo,
    DefaultValuedParameter<"ZeroAmaxPolicy", "ZeroAmaxPolicy::Roll">:$zeroAmax,
    DefaultValuedParameter<"int64_t", "4">:$promote);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "RecipeKind":$kind), [{
      return $_get($_ctxt, kind, 0, 1024, AmaxAlgo::Max, ZeroAmaxPolicy::Roll, 4);
    }]>
  ];
}

#endif // FP8_DIALECT_FP8_IR_FP8ATTRS_TD
