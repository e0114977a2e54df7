//===- SavedActivations.cpp - FP8 storage of saved activations ------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// COAT keeps the activations that the backward pass reads in FP8: per tensor
// for linear layers (fp8-autocast's GEMM operands already are) and per group
// for non-linear layers. This file does the second half: a gradient
// nonlinearity's forward inputs (GELU's input, softmax's output, LayerNorm's
// centered input and normalized output) are
// quantized by groups along their last dimension and decoded where the
// backward graph reads them, so that the stored copy is FP8.
//
//===----------------------------------------------------------------------===//

#include "SavedActivations.h"

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Remarks.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

/// Whether `value` is a broadcast of a smaller tensor, which a framework
/// keeps rather than the broadcast (LayerNorm's per-row statistics, its
/// gain).
static bool isBroadcast(Value value) {
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<linalg::BroadcastOp>(op))
    return true;
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && linalg::isaBroadcastOpInterface(generic).has_value();
}

int64_t mlir::fp8::quantizeSavedActivations(FunctionOpInterface function,
                                            int64_t group, Format format) {
  MLIRContext *ctx = function.getContext();
  auto *dialect = ctx->getLoadedDialect<FP8Dialect>();
  FP8Dialect::RoleAttrHelper role = dialect->getRoleAttrHelper();
  FP8Dialect::UnitOpAttrHelper unitOp = dialect->getUnitOpAttrHelper();
  FP8Dialect::GradOperandAttrHelper gradOperand =
      dialect->getGradOperandAttrHelper();

  // Gradients: what the gradient ops compute, and what follows from it and
  // from the contractions' gradient operands.
  SmallVector<Operation *> nonlinearities, roots;
  SmallVector<Value> seeds;
  function.walk([&](Operation *op) {
    bool isGradUnit = unitOp.isAttrPresent(op) &&
                      unitOp.getAttr(op).getValue().ends_with("_grad");
    if (isGradUnit)
      nonlinearities.push_back(op);
    if (!role.isAttrPresent(op) && !isGradUnit)
      return;
    roots.push_back(op);
    if (IntegerAttr index = gradOperand.getAttr(op);
        index && index.getInt() < op->getNumOperands())
      seeds.push_back(op->getOperand(index.getInt()));
  });
  // Each root's slice on its own: getForwardSlice stops at operations the
  // set holds already.
  DenseSet<Value> gradients(seeds.begin(), seeds.end());
  ForwardSliceOptions inclusive;
  inclusive.inclusive = true;
  auto addSlice = [&](SetVector<Operation *> &slice) {
    for (Operation *op : slice)
      gradients.insert(op->getResults().begin(), op->getResults().end());
  };
  for (Operation *root : roots) {
    SetVector<Operation *> slice;
    getForwardSlice(root, &slice, inclusive);
    addSlice(slice);
  }
  for (Value seed : seeds) {
    SetVector<Operation *> slice;
    getForwardSlice(seed, &slice);
    addSlice(slice);
  }

  int64_t saved = 0;
  DenseMap<Value, Value> decoded;
  GranularityAttr granularity = GranularityAttr::get(ctx, {group});
  Type narrow = getFormatType(ctx, format);
  for (Operation *op : nonlinearities) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || type.getRank() == 0 || !type.hasStaticShape() ||
          !isWideFloat(type.getElementType()) || gradients.contains(value) ||
          matchPattern(value, m_Constant()))
        continue;
      // An op's result that is also one of its inits (outs) is not read.
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
          linalgOp && linalgOp.isDpsInit(&operand))
        continue;
      if (isBroadcast(value))
        continue;
      auto [it, inserted] = decoded.try_emplace(value);
      if (inserted) {
        OpBuilder b(ctx);
        b.setInsertionPointAfterValue(value);
        Location loc = value.getLoc();
        Type f32 = b.getF32Type();
        auto scaleType = RankedTensorType::get(
            granularity.getScaleShape(type.getShape()), f32);
        Value amax = AmaxOp::create(b, loc, scaleType, value, granularity,
                                    NanPolicy::Ignore);
        auto rule = ScaleRuleAttr::get(ctx, ScaleRuleKind::Pow2, /*margin=*/0,
                                       llvm::APFloat(0.0f));
        auto scale = ComputeScaleOp::create(b, loc, scaleType, scaleType, amax,
                                            Value(), rule, format);
        Value codes = QuantizeOp::create(b, loc, type.clone(narrow), value,
                                         scale.getScale(), granularity);
        it->second = DequantizeOp::create(
            b, loc, type, codes, scale.getScaleInv(), Value(), granularity);
        int64_t before = getTensorBytes(
            type.getShape(), type.getElementType().getIntOrFloatBitWidth());
        int64_t after =
            getTensorBytes(type.getShape(), narrow.getIntOrFloatBitWidth()) +
            getTensorBytes(scaleType.getShape(), 32);
        saved += before - after;
        std::string what =
            value.getDefiningOp()
                ? describeForRemarks(value.getDefiningOp())
                : llvm::formatv("argument {0}",
                                cast<BlockArgument>(value).getArgNumber())
                      .str();
        remark::passed(loc, remark::RemarkOpts::name("saved-activation")
                                .category("fp8-autocast")
                                .function(function.getName()))
            << remark::add("{0} read by {1} is saved in {2} by groups of {3}: "
                           "{4} bytes instead of {5}",
                           what, describeForRemarks(op),
                           stringifyFormat(format).str(), group, after, before);
      }
      operand.set(it->second);
    }
  }
  return saved;
}
