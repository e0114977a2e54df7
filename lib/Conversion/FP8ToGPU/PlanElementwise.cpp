//===- PlanElementwise.cpp - Launches of elementwise linalg ops -----------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// An elementwise linalg op between the GEMMs (bias adds, activations, casts,
// fills) becomes a kernel of its own: one element per thread in a
// grid-stride loop, the op's body cloned (buildElementwiseKernel).
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

LogicalResult mlir::fp8::planElementwise(PlanBuilder &plan,
                                         linalg::LinalgOp linalgOp) {
  Operation *op = linalgOp;
  if (linalgOp.getNumReductionLoops() != 0)
    return op->emitError()
           << "fp8 GPU lowering: '" << op->getName()
           << "' reduces; contractions run on the GPU as fp8.scaled_matmul "
              "(run fp8-autocast first), other reductions have no kernel";
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
  SmallVector<LaunchParam> params;
  for (Value operand : op->getOperands())
    if (isa<RankedTensorType>(operand.getType()))
      params.push_back(BufferParam{plan.bufferOf(operand)});
  for (Value result : op->getResults())
    params.push_back(BufferParam{plan.bufferOf(result)});
  int64_t total = 1;
  for (int64_t r : linalgOp.getStaticLoopRanges())
    total *= r;
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>(llvm::divideCeil(total, 256), plan.getNumSMs() * 8));
  plan.addKernelLaunch(*kernel, {blocks, 1, 1}, 256, /*sharedBytes=*/0,
                       std::move(params), /*persistent=*/false);
  return success();
}
