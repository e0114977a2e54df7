//===- PlanElementwise.cpp - Launches of elementwise linalg ops -----------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// An elementwise linalg op between the GEMMs (bias adds, activations, casts,
// fills) becomes a kernel of its own: one element per thread in a
// grid-stride loop, the op's body cloned (buildElementwiseKernel). So does a
// tensor.generate (the random words of stochastic rounding), its body
// computing each element from its indices.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

/// The kernel of `op`, an elementwise linalg op or a tensor.generate, over
/// the elements of `shape` (static).
static LogicalResult planClonedBody(PlanBuilder &plan, Operation *op,
                                    ArrayRef<int64_t> shape) {
  int64_t total = 1;
  for (int64_t extent : shape)
    total *= extent;
  std::string reason;
  std::string name =
      llvm::formatv("fp8_elementwise_{0}_{1}", plan.getFunction().getName(),
                    plan.elementwiseCount++)
          .str();
  OpBuilder builder = plan.getKernelBuilder();
  FailureOr<LLVM::LLVMFuncOp> kernel =
      buildElementwiseKernel(builder, op, name, reason);
  if (failed(kernel))
    return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                           << "' has no kernel: " << reason;
  // Equal kernels (of any function) share one, named by the shape and a
  // digest of their code.
  kernel =
      plan.internKernel(*kernel, "fp8_elementwise_" + formatShapeTag(shape));
  SmallVector<LaunchParam> params;
  for (Value value : getElementwiseParams(op))
    params.push_back(BufferParam{plan.bufferOf(value)});
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>(llvm::divideCeil(total, 256), plan.getNumSMs() * 8));
  plan.addKernelLaunch(*kernel, {blocks, 1, 1}, 256, /*sharedBytes=*/0,
                       std::move(params), /*persistent=*/false);
  return success();
}

LogicalResult mlir::fp8::planElementwise(PlanBuilder &plan,
                                         linalg::LinalgOp linalgOp) {
  // Contractions and reductions are planned before elementwise ops.
  assert(linalgOp.getNumReductionLoops() == 0 && "not an elementwise op");
  return planClonedBody(plan, linalgOp, linalgOp.getStaticLoopRanges());
}

LogicalResult mlir::fp8::planGenerate(PlanBuilder &plan,
                                      tensor::GenerateOp op) {
  RankedTensorType type = op.getType();
  if (!type.hasStaticShape())
    return op.emitError() << "fp8 GPU lowering: 'tensor.generate' of " << type
                          << " has no kernel: its shape is dynamic";
  return planClonedBody(plan, op, type.getShape());
}
