//===- GemmSM90Config.cpp - What an sm_90a GEMM configuration implies -----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Which sm_90a GEMMs are generated, and what a configuration fixes before any
// code is emitted: the pipeline depth that fits shared memory and the
// kernel's name.
//
//===----------------------------------------------------------------------===//

#include "TmaPipeline.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

/// The longest promotion interval, in k32 steps, of the sm_90a GEMM: it
/// counts K tiles of four steps in 32 bits.
static constexpr int64_t kMaxPromoteInterval = int64_t(1) << 30;

LogicalResult GemmSM90Config::verify(std::string &reason) const {
  auto fail = [&](const Twine &why) {
    reason = why.str();
    return failure();
  };
  if (wideOperands) {
    if (scaling != GemmScaling::Tensor || fp8Out || invertScaleA ||
        invertScaleB || promoteInterval != 0)
      return fail("high-precision GEMMs have no scales, FP8 results or "
                  "promotion");
  } else {
    for (Format format : {aFormat, bFormat})
      if (format != Format::E4M3 && format != Format::E5M2)
        return fail("sm_90a wgmma multiplies e4m3 and e5m2 operands only");
  }
  if ((mnMajorA || mnMajorB) &&
      (!wideOperands || *wideOperands == WideElement::F32))
    return fail("MN-major operands are 16-bit: wgmma transposes bf16 and f16 "
                "tiles only");
  if (outHeadDim &&
      (outHeadDim < 0 || outHeadDim % 2 != 0 || batched || fp8Out))
    return fail("head-major results have an even head dimension and are the "
                "16-bit or f32 results of one matrix");
  if (outMergedBatches && (!batched || fp8Out || rowAmax || resultBlock))
    return fail("merged results are the 16-bit or f32 results of a batch "
                "of GEMMs, without row amaxes");
  if (failed(verifyEpilogue(reason)))
    return failure();
  if (globalScales)
    return fail("global scales come with e4m3 block scales (NVFP4), which "
                "the sm_90a GEMM does not apply");
  if (fp8Out && *fp8Out != Format::E4M3 && *fp8Out != Format::E5M2)
    return fail("FP8 results are e4m3 or e5m2");
  if (blockM != 128)
    return fail("the sm_90a GEMM tiles 128 rows (two consumer warpgroups)");
  if (blockN != 64 && blockN != 128 && blockN != 192)
    return fail("the sm_90a GEMM tiles 64, 128 or 192 columns");
  if (blockN == 192 && scaling == GemmScaling::Block && kGroup != 128)
    return fail("block-scaled sm_90a GEMMs tile 192 columns only with blocks "
                "of 128 along K");
  if (resultBlock > blockN || (resultBlock > 0 && blockN % resultBlock != 0))
    return fail("an output tile must hold whole blocks of the result's "
                "scales");
  if (scaling == GemmScaling::Block) {
    if (kGroup != 32 && kGroup != 128)
      return fail(llvm::formatv("block scales along K every {0} elements; "
                                "the sm_90a GEMM applies blocks of 32 or 128",
                                kGroup));
    if (bRowsPerScale != 1 && bRowsPerScale != kGroup)
      return fail("B's block scales must cover one row or kGroup rows");
    if (bRowsPerScale > 1 && blockN > bRowsPerScale && !straddlesTwoBBlocks())
      return fail("an output tile must not straddle B's scale blocks (but "
                  "for 192-column tiles over blocks of 128)");
    if (getSharedMemoryBytes() > kSharedMemoryBudget)
      return fail(llvm::formatv("{0} stages and the staged column scales "
                                "need {1} bytes of shared memory, more than "
                                "{2}",
                                getStages(), getSharedMemoryBytes(),
                                kSharedMemoryBudget));
  } else {
    int64_t p = promoteInterval;
    if (p < 0 || (p > 4 && p % 4 != 0) || p == 3)
      return fail(llvm::formatv(
          "promote_interval {0}: the sm_90a GEMM promotes every 1, 2 or 4 "
          "k32 steps, a multiple of 4, or never (0)",
          p));
    // The kernel counts K tiles (4 steps) in 32 bits.
    if (p > kMaxPromoteInterval)
      return fail(llvm::formatv(
          "promote_interval {0}: the sm_90a GEMM promotes at least every "
          "{1} k32 steps (its K tiles are counted in 32 bits); use 0 to "
          "never promote",
          p, kMaxPromoteInterval));
  }
  if (epilogueWarpgroup) {
    if (blockN > 128)
      return fail("an epilogue warpgroup takes tiles of 64 or 128 columns: "
                  "the consumers of wider tiles keep too many registers");
    if (stagedMatrices)
      return fail("an epilogue warpgroup reads the epilogue's inputs from "
                  "global memory; they are not staged");
    if (scaling == GemmScaling::RowCol || resultBlock ||
        (!fp8Out && out == WideElement::F32))
      return fail("an epilogue warpgroup applies per-tensor or block scales "
                  "and writes 16-bit or FP8 results, not result blocks: row "
                  "and column scales, f32 results and result blocks spill "
                  "its registers");
    // The consumers keep 152 registers (GemmSM90.cpp): several partial sums
    // (160 for four of 128 x 64) spilled 216 to 336 bytes, staged column
    // scales 28, and the epilogue warpgroup loading a matrix besides the
    // hand-over 48.
    if (getPartialSums() > 1)
      return fail(llvm::formatv(
          "an epilogue warpgroup's consumers keep 152 registers: not {0} "
          "partial sums of a tile (blocks of 32 along K, or promote_interval "
          "below 4)",
          getPartialSums()));
    if (stagesColumnScales())
      return fail("an epilogue warpgroup's consumers keep 152 registers: not "
                  "with a scale per column of B staged each K tile");
    if (epilogue && epilogue->readsMatrix())
      return fail("an epilogue warpgroup takes epilogues reading vectors, "
                  "not a matrix (its loads and the hand-over spill)");
  }
  if (tmaStore) {
    if (epilogueWarpgroup)
      return fail("results stored by TMA come from the consumers' epilogue: "
                  "not with an epilogue warpgroup");
    if (outHeadDim && outHeadDim * getResultBytes() % 128 != 0)
      return fail(llvm::formatv("a TMA store writes boxes of 128 bytes, "
                                "which a head of {0} bytes does not hold "
                                "whole",
                                outHeadDim * getResultBytes()));
    // (The GPT-2 layer's f32 GEMMs with row and column scales whose
    // epilogue loads two f32 matrices spilled 124 bytes with the result
    // tile's addresses live.)
    if (epilogue &&
        llvm::any_of(epilogue->inputs, [&](const GemmEpilogue::Input &input) {
          return input.read == GemmEpilogue::Read::Matrix && !isStaged(input);
        }))
      return fail("an epilogue loading a matrix from global memory keeps "
                  "too many registers live for the result tile's addresses");
    if (blockN * getResultBytes() % 128 != 0)
      return fail(llvm::formatv("a TMA store writes boxes of 128 bytes; a "
                                "row of the tile is {0}",
                                blockN * getResultBytes()));
  }
  if (alternateConsumers && getPromotionSteps() == 0)
    return fail("the consumer warpgroups take turns only where they wait for "
                "each K tile's wgmmas to promote partial sums (scaled "
                "operands, promote_interval > 0), not where the tensor cores "
                "accumulate across K tiles");
  // (MXFP8's backward GEMM with a GELU derivative staged and its results
  // stored by TMA spilled 4 bytes with the consumers in turn.)
  if (alternateConsumers && getPartialSums() > 1 && stagedMatrices && tmaStore)
    return fail(llvm::formatv(
        "consumers taking turns over {0} partial sums of a tile (blocks of "
        "32 along K), with a staged epilogue matrix and a TMA store, keep "
        "too many registers",
        getPartialSums()));
  if (producerColumnScales &&
      (!stagesColumnScales() || e8m0Scales || kGroup != 128 || multicastB))
    return fail("the producer copies column scales of B (blocks of 1 x 128 "
                "with f32 scales) in 4-byte copies: not other scales, not "
                "E8M0 ones, not with multicast B");
  if (multicastB && (mnMajorB || epilogueWarpgroup))
    return fail("B is multicast in halves of K-major tiles, to the "
                "consumers' epilogue: not MN-major, not with an epilogue "
                "warpgroup");
  // (A tanh epilogue spilled 4 bytes so, at 256 x 192 x 256.)
  if (multicastB && blockN == 192 && stagesColumnScales())
    return fail("the consumers of a multicast 192-column tile that stage a "
                "scale per column of B each K tile keep too many registers");
  if (stagedMatrices && getStagedInputBytes() == 0)
    return fail("staged epilogue inputs need an epilogue that reads a "
                "matrix");
  // What follows the ring must leave it its depth.
  if ((stagedMatrices || epilogueWarpgroup || tmaStore) &&
      (getStages() < kMinStagedStages ||
       getSharedMemoryBytes() > kSharedMemoryBudget)) {
    std::string what;
    if (stagedMatrices)
      what = llvm::formatv("the staged epilogue inputs ({0} bytes a tile)",
                           getStagedInputBytes());
    if (tmaStore)
      what += llvm::formatv("{0}the result tile of the TMA store ({1} bytes)",
                            what.empty() ? "" : " and ", getResultTileBytes());
    if (epilogueWarpgroup)
      what = llvm::formatv("the epilogue warpgroup's hand-over ({0} bytes)",
                           getHandOverBytes());
    what += stagedMatrices ? " leave" : " leaves";
    return fail(llvm::formatv("{0} {1} pipeline stages; at least {2} are kept",
                              what, getStages(), kMinStagedStages));
  }
  return success();
}

bool GemmSM90Config::straddlesTwoBBlocks() const {
  return scaling == GemmScaling::Block && bRowsPerScale == 128 && blockN == 192;
}

int64_t GemmSM90Config::getPartialSums() const {
  int64_t steps = getPromotionSteps();
  if (steps == 0 || steps >= kBlockK / 32)
    return 1;
  int64_t groups = kBlockK / 32 / steps;
  // blockN / 2 accumulator registers a thread, as many per partial sum.
  return blockN / 2 * (groups + 1) <= kPartialSumRegisters ? groups : 1;
}

bool GemmSM90Config::stagesColumnScales() const {
  return scaling == GemmScaling::Block && bRowsPerScale == 1 && !wideOperands;
}

int64_t GemmSM90Config::getColumnScaleBufferBytes() const {
  // The f32 scales of every block of a K tile for every column of the
  // tile, in whole loads of the warpgroup (one per thread: 192 columns
  // take two, the second half past the tile's scales).
  return llvm::alignTo((kBlockK / kGroup) * blockN, 128) * 4;
}

int64_t GemmSM90Config::getColumnScaleBytes() const {
  if (!stagesColumnScales())
    return 0;
  // One buffer per ring slot, or two consumer warpgroups, two buffers each.
  return (producerColumnScales ? getStages() : 2 * 2) *
         getColumnScaleBufferBytes();
}

int64_t GemmSM90Config::getStages() const {
  if (stages > 0)
    return stages;
  int64_t stageBytes = (blockM + blockN) * kBlockK;
  if (!stagedMatrices && !epilogueWarpgroup && !tmaStore) {
    // Column scales copied by the producer take a buffer per stage; staged
    // by the consumers, a fixed four (getColumnScaleBytes).
    bool perStage = producerColumnScales && stagesColumnScales();
    int64_t fixedBytes = 256 + (perStage ? 0 : getColumnScaleBytes());
    if (perStage)
      stageBytes += getColumnScaleBufferBytes();
    return std::min(kMaxStages,
                    (kSharedMemoryBudget - fixedBytes) / stageBytes);
  }
  // The deepest ring after which the staged inputs or the hand-over still
  // fit.
  GemmSM90Config fitted = *this;
  for (fitted.stages = kMaxStages; fitted.stages > 1; --fitted.stages)
    if (fitted.getSharedMemoryBytes() <= kSharedMemoryBudget)
      break;
  return fitted.stages;
}

int64_t GemmSM90Config::getStagedBytesBefore(size_t index) const {
  if (!stagedMatrices || !epilogue)
    return 0;
  int64_t bytes = 0;
  for (const GemmEpilogue::Input &input :
       ArrayRef(epilogue->inputs).take_front(index))
    if (isStaged(input))
      bytes += blockM * blockN * getWideElementBytes(input.element);
  return bytes;
}

int64_t GemmSM90Config::getStagedInputBytes() const {
  return epilogue ? getStagedBytesBefore(epilogue->inputs.size()) : 0;
}

int64_t GemmSM90Config::getHandOverBytes() const {
  return epilogueWarpgroup ? blockM * blockN * 4 : 0;
}

int64_t GemmSM90Config::getResultTileBytes() const {
  return tmaStore ? blockM * blockN * getResultBytes() : 0;
}

int64_t GemmSM90Config::getResultTileOffset() const {
  return llvm::alignTo(getStagedInputOffset() + getStagedInputBytes(), 1024);
}

int64_t GemmSM90Config::getStagedBarrierOffset() const {
  return getColumnScaleOffset() + getColumnScaleBytes();
}

int64_t GemmSM90Config::getStagedInputOffset() const {
  return llvm::alignTo(getStagedBarrierOffset() + 16, 1024);
}

double mlir::fp8::estimateSM90WideTileSpeedup(int64_t batches, int64_t m,
                                              int64_t n, int64_t numSMs) {
  int64_t rows = batches * llvm::divideCeil(m, 128);
  int64_t narrowWaves =
      llvm::divideCeil(rows * llvm::divideCeil(n, 128), numSMs);
  int64_t wideWaves = llvm::divideCeil(rows * llvm::divideCeil(n, 192), numSMs);
  return narrowWaves * kSM90WideTileGain / (1.5 * wideWaves);
}

int64_t GemmSM90Config::getColumnScaleOffset() const {
  // After the ring's slots and its barriers (16 bytes a stage), so 16-byte
  // aligned.
  return getStages() * ((blockM + blockN) * kBlockK + 16);
}

int64_t GemmSM90Config::getSharedMemoryBytes() const {
  if (tmaStore)
    return getResultTileOffset() + getResultTileBytes();
  // The staged inputs and the hand-over do not come together.
  int64_t after = std::max(getStagedInputBytes(), getHandOverBytes());
  if (after == 0)
    return getColumnScaleOffset() + getColumnScaleBytes();
  return getStagedInputOffset() + after;
}

std::string GemmSM90Config::getKernelName() const {
  std::string blockScaling =
      llvm::formatv("block{0}{1}{2}", kGroup, e8m0Scales ? "e8m0" : "f32",
                    bRowsPerScale > 1 ? "sq" : "")
          .str();
  std::string name = getKernelNamePrefix("sm90a", blockScaling);
  if (scaling != GemmScaling::Block && !wideOperands)
    name += llvm::formatv("_p{0}", promoteInterval).str();
  name += getKernelNameEpilogue();
  if (invertScaleA || invertScaleB)
    name += llvm::formatv("_inv{0}{1}", invertScaleA ? "a" : "",
                          invertScaleB ? "b" : "")
                .str();
  if (mnMajorA || mnMajorB)
    name += llvm::formatv("_mn{0}{1}", mnMajorA ? "a" : "", mnMajorB ? "b" : "")
                .str();
  if (outHeadDim)
    name += llvm::formatv("_h{0}", outHeadDim).str();
  if (outMergedBatches)
    name += "_mb";
  if (stagedMatrices)
    name += "_stg";
  if (tmaStore)
    name += "_tma";
  if (multicastB)
    name += "_mc";
  if (epilogueWarpgroup)
    name += "_ewg";
  if (alternateConsumers)
    name += "_alt";
  if (producerColumnScales)
    name += "_pcs";
  name += llvm::formatv("_{0}x{1}_s{2}", blockM, blockN, getStages()).str();
  return name;
}
