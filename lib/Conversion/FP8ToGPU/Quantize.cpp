//===- Quantize.cpp - Amax and quantize kernels ---------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The elementwise kernels of fp8.dynamic_quantize: a CTA of 256 threads owns
// a 32 x 128 tile; each thread reads 16 consecutive elements of one row (two
// or four 16-byte loads where the row length keeps them aligned).
//
//   1. |x| (0 for NaN when NaNs are ignored) is reduced over the tile's
//      part of every scale block. Blocks of one row and whole runs (1 x
//      16k) take each thread's maximum, then shuffles among the block's
//      lanes; blocks of one column of the sub-tile take shuffles among the
//      four rows of a warp, then the warps' maxima through shared memory.
//      Other blocks go to shared memory and are reduced by 256 / (blocks
//      per tile) threads, 16 elements each, then across lanes with
//      shuffles (and warps through shared memory).
//   2. Amax phase: one atomic max per block part into the amax buffer (f32
//      bits compared as unsigned integers: NaN > inf > finite >= +0).
//      Quantize phase: the block's amax (reduced here when the block lies in
//      the tile, else read from the amax buffer) gives the scale by the
//      op's rule (docs/numerics.md section 4, the builders the CPU reference
//      uses), the tile owning the block's first element stores it, and the
//      encode multiplier goes to shared memory.
//   3. Codes: fl32(x * m) rounded by cvt.rn.satfinite.{e4m3,e5m2}x2.f32 in
//      saturate mode (by the soft-float conversion otherwise, and for
//      stochastic rounding with one random word per element), 16 bytes per
//      thread, stored directly or transposed through shared memory.
//
// Quantizing by given scales (fp8.quantize) skips the amax: step 2 reads
// each block's scale and derives its encode multiplier as the CPU reference
// does.
// A batched kernel quantizes matrix blockIdx.y of a batch as the kernel
// quantizes one matrix.
// The amax of a whole matrix (QuantizeConfig::wholeMatrixAmax) skips the
// shared memory: a CTA walks tiles in a grid-stride loop, each thread
// folding the magnitudes of its runs into a running maximum, and each warp
// folds its threads' into the amax buffer with one atomic.
// A kernel with a prologue (QuantizeConfig::prologue) loads the inputs of
// the elementwise op producing its input instead, and computes each element
// with a clone of the op's body: elements outside the matrix are 0 as
// loaded ones are.
// A paired kernel (QuantizeConfig::pair) writes the row-wise and the
// column-wise copy of a dynamic_quantize from one read: steps 1-3 run for
// each copy on the runs each thread keeps in registers. Its tile may have 128
// rows, four 32-row sub-tiles of one run per thread each, so that blocks of
// 128 rows lie inside it: each sub-tile reduces its part of such a block,
// and the parts' maximum gives the block's amax.
// The pair of 1 x 128 row blocks and 128 x 1 column blocks (DeepSeek's
// activations and gradients, QuantizeConfig::isRowColumnPair) has an
// emitter of its own (emitRowColumnPair): all of a thread's loads first,
// the rows and columns reduced by shuffles and one exchange in shared
// memory, the transposed codes written through shared memory as words:
// three barriers. It and the whole-matrix amax fold magnitudes in the
// input's type, 16-bit ones as pairs (max.bf16x2: IEEE maxNum, which a NaN
// never wins over the initial 0, so ignored NaNs take no test).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/Utils/ScaleRules.h"
#include "fp8/Dialect/FP8/Utils/SoftFloat.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr int64_t kTileRows = QuantizeConfig::kTileRows;
constexpr int64_t kPairTileRows = QuantizeConfig::kPairTileRows;
constexpr int64_t kTileCols = QuantizeConfig::kTileCols;
constexpr int64_t kThreads = QuantizeConfig::kThreads;
constexpr int64_t kPerThread = QuantizeConfig::kElementsPerThread; // 16
constexpr int64_t kThreadsPerRow = kTileCols / kPerThread;         // 8

// Shared memory: |x| of the tile (f32), the codes of the tile, one f32 per
// block of the tile, one f32 per warp.
constexpr int64_t kAbsOffset = 0;
constexpr int64_t kCodesOffset = kAbsOffset + kTileRows * kTileCols * 4;
constexpr int64_t kBlockOffset = kCodesOffset + kTileRows * kTileCols;
constexpr int64_t kWarpOffset = kBlockOffset + kThreads * 4;
constexpr int64_t kSharedBytes = kWarpOffset + kThreads / 32 * 4;

} // namespace

int64_t QuantizeConfig::getSharedMemoryBytes() const {
  return wholeMatrixAmax ? 0 : kSharedBytes;
}

namespace {

class QuantizeEmitter : KernelEmitter<QuantizeConfig> {
public:
  using KernelEmitter::KernelEmitter;

  void emit();

private:
  /// Returns from the kernel and expands what the NVVM lowering does not
  /// lower.
  void finish();
  /// The arguments of one copy: its amax buffer, codes, scales, blocks,
  /// pitch and (tcgen05Scales) chunks per band of the scale layout.
  struct CopyArgs {
    Value amaxBuffer, codes, scales, blockRows, blockCols, pitch, scaleKChunks;
  };

  Value input, amaxBuffer, codes, scales, rows, cols, blockRows, blockCols;
  /// The column-wise copy's arguments (QuantizeConfig::pair).
  CopyArgs pairArgs;
  /// Elements between rows of the codes (the row length, or more for rows
  /// padded to 16 bytes).
  Value pitch;
  /// NVFP4: the global decode scale output, or the given global encode
  /// scale; tcgen05Scales: chunks per band; stochastic: the random words.
  Value globalScale, scaleKChunks, randomBits;
  /// The inputs of the prologue, in its order.
  SmallVector<Value> prologueInputs;
  /// The origin of the (sub-)tile the steps below work on.
  Value smem, tid, row0, col0;
  /// The configuration of the copy being emitted: the kernel's, or that of
  /// its column-wise copy (or of part of its blocks, see emitCopy).
  const QuantizeConfig *current = &config;

  const QuantizeConfig &copy() const { return *current; }
  void selectCopy(const QuantizeConfig &copyConfig, const CopyArgs &copyArgs);
  /// Reduces, scales and quantizes (or only reduces, in the Amax phase) the
  /// current copy of the tile whose run of this thread in sub-tile `s` (of
  /// kTileRows rows, at `runRows[s]` and column `col`) is `runOf(s)`.
  void emitCopy(function_ref<Value(int64_t)> runOf, ArrayRef<Value> runRows,
                Value tileRow0, Value col);
  /// |values| (f32, bf16 or f16), with NaNs as 0 when they are ignored.
  Value getMagnitudes(Value values);

  int64_t blocksPerTileRow() const { return kTileCols / copy().tileBlockCols; }
  /// A block spanning the sub-tiles counts once.
  int64_t blocksPerTile() const {
    return std::max(kTileRows, copy().tileBlockRows) / copy().tileBlockRows *
           blocksPerTileRow();
  }
  int64_t threadsPerBlock() const { return kThreads / blocksPerTile(); }
  bool propagate() const { return copy().nanPolicy == NanPolicy::Propagate; }

  Value shared(int64_t offset, Value index, int64_t elementBytes) {
    return kb.byteOffset(kb.byteOffset(smem, offset),
                         kb.mul(index, kb.i32(elementBytes)));
  }
  /// The 16 elements of this thread as f32 (0 outside the matrix).
  Value loadElements(Value row, Value col);
  /// The 16 elements of `element` at (row, col..col+15) of the [rows, cols]
  /// row-major `base` as a vector of `result` (the same type, or f32 that
  /// `element` extends to); 0 outside the matrix.
  Value loadRun(Value base, Type element, Type result, Value row, Value col) {
    return loadRun(base, element, result, row, col, rows, cols,
                   copy().vectorLoads);
  }
  /// loadRun of a [rowCount, colCount] matrix, by 16-byte loads if
  /// `vectorLoads` (its rows keep them aligned).
  Value loadRun(Value base, Type element, Type result, Value row, Value col,
                Value rowCount, Value colCount, bool vectorLoads);
  /// The prologue's elements at (row, col..col+15) as f32: its body on the
  /// elements of its inputs there, 0 outside the matrix.
  Value computePrologue(Value row, Value col);
  /// The 16 elements of prologue input `input` (at `base`) that the
  /// elements at (row, col..col+15) read.
  SmallVector<Value> loadPrologueInput(const QuantizePrologue::Input &input,
                                       Value base, Value row, Value col);
  /// The encode multiplier of the given scale at `index` of the scales.
  Value loadGivenMultiplier(Value index);
  /// Element `i` of `vector`.
  Value element(Value vector, int64_t i) {
    return LLVM::ExtractElementOp::create(kb.b, kb.loc, vector, kb.i32(i));
  }
  /// The magnitudes of the tile's block parts, reduced into shared memory
  /// (one f32 per block of the tile).
  void reduceBlocks(Value magnitudes);
  /// The maxima of the tile's 128 columns over the kTileRows rows that the
  /// runs of the sub-tile hold (`maximumOf(i)`: this thread's maximum of
  /// its column i, f32): shuffles between the four rows of a warp, then the
  /// warps' maxima through shared memory at `offset` (8 x 128 f32), after
  /// which thread c < 128 passes column c's amax to `useAmax`.
  void reduceColumns(function_ref<Value(int64_t)> maximumOf, int64_t offset,
                     function_ref<void(Value)> useAmax);
  /// reduceBlocks of blocks of one column of the sub-tile (kTileRows x 1):
  /// shuffles between the four rows of a warp, then the warps' maxima in
  /// shared memory.
  void reduceColumnBlocks(Value magnitudes);
  /// The first element of block `j` of the tile.
  std::pair<Value, Value> blockOrigin(Value j);
  /// Batched kernels: points the input, the row-wise copy's `rowArgs` and
  /// the column-wise copy's pairArgs at matrix `batch` of the batch.
  void moveToMatrix(Value batch, CopyArgs &rowArgs);
  /// Points `args`, those of the copy `copyConfig`, at matrix `batch`: its
  /// amaxes and scales `amaxStride` and `scaleStride` bytes (i32) apart,
  /// its codes one matrix of them apart.
  void moveCopyToMatrix(Value batch, const QuantizeConfig &copyConfig,
                        CopyArgs &args, Value scaleStride, Value amaxStride);
  void emitAmaxUpdate();
  /// The body of a QuantizeConfig::isRowColumnPair kernel over the tile at
  /// (`tileRow0`, col0), this thread's runs at rows `runRows` and column
  /// `col`.
  void emitRowColumnPair(Value tileRow0, ArrayRef<Value> runRows, Value col);
  /// The wholeMatrixAmax kernel's body.
  void emitWholeMatrixAmax();
  void emitScales();
  /// Stores `scale` (what the rule gave) as the scale of the current copy's
  /// block whose first element is (r, c), when (r, c) is one and lies in
  /// the matrix.
  void storeBlockScale(Value r, Value c, Value scale);
  /// The 16 E4M3 or E5M2 codes (a vector of 16 bytes) of the `scaled`
  /// values, stochastically rounded with `bits` where the copy asks.
  Value packCodes(ArrayRef<Value> scaled, ArrayRef<Value> unscaled,
                  ArrayRef<Value> bits);
  /// The codes of this thread's `values`, stochastically rounded with
  /// `words` (16 x i32) when the configuration asks.
  void emitCodes(Value values, Value words, Value row, Value col);
  /// The codes of the scaled `lo` and `hi` (a NaN's from `unscaledLo` and
  /// `unscaledHi`, as the CPU reference's multiply keeps it).
  Value convertPair(Value lo, Value hi, Value unscaledLo, Value unscaledHi,
                    Value loBits, Value hiBits);
  /// The fp8.convert of `v` to `type` under the configuration's rounding
  /// and overflow (`rbits` for stochastic rounding), as its code bits.
  Value softCode(Type type, Value v, Value rbits);
  /// NVFP4: the global encode scale S from the tensor's amax.
  Value emitGlobalScale();
  /// Stores block scale code `code` at (operand row, k-block) of the
  /// tensor-memory scale layout for every row its block covers.
  void emitTcgen05ScaleStore(Value code, Value r, Value c, Value blockR,
                             Value blockC);
  /// E2M1 codes of the `scaled` values, packed two per byte; a NaN's is the
  /// zero of its `unscaled` element's sign.
  void emitE2M1Codes(ArrayRef<Value> scaled, ArrayRef<Value> unscaled,
                     ArrayRef<Value> bits, Value row, Value col);
  /// Stores the codes of the transposed tile: this thread's 16 codes
  /// `codes` (one per byte) go to shared memory at (`myRow`, `myCol`) of the
  /// tile; each thread then reads 16 rows of one column, code(i) being the
  /// i-th, and stores what `pack` makes of them.
  void
  storeTransposed(Value codes, Value myRow, Value myCol,
                  function_ref<Value(function_ref<Value(int64_t)> code)> pack);
  /// Stores the 16 codes in `vector` (16 bytes, or 8 of packed E2M1) at
  /// code `start` of row `r` (of `rowCount`) of `rowLength` codes: whole
  /// when the row holds them and stores are aligned, else byte by byte
  /// within the row (E2M1 codes past the row are 0 and share a byte with the
  /// last valid one or none).
  void storeRun(Value vector, Value r, Value rowCount, Value start,
                Value rowLength);
};

Value QuantizeEmitter::loadElements(Value row, Value col) {
  if (config.prologue)
    return computePrologue(row, col);
  return loadRun(input, getElementType(kb.b, copy().input), kb.f32(), row, col);
}

SmallVector<Value>
QuantizeEmitter::loadPrologueInput(const QuantizePrologue::Input &input,
                                   Value base, Value row, Value col) {
  // Byte-sized floats (codes) are loaded as their bytes.
  Type stored = input.element;
  if (isSoftFloatType(stored))
    stored = kb.b.getIntegerType(getElementBytes(stored) * 8);
  auto fromStored = [&](Value v) {
    return stored == input.element ? v : kb.bitcast(input.element, v);
  };
  SmallVector<Value> elements;
  switch (input.read) {
  case ElementRead::Matrix:
  case ElementRead::Column: {
    // A row vector is a matrix of one row; a run at a multiple of 16
    // columns of it is 16-byte aligned.
    bool column = input.read == ElementRead::Column;
    Value run =
        loadRun(base, stored, stored, column ? kb.i32(0) : row, col,
                column ? kb.i32(1) : rows, cols, column || input.vectorLoads);
    for (int64_t i = 0; i < kPerThread; ++i)
      elements.push_back(fromStored(
          LLVM::ExtractElementOp::create(kb.b, kb.loc, run, kb.i32(i))));
    return elements;
  }
  case ElementRead::Row:
  case ElementRead::Scalar: {
    // One value for the 16 elements (rows past the matrix read its last).
    Value index = input.read == ElementRead::Row
                      ? kb.zext64(kb.minU(row, kb.sub(rows, kb.i32(1))))
                      : kb.i64(0);
    Value v = loadElement(kb, base, input.element, index);
    elements.assign(kPerThread, v);
    return elements;
  }
  }
  llvm_unreachable("unknown element read");
}

Value QuantizeEmitter::computePrologue(Value row, Value col) {
  const QuantizePrologue &prologue = *config.prologue;
  SmallVector<SmallVector<Value>> inputs;
  for (auto [input, base] : llvm::zip_equal(prologue.inputs, prologueInputs))
    inputs.push_back(loadPrologueInput(input, base, row, col));
  // Constants the body captures are cloned once.
  Block *body = prologue.body;
  auto vectorType = VectorType::get({kPerThread}, kb.f32());
  Value result = LLVM::UndefOp::create(kb.b, kb.loc, vectorType);
  Value rowIn = kb.ult(row, rows);
  for (int64_t i = 0; i < kPerThread; ++i) {
    IRMapping mapping;
    for (auto [input, elements] : llvm::zip_equal(prologue.inputs, inputs))
      mapping.map(body->getArgument(input.argument), elements[i]);
    Value v = kb.extToF32(cloneBody(kb.b, *body, mapping).front());
    // As loaded elements: 0 outside the matrix, whatever the body makes of
    // the zeros read there.
    Value in = arith::AndIOp::create(kb.b, kb.loc, rowIn,
                                     kb.ult(kb.add(col, kb.i32(i)), cols));
    v = kb.select(in, v, kb.f32(0.0f));
    result = LLVM::InsertElementOp::create(kb.b, kb.loc, result, v, kb.i32(i));
  }
  return result;
}

Value QuantizeEmitter::loadRun(Value base, Type element, Type result, Value row,
                               Value col, Value rowCount, Value colCount,
                               bool vectorLoads) {
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  auto loadedVector = VectorType::get({kPerThread}, element);
  auto resultVector = VectorType::get({kPerThread}, result);
  auto widen = [&](Value v, Type type) -> Value {
    if (element == result)
      return v;
    return arith::ExtFOp::create(kb.b, kb.loc, type, v);
  };
  auto offsetOf = [&](Value r, Value c) {
    Value index =
        kb.add(kb.mul(kb.zext64(r), kb.zext64(colCount)), kb.zext64(c));
    return kb.mul(index, kb.i64(elementBytes));
  };
  auto scalarPath = [&]() -> Value {
    Value vector = LLVM::UndefOp::create(kb.b, kb.loc, resultVector);
    Value maxRow = kb.sub(rowCount, kb.i32(1));
    Value maxCol = kb.sub(colCount, kb.i32(1));
    Value rowIn = kb.ult(row, rowCount);
    for (int64_t i = 0; i < kPerThread; ++i) {
      Value c = kb.add(col, kb.i32(i));
      Value in =
          arith::AndIOp::create(kb.b, kb.loc, rowIn, kb.ult(c, colCount));
      // Clamped addresses are always valid; elements outside become 0.
      Value address = kb.byteOffset(
          base, offsetOf(kb.minU(row, maxRow), kb.minU(c, maxCol)));
      Value v = widen(kb.load(element, address, elementBytes), result);
      Value zero =
          arith::ConstantOp::create(kb.b, kb.loc, kb.b.getZeroAttr(result));
      v = kb.select(in, v, zero);
      vector =
          LLVM::InsertElementOp::create(kb.b, kb.loc, vector, v, kb.i32(i));
    }
    return vector;
  };
  // Rows aligned for vector loads of the input are aligned for the random
  // words too: they are as wide or wider.
  if (!vectorLoads)
    return scalarPath();
  Value whole =
      arith::AndIOp::create(kb.b, kb.loc, kb.ult(row, rowCount),
                            kb.cmp(arith::CmpIPredicate::ule,
                                   kb.add(col, kb.i32(kPerThread)), colCount));
  auto ifOp = scf::IfOp::create(kb.b, kb.loc, TypeRange{resultVector}, whole,
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(kb.b);
    kb.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value v =
        kb.load(loadedVector, kb.byteOffset(base, offsetOf(row, col)), 16);
    scf::YieldOp::create(kb.b, kb.loc, widen(v, resultVector));
    kb.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(kb.b, kb.loc, scalarPath());
  }
  return ifOp.getResult(0);
}

std::pair<Value, Value> QuantizeEmitter::blockOrigin(Value j) {
  Value r = kb.add(row0, kb.mul(kb.udiv(j, kb.i32(blocksPerTileRow())),
                                kb.i32(copy().tileBlockRows)));
  Value c = kb.add(col0, kb.mul(kb.urem(j, kb.i32(blocksPerTileRow())),
                                kb.i32(copy().tileBlockCols)));
  return {r, c};
}

void QuantizeEmitter::reduceBlocks(Value magnitudes) {
  if (copy().tileBlockCols == 1 && copy().tileBlockRows == kTileRows)
    return reduceColumnBlocks(magnitudes);
  int64_t perBlock = threadsPerBlock();
  Value j = kb.udiv(tid, kb.i32(perBlock));
  Value part = kb.urem(tid, kb.i32(perBlock));
  Value max = kb.f32(0.0f);
  if (copy().tileBlockRows == 1 && copy().tileBlockCols % kPerThread == 0) {
    // Blocks of one row and whole runs (1 x 16k): a block is the runs of
    // `perBlock` consecutive lanes, so each thread takes its own run's
    // maximum, without shared memory.
    for (int64_t i = 0; i < kPerThread; ++i)
      max = kb.maxf(max, element(magnitudes, i), propagate());
  } else {
    int64_t blockElements = copy().tileBlockRows * copy().tileBlockCols;
    Value blockRow = kb.mul(kb.udiv(j, kb.i32(blocksPerTileRow())),
                            kb.i32(copy().tileBlockRows));
    Value blockCol = kb.mul(kb.urem(j, kb.i32(blocksPerTileRow())),
                            kb.i32(copy().tileBlockCols));
    // Every thread stores its magnitudes, then reduces 16 of its block's.
    Value myRow = kb.udiv(tid, kb.i32(kThreadsPerRow));
    Value myCol =
        kb.mul(kb.urem(tid, kb.i32(kThreadsPerRow)), kb.i32(kPerThread));
    kb.store(
        magnitudes,
        shared(kAbsOffset, kb.add(kb.mul(myRow, kb.i32(kTileCols)), myCol), 4),
        16);
    kb.barrier();
    for (int64_t step = 0; step < blockElements / perBlock; ++step) {
      Value e = kb.add(part, kb.i32(step * perBlock));
      Value r = kb.add(blockRow, kb.udiv(e, kb.i32(copy().tileBlockCols)));
      Value c = kb.add(blockCol, kb.urem(e, kb.i32(copy().tileBlockCols)));
      Value v = kb.load(
          kb.f32(),
          shared(kAbsOffset, kb.add(kb.mul(r, kb.i32(kTileCols)), c), 4), 4);
      max = kb.maxf(max, v, propagate());
    }
  }
  max = kb.warpMax(max, std::min<int64_t>(perBlock, 32), propagate());
  if (perBlock <= 32) {
    kb.ifThen(kb.eq(part, kb.i32(0)),
              [&] { kb.store(max, shared(kBlockOffset, j, 4), 4); });
    kb.barrier();
    return;
  }
  // Blocks spanning warps: combine the warps' maxima.
  Value warp = kb.udiv(tid, kb.i32(32));
  kb.ifThen(kb.eq(kb.urem(tid, kb.i32(32)), kb.i32(0)),
            [&] { kb.store(max, shared(kWarpOffset, warp, 4), 4); });
  kb.barrier();
  int64_t warpsPerBlock = perBlock / 32;
  kb.ifThen(kb.ult(tid, kb.i32(blocksPerTile())), [&] {
    Value total = kb.f32(0.0f);
    for (int64_t w = 0; w < warpsPerBlock; ++w) {
      Value index = kb.add(kb.mul(tid, kb.i32(warpsPerBlock)), kb.i32(w));
      total =
          kb.maxf(total, kb.load(kb.f32(), shared(kWarpOffset, index, 4), 4),
                  propagate());
    }
    kb.store(total, shared(kBlockOffset, tid, 4), 4);
  });
  kb.barrier();
}

void QuantizeEmitter::reduceColumns(function_ref<Value(int64_t)> maximumOf,
                                    int64_t offset,
                                    function_ref<void(Value)> useAmax) {
  constexpr int64_t kWarps = kThreads / 32;
  auto f32x16 = VectorType::get({kPerThread}, kb.f32());
  Value maxima = LLVM::UndefOp::create(kb.b, kb.loc, f32x16);
  for (int64_t i = 0; i < kPerThread; ++i) {
    Value m = maximumOf(i);
    for (int64_t lanes : {kThreadsPerRow, 2 * kThreadsPerRow})
      m = kb.maxf(m, kb.shuffleXor(m, lanes), propagate());
    maxima = LLVM::InsertElementOp::create(kb.b, kb.loc, maxima, m, kb.i32(i));
  }
  Value warp = kb.udiv(tid, kb.i32(32));
  Value myCol =
      kb.mul(kb.urem(tid, kb.i32(kThreadsPerRow)), kb.i32(kPerThread));
  kb.ifThen(kb.ult(kb.urem(tid, kb.i32(32)), kb.i32(kThreadsPerRow)), [&] {
    Value index = kb.add(kb.mul(warp, kb.i32(kTileCols)), myCol);
    kb.store(maxima, shared(offset, index, 4), 16);
  });
  kb.barrier();
  kb.ifThen(kb.ult(tid, kb.i32(kTileCols)), [&] {
    Value amax = kb.f32(0.0f);
    for (int64_t w = 0; w < kWarps; ++w) {
      Value index = kb.add(tid, kb.i32(w * kTileCols));
      amax = kb.maxf(amax, kb.load(kb.f32(), shared(offset, index, 4), 4),
                     propagate());
    }
    useAmax(amax);
  });
}

void QuantizeEmitter::reduceColumnBlocks(Value magnitudes) {
  reduceColumns(
      [&](int64_t i) { return element(magnitudes, i); }, kAbsOffset,
      [&](Value amax) { kb.store(amax, shared(kBlockOffset, tid, 4), 4); });
  kb.barrier();
}

void QuantizeEmitter::moveCopyToMatrix(Value batch,
                                       const QuantizeConfig &copyConfig,
                                       CopyArgs &args, Value scaleStride,
                                       Value amaxStride) {
  auto advance = [&](Value &buffer, Value bytes) {
    buffer = kb.byteOffset(buffer, kb.mul(batch, bytes));
  };
  advance(args.amaxBuffer, kb.zext64(amaxStride));
  if (copyConfig.phase == QuantizeConfig::Phase::Amax)
    return;
  // Rows of codes, each `pitch` codes long (E2M1 packs two per byte).
  Value codeBytes = kb.mul(kb.zext64(copyConfig.transposed ? cols : rows),
                           kb.zext64(args.pitch));
  if (copyConfig.format == Format::E2M1)
    codeBytes = kb.lshr(codeBytes, kb.i64(1));
  advance(args.codes, codeBytes);
  advance(args.scales, kb.zext64(scaleStride));
}

void QuantizeEmitter::moveToMatrix(Value batch, CopyArgs &rowArgs) {
  // Kernels with a prologue are not batched.
  int64_t inputBytes =
      getElementType(kb.b, config.input).getIntOrFloatBitWidth() / 8;
  Value elements = kb.mul(kb.zext64(rows), kb.zext64(cols));
  input =
      kb.byteOffset(input, kb.mul(batch, kb.mul(elements, kb.i64(inputBytes))));
  // One random word per input element, in the whole tensor's order.
  if (config.stochastic)
    randomBits =
        kb.byteOffset(randomBits, kb.mul(batch, kb.mul(elements, kb.i64(4))));
  moveCopyToMatrix(batch, config, rowArgs,
                   getArg(QuantizeParam::ScaleBatchStride),
                   getArg(QuantizeParam::AmaxBatchStride));
  if (config.pair)
    moveCopyToMatrix(batch, config.getPairCopy(), pairArgs,
                     getArg(QuantizeParam::PairScaleBatchStride),
                     getArg(QuantizeParam::PairAmaxBatchStride));
}

void QuantizeEmitter::emitAmaxUpdate() {
  kb.ifThen(kb.ult(tid, kb.i32(blocksPerTile())), [&] {
    auto [r, c] = blockOrigin(tid);
    Value in =
        arith::AndIOp::create(kb.b, kb.loc, kb.ult(r, rows), kb.ult(c, cols));
    kb.ifThen(in, [&] {
      Value blocksPerRow = kb.ceilDiv(cols, blockCols);
      Value index = kb.add(kb.mul(kb.udiv(r, blockRows), blocksPerRow),
                           kb.udiv(c, blockCols));
      Value address =
          kb.byteOffset(amaxBuffer, kb.mul(kb.zext64(index), kb.i64(4)));
      kb.atomicMaxNonNegative(address,
                              kb.load(kb.f32(), shared(kBlockOffset, tid, 4)));
    });
  });
}

void QuantizeEmitter::emitWholeMatrixAmax() {
  Value tilesPerRow = kb.ceilDiv(cols, kb.i32(kTileCols));
  Value tiles = kb.mul(kb.ceilDiv(rows, kb.i32(kTileRows)), tilesPerRow);
  Value myRow = kb.udiv(tid, kb.i32(kThreadsPerRow));
  Value myCol =
      kb.mul(kb.urem(tid, kb.i32(kThreadsPerRow)), kb.i32(kPerThread));
  // This thread's magnitudes of tile `tile` in the input's type (0 past the
  // matrix: a tile past the last starts below its rows); f32 after a
  // prologue.
  Type held = config.prologue ? kb.f32() : getElementType(kb.b, config.input);
  auto loadMagnitudes = [&](Value tile) {
    Value row =
        kb.add(kb.mul(kb.udiv(tile, tilesPerRow), kb.i32(kTileRows)), myRow);
    Value col =
        kb.add(kb.mul(kb.urem(tile, tilesPerRow), kb.i32(kTileCols)), myCol);
    return kb.absBits(config.prologue ? computePrologue(row, col)
                                      : loadRun(input, held, held, row, col));
  };
  // Each of the thread's 16 columns keeps its maximum, folded element by
  // element (two 16-bit elements per max instruction; maxNum when NaNs are
  // ignored, which a NaN never wins over the initial 0), and the columns'
  // maxima meet once, after the loop. Two tiles per step: both loads are
  // issued before either is folded.
  Value zeros = arith::ConstantOp::create(
      kb.b, kb.loc, kb.b.getZeroAttr(VectorType::get({kPerThread}, held)));
  Value gridTiles = kb.gridDim();
  Value maxima = kb.forLoop(
      kb.blockId(), tiles, kb.mul(gridTiles, kb.i32(2)), ValueRange{zeros},
      [&](Value tile, ValueRange args) -> SmallVector<Value> {
        Value first = loadMagnitudes(tile);
        Value second = loadMagnitudes(kb.add(tile, gridTiles));
        return {kb.maxMagnitude(kb.maxMagnitude(args[0], first, propagate()),
                                second, propagate())};
      })[0];
  // The maxima were folded from 0: no further floor at 0.
  Value amax = kb.warpMax(
      kb.extToF32(kb.reduceMaxMagnitude(maxima, propagate())), 32, propagate());
  kb.ifThen(kb.eq(kb.urem(tid, kb.i32(32)), kb.i32(0)),
            [&] { kb.atomicMaxNonNegative(amaxBuffer, amax); });
}

void QuantizeEmitter::emitScales() {
  kb.ifThen(kb.ult(tid, kb.i32(blocksPerTile())), [&] {
    auto [r, c] = blockOrigin(tid);
    Value blocksPerRow = kb.ceilDiv(cols, blockCols);
    Value blockR = kb.udiv(kb.minU(r, kb.sub(rows, kb.i32(1))), blockRows);
    Value blockC = kb.udiv(kb.minU(c, kb.sub(cols, kb.i32(1))), blockCols);
    if (copy().givenScales) {
      Value index = kb.add(kb.mul(blockR, blocksPerRow), blockC);
      kb.store(loadGivenMultiplier(index), shared(kBlockOffset, tid, 4), 4);
      return;
    }
    Value amax;
    if (copy().fused) {
      amax = kb.load(kb.f32(), shared(kBlockOffset, tid, 4), 4);
    } else {
      Value index = kb.add(kb.mul(blockR, blocksPerRow), blockC);
      amax = kb.load(
          kb.f32(),
          kb.byteOffset(amaxBuffer, kb.mul(kb.zext64(index), kb.i64(4))), 4);
    }
    Value global = copy().twoLevel ? emitGlobalScale() : Value();
    Value scale =
        emitScaleRule(kb.b, kb.loc, copy().rule, copy().format, amax, global);
    Value multiplier = emitEncodeMultiplier(kb.b, kb.loc, scale, global);
    kb.store(multiplier, shared(kBlockOffset, tid, 4), 4);
    storeBlockScale(r, c, scale);
  });
  if (copy().twoLevel && !copy().givenScales) {
    // The first CTA stores the global decode scale 1/S.
    Value first = arith::AndIOp::create(kb.b, kb.loc, kb.eq(tid, kb.i32(0)),
                                        kb.eq(kb.blockId(), kb.i32(0)));
    kb.ifThen(first, [&] {
      kb.store(emitReciprocal(kb.b, kb.loc, emitGlobalScale()), globalScale, 4);
    });
  }
  kb.barrier();
}

void QuantizeEmitter::storeBlockScale(Value r, Value c, Value scale) {
  // The tile holding the block's first element stores its scale.
  Value owner = arith::AndIOp::create(
      kb.b, kb.loc,
      arith::AndIOp::create(kb.b, kb.loc, kb.ult(r, rows), kb.ult(c, cols)),
      arith::AndIOp::create(kb.b, kb.loc,
                            kb.eq(kb.urem(r, blockRows), kb.i32(0)),
                            kb.eq(kb.urem(c, blockCols), kb.i32(0))));
  kb.ifThen(owner, [&] {
    Value blockR = kb.udiv(r, blockRows);
    Value blockC = kb.udiv(c, blockCols);
    if (copy().tcgen05Scales)
      return emitTcgen05ScaleStore(kb.bitcast(kb.i8(), scale), r, c, blockR,
                                   blockC);
    Value index =
        copy().transposed
            ? kb.add(kb.mul(blockC, kb.ceilDiv(rows, blockRows)), blockR)
            : kb.add(kb.mul(blockR, kb.ceilDiv(cols, blockCols)), blockC);
    storeDecodeScale(kb, scales, kb.zext64(index), scale);
  });
}

Value QuantizeEmitter::loadGivenMultiplier(Value index) {
  if (!copy().e8m0Scales && !copy().twoLevel) {
    Value scale = kb.load(
        kb.f32(),
        kb.byteOffset(amaxBuffer, kb.mul(kb.zext64(index), kb.i64(4))), 4);
    return emitEncodeMultiplier(kb.b, kb.loc, scale);
  }
  // E8M0 codes, or E4M3 codes under the global encode scale S.
  Value code = kb.load(kb.i8(), kb.byteOffset(amaxBuffer, kb.zext64(index)), 1);
  if (copy().e8m0Scales)
    return emitEncodeMultiplier(
        kb.b, kb.loc, kb.bitcast(kb.b.getType<Float8E8M0FNUType>(), code));
  return emitEncodeMultiplier(
      kb.b, kb.loc, kb.bitcast(kb.b.getType<Float8E4M3FNType>(), code),
      kb.load(kb.f32(), globalScale, 4));
}

Value QuantizeEmitter::emitGlobalScale() {
  Value amax = kb.load(kb.f32(), amaxBuffer, 4);
  return emitScaleRule(kb.b, kb.loc, copy().rule, Format::E2M1, amax);
}

void QuantizeEmitter::emitTcgen05ScaleStore(Value code, Value r, Value c,
                                            Value blockR, Value blockC) {
  // Operand rows run across K; the block covers `extent` of them.
  bool kAlongCols = copy().scalesKAlongCols;
  Value first = kAlongCols ? r : c;
  Value kBlock = kAlongCols ? blockC : blockR;
  Value operandRows = kAlongCols ? rows : cols;
  int64_t extent = kAlongCols ? copy().tileBlockRows : copy().tileBlockCols;
  // getScaleSmemOffset (ScaleFactorLayout.h) over the whole operand: chunk
  // (row / 128) * kChunks + kBlock / 4, byte 16 * (row % 32) +
  // 4 * (row % 128 / 32) + kBlock % 4.
  Value kChunk = kb.udiv(kBlock, kb.i32(4));
  Value kByte = kb.urem(kBlock, kb.i32(4));
  for (int64_t i = 0; i < extent; ++i) {
    Value row = kb.add(first, kb.i32(i));
    kb.ifThen(kb.ult(row, operandRows), [&] {
      Value chunk =
          kb.add(kb.mul(kb.udiv(row, kb.i32(128)), scaleKChunks), kChunk);
      Value inRow128 = kb.urem(row, kb.i32(128));
      Value offset = kb.add(
          kb.mul(chunk, kb.i32(512)),
          kb.add(kb.add(kb.mul(kb.urem(inRow128, kb.i32(32)), kb.i32(16)),
                        kb.mul(kb.udiv(inRow128, kb.i32(32)), kb.i32(4))),
                 kByte));
      kb.store(code, kb.byteOffset(scales, kb.zext64(offset)), 1);
    });
  }
}

void QuantizeEmitter::emitE2M1Codes(ArrayRef<Value> scaled,
                                    ArrayRef<Value> unscaled,
                                    ArrayRef<Value> bits, Value row,
                                    Value col) {
  // cvt.rn.satfinite.e2m1x2 rounds to nearest even and clamps to +-6; E2M1
  // has no NaN: a NaN product becomes the zero of its element's sign
  // (numerics.md section 2), before either conversion.
  Type e2m1 = kb.b.getType<Float4E2M1FNType>();
  auto finite = [&](int64_t j) {
    Value isNaN = kb.isNaN(scaled[j]);
    Value signedZero =
        kb.bitcast(kb.f32(), kb.andI(kb.bitcast(kb.i32(), unscaled[j]),
                                     kb.i32(INT32_MIN)));
    return kb.select(isNaN, signedZero, scaled[j]);
  };
  constexpr int64_t kBytes = kPerThread / 2;
  auto byteVector = VectorType::get({kBytes}, kb.i8());
  Value packed = LLVM::UndefOp::create(kb.b, kb.loc, byteVector);
  SmallVector<Value> pairs;
  for (int64_t i = 0; i < kBytes; ++i) {
    Value pair;
    if (copy().stochastic) {
      auto code = [&](int64_t j) -> Value {
        return arith::ExtUIOp::create(kb.b, kb.loc, kb.i8(),
                                      softCode(e2m1, finite(j), bits[j]));
      };
      Value shift =
          arith::ConstantOp::create(kb.b, kb.loc, kb.b.getI8IntegerAttr(4));
      pair = kb.orI(code(2 * i), arith::ShLIOp::create(kb.b, kb.loc,
                                                       code(2 * i + 1), shift));
    } else {
      // The code of `a` lands in the high nibble.
      pair = NVVM::ConvertF32x2ToF4x2Op::create(
          kb.b, kb.loc, kb.i8(), finite(2 * i + 1), finite(2 * i),
          kb.b.getBoolAttr(false), TypeAttr::get(e2m1));
    }
    pairs.push_back(pair);
    packed =
        LLVM::InsertElementOp::create(kb.b, kb.loc, packed, pair, kb.i32(i));
  }

  if (!copy().transposed)
    return storeRun(packed, row, rows, col, cols);
  // Transposed: one code per byte, packed again after the transposition.
  Value myRow = kb.udiv(tid, kb.i32(kThreadsPerRow));
  Value myCol =
      kb.mul(kb.urem(tid, kb.i32(kThreadsPerRow)), kb.i32(kPerThread));
  auto codeVector = VectorType::get({kPerThread}, kb.i8());
  Value unpacked = LLVM::UndefOp::create(kb.b, kb.loc, codeVector);
  Value nibble =
      arith::ConstantOp::create(kb.b, kb.loc, kb.b.getI8IntegerAttr(0xF));
  Value four =
      arith::ConstantOp::create(kb.b, kb.loc, kb.b.getI8IntegerAttr(4));
  for (int64_t i = 0; i < kBytes; ++i) {
    unpacked = LLVM::InsertElementOp::create(
        kb.b, kb.loc, unpacked, kb.andI(pairs[i], nibble), kb.i32(2 * i));
    unpacked = LLVM::InsertElementOp::create(
        kb.b, kb.loc, unpacked, kb.lshr(pairs[i], four), kb.i32(2 * i + 1));
  }
  storeTransposed(unpacked, myRow, myCol, [&](auto code) {
    Value column = LLVM::UndefOp::create(kb.b, kb.loc, byteVector);
    for (int64_t i = 0; i < kBytes; ++i) {
      Value byte =
          kb.orI(code(2 * i),
                 arith::ShLIOp::create(kb.b, kb.loc, code(2 * i + 1), four));
      column =
          LLVM::InsertElementOp::create(kb.b, kb.loc, column, byte, kb.i32(i));
    }
    return column;
  });
}

void QuantizeEmitter::storeRun(Value vector, Value r, Value rowCount,
                               Value start, Value rowLength) {
  int64_t codesPerByte = copy().format == Format::E2M1 ? 2 : 1;
  int64_t bytes = kPerThread / codesPerByte;
  Value base = kb.add(kb.mul(kb.zext64(r), kb.zext64(pitch)), kb.zext64(start));
  if (codesPerByte == 2)
    base = kb.lshr(base, kb.i64(1));
  Value rowIn = kb.ult(r, rowCount);
  auto scalarStores = [&] {
    for (int64_t i = 0; i < bytes; ++i) {
      Value in = arith::AndIOp::create(
          kb.b, kb.loc, rowIn,
          kb.ult(kb.add(start, kb.i32(codesPerByte * i)), rowLength));
      kb.ifThen(in, [&] {
        Value byte =
            LLVM::ExtractElementOp::create(kb.b, kb.loc, vector, kb.i32(i));
        kb.store(byte, kb.byteOffset(codes, kb.add(base, kb.i64(i))), 1);
      });
    }
  };
  if (!copy().vectorStores)
    return scalarStores();
  Value whole = arith::AndIOp::create(kb.b, kb.loc, rowIn,
                                      kb.cmp(arith::CmpIPredicate::ule,
                                             kb.add(start, kb.i32(kPerThread)),
                                             rowLength));
  auto ifOp = scf::IfOp::create(kb.b, kb.loc, whole, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(kb.b);
  kb.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  kb.store(vector, kb.byteOffset(codes, base), bytes);
  kb.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scalarStores();
}

Value QuantizeEmitter::softCode(Type type, Value v, Value rbits) {
  Value q = copy().stochastic
                ? ConvertOp::create(kb.b, kb.loc, type, v, rbits,
                                    Rounding::Stochastic, copy().overflow)
                : ConvertOp::create(kb.b, kb.loc, type, v, Rounding::RNE,
                                    copy().overflow);
  return kb.bitcast(kb.b.getIntegerType(type.getIntOrFloatBitWidth()), q);
}

Value QuantizeEmitter::convertPair(Value lo, Value hi, Value unscaledLo,
                                   Value unscaledHi, Value loBits,
                                   Value hiBits) {
  if (copy().overflow == Overflow::Saturate && !copy().stochastic)
    return kb.cvtSatFinite(lo, hi, copy().format, unscaledLo, unscaledHi,
                           /*positiveFactors=*/!copy().givenScales ||
                               copy().e8m0Scales);
  Type narrow = copy().format == Format::E4M3
                    ? Type(kb.b.getType<Float8E4M3FNType>())
                    : Type(kb.b.getType<Float8E5M2Type>());
  // A NaN product is the element's NaN (a GPU multiply returns the
  // canonical one).
  auto code = [&](Value v, Value unscaled, Value rbits) {
    Value isNaN = kb.isNaN(v);
    Value elementNaN = kb.getElementNaN(unscaled);
    return arith::ExtUIOp::create(
        kb.b, kb.loc, kb.i16(),
        softCode(narrow, kb.select(isNaN, elementNaN, v), rbits));
  };
  return kb.orI(code(lo, unscaledLo, loBits),
                kb.shl(code(hi, unscaledHi, hiBits),
                       arith::ConstantOp::create(kb.b, kb.loc,
                                                 kb.b.getI16IntegerAttr(8))));
}

Value QuantizeEmitter::packCodes(ArrayRef<Value> scaled,
                                 ArrayRef<Value> unscaled,
                                 ArrayRef<Value> bits) {
  auto pairs = VectorType::get({kPerThread / 2}, kb.i16());
  Value packed = LLVM::UndefOp::create(kb.b, kb.loc, pairs);
  for (int64_t i = 0; i < kPerThread / 2; ++i)
    packed = LLVM::InsertElementOp::create(
        kb.b, kb.loc, packed,
        convertPair(scaled[2 * i], scaled[2 * i + 1], unscaled[2 * i],
                    unscaled[2 * i + 1], bits[2 * i], bits[2 * i + 1]),
        kb.i32(i));
  auto bytes = VectorType::get({kPerThread}, kb.i8());
  return LLVM::BitcastOp::create(kb.b, kb.loc, bytes, packed);
}

void QuantizeEmitter::emitCodes(Value values, Value words, Value row,
                                Value col) {
  Value myRow = kb.udiv(tid, kb.i32(kThreadsPerRow));
  Value myCol =
      kb.mul(kb.urem(tid, kb.i32(kThreadsPerRow)), kb.i32(kPerThread));
  Value blockRow = kb.udiv(myRow, kb.i32(copy().tileBlockRows));
  SmallVector<Value> scaled;
  Value multiplier;
  for (int64_t i = 0; i < kPerThread; ++i) {
    // 16 aligned columns share one block when blocks are 16 or wider.
    if (i == 0 || copy().tileBlockCols < kPerThread) {
      Value blockCol =
          kb.udiv(kb.add(myCol, kb.i32(i)), kb.i32(copy().tileBlockCols));
      Value j = kb.add(kb.mul(blockRow, kb.i32(blocksPerTileRow())), blockCol);
      multiplier = kb.load(kb.f32(), shared(kBlockOffset, j, 4), 4);
    }
    Value x = LLVM::ExtractElementOp::create(kb.b, kb.loc, values, kb.i32(i));
    scaled.push_back(kb.mulf(x, multiplier));
  }
  // The random word of each element (stochastic rounding).
  SmallVector<Value> bits(kPerThread);
  if (copy().stochastic)
    for (int64_t i = 0; i < kPerThread; ++i)
      bits[i] = LLVM::ExtractElementOp::create(kb.b, kb.loc, words, kb.i32(i));
  SmallVector<Value> unscaled;
  for (int64_t i = 0; i < kPerThread; ++i)
    unscaled.push_back(
        LLVM::ExtractElementOp::create(kb.b, kb.loc, values, kb.i32(i)));
  if (copy().format == Format::E2M1)
    return emitE2M1Codes(scaled, unscaled, bits, row, col);
  Value codeBytes = packCodes(scaled, unscaled, bits);
  auto bytes = VectorType::get({kPerThread}, kb.i8());

  if (!copy().transposed) {
    storeRun(codeBytes, row, rows, col, cols);
    return;
  }
  storeTransposed(codeBytes, myRow, myCol, [&](auto code) {
    Value column = LLVM::UndefOp::create(kb.b, kb.loc, bytes);
    for (int64_t i = 0; i < kPerThread; ++i) {
      Value byte = code(i);
      column =
          LLVM::InsertElementOp::create(kb.b, kb.loc, column, byte, kb.i32(i));
    }
    return column;
  });
}

void QuantizeEmitter::storeTransposed(
    Value codes, Value myRow, Value myCol,
    function_ref<Value(function_ref<Value(int64_t)>)> pack) {
  kb.store(
      codes,
      shared(kCodesOffset, kb.add(kb.mul(myRow, kb.i32(kTileCols)), myCol), 1),
      16);
  kb.barrier();
  Value outRow = kb.udiv(tid, kb.i32(2)); // a column of the tile
  Value half = kb.mul(kb.urem(tid, kb.i32(2)), kb.i32(kPerThread));
  auto code = [&](int64_t i) {
    Value index =
        kb.add(kb.mul(kb.add(half, kb.i32(i)), kb.i32(kTileCols)), outRow);
    return kb.load(kb.i8(), shared(kCodesOffset, index, 1), 1);
  };
  Value column = pack(code);
  storeRun(column, kb.add(col0, outRow), cols, kb.add(row0, half), rows);
}

void QuantizeEmitter::selectCopy(const QuantizeConfig &copyConfig,
                                 const CopyArgs &copyArgs) {
  current = &copyConfig;
  amaxBuffer = copyArgs.amaxBuffer;
  codes = copyArgs.codes;
  scales = copyArgs.scales;
  blockRows = copyArgs.blockRows;
  blockCols = copyArgs.blockCols;
  pitch = copyArgs.pitch;
  scaleKChunks = copyArgs.scaleKChunks;
}

Value QuantizeEmitter::getMagnitudes(Value values) {
  Value magnitudes = kb.absBits(values);
  if (propagate())
    return magnitudes;
  // NaN elements do not count.
  Value isNaN = kb.isNaN(magnitudes);
  auto type = cast<ShapedType>(magnitudes.getType());
  Value zeros = arith::ConstantOp::create(
      kb.b, kb.loc,
      DenseElementsAttr::get(
          type, cast<FloatAttr>(kb.b.getZeroAttr(type.getElementType()))));
  return kb.select(isNaN, zeros, magnitudes);
}

void QuantizeEmitter::emitCopy(function_ref<Value(int64_t)> runOf,
                               ArrayRef<Value> runRows, Value tileRow0,
                               Value col) {
  int64_t subTiles = runRows.size();
  bool amaxPhase = copy().phase == QuantizeConfig::Phase::Amax;
  bool reduce = amaxPhase || copy().fused;
  auto subTileOrigin = [&](int64_t s) {
    return s == 0 ? tileRow0 : kb.add(tileRow0, kb.i32(s * kTileRows));
  };
  auto emitCodesOf = [&](int64_t s, Value run) {
    Value words;
    if (copy().stochastic)
      words = loadRun(randomBits, kb.i32(), kb.i32(), runRows[s], col);
    emitCodes(run, words, runRows[s], col);
  };
  if (copy().tileBlockRows <= kTileRows) {
    for (int64_t s = 0; s < subTiles; ++s) {
      // The previous sub-tile's steps read shared memory until here.
      if (s > 0)
        kb.barrier();
      row0 = subTileOrigin(s);
      Value run = runOf(s);
      if (reduce)
        reduceBlocks(getMagnitudes(run));
      if (amaxPhase) {
        emitAmaxUpdate();
        continue;
      }
      emitScales();
      emitCodesOf(s, run);
    }
    return;
  }
  // Fused blocks spanning every sub-tile: each sub-tile reduces its part of
  // them, and the thread owning block `tid` keeps the maximum of its parts
  // (in the order of the rows, as the amax kernel's atomics would see them:
  // the maximum does not depend on it).
  const QuantizeConfig &whole = copy();
  QuantizeConfig part = whole;
  part.tileBlockRows = kTileRows;
  current = &part;
  Value amax = kb.f32(0.0f);
  for (int64_t s = 0; s < subTiles; ++s) {
    if (s > 0)
      kb.barrier();
    row0 = subTileOrigin(s);
    reduceBlocks(getMagnitudes(runOf(s)));
    // Slot `tid` is this thread's own: it is rewritten only after the next
    // reduction's barrier.
    amax = kb.maxf(amax, kb.load(kb.f32(), shared(kBlockOffset, tid, 4), 4),
                   propagate());
  }
  current = &whole;
  row0 = tileRow0;
  kb.store(amax, shared(kBlockOffset, tid, 4), 4);
  emitScales();
  for (int64_t s = 0; s < subTiles; ++s) {
    // Transposed codes reuse the shared tile of codes.
    if (s > 0)
      kb.barrier();
    row0 = subTileOrigin(s);
    emitCodesOf(s, runOf(s));
  }
}

void QuantizeEmitter::emitRowColumnPair(Value tileRow0, ArrayRef<Value> runRows,
                                        Value col) {
  // Shared memory: the transposed copy's codes of the tile (row-major, as
  // computed), each warp's column maxima, the column blocks' multipliers.
  constexpr int64_t kMaxRegisters = 128;
  constexpr int64_t kMaxRegistersOneSubTile = 64;
  constexpr int64_t kTileCodes = 0;
  constexpr int64_t kColumnMaxima = kTileCodes + kPairTileRows * kTileCols;
  constexpr int64_t kWarps = kThreads / 32;
  constexpr int64_t kColumnMultipliers = kColumnMaxima + kWarps * kTileCols * 4;
  static_assert(kColumnMultipliers + kTileCols * 4 <= kSharedBytes,
                "the row-column pair fits the quantize kernels' shared memory");
  int64_t subTiles = runRows.size();
  const QuantizeConfig &rowCopy = config;
  QuantizeConfig columnCopy = config.getPairCopy();
  auto f32x16 = VectorType::get({kPerThread}, kb.f32());

  // Every load of the tile first, held as loaded (f32 after a prologue).
  Type held = config.prologue ? kb.f32() : getElementType(kb.b, config.input);
  // Two CTAs per SM for 16-bit runs of 128-row tiles (128 registers, no
  // spills; ptxas takes 162 otherwise), four for 32-row tiles (64, where
  // it takes 95), so that enough loads are in flight. f32 runs take twice
  // the registers and spill at 128.
  if (held != kb.f32())
    func->setAttr("nvvm.maxnreg",
                  kb.b.getI32IntegerAttr(runRows.size() == 1
                                             ? kMaxRegistersOneSubTile
                                             : kMaxRegisters));
  SmallVector<Value> runs;
  for (Value row : runRows)
    runs.push_back(config.prologue ? computePrologue(row, col)
                                   : loadRun(input, held, held, row, col));
  auto runOf = [&](int64_t s) -> Value {
    if (held == kb.f32())
      return runs[s];
    return arith::ExtFOp::create(kb.b, kb.loc, f32x16, runs[s]);
  };
  // The column-wise copy widens the runs again, bf16 by moving its bits:
  // the same values, but an op that CSE does not merge with runOf's, so
  // that the f32 runs (64 registers) are not held across the column
  // maxima's exchange.
  auto runAgainOf = [&](int64_t s) -> Value {
    if (!held.isBF16())
      return runOf(s);
    auto i16x16 = VectorType::get({kPerThread}, kb.i16());
    auto i32x16 = VectorType::get({kPerThread}, kb.i32());
    Value bits = arith::ExtUIOp::create(kb.b, kb.loc, i32x16,
                                        kb.bitcast(i16x16, runs[s]));
    Value sixteen = arith::ConstantOp::create(
        kb.b, kb.loc,
        DenseElementsAttr::get(i32x16, kb.b.getI32IntegerAttr(16).getValue()));
    return kb.bitcast(f32x16, kb.shl(bits, sixteen));
  };
  auto encode = [&](Value values, function_ref<Value(int64_t)> multiplier) {
    SmallVector<Value> scaled, unscaled;
    for (int64_t i = 0; i < kPerThread; ++i) {
      unscaled.push_back(element(values, i));
      scaled.push_back(kb.mulf(unscaled.back(), multiplier(i)));
    }
    return packCodes(scaled, unscaled, SmallVector<Value>(kPerThread));
  };

  // The row-wise copy: a block is the 16-element runs of tileBlockCols / 16
  // consecutive lanes (eight for a row of the tile).
  // Magnitudes and maxima stay in the held type (16-bit floats hold the
  // magnitude and maximum of 16-bit values exactly; |x| clears the sign
  // bit), as vectors, two 16-bit elements per max instruction; the rows'
  // amax extends to f32 for the shuffles and the rule. The maxima start
  // from 0 and, when NaNs are ignored, take IEEE maxNum, which a NaN
  // never wins: a block of NaNs alone has amax 0, as the reference's.
  Value columnMaxima = arith::ConstantOp::create(
      kb.b, kb.loc, kb.b.getZeroAttr(VectorType::get({kPerThread}, held)));
  for (int64_t s = 0; s < subTiles; ++s) {
    Value magnitudes = kb.absBits(runs[s]);
    columnMaxima = kb.maxMagnitude(columnMaxima, magnitudes, propagate());
    Value amax = kb.maxMagnitude(
        kb.extToF32(kb.reduceMaxMagnitude(magnitudes, propagate())),
        kb.f32(0.0f), propagate());
    amax = kb.warpMax(amax, rowCopy.tileBlockCols / kPerThread, propagate());
    Value values = runOf(s);
    Value scale = emitScaleRule(kb.b, kb.loc, rowCopy.rule, rowCopy.format,
                                amax, Value());
    Value multiplier = emitEncodeMultiplier(kb.b, kb.loc, scale, Value());
    // The lane holding the block's first column stores its scale.
    storeBlockScale(runRows[s], col, scale);
    storeRun(encode(values, [&](int64_t) { return multiplier; }), runRows[s],
             rows, col, cols);
  }

  // The column-wise copy: the four rows of a warp combine their maxima by
  // shuffles, the eight warps theirs in shared memory, and thread c < 128
  // scales column c of the tile.
  selectCopy(columnCopy, pairArgs);
  Value myCol =
      kb.mul(kb.urem(tid, kb.i32(kThreadsPerRow)), kb.i32(kPerThread));
  reduceColumns(
      [&](int64_t i) { return kb.extToF32(element(columnMaxima, i)); },
      kColumnMaxima,
      [&](Value amax) {
        Value scale = emitScaleRule(kb.b, kb.loc, columnCopy.rule,
                                    columnCopy.format, amax, Value());
        kb.store(emitEncodeMultiplier(kb.b, kb.loc, scale, Value()),
                 shared(kColumnMultipliers, tid, 4), 4);
        storeBlockScale(tileRow0, kb.add(col0, tid), scale);
      });
  kb.barrier();
  Value multipliers = kb.load(f32x16, shared(kColumnMultipliers, myCol, 4), 16);
  Value myRow = kb.udiv(tid, kb.i32(kThreadsPerRow));
  for (int64_t s = 0; s < subTiles; ++s) {
    Value codeBytes = encode(
        runAgainOf(s), [&](int64_t i) { return element(multipliers, i); });
    Value row = kb.add(myRow, kb.i32(s * kTileRows));
    kb.store(
        codeBytes,
        shared(kTileCodes, kb.add(kb.mul(row, kb.i32(kTileCols)), myCol), 1),
        16);
  }
  kb.barrier();
  // Thread t transposes the codes of 16 rows and `perThread` columns of
  // the tile (four of 128 rows, one of 32): each run of 16 codes of a
  // column is part of a row of the transposed copy. Four columns are read
  // as 16 words (a warp's loads read whole rows of the tile), one as bytes
  // (a warp's loads read 32 consecutive bytes).
  int64_t perThread = subTiles;
  int64_t groups = kTileCols / perThread;
  Value firstColumn = kb.mul(kb.urem(tid, kb.i32(groups)), kb.i32(perThread));
  Value firstRow = kb.mul(kb.udiv(tid, kb.i32(groups)), kb.i32(kPerThread));
  auto word = VectorType::get({perThread}, kb.i8());
  SmallVector<Value> words;
  for (int64_t i = 0; i < kPerThread; ++i) {
    Value index = kb.add(kb.mul(kb.add(firstRow, kb.i32(i)), kb.i32(kTileCols)),
                         firstColumn);
    words.push_back(kb.load(word, shared(kTileCodes, index, 1),
                            std::min<int64_t>(perThread, 4)));
  }
  auto bytes = VectorType::get({kPerThread}, kb.i8());
  for (int64_t j = 0; j < perThread; ++j) {
    Value codeRun = LLVM::UndefOp::create(kb.b, kb.loc, bytes);
    for (int64_t i = 0; i < kPerThread; ++i)
      codeRun = LLVM::InsertElementOp::create(kb.b, kb.loc, codeRun,
                                              element(words[i], j), kb.i32(i));
    storeRun(codeRun, kb.add(col0, kb.add(firstColumn, kb.i32(j))), cols,
             kb.add(tileRow0, firstRow), rows);
  }
  current = &config;
}

void QuantizeEmitter::emit() {
  input = getArg(QuantizeParam::Input);
  rows = getArg(QuantizeParam::Rows);
  cols = getArg(QuantizeParam::Cols);
  globalScale = getArg(QuantizeParam::GlobalScale);
  randomBits = getArg(QuantizeParam::RandomBits);
  // The prologue's inputs are the last parameters.
  if (config.prologue)
    llvm::append_range(prologueInputs, func.getArguments().take_back(
                                           config.prologue->inputs.size()));
  CopyArgs rowCopy{
      getArg(QuantizeParam::Amax),        getArg(QuantizeParam::Codes),
      getArg(QuantizeParam::Scales),      getArg(QuantizeParam::BlockRows),
      getArg(QuantizeParam::BlockCols),   getArg(QuantizeParam::Pitch),
      getArg(QuantizeParam::ScaleKChunks)};
  if (config.pair)
    pairArgs = CopyArgs{getArg(QuantizeParam::PairAmax),
                        getArg(QuantizeParam::PairCodes),
                        getArg(QuantizeParam::PairScales),
                        getArg(QuantizeParam::PairBlockRows),
                        getArg(QuantizeParam::PairBlockCols),
                        getArg(QuantizeParam::PairPitch),
                        getArg(QuantizeParam::PairScaleKChunks)};
  if (config.batched)
    moveToMatrix(kb.zext64(kb.blockIdY()), rowCopy);
  selectCopy(config, rowCopy);
  smem = kb.dynamicSharedMemory(func);
  tid = kb.threadId();

  if (config.wholeMatrixAmax) {
    emitWholeMatrixAmax();
    return finish();
  }

  Value tilesPerRow = kb.ceilDiv(cols, kb.i32(kTileCols));
  Value tile = kb.blockId();
  Value tileRow0 = kb.mul(kb.udiv(tile, tilesPerRow), kb.i32(config.tileRows));
  col0 = kb.mul(kb.urem(tile, tilesPerRow), kb.i32(kTileCols));
  Value col = kb.add(
      col0, kb.mul(kb.urem(tid, kb.i32(kThreadsPerRow)), kb.i32(kPerThread)));
  SmallVector<Value> values, runRows;
  Value myRow = kb.udiv(tid, kb.i32(kThreadsPerRow));
  for (int64_t s = 0; s < config.tileRows / kTileRows; ++s) {
    Value origin = s == 0 ? tileRow0 : kb.add(tileRow0, kb.i32(s * kTileRows));
    runRows.push_back(kb.add(origin, myRow));
  }
  if (config.isRowColumnPair()) {
    emitRowColumnPair(tileRow0, runRows, col);
    return finish();
  }
  // An amax kernel of 16-bit runs holds them and their maxima only: 40
  // registers, six CTAs per SM (it takes 54 otherwise, four), so that more
  // loads are in flight. Batched kernels, whose addresses take more, spilled
  // at 40.
  if (config.phase == QuantizeConfig::Phase::Amax && !config.prologue &&
      !config.batched && config.tileRows == kTileRows &&
      getElementType(kb.b, config.input).getIntOrFloatBitWidth() == 16)
    func->setAttr("nvvm.maxnreg", kb.b.getI32IntegerAttr(40));
  // One read: the runs of every sub-tile stay in registers for both copies,
  // unless the kernel reads them again where it uses them
  // (QuantizeConfig::reloadsRuns).
  if (!config.reloadsRuns())
    for (Value row : runRows)
      values.push_back(loadElements(row, col));
  auto runOf = [&](int64_t s) {
    return config.reloadsRuns() ? loadElements(runRows[s], col) : values[s];
  };
  emitCopy(runOf, runRows, tileRow0, col);
  if (config.pair) {
    QuantizeConfig pairCopy = config.getPairCopy();
    selectCopy(pairCopy, pairArgs);
    // The row-wise copy's steps read shared memory until here.
    kb.barrier();
    emitCopy(runOf, runRows, tileRow0, col);
    current = &config;
  }
  finish();
}

void QuantizeEmitter::finish() {
  LLVM::ReturnOp::create(kb.b, kb.loc, ValueRange{});
  // A prologue's math functions by polynomials, as elementwise kernels
  // compute them; the planner checks that none is left.
  if (config.prologue)
    (void)expandClonedBodyForNVVM(func);
  else
    expandForNVVM(func);
}

} // namespace

LLVM::LLVMFuncOp mlir::fp8::buildQuantizeKernel(OpBuilder &builder,
                                                Location loc,
                                                const QuantizeConfig &config) {
  return buildKernel<QuantizeEmitter>(builder, loc, config);
}
