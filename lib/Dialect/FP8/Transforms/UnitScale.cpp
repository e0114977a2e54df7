//===- UnitScale.cpp - Unit Scaling of linalg graphs ----------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Static factors of Unit Scaling (docs/numerics.md section 8): each scaled op
// gets a multiply by a compile-time (or, for dynamic extents, run-time)
// factor after it, or, for weighted residual adds, on its operands.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8UNITSCALE
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr StringLiteral kCategory = "fp8-unit-scale";

/// The paper's empirical constants: the standard deviation of GELU and of its
/// gradient, and of softmax and its gradient times the softmax extent, on
/// unit-variance inputs.
constexpr double kGeluStd = 0.588;
constexpr double kGeluGradStd = 0.675;
constexpr double kSoftmaxStd = 1.31;
constexpr double kSoftmaxGradStd = 1.65;

/// What an op is, for unit scaling.
enum class UnitOp {
  None,
  Contraction,
  Gelu,
  GeluGrad,
  Softmax,
  SoftmaxGrad,
  CrossEntropyGrad,
  Residual,
  Explicit,
};

/// What an op declared by `fp8.unit_op` is.
UnitOp getUnitOp(UnitOpKind kind) {
  switch (kind) {
  case UnitOpKind::Gelu:
    return UnitOp::Gelu;
  case UnitOpKind::GeluGrad:
    return UnitOp::GeluGrad;
  case UnitOpKind::Softmax:
    return UnitOp::Softmax;
  case UnitOpKind::SoftmaxGrad:
    return UnitOp::SoftmaxGrad;
  case UnitOpKind::CrossEntropyGrad:
    return UnitOp::CrossEntropyGrad;
  case UnitOpKind::Residual:
    return UnitOp::Residual;
  case UnitOpKind::None:
  // LayerNorm's backward ops are marked for saved activations; their scale
  // follows from the ops they are made of, which this pass leaves alone.
  case UnitOpKind::LayerNormGrad:
    return UnitOp::None;
  }
  llvm_unreachable("unknown fp8.unit_op kind");
}

/// Marks `op` as rewritten, so that a second run leaves it alone.
void markScaled(Operation *op) {
  MLIRContext *ctx = op->getContext();
  ctx->getLoadedDialect<FP8Dialect>()->getUnitScaledAttrHelper().setAttr(
      op, UnitAttr::get(ctx));
}

/// How a factor depends on an extent n (a product of loop extents).
enum class FactorForm {
  /// c (no extent).
  Constant,
  /// c * n^-1/2.
  InvSqrt,
  /// c * n.
  Linear,
  /// n / sqrt(n - 1).
  CrossEntropy,
};

/// `value` with six significant digits.
std::string formatFactor(double value) {
  return llvm::formatv("{0}", llvm::format("%.6g", value)).str();
}

/// A factor c * g(n), with n the product of `extents` (the static ones
/// folded in `staticExtent`).
struct Factor {
  FactorForm form = FactorForm::Constant;
  double c = 1.0;
  int64_t staticExtent = 1;
  SmallVector<Value> dynamicExtents;

  std::optional<double> value() const {
    if (!dynamicExtents.empty())
      return std::nullopt;
    double n = static_cast<double>(staticExtent);
    switch (form) {
    case FactorForm::Constant:
      return c;
    case FactorForm::InvSqrt:
      return c / std::sqrt(n);
    case FactorForm::Linear:
      return c * n;
    case FactorForm::CrossEntropy:
      return n / std::sqrt(n - 1.0);
    }
    llvm_unreachable("unknown factor form");
  }

  /// How the remark describes it.
  std::string describe() const {
    if (std::optional<double> v = value())
      return formatFactor(*v);
    switch (form) {
    case FactorForm::Constant:
      return formatFactor(c);
    case FactorForm::InvSqrt:
      return formatFactor(c) + " / sqrt(n), n computed at run time";
    case FactorForm::Linear:
      return formatFactor(c) + " * n, n computed at run time";
    case FactorForm::CrossEntropy:
      return "n / sqrt(n - 1), n computed at run time";
    }
    llvm_unreachable("unknown factor form");
  }

  /// Multiplies in the extent of dimension `dim` of `tensor`.
  void addExtent(OpBuilder &b, Location loc, Value tensor, unsigned dim) {
    int64_t size = cast<ShapedType>(tensor.getType()).getDimSize(dim);
    if (!ShapedType::isDynamic(size)) {
      staticExtent *= size;
      return;
    }
    dynamicExtents.push_back(tensor::DimOp::create(b, loc, tensor, dim));
  }

  /// The factor as an f32 scalar.
  Value build(OpBuilder &b, Location loc) const {
    Type f32 = b.getF32Type();
    auto constant = [&](double v) -> Value {
      return arith::ConstantOp::create(
          b, loc, b.getF32FloatAttr(static_cast<float>(v)));
    };
    if (std::optional<double> v = value())
      return constant(*v);
    Value n = dynamicExtents.front();
    for (Value extent : ArrayRef(dynamicExtents).drop_front())
      n = arith::MulIOp::create(b, loc, n, extent);
    if (staticExtent != 1)
      n = arith::MulIOp::create(
          b, loc, n, arith::ConstantIndexOp::create(b, loc, staticExtent));
    n = arith::UIToFPOp::create(
        b, loc, f32, arith::IndexCastUIOp::create(b, loc, b.getI64Type(), n));
    switch (form) {
    case FactorForm::Constant:
      return constant(c);
    case FactorForm::InvSqrt: {
      Value rsqrt = math::RsqrtOp::create(b, loc, n);
      return c == 1.0 ? rsqrt
                      : arith::MulFOp::create(b, loc, constant(c), rsqrt);
    }
    case FactorForm::Linear:
      return c == 1.0 ? n : arith::MulFOp::create(b, loc, constant(c), n);
    case FactorForm::CrossEntropy: {
      Value nMinusOne = arith::SubFOp::create(b, loc, n, constant(1.0));
      return arith::MulFOp::create(b, loc, n,
                                   math::RsqrtOp::create(b, loc, nMinusOne));
    }
    }
    llvm_unreachable("unknown factor form");
  }
};

/// `value` * `factor` (an f32 scalar), elementwise, in f32 for narrower
/// element types.
Value scaleTensor(OpBuilder &b, Location loc, Value value, Value factor) {
  auto type = cast<RankedTensorType>(value.getType());
  Value init =
      tensor::EmptyOp::create(b, loc, type, getDynamicSizes(b, loc, value));
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  auto generic = linalg::GenericOp::create(
      b, loc, type, value, init, ArrayRef<AffineMap>{identity, identity},
      SmallVector<utils::IteratorType>(type.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value x = args[0];
        Type element = x.getType();
        if (!element.isF32())
          x = arith::ExtFOp::create(nb, nloc, nb.getF32Type(), x);
        Value y = arith::MulFOp::create(nb, nloc, x, factor);
        if (!element.isF32())
          y = arith::TruncFOp::create(nb, nloc, element, y);
        linalg::YieldOp::create(nb, nloc, y);
      });
  markScaled(generic);
  return generic.getResult(0);
}

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

bool hasOneFloatTensorResult(Operation *op) {
  return op->getNumResults() == 1 && isFloatTensor(op->getResult(0).getType());
}

/// An elementwise linalg op on tensors: parallel loops, identity maps.
bool isElementwise(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op->getNumResults() == 1 &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

/// GELU as frameworks lower it: `x * f(x)` with an erf (exact) or tanh
/// (approximate) inside f.
bool isGelu(linalg::LinalgOp op) {
  if (!isElementwise(op) || op.getNumDpsInputs() != 1 ||
      !isFloatTensor(op->getResult(0).getType()))
    return false;
  Block *body = op.getBlock();
  bool hasErfOrTanh = llvm::any_of(body->getOperations(), [](Operation &inner) {
    return isa<math::ErfOp, math::TanhOp>(inner);
  });
  Value x = body->getArgument(0);
  bool multipliesInput = llvm::any_of(
      x.getUsers(), [](Operation *user) { return isa<arith::MulFOp>(user); });
  return hasErfOrTanh && multipliesInput;
}

/// A value made by broadcasting a smaller one (a bias, say).
bool isBroadcast(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (isa<linalg::BroadcastOp>(def))
    return true;
  if (auto generic = dyn_cast<linalg::GenericOp>(def))
    return llvm::any_of(generic.getDpsInputOperands(), [&](OpOperand *input) {
      return !generic.getMatchingIndexingMap(input).isPermutation() &&
             isa<ShapedType>(input->get().getType());
    });
  return false;
}

/// The two summands of a residual add: `linalg.add`, `arith.addf` on
/// tensors, or an elementwise generic adding its two inputs, all of full
/// shape and neither a broadcast.
std::optional<std::pair<OpOperand *, OpOperand *>>
matchResidualAdd(Operation *op) {
  std::pair<OpOperand *, OpOperand *> summands;
  if (auto add = dyn_cast<arith::AddFOp>(op)) {
    if (!isFloatTensor(add.getType()))
      return std::nullopt;
    summands = {&op->getOpOperand(0), &op->getOpOperand(1)};
  } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!isElementwise(linalgOp) || linalgOp.getNumDpsInputs() != 2 ||
        !isFloatTensor(op->getResult(0).getType()))
      return std::nullopt;
    if (!isa<linalg::AddOp>(op)) {
      Block *body = linalgOp.getBlock();
      if (body->getOperations().size() != 2)
        return std::nullopt;
      auto add = dyn_cast<arith::AddFOp>(body->front());
      if (!add || body->getTerminator()->getOperand(0) != add.getResult() ||
          !llvm::is_contained({add.getLhs(), add.getRhs()},
                              body->getArgument(0)) ||
          !llvm::is_contained({add.getLhs(), add.getRhs()},
                              body->getArgument(1)))
        return std::nullopt;
    }
    summands = {linalgOp.getDpsInputOperand(0), linalgOp.getDpsInputOperand(1)};
  } else {
    return std::nullopt;
  }
  if (summands.first->get().getType() != op->getResult(0).getType() ||
      summands.second->get().getType() != op->getResult(0).getType() ||
      isBroadcast(summands.first->get()) || isBroadcast(summands.second->get()))
    return std::nullopt;
  return summands;
}

bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         op->getNumResults() == 1 && linalgOp.getNumDpsInits() == 1 &&
         linalgOp.getNumReductionLoops() >= 1 &&
         isFloatTensor(op->getResult(0).getType()) &&
         linalg::isaContractionOpInterface(linalgOp);
}

struct FP8UnitScalePass : fp8::impl::FP8UnitScaleBase<FP8UnitScalePass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Classifies `op`; fails (after an error) on malformed attributes.
  FailureOr<UnitOp> classify(Operation *op);
  LogicalResult scale(Operation *op, UnitOp kind);
  /// Scales the result of `op` by `factor`, with ops built at `b` (after
  /// `op`).
  void scaleResult(OpBuilder &b, Operation *op, const Factor &factor,
                   StringRef what);
  void remark(Operation *op, std::string message, bool passed = true);

  /// Declares the discardable attributes the pass reads and writes.
  FP8Dialect *dialect = nullptr;
};

FailureOr<UnitOp> FP8UnitScalePass::classify(Operation *op) {
  // The dialect verifier has checked the kind and value of each attribute;
  // what remains is whether it fits the op.
  if (dialect->getUnitScaledAttrHelper().isAttrPresent(op))
    return UnitOp::None;
  FP8Dialect::UnitScaleAttrHelper unitScaleAttr =
      dialect->getUnitScaleAttrHelper();
  if (unitScaleAttr.isAttrPresent(op)) {
    if (!hasOneFloatTensorResult(op))
      return op->emitError() << "'" << unitScaleAttr.getNameStr()
                             << "' needs an op with one float tensor result";
    return UnitOp::Explicit;
  }
  FP8Dialect::UnitOpAttrHelper unitOpAttr = dialect->getUnitOpAttrHelper();
  if (StringAttr keyword = unitOpAttr.getAttr(op)) {
    UnitOp kind = getUnitOp(*symbolizeUnitOpKind(keyword.getValue()));
    if (kind != UnitOp::None && kind != UnitOp::Residual &&
        !hasOneFloatTensorResult(op))
      return op->emitError()
             << "'" << unitOpAttr.getNameStr() << " = \"" << keyword.getValue()
             << "\"' needs an op with one float tensor result";
    if (kind == UnitOp::Residual && !matchResidualAdd(op))
      return op->emitError()
             << "'" << unitOpAttr.getNameStr()
             << " = \"residual\"' needs an add of two full-shape tensors";
    return kind;
  }
  if (isa<linalg::SoftmaxOp>(op))
    return UnitOp::Softmax;
  if (isContraction(op))
    return UnitOp::Contraction;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      linalgOp && isGelu(linalgOp))
    return UnitOp::Gelu;
  if (matchResidualAdd(op))
    return UnitOp::Residual;
  return UnitOp::None;
}

void FP8UnitScalePass::remark(Operation *op, std::string message, bool passed) {
  std::string function;
  if (auto f = op->getParentOfType<FunctionOpInterface>())
    function = f.getName().str();
  auto opts = remark::RemarkOpts::name(passed ? "scaled" : "skipped")
                  .category(kCategory)
                  .function(function);
  if (passed)
    remark::passed(op->getLoc(), opts) << remark::add("{0}", message);
  else
    remark::missed(op->getLoc(), opts) << remark::add("{0}", message);
}

void FP8UnitScalePass::scaleResult(OpBuilder &b, Operation *op,
                                   const Factor &factor, StringRef what) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  // The users from before, except the factor's own size queries: the factor
  // and the scaling read the result's sizes.
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : result.getUses())
    if (!llvm::any_of(factor.dynamicExtents, [&](Value extent) {
          return extent.getDefiningOp() == use.getOwner();
        }))
      uses.push_back(&use);
  Value scaled = scaleTensor(b, loc, result, factor.build(b, loc));
  for (OpOperand *use : uses)
    use->set(scaled);
  markScaled(op);
  remark(op,
         llvm::formatv("{0} ({1}): result scaled by {2}",
                       op->getName().getStringRef(), what, factor.describe())
             .str());
}

LogicalResult FP8UnitScalePass::scale(Operation *op, UnitOp kind) {
  // Extents are read before `op` where they come from its operands, and after
  // it where they come from its result; the scaling comes after both.
  OpBuilder b(op);
  Location loc = op->getLoc();
  Factor factor;
  auto lastDim = [&](Value tensor) {
    return cast<RankedTensorType>(tensor.getType()).getRank() - 1;
  };
  switch (kind) {
  case UnitOp::None:
    return success();
  case UnitOp::Explicit:
    factor.c = dialect->getUnitScaleAttrHelper().getAttr(op).getValueAsDouble();
    b.setInsertionPointAfter(op);
    scaleResult(b, op, factor, "explicit fp8.unit_scale");
    return success();
  case UnitOp::Contraction: {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    // The product of the reduction extents, each read off an operand.
    SmallVector<unsigned> reductions;
    linalgOp.getReductionDims(reductions);
    for (unsigned loop : reductions) {
      bool found = false;
      for (OpOperand *input : linalgOp.getDpsInputOperands()) {
        AffineMap map = linalgOp.getMatchingIndexingMap(input);
        for (auto [pos, expr] : llvm::enumerate(map.getResults()))
          if (auto dim = dyn_cast<AffineDimExpr>(expr);
              dim && dim.getPosition() == loop) {
            factor.addExtent(b, loc, input->get(), pos);
            found = true;
            break;
          }
        if (found)
          break;
      }
      if (!found)
        return op->emitError()
               << "fp8-unit-scale: cannot find the extent of reduction loop "
               << loop << " on an input";
    }
    factor.form = FactorForm::InvSqrt;
    OpOperand *init = linalgOp.getDpsInitOperand(0);
    if (isZeroInit(init->get())) {
      b.setInsertionPointAfter(op);
      scaleResult(b, op, factor, "contraction");
      return success();
    }
    // C = init + A x B: scale the product alone, then add the init.
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Value zeros = createZeros(b, loc, type, init->get());
    Operation *product = b.clone(*op);
    product->setOperand(init->getOperandNumber(), zeros);
    b.setInsertionPointAfter(product);
    Value scaled =
        scaleTensor(b, loc, product->getResult(0), factor.build(b, loc));
    Value sum = addInF32(b, loc, scaled, init->get(), type);
    // Not a residual add for a later run.
    markScaled(sum.getDefiningOp());
    markScaled(product);
    remark(product,
           llvm::formatv("{0} (contraction): product scaled by {1}, then "
                         "added to the init",
                         op->getName().getStringRef(), factor.describe())
               .str());
    op->getResult(0).replaceAllUsesWith(sum);
    op->erase();
    return success();
  }
  case UnitOp::Gelu:
    factor.c = 1.0 / kGeluStd;
    b.setInsertionPointAfter(op);
    scaleResult(b, op, factor, "gelu");
    return success();
  case UnitOp::GeluGrad:
    factor.c = 1.0 / kGeluGradStd;
    b.setInsertionPointAfter(op);
    scaleResult(b, op, factor, "gelu gradient");
    return success();
  case UnitOp::Softmax:
  case UnitOp::SoftmaxGrad: {
    Value result = op->getResult(0);
    int64_t dim = lastDim(result);
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op))
      dim = softmax.getDimension();
    FP8Dialect::UnitDimAttrHelper unitDimAttr = dialect->getUnitDimAttrHelper();
    if (IntegerAttr attr = unitDimAttr.getAttr(op))
      dim = attr.getInt();
    if (dim < 0 || dim > lastDim(result))
      return op->emitError()
             << "'" << unitDimAttr.getNameStr() << "' " << dim
             << " is out of range for a result of rank " << lastDim(result) + 1;
    factor.form = FactorForm::Linear;
    factor.c = 1.0 / (kind == UnitOp::Softmax ? kSoftmaxStd : kSoftmaxGradStd);
    b.setInsertionPointAfter(op);
    factor.addExtent(b, loc, result, dim);
    scaleResult(b, op, factor,
                kind == UnitOp::Softmax ? "softmax" : "softmax gradient");
    return success();
  }
  case UnitOp::CrossEntropyGrad: {
    Value result = op->getResult(0);
    factor.form = FactorForm::CrossEntropy;
    b.setInsertionPointAfter(op);
    factor.addExtent(b, loc, result, lastDim(result));
    scaleResult(b, op, factor, "cross-entropy gradient");
    return success();
  }
  case UnitOp::Residual: {
    // Positive and finite: the option is checked before the walk, the
    // attribute by the dialect verifier.
    double tau = residualTau;
    if (FloatAttr attr = dialect->getResidualTauAttrHelper().getAttr(op))
      tau = attr.getValueAsDouble();
    double norm = 1.0 / std::sqrt(1.0 + tau * tau);
    if (tau == 1.0) {
      factor.c = norm;
      b.setInsertionPointAfter(op);
      scaleResult(b, op, factor, "residual add");
      return success();
    }
    // skip * 1/sqrt(1+tau^2) + branch * tau/sqrt(1+tau^2).
    auto [skip, branch] = *matchResidualAdd(op);
    for (auto [operand, c] : {std::pair{skip, norm}, {branch, tau * norm}}) {
      Factor operandFactor;
      operandFactor.c = c;
      operand->set(
          scaleTensor(b, loc, operand->get(), operandFactor.build(b, loc)));
    }
    markScaled(op);
    remark(op, llvm::formatv("{0} (residual add, tau {1}): skip scaled by "
                             "{2}, branch (operand 1) by {3}",
                             op->getName().getStringRef(), formatFactor(tau),
                             formatFactor(norm), formatFactor(tau * norm))
                   .str());
    return success();
  }
  }
  llvm_unreachable("unknown unit op");
}

void FP8UnitScalePass::runOnOperation() {
  if (!(residualTau > 0.0) || !std::isfinite(residualTau)) {
    emitError(getOperation()->getLoc())
        << "fp8-unit-scale: residual-tau must be positive and finite, got "
        << residualTau;
    return signalPassFailure();
  }
  dialect = getContext().getLoadedDialect<FP8Dialect>();
  // Classify first: the rewrites add ops that must not be visited.
  SmallVector<std::pair<Operation *, UnitOp>> work;
  bool failed = false;
  getOperation()->walk([&](Operation *op) {
    if (op == getOperation())
      return;
    FailureOr<UnitOp> kind = classify(op);
    if (mlir::failed(kind)) {
      failed = true;
      return;
    }
    if (*kind != UnitOp::None)
      work.push_back({op, *kind});
  });
  if (failed)
    return signalPassFailure();
  for (auto [op, kind] : work)
    if (mlir::failed(scale(op, kind)))
      return signalPassFailure();
}

} // namespace
