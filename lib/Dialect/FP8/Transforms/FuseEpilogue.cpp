//===- FuseEpilogue.cpp - Elementwise consumers into GEMM epilogues -------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Moves the elementwise consumer of an fp8.scaled_matmul (after
// fp8-fuse-elementwise, the whole chain that follows the GEMM) into the
// GEMM's epilogue region, so that the GEMM kernel applies it before storing
// and the product never goes through memory.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/Support/FormatVariadic.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8FUSEEPILOGUE
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// Whether `map`, of the result's indices, reads an input at the result's
/// position or broadcast along some of its dimensions: the result
/// dimensions it picks, in order.
bool isBroadcastMap(AffineMap map) {
  int64_t last = -1;
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || int64_t(dim.getPosition()) <= last)
      return false;
    last = dim.getPosition();
  }
  return map.getNumSymbols() == 0;
}

/// Whether `gemm` encodes its result (by out_scale or by blocks).
bool returnsCodes(ScaledMatmulOp gemm) {
  return gemm.getOutScale() || gemm.getOutGranularity();
}

/// Whether `gemm` returns more than its product: an amax or FP8 codes.
bool returnsMoreThanProduct(ScaledMatmulOp gemm) {
  return gemm.getAmax() || returnsCodes(gemm);
}

/// Why the GEMM kernels cannot write `codes` as their result; empty when
/// they can.
std::string whyNoGemmCodes(RankedTensorType codes) {
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(codes.getElementType()))
    return "the GEMM writes e4m3 and e5m2 codes only";
  // As LegalizeLayout requires of every GEMM result.
  int64_t n = codes.getDimSize(1);
  if (ShapedType::isDynamic(n) || n % 16 != 0)
    return "rows of FP8 codes must be multiples of 16 bytes";
  return "";
}

/// The widths of the row blocks whose codes the GEMM kernels write: their
/// tiles hold whole blocks of these.
bool isGemmBlockWidth(int64_t width) { return width == 32 || width == 128; }

/// Why `consumer`, the user of `gemm`'s product, cannot become its epilogue;
/// empty when it can.
std::string whyNotFusable(ScaledMatmulOp gemm, Operation *consumer) {
  if (gemm.getAmax())
    return "the GEMM also returns the amax of its product";
  if (returnsCodes(gemm))
    return "the GEMM returns FP8 codes";
  if (gemm.getResult().getType().getRank() != 2)
    return "batched GEMMs keep their elementwise consumers as kernels";
  std::string reason;
  if (!isFusableElementwise(consumer, reason))
    return "the consumer " + reason;
  auto linalgOp = cast<linalg::LinalgOp>(consumer);
  if (consumer->getNumResults() != 1)
    return "the consumer has several results";
  auto resultType = cast<RankedTensorType>(consumer->getResult(0).getType());
  if (!isWideFloat(resultType.getElementType()))
    return "the consumer's result is not f32, bf16 or f16";
  if (resultType.getShape() != gemm.getResult().getType().getShape() ||
      !linalgOp.getIndexingMapMatchingResult(consumer->getResult(0))
           .isIdentity())
    return "the consumer's result is not the product's shape";
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(consumer->getRegion(0), captured);
  if (llvm::any_of(captured,
                   [](Value v) { return !matchPattern(v, m_Constant()); }))
    return "the consumer's body uses a value defined outside that is not a "
           "constant";
  for (OpOperand *operand : linalgOp.getDpsInputOperands()) {
    AffineMap map = linalgOp.getMatchingIndexingMap(operand);
    if (operand->get() == gemm.getResult()) {
      if (!map.isIdentity())
        return "the consumer reads the product through a map that is not "
               "the identity";
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      return "the consumer has a scalar input";
    if (!type.hasStaticShape() || !isWideFloat(type.getElementType()))
      return "an input of the consumer is not a static f32, bf16 or f16 "
             "tensor";
    if (!isBroadcastMap(map))
      return "the consumer reads an input transposed";
  }
  return "";
}

/// Why the per-tensor scale of `quantize`, which reads the product of
/// `gemm`, cannot come from the amax of that GEMM's epilogue; empty when it
/// can.
std::string whyNoProducerAmax(DynamicQuantizeOp quantize, ScaledMatmulOp gemm) {
  if (quantize.getGlobalScale())
    return "NVFP4's two-level scales need the amax of every block";
  // One amax for the tensor or for each row ([M, 1] scales).
  GranularityAttr granularity = quantize.getGranularity();
  ArrayRef<int64_t> scaleShape = quantize.getScale().getType().getShape();
  bool perRow = granularity.getBlock().size() == 2 &&
                granularity.getBlock()[0] == 1 && scaleShape.size() == 2 &&
                scaleShape[1] == 1;
  if (!granularity.isTensor() && !perRow)
    return "the epilogue computes amaxes per tensor and per row, not per "
           "block";
  if (quantize.getColGranularity())
    return "it also writes a column-wise copy";
  if (quantize.getNanPolicy() != NanPolicy::Ignore)
    return "it propagates NaN, which the GEMM's amax ignores";
  if (returnsMoreThanProduct(gemm))
    return "the GEMM already returns an amax or FP8 codes";
  if (gemm.getResult().getType().getRank() != 2)
    return "batched GEMMs have no epilogue";
  return "";
}

/// Why the codes of `quantize`, a per-tensor quantization by a given scale
/// of `gemm`'s result, cannot come from the GEMM's epilogue; empty when they
/// can. `amaxes` receives the fp8.amax ops that read the result too.
std::string whyNoEpilogueCodes(QuantizeOp quantize, ScaledMatmulOp gemm,
                               SmallVectorImpl<AmaxOp> &amaxes) {
  if (!quantize.getGranularity().isTensor())
    return "the GEMM encodes by one scale per tensor only";
  if (returnsMoreThanProduct(gemm))
    return "the GEMM already returns an amax or FP8 codes";
  if (gemm.getResult().getType().getRank() != 2)
    return "batched GEMMs have no epilogue";
  if (quantize.getGlobalScale() || quantize.getRbits() ||
      quantize.getRounding() != Rounding::RNE ||
      quantize.getOverflow() != Overflow::Saturate)
    return "the GEMM encodes with round-to-nearest-even and saturation only";
  if (!quantize.getScale().getType().getElementType().isF32())
    return "the scale is not f32";
  if (std::string reason = whyNoGemmCodes(quantize.getOutput().getType());
      !reason.empty())
    return reason;
  for (Operation *user : gemm.getResult().getUsers()) {
    if (user == quantize)
      continue;
    auto amax = dyn_cast<AmaxOp>(user);
    if (!amax || !amax.getGranularity().isTensor() ||
        amax.getNanPolicy() != NanPolicy::Ignore)
      return ("the result is also read by '" + user->getName().getStringRef() +
              "'")
          .str();
    if (amax->getBlock() != quantize->getBlock() ||
        amax->isBeforeInBlock(quantize))
      return "the result's amax is taken before it is quantized";
    amaxes.push_back(amax);
  }
  return "";
}

/// The width of the blocks of `quantize` when they are blocks of one row
/// ([1, B] along the last of two dimensions, B not the whole dimension),
/// else 0.
int64_t getRowBlockWidth(DynamicQuantizeOp quantize) {
  ArrayRef<int64_t> block = quantize.getGranularity().getBlock();
  ArrayRef<int64_t> shape = quantize.getInput().getType().getShape();
  if (block.size() != 2 || shape.size() != 2 || block[0] != 1 ||
      block[1] == GranularityAttr::kFull || ShapedType::isDynamic(shape[1]))
    return 0;
  // A block covering the row is the row: its amax can come from the GEMM
  // (fuseAmax) unless its width is one whose codes the GEMM writes.
  if (block[1] >= shape[1] && !isGemmBlockWidth(block[1]))
    return 0;
  return block[1];
}

/// Why the codes and block scales of `quantize`, a quantization by blocks
/// of `width` elements of a row of `gemm`'s result, cannot come from the
/// GEMM's epilogue; empty when they can.
std::string whyNoBlockCodes(DynamicQuantizeOp quantize, ScaledMatmulOp gemm,
                            int64_t width) {
  if (!isGemmBlockWidth(width))
    return llvm::formatv("blocks of {0} elements: the GEMM tiles hold whole "
                         "blocks of 32 or 128",
                         width)
        .str();
  if (quantize.getGlobalScale())
    return "NVFP4's two-level scales need the amax of the whole tensor";
  if (quantize.getColGranularity())
    return "it also writes a column-wise copy";
  if (quantize.getNanPolicy() != NanPolicy::Ignore)
    return "it propagates NaN, which the GEMM's amaxes ignore";
  if (quantize.getOverflow() != Overflow::Saturate)
    return "the GEMM encodes with saturation only";
  if (quantize.getScaleLayoutAttr())
    return "its scales are stored in the tcgen05 scale-factor layout";
  if (returnsMoreThanProduct(gemm))
    return "the GEMM already returns an amax or FP8 codes";
  if (gemm.getResult().getType().getRank() != 2)
    return "batched GEMMs have no epilogue";
  if (!gemm.getResult().hasOneUse())
    return "the result has other readers, which need it in high precision";
  // A GEMM scaling K by blocks of 32 tiles 64 columns on sm_90a.
  if (width > 64 && gemm.getLhsGranularity().getBlock().size() == 2 &&
      gemm.getLhsGranularity().getBlock()[1] == 32)
    return "the GEMM scales K by blocks of 32, whose tiles of 64 columns "
           "hold no block of 128";
  return whyNoGemmCodes(quantize.getData().getType());
}

struct FP8FuseEpiloguePass
    : fp8::impl::FP8FuseEpilogueBase<FP8FuseEpiloguePass> {
  void runOnOperation() override;
  /// Fuses the one user of `gemm`'s product into its epilogue, or remarks
  /// why not.
  void fuse(IRRewriter &rewriter, ScaledMatmulOp gemm);
  /// Takes the amax of a per-tensor dynamic quantization of a GEMM's result
  /// from that GEMM's epilogue, or remarks why not.
  void fuseAmax(IRRewriter &rewriter, DynamicQuantizeOp quantize);
  /// Writes the codes of a per-tensor quantization of a GEMM's result by a
  /// given scale (delayed scaling), and the amax taken of it, from the
  /// GEMM's epilogue, or remarks why not.
  void fuseCodes(IRRewriter &rewriter, QuantizeOp quantize);
  /// Writes the codes and block scales of a quantization by blocks of a
  /// row of a GEMM's result from the GEMM's epilogue, or remarks why not.
  void fuseBlockCodes(IRRewriter &rewriter, DynamicQuantizeOp quantize,
                      int64_t width);
};

/// How a recreated GEMM encodes its result: by `outScale`, or by blocks as
/// `quantize` (a quantization of its result) does.
struct ResultEncoding {
  Value outScale;
  DynamicQuantizeOp quantize;
};

/// `gemm` again at the insertion point of `rewriter` with `resultType`, an
/// amax result of `amaxType` (if set), the result `encoding` and the
/// epilogue inputs `inputs` read through `maps`, and an empty epilogue
/// region.
ScaledMatmulOp cloneGemm(IRRewriter &rewriter, ScaledMatmulOp gemm,
                         RankedTensorType resultType, Type amaxType,
                         ResultEncoding encoding, ValueRange inputs,
                         ArrayAttr maps) {
  DynamicQuantizeOp quantize = encoding.quantize;
  auto result = ScaledMatmulOp::create(
      rewriter, gemm.getLoc(), resultType, amaxType,
      quantize ? Type(quantize.getScale().getType()) : Type(), gemm.getLhs(),
      gemm.getRhs(), gemm.getLhsScale(), gemm.getRhsScale(),
      gemm.getLhsGlobalScale(), gemm.getRhsGlobalScale(), gemm.getBias(),
      encoding.outScale, inputs, gemm.getLhsGranularityAttr(),
      gemm.getRhsGranularityAttr(), gemm.getTransposeLhsAttr(),
      gemm.getTransposeRhsAttr(), gemm.getPromoteIntervalAttr(),
      gemm.getRecipeAttr(), gemm.getRoleAttr(), maps,
      quantize ? quantize.getGranularityAttr() : GranularityAttr(),
      quantize ? quantize.getRuleAttr() : ScaleRuleAttr());
  result->setDiscardableAttrs(gemm->getDiscardableAttrDictionary());
  return result;
}

/// `gemm` again (cloneGemm) with its epilogue moved over, or the identity
/// on its stored type when it had none.
ScaledMatmulOp recreateWithEpilogue(IRRewriter &rewriter, ScaledMatmulOp gemm,
                                    RankedTensorType resultType, Type amaxType,
                                    ResultEncoding encoding) {
  ScaledMatmulOp result =
      cloneGemm(rewriter, gemm, resultType, amaxType, encoding,
                gemm.getEpilogueIns(), gemm.getEpilogueMapsAttr());
  if (gemm.hasEpilogue()) {
    result.getEpilogue().takeBody(gemm.getEpilogue());
  } else {
    OpBuilder::InsertionGuard guard(rewriter);
    Type stored = gemm.getResult().getType().getElementType();
    Location loc = gemm.getLoc();
    Block *body =
        rewriter.createBlock(&result.getEpilogue(), {}, {stored}, {loc});
    YieldOp::create(rewriter, loc, body->getArgument(0));
  }
  return result;
}

void FP8FuseEpiloguePass::fuseCodes(IRRewriter &rewriter, QuantizeOp quantize) {
  auto gemm = quantize.getInput().getDefiningOp<ScaledMatmulOp>();
  if (!gemm)
    return;
  SmallVector<AmaxOp> amaxes;
  if (std::string reason = whyNoEpilogueCodes(quantize, gemm, amaxes);
      !reason.empty()) {
    remark::missed(quantize.getLoc(),
                   getFP8GPURemarkOpts(quantize, "codes-not-in-epilogue"))
        << remark::add("{0} reads the result of {1}: {2}",
                       describeForRemarks(quantize), describeForRemarks(gemm),
                       reason);
    return;
  }
  // At the quantization, where its scale is defined; the amaxes follow it.
  rewriter.setInsertionPoint(quantize);
  Type amaxType;
  if (!amaxes.empty())
    amaxType = amaxes.front().getType();
  ScaledMatmulOp codes =
      recreateWithEpilogue(rewriter, gemm, quantize.getOutput().getType(),
                           amaxType, {quantize.getScale(), {}});
  remark::passed(quantize.getLoc(),
                 getFP8GPURemarkOpts(quantize, "codes-in-epilogue"))
      << remark::add("{0}{1} fused into the epilogue of {2}: the GEMM writes "
                     "the codes",
                     describeForRemarks(quantize),
                     amaxes.empty() ? "" : " and its amax",
                     describeForRemarks(codes));
  for (AmaxOp amax : amaxes)
    rewriter.replaceOp(amax, codes.getAmax());
  rewriter.replaceOp(quantize, codes.getResult());
  rewriter.eraseOp(gemm);
}

void FP8FuseEpiloguePass::fuseAmax(IRRewriter &rewriter,
                                   DynamicQuantizeOp quantize) {
  auto gemm = quantize.getInput().getDefiningOp<ScaledMatmulOp>();
  if (!gemm)
    return;
  if (std::string reason = whyNoProducerAmax(quantize, gemm); !reason.empty()) {
    remark::missed(quantize.getLoc(),
                   getFP8GPURemarkOpts(quantize, "amax-not-in-epilogue"))
        << remark::add("{0} computes the amax of {1} itself: {2}",
                       describeForRemarks(quantize), describeForRemarks(gemm),
                       reason);
    return;
  }
  // The GEMM again, with an amax result and an epilogue (the identity on
  // the stored type when it had none), so that the amax is that of the
  // values the quantization reads.
  rewriter.setInsertionPoint(gemm);
  auto amaxType = RankedTensorType::get(
      quantize.getScale().getType().getShape(), rewriter.getF32Type());
  ScaledMatmulOp withAmax = recreateWithEpilogue(
      rewriter, gemm, gemm.getResult().getType(), amaxType, {});
  rewriter.replaceAllUsesWith(gemm.getResult(), withAmax.getResult());
  rewriter.eraseOp(gemm);

  // amax -> scale -> codes, as the quantization itself computes them.
  rewriter.setInsertionPoint(quantize);
  Location loc = quantize.getLoc();
  RankedTensorType scaleType = quantize.getScale().getType();
  bool f32Scale = scaleType.getElementType().isF32();
  Format format = *getFormat(quantize.getData().getType().getElementType());
  auto computed = ComputeScaleOp::create(
      rewriter, loc, scaleType, f32Scale ? Type(amaxType) : Type(),
      withAmax.getAmax(), /*global_scale=*/Value(), quantize.getRule(), format);
  auto codes = QuantizeOp::create(
      rewriter, loc, quantize.getData().getType(), quantize.getInput(),
      computed.getScale(), /*global_scale=*/Value(), /*rbits=*/Value(),
      quantize.getGranularityAttr(), quantize.getOverflow(), Rounding::RNE);
  codes->setDiscardableAttrs(quantize->getDiscardableAttrDictionary());
  remark::passed(quantize.getLoc(),
                 getFP8GPURemarkOpts(quantize, "amax-in-epilogue"))
      << remark::add("the amax of {0} comes from the epilogue of {1}",
                     describeForRemarks(quantize),
                     describeForRemarks(withAmax));
  rewriter.replaceOp(quantize,
                     {codes.getResult(),
                      f32Scale ? computed.getScaleInv() : computed.getScale()});
}

void FP8FuseEpiloguePass::fuse(IRRewriter &rewriter, ScaledMatmulOp gemm) {
  Value product = gemm.getResult();
  if (gemm.hasEpilogue() || product.use_empty())
    return;
  auto missed = [&](const Twine &reason) {
    remark::missed(gemm.getLoc(),
                   getFP8GPURemarkOpts(gemm, "epilogue-not-fused"))
        << remark::add("{0}: nothing fused into its epilogue: {1}",
                       describeForRemarks(gemm), reason.str());
  };
  SmallPtrSet<Operation *, 2> users(llvm::from_range, product.getUsers());
  if (users.size() != 1)
    return missed("its product has several users");
  Operation *consumer = *users.begin();
  // Quantizations take their amax or codes from the epilogue, or say why
  // not, below.
  if (isa<func::ReturnOp, DynamicQuantizeOp, QuantizeOp>(consumer))
    return;
  if (!isa<linalg::LinalgOp>(consumer))
    return missed(("its product is read by '" +
                   consumer->getName().getStringRef() +
                   "', which is not an elementwise linalg op")
                      .str());
  if (std::string reason = whyNotFusable(gemm, consumer); !reason.empty())
    return missed(reason);

  rewriter.setInsertionPoint(consumer);
  auto linalgOp = cast<linalg::LinalgOp>(consumer);
  if (!isa<linalg::GenericOp>(consumer)) {
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, linalgOp);
    if (failed(generic))
      return missed("the consumer has no generic form");
    linalgOp = *generic;
    consumer = *generic;
  }
  rewriter.setInsertionPoint(consumer);
  std::string consumerName = describeForRemarks(consumer);

  // The epilogue's inputs: the consumer's inputs other than the product.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *operand : linalgOp.getDpsInputOperands()) {
    if (operand->get() == product)
      continue;
    inputs.push_back(operand->get());
    maps.push_back(linalgOp.getMatchingIndexingMap(operand));
  }
  auto resultType = cast<RankedTensorType>(consumer->getResult(0).getType());
  ScaledMatmulOp fused =
      cloneGemm(rewriter, gemm, resultType, /*amaxType=*/Type(),
                /*encoding=*/{}, inputs, rewriter.getAffineMapArrayAttr(maps));
  // The consumer's body, its block arguments those of the epilogue.
  Block &body = consumer->getRegion(0).front();
  Block *epilogue = rewriter.createBlock(
      &fused.getEpilogue(), {}, {gemm.getResult().getType().getElementType()},
      {gemm.getLoc()});
  IRMapping mapping;
  for (OpOperand *operand : linalgOp.getDpsInputOperands()) {
    BlockArgument arg = body.getArgument(operand->getOperandNumber());
    mapping.map(arg, operand->get() == product
                         ? epilogue->getArgument(0)
                         : epilogue->addArgument(arg.getType(), arg.getLoc()));
  }
  for (Operation &op : body.without_terminator())
    rewriter.clone(op, mapping);
  YieldOp::create(rewriter, consumer->getLoc(),
                  mapping.lookupOrDefault(body.getTerminator()->getOperand(0)));

  remark::passed(gemm.getLoc(), getFP8GPURemarkOpts(gemm, "epilogue-fused"))
      << remark::add("{0} fused into the epilogue of {1}", consumerName,
                     describeForRemarks(gemm));
  rewriter.replaceOp(consumer, fused.getResult());
  rewriter.eraseOp(gemm);
}

void FP8FuseEpiloguePass::runOnOperation() {
  IRRewriter rewriter(&getContext());
  SmallVector<ScaledMatmulOp> gemms;
  getOperation()->walk([&](ScaledMatmulOp op) { gemms.push_back(op); });
  for (ScaledMatmulOp gemm : gemms)
    fuse(rewriter, gemm);
  SmallVector<QuantizeOp> given;
  getOperation()->walk([&](QuantizeOp op) { given.push_back(op); });
  for (QuantizeOp quantize : given)
    fuseCodes(rewriter, quantize);
  SmallVector<DynamicQuantizeOp> quantizations;
  getOperation()->walk(
      [&](DynamicQuantizeOp op) { quantizations.push_back(op); });
  for (DynamicQuantizeOp quantize : quantizations) {
    if (int64_t width = getRowBlockWidth(quantize))
      fuseBlockCodes(rewriter, quantize, width);
    else
      fuseAmax(rewriter, quantize);
  }
}

void FP8FuseEpiloguePass::fuseBlockCodes(IRRewriter &rewriter,
                                         DynamicQuantizeOp quantize,
                                         int64_t width) {
  auto gemm = quantize.getInput().getDefiningOp<ScaledMatmulOp>();
  if (!gemm)
    return;
  if (std::string reason = whyNoBlockCodes(quantize, gemm, width);
      !reason.empty()) {
    remark::missed(quantize.getLoc(),
                   getFP8GPURemarkOpts(quantize, "block-codes-not-in-epilogue"))
        << remark::add("{0} reads the result of {1}: {2}",
                       describeForRemarks(quantize), describeForRemarks(gemm),
                       reason);
    return;
  }
  rewriter.setInsertionPoint(gemm);
  ScaledMatmulOp codes =
      recreateWithEpilogue(rewriter, gemm, quantize.getData().getType(),
                           /*amaxType=*/Type(), {Value(), quantize});
  remark::passed(quantize.getLoc(),
                 getFP8GPURemarkOpts(quantize, "block-codes-in-epilogue"))
      << remark::add("{0} fused into the epilogue of {1}: the GEMM writes the "
                     "codes and the scales of blocks of {2}",
                     describeForRemarks(quantize), describeForRemarks(codes),
                     width);
  rewriter.replaceOp(quantize, {codes.getResult(), codes.getResultScale()});
  rewriter.eraseOp(gemm);
}

} // namespace
