//===- ScaleLayout.cpp - Staging block scales for tcgen05 -----------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The kernel that copies row-major block scales into the layout the sm_100a
// block-scaled GEMM reads (Tcgen05ScaleLayout), for scales that no
// quantization wrote in that layout: one thread per destination byte, the
// inverse of the layout's offset function. f32 scales that are powers of two
// become their E8M0 codes, each repeated over the k-blocks it covers. A
// batched kernel stages matrix blockIdx.y of a batch, whose layouts follow
// each other.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Target/ScaleFactorLayout.h"

using namespace mlir;
using namespace mlir::fp8;

SmallVector<ScaleLayoutParam> ScaleLayoutConfig::getParams() const {
  using P = ScaleLayoutParam;
  SmallVector<P> params{P::Source,  P::Dest,         P::Rows,
                        P::KBlocks, P::RowsPerScale, P::RowStride,
                        P::KStride, P::KChunks,      P::Bytes};
  if (f32Source)
    params.push_back(P::KBlocksPerScale);
  if (batched)
    params.push_back(P::SourceBatchBytes);
  return params;
}

KernelParamKind mlir::fp8::getParamKind(ScaleLayoutParam param) {
  return param == ScaleLayoutParam::Source || param == ScaleLayoutParam::Dest
             ? KernelParamKind::Buffer
             : KernelParamKind::I32;
}

static void emitScaleLayout(KernelBuilder &kb, const ScaleLayoutConfig &config,
                            LLVM::LLVMFuncOp func) {
  using P = ScaleLayoutParam;
  KernelArgs<P> args(func, config.getParams());
  Value rows = args[P::Rows], kBlocks = args[P::KBlocks];
  Value kChunks = args[P::KChunks];
  Value source = args[P::Source], dest = args[P::Dest];
  if (config.batched) {
    Value batch = kb.zext64(kb.blockIdY());
    source = kb.byteOffset(source,
                           kb.mul(batch, kb.zext64(args[P::SourceBatchBytes])));
    dest = kb.byteOffset(dest, kb.mul(batch, kb.zext64(args[P::Bytes])));
  }

  Value offset = kb.add(
      kb.mul(kb.blockId(), kb.i32(ScaleLayoutConfig::kThreads)), kb.threadId());
  kb.ifThen(kb.ult(offset, args[P::Bytes]), [&] {
    // The inverse of getScaleSmemOffset (ScaleFactorLayout.h): byte
    // 16 * (r % 32) + 4 * (r % 128 / 32) + j % 4 of chunk
    // (r / 128) * kChunks + j / 4.
    Value chunk = kb.udiv(offset, kb.i32(kScaleChunkBytes));
    Value inChunk = kb.urem(offset, kb.i32(kScaleChunkBytes));
    Value line = kb.udiv(inChunk, kb.i32(16));
    Value inLine = kb.urem(inChunk, kb.i32(16));
    Value row =
        kb.add(kb.mul(kb.udiv(chunk, kChunks), kb.i32(kScaleChunkRows)),
               kb.add(kb.mul(kb.udiv(inLine, kb.i32(4)), kb.i32(32)), line));
    Value kBlock = kb.add(kb.mul(kb.urem(chunk, kChunks), kb.i32(4)),
                          kb.urem(inLine, kb.i32(4)));
    Value in = arith::AndIOp::create(kb.b, kb.loc, kb.ult(row, rows),
                                     kb.ult(kBlock, kBlocks));
    // Padding is zero; clamped indices keep the load in bounds.
    Value srcRow =
        kb.udiv(kb.minU(row, kb.sub(rows, kb.i32(1))), args[P::RowsPerScale]);
    Value srcK = kb.minU(kBlock, kb.sub(kBlocks, kb.i32(1)));
    if (config.f32Source)
      srcK = kb.udiv(srcK, args[P::KBlocksPerScale]);
    Value index = kb.add(kb.mul(srcRow, args[P::RowStride]),
                         kb.mul(srcK, args[P::KStride]));
    Value byte;
    if (config.f32Source) {
      // 2^e is E8M0 code e + 127, the f32 exponent field; 2^-127, the one
      // subnormal, has field 0, which is code 0.
      Value bits = kb.load(
          kb.i32(), kb.byteOffset(source, kb.mul(kb.zext64(index), kb.i64(4))),
          4);
      byte = arith::TruncIOp::create(kb.b, kb.loc, kb.i8(),
                                     kb.lshr(bits, kb.i32(23)));
    } else {
      byte = kb.load(kb.i8(), kb.byteOffset(source, kb.zext64(index)), 1);
    }
    Value zero =
        arith::ConstantOp::create(kb.b, kb.loc, kb.b.getI8IntegerAttr(0));
    kb.store(kb.select(in, byte, zero), kb.byteOffset(dest, kb.zext64(offset)),
             1);
  });
  LLVM::ReturnOp::create(kb.b, kb.loc, ValueRange{});
}

LLVM::LLVMFuncOp
mlir::fp8::buildScaleLayoutKernel(OpBuilder &builder, Location loc,
                                  const ScaleLayoutConfig &config) {
  return buildKernel(builder, loc, config, emitScaleLayout);
}
