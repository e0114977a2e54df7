//===- PlanReduction.cpp - Launches of reductions -------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A linalg op that reduces one input along one run of its dimensions
// (linalg.reduce, or a linalg.generic with reduction iterators such as the
// max and sum of a decomposed softmax) becomes the kernels of
// ReductionConfig. Reduced dimensions that are innermost make it a row
// reduction; otherwise it reduces the columns of [batches, rows, cols], in
// two launches (f32 partials of splits of the rows, then their reduction)
// when the columns alone would not fill the GPU. The body's ops before its
// combiner run in the kernel on every element.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PlanBuilder.h"

#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"

#include "mlir/IR/Remarks.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

using Axis = ReductionConfig::Axis;

/// Rows that one split of a column reduction reads at least.
constexpr int64_t kMinSplitRows = 64;
/// CTAs that keep every SM busy.
constexpr int64_t kBlocksPerSM = 8;

/// Fills the combiner, element types and prologue of `config` from the body
/// of `op`: ops computing a value from the input element, then one combiner
/// of that value and the accumulator, yielded.
LogicalResult matchBody(linalg::LinalgOp op, ReductionConfig &config,
                        std::string &reason) {
  if (failed(verifyClonableBody(op, reason)))
    return failure();
  FailureOr<ReductionBody> match = matchReductionBody(op, reason);
  if (failed(match))
    return failure();
  Block *body = op.getBlock();
  Value input = body->getArgument(0), acc = match->accumulator;
  Type inputType =
      cast<ShapedType>(op.getDpsInputs()[0].getType()).getElementType();
  std::optional<WideElement> in = getWideElement(inputType);
  if (!in) {
    reason = llvm::formatv("it reads {0} elements; reduction kernels read "
                           "f32, bf16 or f16",
                           inputType)
                 .str();
    return failure();
  }
  std::optional<WideElement> out = getWideElement(acc.getType());
  if (!out) {
    reason = llvm::formatv("it combines {0} values; reduction kernels "
                           "combine f32, bf16 or f16",
                           acc.getType())
                 .str();
    return failure();
  }
  config.combiner = match->combiner;
  config.input = *in;
  config.out = *out;
  // The combiner reads the element itself, or its extension to f32 (what
  // the kernels combine anyway), or what other ops of the body compute from
  // it: those run in the kernel.
  Value element = match->term;
  auto extension = element.getDefiningOp<arith::ExtFOp>();
  bool extended = extension && extension.getIn() == input &&
                  element.getType().isF32() && element.hasOneUse();
  int64_t ops = std::distance(body->begin(), body->end());
  bool bare = (element == input && ops == 2) || (extended && ops == 3);
  if (!bare)
    config.prologue = op;
  return success();
}

/// The extents of a reduction of `op`'s input viewed as [batches, rows,
/// cols]: Rows when the reduced dimensions are innermost (batches then 1).
struct ReductionShape {
  Axis axis = Axis::Rows;
  int64_t batches = 1, rows = 1, cols = 1;
};

FailureOr<ReductionShape> matchShape(linalg::LinalgOp op, std::string &reason) {
  auto inputType = cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  if (!op.getMatchingIndexingMap(op.getDpsInputOperand(0)).isIdentity()) {
    reason = "it reads its input through a permuting or broadcasting map; "
             "reduction kernels read it in the order of the loops";
    return failure();
  }
  // The reduced dimensions: one run [first, last).
  SmallVector<unsigned> reduced;
  op.getReductionDims(reduced);
  unsigned first = reduced.front(), last = reduced.back() + 1;
  if (last - first != reduced.size()) {
    reason = "the dimensions it reduces are not adjacent; transpose them "
             "together first";
    return failure();
  }
  // The result holds the kept dimensions in order.
  SmallVector<AffineExpr> kept;
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (d < first || d >= last)
      kept.push_back(getAffineDimExpr(d, op.getContext()));
  AffineMap initMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (initMap.getResults() != ArrayRef<AffineExpr>(kept)) {
    reason = "its result does not hold the kept dimensions in the order of "
             "the input";
    return failure();
  }
  ArrayRef<int64_t> shape = inputType.getShape();
  auto product = [&](unsigned begin, unsigned end) {
    int64_t p = 1;
    for (unsigned d = begin; d < end; ++d)
      p *= shape[d];
    return p;
  };
  ReductionShape result;
  int64_t outer = product(0, first), inner = product(last, shape.size());
  if (inner == 1) {
    result.rows = outer;
    result.cols = product(first, last);
  } else {
    result.axis = Axis::Columns;
    result.batches = outer;
    result.rows = product(first, last);
    result.cols = inner;
  }
  if (inputType.getNumElements() == 0) {
    reason = "its input is empty";
    return failure();
  }
  constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();
  if (result.rows > kMaxI32 || result.cols > kMaxI32 ||
      result.batches > 65535) {
    reason = "an extent exceeds what the kernels index (2^31 - 1 rows or "
             "columns, 65535 batches)";
    return failure();
  }
  return result;
}

/// The elementwise generic that the kernel reducing into `op`'s result
/// computes before storing it, if there is one: the result's only reader,
/// reading nothing else, at the position it writes, with a body of arith ops
/// (no libdevice) storing f32, bf16 or f16.
linalg::GenericOp getEpilogue(PlanBuilder &plan, linalg::LinalgOp op) {
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return {};
  auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  if (!consumer || plan.rowGroupOf.contains(consumer) ||
      !consumer.hasPureTensorSemantics() ||
      consumer.getNumReductionLoops() != 0 || consumer->getNumResults() != 1 ||
      !getWideElement(getElementTypeOrSelf(consumer->getResult(0))) ||
      !consumer.getIndexingMapMatchingResult(consumer->getResult(0))
           .isIdentity())
    return {};
  for (OpOperand &operand : consumer->getOpOperands()) {
    if (consumer.getMatchingBlockArgument(&operand).use_empty())
      continue;
    if (operand.get() != result ||
        !consumer.getMatchingIndexingMap(&operand).isIdentity())
      return {};
  }
  std::string reason;
  if (failed(verifyClonableBody(consumer, reason)) ||
      llvm::any_of(consumer.getBlock()->without_terminator(),
                   [](Operation &bodyOp) {
                     return !isa<arith::ArithDialect>(bodyOp.getDialect());
                   }))
    return {};
  return consumer;
}

} // namespace

void mlir::fp8::collectReductionInitFills(PlanBuilder &plan) {
  for (Operation &op : plan.getFunction().getBody().front()) {
    auto fill = dyn_cast<linalg::FillOp>(op);
    if (!fill || fill->getResult(0).use_empty() ||
        !getFilledConstant(fill->getResult(0)))
      continue;
    // Every reader is a reduction (of a row group, or planned by
    // planReduction) taking the tensor as its init, or an op of a row group
    // that does not read it.
    bool onlyInits = llvm::all_of(fill->getUses(), [&](OpOperand &use) {
      auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
      if (!user || !user.isDpsInit(&use) ||
          linalg::isaContractionOpInterface(user))
        return false;
      return user.getNumReductionLoops() != 0 ||
             (plan.rowGroupOf.contains(user) &&
              user.getMatchingBlockArgument(&use).use_empty());
    });
    if (onlyInits)
      plan.reductionInitFills.insert(fill);
  }
}

namespace {

/// A reduction's kernels as configured from its op, before any launch.
struct ReductionPlan {
  ReductionShape shape;
  ReductionConfig config;
};

/// Configures the kernels of `op`, or fails with the reason.
FailureOr<ReductionPlan> configureReduction(PlanBuilder &plan,
                                            linalg::LinalgOp op,
                                            std::string &reason) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape()) {
    reason = "it is not on statically shaped tensors";
    return failure();
  }
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1) {
    reason = llvm::formatv("it reduces {0} input(s) to {1} result(s); "
                           "reduction kernels reduce one input to one result",
                           op.getNumDpsInputs(), op.getNumDpsInits());
    return failure();
  }
  ReductionPlan result;
  ReductionConfig &config = result.config;
  FailureOr<ReductionShape> shape = matchShape(op, reason);
  if (failed(shape) || failed(matchBody(op, config, reason)))
    return failure();
  result.shape = *shape;
  config.axis = shape->axis;
  config.vectorLoads = shape->cols * config.getInputBytes() % 16 == 0;
  // A filled constant init is combined as a constant.
  if (std::optional<double> filled = getFilledConstant(op.getDpsInits()[0]))
    config.initValue = static_cast<float>(*filled);
  config.epilogue = getEpilogue(plan, op);
  if (failed(config.verify(reason)))
    return failure();
  return result;
}

/// Records the launches of `op`, configured as `reduction`; the kernel
/// reading the input also measures its amax into `amax` if given.
LogicalResult launchReduction(PlanBuilder &plan, linalg::LinalgOp op,
                              ReductionPlan reduction,
                              std::optional<int64_t> amax = std::nullopt) {
  auto fail = [&](const Twine &reason) {
    return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                           << "' has no reduction kernel: " << reason;
  };
  const ReductionShape *shape = &reduction.shape;
  ReductionConfig &config = reduction.config;
  int64_t input = plan.bufferOf(op.getDpsInputs()[0]);
  int64_t init = config.initValue ? -1 : plan.bufferOf(op.getDpsInits()[0]);
  Operation *epilogue = config.epilogue;
  int64_t out =
      plan.bufferOf(epilogue ? epilogue->getResult(0) : op->getResult(0));
  if (epilogue) {
    plan.reductionEpilogues.insert(epilogue);
    remark::passed(op.getLoc(), getFP8GPURemarkOpts(op, "epilogue-fused"))
        << remark::add("{0} fused into the epilogue of {1}",
                       epilogue->getName().getStringRef(),
                       op->getName().getStringRef());
  }
  OpBuilder builder = plan.getKernelBuilder();
  // Builds and launches the kernel of `c` reading `from` as [batches, rows,
  // cols] with `splits` splits of the rows into `partials`.
  auto launch = [&](const ReductionConfig &c, int64_t from, int64_t rows,
                    int64_t splits,
                    std::optional<int64_t> partials) -> LogicalResult {
    LLVM::LLVMFuncOp kernel = buildReductionKernel(builder, op.getLoc(), c);
    if (c.prologue)
      if (Operation *left = expandClonedBodyForNVVM(kernel)) {
        std::string name = left->getName().getStringRef().str();
        kernel.erase();
        return fail("'" + name + "' has no GPU lowering without libdevice");
      }
    int64_t splitRows = llvm::divideCeil(rows, splits);
    std::array<int64_t, 3> grid;
    if (c.axis == Axis::Rows)
      grid = {int64_t(llvm::divideCeil(rows, c.getRowsPerBlock())), 1, 1};
    else
      grid = {int64_t(llvm::divideCeil(shape->cols, c.getColsPerBlock())),
              splits, shape->batches};
    plan.addKernelLaunch(
        kernel, c, grid, c.getSharedMemoryBytes(),
        [&](ReductionParam param) -> LaunchParam {
          switch (param) {
          case ReductionParam::Input:
            return BufferParam{from};
          case ReductionParam::Init:
            return BufferParam{init};
          case ReductionParam::Out:
            return BufferParam{out};
          case ReductionParam::Partials:
            return BufferParam{*partials};
          case ReductionParam::Amax:
            return BufferParam{*amax};
          case ReductionParam::Batches:
            return I32Param{shape->batches};
          case ReductionParam::Rows:
            return I32Param{rows};
          case ReductionParam::Cols:
            return I32Param{shape->cols};
          case ReductionParam::SplitRows:
            return I32Param{splitRows};
          }
          llvm_unreachable("unknown reduction parameter");
        },
        /*persistent=*/false);
    return success();
  };

  int64_t width = config.getVectorWidth();
  if (config.axis == Axis::Rows) {
    // A warp per row, unless the rows are too few to fill the GPU and long
    // enough to keep a CTA's threads reading.
    if (shape->rows < plan.getNumSMs() * kBlocksPerSM &&
        shape->cols >= ReductionConfig::kThreads * width)
      config.rowThreads = ReductionConfig::kThreads;
    return launch(config, input, shape->rows, 1, std::nullopt);
  }

  // Split the rows until the grid fills the GPU, each split reading at
  // least kMinSplitRows rows.
  int64_t blocks =
      llvm::divideCeil(shape->cols, config.getColsPerBlock()) * shape->batches;
  int64_t splits = std::clamp<int64_t>(
      llvm::divideCeil(plan.getNumSMs() * kBlocksPerSM, blocks), 1,
      std::max<int64_t>(1, shape->rows / kMinSplitRows));
  splits = llvm::divideCeil(shape->rows, llvm::divideCeil(shape->rows, splits));
  if (splits == 1)
    return launch(config, input, shape->rows, 1, std::nullopt);
  auto partialType = RankedTensorType::get(
      {shape->batches, splits, shape->cols}, Float32Type::get(op.getContext()));
  int64_t partials = plan.addBuffer(PlanBuffer::Kind::Temp, partialType);
  ReductionConfig split = config;
  split.partial = true;
  split.initValue = std::nullopt;
  split.epilogue = nullptr;
  if (failed(launch(split, input, shape->rows, splits, partials)))
    return failure();
  // The splits' f32 values, reduced like any columns.
  ReductionConfig finish = config;
  finish.input = WideElement::F32;
  finish.prologue = nullptr;
  finish.vectorLoads = shape->cols * 4 % 16 == 0;
  finish.amax.reset();
  return launch(finish, partials, splits, 1, std::nullopt);
}

/// Whether `op` reduces `view`, of `buffer`, after `quantization`, from a
/// filled constant, outside row groups: a reduction planColumnSumsWithAmax
/// can launch early if it reduces columns (configureReduction says).
bool isLaterColumnReduction(PlanBuilder &plan, Operation *quantization,
                            linalg::LinalgOp op, Value view, int64_t buffer) {
  if (op->getBlock() != quantization->getBlock() ||
      !quantization->isBeforeInBlock(op) || plan.rowGroupOf.contains(op) ||
      plan.earlyReductions.contains(op) ||
      linalg::isaContractionOpInterface(op) || op.getNumReductionLoops() == 0 ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getDpsInputs()[0] != view || plan.lookupBuffer(view) != buffer)
    return false;
  auto fill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  return fill && plan.reductionInitFills.contains(fill);
}

} // namespace

LogicalResult mlir::fp8::planReduction(PlanBuilder &plan, linalg::LinalgOp op) {
  std::string reason;
  FailureOr<ReductionPlan> reduction = configureReduction(plan, op, reason);
  if (failed(reduction))
    return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                           << "' has no reduction kernel: " << reason;
  return launchReduction(plan, op, *reduction);
}

FailureOr<bool> mlir::fp8::planColumnSumsWithAmax(PlanBuilder &plan,
                                                  Operation *quantization,
                                                  Value input, int64_t amax,
                                                  NanPolicy nanPolicy) {
  std::optional<int64_t> buffer = plan.lookupBuffer(input);
  if (!buffer || plan.getBuffer(*buffer).pitch)
    return false;
  // The views of the buffer: the reshapes `input` is a view of, and the
  // reshapes of those.
  auto isReshape = [](Operation *op) {
    return isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op);
  };
  Value root = input;
  while (isReshape(root.getDefiningOp()))
    root = root.getDefiningOp()->getOperand(0);
  SmallVector<Value> views{root};
  for (size_t i = 0; i < views.size(); ++i) {
    for (Operation *user : views[i].getUsers()) {
      if (isReshape(user)) {
        views.push_back(user->getResult(0));
        continue;
      }
      auto op = dyn_cast<linalg::LinalgOp>(user);
      if (!op ||
          !isLaterColumnReduction(plan, quantization, op, views[i], *buffer))
        continue;
      std::string reason;
      FailureOr<ReductionPlan> reduction = configureReduction(plan, op, reason);
      if (failed(reduction) || reduction->config.axis != Axis::Columns)
        continue;
      reduction->config.amax = nanPolicy;
      std::string why;
      if (failed(reduction->config.verify(why)))
        continue;
      plan.earlyReductions.insert(op);
      remark::passed(quantization->getLoc(),
                     getFP8GPURemarkOpts(quantization, "amax-fused"))
          << remark::add("the per-tensor amax of {0} measured by the kernel "
                         "of the column reduction {1} that reads the same "
                         "tensor, launched early: no amax kernel",
                         quantization->getName().getStringRef(),
                         op->getName().getStringRef());
      if (failed(launchReduction(plan, op, *reduction, amax)))
        return failure();
      return true;
    }
  }
  return false;
}
