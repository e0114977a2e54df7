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
//===----------------------------------------------------------------------===//

#ifndef FP8_CONVERSION_FP8TOGPU_KERNELS_H
#define FP8_CONVERSION_FP8TOGPU_KERNELS_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::fp8 {

/// Element types of GEMM results and bias.
enum class WideElement { F32, BF16, F16 };

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

/// One sm_90a scaled-GEMM kernel: C[M, N] = A[M, K] x B[N, K]^T with both
/// operands K-major 8-bit (TMA, 128-byte swizzle), warp-specialized (one
/// producer warpgroup, two consumer warpgroups of wgmma m64nNk32),
/// persistent over output tiles.
struct GemmSM90Config {
  Format aFormat = Format::E4M3;
  Format bFormat = Format::E4M3;
  WideElement out = WideElement::BF16;
  GemmScaling scaling = GemmScaling::Tensor;
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
  std::optional<WideElement> bias;
  /// Per-tensor scales given as their reciprocals (the encode scales of
  /// delayed scaling): the kernel uses fl32(1 / s).
  bool invertScaleA = false;
  bool invertScaleB = false;
  /// FP8 results: codes of this format from fl32(v * out_scale), saturated
  /// (`out` is then unused).
  std::optional<Format> fp8Out;
  /// Also the amax of the f32 results (before out_scale, NaN ignored),
  /// folded into a zero-filled f32 with atomic max.
  bool outAmax = false;
  /// Tile and pipeline.
  int64_t blockM = 128;
  int64_t blockN = 128;
  int64_t stages = 0; // 0: as many as shared memory holds

  static constexpr int64_t kBlockK = 128;
  static constexpr int64_t kThreads = 384;

  /// Fails with a reason when the configuration has no kernel.
  LogicalResult verify(std::string &reason) const;
  /// The pipeline depth actually used.
  int64_t getStages() const;
  /// Dynamic shared memory in bytes.
  int64_t getSharedMemoryBytes() const;
  /// A name that identifies the configuration.
  std::string getKernelName() const;
};

/// Builds the kernel of `config` at the insertion point of `builder` (inside
/// a gpu.module) unless a function of its name exists; returns it. Its
/// parameters, in order: tensor maps of A and B (128-byte grid constants),
/// C, the scales of A and of B, the bias (when configured), the out scale
/// (FP8 results), the amax (when configured), then M, N and K as i32.
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
struct QuantizeConfig {
  enum class Phase { Amax, Quantize };
  Phase phase = Phase::Quantize;
  WideElement input = WideElement::BF16;
  Format format = Format::E4M3;
  int64_t tileBlockRows = 1;
  int64_t tileBlockCols = 128;
  /// The block lies inside one tile: no amax buffer.
  bool fused = true;
  /// Quantize by given f32 encode scales (fp8.quantize): the amax parameter
  /// holds the scales, and no scale is written.
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

  static constexpr int64_t kTileRows = 32;
  static constexpr int64_t kTileCols = 128;
  static constexpr int64_t kThreads = 256;

  /// Fails with a reason when the configuration has no kernel.
  LogicalResult verify(std::string &reason) const;
  /// Shared memory in bytes.
  int64_t getSharedMemoryBytes() const;
  std::string getKernelName() const;
};

/// Builds the kernel of `config` (see buildGemmSM90Kernel). Parameters: the
/// input, the f32 amax buffer, then for Quantize the codes and the scales;
/// then rows, cols, blockRows and blockCols as i32, and for Quantize the
/// row pitch of the codes in elements.
LLVM::LLVMFuncOp buildQuantizeKernel(OpBuilder &builder, Location loc,
                                     const QuantizeConfig &config);

/// fp8.update_delayed_scale in one CTA of 256 threads: the history with
/// this step's amax recorded, rolled and cleared (or kept when a zero amax
/// is skipped), the new scale and its reciprocal (docs/numerics.md section
/// 5).
struct DelayedScaleConfig {
  Format format = Format::E4M3;
  AmaxAlgo algo = AmaxAlgo::Max;
  int64_t margin = 0;
  ZeroAmaxPolicy zeroAmax = ZeroAmaxPolicy::Roll;

  static constexpr int64_t kThreads = 256;
  std::string getKernelName() const;
};

/// Parameters: the amax, history and scale, the new history, scale and
/// inverse scale (f32 buffers), then the history length as i32.
LLVM::LLVMFuncOp buildDelayedScaleKernel(OpBuilder &builder, Location loc,
                                         const DelayedScaleConfig &config);

/// Builds kernel `name` computing the elementwise linalg op `op` (parallel
/// iterators, projected-permutation indexing maps, static shapes): one
/// element per thread in a grid-stride loop, the op's body cloned (math
/// functions by polynomial approximation, small-float casts by integer
/// code). Parameters: one pointer per tensor operand, inputs then inits,
/// then one per result. Fails with a reason when `op` does not qualify.
FailureOr<LLVM::LLVMFuncOp> buildElementwiseKernel(OpBuilder &builder,
                                                   Operation *op,
                                                   StringRef name,
                                                   std::string &reason);

} // namespace mlir::fp8

#endif // FP8_CONVERSION_FP8TOGPU_KERNELS_H
