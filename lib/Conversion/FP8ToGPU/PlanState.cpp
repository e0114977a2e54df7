//===- PlanState.cpp - Launches of delayed-scaling state ------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Delayed scaling keeps its amax history and scales in ml_program globals.
// Each global becomes a state buffer of the plan (initial value uploaded
// once, kept across runs); a load snapshots it, a store copies back, and
// fp8.update_delayed_scale is one kernel of one CTA.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

using namespace mlir;
using namespace mlir::fp8;

/// The state buffer of ml_program global `name`, created on first use.
static FailureOr<int64_t> getStateBuffer(PlanBuilder &plan, Operation *user,
                                         StringRef name) {
  auto it = plan.states.find(name);
  if (it != plan.states.end())
    return it->second;
  auto global = SymbolTable::lookupNearestSymbolFrom<ml_program::GlobalOp>(
      user, StringAttr::get(plan.getContext(), name));
  auto type = global ? dyn_cast<RankedTensorType>(global.getType()) : nullptr;
  auto value = global
                   ? dyn_cast_or_null<DenseElementsAttr>(global.getValueAttr())
                   : nullptr;
  if (!type || !type.hasStaticShape() || !value)
    return user->emitError()
           << "fp8 GPU lowering: global @" << name
           << " needs a statically shaped tensor type and an initial value to "
              "become a state buffer";
  int64_t id = plan.addBuffer(PlanBuffer::Kind::State, type);
  plan.getBuffer(id).value = value;
  plan.getBuffer(id).name = name.str();
  plan.states[name] = id;
  return id;
}

// A load snapshots the global: a later store in the same call must not
// change what was loaded.
LogicalResult mlir::fp8::planGlobalLoad(PlanBuilder &plan,
                                        ml_program::GlobalLoadOp op) {
  FailureOr<int64_t> state =
      getStateBuffer(plan, op, op.getGlobal().getLeafReference());
  if (failed(state))
    return failure();
  int64_t snapshot = plan.bufferOf(op.getResult());
  plan.addCopy(*state, snapshot, plan.getBuffer(*state).bytes);
  return success();
}

LogicalResult mlir::fp8::planGlobalStore(PlanBuilder &plan,
                                         ml_program::GlobalStoreOp op) {
  FailureOr<int64_t> state =
      getStateBuffer(plan, op, op.getGlobal().getLeafReference());
  if (failed(state))
    return failure();
  plan.addCopy(plan.bufferOf(op.getValue()), *state,
               plan.getBuffer(*state).bytes);
  return success();
}

LogicalResult mlir::fp8::planUpdateDelayedScale(PlanBuilder &plan,
                                                UpdateDelayedScaleOp op) {
  DelayedScaleConfig config;
  config.format = op.getFormat();
  config.algo = op.getAlgo();
  config.margin = op.getMargin();
  config.zeroAmax = op.getZeroAmax();
  OpBuilder builder = plan.getKernelBuilder();
  LLVM::LLVMFuncOp kernel =
      buildDelayedScaleKernel(builder, op.getLoc(), config);
  plan.addKernelLaunch(
      kernel, config, {1, 1, 1}, /*sharedBytes=*/32,
      [&](DelayedScaleParam param) -> LaunchParam {
        switch (param) {
        case DelayedScaleParam::Amax:
          return BufferParam{plan.bufferOf(op.getAmax())};
        case DelayedScaleParam::History:
          return BufferParam{plan.bufferOf(op.getHistory())};
        case DelayedScaleParam::Scale:
          return BufferParam{plan.bufferOf(op.getScale())};
        case DelayedScaleParam::NewHistory:
          return BufferParam{plan.bufferOf(op.getNewHistory())};
        case DelayedScaleParam::NewScale:
          return BufferParam{plan.bufferOf(op.getNewScale())};
        case DelayedScaleParam::NewScaleInv:
          return BufferParam{plan.bufferOf(op.getNewScaleInv())};
        case DelayedScaleParam::HistoryLength:
          return I32Param{op.getHistory().getType().getDimSize(0)};
        }
        llvm_unreachable("unknown delayed-scale parameter");
      },
      /*persistent=*/false);
  return success();
}
