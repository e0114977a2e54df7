//===- Rows.cpp - Kernels of row groups -----------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The kernel of a RowGroup: CTA r computes row r of the iteration space
// [..., cols], or, where a warp computes a row, warp w of CTA r computes
// row r * rowsPerCta + w (the warps past the last row compute the last one
// again and store nothing). Thread t of a row holds chunks t, t + threads,
// ... of `width` consecutive elements of the row. A value of an op over the
// whole row is computed per element, in registers, from the row's loads; a
// value per row (a reduction, an op over the rows) is computed by every thread.
//
// A reduction combines the f32 terms of a thread's chunks in ascending
// order, starting from the combiner's identity; then the threads of a warp
// by a butterfly of shuffles; then the warps in order through shared memory
// (every thread reads them all); then the op's initial value, last. This is
// the order of a Rows reduction kernel with as many threads per row, fixed
// by the group and its shape alone, so that results repeat bit for bit from
// run to run.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::fp8;

int64_t RowGroup::getRows() const {
  int64_t rows = 1;
  for (int64_t extent : ArrayRef<int64_t>(shape).drop_back())
    rows *= extent;
  return rows;
}

int64_t RowGroup::getCtas() const {
  return llvm::divideCeil(getRows(), rowsPerCta);
}

int64_t RowGroup::getSteps() const {
  return llvm::divideCeil(getChunks(), threads);
}

int64_t RowGroup::getSharedMemoryBytes() const {
  if (threads <= 32)
    return 0;
  int64_t reductions = llvm::count_if(ops, [](Operation *op) {
    return cast<linalg::LinalgOp>(op).getNumReductionLoops() != 0;
  });
  return reductions * (threads / 32) * 4;
}

namespace {

class RowEmitter {
public:
  RowEmitter(KernelBuilder &kb, const RowGroup &group, LLVM::LLVMFuncOp func)
      : kb(kb), group(group), func(func), width(group.width),
        cols(group.shape.back()) {
    members.insert(group.ops.begin(), group.ops.end());
    Block &entry = func.getBody().front();
    for (auto [i, value] : llvm::enumerate(
             llvm::concat<const Value>(group.inputs, group.outputs)))
      params.try_emplace(value, entry.getArgument(i));
  }

  void emit();

private:
  int64_t getSlots() const { return group.getSteps() * width; }
  /// Whether `value` is a result of a group op over the whole row (not a
  /// reduction): one value per element.
  bool isElementValue(Value value) const;
  /// The loop indices of slot `k`: the row's, then the element's column.
  SmallVector<Value> getIndices(int64_t k);

  /// `value`, a group result, at slot `k` of this thread, or of this row.
  Value getElement(Value value, int64_t k);
  Value getRowValue(Value value);
  /// What `operand` of an op over the whole row reads at slot `k`, and what
  /// `operand` of an op over the rows (or a reduction's init) reads.
  Value read(OpOperand &operand, int64_t k);
  Value readRow(OpOperand &operand);
  /// Element `ivs` of the outside tensor `tensor` through `map`.
  Value loadThrough(Value tensor, AffineMap map, ArrayRef<Value> ivs);

  void computeElement(linalg::LinalgOp op, int64_t k);
  void computeRow(linalg::LinalgOp op);
  void reduce(linalg::LinalgOp op);
  void store(Value value, ArrayRef<Value> slots);

  /// The i64 offset, in elements, of chunk `j`'s first element.
  Value getChunkOffset(int64_t j) {
    return kb.add(rowOffset, kb.mul(kb.zext64(chunks[j]), kb.i64(width)));
  }
  Value getElementAddress(Value base, Type element, Value offset) {
    return kb.byteOffset(base,
                         kb.mul(offset, kb.i64(getElementBytes(element))));
  }

  KernelBuilder &kb;
  const RowGroup &group;
  LLVM::LLVMFuncOp func;
  int64_t width, cols;
  llvm::DenseSet<Operation *> members;
  llvm::DenseMap<Value, Value> params;

  Value tid, smem;
  /// Whether this warp's row exists (null when every warp's does).
  Value active;
  /// The row's indices and the element offset of its first element.
  SmallVector<Value> rowIndices;
  Value rowOffset;
  /// Per step: the chunk this thread accesses (the last one when it has
  /// none, so that loads stay in bounds), and whether it has one (null when
  /// every thread has).
  SmallVector<Value> chunks, valid;

  llvm::DenseMap<Value, SmallVector<Value>> elements;
  llvm::DenseMap<Value, Value> rowValues;
  /// Loads through maps: (tensor, map, slot or -1 for loads of the row).
  llvm::DenseMap<std::tuple<Value, AffineMap, int64_t>, Value> loads;
  int64_t reductions = 0;
};

bool RowEmitter::isElementValue(Value value) const {
  Operation *op = value.getDefiningOp();
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && members.contains(op) &&
         linalgOp.getNumReductionLoops() == 0 &&
         linalgOp.getNumLoops() == group.shape.size();
}

SmallVector<Value> RowEmitter::getIndices(int64_t k) {
  SmallVector<Value> ivs(rowIndices);
  int64_t j = k / width, i = k % width;
  ivs.push_back(kb.add(kb.mul(chunks[j], kb.i32(width)), kb.i32(i)));
  return ivs;
}

Value RowEmitter::loadThrough(Value tensor, AffineMap map,
                              ArrayRef<Value> ivs) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return loadElement(kb, params.lookup(tensor), type.getElementType(),
                     getElementOffset(kb, map, type, ivs));
}

Value RowEmitter::read(OpOperand &operand, int64_t k) {
  Value value = operand.get();
  if (members.contains(value.getDefiningOp()))
    return isElementValue(value) ? getElement(value, k) : getRowValue(value);
  auto op = cast<linalg::LinalgOp>(operand.getOwner());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  auto type = cast<RankedTensorType>(value.getType());
  if (map.isIdentity() && type.getShape() == ArrayRef(group.shape)) {
    // The row of a tensor over the whole space: loaded once, a chunk at a
    // time.
    SmallVector<Value> &slots = elements[value];
    if (slots.empty()) {
      Type element = type.getElementType();
      Value base = params.lookup(value);
      for (int64_t j = 0; j < group.getSteps(); ++j) {
        Value offset = getChunkOffset(j);
        if (width == 1)
          slots.push_back(loadElement(kb, base, element, offset));
        else
          llvm::append_range(
              slots, loadElements(kb, element, width,
                                  getElementAddress(base, element, offset),
                                  width * getElementBytes(element)));
      }
    }
    return slots[k];
  }
  // Broadcast vectors and the like, element by element; those that do not
  // vary along the row once.
  bool perRow = !map.isFunctionOfDim(map.getNumDims() - 1);
  Value &loaded = loads[{value, map, perRow ? -1 : k}];
  if (!loaded)
    loaded = loadThrough(value, map, getIndices(k));
  return loaded;
}

Value RowEmitter::readRow(OpOperand &operand) {
  Value value = operand.get();
  if (members.contains(value.getDefiningOp()))
    return getRowValue(value);
  auto op = cast<linalg::LinalgOp>(operand.getOwner());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  Value &loaded = loads[{value, map, -1}];
  if (!loaded)
    loaded = loadThrough(value, map, rowIndices);
  return loaded;
}

Value RowEmitter::getElement(Value value, int64_t k) {
  SmallVector<Value> &slots = elements[value];
  if (slots.empty())
    slots.resize(getSlots());
  if (!slots[k])
    computeElement(cast<linalg::LinalgOp>(value.getDefiningOp()), k);
  return elements[value][k];
}

Value RowEmitter::getRowValue(Value value) {
  if (Value known = rowValues.lookup(value))
    return known;
  auto op = cast<linalg::LinalgOp>(value.getDefiningOp());
  if (op.getNumReductionLoops() != 0)
    reduce(op);
  else
    computeRow(op);
  return rowValues.lookup(value);
}

void RowEmitter::computeElement(linalg::LinalgOp op, int64_t k) {
  IRMapping mapping;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (!arg.use_empty())
      mapping.map(arg, read(operand, k));
  }
  SmallVector<Value> yielded =
      cloneBody(kb.b, *op.getBlock(), mapping, getIndices(k));
  for (auto [result, value] : llvm::zip_equal(op->getResults(), yielded)) {
    SmallVector<Value> &slots = elements[result];
    if (slots.empty())
      slots.resize(getSlots());
    slots[k] = value;
  }
}

void RowEmitter::computeRow(linalg::LinalgOp op) {
  IRMapping mapping;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (!arg.use_empty())
      mapping.map(arg, readRow(operand));
  }
  SmallVector<Value> yielded =
      cloneBody(kb.b, *op.getBlock(), mapping, rowIndices);
  for (auto [result, value] : llvm::zip_equal(op->getResults(), yielded))
    rowValues[result] = value;
}

void RowEmitter::reduce(linalg::LinalgOp op) {
  std::string reason;
  ReductionBody body = *matchReductionBody(op, reason);
  auto combine = [&](Value x, Value y) {
    return combineValues(kb, body.combiner, x, y);
  };
  Value identity = getCombinerIdentity(kb, body.combiner);
  // This thread's terms in ascending order.
  Value total = identity;
  for (int64_t k = 0; k < getSlots(); ++k) {
    IRMapping mapping;
    for (OpOperand *operand : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(operand);
      if (!arg.use_empty())
        mapping.map(arg, read(*operand, k));
    }
    cloneBody(kb.b, *op.getBlock(), mapping, getIndices(k), body.combinerOp);
    Value term = kb.extToF32(mapping.lookupOrDefault(body.term));
    if (Value exists = valid[k / width])
      term = kb.select(exists, term, identity);
    total = combine(total, term);
  }
  total = kb.warpReduce(total, std::min<int64_t>(group.threads, 32), combine);
  if (group.threads > 32) {
    // The warps' values in order, through this reduction's slots.
    int64_t warps = group.threads / 32;
    int64_t first = reductions++ * warps;
    Value warp = kb.udiv(tid, kb.i32(32));
    kb.ifThen(kb.eq(kb.urem(tid, kb.i32(32)), kb.i32(0)), [&] {
      kb.store(
          total,
          kb.byteOffset(
              smem, kb.mul(kb.zext64(kb.add(warp, kb.i32(first))), kb.i64(4))),
          4);
    });
    kb.barrier();
    total = kb.load(kb.f32(), kb.byteOffset(smem, first * 4), 4);
    for (int64_t w = 1; w < warps; ++w)
      total = combine(
          total, kb.load(kb.f32(), kb.byteOffset(smem, (first + w) * 4), 4));
  }
  // The initial value last: a filled constant, or read.
  OpOperand *initOperand = op.getDpsInitOperand(0);
  std::optional<double> filled = getFilledConstant(initOperand->get());
  Value init = filled ? kb.f32(static_cast<float>(*filled))
                      : kb.extToF32(readRow(*initOperand));
  Value result = combine(init, total);
  Type type = body.accumulator.getType();
  if (!type.isF32())
    result = arith::TruncFOp::create(kb.b, kb.loc, type, result);
  rowValues[op->getResult(0)] = result;
}

void RowEmitter::store(Value value, ArrayRef<Value> slots) {
  Value base = params.lookup(value);
  Type element = slots.front().getType();
  for (int64_t j = 0; j < group.getSteps(); ++j) {
    ArrayRef<Value> chunk = slots.slice(j * width, width);
    Value offset = getChunkOffset(j);
    auto write = [&] {
      if (width == 1)
        storeElement(kb, base, chunk.front(), offset);
      else
        storeElements(kb, chunk, getElementAddress(base, element, offset),
                      width * getElementBytes(element));
    };
    Value when = valid[j];
    if (active)
      when = when ? kb.andI(when, active) : active;
    if (when)
      kb.ifThen(when, write);
    else
      write();
  }
}

void RowEmitter::emit() {
  tid = kb.threadId();
  Value row = kb.blockId();
  if (group.rowsPerCta > 1) {
    row =
        kb.add(kb.mul(row, kb.i32(group.rowsPerCta)), kb.udiv(tid, kb.i32(32)));
    tid = kb.urem(tid, kb.i32(32));
    if (group.getRows() % group.rowsPerCta != 0) {
      active = kb.ult(row, kb.i32(group.getRows()));
      row = kb.minU(row, kb.i32(group.getRows() - 1));
    }
  }
  if (group.getSharedMemoryBytes() > 0)
    smem = kb.dynamicSharedMemory(func);
  // The row's indices, innermost fastest.
  ArrayRef<int64_t> outer = ArrayRef<int64_t>(group.shape).drop_back();
  rowIndices.resize(outer.size());
  Value rest = row;
  for (int64_t d = outer.size() - 1; d >= 0; --d) {
    rowIndices[d] = kb.urem(rest, kb.i32(outer[d]));
    rest = kb.udiv(rest, kb.i32(outer[d]));
  }
  rowOffset = kb.mul(kb.zext64(row), kb.i64(cols));
  int64_t count = group.getChunks();
  for (int64_t j = 0; j < group.getSteps(); ++j) {
    Value chunk = kb.add(tid, kb.i32(j * group.threads));
    Value exists;
    if ((j + 1) * group.threads > count) {
      exists = kb.ult(chunk, kb.i32(count));
      chunk = kb.minU(chunk, kb.i32(count - 1));
    }
    chunks.push_back(chunk);
    valid.push_back(exists);
  }

  // The reductions in the order of the block, so that every thread meets
  // their barriers in the same order.
  for (Operation *op : group.ops)
    if (cast<linalg::LinalgOp>(op).getNumReductionLoops() != 0)
      (void)getRowValue(op->getResult(0));
  // The results others read: computed first, then stored (a store under a
  // condition must not be where a later value is first computed).
  SmallVector<std::pair<Value, SmallVector<Value>>> results;
  for (Value output : group.outputs) {
    if (!isElementValue(output)) {
      results.push_back({output, {getRowValue(output)}});
      continue;
    }
    SmallVector<Value> slots;
    for (int64_t k = 0; k < getSlots(); ++k)
      slots.push_back(getElement(output, k));
    results.push_back({output, slots});
  }
  for (auto &[output, slots] : results) {
    if (isElementValue(output)) {
      store(output, slots);
      continue;
    }
    // Row values are the same in every thread: the first stores them.
    Value value = slots.front();
    Value first = kb.eq(tid, kb.i32(0));
    kb.ifThen(active ? kb.andI(first, active) : first, [&] {
      storeElement(kb, params.lookup(output), value, kb.zext64(row));
    });
  }
}

} // namespace

FailureOr<LLVM::LLVMFuncOp> mlir::fp8::buildRowKernel(OpBuilder &builder,
                                                      const RowGroup &group,
                                                      StringRef name,
                                                      std::string &reason) {
  if (LLVM::LLVMFuncOp existing = lookupKernel(builder, name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  Location loc = group.ops.back()->getLoc();
  SmallVector<KernelParamKind> params(
      group.inputs.size() + group.outputs.size(), KernelParamKind::Buffer);
  LLVM::LLVMFuncOp func =
      createKernel(builder, loc, name, params, group.getCtaThreads());
  builder.setInsertionPointToStart(&func.getBody().front());
  KernelBuilder kb(builder, loc);
  RowEmitter(kb, group, func).emit();
  return finishClonedBodyKernel(builder, loc, func, reason);
}
