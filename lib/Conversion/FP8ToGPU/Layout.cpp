//===- Layout.cpp - Copies between strided views of buffers ---------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The kernels of layout ops (LayoutConfig): a box of elements copied from
// one strided view to another, as bits.
//
//   * Copy: thread t of a grid-stride loop moves `vector` consecutive
//     elements of the innermost dimension, its box index decomposed by the
//     run-time extents.
//   * Transpose: CTA b owns a kTile x kTile tile spanning the input's
//     contiguous dimension `a` and the output's (the innermost, `b`), and one
//     index of the other dimensions. A warp loads a row of the tile along `a`
//     into shared memory, then stores a column of it along `b`; rows are
//     padded to kTile + 1 words so that both accesses hit 32 banks.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

using P = LayoutParam;

constexpr int64_t kTile = LayoutConfig::kTile;
constexpr int64_t kThreads = LayoutConfig::kThreads;
/// Tile rows a CTA moves per step: kThreads / kTile.
constexpr int64_t kRowsPerStep = kThreads / kTile;
/// Shared memory words per tile row (one of padding).
constexpr int64_t kTilePitch = kTile + 1;

P getExtentParam(int64_t d) {
  return static_cast<P>(static_cast<int>(P::Extent0) + d);
}
P getInputStrideParam(int64_t d) {
  return static_cast<P>(static_cast<int>(P::InputStride0) + d);
}
P getOutputStrideParam(int64_t d) {
  return static_cast<P>(static_cast<int>(P::OutputStride0) + d);
}

bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

} // namespace

LogicalResult LayoutConfig::verify(std::string &reason) const {
  if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4) {
    reason = "layout kernels move elements of 1, 2 or 4 bytes";
    return failure();
  }
  if (rank < 1 || rank > kMaxRank) {
    reason = llvm::formatv("layout kernels copy boxes of 1 to {0} dimensions",
                           kMaxRank);
    return failure();
  }
  if (kind == Kind::Copy &&
      (!isPowerOf2(vector) || vector * elementBytes > 16)) {
    reason = "a copy moves a power of two of elements, at most 16 bytes, per "
             "access";
    return failure();
  }
  if (kind == Kind::Transpose &&
      (inputContiguousDim < 0 || inputContiguousDim >= rank - 1)) {
    reason = "a transpose needs the input contiguous along a dimension other "
             "than the innermost";
    return failure();
  }
  return success();
}

int64_t LayoutConfig::getSharedMemoryBytes() const {
  if (kind != Kind::Transpose)
    return 0;
  // Packed 2-byte tiles: rows of kTilePitch words of two elements (odd
  // word counts keep the column reads on 32 banks).
  if (getTransposePack() == 2)
    return getTransposeTile() * kTilePitch * 4;
  return kTile * kTilePitch * 4;
}

std::string LayoutConfig::getKernelName() const {
  if (kind == Kind::Transpose)
    return llvm::formatv("fp8_layout_transpose_b{0}_r{1}_d{2}", elementBytes,
                         rank, inputContiguousDim)
        .str();
  return llvm::formatv("fp8_layout_copy_b{0}_r{1}_v{2}", elementBytes, rank,
                       vector)
      .str();
}

SmallVector<LayoutParam> LayoutConfig::getParams() const {
  SmallVector<P> params{P::Input, P::Output, P::InputOffset, P::OutputOffset};
  for (int64_t d = 0; d < rank; ++d)
    params.push_back(getExtentParam(d));
  for (int64_t d = 0; d < rank; ++d)
    params.push_back(getInputStrideParam(d));
  for (int64_t d = 0; d < rank; ++d)
    params.push_back(getOutputStrideParam(d));
  return params;
}

KernelParamKind mlir::fp8::getParamKind(LayoutParam param) {
  return param == P::Input || param == P::Output ? KernelParamKind::Buffer
                                                 : KernelParamKind::I32;
}

namespace {

class LayoutEmitter : KernelEmitter<LayoutConfig> {
public:
  using KernelEmitter::KernelEmitter;

  void emit();

private:
  SmallVector<Value> extents, inStrides, outStrides;

  /// The element type moved, as an integer.
  Type getElementType() { return kb.b.getIntegerType(config.elementBytes * 8); }
  /// The address of element `index` (i32) of `buffer`.
  Value address(Value buffer, Value index) {
    return kb.byteOffset(buffer,
                         kb.mul(kb.zext64(index), kb.i64(config.elementBytes)));
  }
  /// Adds `index` * the strides of dimension `d` to the two offsets.
  void advance(Value &inOffset, Value &outOffset, int64_t d, Value index) {
    inOffset = kb.add(inOffset, kb.mul(index, inStrides[d]));
    outOffset = kb.add(outOffset, kb.mul(index, outStrides[d]));
  }
  void emitCopy();
  void emitTranspose();
  /// The transpose of 2-byte elements: 64 x 64 tiles, two elements per
  /// lane and access (one 4-byte access where both are inside, adjacent
  /// and aligned).
  void emitPackedTranspose(Value a0, Value b0, Value inBase, Value outBase);
};

void LayoutEmitter::emitCopy() {
  int64_t inner = config.rank - 1;
  int64_t vector = config.vector;
  // Vectors of the innermost dimension (its extent is a multiple of
  // `vector`), then the box in vectors.
  Value innerVectors = kb.udiv(extents[inner], kb.i32(vector));
  Value total = innerVectors;
  for (int64_t d = 0; d < inner; ++d)
    total = kb.mul(total, extents[d]);
  Type accessType = getElementType();
  int64_t accessBytes = vector * config.elementBytes;
  if (accessBytes >= 4 && vector > 1)
    accessType = accessBytes == 4
                     ? kb.i32()
                     : Type(VectorType::get({accessBytes / 4}, kb.i32()));
  else if (vector > 1)
    accessType = kb.b.getIntegerType(accessBytes * 8);

  Value first = kb.add(kb.mul(kb.blockId(), kb.i32(kThreads)), kb.threadId());
  Value stride = kb.mul(kb.gridDim(), kb.i32(kThreads));
  kb.forLoop(
      first, total, stride, ValueRange{},
      [&](Value linear, ValueRange) -> SmallVector<Value> {
        Value inOffset = getArg(P::InputOffset);
        Value outOffset = getArg(P::OutputOffset);
        advance(inOffset, outOffset, inner,
                kb.mul(kb.urem(linear, innerVectors), kb.i32(vector)));
        Value rest = kb.udiv(linear, innerVectors);
        for (int64_t d = inner - 1; d >= 0; --d) {
          Value index = d == 0 ? rest : kb.urem(rest, extents[d]);
          advance(inOffset, outOffset, d, index);
          if (d > 0)
            rest = kb.udiv(rest, extents[d]);
        }
        Value value = kb.load(accessType, address(getArg(P::Input), inOffset),
                              accessBytes);
        kb.store(value, address(getArg(P::Output), outOffset), accessBytes);
        return {};
      },
      /*unsignedBounds=*/true);
}

void LayoutEmitter::emitTranspose() {
  int64_t a = config.inputContiguousDim, b = config.rank - 1;
  int64_t tile = config.getTransposeTile();
  Value tilesA = kb.ceilDiv(extents[a], kb.i32(tile));
  Value tilesB = kb.ceilDiv(extents[b], kb.i32(tile));
  // Block b: (the other dimensions, tile along a, tile along b), the last
  // fastest.
  Value block = kb.blockId();
  Value b0 = kb.mul(kb.urem(block, tilesB), kb.i32(tile));
  Value rest = kb.udiv(block, tilesB);
  Value a0 = kb.mul(kb.urem(rest, tilesA), kb.i32(tile));
  rest = kb.udiv(rest, tilesA);
  Value inBase = getArg(P::InputOffset), outBase = getArg(P::OutputOffset);
  for (int64_t d = config.rank - 2; d >= 0; --d) {
    if (d == a)
      continue;
    Value index = kb.urem(rest, extents[d]);
    advance(inBase, outBase, d, index);
    rest = kb.udiv(rest, extents[d]);
  }

  if (config.getTransposePack() == 2)
    return emitPackedTranspose(a0, b0, inBase, outBase);
  Value smem = kb.dynamicSharedMemory(func);
  Value tid = kb.threadId();
  Value lane = kb.urem(tid, kb.i32(kTile));
  Value row = kb.udiv(tid, kb.i32(kTile));
  auto shared = [&](Value tileRow, Value tileCol) {
    Value word = kb.add(kb.mul(tileRow, kb.i32(kTilePitch)), tileCol);
    return kb.byteOffset(smem, kb.mul(word, kb.i32(4)));
  };
  auto inside = [&](Value i, Value j) {
    return arith::AndIOp::create(kb.b, kb.loc, kb.ult(i, extents[a]),
                                 kb.ult(j, extents[b]));
  };
  Type element = getElementType();
  // Tile row r holds index b0 + r along b; lanes run along a.
  for (int64_t step = 0; step < kTile; step += kRowsPerStep) {
    Value tileRow = kb.add(row, kb.i32(step));
    Value i = kb.add(a0, lane), j = kb.add(b0, tileRow);
    kb.ifThen(inside(i, j), [&] {
      Value in = kb.add(
          inBase, kb.add(kb.mul(i, inStrides[a]), kb.mul(j, inStrides[b])));
      Value v =
          kb.load(element, address(getArg(P::Input), in), config.elementBytes);
      if (config.elementBytes < 4)
        v = arith::ExtUIOp::create(kb.b, kb.loc, kb.i32(), v);
      kb.store(v, shared(tileRow, lane), 4);
    });
  }
  kb.barrier();
  // Lanes now run along b: lane l stores tile row l.
  for (int64_t step = 0; step < kTile; step += kRowsPerStep) {
    Value tileCol = kb.add(row, kb.i32(step));
    Value i = kb.add(a0, tileCol), j = kb.add(b0, lane);
    kb.ifThen(inside(i, j), [&] {
      Value v = kb.load(kb.i32(), shared(lane, tileCol), 4);
      if (config.elementBytes < 4)
        v = arith::TruncIOp::create(kb.b, kb.loc, element, v);
      Value out = kb.add(
          outBase, kb.add(kb.mul(i, outStrides[a]), kb.mul(j, outStrides[b])));
      kb.store(v, address(getArg(P::Output), out), config.elementBytes);
    });
  }
}

void LayoutEmitter::emitPackedTranspose(Value a0, Value b0, Value inBase,
                                        Value outBase) {
  int64_t a = config.inputContiguousDim, b = config.rank - 1;
  int64_t tile = config.getTransposeTile();
  Value smem = kb.dynamicSharedMemory(func);
  Value tid = kb.threadId();
  Value lane = kb.urem(tid, kb.i32(kTile));
  Value row = kb.udiv(tid, kb.i32(kTile));
  // Element (r, c) of the tile (r along b, c along a) at 2-byte slot
  // 2 kTilePitch r + c: a row is kTilePitch words, so that lane l reading
  // rows 2l and 2l + 1 of one column hits bank l + const.
  auto shared = [&](Value r, Value c) {
    Value slot = kb.add(kb.mul(r, kb.i32(2 * kTilePitch)), c);
    return kb.byteOffset(smem, kb.mul(slot, kb.i32(2)));
  };
  Type element = getElementType();
  Type pair = VectorType::get({2}, element);
  Value input = getArg(P::Input), output = getArg(P::Output);
  // Whether the elements at offsets `first` and the next one take one
  // 4-byte access: both inside, adjacent, the first aligned.
  auto wholePair = [&](Value first, Value firstIn, Value secondIn,
                       Value adjacent) -> Value {
    Value even = kb.eq(kb.andI(first, kb.i32(1)), kb.i32(0));
    return kb.andI(kb.andI(firstIn, secondIn), kb.andI(adjacent, even));
  };
  // Whether elements `index` and `index` + 1 along a dimension of `extent`
  // lie inside, in a line that is (`lineIn`).
  auto pairInside = [&](Value lineIn, Value index,
                        Value extent) -> std::array<Value, 2> {
    return {kb.andI(lineIn, kb.ult(index, extent)),
            kb.andI(lineIn, kb.ult(kb.add(index, kb.i32(1)), extent))};
  };
  // Loads the two elements at offsets `first` and `second` of `base` by one
  // 4-byte access (wholePair), else element by element where inside (0
  // elsewhere).
  auto loadPair = [&](Value base, Value first, Value second, Value firstIn,
                      Value secondIn, Value adjacent) -> Value {
    Value whole = wholePair(first, firstIn, secondIn, adjacent);
    auto ifOp = scf::IfOp::create(kb.b, kb.loc, TypeRange{pair}, whole,
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(kb.b);
    kb.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(kb.b, kb.loc, kb.load(pair, address(base, first), 4));
    kb.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    Value zero =
        arith::ConstantOp::create(kb.b, kb.loc, kb.b.getZeroAttr(element));
    Value v = LLVM::UndefOp::create(kb.b, kb.loc, pair);
    Value offsets[] = {first, second};
    Value inside[] = {firstIn, secondIn};
    for (auto [i, offset, in] : llvm::enumerate(offsets, inside)) {
      auto load = scf::IfOp::create(kb.b, kb.loc, TypeRange{element}, in,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard inner(kb.b);
      kb.b.setInsertionPointToStart(&load.getThenRegion().front());
      scf::YieldOp::create(kb.b, kb.loc,
                           kb.load(element, address(base, offset), 2));
      kb.b.setInsertionPointToStart(&load.getElseRegion().front());
      scf::YieldOp::create(kb.b, kb.loc, zero);
      kb.b.setInsertionPointAfter(load);
      v = LLVM::InsertElementOp::create(kb.b, kb.loc, v, load.getResult(0),
                                        kb.i32(i));
    }
    scf::YieldOp::create(kb.b, kb.loc, v);
    return ifOp.getResult(0);
  };
  auto elementOf = [&](Value v, int64_t i) -> Value {
    return LLVM::ExtractElementOp::create(kb.b, kb.loc, v, kb.i32(i));
  };
  Value one = kb.i32(1);
  // Lane l moves elements 2l and 2l + 1 of a tile row along a.
  Value c = kb.mul(lane, kb.i32(2));
  Value i = kb.add(a0, c);
  Value inAdjacent = kb.eq(inStrides[a], one);
  for (int64_t step = 0; step < tile; step += kRowsPerStep) {
    Value r = kb.add(row, kb.i32(step));
    Value j = kb.add(b0, r);
    Value first = kb.add(
        inBase, kb.add(kb.mul(i, inStrides[a]), kb.mul(j, inStrides[b])));
    Value second = kb.add(first, inStrides[a]);
    auto [firstIn, secondIn] = pairInside(kb.ult(j, extents[b]), i, extents[a]);
    Value v = loadPair(input, first, second, firstIn, secondIn, inAdjacent);
    kb.store(elementOf(v, 0), shared(r, c), 2);
    kb.store(elementOf(v, 1), shared(r, kb.add(c, one)), 2);
  }
  kb.barrier();
  // Lane l now moves elements 2l and 2l + 1 of a tile column along b.
  Value r = kb.mul(lane, kb.i32(2));
  Value j = kb.add(b0, r);
  Value outAdjacent = kb.eq(outStrides[b], one);
  for (int64_t step = 0; step < tile; step += kRowsPerStep) {
    Value col = kb.add(row, kb.i32(step));
    Value iOut = kb.add(a0, col);
    auto [firstIn, secondIn] =
        pairInside(kb.ult(iOut, extents[a]), j, extents[b]);
    Value v = LLVM::UndefOp::create(kb.b, kb.loc, pair);
    v = LLVM::InsertElementOp::create(
        kb.b, kb.loc, v, kb.load(element, shared(r, col), 2), kb.i32(0));
    v = LLVM::InsertElementOp::create(
        kb.b, kb.loc, v, kb.load(element, shared(kb.add(r, one), col), 2),
        kb.i32(1));
    Value first = kb.add(
        outBase, kb.add(kb.mul(iOut, outStrides[a]), kb.mul(j, outStrides[b])));
    Value second = kb.add(first, outStrides[b]);
    auto ifOp = scf::IfOp::create(
        kb.b, kb.loc, wholePair(first, firstIn, secondIn, outAdjacent),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(kb.b);
    kb.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    kb.store(v, address(output, first), 4);
    kb.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    kb.ifThen(firstIn,
              [&] { kb.store(elementOf(v, 0), address(output, first), 2); });
    kb.ifThen(secondIn,
              [&] { kb.store(elementOf(v, 1), address(output, second), 2); });
  }
}

void LayoutEmitter::emit() {
  for (int64_t d = 0; d < config.rank; ++d) {
    extents.push_back(getArg(getExtentParam(d)));
    inStrides.push_back(getArg(getInputStrideParam(d)));
    outStrides.push_back(getArg(getOutputStrideParam(d)));
  }
  if (config.kind == LayoutConfig::Kind::Transpose)
    emitTranspose();
  else
    emitCopy();
  LLVM::ReturnOp::create(kb.b, kb.loc, ValueRange{});
}

} // namespace

LLVM::LLVMFuncOp mlir::fp8::buildLayoutKernel(OpBuilder &builder, Location loc,
                                              const LayoutConfig &config) {
  return buildKernel<LayoutEmitter>(builder, loc, config);
}
