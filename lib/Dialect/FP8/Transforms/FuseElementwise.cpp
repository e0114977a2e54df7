//===- FuseElementwise.cpp - Chains of elementwise ops as one generic -----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A chain of elementwise linalg ops (bias add, activation, cast, scaling,
// residual add) becomes one linalg.generic, so that the GPU pipeline builds
// one kernel for it. The fusion itself is upstream's
// (linalg::fuseElementwiseOps); this pass decides which edges fuse, turns
// the named ops of those edges into generics and reports every decision.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8FUSEELEMENTWISE
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// Whether the body of `op` yields one of its inputs unchanged (a broadcast
/// or a copy), so that recomputing it in every consumer is an indexed read.
bool isPureCopy(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || !llvm::hasSingleElement(*body))
    return false;
  return llvm::all_of(body->getTerminator()->getOperands(), [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == body &&
           arg.getArgNumber() < op.getNumDpsInputs();
  });
}

/// Whether the producer of `operand` fuses into its owner, an elementwise
/// op. Otherwise `reason` says why not, or is empty where there is nothing
/// to report (no linalg producer, or a fill that the consumer reads as it
/// is).
bool fusesInto(OpOperand &operand, std::string &reason) {
  reason.clear();
  Operation *consumer = operand.getOwner();
  Operation *producer = operand.get().getDefiningOp();
  if (!isa_and_nonnull<linalg::LinalgOp>(producer) ||
      isa<linalg::FillOp>(producer))
    return false;
  if (!isFusableElementwise(producer, reason)) {
    reason = "the producer " + reason;
    return false;
  }
  if (!cast<linalg::LinalgOp>(consumer).isDpsInput(&operand)) {
    reason = "the consumer reads it as its initial value";
    return false;
  }
  if (isPureCopy(cast<linalg::LinalgOp>(producer)))
    return true;
  for (Value result : producer->getResults())
    for (Operation *user : result.getUsers())
      if (user != consumer) {
        reason =
            ("its result is also read by '" + user->getName().getStringRef() +
             "' (fusing would write the intermediate anyway)")
                .str();
        return false;
      }
  return true;
}

/// A concatenation: tensor.insert_slice ops into a tensor.empty, each piece
/// whole but along `dim`, together covering it once (torch.cat, rotary
/// embedding's rotate_half); or into a linalg.fill of a constant, the
/// pieces disjoint and the elements between them the constant (a slice's
/// gradient, placed in zeros).
struct Concat {
  int64_t dim = -1;
  /// (offset along dim, piece), by offset.
  SmallVector<std::pair<int64_t, Value>> pieces;
  /// The fill's constant, or null.
  Value fill;
};

/// Pieces a concatenation read piecewise may have: each element reads them
/// all.
constexpr size_t kMaxPieces = 4;

std::optional<Concat> matchConcat(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  Concat concat;
  Value current = value;
  while (auto insert = current.getDefiningOp<tensor::InsertSliceOp>()) {
    // Every insertion but the last is read by the next alone.
    if (current != value && !current.hasOneUse())
      return std::nullopt;
    if (!insert.hasUnitStride() ||
        insert.getSourceType().getRank() != insert.getDestType().getRank())
      return std::nullopt;
    ArrayRef<int64_t> offsets = insert.getStaticOffsets();
    ArrayRef<int64_t> sizes = insert.getStaticSizes();
    if (llvm::any_of(offsets, ShapedType::isDynamic) ||
        llvm::any_of(sizes, ShapedType::isDynamic))
      return std::nullopt;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (offsets[d] == 0 && sizes[d] == type.getDimSize(d))
        continue;
      if (concat.dim != -1 && concat.dim != d)
        return std::nullopt;
      concat.dim = d;
    }
    // (A piece without elements would be read at index -1.)
    if (concat.dim == -1 || sizes[concat.dim] == 0)
      return std::nullopt;
    concat.pieces.push_back({offsets[concat.dim], insert.getSource()});
    current = insert.getDest();
  }
  if (auto fill = current.getDefiningOp<linalg::FillOp>()) {
    Value scalar = fill.getInputs().front();
    if (!fill.getOutputs().front().getDefiningOp<tensor::EmptyOp>() ||
        !matchPattern(scalar, m_Constant()))
      return std::nullopt;
    concat.fill = scalar;
  } else if (!current.getDefiningOp<tensor::EmptyOp>()) {
    return std::nullopt;
  }
  if (concat.pieces.empty() || concat.pieces.size() > kMaxPieces ||
      (!concat.fill && concat.pieces.size() < 2))
    return std::nullopt;
  // Pieces in order, each starting where the one before ends (or after it,
  // in a fill).
  llvm::sort(concat.pieces, [](auto &a, auto &b) { return a.first < b.first; });
  int64_t next = 0;
  for (auto &[offset, piece] : concat.pieces) {
    if (offset < next || (!concat.fill && offset != next))
      return std::nullopt;
    next =
        offset + cast<RankedTensorType>(piece.getType()).getDimSize(concat.dim);
  }
  if (!concat.fill && next != type.getDimSize(concat.dim))
    return std::nullopt;
  return concat;
}

/// `op` reading the concatenation `operand` piece by piece: the operand
/// goes, and its block argument becomes, at each element, the element of
/// the piece that holds it, read by tensor.extract. Every piece is read at
/// its index clamped into it and the one that holds the element selected,
/// so that no read leaves a piece and no branch is taken.
linalg::GenericOp readPiecewise(IRRewriter &rewriter, linalg::GenericOp op,
                                OpOperand &operand, const Concat &concat) {
  Location loc = op.getLoc();
  AffineMap map = op.getMatchingIndexingMap(&operand);
  unsigned argNumber = op.getMatchingBlockArgument(&operand).getArgNumber();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input != &operand) {
      inputs.push_back(input->get());
      maps.push_back(op.getMatchingIndexingMap(input));
    }
  for (OpOperand &init : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&init));
  rewriter.setInsertionPoint(op);
  auto generic = linalg::GenericOp::create(rewriter, loc, op.getResultTypes(),
                                           inputs, op.getDpsInits(), maps,
                                           op.getIteratorTypesArray());
  generic->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                              generic.getRegion().end());
  Block &body = generic.getRegion().front();
  rewriter.setInsertionPointToStart(&body);
  SmallVector<Value> indices =
      llvm::map_to_vector(map.getResults(), [&](AffineExpr expr) -> Value {
        return linalg::IndexOp::create(rewriter, loc,
                                       cast<AffineDimExpr>(expr).getPosition());
      });
  Value along = indices[concat.dim];
  int64_t extent =
      cast<RankedTensorType>(operand.get().getType()).getDimSize(concat.dim);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  SmallVector<Value> values;
  for (auto &[offset, piece] : concat.pieces) {
    int64_t size =
        cast<RankedTensorType>(piece.getType()).getDimSize(concat.dim);
    // (Below the first piece and past the last there is nothing to clamp.)
    Value local = along;
    if (offset != 0) {
      local = arith::SubIOp::create(rewriter, loc, local, constant(offset));
      local = arith::MaxSIOp::create(rewriter, loc, local, constant(0));
    }
    if (offset + size != extent)
      local = arith::MinSIOp::create(rewriter, loc, local, constant(size - 1));
    SmallVector<Value> at(indices);
    at[concat.dim] = local;
    values.push_back(tensor::ExtractOp::create(rewriter, loc, piece, at));
  }
  // From the first piece (or the fill's constant) on, each piece replaces
  // what comes before it from its offset on, and up to its end where a gap
  // of the fill follows it.
  Value value = concat.fill ? concat.fill : values.front();
  for (auto [k, entry] : llvm::enumerate(concat.pieces)) {
    auto [offset, piece] = entry;
    if (k == 0 && !concat.fill)
      continue;
    int64_t end =
        offset + cast<RankedTensorType>(piece.getType()).getDimSize(concat.dim);
    int64_t next =
        k + 1 < concat.pieces.size() ? concat.pieces[k + 1].first : extent;
    Value inside;
    auto both = [&](arith::CmpIPredicate predicate, int64_t bound) {
      Value cond = arith::CmpIOp::create(rewriter, loc, predicate, along,
                                         constant(bound));
      inside =
          inside
              ? arith::AndIOp::create(rewriter, loc, inside, cond).getResult()
              : cond;
    };
    if (offset != 0)
      both(arith::CmpIPredicate::sge, offset);
    if (end != next)
      both(arith::CmpIPredicate::slt, end);
    value = inside ? arith::SelectOp::create(rewriter, loc, inside, values[k],
                                             value)
                         .getResult()
                   : values[k];
  }
  rewriter.replaceAllUsesWith(body.getArgument(argNumber), value);
  body.eraseArgument(argNumber);
  rewriter.replaceOp(op, generic.getResults());
  return generic;
}

/// Ops of arithmetic a body recomputed at each element of a concatenation
/// read piecewise may have: it runs at every element, in every piece.
constexpr int64_t kMaxRecomputedOps = 8;

/// Whether `op` is an elementwise linalg op whose result element is a
/// function of its inputs' elements that a tensor.extract of the result can
/// compute in its place: parallel loops, projected-permutation input maps,
/// permutation result maps, and a short body of arith ops (and
/// linalg.index; no math function) that reads no initial value and
/// captures only constants.
bool isRecomputable(linalg::LinalgOp op) {
  std::string reason;
  if (!isFusableElementwise(op, reason, /*indices=*/true))
    return false;
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegion(0), captured);
  if (!llvm::all_of(captured,
                    [](Value v) { return matchPattern(v, m_Constant()); }))
    return false;
  int64_t arithmetic = 0;
  for (Operation &inner : op->getRegion(0).front().without_terminator()) {
    if (isa<linalg::IndexOp>(inner))
      continue;
    if (!isa<arith::ArithDialect>(inner.getDialect()) ||
        inner.getNumRegions() != 0 || ++arithmetic > kMaxRecomputedOps)
      return false;
  }
  return true;
}

/// A tensor.extract, in the body of a linalg op, of a static slice of unit
/// strides: the element of the sliced tensor at the offset indices.
struct ExtractOfSlice : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto slice = op.getTensor().getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !op->getParentOfType<linalg::LinalgOp>() ||
        !slice.hasUnitStride() ||
        llvm::any_of(slice.getStaticOffsets(), ShapedType::isDynamic))
      return failure();
    Location loc = op.getLoc();
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<Value> at;
    auto index = op.getIndices().begin();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    for (auto [d, offset] : llvm::enumerate(slice.getStaticOffsets())) {
      if (dropped[d]) {
        at.push_back(constant(offset));
        continue;
      }
      Value i = *index++;
      at.push_back(offset == 0 ? i
                               : arith::AddIOp::create(rewriter, loc, i,
                                                       constant(offset)));
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractOp>(op, slice.getSource(), at);
    return success();
  }
};

/// A tensor.extract, in the body of a linalg op, of the result of an
/// elementwise op (isRecomputable): that op's body on the elements of its
/// inputs at the extracted element's loop indices.
struct ExtractOfElementwise : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto result = dyn_cast<OpResult>(op.getTensor());
    auto producer =
        result ? dyn_cast<linalg::LinalgOp>(result.getOwner()) : nullptr;
    if (!producer || !op->getParentOfType<linalg::LinalgOp>() ||
        !isRecomputable(producer))
      return failure();
    Location loc = op.getLoc();
    // The loop indices of the element: result dimension r is loop
    // map(r).
    AffineMap resultMap = producer.getIndexingMapMatchingResult(result);
    SmallVector<Value> loops(producer.getNumLoops());
    for (auto [r, expr] : llvm::enumerate(resultMap.getResults()))
      loops[cast<AffineDimExpr>(expr).getPosition()] = op.getIndices()[r];
    Block &body = producer->getRegion(0).front();
    IRMapping mapping;
    for (OpOperand *input : producer.getDpsInputOperands()) {
      Value arg = producer.getMatchingBlockArgument(input);
      if (!isa<RankedTensorType>(input->get().getType())) {
        mapping.map(arg, input->get());
        continue;
      }
      SmallVector<Value> at = llvm::map_to_vector(
          producer.getMatchingIndexingMap(input).getResults(),
          [&](AffineExpr expr) {
            return loops[cast<AffineDimExpr>(expr).getPosition()];
          });
      mapping.map(arg,
                  tensor::ExtractOp::create(rewriter, loc, input->get(), at));
    }
    for (Operation &inner : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), loops[index.getDim()]);
        continue;
      }
      rewriter.clone(inner, mapping);
    }
    rewriter.replaceOp(
        op, mapping.lookupOrDefault(
                body.getTerminator()->getOperand(result.getResultNumber())));
    return success();
  }
};

struct FP8FuseElementwisePass
    : fp8::impl::FP8FuseElementwiseBase<FP8FuseElementwisePass> {
  void runOnOperation() override;

  /// Fuses one edge of the chain into `consumer`; returns the fused op, or
  /// null when none of its operands fuses.
  linalg::GenericOp fuseOne(IRRewriter &rewriter, linalg::GenericOp consumer);

  /// A generic equivalent of `op` in its place (the op itself when it is
  /// one).
  linalg::GenericOp generalize(IRRewriter &rewriter, linalg::LinalgOp op);

  void remarkMissed(OpOperand &operand, StringRef reason);

  /// Edges already reported as not fused: the producer's value and the
  /// consumer's location, which its fused successors keep.
  DenseSet<std::pair<Value, Location>> reported;
};

linalg::GenericOp FP8FuseElementwisePass::generalize(IRRewriter &rewriter,
                                                     linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, op);
  return succeeded(generic) ? *generic : linalg::GenericOp();
}

void FP8FuseElementwisePass::remarkMissed(OpOperand &operand,
                                          StringRef reason) {
  if (!reported.insert({operand.get(), operand.getOwner()->getLoc()}).second)
    return;
  remark::missed(
      operand.getOwner()->getLoc(),
      getFP8GPURemarkOpts(operand.getOwner(), "elementwise-not-fused"))
      << remark::add("{0} not fused into {1}: {2}",
                     describeForRemarks(operand.get().getDefiningOp()),
                     describeForRemarks(operand.getOwner()), reason.str());
}

linalg::GenericOp FP8FuseElementwisePass::fuseOne(IRRewriter &rewriter,
                                                  linalg::GenericOp consumer) {
  for (OpOperand *operand : consumer.getDpsInputOperands()) {
    std::string reason;
    if (!fusesInto(*operand, reason)) {
      if (!reason.empty())
        remarkMissed(*operand, reason);
      continue;
    }
    Operation *producer = operand->get().getDefiningOp();
    std::string producerName = describeForRemarks(producer);
    // A broadcast read elsewhere too is recomputed: this consumer gets a
    // copy of its own.
    if (!producer->getResult(0).hasOneUse()) {
      rewriter.setInsertionPoint(producer);
      Operation *copy = rewriter.clone(*producer);
      operand->set(copy->getResult(0));
      producer = copy;
    }
    linalg::GenericOp genericProducer =
        generalize(rewriter, cast<linalg::LinalgOp>(producer));
    if (!genericProducer || !linalg::areElementwiseOpsFusable(operand)) {
      remarkMissed(*operand, "linalg elementwise fusion does not apply");
      continue;
    }
    rewriter.setInsertionPoint(consumer);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, operand);
    if (failed(fused)) {
      remarkMissed(*operand, "linalg elementwise fusion failed");
      continue;
    }
    remark::passed(consumer->getLoc(),
                   getFP8GPURemarkOpts(consumer, "elementwise-fused"))
        << remark::add("{0} fused into {1}", producerName,
                       describeForRemarks(consumer));
    for (auto [original, replacement] : fused->replacements)
      rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
        return use.getOwner() != genericProducer;
      });
    rewriter.eraseOp(consumer);
    if (genericProducer->use_empty())
      rewriter.eraseOp(genericProducer);
    return cast<linalg::GenericOp>(fused->fusedOp);
  }
  return {};
}

void FP8FuseElementwisePass::runOnOperation() {
  IRRewriter rewriter(&getContext());
  reported.clear();
  Operation *root = getOperation();

  // A per-tensor dequantization that only an elementwise op reads is an
  // elementwise producer like any other: its generic form fuses.
  SmallVector<DequantizeOp> dequantizes;
  root->walk([&](DequantizeOp op) {
    std::string reason;
    if (isTensorDequantize(op) && op->hasOneUse() &&
        isFusableElementwise(*op->getUsers().begin(), reason))
      dequantizes.push_back(op);
  });
  for (DequantizeOp op : dequantizes) {
    rewriter.replaceOp(op, createTensorDequantizeGeneric(rewriter, op));
  }

  // Consumers in program order; each absorbs its producers one at a time
  // until none fuses, so a chain ends as one generic at its last op. A
  // consumer may read loop indices (a causal mask): its producers are
  // evaluated at its own position.
  SmallVector<linalg::LinalgOp> consumers;
  root->walk([&](linalg::LinalgOp op) {
    std::string reason;
    if (isFusableElementwise(op, reason, /*indices=*/true))
      consumers.push_back(op);
  });
  for (linalg::LinalgOp op : consumers) {
    // A named consumer becomes a generic only when a producer fuses in.
    bool anyFuses = llvm::any_of(op.getDpsInputOperands(), [](OpOperand *o) {
      std::string reason;
      return fusesInto(*o, reason);
    });
    if (!anyFuses) {
      for (OpOperand *operand : op.getDpsInputOperands()) {
        std::string reason;
        if (!fusesInto(*operand, reason) && !reason.empty())
          remarkMissed(*operand, reason);
      }
      continue;
    }
    linalg::GenericOp consumer = generalize(rewriter, op);
    if (!consumer)
      continue;
    while (linalg::GenericOp fused = fuseOne(rewriter, consumer))
      consumer = fused;
  }

  // The last op of each chain reads concatenations piece by piece, and the
  // pieces' slices and elementwise producers in its body: rotary
  // embedding's rotate_half and its products are one kernel, where the
  // slices and the concatenation were layout copies.
  SmallVector<linalg::LinalgOp> readers;
  root->walk([&](linalg::LinalgOp op) {
    std::string reason;
    if (isFusableElementwise(op, reason, /*indices=*/true) &&
        llvm::any_of(op.getDpsInputOperands(), [](OpOperand *operand) {
          return matchConcat(operand->get()).has_value();
        }))
      readers.push_back(op);
  });
  for (linalg::LinalgOp reader : readers) {
    linalg::GenericOp op = generalize(rewriter, reader);
    if (!op)
      continue;
    // Each rewrite replaces the op: its operands are looked up again.
    auto nextConcat = [&]() -> std::pair<OpOperand *, std::optional<Concat>> {
      for (OpOperand *operand : op.getDpsInputOperands())
        if (std::optional<Concat> concat = matchConcat(operand->get()))
          return {operand, concat};
      return {nullptr, std::nullopt};
    };
    for (auto [operand, concat] = nextConcat(); operand;
         std::tie(operand, concat) = nextConcat()) {
      remark::passed(op.getLoc(),
                     getFP8GPURemarkOpts(op, "concatenation-read-piecewise"))
          << remark::add("the concatenation of {0} pieces by {1} is read "
                         "piecewise by {2}",
                         concat->pieces.size(),
                         describeForRemarks(operand->get().getDefiningOp()),
                         describeForRemarks(op));
      op = readPiecewise(rewriter, op, *operand, *concat);
    }
  }
  if (readers.empty())
    return;
  RewritePatternSet patterns(&getContext());
  patterns.add<ExtractOfSlice, ExtractOfElementwise>(&getContext());
  GreedyRewriteConfig config;
  config.enableFolding(false).enableConstantCSE(false);
  if (failed(applyPatternsGreedily(root, std::move(patterns), config)))
    return signalPassFailure();
}

} // namespace
