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

    Last, a pair whose one copy is read only through transposes of its codes
    and scales (what `fp8-legalize-layout` inserts for a K-major operand on
    Hopper) stores that copy transposed (`transposed`, becoming the
    column-wise copy if it was the row-wise one): a fused cast+transpose
    that writes both layouts from one read, with no transpose left.

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

def FP8ExpandMath : Pass<"fp8-expand-math"> {
  let summary = "Compute math functions by the expansions docs/numerics.md specifies, as the GPU kernels do";
  let description = [{
    Rewrites `math.erf` and `math.exp` on f32 (scalars, vectors, statically
    shaped tensors) into the arithmetic that docs/numerics.md specifies, every
    step one f32 `math.fma`, `arith.mulf`, `arith.subf`, `math.roundeven`,
    `math.floor`, compare, select or bit operation:

    * erf (section 16): an odd polynomial below 1, one minus a polynomial of
      `|x| - 2.5` up to the f32 nearest 3.925, 1 beyond, the sign copied from
      the input. At most 1.4611 units in the last place from the exact erf
      over every f32 input; NaN stays NaN, +-inf gives +-1, -0 gives -0.
    * exp (section 17): `k = roundeven(x log2 e)`, `r = x - k ln2` with ln2
      in two parts, `1 + r q(r)`, times `2^k` as two normal powers of two (one
      rounding, overflow and subnormal results included). At most 0.9543
      units in the last place over every f32 input; NaN stays NaN.

    Every other math function that upstream approximates by polynomials
    (`tanh`, `log`, `log2`, `log1p`, `expm1`, `atan`, ...; section 18) on
    scalars and vectors takes upstream's approximation
    (`populateMathPolynomialApproximationPatterns`): tanh a ratio of an odd
    and an even polynomial of the input clamped to +-7.9988 (at most 4.8962
    units in the last place), log Cephes' polynomial of the significand plus
    the exponent times ln 2 (at most 0.8999 on positive normal inputs;
    subnormal inputs count as 2^-126). Math ops on tensors are left alone.

    On bf16 and f16 every function is the function of the exact f32 value,
    rounded once to the type.

    `fp8-cpu-pipeline` runs it and the GPU kernels apply the same patterns, so
    that the CPU reference and the GPU compute the same bits for these
    functions (GELU's erf and tanh forms, softmax's exp, log_softmax's log),
    independently of the host's libm, and the GPU spends no division on erf.

    Example:
    ```mlir
    %y = math.erf %x : f32
    ```
    becomes `math.absf`, a chain of `math.fma`, two `arith.select` and a
    `math.copysign`.
  }];
  // Upstream's approximations of math ops on vectors build vector ops.
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def FP8EmulateNarrowFloats : Pass<"fp8-emulate-narrow-floats"> {
  let summary = "Compute arithmetic on floats narrower than f32 in f32, rounding after every op";
  let description = [{
    Rewrites every `arith` op computing on `bf16`, `f16`, `f8E4M3FN`,
    `f8E5M2`, `f8E8M0FNU`, `f4E2M1FN`, `f6E2M3FN` or `f6E3M2FN` (scalars,
    vectors, tensors) into the same op on f32 between an `arith.extf` of its
    operands and an `arith.truncf` of its result, so that no target needs
    arithmetic on those types. The result is the one the narrow op defines:
    f32 has more than twice their precision plus two bits, so rounding an
    exact sum, difference, product, quotient or square root first to f32 and
    then to the narrow type gives the correctly rounded narrow result.

    These are the rewrites of upstream `arith-emulate-unsupported-floats`,
    with one difference: upstream marks the conversions it inserts
    `fastmath<contract>`, which lets `arith.extf`'s folder (in any later
    greedy or conversion driver) drop the rounding between two emulated ops
    and compute a chain in f32. This pass clears `contract` from every
    `arith.extf` and `arith.truncf` that involves one of these types, so every
    rounding the program states happens, as a reference must. (A fast-math
    flag permits skipping a rounding; it never requires it.)

    Before:
    ```mlir
    %p = arith.mulf %a, %b : bf16
    %s = arith.addf %c, %p : bf16
    ```
    After:
    ```mlir
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p32 = arith.mulf %a32, %b32 : f32
    %p = arith.truncf %p32 : f32 to bf16
    %c32 = arith.extf %c : bf16 to f32
    %p32r = arith.extf %p : bf16 to f32
    %s32 = arith.addf %c32, %p32r : f32
    %s = arith.truncf %s32 : f32 to bf16
    ```
    `fp8-cpu-pipeline` runs it after generalizing named linalg ops, then
    lowers the remaining conversions to integer code (`fp8-expand-float-casts`,
    `arith-expand` for bf16).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FP8Autocast : Pass<"fp8-autocast", "::mlir::ModuleOp"> {
  let summary = "Turn linalg contractions into scaled FP8 computations by a named recipe";
  let description = [{
    Rewrites every contraction on tensors of f32, bf16 or f16 that
    `fp8.scaled_matmul` expresses into that op, on operands quantized by the
    recipe of docs/numerics.md section 6. These are the contractions with one
    M, one N and one K dimension and at most one batch dimension, indexed
    `C [batch?, M, N]`, `A [batch?, M, K]` or `[batch?, K, M]` and
    `B [batch?, K, N]` or `[batch?, N, K]`: `linalg.matmul` and
    `linalg.batch_matmul` with or without transposing `indexing_maps`, and
    `linalg.contract` and `linalg.generic` multiply-accumulates of that shape.
    Other contractions stay in high precision with a missed remark:
    `linalg.batch_reduce_matmul` (two reduction dimensions), `linalg.dot`,
    `linalg.vecmat`, `linalg.matvec`, `linalg.batch_matvec`,
    `linalg.batch_vecmat` (no M or no N), `linalg.mmt4d`, and contractions
    with several batch or reduction dimensions, a batch dimension that does
    not lead, or FP8 operands. Which contractions convert is the same under
    every recipe:

    | recipe | formats (fwd / grad) | A (left, activation) | B (right, weight) | rule |
    |---|---|---|---|---|
    | `tensor-delayed` | E4M3 / E5M2 | tensor | tensor | ratio from an amax history |
    | `tensor-current` | E4M3 / E5M2 | tensor | tensor | ratio |
    | `rowwise` | E4M3 | per row (along K) | per column (along K) | pow2 |
    | `deepseek` | E4M3 | 1x128 along K | 128x128 | pow2 |
    | `mxfp8` | E4M3 | 1x32 along K | 32x1 along K | e8m0_rceil |
    | `nvfp4` | E2M1 | 1x16 along K | 16x16 | nvfp4 (+ global scale) |
    | `graphcore` | E4M3 / E5M2 | tensor | tensor | pow2_bias |
    | `unit` | E4M3 / E5M2 | tensor | tensor | static (1) |

    For `C = A x B`, A is the left operand and B the right one; scales run
    along the contraction dimension K, whichever way an operand is stored.

    **Backward GEMMs.** A contraction carrying `fp8.role =
    #fp8.gemm_role<dgrad>` or `<wgrad>` gets the gradient format on its
    gradient operand (`fp8.grad_operand`, 0 = A by default, 1 = B), E5M2 in
    the HYBRID recipes; in wgrad neither operand is a weight, so 2-D weight
    blocks become 1-D blocks along K; NVFP4 gradients round stochastically
    (random bits from a counter-based hash of the element index, `seed` and,
    with `random-state` (the default), a call counter kept in a mutable
    `ml_program` global per function, `@__fp8_rng_<function>` of
    `tensor<1xi32>`, which each call reads and advances by one, so that
    each training step rounds with new bits; the counter's first value, 0,
    gives the bits of `random-state=false`. A module that declares the
    global owns it, as with delayed scaling's state).
    A tensor quantized by several contractions is quantized once per
    granularity; `fp8-fuse-dynamic-quantize` then pairs the row-wise and
    column-wise copies into one op.

    **Delayed scaling.** `tensor-delayed` keeps, per quantized tensor, an amax
    history and a scale in `ml_program` globals named
    `@__fp8_state_<function>_<n>_<lhs|rhs>_history` and `..._scale`, where
    `<n>` counts the converted contractions of the function, or
    `@__fp8_state_<name>_<lhs|rhs>_...` for a contraction with
    `fp8.name = "<name>"` (history of `history` zeros, scale 1). Each call
    quantizes with the stored scale, records the tensor's amax and stores the
    updated state (`fp8.update_delayed_scale`), so a runtime calls the
    function step after step and the module stays an ordinary module. A
    module that already declares a state global (mutable,
    `tensor<{history}xf32>` or `tensor<1xf32>`) keeps it: the caller can
    restore state from a checkpoint and read the scales; a symbol of that
    name that is anything else is an error.

    **Attention.** Contractions with a batch dimension (attention's per-head
    QK^T and PV, and their dgrad and wgrad) stay in high precision with a
    missed remark unless `fp8-attention=true`: Transformer Engine's
    convention, which runs attention in bf16 unless FP8 attention is asked
    for. The GPU pipeline runs them as bf16/f16/tf32 tensor-core GEMMs.

    **Accumulation.** A contraction into a zero-filled (or empty) tensor
    becomes the scaled product; one into other values adds them in f32.

    **Saved activations** (COAT's activation memory). The GEMMs' operands,
    the linear layers' saved activations, are FP8 by the recipe. With
    `saved-activations=e4m3` (or `e5m2`) the non-linear layers' ones are too:
    every forward value that a gradient nonlinearity (an op marked
    `fp8.unit_op` with a `*_grad` kind: GELU's input, softmax's output,
    LayerNorm's centered input and normalized output) reads is quantized
    once by groups of `saved-activation-group` elements along its last
    dimension (`pow2` scales of each group's amax) and dequantized where the
    backward graph reads it. Broadcasts (`linalg.broadcast`, or a generic
    that only broadcasts) are left alone: a framework keeps their smaller
    source, such as LayerNorm's per-row reciprocal deviation or its gain. Gradients, which are never quantized
    here, are the values computed from the ops marked `fp8.role` or
    `fp8.unit_op` and from the contractions' gradient operands
    (`fp8.grad_operand`). A remark `saved-activation` gives the bytes stored
    before and after for each value, and one `saved-activations` the total
    saved per function.

    **Explicit requests.** A contraction the pass cannot convert is left in
    high precision with a missed remark, unless the user marked it for FP8
    (`fp8.role` or the unit attribute `fp8.autocast`): then it is an error
    that says why.

    **Remarks.** Each contraction gets an optimization remark (category
    `fp8-autocast`): passed, with formats and granularities, or missed, with
    the reason. Show them with `--remarks-filter=fp8-autocast
    --remark-format=emitRemark`.

    Example (`recipe=mxfp8`):
    ```mlir
    %c = linalg.matmul ins(%a, %b : tensor<128x256xbf16>, tensor<256x64xbf16>)
                       outs(%zero : tensor<128x64xf32>) -> tensor<128x64xf32>
    ```
    becomes
    ```mlir
    %qa, %sa = fp8.dynamic_quantize %a by <1x32> rule <e8m0_rceil> : ...
    %qb, %sb = fp8.dynamic_quantize %b by <32x1> rule <e8m0_rceil> : ...
    %c = fp8.scaled_matmul %qa, %qb scales(%sa, %sb) by(<1x32>, <32x1>)
        {recipe = #fp8.recipe<mxfp8>, role = #fp8.gemm_role<fprop>} : ...
    ```
  }];
  let options = [
    Option<"recipe", "recipe", "std::string", /*default=*/"\"tensor-current\"",
           "tensor-delayed, tensor-current, rowwise, deepseek, mxfp8, nvfp4, "
           "graphcore or unit">,
    Option<"fwdFormat", "fwd-format", "std::string", /*default=*/"\"\"",
           "Format of forward operands (e4m3, e5m2, e2m1); default: the recipe's">,
    Option<"gradFormat", "grad-format", "std::string", /*default=*/"\"\"",
           "Format of gradient operands (e4m3, e5m2, e2m1); default: the recipe's">,
    Option<"margin", "margin", "int", /*default=*/"0",
           "Power-of-two headroom of ratio and pow2 scales">,
    Option<"history", "history", "int64_t", /*default=*/"1024",
           "Amax history length of tensor-delayed">,
    Option<"amaxAlgo", "amax-algo", "std::string", /*default=*/"\"max\"",
           "Reduction of the amax history: max or most_recent">,
    Option<"zeroAmax", "zero-amax", "std::string", /*default=*/"\"roll\"",
           "What a step with amax 0 does: roll or skip">,
    Option<"e8m0Rounding", "e8m0-rounding", "std::string", /*default=*/"\"rceil\"",
           "E8M0 scale rounding of mxfp8: rceil or floor">,
    Option<"promoteInterval", "promote-interval", "int64_t", /*default=*/"4",
           "k32 steps between f32 promotions in GPU kernels (0 = none)">,
    ListOption<"exclude", "exclude", "std::string",
               "Regular expressions; contractions in matching functions, or "
               "whose fp8.name attribute or name location matches, are left "
               "alone">,
    Option<"minSize", "min-size", "int64_t", /*default=*/"0",
           "Leave contractions with fewer than this many multiply-adds "
           "(M*N*K*batch, static shapes) alone">,
    Option<"seed", "seed", "uint64_t", /*default=*/"0",
           "Seed of the random bits of stochastic rounding">,
    Option<"randomState", "random-state", "bool", /*default=*/"true",
           "Draw new random bits for stochastic rounding on every call: a "
           "call counter in a mutable ml_program global per function "
           "(@__fp8_rng_<function>, tensor<1xi32>) offsets the hash's "
           "streams and is advanced by each call; false gives every call "
           "the same bits">,
    Option<"fp8Attention", "fp8-attention", "bool", /*default=*/"false",
           "Also convert contractions with a batch dimension (attention's "
           "QK^T and PV, forward and backward); by default they stay in high "
           "precision">,
    Option<"savedActivations", "saved-activations", "std::string",
           /*default=*/"\"none\"",
           "Store the forward values that gradient nonlinearities read "
           "(COAT's non-linear activations) as none, e4m3 or e5m2">,
    Option<"savedActivationGroup", "saved-activation-group", "int64_t",
           /*default=*/"128",
           "Elements per scaling group of saved activations, along the last "
           "dimension">,
  ];
  let dependentDialects = [
    "::mlir::fp8::FP8Dialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::ml_program::MLProgramDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FP8UnitScale : Pass<"fp8-unit-scale"> {
  let summary = "Unit Scaling: static factors that keep linalg graphs at unit variance";
  let description = [{
    Applies Unit Scaling (Blake, Orr and Luschi, 2023; docs/numerics.md
    section 8) to a linalg graph on tensors: static factors chosen so that,
    with unit-variance weights and inputs at initialisation, every layer
    output (and, in a backward graph, every gradient) has unit variance. The
    `unit` recipe of `fp8-autocast` then quantizes with scale 1 and no amax.

    | op | factor |
    |---|---|
    | contraction (`linalg.matmul`, `batch_matmul`, generic contractions) | product * (product of the reduction extents)^-1/2 |
    | GELU (an elementwise `linalg.generic` computing `x * f(erf or tanh)`) | result / 0.588 |
    | `linalg.softmax` over a dimension of extent d | result * d / 1.31 |
    | residual add (`linalg.add`, `arith.addf` or an elementwise add generic of two full-shape, non-broadcast tensors) | skip * 1/sqrt(1+tau^2), branch (operand 1) * tau/sqrt(1+tau^2); tau = 1 scales the sum by 2^-1/2 |

    The contraction rule gives the paper's separate forward and backward
    factors once the backward graph is written out: fprop `[M,K]x[K,N]`
    contracts K (output * K^-1/2), dgrad contracts N (grad of the left
    operand * N^-1/2), wgrad contracts M (grad of the right operand *
    M^-1/2). Nonlinearity gradients cannot be recognized from their bodies,
    so ops say what they are with `fp8.unit_op`:

    | `fp8.unit_op` | factor |
    |---|---|
    | `"gelu"`, `"softmax"`, `"residual"` | as above, for ops not recognized by shape |
    | `"gelu_grad"` | result / 0.675 |
    | `"softmax_grad"` | result * d / 1.65, d the extent of dimension `fp8.unit_dim` (default: the last) |
    | `"cross_entropy_grad"` | result * V / sqrt(V - 1), V the extent of the last dimension (sum reduction) |
    | `"layernorm_grad"` | left alone (it marks LayerNorm's backward ops for `fp8-autocast`'s saved activations) |
    | `"none"` | left alone |

    `fp8.unit_scale = <float>` multiplies an op's result by an explicit
    factor, and `fp8.residual_tau = <float>` sets tau for one add. Factors of
    dynamic extents are computed at run time. Every rewritten op gets the
    unit attribute `fp8.unit_scaled`, so running the pass twice changes
    nothing, and a remark (category `fp8-unit-scale`) with its factor.
    A contraction accumulating into a non-zero init becomes a contraction
    into zeros, scaled, plus the init (added in f32).
  }];
  let options = [
    Option<"residualTau", "residual-tau", "double", /*default=*/"1.0",
           "Weight tau of residual branches (1: a plain add, scaled by 2^-1/2)">,
  ];
  let dependentDialects = [
    "::mlir::fp8::FP8Dialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FP8DecomposeAggregates : Pass<"fp8-decompose-aggregates"> {
  let summary = "Decompose aggregated linalg ops (linalg.softmax) into linalg.generic ops";
  let description = [{
    Ops with `AggregatedOpInterface`, such as `linalg.softmax`, have no
    lowering to loops of their own. This pass replaces each with the
    sequence of `linalg.generic` ops its interface gives (for softmax: max,
    subtract and exp, sum, divide), so that the graph bufferizes and lowers
    like any other. `fp8-cpu-pipeline` and `fp8-gpu-pipeline` run it
    first, so that the GPU kernels compute what the CPU reference does.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FP8FuseElementwise : Pass<"fp8-fuse-elementwise"> {
  let summary = "Fuse chains of elementwise linalg ops into one linalg.generic";
  let description = [{
    The ops around the GEMMs of a framework graph (bias adds, activations,
    casts, scalings, residual adds, broadcasts of row and column vectors)
    each become a kernel of their own on the GPU, each writing its result to
    memory and the next reading it back. This pass fuses an elementwise
    producer into its elementwise consumer, with upstream linalg elementwise
    fusion, until each chain is a single `linalg.generic`: one kernel, one
    read of each input and one write of the result.

    The fused body is the producer's body followed by the consumer's, with
    every intermediate value of the same type as before (a `truncf` to bf16
    between two ops stays), so the fused graph computes bit-identically to
    the unfused one, on `fp8-cpu-pipeline` as in the GPU kernels.

    A producer fuses only into its only user, so that no intermediate is
    needed elsewhere and nothing is computed twice; pure broadcasts and copies
    (whose body yields an input unchanged) are the exception: they are
    recomputed in every elementwise consumer, which costs an indexed read.
    Transposes stay (the quantize kernels fold them into their copies), as do
    fills, reductions, ops whose body reads its initial value, and producers
    that read loop indices; a consumer that reads them (a causal mask) takes
    its producers, evaluated at its own position. Named elementwise ops (`linalg.add`, `linalg.broadcast`, ...)
    become `linalg.generic` only when they fuse. So does an `fp8.dequantize`
    by one f32 scale that only an elementwise op reads (FP8-LM's first
    moment read by its Adam step): the codes are widened and scaled in the
    consumer's body, exactly as the op computes them.

    Concatenations (`tensor.insert_slice` ops into a `tensor.empty`, each
    piece whole but along one dimension, together covering it once:
    `torch.cat`, rotary embedding's `rotate_half`) that the last op of a
    chain reads are read piecewise: the operand goes, and the body reads
    each piece by `tensor.extract` at its index clamped into the piece,
    then selects the piece that holds the element (no read leaves a piece,
    no branch); every element reads every piece, so concatenations of more
    than four pieces stay. The pieces' static slices of unit strides become
    offsets of those reads, and their short elementwise producers (at most
    eight arith ops and no math function: a negation, a broadcast) are
    computed in the body at the element's indices; longer ones are read. Values move as they
    are, so the results are those of the concatenation; the GPU kernel of
    the chain loads the gathered tensors at the indices the body computes,
    where the slices and the concatenation were layout kernels.

    Each fusion, and each elementwise edge left unfused, is a remark
    (category `fp8-gpu`) that says which ops and why; so is each
    concatenation read piecewise.

    Before:
    ```mlir
    %b = linalg.broadcast ins(%bias : tensor<512xf32>)
        outs(%e0 : tensor<64x512xf32>) dimensions = [0]
    %s = linalg.add ins(%h, %b : tensor<64x512xf32>, tensor<64x512xf32>)
        outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %r = linalg.generic {... relu ...} ins(%s : tensor<64x512xf32>) ...
    ```
    After: one `linalg.generic` reading `%h` and `%bias` (through the map
    `(d0, d1) -> (d1)`), whose body adds and takes the maximum.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FP8FuseEpilogue : Pass<"fp8-fuse-epilogue"> {
  let summary = "Fuse the elementwise consumer of a scaled matmul into its epilogue";
  let description = [{
    A GEMM's result is usually read once, by an elementwise chain (bias,
    activation, residual add, scaling, cast: one `linalg.generic` after
    `fp8-fuse-elementwise`). Run as its own kernel, the chain reads the
    product back from memory and writes its result again. This pass moves
    the chain into the `epilogue` region of the `fp8.scaled_matmul`, so that
    the GEMM kernel applies it to each element before storing it: one write
    of the result, no write and read of the product.

    The epilogue computes exactly what the chain did: the product is first
    rounded to the type the GEMM stored (the region's first argument), then
    the chain's scalar body runs unchanged, reading its other inputs through
    their indexing maps. Fused and unfused graphs are bit-identical on
    `fp8-cpu-pipeline` and in the GPU kernels.

    A consumer fuses when it is the product's only user, is elementwise
    (parallel loops, a body of scalar ops that neither reads loop indices
    nor its initial value), has one result of f32, bf16 or f16, reads the
    product through the identity map, and reads its other inputs (f32, bf16
    or f16 tensors) either whole, at the result's position, or broadcast
    (row and column vectors, scalars), never transposed. The GEMM must have
    no `amax` and no `out_scale` and multiply one matrix (batched GEMMs keep
    their consumers as kernels). Each fusion, and each GEMM whose consumer
    does not fuse, is a remark (category `fp8-gpu`) that says which ops and
    why.

    Then a per-tensor or per-row `fp8.dynamic_quantize` of a GEMM's result
    (current or row-wise scaling) takes its amax from the GEMM: the GEMM
    returns the amax of the elements it stores, of all or of each row (its
    epilogue's results; an identity epilogue when it had none), and the
    quantization becomes the `fp8.compute_scale` and
    `fp8.quantize` it stands for, so that the result is read once, to
    quantize it, instead of twice. Not with a column-wise copy, NaN
    propagation (remark `amax-not-in-epilogue`); each such fusion is a
    remark `amax-in-epilogue`.

    A quantization by blocks of 32 or 128 elements of a row of a GEMM's
    result (DeepSeek's 1x128 activations, MXFP8's 1x32) becomes the GEMM's
    `quantize by <1xB> rule <...>`: the GEMM returns the codes and the block
    scales, and its high-precision result is never stored. Only when the
    result has no other reader, without a column-wise copy, NaN propagation,
    a global scale or a non-saturating overflow (remarks
    `block-codes-in-epilogue`, `block-codes-not-in-epilogue`).

    A per-tensor `fp8.quantize` of a GEMM's result by a given scale
    (delayed scaling), when nothing but `fp8.amax` ops read that result
    too, moves into the GEMM as well: the GEMM's epilogue yields the values,
    `out_scale` encodes them (saturating, round to nearest even, as the
    quantization did) and its `amax` replaces the amaxes, so that the high-
    precision result is never stored (remarks `codes-in-epilogue`,
    `codes-not-in-epilogue`).

    Before:
    ```mlir
    %p = fp8.scaled_matmul %a, %b ... -> tensor<64x512xf32>
    %y = linalg.generic {... (d0, d1) -> (d1) ...}
        ins(%p, %bias : tensor<64x512xf32>, tensor<512xf32>) ... {
      ... arith.addf, arith.maximumf ...
    }
    ```
    After: one `fp8.scaled_matmul ... epilogue_ins(%bias ...)` whose
    `epilogue` region adds and takes the maximum.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
  ];
}

def FP8LegalizeLayout : Pass<"fp8-legalize-layout"> {
  let summary = "Check scaled GEMMs against a chip's tensor cores; fix operand majorness";
  let description = [{
    Checks every `fp8.scaled_matmul` against what the GEMM kernels that
    fp8-mlir generates for `chip` read (`kernelsReadMNMajor` and the facts
    beside it in fp8/Target/Chip.h; docs/nvidia-isa.md), so that a layout
    problem is a diagnostic or a visible copy here, and never a slow path,
    a silent copy or an abort in a lowering:

    | constraint | sm_90a (wgmma) | sm_100a (tcgen05.mma) | when violated |
    |---|---|---|---|
    | element formats | E4M3, E5M2 | E4M3, E5M2, E2M1 (and E2M3, E3M2) | error |
    | operand majorness | A and B K-major | A and B K-major (the tensor cores could read 8-bit operands MN-major through the descriptor's transpose bits, which the kernel does not set) | transposed copy (or error) |
    | K-major rows (TMA) | K x element size a multiple of 16 bytes | same | error: pad K |
    | result rows (TMA store) | N x result size a multiple of 16 bytes | same | error: pad N |
    | scale blocks along K | multiples of 32 elements, or all of K | 32 (f32, E8M0), 16 (E4M3 scales of E2M1) | error |

    For `C = A x B`, A is K-major when stored `[M, K]` and B when stored
    `[N, K]` (`transpose_rhs`). A `linalg.matmul` by a weight stored
    `[K, N]` therefore needs, on either chip, a transposed copy of B: the pass
    inserts `linalg.transpose` of the quantized codes and of their scales
    (exact: a block of the transpose is the transposed block), transposes
    the granularity and flips `transpose_rhs`. A quantize kernel can write
    the copy directly; a constant weight's copy folds at compile time with
    `fp8-quantize-constants`. One copy serves every GEMM that reads the
    operand. With `allow-copies=false` the pass reports instead of copying.

    Dynamic K or N cannot be checked here: the pass warns that the launch
    must check them. Every copy is a remark (category
    `fp8-legalize-layout`, missed) that says why it was needed.
  }];
  let options = [
    Option<"chip", "chip", "::mlir::fp8::Chip",
           /*default=*/"::mlir::fp8::Chip::SM90a",
           "The target: sm_90a (Hopper) or sm_100a (Blackwell)">,
    Option<"allowCopies", "allow-copies", "bool", /*default=*/"true",
           "Fix a wrong operand majorness with a transposed copy; otherwise "
           "report it as an error">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FP8AssignScaleLayouts : Pass<"fp8-assign-scale-layouts"> {
  let summary = "Store block scales in the layout the GEMMs that read them copy";
  let description = [{
    On sm_100a, block-scaled GEMMs (`tcgen05.mma ... block_scale`) copy
    their E8M0 or E4M3 scales to tensor memory from a scale-factor layout
    of 512-byte chunks (`#fp8.tcgen05_scale_layout`, docs/gpu.md), and
    scales stored row-major take a staging kernel first. This pass records
    on each `fp8.dynamic_quantize` (`scale_layout`, `col_scale_layout`) that
    its quantize kernel writes those scales in that layout directly, when:

    * every use of the scales is a block-scaled `fp8.scaled_matmul` reading
      them as its `lhs_scale` or `rhs_scale`, directly or through
      transposes of their last two dimensions that nothing else reads;
    * all those GEMMs read them alike: the same rows and k-blocks, the same
      stage depth (`stage_k_blocks`, from the operand format and the scale
      block), and K along the same dimension of the stored scales;
    * the quantization's blocks are the GEMM's: one row (or a square of the
      k-block's extent) across one k-block. The scales of a batched GEMM's
      operand (rank 3) are stored one matrix's layout after the other.

    Scales that a prepare function of `fp8-prepare-weights` only returns
    count as read by the GEMMs of the function that takes them (its
    argument marked `fp8.prepared` with the result's number), when those
    read the argument directly: the quantization writes the layout, and the
    argument is marked `fp8.scale_layout` with it, so that the GEMMs read it
    as the caller passes it.

    Anything else keeps row-major scales, which the lowering stages. The
    decision is the graph's: the lowering reads the attribute and never
    looks ahead. On sm_90a, whose GEMM reads row-major scales, the pass
    records nothing. `fp8-gpu-pipeline` runs it last
    among its graph passes, after the fusions that rebuild quantizations.

    ```mlir
    // fp8-opt --fp8-assign-scale-layouts=chip=sm_100a
    %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil>
        {scale_layout = #fp8.tcgen05_scale_layout<k_dim = 1, stage_k_blocks = 4>}
        : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
    %c = fp8.scaled_matmul %q, %w scales(%s, %ws) by(<1x32>, <1x32>) transpose_rhs : ...
    ```
  }];
  let options = [
    Option<"chip", "chip", "::mlir::fp8::Chip",
           /*default=*/"::mlir::fp8::Chip::SM90a",
           "The target: sm_90a or sm_100a">,
  ];
}

def FP8PropagateScales : Pass<"fp8-propagate-scales"> {
  let summary = "Move quantization above transposes, reshapes and broadcasts";
  let description = [{
    Quantization commutes with ops that only move or copy elements, as long
    as every element keeps its scaling block. This pass moves
    `fp8.dynamic_quantize`, `fp8.quantize` and `fp8.amax` above
    `linalg.transpose`, `tensor.expand_shape`, `tensor.collapse_shape` and
    `linalg.broadcast`, and applies the movement to the quantized codes and
    their scales instead:

    * per-tensor scales move through all four (the amax of a transposed,
      reshaped or broadcast tensor is the amax of its source), and the scale
      is reshaped;
    * block scales move through a swap of the last two dimensions, with the
      transposed granularity (`<1x32>` becomes `<32x1>`) and the scale tensor
      transposed.

    Results are bit-identical. The movement then carries 1-byte codes (or
    4-bit ones) instead of wide values, the quantization sits next to the
    op that produces the wide values (where a kernel can fuse it), and two
    quantizations of one source (a tensor and its transpose, the reshaped
    heads of an attention projection and the projection) become one after
    `-cse`. Row-wise/column-wise pairs and stochastic rounding are left in
    place.

    A quantization stays below a transpose (looked for through reshapes)
    whose wide result another op reads, such as the token-major copy of an
    attention gradient whose columns a bias gradient sums: that copy is
    stored anyway, so quantizing it costs no extra read, while moving above
    the transpose would add a transpose of the codes and hide the layout a
    GEMM wants from `fp8-fuse-dynamic-quantize`'s transposed pairs. It also
    stays below a transpose of `[H, M, D]` to `[M, H, D]` that merges the
    results of a batched contraction (directly or through one elementwise
    op, neither read by anything else), such as attention's context: a GPU
    GEMM stores such a result merged itself (`convert-fp8-to-gpu`'s
    `sm90-head-major-results`), so the transpose costs nothing there. And it
    stays below a reshape whose codes' rows are not whole 16-byte units
    (heads of 8 merged into rows of 72): a quantization kernel pads the rows
    it writes to 16 bytes, which is what lets a GEMM read them along K
    (`fp8-legalize-layout`), while reshaped codes keep the rows unpadded.

    Before:
    ```mlir
    %t = linalg.transpose ins(%x : tensor<64x128xf32>) outs(%e : tensor<128x64xf32>) permutation = [1, 0]
    %q, %s = fp8.dynamic_quantize %t by <1x32> rule <e8m0_rceil> : tensor<128x64xf32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
    ```
    After:
    ```mlir
    %q0, %s0 = fp8.dynamic_quantize %x by <32x1> rule <e8m0_rceil> : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
    %q = linalg.transpose ins(%q0 : ...) outs(...) permutation = [1, 0]
    %s = linalg.transpose ins(%s0 : ...) outs(...) permutation = [1, 0]
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FP8QuantizeConstants : Pass<"fp8-quantize-constants"> {
  let summary = "Quantize constant tensors at compile time";
  let description = [{
    Evaluates `fp8.amax`, `fp8.compute_scale`, `fp8.quantize` (round to
    nearest even) and `fp8.dynamic_quantize` whose operands are constants,
    and replaces them with constants: frozen weights reach `fp8.scaled_matmul`
    as FP8 codes and scales, and no quantization of them is left at run time.

    The evaluation follows docs/numerics.md with the same f32 operations, in
    the same order, as the run-time lowering, so folded and run-time results
    are bit-identical for every scale rule, granularity (ragged blocks
    included), overflow mode and NaN policy, both copies of a
    row-wise/column-wise pair and NVFP4's two-level scales. Stochastic
    rounding is left to run time, as is delayed scaling, whose scale is state.
    Transposes of constant codes and scales (the copies
    `fp8-legalize-layout` makes of a frozen weight) fold as well.

    Example, after `fp8-autocast=recipe=mxfp8` on a matmul by a constant
    weight:
    ```mlir
    %w = arith.constant dense<...> : tensor<256x64xbf16>
    %qw, %sw = fp8.dynamic_quantize %w by <32x1> rule <e8m0_rceil> : ...
    ```
    becomes
    ```mlir
    %qw = arith.constant dense<...> : tensor<256x64xf8E4M3FN>
    %sw = arith.constant dense<...> : tensor<8x64xf8E8M0FNU>
    ```
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"16777216",
           "Leave constants with more elements than this to run time">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

def FP8PrepareWeights : Pass<"fp8-prepare-weights", "::mlir::ModuleOp"> {
  let summary = "Move what only the weights determine into a prepare function";
  let description = [{
    A weight changes once per optimizer step, or never in inference, while
    the function that reads it runs once per micro-batch or request. Every
    call then quantizes the weight again: its amax, scale and FP8 codes,
    and the transposed copy a Hopper GEMM reads. This pass moves that work
    into a function of its own that the caller runs once per weight update
    and whose results it passes to every call, as Transformer Engine caches
    a weight's FP8 copy across the micro-batches of a step.

    Arguments marked `fp8.weight` (a unit attribute, set by the front end)
    are the weights. For each public function `@f` with a body of one block
    and such arguments, an op is moved when it has no memory effects, reads
    (through its operands and the values its regions capture) at least one
    weight or moved result, and otherwise only constant-like ops' results
    (`arith.constant`, `tensor.empty`). Delayed scaling's state, an
    `ml_program` global, is read with a memory effect and stays in `@f`, as
    it must (the weight's amax, which each call records, moves). What costs
    more to pass than to compute stays too: an op whose result is larger
    than what it reads besides constants (a bias broadcast to an
    activation's shape) and views (reshapes, transposes that move one
    dimension of extent > 1), which `@f` then computes from what they read.
    So do codes that a GEMM reads as operand A or B in rows that are not
    whole 16-byte units (K not a multiple of 16 FP8 codes or 32 FP4 codes):
    TMA reads rows 16-byte multiples apart, the kernel that writes them in
    `@f` pads each row, and a prepared value is passed unpadded. No layout
    kernel copies FP4 codes, so the quantization writing such a transposed
    FP4 copy stays with it. Each of these values is a `padded-rows` remark.

    * `@f_prepare` takes every weight of `@f`, in order (those the moved ops
      do not read too, so that its signature follows from `@f`'s), and
      returns each moved result that `@f` still reads, in the order the ops
      computed them, with the moved ops and clones of the constants they
      read.
    * `@f` keeps its arguments (a weight it no longer reads stays in the
      signature, unread) and takes `@f_prepare`'s results after them: the
      argument of result `i` carries `fp8.prepared = i`.

    `@f(args..., @f_prepare(weights...)...)` computes the same bits as the
    original `@f(args...)`: the ops are the same, only where they run
    changes. Each split function names its prepare function with
    `fp8.prepare`, which the GPU manifest copies (`"prepare"`).

    **Prepare groups.** Functions that read the same weights, such as a
    layer's forward and backward functions, carry the same
    `fp8.prepare_group = "<group>"` (the generated examples' functions do).
    They share one prepare function, `@<group>_prepare`, which takes the
    weights (every function of the group takes the same types, in the same
    order; otherwise the pass fails) and computes every function's slice;
    ops alike across them, such as a weight's quantization that both the
    forward and the backward function read, become one (CSE), so that a
    training step quantizes each weight once and one kernel writes both its
    codes and the transposed copy the other GEMMs read. Each function takes
    the results it reads, in increasing order, each marked with its
    number, so its `fp8.prepared` numbers need not be consecutive. A
    function of a group that cannot be split (it is called in the module,
    not public, or has several blocks) keeps its signature and stays out of
    the group, with a remark; the others share the prepare function, and
    the shared prepare function is a remark too (`weights-prepared-once`). A function called within the module keeps its signature and
    is left alone; both that and a function with nothing to move are
    remarks (category `fp8-prepare-weights`), as is every function the pass
    splits. `fp8-gpu-graph-pipeline{prepare-weights=1}` (and
    `fp8-gpu-pipeline`) run the pass after layout legalization, so that
    the K-major copies the GEMMs read are prepared too, and both functions
    become entry points with a manifest each.

    Before (a weight quantized per tensor, and its K-major copy that
    `fp8-legalize-layout` asked for):
    ```mlir
    func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16> {fp8.weight}) -> tensor<64x256xbf16> {
      %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<1x1xf32>
      %qx, %sx = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
      %e = tensor.empty() : tensor<256x128xf8E4M3FN>
      %t = linalg.transpose ins(%qw : tensor<128x256xf8E4M3FN>) outs(%e : tensor<256x128xf8E4M3FN>) permutation = [1, 0]
      %y = fp8.scaled_matmul %qx, %t scales(%sx, %sw) by(<tensor>, <tensor>) transpose_rhs : ... -> tensor<64x256xbf16>
      return %y : tensor<64x256xbf16>
    }
    ```
    After:
    ```mlir
    func.func @linear_prepare(%w: tensor<128x256xbf16> {fp8.weight}) -> (tensor<1x1xf32>, tensor<256x128xf8E4M3FN>) {
      %e = tensor.empty() : tensor<256x128xf8E4M3FN>
      %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : ...
      %t = linalg.transpose ins(%qw : tensor<128x256xf8E4M3FN>) outs(%e : tensor<256x128xf8E4M3FN>) permutation = [1, 0]
      return %sw, %t : tensor<1x1xf32>, tensor<256x128xf8E4M3FN>
    }
    func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16> {fp8.weight},
                      %sw: tensor<1x1xf32> {fp8.prepared = 0 : i64},
                      %t: tensor<256x128xf8E4M3FN> {fp8.prepared = 1 : i64}) -> tensor<64x256xbf16> {
      %qx, %sx = fp8.dynamic_quantize %x by <tensor> rule <ratio> : ...
      %y = fp8.scaled_matmul %qx, %t scales(%sx, %sw) by(<tensor>, <tensor>) transpose_rhs : ... -> tensor<64x256xbf16>
      return %y : tensor<64x256xbf16>
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def FP8Optimizer : Pass<"fp8-optimizer", "::mlir::ModuleOp"> {
  let summary = "Store the state of Adam/AdamW steps in FP8 by a named recipe";
  let description = [{
    Finds Adam and AdamW steps written in plain linalg and arith and stores
    their optimizer state (and, for FP8-LM, the master weight) in low
    precision plus scales, as the recipe says (docs/numerics.md sections 14
    and 15). The step's arithmetic is left as written; the pass decodes the
    stored state where the function starts and encodes the new state where
    the step computes it.

    A step is a `linalg.generic` with parallel loops and three results whose
    roles follow from the body's dataflow: two results are moving averages
    of the same input, `beta * state + f(grad)` with `beta` not read from a
    tensor (the first and second moments `m` and `v`; `v` is the one under a
    `math.sqrt`), and the third depends on the gradient, both moments and
    one more input (the weight). The four are f32 tensors of one shape read
    through the identity map; other inputs (hyperparameters as 0-d tensors)
    may be anything. The state is *threaded*: the old weight and moments are
    arguments of the enclosing function and the new ones are among its
    results. The pass replaces each such argument and result in place by its
    stored parts and marks them with `fp8.optimizer_state` (the role and the
    part: `m.codes`, `weight.scale`, ...; a weight kept as it is is marked
    `weight`), so that the caller feeds one step's state to the next and the
    GPU manifest can count the state's bytes per parameter:

    | recipe | weight | `m` | `v` |
    |---|---|---|---|
    | `coat` | f32, unchanged | `fp8.expand_quantize` by `<group>`: codes, amax (f32), exponent (i8) | same |
    | `fp8lm` | f16 and an f32 decode scale (power of two, per tensor) | E4M3 codes and a decode scale (`pow2`, current amax) | f16 and a decode scale |

    `coat` groups are `group` consecutive elements of the last dimension
    (COAT's 1x128 with the default); `expansion-limit=0` switches the range
    expansion off (plain per-group scaling). Functions that are called
    within the module keep their signature, a step whose state is not
    threaded is left in f32, and so is a step over so few elements that
    their codes and scales would take as many bytes as f32 values or more
    (any 0-d step, whose hyperparameters given as 0-d tensors cannot be
    told from its weight); each is a remark (category `fp8-optimizer`), as
    is every step the pass rewrites.

    Before (one parameter):
    ```mlir
    func.func @step(%w: tensor<64x256xf32>, %g: tensor<64x256xf32>,
                    %m: tensor<64x256xf32>, %v: tensor<64x256xf32>, ...)
        -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>) {
      %r:3 = linalg.generic ... ins(%w, %g, %m, %v, ...) ... {
        ... %mn = b1 * m + (1 - b1) * g, %vn = b2 * v + (1 - b2) * g * g,
        ... %wn = w - lr / b1t * mn / (sqrt(vn) / sqrt(b2t) + eps) ...
      }
      return %r#0, %r#1, %r#2 : ...
    }
    ```
    After `fp8-optimizer=recipe=coat`, `%m` and `%v` are each three
    arguments (`tensor<64x256xf8E4M3FN>`, `tensor<64x2xf32>`,
    `tensor<64x2xi8>`) decoded by `fp8.expand_dequantize`, and the new
    moments are returned as the three results of `fp8.expand_quantize`.
  }];
  let options = [
    Option<"recipe", "recipe", "std::string", /*default=*/"\"coat\"",
           "The state recipe: coat or fp8lm">,
    Option<"group", "group", "int64_t", /*default=*/"128",
           "coat: elements per group along the last dimension">,
    Option<"expansionLimit", "expansion-limit", "int32_t", /*default=*/"5",
           "coat: the largest |j| of the expansion k = 2^j, 0 to 8 (0: none)">,
    Option<"format", "format", "std::string", /*default=*/"\"e4m3\"",
           "The FP8 format of the moments stored as codes: e4m3 or e5m2">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::fp8::FP8Dialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FP8IsolateGlobalState : Pass<"fp8-isolate-global-state"> {
  let summary = "Copy ml_program global state at loads and stores before bufferization";
  let description = [{
    Delayed scaling keeps its amax histories and scales in `ml_program`
    globals. MLIR 22's bufferization of `ml_program.global_load` lets later
    writes to the global show through the loaded value, and of
    `ml_program.global_store` can store an uninitialized copy when the stored
    value has other uses. This pass gives both a private copy
    (`bufferization.alloc_tensor() copy(...)`), which bufferization handles
    correctly: a loaded value is a snapshot, a stored value is stored. The
    copies are of state tensors (a history and a scale), so they cost little.

    `fp8-cpu-pipeline` runs it before bufferizing.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

#endif // FP8_DIALECT_FP8_TRANSFORMS_PASSES_TD
