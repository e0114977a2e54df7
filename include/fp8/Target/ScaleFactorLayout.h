//===- ScaleFactorLayout.h - Block scales for tcgen05.mma -------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Where the scale factors of a block-scaled tcgen05.mma operand (SFA: one row
// per row of A; SFB: one row per column of B) live on their way to the tensor
// cores: the byte in the shared-memory tile that TMA (or the quantizer) writes,
// the tcgen05.cp.32x128b.warpx4 copies that move it to tensor memory, and the
// lane, column and byte it occupies there, which the MMA selects with the
// tensor-memory scale address and the scale factor id.
//
// The tile is built of 512-byte chunks, each holding 128 rows x 4 k-blocks
// (a k-block is the run of K one scale covers: 32 elements for MXFP8/MXFP4,
// 16 for NVFP4). Inside a chunk, row r (0-127) and k-block j (0-3) sit at
//
//   16 * (r % 32) + 4 * (r / 32) + j
//
// which is the layout cuBLAS documents for block-scaling factors: 32 "lines"
// of 16 bytes, line l holding rows l, l + 32, l + 64, l + 96. Chunks follow
// each other row-chunk major: chunk (rowChunk, kChunk) starts at byte
// 512 * (rowChunk * kChunks + kChunk), so the chunks of one 128-row band are
// contiguous, as in a global tensor of that layout.
//
// tcgen05.cp.32x128b.warpx4 copies one chunk, described as a K-major
// no-swizzle matrix of 32 rows x 16 bytes (SBO = 128 bytes between groups of
// 8 rows), to 32 lanes x 4 columns and replicates it into all four 32-lane
// partitions (PTX ISA 9.7.16.9.2): line l goes to lane l (and l + 32, l + 64,
// l + 96), its bytes 4c..4c+3 to column c. So row r, k-block j lands in lane
// r % 32 of every partition, column base + r / 32, byte j % 4 of the word,
// which is the layout PTX ISA 9.7.16.10.7.2 asks of the scale matrix:
// M rows spread over 32 lanes x M/32 columns, replicated to all partitions,
// with the scale factor id picking the byte (block32 on mxf8f6f4), the
// 2-byte half (block32 on mxf4nvf4) or the whole word (block16).
// Tensor-memory columns: k-chunk kc, row-chunk rc at 4 * (kc * rowChunks +
// rc), so one k-chunk's rows are adjacent columns, as the MMA reads them.
//
// [D] The lane/column mapping of the copy is derived from the descriptor
// semantics, not stated by the PTX ISA; a GPU test must confirm it.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_TARGET_SCALEFACTORLAYOUT_H
#define FP8_TARGET_SCALEFACTORLAYOUT_H

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::fp8 {

/// Bytes, rows and k-blocks of one chunk of a scale tile.
constexpr unsigned kScaleChunkBytes = 512;
constexpr unsigned kScaleChunkRows = 128;
constexpr unsigned kScaleChunkKBlocks = 4;

/// The scale tile of one operand in one pipeline stage: `rows` rows (M of A,
/// N of B) by `kBlocks` scale blocks along K. Partial chunks are padded: a
/// tile of 64 rows or 2 k-blocks still takes whole 512-byte chunks.
struct ScaleTile {
  unsigned rows = kScaleChunkRows;
  unsigned kBlocks = kScaleChunkKBlocks;
};

/// A scale factor of a tile: its row and k-block.
struct ScalePosition {
  unsigned row = 0;
  unsigned kBlock = 0;
  friend bool operator==(const ScalePosition &a, const ScalePosition &b) {
    return a.row == b.row && a.kBlock == b.kBlock;
  }
};

/// A byte of tensor memory that a tcgen05.cp.32x128b.warpx4 wrote: `lane`
/// (0-31) in each of the four 32-lane partitions, `column` relative to the
/// copy's base column, `byte` (0-3) of the 32-bit word.
struct ScaleTmemSlot {
  unsigned lane = 0;
  unsigned column = 0;
  unsigned byte = 0;
  friend bool operator==(const ScaleTmemSlot &a, const ScaleTmemSlot &b) {
    return a.lane == b.lane && a.column == b.column && a.byte == b.byte;
  }
};

/// One tcgen05.cp.32x128b.warpx4 of a tile: the chunk at `smemOffset` bytes
/// into the shared-memory tile goes to columns `tmemColumn` ..
/// `tmemColumn` + 3 after the tile's base column.
struct ScaleCopy {
  unsigned smemOffset = 0;
  unsigned tmemColumn = 0;
};

/// Which scales one block-scaled MMA reads: the tensor-memory scale address
/// is the tile's base column plus `columnOffset`, and the instruction
/// descriptor's scale factor id is `scaleFactorId`.
struct MmaScaleSelector {
  unsigned columnOffset = 0;
  unsigned scaleFactorId = 0;
};

/// Why `tile` has no layout, or std::nullopt: rows and kBlocks must be
/// positive and the tile must fit the 512 tensor-memory columns.
std::optional<std::string> checkScaleTile(const ScaleTile &tile);

/// 128-row bands and 4-k-block groups of `tile`, rounded up.
unsigned getScaleRowChunks(const ScaleTile &tile);
unsigned getScaleKChunks(const ScaleTile &tile);
/// Bytes of the shared-memory tile (whole chunks) and tensor-memory columns
/// it takes after the copies (4 per chunk).
unsigned getScaleTileBytes(const ScaleTile &tile);
unsigned getScaleTmemColumns(const ScaleTile &tile);

/// The byte offset of scale (row, kBlock) in the shared-memory tile.
unsigned getScaleSmemOffset(const ScaleTile &tile, unsigned row,
                            unsigned kBlock);
/// The scale at byte `offset` of the shared-memory tile, or std::nullopt for
/// a padding byte (or an offset past the tile). Inverse of
/// getScaleSmemOffset.
std::optional<ScalePosition> getScaleAtSmemOffset(const ScaleTile &tile,
                                                  unsigned offset);

/// Where scale (row, kBlock) lies in tensor memory after the copies of
/// getScaleCopy.
ScaleTmemSlot getScaleTmemSlot(const ScaleTile &tile, unsigned row,
                               unsigned kBlock);
/// The scale in tensor-memory `slot`, or std::nullopt for padding (or a slot
/// outside the tile). Inverse of getScaleTmemSlot.
std::optional<ScalePosition> getScaleAtTmemSlot(const ScaleTile &tile,
                                                const ScaleTmemSlot &slot);

/// The `index`-th of the getScaleRowChunks * getScaleKChunks copies of
/// `tile`, in shared-memory order.
ScaleCopy getScaleCopy(const ScaleTile &tile, unsigned index);

/// Where tcgen05.cp.32x128b.warpx4 puts byte `byte` (0-511) of a chunk whose
/// descriptor is getScaleCopyDescriptor, when its destination column is
/// `tmemColumn`: lane byte / 16, column tmemColumn + byte % 16 / 4, byte
/// byte % 4 [D].
ScaleTmemSlot getTcgen05CpSlot(unsigned byte, unsigned tmemColumn);

/// The tcgen05 shared-memory descriptor of the chunk at shared-memory byte
/// address `chunkAddress` (16-byte aligned) for tcgen05.cp.32x128b.warpx4:
/// no swizzle, K-major, SBO = 128 bytes (8 lines of 16 bytes), LBO unused
/// (0: a 16-byte row has one core-matrix column).
uint64_t getScaleCopyDescriptor(uint32_t chunkAddress);

/// The scales that MMA `mmaStep` (0, 1, ... along the tile's K) reads when
/// each MMA consumes `scalesPerMma` k-blocks (getTcgen05ScalesPerMma: 1, 2
/// or 4): k-blocks scalesPerMma * mmaStep onward, from the k-chunk's columns
/// and the byte, half or word the scale factor id names.
MmaScaleSelector getMmaScaleSelector(const ScaleTile &tile,
                                     unsigned scalesPerMma, unsigned mmaStep);

/// Bytes of K per row that one pipeline stage of the sm_100a GEMM loads: one
/// 128-byte swizzle span.
constexpr int64_t kTcgen05StageKBytes = 128;

/// Scale blocks per pipeline stage of the sm_100a block-scaled GEMM over
/// `elementBits`-bit operands with one scale per `scaleBlock` elements of K:
/// 4 for MXFP8 (128 elements, 32 per scale), 16 for NVFP4 (256, 16).
constexpr int64_t getTcgen05StageKBlocks(int64_t elementBits,
                                         int64_t scaleBlock) {
  return kTcgen05StageKBytes * 8 / elementBits / scaleBlock;
}

/// The global-memory layout of one operand's block scales that an sm_100a
/// GEMM copies to shared memory stage by stage: the tile of the whole
/// operand, `rows` rows (M of A, N of B) by the k-blocks rounded up to whole
/// stages of `stageKBlocks`, so that a stage's chunks of one 128-row band
/// are contiguous and, copied as they are, form the stage's ScaleTile of 128
/// rows x stageKBlocks. Padding bytes (rows past `rows`, k-blocks past
/// `kBlocks`) hold zero scales.
struct Tcgen05ScaleLayout {
  int64_t rows = 0;
  int64_t kBlocks = 0;
  /// Scale blocks per GEMM stage (a multiple of 4).
  int64_t stageKBlocks = kScaleChunkKBlocks;

  /// The ScaleTile of the whole operand; getScaleSmemOffset of it gives the
  /// byte of each scale.
  ScaleTile getTile() const;
  int64_t getRowChunks() const;
  /// 4-k-block chunks per 128-row band: k-blocks rounded up to whole stages.
  int64_t getKChunks() const;
  int64_t getBytes() const;
  /// Where the chunks of stage `kStage` of band `band` start (bytes); they
  /// run on for 512 * stageKBlocks / 4 bytes.
  int64_t getStageOffset(int64_t band, int64_t kStage) const;
};

} // namespace mlir::fp8

#endif // FP8_TARGET_SCALEFACTORLAYOUT_H
