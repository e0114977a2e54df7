//===- GemmSM100.cpp - Warp-specialized TMA + tcgen05 GEMM for sm_100a ----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The kernel (docs/nvidia-isa.md, Blackwell):
//
//   * 192 threads in three roles. Warp 0 loads: its elected thread waits for
//     a free ring slot, arms the slot's "full" mbarrier with the bytes to
//     come and issues the TMA loads of an A tile [128, 128 bytes of K] and a
//     B tile [blockN, 128 bytes of K] (128-byte swizzle), plus, for block
//     scaling, bulk copies of the stage's scale chunks. Warp 1 allocates
//     tensor memory and issues the MMAs from one elected thread. Warps 2-5
//     run the epilogue; warp w may read tensor-memory lanes 32 * (w % 4) ..
//     + 31 only, which are the accumulator rows it stores.
//   * Tensor memory (128 lanes x 512 columns of 32 bits, one allocation):
//     columns [0, accumulators * blockN) hold the f32 accumulators, one
//     128 x blockN tile each (lane = row, column = output column); two of
//     them let the epilogue of one tile overlap the main loop of the next.
//     After them, per ring slot, the scale factors of A and of B in the
//     layout of ScaleFactorLayout.h (4 columns per chunk of 128 rows x 4
//     k-blocks, replicated into the four 32-lane partitions by
//     tcgen05.cp.32x128b.warpx4).
//   * Per K stage the MMA thread waits on the slot's full barrier, copies the
//     stage's scales to tensor memory (tcgen05.cp; it runs before the MMAs
//     that read them, in issue order), issues four tcgen05.mma (K = 32 for
//     8-bit operands, 64 for E2M1, 16 for bf16/f16 with kind::f16 and 8 for
//     f32 read as tf32 with kind::tf32; each 32 bytes further into the
//     swizzle span), and commits to the slot's "empty" barrier, which frees the
//     slot when those MMAs have read it. After a tile's last stage it commits
//     to the accumulator's "full" barrier.
//   * The epilogue waits on that barrier, reads 32 columns at a time with
//     tcgen05.ld.32x32b.x32 + tcgen05.wait::ld, releases the accumulator
//     after its last read, applies what the tensor cores did not (per-tensor
//     or row/column f32 scales, NVFP4 global scales, bias), converts and
//     stores each row's columns, 16 bytes at a time where the row allows.
//   * Persistent: CTA b computes tiles b, b + gridDim, ... grouped by 8 tile
//     rows; every role walks the same sequence, and the ring and the
//     accumulator phases run on across tiles (and across the matrices of a
//     batch, whose tiles follow each other; 3-D tensor maps keep each
//     tile's loads inside its matrix).
//
//===----------------------------------------------------------------------===//

#include "ScaledGemm.h"
#include "TmaPipeline.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Target/Descriptors.h"
#include "fp8/Target/ScaleFactorLayout.h"
#include "fp8/Target/Tcgen05InstrDescriptor.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr int64_t kEpilogueWarps = 4;
constexpr int64_t kLdColumns = 32; // tcgen05.ld.32x32b.x32
/// The register limit of kernels with an epilogue body or quantizing their
/// results by blocks. Left to itself, ptxas gives a 192-thread kernel 64 to
/// 96 registers (for occupancy the kernel's shared memory rules out), too
/// few for a block's values and its scale, or for 32 columns of results
/// through an epilogue reading bf16 inputs (it spilled); one CTA per SM can
/// have 65536 / 192.
constexpr int64_t kEpilogueMaxRegisters = 255;

/// The NVVM kind of an MMA without block scales, nullopt for the
/// block-scaled kinds.
std::optional<NVVM::Tcgen05MMAKind> getUnscaledMmaKind(Tcgen05Kind kind) {
  switch (kind) {
  case Tcgen05Kind::F8F6F4:
    return NVVM::Tcgen05MMAKind::F8F6F4;
  case Tcgen05Kind::F16:
    return NVVM::Tcgen05MMAKind::F16;
  case Tcgen05Kind::TF32:
    return NVVM::Tcgen05MMAKind::TF32;
  case Tcgen05Kind::MXF8F6F4:
  case Tcgen05Kind::MXF4NVF4:
    return std::nullopt;
  }
  llvm_unreachable("unknown tcgen05 kind");
}

/// Warp roles; warps 2-5 run the epilogue.
enum Warp : int64_t { kLoadWarp = 0, kMmaWarp = 1 };

/// Builds one kernel body.
class GemmEmitter : GemmEmitterBase<GemmSM100Config> {
public:
  using GemmEmitterBase::GemmEmitterBase;

  void emit();

private:
  /// FP8 results: the out scale.
  Value outFactor;
  /// The tensor-memory base address.
  Value tmemBase;
  int64_t stages = 0, accumulators = 0;

  bool blockScaled() const { return config.scaling == GemmScaling::Block; }

  // Shared-memory layout: A slots, B slots, A scale slots, B scale slots,
  // barriers, the tensor-memory address.
  int64_t aBytes() const {
    return GemmSM100Config::kBlockM * GemmSM100Config::kStageKBytes;
  }
  int64_t bBytes() const {
    return config.blockN * GemmSM100Config::kStageKBytes;
  }
  int64_t sfaBytes() const {
    return blockScaled() ? getScaleTileBytes(config.getScaleTileA()) : 0;
  }
  int64_t sfbBytes() const {
    return blockScaled() ? getScaleTileBytes(config.getScaleTileB()) : 0;
  }
  int64_t barriersOffset() const {
    return stages * (aBytes() + bBytes() + sfaBytes() + sfbBytes());
  }
  Value slot(int64_t base, int64_t bytes, Value s) {
    return kb.byteOffset(smem, kb.add(kb.i32(base), kb.mul(s, kb.i32(bytes))));
  }
  Value slotA(Value s) { return slot(0, aBytes(), s); }
  Value slotB(Value s) { return slot(stages * aBytes(), bBytes(), s); }
  Value slotSFA(Value s) {
    return slot(stages * (aBytes() + bBytes()), sfaBytes(), s);
  }
  Value slotSFB(Value s) {
    return slot(stages * (aBytes() + bBytes() + sfaBytes()), sfbBytes(), s);
  }
  /// The barriers of the ring of stages (full: the TMA bytes have arrived;
  /// empty: the MMAs have read the slot) and of the accumulators (full: the
  /// tile's MMAs are done; empty: the epilogue has read it).
  MbarrierRing stageRing, accRing;
  Value tmemSlot() {
    return kb.byteOffset(smem,
                         barriersOffset() + 16 * stages + 16 * accumulators);
  }

  // Tensor memory: accumulators, then per slot the scales of A and B.
  int64_t sfaColumns() const {
    return blockScaled() ? getScaleTmemColumns(config.getScaleTileA()) : 0;
  }
  int64_t sfbColumns() const {
    return blockScaled() ? getScaleTmemColumns(config.getScaleTileB()) : 0;
  }
  Value tmemColumn(Value column) { return kb.add(tmemBase, column); }
  Value tmemSFA(Value s) {
    return tmemColumn(kb.add(kb.i32(accumulators * config.blockN),
                             kb.mul(s, kb.i32(sfaColumns() + sfbColumns()))));
  }
  Value tmemSFB(Value s) { return kb.add(tmemSFA(s), kb.i32(sfaColumns())); }
  Value tmemPointer(Value address) {
    return LLVM::IntToPtrOp::create(kb.b, kb.loc, kb.ptr(6), address);
  }
  /// The tile loop every role runs: `body` gets the tile's first row and
  /// column, its batch (see forEachTile) and the carried values.
  ValueRange tileLoop(
      ValueRange inits,
      function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)> body) {
    return forEachTile(
        inits, [&](Value row, Value col, Value batch, ValueRange args) {
          return body(kb.mul(row, kb.i32(GemmSM100Config::kBlockM)),
                      kb.mul(col, kb.i32(config.blockN)), batch, args);
        });
  }

  void fence(NVVM::Tcgen05FenceKind kind) {
    NVVM::Tcgen05FenceOp::create(kb.b, kb.loc, kind);
  }

  void emitLoads();
  void emitMmas();
  void emitEpilogue(Value warp);
  /// FP8 results: codes of fl32(v * factor), 16 bytes at a time.
  void emitCodeStores(ArrayRef<Value> values, Value row, Value col0,
                      Value factor);
  /// Stores `values` of row `row` from column `col0` on; FP8 codes encode
  /// them by `factor` (by out_scale when null).
  void emitStores(ArrayRef<Value> values, Value row, Value col0,
                  Value factor = {});
};

void GemmEmitter::emitLoads() {
  Value elected = NVVM::ElectSyncOp::create(kb.b, kb.loc, kb.i1(), Value());
  Value bytes = kb.i32(config.getStageBytes());
  ScaleTile tileB = config.getScaleTileB();
  int64_t kChunksPerStage = getScaleKChunks(config.getScaleTileA());
  Value kChunks = kb.mul(kTiles, kb.i32(kChunksPerStage));
  tileLoop(ValueRange{kb.i32(0)}, [&](Value m0, Value n0, Value batch,
                                      ValueRange args) {
    auto issue = [&](Value kt, Value s, Value full) {
      Value k0 = kb.mul(kt, kb.i32(GemmSM100Config::kStageKBytes));
      for (auto [tmap, dst, row] :
           {std::tuple{tmapA, slotA(s), m0}, std::tuple{tmapB, slotB(s), n0}})
        loadOperandTile(tmap, dst, k0, row, batch, full);
      if (!blockScaled())
        return;
      // The stage's chunks of each 128-row band are contiguous in the
      // scale layout (Tcgen05ScaleLayout::getStageOffset): one bulk
      // copy per band.
      int64_t bandBytes = kScaleChunkBytes * kChunksPerStage;
      auto copyBands = [&](Value scales, Value firstRow, Value dst,
                           int64_t bands) {
        Value firstBand = kb.udiv(firstRow, kb.i32(kScaleChunkRows));
        for (int64_t band = 0; band < bands; ++band) {
          Value chunk = kb.add(kb.mul(kb.add(firstBand, kb.i32(band)), kChunks),
                               kb.mul(kt, kb.i32(kChunksPerStage)));
          Value src = kb.byteOffset(
              scales, kb.mul(kb.zext64(chunk), kb.i64(kScaleChunkBytes)));
          emitBulkLoad(kb, kb.byteOffset(dst, band * bandBytes), src, bandBytes,
                       full);
        }
      };
      copyBands(scaleA, m0, slotSFA(s), 1);
      copyBands(scaleB, n0, slotSFB(s), getScaleRowChunks(tileB));
    };
    return SmallVector<Value>{
        stageRing.emitProducerLoop(kTiles, args[0], elected, bytes, issue)};
  });
}

void GemmEmitter::emitMmas() {
  Value elected = NVVM::ElectSyncOp::create(kb.b, kb.loc, kb.i1(), Value());
  uint64_t operandDesc = getKMajor128BSwizzleTcgen05Descriptor();
  uint64_t copyDesc = getScaleCopyDescriptor(0);
  ScaleTile tileA = config.getScaleTileA(), tileB = config.getScaleTileB();
  Tcgen05Kind kind = config.getMmaKind();
  tileLoop(
      ValueRange{kb.i32(0), kb.i32(0)},
      [&](Value, Value, Value, ValueRange args) -> SmallVector<Value> {
        auto [acc, accPhase] = accRing.getSlot(args[1]);
        // Wait until the epilogue has read this accumulator's last tile.
        accRing.waitEmpty(acc, accPhase);
        fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
        Value d = tmemPointer(tmemColumn(kb.mul(acc, kb.i32(config.blockN))));
        ValueRange done = kb.forLoop(
            kb.i32(0), kTiles, kb.i32(1), ValueRange{args[0]},
            [&](Value kt, ValueRange inner) -> SmallVector<Value> {
              auto [s, phase] = stageRing.getSlot(inner[0]);
              stageRing.waitFull(s, phase);
              fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
              kb.ifThen(elected, [&] {
                Value sfa, sfb;
                if (blockScaled()) {
                  sfa = tmemSFA(s);
                  sfb = tmemSFB(s);
                  for (auto [tile, smemTile, tmem] :
                       {std::tuple{tileA, slotSFA(s), sfa},
                        std::tuple{tileB, slotSFB(s), sfb}}) {
                    unsigned copies =
                        getScaleRowChunks(tile) * getScaleKChunks(tile);
                    for (unsigned i = 0; i < copies; ++i) {
                      ScaleCopy copy = getScaleCopy(tile, i);
                      NVVM::Tcgen05CpOp::create(
                          kb.b, kb.loc, NVVM::Tcgen05CpShape::SHAPE_32x128b,
                          NVVM::CTAGroupKind::CTA_1,
                          NVVM::Tcgen05CpMulticast::WARPX4, nullptr,
                          tmemPointer(kb.add(tmem, kb.i32(copy.tmemColumn))),
                          getSharedDescriptor(copyDesc, smemTile,
                                              copy.smemOffset));
                    }
                  }
                }
                Value first = kb.eq(kt, kb.i32(0));
                for (unsigned step = 0; step < GemmSM100Config::kMmasPerStage;
                     ++step) {
                  MmaScaleSelector selA, selB;
                  uint32_t idesc = encodeTcgen05InstrDescriptor(
                      config.getInstrDescriptor(step, &selA, &selB));
                  Value descA =
                      getSharedDescriptor(operandDesc, slotA(s), 32 * step);
                  Value descB =
                      getSharedDescriptor(operandDesc, slotB(s), 32 * step);
                  // The first MMA of a tile overwrites the accumulator.
                  Value accumulate = step == 0
                                         ? kb.xorI(first, kb.boolean(true))
                                         : kb.boolean(true);
                  Value idescValue = kb.i32(int32_t(idesc));
                  if (std::optional<NVVM::Tcgen05MMAKind> unscaled =
                          getUnscaledMmaKind(kind)) {
                    NVVM::Tcgen05MMAOp::create(
                        kb.b, kb.loc, *unscaled, NVVM::CTAGroupKind::CTA_1,
                        NVVM::Tcgen05MMACollectorOp::DISCARD,
                        /*aShift=*/false, d, descA, descB, idescValue,
                        accumulate, Value(), Value());
                    continue;
                  }
                  bool fp4 = kind == Tcgen05Kind::MXF4NVF4;
                  NVVM::Tcgen05MMABlockScaleOp::create(
                      kb.b, kb.loc,
                      fp4 ? NVVM::MMABlockScaleKind::MXF4NVF4
                          : NVVM::MMABlockScaleKind::MXF8F6F4,
                      NVVM::CTAGroupKind::CTA_1,
                      config.scaleBlock == 16
                          ? NVVM::Tcgen05MMABlockScale::BLOCK16
                          : NVVM::Tcgen05MMABlockScale::BLOCK32,
                      NVVM::Tcgen05MMACollectorOp::DISCARD, d, descA, descB,
                      idescValue, accumulate,
                      tmemPointer(kb.add(sfa, kb.i32(selA.columnOffset))),
                      tmemPointer(kb.add(sfb, kb.i32(selB.columnOffset))));
                }
                // Frees the slot once these MMAs (and copies) have read it.
                NVVM::Tcgen05CommitOp::create(
                    kb.b, kb.loc, stageRing.getEmptyBarrier(s), Value());
              });
              return {kb.add(inner[0], kb.i32(1))};
            });
        kb.ifThen(elected, [&] {
          NVVM::Tcgen05CommitOp::create(kb.b, kb.loc,
                                        accRing.getFullBarrier(acc), Value());
        });
        return {done[0], kb.add(args[1], kb.i32(1))};
      });
}

void GemmEmitter::emitStores(ArrayRef<Value> values, Value row, Value col0,
                             Value factor) {
  if (config.fp8Out)
    return emitCodeStores(values, row, col0, factor ? factor : outFactor);
  Type element = getElementType(kb.b, config.out);
  int64_t elementBytes = config.out == WideElement::F32 ? 4 : 2;
  auto address = [&](Value col) {
    Value offset = kb.add(kb.mul(kb.zext64(row), kb.zext64(n)), kb.zext64(col));
    return kb.byteOffset(out, kb.mul(offset, kb.i64(elementBytes)));
  };
  auto narrow = [&](Value v) -> Value {
    if (v.getType() == element)
      return v;
    return arith::TruncFOp::create(kb.b, kb.loc, element, v);
  };
  Value rowIn = kb.ult(row, m);
  auto scalarStores = [&] {
    for (auto [j, v] : llvm::enumerate(values)) {
      Value col = kb.add(col0, kb.i32(j));
      Value in = arith::AndIOp::create(kb.b, kb.loc, rowIn, kb.ult(col, n));
      kb.ifThen(in, [&] { kb.store(narrow(v), address(col), elementBytes); });
    }
  };
  if (!config.vectorStores)
    return scalarStores();
  // Whole runs of 32 columns inside the matrix store 16 bytes at a time.
  Value whole = arith::AndIOp::create(
      kb.b, kb.loc, rowIn,
      kb.cmp(arith::CmpIPredicate::ule,
             kb.add(col0, kb.i32(int64_t(values.size()))), n));
  auto ifOp = scf::IfOp::create(kb.b, kb.loc, whole, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(kb.b);
  kb.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  int64_t perVector = 16 / elementBytes;
  auto vectorType = VectorType::get({perVector}, element);
  for (int64_t first = 0; first < int64_t(values.size()); first += perVector) {
    Value vector = LLVM::UndefOp::create(kb.b, kb.loc, vectorType);
    for (int64_t j = 0; j < perVector; ++j)
      vector = LLVM::InsertElementOp::create(
          kb.b, kb.loc, vector, narrow(values[first + j]), kb.i32(j));
    kb.store(vector, address(kb.add(col0, kb.i32(first))), 16);
  }
  kb.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scalarStores();
}

void GemmEmitter::emitCodeStores(ArrayRef<Value> values, Value row, Value col0,
                                 Value factor) {
  // Pairs through cvt.rn.satfinite, then the codes in memory order.
  int64_t count = values.size();
  auto pairs = VectorType::get({count / 2}, kb.i16());
  Value packed = LLVM::UndefOp::create(kb.b, kb.loc, pairs);
  for (int64_t j = 0; j < count / 2; ++j) {
    Value code = convertToFP8(values[2 * j], values[2 * j + 1], factor);
    packed =
        LLVM::InsertElementOp::create(kb.b, kb.loc, packed, code, kb.i32(j));
  }
  Value codes = LLVM::BitcastOp::create(
      kb.b, kb.loc, VectorType::get({count}, kb.i8()), packed);
  auto address = [&](Value col) {
    Value offset = kb.add(kb.mul(kb.zext64(row), kb.zext64(n)), kb.zext64(col));
    return kb.byteOffset(out, offset);
  };
  Value rowIn = kb.ult(row, m);
  auto scalarStores = [&] {
    for (int64_t j = 0; j < count; ++j) {
      Value col = kb.add(col0, kb.i32(j));
      Value in = arith::AndIOp::create(kb.b, kb.loc, rowIn, kb.ult(col, n));
      kb.ifThen(in, [&] {
        kb.store(LLVM::ExtractElementOp::create(kb.b, kb.loc, codes, kb.i32(j)),
                 address(col), 1);
      });
    }
  };
  if (!config.vectorStores)
    return scalarStores();
  Value whole = arith::AndIOp::create(
      kb.b, kb.loc, rowIn,
      kb.cmp(arith::CmpIPredicate::ule, kb.add(col0, kb.i32(count)), n));
  auto ifOp = scf::IfOp::create(kb.b, kb.loc, whole, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(kb.b);
  kb.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  auto sixteen = VectorType::get({16}, kb.i8());
  for (int64_t first = 0; first < count; first += 16) {
    Value part = LLVM::UndefOp::create(kb.b, kb.loc, sixteen);
    for (int64_t j = 0; j < 16; ++j)
      part = LLVM::InsertElementOp::create(
          kb.b, kb.loc, part,
          LLVM::ExtractElementOp::create(kb.b, kb.loc, codes,
                                         kb.i32(first + j)),
          kb.i32(j));
    kb.store(part, address(kb.add(col0, kb.i32(first))), 16);
  }
  kb.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scalarStores();
}

void GemmEmitter::emitEpilogue(Value warp) {
  Value lane = kb.urem(kb.threadId(), kb.i32(32));
  // The lanes (accumulator rows) this warp may read.
  Value partition = kb.mul(kb.urem(warp, kb.i32(4)), kb.i32(32));
  Value laneField = kb.shl(partition, kb.i32(16));
  // Per-tensor scales are read once (per tile in a batch, whose matrices
  // may each have their own); global scales cover the whole batch.
  auto loadTensorFactor = [&]() -> Value {
    if (config.scaling != GemmScaling::Tensor || config.wideOperands)
      return Value();
    return kb.mulf(kb.load(kb.f32(), scaleA, 4), kb.load(kb.f32(), scaleB, 4));
  };
  Value tensorFactor = config.batched ? Value() : loadTensorFactor();
  if (config.globalScales)
    tensorFactor =
        kb.mulf(kb.load(kb.f32(), globalA, 4), kb.load(kb.f32(), globalB, 4));
  if (config.fp8Out && !config.resultBlock)
    outFactor = kb.load(kb.f32(), outScale, 4);
  Value maxRow = kb.sub(m, kb.i32(1));
  Value maxCol = kb.sub(n, kb.i32(1));
  // A fused epilogue's math runs on half chunks (tcgen05.ld .x16), with
  // half the values live.
  int64_t ldColumns = config.epilogue ? kLdColumns / 2 : kLdColumns;
  auto vectorI32 = VectorType::get({ldColumns}, kb.i32());
  auto vectorF32 = VectorType::get({ldColumns}, kb.f32());

  tileLoop(
      ValueRange{kb.i32(0)},
      [&](Value m0, Value n0, Value batch,
          ValueRange args) -> SmallVector<Value> {
        auto [acc, accPhase] = accRing.getSlot(args[0]);
        accRing.waitFull(acc, accPhase);
        fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
        Value tileFactor = tensorFactor;
        if (batch && config.scaling == GemmScaling::Tensor)
          tileFactor = loadTensorFactor();
        Value row = kb.add(m0, kb.add(partition, lane));
        Value clampedRow = kb.minU(row, maxRow);
        Value rowScale;
        if (config.scaling == GemmScaling::RowCol)
          rowScale = loadF32(scaleA, clampedRow);
        Value accColumn = kb.mul(acc, kb.i32(config.blockN));
        // Runs `body` on the tile columns [begin, end) by `step`, in order,
        // carrying `inits`. With a fused elementwise epilogue the columns are
        // a loop rather than unrolled: each chunk's math is long enough to
        // hide the loop, and unrolled, ptxas hoists later chunks' loads (the
        // epilogue's operands, the column scales) over it and runs out of
        // registers.
        auto forColumns =
            [&](int64_t begin, int64_t end, int64_t step, ValueRange inits,
                function_ref<SmallVector<Value>(Value, ValueRange)> body) {
              if (config.epilogue)
                return llvm::to_vector(kb.forLoop(kb.i32(begin), kb.i32(end),
                                                  kb.i32(step), inits, body));
              SmallVector<Value> args(inits);
              for (int64_t column = begin; column < end; column += step)
                args = body(kb.i32(column), args);
              return args;
            };
        // This thread's amax over the tile.
        Value amax = kb.f32(0.0f);
        auto chunkAddress = [&](Value column) {
          return tmemPointer(
              kb.add(tmemBase, kb.add(laneField, kb.add(accColumn, column))));
        };
        // The accumulator is free for the next tile once every lane of the
        // four warps has read it: after the read of the last chunk, whose
        // first column is `column`.
        int64_t lastChunk = config.blockN - ldColumns;
        auto releaseAfterLast = [&](Value column) {
          auto release = [&] {
            fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
            NVVM::SyncWarpOp::create(kb.b, kb.loc, kb.i32(-1));
            kb.ifThen(kb.eq(lane, kb.i32(0)),
                      [&] { accRing.arriveEmpty(acc); });
          };
          if (std::optional<int64_t> known = getConstantIntValue(column)) {
            if (*known == lastChunk)
              release();
            return;
          }
          kb.ifThen(kb.eq(column, kb.i32(lastChunk)), release);
        };
        // Columns `column` + [0, 32) of this thread's row of the
        // accumulator, the last chunk's read releasing it.
        auto loadChunk = [&](Value column) {
          Value bits =
              NVVM::Tcgen05LdOp::create(kb.b, kb.loc, vectorI32, /*pack=*/false,
                                        NVVM::Tcgen05LdStShape::SHAPE_32X32B,
                                        chunkAddress(column), Value());
          NVVM::Tcgen05WaitOp::create(kb.b, kb.loc,
                                      NVVM::Tcgen05WaitKind::LOAD);
          return LLVM::BitcastOp::create(kb.b, kb.loc, vectorF32, bits)
              .getResult();
        };
        // The result values of the tile columns `column` + [0, 32) (f32 for
        // FP8 results), their amax folded into `chunkAmax` (if set).
        auto readChunk = [&](Value column, Value *chunkAmax, bool release) {
          Value floats = loadChunk(column);
          if (release)
            releaseAfterLast(column);
          Value col0 = kb.add(n0, column);
          SmallVector<Value> values;
          for (int64_t j = 0; j < ldColumns; ++j) {
            Value v =
                LLVM::ExtractElementOp::create(kb.b, kb.loc, floats, kb.i32(j));
            Value col = kb.minU(kb.add(col0, kb.i32(j)), maxCol);
            if (tileFactor)
              v = kb.mulf(v, tileFactor);
            else if (rowScale)
              v = kb.mulf(v, kb.mulf(rowScale, loadF32(scaleB, col)));
            if (config.bias)
              v = addBias(v, col);
            if (config.epilogue)
              v = applyEpilogue(v, clampedRow, col);
            // The amax of what is stored (an epilogue's results).
            if (chunkAmax) {
              Value in =
                  arith::AndIOp::create(kb.b, kb.loc, kb.ult(row, m),
                                        kb.ult(kb.add(col0, kb.i32(j)), n));
              *chunkAmax = foldAmax(*chunkAmax, kb.extToF32(v), in);
            }
            // FP8 codes encode f32 values.
            values.push_back(config.fp8Out ? kb.extToF32(v) : v);
          }
          return values;
        };
        if (!config.resultBlock) {
          amax = forColumns(
              0, config.blockN, ldColumns, amax,
              [&](Value column, ValueRange args) -> SmallVector<Value> {
                Value chunkAmax = args[0];
                emitStores(readChunk(column,
                                     config.outAmax ? &chunkAmax : nullptr,
                                     /*release=*/true),
                           row, kb.add(n0, column));
                return {chunkAmax};
              })[0];
        } else {
          // Results quantized by blocks: a block's values are needed for
          // its amax, then encoded by the block's scale. Each chunk's f32
          // results go back into its accumulator columns (this thread's
          // until the accumulator is released) and are read again once the
          // scale is known, so that 32 values are live rather than a
          // block's (with a heavy epilogue a block of 128 spilled).
          int64_t blockColumns =
              std::max<int64_t>(1, config.resultBlock / ldColumns) * ldColumns;
          auto shape = NVVM::Tcgen05LdStShapeAttr::get(
              kb.b.getContext(), NVVM::Tcgen05LdStShape::SHAPE_32X32B);
          // The tile column `offset` into the block at `block`: a constant
          // where both are (unrolled), so that releaseAfterLast decides at
          // compile time.
          auto blockColumn = [&](Value block, Value offset) {
            return kb.b.createOrFold<arith::AddIOp>(kb.loc, block, offset);
          };
          forColumns(
              0, config.blockN, blockColumns, {},
              [&](Value block, ValueRange) -> SmallVector<Value> {
                Value blockAmax = forColumns(
                    0, blockColumns, ldColumns, kb.f32(0.0f),
                    [&](Value offset, ValueRange args) -> SmallVector<Value> {
                      Value column = blockColumn(block, offset);
                      Value chunkAmax = args[0];
                      Value floats =
                          LLVM::UndefOp::create(kb.b, kb.loc, vectorF32);
                      for (auto [j, v] : llvm::enumerate(readChunk(
                               column, &chunkAmax, /*release=*/false)))
                        floats = LLVM::InsertElementOp::create(
                            kb.b, kb.loc, floats, v, kb.i32(j));
                      Value bits = LLVM::BitcastOp::create(kb.b, kb.loc,
                                                           vectorI32, floats);
                      NVVM::Tcgen05StOp::create(kb.b, kb.loc, UnitAttr(), shape,
                                                chunkAddress(column), bits,
                                                Value());
                      return {chunkAmax};
                    })[0];
                NVVM::Tcgen05WaitOp::create(kb.b, kb.loc,
                                            NVVM::Tcgen05WaitKind::STORE);
                Value blockCol = kb.add(n0, block);
                Value owner = arith::AndIOp::create(
                    kb.b, kb.loc, kb.ult(row, m), kb.ult(blockCol, n));
                Value factor =
                    emitResultBlockScale(blockAmax, row, blockCol, owner);
                forColumns(0, blockColumns, ldColumns, {},
                           [&](Value offset, ValueRange) -> SmallVector<Value> {
                             Value column = blockColumn(block, offset);
                             Value floats = loadChunk(column);
                             releaseAfterLast(column);
                             SmallVector<Value> values;
                             for (int64_t j = 0; j < ldColumns; ++j)
                               values.push_back(LLVM::ExtractElementOp::create(
                                   kb.b, kb.loc, floats, kb.i32(j)));
                             emitStores(values, row, kb.add(n0, column),
                                        factor);
                             return {};
                           });
                return {};
              });
        }
        if (config.rowAmax) {
          // This thread holds its row of the tile: one atomic per row.
          kb.ifThen(kb.ult(row, m), [&] {
            kb.atomicMaxNonNegative(
                kb.byteOffset(amaxOut, kb.mul(kb.zext64(row), kb.i64(4))),
                amax);
          });
        } else if (config.outAmax) {
          emitAmaxAtomic(amax, lane);
        }
        return {kb.add(args[0], kb.i32(1))};
      });
}

void GemmEmitter::emit() {
  if (config.resultBlock || config.epilogue)
    func->setAttr("nvvm.maxnreg",
                  kb.b.getI32IntegerAttr(kEpilogueMaxRegisters));
  stages = config.getStages();
  accumulators = config.getAccumulators();
  emitTileGrid(GemmSM100Config::kBlockM, config.blockN, config.getStageK());
  stageRing = MbarrierRing(kb, smem, stages, barriersOffset(),
                           barriersOffset() + 8 * stages);
  accRing = MbarrierRing(kb, smem, accumulators, barriersOffset() + 16 * stages,
                         barriersOffset() + 16 * stages + 8 * accumulators);

  Value tid = kb.threadId();
  Value warp = kb.udiv(tid, kb.i32(32));
  Value columns = kb.i32(config.getTmemColumns());
  // Thread 0 sets up the barriers; the MMA warp allocates tensor memory.
  kb.ifThen(kb.eq(tid, kb.i32(0)), [&] {
    // One arrival (the TMA bytes, or a commit of the MMAs) fills a slot or
    // an accumulator; the MMAs' commit frees a slot, each epilogue warp's
    // arrival an accumulator.
    stageRing.emitInit(1, 1);
    accRing.emitInit(1, kEpilogueWarps);
    NVVM::FenceMbarrierInitOp::create(kb.b, kb.loc);
  });
  kb.ifThen(kb.eq(warp, kb.i32(kMmaWarp)), [&] {
    NVVM::Tcgen05AllocOp::create(kb.b, kb.loc, tmemSlot(), columns);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(kb.b, kb.loc);
  });
  fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  kb.barrier();
  fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  tmemBase = kb.load(kb.i32(), tmemSlot(), 4);

  auto roles = scf::IfOp::create(kb.b, kb.loc, kb.eq(warp, kb.i32(kLoadWarp)),
                                 /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(kb.b);
    kb.b.setInsertionPointToStart(&roles.getThenRegion().front());
    emitLoads();
    kb.b.setInsertionPointToStart(&roles.getElseRegion().front());
    auto mma = scf::IfOp::create(kb.b, kb.loc, kb.eq(warp, kb.i32(kMmaWarp)),
                                 /*withElseRegion=*/true);
    kb.b.setInsertionPointToStart(&mma.getThenRegion().front());
    emitMmas();
    kb.b.setInsertionPointToStart(&mma.getElseRegion().front());
    emitEpilogue(warp);
  }
  // Every tensor-memory read is done before the MMA warp frees it.
  fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  kb.barrier();
  kb.ifThen(kb.eq(warp, kb.i32(kMmaWarp)), [&] {
    fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(kb.b, kb.loc, tmemPointer(tmemBase),
                                   columns);
  });
  LLVM::ReturnOp::create(kb.b, kb.loc, ValueRange{});
}

} // namespace

LLVM::LLVMFuncOp
mlir::fp8::buildGemmSM100Kernel(OpBuilder &builder, Location loc,
                                const GemmSM100Config &config) {
  return buildKernel<GemmEmitter>(builder, loc, config);
}
