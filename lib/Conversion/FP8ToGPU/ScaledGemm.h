//===- ScaledGemm.h - What both chips' GEMM emitters share ------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Both GEMM kernels are persistent over output tiles and end in the same
// epilogue steps: scale, add the bias, fold the amax of the results, convert.
// GemmEmitterBase holds what they build alike; each chip's emitter derives
// from it and adds its main loop and its way of reading the accumulator.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_LIB_CONVERSION_FP8TOGPU_SCALEDGEMM_H
#define FP8_LIB_CONVERSION_FP8TOGPU_SCALEDGEMM_H

#include "KernelBuilder.h"

namespace mlir::fp8 {

/// The base of the emitter of a `Config` (GemmSM90Config, GemmSM100Config)
/// kernel.
template <typename Config>
class GemmEmitterBase : public KernelEmitter<Config> {
public:
  GemmEmitterBase(KernelBuilder &kb, const Config &config,
                  LLVM::LLVMFuncOp func);

protected:
  using KernelEmitter<Config>::kb;
  using KernelEmitter<Config>::config;
  using KernelEmitter<Config>::func;

  /// Counts the output tiles of `blockM` x `blockN` and the K steps of
  /// `blockK` elements, and takes the dynamic shared memory.
  void emitTileGrid(int64_t blockM, int64_t blockN, int64_t blockK);
  /// The persistent loop over output tiles (CTA b computes tiles b, b +
  /// gridDim, ... in groups of tile rows that share operands in L2): `body`
  /// gets the tile's row and column in the grid of tiles, its batch (null
  /// unless `batched`) and the carried values. Batched kernels walk the
  /// batches one after the other; during `body`, `out`, `scaleA` and
  /// `scaleB` point at the tile's batch, so that the body indexes one
  /// matrix.
  ValueRange forEachTile(
      ValueRange inits,
      function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)> body);
  /// Issues the TMA load of the operand tile at (`k0`, `row`) of `tensorMap`
  /// (of matrix `batch` of a 3-D map when `batch` is set) into `dst`;
  /// with `ctaMask`, into every CTA of the cluster it names (emitTmaLoad).
  void loadOperandTile(Value tensorMap, Value dst, Value k0, Value row,
                       Value batch, Value barrier, Value ctaMask = Value());

  /// A shared-memory matrix descriptor of wgmma or tcgen05: the fields
  /// `constant` and the encoded address of `pointer` + `offset` bytes.
  Value getSharedDescriptor(uint64_t constant, Value pointer, int64_t offset);
  /// This CTA's rank in its cluster of [getClusterSize(), 1, 1] CTAs of a
  /// one-dimensional grid: its x index mod the cluster size.
  Value getClusterRank() {
    return kb.urem(kb.blockId(), kb.i32(config.getClusterSize()));
  }
  /// Element `index` of an f32 array.
  Value loadF32(Value array, Value index);
  /// The bias of column `col` (clamped into the matrix), as f32.
  Value loadBias(Value col);
  /// `v` plus the bias of column `col` (clamped into the matrix).
  Value addBias(Value v, Value col) { return kb.addf(v, loadBias(col)); }
  /// `amax` with |v| folded in where `in` (NaN ignored: a comparison with
  /// NaN keeps the old value).
  Value foldAmax(Value amax, Value v, Value in);
  /// The result element of product value `v` (f32, scaled, bias added) at
  /// (`row`, `col`), both inside the matrix, through the epilogue: `v`
  /// rounded to the epilogue's product type, the body cloned with the
  /// inputs' elements there (and a linalg.generic body's row and column
  /// indices). The caller stores it (of type `out`).
  Value applyEpilogue(Value v, Value row, Value col) {
    return applyEpilogue(v, row, col, loadEpilogueInputs(row, col));
  }
  /// The elements of the epilogue's inputs at (`row`, `col`), both inside
  /// the matrix, in the order of config.epilogue->inputs. Loading them
  /// apart from applyEpilogue lets a caller issue the loads of several
  /// elements before it stores any result (which may alias them). Staged
  /// inputs (`stagedMatrices`) are left null, for the chip's emitter to
  /// read from shared memory.
  SmallVector<Value> loadEpilogueInputs(Value row, Value col);
  /// applyEpilogue with the inputs' elements `inputs` already loaded.
  Value applyEpilogue(Value v, Value row, Value col, ValueRange inputs);
  /// Folds this thread's `amax` into the amax output: one atomic per warp.
  void emitAmaxAtomic(Value amax, Value lane);
  /// Results quantized by blocks (`resultBlock`): the scale of the block
  /// of row `row` starting at column `blockCol` from its `amax` by the
  /// rule, stored as its decode scale where `owner`; returns its encode
  /// multiplier.
  Value emitResultBlockScale(Value amax, Value row, Value blockCol,
                             Value owner);
  /// The FP8 codes of fl32(lo * factor) and fl32(hi * factor), in memory
  /// order.
  Value convertToFP8(Value lo, Value hi, Value factor);

  // Parameters (null where the kernel does not take them).
  Value tmapA, tmapB, out, tmapOut, scaleA, scaleB, bias, globalA, globalB,
      outScale, amaxOut, resultScale, m, n, k, scaleABatchStride,
      scaleBBatchStride;
  // Output tiles (rows and columns of tiles, all tiles) and K steps.
  Value tilesM, tilesN, numTiles, kTiles;
  // The epilogue's inputs, in the order of config.epilogue->inputs.
  SmallVector<Value> epilogueInputs;
  // Batched kernels: the tiles of one matrix.
  Value tilesPerBatch;
  Value smem;
};

} // namespace mlir::fp8

#endif // FP8_LIB_CONVERSION_FP8TOGPU_SCALEDGEMM_H
