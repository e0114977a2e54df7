//===- ScaleFactorLayoutTest.cpp - Block scales for tcgen05.mma -----------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The chunk formula 16 * (r % 32) + 4 * (r / 32) + j is the one of
// docs/nvidia-isa.md ("Scale factors in tensor memory") and of cuBLAS's
// block-scaling-factor layout; the tensor-memory side (row r in lane r % 32 of
// every partition, column r / 32, byte j) is the same document's [D] claim,
// consistent with PTX ISA 9.7.16.10.7 (scale ids select bytes of a word,
// scales duplicated to all 32-lane partitions). No source disagrees here; the
// PTX ISA states neither the chunk layout nor the lane order of
// tcgen05.cp.32x128b, so both remain for a GPU test to confirm.
//
//===----------------------------------------------------------------------===//

#include "fp8/Target/ScaleFactorLayout.h"
#include "fp8/Target/Descriptors.h"
#include "fp8/Target/Tcgen05InstrDescriptor.h"
#include "gtest/gtest.h"

#include <set>
#include <tuple>

using namespace mlir::fp8;

namespace {

ScaleTile makeTile(unsigned rows, unsigned kBlocks) {
  ScaleTile tile;
  tile.rows = rows;
  tile.kBlocks = kBlocks;
  return tile;
}

TEST(ScaleFactorLayoutTest, ChunkFormula) {
  ScaleTile tile = makeTile(128, 4);
  for (unsigned r = 0; r < 128; ++r)
    for (unsigned j = 0; j < 4; ++j)
      ASSERT_EQ(getScaleSmemOffset(tile, r, j),
                16 * (r % 32) + 4 * (r / 32) + j);
  EXPECT_EQ(getScaleSmemOffset(tile, 0, 0), 0u);
  EXPECT_EQ(getScaleSmemOffset(tile, 1, 0), 16u);
  EXPECT_EQ(getScaleSmemOffset(tile, 32, 0), 4u);
  EXPECT_EQ(getScaleSmemOffset(tile, 33, 2), 22u);
  EXPECT_EQ(getScaleSmemOffset(tile, 127, 3), 511u);
}

TEST(ScaleFactorLayoutTest, ChunkOrder) {
  // 256 rows x 8 k-blocks: chunks (rowChunk, kChunk) = (0,0) (0,1) (1,0)
  // (1,1) at 0, 512, 1024, 1536.
  ScaleTile tile = makeTile(256, 8);
  EXPECT_EQ(getScaleTileBytes(tile), 2048u);
  EXPECT_EQ(getScaleSmemOffset(tile, 0, 4), 512u);
  EXPECT_EQ(getScaleSmemOffset(tile, 128, 0), 1024u);
  EXPECT_EQ(getScaleSmemOffset(tile, 129, 5), 1536u + 16 + 1);
}

TEST(ScaleFactorLayoutTest, SmemAndTmemBijections) {
  for (auto [rows, kBlocks] :
       {std::pair{128u, 4u}, {256u, 4u}, {128u, 12u}, {384u, 8u}}) {
    ScaleTile tile = makeTile(rows, kBlocks);
    ASSERT_EQ(checkScaleTile(tile), std::nullopt);
    ASSERT_EQ(getScaleTileBytes(tile), rows * kBlocks);
    ASSERT_EQ(getScaleTmemColumns(tile) * 32 * 4, rows * kBlocks);
    std::set<unsigned> offsets;
    std::set<std::tuple<unsigned, unsigned, unsigned>> slots;
    for (unsigned r = 0; r < rows; ++r) {
      for (unsigned j = 0; j < kBlocks; ++j) {
        ScalePosition pos{r, j};
        unsigned offset = getScaleSmemOffset(tile, r, j);
        ASSERT_LT(offset, getScaleTileBytes(tile));
        ASSERT_EQ(getScaleAtSmemOffset(tile, offset), pos);
        offsets.insert(offset);
        ScaleTmemSlot slot = getScaleTmemSlot(tile, r, j);
        ASSERT_LT(slot.lane, 32u);
        ASSERT_LT(slot.column, getScaleTmemColumns(tile));
        ASSERT_LT(slot.byte, 4u);
        ASSERT_EQ(getScaleAtTmemSlot(tile, slot), pos);
        slots.insert({slot.lane, slot.column, slot.byte});
      }
    }
    // Injective into sets of exactly rows x kBlocks elements: bijections.
    EXPECT_EQ(offsets.size(), rows * kBlocks);
    EXPECT_EQ(slots.size(), rows * kBlocks);
    EXPECT_EQ(getScaleAtSmemOffset(tile, getScaleTileBytes(tile)),
              std::nullopt);
  }
}

TEST(ScaleFactorLayoutTest, PaddedTile) {
  // N = 64 of B and a 64-wide K step of MXFP8 (2 k-blocks): one padded chunk.
  ScaleTile tile = makeTile(64, 2);
  EXPECT_EQ(getScaleTileBytes(tile), 512u);
  EXPECT_EQ(getScaleTmemColumns(tile), 4u);
  unsigned scales = 0;
  for (unsigned offset = 0; offset < 512; ++offset) {
    std::optional<ScalePosition> pos = getScaleAtSmemOffset(tile, offset);
    if (!pos)
      continue;
    ++scales;
    EXPECT_EQ(getScaleSmemOffset(tile, pos->row, pos->kBlock), offset);
  }
  EXPECT_EQ(scales, 64u * 2);
  // Row 64 (column 2) and byte 2 are padding.
  EXPECT_EQ(getScaleAtTmemSlot(tile, {0, 2, 0}), std::nullopt);
  EXPECT_EQ(getScaleAtTmemSlot(tile, {0, 0, 2}), std::nullopt);
  EXPECT_EQ(getScaleAtTmemSlot(tile, {5, 1, 1}), (ScalePosition{37, 1}));
}

TEST(ScaleFactorLayoutTest, CopiesPlaceEveryScale) {
  // The shared-memory layout and the chunk copies of getScaleCopy, modelled by
  // getTcgen05CpSlot, put every scale where getScaleTmemSlot says.
  for (auto [rows, kBlocks] : {std::pair{128u, 4u}, {256u, 8u}, {64u, 2u}}) {
    ScaleTile tile = makeTile(rows, kBlocks);
    unsigned copies = getScaleRowChunks(tile) * getScaleKChunks(tile);
    for (unsigned r = 0; r < rows; ++r) {
      for (unsigned j = 0; j < kBlocks; ++j) {
        unsigned offset = getScaleSmemOffset(tile, r, j);
        unsigned chunk = offset / kScaleChunkBytes;
        ASSERT_LT(chunk, copies);
        ScaleCopy copy = getScaleCopy(tile, chunk);
        ASSERT_EQ(copy.smemOffset, chunk * kScaleChunkBytes);
        ASSERT_EQ(getTcgen05CpSlot(offset % kScaleChunkBytes, copy.tmemColumn),
                  getScaleTmemSlot(tile, r, j))
            << "row " << r << " k-block " << j;
      }
    }
  }
  // N = 256: the two 128-row bands of a k-chunk sit side by side.
  ScaleTile tile = makeTile(256, 8);
  EXPECT_EQ(getScaleCopy(tile, 0).tmemColumn, 0u);  // rows 0-127, k 0-3
  EXPECT_EQ(getScaleCopy(tile, 1).tmemColumn, 8u);  // rows 0-127, k 4-7
  EXPECT_EQ(getScaleCopy(tile, 2).tmemColumn, 4u);  // rows 128-255, k 0-3
  EXPECT_EQ(getScaleCopy(tile, 3).tmemColumn, 12u); // rows 128-255, k 4-7
}

TEST(ScaleFactorLayoutTest, MmaSelectors) {
  // Each MMA step reads row r of its scales from column columnOffset + r / 32
  // and byte scaleFactorId + i for its i-th scale; the ids are the legal ones
  // of the kind that reads that many scales.
  struct Case {
    Tcgen05Kind kind;
    unsigned scaleBlock;
    Tcgen05ScaleType scaleType;
  };
  for (Case c : {Case{Tcgen05Kind::MXF8F6F4, 32, Tcgen05ScaleType::UE8M0},
                 Case{Tcgen05Kind::MXF4NVF4, 32, Tcgen05ScaleType::UE8M0},
                 Case{Tcgen05Kind::MXF4NVF4, 16, Tcgen05ScaleType::UE4M3}}) {
    Tcgen05InstrDescriptor instr;
    instr.kind = c.kind;
    instr.aFormat = instr.bFormat =
        c.kind == Tcgen05Kind::MXF4NVF4 ? Format::E2M1 : Format::E4M3;
    instr.scaleBlock = c.scaleBlock;
    instr.scaleType = c.scaleType;
    unsigned perMma = getTcgen05ScalesPerMma(instr);
    ScaleTile tile = makeTile(256, 8);
    for (unsigned step = 0; step < tile.kBlocks / perMma; ++step) {
      MmaScaleSelector selector = getMmaScaleSelector(tile, perMma, step);
      instr.scaleFactorIdA = instr.scaleFactorIdB = selector.scaleFactorId;
      EXPECT_EQ(checkTcgen05InstrDescriptor(instr), std::nullopt)
          << getTcgen05KindName(c.kind).str() << " step " << step;
      for (unsigned r = 0; r < tile.rows; ++r) {
        for (unsigned i = 0; i < perMma; ++i) {
          ScaleTmemSlot slot = getScaleTmemSlot(tile, r, perMma * step + i);
          ASSERT_EQ(slot.column, selector.columnOffset + r / 32);
          ASSERT_EQ(slot.byte, selector.scaleFactorId + i);
          ASSERT_EQ(slot.lane, r % 32);
        }
      }
    }
  }
  // MXFP8 with BLOCK_K = 128 and N = 256: the third k32 MMA reads byte 2 of
  // columns 0-7, the fifth byte 0 of columns 8-15.
  ScaleTile tile = makeTile(256, 8);
  EXPECT_EQ(getMmaScaleSelector(tile, 1, 2).columnOffset, 0u);
  EXPECT_EQ(getMmaScaleSelector(tile, 1, 2).scaleFactorId, 2u);
  EXPECT_EQ(getMmaScaleSelector(tile, 1, 4).columnOffset, 8u);
  EXPECT_EQ(getMmaScaleSelector(tile, 1, 4).scaleFactorId, 0u);
}

TEST(ScaleFactorLayoutTest, CopyDescriptor) {
  // No swizzle, SBO = 128 bytes (enc 8) at bits 32-45, LBO 0, bit 46 set.
  EXPECT_EQ(getScaleCopyDescriptor(0x400),
            0x40u | uint64_t(8) << 32 | uint64_t(1) << 46);
}

TEST(ScaleFactorLayoutTest, CheckTile) {
  EXPECT_EQ(checkScaleTile(makeTile(0, 4)),
            "empty scale tile (0 rows x 4 k-blocks)");
  EXPECT_EQ(checkScaleTile(makeTile(1024, 64)), std::nullopt);
  EXPECT_EQ(checkScaleTile(makeTile(1024, 65)),
            "scale tile of 1024 rows x 65 k-blocks needs 544 tensor-memory "
            "columns, more than 512");
}

// The operand layout in global memory: sizes of the MXFP8 (200 rows, 10
// k-blocks, 4 per stage) and NVFP4 (96 rows, 9 k-blocks, 16 per stage)
// scales of test/Pipelines/Inputs/bf16-programs.mlir.
TEST(Tcgen05ScaleLayoutTest, Sizes) {
  Tcgen05ScaleLayout mx{200, 10, 4};
  EXPECT_EQ(mx.getRowChunks(), 2);
  EXPECT_EQ(mx.getKChunks(), 3);
  EXPECT_EQ(mx.getBytes(), 3072);
  Tcgen05ScaleLayout nv{96, 9, 16};
  EXPECT_EQ(nv.getRowChunks(), 1);
  EXPECT_EQ(nv.getKChunks(), 4);
  EXPECT_EQ(nv.getBytes(), 2048);
  EXPECT_EQ(nv.getTile().rows, 96u);
  EXPECT_EQ(nv.getTile().kBlocks, 16u);
}

// What the quantizer and the staging kernel write (getScaleSmemOffset of the
// whole operand's tile) is what the GEMM reads: the stage's bytes of a band,
// copied as they are from getStageOffset, are that stage's tile of 128 rows x
// stageKBlocks, whose copies and selectors the MMAs use.
TEST(Tcgen05ScaleLayoutTest, StagesAreContiguousTiles) {
  for (Tcgen05ScaleLayout layout :
       {Tcgen05ScaleLayout{200, 10, 4}, Tcgen05ScaleLayout{96, 9, 16},
        Tcgen05ScaleLayout{300, 40, 8}}) {
    ScaleTile whole = layout.getTile();
    ScaleTile stage = makeTile(128, unsigned(layout.stageKBlocks));
    std::set<unsigned> offsets;
    for (unsigned r = 0; r < layout.rows; ++r) {
      for (unsigned j = 0; j < layout.kBlocks; ++j) {
        unsigned offset = getScaleSmemOffset(whole, r, j);
        EXPECT_LT(offset, unsigned(layout.getBytes()));
        EXPECT_TRUE(offsets.insert(offset).second);
        unsigned kStage = j / layout.stageKBlocks;
        unsigned inStage =
            getScaleSmemOffset(stage, r % 128, j % layout.stageKBlocks);
        EXPECT_EQ(offset, layout.getStageOffset(r / 128, kStage) + inStage)
            << "row " << r << ", k-block " << j;
        EXPECT_LT(inStage, getScaleTileBytes(stage));
      }
    }
    // Every other byte is padding.
    for (unsigned offset = 0; offset < layout.getBytes(); ++offset) {
      std::optional<ScalePosition> pos = getScaleAtSmemOffset(whole, offset);
      bool scale =
          pos && pos->row < layout.rows && pos->kBlock < layout.kBlocks;
      EXPECT_EQ(scale, offsets.count(offset) == 1) << "byte " << offset;
    }
  }
}

} // namespace
