//===- TmaPipeline.cpp - TMA loads into mbarrier-guarded rings ------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "TmaPipeline.h"

using namespace mlir;
using namespace mlir::fp8;

std::pair<Value, Value> MbarrierRing::getSlot(Value position) {
  return {kb->urem(position, kb->i32(size)),
          kb->andI(kb->udiv(position, kb->i32(size)), kb->i32(1))};
}

Value MbarrierRing::getBarrier(int64_t offset, Value slot) {
  return kb->byteOffset(smem,
                        kb->add(kb->i32(offset), kb->mul(slot, kb->i32(8))));
}

void MbarrierRing::emitInit(int64_t fullArrivals, int64_t emptyArrivals) {
  for (int64_t s = 0; s < size; ++s) {
    NVVM::MBarrierInitOp::create(kb->b, kb->loc, getFullBarrier(kb->i32(s)),
                                 kb->i32(fullArrivals), Value());
    NVVM::MBarrierInitOp::create(kb->b, kb->loc, getEmptyBarrier(kb->i32(s)),
                                 kb->i32(emptyArrivals), Value());
  }
}

void MbarrierRing::waitEmpty(Value slot, Value phase) {
  // The first lap waits on parity 1, which a fresh barrier has completed.
  emitWait(getEmptyBarrier(slot), kb->xorI(phase, kb->i32(1)));
}

void MbarrierRing::arriveEmpty(Value slot) { arrive(getEmptyBarrier(slot)); }

void MbarrierRing::arriveFull(Value slot) { arrive(getFullBarrier(slot)); }

void MbarrierRing::arriveEmptyInCta(Value slot, Value rank) {
  // Release at CTA scope, as for a local arrival: what the arrival orders is
  // this CTA's reads of the slot (wgmma's, complete once the consumer's
  // wgmma.wait_group returns) before the peer's copy into it, which the peer
  // issues only after its wait on this barrier. Release at cluster scope
  // compiles to a GPU-wide memory barrier (MEMBAR.ALL.GPU) before every
  // arrival, per K step and consumer warp: on an H100 that halved the
  // GEMMs' speed.
  arrive(NVVM::MapaOp::create(kb->b, kb->loc, kb->ptr(7), getEmptyBarrier(slot),
                              rank));
}

void MbarrierRing::arrive(Value barrier) {
  NVVM::MBarrierArriveOp::create(
      kb->b, kb->loc, Type(), barrier, Value(),
      NVVM::MemScopeKindAttr::get(kb->b.getContext(), NVVM::MemScopeKind::CTA));
}

Value MbarrierRing::emitProducerLoop(
    Value steps, Value position, Value elected, Value bytes,
    function_ref<void(Value, Value, Value)> issue,
    function_ref<void(Value, Value, Value)> everyThread) {
  ValueRange done =
      kb->forLoop(kb->i32(0), steps, kb->i32(1), ValueRange{position},
                  [&](Value step, ValueRange inner) -> SmallVector<Value> {
                    auto [slot, phase] = getSlot(inner[0]);
                    waitEmpty(slot, phase);
                    if (everyThread)
                      everyThread(step, slot, getFullBarrier(slot));
                    kb->ifThen(elected, [&] {
                      Value full = getFullBarrier(slot);
                      emitExpectTx(*kb, full, bytes);
                      issue(step, slot, full);
                    });
                    return {kb->add(inner[0], kb->i32(1))};
                  });
  return done[0];
}

void MbarrierRing::emitWait(Value barrier, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(kb->b, kb->loc, barrier, parity,
                                        kb->i32(kWaitSuspendTimeHintNs));
}

void mlir::fp8::emitExpectTx(KernelBuilder &kb, Value barrier, Value bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(
      kb.b, kb.loc, Type(), barrier, bytes,
      NVVM::MemScopeKindAttr::get(kb.b.getContext(), NVVM::MemScopeKind::CTA),
      kb.b.getBoolAttr(false), Value());
}

void mlir::fp8::emitTmaLoad(KernelBuilder &kb, Value tensorMap, Value dst,
                            ValueRange coordinates, Value barrier,
                            Value ctaMask) {
  assert((coordinates.size() == 2 || coordinates.size() == 3) &&
         "2-D and 3-D tensor maps");
  // The copies write shared::cluster addresses, which a CTA's own shared
  // memory is.
  Value cluster = LLVM::AddrSpaceCastOp::create(kb.b, kb.loc, kb.ptr(7), dst);
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      kb.b, kb.loc, cluster, tensorMap, coordinates, barrier, ValueRange{},
      ctaMask, Value(),
      NVVM::TMALoadModeAttr::get(kb.b.getContext(), NVVM::TMALoadMode::TILE),
      kb.b.getBoolAttr(false), nullptr, Value());
}

void mlir::fp8::emitTmaStore(KernelBuilder &kb, Value tensorMap, Value src,
                             ValueRange coordinates) {
  assert((coordinates.size() == 2 || coordinates.size() == 3) &&
         "2-D and 3-D tensor maps");
  NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
      kb.b, kb.loc, tensorMap, src, coordinates, Value(),
      NVVM::TMAStoreMode::TILE, Value());
}

void mlir::fp8::emitBulkCommit(KernelBuilder &kb) {
  NVVM::CpAsyncBulkCommitGroupOp::create(kb.b, kb.loc);
}

void mlir::fp8::emitBulkWait(KernelBuilder &kb, bool read) {
  NVVM::CpAsyncBulkWaitGroupOp::create(kb.b, kb.loc, 0,
                                       read ? kb.b.getUnitAttr() : nullptr);
}

void mlir::fp8::emitBulkLoad(KernelBuilder &kb, Value dst, Value src,
                             int64_t bytes, Value barrier) {
  Value cluster = LLVM::AddrSpaceCastOp::create(kb.b, kb.loc, kb.ptr(7), dst);
  NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
      kb.b, kb.loc, cluster, src, barrier, kb.i32(bytes), Value(), Value());
}
