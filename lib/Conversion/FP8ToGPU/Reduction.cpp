//===- Reduction.cpp - Row and column reduction kernels -------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The reductions around the GEMMs of a model: softmax's max and sum,
// layernorm's and RMSNorm's sums, the row sums of their backward passes and
// the column sums of bias gradients. Every thread combines the f32 terms of
// its part in ascending order, starting from the combiner's identity; the
// threads' values are then combined in a fixed order (a butterfly of
// shuffles in a warp, warps or row lanes in order through shared memory), and
// the op's initial value last. The order of the terms is fixed by the
// configuration and the extents alone, so results repeat bit for bit from run
// to run.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fp8;

namespace {

using P = ReductionParam;
constexpr int64_t kThreads = ReductionConfig::kThreads;
constexpr int64_t kRowLanes = ReductionConfig::kRowLanes;
constexpr int64_t kColLanes = ReductionConfig::kColLanes;
constexpr int64_t kUnroll = ReductionConfig::kUnroll;

class ReductionEmitter : KernelEmitter<ReductionConfig> {
public:
  using KernelEmitter::KernelEmitter;

  void emit() {
    if (config.axis == ReductionConfig::Axis::Rows)
      emitRows();
    else
      emitColumns();
    LLVM::ReturnOp::create(kb.b, kb.loc, ValueRange{});
    if (config.prologue || config.epilogue)
      (void)expandClonedBodyForNVVM(func);
  }

private:
  /// One thread's values, one per accumulator: a row's single value (Rows),
  /// or one per column of its group (Columns).
  using Accumulators = SmallVector<Value>;

  void emitRows();
  void emitColumns();

  Value identity();
  Value combine(Value x, Value y);
  Accumulators combineAll(ArrayRef<Value> x, ArrayRef<Value> y);
  /// The f32 value the combiner takes for the input element `element`: the
  /// prologue's result, extended to f32.
  Value term(Value element);
  /// Combines the terms of this thread's `count` steps into `accumulators`,
  /// step j reading the vector of elements at `address(j)`; Rows combine a
  /// step's elements in order into one value, Columns element i into
  /// accumulator i (and, with `amax`, every element's magnitude into the
  /// last accumulator). The loads of kUnroll steps are issued together; the
  /// terms are combined in ascending j all the same.
  Accumulators accumulate(Value count, function_ref<Value(Value)> address,
                          Accumulators accumulators);

  /// Combines the op's initial values from element `elementIndex` (i32 or
  /// i64) on with `totals` and stores the results there, in the type of the
  /// results.
  void storeResults(ArrayRef<Value> totals, Value elementIndex);

  /// `amax` combined with the magnitude of the input element `element` as
  /// the amax kernels combine it: NaN wins, or does not count (the value is
  /// the same whatever the order).
  Value foldMagnitude(Value amax, Value element);
  /// Folds this thread's `amax` into the Amax buffer: the warp's maximum,
  /// by one atomic of its first lane.
  void storeAmax(Value amax);
  /// How magnitudes combine into the amax: max.NaN.f32, or max.f32, which
  /// returns the operand that is not NaN (the amax starts at 0 and is never
  /// NaN then).
  ReductionCombiner getAmaxCombiner() const {
    return config.amax == NanPolicy::Propagate ? ReductionCombiner::Maximum
                                               : ReductionCombiner::MaxNum;
  }

  /// `base` + `index` elements of `bytes` bytes each, in i64 arithmetic
  /// (an i32 `index` is zero-extended).
  Value elementAddress(Value base, Value index, int64_t bytes) {
    if (index.getType().isInteger(32))
      index = kb.zext64(index);
    return kb.byteOffset(base, kb.mul(index, kb.i64(bytes)));
  }
  Type inputType() { return getElementType(kb.b, config.input); }
  Type outType() { return getElementType(kb.b, config.out); }
  int64_t outBytes() const { return config.out == WideElement::F32 ? 4 : 2; }
};

Value ReductionEmitter::identity() {
  return getCombinerIdentity(kb, config.combiner);
}

Value ReductionEmitter::combine(Value x, Value y) {
  return combineValues(kb, config.combiner, x, y);
}

ReductionEmitter::Accumulators ReductionEmitter::combineAll(ArrayRef<Value> x,
                                                            ArrayRef<Value> y) {
  Accumulators result;
  for (auto [a, c] : llvm::zip_equal(x, y))
    result.push_back(combine(a, c));
  return result;
}

Value ReductionEmitter::term(Value element) {
  Value value = element;
  if (Operation *op = config.prologue) {
    // The body's ops but the combiner, on this element; the combiner's
    // other operand is the term.
    std::string reason;
    ReductionBody match = *matchReductionBody(op, reason);
    Block &body = op->getRegion(0).front();
    IRMapping mapping;
    mapping.map(body.getArgument(0), element);
    cloneBody(kb.b, body, mapping, {}, match.combinerOp);
    value = mapping.lookupOrDefault(match.term);
  }
  return kb.extToF32(value);
}

ReductionEmitter::Accumulators
ReductionEmitter::accumulate(Value count, function_ref<Value(Value)> address,
                             Accumulators accumulators) {
  int64_t width = config.getVectorWidth();
  unsigned alignment = width * config.getInputBytes();
  bool perElement = config.axis == ReductionConfig::Axis::Columns;
  auto steps = [&](ValueRange carried, ArrayRef<Value> js) {
    SmallVector<SmallVector<Value>> loaded;
    for (Value j : js)
      loaded.push_back(
          loadElements(kb, inputType(), width, address(j), alignment));
    Accumulators result(carried);
    for (ArrayRef<Value> elements : loaded)
      for (auto [i, element] : llvm::enumerate(elements)) {
        Value &acc = result[perElement ? i : 0];
        acc = combine(acc, term(element));
        if (config.amax)
          result.back() = foldMagnitude(result.back(), element);
      }
    return result;
  };
  Value unrolled = kb.sub(count, kb.urem(count, kb.i32(kUnroll)));
  ValueRange carried =
      kb.forLoop(kb.i32(0), unrolled, kb.i32(kUnroll), accumulators,
                 [&](Value j, ValueRange carried) {
                   SmallVector<Value> js;
                   for (int64_t u = 0; u < kUnroll; ++u)
                     js.push_back(kb.add(j, kb.i32(u)));
                   return steps(carried, js);
                 });
  return kb.forLoop(
      unrolled, count, kb.i32(1), carried,
      [&](Value j, ValueRange carried) { return steps(carried, {j}); });
}

void ReductionEmitter::storeResults(ArrayRef<Value> totals,
                                    Value elementIndex) {
  int64_t count = totals.size();
  SmallVector<Value> inits;
  if (config.initValue)
    inits.assign(count, kb.f32(*config.initValue));
  else
    inits =
        loadElements(kb, outType(), count,
                     elementAddress(getArg(P::Init), elementIndex, outBytes()),
                     count * outBytes());
  SmallVector<Value> results;
  for (auto [init, total] : llvm::zip_equal(inits, totals)) {
    Value result = combine(kb.extToF32(init), total);
    if (!outType().isF32())
      result = arith::TruncFOp::create(kb.b, kb.loc, outType(), result);
    if (Operation *op = config.epilogue) {
      // The epilogue's body on the result, its only read.
      auto linalgOp = cast<linalg::LinalgOp>(op);
      IRMapping mapping;
      for (OpOperand &operand : op->getOpOperands())
        if (BlockArgument arg = linalgOp.getMatchingBlockArgument(&operand);
            !arg.use_empty())
          mapping.map(arg, result);
      result = cloneBody(kb.b, *linalgOp.getBlock(), mapping).front();
    }
    results.push_back(result);
  }
  int64_t bytes = getElementBytes(results.front().getType());
  storeElements(kb, results,
                elementAddress(getArg(P::Out), elementIndex, bytes),
                count * bytes);
}

Value ReductionEmitter::foldMagnitude(Value amax, Value element) {
  return combineValues(kb, getAmaxCombiner(), amax,
                       kb.absBits(kb.extToF32(element)));
}

void ReductionEmitter::storeAmax(Value amax) {
  amax = kb.warpReduce(amax, 32, [&](Value x, Value y) {
    return combineValues(kb, getAmaxCombiner(), x, y);
  });
  kb.ifThen(kb.eq(kb.urem(kb.threadId(), kb.i32(32)), kb.i32(0)),
            [&] { kb.atomicMaxNonNegative(getArg(P::Amax), amax); });
}

void ReductionEmitter::emitRows() {
  Value rows = getArg(P::Rows), cols = getArg(P::Cols);
  int64_t width = config.getVectorWidth();
  int64_t rowThreads = config.rowThreads;
  Value tid = kb.threadId();
  Value lane = kb.urem(tid, kb.i32(rowThreads));
  Value row = kb.add(kb.mul(kb.blockId(), kb.i32(config.getRowsPerBlock())),
                     kb.udiv(tid, kb.i32(rowThreads)));
  // The last CTA's rows past the matrix read nothing but shuffle along.
  Value inRange = kb.ult(row, rows);
  Value chunks = kb.udiv(cols, kb.i32(width));
  Value count = kb.select(
      arith::AndIOp::create(kb.b, kb.loc, inRange, kb.ult(lane, chunks)),
      kb.ceilDiv(kb.sub(chunks, lane), kb.i32(rowThreads)), kb.i32(0));
  Value rowBase =
      elementAddress(getArg(P::Input), kb.mul(kb.zext64(row), kb.zext64(cols)),
                     config.getInputBytes());
  // Step j of a lane reads chunk lane + j * rowThreads of the row.
  auto address = [&](Value j) {
    Value chunk = kb.add(lane, kb.mul(j, kb.i32(rowThreads)));
    return elementAddress(rowBase, chunk, width * config.getInputBytes());
  };
  Value total = accumulate(count, address, {identity()})[0];
  auto combineFn = [&](Value x, Value y) { return combine(x, y); };
  total = kb.warpReduce(total, std::min<int64_t>(rowThreads, 32), combineFn);
  if (rowThreads > 32) {
    // The warps' values in order, through shared memory.
    Value smem = kb.dynamicSharedMemory(func);
    Value warp = kb.udiv(tid, kb.i32(32));
    kb.ifThen(kb.eq(kb.urem(tid, kb.i32(32)), kb.i32(0)),
              [&] { kb.store(total, elementAddress(smem, warp, 4), 4); });
    kb.barrier();
    total = kb.load(kb.f32(), smem, 4);
    for (int64_t w = 1; w < rowThreads / 32; ++w)
      total = combine(total, kb.load(kb.f32(), kb.byteOffset(smem, w * 4), 4));
  }
  kb.ifThen(
      arith::AndIOp::create(kb.b, kb.loc, inRange, kb.eq(lane, kb.i32(0))),
      [&] { storeResults({total}, row); });
}

void ReductionEmitter::emitColumns() {
  Value rows = getArg(P::Rows), cols = getArg(P::Cols);
  Value splitRows = getArg(P::SplitRows);
  int64_t width = config.getVectorWidth();
  int64_t inputBytes = config.getInputBytes();
  Value tid = kb.threadId();
  Value rowLane = kb.udiv(tid, kb.i32(kColLanes));
  Value colLane = kb.urem(tid, kb.i32(kColLanes));
  // This thread's group of `width` columns, split of the rows and batch.
  Value group = kb.add(kb.mul(kb.blockId(), kb.i32(kColLanes)), colLane);
  Value split = NVVM::BlockIdYOp::create(kb.b, kb.loc, kb.i32());
  Value batch = NVVM::BlockIdZOp::create(kb.b, kb.loc, kb.i32());
  Value active = kb.ult(group, kb.udiv(cols, kb.i32(width)));
  Value first = kb.add(kb.mul(split, splitRows), rowLane);
  Value end = kb.minU(rows, kb.add(kb.mul(split, splitRows), splitRows));
  Value count =
      kb.select(arith::AndIOp::create(kb.b, kb.loc, active, kb.ult(first, end)),
                kb.ceilDiv(kb.sub(end, first), kb.i32(kRowLanes)), kb.i32(0));
  // Step j reads row first + j * kRowLanes of the batch's matrix.
  Value column = kb.mul(group, kb.i32(width));
  Value columnBase = elementAddress(
      getArg(P::Input),
      kb.add(kb.mul(kb.mul(kb.zext64(batch), kb.zext64(rows)), kb.zext64(cols)),
             kb.zext64(column)),
      inputBytes);
  auto address = [&](Value j) {
    Value row = kb.add(first, kb.mul(j, kb.i32(kRowLanes)));
    return elementAddress(columnBase, kb.mul(kb.zext64(row), kb.zext64(cols)),
                          inputBytes);
  };
  Accumulators inits(width, identity());
  if (config.amax)
    inits.push_back(kb.f32(0.0f));
  Accumulators totals = accumulate(count, address, inits);
  if (config.amax)
    storeAmax(totals.pop_back_val());

  // The row lanes' values in order, through shared memory.
  Value smem = kb.dynamicSharedMemory(func);
  unsigned slotBytes = width * 4;
  auto slot = [&](Value lane) {
    return elementAddress(
        smem, kb.add(kb.mul(lane, kb.i32(kColLanes)), colLane), slotBytes);
  };
  storeElements(kb, totals, slot(rowLane), std::min<unsigned>(slotBytes, 16));
  kb.barrier();
  kb.ifThen(
      arith::AndIOp::create(kb.b, kb.loc, active, kb.eq(rowLane, kb.i32(0))),
      [&] {
        Accumulators sums = loadElements(kb, kb.f32(), width, slot(kb.i32(0)),
                                         std::min<unsigned>(slotBytes, 16));
        for (int64_t l = 1; l < kRowLanes; ++l)
          sums = combineAll(sums,
                            loadElements(kb, kb.f32(), width, slot(kb.i32(l)),
                                         std::min<unsigned>(slotBytes, 16)));
        if (config.partial) {
          // Partials [batches, splits, cols].
          Value splits = kb.ceilDiv(rows, splitRows);
          Value index =
              kb.add(kb.mul(kb.zext64(kb.add(kb.mul(batch, splits), split)),
                            kb.zext64(cols)),
                     kb.zext64(column));
          storeElements(kb, sums, elementAddress(getArg(P::Partials), index, 4),
                        std::min<unsigned>(slotBytes, 16));
          return;
        }
        storeResults(sums, kb.add(kb.mul(kb.zext64(batch), kb.zext64(cols)),
                                  kb.zext64(column)));
      });
}

} // namespace

Value mlir::fp8::getCombinerIdentity(KernelBuilder &kb,
                                     ReductionCombiner combiner) {
  switch (combiner) {
  case ReductionCombiner::Add:
    // -0 + x is x for every x, -0 included.
    return kb.f32(-0.0f);
  case ReductionCombiner::Mul:
    return kb.f32(1.0f);
  case ReductionCombiner::Maximum:
  case ReductionCombiner::MaxNum:
    return kb.f32(-INFINITY);
  case ReductionCombiner::Minimum:
  case ReductionCombiner::MinNum:
    return kb.f32(INFINITY);
  }
  llvm_unreachable("unknown combiner");
}

Value mlir::fp8::combineValues(KernelBuilder &kb, ReductionCombiner combiner,
                               Value x, Value y) {
  OpBuilder &b = kb.b;
  switch (combiner) {
  case ReductionCombiner::Add:
    return kb.addf(x, y);
  case ReductionCombiner::Mul:
    return kb.mulf(x, y);
  case ReductionCombiner::Maximum:
    return arith::MaximumFOp::create(b, kb.loc, x, y);
  case ReductionCombiner::Minimum:
    return arith::MinimumFOp::create(b, kb.loc, x, y);
  // LLVM's maxnum/minnum select to max.f32/min.f32, which return the
  // operand that is not NaN; arith's would call libdevice.
  case ReductionCombiner::MaxNum:
    return LLVM::MaxNumOp::create(b, kb.loc, x, y);
  case ReductionCombiner::MinNum:
    return LLVM::MinNumOp::create(b, kb.loc, x, y);
  }
  llvm_unreachable("unknown combiner");
}

/// The combiner of the body op `op`, if it is one.
static std::optional<ReductionCombiner> getCombiner(Operation *op) {
  if (isa<arith::AddFOp>(op))
    return ReductionCombiner::Add;
  if (isa<arith::MulFOp>(op))
    return ReductionCombiner::Mul;
  if (isa<arith::MaximumFOp>(op))
    return ReductionCombiner::Maximum;
  if (isa<arith::MinimumFOp>(op))
    return ReductionCombiner::Minimum;
  if (isa<arith::MaxNumFOp>(op))
    return ReductionCombiner::MaxNum;
  if (isa<arith::MinNumFOp>(op))
    return ReductionCombiner::MinNum;
  return std::nullopt;
}

FailureOr<ReductionBody> mlir::fp8::matchReductionBody(Operation *op,
                                                       std::string &reason) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInits() != 1) {
    reason = "it does not reduce into one init";
    return failure();
  }
  Block *body = linalgOp.getBlock();
  BlockArgument acc =
      linalgOp.getMatchingBlockArgument(linalgOp.getDpsInitOperand(0));
  Value yielded = body->getTerminator()->getOperand(0);
  Operation *combinerOp = yielded.getDefiningOp();
  std::optional<ReductionCombiner> combiner;
  if (combinerOp && combinerOp->getBlock() == body)
    combiner = getCombiner(combinerOp);
  if (!combiner || !acc.hasOneUse() || !yielded.hasOneUse() ||
      *acc.getUsers().begin() != combinerOp ||
      combinerOp->getOperand(0) == combinerOp->getOperand(1)) {
    reason = "its body does not yield one addf, mulf, maximumf, minimumf, "
             "maxnumf or minnumf of the accumulator and a value of the input "
             "element";
    return failure();
  }
  ReductionBody result;
  result.combiner = *combiner;
  result.combinerOp = combinerOp;
  result.accumulator = acc;
  result.term = combinerOp->getOperand(0) == acc ? combinerOp->getOperand(1)
                                                 : combinerOp->getOperand(0);
  return result;
}

std::optional<double> mlir::fp8::getFilledConstant(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  FloatAttr constant;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&constant)))
    return std::nullopt;
  return constant.getValueAsDouble();
}

LLVM::LLVMFuncOp
mlir::fp8::buildReductionKernel(OpBuilder &builder, Location loc,
                                const ReductionConfig &config) {
  return buildKernel<ReductionEmitter>(builder, loc, config);
}
