//===- QuantizeConfig.cpp - What a quantize configuration implies ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Which quantizations the amax and quantize kernels generate, their names
// and their parameters.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

static bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int64_t QuantizePrologue::getRunBytes() const {
  int64_t bytes = 0;
  for (const Input &input : inputs)
    if (input.read == ElementRead::Matrix || input.read == ElementRead::Column)
      bytes += getElementBytes(input.element);
  return bytes;
}

LogicalResult QuantizeConfig::verify(std::string &reason) const {
  if (format != Format::E4M3 && format != Format::E5M2 &&
      !(format == Format::E2M1 && twoLevel)) {
    reason = "only E4M3 and E5M2 codes, and E2M1 with two-level (nvfp4) "
             "scales, are quantized by GPU kernels";
    return failure();
  }
  if (twoLevel && (format != Format::E2M1 || e8m0Scales ||
                   !(fused || givenScales) || phase != Phase::Quantize)) {
    reason = "two-level scales quantize E2M1 codes by E4M3 block scales "
             "inside a tile";
    return failure();
  }
  if (tcgen05Scales &&
      (!fused || (!e8m0Scales && !twoLevel) || phase != Phase::Quantize)) {
    reason = "the tensor-memory scale layout holds E8M0 or E4M3 block "
             "scales of blocks inside a tile";
    return failure();
  }
  if (pair) {
    if (stochastic || (givenScales && twoLevel)) {
      reason = "a paired kernel quantizes by measured scales or given "
               "one-level scales, rounding to nearest even";
      return failure();
    }
    if (tileRows != kTileRows && tileRows != kPairTileRows) {
      reason = llvm::formatv("a paired tile has {0} or {1} rows", kTileRows,
                             kPairTileRows);
      return failure();
    }
    if (failed(getPairCopy().verify(reason)))
      return failure();
  }
  // Blocks inside a sub-tile, or fused blocks spanning every sub-tile.
  if (tileBlockRows > kTileRows && (tileBlockRows != tileRows || !fused)) {
    reason = "only fused blocks span the sub-tiles of a paired tile";
    return failure();
  }
  if (!isPowerOf2(tileBlockRows) || tileRows % tileBlockRows != 0 ||
      !isPowerOf2(tileBlockCols) || kTileCols % tileBlockCols != 0) {
    reason = llvm::formatv("scale blocks must tile the {0} x {1} quantize "
                           "tile: rows of 1, 2, .., 32 or multiples of 32, "
                           "columns of 1, 2, .., 128 or multiples of 128",
                           kTileRows, kTileCols);
    return failure();
  }
  if (tileBlockRows * tileBlockCols < kElementsPerThread) {
    reason = "scale blocks of fewer than 16 elements are not supported";
    return failure();
  }
  if (phase == Phase::Amax && fused) {
    reason = "a fused kernel (or copy of a pair) has no separate amax phase";
    return failure();
  }
  if (givenScales && (phase != Phase::Quantize || fused)) {
    reason = "quantizing by given scales is one unfused quantize kernel";
    return failure();
  }
  if (wholeMatrixAmax && (phase != Phase::Amax || pair || batched)) {
    reason = "a whole-matrix amax kernel reduces one matrix by itself";
    return failure();
  }
  if (prologue && batched) {
    reason = "a prologue reads its inputs as one matrix";
    return failure();
  }
  if (prologue && tileRows == kPairTileRows &&
      prologue->getRunBytes() > kMaxTallPrologueBytes) {
    reason = llvm::formatv("a prologue of {0}-row tiles loads at most {1} "
                           "bytes of matrices and column vectors per "
                           "element, not {2}",
                           kPairTileRows, kMaxTallPrologueBytes,
                           prologue->getRunBytes());
    return failure();
  }
  if (!rule && phase == Phase::Quantize && !givenScales) {
    reason = "a quantize kernel needs a scale rule";
    return failure();
  }
  return success();
}

bool QuantizeConfig::isRowColumnPair() const {
  auto plainCodes = [](Format f) {
    return f == Format::E4M3 || f == Format::E5M2;
  };
  return phase == Phase::Quantize && pair &&
         (tileRows == kTileRows || tileRows == kPairTileRows) && fused &&
         !givenScales && !stochastic && !twoLevel && !tcgen05Scales &&
         !transposed && plainCodes(format) && tileBlockRows == 1 &&
         tileBlockCols >= kElementsPerThread && plainCodes(pair->format) &&
         pair->fused && pair->transposed && !pair->tcgen05Scales &&
         pair->tileBlockRows == tileRows && pair->tileBlockCols == 1;
}

/// The kernel-name tags of how a copy is stored: transposed, by vector
/// stores, its scales in the tcgen05 layout (K along columns or rows).
static void appendStoreTags(std::string &name, bool transposed,
                            bool vectorStores, bool tcgen05Scales,
                            bool scalesKAlongCols) {
  if (transposed)
    name += "_t";
  if (vectorStores)
    name += "_vs";
  if (tcgen05Scales)
    name += scalesKAlongCols ? "_tmemsf" : "_tmemsft";
}

std::string QuantizeConfig::getKernelName() const {
  std::string name =
      llvm::formatv("fp8_{0}_{1}", phase == Phase::Amax ? "amax" : "quantize",
                    getKernelTag(input))
          .str();
  if (phase == Phase::Quantize)
    name += ("_" + getKernelTag(format)).str();
  name += llvm::formatv("_b{0}x{1}", tileBlockRows, tileBlockCols).str();
  if (phase == Phase::Quantize) {
    if (rule)
      name += "_" + getKernelTag(rule);
    name += overflow == Overflow::Saturate ? "_sat" : "_nonfinite";
    if (e8m0Scales)
      name += "_e8m0";
    if (fused)
      name += "_fused";
    if (givenScales)
      name += twoLevel ? "_given2l" : "_given";
    if (stochastic)
      name += "_sr";
    appendStoreTags(name, transposed, vectorStores, tcgen05Scales,
                    scalesKAlongCols);
  }
  if (pair) {
    // The column-wise copy's blocks and flags, then the tile's rows.
    name += llvm::formatv("_pair_b{0}x{1}", pair->tileBlockRows,
                          pair->tileBlockCols)
                .str();
    if (pair->fused)
      name += "_fused";
    if (phase == Phase::Quantize) {
      if (pair->format != format)
        name += ("_" + getKernelTag(pair->format)).str();
      appendStoreTags(name, pair->transposed, pair->vectorStores,
                      pair->tcgen05Scales, pair->scalesKAlongCols);
    }
    name += llvm::formatv("_r{0}", tileRows).str();
  } else if (tileRows != kTileRows) {
    name += llvm::formatv("_r{0}", tileRows).str();
  }
  name += nanPolicy == NanPolicy::Propagate ? "_nanprop" : "_nanignore";
  if (vectorLoads)
    name += "_vl";
  if (batched)
    name += "_batched";
  if (wholeMatrixAmax)
    name += "_gs";
  if (prologue)
    name += "_pro" + prologue->tag;
  return name;
}

/// The parameters of the kernel of `config` without its prologue.
static SmallVector<QuantizeParam>
getParamsWithoutPrologue(const QuantizeConfig &config) {
  using P = QuantizeParam;
  if (config.phase == QuantizeConfig::Phase::Amax) {
    SmallVector<QuantizeParam> params{P::Input, P::Amax,      P::Rows,
                                      P::Cols,  P::BlockRows, P::BlockCols};
    if (config.batched)
      params.push_back(P::AmaxBatchStride);
    if (config.pair)
      params.append({P::PairAmax, P::PairBlockRows, P::PairBlockCols});
    if (config.pair && config.batched)
      params.push_back(P::PairAmaxBatchStride);
    return params;
  }
  SmallVector<QuantizeParam> params{P::Input,     P::Amax,      P::Codes,
                                    P::Scales,    P::Rows,      P::Cols,
                                    P::BlockRows, P::BlockCols, P::Pitch};
  if (config.twoLevel)
    params.push_back(P::GlobalScale);
  if (config.tcgen05Scales)
    params.push_back(P::ScaleKChunks);
  if (config.stochastic)
    params.push_back(P::RandomBits);
  if (config.batched)
    params.append({P::ScaleBatchStride, P::AmaxBatchStride});
  if (config.pair) {
    params.append({P::PairAmax, P::PairCodes, P::PairScales, P::PairBlockRows,
                   P::PairBlockCols, P::PairPitch});
    if (config.pair->tcgen05Scales)
      params.push_back(P::PairScaleKChunks);
    if (config.batched)
      params.append({P::PairScaleBatchStride, P::PairAmaxBatchStride});
  }
  return params;
}

SmallVector<QuantizeParam> QuantizeConfig::getParams() const {
  using P = QuantizeParam;
  SmallVector<QuantizeParam> params = getParamsWithoutPrologue(*this);
  if (!prologue)
    return params;
  // The prologue's inputs in place of the input, last.
  params.erase(llvm::find(params, P::Input));
  params.append(prologue->inputs.size(), P::PrologueInput);
  return params;
}

QuantizeConfig QuantizeConfig::getPairCopy() const {
  assert(pair && "not a paired configuration");
  QuantizeConfig copy = *this;
  copy.pair.reset();
  copy.format = pair->format;
  copy.tileBlockRows = pair->tileBlockRows;
  copy.tileBlockCols = pair->tileBlockCols;
  copy.fused = pair->fused;
  copy.transposed = pair->transposed;
  copy.vectorStores = pair->vectorStores;
  copy.tcgen05Scales = pair->tcgen05Scales;
  copy.scalesKAlongCols = pair->scalesKAlongCols;
  return copy;
}

KernelParamKind mlir::fp8::getParamKind(QuantizeParam param) {
  switch (param) {
  case QuantizeParam::Input:
  case QuantizeParam::Amax:
  case QuantizeParam::Codes:
  case QuantizeParam::Scales:
  case QuantizeParam::GlobalScale:
  case QuantizeParam::RandomBits:
  case QuantizeParam::PairAmax:
  case QuantizeParam::PairCodes:
  case QuantizeParam::PairScales:
  case QuantizeParam::PrologueInput:
    return KernelParamKind::Buffer;
  case QuantizeParam::Rows:
  case QuantizeParam::Cols:
  case QuantizeParam::BlockRows:
  case QuantizeParam::BlockCols:
  case QuantizeParam::Pitch:
  case QuantizeParam::ScaleKChunks:
  case QuantizeParam::ScaleBatchStride:
  case QuantizeParam::AmaxBatchStride:
  case QuantizeParam::PairBlockRows:
  case QuantizeParam::PairBlockCols:
  case QuantizeParam::PairPitch:
  case QuantizeParam::PairScaleKChunks:
  case QuantizeParam::PairScaleBatchStride:
  case QuantizeParam::PairAmaxBatchStride:
    return KernelParamKind::I32;
  }
  llvm_unreachable("unknown quantize parameter");
}
