//===- ScaledGemm.cpp - What the GEMM kernels of both chips share ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The chip-independent part of a scaled-GEMM configuration (its parameter
// list and the parts of its kernel name that say what it computes) and of
// its emitter.
//
//===----------------------------------------------------------------------===//

#include "ScaledGemm.h"
#include "TmaPipeline.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Dialect/FP8/Utils/ScaleRules.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

KernelParamKind mlir::fp8::getParamKind(GemmParam param) {
  switch (param) {
  case GemmParam::TensorMapA:
  case GemmParam::TensorMapB:
  case GemmParam::OutTensorMap:
  case GemmParam::EpilogueTensorMap:
    return KernelParamKind::TensorMap;
  case GemmParam::Out:
  case GemmParam::ScaleA:
  case GemmParam::ScaleB:
  case GemmParam::Bias:
  case GemmParam::GlobalScaleA:
  case GemmParam::GlobalScaleB:
  case GemmParam::OutScale:
  case GemmParam::Amax:
  case GemmParam::ResultScale:
  case GemmParam::EpilogueInput:
    return KernelParamKind::Buffer;
  case GemmParam::M:
  case GemmParam::N:
  case GemmParam::K:
  case GemmParam::Batches:
  case GemmParam::ScaleABatchStride:
  case GemmParam::ScaleBBatchStride:
    return KernelParamKind::I32;
  }
  llvm_unreachable("unknown GEMM parameter");
}

SmallVector<GemmParam> ScaledGemmConfig::getParams() const {
  SmallVector<GemmParam> params{GemmParam::TensorMapA, GemmParam::TensorMapB,
                                tmaStore ? GemmParam::OutTensorMap
                                         : GemmParam::Out};
  if (!wideOperands)
    params.append({GemmParam::ScaleA, GemmParam::ScaleB});
  if (bias)
    params.push_back(GemmParam::Bias);
  if (globalScales)
    params.append({GemmParam::GlobalScaleA, GemmParam::GlobalScaleB});
  if (fp8Out && !resultBlock)
    params.push_back(GemmParam::OutScale);
  if (outAmax)
    params.push_back(GemmParam::Amax);
  if (resultBlock)
    params.push_back(GemmParam::ResultScale);
  params.append({GemmParam::M, GemmParam::N, GemmParam::K});
  if (batched)
    params.push_back(GemmParam::Batches);
  if (batched && !wideOperands)
    params.append({GemmParam::ScaleABatchStride, GemmParam::ScaleBBatchStride});
  if (epilogue)
    for (const GemmEpilogue::Input &input : epilogue->inputs)
      params.push_back(isStaged(input) ? GemmParam::EpilogueTensorMap
                                       : GemmParam::EpilogueInput);
  return params;
}

LogicalResult ScaledGemmConfig::verifyEpilogue(std::string &reason) const {
  if (rowAmax && (!epilogue || !outAmax)) {
    reason = "row amaxes come from an epilogue's results";
    return failure();
  }
  if (resultBlock) {
    if (!epilogue || !fp8Out || outAmax || !resultRule) {
      reason = "results quantized by blocks are FP8 codes of an epilogue's "
               "results, with a scale rule and no amax";
      return failure();
    }
    if (resultBlock != 32 && resultBlock != 128) {
      reason = "results are quantized by blocks of 32 or 128 columns";
      return failure();
    }
  }
  if (!epilogue)
    return success();
  if (batched &&
      llvm::any_of(epilogue->inputs, [](const GemmEpilogue::Input &in) {
        return in.read != GemmEpilogue::Read::Scalar;
      })) {
    reason = "the epilogue of a batch of GEMMs reads scalars only";
    return failure();
  }
  // (product, inputs...), then a linalg.generic's init, which it must not
  // read.
  Block *body = epilogue->body;
  size_t args = epilogue->inputs.size() + 1;
  if (!body || !(body->getNumArguments() == args ||
                 (body->getNumArguments() == args + 1 &&
                  isa<linalg::GenericOp>(body->getParentOp()) &&
                  body->getArguments().back().use_empty()))) {
    reason = "the epilogue body takes the product and one value per input";
    return failure();
  }
  return success();
}

int64_t ScaledGemmConfig::getOperandBits() const {
  if (wideOperands)
    return *wideOperands == WideElement::F32 ? 32 : 16;
  return aFormat == Format::E2M1 ? 4 : 8;
}

std::string
ScaledGemmConfig::getKernelNamePrefix(StringRef chip,
                                      StringRef blockScaling) const {
  if (wideOperands) {
    // The tensor cores read f32 operands as tf32: the name says so.
    StringRef operands = *wideOperands == WideElement::F32
                             ? StringRef("tf32")
                             : getKernelTag(*wideOperands);
    return llvm::formatv("gemm_{0}{1}_{2}_{3}", chip, batched ? "_batched" : "",
                         operands, getKernelTag(out));
  }
  StringRef scales;
  switch (scaling) {
  case GemmScaling::Tensor:
    scales = "tensor";
    break;
  case GemmScaling::RowCol:
    scales = "rowcol";
    break;
  case GemmScaling::Block:
    scales = blockScaling;
    break;
  }
  return llvm::formatv(
      "fp8_gemm_{0}{1}_{2}{3}_{4}_{5}", chip, batched ? "_batched" : "",
      getKernelTag(aFormat), getKernelTag(bFormat),
      fp8Out ? getKernelTag(*fp8Out) : getKernelTag(out), scales);
}

std::string ScaledGemmConfig::getKernelNameEpilogue() const {
  std::string name;
  if (bias)
    name += ("_bias" + getKernelTag(*bias)).str();
  if (outAmax)
    name += rowAmax ? "_rowamax" : "_amax";
  if (epilogue)
    name +=
        ("_epi" + getKernelTag(epilogue->product) + "_" + epilogue->tag).str();
  if (resultBlock)
    name += ("_q" + Twine(resultBlock) + "_" + getKernelTag(resultRule)).str();
  return name;
}

//===----------------------------------------------------------------------===//
// GemmEmitterBase
//===----------------------------------------------------------------------===//

/// Output tile rows per raster group of the persistent tile order.
static constexpr int64_t kGroupRows = 8;

template <typename Config>
GemmEmitterBase<Config>::GemmEmitterBase(KernelBuilder &kb,
                                         const Config &config,
                                         LLVM::LLVMFuncOp func)
    : KernelEmitter<Config>(kb, config, func),
      tmapA(this->getArg(GemmParam::TensorMapA)),
      tmapB(this->getArg(GemmParam::TensorMapB)),
      out(this->getArg(GemmParam::Out)),
      tmapOut(this->getArg(GemmParam::OutTensorMap)),
      scaleA(this->getArg(GemmParam::ScaleA)),
      scaleB(this->getArg(GemmParam::ScaleB)),
      bias(this->getArg(GemmParam::Bias)),
      globalA(this->getArg(GemmParam::GlobalScaleA)),
      globalB(this->getArg(GemmParam::GlobalScaleB)),
      outScale(this->getArg(GemmParam::OutScale)),
      amaxOut(this->getArg(GemmParam::Amax)),
      resultScale(this->getArg(GemmParam::ResultScale)),
      m(this->getArg(GemmParam::M)), n(this->getArg(GemmParam::N)),
      k(this->getArg(GemmParam::K)),
      scaleABatchStride(this->getArg(GemmParam::ScaleABatchStride)),
      scaleBBatchStride(this->getArg(GemmParam::ScaleBBatchStride)) {
  // The epilogue's inputs are the last parameters.
  if (config.epilogue) {
    size_t count = config.epilogue->inputs.size();
    for (BlockArgument arg : func.getArguments().take_back(count))
      epilogueInputs.push_back(arg);
  }
}

template <typename Config>
void GemmEmitterBase<Config>::emitTileGrid(int64_t blockM, int64_t blockN,
                                           int64_t blockK) {
  tilesM = kb.ceilDiv(m, kb.i32(blockM));
  tilesN = kb.ceilDiv(n, kb.i32(blockN));
  numTiles = kb.mul(tilesM, tilesN);
  if (config.batched) {
    tilesPerBatch = numTiles;
    numTiles = kb.mul(tilesPerBatch, this->getArg(GemmParam::Batches));
  }
  kTiles = kb.ceilDiv(k, kb.i32(blockK));
  smem = kb.dynamicSharedMemory(func);
}

template <typename Config>
ValueRange GemmEmitterBase<Config>::forEachTile(
    ValueRange inits,
    function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)> body) {
  // Clusters of two CTAs (multicastB) walk pairs of tile rows, cluster by
  // cluster, and each CTA takes its row of the pair (a row past the matrix
  // for the second CTA of a ragged last pair, which stores nothing).
  int64_t cluster = config.getClusterSize();
  Value first = kb.blockId(), step = kb.gridDim(), rank;
  Value rowsPerPass = tilesM, count = numTiles, perBatch = tilesPerBatch;
  if (cluster > 1) {
    rank = getClusterRank();
    first = kb.udiv(kb.blockId(), kb.i32(cluster));
    step = kb.udiv(kb.gridDim(), kb.i32(cluster));
    rowsPerPass = kb.ceilDiv(tilesM, kb.i32(cluster));
    perBatch = kb.mul(rowsPerPass, tilesN);
    count = config.batched ? kb.mul(perBatch, this->getArg(GemmParam::Batches))
                           : perBatch;
  }
  auto tileOf = [&](Value t) {
    auto [row, col] = getGroupedTile(
        kb, t, rowsPerPass, tilesN, std::max<int64_t>(1, kGroupRows / cluster));
    if (rank)
      row = kb.add(kb.mul(row, kb.i32(cluster)), rank);
    return std::pair<Value, Value>{row, col};
  };
  return kb.forLoop(
      first, count, step, inits,
      [&](Value tile, ValueRange args) -> SmallVector<Value> {
        if (!config.batched) {
          auto [row, col] = tileOf(tile);
          return body(row, col, Value(), args);
        }
        Value batch = kb.udiv(tile, perBatch);
        auto [row, col] = tileOf(kb.urem(tile, perBatch));
        // The batch's result and scales, for the body's extent.
        Value outBase = out, scaleABase = scaleA, scaleBBase = scaleB;
        // (Merged results, outMergedBatches: the matrix's first row is row b
        // of the result.)
        Value matrixBytes =
            kb.mul(config.outMergedBatches ? kb.zext64(n)
                                           : kb.mul(kb.zext64(m), kb.zext64(n)),
                   kb.i64(config.getResultBytes()));
        Value batch64 = kb.zext64(batch);
        // (A result stored by TMA is addressed by the batch coordinate.)
        if (out)
          out = kb.byteOffset(out, kb.mul(batch64, matrixBytes));
        if (scaleA) {
          scaleA = kb.byteOffset(scaleA,
                                 kb.mul(batch64, kb.zext64(scaleABatchStride)));
          scaleB = kb.byteOffset(scaleB,
                                 kb.mul(batch64, kb.zext64(scaleBBatchStride)));
        }
        SmallVector<Value> results = body(row, col, batch, args);
        out = outBase;
        scaleA = scaleABase;
        scaleB = scaleBBase;
        return results;
      });
}

template <typename Config>
void GemmEmitterBase<Config>::loadOperandTile(Value tensorMap, Value dst,
                                              Value k0, Value row, Value batch,
                                              Value barrier, Value ctaMask) {
  SmallVector<Value, 3> coordinates{k0, row};
  if (batch)
    coordinates.push_back(batch);
  emitTmaLoad(kb, tensorMap, dst, coordinates, barrier, ctaMask);
}

template <typename Config>
Value GemmEmitterBase<Config>::getSharedDescriptor(uint64_t constant,
                                                   Value pointer,
                                                   int64_t offset) {
  Value address = kb.add(kb.sharedAddress(pointer), kb.i32(offset));
  Value field =
      kb.zext64(kb.lshr(kb.andI(address, kb.i32(0x3FFFF)), kb.i32(4)));
  return kb.orI(kb.i64(int64_t(constant)), field);
}

template <typename Config>
Value GemmEmitterBase<Config>::loadF32(Value array, Value index) {
  return kb.load(kb.f32(),
                 kb.byteOffset(array, kb.mul(kb.zext64(index), kb.i64(4))), 4);
}

template <typename Config>
Value GemmEmitterBase<Config>::loadBias(Value col) {
  Type type = getElementType(kb.b, *config.bias);
  int64_t bytes = type.getIntOrFloatBitWidth() / 8;
  Value b = kb.load(
      type, kb.byteOffset(bias, kb.mul(kb.zext64(col), kb.i64(bytes))), bytes);
  if (!type.isF32())
    b = arith::ExtFOp::create(kb.b, kb.loc, kb.f32(), b);
  return b;
}

template <typename Config>
SmallVector<Value> GemmEmitterBase<Config>::loadEpilogueInputs(Value row,
                                                               Value col) {
  SmallVector<Value> elements;
  for (auto [i, input] : llvm::enumerate(config.epilogue->inputs)) {
    if (config.isStaged(input)) {
      elements.push_back(Value());
      continue;
    }
    Type type = getElementType(kb.b, input.element);
    int64_t bytes = type.getIntOrFloatBitWidth() / 8;
    Value index;
    switch (input.read) {
    case GemmEpilogue::Read::Matrix:
      index = kb.add(kb.mul(kb.zext64(row), kb.zext64(n)), kb.zext64(col));
      break;
    case GemmEpilogue::Read::Row:
      index = kb.zext64(row);
      break;
    case GemmEpilogue::Read::Column:
      index = kb.zext64(col);
      break;
    case GemmEpilogue::Read::Scalar:
      index = kb.i64(0);
      break;
    }
    Value address =
        kb.byteOffset(epilogueInputs[i], kb.mul(index, kb.i64(bytes)));
    elements.push_back(kb.load(type, address, bytes));
  }
  return elements;
}

template <typename Config>
Value GemmEmitterBase<Config>::applyEpilogue(Value v, Value row, Value col,
                                             ValueRange inputs) {
  const GemmEpilogue &epilogue = *config.epilogue;
  Type product = getElementType(kb.b, epilogue.product);
  if (!product.isF32())
    v = arith::TruncFOp::create(kb.b, kb.loc, product, v);
  Block *body = epilogue.body;
  IRMapping mapping;
  mapping.map(body->getArgument(0), v);
  for (auto [i, element] : llvm::enumerate(inputs))
    mapping.map(body->getArgument(i + 1), element);
  // A linalg.generic's body may read the element's row and column (its
  // last two loop indices; the planner refuses a batch index).
  SmallVector<Value> indices;
  if (auto generic = dyn_cast<linalg::GenericOp>(body->getParentOp())) {
    indices.resize(generic.getNumLoops());
    indices[indices.size() - 2] = row;
    indices.back() = col;
  }
  return cloneBody(kb.b, *body, mapping, indices).front();
}

template <typename Config>
Value GemmEmitterBase<Config>::foldAmax(Value amax, Value v, Value in) {
  return kb.select(in, kb.maxf(kb.absBits(v), amax, false), amax);
}

template <typename Config>
void GemmEmitterBase<Config>::emitAmaxAtomic(Value amax, Value lane) {
  Value warpAmax = kb.warpMax(amax, 32, /*propagateNaN=*/false);
  kb.ifThen(kb.eq(lane, kb.i32(0)),
            [&] { kb.atomicMaxNonNegative(amaxOut, warpAmax); });
}

template <typename Config>
Value GemmEmitterBase<Config>::emitResultBlockScale(Value amax, Value row,
                                                    Value blockCol,
                                                    Value owner) {
  // As the quantize kernels and fp8.dynamic_quantize's CPU lowering: the
  // rule's scale, fl32(1 / s) stored for f32 rules, the E8M0 code else.
  Value scale =
      emitScaleRule(kb.b, kb.loc, config.resultRule, *config.fp8Out, amax);
  Value multiplier = emitEncodeMultiplier(kb.b, kb.loc, scale);
  kb.ifThen(owner, [&] {
    Value width = kb.i32(config.resultBlock);
    Value index =
        kb.add(kb.mul(kb.zext64(row), kb.zext64(kb.ceilDiv(n, width))),
               kb.zext64(kb.udiv(blockCol, width)));
    storeDecodeScale(kb, resultScale, index, scale);
  });
  return multiplier;
}

template <typename Config>
Value GemmEmitterBase<Config>::convertToFP8(Value lo, Value hi, Value factor) {
  return kb.cvtSatFinite(kb.mulf(lo, factor), kb.mulf(hi, factor),
                         *config.fp8Out, lo, hi);
}

template class mlir::fp8::GemmEmitterBase<GemmSM90Config>;
template class mlir::fp8::GemmEmitterBase<GemmSM100Config>;
