//===- FP8ToGPU.cpp - fp8 graphs to GPU kernels and a launch plan ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Walks each function in order, gives every tensor a buffer, generates (or
// reuses) a kernel per op configuration in `gpu.module @fp8_kernels`, and
// records the launches in a LaunchPlan, kept in the module attribute
// `fp8.plans`; fp8-write-artifacts writes it as the runtime's JSON manifest.
//
// This file holds the pass, the walk, and the ops that need no kernel
// (views, host scalars); each op family's launches are planned in its own
// file (PlanBuilder.h lists them).
//
//===----------------------------------------------------------------------===//

#include "EntryPoints.h"
#include "PlanBuilder.h"

#include "fp8/Conversion/Passes.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_CONVERTFP8TOGPU
#include "fp8/Conversion/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// Ops that become no launch: views of another buffer, scalars the host
/// reads, constants. Returns failure() with an error when `op` is one of
/// them but cannot be planned, std::nullopt when it is not one of them.
std::optional<LogicalResult> planWithoutKernel(PlanBuilder &plan,
                                               Operation *op) {
  // Single elements moved between tensors are views of one buffer.
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    if (extract.getTensor().getType().getNumElements() != 1)
      return op->emitError("fp8 GPU lowering: elements are read on the host "
                           "only from single-element tensors");
    plan.scalarSources[extract.getResult()] =
        plan.bufferOf(extract.getTensor());
    return success();
  }
  if (auto from = dyn_cast<tensor::FromElementsOp>(op)) {
    if (from.getElements().size() == 1 &&
        plan.scalarSources.count(from.getElements()[0])) {
      plan.setBuffer(from.getResult(),
                     plan.scalarSources[from.getElements()[0]]);
      return success();
    }
    return op->emitError("fp8 GPU lowering: tensors are built from elements "
                         "of other single-element tensors only");
  }
  // 1 / s of a single scale: the GEMM takes s and divides.
  if (auto divf = dyn_cast<arith::DivFOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(divf.getType());
    DenseElementsAttr numerator;
    if (type && type.getNumElements() == 1 &&
        matchPattern(divf.getLhs(), m_Constant(&numerator)) &&
        numerator.getSplatValue<APFloat>().isExactlyValue(1.0)) {
      plan.reciprocals[divf.getResult()] = plan.bufferOf(divf.getRhs());
      return success();
    }
    return op->emitError("fp8 GPU lowering: elementwise arithmetic on "
                         "tensors has no kernel; only 1 / scale is folded "
                         "into the GEMM that reads it");
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    if (!type)
      return success(); // scalars feed other ops' attributes only
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!value)
      return op->emitError("fp8 GPU lowering: tensor constants are uploaded "
                           "from dense elements only; materialize resource "
                           "constants as dense elements first");
    int64_t id = plan.addBuffer(PlanBuffer::Kind::Constant, type);
    plan.getBuffer(id).value = value;
    plan.setBuffer(constant, id);
    return success();
  }
  if (isa<tensor::EmptyOp>(op))
    return success();
  // A cast between static types is a view of its operand's buffer.
  if (isa<tensor::CastOp>(op)) {
    plan.setBuffer(op->getResult(0), plan.bufferOf(op->getOperand(0)));
    return success();
  }
  return std::nullopt;
}

LogicalResult planOp(PlanBuilder &plan, Operation *op) {
  // Computed by the kernel of a row group, launched at its last op.
  if (auto it = plan.rowGroupOf.find(op); it != plan.rowGroupOf.end()) {
    if (plan.rowGroups[it->second].group.ops.back() == op)
      planRowGroup(plan, it->second);
    return success();
  }
  if (plan.reductionInitFills.contains(op) ||
      plan.reductionEpilogues.contains(op) || plan.earlyReductions.contains(op))
    return success();
  // Computed by the epilogue of the contraction before it.
  if (plan.contractionEpilogues.contains(op))
    return success();
  if (auto fill = dyn_cast<linalg::FillOp>(op);
      fill && isContractionZeroInit(fill))
    return success();
  if (auto matmul = dyn_cast<ScaledMatmulOp>(op))
    return planScaledMatmul(plan, matmul);
  if (auto quantize = dyn_cast<DynamicQuantizeOp>(op))
    return planDynamicQuantize(plan, quantize);
  if (auto quantize = dyn_cast<QuantizeOp>(op))
    return planQuantize(plan, quantize);
  if (auto amax = dyn_cast<AmaxOp>(op))
    return planAmax(plan, amax);
  if (auto computeScale = dyn_cast<ComputeScaleOp>(op))
    return planComputeScale(plan, computeScale);
  if (auto generate = dyn_cast<tensor::GenerateOp>(op))
    return planGenerate(plan, generate);
  if (auto decode = dyn_cast<ExpandDequantizeOp>(op))
    return planExpandDequantize(plan, decode);
  if (auto encode = dyn_cast<ExpandQuantizeOp>(op))
    return planExpandQuantize(plan, encode);
  if (auto update = dyn_cast<UpdateDelayedScaleOp>(op))
    return planUpdateDelayedScale(plan, update);
  if (auto load = dyn_cast<ml_program::GlobalLoadOp>(op))
    return planGlobalLoad(plan, load);
  if (auto store = dyn_cast<ml_program::GlobalStoreOp>(op))
    return planGlobalStore(plan, store);
  if (std::optional<LogicalResult> result = planLayout(plan, op))
    return *result;
  if (std::optional<LogicalResult> result = planWithoutKernel(plan, op))
    return *result;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (linalg::isaContractionOpInterface(linalgOp))
      return planContraction(plan, linalgOp);
    if (linalgOp.getNumReductionLoops() != 0)
      return planReduction(plan, linalgOp);
    if (isGroupStateStep(linalgOp))
      return planGroupStateStep(plan, linalgOp);
    if (planQuantizePrologue(plan, linalgOp))
      return success();
    return planElementwise(plan, linalgOp);
  }
  return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                         << "' has no " << getChipName(plan.getChip())
                         << " lowering";
}

/// Rewrites every fp8.dequantize by one f32 scale in `func` into the
/// elementwise linalg.generic it computes, which the planner gives an
/// elementwise kernel (fp8-fuse-elementwise has fused those that feed
/// elementwise ops already).
void decomposeTensorDequantizes(func::FuncOp func) {
  SmallVector<DequantizeOp> dequantizes;
  func.walk([&](DequantizeOp op) {
    if (isTensorDequantize(op))
      dequantizes.push_back(op);
  });
  OpBuilder b(func.getContext());
  for (DequantizeOp op : dequantizes) {
    op.replaceAllUsesWith(createTensorDequantizeGeneric(b, op));
    op.erase();
  }
}

/// Why a value of `type` has no buffer in a launch plan, or "": buffers
/// are sized, and kernels launched over them, at compile time.
std::string getUnplannableReason(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return "";
  std::string reason;
  llvm::raw_string_ostream os(reason);
  if (!tensor.hasStaticShape())
    os << "'" << type
       << "' has a dynamic shape; the plan sizes every buffer and launch at "
          "compile time: give it a static shape";
  else if (tensor.getNumElements() == 0)
    os << "'" << type
       << "' has no elements; the plan's buffers and launches need at least "
          "one";
  else if (!tensor.getElementType().isIntOrFloat())
    os << "'" << type << "' has elements of type '" << tensor.getElementType()
       << "'; buffers hold integers and floats of a fixed width";
  else if (tensor.getNumElements() >= (int64_t(1) << 31))
    os << "'" << type << "' has " << tensor.getNumElements()
       << " elements; the kernels index tensors of fewer than 2^31 elements "
          "(32-bit launch parameters)";
  return reason;
}

/// Every tensor of `func`, its arguments and results included, has a static
/// shape of at least one element.
LogicalResult checkPlannableTensors(func::FuncOp func) {
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    std::string reason = getUnplannableReason(arg.getType());
    if (!reason.empty())
      return func.emitError()
             << "fp8 GPU lowering: argument " << i << ": " << reason;
  }
  WalkResult walk = func.walk([&](Operation *op) {
    for (OpResult result : op->getResults()) {
      std::string reason = getUnplannableReason(result.getType());
      if (reason.empty())
        continue;
      op->emitError() << "fp8 GPU lowering: result " << result.getResultNumber()
                      << ": " << reason;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Plans `func`, an entry point with its calls inlined: its arguments are
/// the input buffers, its results the output buffers, and its temporaries
/// share one workspace (`reuseTemporaries`: bytes of temporaries never live
/// at once are shared). `fusePrologues`: quantize kernels compute the
/// elementwise ops only they read; `fuseRows`: row groups compute the ops
/// over rows around reductions.
LogicalResult planFunction(PlanBuilder &plan, bool reuseTemporaries,
                           bool fusePrologues, bool fuseRows) {
  func::FuncOp func = plan.getFunction();
  if (failed(checkPlannableTensors(func)))
    return failure();
  if (auto prepare = func->getAttrOfType<FlatSymbolRefAttr>(kPrepareAttrName))
    plan.getPlan().prepare = prepare.getValue().str();
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    int64_t id = plan.addBuffer(PlanBuffer::Kind::Input,
                                cast<RankedTensorType>(arg.getType()));
    plan.getBuffer(id).index = i;
    if (auto role =
            func.getArgAttrOfType<StringAttr>(i, kOptimizerStateAttrName))
      plan.getBuffer(id).role = role.getValue().str();
    if (auto prepared =
            func.getArgAttrOfType<IntegerAttr>(i, kPreparedAttrName))
      plan.getBuffer(id).prepared = prepared.getInt();
    if (auto layout = func.getArgAttrOfType<Tcgen05ScaleLayoutAttr>(
            i, kScaleLayoutAttrName)) {
      plan.getBuffer(id).layout = PlanBuffer::Layout::Tcgen05ScaleFactors;
      plan.tcgen05InputScales[id] = layout;
    }
    plan.setBuffer(arg, id);
  }
  if (!func.getBody().hasOneBlock())
    return func.emitError("fp8 GPU lowering: control flow is not supported");
  decomposeTensorDequantizes(func);
  plan.fusePrologues = fusePrologues;
  plan.fuseRows = fuseRows;
  formRowGroups(plan);
  collectReductionInitFills(plan);
  for (Operation &op : func.getBody().front().without_terminator())
    if (failed(planOp(plan, &op)))
      return failure();
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    int64_t id = plan.bufferOf(value);
    PlanBuffer::Kind kind = plan.getBuffer(id).kind;
    if (kind == PlanBuffer::Kind::Constant)
      return ret.emitError() << "fp8 GPU lowering: result " << i
                             << " is a constant; return computed values "
                                "only (the caller has the constant)";
    if (kind == PlanBuffer::Kind::State)
      return ret.emitError() << "fp8 GPU lowering: result " << i
                             << " is delayed-scaling state; return a value "
                                "computed from it";
    if (kind == PlanBuffer::Kind::Input || kind == PlanBuffer::Kind::Output) {
      // An argument returned as it is, or a value returned twice (CSE
      // merges results computed alike): the result is a copy of it, made
      // after every launch that writes it.
      if (plan.getBuffer(id).pitch ||
          plan.getBuffer(id).layout != PlanBuffer::Layout::RowMajor)
        return ret.emitError()
               << "fp8 GPU lowering: result " << i
               << " is an argument or another result stored padded or in a "
                  "scale layout, which a copy would keep; return a value "
                  "computed from it";
      int64_t copy = plan.addBuffer(PlanBuffer::Kind::Output,
                                    cast<RankedTensorType>(value.getType()));
      plan.addCopy(id, copy, plan.getBuffer(copy).bytes);
      id = copy;
    }
    PlanBuffer &buffer = plan.getBuffer(id);
    if (buffer.pitch)
      return ret.emitError()
             << "fp8 GPU lowering: result " << i
             << " is stored with rows padded to 16 bytes for TMA; return a "
                "tensor whose rows are multiples of 16 bytes";
    buffer.kind = PlanBuffer::Kind::Output;
    buffer.index = i;
    if (auto role =
            func.getResultAttrOfType<StringAttr>(i, kOptimizerStateAttrName))
      buffer.role = role.getValue().str();
  }
  assignWorkspace(plan.getPlan(), reuseTemporaries);
  return success();
}

struct ConvertFP8ToGPUPass
    : fp8::impl::ConvertFP8ToGPUBase<ConvertFP8ToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto tiles =
        llvm::StringSwitch<std::optional<PlanBuilder::SM90Tiles>>(sm90TileN)
            .Case("auto", PlanBuilder::SM90Tiles::Auto)
            .Case("128", PlanBuilder::SM90Tiles::Narrow)
            .Case("192", PlanBuilder::SM90Tiles::Wide)
            .Default(std::nullopt);
    // Bad options are the command line's errors, not the module's: no
    // operation attached.
    if (!tiles) {
      emitError(module.getLoc())
          << "convert-fp8-to-gpu: sm90-tile-n is auto, 128 or 192, got '"
          << sm90TileN << "'";
      return signalPassFailure();
    }
    if (numSMs < 1) {
      emitError(module.getLoc())
          << "convert-fp8-to-gpu: num-sms is the chip's multiprocessor count "
             "(132 on an H100 SXM), at least 1; got "
          << static_cast<int64_t>(numSMs);
      return signalPassFailure();
    }
    FailureOr<SmallVector<func::FuncOp>> functions =
        selectEntryPoints(module, entryPoints);
    if (failed(functions))
      return signalPassFailure();
    if (functions->empty())
      return;
    llvm::SetVector<func::FuncOp> callees;
    for (func::FuncOp func : *functions)
      if (failed(inlineCalls(func, callees)))
        return signalPassFailure();

    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
    if (!kernels) {
      auto target = NVVM::NVVMTargetAttr::get(
          &getContext(), /*optLevel=*/3, "nvptx64-nvidia-cuda",
          getChipName(chip), getPtxFeatures(chip));
      kernels =
          gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModuleName,
                                   builder.getArrayAttr({target}));
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());

    NamedAttrList plans;
    if (auto existing = module->getAttrOfType<DictionaryAttr>(kPlansAttr))
      plans.append(existing.getValue());
    for (func::FuncOp func : *functions) {
      PlanBuilder plan(func, kernels, chip, numSMs);
      plan.sm90Tiles = *tiles;
      plan.stageEpilogueInputs = stageEpilogueInputs;
      plan.sm90EpilogueWarpgroup = sm90EpilogueWarpgroup;
      plan.sm90MNMajorOperands = sm90MNMajorOperands;
      plan.sm90HeadMajorResults = sm90HeadMajorResults;
      plan.sm90TmaStore = sm90TmaStore;
      plan.sm90Multicast = sm90Multicast;
      plan.sm90AlternateConsumers = sm90AlternateConsumers;
      plan.sm90ProducerColumnScales = sm90ProducerColumnScales;
      if (failed(planFunction(plan, reuseTemporaries, fusePrologues, fuseRows)))
        return signalPassFailure();
      plans.set(func.getName(), plan.getPlan().toAttr(&getContext()));
    }
    // An entry point that a function left alone calls stays for it.
    for (func::FuncOp func : *functions) {
      callees.remove(func);
      if (SymbolTable::symbolKnownUseEmpty(func, module))
        func.erase();
    }
    eraseUnusedCallees(module, callees);
    module->setAttr(kPlansAttr, plans.getDictionary(&getContext()));
    if (failed(checkKernelTargets(kernels, chip)))
      return signalPassFailure();
  }
};

} // namespace
