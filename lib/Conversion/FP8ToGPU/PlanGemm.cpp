//===- PlanGemm.cpp - Launches of fp8.scaled_matmul -----------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A scaled matmul becomes one GEMM kernel: the sm_90a wgmma GEMM or the
// sm_100a tcgen05 GEMM, configured from the op's formats, scales, bias and
// result. A batched matmul (rank 3) is one launch over the tiles of every
// matrix.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PlanBuilder.h"

#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/LayoutLegality.h"
#include "fp8/Dialect/FP8/Utils/HostNumerics.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Remarks.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// The one classification of a GEMM's scales, for both chips. f32 scales
/// covering whole matrices or whole rows along K apply in the epilogue.
/// Block scales apply per block of K: A per row, B per row or in square
/// blocks of the same K extent. They are scales that change along K (blocks
/// shorter than K), the block-scale types e8m0 and e4m3 (which the MX and
/// NVFP4 formats define per block even when a block spans K), and square
/// blocks of B, whose scales the epilogue cannot apply per column even when
/// one block spans K (DeepSeek's 128x128 weights with K <= 128).
std::optional<GemmScaling> classifyScaling(const ScaledGemmShape &g) {
  bool blockType = isa<Float8E8M0FNUType, Float8E4M3FNType>(g.scaleElement);
  bool wholeK = g.aK >= g.k && g.bK >= g.k;
  if (!blockType && wholeK && g.aRows >= g.m && g.bRows >= g.n)
    return GemmScaling::Tensor;
  if (!blockType && wholeK && g.aRows == 1 && g.bRows == 1)
    return GemmScaling::RowCol;
  bool squareB = g.bRows > 1 && g.bRows == g.bK;
  if ((blockType || g.aK < g.k || squareB) && g.aRows == 1 && g.aK == g.bK &&
      (g.bRows == 1 || squareB))
    return GemmScaling::Block;
  return std::nullopt;
}

/// Whether every f32 block scale of `scale` (read directly or transposed)
/// is a power of two that E8M0 holds, so that the sm_100a GEMM applies it
/// as an E8M0 code, exactly: a constant holding such values, or the decode
/// scales of a quantization in the graph by rule pow2 whose margin keeps
/// them in range (or of the scale computation a quantization was split
/// into when its amax comes from a GEMM), in this function or in the
/// prepare function that computes it once.
bool hasE8M0Pow2Scales(Value scale) {
  while (auto transpose = scale.getDefiningOp<linalg::TransposeOp>())
    scale = transpose.getInput();
  // Scales prepared once are those their prepare function computes.
  if (auto arg = dyn_cast<BlockArgument>(scale))
    if (Value prepared = getPreparedValue(arg))
      return hasE8M0Pow2Scales(prepared);
  DenseElementsAttr constant;
  if (matchPattern(scale, m_Constant(&constant)))
    return llvm::all_of(constant.getValues<APFloat>(), [](const APFloat &v) {
      return host::isE8M0Value(v.convertToFloat());
    });
  ScaleRuleAttr rule;
  Format format;
  if (auto quantize = scale.getDefiningOp<DynamicQuantizeOp>()) {
    rule = quantize.getRule();
    Value data = scale == quantize.getScale() ? quantize.getData()
                                              : quantize.getColData();
    format = *getFormat(getElementTypeOrSelf(data.getType()));
  } else if (auto computed = scale.getDefiningOp<ComputeScaleOp>()) {
    // A quantization split around an amax from a GEMM's epilogue: its
    // decode scales.
    if (scale != computed.getScaleInv())
      return false;
    rule = computed.getRule();
    format = computed.getFormat();
  } else if (auto gemm = scale.getDefiningOp<ScaledMatmulOp>()) {
    // A GEMM's result quantized by blocks: its block scales.
    if (scale != gemm.getResultScale())
      return false;
    rule = gemm.getOutRuleAttr();
    format = *getFormat(getElementTypeOrSelf(gemm.getResult().getType()));
  } else {
    return false;
  }
  if (rule.getKind() != ScaleRuleKind::Pow2)
    return false;
  return host::pow2DecodeScalesFitE8M0(format, rule.getMargin(),
                                       rule.getEps().convertToFloat());
}

/// The result and bias of a GEMM into `config`: f32/bf16/f16, or FP8 codes
/// (e4m3, e5m2) with an out scale or quantized by blocks of a row.
LogicalResult getGemmResult(ScaledMatmulOp op, ScaledGemmConfig &config,
                            std::string &reason) {
  Type element =
      cast<RankedTensorType>(op.getResult().getType()).getElementType();
  if (std::optional<WideElement> wide = getWideElement(element)) {
    config.out = *wide;
  } else {
    std::optional<Format> format = getFormat(element);
    if (!format || (*format != Format::E4M3 && *format != Format::E5M2)) {
      llvm::raw_string_ostream(reason)
          << "results of type " << element << " are not generated";
      return failure();
    }
    config.fp8Out = *format;
  }
  if (GranularityAttr granularity = op.getOutGranularityAttr()) {
    ArrayRef<int64_t> block = granularity.getBlock();
    if (block.size() != 2 || block[0] != 1 ||
        block[1] == GranularityAttr::kFull) {
      reason = "results are quantized by blocks of one row (1x32, 1x128), "
               "not " +
               formatGranularity(granularity);
      return failure();
    }
    config.resultBlock = block[1];
    config.resultRule = op.getOutRuleAttr();
  }
  if (Value b = op.getBias())
    config.bias =
        getWideElement(cast<RankedTensorType>(b.getType()).getElementType());
  return success();
}

/// The epilogue of `op` as the GEMM kernels apply it: its body cloned, each
/// input read by the result's row, column, both or neither.
LogicalResult getGemmEpilogue(ScaledMatmulOp op,
                              std::optional<GemmEpilogue> &epilogue,
                              std::string &reason) {
  if (!op.hasEpilogue())
    return success();
  if (failed(verifyClonableBody(op, reason))) {
    reason = "its epilogue: " + reason;
    return failure();
  }
  GemmEpilogue result;
  result.product = *getWideElement(op.getEpilogueInputType());
  result.body = &op.getEpilogue().front();
  // One map per input (none without inputs).
  SmallVector<AffineMap> maps;
  if (ArrayAttr attr = op.getEpilogueMapsAttr())
    maps = llvm::to_vector(attr.getAsValueRange<AffineMapAttr>());
  for (auto [input, map] : llvm::zip_equal(op.getEpilogueIns(), maps)) {
    auto type = cast<RankedTensorType>(input.getType());
    std::optional<WideElement> element = getWideElement(type.getElementType());
    if (!element || !type.hasStaticShape()) {
      llvm::raw_string_ostream(reason)
          << "its epilogue reads " << type
          << ": the GEMM kernels read static f32, bf16 or f16 inputs";
      return failure();
    }
    std::optional<ElementRead> read = getElementRead(map);
    if (!read) {
      llvm::raw_string_ostream(reason)
          << "its epilogue reads an input through " << map
          << "; the GEMM kernels read inputs of one matrix's result only";
      return failure();
    }
    result.inputs.push_back({*element, *read});
  }
  result.tag = getBodyDigest(*result.body);
  epilogue = std::move(result);
  return success();
}

/// Whether `op` returns the amax of each row of its result ([M, 1], M > 1).
bool hasRowAmax(ScaledMatmulOp op) {
  Value amax = op.getAmax();
  return amax && cast<RankedTensorType>(amax.getType()).getNumElements() != 1;
}

/// Expands the epilogue body cloned into `kernel` for the NVVM lowering;
/// fails, erasing the kernel, when an op would need libdevice.
LogicalResult expandEpilogue(ScaledMatmulOp op, LLVM::LLVMFuncOp kernel) {
  Operation *left = expandClonedBodyForNVVM(kernel);
  if (!left)
    return success();
  kernel.erase();
  return op.emitError() << "fp8 GPU lowering: the epilogue's '"
                        << left->getName()
                        << "' has no GPU lowering without libdevice";
}

/// What the chips' planners choose for a GEMM launch: the operands' tensor
/// maps, the buffers of their scales and, in a batch, the bytes from one
/// matrix's scales to the next.
struct GemmOperands {
  TensorMapParam a, b;
  int64_t scaleA = -1, scaleB = -1;
  int64_t scaleABatchStride = 0, scaleBBatchStride = 0;
  /// The tensor map of each staged epilogue input, by input (sm_90a).
  SmallVector<TensorMapParam> epilogueMaps;
  /// The result's tensor map (`tmaStore`).
  TensorMapParam out;
};

/// Fails with an error on `op` where TMA cannot read an operand as stored:
/// its rows must start 16-byte multiples apart. Quantizations that feed a
/// GEMM pad their rows so; a copy made by a layout kernel (the transposed
/// FP8 copy of a weight shared by two GEMMs) does not.
static LogicalResult verifyOperandRows(ScaledMatmulOp op,
                                       const GemmOperands &operands) {
  for (auto [name, map] :
       {std::pair<StringRef, const TensorMapParam *>{"A", &operands.a},
        {"B", &operands.b}}) {
    int64_t stride = map->strides.front();
    if (stride % 16 != 0)
      return op.emitError()
             << "fp8 GPU lowering: operand " << name << " is stored in rows "
             << stride
             << " bytes apart, and TMA reads rows 16-byte multiples apart: "
                "pad K to a multiple of 16 elements";
  }
  return success();
}

/// The bytes of one matrix's slice of the row-major scales `scale` of a
/// batched GEMM, or 0 when the batch shares them (a leading extent of 1,
/// such as per-tensor scales).
int64_t getScaleBatchStride(Value scale) {
  auto type = cast<RankedTensorType>(scale.getType());
  if (type.getDimSize(0) == 1)
    return 0;
  return type.getNumElements() / type.getDimSize(0) *
         type.getElementTypeBitWidth() / 8;
}

/// The argument of GEMM parameter `param` of `op`; the rest comes from the
/// op. `epilogueInputs` counts the epilogue inputs already passed.
LaunchParam getGemmArg(PlanBuilder &plan, ScaledMatmulOp op,
                       const ScaledGemmShape &g, const GemmOperands &operands,
                       GemmParam param, unsigned &epilogueInputs) {
  auto buffer = [&](Value value) -> LaunchParam {
    return BufferParam{plan.bufferOf(value)};
  };
  switch (param) {
  case GemmParam::TensorMapA:
    return operands.a;
  case GemmParam::TensorMapB:
    return operands.b;
  case GemmParam::Out:
    return buffer(op.getResult());
  case GemmParam::OutTensorMap:
    return operands.out;
  case GemmParam::ScaleA:
    return BufferParam{operands.scaleA};
  case GemmParam::ScaleB:
    return BufferParam{operands.scaleB};
  case GemmParam::Bias:
    return buffer(op.getBias());
  case GemmParam::GlobalScaleA:
    return buffer(op.getLhsGlobalScale());
  case GemmParam::GlobalScaleB:
    return buffer(op.getRhsGlobalScale());
  case GemmParam::OutScale:
    return buffer(op.getOutScale());
  case GemmParam::Amax: {
    // The kernel folds into it with atomic max, so it starts at zero.
    int64_t amax = plan.bufferOf(op.getAmax());
    plan.addFill(amax, 0);
    return BufferParam{amax};
  }
  case GemmParam::ResultScale:
    return buffer(op.getResultScale());
  case GemmParam::M:
    return I32Param{g.m};
  case GemmParam::N:
    return I32Param{g.n};
  case GemmParam::K:
    return I32Param{g.k};
  case GemmParam::Batches:
    return I32Param{g.batches};
  case GemmParam::ScaleABatchStride:
    return I32Param{operands.scaleABatchStride};
  case GemmParam::ScaleBBatchStride:
    return I32Param{operands.scaleBBatchStride};
  case GemmParam::EpilogueInput:
    return buffer(op.getEpilogueIns()[epilogueInputs++]);
  case GemmParam::EpilogueTensorMap:
    return operands.epilogueMaps[epilogueInputs++];
  }
  llvm_unreachable("unknown GEMM parameter");
}

/// Whether `epilogue` reads a tensor of the result's shape.
bool epilogueReadsMatrix(const std::optional<GemmEpilogue> &epilogue) {
  return epilogue && epilogue->readsMatrix();
}

/// Whether `epilogue` computes a transcendental function (an op of the math
/// dialect: erf, exp, tanh), whose polynomials make its arithmetic as long
/// as a tile's K loop is short.
bool hasTranscendentalEpilogue(const std::optional<GemmEpilogue> &epilogue) {
  if (!epilogue || !epilogue->body)
    return false;
  WalkResult walk = epilogue->body->walk([](Operation *op) {
    return isa_and_nonnull<math::MathDialect>(op->getDialect())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Gives `config` an epilogue warpgroup where the planner may
/// (`sm90-epilogue-warpgroup`), the epilogue is transcendental, the tiles are
/// not forced to 192 columns and the kernel keeps its stages. A remark says
/// so.
void takeEpilogueWarpgroup(PlanBuilder &plan, ScaledMatmulOp op,
                           GemmSM90Config &config) {
  if (!plan.sm90EpilogueWarpgroup ||
      !hasTranscendentalEpilogue(config.epilogue))
    return;
  GemmSM90Config separate = config;
  separate.epilogueWarpgroup = true;
  std::string reason;
  auto opts = getFP8GPURemarkOpts(op, "epilogue-warpgroup");
  if (plan.sm90Tiles == PlanBuilder::SM90Tiles::Wide)
    reason = "sm90-tile-n=192 asks for tiles of 192 columns, and an epilogue "
             "warpgroup takes 64 or 128";
  if (!reason.empty() || failed(separate.verify(reason))) {
    remark::missed(op.getLoc(), opts)
        << remark::add("{0} runs its epilogue between tiles: {1}",
                       describeForRemarks(op), reason);
    return;
  }
  config.epilogueWarpgroup = true;
  remark::passed(op.getLoc(), opts) << remark::add(
      "{0} runs its transcendental epilogue in a warpgroup of its own, "
      "during the next tile's K loop ({1} x {2} tiles, {3} pipeline stages)",
      describeForRemarks(op), config.blockM, config.blockN,
      separate.getStages());
}

/// Whether the kernel of `config` (whose epilogue reads a matrix) can stage
/// the matrices of `op`'s epilogue: TMA reads rows of whole 16-byte units of
/// unpadded buffers, and the kernel keeps kMinStagedStages stages (and
/// reads no matrix in a batch). `reason` says why not.
bool canStageEpilogueMatrices(PlanBuilder &plan, ScaledMatmulOp op,
                              const ScaledGemmShape &g,
                              const GemmSM90Config &config,
                              std::string &reason) {
  for (auto [input, value] :
       llvm::zip_equal(config.epilogue->inputs, op.getEpilogueIns())) {
    if (input.read != ElementRead::Matrix)
      continue;
    int64_t rowBytes = g.n * getWideElementBytes(input.element);
    if (plan.getBuffer(plan.bufferOf(value)).pitch) {
      reason = "a matrix it reads has padded rows";
      return false;
    }
    if (rowBytes % 16 != 0) {
      reason = llvm::formatv("the rows of a matrix it reads are {0} bytes, "
                             "not whole 16-byte units",
                             rowBytes)
                   .str();
      return false;
    }
  }
  GemmSM90Config staged = config;
  staged.stagedMatrices = true;
  return succeeded(staged.verify(reason));
}

/// Stages the matrix inputs of `config`'s epilogue in shared memory where
/// the planner may (`stage-epilogue-inputs`) and the kernel can
/// (canStageEpilogueMatrices). A remark says which, or why not.
void stageEpilogueMatrices(PlanBuilder &plan, ScaledMatmulOp op,
                           const ScaledGemmShape &g, GemmSM90Config &config) {
  if (!plan.stageEpilogueInputs || !epilogueReadsMatrix(config.epilogue))
    return;
  std::string reason;
  GemmSM90Config staged = config;
  staged.stagedMatrices = true;
  auto opts = getFP8GPURemarkOpts(op, "epilogue-staged");
  if (canStageEpilogueMatrices(plan, op, g, config, reason)) {
    config.stagedMatrices = true;
    remark::passed(op.getLoc(), opts) << remark::add(
        "{0} stages the matrices its epilogue reads in shared memory ({1} "
        "bytes a {2} x {3} tile, {4} pipeline stages left)",
        describeForRemarks(op), staged.getStagedInputBytes(), staged.blockM,
        staged.blockN, staged.getStages());
    return;
  }
  remark::missed(op.getLoc(), opts)
      << remark::add("{0} reads the matrices its epilogue reads from global "
                     "memory: {1}",
                     describeForRemarks(op), reason);
}

/// Turns an sm_90a GEMM option on in `config` (`enable`) when `refusal` is
/// empty and the configuration with it verifies. Remarks `name` either way:
/// passed with "<gemm> <passed(the new configuration)>", missed with
/// "<gemm> <missed>: <the reason>".
void tryGemmOption(Operation *gemm, StringRef name, GemmSM90Config &config,
                   function_ref<void(GemmSM90Config &)> enable,
                   std::string refusal, StringRef missed,
                   function_ref<std::string(const GemmSM90Config &)> passed) {
  auto opts = getFP8GPURemarkOpts(gemm, name);
  GemmSM90Config changed = config;
  enable(changed);
  if (!refusal.empty() || failed(changed.verify(refusal))) {
    remark::missed(gemm->getLoc(), opts) << remark::add(
        "{0} {1}: {2}", describeForRemarks(gemm), missed, refusal);
    return;
  }
  config = changed;
  remark::passed(gemm->getLoc(), opts)
      << remark::add("{0} {1}", describeForRemarks(gemm), passed(config));
}

} // namespace

void mlir::fp8::chooseTmaStore(PlanBuilder &plan, Operation *gemm,
                               GemmSM90Config &config) {
  if (!plan.sm90TmaStore)
    return;
  // (The lowering requires every sm_90a GEMM's result rows to be 16-byte
  // multiples, which TMA needs of the result's strides too.)
  tryGemmOption(
      gemm, "tma-store", config,
      [](GemmSM90Config &stored) { stored.tmaStore = true; }, "",
      "stores its results from registers",
      [](const GemmSM90Config &stored) {
        return llvm::formatv("stores its results by TMA from a {0}-byte tile "
                             "in shared memory ({1} pipeline stages)",
                             stored.getResultTileBytes(), stored.getStages())
            .str();
      });
}

void mlir::fp8::chooseMulticast(PlanBuilder &plan, Operation *gemm, int64_t m,
                                GemmSM90Config &config) {
  if (!plan.sm90Multicast)
    return;
  tryGemmOption(
      gemm, "multicast", config,
      [](GemmSM90Config &paired) { paired.multicastB = true; },
      m <= config.blockM
          ? "its result has one tile row, which no other CTA shares B with"
          : "",
      "runs one CTA per cluster",
      [](const GemmSM90Config &paired) {
        return llvm::formatv("runs in clusters of two CTAs on pairs of tile "
                             "rows, each copying half of the shared {0}-row B "
                             "tile into both",
                             paired.blockN)
            .str();
      });
}

void mlir::fp8::chooseAlternateConsumers(PlanBuilder &plan, Operation *gemm,
                                         GemmSM90Config &config) {
  if (!plan.sm90AlternateConsumers)
    return;
  tryGemmOption(
      gemm, "alternate-consumers", config,
      [](GemmSM90Config &alternating) {
        alternating.alternateConsumers = true;
      },
      "", "keeps its consumer warpgroups in step",
      [](const GemmSM90Config &) -> std::string {
        return "issues each K tile's wgmmas from its two consumer warpgroups "
               "in turn, one promoting while the other's run";
      });
}

void mlir::fp8::chooseProducerColumnScales(PlanBuilder &plan, Operation *gemm,
                                           GemmSM90Config &config) {
  if (!plan.sm90ProducerColumnScales)
    return;
  tryGemmOption(
      gemm, "producer-column-scales", config,
      [](GemmSM90Config &copied) { copied.producerColumnScales = true; },
      config.stagesColumnScales() ? "" : "B has no per-column block scales",
      "stages B's column scales in its consumers",
      [](const GemmSM90Config &copied) {
        return llvm::formatv("has its producer copy B's column scales into "
                             "the ring ({0} pipeline stages)",
                             copied.getStages())
            .str();
      });
}

std::array<int64_t, 3> mlir::fp8::getGemmGrid(PlanBuilder &plan,
                                              const ScaledGemmConfig &config,
                                              int64_t batches, int64_t tilesM,
                                              int64_t tilesN) {
  int64_t cluster = config.getClusterSize();
  int64_t work = batches * llvm::divideCeil(tilesM, cluster) * tilesN;
  // At least one cluster, where fewer SMs than a cluster's CTAs are asked
  // for (num-sms=1 with multicast).
  int64_t clusters =
      std::max<int64_t>(1, std::min(work, plan.getNumSMs() / cluster));
  return {cluster * clusters, 1, 1};
}

TensorMapParam mlir::fp8::getResultTensorMap(PlanBuilder &plan, Value result,
                                             const GemmSM90Config &config,
                                             int64_t batches, int64_t m,
                                             int64_t n) {
  int64_t bits = 8 * config.getResultBytes();
  TensorMapParam map =
      plan.getTensorMap(plan.bufferOf(result), m, n, /*boxRows=*/64,
                        128 * 8 / bits, bits, batches);
  // Head-major results ([N / D, M, D]): rows of D elements, M of them a
  // head.
  if (int64_t d = config.outHeadDim) {
    int64_t headBytes = d * bits / 8;
    map.dims = {headBytes, m, n / d};
    map.strides = {headBytes, m * headBytes};
    map.box = {128, 64, 1};
  }
  // Merged results ([M, batches, N]): rows of N elements, a row of each
  // matrix in turn.
  if (config.outMergedBatches) {
    int64_t rowBytes = n * bits / 8;
    map.dims = {rowBytes, batches, m};
    map.strides = {rowBytes, batches * rowBytes};
    map.box = {128, 1, 64};
  }
  return map;
}

namespace {

LogicalResult planSM90Gemm(PlanBuilder &plan, ScaledMatmulOp op) {
  ScaledGemmShape g = describeScaledGemm(op);
  GemmSM90Config config;
  // A batch of one is the matrix itself.
  config.batched = g.batches > 1;
  config.aFormat = *getFormat(getElementTypeOrSelf(op.getLhs().getType()));
  config.bFormat = *getFormat(getElementTypeOrSelf(op.getRhs().getType()));
  std::string reason;
  if (failed(getGemmResult(op, config, reason)))
    return op.emitError() << "fp8 GPU lowering: " << reason;
  config.outAmax = bool(op.getAmax());
  config.rowAmax = hasRowAmax(op);
  if (failed(getGemmEpilogue(op, config.epilogue, reason)))
    return op.emitError() << "fp8 GPU lowering: " << reason;
  config.promoteInterval = op.getPromoteInterval();
  // Global (NVFP4) scales come with E2M1 operands, which legality rejects.
  assert(!op.getLhsGlobalScale() && !op.getRhsGlobalScale());
  bool e8m0 = isa<Float8E8M0FNUType>(g.scaleElement);
  std::optional<GemmScaling> scaling = classifyScaling(g);
  if (!scaling)
    return op.emitError()
           << "fp8 GPU lowering: no sm_90a kernel scales A by "
           << formatGranularity(op.getLhsGranularity()) << " and B by "
           << formatGranularity(op.getRhsGranularity()) << " with "
           << g.scaleElement
           << " scales; supported: both per tensor or both per row along K "
              "(f32), or blocks along K of 32 or 128 (f32 or e8m0; A per "
              "row, B per row or in square blocks)";
  config.scaling = *scaling;
  if (config.scaling == GemmScaling::Block) {
    config.kGroup = g.aK;
    config.bRowsPerScale = g.bRows;
    config.e8m0Scales = e8m0;
  }
  if (!g.scaleElement.isF32() && !config.e8m0Scales)
    return op.emitError() << "fp8 GPU lowering: " << g.scaleElement
                          << " scales on sm_90a are not supported";
  // Narrow tiles when N is small, and for 32-wide scale blocks: promoting
  // four times per K tile with a scale per column kept a second accumulator
  // and 32 column scales live, which spilled at 128 columns. (Since the
  // column scales are staged in shared memory, 128 columns assemble without
  // spills, with 6 stages; no GPU has compared the two.)
  bool narrowBlocks =
      config.scaling == GemmScaling::Block && config.kGroup == 32;
  // Results quantized by blocks of 128 need tiles of 128 columns.
  config.blockN =
      (g.n <= 64 || narrowBlocks) && config.resultBlock < 128 ? 64 : 128;
  // A transcendental epilogue runs in a warpgroup of its own, with
  // 128-column tiles (unless sm90-tile-n=192 forces wider ones).
  takeEpilogueWarpgroup(plan, op, config);
  // Wider tiles (sm90-tile-n) where the configuration has a kernel with
  // them (no block scale or result block ties the columns to 128).
  GemmSM90Config wide = config;
  wide.blockN = 192;
  std::string wideReason;
  // An epilogue reading a matrix is slower with wide tiles (an H100 ran
  // the MLP block's GELU-derivative GEMM 1555 -> 1630 us) unless they stage
  // it and its arithmetic is cheap.
  StringRef slowReason;
  if (epilogueReadsMatrix(config.epilogue) &&
      (!plan.stageEpilogueInputs ||
       hasTranscendentalEpilogue(config.epilogue) ||
       !canStageEpilogueMatrices(plan, op, g, wide, wideReason)))
    slowReason = "its epilogue reads a tensor of the result's shape and "
                 "computes a transcendental function, or cannot stage it in "
                 "shared memory with them";
  // Column scales staged in shared memory (1x128 blocks on both operands)
  // gain nothing from wide tiles: an H100 ran the 8192^3 GEMM at 774
  // TFLOP/s with them against 777 without, and 4096^3 at 654 against 718.
  else if (wide.stagesColumnScales())
    slowReason = "B's scales are per column, staged in shared memory for "
                 "each K tile";
  if (!config.epilogueWarpgroup && succeeded(wide.verify(wideReason)) &&
      plan.takesWideSM90Tiles(op, g.batches, g.m, g.n, /*fp8=*/true,
                              slowReason))
    config.blockN = 192;
  if (!config.epilogueWarpgroup)
    stageEpilogueMatrices(plan, op, g, config);
  if (failed(config.verify(reason)))
    return op.emitError() << "fp8 GPU lowering: " << reason;
  linalg::TransposeOp headLayout =
      chooseHeadLayout(plan, op, op.getResult(), config);
  chooseTmaStore(plan, op, config);
  chooseMulticast(plan, op, g.m, config);
  chooseAlternateConsumers(plan, op, config);
  chooseProducerColumnScales(plan, op, config);

  FailureOr<int64_t> a = getGemmOperandBuffer(plan, op, op.getLhs());
  FailureOr<int64_t> b = getGemmOperandBuffer(plan, op, op.getRhs());
  if (failed(a) || failed(b))
    return failure();
  // Scales that are 1 / a stored scale: the kernel divides.
  auto scaleBuffer = [&](Value scale, bool &inverted) {
    auto it = plan.reciprocals.find(scale);
    inverted = it != plan.reciprocals.end();
    return inverted ? it->second : plan.bufferOf(scale);
  };
  int64_t sa = scaleBuffer(op.getLhsScale(), config.invertScaleA);
  int64_t sb = scaleBuffer(op.getRhsScale(), config.invertScaleB);
  if ((config.invertScaleA || config.invertScaleB) &&
      config.scaling != GemmScaling::Tensor)
    return op.emitError("fp8 GPU lowering: reciprocal scales are folded into "
                        "per-tensor GEMMs only");
  OpBuilder builder = plan.getKernelBuilder();
  LLVM::LLVMFuncOp kernel = buildGemmSM90Kernel(builder, op.getLoc(), config);
  if (config.epilogue && failed(expandEpilogue(op, kernel)))
    return failure();
  if (headLayout)
    foldHeadLayout(plan, op, op.getResult(), headLayout);
  GemmOperands operands{
      plan.getTensorMap(*a, g.m, g.k, config.blockM, GemmSM90Config::kBlockK,
                        /*bits=*/8, g.batches),
      plan.getTensorMap(*b, g.n, g.k, config.blockN / config.getClusterSize(),
                        GemmSM90Config::kBlockK,
                        /*bits=*/8, g.batches),
      sa, sb};
  if (failed(verifyOperandRows(op, operands)))
    return failure();
  if (config.batched) {
    operands.scaleABatchStride = getScaleBatchStride(op.getLhsScale());
    operands.scaleBBatchStride = getScaleBatchStride(op.getRhsScale());
  }
  // Staged inputs: [M, N] elements as bytes, boxes of 128 bytes by the
  // tile's rows.
  if (config.stagedMatrices)
    for (auto [input, value] :
         llvm::zip_equal(config.epilogue->inputs, op.getEpilogueIns())) {
      int64_t bits = 8 * getWideElementBytes(input.element);
      operands.epilogueMaps.push_back(
          config.isStaged(input)
              ? plan.getTensorMap(plan.bufferOf(value), g.m, g.n, config.blockM,
                                  128 * 8 / bits, bits,
                                  /*batches=*/1)
              : TensorMapParam());
    }
  if (config.tmaStore)
    operands.out =
        getResultTensorMap(plan, op.getResult(), config, g.batches, g.m, g.n);
  plan.addKernelLaunch(
      kernel, config,
      getGemmGrid(plan, config, g.batches, llvm::divideCeil(g.m, config.blockM),
                  llvm::divideCeil(g.n, config.blockN)),
      config.getSharedMemoryBytes(),
      [&, epilogueInputs = 0u](GemmParam param) mutable {
        return getGemmArg(plan, op, g, operands, param, epilogueInputs);
      },
      /*persistent=*/true);
  return success();
}

/// The sm_100a GEMM of a scaled matmul and its shape.
struct SM100Gemm {
  GemmSM100Config config;
  ScaledGemmShape shape;
};

/// Configures the sm_100a GEMM of `op`; fails with a reason if there is
/// none.
FailureOr<SM100Gemm> configureSM100Gemm(ScaledMatmulOp op,
                                        std::string &reason) {
  auto fail = [&](const Twine &why) -> FailureOr<SM100Gemm> {
    reason = why.str();
    return failure();
  };
  SM100Gemm gemm;
  ScaledGemmShape &g = gemm.shape;
  g = describeScaledGemm(op);
  GemmSM100Config &config = gemm.config;
  config.batched = g.batches > 1;
  config.aFormat = *getFormat(getElementTypeOrSelf(op.getLhs().getType()));
  config.bFormat = *getFormat(getElementTypeOrSelf(op.getRhs().getType()));
  if (failed(getGemmResult(op, config, reason)))
    return failure();
  config.outAmax = bool(op.getAmax());
  config.rowAmax = hasRowAmax(op);
  if (failed(getGemmEpilogue(op, config.epilogue, reason)))
    return failure();
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  config.vectorStores = g.n * resultType.getElementTypeBitWidth() / 8 % 16 == 0;

  bool e8m0 = isa<Float8E8M0FNUType>(g.scaleElement);
  bool e4m3 = isa<Float8E4M3FNType>(g.scaleElement);
  std::optional<GemmScaling> scaling = classifyScaling(g);
  std::string scaleType;
  llvm::raw_string_ostream(scaleType) << "'" << g.scaleElement << "'";
  std::string granularities =
      "A by " + formatGranularity(op.getLhsGranularity()) + " and B by " +
      formatGranularity(op.getRhsGranularity());
  if (!scaling)
    return fail("no sm_100a kernel scales " + granularities + " with " +
                scaleType +
                " scales; supported: both per tensor or both per row along "
                "K (f32, in the epilogue), MXFP8 (e8m0 1x32, B 1x32 or "
                "32x32) and NVFP4 (e4m3 1x16, B 1x16 or 16x16) block scales");
  // The tensor cores apply block scales of the MX and NVFP4 types only;
  // other block scales would need the sm_90a kernel's promotion of partial
  // sums on the CUDA cores. f32 scales that are powers of two in E8M0's
  // range (DeepSeek's, by rule pow2) are staged as E8M0 codes for the MX
  // kind, a scale every 32 elements of K.
  bool pow2Blocks = *scaling == GemmScaling::Block && g.scaleElement.isF32() &&
                    hasE8M0Pow2Scales(op.getLhsScale()) &&
                    hasE8M0Pow2Scales(op.getRhsScale());
  if (*scaling == GemmScaling::Block && !e8m0 && !e4m3 && !pow2Blocks)
    return fail(
        llvm::formatv(
            "no sm_100a kernel scales {0} with {1} block scales: tcgen05.mma "
            "applies block scales of type e8m0 (MXFP8, every 32 elements of K) "
            "and e4m3 (NVFP4, every 16) only, and the sm_100a GEMM does not "
            "promote partial sums on the CUDA cores; f32 scales become e8m0 "
            "exactly when they are powers of two in its range: constants "
            "that are, or the scales of quantizations in the graph by rule "
            "pow2 with a margin of at most {2} for e4m3 codes or {3} for "
            "e5m2, as the deepseek recipe's",
            granularities, scaleType, host::getMaxE8M0Pow2Margin(Format::E4M3),
            host::getMaxE8M0Pow2Margin(Format::E5M2))
            .str());
  config.scaling = *scaling;
  if (config.scaling == GemmScaling::Block) {
    config.scaleBlock = pow2Blocks ? 32 : g.declaredK;
    config.e8m0Scales = e8m0 || pow2Blocks;
    config.globalScales = op.getLhsGlobalScale() && op.getRhsGlobalScale();
  }
  if ((op.getLhsGlobalScale() || op.getRhsGlobalScale()) &&
      !config.globalScales)
    return fail("global scales need e4m3 block scales (NVFP4) on both "
                "operands");
  config.blockN = config.scaling == GemmScaling::Block || g.n > 64 ||
                          config.resultBlock > 64
                      ? 128
                      : 64;
  if (failed(config.verify(reason)))
    return failure();
  return gemm;
}

/// Reports that the block scales of `op` in buffer `source` are copied
/// into the tcgen05 scale layout on every call, and why they are not in it.
void remarkStagedScales(PlanBuilder &plan, ScaledMatmulOp op, int64_t source) {
  const PlanBuffer &stored = plan.getBuffer(source);
  std::string why = "the op producing them does not write that layout (only a "
                    "quantization whose scales only such GEMMs read, alike, "
                    "does: fp8-assign-scale-layouts)";
  if (stored.kind == PlanBuffer::Kind::Input)
    why = llvm::formatv("they are argument {0} of the function, which "
                        "arguments hold row-major{1}",
                        stored.index.value_or(-1),
                        stored.prepared
                            ? " (result " + std::to_string(*stored.prepared) +
                                  " of its prepare function)"
                            : "")
              .str();
  remark::missed(op.getLoc(), getFP8GPURemarkOpts(op, "scales-staged"))
      << remark::add("the block scales of {0} are copied into the tcgen05 "
                     "scale layout by a kernel before the GEMM: {1}",
                     describeForRemarks(op), why);
}

/// The buffer holding the block scales `scale` (of the operand that is
/// K-major in the op when `kMajor`) in the layout the sm_100a GEMM copies
/// from: the quantization's own buffer when it wrote that layout, else a
/// copy made by the staging kernel. f32 scales (powers of two) are staged as
/// E8M0 codes, each for the `kBlocksPerScale` k-blocks it covers.
FailureOr<int64_t> getTcgen05Scales(PlanBuilder &plan, ScaledMatmulOp op,
                                    Value scale, bool kMajor,
                                    const Tcgen05ScaleLayout &layout,
                                    int64_t rowsPerScale,
                                    int64_t kBlocksPerScale) {
  int64_t source = plan.bufferOf(scale);
  int64_t batches = describeScaledGemm(op).batches;
  // An argument the caller passes in the layout (a prepare function's
  // quantization wrote it so): the GEMM's layout, if it is the argument's.
  if (auto input = plan.tcgen05InputScales.find(source);
      input != plan.tcgen05InputScales.end() &&
      !plan.tcgen05ScaleBuffers.count(source)) {
    if (input->second.getStageKBlocks() != layout.stageKBlocks ||
        input->second.getKDim() != (kMajor ? 1 : 0))
      return op.emitError()
             << "fp8 GPU lowering: the GEMM reads block scales in stages of "
             << layout.stageKBlocks << " k-blocks along dimension "
             << (kMajor ? 1 : 0) << ", but its argument holds them as "
             << input->second << " (fp8.scale_layout)";
    PlanBuffer &buffer = plan.getBuffer(source);
    buffer.bytes = batches * layout.getBytes();
    plan.tcgen05ScaleBuffers[source] = layout;
  }
  auto written = plan.tcgen05ScaleBuffers.find(source);
  if (written != plan.tcgen05ScaleBuffers.end()) {
    const Tcgen05ScaleLayout &stored = written->second;
    if (stored.rows == layout.rows && stored.kBlocks == layout.kBlocks &&
        stored.stageKBlocks == layout.stageKBlocks)
      return source;
    return op.emitError()
           << "fp8 GPU lowering: the GEMM reads scales of " << layout.rows
           << " rows x " << layout.kBlocks << " k-blocks in stages of "
           << layout.stageKBlocks
           << " k-blocks, but their quantization stores them in a tcgen05 "
              "layout of "
           << stored.rows << " x " << stored.kBlocks << " in stages of "
           << stored.stageKBlocks << " (its scale_layout)";
  }
  remarkStagedScales(plan, op, source);
  // Strides of (row block, k-block) in a matrix's scales: the type's [row
  // blocks, k-blocks], or [k-blocks, row blocks] for an operand that is
  // MN-major in the op (after the batch, for a batched GEMM). The layouts
  // of a batch's matrices follow each other, as the GEMM reads them.
  auto type = cast<RankedTensorType>(scale.getType());
  assert((batches == 1 || type.getRank() == 3) &&
         "the verifier gives a batch's block scales the data's rank");
  int64_t inner = type.getDimSize(type.getRank() - 1);
  int64_t rowStride = kMajor ? inner : 1;
  int64_t kStride = kMajor ? 1 : inner;
  auto layoutType = RankedTensorType::get(
      {batches * layout.getBytes()}, IntegerType::get(plan.getContext(), 8));
  int64_t staged = plan.addBuffer(PlanBuffer::Kind::Temp, layoutType);
  plan.getBuffer(staged).layout = PlanBuffer::Layout::Tcgen05ScaleFactors;
  plan.tcgen05ScaleBuffers[staged] = layout;
  OpBuilder builder = plan.getKernelBuilder();
  ScaleLayoutConfig config;
  config.f32Source = type.getElementType().isF32();
  config.batched = batches > 1;
  LLVM::LLVMFuncOp kernel =
      buildScaleLayoutKernel(builder, scale.getLoc(), config);
  int64_t blocks =
      llvm::divideCeil(layout.getBytes(), ScaleLayoutConfig::kThreads);
  plan.addKernelLaunch(
      kernel, config, {blocks, batches, 1}, /*sharedBytes=*/0,
      [&](ScaleLayoutParam param) -> LaunchParam {
        switch (param) {
        case ScaleLayoutParam::Source:
          return BufferParam{source};
        case ScaleLayoutParam::Dest:
          return BufferParam{staged};
        case ScaleLayoutParam::Rows:
          return I32Param{layout.rows};
        case ScaleLayoutParam::KBlocks:
          return I32Param{layout.kBlocks};
        case ScaleLayoutParam::RowsPerScale:
          return I32Param{rowsPerScale};
        case ScaleLayoutParam::RowStride:
          return I32Param{rowStride};
        case ScaleLayoutParam::KStride:
          return I32Param{kStride};
        case ScaleLayoutParam::KChunks:
          return I32Param{layout.getKChunks()};
        case ScaleLayoutParam::Bytes:
          return I32Param{layout.getBytes()};
        case ScaleLayoutParam::KBlocksPerScale:
          return I32Param{kBlocksPerScale};
        case ScaleLayoutParam::SourceBatchBytes:
          return I32Param{getScaleBatchStride(scale)};
        }
        llvm_unreachable("unknown scale-layout parameter");
      },
      /*persistent=*/false);
  return staged;
}

LogicalResult planSM100Gemm(PlanBuilder &plan, ScaledMatmulOp op) {
  std::string reason;
  FailureOr<SM100Gemm> configured = configureSM100Gemm(op, reason);
  if (failed(configured))
    return op.emitError() << "fp8 GPU lowering: " << reason;
  const GemmSM100Config &config = configured->config;
  const ScaledGemmShape &g = configured->shape;
  FailureOr<int64_t> a = getGemmOperandBuffer(plan, op, op.getLhs());
  FailureOr<int64_t> b = getGemmOperandBuffer(plan, op, op.getRhs());
  if (failed(a) || failed(b))
    return failure();

  OpBuilder builder = plan.getKernelBuilder();
  LLVM::LLVMFuncOp kernel = buildGemmSM100Kernel(builder, op.getLoc(), config);
  if (config.epilogue && failed(expandEpilogue(op, kernel)))
    return failure();

  int64_t sa, sb;
  if (config.scaling == GemmScaling::Block) {
    int64_t kBlocks = llvm::divideCeil(g.k, config.scaleBlock);
    // The k-blocks of one stored scale: more than one for f32 scales of
    // longer blocks (each spans all of K when one block does).
    int64_t kBlocksPerScale = g.aK >= g.k ? kBlocks : g.aK / config.scaleBlock;
    FailureOr<int64_t> scalesA = getTcgen05Scales(
        plan, op, op.getLhsScale(), g.aKMajor,
        {g.m, kBlocks, config.getStageKBlocks()}, g.aRows, kBlocksPerScale);
    if (failed(scalesA))
      return failure();
    FailureOr<int64_t> scalesB = getTcgen05Scales(
        plan, op, op.getRhsScale(), g.bKMajor,
        {g.n, kBlocks, config.getStageKBlocks()}, g.bRows, kBlocksPerScale);
    if (failed(scalesB))
      return failure();
    sa = *scalesA;
    sb = *scalesB;
  } else {
    sa = plan.bufferOf(op.getLhsScale());
    sb = plan.bufferOf(op.getRhsScale());
  }
  int64_t bits =
      cast<RankedTensorType>(op.getLhs().getType()).getElementTypeBitWidth();
  GemmOperands operands{plan.getTensorMap(*a, g.m, g.k,
                                          GemmSM100Config::kBlockM,
                                          config.getStageK(), bits, g.batches),
                        plan.getTensorMap(*b, g.n, g.k, config.blockN,
                                          config.getStageK(), bits, g.batches),
                        sa, sb};
  if (failed(verifyOperandRows(op, operands)))
    return failure();
  if (config.batched && config.scaling == GemmScaling::Block) {
    // One tcgen05 layout per matrix of the batch.
    operands.scaleABatchStride = plan.tcgen05ScaleBuffers.lookup(sa).getBytes();
    operands.scaleBBatchStride = plan.tcgen05ScaleBuffers.lookup(sb).getBytes();
  } else if (config.batched) {
    operands.scaleABatchStride = getScaleBatchStride(op.getLhsScale());
    operands.scaleBBatchStride = getScaleBatchStride(op.getRhsScale());
  }
  int64_t tiles = g.batches * llvm::divideCeil(g.m, GemmSM100Config::kBlockM) *
                  llvm::divideCeil(g.n, config.blockN);
  plan.addKernelLaunch(
      kernel, config, {std::min(tiles, plan.getNumSMs()), 1, 1},
      config.getSharedMemoryBytes(),
      [&, epilogueInputs = 0u](GemmParam param) mutable {
        return getGemmArg(plan, op, g, operands, param, epilogueInputs);
      },
      /*persistent=*/true);
  return success();
}

} // namespace

LogicalResult mlir::fp8::planScaledMatmul(PlanBuilder &plan,
                                          ScaledMatmulOp op) {
  if (failed(verifyTensorCoreLegality(op, plan.getChip())))
    return failure();
  if (plan.getChip() == Chip::SM100a)
    return planSM100Gemm(plan, op);
  return planSM90Gemm(plan, op);
}
