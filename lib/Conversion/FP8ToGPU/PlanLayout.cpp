//===- PlanLayout.cpp - Launches of transposes, broadcasts, slices --------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Layout ops move elements without computing: each is a copy of a box
// between two strided views of buffers (LayoutConfig), or no launch at all.
//
//   * linalg.transpose: folded into the quantization that writes its input
//     (cast+transpose, PlanQuantize.cpp) or, splitting a GEMM's result
//     into heads or merging a batch's heads back into rows, into the GEMM
//     (chooseHeadLayout, sm90-head-major-results);
//     a view when it moves at most one dimension of extent > 1, else a
//     copy, through shared memory when the innermost dimension changes.
//   * linalg.broadcast: a copy reading the broadcast dimensions with stride
//     0.
//   * tensor.extract_slice: a copy of the slice (plan buffers have no
//     offsets, so a slice is not a view).
//   * tensor.insert_slice: a copy of the source into the destination's
//     buffer, reused in place when nothing else reads the destination.
//   * tensor.expand_shape / collapse_shape: views, or a copy when the source
//     holds rows padded for TMA.
//
// The box is normalized first: unit dimensions dropped, dimensions that are
// contiguous on both sides merged. The kernel is chosen from the strides.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Remarks.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

SmallVector<int64_t> getDenseStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// A box of elements copied from one strided view to another.
struct StridedCopy {
  SmallVector<int64_t> extents, inStrides, outStrides;
  int64_t inOffset = 0, outOffset = 0;

  /// A copy of a box of `shape` into a dense tensor of that shape; the
  /// input strides are left to fill.
  static StridedCopy intoDense(ArrayRef<int64_t> shape) {
    StridedCopy copy;
    copy.extents = llvm::to_vector(shape);
    copy.outStrides = getDenseStrides(shape);
    return copy;
  }

  /// Drops unit dimensions and merges each dimension into the next outer
  /// one where both sides step over the inner one contiguously.
  void normalize() {
    StridedCopy merged;
    for (auto [extent, in, out] : llvm::zip(extents, inStrides, outStrides)) {
      if (extent == 1)
        continue;
      if (!merged.extents.empty() && merged.inStrides.back() == in * extent &&
          merged.outStrides.back() == out * extent) {
        merged.extents.back() *= extent;
        merged.inStrides.back() = in;
        merged.outStrides.back() = out;
        continue;
      }
      merged.extents.push_back(extent);
      merged.inStrides.push_back(in);
      merged.outStrides.push_back(out);
    }
    if (merged.extents.empty()) {
      merged.extents = {1};
      merged.inStrides = merged.outStrides = {1};
    }
    extents = std::move(merged.extents);
    inStrides = std::move(merged.inStrides);
    outStrides = std::move(merged.outStrides);
  }

  int64_t getNumElements() const {
    int64_t n = 1;
    for (int64_t e : extents)
      n *= e;
    return n;
  }
  /// The largest element offset either side reaches.
  int64_t getMaxOffset() const {
    int64_t in = inOffset, out = outOffset;
    for (auto [extent, inStride, outStride] :
         llvm::zip(extents, inStrides, outStrides)) {
      in += (extent - 1) * inStride;
      out += (extent - 1) * outStride;
    }
    return std::max(in, out);
  }
};

/// The element strides of `buffer`, a tensor of `type`, as stored: rows
/// padded to a pitch by a quantization step further.
SmallVector<int64_t> getStoredStrides(PlanBuilder &plan, int64_t buffer,
                                      RankedTensorType type) {
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> strides = getDenseStrides(shape);
  int64_t rank = shape.size();
  if (rank >= 2) {
    int64_t pitch = plan.getPitch(buffer, shape.back());
    for (int64_t d = rank - 2; d >= 0; --d)
      strides[d] = d == rank - 2 ? pitch : strides[d + 1] * shape[d + 1];
  }
  return strides;
}

bool isPadded(PlanBuilder &plan, Value value) {
  return plan.getBuffer(plan.bufferOf(value)).pitch.has_value();
}

/// The largest power of two of elements, at most 16 bytes, that divides the
/// innermost extent and every offset and outer stride of `copy`.
int64_t getVectorWidth(const StridedCopy &copy, int64_t elementBytes) {
  int64_t inner = copy.extents.size() - 1;
  int64_t vector = 16 / elementBytes;
  auto divides = [&](int64_t v) {
    if (copy.extents[inner] % v || copy.inOffset % v || copy.outOffset % v)
      return false;
    for (int64_t d = 0; d < inner; ++d)
      if (copy.inStrides[d] % v || copy.outStrides[d] % v)
        return false;
    return true;
  };
  while (vector > 1 && !divides(vector))
    vector /= 2;
  return vector;
}

/// Records the launch copying `copy` from buffer `input` to `output`, whose
/// elements are those of `element`; errors name `op`.
LogicalResult addStridedCopy(PlanBuilder &plan, Operation *op, Type element,
                             int64_t input, int64_t output, StridedCopy copy) {
  unsigned bits = element.getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32)
    return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                           << "' has no kernel: layout kernels move elements "
                              "of 8, 16 or 32 bits, not "
                           << element;
  copy.normalize();
  LayoutConfig config;
  config.elementBytes = bits / 8;
  config.rank = copy.extents.size();
  if (config.rank > LayoutConfig::kMaxRank)
    return op->emitError()
           << "fp8 GPU lowering: '" << op->getName()
           << "' has no kernel: it moves " << config.rank
           << " dimensions that do not merge into fewer; layout kernels "
              "move at most "
           << LayoutConfig::kMaxRank;
  if (copy.getMaxOffset() >= (int64_t(1) << 31))
    return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                           << "' has no kernel: layout kernels index fewer "
                              "than 2^31 elements";
  int64_t inner = config.rank - 1;
  auto contiguousInput = llvm::find(copy.inStrides, 1);
  if (copy.inStrides[inner] == 1 && copy.outStrides[inner] == 1) {
    config.vector = getVectorWidth(copy, config.elementBytes);
  } else if (copy.outStrides[inner] == 1 &&
             contiguousInput != copy.inStrides.end()) {
    config.kind = LayoutConfig::Kind::Transpose;
    config.inputContiguousDim = contiguousInput - copy.inStrides.begin();
  }
  std::string reason;
  if (failed(config.verify(reason)))
    return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                           << "' has no kernel: " << reason;

  std::array<int64_t, 3> grid = {1, 1, 1};
  if (config.kind == LayoutConfig::Kind::Transpose) {
    int64_t a = config.inputContiguousDim;
    int64_t tile = config.getTransposeTile();
    grid[0] = copy.getNumElements() / copy.extents[a] / copy.extents[inner] *
              llvm::divideCeil(copy.extents[a], tile) *
              llvm::divideCeil(copy.extents[inner], tile);
  } else {
    int64_t accesses = copy.getNumElements() / config.vector;
    grid[0] =
        std::clamp<int64_t>(llvm::divideCeil(accesses, LayoutConfig::kThreads),
                            1, plan.getNumSMs() * 8);
  }
  OpBuilder builder = plan.getKernelBuilder();
  LLVM::LLVMFuncOp kernel = buildLayoutKernel(builder, op->getLoc(), config);
  plan.addKernelLaunch(
      kernel, config, grid, config.getSharedMemoryBytes(),
      [&](LayoutParam param) -> LaunchParam {
        using P = LayoutParam;
        switch (param) {
        case P::Input:
          return BufferParam{input};
        case P::Output:
          return BufferParam{output};
        case P::InputOffset:
          return I32Param{copy.inOffset};
        case P::OutputOffset:
          return I32Param{copy.outOffset};
        case P::Extent0:
        case P::Extent1:
        case P::Extent2:
        case P::Extent3:
          return I32Param{copy.extents[int(param) - int(P::Extent0)]};
        case P::InputStride0:
        case P::InputStride1:
        case P::InputStride2:
        case P::InputStride3:
          return I32Param{copy.inStrides[int(param) - int(P::InputStride0)]};
        case P::OutputStride0:
        case P::OutputStride1:
        case P::OutputStride2:
        case P::OutputStride3:
          return I32Param{copy.outStrides[int(param) - int(P::OutputStride0)]};
        }
        llvm_unreachable("unknown layout parameter");
      },
      /*persistent=*/false);
  return success();
}

/// Copies `from`, whose rows a quantization padded, into `output` dense.
LogicalResult copyPaddedToDense(PlanBuilder &plan, Operation *op, Value from,
                                int64_t output) {
  auto type = cast<RankedTensorType>(from.getType());
  int64_t input = plan.bufferOf(from);
  StridedCopy copy = StridedCopy::intoDense(type.getShape());
  copy.inStrides = getStoredStrides(plan, input, type);
  return addStridedCopy(plan, op, type.getElementType(), input, output, copy);
}

/// Copies all of `from` into the buffer of `to` (same shape), dense.
LogicalResult copyWhole(PlanBuilder &plan, Operation *op, Value from,
                        Value to) {
  int64_t output = plan.bufferOf(to);
  if (isPadded(plan, from))
    return copyPaddedToDense(plan, op, from, output);
  plan.addCopy(plan.bufferOf(from), output, plan.getBuffer(output).bytes);
  return success();
}

/// Copies `input` into `output`, dense, with its dimensions in the order
/// `permutation`.
LogicalResult copyPermuted(PlanBuilder &plan, Operation *op, Value input,
                           ArrayRef<int64_t> permutation, int64_t output) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t source = plan.bufferOf(input);
  SmallVector<int64_t> stored = getStoredStrides(plan, source, inputType);
  SmallVector<int64_t> shape;
  for (int64_t d : permutation)
    shape.push_back(inputType.getDimSize(d));
  StridedCopy copy = StridedCopy::intoDense(shape);
  // The output's rows may be padded (padRowsForGemms).
  copy.outStrides = getStoredStrides(
      plan, output, RankedTensorType::get(shape, inputType.getElementType()));
  for (int64_t d : permutation)
    copy.inStrides.push_back(stored[d]);
  return addStridedCopy(plan, op, inputType.getElementType(), source, output,
                        copy);
}

/// Stores the rows of `buffer`, a tensor of `type`, 16-byte multiples apart.
void padRows(PlanBuffer &buffer, RankedTensorType type) {
  int64_t bits = type.getElementTypeBitWidth();
  int64_t cols = type.getShape().back();
  buffer.pitch = llvm::alignTo(cols, 128 / bits);
  buffer.bytes = type.getNumElements() / cols * *buffer.pitch * bits / 8;
}

/// Pads the rows of `result`'s temporary buffer to 16 bytes where only GEMMs
/// read it, as operand A or B, and its rows are not whole 16-byte units, as
/// quantizations pad theirs: TMA reads operand rows 16-byte multiples apart.
/// Such a copy is the transposed FP8 copy of a weight that a forward and a
/// data-gradient GEMM share, with K not a multiple of 16.
void padRowsForGemms(PlanBuilder &plan, Value result) {
  auto type = cast<RankedTensorType>(result.getType());
  if (type.getRank() < 2 || hasWhole16ByteRows(type) ||
      !isReadOnlyAsGemmOperand(result))
    return;
  PlanBuffer &buffer = plan.getBuffer(plan.bufferOf(result));
  if (buffer.kind != PlanBuffer::Kind::Temp || buffer.pitch)
    return;
  padRows(buffer, type);
}

LogicalResult planTranspose(PlanBuilder &plan, linalg::TransposeOp op) {
  if (plan.foldedTransposes.contains(op))
    return success();
  Value input = op.getInput(), result = op.getResult()[0];
  if (!isPadded(plan, input) && isTransposeInvariant(input)) {
    plan.setBuffer(result, plan.bufferOf(input));
    return success();
  }
  padRowsForGemms(plan, result);
  return copyPermuted(plan, op, input, op.getPermutation(),
                      plan.bufferOf(result));
}

LogicalResult planBroadcast(PlanBuilder &plan, linalg::BroadcastOp op) {
  Value input = op.getInput(), result = op.getResult()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto resultType = cast<RankedTensorType>(result.getType());
  int64_t source = plan.bufferOf(input);
  SmallVector<int64_t> stored = getStoredStrides(plan, source, inputType);
  StridedCopy copy = StridedCopy::intoDense(resultType.getShape());
  ArrayRef<int64_t> added = op.getDimensions();
  int64_t next = 0;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    copy.inStrides.push_back(llvm::is_contained(added, d) ? 0 : stored[next++]);
  return addStridedCopy(plan, op, inputType.getElementType(), source,
                        plan.bufferOf(result), copy);
}

/// The static offsets, sizes and strides of a slice, or an error.
LogicalResult getStaticSlice(OffsetSizeAndStrideOpInterface op,
                             SmallVectorImpl<int64_t> &offsets,
                             SmallVectorImpl<int64_t> &sizes,
                             SmallVectorImpl<int64_t> &strides) {
  if (ShapedType::isDynamicShape(op.getStaticOffsets()) ||
      ShapedType::isDynamicShape(op.getStaticSizes()) ||
      ShapedType::isDynamicShape(op.getStaticStrides()))
    return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                           << "' has no kernel: slices with dynamic offsets, "
                              "sizes or strides are not planned at compile "
                              "time";
  llvm::append_range(offsets, op.getStaticOffsets());
  llvm::append_range(sizes, op.getStaticSizes());
  llvm::append_range(strides, op.getStaticStrides());
  return success();
}

LogicalResult planExtractSlice(PlanBuilder &plan, tensor::ExtractSliceOp op) {
  SmallVector<int64_t> offsets, sizes, steps;
  if (failed(getStaticSlice(op, offsets, sizes, steps)))
    return failure();
  RankedTensorType sourceType = op.getSourceType();
  int64_t source = plan.bufferOf(op.getSource());
  SmallVector<int64_t> stored = getStoredStrides(plan, source, sourceType);
  StridedCopy copy = StridedCopy::intoDense(sizes);
  for (auto [offset, step, stride] : llvm::zip(offsets, steps, stored)) {
    copy.inOffset += offset * stride;
    copy.inStrides.push_back(step * stride);
  }
  return addStridedCopy(plan, op, sourceType.getElementType(), source,
                        plan.bufferOf(op.getResult()), copy);
}

/// Whether the insert_slice `op` may write into its destination's buffer:
/// nothing else reads the destination, whose buffer holds it alone (the
/// result of a fill kernel, or of an insertion that was in place itself).
bool canInsertInPlace(PlanBuilder &plan, tensor::InsertSliceOp op) {
  Value dest = op.getDest();
  return isa_and_nonnull<linalg::FillOp, tensor::InsertSliceOp>(
             dest.getDefiningOp()) &&
         dest.hasOneUse() && !isPadded(plan, dest) &&
         plan.getBuffer(plan.bufferOf(dest)).kind == PlanBuffer::Kind::Temp;
}

LogicalResult planInsertSlice(PlanBuilder &plan, tensor::InsertSliceOp op) {
  SmallVector<int64_t> offsets, sizes, steps;
  if (failed(getStaticSlice(op, offsets, sizes, steps)))
    return failure();
  // The result is the destination with the slice replaced: its buffer, or
  // a copy of it (nothing to copy from a tensor.empty).
  Value result = op.getResult();
  if (canInsertInPlace(plan, op))
    plan.setBuffer(result, plan.bufferOf(op.getDest()));
  else if (!op.getDest().getDefiningOp<tensor::EmptyOp>() &&
           failed(copyWhole(plan, op, op.getDest(), result)))
    return failure();
  RankedTensorType sourceType = op.getSourceType();
  int64_t source = plan.bufferOf(op.getSource());
  SmallVector<int64_t> sourceStrides =
      getStoredStrides(plan, source, sourceType);
  // The source may drop unit dimensions of the slice.
  llvm::SmallBitVector dropped = op.getDroppedDims();
  StridedCopy copy;
  copy.extents = sizes;
  copy.outStrides = getDenseStrides(op.getDestType().getShape());
  for (auto [d, offset, step] : llvm::enumerate(offsets, steps)) {
    copy.outOffset += offset * copy.outStrides[d];
    copy.outStrides[d] *= step;
  }
  int64_t next = 0;
  for (int64_t d = 0, e = sizes.size(); d < e; ++d)
    copy.inStrides.push_back(dropped.test(d) ? 0 : sourceStrides[next++]);
  return addStridedCopy(plan, op, sourceType.getElementType(), source,
                        plan.bufferOf(result), copy);
}

/// Expand and collapse keep the order of the elements: views of a dense
/// buffer, a dense copy of a padded one.
LogicalResult planReshape(PlanBuilder &plan, Operation *op) {
  Value source = op->getOperand(0), result = op->getResult(0);
  if (isPadded(plan, source))
    return copyPaddedToDense(plan, op, source, plan.bufferOf(result));
  plan.setBuffer(result, plan.bufferOf(source));
  return success();
}

/// `value` [H, M, D] (static) merged back from heads: read only by a
/// transpose to [M, H, D]. The transpose.
linalg::TransposeOp getHeadMerge(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != 3 || !type.hasStaticShape() ||
      !value.hasOneUse())
    return {};
  auto transpose = dyn_cast<linalg::TransposeOp>(*value.getUsers().begin());
  if (!transpose || transpose.getInput() != value ||
      transpose.getPermutation() != ArrayRef<int64_t>{1, 0, 2})
    return {};
  return transpose;
}

/// `value` [M, N] split into heads: read only by an expand_shape to [M, H,
/// D] that only a transpose to [H, M, D] reads, D even. The transpose and D.
std::optional<std::pair<linalg::TransposeOp, int64_t>>
getHeadSplit(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      !value.hasOneUse())
    return std::nullopt;
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*value.getUsers().begin());
  if (!expand)
    return std::nullopt;
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  if (groups.size() != 2 || groups[0] != ReassociationIndices{0} ||
      groups[1] != ReassociationIndices{1, 2})
    return std::nullopt;
  // [M, H, D] to [H, M, D] is the same swap of the leading dimensions.
  linalg::TransposeOp transpose = getHeadMerge(expand.getResult());
  int64_t headDim = expand.getResultType().getDimSize(2);
  if (!transpose || headDim % 2 != 0)
    return std::nullopt;
  return std::make_pair(transpose, headDim);
}

/// The remark on a result stored merged from heads, or split into them.
StringRef getHeadLayoutRemark(bool merged) {
  return merged ? "token-major-result" : "head-major-result";
}

} // namespace

FailureOr<int64_t> mlir::fp8::planPermutedCopy(PlanBuilder &plan, Operation *op,
                                               Value input,
                                               ArrayRef<int64_t> permutation) {
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : permutation)
    shape.push_back(inputType.getDimSize(d));
  int64_t output =
      plan.addBuffer(PlanBuffer::Kind::Temp,
                     RankedTensorType::get(shape, inputType.getElementType()));
  if (failed(copyPermuted(plan, op, input, permutation, output)))
    return failure();
  return output;
}

FailureOr<int64_t> mlir::fp8::getGemmOperandBuffer(PlanBuilder &plan,
                                                   Operation *gemm,
                                                   Value operand) {
  auto type = cast<RankedTensorType>(operand.getType());
  int64_t buffer = plan.bufferOf(operand);
  if (type.getRank() < 2 || hasWhole16ByteRows(type) ||
      plan.getBuffer(buffer).pitch)
    return buffer;
  int64_t padded = plan.addBuffer(PlanBuffer::Kind::Temp, type);
  padRows(plan.getBuffer(padded), type);
  SmallVector<int64_t> identity =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  if (failed(copyPermuted(plan, gemm, operand, identity, padded)))
    return failure();
  return padded;
}

linalg::TransposeOp mlir::fp8::chooseHeadLayout(PlanBuilder &plan,
                                                Operation *gemm, Value result,
                                                GemmSM90Config &config) {
  if (!plan.sm90HeadMajorResults)
    return {};
  GemmSM90Config stored = config;
  linalg::TransposeOp transpose;
  std::string what;
  if (config.batched) {
    transpose = getHeadMerge(result);
    stored.outMergedBatches = true;
    what = "its heads are merged into rows by a transpose";
  } else if (std::optional<std::pair<linalg::TransposeOp, int64_t>> split =
                 getHeadSplit(result)) {
    transpose = split->first;
    stored.outHeadDim = split->second;
    what = llvm::formatv("its result is split into heads of {0} by a "
                         "transpose",
                         split->second);
  }
  if (!transpose)
    return {};
  std::string reason;
  if (succeeded(stored.verify(reason))) {
    config = stored;
    return transpose;
  }
  remark::missed(gemm->getLoc(),
                 getFP8GPURemarkOpts(gemm, getHeadLayoutRemark(config.batched)))
      << remark::add("{0}, which keeps its layout kernel: {1}", what, reason);
  return {};
}

void mlir::fp8::foldHeadLayout(PlanBuilder &plan, Operation *gemm, Value result,
                               linalg::TransposeOp transpose) {
  // (A split's expand_shape between them is a view of `result`,
  // planReshape.)
  plan.setBuffer(result, plan.bufferOf(transpose.getResult()[0]));
  plan.foldedTransposes.insert(transpose);
  auto type = cast<RankedTensorType>(transpose.getInput().getType());
  StringRef name = gemm->getName().getStringRef();
  bool merged = transpose.getInput() == result;
  remark::passed(gemm->getLoc(),
                 getFP8GPURemarkOpts(gemm, getHeadLayoutRemark(merged)))
      << (merged ? remark::add("{0} stores the rows of its {1} matrices "
                               "merged ([M, H, D]): the transpose has no "
                               "layout kernel",
                               name, type.getDimSize(0))
                 : remark::add("{0} stores its result split into heads of {1} "
                               "([H, M, D]): the transpose has no layout "
                               "kernel",
                               name, type.getDimSize(2)));
}

std::optional<LogicalResult> mlir::fp8::planLayout(PlanBuilder &plan,
                                                   Operation *op) {
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op))
    return planTranspose(plan, transpose);
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op))
    return planBroadcast(plan, broadcast);
  if (auto extract = dyn_cast<tensor::ExtractSliceOp>(op))
    return planExtractSlice(plan, extract);
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
    return planInsertSlice(plan, insert);
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
    return planReshape(plan, op);
  return std::nullopt;
}
