//===- PlanRows.cpp - Row groups: a softmax or a LayerNorm in one kernel --===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A decomposed softmax reads its scores four times: for their maximum, for
// exp(x - max), for the sum of that, and to divide by it; a LayerNorm and
// the gradients of both do the like. As kernels of their own, each op makes
// a trip through memory. Before the walk, formRowGroups gathers each
// reduction of the last dimension of a space [..., cols] with the ops around
// it that compute over the same rows into a RowGroup, whose kernel
// (Rows.cpp) reads each tensor of a row once and writes only what other ops
// read.
//
// A group grows from its reduction: it takes the readers of its values that
// compute over the whole space (elementwise ops and reductions of its last
// dimension) or over its rows, and the elementwise producers that only the
// group reads. It leaves out contractions and their readers (the GEMM's
// epilogue may compute those), the elementwise ops that quantizations read
// (their prologues), the steps of range-expanded state, and any op whose
// operand depends on the group through another op. The kernel runs where
// the group's last op was: the group's results must be read after it.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PlanBuilder.h"

#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/Remarks.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// What an op computes in a group over [..., cols].
enum class RowRole {
  /// An elementwise op over the whole space: a value per element.
  Elements,
  /// An elementwise op over the rows: a value per row.
  Rows,
  /// A reduction of the last dimension: a value per row.
  Reduction,
};

class RowGroupBuilder {
public:
  RowGroupBuilder(PlanBuilder &plan,
                  const llvm::DenseMap<Operation *, int64_t> &position,
                  linalg::LinalgOp seed)
      : plan(plan), position(position), shape(seed.getStaticLoopRanges()) {}

  /// Whether `op` can start a group: a reduction of its last dimension.
  static bool isSeed(linalg::LinalgOp op) {
    return op.getNumReductionLoops() == 1 && op.hasPureTensorSemantics() &&
           !op.hasDynamicShape() &&
           op.getIteratorTypesArray().back() == utils::IteratorType::reduction;
  }

  /// Adds `seed`, then the ops around it that qualify.
  void grow(linalg::LinalgOp seed);
  /// The group, with its parameters, threads and width; or failure with a
  /// reason.
  FailureOr<RowGroup> finish(std::string &reason);

  int64_t size() const { return members.size(); }
  void getOps(llvm::DenseSet<Operation *> &ops) const {
    for (auto &member : members)
      ops.insert(member.first);
  }

private:
  std::optional<RowRole> getRole(linalg::LinalgOp op) const;
  bool tryAdd(Operation *op);
  /// Whether `value`, from outside, depends on an op of the group.
  bool dependsOnGroup(Value value) const;
  /// Where `value` is available: after its op, or after the launch of the
  /// row group computing it.
  int64_t getAvailable(Value value) const;
  /// The position where `op` runs: its own, or its row group's.
  int64_t getLaunchPosition(Operation *op) const;

  PlanBuilder &plan;
  const llvm::DenseMap<Operation *, int64_t> &position;
  SmallVector<int64_t> shape;
  llvm::MapVector<Operation *, RowRole> members;
  int64_t first = 0, last = 0;
};

std::optional<RowRole> RowGroupBuilder::getRole(linalg::LinalgOp op) const {
  if (!isa<linalg::GenericOp, linalg::ReduceOp, linalg::MapOp>(op) ||
      !op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      linalg::isaContractionOpInterface(op) || isGroupStateStep(op))
    return std::nullopt;
  std::string reason;
  if (failed(verifyClonableBody(op, reason, /*indices=*/true)))
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type || !isa<FloatType, IntegerType>(type.getElementType()) ||
        !op.getMatchingIndexingMap(&operand).isProjectedPermutation())
      return std::nullopt;
    // The readers of a high-precision contraction's product may be its
    // GEMM's epilogue.
    auto producer = operand.get().getDefiningOp<linalg::LinalgOp>();
    if (producer && linalg::isaContractionOpInterface(producer))
      return std::nullopt;
  }
  // The elementwise ops that quantizations read are their prologues.
  if (plan.fusePrologues)
    for (Operation *user : op->getUsers())
      if (isa<QuantizeOp, DynamicQuantizeOp, AmaxOp>(user))
        return std::nullopt;
  ArrayRef<int64_t> space(shape);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (op.getNumReductionLoops() == 0) {
    for (OpOperand &init : op.getDpsInitsMutable())
      if (!op.getMatchingIndexingMap(&init).isIdentity())
        return std::nullopt;
    if (ArrayRef<int64_t>(ranges) == space)
      return RowRole::Elements;
    if (space.size() >= 2 && ArrayRef<int64_t>(ranges) == space.drop_back())
      return RowRole::Rows;
    return std::nullopt;
  }
  if (!isSeed(op) || ArrayRef<int64_t>(ranges) != space ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  AffineMap kept =
      AffineMap::getMultiDimIdentityMap(space.size(), op.getContext())
          .getMajorSubMap(space.size() - 1);
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) != kept)
    return std::nullopt;
  FailureOr<ReductionBody> body = matchReductionBody(op, reason);
  if (failed(body) || !getWideElement(body->accumulator.getType()) ||
      !getWideElement(body->term.getType()))
    return std::nullopt;
  return RowRole::Reduction;
}

int64_t RowGroupBuilder::getLaunchPosition(Operation *op) const {
  auto it = plan.rowGroupOf.find(op);
  if (it != plan.rowGroupOf.end())
    return position.lookup(plan.rowGroups[it->second].group.ops.back());
  return position.lookup(op);
}

int64_t RowGroupBuilder::getAvailable(Value value) const {
  Operation *op = value.getDefiningOp();
  return op ? getLaunchPosition(op) : -1;
}

bool RowGroupBuilder::dependsOnGroup(Value value) const {
  SmallVector<Operation *> worklist;
  llvm::DenseSet<Operation *> seen;
  if (Operation *op = value.getDefiningOp())
    worklist.push_back(op);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (members.contains(op))
      return true;
    // Ops before the group's first do not depend on it.
    if (!seen.insert(op).second || position.lookup(op) < first)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        worklist.push_back(producer);
  }
  return false;
}

bool RowGroupBuilder::tryAdd(Operation *candidate) {
  auto op = dyn_cast<linalg::LinalgOp>(candidate);
  if (!op || members.contains(op) || plan.rowGroupOf.contains(op) ||
      !position.contains(op))
    return false;
  // Readers in another group read its values from memory already.
  for (Operation *user : op->getUsers())
    if (plan.rowGroupOf.contains(user))
      return false;
  std::optional<RowRole> role = getRole(op);
  if (!role)
    return false;
  unsigned rank = shape.size();
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(op.getNumLoops(), op.getContext());
  AffineMap perRow = identity.getMajorSubMap(rank - 1);
  for (OpOperand &operand : op->getOpOperands()) {
    bool read = !op.getMatchingBlockArgument(&operand).use_empty();
    bool init = op.isDpsInit(&operand);
    if (init && *role == RowRole::Reduction && getFilledConstant(operand.get()))
      continue;
    if (!read && !(init && *role == RowRole::Reduction))
      continue;
    Value value = operand.get();
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto producer = members.find(value.getDefiningOp());
    if (producer == members.end()) {
      if (dependsOnGroup(value))
        return false;
      continue;
    }
    // A value per element is read at its element; a value per row, at the
    // element's row.
    if (producer->second == RowRole::Elements) {
      if (*role == RowRole::Rows || map != identity)
        return false;
    } else if (map != (*role == RowRole::Rows ? identity : perRow)) {
      return false;
    }
  }
  int64_t at = position.lookup(op);
  first = members.empty() ? at : std::min(first, at);
  last = members.empty() ? at : std::max(last, at);
  members.insert({op, *role});
  return true;
}

void RowGroupBuilder::grow(linalg::LinalgOp seed) {
  if (!tryAdd(seed))
    return;
  bool changed = true;
  while (changed) {
    changed = false;
    for (int64_t i = 0; i < static_cast<int64_t>(members.size()); ++i) {
      Operation *op = members.begin()[i].first;
      // Readers of its values.
      for (Operation *user : llvm::to_vector(op->getUsers()))
        changed |= tryAdd(user);
      // Elementwise producers that only the group reads.
      for (Value operand : op->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || members.contains(producer) ||
            producer->getNumRegions() == 0 ||
            !llvm::all_of(producer->getUsers(), [&](Operation *user) {
              return members.contains(user);
            }))
          continue;
        auto linalgOp = dyn_cast<linalg::LinalgOp>(producer);
        if (linalgOp && linalgOp.getNumReductionLoops() == 0)
          changed |= tryAdd(producer);
      }
    }
  }
}

FailureOr<RowGroup> RowGroupBuilder::finish(std::string &reason) {
  if (llvm::is_contained(shape, 0)) {
    reason = "its space is empty";
    return failure();
  }
  RowGroup group;
  group.shape = shape;
  for (auto &[op, role] : members)
    group.ops.push_back(op);
  llvm::sort(group.ops, [&](Operation *a, Operation *b) {
    return position.lookup(a) < position.lookup(b);
  });
  llvm::SetVector<Value> inputs, outputs;
  for (Operation *member : group.ops) {
    auto op = cast<linalg::LinalgOp>(member);
    bool reduction = members.lookup(op) == RowRole::Reduction;
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      // A reduction's init is read unless it is a filled constant.
      bool read = reduction && op.isDpsInit(&operand)
                      ? !getFilledConstant(value)
                      : !op.getMatchingBlockArgument(&operand).use_empty();
      if (!read || members.contains(value.getDefiningOp()))
        continue;
      if (getAvailable(value) >= last) {
        reason = "it reads a value computed after its last op";
        return failure();
      }
      inputs.insert(value);
    }
    for (Value result : op->getResults())
      for (OpOperand &use : result.getUses()) {
        Operation *user = use.getOwner();
        if (members.contains(user))
          continue;
        if (position.lookup(user) <= last) {
          reason = llvm::formatv("{0} reads a result before its last op",
                                 describeForRemarks(user))
                       .str();
          return failure();
        }
        outputs.insert(result);
      }
  }
  group.inputs = inputs.takeVector();
  group.outputs = outputs.takeVector();

  // Accesses of 16 bytes when every row tensor moved whole allows it.
  int64_t cols = shape.back(), bytes = 1, rowTensors = 0;
  bool vectors = true;
  auto account = [&](Type element) {
    vectors &= element.isF32() || element.isBF16() || element.isF16();
    bytes = std::max(bytes, getElementBytes(element));
    ++rowTensors;
  };
  for (Value input : group.inputs)
    if (cast<RankedTensorType>(input.getType()).getShape() ==
        ArrayRef<int64_t>(shape))
      account(cast<RankedTensorType>(input.getType()).getElementType());
  for (Value output : group.outputs)
    account(cast<RankedTensorType>(output.getType()).getElementType());
  group.width = vectors ? 16 / bytes : 1;
  while (cols % group.width != 0)
    group.width /= 2;
  int64_t chunks = group.getChunks();
  // A warp per row where its threads hold the row within their budget
  // (more loads in flight per thread, no CTA-wide barrier, four rows per
  // CTA); else a CTA per row.
  int64_t warpBudget =
      RowGroup::kMaxElementsPerThread * (rowTensors <= 2 ? 2 : 1);
  if (static_cast<int64_t>(llvm::divideCeil(chunks, 32)) * group.width <=
      warpBudget) {
    group.threads = 32;
    group.rowsPerCta = RowGroup::kWarpRowsPerCta;
  } else {
    group.threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(chunks), 32, 256);
    while (group.getSteps() * group.width >
               RowGroup::kMaxElementsPerThread / 2 &&
           group.threads < RowGroup::kMaxThreads)
      group.threads *= 2;
  }
  if (group.rowsPerCta == 1 &&
      group.getSteps() * group.width > RowGroup::kMaxElementsPerThread) {
    reason = llvm::formatv("its rows of {0} elements need more than {1} "
                           "registers per tensor in each of {2} threads",
                           cols, RowGroup::kMaxElementsPerThread,
                           RowGroup::kMaxThreads)
                 .str();
    return failure();
  }
  if (group.getRows() > std::numeric_limits<int32_t>::max()) {
    reason = "it has 2^31 rows or more";
    return failure();
  }
  return group;
}

} // namespace

void mlir::fp8::formRowGroups(PlanBuilder &plan) {
  if (!plan.fuseRows)
    return;
  Block &block = plan.getFunction().getBody().front();
  llvm::DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(block))
    position[&op] = i;
  // The ops of groups refused: no seeds of other attempts.
  llvm::DenseSet<Operation *> refused;
  for (Operation &op : block) {
    auto seed = dyn_cast<linalg::LinalgOp>(op);
    if (!seed || plan.rowGroupOf.contains(seed) || refused.contains(seed) ||
        !RowGroupBuilder::isSeed(seed))
      continue;
    RowGroupBuilder builder(plan, position, seed);
    builder.grow(seed);
    // A reduction alone gains nothing over its own kernel.
    if (builder.size() < 2)
      continue;
    std::string reason;
    FailureOr<RowGroup> group = builder.finish(reason);
    LLVM::LLVMFuncOp kernel;
    if (succeeded(group)) {
      OpBuilder kernelBuilder = plan.getKernelBuilder();
      std::string name =
          llvm::formatv("fp8_rows_{0}_{1}", plan.getFunction().getName(),
                        plan.elementwiseCount++)
              .str();
      FailureOr<LLVM::LLVMFuncOp> built =
          buildRowKernel(kernelBuilder, *group, name, reason);
      if (succeeded(built))
        kernel = plan.internKernel(*built,
                                   "fp8_rows_" + formatShapeTag(group->shape));
    }
    if (!kernel) {
      builder.getOps(refused);
      remark::missed(op.getLoc(), getFP8GPURemarkOpts(&op, "rows-not-fused"))
          << remark::add("{0} and {1} other ops over its rows: kernels of "
                         "their own: {2}",
                         describeForRemarks(&op), builder.size() - 1, reason);
      continue;
    }
    int64_t index = plan.rowGroups.size();
    for (Operation *member : group->ops)
      plan.rowGroupOf[member] = index;
    remark::passed(op.getLoc(), getFP8GPURemarkOpts(&op, "rows-fused"))
        << remark::add(
               "{0} ops over rows of {1} elements in one kernel of "
               "{2} threads per row ({5} per CTA), reading {3} tensors "
               "and writing {4}",
               group->ops.size(), group->shape.back(), group->threads,
               group->inputs.size(), group->outputs.size(),
               group->rowsPerCta == 1
                   ? std::string("one row")
                   : llvm::formatv("{0} rows", group->rowsPerCta).str());
    plan.rowGroups.push_back({std::move(*group), kernel});
  }
}

void mlir::fp8::planRowGroup(PlanBuilder &plan, int64_t index) {
  const PlanBuilder::PlannedRowGroup &planned = plan.rowGroups[index];
  const RowGroup &group = planned.group;
  SmallVector<LaunchParam> params;
  for (Value value : llvm::concat<const Value>(group.inputs, group.outputs))
    params.push_back(BufferParam{plan.bufferOf(value)});
  plan.addKernelLaunch(planned.kernel, {group.getCtas(), 1, 1},
                       group.getCtaThreads(), group.getSharedMemoryBytes(),
                       std::move(params),
                       /*persistent=*/false);
}
