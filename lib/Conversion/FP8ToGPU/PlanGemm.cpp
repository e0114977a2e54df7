//===- PlanGemm.cpp - Launches of fp8.scaled_matmul -----------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A scaled matmul becomes one GEMM kernel: the sm_90a wgmma GEMM or the
// sm_100a tcgen05 GEMM, configured from the op's formats, scales, bias and
// result.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/LayoutLegality.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// The sm_100a GEMM of a scaled matmul: the kernel configuration, the
/// operands' majorness in the op, the extents, and the rows (of M or N)
/// sharing one scale.
struct SM100Gemm {
  GemmSM100Config config;
  bool aKMajor = true, bKMajor = true;
  int64_t m = 0, n = 0, k = 0;
  int64_t aRowsPerScale = 1, bRowsPerScale = 1;
};

/// The GEMM parameters after the bias and scales: the out scale (FP8
/// results) and the amax (zero-filled first), where the op has them.
void appendResultParams(PlanBuilder &plan, ScaledMatmulOp op,
                        SmallVector<LaunchParam> &params) {
  if (Value outScale = op.getOutScale())
    params.push_back(BufferParam{plan.bufferOf(outScale)});
  if (Value amax = op.getAmax()) {
    int64_t amaxBuffer = plan.bufferOf(amax);
    plan.addFill(amaxBuffer, 0);
    params.push_back(BufferParam{amaxBuffer});
  }
}

LogicalResult planSM90Gemm(PlanBuilder &plan, ScaledMatmulOp op) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  if (lhsType.getRank() != 2)
    return op.emitError("fp8 GPU lowering: batched scaled GEMMs are not "
                        "supported yet; unroll the batch");
  int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1);
  int64_t n = rhsType.getDimSize(0);

  GemmSM90Config config;
  config.aFormat = *getFormat(lhsType.getElementType());
  config.bFormat = *getFormat(rhsType.getElementType());
  std::optional<WideElement> out = getWideElement(resultType.getElementType());
  if (!out) {
    std::optional<Format> format = getFormat(resultType.getElementType());
    if (!format || (*format != Format::E4M3 && *format != Format::E5M2))
      return op.emitError()
             << "fp8 GPU lowering: results of type "
             << resultType.getElementType() << " are not generated";
    config.fp8Out = *format;
  } else {
    config.out = *out;
  }
  config.outAmax = bool(op.getAmax());
  if (Value bias = op.getBias())
    config.bias =
        getWideElement(cast<RankedTensorType>(bias.getType()).getElementType());
  config.promoteInterval = op.getPromoteInterval();
  if (op.getLhsGlobalScale() || op.getRhsGlobalScale())
    return op.emitError("fp8 GPU lowering: two-level (NVFP4) scales need "
                        "sm_100a");

  // Scaling from the granularities (A [M, K], B [N, K] as stored).
  SmallVector<int64_t> aBlock =
      op.getLhsGranularity().getBlockShape(lhsType.getShape());
  SmallVector<int64_t> bBlock =
      op.getRhsGranularity().getBlockShape(rhsType.getShape());
  Type scaleElement =
      cast<RankedTensorType>(op.getLhsScale().getType()).getElementType();
  bool aTensor = aBlock[0] >= m && aBlock[1] >= k;
  bool bTensor = bBlock[0] >= n && bBlock[1] >= k;
  bool aRow = aBlock[0] == 1 && aBlock[1] >= k;
  bool bRow = bBlock[0] == 1 && bBlock[1] >= k;
  if (aTensor && bTensor) {
    config.scaling = GemmScaling::Tensor;
  } else if (aRow && bRow) {
    config.scaling = GemmScaling::RowCol;
  } else if (aBlock[0] == 1 && aBlock[1] < k &&
             (bBlock[0] == 1 || bBlock[0] == bBlock[1]) &&
             bBlock[1] == aBlock[1]) {
    config.scaling = GemmScaling::Block;
    config.kGroup = aBlock[1];
    config.bRowsPerScale = bBlock[0];
    config.e8m0Scales = isa<Float8E8M0FNUType>(scaleElement);
  } else {
    return op.emitError()
           << "fp8 GPU lowering: no sm_90a kernel scales A by "
           << formatGranularity(op.getLhsGranularity()) << " and B by "
           << formatGranularity(op.getRhsGranularity())
           << "; supported: both per tensor, both per row along K, or blocks "
              "along K of 32 or 128 (B per row or in square blocks)";
  }
  if (!scaleElement.isF32() && !config.e8m0Scales)
    return op.emitError() << "fp8 GPU lowering: " << scaleElement
                          << " scales on sm_90a are not supported";
  // Narrow tiles when N is small, and for 32-wide scale blocks: promoting
  // four times per K tile with a scale per column keeps a second accumulator
  // and 32 column scales live, which spills at 128 columns.
  bool narrowBlocks =
      config.scaling == GemmScaling::Block && config.kGroup == 32;
  config.blockN = n <= 64 || narrowBlocks ? 64 : 128;
  std::string reason;
  if (failed(config.verify(reason)))
    return op.emitError() << "fp8 GPU lowering: " << reason;

  int64_t a = plan.bufferOf(op.getLhs()), b = plan.bufferOf(op.getRhs());
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
  int64_t c = plan.bufferOf(op.getResult());
  OpBuilder builder = plan.getKernelBuilder();
  LLVM::LLVMFuncOp kernel = buildGemmSM90Kernel(builder, op.getLoc(), config);
  SmallVector<LaunchParam> params{
      plan.getTensorMap(a, m, k, config.blockM, GemmSM90Config::kBlockK),
      plan.getTensorMap(b, n, k, config.blockN, GemmSM90Config::kBlockK),
      BufferParam{c}, BufferParam{sa}, BufferParam{sb}};
  if (Value bias = op.getBias())
    params.push_back(BufferParam{plan.bufferOf(bias)});
  appendResultParams(plan, op, params);
  params.append({I32Param{m}, I32Param{n}, I32Param{k}});
  int64_t tiles = ((m + config.blockM - 1) / config.blockM) *
                  ((n + config.blockN - 1) / config.blockN);
  plan.addKernelLaunch(kernel, {std::min(tiles, plan.getNumSMs()), 1, 1},
                       GemmSM90Config::kThreads, config.getSharedMemoryBytes(),
                       std::move(params), /*persistent=*/true);
  return success();
}

/// Plans the sm_100a GEMM of `op`; fails with a reason if there is none.
FailureOr<SM100Gemm> planSM100Gemm(ScaledMatmulOp op, std::string &reason) {
  auto fail = [&](const Twine &why) -> FailureOr<SM100Gemm> {
    reason = why.str();
    return failure();
  };
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  if (lhsType.getRank() != 2)
    return fail("batched scaled GEMMs are not supported yet; unroll the "
                "batch");
  SM100Gemm gemm;
  gemm.aKMajor = !op.getTransposeLhs();
  gemm.bKMajor = op.getTransposeRhs();
  gemm.m = resultType.getDimSize(0);
  gemm.n = resultType.getDimSize(1);
  gemm.k = lhsType.getDimSize(gemm.aKMajor ? 1 : 0);
  int64_t m = gemm.m, n = gemm.n, k = gemm.k;
  GemmSM100Config &config = gemm.config;
  config.aFormat = *getFormat(lhsType.getElementType());
  config.bFormat = *getFormat(rhsType.getElementType());
  std::optional<WideElement> out = getWideElement(resultType.getElementType());
  if (out) {
    config.out = *out;
  } else {
    std::optional<Format> format = getFormat(resultType.getElementType());
    if (!format || (*format != Format::E4M3 && *format != Format::E5M2)) {
      std::string type;
      llvm::raw_string_ostream(type) << resultType.getElementType();
      return fail("results of type " + type + " are not generated");
    }
    config.fp8Out = *format;
  }
  config.outAmax = bool(op.getAmax());
  if (Value bias = op.getBias())
    config.bias =
        getWideElement(cast<RankedTensorType>(bias.getType()).getElementType());
  int64_t outBytes = resultType.getElementTypeBitWidth() / 8;
  config.vectorStores = n * outBytes % 16 == 0;

  // Scale blocks along M (N) and K of each operand.
  SmallVector<int64_t> aBlock =
      op.getLhsGranularity().getBlockShape(lhsType.getShape());
  SmallVector<int64_t> bBlock =
      op.getRhsGranularity().getBlockShape(rhsType.getShape());
  int64_t aRows = aBlock[gemm.aKMajor ? 0 : 1];
  int64_t aK = aBlock[gemm.aKMajor ? 1 : 0];
  int64_t bRows = bBlock[gemm.bKMajor ? 0 : 1];
  int64_t bK = bBlock[gemm.bKMajor ? 1 : 0];
  gemm.aRowsPerScale = aRows;
  gemm.bRowsPerScale = bRows;
  Type scaleElement =
      cast<RankedTensorType>(op.getLhsScale().getType()).getElementType();
  bool e8m0 = isa<Float8E8M0FNUType>(scaleElement);
  bool e4m3 = isa<Float8E4M3FNType>(scaleElement);
  bool globals = op.getLhsGlobalScale() && op.getRhsGlobalScale();
  std::string scaleType;
  llvm::raw_string_ostream(scaleType) << "'" << scaleElement << "'";
  // The declared block along K (a 1x32 block stays 32 when K is 16).
  auto declaredK = [](GranularityAttr granularity, bool kLast,
                      int64_t clamped) {
    // Blocks name the trailing dimensions; K is the last or the one before.
    ArrayRef<int64_t> block = granularity.getBlock();
    size_t fromEnd = kLast ? 0 : 1;
    int64_t declared =
        block.size() > fromEnd ? block[block.size() - 1 - fromEnd] : 1;
    return declared > 0 ? declared : clamped;
  };
  bool blockTypes = e8m0 || e4m3;
  if (!blockTypes && aRows >= m && aK >= k && bRows >= n && bK >= k) {
    config.scaling = GemmScaling::Tensor;
  } else if (!blockTypes && aRows == 1 && aK >= k && bRows == 1 && bK >= k) {
    config.scaling = GemmScaling::RowCol;
  } else if (blockTypes && aK == bK && aRows == 1 &&
             (bRows == 1 || bRows == bK)) {
    config.scaling = GemmScaling::Block;
    config.scaleBlock = declaredK(op.getLhsGranularity(), gemm.aKMajor, aK);
    config.e8m0Scales = e8m0;
    config.globalScales = globals;
  } else {
    return fail("no sm_100a kernel scales A by " +
                formatGranularity(op.getLhsGranularity()) + " and B by " +
                formatGranularity(op.getRhsGranularity()) + " with " +
                scaleType +
                " scales; supported: both per tensor or both per row along "
                "K (f32, in the epilogue), MXFP8 (e8m0 1x32, B 1x32 or "
                "32x32) and NVFP4 (e4m3 1x16, B 1x16 or 16x16) block scales");
  }
  if ((op.getLhsGlobalScale() || op.getRhsGlobalScale()) &&
      !config.globalScales)
    return fail("global scales need e4m3 block scales (NVFP4) on both "
                "operands");
  config.blockN = config.scaling == GemmScaling::Block || n > 64 ? 128 : 64;
  if (failed(config.verify(reason)))
    return failure();
  return gemm;
}

/// The buffer holding the block scales `scale` (of the operand that is
/// K-major in the op when `kMajor`) in the layout the sm_100a GEMM copies
/// from: the quantization's own buffer when it wrote that layout, else a
/// copy made by the staging kernel.
int64_t getTcgen05Scales(PlanBuilder &plan, Value scale, bool kMajor,
                         const Tcgen05ScaleLayout &layout,
                         int64_t rowsPerScale) {
  int64_t source = plan.bufferOf(scale);
  auto written = plan.tcgen05ScaleBuffers.find(source);
  if (written != plan.tcgen05ScaleBuffers.end() &&
      written->second.rows == layout.rows &&
      written->second.kBlocks == layout.kBlocks &&
      written->second.stageKBlocks == layout.stageKBlocks)
    return source;
  // Strides of (row block, k-block) in the buffer as stored: the type's
  // [row blocks, k-blocks] (or [k-blocks, row blocks] for an operand that is
  // MN-major in the op), dimensions swapped in a K-major copy.
  auto type = cast<RankedTensorType>(scale.getType());
  int64_t d0 = type.getDimSize(0), d1 = type.getDimSize(1);
  bool swapped = plan.kMajorCopies.contains(source);
  int64_t rowStride, kStride;
  if (kMajor != swapped) {
    // K along the stored inner dimension.
    rowStride = swapped ? d0 : d1;
    kStride = 1;
  } else {
    rowStride = 1;
    kStride = swapped ? d0 : d1;
  }
  auto layoutType = RankedTensorType::get(
      {layout.getBytes()}, IntegerType::get(plan.getContext(), 8));
  int64_t staged = plan.addBuffer(PlanBuffer::Kind::Temp, layoutType);
  plan.getBuffer(staged).layout = PlanBuffer::Layout::Tcgen05ScaleFactors;
  plan.tcgen05ScaleBuffers[staged] = layout;
  OpBuilder builder = plan.getKernelBuilder();
  ScaleLayoutConfig config;
  LLVM::LLVMFuncOp kernel =
      buildScaleLayoutKernel(builder, scale.getLoc(), config);
  plan.addKernelLaunch(kernel,
                       {int64_t(llvm::divideCeil(layout.getBytes(),
                                                 ScaleLayoutConfig::kThreads)),
                        1, 1},
                       ScaleLayoutConfig::kThreads, /*sharedBytes=*/0,
                       {BufferParam{source}, BufferParam{staged},
                        I32Param{layout.rows}, I32Param{layout.kBlocks},
                        I32Param{rowsPerScale}, I32Param{rowStride},
                        I32Param{kStride}, I32Param{layout.getKChunks()},
                        I32Param{layout.getBytes()}},
                       /*persistent=*/false);
  return staged;
}

LogicalResult planSM100Gemm(PlanBuilder &plan, ScaledMatmulOp op) {
  std::string reason;
  FailureOr<SM100Gemm> planned = planSM100Gemm(op, reason);
  if (failed(planned))
    return op.emitError() << "fp8 GPU lowering: " << reason;
  const SM100Gemm &gemm = *planned;
  const GemmSM100Config &config = gemm.config;
  int64_t m = gemm.m, n = gemm.n, k = gemm.k;
  int64_t a = plan.bufferOf(op.getLhs()), b = plan.bufferOf(op.getRhs());
  // The kernel reads K-major operands; quantizations store MN-major reads
  // K-major (kMajorCopies).
  for (auto [name, kMajor, buffer] :
       {std::tuple{"A", gemm.aKMajor, a}, std::tuple{"B", gemm.bKMajor, b}})
    if (kMajor == plan.kMajorCopies.contains(buffer))
      return op.emitError()
             << "fp8 GPU lowering: operand " << name
             << " is stored MN-major; the sm_100a GEMM reads K-major operands "
                "(MN-major tcgen05 descriptors are not generated): quantize "
                "it in the graph, which stores it K-major, or pass "
             << (StringRef(name) == "A" ? "A as [M, K]"
                                        : "B as [N, K] (transpose_rhs)");

  OpBuilder builder = plan.getKernelBuilder();
  LLVM::LLVMFuncOp kernel = buildGemmSM100Kernel(builder, op.getLoc(), config);

  int64_t sa, sb;
  if (config.scaling == GemmScaling::Block) {
    int64_t kBlocks = llvm::divideCeil(k, config.scaleBlock);
    sa = getTcgen05Scales(plan, op.getLhsScale(), gemm.aKMajor,
                          {m, kBlocks, config.getStageKBlocks()},
                          gemm.aRowsPerScale);
    sb = getTcgen05Scales(plan, op.getRhsScale(), gemm.bKMajor,
                          {n, kBlocks, config.getStageKBlocks()},
                          gemm.bRowsPerScale);
  } else {
    sa = plan.bufferOf(op.getLhsScale());
    sb = plan.bufferOf(op.getRhsScale());
  }
  int64_t bits =
      cast<RankedTensorType>(op.getLhs().getType()).getElementTypeBitWidth();
  int64_t c = plan.bufferOf(op.getResult());
  SmallVector<LaunchParam> params{
      plan.getTensorMap(a, m, k, GemmSM100Config::kBlockM, config.getStageK(),
                        bits),
      plan.getTensorMap(b, n, k, config.blockN, config.getStageK(), bits),
      BufferParam{c}, BufferParam{sa}, BufferParam{sb}};
  if (Value bias = op.getBias())
    params.push_back(BufferParam{plan.bufferOf(bias)});
  if (config.globalScales)
    params.append({BufferParam{plan.bufferOf(op.getLhsGlobalScale())},
                   BufferParam{plan.bufferOf(op.getRhsGlobalScale())}});
  appendResultParams(plan, op, params);
  params.append({I32Param{m}, I32Param{n}, I32Param{k}});
  int64_t tiles = llvm::divideCeil(m, GemmSM100Config::kBlockM) *
                  llvm::divideCeil(n, config.blockN);
  plan.addKernelLaunch(kernel, {std::min(tiles, plan.getNumSMs()), 1, 1},
                       GemmSM100Config::kThreads, config.getSharedMemoryBytes(),
                       std::move(params), /*persistent=*/true);
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

void mlir::fp8::collectTcgen05ScaleReads(PlanBuilder &plan) {
  plan.getFunction().walk([&](ScaledMatmulOp op) {
    std::string reason;
    FailureOr<SM100Gemm> gemm = planSM100Gemm(op, reason);
    if (failed(gemm) || gemm->config.scaling != GemmScaling::Block)
      return;
    int64_t kBlocks = llvm::divideCeil(gemm->k, gemm->config.scaleBlock);
    int64_t stageKBlocks = gemm->config.getStageKBlocks();
    plan.tcgen05ScaleReads[op.getLhsScale()].push_back(
        {{gemm->m, kBlocks, stageKBlocks}, gemm->aRowsPerScale, gemm->aKMajor});
    plan.tcgen05ScaleReads[op.getRhsScale()].push_back(
        {{gemm->n, kBlocks, stageKBlocks}, gemm->bRowsPerScale, gemm->bKMajor});
  });
}
