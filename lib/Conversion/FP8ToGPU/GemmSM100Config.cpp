//===- GemmSM100Config.cpp - What an sm_100a GEMM configuration implies ---===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Which sm_100a GEMMs are generated, and what a configuration fixes before
// any code is emitted: the tcgen05 MMA kind and instruction descriptors, the
// block-scale tiles of a stage, the pipeline depth that fits shared and
// tensor memory, and the kernel's name.
//
//===----------------------------------------------------------------------===//

#include "TmaPipeline.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// Tensor memory: 128 lanes of 512 32-bit columns.
constexpr int64_t kTmemColumnsMax = 512;

bool isEightBit(Format format) {
  return format == Format::E4M3 || format == Format::E5M2;
}

/// Tensor-memory columns of the block scales of one ring slot.
int64_t getScaleStageColumns(const GemmSM100Config &config) {
  if (config.scaling != GemmScaling::Block)
    return 0;
  return getScaleTmemColumns(config.getScaleTileA()) +
         getScaleTmemColumns(config.getScaleTileB());
}

/// Barriers (full and empty per slot, full and empty per accumulator) and
/// the slot tcgen05.alloc writes the tensor-memory address to.
int64_t getBarrierBytes(int64_t stages, int64_t accumulators) {
  return 8 * (2 * stages + 2 * accumulators) + 16;
}

} // namespace

LogicalResult GemmSM100Config::verify(std::string &reason) const {
  auto fail = [&](const Twine &why) {
    reason = why.str();
    return failure();
  };
  if (wideOperands && (scaling != GemmScaling::Tensor || fp8Out))
    return fail("high-precision GEMMs have no scales or FP8 results");
  if (failed(verifyEpilogue(reason)))
    return failure();
  if (stagedMatrices)
    return fail("the sm_100a GEMM reads its epilogue's inputs from global "
                "memory");
  if (tmaStore)
    return fail("the sm_100a GEMM stores its results from registers");
  if (outMergedBatches)
    return fail("the sm_100a GEMM stores each matrix of a batch whole");
  if (multicastB)
    return fail("the sm_100a GEMM runs one CTA per cluster");
  if (resultBlock > blockN)
    return fail("an output tile must hold whole blocks of the result's "
                "scales");
  bool fp4 =
      !wideOperands && (aFormat == Format::E2M1 || bFormat == Format::E2M1);
  for (Format format : {aFormat, bFormat})
    if (!wideOperands && !isEightBit(format) && format != Format::E2M1)
      return fail(llvm::formatv("{0} operands are not generated for sm_100a "
                                "(e4m3, e5m2, and e2m1 with block scales)",
                                stringifyFormat(format)));
  if (scaling == GemmScaling::Block) {
    if (fp4 && (aFormat != Format::E2M1 || bFormat != Format::E2M1))
      return fail("kind::mxf4nvf4 multiplies e2m1 by e2m1; mixed e2m1 and "
                  "8-bit operands are not generated");
    if (fp4 && !(scaleBlock == 16 && !e8m0Scales) &&
        !(scaleBlock == 32 && e8m0Scales))
      return fail(llvm::formatv(
          "e2m1 operands take e4m3 scales every 16 elements of K (NVFP4) or "
          "e8m0 scales every 32 (MXFP4), not {0} scales every {1}",
          e8m0Scales ? "e8m0" : "e4m3", scaleBlock));
    if (!fp4 && (scaleBlock != 32 || !e8m0Scales))
      return fail(llvm::formatv(
          "kind::mxf8f6f4 applies e8m0 scales to blocks of 32 elements of "
          "K, not {0} scales every {1}",
          e8m0Scales ? "e8m0" : "e4m3", scaleBlock));
    if (globalScales && e8m0Scales)
      return fail("global scales come with e4m3 block scales (NVFP4) only");
    if (blockN % 128 != 0)
      return fail("block-scaled tiles are 128 or 256 columns wide (whole "
                  "128-row scale chunks of B)");
  } else {
    if (fp4)
      return fail("e2m1 operands need block scales (NVFP4 1x16 / 16x16 with "
                  "e4m3 scales, or MXFP4 1x32 with e8m0)");
    if (globalScales)
      return fail("global scales come with block scales only");
  }
  if (blockN != 64 && blockN != 128 && blockN != 256)
    return fail("the sm_100a GEMM tiles 64, 128 or 256 columns");
  for (unsigned step = 0; step < kMmasPerStage; ++step)
    if (std::optional<std::string> problem =
            checkTcgen05InstrDescriptor(getInstrDescriptor(step)))
      return fail(*problem);
  if (getStages() < 2)
    return fail("fewer than two pipeline stages fit shared and tensor memory");
  if (getTmemColumns() > kTmemColumnsMax)
    return fail(llvm::formatv("the tile needs {0} tensor-memory columns, "
                              "more than {1}",
                              getTmemColumns(), kTmemColumnsMax));
  return success();
}

int64_t GemmSM100Config::getStageK() const {
  return getKElements(kStageKBytes);
}

int64_t GemmSM100Config::getStageKBlocks() const {
  if (scaling != GemmScaling::Block)
    return 0;
  return getTcgen05StageKBlocks(getFormatInfo(aFormat).getBitWidth(),
                                scaleBlock);
}

Tcgen05Kind GemmSM100Config::getMmaKind() const {
  if (wideOperands)
    return *wideOperands == WideElement::F32 ? Tcgen05Kind::TF32
                                             : Tcgen05Kind::F16;
  if (scaling != GemmScaling::Block)
    return Tcgen05Kind::F8F6F4;
  return aFormat == Format::E2M1 ? Tcgen05Kind::MXF4NVF4
                                 : Tcgen05Kind::MXF8F6F4;
}

ScaleTile GemmSM100Config::getScaleTileA() const {
  return {unsigned(kBlockM), unsigned(getStageKBlocks())};
}

ScaleTile GemmSM100Config::getScaleTileB() const {
  return {unsigned(blockN), unsigned(getStageKBlocks())};
}

Tcgen05InstrDescriptor
GemmSM100Config::getInstrDescriptor(unsigned step, MmaScaleSelector *selA,
                                    MmaScaleSelector *selB) const {
  Tcgen05InstrDescriptor desc;
  desc.kind = getMmaKind();
  desc.aFormat = aFormat;
  desc.bFormat = bFormat;
  desc.m = kBlockM;
  desc.n = blockN;
  if (wideOperands)
    desc.wideType = *wideOperands == WideElement::F32   ? Tcgen05WideType::TF32
                    : *wideOperands == WideElement::F16 ? Tcgen05WideType::F16
                                                        : Tcgen05WideType::BF16;
  if (scaling != GemmScaling::Block)
    return desc;
  desc.scaleType =
      e8m0Scales ? Tcgen05ScaleType::UE8M0 : Tcgen05ScaleType::UE4M3;
  desc.scaleBlock = scaleBlock;
  unsigned perMma = getTcgen05ScalesPerMma(desc);
  MmaScaleSelector a = getMmaScaleSelector(getScaleTileA(), perMma, step);
  MmaScaleSelector b = getMmaScaleSelector(getScaleTileB(), perMma, step);
  desc.scaleFactorIdA = a.scaleFactorId;
  desc.scaleFactorIdB = b.scaleFactorId;
  if (selA)
    *selA = a;
  if (selB)
    *selB = b;
  return desc;
}

int64_t GemmSM100Config::getStageBytes() const {
  int64_t bytes = (kBlockM + blockN) * kStageKBytes;
  if (scaling == GemmScaling::Block)
    bytes +=
        getScaleTileBytes(getScaleTileA()) + getScaleTileBytes(getScaleTileB());
  return bytes;
}

int64_t GemmSM100Config::getAccumulators() const {
  return blockN >= 256 ? 1 : 2;
}

int64_t GemmSM100Config::getStages() const {
  if (stages > 0)
    return stages;
  int64_t acc = getAccumulators();
  int64_t bySmem = (kSharedMemoryBudget - getBarrierBytes(kMaxStages, acc)) /
                   getStageBytes();
  int64_t byTmem = kMaxStages;
  if (int64_t columns = getScaleStageColumns(*this))
    byTmem = (kTmemColumnsMax - acc * blockN) / columns;
  return std::min({kMaxStages, bySmem, byTmem});
}

int64_t GemmSM100Config::getTmemColumns() const {
  int64_t used =
      getAccumulators() * blockN + getStages() * getScaleStageColumns(*this);
  return std::max<int64_t>(32, llvm::PowerOf2Ceil(used));
}

int64_t GemmSM100Config::getSharedMemoryBytes() const {
  return getStages() * getStageBytes() +
         getBarrierBytes(getStages(), getAccumulators());
}

std::string GemmSM100Config::getKernelName() const {
  std::string blockScaling =
      llvm::formatv("block{0}{1}{2}", scaleBlock, e8m0Scales ? "e8m0" : "e4m3",
                    globalScales ? "g" : "")
          .str();
  std::string name = getKernelNamePrefix("sm100a", blockScaling);
  name += getKernelNameEpilogue();
  if (!vectorStores)
    name += "_ss";
  name += llvm::formatv("_{0}x{1}_s{2}", kBlockM, blockN, getStages()).str();
  return name;
}
