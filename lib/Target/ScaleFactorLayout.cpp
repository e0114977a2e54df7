//===- ScaleFactorLayout.cpp - Block scales in shared and tensor memory ---===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Target/ScaleFactorLayout.h"

#include "fp8/Target/Descriptors.h"

#include <cassert>

using namespace mlir::fp8;

/// Lines (tensor-memory lanes) of a chunk and bytes per line.
static constexpr unsigned kLines = 32;
static constexpr unsigned kLineBytes = 16;
/// Tensor-memory columns one chunk fills.
static constexpr unsigned kChunkColumns = kLineBytes / 4;

std::optional<std::string> mlir::fp8::checkScaleTile(const ScaleTile &tile) {
  if (tile.rows == 0 || tile.kBlocks == 0)
    return "empty scale tile (" + std::to_string(tile.rows) + " rows x " +
           std::to_string(tile.kBlocks) + " k-blocks)";
  if (getScaleTmemColumns(tile) > 512)
    return "scale tile of " + std::to_string(tile.rows) + " rows x " +
           std::to_string(tile.kBlocks) + " k-blocks needs " +
           std::to_string(getScaleTmemColumns(tile)) +
           " tensor-memory columns, more than 512";
  return std::nullopt;
}

unsigned mlir::fp8::getScaleRowChunks(const ScaleTile &tile) {
  return (tile.rows + kScaleChunkRows - 1) / kScaleChunkRows;
}

unsigned mlir::fp8::getScaleKChunks(const ScaleTile &tile) {
  return (tile.kBlocks + kScaleChunkKBlocks - 1) / kScaleChunkKBlocks;
}

unsigned mlir::fp8::getScaleTileBytes(const ScaleTile &tile) {
  return kScaleChunkBytes * getScaleRowChunks(tile) * getScaleKChunks(tile);
}

unsigned mlir::fp8::getScaleTmemColumns(const ScaleTile &tile) {
  return kChunkColumns * getScaleRowChunks(tile) * getScaleKChunks(tile);
}

unsigned mlir::fp8::getScaleSmemOffset(const ScaleTile &tile, unsigned row,
                                       unsigned kBlock) {
  assert(row < tile.rows && kBlock < tile.kBlocks && "scale outside the tile");
  unsigned chunk = (row / kScaleChunkRows) * getScaleKChunks(tile) +
                   kBlock / kScaleChunkKBlocks;
  unsigned rowInChunk = row % kScaleChunkRows;
  return kScaleChunkBytes * chunk + kLineBytes * (rowInChunk % kLines) +
         kScaleChunkKBlocks * (rowInChunk / kLines) +
         kBlock % kScaleChunkKBlocks;
}

std::optional<ScalePosition>
mlir::fp8::getScaleAtSmemOffset(const ScaleTile &tile, unsigned offset) {
  if (offset >= getScaleTileBytes(tile))
    return std::nullopt;
  unsigned chunk = offset / kScaleChunkBytes;
  unsigned inChunk = offset % kScaleChunkBytes;
  unsigned line = inChunk / kLineBytes;
  unsigned inLine = inChunk % kLineBytes;
  ScalePosition pos;
  pos.row = (chunk / getScaleKChunks(tile)) * kScaleChunkRows +
            (inLine / kScaleChunkKBlocks) * kLines + line;
  pos.kBlock = (chunk % getScaleKChunks(tile)) * kScaleChunkKBlocks +
               inLine % kScaleChunkKBlocks;
  if (pos.row >= tile.rows || pos.kBlock >= tile.kBlocks)
    return std::nullopt;
  return pos;
}

ScaleTmemSlot mlir::fp8::getScaleTmemSlot(const ScaleTile &tile, unsigned row,
                                          unsigned kBlock) {
  assert(row < tile.rows && kBlock < tile.kBlocks && "scale outside the tile");
  ScaleTmemSlot slot;
  slot.lane = row % kLines;
  slot.column =
      (kBlock / kScaleChunkKBlocks) * getScaleRowChunks(tile) * kChunkColumns +
      row / kLines;
  slot.byte = kBlock % kScaleChunkKBlocks;
  return slot;
}

std::optional<ScalePosition>
mlir::fp8::getScaleAtTmemSlot(const ScaleTile &tile,
                              const ScaleTmemSlot &slot) {
  if (slot.lane >= kLines || slot.byte >= 4 ||
      slot.column >= getScaleTmemColumns(tile))
    return std::nullopt;
  unsigned columnsPerKChunk = getScaleRowChunks(tile) * kChunkColumns;
  ScalePosition pos;
  pos.row = (slot.column % columnsPerKChunk) * kLines + slot.lane;
  pos.kBlock =
      (slot.column / columnsPerKChunk) * kScaleChunkKBlocks + slot.byte;
  if (pos.row >= tile.rows || pos.kBlock >= tile.kBlocks)
    return std::nullopt;
  return pos;
}

ScaleCopy mlir::fp8::getScaleCopy(const ScaleTile &tile, unsigned index) {
  unsigned kChunks = getScaleKChunks(tile);
  assert(index < getScaleRowChunks(tile) * kChunks && "no such copy");
  unsigned rowChunk = index / kChunks;
  unsigned kChunk = index % kChunks;
  ScaleCopy copy;
  copy.smemOffset = kScaleChunkBytes * index;
  copy.tmemColumn =
      kChunkColumns * (kChunk * getScaleRowChunks(tile) + rowChunk);
  return copy;
}

ScaleTmemSlot mlir::fp8::getTcgen05CpSlot(unsigned byte, unsigned tmemColumn) {
  assert(byte < kScaleChunkBytes && "a 32x128b copy moves 512 bytes");
  ScaleTmemSlot slot;
  slot.lane = byte / kLineBytes;
  slot.column = tmemColumn + byte % kLineBytes / 4;
  slot.byte = byte % 4;
  return slot;
}

uint64_t mlir::fp8::getScaleCopyDescriptor(uint32_t chunkAddress) {
  SmemDescriptor desc;
  desc.startAddress = chunkAddress;
  desc.strideByteOffset = 8 * kLineBytes;
  desc.swizzle = Swizzle::None;
  assert(!checkTcgen05Descriptor(desc) && "misaligned scale chunk");
  return encodeTcgen05Descriptor(desc);
}

MmaScaleSelector mlir::fp8::getMmaScaleSelector(const ScaleTile &tile,
                                                unsigned scalesPerMma,
                                                unsigned mmaStep) {
  assert((scalesPerMma == 1 || scalesPerMma == 2 || scalesPerMma == 4) &&
         "an MMA reads 1, 2 or 4 scales of a word");
  unsigned firstKBlock = scalesPerMma * mmaStep;
  assert(firstKBlock < tile.kBlocks && "MMA step past the tile");
  MmaScaleSelector selector;
  selector.columnOffset = (firstKBlock / kScaleChunkKBlocks) *
                          getScaleRowChunks(tile) * kChunkColumns;
  selector.scaleFactorId = firstKBlock % kScaleChunkKBlocks;
  return selector;
}

ScaleTile Tcgen05ScaleLayout::getTile() const {
  return {unsigned(rows), unsigned(getKChunks() * kScaleChunkKBlocks)};
}

int64_t Tcgen05ScaleLayout::getRowChunks() const {
  return (rows + kScaleChunkRows - 1) / kScaleChunkRows;
}

int64_t Tcgen05ScaleLayout::getKChunks() const {
  assert(stageKBlocks % kScaleChunkKBlocks == 0 && "stages of whole chunks");
  int64_t stages = (kBlocks + stageKBlocks - 1) / stageKBlocks;
  return stages * (stageKBlocks / kScaleChunkKBlocks);
}

int64_t Tcgen05ScaleLayout::getBytes() const {
  return kScaleChunkBytes * getRowChunks() * getKChunks();
}

int64_t Tcgen05ScaleLayout::getStageOffset(int64_t band, int64_t kStage) const {
  int64_t chunksPerStage = stageKBlocks / kScaleChunkKBlocks;
  return kScaleChunkBytes * (band * getKChunks() + kStage * chunksPerStage);
}
