//===- GemmSM90.cpp - Warp-specialized TMA + wgmma GEMM for sm_90a --------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The kernel (docs/nvidia-isa.md, Hopper):
//
//   * 384 threads: warpgroup 0 produces, warpgroups 1 and 2 consume. The
//     producer gives up registers (setmaxnreg.dec 40), the consumers take
//     them (setmaxnreg.inc 232; 24 and 240 where a 192-column tile's
//     accumulator and partial sum meet staged epilogue inputs).
//   * Shared memory holds a ring of `stages` slots, each an A tile
//     [blockM, 128] and a B tile [blockN, 128] of 8-bit values, written by TMA
//     with 128-byte swizzle; slot s has a "full" mbarrier (TMA bytes arrive)
//     and an "empty" one (the 8 consumer warps release it).
//   * Persistent: CTA b computes output tiles b, b + gridDim, ... in an order
//     grouped by 8 tile rows, so that concurrently computed tiles share A
//     and B in L2. The ring's position runs on across tiles.
//   * Each consumer warpgroup owns 64 rows of the tile and issues
//     wgmma.mma_async m64n{blockN}k32 on descriptors of the slot, four per K
//     tile. Partial sums are promoted into an f32 accumulator on the CUDA
//     cores every `promoteInterval` k32 steps (Tensor, RowCol), or at every
//     scale block with the blocks' scales (Block), or not at all. A
//     192-column tile over B's square blocks of 128 rows straddles two of
//     them: each column group of 8 takes the factor of its block.
//   * Consumers in turn (alternateConsumers): consumer 0 issues a wgmma
//     group after consumer 1 has issued its previous one, consumer 1 after
//     consumer 0 has issued the same one (named barriers 5 and 6), so that
//     the tensor cores run one consumer's group while the other promotes.
//   * The epilogue applies the remaining scales and the bias, converts, and
//     stores pairs of adjacent columns, guarded against the ragged edges of M
//     and N; TMA zero-fills out-of-range loads, so ragged K is exact.
//   * B's column scales (1 x 128 blocks along K, the weight gradients of
//     DeepSeek's recipe): each consumer warpgroup loads a K tile's scales,
//     stores them to shared memory and waits on a named barrier of its
//     own; or (producerColumnScales) the producer warp copies them into a
//     buffer beside the ring slot with cp.async, completed on the slot's
//     full mbarrier, and the consumers read them there.
//   * Staged epilogue inputs (stagedMatrices): after a tile's K loads the
//     producer copies the tile's part of each matrix the epilogue reads
//     into shared memory (TMA, 128-byte column chunks with 128-byte
//     swizzle), guarded by a one-slot ring: the consumers wait for it
//     before their epilogue and release it once they have read it.
//   * Epilogue warpgroup (epilogueWarpgroup, 512 threads): the consumers
//     store each tile's accumulators into a one-slot hand-over in shared
//     memory and go on with the next tile; a fourth warpgroup runs the
//     epilogue on both consumers' fragments meanwhile.
//   * Batched: the tiles of every matrix, one matrix after the other; 3-D
//     tensor maps keep each tile's loads inside its matrix.
//   * High precision (wideOperands): bf16/f16 (wgmma k16) or f32 read as
//     tf32 (k8) operands, the same 128-byte rows and 32-byte steps, no
//     scales and no promotion: the tensor cores accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "ScaledGemm.h"
#include "TmaPipeline.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Dialect/FP8/Utils/ScaleRules.h"
#include "fp8/Target/Descriptors.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr int64_t kWarpgroup = 128;
constexpr int64_t kConsumerWarps = 8;
constexpr int64_t kProducerRegisters = 40;
constexpr int64_t kConsumerRegisters = 232;
constexpr int64_t kMaxRegisters = 168; // at launch: 65536 / 384, rounded to 8
// Consumers of a 192-column tile that keep a partial sum beside the
// accumulator (96 registers each) and read staged epilogue inputs take 240:
// at 232 such kernels spilled 12 to 16 bytes (DeepSeek's GEMMs with the MLP
// block's bias and residual in the epilogue). The producer, which issues
// TMA copies and waits on mbarriers, assembles in 24 without spills.
constexpr int64_t kWideProducerRegisters = 24;
constexpr int64_t kWideConsumerRegisters = 240;
static_assert(kProducerRegisters + 2 * kConsumerRegisters <=
                      3 * kMaxRegisters &&
                  kWideProducerRegisters + 2 * kWideConsumerRegisters <=
                      3 * kMaxRegisters,
              "the warpgroups share the registers of the launch");

/// The registers a producer and a consumer thread keep after setmaxnreg
/// (the consumers' count applies without an epilogue warpgroup; promotion
/// implies FP8 operands: the high-precision GEMMs have none).
std::pair<int64_t, int64_t> getRegisterSplit(const GemmSM90Config &config) {
  if (!config.epilogueWarpgroup && config.blockN == 192 &&
      config.getPromotionSteps() > 0 && config.stagedMatrices)
    return {kWideProducerRegisters, kWideConsumerRegisters};
  return {kProducerRegisters, kConsumerRegisters};
}
// With an epilogue warpgroup: 65536 / 512 at launch, and 40 + 2 x 152 + 168
// = 4 x 128 after setmaxnreg (the consumers' accumulator and partial sum of
// a 128 x 128 tile fit in 152, block-scaled ones spilled at 144; the
// epilogue's polynomials spilled at 152 with f32 results).
constexpr int64_t kEpilogueWarpgroupMaxRegisters = 128;
constexpr int64_t kHandOverConsumerRegisters = 152;
constexpr int64_t kEpilogueWarpgroupRegisters = 168;
static_assert(kProducerRegisters + 2 * kHandOverConsumerRegisters +
                      kEpilogueWarpgroupRegisters ==
                  4 * kEpilogueWarpgroupMaxRegisters,
              "the warpgroups share the registers of the launch");
// The epilogue loads a thread's bias and input elements in batches, each
// batch's before the first of its results is stored: half the pairs of a
// 128 x 128 tile (16 of 32) at once, a quarter of a 128 x 192 tile's (12 of
// 48), whose accumulator holds half as many registers more. More spilled:
// all 32 pairs in some 128 x 128 epilogues, 24 of 48 with f32 inputs.
constexpr int64_t kEpilogueBatches = 2;
constexpr int64_t kWideEpilogueBatches = 4;
// The epilogue warpgroup loads 2 pairs at a time: it has fewer registers
// than consumers running the epilogue (4 pairs spilled the GELU
// derivative's), and the next tile's K loop to wait for memory in.
constexpr int64_t kEpilogueWarpgroupBatches = 16;
// Named barriers: 0 the CTA's, 1 and 2 each consumer's staged column scales,
// 3 and 4 each consumer's result tile, 5 and 6 the consumers' turns
// (alternateConsumers).
constexpr int64_t kTurnBarrier = 5;

NVVM::WGMMATypes wgmmaType(Format format) {
  return format == Format::E4M3 ? NVVM::WGMMATypes::e4m3
                                : NVVM::WGMMATypes::e5m2;
}

/// The wgmma operand type of a high-precision GEMM: f32 operands are read
/// as tf32.
NVVM::WGMMATypes wgmmaType(WideElement element) {
  switch (element) {
  case WideElement::F32:
    return NVVM::WGMMATypes::tf32;
  case WideElement::BF16:
    return NVVM::WGMMATypes::bf16;
  case WideElement::F16:
    return NVVM::WGMMATypes::f16;
  }
  llvm_unreachable("unknown element");
}

/// Builds one kernel body.
class GemmEmitter : GemmEmitterBase<GemmSM90Config> {
public:
  using GemmEmitterBase::GemmEmitterBase;

  void emit();

private:
  int64_t stages = 0;
  MbarrierRing ring;
  /// One slot: the staged epilogue inputs of a tile.
  MbarrierRing staging;
  /// One slot: a tile's accumulators, handed from the consumers to the
  /// epilogue warpgroup.
  MbarrierRing handOver;

  Type accType;
  int64_t accCount() const { return config.blockN / 2; }

  Value slotA(Value s) {
    return kb.byteOffset(smem, kb.mul(s, kb.i32(config.blockM * 128)));
  }
  Value slotB(Value s) {
    return kb.byteOffset(smem, kb.add(kb.i32(stages * config.blockM * 128),
                                      kb.mul(s, kb.i32(config.blockN * 128))));
  }
  /// The ring's barriers follow the slots.
  int64_t barriersOffset() const {
    return stages * (config.blockM + config.blockN) * 128;
  }
  /// The column scales of ring slot `s` (producerColumnScales).
  Value columnScaleSlot(Value s) {
    return kb.byteOffset(
        smem, kb.add(kb.i32(config.getColumnScaleOffset()),
                     kb.mul(s, kb.i32(config.getColumnScaleBufferBytes()))));
  }
  /// The producer warp's copy of the column scales of K tile `kt` of the
  /// tile from column `n0` into ring slot `s` (producerColumnScales).
  void emitColumnScaleCopies(Value kt, Value n0, Value s, Value full);

  void emitProducer();
  void emitConsumer(Value consumer);
  /// The per-tensor factor of the results (the product of both decode
  /// scales), or null without per-tensor scales.
  Value loadTensorFactor();
  /// The epilogue warpgroup's loop over the CTA's tiles.
  void emitEpilogueWarpgroup();
  /// The hand-over slot's address of accumulator pair `pair` (elements 2
  /// `pair` and 2 `pair` + 1) of thread `local` of consumer warpgroup
  /// `consumer`: [consumer][pair][local] pairs of f32, so that a warp's 32
  /// pairs are 256 contiguous bytes.
  Value handOverAddress(Value consumer, int64_t pair, Value local);
  /// The wgmma descriptor of k step `kStep` (32 bytes of K) of an operand
  /// tile at `tile`: K-major and 128B-swizzled, at `tile` + 32 `kStep`
  /// bytes; or, `mnMajor`, in boxes of 64 columns (GemmSM90Config::mnMajorA),
  /// `kStep` 16 rows of K further.
  Value descriptor(Value tile, int64_t kStep, bool mnMajor);
  /// The bytes of one TMA box of an MN-major tile: the stage's rows of K by
  /// 128 bytes of M or N.
  int64_t mnMajorBoxBytes() const {
    return config.getKElements(GemmSM90Config::kBlockK) * 128;
  }
  /// The producer's copy of stage `kt`'s K rows of an MN-major operand
  /// tile of `rows` rows of M or N from `row`, in boxes of 64 of them.
  void loadMNMajorTile(Value tensorMap, Value dst, Value kt, Value row,
                       int64_t rows, Value batch, Value barrier);
  Value wgmma(Value acc, Value descA, Value descB, bool accumulate);
  Value zeroAccumulator() {
    return LLVM::ZeroOp::create(kb.b, kb.loc, accType);
  }
  SmallVector<Value> unpack(Value acc);
  Value pack(ArrayRef<Value> values);
  /// Decoded scale `index` of an f32 or E8M0 scale array.
  Value loadScale(Value array, Value index);
  /// The epilogue of the tile at (`m0`, `n0`) (of matrix `batch` in a
  /// batch, else null), for the accumulator fragment at `fragmentRow` in it
  /// whose elements i and i + 1 (i even) `pairAt(i)` yields; `tile` counts
  /// the CTA's tiles (the staging ring's position).
  void emitEpilogue(function_ref<std::array<Value, 2>(int64_t)> pairAt,
                    Value m0, Value fragmentRow, Value n0, Value lane,
                    Value tensorFactor, Value tile, Value batch);
  /// Named barrier 3 + `consumer`: consumer warpgroup `consumer` alone (1
  /// and 2 are its column scales').
  void emitResultTileBarrier(Value consumer);
  /// Whether this thread issues its warpgroup's TMA stores (`tmaStore`):
  /// the warpgroup's first, which alone waits for its bulk groups.
  Value isResultTileIssuer() {
    return kb.eq(kb.urem(kb.threadId(), kb.i32(kWarpgroup)), kb.i32(0));
  }
  /// Consumer warpgroup `consumer`'s part of the result tile (`tmaStore`):
  /// boxes of 64 rows by 128 bytes, each row's 16-byte units swizzled by
  /// the row mod 8 (the 128-byte swizzle of TMA).
  Value resultTileBase(Value consumer);
  /// The shared-memory address in it of accumulator elements `i` and `i` +
  /// 1 (`i` even) of the thread whose fragment starts at `fragmentRow` and
  /// whose pairs start `laneByte` bytes into the tile's rows. What depends
  /// on `i` alone is a constant offset of the address, and the swizzled
  /// part takes a value for each 16-byte unit of a box: few distinct
  /// addresses for the compiler to keep live across the tiles.
  Value resultTileAddress(Value consumer, Value fragmentRow, Value laneByte,
                          int64_t i);
  /// The producer's copy of the staged inputs of the tile at (`m0`, `n0`)
  /// into the staging slot, once the consumers have released it.
  void emitStagingLoads(Value m0, Value n0, Value tile, Value elected);
  /// Elements `col` and `col` + 1 of tile row `row` of staged input
  /// `index`, from shared memory.
  std::array<Value, 2> loadStagedPair(int64_t index, Value row, Value col);
};

Value GemmEmitter::descriptor(Value tile, int64_t kStep, bool mnMajor) {
  if (!mnMajor)
    return getSharedDescriptor(getKMajor128BSwizzleWgmmaDescriptor(), tile,
                               kStep * 32);
  // A k step reads 32 bytes of K: 16 rows of 16-bit elements, 128 bytes
  // each.
  return getSharedDescriptor(
      getMNMajor128BSwizzleWgmmaDescriptor(mnMajorBoxBytes()), tile,
      kStep * config.getKElements(32) * 128);
}

void GemmEmitter::loadMNMajorTile(Value tensorMap, Value dst, Value kt,
                                  Value row, int64_t rows, Value batch,
                                  Value barrier) {
  int64_t bytes = config.getOperandBits() / 8;
  Value k0 = kb.mul(kt, kb.i32(config.getKElements(GemmSM90Config::kBlockK)));
  for (int64_t box = 0; box < rows / 64; ++box) {
    // Coordinates innermost first: bytes of M or N, then rows of K.
    SmallVector<Value, 3> coordinates{
        kb.mul(kb.add(row, kb.i32(64 * box)), kb.i32(bytes)), k0};
    if (batch)
      coordinates.push_back(batch);
    emitTmaLoad(kb, tensorMap, kb.byteOffset(dst, box * mnMajorBoxBytes()),
                coordinates, barrier);
  }
}

Value GemmEmitter::wgmma(Value acc, Value descA, Value descB, bool accumulate) {
  MLIRContext *ctx = kb.b.getContext();
  // Each wgmma reads 32 bytes of K: k32 (8-bit), k16 (16-bit) or k8 (tf32).
  int64_t k = config.getKElements(32);
  NVVM::WGMMATypes typeA = config.wideOperands ? wgmmaType(*config.wideOperands)
                                               : wgmmaType(config.aFormat);
  NVVM::WGMMATypes typeB = config.wideOperands ? wgmmaType(*config.wideOperands)
                                               : wgmmaType(config.bFormat);
  return NVVM::WgmmaMmaAsyncOp::create(
      kb.b, kb.loc, accType, acc, descA, descB,
      NVVM::MMAShapeAttr::get(ctx, 64, config.blockN, k), typeA, typeB,
      NVVM::WGMMATypes::f32,
      accumulate ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero,
      NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
      // K-major A is row-major and K-major B column-major; MN-major tiles
      // are read transposed.
      config.mnMajorA ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      config.mnMajorB ? NVVM::MMALayout::row : NVVM::MMALayout::col,
      /*satfinite=*/nullptr);
}

SmallVector<Value> GemmEmitter::unpack(Value acc) {
  SmallVector<Value> values;
  for (int64_t i = 0; i < accCount(); ++i)
    values.push_back(LLVM::ExtractValueOp::create(kb.b, kb.loc, acc, i));
  return values;
}

Value GemmEmitter::pack(ArrayRef<Value> values) {
  Value acc = LLVM::UndefOp::create(kb.b, kb.loc, accType);
  for (auto [i, value] : llvm::enumerate(values))
    acc = LLVM::InsertValueOp::create(kb.b, kb.loc, acc, value, i);
  return acc;
}

Value GemmEmitter::loadScale(Value array, Value index) {
  if (!config.e8m0Scales)
    return loadF32(array, index);
  // 2^(e - 127): e << 23, 2^-127 for e = 0, NaN for 0xFF.
  Value byte = kb.load(kb.i8(), kb.byteOffset(array, kb.zext64(index)), 1);
  Value e = arith::ExtUIOp::create(kb.b, kb.loc, kb.i32(), byte);
  Value bits =
      kb.select(kb.eq(e, kb.i32(0)), kb.i32(0x00400000), kb.shl(e, kb.i32(23)));
  bits = kb.select(kb.eq(e, kb.i32(255)), kb.i32(0x7FC00000), bits);
  return kb.bitcast(kb.f32(), bits);
}

void GemmEmitter::emitProducer() {
  Value elected = NVVM::ElectSyncOp::create(kb.b, kb.loc, kb.i1(), Value());
  Value bytes =
      kb.i32((config.blockM + config.blockN) * GemmSM90Config::kBlockK);
  // Multicast B (multicastB): this CTA copies half `rank` of the B tile
  // into both CTAs of its cluster, and expects its A tile and both halves
  // (those that start inside the matrices: the second CTA of a ragged last
  // pair of tile rows has no A tile, and a ragged last tile column may end
  // in the first half).
  int64_t rowBytes = GemmSM90Config::kBlockK;
  int64_t half = config.blockN / 2;
  Value rank = config.multicastB ? getClusterRank() : Value();
  // (ring position, tiles done)
  forEachTile(
      ValueRange{kb.i32(0), kb.i32(0)},
      [&](Value tileRow, Value tileCol, Value batch,
          ValueRange args) -> SmallVector<Value> {
        Value m0 = kb.mul(tileRow, kb.i32(config.blockM));
        Value n0 = kb.mul(tileCol, kb.i32(config.blockN));
        Value tileBytes = bytes, aIn, bRow, bIn;
        if (config.multicastB) {
          aIn = kb.ult(m0, m);
          tileBytes =
              kb.select(aIn, kb.i32(config.blockM * rowBytes), kb.i32(0));
          for (int64_t h = 0; h < 2; ++h)
            tileBytes = kb.add(
                tileBytes, kb.select(kb.ult(kb.add(n0, kb.i32(h * half)), n),
                                     kb.i32(half * rowBytes), kb.i32(0)));
          bRow = kb.add(n0, kb.mul(rank, kb.i32(half)));
          bIn = kb.ult(bRow, n);
        }
        // Stage `kt` of an operand tile of `rows` rows from `row`.
        auto loadTile = [&](Value tmap, Value slot, Value kt, Value row,
                            int64_t rows, bool mnMajor, Value full) {
          if (mnMajor)
            loadMNMajorTile(tmap, slot, kt, row, rows, batch, full);
          else
            loadOperandTile(tmap, slot, kb.mul(kt, kb.i32(rowBytes)), row,
                            batch, full);
        };
        auto issue = [&](Value kt, Value s, Value full) {
          if (!config.multicastB) {
            loadTile(tmapA, slotA(s), kt, m0, config.blockM, config.mnMajorA,
                     full);
            loadTile(tmapB, slotB(s), kt, n0, config.blockN, config.mnMajorB,
                     full);
            return;
          }
          kb.ifThen(aIn, [&] {
            loadTile(tmapA, slotA(s), kt, m0, config.blockM, config.mnMajorA,
                     full);
          });
          kb.ifThen(bIn, [&] {
            Value dst =
                kb.byteOffset(slotB(s), kb.mul(rank, kb.i32(half * rowBytes)));
            Value both = arith::ConstantOp::create(
                kb.b, kb.loc, kb.b.getI16IntegerAttr(0b11));
            loadOperandTile(tmapB, dst, kb.mul(kt, kb.i32(rowBytes)), bRow,
                            batch, full, both);
          });
        };
        auto copyColumnScales = [&](Value kt, Value s, Value full) {
          emitColumnScaleCopies(kt, n0, s, full);
        };
        Value position = ring.emitProducerLoop(
            kTiles, args[0], elected, tileBytes, issue,
            config.producerColumnScales
                ? function_ref<void(Value, Value, Value)>(copyColumnScales)
                : nullptr);
        if (config.stagedMatrices)
          emitStagingLoads(m0, n0, args[1], elected);
        return {position, kb.add(args[1], kb.i32(1))};
      });
}

void GemmEmitter::emitColumnScaleCopies(Value kt, Value n0, Value s,
                                        Value full) {
  // Lane l copies the scales of the tile's columns l, l + 32, ... (the last
  // column's for those past N, as the consumers' own loads clamp them: the
  // results there are not stored). Each lane's cp.async.mbarrier.arrive
  // raises the full barrier's pending count until its copies complete, so
  // the slot fills only with them; every lane arrives before the elected
  // one arms the barrier (bar.warp.sync), whose one expected arrival then
  // cannot complete the phase early.
  Value lane = kb.urem(kb.threadId(), kb.i32(32));
  Value kScales = kb.ceilDiv(k, kb.i32(config.kGroup));
  Value maxCol = kb.sub(n, kb.i32(1));
  Value buffer = columnScaleSlot(s);
  for (int64_t e = 0; e < config.blockN; e += 32) {
    Value element = kb.add(lane, kb.i32(e));
    Value col = kb.minU(kb.add(n0, element), maxCol);
    Value index = kb.add(kb.mul(col, kScales), kt);
    Value src = kb.byteOffset(scaleB, kb.mul(kb.zext64(index), kb.i64(4)));
    NVVM::CpAsyncOp::create(
        kb.b, kb.loc, kb.byteOffset(buffer, kb.mul(element, kb.i32(4))), src,
        /*size=*/4, NVVM::LoadCacheModifierKind::CA, Value());
  }
  NVVM::CpAsyncMBarrierArriveOp::create(kb.b, kb.loc, full,
                                        /*noinc=*/false);
  NVVM::SyncWarpOp::create(kb.b, kb.loc, kb.i32(-1));
}

void GemmEmitter::emitStagingLoads(Value m0, Value n0, Value tile,
                                   Value elected) {
  // Chunks whose columns start past N are skipped (and not expected): a
  // ragged N's partial chunk is zero-filled by TMA.
  struct Chunk {
    Value tensorMap, dst, col, inBounds;
  };
  SmallVector<Chunk> chunks;
  Value bytes = kb.i32(0);
  for (auto [i, input] : llvm::enumerate(config.epilogue->inputs)) {
    if (!config.isStaged(input))
      continue;
    int64_t elementBytes = getWideElementBytes(input.element);
    Value rowBytes = kb.mul(n, kb.i32(elementBytes));
    for (int64_t c = 0; c < config.blockN * elementBytes / 128; ++c) {
      Chunk chunk;
      chunk.tensorMap = epilogueInputs[i];
      chunk.dst = kb.byteOffset(smem, kb.i32(config.getStagedInputOffset() +
                                             config.getStagedBytesBefore(i) +
                                             c * config.blockM * 128));
      chunk.col = kb.add(kb.mul(n0, kb.i32(elementBytes)), kb.i32(c * 128));
      // (A tile row past M: the second CTA of a ragged pair, multicastB.)
      chunk.inBounds = kb.andI(kb.ult(chunk.col, rowBytes), kb.ult(m0, m));
      bytes = kb.add(bytes, kb.select(chunk.inBounds,
                                      kb.i32(config.blockM * 128), kb.i32(0)));
      chunks.push_back(chunk);
    }
  }
  staging.emitProducerLoop(kb.i32(1), tile, elected, bytes,
                           [&](Value, Value, Value full) {
                             for (const Chunk &chunk : chunks)
                               kb.ifThen(chunk.inBounds, [&] {
                                 emitTmaLoad(kb, chunk.tensorMap, chunk.dst,
                                             ValueRange{chunk.col, m0}, full);
                               });
                           });
}

std::array<Value, 2> GemmEmitter::loadStagedPair(int64_t index, Value row,
                                                 Value col) {
  const GemmEpilogue::Input &input = config.epilogue->inputs[index];
  int64_t elementBytes = getWideElementBytes(input.element);
  // Byte b of the tile row lies in chunk b / 128, in its 16-byte unit
  // (b / 16) mod 8 XOR row mod 8 (the 128-byte swizzle of rows of 128
  // bytes).
  Value byte = kb.mul(col, kb.i32(elementBytes));
  Value chunk = kb.udiv(byte, kb.i32(128));
  Value unit = kb.xorI(kb.andI(kb.lshr(byte, kb.i32(4)), kb.i32(7)),
                       kb.andI(row, kb.i32(7)));
  Value within = kb.add(
      kb.mul(chunk, kb.i32(config.blockM * 128)),
      kb.add(kb.mul(row, kb.i32(128)),
             kb.add(kb.shl(unit, kb.i32(4)), kb.andI(byte, kb.i32(15)))));
  // Input `index`'s chunks follow those of the staged inputs before it.
  Value address =
      kb.byteOffset(smem, kb.add(kb.i32(config.getStagedInputOffset() +
                                        config.getStagedBytesBefore(index)),
                                 within));
  SmallVector<Value> pair = loadElements(
      kb, getElementType(kb.b, input.element), 2, address, 2 * elementBytes);
  return {pair[0], pair[1]};
}

Value GemmEmitter::loadTensorFactor() {
  if (config.scaling != GemmScaling::Tensor || config.wideOperands)
    return Value();
  Value a = kb.load(kb.f32(), scaleA, 4), b = kb.load(kb.f32(), scaleB, 4);
  if (config.invertScaleA)
    a = emitReciprocal(kb.b, kb.loc, a);
  if (config.invertScaleB)
    b = emitReciprocal(kb.b, kb.loc, b);
  return kb.mulf(a, b);
}

Value GemmEmitter::handOverAddress(Value consumer, int64_t pair, Value local) {
  Value index = kb.add(
      kb.mul(kb.add(kb.mul(consumer, kb.i32(accCount() / 2)), kb.i32(pair)),
             kb.i32(kWarpgroup)),
      local);
  return kb.byteOffset(smem, kb.add(kb.i32(config.getHandOverOffset()),
                                    kb.mul(index, kb.i32(8))));
}

void GemmEmitter::emitEpilogueWarpgroup() {
  Value tid = kb.threadId();
  Value local = kb.urem(tid, kb.i32(kWarpgroup));
  Value warp = kb.udiv(local, kb.i32(32));
  Value lane = kb.urem(tid, kb.i32(32));
  Value tensorFactor = config.batched ? Value() : loadTensorFactor();
  forEachTile(ValueRange{kb.i32(0)},
              [&](Value tileRow, Value tileCol, Value batch,
                  ValueRange args) -> SmallVector<Value> {
                Value m0 = kb.mul(tileRow, kb.i32(config.blockM));
                Value n0 = kb.mul(tileCol, kb.i32(config.blockN));
                Value factor = batch ? loadTensorFactor() : tensorFactor;
                auto [slot, phase] = handOver.getSlot(args[0]);
                handOver.waitFull(slot, phase);
                // The fragments of both consumer warpgroups, as their thread
                // `local` held them.
                for (int64_t consumer = 0; consumer < 2; ++consumer) {
                  Value fragmentRow = kb.add(kb.i32(consumer * 64),
                                             kb.add(kb.mul(warp, kb.i32(16)),
                                                    kb.udiv(lane, kb.i32(4))));
                  emitEpilogue(
                      [&](int64_t i) -> std::array<Value, 2> {
                        SmallVector<Value> pair = loadElements(
                            kb, kb.f32(), 2,
                            handOverAddress(kb.i32(consumer), i / 2, local), 8);
                        return {pair[0], pair[1]};
                      },
                      m0, fragmentRow, n0, lane, factor, args[0], batch);
                }
                handOver.arriveEmpty(slot);
                return {kb.add(args[0], kb.i32(1))};
              });
}

void GemmEmitter::emitConsumer(Value consumer) {
  Value tid = kb.threadId();
  Value local = kb.urem(tid, kb.i32(kWarpgroup));
  Value warp = kb.udiv(local, kb.i32(32));
  Value lane = kb.urem(tid, kb.i32(32));
  int64_t promote = config.getPromotionSteps();
  int64_t partialSums = config.getPartialSums();
  // Per-tensor scales are read once (per tile in a batch, whose matrices
  // may each have their own).
  Value tensorFactor =
      config.batched || config.epilogueWarpgroup ? Value() : loadTensorFactor();
  // The rows of the accumulator fragment this thread holds (+0 and +8).
  Value fragmentRow =
      kb.add(kb.mul(consumer, kb.i32(64)),
             kb.add(kb.mul(warp, kb.i32(16)), kb.udiv(lane, kb.i32(4))));
  Value kScales = kb.ceilDiv(k, kb.i32(config.kGroup));
  // Releases the slot of ring position `position` when `when` holds: one
  // arrival per consumer warp (the pipelined loop of promote_interval 0
  // releases a tile's slot after the next tile's group is issued).
  // With multicast B (multicastB) the slot is also released in the other
  // CTA of the cluster, whose producer copies half of B into this one.
  Value peer =
      config.multicastB ? kb.xorI(getClusterRank(), kb.i32(1)) : Value();
  auto release = [&](Value slot) {
    ring.arriveEmpty(slot);
    if (peer)
      ring.arriveEmptyInCta(slot, peer);
  };
  auto releaseAfter = [&](Value position, Value when) {
    kb.ifThen(kb.andI(kb.eq(lane, kb.i32(0)), when),
              [&] { release(ring.getSlot(position).first); });
  };
  // Scale blocks along K in a K tile (Block scaling).
  int64_t blocksPerTile = GemmSM90Config::kBlockK / config.kGroup;
  // B's column scales staged by the consumers themselves (else, with
  // producerColumnScales, copied into each ring slot by the producer).
  bool consumersStageColumnScales =
      config.stagesColumnScales() && !config.producerColumnScales;
  // Turns (alternateConsumers): the first consumer issues a wgmma group
  // after the second has issued its previous one (barrier kTurnBarrier + 1),
  // the second after the first has issued the same one (kTurnBarrier). Each
  // barrier completes with one warpgroup's bar.arrive and the other's
  // bar.sync; a warpgroup arrives again only after the other has synced,
  // so no phase takes arrivals of the next. The second consumer passes the
  // first turn before its first group, and the first takes the last turn
  // after its last group, so that both barriers end complete.
  // Each consumer's barrier numbers are constants, one branch per consumer
  // (LLVM selects them once): computed from the consumer's index instead,
  // the consumers of wide tiles with staged epilogue inputs spilled 4 to 8
  // bytes.
  auto syncOn = [&](int64_t barrier) {
    NVVM::BarrierOp::create(kb.b, kb.loc, Type(), kb.i32(barrier),
                            kb.i32(2 * kWarpgroup), nullptr, Value());
  };
  auto arriveOn = [&](int64_t barrier) {
    NVVM::BarrierArriveOp::create(kb.b, kb.loc, kb.i32(barrier),
                                  kb.i32(2 * kWarpgroup));
  };
  auto eachConsumer = [&](function_ref<void(int64_t)> body) {
    if (!config.alternateConsumers)
      return;
    auto ifOp = scf::IfOp::create(kb.b, kb.loc, kb.eq(consumer, kb.i32(0)),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(kb.b);
    kb.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    body(0);
    kb.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    body(1);
  };
  auto awaitTurn = [&] {
    eachConsumer([&](int64_t c) { syncOn(kTurnBarrier + 1 - c); });
  };
  auto passTurn = [&] {
    eachConsumer([&](int64_t c) { arriveOn(kTurnBarrier + c); });
  };
  if (config.alternateConsumers)
    kb.ifThen(kb.eq(consumer, kb.i32(1)), [&] { arriveOn(kTurnBarrier + 1); });

  // (ring position, tiles done)
  forEachTile(
      ValueRange{kb.i32(0), kb.i32(0)},
      [&](Value tileRow, Value tileCol, Value batch,
          ValueRange args) -> SmallVector<Value> {
        Value m0 = kb.mul(tileRow, kb.i32(config.blockM));
        Value n0 = kb.mul(tileCol, kb.i32(config.blockN));
        Value zero = zeroAccumulator();
        // Block scaling: the scales of a K tile's blocks, loaded one tile
        // ahead (below). `rows` holds A's scales of this
        // thread's two rows for each block of the tile, `square` B's scale of
        // each block for the whole tile (square weight blocks; two per block,
        // of the first and second block of B's rows, for tiles that straddle
        // two), `staged` the column scales this thread loads for its
        // warpgroup.
        struct TileScales {
          SmallVector<Value> rows, square, staged;

          SmallVector<Value> flatten() const {
            return llvm::to_vector(
                llvm::concat<const Value>(rows, square, staged));
          }
          /// The scales `flatten` gave, in the shape of `like`.
          static TileScales unflatten(ValueRange values,
                                      const TileScales &like) {
            TileScales scales;
            auto take = [&](SmallVector<Value> &into, size_t count) {
              into.assign(values.begin(), values.begin() + count);
              values = values.drop_front(count);
            };
            take(scales.rows, like.rows.size());
            take(scales.square, like.square.size());
            take(scales.staged, like.staged.size());
            return scales;
          }
        };
        Value maxRow = kb.sub(m, kb.i32(1));
        Value maxCol = kb.sub(n, kb.i32(1));
        // Block `b` of K tile `kt`, clamped to the last block: the blocks
        // past K of a ragged last tile are not promoted, but loading their
        // scales ahead must stay inside the arrays.
        auto scaleIndex = [&](Value line, Value kt, Value b) {
          Value kBlock = kb.minU(kb.add(kb.mul(kt, kb.i32(blocksPerTile)), b),
                                 kb.sub(kScales, kb.i32(1)));
          return kb.add(kb.mul(line, kScales), kBlock);
        };
        auto loadTileScales = [&](Value kt) {
          TileScales scales;
          for (int64_t b = 0; b < blocksPerTile; ++b) {
            for (int64_t half : {0, 8}) {
              Value row = kb.minU(kb.add(m0, kb.add(fragmentRow, kb.i32(half))),
                                  maxRow);
              scales.rows.push_back(
                  loadScale(scaleA, scaleIndex(row, kt, kb.i32(b))));
            }
            if (config.bRowsPerScale > 1) {
              Value block = kb.udiv(n0, kb.i32(config.bRowsPerScale));
              scales.square.push_back(
                  loadScale(scaleB, scaleIndex(block, kt, kb.i32(b))));
              // The second block a wide tile straddles (the last one where
              // N ends in the first).
              if (config.straddlesTwoBBlocks()) {
                Value last = kb.udiv(maxCol, kb.i32(config.bRowsPerScale));
                Value next = kb.minU(kb.add(block, kb.i32(1)), last);
                scales.square.push_back(
                    loadScale(scaleB, scaleIndex(next, kt, kb.i32(b))));
              }
            }
          }
          // Element e of the [blocksPerTile, blockN] scales of the tile is
          // loaded by thread e mod 128 of the warpgroup.
          for (int64_t e = 0;
               consumersStageColumnScales && e < blocksPerTile * config.blockN;
               e += kWarpgroup) {
            Value element = kb.add(local, kb.i32(e));
            Value col = kb.minU(
                kb.add(n0, kb.urem(element, kb.i32(config.blockN))), maxCol);
            // Block b of the tile: the element's index over blockN.
            Value b = kb.udiv(element, kb.i32(config.blockN));
            scales.staged.push_back(loadScale(scaleB, scaleIndex(col, kt, b)));
          }
          return scales;
        };
        // The staging buffer of ring position `it` (two, alternating: a
        // thread rewrites one only after the warpgroup's next barrier, which
        // every thread reaches after reading it).
        auto stagingBuffer = [&](Value it) {
          Value parity = kb.urem(it, kb.i32(2));
          Value index = kb.add(kb.mul(consumer, kb.i32(2)), parity);
          return kb.byteOffset(
              smem, kb.add(kb.i32(config.getColumnScaleOffset()),
                           kb.mul(index,
                                  kb.i32(config.getColumnScaleBufferBytes()))));
        };
        // Stores the tile's staged scales and waits for the warpgroup's.
        auto stageColumnScales = [&](const TileScales &scales, Value it) {
          Value buffer = stagingBuffer(it);
          for (auto [i, scale] : llvm::enumerate(scales.staged)) {
            Value element = kb.add(local, kb.i32(i * kWarpgroup));
            kb.store(scale, kb.byteOffset(buffer, kb.mul(element, kb.i32(4))),
                     4);
          }
          // Named barrier 1 or 2: the consumer warpgroup alone.
          NVVM::BarrierOp::create(kb.b, kb.loc, Type(),
                                  kb.add(consumer, kb.i32(1)),
                                  kb.i32(kWarpgroup), nullptr, Value());
        };
        // The factor of each accumulator element for block `b` of the tile.
        auto blockFactors = [&](const TileScales &scales, int64_t b, Value it) {
          SmallVector<Value> factors;
          // Columns laneCol + 8 j + {0, 1} of the tile, read in pairs.
          SmallVector<Value> colScales;
          if (config.stagesColumnScales()) {
            Value laneCol = kb.mul(kb.urem(lane, kb.i32(4)), kb.i32(2));
            Value first = kb.byteOffset(
                config.producerColumnScales
                    ? columnScaleSlot(ring.getSlot(it).first)
                    : stagingBuffer(it),
                kb.mul(kb.add(kb.i32(b * config.blockN), laneCol), kb.i32(4)));
            auto pairType = VectorType::get({2}, kb.f32());
            for (int64_t j = 0; j < config.blockN / 8; ++j) {
              Value pair =
                  kb.load(pairType, kb.byteOffset(first, 8 * j * 4), 8);
              for (int64_t e = 0; e < 2; ++e)
                colScales.push_back(LLVM::ExtractElementOp::create(
                    kb.b, kb.loc, pair, kb.i32(e)));
            }
          }
          if (config.straddlesTwoBBlocks()) {
            // Columns 8 j + [0, 8) lie in the first block for j < 8 (the
            // tile's 192 - 128 columns before a block may start), in the
            // second for j >= 16 (past one block), and for the others in
            // the first where the tile starts at column 0 of a block.
            Value startsAligned =
                kb.eq(kb.urem(n0, kb.i32(config.bRowsPerScale)), kb.i32(0));
            std::array<Value, 2> first, second, middle;
            for (int64_t r = 0; r < 2; ++r) {
              Value rowScale = scales.rows[2 * b + r];
              first[r] = kb.mulf(rowScale, scales.square[2 * b]);
              second[r] = kb.mulf(rowScale, scales.square[2 * b + 1]);
              middle[r] = kb.select(startsAligned, first[r], second[r]);
            }
            int64_t firstGroups = (config.blockN - config.bRowsPerScale) / 8;
            int64_t secondGroup = config.bRowsPerScale / 8;
            for (int64_t i = 0; i < accCount(); ++i) {
              int64_t j = i >> 2, r = (i >> 1) & 1;
              factors.push_back(j < firstGroups   ? first[r]
                                : j < secondGroup ? middle[r]
                                                  : second[r]);
            }
            return factors;
          }
          for (int64_t i = 0; i < accCount(); ++i) {
            Value colScale = config.stagesColumnScales()
                                 ? colScales[2 * (i >> 2) + (i & 1)]
                                 : scales.square[b];
            factors.push_back(
                kb.mulf(scales.rows[2 * b + ((i >> 1) & 1)], colScale));
          }
          return factors;
        };
        auto promoteInto = [&](Value acc, Value partial,
                               const TileScales *scales, int64_t b, Value it) {
          SmallVector<Value> sums = unpack(acc);
          SmallVector<Value> parts = unpack(partial);
          if (config.scaling == GemmScaling::Block) {
            SmallVector<Value> factors = blockFactors(*scales, b, it);
            for (int64_t i = 0; i < accCount(); ++i)
              sums[i] = kb.fma(parts[i], factors[i], sums[i]);
          } else {
            for (int64_t i = 0; i < accCount(); ++i)
              sums[i] = kb.addf(sums[i], parts[i]);
          }
          return pack(sums);
        };

        // Block scales are loaded one K tile ahead: a tile's come in while
        // the previous tile's slot fills, its wgmmas run and it promotes,
        // and are in registers when its promotion (or, staged, its wgmmas'
        // issue) needs them. Loading them in the tile itself left their
        // latency, from L2 under the operands' traffic, to the wgmmas
        // alone. The loads past the last tile read the last block again.
        TileScales firstScales;
        if (config.scaling == GemmScaling::Block)
          firstScales = loadTileScales(kb.i32(0));
        SmallVector<Value> inits{args[0], zero};
        inits.append(partialSums, zero);
        llvm::append_range(inits, firstScales.flatten());
        // Promotes the partial sum of group `b` of K tile `kt` (Block
        // scaling: kGroup is 32 or 128, groups of 1 or 4 steps, group b is
        // block b of the tile).
        auto promoteGroup = [&](Value acc, Value partial,
                                const TileScales &scales, Value kt, int64_t b,
                                Value it) -> Value {
          if (config.scaling != GemmScaling::Block ||
              config.kGroup == GemmSM90Config::kBlockK)
            return promoteInto(acc, partial, &scales, b, it);
          // Blocks shorter than a K tile: the last tile of a K that is not
          // a multiple of it has groups past K, which have no scales (their
          // partial sums are TMA's zeros).
          Value kBlock = kb.add(kb.mul(kt, kb.i32(blocksPerTile)), kb.i32(b));
          auto inK = scf::IfOp::create(kb.b, kb.loc, TypeRange{accType},
                                       kb.ult(kBlock, kScales),
                                       /*withElseRegion=*/true);
          OpBuilder::InsertionGuard guard(kb.b);
          kb.b.setInsertionPointToStart(&inK.getThenRegion().front());
          scf::YieldOp::create(kb.b, kb.loc,
                               promoteInto(acc, partial, &scales, b, it));
          kb.b.setInsertionPointToStart(&inK.getElseRegion().front());
          scf::YieldOp::create(kb.b, kb.loc, acc);
          return inK.getResult(0);
        };
        // Main loop over K tiles: (ring position, accumulator, partial sums,
        // the tile's block scales).
        ValueRange state = kb.forLoop(
            kb.i32(0), kTiles, kb.i32(1), inits,
            [&](Value kt, ValueRange inner) -> SmallVector<Value> {
              Value it = inner[0], acc = inner[1];
              SmallVector<Value> partials(inner.slice(2, partialSums));
              // The only partial sum unless there are several.
              Value &partial = partials.front();
              TileScales scales = TileScales::unflatten(
                  inner.drop_front(2 + partialSums), firstScales);
              TileScales nextScales;
              if (config.scaling == GemmScaling::Block)
                nextScales = loadTileScales(kb.add(kt, kb.i32(1)));
              // The next trip's arguments.
              auto carry = [&](Value nextIt, Value nextAcc) {
                SmallVector<Value> values{nextIt, nextAcc};
                llvm::append_range(values, partials);
                llvm::append_range(values, nextScales.flatten());
                return values;
              };
              auto [s, phase] = ring.getSlot(it);
              ring.waitFull(s, phase);
              Value tileA =
                  kb.byteOffset(slotA(s), kb.mul(consumer, kb.i32(64 * 128)));
              Value tileB = slotB(s);
              // (Never a turn where promote is 0: verify refuses it.)
              awaitTurn();
              NVVM::WgmmaFenceAlignedOp::create(kb.b, kb.loc);
              if (promote == 0) {
                // The tensor cores accumulate across K tiles: this tile's
                // group is issued while the previous tile's may still run,
                // and only that one is waited for, so the pipe does not
                // drain between tiles. Its slot is released then.
                for (int64_t step = 0; step < 4; ++step)
                  acc = wgmma(acc, descriptor(tileA, step, config.mnMajorA),
                              descriptor(tileB, step, config.mnMajorB),
                              /*accumulate=*/true);
                NVVM::WgmmaGroupSyncAlignedOp::create(kb.b, kb.loc);
                NVVM::WgmmaWaitGroupSyncOp::create(kb.b, kb.loc, 1);
                releaseAfter(kb.sub(it, kb.i32(1)), kb.ult(kb.i32(0), kt));
                return carry(kb.add(it, kb.i32(1)), acc);
              } else if (promote <= 4) {
                // Each wait covers `partialSums` promotion groups, each
                // step into the partial sum of its group: one group at a
                // time, or (several partial sums) the whole tile at once,
                // so that the pipe drains once a tile instead of once a
                // group.
                int64_t perWait = promote * partialSums;
                for (int64_t first = 0; first < 4; first += perWait) {
                  // The promotion read the partial sums' registers, which
                  // the next wgmmas write.
                  if (first != 0) {
                    awaitTurn();
                    NVVM::WgmmaFenceAlignedOp::create(kb.b, kb.loc);
                  }
                  for (int64_t step = first; step < first + perWait; ++step) {
                    Value &sum = partials[(step - first) / promote];
                    sum = wgmma(sum, descriptor(tileA, step, config.mnMajorA),
                                descriptor(tileB, step, config.mnMajorB),
                                /*accumulate=*/(step - first) % promote != 0);
                  }
                  NVVM::WgmmaGroupSyncAlignedOp::create(kb.b, kb.loc);
                  passTurn();
                  // The column scales go to shared memory while the first
                  // group runs.
                  if (first == 0 && consumersStageColumnScales)
                    stageColumnScales(scales, it);
                  NVVM::WgmmaWaitGroupSyncOp::create(kb.b, kb.loc, 0);
                  // With several partial sums the slot's tiles are read:
                  // release it before their (long) promotion.
                  if (partialSums > 1) {
                    kb.ifThen(kb.eq(lane, kb.i32(0)), [&] { release(s); });
                    for (int64_t g = 0; g < partialSums; ++g)
                      acc = promoteGroup(acc, partials[g], scales, kt,
                                         first / promote + g, it);
                    return carry(kb.add(it, kb.i32(1)), acc);
                  }
                  acc = promoteGroup(acc, partial, scales, kt, first / promote,
                                     it);
                }
              } else {
                // Groups of several K tiles: restart the partial sum at the
                // first tile of a group, promote after the last.
                int64_t tilesPerGroup = promote / 4;
                Value first =
                    kb.eq(kb.urem(kt, kb.i32(tilesPerGroup)), kb.i32(0));
                partial = LLVM::SelectOp::create(kb.b, kb.loc, first,
                                                 zeroAccumulator(), partial);
                for (int64_t step = 0; step < 4; ++step)
                  partial =
                      wgmma(partial, descriptor(tileA, step, config.mnMajorA),
                            descriptor(tileB, step, config.mnMajorB),
                            /*accumulate=*/true);
                NVVM::WgmmaGroupSyncAlignedOp::create(kb.b, kb.loc);
                passTurn();
                NVVM::WgmmaWaitGroupSyncOp::create(kb.b, kb.loc, 0);
                Value last = kb.orI(kb.eq(kb.urem(kt, kb.i32(tilesPerGroup)),
                                          kb.i32(tilesPerGroup - 1)),
                                    kb.eq(kt, kb.sub(kTiles, kb.i32(1))));
                Value promoted = promoteInto(acc, partial, nullptr, 0, it);
                acc = LLVM::SelectOp::create(kb.b, kb.loc, last, promoted, acc);
              }
              // Release the slot: one arrival per consumer warp.
              kb.ifThen(kb.eq(lane, kb.i32(0)), [&] { release(s); });
              return carry(kb.add(it, kb.i32(1)), acc);
            });
        if (promote == 0) {
          // The last tile's group, then its slot.
          NVVM::WgmmaWaitGroupSyncOp::create(kb.b, kb.loc, 0);
          releaseAfter(kb.sub(state[0], kb.i32(1)), kb.ult(kb.i32(0), kTiles));
        }
        Value next = kb.add(args[1], kb.i32(1));
        SmallVector<Value> values = unpack(state[1]);
        if (config.epilogueWarpgroup) {
          // Hand the accumulators over once the epilogue warpgroup has
          // read the previous tile's: every thread stores its pairs and
          // arrives.
          auto [slot, phase] = handOver.getSlot(args[1]);
          handOver.waitEmpty(slot, phase);
          for (int64_t i = 0; i < accCount(); i += 2)
            storeElements(kb, {values[i], values[i + 1]},
                          handOverAddress(consumer, i / 2, local), 8);
          handOver.arriveFull(slot);
          return {state[0], next};
        }
        emitEpilogue(
            [&](int64_t i) -> std::array<Value, 2> {
              return {values[i], values[i + 1]};
            },
            m0, fragmentRow, n0, lane,
            batch ? loadTensorFactor() : tensorFactor, args[1], batch);
        return {state[0], next};
      });
  if (config.alternateConsumers)
    kb.ifThen(kb.eq(consumer, kb.i32(0)), [&] { syncOn(kTurnBarrier + 1); });
  // The CTA's last copies complete before it exits (their shared memory
  // with it).
  if (config.tmaStore)
    kb.ifThen(isResultTileIssuer(), [&] { emitBulkWait(kb, /*read=*/false); });
}

void GemmEmitter::emitResultTileBarrier(Value consumer) {
  NVVM::BarrierOp::create(kb.b, kb.loc, Type(), kb.add(consumer, kb.i32(3)),
                          kb.i32(kWarpgroup), nullptr, Value());
}

Value GemmEmitter::resultTileBase(Value consumer) {
  int64_t bytes = 64 * config.blockN * config.getResultBytes();
  return kb.byteOffset(smem, kb.add(kb.i32(config.getResultTileOffset()),
                                    kb.mul(consumer, kb.i32(bytes))));
}

Value GemmEmitter::resultTileAddress(Value consumer, Value fragmentRow,
                                     Value laneByte, int64_t i) {
  // Element i lies 8 (i >> 2) columns past the lane's first and 8 rows
  // below its fragment's first when bit 1 of i is set. A lane's bytes stay
  // inside the 128-byte box of the pair's first column, so the box and the
  // row half are constant offsets (a box is 64 rows of 128 bytes).
  int64_t byte = 8 * (i >> 2) * config.getResultBytes();
  int64_t constant = byte / 128 * 64 * 128 + ((i >> 1) & 1) * 8 * 128;
  Value row = kb.urem(fragmentRow, kb.i32(64));
  Value inBox = kb.add(laneByte, kb.i32(byte % 128));
  Value unit = kb.xorI(kb.andI(kb.lshr(inBox, kb.i32(4)), kb.i32(7)),
                       kb.andI(row, kb.i32(7)));
  Value offset =
      kb.add(kb.mul(row, kb.i32(128)),
             kb.add(kb.shl(unit, kb.i32(4)), kb.andI(inBox, kb.i32(15))));
  return kb.byteOffset(kb.byteOffset(resultTileBase(consumer), offset),
                       constant);
}

void GemmEmitter::emitEpilogue(
    function_ref<std::array<Value, 2>(int64_t)> pairAt, Value m0,
    Value fragmentRow, Value colBase, Value lane, Value tensorFactor,
    Value tile, Value batch) {
  Value rowBase = kb.add(m0, fragmentRow);
  Type element = getElementType(kb.b, config.out);
  int64_t elementBytes = config.getResultBytes();
  // A TMA store (tmaStore): each consumer warpgroup writes its 64 rows of
  // the result tile into shared memory, and its first thread copies them
  // out. That thread first waits until the previous tile's copies have
  // read the shared memory, and the warpgroup's barrier tells the others.
  Value consumer = kb.udiv(fragmentRow, kb.i32(64));
  Value issuer;
  if (config.tmaStore) {
    issuer = isResultTileIssuer();
    kb.ifThen(issuer, [&] { emitBulkWait(kb, /*read=*/true); });
    emitResultTileBarrier(consumer);
  }
  Value outFactor = config.fp8Out && !config.resultBlock
                        ? kb.load(kb.f32(), outScale, 4)
                        : Value();
  // The running amax of this thread's results: [0] of all of them, or of
  // each of its two rows (rowBase and rowBase + 8) with rowAmax.
  Value amaxes[2] = {kb.f32(0.0f), kb.f32(0.0f)};
  Value laneCol = kb.mul(kb.urem(lane, kb.i32(4)), kb.i32(2));
  Value maxRow = kb.sub(m, kb.i32(1));
  Value maxCol = kb.sub(n, kb.i32(1));
  // Elements from one row of the result to the next: a batch's rows apart
  // when they are merged (outMergedBatches; `out` then starts at the
  // matrix's first row).
  Value outPitch = kb.zext64(n);
  if (config.outMergedBatches)
    outPitch = kb.mul(outPitch, kb.zext64(getArg(GemmParam::Batches)));
  // Accumulator elements i and i + 1 lie in row rowBase + 8 * ((i >> 1) & 1)
  // and columns laneCol + 8 * (i >> 2) + {0, 1} of the tile.
  struct Pair {
    Value row, col, inBounds;
    // Its accumulator element (the first of the two).
    int64_t index = 0;
    SmallVector<Value> values;
    // Loaded before the values are computed: the bias of each element and
    // the elements of the epilogue's inputs.
    SmallVector<Value> biases;
    SmallVector<SmallVector<Value>> inputs;
  };
  // Whether element j of a pair lies inside the matrix.
  auto elementInBounds = [&](Value row, Value col, int64_t j) -> Value {
    return arith::AndIOp::create(kb.b, kb.loc, kb.ult(row, m),
                                 kb.ult(kb.add(col, kb.i32(j)), n));
  };
  // The position of the pair at accumulator element `i` and its loads.
  auto loadPair = [&](int64_t i) {
    Pair pair;
    pair.row = kb.add(rowBase, kb.i32(8 * ((i >> 1) & 1)));
    pair.col = kb.add(colBase, kb.add(laneCol, kb.i32(8 * (i >> 2))));
    pair.index = i;
    pair.inBounds = arith::AndIOp::create(kb.b, kb.loc, kb.ult(pair.row, m),
                                          kb.ult(pair.col, n));
    for (int64_t j = 0; j < 2; ++j) {
      Value col = kb.minU(kb.add(pair.col, kb.i32(j)), maxCol);
      if (config.bias)
        pair.biases.push_back(loadBias(col));
      if (config.epilogue)
        pair.inputs.push_back(
            loadEpilogueInputs(kb.minU(pair.row, maxRow), col));
    }
    // Staged inputs, both elements at once from the tile in shared memory
    // (past the matrix: TMA's zeros, which no stored result or amax reads).
    for (auto [index, input] :
         llvm::enumerate(config.epilogue ? config.epilogue->inputs
                                         : ArrayRef<GemmEpilogue::Input>())) {
      if (!config.isStaged(input))
        continue;
      std::array<Value, 2> elements =
          loadStagedPair(index, kb.add(fragmentRow, kb.i32(8 * ((i >> 1) & 1))),
                         kb.add(laneCol, kb.i32(8 * (i >> 2))));
      for (int64_t j = 0; j < 2; ++j)
        pair.inputs[j][index] = elements[j];
    }
    return pair;
  };
  // The values of `pair` (at accumulator element `i`), its amax folded in.
  auto computePair = [&](Pair &pair, int64_t i) {
    Value row = pair.row, col = pair.col;
    Value &amax = amaxes[config.rowAmax ? (i >> 1) & 1 : 0];
    SmallVector<Value> &v = pair.values;
    std::array<Value, 2> accumulated = pairAt(i);
    v = {accumulated[0], accumulated[1]};
    if (tensorFactor) {
      for (Value &x : v)
        x = kb.mulf(x, tensorFactor);
    } else if (config.scaling == GemmScaling::RowCol) {
      Value rowScale = loadScale(scaleA, kb.minU(row, maxRow));
      for (int64_t j = 0; j < 2; ++j) {
        Value c = kb.minU(kb.add(col, kb.i32(j)), maxCol);
        v[j] = kb.mulf(v[j], kb.mulf(rowScale, loadScale(scaleB, c)));
      }
    }
    if (config.bias) {
      for (int64_t j = 0; j < 2; ++j)
        v[j] = kb.addf(v[j], pair.biases[j]);
    }
    if (config.epilogue) {
      // The elements the epilogue yields; the amax is theirs, in bounds.
      for (int64_t j = 0; j < 2; ++j) {
        Value c = kb.add(col, kb.i32(j));
        v[j] = applyEpilogue(v[j], kb.minU(row, maxRow), kb.minU(c, maxCol),
                             pair.inputs[j]);
        if (config.outAmax)
          amax =
              foldAmax(amax, kb.extToF32(v[j]), elementInBounds(row, col, j));
      }
    } else if (config.outAmax) {
      for (Value x : v)
        amax = foldAmax(amax, x, pair.inBounds);
    }
  };
  // Converts and stores `pair`; FP8 codes encode by `factor`.
  auto storePair = [&](const Pair &pair, Value factor) {
    Value vector;
    if (config.fp8Out) {
      vector = convertToFP8(kb.extToF32(pair.values[0]),
                            kb.extToF32(pair.values[1]), factor);
    } else {
      auto vectorType = VectorType::get({2}, element);
      vector = LLVM::UndefOp::create(kb.b, kb.loc, vectorType);
      for (int64_t j = 0; j < 2; ++j) {
        Value v = pair.values[j];
        if (v.getType() != element)
          v = arith::TruncFOp::create(kb.b, kb.loc, element, v);
        vector =
            LLVM::InsertElementOp::create(kb.b, kb.loc, vector, v, kb.i32(j));
      }
    }
    if (config.tmaStore) {
      // Into the result tile, past the matrix too: TMA clips the copy.
      kb.store(vector,
               resultTileAddress(consumer, fragmentRow,
                                 kb.mul(laneCol, kb.i32(elementBytes)),
                                 pair.index),
               2 * elementBytes);
      return;
    }
    kb.ifThen(pair.inBounds, [&] {
      Value offset =
          kb.add(kb.mul(kb.zext64(pair.row), outPitch), kb.zext64(pair.col));
      if (int64_t d = config.outHeadDim) {
        // [N / D, M, D]: the pair's head, then its row and column in it.
        Value head = kb.udiv(pair.col, kb.i32(d));
        Value inHead = kb.urem(pair.col, kb.i32(d));
        offset = kb.add(kb.mul(kb.add(kb.mul(kb.zext64(head), kb.zext64(m)),
                                      kb.zext64(pair.row)),
                               kb.i64(d)),
                        kb.zext64(inHead));
      }
      Value address = kb.byteOffset(out, kb.mul(offset, kb.i64(elementBytes)));
      kb.store(vector, address, 2 * elementBytes);
    });
  };
  // Pairs are stored as soon as they are computed (few live registers),
  // unless block scales need a block's values first. Their loads go first,
  // a batch at a time (kEpilogueBatches): a store may alias them, so a load
  // after a store waits for it, and the two consumer warpgroups of the SM's
  // one CTA (two warps per scheduler) have no other work to hide the
  // latency. (An H100 ran the MLP block's GELU-derivative GEMM, whose
  // epilogue reads a bf16 tensor, at 1555 us with batches of 8 pairs,
  // against 917 us for the same GEMM without an epilogue.)
  Value stagingSlot;
  if (config.stagedMatrices) {
    Value phase;
    std::tie(stagingSlot, phase) = staging.getSlot(tile);
    staging.waitFull(stagingSlot, phase);
  }
  if (!config.resultBlock) {
    int64_t batches = config.epilogueWarpgroup ? kEpilogueWarpgroupBatches
                      : config.blockN > 128    ? kWideEpilogueBatches
                                               : kEpilogueBatches;
    int64_t inFlight = accCount() / 2 / batches;
    for (int64_t first = 0; first < accCount(); first += 2 * inFlight) {
      int64_t last = std::min<int64_t>(accCount(), first + 2 * inFlight);
      SmallVector<Pair> pairs;
      for (int64_t i = first; i < last; i += 2)
        pairs.push_back(loadPair(i));
      for (auto [p, pair] : llvm::enumerate(pairs)) {
        computePair(pair, first + 2 * p);
        storePair(pair, outFactor);
      }
    }
  } else {
    // Results quantized by blocks: the encode multiplier of each pair's
    // block. A row's part of a block lies in the four lanes of a quad: each
    // thread folds its values of each (row, block), the quad reduces them,
    // and its first lane stores the block's decode scale.
    SmallVector<Pair> pairs;
    for (int64_t i = 0; i < accCount(); i += 2) {
      pairs.push_back(loadPair(i));
      computePair(pairs.back(), i);
    }
    int64_t blocks = config.blockN / config.resultBlock;
    auto slot = [&](int64_t p) {
      int64_t i = 2 * p;
      return ((i >> 1) & 1) * blocks + 8 * (i >> 2) / config.resultBlock;
    };
    SmallVector<Value> blockAmaxes(2 * blocks, kb.f32(0.0f));
    for (auto [p, pair] : llvm::enumerate(pairs)) {
      for (int64_t j = 0; j < 2; ++j) {
        Value &amax = blockAmaxes[slot(p)];
        amax = foldAmax(amax, kb.extToF32(pair.values[j]),
                        elementInBounds(pair.row, pair.col, j));
      }
    }
    Value first = kb.eq(kb.urem(lane, kb.i32(4)), kb.i32(0));
    SmallVector<Value> factors;
    for (int64_t half = 0; half < 2; ++half) {
      Value row = kb.add(rowBase, kb.i32(8 * half));
      for (int64_t block = 0; block < blocks; ++block) {
        Value amax = kb.warpMax(blockAmaxes[half * blocks + block], 4,
                                /*propagateNaN=*/false);
        Value blockCol = kb.add(colBase, kb.i32(block * config.resultBlock));
        Value owner = arith::AndIOp::create(
            kb.b, kb.loc, first,
            arith::AndIOp::create(kb.b, kb.loc, kb.ult(row, m),
                                  kb.ult(blockCol, n)));
        factors.push_back(emitResultBlockScale(amax, row, blockCol, owner));
      }
    }
    for (auto [p, pair] : llvm::enumerate(pairs))
      storePair(pair, factors[slot(p)]);
  }
  if (config.tmaStore) {
    // The warpgroup's writes, made visible to the TMA unit, then its copies
    // in boxes of 128 bytes by 64 rows (none past the matrix).
    NVVM::FenceProxyOp::create(
        kb.b, kb.loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(kb.b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    emitResultTileBarrier(consumer);
    kb.ifThen(issuer, [&] {
      Value row = kb.add(m0, kb.mul(consumer, kb.i32(64)));
      Value rowBytes = kb.mul(n, kb.i32(elementBytes));
      for (int64_t box = 0; box < config.blockN * elementBytes / 128; ++box) {
        Value byte =
            kb.add(kb.mul(colBase, kb.i32(elementBytes)), kb.i32(box * 128));
        SmallVector<Value, 3> coordinates{byte, row};
        if (batch)
          coordinates.push_back(batch);
        // Merged ([M, batches, N]): the batch is the middle dimension.
        if (config.outMergedBatches)
          coordinates = {byte, batch, row};
        // Head-major ([N / D, M, D], a 3-D map): the box's head, and its
        // bytes in the head's row (heads hold whole boxes).
        if (int64_t d = config.outHeadDim) {
          Value headBytes = kb.i32(d * elementBytes);
          coordinates = {kb.urem(byte, headBytes), row,
                         kb.udiv(byte, headBytes)};
        }
        kb.ifThen(kb.andI(kb.ult(byte, rowBytes), kb.ult(row, m)), [&] {
          emitTmaStore(kb, tmapOut,
                       kb.byteOffset(resultTileBase(consumer), box * 64 * 128),
                       coordinates);
        });
      }
      emitBulkCommit(kb);
    });
  }
  // Every staged element has been read (and used): release the slot, one
  // arrival per consumer warp.
  if (config.stagedMatrices)
    kb.ifThen(kb.eq(lane, kb.i32(0)),
              [&] { staging.arriveEmpty(stagingSlot); });
  if (config.rowAmax) {
    // A row's values lie in the four lanes of a quad: reduce them, then one
    // atomic per row.
    for (int64_t half = 0; half < 2; ++half) {
      Value rowAmax = kb.warpMax(amaxes[half], 4, /*propagateNaN=*/false);
      Value row = kb.add(rowBase, kb.i32(8 * half));
      Value first = kb.eq(kb.urem(lane, kb.i32(4)), kb.i32(0));
      kb.ifThen(arith::AndIOp::create(kb.b, kb.loc, first, kb.ult(row, m)),
                [&] {
                  kb.atomicMaxNonNegative(
                      kb.byteOffset(amaxOut, kb.mul(kb.zext64(row), kb.i64(4))),
                      rowAmax);
                });
    }
  } else if (config.outAmax) {
    emitAmaxAtomic(amaxes[0], lane);
  }
}

void GemmEmitter::emit() {
  func->setAttr("nvvm.maxnreg",
                kb.b.getI32IntegerAttr(config.epilogueWarpgroup
                                           ? kEpilogueWarpgroupMaxRegisters
                                           : kMaxRegisters));
  stages = config.getStages();
  accType = LLVM::LLVMStructType::getLiteral(
      kb.b.getContext(), SmallVector<Type>(accCount(), kb.f32()));
  emitTileGrid(config.blockM, config.blockN,
               config.getKElements(GemmSM90Config::kBlockK));
  ring = MbarrierRing(kb, smem, stages, barriersOffset(),
                      barriersOffset() + 8 * stages);
  staging = MbarrierRing(kb, smem, 1, config.getStagedBarrierOffset(),
                         config.getStagedBarrierOffset() + 8);
  handOver = MbarrierRing(kb, smem, 1, config.getHandOverBarrierOffset(),
                          config.getHandOverBarrierOffset() + 8);

  Value tid = kb.threadId();
  Value warpgroup = kb.udiv(tid, kb.i32(kWarpgroup));
  // Thread 0 sets up the ring's barriers: one arrival (with the TMA bytes)
  // fills a slot, one per consumer warp frees it.
  kb.ifThen(kb.eq(tid, kb.i32(0)), [&] {
    // With multicast B the consumers of both CTAs of the cluster free a
    // slot.
    ring.emitInit(1, kConsumerWarps * config.getClusterSize());
    if (config.stagedMatrices)
      staging.emitInit(1, kConsumerWarps);
    // Every consumer thread fills the hand-over, every epilogue thread
    // empties it.
    if (config.epilogueWarpgroup)
      handOver.emitInit(2 * kWarpgroup, kWarpgroup);
    NVVM::FenceMbarrierInitOp::create(kb.b, kb.loc);
  });
  // The barriers are initialized before any thread of the CTA, or of the
  // cluster (whose producers copy into this CTA and release its slots),
  // uses them.
  auto clusterBarrier = [&] {
    NVVM::ClusterArriveOp::create(kb.b, kb.loc, nullptr);
    NVVM::ClusterWaitOp::create(kb.b, kb.loc, nullptr);
  };
  if (config.multicastB)
    clusterBarrier();
  else
    NVVM::Barrier0Op::create(kb.b, kb.loc);

  auto ifOp = scf::IfOp::create(kb.b, kb.loc, kb.eq(warpgroup, kb.i32(0)),
                                /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(kb.b);
    kb.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    auto [producerRegisters, consumerRegisters] = getRegisterSplit(config);
    NVVM::SetMaxRegisterOp::create(
        kb.b, kb.loc, kb.b.getI32IntegerAttr(producerRegisters),
        NVVM::SetMaxRegisterActionAttr::get(
            kb.b.getContext(), NVVM::SetMaxRegisterAction::decrease));
    kb.ifThen(kb.ult(tid, kb.i32(32)), [&] { emitProducer(); });
    kb.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    auto setMaxRegisters = [&](int64_t count, NVVM::SetMaxRegisterAction how) {
      NVVM::SetMaxRegisterOp::create(
          kb.b, kb.loc, kb.b.getI32IntegerAttr(count),
          NVVM::SetMaxRegisterActionAttr::get(kb.b.getContext(), how));
    };
    if (!config.epilogueWarpgroup) {
      setMaxRegisters(consumerRegisters, NVVM::SetMaxRegisterAction::increase);
      emitConsumer(kb.sub(warpgroup, kb.i32(1)));
    } else {
      // Warpgroups 1 and 2 consume, 3 runs the epilogue.
      auto role = scf::IfOp::create(kb.b, kb.loc, kb.ult(warpgroup, kb.i32(3)),
                                    /*withElseRegion=*/true);
      kb.b.setInsertionPointToStart(&role.getThenRegion().front());
      setMaxRegisters(kHandOverConsumerRegisters,
                      NVVM::SetMaxRegisterAction::increase);
      emitConsumer(kb.sub(warpgroup, kb.i32(1)));
      kb.b.setInsertionPointToStart(&role.getElseRegion().front());
      setMaxRegisters(kEpilogueWarpgroupRegisters,
                      NVVM::SetMaxRegisterAction::increase);
      emitEpilogueWarpgroup();
    }
  }
  // Neither CTA of a cluster exits while the other may still copy into its
  // shared memory or arrive on its barriers.
  if (config.multicastB)
    clusterBarrier();
  LLVM::ReturnOp::create(kb.b, kb.loc, ValueRange{});
}

} // namespace

LLVM::LLVMFuncOp mlir::fp8::buildGemmSM90Kernel(OpBuilder &builder,
                                                Location loc,
                                                const GemmSM90Config &config) {
  return buildKernel<GemmEmitter>(builder, loc, config);
}
