//===- Kernels.h - Generated GPU kernels of the fp8 ops ---------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Builders of the GPU kernels that fp8 ops lower to, one configuration at a
// time, as llvm.func kernels with NVVM ops inside a gpu.module. Each
// configuration names its kernel, its parameters and its launch geometry, so
// that the lowering can record launches the runtime replays.
//
// Parameters: every kernel family names its parameters by an enum
// (GemmParam, QuantizeParam, ...), and a configuration's getParams() lists
// those its kernel takes, in order. The builders declare the kernel from that
// list and fetch its arguments by name; the lowering orders a launch's
// arguments by the same list, with a switch over the enum.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_CONVERSION_FP8TOGPU_KERNELS_H
#define FP8_CONVERSION_FP8TOGPU_KERNELS_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Target/ScaleFactorLayout.h"
#include "fp8/Target/Tcgen05InstrDescriptor.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <optional>
#include <string>

namespace mlir::fp8 {

/// Element types of GEMM results and bias.
enum class WideElement { F32, BF16, F16 };

/// The WideElement of `type`, if it is f32, bf16 or f16.
inline std::optional<WideElement> getWideElement(Type type) {
  if (type.isF32())
    return WideElement::F32;
  if (type.isBF16())
    return WideElement::BF16;
  if (type.isF16())
    return WideElement::F16;
  return std::nullopt;
}

/// Bytes of one `element`.
inline int64_t getWideElementBytes(WideElement element) {
  return element == WideElement::F32 ? 4 : 2;
}

//===----------------------------------------------------------------------===//
// Kernel parameters
//===----------------------------------------------------------------------===//

/// How a kernel parameter is passed.
enum class KernelParamKind {
  /// A 128-byte CUtensorMap, by value as a 64-byte aligned grid constant.
  TensorMap,
  /// A pointer to global memory.
  Buffer,
  /// A 32-bit integer.
  I32,
};

/// The parameters of the scaled-GEMM kernels of both chips, in the order a
/// kernel takes those it has (ScaledGemmConfig::getParams).
enum class GemmParam {
  /// Tensor maps of the K-major operands A [M, K] and B [N, K]: 8-bit,
  /// packed E2M1, or the 16- and 32-bit elements of a high-precision GEMM.
  TensorMapA,
  TensorMapB,
  /// The result C [M, N]: `out` elements, or `fp8Out` codes.
  Out,
  /// The result as a tensor map instead (`tmaStore`): its [M, N] elements
  /// as [M, N * bytes] bytes ([batches, M, N * bytes] in a batch), boxes of
  /// 128 bytes by 64 rows, with 128-byte swizzle.
  OutTensorMap,
  /// The decode scales of A and B: f32 per tensor, per row (A) and column
  /// (B), or block scales (see the GEMM configurations). High-precision
  /// GEMMs take none.
  ScaleA,
  ScaleB,
  /// The bias [N] (`bias`).
  Bias,
  /// The f32 global decode scales of A and B (`globalScales`).
  GlobalScaleA,
  GlobalScaleB,
  /// The f32 encode scale of FP8 results (`fp8Out`).
  OutScale,
  /// The zero-filled f32 receiving the amax of the results (`outAmax`).
  Amax,
  /// The decode scales of FP8 results quantized by blocks (`resultBlock`):
  /// [M, ceil(N / resultBlock)], f32 or E8M0 per `resultRule`.
  ResultScale,
  /// The extents, as i32.
  M,
  N,
  K,
  /// Batched kernels (`batched`), as i32: the matrices of the batch, and the
  /// bytes from one batch's scales of A and of B to the next (0 when every
  /// batch shares them; absent without scales).
  Batches,
  ScaleABatchStride,
  ScaleBBatchStride,
  /// The inputs of an epilogue (`epilogue`), one parameter each, last:
  /// the input's buffer, or the tensor map of a matrix input that the
  /// kernel stages in shared memory (`stagedMatrices`): its [M, N] elements
  /// as [M, N * bytes] bytes, boxes of 128 bytes by the tile's rows, with
  /// 128-byte swizzle.
  EpilogueInput,
  EpilogueTensorMap,
};
KernelParamKind getParamKind(GemmParam param);

/// The parameters of the quantization kernels, in the order a kernel takes
/// those it has (QuantizeConfig::getParams).
enum class QuantizeParam {
  /// The [rows, cols] row-major matrix of `input` elements.
  Input,
  /// An f32 buffer: the blocks' amaxes (the Amax phase folds into it, an
  /// unfused Quantize phase reads it), the tensor's amax (`twoLevel`), or
  /// the given scales (`givenScales`: f32 encode scales, or E8M0 or E4M3
  /// codes, a byte each). Fused kernels do not read it.
  Amax,
  /// Quantize phase: the codes and the block scales.
  Codes,
  Scales,
  /// The matrix and the scale blocks, as i32.
  Rows,
  Cols,
  BlockRows,
  BlockCols,
  /// Quantize phase: elements from one row of the codes to the next (i32).
  Pitch,
  /// The f32 global decode scale 1/S the kernel stores (`twoLevel`), or,
  /// with `givenScales`, the f32 global encode scale S it reads.
  GlobalScale,
  /// The chunks per 128-row band of the scale layout (i32,
  /// `tcgen05Scales`).
  ScaleKChunks,
  /// The i32 random words of stochastic rounding, one per input element, in
  /// the input's [rows, cols] row-major order (`stochastic`).
  RandomBits,
  /// Batched kernels (`batched`), as i32: the bytes from one matrix's scales
  /// (Quantize phase) to the next, and from its part of the amax buffer
  /// (amaxes, or given scales in their own size) to the next; 0 when the
  /// matrices share them.
  ScaleBatchStride,
  AmaxBatchStride,
  /// A paired kernel's column-wise copy (QuantizeConfig::pair): its amax
  /// buffer, codes, scales, blocks, pitch and scale chunks, as the row-wise
  /// copy's above.
  PairAmax,
  PairCodes,
  PairScales,
  PairBlockRows,
  PairBlockCols,
  PairPitch,
  PairScaleKChunks,
  /// A batched paired kernel (`batched`): the column-wise copy's
  /// ScaleBatchStride and AmaxBatchStride.
  PairScaleBatchStride,
  PairAmaxBatchStride,
  /// The inputs of a prologue (`prologue`), one buffer each, last; the
  /// kernel then takes no Input.
  PrologueInput,
};
KernelParamKind getParamKind(QuantizeParam param);

/// The parameters of the scale-layout staging kernel, all of which it takes
/// in this order (see ScaleLayoutConfig).
enum class ScaleLayoutParam {
  /// The row-major scales (i8, or f32 with `f32Source`) and the destination
  /// in the layout (i8).
  Source,
  Dest,
  /// i32: the operand's rows and k-blocks, the rows sharing one scale, the
  /// source strides of a row and of a k-block, the layout's chunks per
  /// 128-row band, and the destination's bytes.
  Rows,
  KBlocks,
  RowsPerScale,
  RowStride,
  KStride,
  KChunks,
  Bytes,
  /// i32, `f32Source` only: the k-blocks one source scale covers.
  KBlocksPerScale,
  /// i32, `batched` only: the bytes between the source scales of
  /// consecutive matrices.
  SourceBatchBytes,
};
KernelParamKind getParamKind(ScaleLayoutParam param);

/// The parameters of the compute-scale kernel, in the order a kernel takes
/// those it has (ComputeScaleConfig::getParams).
enum class ComputeScaleParam {
  /// The f32 amaxes, and the f32 global encode scale S (`global`).
  Amax,
  GlobalScale,
  /// The scales (f32, or one byte per E8M0 or E4M3 code) and their f32
  /// reciprocals (`inverse`).
  Scale,
  ScaleInv,
  /// i32: the number of amaxes.
  Count,
};
KernelParamKind getParamKind(ComputeScaleParam param);

/// The parameters of the delayed-scale kernel, all of which it takes in this
/// order: the f32 buffers of the op's operands and results, then the
/// history length (i32).
enum class DelayedScaleParam {
  Amax,
  History,
  Scale,
  NewHistory,
  NewScale,
  NewScaleInv,
  HistoryLength,
};
KernelParamKind getParamKind(DelayedScaleParam param);

/// The parameters of the layout kernels, in the order a kernel takes those
/// it has (LayoutConfig::getParams): the two buffers, then i32 values: the
/// element offsets of the box in each, and for each of its dimensions up to
/// the configuration's rank, outermost first, the extent and the element
/// strides in the input and in the output.
enum class LayoutParam {
  Input,
  Output,
  InputOffset,
  OutputOffset,
  Extent0,
  Extent1,
  Extent2,
  Extent3,
  InputStride0,
  InputStride1,
  InputStride2,
  InputStride3,
  OutputStride0,
  OutputStride1,
  OutputStride2,
  OutputStride3,
};
KernelParamKind getParamKind(LayoutParam param);

//===----------------------------------------------------------------------===//
// Kernel configurations
//===----------------------------------------------------------------------===//

/// How a scaled GEMM applies its operands' decode scales.
enum class GemmScaling {
  /// One scale per operand, applied in the epilogue.
  Tensor,
  /// A per row (M) and B per column (N), applied in the epilogue.
  RowCol,
  /// Scales that change along K every `kGroup` elements: the tensor-core
  /// partial sum of each group is scaled and added on the CUDA cores.
  Block,
};

/// What a scaled GEMM C[M, N] = A[M, K] x B[N, K]^T computes, whichever chip
/// runs it: the operand formats, how their scales apply, and what the
/// epilogue adds. It fixes the kernel's parameters. Each chip's
/// configuration says which of these it generates (verify).
///
/// The same kernels multiply the contractions a recipe leaves in high
/// precision (`wideOperands`): the tensor cores read bf16 and f16 operands
/// as they are and f32 ones as tf32. Every operand row of a pipeline stage
/// is one 128-byte swizzle span whatever the element width, and every MMA
/// reads 32 bytes of it, so the shared-memory layout and descriptors are
/// those of the 8-bit GEMMs.
/// How a kernel that computes a scalar body per element of a [rows, cols]
/// matrix reads an input of the body at the element's (row, column).
enum class ElementRead {
  Matrix, // [rows, cols], at (row, column)
  Row,    // [rows], at row: one value per row
  Column, // [cols], at column: a row vector broadcast down the rows
  Scalar, // a single element
};

/// The ElementRead of an input that an elementwise op over two dimensions
/// reads through `map`, if it is one of those.
std::optional<ElementRead> getElementRead(AffineMap map);

/// The epilogue of a GEMM (the region of an fp8.scaled_matmul): each result
/// element is the scalar body applied to the product, rounded to `product`,
/// and to the element of each input at the result's position.
struct GemmEpilogue {
  /// How an input is indexed by the result's (row, column).
  using Read = ElementRead;
  struct Input {
    WideElement element;
    Read read;
  };
  WideElement product = WideElement::F32;
  SmallVector<Input> inputs;
  /// The body: arguments (product, inputs...), fp8.yield of the element
  /// (or a linalg.generic's body, whose last argument, its init, is not
  /// read, and linalg.yield). Its values captured from outside are
  /// constants, cloned with it.
  Block *body = nullptr;
  /// Distinguishes bodies in the kernel's name (a digest of the body).
  std::string tag;

  /// Whether an input is a tensor of the result's shape.
  bool readsMatrix() const {
    return llvm::any_of(
        inputs, [](const Input &input) { return input.read == Read::Matrix; });
  }
};

struct ScaledGemmConfig {
  using Param = GemmParam;

  Format aFormat = Format::E4M3;
  Format bFormat = Format::E4M3;
  /// A high-precision GEMM: both operands of this type, no scales (the
  /// formats and `scaling` are unused and the kernel takes no scale
  /// parameters).
  std::optional<WideElement> wideOperands;
  WideElement out = WideElement::BF16;
  GemmScaling scaling = GemmScaling::Tensor;
  std::optional<WideElement> bias;
  /// Block scaling with E4M3 scales: one f32 global decode scale per
  /// operand, applied in the epilogue (two-level NVFP4 scaling).
  bool globalScales = false;
  /// FP8 results: codes of this format from fl32(v * out_scale), saturated
  /// (`out` is then unused).
  std::optional<Format> fp8Out;
  /// Also the amax of the f32 results (before out_scale, NaN ignored),
  /// folded into a zero-filled f32 with atomic max.
  bool outAmax = false;
  /// With an epilogue and outAmax: the amax of each row instead, into a
  /// zero-filled f32 [M] (one atomic per row and tile).
  bool rowAmax = false;
  /// With an epilogue and fp8Out: the epilogue's results quantized by
  /// blocks of this many columns of a row (32 or 128; 0: by out_scale), as
  /// fp8.dynamic_quantize with `resultRule` would: the amax of each block
  /// (NaN ignored), the rule's scale, saturating codes, and the block's
  /// decode scale stored (f32, or the E8M0 code). A tile holds whole blocks.
  int64_t resultBlock = 0;
  ScaleRuleAttr resultRule;
  /// A batch of GEMMs: A [batches, M, K], B [batches, N, K] (3-D tensor
  /// maps, so that ragged tiles read zeros rather than the next matrix) and
  /// C [batches, M, N], with one bias and one amax for all of them.
  bool batched = false;
  /// With `batched` (sm_90a): matrix b's row m is stored as row m x batches
  /// + b of an [M x batches, N] result, [M, batches, N]: the layout of
  /// attention's heads merged back into tokens (a transpose of [H, M, D] to
  /// [M, H, D]). Element (b, m, n) lies at (m batches + b) N + n.
  bool outMergedBatches = false;
  /// An epilogue computing the result from the product: after the scales
  /// and the bias, each value is rounded to the epilogue's product type and
  /// passed through its body, which yields the `out` element, or the value
  /// `fp8Out` encodes; `outAmax` is then the amax of the body's results. A
  /// batch's epilogue reads scalar inputs only.
  std::optional<GemmEpilogue> epilogue;
  /// sm_90a: the epilogue's Matrix inputs are not read from global memory
  /// by the consumers; the producer copies each tile's part of them into
  /// shared memory with TMA while the tile's last K steps run, and passes
  /// them as tensor maps (GemmParam::EpilogueTensorMap).
  bool stagedMatrices = false;
  /// sm_90a: the consumers write each tile's results into shared memory
  /// (128-byte swizzled boxes of 128 bytes by 64 rows) and one thread of
  /// each consumer warpgroup stores its 64 rows with TMA, which runs while
  /// the next tile's K loop does; the result is passed as a tensor map
  /// (GemmParam::OutTensorMap) and TMA clips the ragged edges.
  bool tmaStore = false;
  /// sm_90a: clusters of two CTAs compute the two tiles of a pair of tile
  /// rows in one tile column, and each CTA's producer copies half of the
  /// shared B tile (blockN / 2 rows) into both CTAs' shared memory (TMA
  /// multicast), so that each CTA reads half of B from L2. A slot is free
  /// once the consumers of both CTAs have released it. B's tensor map has
  /// boxes of blockN / 2 rows.
  bool multicastB = false;

  /// CTAs per cluster along x: 2 with multicastB, else 1.
  int64_t getClusterSize() const { return multicastB ? 2 : 1; }

  /// The kernel's parameters, in order.
  SmallVector<GemmParam> getParams() const;
  /// Fails with a reason when the epilogue does not go with the rest.
  LogicalResult verifyEpilogue(std::string &reason) const;
  /// Whether epilogue input `input` is passed as a tensor map and staged.
  bool isStaged(const GemmEpilogue::Input &input) const {
    return stagedMatrices && input.read == GemmEpilogue::Read::Matrix;
  }
  /// Bytes of one result element: an FP8 code, or an `out` element.
  int64_t getResultBytes() const {
    return fp8Out ? 1 : getWideElementBytes(out);
  }
  /// Bits of one operand element of A (8 for FP8, 4 for E2M1).
  int64_t getOperandBits() const;
  /// Elements of K in `bytes` of an operand row.
  int64_t getKElements(int64_t bytes) const {
    return bytes * 8 / getOperandBits();
  }

protected:
  /// "fp8_gemm_<chip>_<A><B>_<result>_<scaling>", where `blockScaling`
  /// spells Block scaling; "gemm_<chip>_<operands>_<result>" without
  /// scales.
  std::string getKernelNamePrefix(StringRef chip, StringRef blockScaling) const;
  /// The epilogue's part of the name: "_bias<type>", "_amax".
  std::string getKernelNameEpilogue() const;
};

/// One sm_90a scaled-GEMM kernel: C[M, N] = A[M, K] x B[N, K]^T with both
/// operands K-major 8-bit (TMA, 128-byte swizzle), warp-specialized (one
/// producer warpgroup, two consumer warpgroups of wgmma m64nNk32),
/// persistent over output tiles.
struct GemmSM90Config : ScaledGemmConfig {
  /// Block scaling: K extent of a scale block (32 or 128), E8M0 scales
  /// (else f32), and the rows of B sharing one scale (1, or kGroup for square
  /// weight blocks).
  int64_t kGroup = 128;
  bool e8m0Scales = false;
  int64_t bRowsPerScale = 1;
  /// k32 steps between promotions into the f32 accumulator (Tensor and
  /// RowCol; 0 = tensor-core accumulation only). Block scaling promotes at
  /// every scale block.
  int64_t promoteInterval = 4;
  /// Per-tensor scales given as their reciprocals (the encode scales of
  /// delayed scaling): the kernel uses fl32(1 / s).
  bool invertScaleA = false;
  bool invertScaleB = false;
  /// Tile and pipeline.
  int64_t blockM = 128;
  int64_t blockN = 128;
  int64_t stages = 0; // 0: as many as shared memory holds
  /// A fourth warpgroup runs the epilogue: the consumers hand each tile's
  /// accumulators over through shared memory and go on to the next tile's
  /// K loop while it computes and stores the results (128-column tiles:
  /// the registers of a 192-column tile's consumers leave it too few).
  bool epilogueWarpgroup = false;
  /// The two consumer warpgroups issue the wgmma groups of a K tile in turn,
  /// the first before the second, each after the other's previous group
  /// (two named barriers, bar.arrive by the one whose turn ends, bar.sync by
  /// the one whose turn begins): the tensor cores then run one warpgroup's
  /// group while the other promotes its partial sums, instead of both
  /// waiting for their groups together and promoting together. Only where
  /// the consumers wait for each K tile's wgmmas (promoteInterval > 0 or
  /// block scales).
  bool alternateConsumers = false;
  /// Column scales (stagesColumnScales) copied by the producer warp into a
  /// slot of their own beside each ring slot (cp.async of 4 bytes a
  /// lane, completed on the slot's full mbarrier by
  /// cp.async.mbarrier.arrive), where the consumers read them once the slot
  /// is full: no consumer loads them from global memory, stores them to
  /// shared memory or waits on a warpgroup barrier for them. f32 scales of
  /// blocks of 128 along K only.
  bool producerColumnScales = false;
  /// 16-bit operands (high-precision GEMMs) stored MN-major: A as [batch, K,
  /// M], B as [batch, K, N], read where they are instead of from a
  /// transposed copy. Each stage's tile is then kBlockK / 2 rows of K by
  /// the tile's M or N, copied by TMA in boxes of 64 elements of M or N
  /// (one 128-byte swizzle span) and kBlockK / 2 rows, and wgmma reads it
  /// transposed (the .bf16/.f16 forms' transpose operands).
  bool mnMajorA = false;
  bool mnMajorB = false;
  /// The result stored head-major (0: row-major [M, N]): [N / outHeadDim,
  /// M, outHeadDim], the layout of attention's split into heads (an
  /// expand_shape of [M, N] to [M, H, D] transposed to [H, M, D]). Element
  /// (m, n) lies at ((n / D) M + m) D + n mod D. D is even, so that the
  /// epilogue's pairs of columns stay in one head.
  int64_t outHeadDim = 0;

  /// Bytes of K per pipeline stage: one 128-byte swizzle span per operand
  /// row (128 FP8 elements, 64 of 16 bits, 32 of f32).
  static constexpr int64_t kBlockK = 128;
  static constexpr int64_t kThreads = 384;
  static constexpr int64_t kEpilogueWarpgroupThreads = 512;

  /// Threads per block: kThreads, or kEpilogueWarpgroupThreads with an
  /// epilogue warpgroup.
  int64_t getThreads() const {
    return epilogueWarpgroup ? kEpilogueWarpgroupThreads : kThreads;
  }
  /// Fails with a reason when the configuration has no kernel.
  LogicalResult verify(std::string &reason) const;
  /// The pipeline depth actually used.
  int64_t getStages() const;
  /// The k32 steps of one promotion group: kGroup / 32 with block scales,
  /// else promoteInterval (0: the tensor cores accumulate across K tiles).
  int64_t getPromotionSteps() const {
    return scaling == GemmScaling::Block ? kGroup / 32 : promoteInterval;
  }
  /// The partial sums a consumer thread keeps: one per promotion group of
  /// a K tile where the groups are shorter than the tile (1 or 2 k32 steps:
  /// MXFP8's blocks of 32, promote_interval 1 or 2) and the accumulator and
  /// all of them fit in kPartialSumRegisters registers, else 1. With
  /// several, a tile's wgmmas are one group, each step writing its group's
  /// partial sum, waited for once and then promoted group by group, in the
  /// same order and with the same operations as one group at a time.
  int64_t getPartialSums() const;
  static constexpr int64_t kPartialSumRegisters = 160;
  /// Whether B has a block scale per column (1 x kGroup blocks): each
  /// consumer warpgroup then stages the scales of a K tile's blocks for the
  /// tile's columns in shared memory, one load per thread, instead of every
  /// thread loading the scales of its 2 x blockN / 8 columns.
  bool stagesColumnScales() const;
  /// Whether a tile of B's columns may straddle two of its square blocks of
  /// 128 rows: 192-column tiles start at column 0 or 64 of a block
  /// (192 t mod 128), so their columns [0, 64) lie in the first block,
  /// [128, 192) in the second, and [64, 128) in the first or second.
  bool straddlesTwoBBlocks() const;
  /// Bytes of one staging buffer (a K tile's blocks for the tile's
  /// columns), and bytes and offset of all of them in shared memory (two per
  /// consumer warpgroup, or one per ring slot with producerColumnScales; 0
  /// bytes when not staged).
  int64_t getColumnScaleBufferBytes() const;
  int64_t getColumnScaleBytes() const;
  int64_t getColumnScaleOffset() const;
  /// Staged epilogue inputs (`stagedMatrices`): the bytes of one tile of
  /// all of them (blockM x blockN elements each, in 128-byte column chunks
  /// of blockM rows), the offset of their full and empty mbarriers (after
  /// the column scales) and of the buffer (1024-byte aligned, for the
  /// swizzle). 0 bytes when nothing is staged.
  int64_t getStagedInputBytes() const;
  /// The bytes of the staged inputs before epilogue input `index` in the
  /// buffer (where its chunks start).
  int64_t getStagedBytesBefore(size_t index) const;
  int64_t getStagedBarrierOffset() const;
  int64_t getStagedInputOffset() const;
  /// The epilogue warpgroup's hand-over (`epilogueWarpgroup`): the bytes of
  /// one tile's f32 accumulators, the offset of its full and empty
  /// mbarriers (after the column scales) and of the buffer. 0 bytes without
  /// an epilogue warpgroup.
  int64_t getHandOverBytes() const;
  int64_t getHandOverBarrierOffset() const { return getStagedBarrierOffset(); }
  int64_t getHandOverOffset() const { return getStagedInputOffset(); }
  /// The result tile of a TMA store (`tmaStore`): its bytes (blockM x blockN
  /// results, 0 without) and its offset (1024-byte aligned, for the swizzle,
  /// after the staged inputs).
  int64_t getResultTileBytes() const;
  int64_t getResultTileOffset() const;
  /// Dynamic shared memory in bytes.
  int64_t getSharedMemoryBytes() const;
  /// A name that identifies the configuration.
  std::string getKernelName() const;
};

/// Threads per block of the kernels of `config`: Config::kThreads, unless
/// the configuration chooses (GemmSM90Config::getThreads).
template <typename Config>
int64_t getKernelThreads(const Config &config) {
  return Config::kThreads;
}
inline int64_t getKernelThreads(const GemmSM90Config &config) {
  return config.getThreads();
}

/// The cluster of the kernels of `config`: one CTA, unless the
/// configuration chooses (ScaledGemmConfig::getClusterSize).
template <typename Config>
std::array<int64_t, 3> getKernelCluster(const Config &config) {
  return {1, 1, 1};
}
inline std::array<int64_t, 3> getKernelCluster(const GemmSM90Config &config) {
  return {config.getClusterSize(), 1, 1};
}

/// The speed of 128 x 192 output tiles over 128 x 128 ones that the sm_90a
/// GEMM of `batches` products of `m` x `n` is estimated to gain on `numSMs`
/// multiprocessors (one persistent CTA each): a wave of wide tiles takes 1.5
/// times as long as one of 128 x 128 tiles over kSM90WideTileGain, and each
/// CTA runs ceil(tiles / numSMs) tiles. Below 1 where the wider tiles leave
/// more of the last wave idle (small products).
double estimateSM90WideTileSpeedup(int64_t batches, int64_t m, int64_t n,
                                   int64_t numSMs);
/// How much faster 128 x 192 tiles compute a product whose waves are full:
/// the FP8 GEMMs on an H100 (docs/perf.md, 2026-11-27) ran 8192^3 at 1268
/// TFLOP/s with them and 1128 with 128 x 128 tiles (row-wise: 1271 and
/// 1097).
inline constexpr double kSM90WideTileGain = 1.12;
/// The estimated speed-up from which sm90-tile-n=auto takes the wide tiles.
inline constexpr double kSM90WideTileMinSpeedup = 1.03;

/// Builds the kernel of `config` at the insertion point of `builder` (inside
/// a gpu.module) unless a function of its name exists; returns it. Its
/// parameters are config.getParams(): the scales are f32 (or E8M0 block
/// scales), per tensor, per row of A and column of B, or per block of
/// [1, kGroup] elements of A and [bRowsPerScale, kGroup] of B, row-major.
LLVM::LLVMFuncOp buildGemmSM90Kernel(OpBuilder &builder, Location loc,
                                     const GemmSM90Config &config);

/// An elementwise quantization kernel over a row-major [rows, cols] matrix
/// of f32, bf16 or f16, in tiles of 32 x 128 elements (256 threads, 16
/// consecutive elements of a row each). Scale blocks are [blockRows,
/// blockCols] elements (run-time parameters; the whole extent for per-tensor,
/// per-row and per-column scales); within a tile they are
/// [tileBlockRows, tileBlockCols], which divide the tile.
///
/// Two phases when a block is larger than a tile: the Amax kernel reduces
/// each tile's part of a block and folds it into a zero-filled f32 amax
/// buffer with an atomic max, then the Quantize kernel reads it. A block
/// inside one tile is reduced and quantized by one fused Quantize kernel.
/// An elementwise op computed by the quantize kernels that read its result,
/// where they load their input (each element is the op's scalar body
/// applied to the op's inputs at that position), so that the result is
/// never stored: the producer of a quantization fused into it.
struct QuantizePrologue {
  struct Input {
    /// f32, bf16, f16, or a type of a byte (FP8 codes).
    Type element;
    ElementRead read;
    /// The body's argument it is.
    unsigned argument = 0;
    /// 16-byte loads of a thread's 16 elements where they lie inside the
    /// matrix (Matrix inputs need rows of a multiple of 16 bytes).
    bool vectorLoads = false;
  };
  SmallVector<Input> inputs;
  /// The op's body: its arguments the inputs (and inits it ignores), its
  /// terminator yielding the element, of the quantization's input type.
  /// The values it captures from outside are constants, cloned with it.
  Block *body = nullptr;
  /// Distinguishes prologues in kernel names (the inputs' reads and types,
  /// a digest of the body).
  std::string tag;

  /// The bytes a thread loads per element of its runs: those of the Matrix
  /// and Column inputs (a value per element; Row and Scalar inputs have one
  /// per run).
  int64_t getRunBytes() const;
};

struct QuantizeConfig {
  using Param = QuantizeParam;

  enum class Phase { Amax, Quantize };
  Phase phase = Phase::Quantize;
  WideElement input = WideElement::BF16;
  Format format = Format::E4M3;
  int64_t tileBlockRows = 1;
  int64_t tileBlockCols = 128;
  /// The block lies inside one tile: no amax buffer.
  bool fused = true;
  /// Quantize by given scales (fp8.quantize): the amax parameter holds
  /// them (f32 encode scales, E8M0 codes with `e8m0Scales`, E4M3 codes
  /// under a given global encode scale with `twoLevel`), and no scale is
  /// written.
  bool givenScales = false;
  ScaleRuleAttr rule;
  Overflow overflow = Overflow::Saturate;
  NanPolicy nanPolicy = NanPolicy::Propagate;
  /// Scales stored as E8M0 codes (else f32 decode scales).
  bool e8m0Scales = false;
  /// Codes and scales stored transposed ([cols, rows]): the K-major copy of
  /// a [K, N] operand, as a fused cast+transpose.
  bool transposed = false;
  /// Input rows, and code rows (the pitch), whose byte length keeps 16-byte
  /// vector accesses aligned; ragged tiles fall back to guarded scalars.
  bool vectorLoads = false;
  bool vectorStores = false;
  /// NVFP4 (E2M1 codes packed two per byte low nibble first, E4M3 block
  /// scales): with rule nvfp4 the amax buffer holds the whole tensor's amax,
  /// from which each CTA derives the global encode scale S, and the kernel
  /// stores the global decode scale 1/S too; with `givenScales` S is read.
  bool twoLevel = false;
  /// Stochastic rounding with the words of the RandomBits parameter (the
  /// soft conversion of fp8.convert), else round to nearest even.
  bool stochastic = false;
  /// Block scales written in the layout of Tcgen05ScaleLayout, for an
  /// sm_100a block-scaled GEMM: K runs along the input's columns when
  /// `scalesKAlongCols` (else its rows); each scale is repeated for the
  /// rows of its block across K (square blocks).
  bool tcgen05Scales = false;
  bool scalesKAlongCols = true;
  /// A batch of matrices, one per blockIdx.y: the input, codes, scales and
  /// amax buffer hold one matrix after the other (the amax buffer and scales
  /// with the strides of the parameters, a pair's copies each with its
  /// own), and each matrix is quantized as the kernel quantizes one.
  bool batched = false;
  /// The column-wise copy of a dynamic_quantize written from the same read
  /// of the input as the row-wise one, which the fields above describe. Its
  /// rule, overflow and scale type are the row-wise copy's; in the Amax
  /// phase the kernel reduces the amaxes of both copies that need an amax
  /// buffer.
  struct Pair {
    Format format = Format::E4M3;
    int64_t tileBlockRows = 1;
    int64_t tileBlockCols = 1;
    bool fused = true;
    bool transposed = false;
    bool vectorStores = false;
    bool tcgen05Scales = false;
    bool scalesKAlongCols = true;
  };
  std::optional<Pair> pair;
  /// Rows of the tile: kTileRows, or kPairTileRows when blocks of that many
  /// rows (DeepSeek's 128 x 128 weight blocks, a pair's 128 x 1 copy) lie
  /// inside one tile, fused. A thread holds one run of each of its tile's
  /// kTileRows-row sub-tiles in registers.
  int64_t tileRows = kTileRows;
  /// The elementwise op whose result this kernel quantizes, computed where
  /// the kernel loads its input: the result is never stored.
  std::optional<QuantizePrologue> prologue;
  /// Amax phase of one block covering the matrix (per tensor): each CTA
  /// walks the tiles in a grid-stride loop, two runs per thread in flight,
  /// keeps its threads' maxima in registers and folds them with one atomic
  /// per warp; no shared memory, any grid.
  bool wholeMatrixAmax = false;

  static constexpr int64_t kTileRows = 32;
  static constexpr int64_t kPairTileRows = 128;
  static constexpr int64_t kTileCols = 128;
  /// The most bytes per element (QuantizePrologue::getRunBytes) a prologue
  /// of kPairTileRows-row tiles loads: a thread holds its four sub-tiles'
  /// loads, and ptxas spills past 8 (three f32 matrices, five bf16 ones,
  /// two matrices and three column vectors).
  static constexpr int64_t kMaxTallPrologueBytes = 8;
  static constexpr int64_t kThreads = 256;
  /// Consecutive elements of a row that one thread reads.
  static constexpr int64_t kElementsPerThread =
      kTileRows * kTileCols / kThreads;

  /// Fails with a reason when the configuration has no kernel.
  LogicalResult verify(std::string &reason) const;
  /// Whether a thread reads its runs again wherever a copy uses them instead
  /// of holding every sub-tile's run for both copies: a pair of copies over
  /// kPairTileRows-row tiles without a prologue. Holding the four runs took
  /// 188 registers per thread, one 256-thread CTA per SM, so that no CTA's
  /// loads overlapped another's stores; the second and third reads of a
  /// tile, made while its first is recent, are served by L2. A prologue is
  /// not computed again: its kernels hold the runs.
  bool reloadsRuns() const {
    return pair && tileRows > kTileRows && !prologue && !isRowColumnPair();
  }
  /// Whether the kernel pairs blocks of part of a row (1 x 16 .. 1 x
  /// kTileCols) with blocks of one column of the tile (tileRows x 1,
  /// transposed), both fused: DeepSeek's activations and gradients (1x128
  /// with 128x1) and MXFP8's (1x32 with 32x1) with the transposed copy
  /// their weight gradients read. Its own emitter holds every run of the
  /// tile (its input type, or f32 after a prologue) and reduces the rows
  /// with shuffles, the columns with shuffles and one exchange in shared
  /// memory: three barriers, where the generic steps take one per
  /// sub-tile and step and copy.
  bool isRowColumnPair() const;
  /// Shared memory in bytes.
  int64_t getSharedMemoryBytes() const;
  /// The configuration of the kernel's column-wise copy alone: the pair's
  /// fields in place of the row-wise copy's.
  QuantizeConfig getPairCopy() const;
  std::string getKernelName() const;
  /// The kernel's parameters, in order.
  SmallVector<QuantizeParam> getParams() const;
};

/// Builds the kernel of `config` (see buildGemmSM90Kernel); its parameters
/// are config.getParams().
LLVM::LLVMFuncOp buildQuantizeKernel(OpBuilder &builder, Location loc,
                                     const QuantizeConfig &config);

/// One sm_100a scaled-GEMM kernel: C[M, N] = A[M, K] x B[N, K]^T with both
/// operands K-major (TMA, 128-byte swizzle), the f32 accumulator in tensor
/// memory, persistent over output tiles of 128 x blockN (cta_group::1).
/// 192 threads: warp 0 loads (TMA), warp 1 allocates tensor memory and
/// issues tcgen05.mma from one elected thread, warps 2-5 run the epilogue.
///
/// Scaling picks the MMA kind: Tensor and RowCol use kind::f8f6f4 and apply
/// the f32 scales in the epilogue; Block uses the block-scaled kinds, whose
/// scales the tensor cores apply: kind::mxf8f6f4.block_scale.block32 for
/// E4M3/E5M2 with E8M0 scales every 32 elements of K (MXFP8), and
/// kind::mxf4nvf4.block_scale.block16 for E2M1 with E4M3 scales every 16
/// (NVFP4, whose per-tensor f32 global decode scales the epilogue applies).
/// Block scales are read from global memory in the layout of
/// Tcgen05ScaleLayout (fp8/Target/ScaleFactorLayout.h).
struct GemmSM100Config : ScaledGemmConfig {
  /// Block scaling: elements of K per scale (32 or 16) and the scale format
  /// (E8M0, else E4M3).
  int64_t scaleBlock = 32;
  bool e8m0Scales = true;
  /// Result rows whose byte length is a multiple of 16: 16-byte stores.
  bool vectorStores = true;
  /// Output tile columns (the MMA's N): 64, 128 or 256.
  int64_t blockN = 128;
  int64_t stages = 0; // 0: as many as shared memory holds

  static constexpr int64_t kBlockM = 128;
  /// Bytes of K per pipeline stage: one 128-byte swizzle span per row.
  static constexpr int64_t kStageKBytes = kTcgen05StageKBytes;
  /// MMAs per stage, 32 bytes of K each.
  static constexpr int64_t kMmasPerStage = 4;
  static constexpr int64_t kThreads = 192;

  /// Fails with a reason when the configuration has no kernel.
  LogicalResult verify(std::string &reason) const;
  /// The tcgen05.mma kind.
  Tcgen05Kind getMmaKind() const;
  /// The instruction descriptor of MMA `step` of a stage, whose scale ids
  /// pick the step's k-blocks inside the stage's scale words; `selA` and
  /// `selB` receive where the step's scales of A and B lie.
  Tcgen05InstrDescriptor
  getInstrDescriptor(unsigned step, MmaScaleSelector *selA = nullptr,
                     MmaScaleSelector *selB = nullptr) const;
  /// Elements of K per stage: 128 (8-bit) or 256 (E2M1).
  int64_t getStageK() const;
  /// Scale blocks per stage along K (Block scaling), else 0.
  int64_t getStageKBlocks() const;
  /// The block scales of A and B that one stage reads.
  ScaleTile getScaleTileA() const;
  ScaleTile getScaleTileB() const;
  /// Shared memory of one ring slot: the A and B tiles and their block
  /// scales.
  int64_t getStageBytes() const;
  /// The pipeline depth actually used.
  int64_t getStages() const;
  /// Accumulator buffers in tensor memory (2: the epilogue of one tile
  /// overlaps the main loop of the next; 1 for blockN = 256).
  int64_t getAccumulators() const;
  /// Tensor-memory columns allocated (a power of two, 32 to 512).
  int64_t getTmemColumns() const;
  /// Dynamic shared memory in bytes.
  int64_t getSharedMemoryBytes() const;
  /// A name that identifies the configuration.
  std::string getKernelName() const;
};

/// Builds the kernel of `config` (see buildGemmSM90Kernel); its parameters
/// are config.getParams(), the scales f32 for Tensor and RowCol, in the
/// scale-factor layout for Block.
LLVM::LLVMFuncOp buildGemmSM100Kernel(OpBuilder &builder, Location loc,
                                      const GemmSM100Config &config);

/// Copies row-major scales into the layout of Tcgen05ScaleLayout: one thread
/// per destination byte, zero for padding. Scale (row, kBlock) of the
/// operand is source element (row / rowsPerScale) * rowStride + kBlock *
/// kStride, so square blocks (rowsPerScale > 1) and scales stored with K
/// outermost (MN-major operands) stage too.
struct ScaleLayoutConfig {
  using Param = ScaleLayoutParam;

  /// The source holds f32 powers of two from 2^-127 to 2^127 (decode scales
  /// of the pow2 rule), each covering kBlocksPerScale k-blocks: staged as
  /// their E8M0 codes, exactly.
  bool f32Source = false;
  /// A batch of matrices, one per blockIdx.y: matrix b's scales lie
  /// SourceBatchBytes apart in the source, and its layout follows the
  /// previous matrix's (Bytes apart), where a batched GEMM reads them.
  bool batched = false;

  static constexpr int64_t kThreads = 256;
  std::string getKernelName() const {
    std::string name =
        f32Source ? "fp8_scale_layout_f32_sm100a" : "fp8_scale_layout_sm100a";
    if (batched)
      name += "_batched";
    return name;
  }
  /// The kernel's parameters, in order: every ScaleLayoutParam but
  /// KBlocksPerScale, which only `f32Source` takes, and SourceBatchBytes,
  /// which only `batched` takes.
  SmallVector<ScaleLayoutParam> getParams() const;
};

LLVM::LLVMFuncOp buildScaleLayoutKernel(OpBuilder &builder, Location loc,
                                        const ScaleLayoutConfig &config);

/// fp8.compute_scale: a grid-stride loop, one amax per thread, applying the
/// op's rule with the builders of ScaleRules.h, which the CPU reference
/// uses too (bit-identical scales). The configuration is that of a verified
/// op: `global` with rule nvfp4 only, `inverse` for f32 scales only.
struct ComputeScaleConfig {
  using Param = ComputeScaleParam;

  ScaleRuleAttr rule;
  /// The format of the data the scales are for (fmax).
  Format format = Format::E4M3;
  /// NVFP4 block scales: the rule takes the global encode scale S.
  bool global = false;
  /// The reciprocals 1/s too (f32 scales only).
  bool inverse = false;

  static constexpr int64_t kThreads = 256;
  std::string getKernelName() const;
  /// The kernel's parameters, in order: Amax, GlobalScale (`global`),
  /// Scale, ScaleInv (`inverse`), Count.
  SmallVector<ComputeScaleParam> getParams() const;
};

LLVM::LLVMFuncOp buildComputeScaleKernel(OpBuilder &builder, Location loc,
                                         const ComputeScaleConfig &config);

/// fp8.update_delayed_scale in one CTA of 256 threads: the history with
/// this step's amax recorded, rolled and cleared (or kept when a zero amax
/// is skipped), the new scale and its reciprocal (docs/numerics.md section
/// 5).
struct DelayedScaleConfig {
  using Param = DelayedScaleParam;

  Format format = Format::E4M3;
  AmaxAlgo algo = AmaxAlgo::Max;
  int64_t margin = 0;
  ZeroAmaxPolicy zeroAmax = ZeroAmaxPolicy::Roll;

  static constexpr int64_t kThreads = 256;
  std::string getKernelName() const;
  /// The kernel's parameters, in order: every DelayedScaleParam.
  SmallVector<DelayedScaleParam> getParams() const;
};

LLVM::LLVMFuncOp buildDelayedScaleKernel(OpBuilder &builder, Location loc,
                                         const DelayedScaleConfig &config);

/// A copy between two strided views of buffers, the kernel of transposes,
/// broadcasts, slices and reshapes: for every index i of a box of `rank`
/// dimensions (extents and strides are run-time parameters),
///
///   out[outOffset + sum_d i_d * outStride_d] =
///       in[inOffset + sum_d i_d * inStride_d],
///
/// moving elements of 1, 2 or 4 bytes as bits (bit-exact for any type).
///
/// Copy: a grid-stride loop over the box, `vector` consecutive elements of
/// the innermost dimension per thread (up to 16 bytes when both sides hold
/// them contiguously and aligned; one element otherwise, for broadcasts
/// (stride 0) and strided slices).
/// Transpose: the input is contiguous along box dimension
/// `inputContiguousDim` and the output along the innermost one: each CTA
/// moves a getTransposeTile() square tile through shared memory, so that a
/// warp loads a row of consecutive input elements and stores a row of
/// consecutive output elements (2-byte elements two per lane, 4-byte
/// accesses where aligned).
struct LayoutConfig {
  using Param = LayoutParam;

  enum class Kind { Copy, Transpose };
  Kind kind = Kind::Copy;
  /// 1, 2 or 4.
  int64_t elementBytes = 4;
  /// Box dimensions, 1 to kMaxRank.
  int64_t rank = 1;
  /// Copy: elements per access, a power of two of at most 16 bytes.
  int64_t vector = 1;
  /// Transpose: the box dimension the input is contiguous along (not the
  /// innermost).
  int64_t inputContiguousDim = 0;

  static constexpr int64_t kMaxRank = 4;
  static constexpr int64_t kTile = 32;
  static constexpr int64_t kThreads = 256;

  /// Fails with a reason when the configuration has no kernel.
  LogicalResult verify(std::string &reason) const;
  /// Transpose: elements per lane along each side of the tile (two 2-byte
  /// elements make a 4-byte access; one otherwise).
  int64_t getTransposePack() const { return elementBytes == 2 ? 2 : 1; }
  /// Transpose: the side of the square tile a CTA moves.
  int64_t getTransposeTile() const { return kTile * getTransposePack(); }
  /// Dynamic shared memory in bytes.
  int64_t getSharedMemoryBytes() const;
  std::string getKernelName() const;
  /// The kernel's parameters, in order.
  SmallVector<LayoutParam> getParams() const;
};

LLVM::LLVMFuncOp buildLayoutKernel(OpBuilder &builder, Location loc,
                                   const LayoutConfig &config);

/// The values whose buffers the elementwise kernel of `op` takes, in
/// parameter order: the tensor operands its body reads (inputs, then inits;
/// an init the body ignores, such as a tensor.empty, is not passed, so it
/// needs no buffer), then its results. Every parameter is a
/// KernelParamKind::Buffer.
SmallVector<Value> getElementwiseParams(Operation *op);

/// Builds kernel `name` computing the elementwise linalg op `op` (parallel
/// iterators, projected-permutation indexing maps, static shapes), or the
/// tensor.generate `op` (static shape; its body gets the element's
/// indices): one element per thread in a grid-stride loop, the op's body
/// cloned (math functions by polynomial approximation, small-float casts by
/// integer code). Its parameters are getElementwiseParams(op). Fails with a
/// reason when `op` does not qualify.
FailureOr<LLVM::LLVMFuncOp> buildElementwiseKernel(OpBuilder &builder,
                                                   Operation *op,
                                                   StringRef name,
                                                   std::string &reason);

/// Linalg ops that one kernel computes a row at a time (PlanRows.cpp forms
/// them, docs/gpu.md): elementwise ops over an iteration space [..., cols]
/// or over its rows (the space without its last dimension), and reductions
/// of its last dimension, such as a softmax or a LayerNorm and their
/// gradients. A CTA computes one row: it loads each tensor of the row once,
/// keeps the elements in registers, reduces with its warps and shared
/// memory, and stores only the results that other ops read.
struct RowGroup {
  /// The iteration space [..., cols].
  SmallVector<int64_t> shape;
  /// The ops, in the order of their block.
  SmallVector<Operation *> ops;
  /// The tensors from outside the group that the ops read, then the ops'
  /// results that other ops read or the function returns: the kernel's
  /// parameters, in order, each a KernelParamKind::Buffer.
  SmallVector<Value> inputs, outputs;
  /// Threads per CTA (a power of two from 32 to kMaxThreads) and the
  /// consecutive elements of a row that one access reads or writes (16
  /// bytes at most; more than 1 only when every tensor read or written whole
  /// is of f32, bf16 or f16, which move as vectors).
  int64_t threads = 32, width = 1;
  /// Rows per CTA: kWarpRowsPerCta when a warp computes a row (threads is
  /// 32), each warp its own, so that a CTA is not a single warp and a
  /// row needs no CTA-wide barrier; else 1.
  int64_t rowsPerCta = 1;

  static constexpr int64_t kMaxThreads = 512;
  /// Elements of a row that one thread holds, at most; twice as many when
  /// a warp computes a row and the group moves at most two row tensors
  /// (softmax: one read, one written), so that rows of up to 1024 16-bit
  /// elements take a warp each, with four 16-byte loads in flight per
  /// thread.
  static constexpr int64_t kMaxElementsPerThread = 16;
  static constexpr int64_t kWarpRowsPerCta = 4;

  int64_t getRows() const;
  /// The CTAs of the launch and the threads of each.
  int64_t getCtas() const;
  int64_t getCtaThreads() const { return threads * rowsPerCta; }
  int64_t getChunks() const { return shape.back() / width; }
  /// Accesses of `width` elements per thread and row.
  int64_t getSteps() const;
  /// Dynamic shared memory: one f32 per warp and reduction.
  int64_t getSharedMemoryBytes() const;
};

/// Builds kernel `name` computing `group`, launched with a CTA of
/// `group.threads` threads per row. Fails with a reason when an op's body
/// has no GPU lowering without libdevice.
FailureOr<LLVM::LLVMFuncOp> buildRowKernel(OpBuilder &builder,
                                           const RowGroup &group,
                                           StringRef name, std::string &reason);

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The parameters of the reduction kernels, in the order a kernel takes those
/// it has (ReductionConfig::getParams).
enum class ReductionParam {
  /// The row-major input: [rows, cols] (Rows), [batches, rows, cols]
  /// (Columns).
  Input,
  /// The initial values (the op's init), combined last, and the results:
  /// [rows] (Rows), [batches, cols] (Columns).
  Init,
  Out,
  /// Columns, `partial`: f32 [batches, splits, cols], each split's combined
  /// values.
  Partials,
  /// Columns with `amax`: the zero-filled f32 receiving the amax of the
  /// elements read.
  Amax,
  /// The extents, as i32: batches (Columns), rows, columns, and the rows of
  /// one split (Columns; `rows` when there is one split).
  Batches,
  Rows,
  Cols,
  SplitRows,
};
KernelParamKind getParamKind(ReductionParam param);

/// How a reduction combines two values; the kernels combine in f32.
enum class ReductionCombiner {
  Add,     // arith.addf
  Mul,     // arith.mulf
  Maximum, // arith.maximumf: NaN wins
  Minimum, // arith.minimumf: NaN wins
  MaxNum,  // arith.maxnumf: NaN loses
  MinNum,  // arith.minnumf: NaN loses
};
StringRef stringifyReductionCombiner(ReductionCombiner combiner);

/// A reduction of a row-major tensor along one run of its dimensions, viewed
/// as a matrix (Rows) or a batch of matrices (Columns), by a CTA of 256
/// threads, accumulating in f32 from the combiner's identity and combining
/// the op's initial value last (docs/gpu.md gives the order of the terms).
///
/// Rows: the reduced dimensions are the innermost; each row of [rows, cols]
/// is reduced by a warp (`rowThreads` 32, eight rows per CTA) or by the CTA
/// (256). Each thread combines elements of its strided 16-byte chunks (or
/// single elements when rows are not 16-byte multiples), the warp by a
/// butterfly of shuffles, the CTA's warps in order through shared memory.
///
/// Columns: the reduced dimensions lead, or lie between batch and kept
/// dimensions; each column of [batches][rows, cols] is reduced. A CTA covers
/// 32 groups of consecutive columns (16 bytes each, or single columns when
/// rows are not 16-byte multiples) with 8 threads along the rows; these
/// combine their rows, then their sums in order through shared memory. To
/// fill the GPU, the rows split over the grid's y dimension: a `partial`
/// kernel writes each split's values as f32, and a Columns reduction of
/// those (f32 input, one split) finishes. With `amax`, the kernel reading
/// the input also measures it for a per-tensor quantization of the same
/// tensor, which then needs no amax kernel.
struct ReductionConfig {
  using Param = ReductionParam;

  enum class Axis { Rows, Columns };
  Axis axis = Axis::Rows;
  ReductionCombiner combiner = ReductionCombiner::Add;
  WideElement input = WideElement::F32;
  /// The type of the init and results (unused by `partial` kernels).
  WideElement out = WideElement::F32;
  /// Rows of 16-byte multiples: 16-byte loads.
  bool vectorLoads = false;
  /// Rows: threads reducing one row, 32 or kThreads.
  int64_t rowThreads = 32;
  /// Columns: one split of the rows into f32 partials, without the init.
  bool partial = false;
  /// The reducing linalg op whose body computes the combined value from the
  /// element read (x * x, |x|, an extension to the accumulator's type...):
  /// the kernel runs a clone of those ops on every element. Null when the
  /// combiner takes the elements as read.
  Operation *prologue = nullptr;
  /// The op's initial values are this constant (a filled tensor): combined
  /// without an Init buffer (unused by `partial` kernels).
  std::optional<float> initValue;
  /// An elementwise op over the result whose only read is the result, at the
  /// element it writes (a rounding of f32 sums to bf16): the kernel stores
  /// what a clone of its body computes from each result, of its type, into
  /// Out (unused by `partial` kernels).
  Operation *epilogue = nullptr;
  /// Columns: also the amax of the elements read (their magnitudes before
  /// any prologue, NaN counted per the policy as the amax kernels count it),
  /// folded into Amax by an atomic max per warp. Set for the kernel that
  /// reads the input (the partial one when the rows split).
  std::optional<NanPolicy> amax;

  static constexpr int64_t kThreads = 256;
  /// Columns: threads along the rows and along the columns of a CTA.
  static constexpr int64_t kRowLanes = 8;
  static constexpr int64_t kColLanes = kThreads / kRowLanes;
  /// Loads in flight per thread in the main loops.
  static constexpr int64_t kUnroll = 4;

  /// Fails with a reason when the configuration has no kernel.
  LogicalResult verify(std::string &reason) const;
  int64_t getInputBytes() const { return input == WideElement::F32 ? 4 : 2; }
  /// Elements per load: 16 bytes of the input, or 1.
  int64_t getVectorWidth() const;
  /// Rows (Rows) or column groups (Columns) one CTA covers.
  int64_t getRowsPerBlock() const { return kThreads / rowThreads; }
  int64_t getColsPerBlock() const { return kColLanes * getVectorWidth(); }
  /// Dynamic shared memory in bytes.
  int64_t getSharedMemoryBytes() const;
  std::string getKernelName() const;
  /// The kernel's parameters, in order.
  SmallVector<ReductionParam> getParams() const;
};

/// Builds the kernel of `config` (see buildGemmSM90Kernel); its parameters
/// are config.getParams().
LLVM::LLVMFuncOp buildReductionKernel(OpBuilder &builder, Location loc,
                                      const ReductionConfig &config);

} // namespace mlir::fp8

#endif // FP8_CONVERSION_FP8TOGPU_KERNELS_H
