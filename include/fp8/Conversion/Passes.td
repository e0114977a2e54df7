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

def ConvertFP8ToGPU : Pass<"convert-fp8-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower fp8 graphs on tensors to GPU kernels and a launch plan";
  let description = [{
    Turns each entry point, a function of fp8 ops on statically shaped
    tensors, into generated kernels in a `gpu.module @fp8_kernels` (targeting
    `chip`) and a launch plan, recorded in the module attribute `fp8.plans`
    under the function's name. A plan names the buffers (the function's
    arguments and results, constants with their data, and temporaries) and
    the launches in order: kernel launches with grid, block and dynamic
    shared memory sizes and parameters (buffers, integers, and the TMA tensor
    maps the host builds), and buffer fills. `fp8-write-artifacts` writes it
    as JSON for the runtime (runtime/).

    Temporaries live in one workspace, each at an offset aligned to 256
    bytes. A temporary is live from the first launch that names it to the
    last (launches run in order on one stream), and temporaries whose live
    ranges are disjoint share bytes: largest first, each takes the lowest
    offset that no temporary live during its range holds.
    `reuse-temporaries=false` gives each temporary bytes of its own.

    An elementwise op whose result only quantizations read (`fp8.quantize`,
    `fp8.dynamic_quantize`, `fp8.amax`) has no kernel of its own: the
    quantize kernels compute it where they load their input, so that its
    result is never stored (a prologue). It must be a two-dimensional op
    with a clonable body (arith and math ops, constants captured), reading
    same-shape matrices, per-row or per-column vectors and scalars, whose
    matrices hold at most three times the bytes of its result per element.
    Every decision is a remark under `-remarks-filter=fp8-gpu`
    (`prologue-fused`, or `prologue-not-fused` with the reason).
    `fuse-prologues=false` keeps such ops as kernels of their own.

    A contraction left in bf16, f16 or f32 runs as the chip's GEMM with
    high-precision operands; the zero fill it accumulates into has no
    kernel. When its product's one reader is an elementwise `linalg.generic`
    (reading the product first, at the position it writes, and not its
    init), the GEMM applies the generic's body in its epilogue, as
    fp8.scaled_matmul's epilogue region, and the generic has no kernel of
    its own; a batch's epilogue reads scalar inputs only, and the body may
    read the element's row and column (a causal mask). Remarks:
    `epilogue-fused`, or `epilogue-not-fused` with the reason.

    A reduction of the last dimension of a space [..., cols] and the ops
    around it that compute over the same rows form a row group, computed by
    one kernel: a CTA per row loads each tensor of the row once, keeps its
    elements in registers, and stores only the results that other ops read.
    The group takes the readers of its values that are elementwise over the
    space or over its rows (the space without its last dimension) or reduce
    its last dimension, and the elementwise producers that only it reads. It
    leaves out contractions and their readers, elementwise ops that
    quantizations read (prologues), and ops that depend on the group through
    another op; its results must be read after its last op, where the kernel
    runs. A softmax (maximum, exp(x - max), sum, division) is one kernel, as
    are a LayerNorm's statistics and the gradients of both. Rows longer than
    16 elements in each of 512 threads stay kernels of their own. Remarks:
    `rows-fused`, or `rows-not-fused` with the reason.
    `fuse-rows=false` gives each op its kernel.

    Entry points:

    * `entry-points=f,g` names them. Each must be a `func.func` with a body
      whose arguments and results are statically shaped tensors; any other
      name is an error that says why (no such function, a declaration, a
      dynamic or non-tensor type in the signature). The prepare function
      whose results one of them takes (`fp8.prepare`, from
      fp8-prepare-weights) is compiled with it.
    * By default they are the public functions a host can launch: a body,
      statically shaped tensor arguments, and at least one result, every
      result a statically shaped tensor. The choice looks at signatures
      only: an op without a GPU lowering inside such a function is an error,
      never a reason to skip it. Every other public function (a `main`
      driver, a function of dynamic shapes or scalars) is left in the module
      untouched, with a remark that says why
      (`--remarks-filter=convert-fp8-to-gpu`); if no function qualifies while
      some are defined, that is an error.
    * The functions an entry point calls (`func.call`, transitively) are
      compiled into its plan: their bodies are inlined first, with call-site
      locations. A callee without a body, with control flow, or on a
      recursive cycle is an error naming it.
    * Entry points are erased, except those that a function left in the
      module still calls; so are the private callees left without a caller.
      Every function that is neither an entry point nor called by one stays
      as it is.

    sm_90a kernels:

    * `fp8.scaled_matmul`: the warp-specialized TMA + wgmma GEMM of
      `GemmSM90Config` (per-tensor, row-wise, and 1x128 / 128x128 or MX
      1x32 block scales with promotion into f32), persistent over output
      tiles;
    * `fp8.dynamic_quantize`: amax and quantize kernels.
    * `fp8.quantize`: quantize kernels reading given f32 or E8M0 scales,
      rounding to nearest even or stochastically.
    * `fp8.compute_scale` (both chips): a thread per amax.

    sm_100a kernels (PTX ISA 8.8):

    * `fp8.scaled_matmul`: the warp-specialized TMA + `tcgen05.mma` GEMM of
      `GemmSM100Config` with the accumulator in tensor memory, persistent
      over 128-row output tiles: `kind::f8f6f4` for per-tensor and row-wise
      f32 scales (applied in the epilogue), `kind::mxf8f6f4.block32` for
      MXFP8 E8M0 1x32 blocks and `kind::mxf4nvf4.block16` for NVFP4 E4M3
      1x16 / 16x16 blocks (global scales in the epilogue), block scales moved
      to tensor memory with `tcgen05.cp`. f32 block scales along K (DeepSeek
      1x128 / 128x128) take `kind::mxf8f6f4.block32` when quantizations in
      the graph by rule `pow2` produce them with a margin that keeps them in
      E8M0's range, or they are constants of such powers of two: staged as
      their E8M0 codes; other f32 block scales are an error. Operands are read K-major: an
      MN-major operand quantized in the graph is stored K-major by its
      quantization. Block scales are read in the layout of
      `Tcgen05ScaleLayout`, which quantizations write directly when only such
      GEMMs read them; other scales are staged by a copy kernel.
    * `fp8.dynamic_quantize`: the sm_90a kernels plus NVFP4 (two-level
      scales, E2M1 codes packed two per byte).
    * `fp8.quantize`: the sm_90a kernels plus E2M1 codes by given E4M3 block
      scales under a given global scale (NVFP4), stochastic rounding
      included.

    The kernel module's target must compile every instruction used (chip and
    PTX ISA version); otherwise the pass fails with a diagnostic rather than
    letting LLVM's NVPTX backend abort.

    Every operand must already be legal for the chip (`fp8-legalize-layout`
    runs first in `fp8-gpu-pipeline`); anything without a GPU lowering is an
    error that names it.
  }];
  let options = [
    Option<"chip", "chip", "::mlir::fp8::Chip",
           /*default=*/"::mlir::fp8::Chip::SM90a",
           "The target: sm_90a or sm_100a">,
    Option<"numSMs", "num-sms", "int64_t", /*default=*/"132",
           "Streaming multiprocessors of the device (persistent grids)">,
    Option<"reuseTemporaries", "reuse-temporaries", "bool",
           /*default=*/"true",
           "Let temporaries that are never live at the same launch share "
           "workspace bytes (off: each has bytes of its own, so that a "
           "memory checker sees every temporary's bounds)">,
    Option<"fusePrologues", "fuse-prologues", "bool", /*default=*/"true",
           "Compute an elementwise op whose result only quantizations read "
           "in their kernels (off: a kernel of its own writes it)">,
    Option<"fuseRows", "fuse-rows", "bool", /*default=*/"true",
           "Compute a reduction of rows and the ops over the same rows "
           "around it (a softmax, a LayerNorm) in one kernel that reads each "
           "row once (off: a kernel per op)">,
    Option<"sm90TileN", "sm90-tile-n", "std::string", /*default=*/"\"auto\"",
           "Columns of the sm_90a GEMMs' output tiles where their scaling "
           "allows (per-tensor, row/column or 128-long block scales, or "
           "none, and N > 128): "
           "192 (two consumer warpgroups of 64 x 192, the accumulator and a "
           "partial sum in registers), 128, or auto: 192 for the FP8 GEMMs "
           "whose products fill the multiprocessors' waves better so, by an "
           "estimate measured on an H100 (a `tiles` remark says which), 128 "
           "for the rest (and for block scales per column of B, which "
           "wide tiles do not speed up). 32-long block scales and N <= 64 "
           "keep their tiles">,
    Option<"stageEpilogueInputs", "stage-epilogue-inputs", "bool",
           /*default=*/"true",
           "sm_90a GEMMs whose epilogue reads a tensor of the result's shape "
           "(a residual, a GELU's derivative) copy each tile's part of it "
           "into shared memory with TMA while the tile's last K steps run, "
           "where its rows are whole 16-byte units of an unpadded buffer and "
           "at least 4 pipeline stages still fit (off: the epilogue loads "
           "it from global memory)">,
    Option<"sm90MNMajorOperands", "sm90-mn-major-operands", "bool",
           /*default=*/"true",
           "sm_90a high-precision GEMMs read a bf16 or f16 operand stored "
           "MN-major (A as [batch, K, M], B as [batch, K, N]: V of attention's "
           "PV, both operands of a weight gradient, B of a plain matmul) "
           "where it is, wgmma transposing its tiles from shared memory, "
           "instead of from a transposed copy made by a layout kernel first "
           "(rows of M or N must be 16-byte multiples)">,
    Option<"sm90HeadMajorResults", "sm90-head-major-results", "bool",
           /*default=*/"true",
           "sm_90a GEMMs whose [M, N] result attention splits into heads (a "
           "tensor.expand_shape to [M, H, D] read only by a linalg.transpose "
           "to [H, M, D], D even: the Q, K and V projections) store it "
           "head-major from their epilogue, and batches of GEMMs whose [H, "
           "M, D] result is merged back (read only by a linalg.transpose to "
           "[M, H, D]: the context, the Q, K and V gradients) store it "
           "token-major; the transpose has no layout kernel">,
    Option<"sm90TmaStore", "sm90-tma-store", "bool",
           /*default=*/"true",
           "sm_90a GEMMs write each tile's results into shared memory, and "
           "one thread of each consumer warpgroup copies them out with TMA "
           "(cp.async.bulk.tensor, clipped at the edges) while the next "
           "tile's K loop runs, instead of storing them from registers; where "
           "the result's rows are 16-byte multiples apart, a tile row is "
           "whole 128-byte boxes and at least 4 pipeline stages still fit">,
    Option<"sm90Multicast", "sm90-multicast", "bool",
           /*default=*/"false",
           "sm_90a GEMMs run in clusters of two CTAs, which compute the two "
           "tiles of a pair of tile rows in one tile column: each CTA's "
           "producer copies its A tile and half of the shared B tile, the "
           "half into both CTAs' shared memory (TMA multicast), so that each "
           "reads half as much of B from L2; a pipeline slot is free once "
           "the consumers of both have released it. Not with MN-major B or "
           "an epilogue warpgroup. Off by default: correct on an H100, and "
           "since its remote releases have CTA scope as fast as the kernels "
           "without it (0.97 to 1.05x), but no faster, and the models were "
           "2 to 5% slower with it">,
    Option<"sm90AlternateConsumers", "sm90-alternate-consumers", "bool",
           /*default=*/"false",
           "the two consumer warpgroups of sm_90a GEMMs that wait for each K "
           "tile's wgmmas to promote partial sums (scaled operands, "
           "promote_interval > 0) issue them in turn: the first consumer "
           "issues a group once the second has issued its previous one, the "
           "second once the first has issued the same one (named barriers), "
           "so that the tensor cores run one warpgroup's group while the "
           "other promotes instead of both promoting at once. Kernel suffix "
           "_alt. Off by default until a GPU has measured it">,
    Option<"sm90ProducerColumnScales", "sm90-producer-column-scales", "bool",
           /*default=*/"false",
           "sm_90a GEMMs whose B has a block scale per column (1 x 128 "
           "blocks along K with f32 scales: the weight gradients of "
           "DeepSeek's recipe) have the producer warp copy each K tile's "
           "column scales into a buffer beside the ring slot (cp.async of "
           "4 bytes a lane, completed on the slot's full mbarrier with "
           "cp.async.mbarrier.arrive), where the consumers read them: no "
           "consumer loads them from global memory, stores them to shared "
           "memory or waits on a warpgroup barrier for them. The buffers "
           "take shared memory from the ring (128 x 128 tiles: 6 stages "
           "instead of 7). Kernel suffix _pcs. Off by default until a GPU "
           "has measured it">,
    Option<"sm90EpilogueWarpgroup", "sm90-epilogue-warpgroup", "bool",
           /*default=*/"false",
           "sm_90a GEMMs whose epilogue computes a transcendental function (a "
           "GELU, its derivative, tanh, SiLU) run it in a fourth warpgroup, "
           "concurrently with the next tile's K loop: the consumers hand "
           "their accumulators over through shared memory. Such GEMMs take "
           "128-column tiles under sm90-tile-n=auto. Off by default: one "
           "warpgroup computes these epilogues more slowly than the K loop "
           "runs (docs/perf.md, 2026-11-27)">,
    ListOption<"entryPoints", "entry-points", "std::string",
               "The functions to compile, with the functions they call "
               "(default: every public function with statically shaped "
               "tensor arguments and results and at least one result)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def FP8WriteArtifacts : Pass<"fp8-write-artifacts", "::mlir::ModuleOp"> {
  let summary = "Write the GPU kernels and launch manifests to a directory";
  let description = [{
    After `gpu-module-to-binary`, writes into `dir`:

    * `fp8_kernels.ptx`: the PTX of every kernel (from the `gpu.binary`
      object; `format=isa`);
    * `fp8_kernels.cubin` and `fp8_kernels.ptxas.log` (`ptxas -v`: registers
      and spills per kernel) when `ptxas` runs;
    * `<function>.json` per lowered function: the launch plan of
      `convert-fp8-to-gpu` as the runtime's manifest (runtime/README.md),
      and `<function>.const<id>.bin` for each constant buffer.

    `ptxas` is the assembler to run: `auto` (the default) looks for
    /usr/local/cuda/bin/ptxas and `ptxas` on PATH and skips the cubin when
    neither exists; `none` skips it; any other value is a path. A failing
    ptxas is an error. Files are written only when every step succeeded. A
    kernel that ptxas says spills registers is a warning naming it: the
    planner refuses the option combinations known to spill, and this
    catches the others.
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\"\"",
           "Output directory (created if missing)">,
    Option<"ptxas", "ptxas", "std::string", /*default=*/"\"auto\"",
           "ptxas to assemble the PTX with: auto, none, or a path">,
  ];
}

def FP8StripCompileTimes : Pass<"fp8-strip-compile-times"> {
  let summary = "Remove the compile times that gpu-module-to-binary records";
  let description = [{
    `gpu-module-to-binary` records how long the NVPTX backend (and ptxas, for
    `format=bin`) took in the properties of each `gpu.object`:
    `LLVMIRToISATimeInMs`, `ISAToBinaryTimeInMs`. Two compilations of the
    same input then differ, which defeats caches, reviews and tests that
    compare bytes. This pass removes every property whose name ends in
    `TimeInMs` from the objects of every `gpu.binary`; the other properties
    and the object itself stay. `fp8-gpu-pipeline` runs it unless
    `compile-times=true`.

    ```mlir
    gpu.binary @fp8_kernels [#gpu.object<#nvvm.target<chip = "sm_90a">,
        properties = {LLVMIRToISATimeInMs = 13 : i64, O = 3 : i32},
        assembly = "...">]
    // becomes
    gpu.binary @fp8_kernels [#gpu.object<#nvvm.target<chip = "sm_90a">,
        properties = {O = 3 : i32}, assembly = "...">]
    ```
  }];
}

#endif // FP8_CONVERSION_PASSES_TD
